//! The page of a `simulate.*` run (`/simulation/{id}`): its progress while it runs (the page
//! reloads itself every two seconds), then its figures per variant and its SVG charts inline,
//! each also downloadable (`/simulation/{id}/chart/{name}.svg`). The id is the simulation's
//! unguessable one, so the page is as private as the id.

use maud::{Markup, PreEscaped, html};

use super::pages::{Nav, Page};
use crate::rpc::methods::simulate::{State, Status};
use crate::simulation::chart;
use crate::simulation::metrics::Interval;
use crate::simulation::report::{Report, VariantReport, system_name};

/// How often a running simulation's page reloads, in seconds.
pub const RELOAD_SECS: u32 = 2;

fn cell(i: Option<Interval>, places: usize, scale: f64) -> String {
    match i {
        None => "–".into(),
        Some(i) if i.n < 2 => format!("{:.places$}", i.mean * scale),
        Some(i) => format!(
            "{:.places$} [{:.places$}, {:.places$}]",
            i.mean * scale,
            i.low * scale,
            i.high * scale
        ),
    }
}

type Row = (&'static str, fn(&VariantReport) -> String);

const ROWS: &[Row] = &[
    ("System, rounds", |v| {
        format!("{}, {}", system_name(v.system), v.rounds)
    }),
    ("Kendall's τ", |v| cell(v.kendall_tau, 3, 1.0)),
    ("τ − first variant", |v| cell(v.tau_vs_first, 3, 1.0)),
    ("Spearman's ρ", |v| cell(v.spearman_rho, 3, 1.0)),
    ("Strongest player wins (%)", |v| {
        cell(v.strongest_wins, 1, 100.0)
    }),
    ("True top 3 in the top 3 (%)", |v| cell(v.top3, 1, 100.0)),
    ("Mean |placement error|", |v| cell(v.mean_abs_error, 2, 1.0)),
    ("Handicap games", |v| cell(v.handicap_games, 1, 1.0)),
    ("Handicap stones per game", |v| {
        cell(v.mean_handicap, 2, 1.0)
    }),
    ("Same-club games", |v| cell(v.same_club_games, 2, 1.0)),
    ("Same-country games", |v| cell(v.same_country_games, 1, 1.0)),
    ("Repeated pairings", |v| cell(v.repeated_games, 2, 1.0)),
    ("Mean |White − Black| per player", |v| {
        cell(v.colour_imbalance, 2, 1.0)
    }),
    ("Byes, strongest tenth", |v| {
        cell(v.byes_by_strength.first().copied(), 3, 1.0)
    }),
    ("Byes, weakest tenth", |v| {
        cell(v.byes_by_strength.last().copied(), 3, 1.0)
    }),
];

fn figures(r: &Report) -> Markup {
    html! {
        p { (r.runs) " runs of " (r.players) " players (seed " (r.seed) "); " (r.field)
            "; true strength = rating ± " (r.strength_sd) " grades; " (r.model) "." }
        p { "Means per tournament with their 95 % confidence intervals." }
        // Four variants are wider than a phone: the table scrolls in its own box, the page
        // does not.
        div.scroll {
            table.simulation {
                thead { tr {
                    th scope="col" { "" }
                    @for v in &r.variants { th scope="col" { (v.name) } }
                } }
                tbody {
                    @for (label, f) in ROWS {
                        tr {
                            th scope="row" { (label) }
                            @for v in &r.variants { td.num { (f(v)) } }
                        }
                    }
                }
            }
        }
    }
}

/// The page of a simulation's status (and report once it has one).
pub fn page(s: &Status) -> Page {
    let short: String = s.id.chars().take(8).collect();
    let state = match &s.state {
        State::Running => format!("running: {} of {} runs", s.done, s.runs),
        State::Done => format!("done: {} runs", s.runs),
        State::Cancelled => format!("cancelled after {} of {} runs", s.done, s.runs),
        State::Stopped(why) => format!("stopped after {} of {} runs: {why}", s.done, s.runs),
        State::Failed(why) => format!("failed: {why}"),
    };
    let charts = s.report.as_deref().map(chart::all).unwrap_or_default();
    Page {
        title: format!("Simulation {short}"),
        tournament: None,
        nav: Nav::Other,
        live: false,
        body: html! {
            h1 { "Simulation " (short) }
            p #sim-state { (state) " (" (format!("{:.1}", s.elapsed.as_secs_f64())) " s)" }
            @if s.state == State::Running {
                p { "This page reloads itself every " (RELOAD_SECS) " seconds." }
                progress max=(s.runs) value=(s.done) { (s.done) " / " (s.runs) }
            }
            @if let Some(r) = &s.report {
                (figures(r))
                @for (name, svg) in &charts {
                    figure.chart {
                        // Our own SVG text: every name in it is escaped (chart::escape).
                        (PreEscaped(svg.as_str()))
                        figcaption { a href={"/simulation/" (s.id) "/chart/" (name)} download=(name) { (name) } }
                    }
                }
            }
        },
    }
}

/// A chart of the report by file name (`tau.svg`, …).
pub fn chart_svg(r: &Report, name: &str) -> Option<String> {
    chart::all(r)
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, svg)| svg)
}
