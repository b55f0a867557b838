//! The crosstable (wall list): every player in placement order with one cell per round, the
//! cells written EGF-style exactly as OpenGotha writes them in its `.h9` table (`3+/w2`: the
//! opponent's line number, the result, `/` or `!` for a result by default, the colour, the
//! handicap; `0+` / `0=` / `0-` for a round without a game).
//!
//! Pure: reads a [`TournamentData`]. Each cell is a typed [`Cell`] (so pages can render it
//! their own way) whose `Display` is the EGF text.

use std::fmt;

use serde::Serialize;

use crate::pairing::opengotha::Crit;

use super::model::{Criterion, Outcome, PlayerId, RoundNumber, TournamentData};
use super::standings::{Part, PlayerIndex, Standings, participation, standings};

/// What filled a player's round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CellKind {
    Game,
    Bye,
    /// Not taking part that round (skipped or withdrawn).
    Absent,
    /// Taking part but neither paired nor given the bye.
    NotAssigned,
}

/// The result as the player sees it. For a round without a game, what the round was worth
/// (the bye or absence value: a whole point `Win`, half `Jigo`, nothing `Loss`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CellResult {
    Win,
    Loss,
    Jigo,
    Unknown,
}

impl CellResult {
    fn symbol(self) -> char {
        match self {
            CellResult::Win => '+',
            CellResult::Loss => '-',
            CellResult::Jigo => '=',
            CellResult::Unknown => '?',
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Colour {
    White,
    Black,
    /// The game's colours are not known (OpenGotha's knownColor = false).
    Unknown,
}

/// One round of one player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cell {
    pub round: RoundNumber,
    pub kind: CellKind,
    /// The opponent, for a game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opponent: Option<PlayerId>,
    /// The opponent's line number in this crosstable (1-based), for a game; 0 otherwise, as
    /// the EGF table writes it.
    pub opponent_position: u32,
    pub result: CellResult,
    /// The player's colour, for a game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub colour: Option<Colour>,
    /// Handicap stones of the game (0 without a game).
    pub handicap: u32,
    /// A result by default (not played over the board).
    pub forfeit: bool,
}

impl Cell {
    /// The OpenGotha field of this cell in an EGF table: 8 characters. `full` = OpenGotha's
    /// full game format (type, colour and handicap written).
    pub fn h9_field(&self) -> String {
        match self.kind {
            // OpenGotha pads the three missing characters of a round without a game.
            CellKind::Game => format!("{:>8}", self.to_string()),
            _ => format!("   0{}   ", self.result.symbol()),
        }
    }

    /// The field in OpenGotha's short game format (`gameFormat="short"`): a game is only the
    /// opponent's line and the result (`     26+`), no `/` or `!`, colour or handicap; a round
    /// without a game is written as in the full format.
    pub fn h9_field_short(&self) -> String {
        match self.kind {
            CellKind::Game => format!(
                "{:>8}",
                format!("{}{}", self.opponent_position, self.result.symbol())
            ),
            _ => self.h9_field(),
        }
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            CellKind::Game => {
                let typ = if self.forfeit { '!' } else { '/' };
                let col = match self.colour {
                    Some(Colour::White) => 'w',
                    Some(Colour::Black) => 'b',
                    _ => '?',
                };
                write!(
                    f,
                    "{}{}{typ}{col}{}",
                    self.opponent_position,
                    self.result.symbol(),
                    self.handicap
                )
            }
            _ => write!(f, "0{}", self.result.symbol()),
        }
    }
}

/// Standings with the cells of each row.
#[derive(Debug, Clone, PartialEq)]
pub struct Crosstable {
    /// Rows in placement order (places recomputed when players were left out).
    pub standings: Standings,
    /// `cells[i]` belongs to `standings.rows[i]`: rounds 1..=`rounds`.
    pub cells: Vec<Vec<Cell>>,
}

/// The crosstable: standings after `after_round` by `criteria`, and cells for rounds
/// 1..=`rounds`. With `implied_only`, players without any game or bye in the whole
/// tournament are left out (as OpenGotha's EGF export does) and the places are counted again.
pub fn crosstable(
    t: &TournamentData,
    after_round: RoundNumber,
    criteria: &[Criterion],
    rounds: RoundNumber,
    implied_only: bool,
) -> Crosstable {
    let mut st = standings(t, after_round, criteria);
    if implied_only {
        let implied: std::collections::HashSet<PlayerId> = t
            .rounds
            .iter()
            .flat_map(|r| {
                r.games
                    .iter()
                    .flat_map(|g| [g.white, g.black])
                    .chain(r.byes.iter().copied())
            })
            .collect();
        st.rows.retain(|r| implied.contains(&r.id));
        for i in 0..st.rows.len() {
            let tied = i > 0 && st.rows[i].values == st.rows[i - 1].values;
            st.rows[i].tied_with_previous = tied;
            st.rows[i].place = if tied {
                st.rows[i - 1].place
            } else {
                i as u32 + 1
            };
        }
    }
    let index = PlayerIndex::new(t);
    // Line number of each player (by index in `t.players`), 0 when left out.
    let mut pos = vec![0u32; t.players.len()];
    for (k, r) in st.rows.iter().enumerate() {
        if let Some(i) = index.get(r.id) {
            pos[i] = k as u32 + 1;
        }
    }
    let part = participation(t, rounds as usize);
    // OpenGotha writes the McMahon bye/absence values when the first placement criterion is
    // MMS, the number-of-wins ones otherwise.
    let s = &t.settings.scoring;
    let mcmahon = t.settings.placement.first().map(|c| c.0) == Some(Crit::Mms);
    let (bye2, absent2) = if mcmahon {
        (s.mms2_bye, s.mms2_absent)
    } else {
        (s.nbw2_bye, s.nbw2_absent)
    };
    let worth = |v: i32| match v {
        2 => CellResult::Win,
        1 => CellResult::Jigo,
        _ => CellResult::Loss,
    };
    let cells = st
        .rows
        .iter()
        .map(|row| {
            let Some(i) = index.get(row.id) else {
                return Vec::new();
            };
            (0..rounds as usize)
                .map(|k| {
                    let round = k as u32 + 1;
                    let bare = |kind, result| Cell {
                        round,
                        kind,
                        opponent: None,
                        opponent_position: 0,
                        result,
                        colour: None,
                        handicap: 0,
                        forfeit: false,
                    };
                    match part[i][k] {
                        Part::Absent => bare(CellKind::Absent, worth(absent2)),
                        Part::Bye => bare(CellKind::Bye, worth(bye2)),
                        Part::NotAssigned => bare(CellKind::NotAssigned, CellResult::Loss),
                        Part::Paired(gi) => {
                            let game = t.round(round).and_then(|r| r.games.get(gi));
                            let Some(g) = game else {
                                return bare(CellKind::NotAssigned, CellResult::Loss);
                            };
                            let white = g.white == row.id;
                            let opp = if white { g.black } else { g.white };
                            let result = match (g.outcome, white) {
                                (Outcome::WhiteWins, true)
                                | (Outcome::BlackWins, false)
                                | (Outcome::BothWin, _) => CellResult::Win,
                                (Outcome::WhiteWins, false)
                                | (Outcome::BlackWins, true)
                                | (Outcome::BothLose, _) => CellResult::Loss,
                                (Outcome::Jigo, _) => CellResult::Jigo,
                                (Outcome::Unknown, _) => CellResult::Unknown,
                            };
                            let colour = if !g.known_colour {
                                Colour::Unknown
                            } else if white {
                                Colour::White
                            } else {
                                Colour::Black
                            };
                            Cell {
                                round,
                                kind: CellKind::Game,
                                opponent: Some(opp),
                                opponent_position: index.get(opp).map_or(0, |o| pos[o]),
                                result,
                                colour: Some(colour),
                                handicap: g.handicap,
                                forfeit: g.forfeit,
                            }
                        }
                    }
                })
                .collect()
        })
        .collect();
    Crosstable {
        standings: st,
        cells,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::model::{Game, Player, Round, Settings, System};

    fn two_rounds() -> TournamentData {
        let mut settings = Settings::defaults(System::Mcmahon);
        settings.rounds = 3;
        let players = (1..=4)
            .map(|id| Player {
                id,
                name: format!("P{id}"),
                rank: -(id as i32),
                skip: if id == 4 { vec![2] } else { vec![] },
                ..Player::default()
            })
            .collect();
        let g = |table, white, black, outcome, forfeit, handicap| Game {
            table,
            white,
            black,
            outcome,
            forfeit,
            handicap,
            ..Game::default()
        };
        TournamentData {
            settings,
            players,
            rounds: vec![
                Round {
                    games: vec![
                        g(1, 1, 2, Outcome::WhiteWins, false, 0),
                        g(2, 3, 4, Outcome::Jigo, false, 2),
                    ],
                    ..Round::default()
                },
                Round {
                    games: vec![g(1, 2, 1, Outcome::BlackWins, true, 0)],
                    byes: vec![3],
                    ..Round::default()
                },
            ],
        }
    }

    #[test]
    fn cells_read_as_opengotha_writes_them() {
        let t = two_rounds();
        let x = crosstable(&t, 2, &t.settings.placement, 3, false);
        let text: Vec<Vec<String>> = x
            .cells
            .iter()
            .map(|r| r.iter().map(ToString::to_string).collect())
            .collect();
        let ids: Vec<PlayerId> = x.standings.rows.iter().map(|r| r.id).collect();
        // MMS: P1 29 + 2 wins, P3 27 + jigo + bye, P2 28, P4 26 + jigo + absent (½, rounded
        // down to 0).
        assert_eq!(ids, vec![1, 3, 2, 4]);
        assert_eq!(text[0], vec!["3+/w0", "3+!b0", "0-"]);
        assert_eq!(text[1], vec!["4=/w2", "0+", "0-"]);
        assert_eq!(text[2], vec!["1-/b0", "1-!w0", "0-"]);
        assert_eq!(text[3], vec!["2=/b2", "0=", "0-"]);
        assert_eq!(x.cells[1][1].kind, CellKind::Bye);
        assert_eq!(x.cells[3][1].kind, CellKind::Absent);
        assert_eq!(x.cells[0][2].kind, CellKind::NotAssigned);
        assert_eq!(x.cells[0][1].h9_field(), "   3+!b0");
        assert_eq!(x.cells[1][1].h9_field(), "   0+   ");
    }

    #[test]
    fn players_never_paired_are_left_out_on_request() {
        let mut t = two_rounds();
        t.players.push(Player {
            id: 5,
            name: "A".into(),
            rank: 5,
            ..Player::default()
        });
        let all = crosstable(&t, 2, &t.settings.placement, 2, false);
        assert_eq!(all.standings.rows[0].id, 5);
        let x = crosstable(&t, 2, &t.settings.placement, 2, true);
        assert_eq!(x.standings.rows.len(), 4);
        assert_eq!(x.standings.rows[0].place, 1);
        assert_eq!(x.cells[0][0].opponent_position, 3);
        assert_eq!(all.cells[1][0].opponent_position, 4);
    }
}
