//! Engine tests: folding and replay, the round lifecycle and its refusals, pairing against
//! `pairing::opengotha` run directly on the same history, results and records.

use super::engine::{Event, Tournament, parse_result_code};
use super::error::TournamentError;
use super::model::{Game, Outcome, Player, PlayerId, Record, Registration, Settings, System};
use super::pair::PairOptions;
use super::results::{RecordChange, ResultInput};
use crate::pairing::SolveOptions;
use crate::pairing::opengotha as og;

/// A tournament and its log, applying every command's events as the registry would.
struct Run {
    t: Tournament,
    log: Vec<Event>,
    /// The events as the store holds them (JSON bodies), as written.
    stored: Vec<serde_json::Value>,
}

impl Run {
    fn new(settings: Settings) -> Run {
        let e = Tournament::create(settings, 7).unwrap();
        let t = Tournament::replay(std::slice::from_ref(&e)).unwrap();
        let stored = vec![serde_json::to_value(&e).unwrap()];
        Run {
            t,
            log: vec![e],
            stored,
        }
    }

    fn push(&mut self, events: Vec<Event>) {
        for e in events {
            self.t.apply(&e).unwrap();
            self.stored.push(serde_json::to_value(&e).unwrap());
            self.log.push(e);
        }
    }

    /// Folds events stored as `bodies` (e.g. by an older daemon), keeping those bodies.
    fn push_stored(&mut self, bodies: Vec<serde_json::Value>) {
        for b in bodies {
            let e: Event = serde_json::from_value(b.clone()).unwrap();
            self.t.apply(&e).unwrap();
            self.stored.push(b);
            self.log.push(e);
        }
    }

    /// The record of a game read back from the log as the daemon reads it from the store:
    /// the stored events its reference names.
    fn stored_record(&self, round: u32, table: u32) -> Option<Record> {
        let at = self.t.game(round, table).unwrap().record.clone()?;
        let body = |seq: u64| self.stored[seq as usize].clone();
        Some(
            super::results::stored_record(&body(at.text_seq), &body(at.warnings_seq), table)
                .unwrap(),
        )
    }

    fn register(&mut self, name: &str, rank: i32, club: &str) -> PlayerId {
        let p = Player {
            name: name.into(),
            first_name: "Test".into(),
            rank,
            rating: 2100 + 100 * rank,
            club: club.into(),
            country: "FR".into(),
            ..Player::default()
        };
        let (ev, id) = self.t.register_player(p).unwrap();
        self.push(ev);
        id
    }

    fn pair(&mut self, round: u32) {
        let (ev, _) = self.t.pair_round(round, &PairOptions::default()).unwrap();
        self.push(ev);
    }

    /// Results by a fixed rule: the stronger rank wins, equal ranks by id parity; every
    /// seventh table is a jigo.
    fn results(&mut self, round: u32) {
        let games = self.t.data.round(round).unwrap().games.clone();
        for g in games {
            let (w, b) = (
                self.t.player(g.white).unwrap().rank,
                self.t.player(g.black).unwrap().rank,
            );
            let outcome = if g.table % 7 == 0 {
                Outcome::Jigo
            } else if w + g.handicap as i32 > b || (w == b && (g.white + g.black) % 2 == 0) {
                Outcome::WhiteWins
            } else {
                Outcome::BlackWins
            };
            let (ev, _) = self
                .t
                .set_result(
                    round,
                    g.table,
                    ResultInput {
                        outcome,
                        ..ResultInput::default()
                    },
                )
                .unwrap();
            self.push(ev);
        }
    }
}

fn field(n: usize) -> Run {
    let mut run = Run::new(Settings {
        name: "Test Open".into(),
        rounds: 5,
        ..Settings::defaults(System::Mcmahon)
    });
    for k in 0..n {
        let rank = 4 - (k as i32 * 7 % 25);
        run.register(
            &format!("Player{k:02}"),
            rank,
            ["Paris", "Lyon", "Lille"][k % 3],
        );
    }
    run
}

/// OpenGotha's history of the data, built here independently of `pair::og_history`.
fn history_of(t: &Tournament, round: u32) -> og::History {
    let d = &t.data;
    let pos = |id: PlayerId| d.players.iter().position(|p| p.id == id).unwrap();
    let mut h = og::History::default();
    for p in &d.players {
        h.players.push(og::OgPlayer {
            name: p.name.clone(),
            first_name: p.first_name.clone(),
            rank: p.rank,
            rating: p.rating,
            club: p.club.clone(),
            country: p.country.clone(),
            smms_correction: p.mms_correction,
            absent: (0..d.settings.rounds as usize)
                .filter(|&r| {
                    p.skip.contains(&(r as u32 + 1))
                        || p.withdrawn_after.is_some_and(|w| r as u32 + 1 > w)
                })
                .collect(),
        });
    }
    for r in 1..round {
        let rd = d.round(r).unwrap();
        for g in &rd.games {
            h.games.push(og::OgGame {
                round: r as usize - 1,
                white: pos(g.white),
                black: pos(g.black),
                handicap: g.handicap as i32,
                result: match g.outcome {
                    Outcome::WhiteWins => og::Outcome::WhiteWins,
                    Outcome::BlackWins => og::Outcome::BlackWins,
                    Outcome::Jigo => og::Outcome::Jigo,
                    Outcome::BothWin => og::Outcome::BothWin,
                    Outcome::BothLose => og::Outcome::BothLose,
                    Outcome::Unknown => og::Outcome::Unknown,
                },
            });
        }
        for &b in &rd.byes {
            h.byes.push((r as usize - 1, pos(b)));
        }
    }
    h
}

#[test]
fn every_prefix_of_the_log_replays_to_the_state_at_that_point() {
    let mut run = field(11);
    let mut states = vec![];
    for r in 1..=3 {
        run.pair(r);
        run.results(r);
        states.push((run.log.len(), run.t.clone()));
    }
    // A late entry, a withdrawal, a correction, an unpair and re-pair.
    let late = run.register("Late", -5, "Nice");
    run.push(run.t.withdraw_player(2, None, false).unwrap());
    let g = run.t.data.round(2).unwrap().games[0].clone();
    let (ev, _) = run
        .t
        .set_result(
            2,
            g.table,
            ResultInput {
                outcome: Outcome::BothLose,
                forfeit: true,
                ..ResultInput::default()
            },
        )
        .unwrap();
    run.push(ev);
    run.pair(4);
    run.push(run.t.unpair_round(4, false).unwrap());
    run.pair(4);
    assert!(run.t.player(late).unwrap().skip == vec![1, 2, 3]);
    for (len, state) in &states {
        assert_eq!(&Tournament::replay(&run.log[..*len]).unwrap(), state);
    }
    // Every prefix replays, and the whole log gives the current state.
    let mut t = Tournament::replay(&run.log[..1]).unwrap();
    for (k, e) in run.log.iter().enumerate().skip(1) {
        t.apply(e).unwrap();
        assert_eq!(Tournament::replay(&run.log[..=k]).unwrap(), t);
        assert_eq!(t.revision, k as u64 + 1);
    }
    assert_eq!(t, run.t);
    // The log survives its serialized form.
    let text: Vec<String> = run
        .log
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect();
    let back: Vec<Event> = text
        .iter()
        .map(|s| serde_json::from_str(s).unwrap())
        .collect();
    assert_eq!(Tournament::replay(&back).unwrap(), run.t);
}

#[test]
fn pairings_equal_opengotha_run_on_the_same_history() {
    let mut run = field(40);
    // Absences and a super-bar player.
    run.push(run.t.set_participation(5, vec![2, 3]).unwrap());
    run.push(run.t.set_participation(17, vec![1]).unwrap());
    let mut p = run.t.player(1).unwrap().clone();
    p.mms_correction = 1;
    run.push(run.t.update_player(p).unwrap());
    for r in 1..=5 {
        if r == 3 {
            run.push(run.t.withdraw_player(9, Some(2), false).unwrap());
            run.register("Latecomer", 0, "Nice");
        }
        let h = history_of(&run.t, r);
        let params = super::pair::og_params(&run.t.data.settings);
        let state = og::RoundState::new(&params, &h, r as usize - 1);
        let present: Vec<usize> = run
            .t
            .data
            .players
            .iter()
            .enumerate()
            .filter(|(_, p)| p.participates(r))
            .map(|(i, _)| i)
            .collect();
        let want = og::pair(&state, &present, SolveOptions::default()).unwrap();
        run.pair(r);
        let d = &run.t.data;
        let round = d.round(r).unwrap();
        let mut got: Vec<(u32, u32, u32)> = round
            .games
            .iter()
            .map(|g| (g.white, g.black, g.handicap))
            .collect();
        let mut expected: Vec<(u32, u32, u32)> = want
            .boards
            .iter()
            .map(|b| {
                (
                    d.players[b.white].id,
                    d.players[b.black].id,
                    b.handicap as u32,
                )
            })
            .collect();
        got.sort_unstable();
        expected.sort_unstable();
        assert_eq!(got, expected, "round {r}");
        assert_eq!(
            round.byes,
            want.bye
                .map(|i| d.players[i].id)
                .into_iter()
                .collect::<Vec<_>>()
        );
        // Absent and withdrawn players are not paired.
        for g in &round.games {
            for id in [g.white, g.black] {
                assert!(d.player(id).unwrap().participates(r), "{id} in round {r}");
            }
        }
        // Tables 1..n, komi by handicap.
        for (k, g) in round.games.iter().enumerate() {
            assert_eq!(g.table, k as u32 + 1);
            let s = &d.settings;
            assert_eq!(
                g.komi2,
                if g.handicap > 0 {
                    s.handicap_komi2
                } else {
                    s.komi2
                }
            );
        }
        run.results(r);
    }
}

#[test]
fn tables_go_by_the_lower_players_score_best_first() {
    let mut run = field(20);
    run.pair(1);
    run.results(1);
    run.pair(2);
    let t = &run.t;
    let h = super::pair::og_history(t, 2);
    let params = super::pair::og_params(&t.data.settings);
    let state = og::RoundState::new(&params, &h, 1);
    let pos = |id: PlayerId| t.data.players.iter().position(|p| p.id == id).unwrap();
    let key: Vec<i32> = t
        .data
        .round(2)
        .unwrap()
        .games
        .iter()
        .map(|g| state.mms2[pos(g.white)].min(state.mms2[pos(g.black)]))
        .collect();
    assert!(key.windows(2).all(|w| w[0] >= w[1]), "{key:?}");
}

/// Two games whose representatives tie on the main score (NBW 0) and differ on the second
/// placement criterion (SOSW) go by SOSW, as OpenGotha's `GameComparator` has them, whatever
/// their ratings; a representative is the worse player of its game (all criteria), the
/// higher-rated one only on a full tie.
#[test]
fn tables_go_by_every_placement_criterion_then_rating() {
    use super::model::{Criterion, Round, TournamentData};
    use crate::pairing::opengotha::Crit;
    let settings = Settings {
        rounds: 3,
        placement: vec![Criterion(Crit::Nbw), Criterion(Crit::Sosw)],
        ..Settings::defaults(System::Swiss)
    };
    // A..F = 1..6; ratings put E and F above B and D.
    let ratings = [2200, 2100, 2200, 2000, 2400, 2300];
    let players = ratings
        .iter()
        .enumerate()
        .map(|(k, &rating)| Player {
            id: k as PlayerId + 1,
            name: format!("P{}", k + 1),
            rating,
            ..Player::default()
        })
        .collect();
    let game = |table, white, black, outcome| Game {
        table,
        white,
        black,
        outcome,
        ..Game::default()
    };
    // Round 1: A beats B, C beats D, E and F both lose.
    let round1 = Round {
        games: vec![
            game(1, 1, 2, Outcome::WhiteWins),
            game(2, 3, 4, Outcome::WhiteWins),
            game(3, 5, 6, Outcome::BothLose),
        ],
        byes: vec![],
        published: true,
    };
    let d = TournamentData {
        settings,
        players,
        rounds: vec![round1],
    };
    // Round 2 as a pairing might list it: E–F, B–D, A–C. After round 2 (no results yet):
    // A and C have 1 win; B and D 0 wins, SOSW 1 (their round-1 winners); E and F 0 and 0.
    let games = [
        game(0, 5, 6, Outcome::Unknown),
        game(0, 2, 4, Outcome::Unknown),
        game(0, 1, 3, Outcome::Unknown),
    ];
    let order = super::pair::table_order(&d, 2, &games, &[]);
    // A–C first (a win), then B–D (SOSW 1) before E–F (SOSW 0) although E (2400) outrates B
    // (2100): main score then rating alone would put E–F second.
    assert_eq!(order, vec![2, 1, 0]);
    // With SOSW out of the criteria the two games tie and rating decides: E–F second.
    let mut by_score = d.clone();
    by_score.settings.placement = vec![Criterion(Crit::Nbw)];
    assert_eq!(
        super::pair::table_order(&by_score, 2, &games, &[]),
        vec![2, 0, 1]
    );
    // The representative is the worse player by every criterion, not the higher-rated one of
    // a tie on the main score: with B rated 2500, B–F is represented by F (SOSW 0, 2300) and
    // D–E by E (SOSW 0, 2400), so D–E goes first; picking B (the higher-rated, SOSW 1) would
    // put B–F first.
    let mut strong_b = d.clone();
    strong_b.players[1].rating = 2500;
    let games = [
        game(0, 2, 6, Outcome::Unknown),
        game(0, 4, 5, Outcome::Unknown),
    ];
    assert_eq!(
        super::pair::table_order(&strong_b, 2, &games, &[]),
        vec![1, 0]
    );
}

#[test]
fn refusals_are_clear() {
    let mut run = field(6);
    let t = &run.t;
    assert!(matches!(
        t.pair_round(2, &PairOptions::default()),
        Err(TournamentError::NotCurrentRound(_))
    ));
    assert!(matches!(
        t.pair_round(9, &PairOptions::default()),
        Err(TournamentError::NoSuchRound { .. })
    ));
    run.pair(1);
    let g = run.t.data.round(1).unwrap().games[0].clone();
    // A player already paired, absent or withdrawn.
    let add = |t: &Tournament, w, b| {
        t.add_game(
            1,
            Game {
                white: w,
                black: b,
                ..Game::default()
            },
        )
    };
    assert!(matches!(
        add(&run.t, g.white, 99),
        Err(TournamentError::UnknownPlayer(99))
    ));
    assert!(matches!(
        add(&run.t, g.white, g.black),
        Err(TournamentError::AlreadyPaired { .. })
    ));
    // Skipping or withdrawing from a round one is paired in.
    assert!(matches!(
        run.t.set_participation(g.white, vec![1]),
        Err(TournamentError::PlayerPaired { .. })
    ));
    assert!(matches!(
        run.t.withdraw_player(g.white, Some(0), false),
        Err(TournamentError::PlayerPaired { .. })
    ));
    // Manual edits only in the last paired round; unpair refuses results.
    run.results(1);
    run.pair(2);
    assert!(matches!(
        run.t.remove_game(1, 1),
        Err(TournamentError::NotCurrentRound(_))
    ));
    assert!(matches!(
        run.t.unpair_round(1, false),
        Err(TournamentError::NotCurrentRound(_))
    ));
    run.results(2);
    assert!(matches!(
        run.t.unpair_round(2, false),
        Err(TournamentError::RoundHasResults(2))
    ));
    assert!(run.t.unpair_round(2, true).is_ok());
    assert!(matches!(
        run.t.remove_game(2, 1),
        Err(TournamentError::GameHasResult { .. })
    ));
    // Duplicate names, bad ranks.
    let dup = run.t.player(1).unwrap().clone();
    assert!(matches!(
        run.t.register_player(dup),
        Err(TournamentError::DuplicatePlayer(_))
    ));
    let bad = Player {
        name: "X".into(),
        rank: 40,
        ..Player::default()
    };
    assert!(matches!(
        run.t.register_player(bad),
        Err(TournamentError::Invalid(_))
    ));
    // Archived: everything refused until unarchived.
    run.push(run.t.archive(true).unwrap());
    assert!(matches!(
        run.t.pair_round(3, &PairOptions::default()),
        Err(TournamentError::Archived)
    ));
    run.push(run.t.archive(false).unwrap());
    run.pair(3);
    // A preliminary player is not paired.
    let mut p = run.t.player(3).unwrap().clone();
    p.registration = Registration::Preliminary;
    assert!(matches!(
        run.t.update_player(p),
        Err(TournamentError::PlayerPaired { .. })
    ));
}

#[test]
fn manual_games_and_swaps() {
    let mut run = field(7);
    // A manual round: two games and a bye, the rest unpaired.
    let ev = run
        .t
        .set_round(
            1,
            vec![
                Game {
                    table: 1,
                    white: 1,
                    black: 2,
                    ..Game::default()
                },
                Game {
                    table: 2,
                    white: 3,
                    black: 4,
                    ..Game::default()
                },
            ],
            vec![5],
        )
        .unwrap();
    run.push(ev);
    assert!(matches!(
        run.t.set_round(
            1,
            vec![Game {
                table: 1,
                white: 1,
                black: 1,
                ..Game::default()
            }],
            vec![]
        ),
        Err(TournamentError::PlayerTwice { .. })
    ));
    let g = run.t.natural_board(1, 6, 7).unwrap();
    run.push(run.t.add_game(1, g).unwrap());
    assert_eq!(run.t.data.round(1).unwrap().games.len(), 3);
    // Swap within a game exchanges colours; across games the players trade seats; with the
    // bye the bye moves.
    run.push(run.t.swap_players(1, 1, 2).unwrap());
    let r = run.t.data.round(1).unwrap();
    assert!(r.games[0].has(1) && r.games[0].has(2));
    run.push(run.t.swap_players(1, 1, 3).unwrap());
    let r = run.t.data.round(1).unwrap();
    assert!(r.games[0].has(3) && r.games[0].has(2));
    assert!(r.games[1].has(1) && r.games[1].has(4));
    run.push(run.t.swap_players(1, 5, 4).unwrap());
    let r = run.t.data.round(1).unwrap();
    assert_eq!(r.byes, vec![4]);
    assert!(r.games[1].has(5));
    run.push(run.t.remove_game(1, 3).unwrap());
    assert_eq!(run.t.data.round(1).unwrap().games.len(), 2);
    assert_eq!(Tournament::replay(&run.log).unwrap(), run.t);
}

#[test]
fn result_codes_read_every_spelling() {
    for (s, o, f) in [
        ("W+", Outcome::WhiteWins, false),
        ("b+r", Outcome::BlackWins, false),
        ("B+3.5", Outcome::BlackWins, false),
        ("1-0!", Outcome::WhiteWins, true),
        ("RESULT_BLACKWINS_BYDEF", Outcome::BlackWins, true),
        ("RESULT_EQUAL", Outcome::Jigo, false),
        ("jigo", Outcome::Jigo, false),
        ("=", Outcome::Jigo, false),
        ("both_win", Outcome::BothWin, false),
        ("RESULT_BOTHLOSE", Outcome::BothLose, false),
        ("0-0", Outcome::BothLose, false),
        ("?", Outcome::Unknown, false),
        ("W+F", Outcome::WhiteWins, true),
    ] {
        assert_eq!(parse_result_code(s).unwrap(), (o, f), "{s}");
    }
    assert!(parse_result_code("maybe").is_err());
    assert!(parse_result_code("?!").is_err());
}

#[test]
fn records_are_checked_and_kept_with_their_warnings() {
    let mut run = field(2);
    let ev = run
        .t
        .set_round(
            1,
            vec![Game {
                table: 1,
                white: 1,
                black: 2,
                komi2: 13,
                ..Game::default()
            }],
            vec![],
        )
        .unwrap();
    run.push(ev);
    let good = "(;GM[1]FF[4]SZ[19]KM[6.5]PB[Player01 Test]PW[Test Player00]RE[W+R];B[pd];W[dp])";
    let set = |t: &Tournament, outcome, sgf: &str, strict| {
        t.set_result(
            1,
            1,
            ResultInput {
                outcome,
                forfeit: false,
                record: RecordChange::Set(sgf.into()),
                strict,
            },
        )
    };
    let (ev, warnings) = set(&run.t, Outcome::WhiteWins, good, true).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    run.push(ev);
    assert_eq!(run.stored_record(1, 1).unwrap().sgf, good);
    // RE against the result, players, komi, size.
    let (_, w) = set(&run.t, Outcome::BlackWins, good, false).unwrap();
    assert!(w.iter().any(|l| l.starts_with("result_disagrees")), "{w:?}");
    assert!(matches!(
        set(&run.t, Outcome::BlackWins, good, true),
        Err(TournamentError::RecordRejected(_))
    ));
    let other = good
        .replace("Player01 Test", "Someone Else")
        .replace("KM[6.5]", "KM[0.5]");
    let (_, w) = set(&run.t, Outcome::WhiteWins, &other, false).unwrap();
    assert!(w.iter().any(|l| l.starts_with("player")), "{w:?}");
    assert!(w.iter().any(|l| l.starts_with("komi")), "{w:?}");
    let illegal = "(;GM[1]SZ[19]KM[6.5]RE[W+R];B[pd];W[pd])";
    let (_, w) = set(&run.t, Outcome::WhiteWins, illegal, false).unwrap();
    assert!(!w.is_empty());
    assert!(matches!(
        set(&run.t, Outcome::WhiteWins, "not sgf", false),
        Err(TournamentError::RecordUnreadable(_))
    ));
    // A correction without a record keeps the stored one.
    let (ev, _) = run
        .t
        .set_result(
            1,
            1,
            ResultInput {
                outcome: Outcome::WhiteWins,
                forfeit: true,
                ..ResultInput::default()
            },
        )
        .unwrap();
    run.push(ev);
    let g = run.t.game(1, 1).unwrap();
    assert!(g.forfeit && g.record.is_some());
}

/// A one-game round and a long record for its table 1.
fn record_run() -> (Run, String) {
    let mut run = field(2);
    let ev = run
        .t
        .set_round(
            1,
            vec![Game {
                table: 1,
                white: 1,
                black: 2,
                komi2: 13,
                ..Game::default()
            }],
            vec![],
        )
        .unwrap();
    run.push(ev);
    // A long record (about 100 kB of moves and comments).
    let mut sgf =
        String::from("(;GM[1]FF[4]SZ[19]KM[6.5]PB[Player01 Test]PW[Player00 Test]RE[W+R]");
    for k in 0..2000 {
        sgf.push_str(&format!(";C[move {k} of a long game, with a comment]"));
    }
    sgf.push(')');
    (run, sgf)
}

fn set(run: &Run, outcome: Outcome, forfeit: bool, record: RecordChange) -> Vec<Event> {
    run.t
        .set_result(
            1,
            1,
            ResultInput {
                outcome,
                forfeit,
                record,
                strict: false,
            },
        )
        .unwrap()
        .0
}

#[test]
fn a_record_stays_in_the_log_and_corrections_do_not_copy_it() {
    let (mut run, sgf) = record_run();
    let size = |run: &Run| serde_json::to_string(&run.t).unwrap().len();
    let before = size(&run);
    let ev = set(
        &run,
        Outcome::WhiteWins,
        false,
        RecordChange::Set(sgf.clone()),
    );
    run.push(ev);
    // The state knows where the record is, not its text.
    let at = run.t.game(1, 1).unwrap().record.clone().unwrap();
    assert_eq!(
        (at.text_seq, at.bytes),
        (run.log.len() as u64 - 1, sgf.len() as u64)
    );
    assert!(
        size(&run) < before + 1000,
        "the state grew by {} bytes for a {}-byte record",
        size(&run) - before,
        sgf.len()
    );
    let stored = serde_json::to_string(run.log.last().unwrap())
        .unwrap()
        .len();
    assert!(stored > sgf.len());
    // Corrections keep it (no record given), or send the same text again: no second copy.
    for (k, change) in [
        RecordChange::Keep,
        RecordChange::Set(sgf.clone()),
        RecordChange::Keep,
    ]
    .into_iter()
    .enumerate()
    {
        let ev = set(&run, Outcome::WhiteWins, k % 2 == 0, change);
        assert_eq!(ev.len(), 1);
        let body = serde_json::to_string(&ev[0]).unwrap();
        assert!(
            body.len() < 1000,
            "a correction stored {} bytes",
            body.len()
        );
        run.push(ev);
        assert_eq!(run.stored_record(1, 1).unwrap().sgf, sgf);
        assert_eq!(
            run.t.game(1, 1).unwrap().record.as_ref().unwrap().text_seq,
            at.text_seq
        );
        assert!(size(&run) < before + 1000);
    }
    // Sent again as it is, with the same result (the forfeit win the last correction left):
    // nothing to record.
    assert!(
        set(
            &run,
            Outcome::WhiteWins,
            true,
            RecordChange::Set(sgf.clone())
        )
        .is_empty()
    );
    assert!(set(&run, Outcome::WhiteWins, true, RecordChange::Keep).is_empty());
    // Checked anew against another result: the new warnings are stored, the text is not.
    let ev = set(
        &run,
        Outcome::BlackWins,
        false,
        RecordChange::Set(sgf.clone()),
    );
    assert!(serde_json::to_string(&ev[0]).unwrap().len() < 1000);
    run.push(ev);
    let back = run.stored_record(1, 1).unwrap();
    assert_eq!(back.sgf, sgf);
    assert!(
        back.warnings
            .iter()
            .any(|w| w.starts_with("result_disagrees")),
        "{:?}",
        back.warnings
    );
    // A correction that keeps it keeps those warnings.
    run.push(set(&run, Outcome::BlackWins, true, RecordChange::Keep));
    assert_eq!(run.stored_record(1, 1).unwrap(), back);
    // Another text is stored whole; removing drops the reference.
    let other = sgf.replace("move 7 ", "move seven ");
    run.push(set(
        &run,
        Outcome::WhiteWins,
        false,
        RecordChange::Set(other.clone()),
    ));
    assert_eq!(run.stored_record(1, 1).unwrap().sgf, other);
    run.push(set(&run, Outcome::WhiteWins, false, RecordChange::Remove));
    assert!(run.t.game(1, 1).unwrap().record.is_none());
    assert_eq!(Tournament::replay(&run.log).unwrap(), run.t);
}

#[test]
fn records_in_logs_written_before_references_still_read() {
    let (mut run, sgf) = record_run();
    // What a released daemon wrote: a result with the record whole, a correction that copied
    // it whole again, and a swap in another round carrying a game's whole record.
    let old = |table: u32, forfeit: bool| {
        serde_json::json!({
            "type": "result_set", "round": 1, "table": table, "outcome": "white_wins",
            "forfeit": forfeit, "record": {"sgf": sgf, "warnings": ["w1"]}
        })
    };
    run.push_stored(vec![old(1, false), old(1, true)]);
    let at = run.t.game(1, 1).unwrap().record.clone().unwrap();
    assert_eq!(at.text_seq, run.log.len() as u64 - 1);
    let back = run.stored_record(1, 1).unwrap();
    assert_eq!(
        (back.sgf.as_str(), back.warnings.as_slice()),
        (sgf.as_str(), &["w1".to_string()][..])
    );
    let swapped = serde_json::json!({
        "type": "players_swapped", "round": 1, "byes": [],
        "games": [{"table": 1, "white": 2, "black": 1, "record": {"sgf": "(;SZ[19])", "warnings": ["w2"]}}]
    });
    run.push_stored(vec![swapped]);
    let at = run.t.game(1, 1).unwrap().record.clone().unwrap();
    assert_eq!(
        (at.text_seq, at.warnings_seq),
        (run.log.len() as u64 - 1, run.log.len() as u64 - 1)
    );
    let back = run.stored_record(1, 1).unwrap();
    assert_eq!(
        (back.sgf.as_str(), back.warnings),
        ("(;SZ[19])", vec!["w2".to_string()])
    );
    assert_eq!(Tournament::replay(&run.log).unwrap(), run.t);
}

#[test]
fn a_settings_change_stores_only_the_members_that_changed() {
    let mut run = field(3);
    let mut s = run.t.data.settings.clone();
    s.name = "Renamed Open".into();
    s.extra.insert(
        "DisplayParameterSet".into(),
        [("a".to_string(), "1".to_string())].into(),
    );
    s.pairing.dudd_group_span = None;
    let ev = run.t.change_settings(s.clone()).unwrap();
    let body = serde_json::to_value(&ev[0]).unwrap();
    assert_eq!(
        body,
        serde_json::json!({"type": "settings_changed", "patch": [
            {"op": "add", "path": "/extra/DisplayParameterSet", "value": {"a": "1"}},
            {"op": "replace", "path": "/name", "value": "Renamed Open"},
            {"op": "replace", "path": "/pairing/dudd_group_span", "value": null},
        ]}),
    );
    run.push(ev);
    assert_eq!(run.t.data.settings, s);
    // A log written before: the whole settings after the change, still folded as it was.
    let mut whole = s.clone();
    whole.rounds = 7;
    whole.extra.clear();
    let old: Event = serde_json::from_value(serde_json::json!({
        "type": "settings_changed", "settings": serde_json::to_value(&whole).unwrap()
    }))
    .unwrap();
    run.push(vec![old]);
    assert_eq!(run.t.data.settings, whole);
    // And the next change is a difference over that.
    let mut s = whole.clone();
    s.komi2 = 15;
    let ev = run.t.change_settings(s.clone()).unwrap();
    assert_eq!(
        serde_json::to_value(&ev[0]).unwrap()["patch"],
        serde_json::json!([{"op": "replace", "path": "/komi2", "value": 15}])
    );
    run.push(ev);
    assert_eq!(run.t.data.settings, s);
    let text: Vec<Event> = run
        .log
        .iter()
        .map(|e| serde_json::from_str(&serde_json::to_string(e).unwrap()).unwrap())
        .collect();
    assert_eq!(Tournament::replay(&text).unwrap(), run.t);
}
