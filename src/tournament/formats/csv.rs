//! Standings as CSV (RFC 4180: comma-separated, CRLF line ends, fields quoted when they hold a
//! comma, a quote or a line break, quotes doubled; UTF-8; one header row). Columns, in order:
//! `position, place, name, first_name, rank, rating, country, club, egf_pin`, one column per
//! placement criterion (its name; the value in display units, e.g. `12.5`), then `R1 … Rn`
//! with the crosstable cells (`3+/w2`, `0=`). `place` is empty for the second and later
//! players of a shared place, as OpenGotha prints it. A text cell (name, club, …) that a
//! spreadsheet would take for a formula — one starting with `=`, `+`, `-`, `@`, a tab or a
//! carriage return — is written with a leading `'`, as OWASP advises against CSV injection.
//!
//! Pure: a [`TournamentData`] in, text out.

use crate::tournament::crosstable::crosstable;
use crate::tournament::model::{Criterion, RoundNumber, TournamentData, format_rank};
use crate::tournament::standings::display_value;

/// One text field: neutralised when a spreadsheet would run it as a formula, quoted when
/// RFC 4180 asks for it.
fn field(s: &str) -> String {
    let neutral;
    let s = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        neutral = format!("'{s}");
        neutral.as_str()
    } else {
        s
    };
    if s.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn number(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// The standings after `after_round` by the tournament's criteria, with the cells of rounds
/// 1..=`after_round`.
pub fn standings_csv(t: &TournamentData, after_round: RoundNumber) -> String {
    let criteria: &[Criterion] = &t.settings.placement;
    let x = crosstable(t, after_round, criteria, after_round, false);
    let mut out = String::new();
    let mut header: Vec<String> = [
        "position",
        "place",
        "name",
        "first_name",
        "rank",
        "rating",
        "country",
        "club",
        "egf_pin",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    header.extend(criteria.iter().map(|c| c.0.name().to_string()));
    header.extend((1..=after_round).map(|r| format!("R{r}")));
    out.push_str(&header.join(","));
    out.push_str("\r\n");
    for (i, (row, cells)) in x.standings.rows.iter().zip(&x.cells).enumerate() {
        let Some(p) = t.player(row.id) else { continue };
        let mut f: Vec<String> = vec![
            (i + 1).to_string(),
            if row.tied_with_previous {
                String::new()
            } else {
                row.place.to_string()
            },
            field(&p.name),
            field(&p.first_name),
            format_rank(p.rank),
            p.rating.to_string(),
            field(&p.country),
            field(&p.club),
            field(&p.egf_pin),
        ];
        f.extend(
            criteria
                .iter()
                .zip(&row.values)
                .map(|(c, v)| number(display_value(c.0, *v))),
        );
        f.extend(cells.iter().map(|c| c.to_string()));
        out.push_str(&f.join(","));
        out.push_str("\r\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::model::{Game, Outcome, Player, Round, Settings, System};

    #[test]
    fn quoted_fields_half_points_and_shared_places() {
        let mut settings = Settings::defaults(System::Mcmahon);
        settings.rounds = 1;
        let t = TournamentData {
            settings,
            players: vec![
                Player {
                    id: 1,
                    name: "Doe, \"JD\"".into(),
                    first_name: "Jane".into(),
                    rank: 0,
                    ..Player::default()
                },
                Player {
                    id: 2,
                    name: "Roe".into(),
                    first_name: "Ann".into(),
                    rank: 0,
                    ..Player::default()
                },
            ],
            rounds: vec![Round {
                games: vec![Game {
                    table: 1,
                    white: 1,
                    black: 2,
                    outcome: Outcome::Jigo,
                    ..Game::default()
                }],
                ..Round::default()
            }],
        };
        let text = standings_csv(&t, 1);
        let lines: Vec<&str> = text.split("\r\n").collect();
        assert_eq!(
            lines[0],
            "position,place,name,first_name,rank,rating,country,club,egf_pin,MMS,SOSM,SOSOSM,R1"
        );
        // Equal on every criterion: one place, listed by name.
        assert_eq!(
            lines[1],
            "1,1,\"Doe, \"\"JD\"\"\",Jane,1D,100,,,,30.5,30.5,30.5,2=/w0"
        );
        assert_eq!(lines[2], "2,,Roe,Ann,1D,100,,,,30.5,30.5,30.5,1=/b0");
        assert_eq!(lines[3], "");
    }

    #[test]
    fn formula_cells_are_neutralised() {
        for (text, want) in [
            (
                "=HYPERLINK(\"http://x\")",
                "\"'=HYPERLINK(\"\"http://x\"\")\"",
            ),
            ("+1", "'+1"),
            ("-2+3", "'-2+3"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tx", "'\tx"),
            ("Doe", "Doe"),
            ("a=b", "a=b"),
        ] {
            assert_eq!(field(text), want, "{text:?}");
        }
        let mut settings = Settings::defaults(System::Mcmahon);
        settings.rounds = 1;
        let t = TournamentData {
            settings,
            players: vec![Player {
                id: 1,
                name: "=cmd|' /C calc'!A0".into(),
                first_name: "@x".into(),
                club: "+1".into(),
                ..Player::default()
            }],
            rounds: vec![Round {
                byes: vec![1],
                ..Round::default()
            }],
        };
        let text = standings_csv(&t, 1);
        let row = text.split("\r\n").nth(1).expect("a row");
        assert!(row.starts_with("1,1,'=cmd|' /C calc'!A0,'@x,"), "{row}");
        assert!(row.contains(",'+1,"), "{row}");
    }
}
