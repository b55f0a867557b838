//! A finished simulation's figures per variant, and their text forms: a table for the
//! terminal, CSV (one row per figure, easy to load into a spreadsheet or R/pandas) and JSON
//! (the struct itself, through serde).

use serde::Serialize;

use super::metrics::{Acc, Interval, VariantAcc};
use super::spec::Prepared;
use crate::tournament::model::System;

/// Every figure of one variant. Shares (τ, ρ, strongest wins, top 3, handicap share) are in
/// −1 … 1 or 0 … 1; counts are per tournament; errors are in places.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariantReport {
    pub name: String,
    pub system: System,
    pub rounds: u32,
    /// Kendall's τ-b between true strength and final placement.
    pub kendall_tau: Option<Interval>,
    /// Runs where τ was undefined (every player ended on the same place).
    pub tau_undefined_runs: u64,
    pub spearman_rho: Option<Interval>,
    /// τ minus the first variant's τ on the same fields (absent for the first variant).
    pub tau_vs_first: Option<Interval>,
    /// How often the strongest player ends first (a shared first place counts its share).
    pub strongest_wins: Option<Interval>,
    /// Share of the true top 3 who end in the top 3.
    pub top3: Option<Interval>,
    /// Mean |final position − true position| over the players.
    pub mean_abs_error: Option<Interval>,
    pub handicap_games: Option<Interval>,
    pub handicap_share: Option<Interval>,
    /// Handicap stones per game (even games count 0).
    pub mean_handicap: Option<Interval>,
    pub same_club_games: Option<Interval>,
    pub same_country_games: Option<Interval>,
    pub repeated_games: Option<Interval>,
    /// Mean over players of |games as White − games as Black|.
    pub colour_imbalance: Option<Interval>,
    /// Byes per player, by tenths of the field from the strongest.
    pub byes_by_strength: Vec<Interval>,
    /// Final position − true position, by true position (1 = strongest).
    pub error_by_true_rank: Vec<Interval>,
    pub abs_error_by_true_rank: Vec<Interval>,
    /// Distribution of the final MMS over every player of every run.
    pub final_mms: Vec<MmsCount>,
}

/// Players who ended with one MMS value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MmsCount {
    pub mms: f64,
    pub players: u64,
    pub share: f64,
}

/// A simulation's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Runs played (fewer than asked when the simulation was stopped).
    pub runs: u64,
    pub requested_runs: u64,
    pub seed: u64,
    pub players: usize,
    pub field: String,
    pub model: String,
    pub strength_sd: f64,
    pub variants: Vec<VariantReport>,
}

const SHARE: (f64, f64) = (0.0, 1.0);
const CORR: (f64, f64) = (-1.0, 1.0);
const ANY: (f64, f64) = (f64::MIN, f64::MAX);
const COUNT: (f64, f64) = (0.0, f64::MAX);

impl Report {
    pub fn new(p: &Prepared, accs: &[VariantAcc]) -> Report {
        let runs = accs.first().map_or(0, |a| a.runs);
        let list = |v: &[Acc], range| v.iter().filter_map(|a| a.interval(range)).collect();
        let variants = p
            .variants
            .iter()
            .zip(accs)
            .map(|(v, a)| {
                let total: u64 = a.final_mms2.values().sum();
                VariantReport {
                    name: v.name.clone(),
                    system: v.settings.system,
                    rounds: v.settings.rounds,
                    kendall_tau: a.tau.interval(CORR),
                    tau_undefined_runs: a.tau_undefined,
                    spearman_rho: a.rho.interval(CORR),
                    tau_vs_first: a.tau_vs_first.interval((-2.0, 2.0)),
                    strongest_wins: a.strongest_wins.interval(SHARE),
                    top3: a.top3.interval(SHARE),
                    mean_abs_error: a.mean_abs_error.interval(COUNT),
                    handicap_games: a.handicap_games.interval(COUNT),
                    handicap_share: a.handicap_share.interval(SHARE),
                    mean_handicap: a.mean_handicap.interval(COUNT),
                    same_club_games: a.same_club.interval(COUNT),
                    same_country_games: a.same_country.interval(COUNT),
                    repeated_games: a.repeats.interval(COUNT),
                    colour_imbalance: a.colour_imbalance.interval(COUNT),
                    byes_by_strength: list(&a.byes_by_strength, COUNT),
                    error_by_true_rank: list(&a.error_by_true_rank, ANY),
                    abs_error_by_true_rank: list(&a.abs_error_by_true_rank, COUNT),
                    final_mms: a
                        .final_mms2
                        .iter()
                        .map(|(&m, &c)| MmsCount {
                            mms: m as f64 / 2.0,
                            players: c,
                            share: c as f64 / total.max(1) as f64,
                        })
                        .collect(),
                }
            })
            .collect();
        Report {
            runs,
            requested_runs: p.runs,
            seed: p.seed,
            players: p.field.size(),
            field: p.field.describe(),
            model: p.model.describe(),
            strength_sd: p.strength_sd,
            variants,
        }
    }

    /// The figures as a table for the terminal, variants side by side (four per block).
    pub fn table(&self) -> String {
        let mut out = format!(
            "{} runs of {} players (seed {}); {}; true strength = rating ± {} grades; {}\n",
            self.runs, self.players, self.seed, self.field, self.strength_sd, self.model
        );
        if self.runs < self.requested_runs {
            out.push_str(&format!(
                "stopped after {} of {} runs\n",
                self.runs, self.requested_runs
            ));
        }
        out.push_str("mean [95 % confidence interval] per tournament\n");
        for block in self.variants.chunks(4) {
            let mut rows: Vec<(String, Vec<String>)> = Vec::new();
            let mut row = |label: &str, cell: &dyn Fn(&VariantReport) -> String| {
                rows.push((label.to_string(), block.iter().map(cell).collect()));
            };
            row("", &|v| v.name.clone());
            row("system, rounds", &|v| {
                format!("{}, {}", system_name(v.system), v.rounds)
            });
            row("Kendall tau", &|v| cell(v.kendall_tau, 3, 1.0));
            row("tau - first variant", &|v| cell(v.tau_vs_first, 3, 1.0));
            row("Spearman rho", &|v| cell(v.spearman_rho, 3, 1.0));
            row("strongest wins %", &|v| cell(v.strongest_wins, 1, 100.0));
            row("true top 3 in top 3 %", &|v| cell(v.top3, 1, 100.0));
            row("mean |place error|", &|v| cell(v.mean_abs_error, 2, 1.0));
            row("handicap games", &|v| cell(v.handicap_games, 1, 1.0));
            row("handicap stones/game", &|v| cell(v.mean_handicap, 2, 1.0));
            row("same-club games", &|v| cell(v.same_club_games, 2, 1.0));
            row("same-country games", &|v| {
                cell(v.same_country_games, 1, 1.0)
            });
            row("repeated pairings", &|v| cell(v.repeated_games, 2, 1.0));
            row("mean |W - B| colours", &|v| {
                cell(v.colour_imbalance, 2, 1.0)
            });
            row("byes: strongest 10 %", &|v| {
                cell(v.byes_by_strength.first().copied(), 3, 1.0)
            });
            row("byes: weakest 10 %", &|v| {
                cell(v.byes_by_strength.last().copied(), 3, 1.0)
            });
            let label_w = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
            let cell_w = rows
                .iter()
                .flat_map(|r| r.1.iter().map(|c| c.chars().count()))
                .max()
                .unwrap_or(0)
                .clamp(10, 40);
            out.push('\n');
            for (label, cells) in &rows {
                let mut line = format!("{label:<label_w$}");
                for c in cells {
                    let c: String = c.chars().take(cell_w).collect();
                    line.push_str(&format!("  {c:>cell_w$}"));
                }
                out.push_str(line.trim_end());
                out.push('\n');
            }
        }
        out
    }

    /// Every figure as CSV: `variant,metric,index,mean,low,high,sd,n` (index: true position,
    /// strength tenth or MMS value where the figure has one; for `final_mms` the columns are
    /// the share of players, and n their count).
    pub fn csv(&self) -> String {
        let mut out = String::from("variant,metric,index,mean,low,high,sd,n\n");
        for v in &self.variants {
            let name = csv_field(&v.name);
            let mut line = |metric: &str, index: String, i: &Interval| {
                out.push_str(&format!(
                    "{name},{metric},{index},{},{},{},{},{}\n",
                    num(i.mean),
                    num(i.low),
                    num(i.high),
                    num(i.sd),
                    i.n
                ));
            };
            for (metric, i) in [
                ("kendall_tau", v.kendall_tau),
                ("tau_vs_first", v.tau_vs_first),
                ("spearman_rho", v.spearman_rho),
                ("strongest_wins", v.strongest_wins),
                ("top3", v.top3),
                ("mean_abs_error", v.mean_abs_error),
                ("handicap_games", v.handicap_games),
                ("handicap_share", v.handicap_share),
                ("mean_handicap", v.mean_handicap),
                ("same_club_games", v.same_club_games),
                ("same_country_games", v.same_country_games),
                ("repeated_games", v.repeated_games),
                ("colour_imbalance", v.colour_imbalance),
            ] {
                if let Some(i) = i {
                    line(metric, String::new(), &i);
                }
            }
            for (metric, list) in [
                ("byes_by_strength", &v.byes_by_strength),
                ("error_by_true_rank", &v.error_by_true_rank),
                ("abs_error_by_true_rank", &v.abs_error_by_true_rank),
            ] {
                for (k, i) in list.iter().enumerate() {
                    line(metric, (k + 1).to_string(), i);
                }
            }
            for m in &v.final_mms {
                out.push_str(&format!(
                    "{name},final_mms,{},{},,,,{}\n",
                    num(m.mms),
                    num(m.share),
                    m.players
                ));
            }
        }
        out
    }
}

pub fn system_name(s: System) -> &'static str {
    match s {
        System::Mcmahon => "McMahon",
        System::Swiss => "Swiss",
        System::Swisscat => "SwissCat",
        System::Cup => "Cup",
    }
}

/// "0.712 [0.705, 0.719]", scaled (percent) and rounded; "—" without a value.
fn cell(i: Option<Interval>, places: usize, scale: f64) -> String {
    match i {
        None => "-".into(),
        Some(i) if i.n < 2 => format!("{:.places$}", i.mean * scale),
        Some(i) => format!(
            "{:.places$} [{:.places$}, {:.places$}]",
            i.mean * scale,
            i.low * scale,
            i.high * scale
        ),
    }
}

fn num(x: f64) -> String {
    if x.is_finite() && x.abs() < 1e15 {
        let s = format!("{x:.6}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        if s == "-0" { "0".into() } else { s.to_string() }
    } else {
        String::new()
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_fields_are_written_plainly() {
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(-0.0), "0");
        assert_eq!(num(2.0), "2");
        assert_eq!(num(f64::MAX), "");
        assert_eq!(csv_field("bar 1d"), "bar 1d");
        assert_eq!(csv_field(r#"{"a":1,"b":2}"#), r#""{""a"":1,""b"":2}""#);
        let i = Interval {
            mean: 0.5,
            low: 0.4,
            high: 0.6,
            sd: 0.1,
            n: 10,
        };
        assert_eq!(cell(Some(i), 1, 100.0), "50.0 [40.0, 60.0]");
        assert_eq!(cell(None, 1, 1.0), "-");
    }
}
