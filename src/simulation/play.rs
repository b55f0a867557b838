//! One simulated tournament, played by the tournament engine itself: the `created` event,
//! the players' `player_registered` events, then for every round the engine's own pairing
//! (`Tournament::pair_round`, OpenGotha's weight or the variant's cost model) and a result for
//! every game from the result model (`Tournament::set_result`), each folded with
//! `Tournament::apply` exactly as the daemon folds a stored log; the final standings are
//! `tournament::standings`. Nothing here pairs or scores on its own, so a simulated tournament
//! is the tournament a director would get from `tournament.*` with the same seed, players and
//! results (`tests/simulation.rs` replays one over RPC).

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::field::{Field, RunField};
use super::model::ResultModel;
use crate::pairing::model::Model;
use crate::tournament::model::{Outcome, Settings};
use crate::tournament::pair::PairOptions;
use crate::tournament::results::ResultInput;
use crate::tournament::standings::{Standings, standings};
use crate::tournament::{Event, Tournament, TournamentError};

/// SplitMix64's finaliser: a bijection of u64 that spreads every input bit.
pub fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A seed derived from two numbers (a master seed and a run, a seed and a round …).
pub fn mix(a: u64, b: u64) -> u64 {
    splitmix(a ^ splitmix(b ^ 0x5851_F42D_4C95_7F2D))
}

/// The tournament seed of run `run` (recorded in its `created` event; below 2⁵³ so that every
/// JSON client reads it exactly, like the seeds `tournament.create` draws).
pub fn run_seed(master: u64, run: u64) -> u64 {
    mix(master, run) >> 11
}

/// The field of the run with tournament seed `seed`.
pub fn run_field(field: &Field, seed: u64, strength_sd: f64) -> RunField {
    field.draw(&mut ChaCha8Rng::seed_from_u64(mix(seed, 1)), strength_sd)
}

/// A uniform number in [0, 1) for the game of players `a` and `b` in `round`: the same for
/// the same pair whatever the colours and whichever variant paired it (common random numbers
/// make variants' differences show with fewer runs).
fn game_draw(seed: u64, round: u32, a: u32, b: u32) -> f64 {
    let (lo, hi) = (a.min(b) as u64, a.max(b) as u64);
    let z = mix(mix(seed, 2 + round as u64), (lo << 32) | hi);
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// A played tournament and its final standings.
pub struct Played {
    pub tournament: Tournament,
    pub standings: Standings,
}

/// Plays one tournament of `settings` for `field` with tournament seed `seed`.
pub fn play(
    settings: &Settings,
    pairing_model: Option<&Model>,
    field: &RunField,
    seed: u64,
    model: &ResultModel,
) -> Result<Played, TournamentError> {
    let mut t = Tournament::replay(&[Tournament::create(settings.clone(), seed)?])?;
    // The registration command checks each new name against every earlier one (O(n²));
    // the field was checked once when the simulation was prepared, so its events are folded
    // as `tournament.player.add` would have produced them (ids 1 … n, nothing skipped).
    for p in &field.players {
        t.apply(&Event::PlayerRegistered { player: p.clone() })?;
    }
    let opts = PairOptions {
        players: None,
        model: pairing_model.cloned(),
    };
    let strength_of = |id: u32| field.strength[id as usize - 1];
    for round in 1..=settings.rounds {
        let (events, _) = t.pair_round(round, &opts)?;
        for e in &events {
            t.apply(e)?;
        }
        let games: Vec<(u32, u32, u32, u32)> = t.data.rounds[round as usize - 1]
            .games
            .iter()
            .map(|g| (g.table, g.white, g.black, g.handicap))
            .collect();
        for (table, white, black, handicap) in games {
            let p_white = model.white_wins(strength_of(white), strength_of(black), handicap);
            // The draw decides for the pair's lower id, so it means the same whoever is White.
            let p_low = if white < black {
                p_white
            } else {
                1.0 - p_white
            };
            let low_wins = game_draw(seed, round, white, black) < p_low;
            let outcome = if low_wins == (white < black) {
                Outcome::WhiteWins
            } else {
                Outcome::BlackWins
            };
            let (events, _) = t.set_result(
                round,
                table,
                ResultInput {
                    outcome,
                    ..ResultInput::default()
                },
            )?;
            for e in &events {
                t.apply(e)?;
            }
        }
    }
    let standings = standings(&t.data, settings.rounds, &settings.placement);
    Ok(Played {
        tournament: t,
        standings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulation::field::{FieldSpec, prepare};
    use crate::tournament::model::System;

    #[test]
    fn seeds_are_spread_and_below_two_to_the_53() {
        let seeds: std::collections::HashSet<u64> = (0..10_000).map(|r| run_seed(1, r)).collect();
        assert_eq!(seeds.len(), 10_000);
        assert!(seeds.iter().all(|&s| s < 1 << 53));
        assert_ne!(run_seed(1, 0), run_seed(2, 0));
        let draws: Vec<f64> = (0..2000).map(|k| game_draw(9, 1, k, k + 1)).collect();
        assert!(draws.iter().all(|d| (0.0..1.0).contains(d)));
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        assert!((mean - 0.5).abs() < 0.03, "{mean}");
        assert_eq!(game_draw(9, 3, 4, 7), game_draw(9, 3, 7, 4));
    }

    #[test]
    fn a_played_tournament_has_every_round_and_result() {
        let field = prepare(
            serde_json::from_str::<FieldSpec>(
                r#"{"generate": {"players": 21, "from": "15k", "to": "2d"}}"#,
            )
            .unwrap(),
        )
        .unwrap();
        let seed = run_seed(3, 0);
        let rf = run_field(&field, seed, 0.5);
        let settings = Settings::defaults(System::Mcmahon);
        let played = play(&settings, None, &rf, seed, &ResultModel::Egf {}).unwrap();
        let d = &played.tournament.data;
        assert_eq!(d.rounds.len(), 5);
        for r in &d.rounds {
            assert_eq!(r.games.len(), 10);
            assert_eq!(r.byes.len(), 1);
            assert!(r.games.iter().all(|g| g.outcome != Outcome::Unknown));
        }
        assert_eq!(played.standings.rows.len(), 21);
        // The same seed plays the same tournament.
        let again = play(&settings, None, &rf, seed, &ResultModel::Egf {}).unwrap();
        assert_eq!(again.tournament.data, played.tournament.data);
    }
}
