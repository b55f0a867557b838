//! Print sheets on A4 (issue 31, item 6): a round's pairings by table, the same pairings in
//! alphabetical order of players ("find my table"), result slips with cut lines, standings and
//! the crosstable. Each is a document of its own: no site navigation, no buttons, no script,
//! only a print stylesheet (`/assets/print.css`, `@page { size: A4 }`) and, on screen, one
//! line back to the page it came from (hidden on paper). What a sheet shows is what the
//! viewer may see: with auth on, the public's sheets of an unpublished round are a 404, and
//! standings and the crosstable stop before it, as on the pages.

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{DOCTYPE, Markup, html};

use crate::pairing::opengotha::Crit;
use crate::store::TournamentId;
use crate::tournament::Tournament;
use crate::tournament::crosstable::crosstable as engine_crosstable;
use crate::tournament::model::{Player, PlayerId, RoundNumber, format_rank};
use crate::tournament::standings::{Standings, standings};

use super::pages::{Viewer, crit_value, current_round, halves};
use super::text::{T, t};
use super::{MaybeCaller, PageQuery, Web, assets, bad, caller_of, html as respond, number};

/// The sheets of a round, as they appear in `/t/{id}/round/{r}/print/{sheet}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoundSheet {
    Tables,
    Alpha,
    Slips,
}

impl RoundSheet {
    fn parse(s: &str) -> Option<RoundSheet> {
        match s {
            "tables" => Some(RoundSheet::Tables),
            "alpha" => Some(RoundSheet::Alpha),
            "slips" => Some(RoundSheet::Slips),
            _ => None,
        }
    }

    fn path(self) -> &'static str {
        match self {
            RoundSheet::Tables => "tables",
            RoundSheet::Alpha => "alpha",
            RoundSheet::Slips => "slips",
        }
    }

    fn label(self) -> &'static str {
        match self {
            RoundSheet::Tables => t(T::PrintTables),
            RoundSheet::Alpha => t(T::PrintAlpha),
            RoundSheet::Slips => t(T::PrintSlips),
        }
    }
}

/// A sheet: its title (tab and heading), the line under the heading, the page to go back to
/// on screen, whether it is printed landscape, and its content.
struct Sheet {
    title: String,
    subtitle: String,
    back: String,
    landscape: bool,
    body: Markup,
}

fn document(tid: TournamentId, tour: &Tournament, s: &Sheet) -> Markup {
    let name = tournament_name(tid, tour);
    html! {
        (DOCTYPE)
        html lang=(super::text::current().code()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (s.title) " · " (name) }
                link rel="stylesheet" href=(assets::print_css_url());
            }
            body.sheet.landscape[s.landscape] {
                p.screen-only {
                    a href=(s.back) { "← " (t(T::PrintBack)) }
                    " · " (t(T::PrintHint))
                }
                header.sheet-head {
                    h1 { (name) }
                    p.sub { (s.subtitle) }
                    @if let Some(line) = place_and_dates(tour) { p.meta { (line) } }
                }
                main { (s.body) }
            }
        }
    }
}

fn tournament_name(tid: TournamentId, tour: &Tournament) -> String {
    let n = tour.data.settings.name.trim();
    if n.is_empty() {
        format!("#{tid}")
    } else {
        n.to_string()
    }
}

fn place_and_dates(tour: &Tournament) -> Option<String> {
    let s = &tour.data.settings;
    let dates = match (s.begin_date.as_str(), s.end_date.as_str()) {
        ("", "") => String::new(),
        (b, "") => b.to_string(),
        (b, e) if b == e => b.to_string(),
        (b, e) => format!("{b} – {e}"),
    };
    let parts: Vec<&str> = [s.location.as_str(), dates.as_str()]
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join(" · "))
}

fn full_name(p: &Player) -> String {
    if p.first_name.is_empty() {
        p.name.clone()
    } else {
        format!("{} {}", p.name, p.first_name)
    }
}

fn name_of(tour: &Tournament, id: PlayerId) -> String {
    tour.data
        .player(id)
        .map_or_else(|| format!("#{id}"), full_name)
}

fn rank_of(tour: &Tournament, id: PlayerId) -> String {
    tour.data
        .player(id)
        .map(|p| format_rank(p.rank))
        .unwrap_or_default()
}

/// The links to a round's sheets, for the pairings page and the director's overview.
pub fn round_links(tid: TournamentId, r: RoundNumber) -> Markup {
    html! {
        p.print-links.no-print {
            (t(T::Print)) ": "
            @for (k, s) in [RoundSheet::Tables, RoundSheet::Alpha, RoundSheet::Slips].iter().enumerate() {
                @if k > 0 { " · " }
                a href={"/t/" (tid) "/round/" (r) "/print/" (s.path())} { (s.label()) }
            }
        }
    }
}

/// The link to the printed standings or crosstable after round `after`.
pub fn after_link(tid: TournamentId, what: &str, after: RoundNumber) -> Markup {
    html! {
        p.print-links.no-print {
            a href={"/t/" (tid) "/print/" (what) "?after=" (after)} { (t(T::Print)) }
        }
    }
}

// ---- the round's sheets -------------------------------------------------------------------

/// `None` (a 404) when round `r` is not paired, or the viewer may not see it.
fn round_sheet(
    tid: TournamentId,
    tour: &Tournament,
    r: RoundNumber,
    which: RoundSheet,
    v: Viewer,
) -> Option<Sheet> {
    if !v.shows(tour, r) {
        return None;
    }
    let round = tour.data.round(r)?;
    let heading = format!("{} {r} · {}", t(T::Round), which.label());
    let body = match which {
        RoundSheet::Tables => html! {
            table.pairings {
                thead { tr {
                    th.num scope="col" { (t(T::Table)) }
                    th scope="col" { (t(T::White)) }
                    th scope="col" { (t(T::Rank)) }
                    th scope="col" { (t(T::Black)) }
                    th scope="col" { (t(T::Rank)) }
                    th.num scope="col" { (t(T::HandicapShort)) }
                    th.num scope="col" { (t(T::Komi)) }
                } }
                tbody {
                    @for g in &round.games {
                        tr {
                            td.num.table-no { (g.table) }
                            td.name { (name_of(tour, g.white)) }
                            td.rank { (rank_of(tour, g.white)) }
                            td.name { (name_of(tour, g.black)) }
                            td.rank { (rank_of(tour, g.black)) }
                            td.num { (g.handicap) }
                            td.num { (halves(g.komi2.into())) }
                        }
                    }
                }
            }
            (byes(tour, &round.byes))
        },
        RoundSheet::Alpha => {
            // Everyone paired or with a bye, by surname then given name as a person reads
            // them (accents and case do not change the order).
            let mut lines: Vec<(String, PlayerId, Option<Seat>)> = round
                .games
                .iter()
                .flat_map(|g| {
                    [
                        (g.white, Some((g.table, true, g.black))),
                        (g.black, Some((g.table, false, g.white))),
                    ]
                })
                .chain(round.byes.iter().map(|&b| (b, None)))
                .map(|(p, what)| {
                    let key = crate::ratings::fold::fold(&name_of(tour, p));
                    (key, p, what)
                })
                .collect();
            lines.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
            html! {
                table.alpha {
                    thead { tr {
                        th scope="col" { (t(T::Name)) }
                        th scope="col" { (t(T::Rank)) }
                        th.num scope="col" { (t(T::Table)) }
                        th scope="col" { (t(T::Colour)) }
                        th scope="col" { (t(T::Opponent)) }
                    } }
                    tbody {
                        @for (_, p, what) in &lines {
                            tr {
                                td.name { (name_of(tour, *p)) }
                                td.rank { (rank_of(tour, *p)) }
                                @match what {
                                    Some((table, white, opp)) => {
                                        td.num.table-no { (table) }
                                        td { (if *white { t(T::White) } else { t(T::Black) }) }
                                        td { (name_of(tour, *opp)) " (" (rank_of(tour, *opp)) ")" }
                                    }
                                    None => { td.num { "–" } td colspan="2" { (t(T::Bye)) } }
                                }
                            }
                        }
                    }
                }
            }
        }
        RoundSheet::Slips => html! {
            @for g in &round.games {
                section.slip {
                    div.slip-head {
                        span.slip-table { (t(T::Table)) " " (g.table) }
                        span { (t(T::Round)) " " (r) }
                        span { (t(T::HandicapShort)) " " (g.handicap) " · " (t(T::Komi)) " " (halves(g.komi2.into())) }
                    }
                    table.slip-players {
                        tbody {
                            tr {
                                th scope="row" { (t(T::White)) }
                                td.name { (name_of(tour, g.white)) }
                                td.rank { (rank_of(tour, g.white)) }
                                td.box { span.tick {} (t(T::SlipWins)) }
                                td.sign { (t(T::Signature)) }
                            }
                            tr {
                                th scope="row" { (t(T::Black)) }
                                td.name { (name_of(tour, g.black)) }
                                td.rank { (rank_of(tour, g.black)) }
                                td.box { span.tick {} (t(T::SlipWins)) }
                                td.sign { (t(T::Signature)) }
                            }
                        }
                    }
                    p.slip-foot { span.tick {} (t(T::Jigo)) }
                }
            }
            (byes(tour, &round.byes))
        },
    };
    Some(Sheet {
        title: heading.clone(),
        subtitle: heading,
        back: format!("/t/{tid}/round/{r}"),
        landscape: false,
        body,
    })
}

/// Where a player sits in a round: table, whether White, opponent.
type Seat = (u32, bool, PlayerId);

fn byes(tour: &Tournament, byes: &[PlayerId]) -> Markup {
    html! {
        @if !byes.is_empty() {
            p.byes { strong { (t(T::Byes)) ": " }
                @for (k, b) in byes.iter().enumerate() {
                    @if k > 0 { ", " }
                    (name_of(tour, *b))
                }
            }
        }
    }
}

// ---- standings and crosstable ---------------------------------------------------------------

fn criteria(st: &Standings) -> Vec<(usize, Crit)> {
    st.criteria
        .iter()
        .enumerate()
        .filter(|(_, c)| c.0 != Crit::Nul)
        .map(|(i, c)| (i, c.0))
        .collect()
}

fn after_title(after: RoundNumber, before: T, caption: T) -> String {
    if after == 0 {
        t(before).to_string()
    } else {
        format!("{} {after}", t(caption))
    }
}

/// `None` (a 404) when `after` is past the rounds the viewer may see.
fn standings_sheet(
    tid: TournamentId,
    tour: &Tournament,
    after: Option<RoundNumber>,
    v: Viewer,
) -> Option<Sheet> {
    let after = after.unwrap_or_else(|| current_round(tour, v));
    if after > v.last_shown(tour) {
        return None;
    }
    let st = standings(&tour.data, after, &tour.data.settings.placement);
    let crits = criteria(&st);
    let title = after_title(after, T::StandingsBefore, T::StandingsAfter);
    let body = html! {
        table.standings {
            thead { tr {
                th.num scope="col" { (t(T::Place)) }
                th scope="col" { (t(T::Name)) }
                th scope="col" { (t(T::Rank)) }
                th scope="col" { (t(T::Club)) }
                th scope="col" { (t(T::Country)) }
                @for (_, c) in &crits { th.num scope="col" { (c.name()) } }
            } }
            tbody {
                @for row in &st.rows {
                    @let p = tour.data.player(row.id);
                    tr class=[row.tied_with_previous.then_some("tied")] {
                        td.num { (row.place) }
                        td.name { (name_of(tour, row.id)) }
                        td.rank { (rank_of(tour, row.id)) }
                        td { (p.map(|p| p.club.as_str()).unwrap_or_default()) }
                        td { (p.map(|p| p.country.as_str()).unwrap_or_default()) }
                        @for (i, c) in &crits {
                            td.num { (crit_value(*c, row.values.get(*i).copied().unwrap_or(0))) }
                        }
                    }
                }
            }
        }
    };
    Some(Sheet {
        title: title.clone(),
        subtitle: title,
        back: format!("/t/{tid}/standings?after={after}"),
        landscape: false,
        body,
    })
}

/// `None` (a 404) when `after` is past the rounds the viewer may see. Printed landscape: a
/// column per round.
fn crosstable_sheet(
    tid: TournamentId,
    tour: &Tournament,
    after: Option<RoundNumber>,
    v: Viewer,
) -> Option<Sheet> {
    let after = after.unwrap_or_else(|| current_round(tour, v));
    if after > v.last_shown(tour) {
        return None;
    }
    let x = engine_crosstable(
        &tour.data,
        after,
        &tour.data.settings.placement,
        after,
        false,
    );
    let crits = criteria(&x.standings);
    let title = after_title(after, T::CrosstableBefore, T::CrosstableCaption);
    let body = html! {
        table.crosstable {
            thead { tr {
                th.num scope="col" { (t(T::LineNumberShort)) }
                th.num scope="col" { (t(T::Place)) }
                th scope="col" { (t(T::Name)) }
                th scope="col" { (t(T::Rank)) }
                @for r in 1..=after { th.cell scope="col" { (r) } }
                @for (_, c) in &crits { th.num scope="col" { (c.name()) } }
            } }
            tbody {
                @for (k, (row, cells)) in x.standings.rows.iter().zip(&x.cells).enumerate() {
                    tr {
                        td.num { (k + 1) }
                        td.num { (row.place) }
                        td.name { (name_of(tour, row.id)) }
                        td.rank { (rank_of(tour, row.id)) }
                        @for c in cells { td.cell { (c) } }
                        @for (i, c) in &crits {
                            td.num { (crit_value(*c, row.values.get(*i).copied().unwrap_or(0))) }
                        }
                    }
                }
            }
        }
    };
    Some(Sheet {
        title: title.clone(),
        subtitle: title,
        back: format!("/t/{tid}/crosstable?after={after}"),
        landscape: true,
        body,
    })
}

// ---- handlers -------------------------------------------------------------------------------

/// Renders a sheet of tournament `id` under its lock, as `caller` may see it; `None` from
/// `f` is a 404 saying `missing`.
async fn with_sheet(
    web: &Web,
    id: &str,
    caller: MaybeCaller,
    missing: &str,
    f: impl FnOnce(TournamentId, &Tournament, Viewer) -> Option<Sheet>,
) -> Response {
    let tid: TournamentId = match number("tournament id", id) {
        Ok(id) => id,
        Err(m) => return bad(m),
    };
    let caller = caller_of(&caller);
    let ctx = &web.ctx;
    let out = ctx
        .tournaments
        .read(tid, |tour, _| {
            let v = super::viewer(ctx, &caller, tour);
            f(tid, tour, v).map(|s| document(tid, tour, &s).into_string())
        })
        .await;
    match out {
        Ok(Some(body)) => respond(StatusCode::OK, body),
        Ok(None) => super::not_found(missing),
        Err(crate::app::registry::RegistryError::NotFound(_)) => {
            super::not_found(&format!("no tournament {tid}"))
        }
        Err(e) => {
            tracing::error!(error = %e, "reading a tournament for a print sheet");
            super::error(StatusCode::INTERNAL_SERVER_ERROR, "internal error")
        }
    }
}

/// `GET /t/{id}/round/{r}/print/{sheet}`: `tables`, `alpha` or `slips`.
pub(super) async fn round_print(
    State(web): State<Web>,
    caller: MaybeCaller,
    path: Result<Path<(String, String, String)>, PathRejection>,
) -> Response {
    let Path((id, r, sheet)) = match path {
        Ok(p) => p,
        Err(e) => return bad(e),
    };
    let r: RoundNumber = match number("round", &r) {
        Ok(r) => r,
        Err(m) => return bad(m),
    };
    let Some(which) = RoundSheet::parse(&sheet) else {
        return super::not_found(&format!(
            "no sheet {:?} (tables, alpha or slips)",
            crate::rpc::error::clip(&sheet, 40)
        ));
    };
    with_sheet(
        &web,
        &id,
        caller,
        &format!("round {r} is not paired (or not published) yet"),
        |tid, tour, v| round_sheet(tid, tour, r, which, v),
    )
    .await
}

/// `GET /t/{id}/print/{standings|crosstable}?after=r`.
pub(super) async fn tournament_print(
    State(web): State<Web>,
    caller: MaybeCaller,
    path: Result<Path<(String, String)>, PathRejection>,
    query: Result<Query<PageQuery>, QueryRejection>,
) -> Response {
    let (Path((id, what)), Query(q)) = match (path, query) {
        (Ok(p), Ok(q)) => (p, q),
        (Err(e), _) => return bad(e),
        (_, Err(e)) => return bad(e),
    };
    let after = match q.after.as_deref().map(|a| number::<u32>("round", a)) {
        None => None,
        Some(Ok(a)) => Some(a),
        Some(Err(m)) => return bad(m),
    };
    let sheet: fn(TournamentId, &Tournament, Option<RoundNumber>, Viewer) -> Option<Sheet> =
        match what.as_str() {
            "standings" => standings_sheet,
            "crosstable" => crosstable_sheet,
            _ => {
                return super::not_found(&format!(
                    "no sheet {:?} (standings or crosstable)",
                    crate::rpc::error::clip(&what, 40)
                ));
            }
        };
    with_sheet(
        &web,
        &id,
        caller,
        "that round is not paired (or not published) yet",
        |tid, tour, v| sheet(tid, tour, after, v),
    )
    .await
}
