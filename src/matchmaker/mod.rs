//! The tournament engine: pure, deterministic state for one rswiss-style Swiss tournament.
//!
//! A tournament's state is a fold of its events ([`Event`]). Commands ([`Tournament::checkout`],
//! [`Tournament::commit`], ...) never mutate: they compute the events that would happen, and the
//! caller makes them durable before applying them with [`Tournament::apply`]. That split is what
//! lets the daemon acknowledge a call only after its events are stored, and rebuild every
//! tournament exactly by replaying its log. All randomness comes from the seed in
//! [`Event::Created`], so a replay pairs every round the same way.

mod error;
mod rounds;
mod standings;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

pub use error::EngineError;
pub use rounds::{PairingMode, RoundPlan};
pub use standings::{CRITERIA, Criterion, Row};

/// A player as the client names it (rswiss's `in_tournament_id`).
pub type PlayerId = i64;

/// Result of a match relative to the stored orientation: -1 first player wins, 0 draw, 1 second
/// player wins (rswiss's encoding).
pub type Outcome = i8;

/// Everything that can happen to a tournament. The serialized form is the store's event body,
/// so variants and fields may be added but never renamed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    Created {
        players: Vec<PlayerId>,
        additional_rounds: u32,
        allow_repeat: bool,
        pairing: PairingMode,
        seed: u64,
    },
    /// A round was generated; `matches` are in board order (top board first), `p1` the
    /// higher-placed player at pairing time.
    RoundPaired {
        round: u32,
        matches: Vec<PlannedMatch>,
        bye: Option<PlayerId>,
    },
    CheckedOut {
        p1: PlayerId,
        p2: PlayerId,
    },
    Committed {
        p1: PlayerId,
        p2: PlayerId,
        result: Outcome,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedMatch {
    pub p1: PlayerId,
    pub p2: PlayerId,
    /// The pair met before: rswiss flags both the old and the new match as repeated.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub repeated: bool,
}

/// Settings fixed at creation.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub additional_rounds: u32,
    pub allow_repeat: bool,
    pub pairing: PairingMode,
    pub seed: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchState {
    /// Paired, waiting to be handed out.
    Available,
    CheckedOut,
    Done(Outcome),
}

/// One scheduled game. Players are indices into [`Tournament::players`].
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    pub p1: usize,
    pub p2: usize,
    /// 0-based round index.
    pub round: u32,
    pub state: MatchState,
    pub repeated: bool,
}

/// The folded state of one tournament.
#[derive(Debug, Clone)]
pub struct Tournament {
    players: Vec<PlayerId>,
    index: HashMap<PlayerId, usize>,
    settings: Settings,
    /// Total number of rounds: ceil(log2 n) + additional rounds.
    rounds: u32,
    /// Rounds generated so far.
    round: u32,
    matches: Vec<Match>,
    /// Round index of each bye a player received.
    byes: Vec<Vec<u32>>,
    /// Index into `matches` of the first match that may still be available: everything before
    /// it has been handed out, so checkout does not rescan finished rounds.
    next_available: usize,
    checked_out: usize,
}

/// ceil(log2 n) for n ≥ 1: the bit length of n - 1. rswiss's float formula agrees for every
/// n ≤ 10^6 (docs/rswiss.md); the exact form is used so no float rounding can differ.
pub fn base_rounds(n: usize) -> u32 {
    if n <= 1 {
        0
    } else {
        usize::BITS - (n - 1).leading_zeros()
    }
}

impl Tournament {
    /// Validates a creation request and returns its event. `seed` is supplied by the caller
    /// (drawn at random when the client gave none) so the engine itself stays pure.
    pub fn create(
        players: Vec<PlayerId>,
        additional_rounds: u32,
        allow_repeat: bool,
        pairing: PairingMode,
        seed: u64,
    ) -> Result<Event, EngineError> {
        if players.is_empty() {
            return Err(EngineError::NoPlayers);
        }
        let mut seen = std::collections::HashSet::with_capacity(players.len());
        if !players.iter().all(|p| seen.insert(*p)) {
            return Err(EngineError::RepeatedIds);
        }
        Ok(Event::Created {
            players,
            additional_rounds,
            allow_repeat,
            pairing,
            seed,
        })
    }

    /// Builds the state from a `Created` event.
    pub fn from_created(event: &Event) -> Result<Tournament, EngineError> {
        let Event::Created {
            players,
            additional_rounds,
            allow_repeat,
            pairing,
            seed,
        } = event
        else {
            return Err(EngineError::Corrupt("first event is not Created".into()));
        };
        let index = players.iter().enumerate().map(|(i, p)| (*p, i)).collect();
        Ok(Tournament {
            rounds: base_rounds(players.len()).saturating_add(*additional_rounds),
            byes: vec![Vec::new(); players.len()],
            players: players.clone(),
            index,
            settings: Settings {
                additional_rounds: *additional_rounds,
                allow_repeat: *allow_repeat,
                pairing: *pairing,
                seed: *seed,
            },
            round: 0,
            matches: Vec::new(),
            next_available: 0,
            checked_out: 0,
        })
    }

    /// Rebuilds a tournament from its whole event log.
    pub fn replay<'a>(
        events: impl IntoIterator<Item = &'a Event>,
    ) -> Result<Tournament, EngineError> {
        let mut events = events.into_iter();
        let first = events
            .next()
            .ok_or_else(|| EngineError::Corrupt("empty event log".into()))?;
        let mut t = Tournament::from_created(first)?;
        for e in events {
            t.apply(e)?;
        }
        Ok(t)
    }

    pub fn players(&self) -> &[PlayerId] {
        &self.players
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Total number of rounds the tournament will have.
    pub fn rounds(&self) -> u32 {
        self.rounds
    }

    /// Rounds generated so far (rswiss's `round`).
    pub fn round(&self) -> u32 {
        self.round
    }

    pub fn matches(&self) -> &[Match] {
        &self.matches
    }

    pub fn player_id(&self, index: usize) -> PlayerId {
        self.players[index]
    }

    fn player_index(&self, id: PlayerId) -> Result<usize, EngineError> {
        self.index
            .get(&id)
            .copied()
            .ok_or(EngineError::UnknownPlayer(id))
    }

    fn first_available(&self) -> Option<usize> {
        (self.next_available..self.matches.len())
            .find(|&i| self.matches[i].state == MatchState::Available)
    }

    /// rswiss's `ended?`: every round generated and no match left out or waiting.
    pub fn has_ended(&self) -> bool {
        self.round >= self.rounds && self.checked_out == 0 && self.first_available().is_none()
    }

    /// Matches handed out and not yet committed, in pairing order.
    pub fn checked_out_matches(&self) -> Vec<(PlayerId, PlayerId)> {
        self.matches
            .iter()
            .filter(|m| m.state == MatchState::CheckedOut)
            .map(|m| (self.players[m.p1], self.players[m.p2]))
            .collect()
    }

    /// rswiss's `repeated_matches`: match rows flagged repeated (two per repetition).
    pub fn repeated_matches(&self) -> usize {
        self.matches.iter().filter(|m| m.repeated).count()
    }

    /// The next match to play, generating the next round when the current one has nothing
    /// left to hand out. Returns the events to store and the pair handed out.
    pub fn checkout(&self) -> Result<(Vec<Event>, (PlayerId, PlayerId)), EngineError> {
        if let Some(i) = self.first_available() {
            let m = &self.matches[i];
            let (p1, p2) = (self.players[m.p1], self.players[m.p2]);
            return Ok((vec![Event::CheckedOut { p1, p2 }], (p1, p2)));
        }
        // rswiss's order of checks in gen_next_round: matches still out, then the end.
        if self.checked_out > 0 {
            return Err(EngineError::StillOut(self.checked_out));
        }
        if self.round >= self.rounds {
            return Err(EngineError::Ended);
        }
        let plan = self.plan_round()?;
        let Some(first) = plan.matches.first().copied() else {
            // Only possible with one player left to pair, which base_rounds rules out; refuse
            // rather than record an empty round.
            return Err(EngineError::Corrupt("generated an empty round".into()));
        };
        let events = vec![
            Event::RoundPaired {
                round: self.round + 1,
                matches: plan.matches,
                bye: plan.bye,
            },
            Event::CheckedOut {
                p1: first.p1,
                p2: first.p2,
            },
        ];
        Ok((events, (first.p1, first.p2)))
    }

    /// Records a result. `pair` may be in either order; `result` is relative to the stored
    /// orientation (the one checkout returned), as in rswiss.
    pub fn commit(
        &self,
        pair: (PlayerId, PlayerId),
        result: i64,
    ) -> Result<Vec<Event>, EngineError> {
        let a = self.player_index(pair.0)?;
        let b = self.player_index(pair.1)?;
        let outcome: Outcome = match result {
            -1 => -1,
            0 => 0,
            1 => 1,
            other => return Err(EngineError::BadResult(other)),
        };
        let m = self
            .matches
            .iter()
            .find(|m| {
                m.state == MatchState::CheckedOut
                    && ((m.p1 == a && m.p2 == b) || (m.p1 == b && m.p2 == a))
            })
            .ok_or(EngineError::NotCheckedOut)?;
        Ok(vec![Event::Committed {
            p1: self.players[m.p1],
            p2: self.players[m.p2],
            result: outcome,
        }])
    }

    /// Applies one event. Events come from this engine's own commands or from the store, so
    /// a failure here means a corrupt log, reported rather than panicking.
    pub fn apply(&mut self, event: &Event) -> Result<(), EngineError> {
        match event {
            Event::Created { .. } => {
                return Err(EngineError::Corrupt("Created after the start".into()));
            }
            Event::RoundPaired {
                round,
                matches,
                bye,
            } => {
                if *round != self.round + 1 {
                    return Err(EngineError::Corrupt(format!(
                        "round {round} paired after round {}",
                        self.round
                    )));
                }
                let r = self.round;
                let start = self.matches.len();
                for pm in matches {
                    let p1 = self.player_index(pm.p1)?;
                    let p2 = self.player_index(pm.p2)?;
                    if pm.repeated {
                        // Flag the earlier meeting too, as rswiss does.
                        for m in &mut self.matches[..start] {
                            if (m.p1 == p1 && m.p2 == p2) || (m.p1 == p2 && m.p2 == p1) {
                                m.repeated = true;
                            }
                        }
                    }
                    self.matches.push(Match {
                        p1,
                        p2,
                        round: r,
                        state: MatchState::Available,
                        repeated: pm.repeated,
                    });
                }
                if let Some(b) = bye {
                    let b = self.player_index(*b)?;
                    self.byes[b].push(r);
                }
                self.round += 1;
            }
            Event::CheckedOut { p1, p2 } => {
                let (a, b) = (self.player_index(*p1)?, self.player_index(*p2)?);
                let i = (self.next_available..self.matches.len())
                    .find(|&i| {
                        let m = &self.matches[i];
                        m.state == MatchState::Available && m.p1 == a && m.p2 == b
                    })
                    .ok_or_else(|| {
                        EngineError::Corrupt(format!("checkout of unplanned {p1}-{p2}"))
                    })?;
                self.matches[i].state = MatchState::CheckedOut;
                self.checked_out += 1;
                while self.next_available < self.matches.len()
                    && self.matches[self.next_available].state != MatchState::Available
                {
                    self.next_available += 1;
                }
            }
            Event::Committed { p1, p2, result } => {
                let (a, b) = (self.player_index(*p1)?, self.player_index(*p2)?);
                let m = self
                    .matches
                    .iter_mut()
                    .find(|m| m.state == MatchState::CheckedOut && m.p1 == a && m.p2 == b)
                    .ok_or_else(|| EngineError::Corrupt(format!("commit of {p1}-{p2} not out")))?;
                m.state = MatchState::Done(*result);
                self.checked_out -= 1;
            }
        }
        Ok(())
    }

    /// The winner and the criterion that decided it (rswiss's `winner`).
    pub fn winner(&self) -> Result<(PlayerId, Criterion), EngineError> {
        if !self.has_ended() {
            return Err(EngineError::NotEnded);
        }
        let rows = self.standings();
        let mut leaders: Vec<&Row> = rows.iter().collect();
        for criterion in CRITERIA {
            let best = leaders
                .iter()
                .map(|r| r.value(criterion))
                .fold(f64::NEG_INFINITY, f64::max);
            leaders.retain(|r| r.value(criterion) == best);
            if let [only] = leaders.as_slice() {
                return Ok((only.id, criterion));
            }
        }
        Err(EngineError::Tie)
    }
}

#[cfg(test)]
mod tests;
