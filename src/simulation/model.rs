//! Result models: the chance that White wins a game, from the two players' true strengths
//! (GoR), the handicap and the komi the pairing gave the game.
//!
//! - `egf`: the EGF rating system's winning expectancy as used since 2021,
//!   `Se(A) = 1 / (1 + exp(β(r_B) − β(r_A)))` with `β(r) = −7 · ln(3300 − r)` (the EGD's
//!   description of the GoR system, europeangodatabase.eu/EGD/EGF_rating_system.php, as
//!   restated for example by the `horaceho/ers` implementation).
//! - `egf_classic`: the GoR formula used from 1998 to 2020, `Se(A) = 1 / (e^{D/a} + 1)` for
//!   the lower-rated player A, `D` the rating difference and `a = 205 − R/20` from the lower
//!   rating R bounded to 100 … 2700 (a = 200 at 20k, 70 at 7d: the table of the GoR system
//!   description and of Sensei's Library's "EGF rating system" page). The system's ε (0.016,
//!   a correction against rating deflation, not a chance of winning) is left out, so the two
//!   players' chances add up to 1.
//! - `elo`: Bradley–Terry with Elo's logistic curve, `1 / (1 + 10^{(r_B − r_A)/scale})`,
//!   scale 400 by default (Elo's; on the GoR scale a grade is then a 64 % favourite).
//! - `table`: the caller's probabilities that the stronger player wins, by strength difference
//!   in steps (linear in between, the last entry beyond).
//!
//! Handicap and komi are treated as the EGF formula treats them: a game with handicap H ≥ 1
//! (H = 1: Black without komi) counts as an even game in which Black's rating is raised by
//! 100 · (H − ½) ("the rating difference D is reduced by 100(H − 0.5)", GoR description); an
//! H = 0 game is even, whatever its komi. The `elo` and `table` models use the same rule with
//! their own `handicap_points` per stone (100 by default). Jigo is not modelled: every game
//! has a winner.

use serde::Deserialize;

/// A result model, as a spec names it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "snake_case", tag = "kind")]
pub enum ResultModel {
    // Empty structs rather than unit variants: serde refuses unknown members only in those.
    Egf {},
    EgfClassic {},
    Elo {
        #[serde(default = "default_scale")]
        scale: f64,
        #[serde(default = "default_stone")]
        handicap_points: f64,
    },
    Table {
        /// Strength difference between two entries of `p`, in GoR points.
        #[serde(default = "default_stone")]
        step: f64,
        /// `p[k]`: the chance that the stronger player wins at a difference of k steps (at
        /// 0: White's chance).
        p: Vec<f64>,
        #[serde(default = "default_stone")]
        handicap_points: f64,
    },
}

fn default_scale() -> f64 {
    400.0
}

fn default_stone() -> f64 {
    100.0
}

impl Default for ResultModel {
    fn default() -> Self {
        ResultModel::Egf {}
    }
}

/// Most entries of a probability table.
pub const MAX_TABLE: usize = 1000;

/// GoR beyond which `β` is not defined (`ln(3300 − r)`): strengths are kept below it.
const EGF_CEILING: f64 = 3290.0;

impl ResultModel {
    /// Checks the model's parameters.
    pub fn check(&self) -> Result<(), String> {
        let finite_pos = |x: f64| x.is_finite() && x > 0.0;
        match self {
            ResultModel::Egf {} | ResultModel::EgfClassic {} => Ok(()),
            ResultModel::Elo {
                scale,
                handicap_points,
            } => {
                if !finite_pos(*scale) || !handicap_points.is_finite() {
                    return Err("model: elo needs scale > 0 and a finite handicap_points".into());
                }
                Ok(())
            }
            ResultModel::Table {
                step,
                p,
                handicap_points,
            } => {
                if !finite_pos(*step) || !handicap_points.is_finite() {
                    return Err("model: table needs step > 0 and a finite handicap_points".into());
                }
                if p.is_empty() || p.len() > MAX_TABLE {
                    return Err(format!(
                        "model: table.p needs 1 … {MAX_TABLE} probabilities"
                    ));
                }
                if let Some(x) = p.iter().find(|x| !(0.0..=1.0).contains(*x)) {
                    return Err(format!("model: table.p holds {x}, not a probability"));
                }
                Ok(())
            }
        }
    }

    /// A short description for reports.
    pub fn describe(&self) -> String {
        match self {
            ResultModel::Egf {} => "EGF GoR winning expectancy (2021 formula)".into(),
            ResultModel::EgfClassic {} => "EGF GoR winning expectancy (1998–2020 formula)".into(),
            ResultModel::Elo { scale, .. } => format!("Elo / Bradley–Terry, scale {scale}"),
            ResultModel::Table { step, p, .. } => {
                let list: Vec<String> = p.iter().take(8).map(|x| format!("{x}")).collect();
                let more = if p.len() > 8 { ", …" } else { "" };
                format!(
                    "table: stronger wins with [{}{more}] per {step} GoR",
                    list.join(", ")
                )
            }
        }
    }

    fn handicap_points(&self) -> f64 {
        match self {
            ResultModel::Elo {
                handicap_points, ..
            }
            | ResultModel::Table {
                handicap_points, ..
            } => *handicap_points,
            _ => 100.0,
        }
    }

    /// The chance that White wins: `white` and `black` are true strengths (GoR), `handicap`
    /// the stones Black was given (0: an even game).
    pub fn white_wins(&self, white: f64, black: f64, handicap: u32) -> f64 {
        let black = if handicap >= 1 {
            black + self.handicap_points() * (f64::from(handicap) - 0.5)
        } else {
            black
        };
        let p = match self {
            ResultModel::Egf {} => {
                let beta = |r: f64| -7.0 * (3300.0 - r.min(EGF_CEILING)).ln();
                1.0 / (1.0 + (beta(black) - beta(white)).exp())
            }
            ResultModel::EgfClassic {} => {
                // The lower-rated player's chance, from the lower rating.
                let (low, high) = (white.min(black), white.max(black));
                let a = 205.0 - low.clamp(100.0, 2700.0) / 20.0;
                let weaker = 1.0 / (((high - low) / a).exp() + 1.0);
                if white < black { weaker } else { 1.0 - weaker }
            }
            ResultModel::Elo { scale, .. } => 1.0 / (1.0 + 10f64.powf((black - white) / scale)),
            ResultModel::Table { step, p, .. } => {
                let d = white - black;
                let at = |x: f64| {
                    let k = x / step;
                    let i = k.floor() as usize;
                    match (p.get(i), p.get(i + 1)) {
                        (Some(&a), Some(&b)) => a + (b - a) * (k - i as f64),
                        (Some(&a), None) => a,
                        _ => p[p.len() - 1],
                    }
                };
                if d >= 0.0 { at(d) } else { 1.0 - at(-d) }
            }
        };
        if p.is_nan() { 0.5 } else { p.clamp(0.0, 1.0) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 0.0006
    }

    #[test]
    fn classic_egf_matches_the_published_table() {
        // GoR description's table: the weaker player's chance against one X points stronger.
        let m = ResultModel::EgfClassic {};
        // 20k (100), a = 200: 37.8 % at 100, 20.2 % at 275 (rounded to 0.1 %).
        assert!((m.white_wins(100.0, 200.0, 0) - 0.378).abs() < 0.001);
        assert!((m.white_wins(100.0, 375.0, 0) - 0.202).abs() < 0.001);
        // 19k (200), a = 195: 37.5 % at 100.
        assert!((m.white_wins(200.0, 300.0, 0) - 0.375).abs() < 0.001);
        // Symmetric, and even at equal ratings.
        assert!(close(m.white_wins(300.0, 200.0, 0), 1.0 - 0.375));
        assert!(close(m.white_wins(1500.0, 1500.0, 0), 0.5));
    }

    #[test]
    fn egf_2021_is_bradley_terry_on_beta() {
        let m = ResultModel::Egf {};
        assert!(close(m.white_wins(2100.0, 2100.0, 0), 0.5));
        // β(2200) − β(2100) = 7 · ln(1200/1100).
        let want = 1.0 / (1.0 + (-7.0 * (1200f64 / 1100.0).ln()).exp());
        assert!(close(m.white_wins(2200.0, 2100.0, 0), want));
        assert!(m.white_wins(2200.0, 2100.0, 0) > 0.6);
        // The same gap is decided more surely among stronger players.
        assert!(m.white_wins(2700.0, 2600.0, 0) > m.white_wins(1200.0, 1100.0, 0));
        // Far past the top of the scale it stays a probability.
        let p = m.white_wins(5000.0, 100.0, 0);
        assert!(p > 0.99 && p <= 1.0);
    }

    #[test]
    fn handicap_stones_count_as_the_gor_description_says() {
        // Three stones for a player 250 points weaker: an even game between equals.
        for m in [
            ResultModel::Egf {},
            ResultModel::EgfClassic {},
            ResultModel::Elo {
                scale: 400.0,
                handicap_points: 100.0,
            },
        ] {
            assert!(close(m.white_wins(1750.0, 1500.0, 3), 0.5), "{m:?}");
            // One "stone" (no komi) is worth half a grade.
            assert!(close(m.white_wins(1550.0, 1500.0, 1), 0.5), "{m:?}");
            assert!(m.white_wins(1550.0, 1500.0, 0) > 0.5);
        }
    }

    #[test]
    fn a_table_interpolates_and_a_sure_table_is_deterministic() {
        let m = ResultModel::Table {
            step: 100.0,
            p: vec![0.5, 0.7, 0.9],
            handicap_points: 100.0,
        };
        assert!(close(m.white_wins(1000.0, 1000.0, 0), 0.5));
        assert!(close(m.white_wins(1050.0, 1000.0, 0), 0.6));
        assert!(close(m.white_wins(1000.0, 1150.0, 0), 1.0 - 0.8));
        assert!(close(m.white_wins(2000.0, 1000.0, 0), 0.9));
        let sure = ResultModel::Table {
            step: 100.0,
            p: vec![1.0],
            handicap_points: 100.0,
        };
        assert_eq!(sure.white_wins(1000.01, 1000.0, 0), 1.0);
        assert_eq!(sure.white_wins(999.99, 1000.0, 0), 0.0);
    }

    #[test]
    fn models_are_read_from_json_and_checked() {
        let m: ResultModel = serde_json::from_str(r#"{"kind": "elo", "scale": 300}"#).unwrap();
        assert_eq!(
            m,
            ResultModel::Elo {
                scale: 300.0,
                handicap_points: 100.0
            }
        );
        assert!(serde_json::from_str::<ResultModel>(r#"{"kind": "egf", "x": 1}"#).is_err());
        let t: ResultModel = serde_json::from_str(r#"{"kind": "table", "p": [0.5, 1.5]}"#).unwrap();
        assert!(t.check().unwrap_err().contains("not a probability"));
        let e = ResultModel::Elo {
            scale: 0.0,
            handicap_points: 100.0,
        };
        assert!(e.check().is_err());
    }
}
