use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;

fn new(players: Vec<PlayerId>, additional: u32, allow_repeat: bool, seed: u64) -> Tournament {
    let e = Tournament::create(players, additional, allow_repeat, PairingMode::Rswiss, seed)
        .expect("valid creation");
    Tournament::from_created(&e).expect("created")
}

fn apply_all(t: &mut Tournament, events: &[Event], log: &mut Vec<Event>) {
    for e in events {
        t.apply(e).expect("own events apply");
        log.push(e.clone());
    }
}

/// Plays a tournament to its end or to a pairing fault, checking invariants as it goes.
fn play(
    n: usize,
    additional: u32,
    allow_repeat: bool,
    seed: u64,
) -> (Tournament, Vec<Event>, Option<EngineError>) {
    play_mode(PairingMode::Rswiss, n, additional, allow_repeat, seed)
}

fn play_mode(
    mode: PairingMode,
    n: usize,
    additional: u32,
    allow_repeat: bool,
    seed: u64,
) -> (Tournament, Vec<Event>, Option<EngineError>) {
    let players: Vec<PlayerId> = (0..n as i64).map(|i| 100 + i).collect();
    let created = Tournament::create(players, additional, allow_repeat, mode, seed).unwrap();
    let mut t = Tournament::from_created(&created).unwrap();
    let mut log = vec![created];
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xabcdef);
    loop {
        match t.checkout() {
            Ok((events, pair)) => {
                apply_all(&mut t, &events, &mut log);
                let r = rng.random_range(-1..=1);
                let events = t
                    .commit(pair, r)
                    .expect("commit of the pair just handed out");
                apply_all(&mut t, &events, &mut log);
            }
            Err(EngineError::Ended) => return (t, log, None),
            Err(e) => return (t, log, Some(e)),
        }
    }
}

fn check_invariants(t: &Tournament) {
    let n = t.players().len();
    for r in 0..t.round() {
        let mut seen = vec![0; n];
        for m in t.matches().iter().filter(|m| m.round == r) {
            seen[m.p1] += 1;
            seen[m.p2] += 1;
        }
        for (p, b) in t.byes.iter().enumerate() {
            seen[p] += b.iter().filter(|&&x| x == r).count();
        }
        assert!(
            seen.iter().all(|&c| c == 1),
            "round {r}: every player exactly once: {seen:?}"
        );
    }
    let mut pairs = HashMap::new();
    for m in t.matches() {
        *pairs.entry((m.p1.min(m.p2), m.p1.max(m.p2))).or_insert(0) += 1;
    }
    assert!(pairs.values().all(|&c| c <= 2), "each pair at most twice");
    if !t.settings().allow_repeat {
        assert!(
            pairs.values().all(|&c| c == 1),
            "no repeats without allow_repeat"
        );
        assert_eq!(t.repeated_matches(), 0);
    } else {
        let repeats = pairs.values().filter(|&&c| c == 2).count();
        assert_eq!(t.repeated_matches(), 2 * repeats);
    }
    if t.rounds() as usize <= n {
        assert!(t.byes.iter().all(|b| b.len() <= 1), "at most one bye each");
    }
}

#[test]
fn rounds_are_ceil_log2_plus_additional() {
    for (n, r) in [
        (1, 0),
        (2, 1),
        (3, 2),
        (4, 2),
        (5, 3),
        (16, 4),
        (17, 5),
        (64, 6),
        (256, 8),
    ] {
        assert_eq!(base_rounds(n), r, "n = {n}");
    }
    assert_eq!(new((1..=16).collect(), 3, false, 1).rounds(), 7);
}

#[test]
fn creation_is_validated() {
    assert_eq!(
        Tournament::create(vec![], 0, true, PairingMode::Rswiss, 0),
        Err(EngineError::NoPlayers)
    );
    assert_eq!(
        Tournament::create(vec![1, 2, 1], 0, true, PairingMode::Rswiss, 0),
        Err(EngineError::RepeatedIds)
    );
}

#[test]
fn one_player_has_ended_at_once() {
    let t = new(vec![7], 0, true, 3);
    assert!(t.has_ended());
    assert_eq!(t.checkout().unwrap_err(), EngineError::Ended);
    assert_eq!(t.winner().unwrap(), (7, Criterion::Score));
}

#[test]
fn whole_tournaments_keep_the_invariants_and_replay_exactly() {
    let mut faults = 0;
    for seed in 0..40u64 {
        for &n in &[2usize, 3, 7, 16, 33, 64] {
            for allow_repeat in [false, true] {
                let (t, log, fault) = play(n, 0, allow_repeat, seed);
                check_invariants(&t);
                match fault {
                    None => {
                        assert!(t.has_ended());
                        assert_eq!(t.round(), t.rounds());
                        assert_eq!(t.matches().len(), t.rounds() as usize * (n / 2));
                    }
                    Some(EngineError::MaxRearranges) => {
                        assert!(!allow_repeat);
                        faults += 1;
                    }
                    Some(EngineError::RepetitionExhausted) => assert!(allow_repeat),
                    Some(e) => panic!("unexpected {e:?}"),
                }
                let replayed = Tournament::replay(&log).unwrap();
                assert_eq!(replayed.standings(), t.standings());
                assert_eq!(replayed.matches(), t.matches());
            }
        }
    }
    // rswiss dead-locks in a few percent of tournaments; this mode mirrors it.
    assert!(faults < 40 * 6, "some tournaments must finish");
}

#[test]
fn same_seed_same_tournament() {
    let (a, la, _) = play(33, 1, true, 99);
    let (b, lb, _) = play(33, 1, true, 99);
    assert_eq!(la, lb);
    assert_eq!(a.standings(), b.standings());
    let (_, lc, _) = play(33, 1, true, 100);
    assert_ne!(la, lc, "a different seed draws a different first round");
}

#[test]
fn matches_out_give_201_and_the_end_202() {
    let mut t = new(vec![1, 2, 3, 4], 0, false, 5);
    let mut log = Vec::new();
    let (ev, a) = t.checkout().unwrap();
    apply_all(&mut t, &ev, &mut log);
    let (ev, b) = t.checkout().unwrap();
    apply_all(&mut t, &ev, &mut log);
    assert_ne!(a, b);
    assert_eq!(t.checkout().unwrap_err(), EngineError::StillOut(2));
    assert_eq!(t.checked_out_matches(), vec![a, b]);
    assert_eq!(t.winner().unwrap_err(), EngineError::NotEnded);
    // Reversed pair order is accepted; the stored orientation decides the result.
    let ev = t.commit((b.1, b.0), -1).unwrap();
    assert_eq!(
        ev,
        vec![Event::Committed {
            p1: b.0,
            p2: b.1,
            result: -1
        }]
    );
    apply_all(&mut t, &ev, &mut log);
    assert_eq!(t.commit(b, 0).unwrap_err(), EngineError::NotCheckedOut);
    assert_eq!(t.checkout().unwrap_err(), EngineError::StillOut(1));
    assert_eq!(t.commit(a, 5).unwrap_err(), EngineError::BadResult(5));
    assert_eq!(
        t.commit((a.0, 99), 0).unwrap_err(),
        EngineError::UnknownPlayer(99)
    );
    let ev = t.commit(a, 1).unwrap();
    apply_all(&mut t, &ev, &mut log);
    assert_eq!(t.round(), 1);
    let (ev, _) = t.checkout().unwrap();
    assert_eq!(t.round(), 1, "commands do not mutate");
    apply_all(&mut t, &ev, &mut log);
    assert_eq!(t.round(), 2);
}

#[test]
fn two_players_draw_is_a_tie() {
    let mut t = new(vec![1, 2], 0, true, 0);
    let mut log = Vec::new();
    let (ev, pair) = t.checkout().unwrap();
    apply_all(&mut t, &ev, &mut log);
    let ev = t.commit(pair, 0).unwrap();
    apply_all(&mut t, &ev, &mut log);
    assert!(t.has_ended());
    assert_eq!(t.winner().unwrap_err(), EngineError::Tie);
    assert_eq!(t.checkout().unwrap_err(), EngineError::Ended);
}

#[test]
fn two_players_with_additional_rounds_repeat_once_then_fault() {
    let mut t = new(vec![1, 2], 2, true, 0);
    let mut log = Vec::new();
    for _ in 0..2 {
        let (ev, pair) = t.checkout().unwrap();
        apply_all(&mut t, &ev, &mut log);
        let ev = t.commit(pair, -1).unwrap();
        apply_all(&mut t, &ev, &mut log);
    }
    assert_eq!(t.repeated_matches(), 2);
    assert_eq!(t.checkout().unwrap_err(), EngineError::RepetitionExhausted);
    assert!(!t.has_ended());

    let mut t = new(vec![1, 2], 1, false, 0);
    let (ev, pair) = t.checkout().unwrap();
    apply_all(&mut t, &ev, &mut log);
    let ev = t.commit(pair, -1).unwrap();
    apply_all(&mut t, &ev, &mut log);
    assert_eq!(t.checkout().unwrap_err(), EngineError::MaxRearranges);
}

/// Builds a tournament from explicit rounds so criteria can be checked by hand.
type ScriptedRound<'a> = (&'a [(PlayerId, PlayerId, Outcome)], Option<PlayerId>);

fn scripted(players: Vec<PlayerId>, rounds: &[ScriptedRound]) -> Tournament {
    let n = players.len();
    let created = Tournament::create(players, 10, true, PairingMode::Rswiss, 0).unwrap();
    let mut t = Tournament::from_created(&created).unwrap();
    assert!(n >= 2);
    for (k, (games, bye)) in rounds.iter().enumerate() {
        let matches = games
            .iter()
            .map(|&(p1, p2, _)| PlannedMatch {
                p1,
                p2,
                repeated: false,
            })
            .collect();
        t.apply(&Event::RoundPaired {
            round: k as u32 + 1,
            matches,
            bye: *bye,
        })
        .unwrap();
        for &(p1, p2, result) in games.iter() {
            t.apply(&Event::CheckedOut { p1, p2 }).unwrap();
            t.apply(&Event::Committed { p1, p2, result }).unwrap();
        }
    }
    t
}

#[test]
fn criteria_follow_the_spec() {
    // Player 1: W as p1 (r1), L as p2 (r2), W as p1 (r3), L as p2 (r4).
    let t = scripted(
        vec![1, 2, 3, 4, 5],
        &[
            (&[(1, 2, -1), (3, 4, 0)], Some(5)),
            (&[(3, 1, -1), (5, 2, 1)], Some(4)),
            (&[(1, 4, -1), (2, 3, 0)], Some(5)),
            (&[(5, 1, -1), (2, 4, 1)], Some(3)),
        ],
    );
    let rows = t.rows();
    let r1 = &rows[0];
    assert_eq!(r1.id, 1);
    assert_eq!(r1.matches, 4);
    assert_eq!(r1.score, 2.0);
    // Chronological cumulative score: 1 + 1 + 2 + 2.
    assert_eq!(r1.c_score, 6.0);
    assert_eq!(r1.wins, 2);
    let score: HashMap<PlayerId, f64> = rows.iter().map(|r| (r.id, r.score)).collect();
    // Player 2: L vs 1, W vs 5, D vs 3, L vs 4, no bye.
    assert_eq!(score[&2], 1.5);
    // Player 5 had two byes (scripted; the engine never does that while others have none).
    assert_eq!(score[&5], 3.0);
    // Buchholz of 1: opponents 2,3,4,5 → four → drop lowest and highest.
    let mut opp: Vec<f64> = [2, 3, 4, 5].iter().map(|p| score[p]).collect();
    opp.sort_by(f64::total_cmp);
    assert_eq!(r1.buchholz_score, opp[1] + opp[2]);
    // Neustadtl of 1: beat 2 and 4.
    assert_eq!(r1.neustadtl_score, score[&2] + score[&4]);
    let c: HashMap<PlayerId, f64> = rows.iter().map(|r| (r.id, r.c_score)).collect();
    assert_eq!(r1.opp_c_score, c[&2] + c[&3] + c[&4] + c[&5]);
    let standings = t.standings();
    assert!(standings.windows(2).all(|w| w[0].score >= w[1].score));
}

#[test]
fn bye_goes_to_the_lowest_placed_player_without_one() {
    let mut t = new((1..=5).collect(), 0, false, 11);
    let mut log = Vec::new();
    // Round 1: the bye is the last of the random order; play it out with p1 always winning.
    for _ in 0..2 {
        let (ev, pair) = t.checkout().unwrap();
        apply_all(&mut t, &ev, &mut log);
        let ev = t.commit(pair, -1).unwrap();
        apply_all(&mut t, &ev, &mut log);
    }
    let first_bye = t.byes.iter().position(|b| !b.is_empty()).unwrap();
    let (ev, _) = t.checkout().unwrap();
    let Event::RoundPaired { bye: Some(b), .. } = &ev[0] else {
        panic!("round 2 has a bye")
    };
    // Lowest-placed among those without a bye: a loser of round 1.
    let b = t.index[b];
    assert_ne!(b, first_bye);
    assert_eq!(t.scores()[b], 0.0);
}

#[test]
fn optimal_mode_never_dead_locks_where_rswiss_does() {
    // 1,002 tournaments (334 per size), as many as rswiss's measured dead-lock rates need.
    let mut rswiss_faults = 0;
    for seed in 0..334u64 {
        for &n in &[16usize, 33, 64] {
            let (t, log, fault) = play_mode(PairingMode::Optimal, n, 0, false, seed);
            assert_eq!(
                fault, None,
                "optimal mode dead-locked: n = {n}, seed = {seed}"
            );
            check_invariants(&t);
            assert!(t.has_ended());
            assert_eq!(t.repeated_matches(), 0);
            let replayed = Tournament::replay(&log).unwrap();
            assert_eq!(replayed.matches(), t.matches());
            if play_mode(PairingMode::Rswiss, n, 0, false, seed)
                .2
                .is_some()
            {
                rswiss_faults += 1;
            }
        }
    }
    // The comparison is only meaningful if rswiss mode does dead-lock on these fields.
    assert!(
        rswiss_faults > 0,
        "rswiss mode dead-locked in none of 300 tournaments"
    );
}

#[test]
fn optimal_mode_repeats_only_when_it_must_and_then_once() {
    // Four players have three distinct rounds; rounds four and five must repeat pairs.
    for seed in 0..20 {
        let (t, _, fault) = play_mode(PairingMode::Optimal, 4, 3, true, seed);
        assert_eq!(fault, None);
        check_invariants(&t);
        // The first three rounds are the three distinct pairings of four players; rounds four
        // and five are repeats, whose matches (and the earlier ones they repeat) are flagged.
        let first: HashSet<(usize, usize)> = t
            .matches()
            .iter()
            .filter(|m| m.round < 3)
            .map(|m| (m.p1.min(m.p2), m.p1.max(m.p2)))
            .collect();
        assert_eq!(first.len(), 6);
        assert!(
            t.matches()
                .iter()
                .filter(|m| m.round >= 3)
                .all(|m| m.repeated)
        );
        assert_eq!(t.repeated_matches(), 8, "rounds 4 and 5 repeat both pairs");
        // Six rounds use each of the three pairings twice; a seventh needs a third meeting.
        let (t, _, fault) = play_mode(PairingMode::Optimal, 4, 4, true, seed);
        assert_eq!(fault, None);
        assert_eq!(t.repeated_matches(), 12);
        let (_, _, fault) = play_mode(PairingMode::Optimal, 4, 5, true, seed);
        assert_eq!(fault, Some(EngineError::RepetitionExhausted));
        // Without repeats, three rounds are possible (rswiss mode can fail even those).
        let (_, _, fault) = play_mode(PairingMode::Optimal, 4, 1, false, seed);
        assert_eq!(fault, None);
        let (_, _, fault) = play_mode(PairingMode::Optimal, 4, 2, false, seed);
        assert_eq!(fault, Some(EngineError::MaxRearranges));
    }
}

#[test]
fn optimal_mode_pairs_top_down_and_gives_the_bye_to_the_lowest() {
    // Round 2 of five players after 1 beat 2 and 3 beat 4 (5 had the bye): scores 1,1,1,0,0.
    let mut t = scripted(vec![1, 2, 3, 4, 5], &[(&[(1, 2, -1), (3, 4, -1)], Some(5))]);
    t.settings.pairing = PairingMode::Optimal;
    let plan = t.plan_round().unwrap();
    // The bye goes to the lowest-placed player without one, a loser; the winners meet each
    // other or the bye-holder, never a player they already met.
    let bye = plan.bye.unwrap();
    assert!(bye == 2 || bye == 4, "{plan:?}");
    for m in &plan.matches {
        assert!(!m.repeated);
        assert_ne!((m.p1.min(m.p2), m.p1.max(m.p2)), (1, 2));
        assert_ne!((m.p1.min(m.p2), m.p1.max(m.p2)), (3, 4));
    }
    let top: Vec<PlayerId> = t.standings().iter().take(3).map(|r| r.id).collect();
    assert!(
        top.contains(&plan.matches[0].p1),
        "top board is led by a leader: {plan:?}"
    );
}
