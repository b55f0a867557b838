//! Cost models against the oracles: the exact solver with its pricing cuts (cheap lower
//! bounds, monotone score bounds) must reach the dense optimum of the same costs, for every
//! preset and for caller weights, including negative ones that disable the cuts.

use crate::oracle;
use goswiss::pairing::model::{Field, Model, Player, Term, pair_round};
use goswiss::pairing::opengotha as og;
use goswiss::pairing::{PairCosts, SolveOptions, brute_force, min_cost_perfect_matching};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn field(rng: &mut ChaCha8Rng, n: usize, rounds: usize) -> Vec<Player> {
    let mut players: Vec<Player> = (0..n)
        .map(|i| Player {
            id: format!("p{i}"),
            rating: rng.random_range(-30.0..9.0f64).round_ties_even() + 0.5,
            score: rng.random_range(0..=rounds) as f64
                + if rng.random_bool(0.2) { 0.5 } else { 0.0 },
            wins: rng.random_range(0..=rounds) as f64,
            club: ["", "A", "B", "C"][rng.random_range(0..4)].to_string(),
            opponents: vec![],
            byes: if rng.random_bool(0.1) { 1 } else { 0 },
        })
        .collect();
    for _ in 0..rounds * n / 2 {
        let a = rng.random_range(0..n);
        let b = (a + rng.random_range(1..4)) % n;
        if a != b {
            let id = players[b].id.clone();
            players[a].opponents.push(id);
        }
    }
    players
}

/// Dense optimum through integer-blossom on the field's own cost oracle.
fn dense(f: &Field) -> Option<i128> {
    let n = f.len();
    let mut lo = i128::MAX;
    let mut hi = i128::MIN;
    for u in 0..n {
        for v in u + 1..n {
            if let Some(c) = f.cost(u, v) {
                lo = lo.min(c);
                hi = hi.max(c);
            }
        }
    }
    if n == 0 {
        return Some(0);
    }
    let big = (n as i128 / 2 + 1) * (hi - lo + 1) + 1;
    let mut w = vec![0i128; n * n];
    for u in 0..n {
        for v in u + 1..n {
            if let Some(c) = f.cost(u, v) {
                w[u * n + v] = big - (c - lo);
            }
        }
    }
    let mate = integer_blossom::max_weight_matching(&w, n);
    let mut total = 0;
    for (u, m) in mate.iter().enumerate() {
        let v = (*m)?;
        if u < v {
            total += f.cost(u, v)?;
        }
    }
    Some(total)
}

fn models() -> Vec<Model> {
    let mut out = vec![
        Model::preset("gopair").unwrap(),
        Model::preset("opengotha_terms").unwrap(),
        Model::preset("custom").unwrap(),
    ];
    out[0].rounds = 6;
    out[0].round = 2;
    out[2].terms = vec![
        (Term::ScoreSquared, 7.0),
        (Term::Rating, 0.25),
        (Term::Played, 3.0),
    ];
    let mut forbid = Model::preset("custom").unwrap();
    forbid.terms = vec![(Term::Score, 10.0), (Term::Rating, 1.0)];
    forbid.forbid_repeats = true;
    out.push(forbid);
    // A negative weight: pairs of the same club are *wanted*; the cuts must switch off.
    let mut neg = Model::preset("custom").unwrap();
    neg.terms = vec![(Term::Club, -5.0), (Term::Score, 1.0), (Term::Wins, 2.0)];
    out.push(neg);
    out
}

#[test]
fn presets_reach_the_dense_optimum() {
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let sizes: &[usize] = if cfg!(debug_assertions) {
        &[7, 20, 41]
    } else {
        &[7, 20, 41, 100, 201]
    };
    for &n in sizes {
        for model in models() {
            for _ in 0..3 {
                let players = field(&mut rng, n, 4);
                let f = Field::new(&model, &players, &[], &[]).expect("field");
                let want = dense(&f);
                let got = pair_round(
                    &f,
                    SolveOptions {
                        neighbours: 2,
                        dense: false,
                    },
                );
                match (want, got) {
                    (Some(w), Ok(r)) => {
                        assert_eq!(r.objective, w, "{} n {n}", model.name);
                        let mut sum: i128 = r.pairs.iter().map(|p| p.cost).sum();
                        sum += r.bye.as_ref().map_or(0, |b| b.1);
                        assert_eq!(sum, r.objective);
                        for p in &r.pairs {
                            assert_eq!(p.terms.iter().map(|t| t.cost).sum::<i128>(), p.cost);
                        }
                    }
                    (None, Err(_)) => {}
                    (w, g) => panic!(
                        "{} n {n}: dense {w:?}, solver {:?}",
                        model.name,
                        g.map(|r| r.objective)
                    ),
                }
            }
        }
    }
}

#[test]
fn small_fields_equal_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(32);
    for case in 0..200 {
        let n = rng.random_range(2..=13);
        for model in models() {
            let players = field(&mut rng, n, 3);
            let f = Field::new(&model, &players, &[], &[]).expect("field");
            let want = brute_force(&f).map(|(w, _)| w);
            let got = pair_round(
                &f,
                SolveOptions {
                    neighbours: 1,
                    dense: false,
                },
            )
            .ok()
            .map(|r| r.objective);
            assert_eq!(got, want, "case {case} {} n {n}", model.name);
        }
    }
}

#[test]
fn forbidden_pairs_and_penalties() {
    let players: Vec<Player> = (0..4)
        .map(|i| Player {
            id: format!("{i}"),
            rating: i as f64,
            ..Player::default()
        })
        .collect();
    let mut m = Model::preset("custom").unwrap();
    m.terms = vec![(Term::Rating, 1.0), (Term::PairPenalty, 1.0)];
    // Natural pairing 0–1, 2–3 (cost 2); forbidding 0–1 gives 0–2, 1–3 (4).
    let f = Field::new(&m, &players, &[("0".into(), "1".into())], &[]).unwrap();
    let r = pair_round(&f, SolveOptions::default()).unwrap();
    assert_eq!(r.objective, 4 * 1_000_000);
    // A penalty of 10 on 0–2 then makes 0–3, 1–2 (3 + 1 = 4) tie… and 0–2 lose: check it.
    let f = Field::new(
        &m,
        &players,
        &[("0".into(), "1".into())],
        &[("2".into(), "0".into(), 10.0)],
    )
    .unwrap();
    let r = pair_round(&f, SolveOptions::default()).unwrap();
    assert_eq!(r.objective, 4 * 1_000_000);
    assert!(
        r.pairs
            .iter()
            .all(|p| !(p.a.min(p.b) == 0 && p.a.max(p.b) == 2))
    );
}

#[test]
fn window_mode_is_never_better_and_exact_when_it_covers_the_field() {
    use goswiss::pairing::model::pair_window;
    let mut rng = ChaCha8Rng::seed_from_u64(33);
    for case in 0..60 {
        let n = rng.random_range(2..=12);
        let model = Model::preset("gopair").unwrap();
        let players = field(&mut rng, n, 3);
        let f = Field::new(&model, &players, &[], &[]).expect("field");
        let exact = pair_round(&f, SolveOptions::default()).expect("exact");
        for w in [1, 2, 3] {
            let win = pair_window(&f, w).expect("window");
            assert!(win.objective >= exact.objective, "case {case} w {w}");
            let mut seen = vec![false; n];
            for p in &win.pairs {
                assert!(!seen[p.a] && !seen[p.b]);
                seen[p.a] = true;
                seen[p.b] = true;
            }
            if let Some(b) = &win.bye {
                assert!(!seen[b.0]);
                seen[b.0] = true;
            }
            assert!(seen.iter().all(|&s| s));
        }
        // A window as large as the field is an exhaustive search: the exact optimum (with the
        // same bye, which window mode picks first).
        let win = pair_window(&f, n).expect("window");
        if n % 2 == 0 {
            assert_eq!(win.objective, exact.objective, "case {case}");
        }
    }
}

#[test]
fn window_of_one_is_greedy_in_order() {
    use goswiss::pairing::model::pair_window;
    // Ratings 0, 2, 3, 10 in that order; cost = |Δrating|. Window 1 keeps item 0's best
    // partner (item 1) at each step, then pairs the rest.
    let mk = |rs: &[f64]| -> Vec<Player> {
        rs.iter()
            .enumerate()
            .map(|(i, &r)| Player {
                id: format!("{i}"),
                rating: r,
                ..Player::default()
            })
            .collect()
    };
    let mut m = Model::preset("custom").unwrap();
    m.terms = vec![(Term::Rating, 1.0)];
    let players = mk(&[0.0, 2.0, 3.0, 10.0]);
    let f = Field::new(&m, &players, &[], &[]).unwrap();
    let w = pair_window(&f, 1).unwrap();
    // Item 0's best is 1 (2.0); then 2–3: 2 + 7 = 9.
    assert_eq!(w.objective, 9_000_000);
    let pairs: Vec<(usize, usize)> = w
        .pairs
        .iter()
        .map(|p| (p.a.min(p.b), p.a.max(p.b)))
        .collect();
    assert!(pairs.contains(&(0, 1)) && pairs.contains(&(2, 3)));
}

/// A random OpenGotha history: `n` players (ranks 30k–9d, a few clubs and countries), `rounds`
/// rounds of random games among present players (colours, handicap, results), byes for the
/// odd one out.
fn og_history(rng: &mut ChaCha8Rng, n: usize, rounds: usize) -> og::History {
    let players = (0..n)
        .map(|i| og::OgPlayer {
            name: format!("P{i:03}"),
            first_name: ["Ann", "Bo", ""][i % 3].to_string(),
            rank: rng.random_range(-30..=8),
            rating: rng.random_range(100..2800),
            club: ["A", "B", "C", "D"][rng.random_range(0..4)].to_string(),
            country: ["FR", "DE"][rng.random_range(0..2)].to_string(),
            smms_correction: 0,
            absent: if rng.random_bool(0.1) {
                vec![rng.random_range(0..=rounds)]
            } else {
                vec![]
            },
        })
        .collect::<Vec<_>>();
    let mut games = vec![];
    let mut byes = vec![];
    for r in 0..rounds {
        let mut here: Vec<usize> = (0..n)
            .filter(|&i| !players[i].absent.contains(&r))
            .collect();
        for k in (1..here.len()).rev() {
            here.swap(k, rng.random_range(0..=k));
        }
        if here.len() % 2 == 1 {
            byes.push((r, here.pop().unwrap()));
        }
        for pair in here.chunks(2) {
            games.push(og::OgGame {
                round: r,
                white: pair[0],
                black: pair[1],
                handicap: if rng.random_bool(0.3) {
                    rng.random_range(1..=9)
                } else {
                    0
                },
                result: [
                    og::Outcome::WhiteWins,
                    og::Outcome::BlackWins,
                    og::Outcome::Jigo,
                    og::Outcome::BothLose,
                ][rng.random_range(0..4)],
            });
        }
    }
    og::History {
        players,
        games,
        byes,
    }
}

/// The `opengotha` preset's costs (OpenGotha's weights, the bye as a tier) through the exact
/// solver equal brute force and integer-blossom, on random McMahon and Swiss histories with
/// odd and even fields; the bye goes to the player OpenGotha would choose.
#[test]
fn opengotha_costs_reach_the_oracles_and_the_bye_is_opengothas() {
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    for (n, rounds, system) in [
        (7, 2, og::System::McMahon),
        (10, 3, og::System::Swiss),
        (11, 1, og::System::McMahon),
        (12, 4, og::System::SwissCat),
        (31, 3, og::System::McMahon),
        (60, 5, og::System::Swiss),
    ] {
        for _ in 0..4 {
            let h = og_history(&mut rng, n, rounds);
            let mut params = og::Params::defaults(system, rounds + 2);
            if system == og::System::SwissCat {
                params.category_limits = vec![0, -10];
            }
            let state = og::RoundState::new(&params, &h, rounds);
            let present: Vec<usize> = (0..n)
                .filter(|&i| !h.players[i].absent.contains(&rounds))
                .collect();
            let costs = og::RoundCosts::new(&state, &present);
            let got = min_cost_perfect_matching(
                &costs,
                SolveOptions {
                    neighbours: 2,
                    dense: false,
                },
            )
            .expect("matching");
            if costs.len() <= 12 {
                let (bf, _) = brute_force(&costs).expect("brute force");
                assert_eq!(got.cost, bf, "n {n} {system:?}");
            }
            assert_eq!(
                got.cost,
                oracle::integer_blossom_min_cost(&costs),
                "n {n} {system:?}"
            );
            let r = og::pair(&state, &present, SolveOptions::default()).expect("pairing");
            assert_eq!(r.boards.len(), present.len() / 2);
            if present.len() % 2 == 1 {
                let b = r.bye.expect("a bye");
                let best = present.iter().map(|&i| state.bye_weight(i)).min().unwrap();
                assert_eq!(state.bye_weight(b), best);
                // Ties go to the later player in the list, as in OpenGotha.
                let last = *present
                    .iter()
                    .rev()
                    .find(|&&i| state.bye_weight(i) == best)
                    .unwrap();
                assert_eq!(b, last);
            } else {
                assert_eq!(r.bye, None);
            }
            for b in &r.boards {
                assert_eq!(b.weights, {
                    let (x, y) = if present.iter().position(|&i| i == b.white)
                        < present.iter().position(|&i| i == b.black)
                    {
                        (b.white, b.black)
                    } else {
                        (b.black, b.white)
                    };
                    state.weights(x, y)
                });
                assert!(b.handicap >= 0 && b.handicap <= params.hd_ceiling);
            }
        }
    }
}
