//! The matchmaker seam: optimal king-of-the-hill rounds. Hand cases, an independent
//! lexicographic brute force on small fields, and whole random tournaments that must never
//! dead-lock while a legal round exists.

use goswiss::pairing::{KothInput, KothPlayer, pair_king_of_the_hill};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn players(scores: &[i64]) -> Vec<KothPlayer> {
    scores
        .iter()
        .map(|&s| KothPlayer {
            score_halves: s,
            byes: 0,
        })
        .collect()
}

#[test]
fn first_round_is_one_two_three_four() {
    let p = players(&[0; 6]);
    let r = pair_king_of_the_hill(&KothInput {
        players: &p,
        played: &[],
        allow_repeat: false,
    })
    .unwrap();
    assert_eq!(r.pairs, vec![(0, 1), (2, 3), (4, 5)]);
    assert_eq!(r.bye, None);
    assert_eq!(r.repeats, 0);
}

#[test]
fn bye_goes_to_the_lowest_placed_without_one() {
    let mut p = players(&[4, 2, 2, 0, 0]);
    let input = KothInput {
        players: &p,
        played: &[],
        allow_repeat: false,
    };
    let r = pair_king_of_the_hill(&input).unwrap();
    assert_eq!(r.bye, Some(4));
    assert_eq!(r.pairs, vec![(0, 1), (2, 3)]);
    p[4].byes = 1;
    p[3].byes = 1;
    let input = KothInput {
        players: &p,
        played: &[],
        allow_repeat: false,
    };
    let r = pair_king_of_the_hill(&input).unwrap();
    assert_eq!(r.bye, Some(2));
    assert_eq!(r.pairs, vec![(0, 1), (3, 4)]);
}

#[test]
fn skips_previous_opponents_and_floats_evenly() {
    // 0 and 1 met: 0 meets 2, 1 meets 3 (two gaps of 0/2) rather than 0–3.
    let p = players(&[4, 4, 4, 2]);
    let r = pair_king_of_the_hill(&KothInput {
        players: &p,
        played: &[(0, 1, 1)],
        allow_repeat: false,
    })
    .unwrap();
    assert_eq!(r.pairs, vec![(0, 2), (1, 3)]);
}

#[test]
fn repeats_only_when_allowed_and_never_twice() {
    let p = players(&[2, 2]);
    let no = KothInput {
        players: &p,
        played: &[(1, 0, 1)],
        allow_repeat: false,
    };
    assert!(pair_king_of_the_hill(&no).is_err());
    let yes = KothInput {
        allow_repeat: true,
        ..no
    };
    let r = pair_king_of_the_hill(&yes).unwrap();
    assert_eq!((r.pairs.clone(), r.repeats), (vec![(0, 1)], 1));
    let twice = KothInput {
        played: &[(0, 1, 2)],
        allow_repeat: true,
        ..no
    };
    assert!(pair_king_of_the_hill(&twice).is_err());
}

#[test]
fn empty_and_single() {
    let r = pair_king_of_the_hill(&KothInput {
        players: &[],
        played: &[],
        allow_repeat: false,
    })
    .unwrap();
    assert!(r.pairs.is_empty() && r.bye.is_none());
    let p = players(&[0]);
    let r = pair_king_of_the_hill(&KothInput {
        players: &p,
        played: &[],
        allow_repeat: false,
    })
    .unwrap();
    assert_eq!(r.bye, Some(0));
}

/// The objective as a tuple, compared lexicographically: what the seam promises.
fn tiers(
    p: &[KothPlayer],
    met: &dyn Fn(usize, usize) -> u32,
    pairs: &[(usize, usize)],
    bye: Option<usize>,
) -> (i64, usize, i64, i64, i64) {
    let min_byes = p.iter().map(|x| x.byes).min().unwrap_or(0);
    let n = p.len() as i64;
    let (excess, place) = match bye {
        Some(b) => ((p[b].byes - min_byes) as i64, n - 1 - b as i64),
        None => (0, 0),
    };
    let repeats = pairs.iter().filter(|&&(a, b)| met(a, b) > 0).count();
    let gaps = pairs
        .iter()
        .map(|&(a, b)| (p[a].score_halves - p[b].score_halves).pow(2))
        .sum();
    let dist = pairs
        .iter()
        .map(|&(a, b)| (b as i64 - a as i64).pow(2))
        .sum();
    (excess, repeats, place, gaps, dist)
}

/// Every legal round of a small field, by enumeration: the lexicographic minimum.
fn brute(
    p: &[KothPlayer],
    met: &dyn Fn(usize, usize) -> u32,
    allow_repeat: bool,
) -> Option<(i64, usize, i64, i64, i64)> {
    let n = p.len();
    let mut best = None;
    let byes: Vec<Option<usize>> = if n % 2 == 1 {
        (0..n).map(Some).collect()
    } else {
        vec![None]
    };
    for bye in byes {
        let mut free: Vec<bool> = (0..n).map(|i| Some(i) != bye).collect();
        let mut pairs = Vec::new();
        fn rec(
            p: &[KothPlayer],
            met: &dyn Fn(usize, usize) -> u32,
            allow: bool,
            free: &mut Vec<bool>,
            pairs: &mut Vec<(usize, usize)>,
            bye: Option<usize>,
            best: &mut Option<(i64, usize, i64, i64, i64)>,
        ) {
            let Some(u) = free.iter().position(|&f| f) else {
                let mut sorted = pairs.clone();
                sorted.sort_unstable();
                let t = tiers(p, met, &sorted, bye);
                if best.is_none_or(|b| t < b) {
                    *best = Some(t);
                }
                return;
            };
            free[u] = false;
            for v in u + 1..free.len() {
                let m = met(u, v);
                if free[v] && (m == 0 || (m == 1 && allow)) {
                    free[v] = false;
                    pairs.push((u, v));
                    rec(p, met, allow, free, pairs, bye, best);
                    pairs.pop();
                    free[v] = true;
                }
            }
            free[u] = true;
        }
        rec(p, met, allow_repeat, &mut free, &mut pairs, bye, &mut best);
    }
    best
}

/// Plays a tournament with random results; returns how many rounds were checked.
fn play(rng: &mut ChaCha8Rng, n: usize, rounds: usize, allow_repeat: bool, check_brute: bool) {
    // Players by id; standings are recomputed each round.
    let mut score = vec![0i64; n];
    let mut byes = vec![0u32; n];
    let mut met = vec![vec![0u32; n]; n];
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(rng);
    for round in 0..rounds {
        // Score descending; ties keep the previous order (stable sort), like a standings table.
        order.sort_by(|&a, &b| score[b].cmp(&score[a]));
        let ps: Vec<KothPlayer> = order
            .iter()
            .map(|&id| KothPlayer {
                score_halves: score[id],
                byes: byes[id],
            })
            .collect();
        let mut played = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                let t = met[order[i]][order[j]];
                if t > 0 {
                    played.push((i, j, t));
                }
            }
        }
        let input = KothInput {
            players: &ps,
            played: &played,
            allow_repeat,
        };
        let got = pair_king_of_the_hill(&input);
        let met_at = |a: usize, b: usize| met[order[a]][order[b]];
        if check_brute {
            let want = brute(&ps, &met_at, allow_repeat);
            match (&got, want) {
                (Ok(r), Some(w)) => assert_eq!(tiers(&ps, &met_at, &r.pairs, r.bye), w),
                (Err(_), None) => return,
                (g, w) => panic!("n {n} round {round}: seam {g:?}, brute force {w:?}"),
            }
        }
        let r = got.unwrap_or_else(|e| panic!("n {n} round {round}: dead-locked: {e}"));
        // Shape: every player once, pairs ordered, top board first.
        let mut seen = vec![false; n];
        for &(a, b) in &r.pairs {
            assert!(a < b);
            assert!(!seen[a] && !seen[b]);
            seen[a] = true;
            seen[b] = true;
            let m = met_at(a, b);
            assert!(m == 0 || (allow_repeat && m == 1), "illegal repeat");
        }
        assert!(r.pairs.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(
            r.repeats,
            r.pairs.iter().filter(|&&(a, b)| met_at(a, b) > 0).count()
        );
        match r.bye {
            Some(b) => {
                assert!(!seen[b] && n % 2 == 1);
                byes[order[b]] += 1;
                score[order[b]] += 2;
            }
            None => assert_eq!(n % 2, 0),
        }
        for &(a, b) in &r.pairs {
            let (x, y) = (order[a], order[b]);
            met[x][y] += 1;
            met[y][x] += 1;
            match rng.random_range(0..5) {
                0 => {
                    score[x] += 1;
                    score[y] += 1;
                }
                1 | 2 => score[x] += 2,
                _ => score[y] += 2,
            }
        }
    }
}

#[test]
fn never_dead_locks_without_repeats() {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let tournaments = if cfg!(debug_assertions) { 60 } else { 1000 };
    for n in [16usize, 33, 64] {
        let rounds = n.next_power_of_two().trailing_zeros() as usize;
        for _ in 0..tournaments {
            play(&mut rng, n, rounds, false, false);
        }
    }
}

#[test]
fn small_fields_match_lexicographic_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    let tournaments = if cfg!(debug_assertions) { 40 } else { 200 };
    for _ in 0..tournaments {
        let n = rng.random_range(2..=10);
        let allow = rng.random_bool(0.5);
        // Long enough to run out of legal rounds sometimes.
        play(&mut rng, n, n + 2, allow, true);
    }
}
