//! The pairing-edit screen (issue 31, item 4) at `/t/{id}/round/{r}/edit`: the last paired,
//! unpublished round by table with each game's warnings, the players left unpaired, and the
//! director's edits — swap two players, change colours, handicap or table numbers, unpair a
//! game, pair two unpaired players — then publish. Pure rendering, like [`super::pages`]: the
//! warnings are [`crate::tournament::warnings::round_warnings`], the very function behind
//! `tournament.round.warnings`, and every edit is the page script (`assets/edit.js`) calling
//! the existing `tournament.round.*` methods with the director's token and the revision the
//! screen shows (`if_revision`), so two directors cannot overwrite each other unawares.

use maud::{Markup, html};
use serde_json::{Value, json};

use crate::store::TournamentId;
use crate::tournament::Tournament;
use crate::tournament::model::{Game, Player, PlayerId, RoundNumber, format_rank};
use crate::tournament::warnings::{self, Warning};

use super::pages::{Nav, Page, Viewer, halves};
use super::text::{T, t};

/// The strings the script shows, as a JSON object for a `data-` attribute.
fn script_strings() -> String {
    use T::*;
    let pairs = [
        ("working", Working),
        ("error", ErrorPrefix),
        ("picked", EditPicked),
        ("cancelled", EditCancelled),
        ("swapped", EditSwapped),
        ("colours", EditColoursDone),
        ("unpaired", EditUnpairedDone),
        ("paired", EditPairedDone),
        ("table", EditTableDone),
        ("handicap", EditHandicapDone),
        ("published", EditPublishedDone),
        ("stale", EditStale),
        ("not_number", EditNotNumber),
    ];
    let map: serde_json::Map<String, serde_json::Value> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_string(), serde_json::Value::from(t(*v))))
        .collect();
    serde_json::Value::Object(map).to_string()
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
        .map(full_name)
        .unwrap_or_else(|| format!("#{id}"))
}

/// A player as a button to pick: name, rank, and club and country (what the warnings are
/// about).
fn pick(tour: &Tournament, id: PlayerId, colour: Option<&str>) -> Markup {
    let p = tour.data.player(id);
    let rest: Vec<String> = p
        .map(|p| {
            [p.club.trim(), p.country.trim()]
                .into_iter()
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    html! {
        button.pick type="button" id={"pick-" (id)} data-pid=(id) aria-pressed="false"
            aria-label=[colour.map(|c| format!("{c}: {}", name_of(tour, id)))] {
            span.who { (name_of(tour, id)) }
            " "
            span.rank { (p.map(|p| format_rank(p.rank)).unwrap_or_default()) }
            @if !rest.is_empty() {
                " "
                span.from { (rest.join(" · ")) }
            }
        }
    }
}

/// One warning in words.
fn warning_text(tour: &Tournament, w: &Warning) -> String {
    match w {
        Warning::SameClub { club } => format!("{}: {club}", t(T::EditWarnSameClub)),
        Warning::SameCountry { country } => format!("{}: {country}", t(T::EditWarnSameCountry)),
        Warning::Repeated { rounds } => format!(
            "{} {}",
            t(T::EditWarnRepeated),
            super::desk::rounds_text(rounds)
        ),
        Warning::BigHandicap {
            handicap,
            threshold,
        } => format!("{}: {handicap} > {threshold}", t(T::EditWarnBigHandicap)),
        Warning::Colour { player, balance } => format!(
            "{}: {} {balance:+}",
            t(T::EditWarnColour),
            name_of(tour, *player)
        ),
    }
}

fn warning_kind(w: &Warning) -> &'static str {
    match w {
        Warning::SameClub { .. } => "same_club",
        Warning::SameCountry { .. } => "same_country",
        Warning::Repeated { .. } => "repeated",
        Warning::BigHandicap { .. } => "big_handicap",
        Warning::Colour { .. } => "colour",
    }
}

/// The games as the script sends them back to `tournament.round.set_games`.
fn games_data(games: &[Game]) -> String {
    Value::from(
        games
            .iter()
            .map(|g| {
                json!({"table": g.table, "white": g.white, "black": g.black,
                       "handicap": g.handicap, "komi2": g.komi2})
            })
            .collect::<Vec<_>>(),
    )
    .to_string()
}

/// A notice in place of the editor, with a link to the round's page.
fn notice(tid: TournamentId, r: RoundNumber, text: T, link: bool) -> Markup {
    html! {
        p.notice { (t(text)) }
        @if link {
            p { a href={"/t/" (tid) "/round/" (r)} { (t(T::EditToRoundPage)) " " (r) } }
        }
    }
}

/// `GET /t/{id}/round/{r}/edit`; `None` (a 404) for a round the tournament does not have.
pub fn edit(
    tid: TournamentId,
    tour: &Tournament,
    revision: u64,
    r: RoundNumber,
    v: Viewer,
) -> Option<Page> {
    let s = &tour.data.settings;
    if r == 0 || r > s.rounds {
        return None;
    }
    let title = format!("{} {r}", t(T::EditTitle));
    let paired = tour.paired_rounds();
    let round = tour.data.round(r);
    let inner = match round {
        // The director's only, like the desk: with auth on the public learns nothing here.
        _ if v.public_only => html! { p.notice { (t(T::EditNeedsDirector)) } },
        None => notice(tid, r, T::RoundNotPaired, false),
        Some(rd) if rd.published => notice(tid, r, T::EditPublished, true),
        Some(_) if r != paired => notice(tid, r, T::EditNotLast, true),
        Some(_) => editor(tid, tour, revision, r),
    };
    let body = html! {
        h1 { (title) }
        // The script is part of every variant: a page first served to the public is turned
        // into the editor by the site script's re-fetch once director mode is on.
        script src=(super::assets::edit_js_url()) defer {}
        (inner)
    };
    Some(Page {
        title,
        tournament: Some((
            tid,
            if s.name.trim().is_empty() {
                format!("#{tid}")
            } else {
                s.name.clone()
            },
            paired,
        )),
        nav: Nav::Round(r),
        // The script follows the live feed itself: it keeps a pick and a field being typed in.
        live: false,
        body,
    })
}

/// `revision`: the registry's revision the screen shows, which the script's edits send as
/// `if_revision`.
fn editor(tid: TournamentId, tour: &Tournament, revision: u64, r: RoundNumber) -> Markup {
    let Some(rd) = tour.data.round(r) else {
        return html! {};
    };
    let threshold = warnings::big_handicap_threshold(&tour.data);
    let warned = warnings::round_warnings(&tour.data, r);
    let unpaired: Vec<&Player> = tour
        .data
        .players
        .iter()
        .filter(|p| p.participates(r))
        .filter(|p| !rd.byes.contains(&p.id) && !rd.games.iter().any(|g| g.has(p.id)))
        .collect();
    let warned_games = warned.len();
    html! {
        // Shown instead of the editor until director mode is on (auth off: everyone directs).
        p.notice.edit-off { (t(T::EditNeedsDirector)) }
        div #edit.director-only data-tid=(tid) data-round=(r) data-revision=(revision)
            data-games=(games_data(&rd.games)) data-byes=(json!(rd.byes).to_string())
            data-edit-text=(script_strings()) {
            p.lead {
                (t(T::EditGames)) " " strong { (rd.games.len()) } " · " (t(T::EditUnpairedCount)) " " strong { (unpaired.len()) }
                " · " (t(T::EditWarnedCount)) " " strong #warned-count { (warned_games) }
            }
            div.edit-rules {
                p {
                    strong { (t(T::EditRulesTitle)) } " "
                    (t(T::EditRuleBig)) " " strong #rule-threshold { (threshold) } " " (t(T::EditRuleStones)) "; "
                    (t(T::EditRuleColour)) " " strong #rule-tolerance { "±" (warnings::COLOUR_TOLERANCE) } "; "
                    (t(T::EditRuleOthers))
                }
                p.hint { (t(T::EditHelp)) }
            }
            p #edit-msg role="status" aria-live="polite" {}
            div.scroll {
                table.edit-games {
                    caption.visually-hidden { (t(T::PairingsCaption)) " " (r) }
                    thead { tr {
                        th scope="col" { (t(T::Table)) }
                        th scope="col" { (t(T::White)) }
                        th scope="col" { span.visually-hidden { (t(T::EditColours)) } }
                        th scope="col" { (t(T::Black)) }
                        th scope="col" { (t(T::Handicap)) }
                        th.num scope="col" { (t(T::Komi)) }
                        th scope="col" { (t(T::EditWarnings)) }
                        th scope="col" { span.visually-hidden { (t(T::DeskActions)) } }
                    } }
                    tbody {
                        @for g in &rd.games {
                            @let ws = warned.iter().find(|w| w.table == g.table).map(|w| w.warnings.as_slice()).unwrap_or(&[]);
                            tr data-table=(g.table) class=[(!ws.is_empty()).then_some("warned")] {
                                td.tbl data-label=(t(T::Table)) {
                                    input.e-table type="text" inputmode="numeric" size="3" id={"tbl-" (g.table)}
                                        value=(g.table) data-table=(g.table) aria-label={(t(T::EditTableOf)) " " (g.table)}
                                        aria-describedby={"err-tbl-" (g.table)};
                                    small.field-error id={"err-tbl-" (g.table)} role="alert" {}
                                }
                                td.seat { (pick(tour, g.white, Some(t(T::White)))) }
                                td.swapc {
                                    button.e-colours type="button" id={"col-" (g.table)} data-table=(g.table)
                                        title=(t(T::EditColours)) aria-label={(t(T::EditColours)) " " (g.table)} { "⇄" }
                                }
                                td.seat { (pick(tour, g.black, Some(t(T::Black)))) }
                                td.hcp data-label=(t(T::HandicapShort)) {
                                    input.e-hcp type="text" inputmode="numeric" size="2" id={"hcp-" (g.table)}
                                        value=(g.handicap) data-table=(g.table) aria-label={(t(T::EditHandicapOf)) " " (g.table)}
                                        aria-describedby={"err-hcp-" (g.table)};
                                    small.field-error id={"err-hcp-" (g.table)} role="alert" {}
                                }
                                td.num data-label=(t(T::Komi)) { (halves(g.komi2.into())) }
                                td.warn {
                                    @if !ws.is_empty() {
                                        ul.warnings {
                                            @for w in ws {
                                                li class={"w-" (warning_kind(w))} data-kind=(warning_kind(w)) { (warning_text(tour, w)) }
                                            }
                                        }
                                    }
                                }
                                td.act {
                                    button.e-unpair type="button" id={"unp-" (g.table)} data-table=(g.table) { (t(T::EditUnpair)) }
                                    small.field-error id={"err-game-" (g.table)} role="alert" {}
                                }
                            }
                        }
                    }
                }
            }
            div.edit-side {
                section #edit-unpaired aria-labelledby="edit-unpaired-h" {
                    h2 #edit-unpaired-h { (t(T::EditUnpairedTitle)) " (" (unpaired.len()) ")" }
                    @if unpaired.is_empty() {
                        p.hint { (t(T::EditNoneUnpaired)) }
                    } @else {
                        p.hint { (t(T::EditPairHelp)) }
                        ul.picks { @for p in &unpaired { li { (pick(tour, p.id, None)) } } }
                    }
                    small.field-error #err-unpaired role="alert" {}
                }
                @if !rd.byes.is_empty() {
                    section #edit-byes aria-labelledby="edit-byes-h" {
                        h2 #edit-byes-h { (t(T::Byes)) }
                        ul.picks { @for b in &rd.byes { li { (pick(tour, *b, None)) } } }
                        small.field-error #err-byes role="alert" {}
                    }
                }
            }
            div.edit-publish {
                button #edit-publish type="button" { (t(T::Publish)) " " (t(T::Round)) " " (r) }
                " "
                a href={"/t/" (tid) "/round/" (r)} { (t(T::EditToRoundPage)) " " (r) }
                small.field-error #err-publish role="alert" {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_read_as_komi() {
        assert_eq!(halves(13), "6.5");
        assert_eq!(halves(1), "0.5");
        assert_eq!(halves(0), "0");
        assert_eq!(halves(-2), "-1");
        assert_eq!(halves(-1), "-0.5");
    }
}
