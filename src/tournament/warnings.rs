//! Warnings on a round's games before the director publishes it: same club, same country,
//! a repeated game, a big handicap, a colour imbalance. A pure function over the tournament
//! so that the daemon computes them once (`tournament.round.warnings`) and the edit screen
//! only shows them.

use schemars::JsonSchema;
use serde::Serialize;

use super::model::{Game, Player, PlayerId, RoundNumber, TournamentData};

/// Handicap above this many stones is "big" unless the tournament's ceiling is lower.
pub const DEFAULT_BIG_HANDICAP: u32 = 4;

/// A player's whites − blacks (even games with known colours, up to and including this
/// round) beyond ±this is an imbalance.
pub const COLOUR_TOLERANCE: i32 = 1;

/// One warning on one game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Warning {
    /// Both players are of this club.
    SameClub { club: String },
    /// Both players are of this country.
    SameCountry { country: String },
    /// The two played each other in these earlier rounds.
    Repeated { rounds: Vec<RoundNumber> },
    /// The handicap is above the threshold.
    BigHandicap { handicap: u32, threshold: u32 },
    /// After this game the player's whites − blacks is `balance`.
    Colour { player: PlayerId, balance: i32 },
}

/// The warnings of one game of the round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct GameWarnings {
    pub table: u32,
    pub warnings: Vec<Warning>,
}

/// The big-handicap threshold of a tournament: its handicap ceiling when that is lower than
/// [`DEFAULT_BIG_HANDICAP`].
pub fn big_handicap_threshold(data: &TournamentData) -> u32 {
    let ceiling = u32::try_from(data.settings.handicap.ceiling).unwrap_or(0);
    ceiling.min(DEFAULT_BIG_HANDICAP)
}

/// Two clubs (countries) are one when the pairing takes them as one: equal ignoring case,
/// in full Unicode as `pairing::opengotha` compares them (`Évry` is `évry`). Spaces around a
/// name are a typing slip; an empty name is no club, which warns of nothing.
fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim(), b.trim());
    !a.is_empty() && a.to_lowercase() == b.to_lowercase()
}

/// Whites − blacks of `p` over rounds 1..=r, counting only even games with known colours
/// (a handicap game's colours are given by the ranks, not chosen by the pairing).
fn colour_balance(data: &TournamentData, p: PlayerId, r: RoundNumber) -> i32 {
    (1..=r)
        .filter_map(|k| data.game_of(k, p))
        .filter(|g| g.handicap == 0 && g.known_colour)
        .map(|g| if g.white == p { 1 } else { -1 })
        .sum()
}

fn game_warnings(data: &TournamentData, r: RoundNumber, g: &Game, threshold: u32) -> Vec<Warning> {
    let mut out = Vec::new();
    let (w, b): (Option<&Player>, Option<&Player>) = (data.player(g.white), data.player(g.black));
    if let (Some(w), Some(b)) = (w, b) {
        if same(&w.club, &b.club) {
            out.push(Warning::SameClub {
                club: w.club.trim().to_string(),
            });
        }
        if same(&w.country, &b.country) {
            out.push(Warning::SameCountry {
                country: w.country.trim().to_string(),
            });
        }
    }
    let rounds: Vec<RoundNumber> = (1..r)
        .filter(|&k| data.game_of(k, g.white).is_some_and(|o| o.has(g.black)))
        .collect();
    if !rounds.is_empty() {
        out.push(Warning::Repeated { rounds });
    }
    if g.handicap > threshold {
        out.push(Warning::BigHandicap {
            handicap: g.handicap,
            threshold,
        });
    }
    for p in [g.white, g.black] {
        let balance = colour_balance(data, p, r);
        if balance.abs() > COLOUR_TOLERANCE {
            out.push(Warning::Colour { player: p, balance });
        }
    }
    out
}

/// The warnings of round `r`'s games, in table order; games without any are left out.
/// An unpaired round has none.
pub fn round_warnings(data: &TournamentData, r: RoundNumber) -> Vec<GameWarnings> {
    let threshold = big_handicap_threshold(data);
    let Some(round) = data.round(r) else {
        return Vec::new();
    };
    round
        .games
        .iter()
        .map(|g| GameWarnings {
            table: g.table,
            warnings: game_warnings(data, r, g, threshold),
        })
        .filter(|gw| !gw.warnings.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::model::{Round, Settings, System};

    fn player(id: PlayerId, club: &str, country: &str) -> Player {
        Player {
            id,
            name: format!("P{id}"),
            club: club.into(),
            country: country.into(),
            ..Player::default()
        }
    }

    fn game(table: u32, white: PlayerId, black: PlayerId) -> Game {
        Game {
            table,
            white,
            black,
            ..Game::default()
        }
    }

    fn data(players: Vec<Player>, rounds: Vec<Vec<Game>>) -> TournamentData {
        TournamentData {
            settings: Settings::defaults(System::Mcmahon),
            players,
            rounds: rounds
                .into_iter()
                .map(|games| Round {
                    games,
                    ..Round::default()
                })
                .collect(),
        }
    }

    fn four() -> Vec<Player> {
        vec![
            player(1, "Paris", "FR"),
            player(2, "Lyon", "DE"),
            player(3, "Bonn", "CH"),
            player(4, "Rome", "IT"),
        ]
    }

    #[test]
    fn clean_round_has_no_warning() {
        let d = data(four(), vec![vec![game(1, 1, 2), game(2, 3, 4)]]);
        assert_eq!(round_warnings(&d, 1), vec![]);
        assert_eq!(round_warnings(&d, 2), vec![], "unpaired round");
    }

    #[test]
    fn same_club_ignores_case_beyond_ascii_as_the_pairing_does() {
        let mut ps = four();
        ps[0].club = "Évry".into();
        ps[1].club = "évry".into();
        let d = data(ps, vec![vec![game(1, 1, 2)]]);
        assert!(
            round_warnings(&d, 1)[0]
                .warnings
                .contains(&Warning::SameClub {
                    club: "Évry".into()
                })
        );
    }

    #[test]
    fn same_club_and_country() {
        let mut ps = four();
        ps[1].club = " paris".into();
        ps[1].country = "FR".into();
        let d = data(ps, vec![vec![game(1, 1, 2), game(2, 3, 4)]]);
        assert_eq!(
            round_warnings(&d, 1),
            vec![GameWarnings {
                table: 1,
                warnings: vec![
                    Warning::SameClub {
                        club: "Paris".into()
                    },
                    Warning::SameCountry {
                        country: "FR".into()
                    },
                ],
            }]
        );
    }

    #[test]
    fn empty_club_is_not_the_same_club() {
        let mut ps = four();
        ps[0].club.clear();
        ps[1].club.clear();
        let d = data(ps, vec![vec![game(1, 1, 2)]]);
        assert_eq!(round_warnings(&d, 1), vec![]);
    }

    #[test]
    fn repeated_game_names_the_earlier_round() {
        let d = data(
            four(),
            vec![
                vec![game(1, 1, 2), game(2, 3, 4)],
                vec![game(1, 1, 3), game(2, 2, 4)],
                vec![game(1, 2, 1), game(2, 4, 3)],
            ],
        );
        let w = round_warnings(&d, 3);
        assert_eq!(w.len(), 2);
        assert_eq!(w[0].table, 1);
        assert!(
            w[0].warnings
                .contains(&Warning::Repeated { rounds: vec![1] })
        );
        assert!(
            w[1].warnings
                .contains(&Warning::Repeated { rounds: vec![1] })
        );
    }

    #[test]
    fn big_handicap_uses_default_or_lower_ceiling() {
        let mut g = game(1, 1, 2);
        g.handicap = DEFAULT_BIG_HANDICAP + 1;
        let mut d = data(four(), vec![vec![g.clone(), game(2, 3, 4)]]);
        assert_eq!(
            round_warnings(&d, 1)[0].warnings,
            vec![Warning::BigHandicap {
                handicap: DEFAULT_BIG_HANDICAP + 1,
                threshold: DEFAULT_BIG_HANDICAP
            }]
        );
        d.rounds[0].games[0].handicap = DEFAULT_BIG_HANDICAP;
        assert_eq!(round_warnings(&d, 1), vec![]);
        d.settings.handicap.ceiling = 2;
        assert_eq!(
            round_warnings(&d, 1)[0].warnings,
            vec![Warning::BigHandicap {
                handicap: DEFAULT_BIG_HANDICAP,
                threshold: 2
            }]
        );
    }

    #[test]
    fn colour_imbalance_beyond_one() {
        // Player 1 white in rounds 1 and 2: +2 after round 2; player 3 black twice: −2.
        let d = data(
            four(),
            vec![
                vec![game(1, 1, 2), game(2, 4, 3)],
                vec![game(1, 1, 3), game(2, 2, 4)],
            ],
        );
        assert_eq!(round_warnings(&d, 1), vec![]);
        assert_eq!(
            round_warnings(&d, 2),
            vec![GameWarnings {
                table: 1,
                warnings: vec![
                    Warning::Colour {
                        player: 1,
                        balance: 2
                    },
                    Warning::Colour {
                        player: 3,
                        balance: -2
                    },
                ],
            }]
        );
    }

    #[test]
    fn handicap_games_do_not_count_for_colour() {
        let mut g = game(1, 1, 3);
        g.handicap = 2;
        let d = data(four(), vec![vec![game(1, 1, 2), game(2, 4, 3)], vec![g]]);
        assert_eq!(round_warnings(&d, 2), vec![]);
    }
}
