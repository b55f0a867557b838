//! Generated fields shared by the pairing tests and benchmarks (not used by the daemon): one
//! generator, so the tests check the very fields the benchmarks time.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::model::Player;
use super::opengotha::{History, OgGame, OgPlayer, Outcome};
use super::solve::DenseCosts;

/// The field sizes of the pairing benchmarks: 100, 1,000 and 10,000 players;
/// `GOSWISS_BENCH_QUICK=1` leaves 10,000 out (its optimality check before the timing takes
/// seconds).
pub fn bench_sizes() -> &'static [usize] {
    if std::env::var_os("GOSWISS_BENCH_QUICK").is_some() {
        &[100, 1000]
    } else {
        &[100, 1000, 10_000]
    }
}

/// A McMahon field after `rounds` rounds. The history is made cheaply (each round pairs
/// neighbours in score order, with a random offset inside the score group so that pairs are
/// not only 1–2, 3–4; the stronger player wins more often), so that the setup does not depend
/// on the engine being measured.
pub fn mcmahon_field(n: usize, rounds: usize, seed: u64) -> Vec<Player> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut players: Vec<Player> = (0..n)
        .map(|i| {
            // Ranks 30k..9d as AGA-style ratings −30.x … 9.x, more players in the kyu middle.
            let r: f64 =
                (rng.random_range(-30.0..9.99f64) + rng.random_range(-30.0..9.99f64)) / 2.0;
            let rating = (r * 100.0).round() / 100.0;
            // McMahon: floor 20k, bar 4d; 30k = 0.
            let rank = rating.floor().clamp(-20.0, 4.0);
            Player {
                id: format!("p{i}"),
                rating,
                score: rank + 30.0,
                wins: 0.0,
                club: format!("club{}", rng.random_range(0..n / 8 + 1)),
                opponents: vec![],
                byes: 0,
            }
        })
        .collect();
    for _ in 0..rounds {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| {
            players[b]
                .score
                .total_cmp(&players[a].score)
                .then(players[b].rating.total_cmp(&players[a].rating))
        });
        // Rotate by a random offset so that partners vary from round to round.
        let shift = rng.random_range(0..4).min(n.saturating_sub(1));
        order.rotate_left(shift);
        for pair in order.chunks(2) {
            let [a, b] = pair else {
                players[pair[0]].score += 1.0;
                players[pair[0]].byes += 1;
                continue;
            };
            let (a, b) = (*a, *b);
            let d = players[a].rating - players[b].rating;
            let pa = 1.0 / (1.0 + (-d / 2.0).exp());
            let w = if rng.random_bool(pa) { a } else { b };
            players[w].score += 1.0;
            players[w].wins += 1.0;
            let (ia, ib) = (players[a].id.clone(), players[b].id.clone());
            players[a].opponents.push(ib);
            players[b].opponents.push(ia);
        }
    }
    players
}

/// A random graph on `n` vertices: each pair absent (forbidden) with probability `forbid`,
/// otherwise a cost uniform in −max..=max.
pub fn random_dense_costs(rng: &mut impl Rng, n: usize, max: i64, forbid: f64) -> DenseCosts<i64> {
    let mut cost = vec![None; n * n];
    for u in 0..n {
        for v in u + 1..n {
            if !rng.random_bool(forbid) {
                cost[u * n + v] = Some(rng.random_range(-max..=max));
            }
        }
    }
    DenseCosts {
        n,
        cost,
        hubs: vec![],
    }
}

/// An OpenGotha tournament history of `n` players (ranks 30k–9d, more in the kyu middle, 60
/// clubs, 8 countries) after `rounds` rounds made cheaply, so the setup does not depend on the engine
/// measured: each round pairs neighbours in (rank + wins) order with a random offset, the
/// stronger player White with the rank difference (capped at 9) as handicap above 1d-gaps,
/// results favouring the stronger side a little; odd fields give a bye to the last one.
pub fn opengotha_history(n: usize, rounds: usize, seed: u64) -> History {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let players: Vec<OgPlayer> = (0..n)
        .map(|i| OgPlayer {
            name: format!("Player{i:05}"),
            first_name: ["Ann", "Bo", "Cy", "Di"][i % 4].to_string(),
            // −30 (30k) … 8 (9d), more players in the kyu middle.
            rank: ((rng.random_range(-30..=8) + rng.random_range(-30..=8)) as f64 / 2.0).round()
                as i32,
            rating: 0,
            club: format!("club{}", rng.random_range(0..60)),
            country: format!("c{}", rng.random_range(0..8)),
            smms_correction: 0,
            absent: vec![],
        })
        .collect();
    let mut wins = vec![0i32; n];
    let mut games = vec![];
    let mut byes = vec![];
    for r in 0..rounds {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| {
            (
                -(players[i].rank.clamp(-20, 3) + wins[i]),
                -players[i].rank,
                i,
            )
        });
        // A random offset inside the top part so pairs are not only 1–2, 3–4.
        let shift = rng.random_range(0..4usize).min(order.len() / 2);
        order[..2 * shift].rotate_left(shift);
        if n % 2 == 1 {
            byes.push((r, order.pop().unwrap()));
        }
        for pair in order.chunks(2) {
            let (a, b) = (pair[0], pair[1]);
            let (w, bl) = if players[a].rank >= players[b].rank {
                (a, b)
            } else {
                (b, a)
            };
            let gap = players[w].rank - players[bl].rank;
            let white_wins = rng.random_bool(if gap > 0 { 0.55 } else { 0.5 });
            if white_wins {
                wins[w] += 1;
            } else {
                wins[bl] += 1;
            }
            games.push(OgGame {
                round: r,
                white: w,
                black: bl,
                handicap: if gap > 1 { gap.min(9) } else { 0 },
                result: if white_wins {
                    Outcome::WhiteWins
                } else {
                    Outcome::BlackWins
                },
            });
        }
    }
    History {
        players,
        games,
        byes,
    }
}
