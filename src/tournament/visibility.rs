//! What the public may see of a tournament whose rounds are published by hand.
//!
//! A round that is paired but not published is its director's draft: with auth on, its games,
//! byes and results are for the director (and the admin) until it is published. The web pages,
//! the open RPC reads and the live notifications all hide it from everyone else by these rules,
//! kept here beside the data so that every reader applies the same ones. Who directs is the
//! caller's business (`rpc::auth::directs`); this module only knows what the public sees.

use std::borrow::Cow;

use super::engine::Event;
use super::model::{RoundNumber, TournamentData};

/// Whether round `r`'s games, byes and results are public: it is paired and published.
pub fn is_public(data: &TournamentData, r: RoundNumber) -> bool {
    data.round(r).is_some_and(|rd| rd.published)
}

/// The last round before the first paired round that is not public: standings, crosstables
/// and exports stop there, so that a hidden round's results cannot be read from them either.
pub fn last_public_round(data: &TournamentData) -> RoundNumber {
    let paired = data.rounds.len() as RoundNumber;
    (1..=paired)
        .find(|&r| !is_public(data, r))
        .map_or(paired, |r| r - 1)
}

/// The tournament as the public sees it: the same data when every paired round is public,
/// else a copy that stops at [`last_public_round`].
pub fn public_data(data: &TournamentData) -> Cow<'_, TournamentData> {
    let last = last_public_round(data) as usize;
    if last == data.rounds.len() {
        return Cow::Borrowed(data);
    }
    let mut copy = data.clone();
    copy.rounds.truncate(last);
    Cow::Owned(copy)
}

/// Whether the public may see `e`, an event of the log read now (`data` is the state now): an
/// event about a round is public while that round is public; other events always are. A round
/// unpaired since, or paired again and not yet republished, takes its history with it.
pub fn event_is_public(data: &TournamentData, e: &Event) -> bool {
    e.round().is_none_or(|r| is_public(data, r))
}

/// Which rounds are published, followed event by event: for a stream of notifications that
/// must leave out what the public may not see without reading the state at each event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Publication {
    /// `published[r - 1]`: round r is paired and published.
    published: Vec<bool>,
}

impl Publication {
    /// The rounds' publication in `data`.
    pub fn of(data: &TournamentData) -> Publication {
        Publication {
            published: data.rounds.iter().map(|r| r.published).collect(),
        }
    }

    /// Whether round `r` is paired and published.
    pub fn is_public(&self, r: RoundNumber) -> bool {
        r.checked_sub(1)
            .and_then(|i| self.published.get(i as usize))
            .copied()
            .unwrap_or(false)
    }

    /// Folds `e` in as the engine folds it (only what publication depends on) and says
    /// whether the public may see it: an event about a round when that round was public just
    /// before it or is just after it (its publication, its withdrawal, a change to a public
    /// round, a public round paired again or unpaired); any other event always.
    pub fn apply(&mut self, e: &Event) -> bool {
        let Some(r) = e.round() else { return true };
        let before = self.is_public(r);
        let paired = self.published.len() as RoundNumber;
        match e {
            // A new round starts unpublished; pairing the last round again replaces it,
            // unpublished too.
            Event::RoundPaired { round, .. } if *round == paired + 1 => self.published.push(false),
            Event::RoundPaired { round, .. } if *round == paired && paired > 0 => {
                self.published[paired as usize - 1] = false;
            }
            Event::RoundUnpaired { round } if *round == paired && paired > 0 => {
                self.published.pop();
            }
            Event::RoundPublished { round, published } => {
                if let Some(slot) = round
                    .checked_sub(1)
                    .and_then(|i| self.published.get_mut(i as usize))
                {
                    *slot = *published;
                }
            }
            _ => {}
        }
        before || self.is_public(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::Tournament;
    use crate::tournament::model::{Outcome, Player, Settings, System};
    use crate::tournament::pair::PairOptions;
    use crate::tournament::results::ResultInput;

    fn state_flags(t: &Tournament) -> Vec<bool> {
        t.data.rounds.iter().map(|r| r.published).collect()
    }

    fn result(outcome: Outcome) -> ResultInput {
        ResultInput {
            outcome,
            ..ResultInput::default()
        }
    }

    /// A tournament taken through every event that moves a round's publication, each
    /// command's events applied as the registry applies them.
    fn lifecycle() -> Vec<Event> {
        let mut settings = Settings::defaults(System::Swiss);
        settings.rounds = 4;
        let mut log = vec![Tournament::create(settings, 3).unwrap()];
        let mut t = Tournament::replay(&log).unwrap();
        let mut run = |t: &mut Tournament, events: Vec<Event>| {
            for e in events {
                t.apply(&e).unwrap();
                log.push(e);
            }
        };
        for k in 0..6 {
            let p = Player {
                name: format!("P{k}"),
                first_name: "T".into(),
                rank: k - 10,
                ..Player::default()
            };
            let (ev, _) = t.register_player(p).unwrap();
            run(&mut t, ev);
        }
        let pair = |t: &Tournament, r| t.pair_round(r, &PairOptions::default()).unwrap().0;
        let ev = pair(&t, 1);
        run(&mut t, ev);
        let ev = t.set_result(1, 1, result(Outcome::WhiteWins)).unwrap().0;
        run(&mut t, ev); // a result in a draft round
        let ev = t.publish_round(1, true).unwrap();
        run(&mut t, ev);
        let ev = t.set_result(1, 2, result(Outcome::BlackWins)).unwrap().0;
        run(&mut t, ev); // in a public round
        let ev = t.publish_round(1, false).unwrap();
        run(&mut t, ev); // withdrawn
        let ev = t.set_result(1, 3, result(Outcome::Jigo)).unwrap().0;
        run(&mut t, ev);
        let ev = t.publish_round(1, true).unwrap();
        run(&mut t, ev);
        let ev = pair(&t, 2);
        run(&mut t, ev);
        let ev = t.publish_round(2, true).unwrap();
        run(&mut t, ev);
        let ev = t.unpair_round(2, false).unwrap();
        run(&mut t, ev); // a public round unpaired
        let ev = pair(&t, 2);
        run(&mut t, ev);
        let ev = t.unpair_round(2, false).unwrap();
        run(&mut t, ev); // a draft unpaired
        let ev = pair(&t, 2);
        run(&mut t, ev);
        let ev = t.publish_round(2, true).unwrap();
        run(&mut t, ev);
        let ev = t
            .remove_game(2, t.data.round(2).unwrap().games[0].table)
            .unwrap();
        run(&mut t, ev);
        log
    }

    #[test]
    fn publication_follows_the_engine_event_by_event() {
        let log = lifecycle();
        let kinds: Vec<&str> = log.iter().map(Event::kind).collect();
        for k in [
            "round_paired",
            "round_unpaired",
            "round_published",
            "game_removed",
        ] {
            assert!(kinds.contains(&k), "{k} in {kinds:?}");
        }
        let mut state = Tournament::replay(&log[..1]).unwrap();
        let mut followed = Publication::of(&state.data);
        let mut hidden = 0;
        for e in &log[1..] {
            let before = e.round().is_some_and(|r| is_public(&state.data, r));
            let seen = followed.apply(e);
            state.apply(e).unwrap();
            let after = e.round().is_some_and(|r| is_public(&state.data, r));
            assert_eq!(followed.published, state_flags(&state), "after {e:?}");
            assert_eq!(seen, e.round().is_none() || before || after, "{e:?}");
            hidden += usize::from(!seen);
            // Starting from any state gives the same as following from the start.
            assert_eq!(Publication::of(&state.data), followed);
        }
        // Round 1's draft pairing and result, the result entered while it was withdrawn,
        // round 2's three draft pairings and the unpairing of one of them.
        assert_eq!(hidden, 7, "{kinds:?}");
    }

    #[test]
    fn the_public_view_stops_before_the_first_hidden_round() {
        let mut log = lifecycle();
        let mut t = Tournament::replay(&log).unwrap();
        assert_eq!(last_public_round(&t.data), 2);
        assert!(matches!(public_data(&t.data), Cow::Borrowed(_)));
        let ev = t.publish_round(1, false).unwrap();
        for e in ev {
            t.apply(&e).unwrap();
            log.push(e);
        }
        assert!(!is_public(&t.data, 1) && is_public(&t.data, 2));
        assert_eq!(last_public_round(&t.data), 0);
        assert!(public_data(&t.data).rounds.is_empty());
        assert_eq!(public_data(&t.data).players, t.data.players);
        // Events read now: those of round 1 are hidden (all of them, even those the public
        // saw while it was published), round 2's and the others are not.
        for e in &log {
            assert_eq!(event_is_public(&t.data, e), e.round() != Some(1), "{e:?}");
        }
    }
}
