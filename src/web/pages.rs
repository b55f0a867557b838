//! The pages, rendered from a tournament's state: pure functions from data to HTML (maud
//! escapes every interpolated value, so names typed by clients cannot inject markup).
//!
//! Each page is a [`Page`]: a title, the navigation it belongs to, and its main fragment.
//! The fragment is what the page script re-fetches (`?fragment=1`) and swaps in when the
//! tournament changes; the layout around it is rendered once.

use maud::{DOCTYPE, Markup, PreEscaped, html};

use crate::pairing::opengotha::Crit;
use crate::store::TournamentId;
use crate::tournament::Tournament;
use crate::tournament::crosstable::{CellKind, CellResult, crosstable as engine_crosstable};
use crate::tournament::engine::result_code;
use crate::tournament::formats::{NameWarning, aga, egf};
use crate::tournament::model::{
    Game, Outcome, Player, PlayerId, Round, RoundNumber, System, format_rank,
};
use crate::tournament::standings::{Standings, standings};

use super::assets;
use super::game::{GameView, owner_class};
use super::text::{Lang, T, current, script_strings, t};

/// Where a page sits in the tournament's navigation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nav {
    List,
    Overview,
    Round(RoundNumber),
    Standings,
    Crosstable,
    Other,
}

/// A rendered page: its title, where it sits, and its main fragment.
pub struct Page {
    pub title: String,
    /// The tournament the page belongs to: id, name, rounds paired.
    pub tournament: Option<(TournamentId, String, RoundNumber)>,
    pub nav: Nav,
    /// Whether the page follows the tournament's live feed.
    pub live: bool,
    pub body: Markup,
}

/// The whole document around a page's fragment.
pub fn document(page: &Page) -> Markup {
    let tid = page.tournament.as_ref().map(|(id, _, _)| *id);
    html! {
        (DOCTYPE)
        html lang=(current().code()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (page.title) " · " (t(T::SiteName)) }
                link rel="stylesheet" href=(assets::css_url());
                script src=(assets::js_url()) defer {}
                script src=(assets::desk_js_url()) defer {}
            }
            body data-tid=[tid]
                data-live=[tid.filter(|_| page.live).map(|id| format!("/t/{id}/live"))]
                data-text=(script_strings()) {
                a.skip href="#main" { (t(T::SkipToContent)) }
                header.site {
                    nav aria-label=(t(T::MainNav)) {
                        a.brand href="/" { (t(T::SiteName)) }
                        ul {
                            li { a href="/" aria-current=[(page.nav == Nav::List).then_some("page")] { (t(T::Tournaments)) } }
                            @if let Some((id, name, paired)) = &page.tournament {
                                li { a href={"/t/" (id)} aria-current=[(page.nav == Nav::Overview).then_some("page")] { (name) } }
                                @if *paired > 0 {
                                    li { a href={"/t/" (id) "/round/" (paired)} aria-current=[matches!(page.nav, Nav::Round(_)).then_some("page")] { (t(T::Pairings)) } }
                                }
                                li { a href={"/t/" (id) "/standings"} aria-current=[(page.nav == Nav::Standings).then_some("page")] { (t(T::Standings)) } }
                                li { a href={"/t/" (id) "/crosstable"} aria-current=[(page.nav == Nav::Crosstable).then_some("page")] { (t(T::Crosstable)) } }
                                li.director-only { a href={"/t/" (id) "/desk"} { (t(T::DeskNav)) } }
                            }
                        }
                    }
                    (language_switcher())
                    @if tid.is_some() {
                        div.director-box {
                            button #director-toggle type="button" aria-pressed="false" { (t(T::DirectorMode)) }
                            form #director-form hidden {
                                label for="director-token" { (t(T::DirectorTokenLabel)) }
                                input #director-token type="password" autocomplete="off";
                                small { (t(T::DirectorTokenHint)) }
                                button type="submit" { (t(T::DirectorEnter)) }
                                button #director-cancel type="button" { (t(T::Cancel)) }
                            }
                        }
                    }
                }
                main #main {
                    p #status role="status" aria-live="polite" {}
                    div #fragment { (page.body) }
                }
            }
        }
    }
}

/// The switcher: a link per language to this page with `?lang=`, which the server keeps in a
/// cookie so the next pages stay in it.
fn language_switcher() -> Markup {
    let now = current();
    html! {
        nav.lang aria-label=(t(T::Language)) {
            ul {
                @for l in Lang::ALL {
                    li {
                        a href={"?lang=" (l.code())} lang=(l.code()) hreflang=(l.code())
                            aria-current=[(l == now).then_some("true")] { (l.native_name()) }
                    }
                }
            }
        }
    }
}

/// An export's label in the page's language (the list's own label for a format it lacks).
fn export_label<'a>(format: &str, label: &'a str) -> &'a str {
    match format {
        "h9" => t(T::ExportH9),
        "csv" => t(T::ExportCsv),
        "opengotha" => t(T::ExportOpengotha),
        "send2aga" => t(T::ExportSend2aga),
        _ => label,
    }
}

fn player_name(p: &Player) -> String {
    if p.first_name.is_empty() {
        p.name.clone()
    } else {
        format!("{} {}", p.name, p.first_name)
    }
}

fn name_of(tour: &Tournament, id: PlayerId) -> String {
    tour.data
        .player(id)
        .map_or_else(|| format!("#{id}"), player_name)
}

/// "withdrawn" after a withdrawn player's name on the public pages (desk-floor), so they are
/// not read as merely absent.
fn withdrawn_tag(tour: &Tournament, id: PlayerId) -> Markup {
    html! {
        @if tour.data.player(id).is_some_and(|p| p.withdrawn_after.is_some()) {
            " " span.tag.withdrawn { (t(T::Withdrawn)) }
        }
    }
}

fn player_link(tid: TournamentId, tour: &Tournament, id: PlayerId) -> Markup {
    html! { a href={"/t/" (tid) "/player/" (id)} { (name_of(tour, id)) } }
}

/// Half points as text: 7 → "3.5", -2 → "-1".
pub(super) fn halves(v: i64) -> String {
    if v % 2 == 0 {
        format!("{}", v / 2)
    } else {
        let sign = if v < 0 { "-" } else { "" };
        format!("{sign}{}.5", v.abs() / 2)
    }
}

/// A criterion's value in its own unit (standings keep half points, SODOS quarter points).
pub fn crit_value(c: Crit, v: i64) -> String {
    use crate::pairing::criteria::{Unit, describe};
    match describe(c).unit {
        Unit::Rank => format_rank(v as i32),
        Unit::Rating | Unit::Count => v.to_string(),
        Unit::Category => (-v + 1).to_string(),
        Unit::QuarterPoints => {
            let q = v.rem_euclid(4);
            let whole = v.div_euclid(4);
            match q {
                0 => whole.to_string(),
                2 => halves(v / 2),
                _ => format!("{}", v as f64 / 4.0),
            }
        }
        Unit::HalfPoints => halves(v),
    }
}

fn system_name(s: System) -> &'static str {
    match s {
        System::Mcmahon => "McMahon",
        System::Swiss => "Swiss",
        System::Swisscat => "SwissCat",
        System::Cup => "Cup",
    }
}

/// A result as OpenGotha shows it, White's score first: `1-0`, `½-½`, `0-1!` (forfeit).
pub fn result_wb(g: &Game) -> String {
    let s = match g.outcome {
        Outcome::Unknown => return String::new(),
        Outcome::WhiteWins => "1–0",
        Outcome::BlackWins => "0–1",
        Outcome::Jigo => "½–½",
        Outcome::BothWin => "1–1",
        Outcome::BothLose => "0–0",
    };
    if g.forfeit {
        format!("{s}!")
    } else {
        s.to_string()
    }
}

fn komi_text(komi2: i32) -> String {
    halves(komi2 as i64)
}

/// Rounds with at least one game and how many of them have a result.
fn results_count(r: &Round) -> (usize, usize) {
    let done = r
        .games
        .iter()
        .filter(|g| g.outcome != Outcome::Unknown)
        .count();
    (done, r.games.len())
}

/// Who is looking at a page: with auth on, only the tournament's director (or the admin)
/// sees rounds that are paired but not published yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Viewer {
    /// Auth is on and the viewer is not this tournament's director.
    pub public_only: bool,
}

impl Viewer {
    /// Everything shown: auth off, or the director.
    pub const ALL: Viewer = Viewer { public_only: false };
    /// The public with auth on: unpublished rounds hidden.
    pub const PUBLIC: Viewer = Viewer { public_only: true };

    /// Whether round `r`'s pairings (games, byes, results) are shown.
    pub fn shows(self, tour: &Tournament, r: RoundNumber) -> bool {
        !self.public_only || tour.data.round(r).is_none_or(|rd| rd.published)
    }

    /// The last round before the first hidden one: standings and the crosstable stop there,
    /// so a hidden round's games cannot be read from them either.
    pub fn last_shown(self, tour: &Tournament) -> RoundNumber {
        let paired = tour.paired_rounds();
        (1..=paired)
            .find(|&r| !self.shows(tour, r))
            .map_or(paired, |r| r - 1)
    }
}

/// The round whose standings are shown by default: the last one with a result (a round just
/// paired, with no result yet, would count every game as lost by both players), among those
/// the viewer may see.
pub fn current_round(tour: &Tournament, v: Viewer) -> RoundNumber {
    (1..=v.last_shown(tour))
        .rev()
        .find(|&r| tour.data.round(r).is_some_and(|rd| results_count(rd).0 > 0))
        .unwrap_or(0)
}

// ---- tournament list ------------------------------------------------------------------------

/// A line of the tournament list.
pub struct ListRow {
    pub id: TournamentId,
    pub name: String,
    pub system: System,
    pub players: usize,
    pub rounds: u32,
    pub paired: u32,
    pub archived: bool,
}

/// A line of the matchmaker list.
pub struct MatchmakerRow {
    pub id: TournamentId,
    pub players: usize,
    pub round: u32,
    pub rounds: u32,
    pub ended: bool,
}

pub fn index(rows: &[ListRow], matchmaker: &[MatchmakerRow]) -> Page {
    let body = html! {
        h1 { (t(T::Tournaments)) }
        // desk-setup: the set-up form.
        p.new-tournament { a.button href="/new" { (t(T::NewTournament)) } }
        @if rows.is_empty() {
            p { (t(T::NoTournaments)) }
        } @else {
            div.scroll {
                table {
                    caption { (t(T::TournamentsCaption)) }
                    thead { tr {
                        th scope="col" { (t(T::Id)) }
                        th scope="col" { (t(T::Name)) }
                        th scope="col" { (t(T::System)) }
                        th scope="col" { (t(T::Players)) }
                        th scope="col" { (t(T::Rounds)) }
                        th scope="col" { (t(T::Archived)) }
                    } }
                    tbody {
                        @for r in rows {
                            tr {
                                td.num { (r.id) }
                                th scope="row" { a href={"/t/" (r.id)} { (display_name(&r.name, r.id)) } }
                                td { (system_name(r.system)) }
                                td.num { (r.players) }
                                td.num { (r.paired) " / " (r.rounds) }
                                td { (if r.archived { t(T::Yes) } else { t(T::No) }) }
                            }
                        }
                    }
                }
            }
        }
        @if !matchmaker.is_empty() {
            h2 { (t(T::MatchmakerTournaments)) }
            div.scroll {
                table {
                    caption { (t(T::MatchmakerCaption)) }
                    thead { tr {
                        th scope="col" { (t(T::Id)) }
                        th scope="col" { (t(T::Players)) }
                        th scope="col" { (t(T::Round)) }
                        th scope="col" { (t(T::Status)) }
                    } }
                    tbody {
                        @for m in matchmaker {
                            tr {
                                th scope="row" { (m.id) }
                                td.num { (m.players) }
                                td.num { (m.round) " / " (m.rounds) }
                                td { @if m.ended { (t(T::Ended)) } }
                            }
                        }
                    }
                }
            }
        }
    };
    Page {
        title: t(T::Tournaments).to_string(),
        tournament: None,
        nav: Nav::List,
        live: false,
        body,
    }
}

fn display_name(name: &str, id: TournamentId) -> String {
    if name.trim().is_empty() {
        format!("#{id}")
    } else {
        name.to_string()
    }
}

fn page(tid: TournamentId, tour: &Tournament, title: String, nav: Nav, body: Markup) -> Page {
    Page {
        title,
        tournament: Some((
            tid,
            display_name(&tour.data.settings.name, tid),
            tour.paired_rounds(),
        )),
        nav,
        live: true,
        body,
    }
}

/// The exports offered: `(format, label)`, only those the daemon's method can produce.
pub type Exports<'a> = &'a [(&'a str, &'a str)];

/// What a download writes otherwise than the tournament holds it (a name its character set
/// cannot hold, a name made safe for its lines), under its link, for the director: the file
/// itself cannot carry a message. The same list is the export's `warnings` over RPC.
fn export_warnings(w: &[NameWarning]) -> Markup {
    html! {
        @if !w.is_empty() {
            div.export-warnings.director-only {
                (t(T::ExportWarnings))
                ul { @for x in w { li { (x.message) } } }
            }
        }
    }
}

// ---- overview --------------------------------------------------------------------------------

/// The overview. With `exports` (the daemon has `tournament.export`), the downloads too,
/// AGA files among them: the archive, the register and each round the viewer may see.
pub fn overview(tid: TournamentId, tour: &Tournament, exports: Exports, v: Viewer) -> Page {
    let s = &tour.data.settings;
    let paired = tour.paired_rounds();
    let name = display_name(&s.name, tid);
    let dates = match (s.begin_date.as_str(), s.end_date.as_str()) {
        ("", "") => String::new(),
        (b, "") => b.to_string(),
        (b, e) if b == e => b.to_string(),
        (b, e) => format!("{b} – {e}"),
    };
    let criteria: Vec<&str> = s
        .placement
        .iter()
        .filter(|c| c.0 != Crit::Nul)
        .map(|c| c.0.name())
        .collect();
    let body = html! {
        h1 { (name) }
        section aria-labelledby="settings-h" {
            h2 #settings-h { (t(T::Settings)) }
            // desk-setup: the set-up form, for the director.
            p.director-only { a href={"/t/" (tid) "/settings"} { (t(T::EditSettings)) } }
            div.scroll {
                table.settings {
                    caption.visually-hidden { (t(T::Settings)) }
                    tbody {
                        @if !s.location.is_empty() { tr { th scope="row" { (t(T::Location)) } td { (s.location) } } }
                        @if !dates.is_empty() { tr { th scope="row" { (t(T::Dates)) } td { (dates) } } }
                        @if !s.director.is_empty() { tr { th scope="row" { (t(T::Director)) } td { (s.director) } } }
                        tr { th scope="row" { (t(T::System)) } td { (system_name(s.system)) } }
                        @if s.system == System::Mcmahon {
                            tr { th scope="row" { (t(T::McMahonBar)) } td { (format_rank(s.mcmahon.bar)) } }
                        }
                        tr { th scope="row" { (t(T::Rounds)) } td { (paired) " / " (s.rounds) } }
                        tr { th scope="row" { (t(T::BoardSize)) } td { (s.board_size) } }
                        tr { th scope="row" { (t(T::Komi)) } td { (komi_text(s.komi2)) } }
                        tr { th scope="row" { (t(T::HandicapKomi)) } td { (komi_text(s.handicap_komi2)) } }
                        tr { th scope="row" { (t(T::Rules)) } td { (s.rules) } }
                        @if !s.time.text.is_empty() { tr { th scope="row" { (t(T::TimeSystem)) } td { (s.time.text) } } }
                        tr { th scope="row" { (t(T::Criteria)) } td { (criteria.join(", ")) } }
                        tr { th scope="row" { (t(T::Players)) } td { (tour.data.players.len()) } }
                    }
                }
            }
        }
        section aria-labelledby="rounds-h" {
            h2 #rounds-h { (t(T::RoundsCaption)) }
            div.scroll {
                table.rounds {
                    caption.visually-hidden { (t(T::RoundsCaption)) }
                    thead { tr {
                        th scope="col" { (t(T::Round)) }
                        th scope="col" { (t(T::Status)) }
                        th scope="col" { (t(T::Results)) }
                        th scope="col" class="director-only" { (t(T::Director)) }
                    } }
                    tbody {
                        @for r in 1..=s.rounds {
                            @let round = tour.data.round(r);
                            tr {
                                th scope="row" {
                                    @if round.is_some() { a href={"/t/" (tid) "/round/" (r)} { (t(T::Round)) " " (r) } }
                                    @else { (t(T::Round)) " " (r) }
                                }
                                td {
                                    @match round {
                                        None => (t(T::NotPaired)),
                                        Some(rd) if rd.published => (t(T::Published)),
                                        Some(_) => (t(T::Draft)),
                                    }
                                }
                                td.num {
                                    @if let Some(rd) = round {
                                        @let (done, all) = results_count(rd);
                                        (done) " / " (all)
                                    }
                                }
                                td.director-only {
                                    @if let Some(rd) = round {
                                        @if rd.published {
                                            button.act type="button" data-method="tournament.round.publish"
                                                data-params=(format!("[{tid},{r},{{\"published\":false}}]")) { (t(T::Unpublish)) " " (r) }
                                        } @else {
                                            button.act type="button" data-method="tournament.round.publish"
                                                data-params=(format!("[{tid},{r}]")) { (t(T::Publish)) " " (r) }
                                        }
                                    } @else if r == paired + 1 {
                                        button.act type="button" data-method="tournament.round.pair"
                                            data-params=(format!("[{tid},{r}]")) { (t(T::PairNext)) " " (r) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        @if !exports.is_empty() {
            section.no-print aria-labelledby="exports-h" {
                h2 #exports-h { (t(T::Exports)) }
                ul.exports {
                    @for (format, label) in exports {
                        li {
                            a href={"/t/" (tid) "/export/" (format)} download { (export_label(format, label)) }
                            @if *format == "h9" { (export_warnings(&egf::name_warnings(&tour.data, false))) }
                        }
                    }
                    li {
                        a href={"/t/" (tid) "/export/aga"} download { (t(T::AgaArchive)) }
                        ": "
                        a href={"/t/" (tid) "/export/aga/register.tde"} download { "register.tde" }
                        @for r in 1..=paired {
                            @if v.shows(tour, r) {
                                ", " a href={"/t/" (tid) "/export/aga/" (r) ".tde"} download { (r) ".tde" }
                            }
                        }
                        (export_warnings(&aga::name_warnings(&tour.data)))
                    }
                }
            }
        }
        section aria-labelledby="players-h" {
            h2 #players-h { (t(T::Players)) }
            div.scroll {
                table.players {
                    caption.visually-hidden { (t(T::PlayersCaption)) }
                    thead { tr {
                        th scope="col" { (t(T::Name)) }
                        th scope="col" { (t(T::Rank)) }
                        th scope="col" { (t(T::Club)) }
                        th scope="col" { (t(T::Country)) }
                    } }
                    tbody {
                        @for p in &tour.data.players {
                            tr {
                                th scope="row" { (player_link(tid, tour, p.id)) (withdrawn_tag(tour, p.id)) }
                                td { (format_rank(p.rank)) }
                                td { (p.club) }
                                td { (p.country) }
                            }
                        }
                    }
                }
            }
        }
    };
    page(tid, tour, name.clone(), Nav::Overview, body)
}

// ---- pairings --------------------------------------------------------------------------------

/// Result codes a director can pick, as `tournament.result.set` takes them.
pub(super) const RESULT_CHOICES: &[(&str, &str)] = &[
    ("?", "?"),
    ("W+", "1–0"),
    ("B+", "0–1"),
    ("jigo", "½–½"),
    ("both_win", "1–1"),
    ("both_lose", "0–0"),
    ("W+!", "1–0!"),
    ("B+!", "0–1!"),
];

/// `None` when the round does not exist in the settings (a 404).
pub fn pairings(tid: TournamentId, tour: &Tournament, r: RoundNumber, v: Viewer) -> Option<Page> {
    if r == 0 || r > tour.data.settings.rounds {
        return None;
    }
    let title = format!("{} {r}", t(T::PairingsCaption));
    let round = tour.data.round(r);
    let body = html! {
        h1 { (t(T::Round)) " " (r) }
        (round_links(tid, tour, r))
        @match round {
            None => p.notice { (t(T::RoundNotPaired)) },
            Some(_) if !v.shows(tour, r) => p.notice.unpublished { (t(T::NotPublishedNote)) },
            Some(rd) => {
                @if !rd.published {
                    p.notice.draft { (t(T::DraftNote)) }
                    // desk-edit2: the pairing-edit screen.
                    p.director-only.edit-link { a href={"/t/" (tid) "/round/" (r) "/edit"} { (t(T::EditLink)) } }
                }
                (super::print::round_links(tid, r))
                (super::desk::quick_entry(tid, r, rd))
                div.scroll {
                    table.pairings {
                        caption { (title) }
                        thead { tr {
                            th scope="col" { (t(T::Table)) }
                            th scope="col" { (t(T::White)) }
                            th scope="col" { (t(T::Black)) }
                            th scope="col" { (t(T::Handicap)) }
                            th scope="col" { (t(T::Komi)) }
                            th scope="col" { (t(T::ResultWb)) }
                            th scope="col" { (t(T::Record)) }
                            th scope="col" class="director-only" { (t(T::Set)) }
                        } }
                        tbody {
                            @for g in &rd.games {
                                tr data-table=(g.table) {
                                    th scope="row" class="num" { (g.table) }
                                    td { (player_link(tid, tour, g.white)) }
                                    td { (player_link(tid, tour, g.black)) }
                                    td.num { (g.handicap) }
                                    td.num { (komi_text(g.komi2)) }
                                    td.result { (result_wb(g)) }
                                    td {
                                        @if g.record.is_some() {
                                            a href={"/t/" (tid) "/round/" (r) "/game/" (g.table)} { (t(T::ViewRecord)) }
                                        }
                                    }
                                    td.director-only {
                                        form.act-form data-method="tournament.result.set"
                                            data-params=(format!("[{tid},{r},{}]", g.table)) {
                                            @let id = format!("res-{r}-{}", g.table);
                                            label.visually-hidden for=(id) { (t(T::SetResultFor)) " " (g.table) }
                                            select id=(id) data-param {
                                                @let current = result_code(g.outcome, g.forfeit);
                                                @for (code, label) in RESULT_CHOICES {
                                                    option value=(code) selected[*code == current] { (label) }
                                                }
                                            }
                                            button type="submit" { (t(T::Set)) }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                @if !rd.byes.is_empty() {
                    p { (t(T::Byes)) ": "
                        @for (k, b) in rd.byes.iter().enumerate() {
                            @if k > 0 { ", " }
                            (player_link(tid, tour, *b))
                        }
                    }
                }
            }
        }
    };
    Some(page(tid, tour, title, Nav::Round(r), body))
}

fn round_links(tid: TournamentId, tour: &Tournament, current: RoundNumber) -> Markup {
    html! {
        nav.rounds aria-label=(t(T::Rounds)) {
            ul {
                @for r in 1..=tour.paired_rounds() {
                    li {
                        a href={"/t/" (tid) "/round/" (r)} aria-current=[(r == current).then_some("page")] { (t(T::Round)) " " (r) }
                    }
                }
            }
        }
    }
}

// ---- standings -------------------------------------------------------------------------------

fn standings_caption(after: RoundNumber) -> String {
    if after == 0 {
        t(T::StandingsBefore).to_string()
    } else {
        format!("{} {after}", t(T::StandingsAfter))
    }
}

/// Criteria that are placement criteria (NULL ones dropped).
fn shown_criteria(st: &Standings) -> Vec<(usize, Crit)> {
    st.criteria
        .iter()
        .enumerate()
        .filter(|(_, c)| c.0 != Crit::Nul)
        .map(|(i, c)| (i, c.0))
        .collect()
}

/// `None` when `after` is past the paired rounds (a 404).
pub fn standings_page(
    tid: TournamentId,
    tour: &Tournament,
    after: Option<u32>,
    v: Viewer,
) -> Option<Page> {
    let paired = v.last_shown(tour);
    let after = after.unwrap_or_else(|| current_round(tour, v));
    if after > paired {
        return None;
    }
    let st = standings(&tour.data, after, &tour.data.settings.placement);
    let crits = shown_criteria(&st);
    let caption = standings_caption(after);
    let body = html! {
        h1 { (t(T::Standings)) }
        (after_links(tid, paired, after, "standings"))
        (super::print::after_link(tid, "standings", after))
        div.scroll {
            table.standings {
                caption { (caption) }
                thead { tr {
                    th scope="col" { (t(T::Place)) }
                    th scope="col" { (t(T::Name)) }
                    th scope="col" { (t(T::Rank)) }
                    th.wide-only scope="col" { (t(T::Club)) }
                    th.wide-only scope="col" { (t(T::Country)) }
                    @for (_, c) in &crits { th scope="col" { (c.name()) } }
                } }
                tbody {
                    @for row in &st.rows {
                        @let p = tour.data.player(row.id);
                        tr class=[row.tied_with_previous.then_some("tied")] data-player=(row.id) {
                            td.num { (row.place) }
                            th scope="row" { (player_link(tid, tour, row.id)) (withdrawn_tag(tour, row.id)) }
                            td { (p.map(|p| format_rank(p.rank)).unwrap_or_default()) }
                            td.wide-only { (p.map(|p| p.club.as_str()).unwrap_or_default()) }
                            td.wide-only { (p.map(|p| p.country.as_str()).unwrap_or_default()) }
                            @for (i, c) in &crits {
                                td.num { (crit_value(*c, row.values.get(*i).copied().unwrap_or(0))) }
                            }
                        }
                    }
                }
            }
        }
    };
    Some(page(tid, tour, caption, Nav::Standings, body))
}

fn after_links(tid: TournamentId, paired: RoundNumber, after: RoundNumber, what: &str) -> Markup {
    html! {
        @if paired > 1 {
            nav.rounds.no-print aria-label=(t(T::Rounds)) {
                ul {
                    @for r in 1..=paired {
                        li { a href={"/t/" (tid) "/" (what) "?after=" (r)} aria-current=[(r == after).then_some("page")] { (t(T::After)) " " (r) } }
                    }
                }
            }
        }
    }
}

// ---- crosstable ------------------------------------------------------------------------------

fn kind_name(k: CellKind) -> &'static str {
    match k {
        CellKind::Game => "game",
        CellKind::Bye => "bye",
        CellKind::Absent => "absent",
        CellKind::NotAssigned => "not_assigned",
    }
}

fn result_name(r: CellResult) -> &'static str {
    match r {
        CellResult::Win => "win",
        CellResult::Loss => "loss",
        CellResult::Jigo => "jigo",
        CellResult::Unknown => "unknown",
    }
}

/// The crosstable after round `after` (default: as the standings), from the engine's
/// [`crosstable`], the same as `tournament.crosstable` with that `after_round`: rows in
/// placement order with their line number, cells for rounds 1..=after written as the engine
/// writes them (EGF: opponent's line number, `+ - = ?`, `/` or `!` for a result by default,
/// colour, handicap: `3+/w0`; `0+`, `0=`, `0-` without a game). `None` when `after` is past
/// the rounds the viewer may see (a 404).
pub fn crosstable(
    tid: TournamentId,
    tour: &Tournament,
    after: Option<u32>,
    v: Viewer,
) -> Option<Page> {
    let shown = v.last_shown(tour);
    let after = after.unwrap_or_else(|| current_round(tour, v));
    if after > shown {
        return None;
    }
    let x = engine_crosstable(
        &tour.data,
        after,
        &tour.data.settings.placement,
        after,
        false,
    );
    let crits = shown_criteria(&x.standings);
    let caption = if after == 0 {
        t(T::CrosstableBefore).to_string()
    } else {
        format!("{} {after}", t(T::CrosstableCaption))
    };
    let body = html! {
        h1 { (t(T::Crosstable)) }
        (after_links(tid, shown, after, "crosstable"))
        (super::print::after_link(tid, "crosstable", after))
        div.scroll {
            table.crosstable {
                caption { (caption) }
                thead { tr {
                    th scope="col" { abbr title=(t(T::LineNumber)) { (t(T::LineNumberShort)) } }
                    th scope="col" { (t(T::Place)) }
                    th scope="col" { (t(T::Name)) }
                    th scope="col" { (t(T::Rank)) }
                    @for r in 1..=after { th scope="col" { (t(T::Round)) " " (r) } }
                    @for (_, c) in &crits { th scope="col" { (c.name()) } }
                } }
                tbody {
                    @for (k, (row, cells)) in x.standings.rows.iter().zip(&x.cells).enumerate() {
                        tr data-player=(row.id) {
                            td.num { (k + 1) }
                            td.num { (row.place) }
                            th scope="row" { (player_link(tid, tour, row.id)) }
                            td { (tour.data.player(row.id).map(|p| format_rank(p.rank)).unwrap_or_default()) }
                            @for c in cells {
                                td.cell data-kind=(kind_name(c.kind)) data-result=(result_name(c.result)) { (c) }
                            }
                            @for (i, c) in &crits {
                                td.num { (crit_value(*c, row.values.get(*i).copied().unwrap_or(0))) }
                            }
                        }
                    }
                }
            }
        }
    };
    Some(page(tid, tour, caption, Nav::Crosstable, body))
}

// ---- player ----------------------------------------------------------------------------------

pub fn player(tid: TournamentId, tour: &Tournament, pid: PlayerId, v: Viewer) -> Option<Page> {
    let p = tour.data.player(pid)?;
    let name = player_name(p);
    let paired = tour.paired_rounds();
    let st = standings(
        &tour.data,
        current_round(tour, v),
        &tour.data.settings.placement,
    );
    let row = st.rows.iter().find(|r| r.id == pid);
    let crits = shown_criteria(&st);
    let body = html! {
        h1 { (name) (withdrawn_tag(tour, pid)) }
        div.scroll {
            table.settings {
                caption.visually-hidden { (t(T::Player)) }
                tbody {
                    tr { th scope="row" { (t(T::Rank)) } td { (format_rank(p.rank)) } }
                    @if !p.club.is_empty() { tr { th scope="row" { (t(T::Club)) } td { (p.club) } } }
                    @if !p.country.is_empty() { tr { th scope="row" { (t(T::Country)) } td { (p.country) } } }
                    @if let Some(row) = row {
                        tr { th scope="row" { (t(T::Place)) } td { (row.place) } }
                        @for (i, c) in &crits {
                            tr { th scope="row" { (c.name()) } td { (crit_value(*c, row.values.get(*i).copied().unwrap_or(0))) } }
                        }
                    }
                }
            }
        }
        h2 { (t(T::GamesCaption)) " " (name) }
        @if paired == 0 {
            p { (t(T::NoGames)) }
        } @else {
            div.scroll {
                table.games {
                    caption.visually-hidden { (t(T::GamesCaption)) " " (name) }
                    thead { tr {
                        th scope="col" { (t(T::Round)) }
                        th scope="col" { (t(T::Opponent)) }
                        th scope="col" { (t(T::Colour)) }
                        th scope="col" { (t(T::Handicap)) }
                        th scope="col" { (t(T::Result)) }
                        th scope="col" { (t(T::Record)) }
                    } }
                    tbody {
                        @for r in 1..=paired {
                            @let round = tour.data.round(r);
                            @let game = round.and_then(|rd| rd.games.iter().find(|g| g.has(pid)));
                            tr {
                                th scope="row" { a href={"/t/" (tid) "/round/" (r)} { (r) } }
                                @match game {
                                    _ if !v.shows(tour, r) => td colspan="5" { (t(T::NotPublished)) },
                                    Some(g) => {
                                        @let white = g.white == pid;
                                        td { (player_link(tid, tour, if white { g.black } else { g.white })) }
                                        td { (if white { t(T::White) } else { t(T::Black) }) }
                                        td.num { (g.handicap) }
                                        td { (own_result(g, white)) }
                                        td { @if g.record.is_some() {
                                            a href={"/t/" (tid) "/round/" (r) "/game/" (g.table)} { (t(T::ViewRecord)) }
                                        } }
                                    }
                                    None => {
                                        @let bye = round.is_some_and(|rd| rd.byes.contains(&pid));
                                        td colspan="5" { (if bye { t(T::Bye) } else if p.withdrawn_after.is_some_and(|w| r > w) { t(T::Withdrawn) } else if !p.participates(r) { t(T::Absent) } else { "–" }) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    Some(page(tid, tour, name, Nav::Other, body))
}

fn own_result(g: &Game, white: bool) -> String {
    let base = match g.outcome {
        Outcome::Unknown => return t(T::Unknown).to_string(),
        Outcome::Jigo => t(T::Jigo),
        o => {
            let (w, b) = o.points2();
            if (if white { w } else { b }) == 2 {
                t(T::Win)
            } else {
                t(T::Loss)
            }
        }
    };
    if g.forfeit {
        format!("{base}!")
    } else {
        base.to_string()
    }
}

// ---- game ------------------------------------------------------------------------------------

/// `None` (a 404) when there is no such game or the viewer may not see its round.
pub fn game(
    tid: TournamentId,
    tour: &Tournament,
    r: RoundNumber,
    table: u32,
    view: Option<Result<GameView, String>>,
    warnings: &[String],
    v: Viewer,
) -> Option<Page> {
    if !v.shows(tour, r) {
        return None;
    }
    let g = tour
        .data
        .round(r)?
        .games
        .iter()
        .find(|g| g.table == table)?;
    let title = format!(
        "{} {r}, {} {table}: {} – {}",
        t(T::Round),
        t(T::Table),
        name_of(tour, g.white),
        name_of(tour, g.black)
    );
    let body = html! {
        h1 { (t(T::Round)) " " (r) ", " (t(T::Table)) " " (table) }
        div.scroll {
            table.settings {
                caption.visually-hidden { (t(T::Game)) }
                tbody {
                    tr { th scope="row" { (t(T::White)) } td { (player_link(tid, tour, g.white)) } }
                    tr { th scope="row" { (t(T::Black)) } td { (player_link(tid, tour, g.black)) } }
                    tr { th scope="row" { (t(T::Handicap)) } td { (g.handicap) } }
                    tr { th scope="row" { (t(T::Komi)) } td { (komi_text(g.komi2)) } }
                    tr { th scope="row" { (t(T::ResultWb)) } td.result { (result_wb(g)) } }
                }
            }
        }
        @match &view {
            None => p.notice { (t(T::NoRecord)) },
            Some(Err(e)) => p.notice { (t(T::RecordUnreadable)) ": " (e) },
            Some(Ok(v)) => (board(v)),
        }
        @if g.record.is_some() && !warnings.is_empty() {
            h2 { (t(T::RecordWarnings)) }
            ul.warnings { @for w in warnings { li { (w) } } }
        }
    };
    Some(page(tid, tour, title, Nav::Round(r), body))
}

/// The board as SVG (the final position, with the count's marks), the move controls, and
/// the steps for the page script in a data attribute.
fn board(v: &GameView) -> Markup {
    let (w, h) = (v.width as usize, v.height as usize);
    let steps = serde_json::to_string(&v.steps).unwrap_or_else(|_| "[]".into());
    let n = v.steps.len();
    let last_move = v.steps.last().and_then(|s| s.played);
    let letters: Vec<char> = "ABCDEFGHJKLMNOPQRSTUVWXYZ".chars().collect();
    let hoshi = hoshi_points(w, h);
    let at_end = v.counted.as_ref();
    let mut svg = String::with_capacity(64 * w * h + 4096);
    // Written by hand (not with maud) for speed and compactness: every value below is a
    // number or a fixed class name, nothing from the client.
    svg.push_str(&format!(
        r#"<svg id="board" class="board at-end" viewBox="-1.2 -1.2 {} {}" role="img" aria-labelledby="board-title" data-steps-count="{n}">"#,
        w as f64 + 1.4,
        h as f64 + 1.4
    ));
    svg.push_str(&format!(
        r#"<title id="board-title">{}</title><rect class="bd" x="-0.6" y="-0.6" width="{}" height="{}"/>"#,
        t(T::BoardLabel),
        w as f64 + 0.2,
        h as f64 + 0.2
    ));
    for x in 0..w {
        svg.push_str(&format!(
            r#"<line class="ln" x1="{x}" y1="0" x2="{x}" y2="{}"/>"#,
            h - 1
        ));
        if let Some(c) = letters.get(x) {
            svg.push_str(&format!(r#"<text class="co" x="{x}" y="-0.75">{c}</text>"#));
        }
    }
    for y in 0..h {
        svg.push_str(&format!(
            r#"<line class="ln" x1="0" y1="{y}" x2="{}" y2="{y}"/><text class="co" x="-0.85" y="{y}">{}</text>"#,
            w - 1,
            h - y
        ));
    }
    for (x, y) in hoshi {
        svg.push_str(&format!(
            r#"<circle class="hs" cx="{x}" cy="{y}" r="0.1"/>"#
        ));
    }
    for (i, s) in v.last.iter().enumerate() {
        let dead = at_end.is_some_and(|c| c.dead.get(i) == Some(&true));
        svg.push_str(&format!(
            r#"<circle class="s s{}{}" cx="{}" cy="{}" r="0.47"/>"#,
            match s {
                crate::go::Stone::Empty => 0,
                crate::go::Stone::Black => 1,
                crate::go::Stone::White => 2,
            },
            if dead { " dead" } else { "" },
            i % w,
            i / w
        ));
    }
    if let Some(c) = at_end {
        svg.push_str(r#"<g id="terr">"#);
        for (i, o) in c.score.owners.iter().enumerate() {
            let stone = v.last.get(i).copied().unwrap_or(crate::go::Stone::Empty);
            let dead = c.dead.get(i) == Some(&true);
            if stone != crate::go::Stone::Empty && !dead {
                continue;
            }
            if let Some(cls) = owner_class(*o) {
                svg.push_str(&format!(
                    r#"<rect class="{cls}" x="{}" y="{}" width="0.36" height="0.36"/>"#,
                    (i % w) as f64 - 0.18,
                    (i / w) as f64 - 0.18
                ));
            }
        }
        svg.push_str("</g>");
    }
    let (lx, ly, lvis) = match last_move {
        Some(m) => ((m as usize % w) as f64, (m as usize / w) as f64, ""),
        None => (0.0, 0.0, " hidden"),
    };
    svg.push_str(&format!(
        r#"<circle id="lm" class="lm{lvis}" cx="{lx}" cy="{ly}" r="0.18"/></svg>"#
    ));
    html! {
        figure.game #game data-steps=(steps) data-width=(w) {
            (PreEscaped(svg))
            figcaption.controls.no-print {
                button type="button" data-go="first" { (t(T::First)) }
                button type="button" data-go="prev" { (t(T::Previous)) }
                output #move-no aria-live="polite" { (t(T::MoveOf)) " " (n) " / " (n) }
                button type="button" data-go="next" { (t(T::Next)) }
                button type="button" data-go="last" { (t(T::Last)) }
            }
        }
        @if let Some(c) = at_end {
            (score_table(c))
        }
    }
}

fn hoshi_points(w: usize, h: usize) -> Vec<(usize, usize)> {
    if w != h {
        return Vec::new();
    }
    let edge = match w {
        19 => 3,
        13 => 3,
        9 => 2,
        _ => return Vec::new(),
    };
    let far = w - 1 - edge;
    let mid = w / 2;
    let mut v = vec![
        (edge, edge),
        (edge, far),
        (far, edge),
        (far, far),
        (mid, mid),
    ];
    if w == 19 {
        v.extend([(edge, mid), (mid, edge), (far, mid), (mid, far)]);
    }
    v
}

fn score_table(c: &super::game::Counted) -> Markup {
    let (b, w) = (&c.score.black, &c.score.white);
    let f = crate::go::score::format_margin;
    html! {
        div.scroll {
            table.score {
                caption { (t(T::ScoreCaption)) }
                thead { tr {
                    th scope="col" { }
                    th scope="col" { (t(T::Black)) }
                    th scope="col" { (t(T::White)) }
                } }
                tbody {
                    tr { th scope="row" { (t(T::Stones)) } td.num { (b.stones) } td.num { (w.stones) } }
                    tr { th scope="row" { (t(T::Territory)) } td.num { (b.territory) } td.num { (w.territory) } }
                    tr { th scope="row" { (t(T::Captures)) } td.num { (b.captures) } td.num { (w.captures) } }
                    tr { th scope="row" { (t(T::DeadStones)) } td.num { (b.dead_opponent) } td.num { (w.dead_opponent) } }
                    tr { th scope="row" { (t(T::Komi)) } td.num { (f(b.komi + b.handicap_bonus)) } td.num { (f(w.komi + w.handicap_bonus)) } }
                    tr.total { th scope="row" { (t(T::Total)) } td.num { (f(b.total)) } td.num { (f(w.total)) } }
                }
            }
        }
        p.count { (t(T::ScoreResult)) ": " strong #counted { (c.score.result) } }
        @if !c.played_out { p.notice { (t(T::NotPlayedOut)) } }
    }
}

// ---- errors ----------------------------------------------------------------------------------

pub fn error_page(status: u16, message: &str) -> Page {
    let title = if status == 404 {
        t(T::NotFound)
    } else {
        t(T::BadRequest)
    };
    Page {
        title: title.to_string(),
        tournament: None,
        nav: Nav::Other,
        live: false,
        body: html! {
            h1 { (status) " " (title) }
            p { (message) }
            p { a href="/" { (t(T::BackToList)) } }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_in_their_units() {
        assert_eq!(halves(7), "3.5");
        assert_eq!(halves(-3), "-1.5");
        assert_eq!(halves(8), "4");
        assert_eq!(crit_value(Crit::Mms, 41), "20.5");
        assert_eq!(crit_value(Crit::Sodosw, 6), "1.5");
        assert_eq!(crit_value(Crit::Sodosw, 5), "1.25");
        assert_eq!(crit_value(Crit::Rank, 0), "1D");
        assert_eq!(crit_value(Crit::Cat, 0), "1");
    }
}
