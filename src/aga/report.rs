//! Reports to the AGA (docs/aga.md): the legacy GoPair `send2aga` file (byte-exact) and the modern
//! results report the AGA's loader accepts, checked first against what that loader refuses
//! (`?` results, temporary IDs, komi and handicap out of range, too many rounds, bad ranks).

use serde::{Deserialize, Serialize};

use super::diag::Severity;
use super::perl::{fmt_num, int, is_space, numify};
use super::tourney::Tournament;

/// One check result of a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
}

impl Finding {
    fn error(code: &'static str, message: impl Into<String>) -> Self {
        Finding {
            severity: Severity::Error,
            code,
            message: message.into(),
        }
    }
    fn warning(code: &'static str, message: impl Into<String>) -> Self {
        Finding {
            severity: Severity::Warning,
            code,
            message: message.into(),
        }
    }
}

/// A report that was written, with the non-blocking findings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    pub text: String,
    /// `send2aga` prints its note about unfinished games on stderr; it is kept here.
    pub notes: Vec<String>,
    pub findings: Vec<Finding>,
}

/// Why a report was refused: every blocking finding (and the others, for context).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    pub findings: Vec<Finding>,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let errors: Vec<&str> = self
            .findings
            .iter()
            .filter(|x| x.severity == Severity::Error)
            .map(|x| x.message.as_str())
            .collect();
        write!(f, "report refused: {}", errors.join("; "))
    }
}

/// Most file errors one refusal lists (a file of thousands of bad lines would otherwise make
/// a message of megabytes).
const LISTED_ERRORS: usize = 20;

/// The refusal of files with errors, listing them: file, line and what is wrong.
fn has_errors_finding(t: &Tournament) -> Finding {
    let errors: Vec<String> = t
        .log()
        .iter()
        .filter(|w| w.severity == Severity::Error)
        .map(|w| match (&w.file, w.line) {
            (Some(f), Some(l)) => format!("{f} line {l}: {}", w.message),
            (Some(f), None) => format!("{f}: {}", w.message),
            (None, _) => w.message.clone(),
        })
        .collect();
    let mut list = errors
        .iter()
        .take(LISTED_ERRORS)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if errors.len() > LISTED_ERRORS {
        list.push_str(&format!("; and {} more", errors.len() - LISTED_ERRORS));
    }
    Finding::error(
        "tournament.has_errors",
        format!(
            "the tournament files have errors (AGATourn's error flag is set): {list}; fix them \
             before reporting"
        ),
    )
}

/// GoPair `send2aga` → the text of `send2aga.tde`. Refuses while the error flag is set.
pub fn send2aga(t: &mut Tournament) -> Result<Report, Refusal> {
    if t.error() {
        return Err(Refusal {
            findings: vec![has_errors_finding(t)],
        });
    }
    let mut out = String::new();
    for line in t.register_text().split_inclusive('\n') {
        if line.trim_start_matches(is_space).starts_with('#') {
            out.push_str(line);
        }
    }
    let mut unfinished: std::collections::BTreeMap<i64, usize> = Default::default();
    for g in t.games() {
        let r = g.result.to_ascii_uppercase();
        if r == "B" || r == "W" {
            out.push_str(&format!(
                "{} {} {} {} {}\n",
                g.white, g.black, r, g.handicap, g.komi
            ));
        } else {
            *unfinished.entry(int(numify(&g.round)) as i64).or_default() += 1;
        }
    }
    let mut notes = Vec::new();
    let mut findings = Vec::new();
    if !unfinished.is_empty() {
        let msgs: Vec<String> = unfinished
            .iter()
            .map(|(r, n)| {
                format!(
                    "{n} unfinished game{} in round {r}",
                    if *n == 1 { "" } else { "s" }
                )
            })
            .collect();
        notes.push(format!(
            "\nWARNING:\n{}\nUnfinished games are not reported to the AGA.\n",
            msgs.join(" and ")
        ));
        findings.push(Finding::warning(
            "report.unfinished_games_skipped",
            format!(
                "{}; unfinished games are not reported to the AGA",
                msgs.join(" and ")
            ),
        ));
    }
    let mut ids: Vec<String> = t.players().keys().cloned().collect();
    let players = t.players().clone();
    ids.sort_by(|a, b| {
        let (pa, pb) = (&players[a], &players[b]);
        numify(&pb.rating)
            .partial_cmp(&numify(&pa.rating))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| pa.name.as_bytes().cmp(pb.name.as_bytes()))
            .then_with(|| a.cmp(b))
    });
    for id in ids {
        let p = &players[&id];
        let sigma = t.sigma(&id).map(fmt_num).unwrap_or_default();
        out.push_str(&format!(
            "{id}\n\tNAME=\"{}\"\n\tRATING={}\n\tSIGMA={sigma}\n",
            p.name, p.rating
        ));
    }
    Ok(Report {
        text: out,
        notes,
        findings,
    })
}

/// How dates are written in the results report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DateStyle {
    /// `m/d/yyyy`, as in the AGA's example.
    #[default]
    Mdy,
    /// `yyyy-mm-dd`.
    Iso,
}

/// Options of the modern results report.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReportOptions {
    /// The tournament description (default: the TOURNEY directive).
    pub tourney: Option<String>,
    /// First day, `yyyy-mm-dd` or `m/d/yyyy` (required).
    pub start: Option<String>,
    /// Last day (default: the start).
    pub finish: Option<String>,
    /// `AGA` or `ING` (default: the RULES directive, else AGA).
    pub rules: Option<String>,
    /// `City, ST`.
    pub location: Option<String>,
    pub date_style: DateStyle,
    /// What to do with a decimal komi (strict-mode round files): `false` refuses the report;
    /// `true` writes its integer part (the AGA's half point implied) and says so in a finding.
    pub decimal_komi_integer_part: bool,
}

/// Parses `yyyy-mm-dd` or `m/d/yyyy` into (y, m, d).
fn parse_date(s: &str) -> Option<(u32, u32, u32)> {
    let s = s.trim();
    let nums = |parts: Vec<&str>| -> Option<Vec<u32>> {
        parts.iter().map(|p| p.parse::<u32>().ok()).collect()
    };
    let (y, m, d) = if s.contains('-') {
        let v = nums(s.split('-').collect())?;
        (*v.first()?, *v.get(1)?, *v.get(2)?)
    } else {
        let v = nums(s.split('/').collect())?;
        (*v.get(2)?, *v.first()?, *v.get(1)?)
    };
    let ok = (1..=12).contains(&m) && (1..=31).contains(&d) && (1000..=9999).contains(&y);
    ok.then_some((y, m, d))
}

fn fmt_date((y, m, d): (u32, u32, u32), style: DateStyle) -> String {
    match style {
        DateStyle::Mdy => format!("{m}/{d}/{y}"),
        DateStyle::Iso => format!("{y:04}-{m:02}-{d:02}"),
    }
}

/// The rank written for a player: a registered rank (`4k`), or one derived from a rating the way
/// `tdfind` shows it (`int(rating)` + d/k).
fn report_rank(rank: Option<&str>, rating: &str) -> Result<(String, bool), String> {
    if let Some(r) = rank {
        let lower = r.to_ascii_lowercase();
        let digits = &lower[..lower.len().saturating_sub(1)];
        if numify(digits) == 0.0 {
            return Err(format!("rank {r:?} is not a valid AGA rank (0k/0d)"));
        }
        return Ok((
            format!("{}{}", numify(digits) as i64, &lower[lower.len() - 1..]),
            false,
        ));
    }
    let v = int(numify(rating));
    if v >= 1.0 {
        Ok((format!("{}d", v as i64), true))
    } else if v <= -1.0 {
        Ok((format!("{}k", (-v) as i64), true))
    } else {
        Err(format!(
            "rating {rating:?} lies in the (-1, 1) hole and gives no AGA rank"
        ))
    }
}

/// The modern results report: `TOURNEY`, `start=`, `finish=`, optional
/// `location=`, `rules=`, `PLAYERS`, `GAMES`. Everything the AGA loader would refuse is an error
/// finding and the report is refused.
pub fn results_report(t: &Tournament, opts: &ReportOptions) -> Result<Report, Refusal> {
    let mut f = Vec::new();
    if t.error() {
        f.push(has_errors_finding(t));
    }
    let tourney = opts
        .tourney
        .clone()
        .or_else(|| t.tourney().map(str::to_string))
        .unwrap_or_default();
    let start = match opts.start.as_deref() {
        None => {
            f.push(Finding::error(
                "report.no_start_date",
                "the start date is required (start=)",
            ));
            None
        }
        Some(s) => {
            let d = parse_date(s);
            if d.is_none() {
                f.push(Finding::error(
                    "report.bad_date",
                    format!("start date {s:?} is not yyyy-mm-dd or m/d/yyyy"),
                ));
            }
            d
        }
    };
    let finish = match opts.finish.as_deref() {
        None => start,
        Some(s) => {
            let d = parse_date(s);
            if d.is_none() {
                f.push(Finding::error(
                    "report.bad_date",
                    format!("finish date {s:?} is not yyyy-mm-dd or m/d/yyyy"),
                ));
            }
            d
        }
    };
    if let (Some(s), Some(e)) = (start, finish)
        && e < s
    {
        f.push(Finding::error(
            "report.bad_date",
            "the finish date is before the start date",
        ));
    }
    let rules = opts
        .rules
        .clone()
        .or_else(|| t.directive("RULES").and_then(|r| r.first().cloned()))
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| "AGA".to_string());

    let rounds: std::collections::BTreeSet<i64> = t
        .games()
        .iter()
        .map(|g| int(numify(&g.round)) as i64)
        .collect();
    if rounds.len() > 12 {
        f.push(Finding::error(
            "report.too_many_rounds",
            format!("{} rounds; the AGA loader accepts at most 12", rounds.len()),
        ));
    }
    // Players.
    let mut rows = Vec::new();
    for id in t.registration_order() {
        let Some(p) = t.player(id) else { continue };
        let upper = id.to_ascii_uppercase();
        let num = upper.strip_prefix("USA").unwrap_or(&upper);
        if ["TMP", "TEMP", "NEW"].iter().any(|x| upper.starts_with(x)) {
            f.push(Finding::error(
                "report.temporary_id",
                format!(
                    "{id} ({}) has a temporary ID; every player must be a current AGA member",
                    p.name
                ),
            ));
        } else if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
            f.push(Finding::error(
                "report.bad_id",
                format!("{id} is not an AGA member number"),
            ));
        }
        match report_rank(p.rank.as_deref(), &p.rating) {
            Ok((rank, derived)) => {
                if derived {
                    f.push(Finding::warning(
                        "report.rank_from_rating",
                        format!("{id}: rank {rank} derived from the rating {}", p.rating),
                    ));
                }
                rows.push((num.to_string(), p.name.clone(), rank));
            }
            Err(e) => f.push(Finding::error("report.bad_rank", format!("{id}: {e}"))),
        }
    }
    // Games.
    let mut games = Vec::new();
    for g in t.games() {
        let where_ = format!("round {} game {} vs {}", g.round, g.white, g.black);
        if g.result == "?" {
            f.push(Finding::error(
                "report.unfinished_game",
                format!(
                    "{where_} has no result ('?'); a '?' makes the AGA loader reject the whole file"
                ),
            ));
        }
        for id in [&g.white, &g.black] {
            if t.player(id).is_none() {
                f.push(Finding::error(
                    "report.unregistered",
                    format!("{where_}: {id} is not registered"),
                ));
            }
        }
        let komi = numify(&g.komi);
        let mut komi_text = g.komi.clone();
        let decimal = g.komi.parse::<i64>().is_err() && g.komi.parse::<f64>().is_ok();
        if decimal && opts.decimal_komi_integer_part {
            komi_text = fmt_num(komi.trunc());
            f.push(Finding::warning(
                "report.komi_integer_part",
                format!(
                    "{where_}: komi {} written as {komi_text} (the half point is implied)",
                    g.komi
                ),
            ));
        } else if decimal {
            f.push(Finding::error(
                "report.komi_decimal",
                format!(
                    "{where_}: komi {} is not an integer; the AGA loader wants an integer komi \
                     (set decimal_komi_integer_part to write its integer part)",
                    g.komi
                ),
            ));
        }
        if (!decimal && g.komi.parse::<i64>().is_err()) || !(-20.0..=20.0).contains(&komi) {
            f.push(Finding::error(
                "report.komi_range",
                format!("{where_}: komi {} must be an integer in -20..20", g.komi),
            ));
        }
        let h = numify(&g.handicap);
        if g.handicap.parse::<i64>().is_err() || !(0.0..=9.0).contains(&h) {
            f.push(Finding::error(
                "report.handicap_range",
                format!("{where_}: handicap {} must be 0..9", g.handicap),
            ));
        }
        let strip = |id: &str| id.strip_prefix("USA").unwrap_or(id).to_string();
        games.push(format!(
            "{} {} {} {} {}",
            strip(&g.white),
            strip(&g.black),
            g.result,
            g.handicap,
            komi_text
        ));
    }
    if f.iter().any(|x| x.severity == Severity::Error) {
        return Err(Refusal { findings: f });
    }
    let (Some(start), Some(finish)) = (start, finish) else {
        return Err(Refusal { findings: f });
    };
    let mut out = format!("TOURNEY {tourney}\n");
    out.push_str(&format!(
        "        start={}\n",
        fmt_date(start, opts.date_style)
    ));
    out.push_str(&format!(
        "        finish={}\n",
        fmt_date(finish, opts.date_style)
    ));
    if let Some(loc) = &opts.location {
        out.push_str(&format!("        location='{loc}'\n"));
    }
    out.push_str(&format!("        rules={rules}\n"));
    out.push_str("PLAYERS\n");
    let idw = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    let nw = rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0);
    for (id, name, rank) in &rows {
        out.push_str(&format!("{id:>idw$} {name:<nw$} {rank}\n"));
    }
    out.push_str("GAMES\n");
    for g in games {
        out.push_str(&g);
        out.push('\n');
    }
    Ok(Report {
        text: out,
        notes: vec![],
        findings: f,
    })
}

/// The Raku `Games-Go-AGA-Objects` `send-to-aga` text, the modern layout of the
/// DataObjects family: `TOURNEY`, right-aligned `start=` / `finish=` / `rules=` (from the `DATE`
/// and `RULES` directives, both required), `PLAYERS` with right-aligned IDs and names and the
/// rating in `%5.1f`, `GAMES` with right-aligned IDs, the winner upper-cased and komi as given.
pub fn raku_send_to_aga(t: &Tournament) -> Result<Report, Refusal> {
    let mut f = Vec::new();
    if t.error() {
        f.push(has_errors_finding(t));
    }
    let first = |name: &str| {
        t.directive(name)
            .and_then(|v| v.first().cloned())
            .filter(|v| !v.is_empty())
    };
    let date = first("DATE");
    let rules = first("RULES");
    if date.is_none() {
        f.push(Finding::error(
            "report.no_date",
            "a DATE directive is required",
        ));
    }
    if rules.is_none() {
        f.push(Finding::error(
            "report.no_rules",
            "a RULES directive is required",
        ));
    }
    let (Some(date), Some(rules)) = (date, rules) else {
        return Err(Refusal { findings: f });
    };
    if f.iter().any(|x| x.severity == Severity::Error) {
        return Err(Refusal { findings: f });
    }
    let dates: Vec<&str> = date.split(is_space).filter(|d| !d.is_empty()).collect();
    let start = dates.first().copied().unwrap_or("");
    let finish = dates.get(1).copied().unwrap_or(start);
    let split = |name: &str| -> (String, String) {
        match name.split_once(',') {
            Some((last, first)) => (last.trim().to_string(), first.trim().to_string()),
            None => (name.trim().to_string(), String::new()),
        }
    };
    let players: Vec<(&String, &super::tourney::Player)> = t
        .registration_order()
        .iter()
        .filter_map(|id| t.player(id).map(|p| (id, p)))
        .collect();
    let width = 2 + players
        .iter()
        .map(|(_, p)| {
            let (l, fi) = split(&p.name);
            l.chars().count() + fi.chars().count()
        })
        .max()
        .unwrap_or(0);
    let mut out = format!(
        "TOURNEY {}\n     start={start}\n    finish={finish}\n     rules={rules}\n\nPLAYERS\n",
        t.tourney().unwrap_or("")
    );
    for (id, p) in &players {
        let (l, fi) = split(&p.name);
        let full = if fi.is_empty() {
            l
        } else {
            format!("{l}, {fi}")
        };
        let rating = numify(&super::rating::rank_to_rating(Some(
            p.rank.as_deref().unwrap_or(&p.rating),
        )));
        out.push_str(&format!("{id:>9} {full:>width$} {rating:>5.1}\n"));
    }
    out.push_str("\nGAMES\n");
    for g in t.games() {
        if g.result == "w" || g.result == "b" {
            out.push_str(&format!(
                "{:>9} {:>9} {} {} {}\n",
                g.white,
                g.black,
                g.result.to_ascii_uppercase(),
                g.handicap,
                g.komi
            ));
        } else {
            f.push(Finding::warning(
                "report.unfinished_games_skipped",
                format!(
                    "round {} game {} vs {} has no result and is not reported",
                    g.round, g.white, g.black
                ),
            ));
        }
    }
    Ok(Report {
        text: out,
        notes: vec![],
        findings: f,
    })
}
