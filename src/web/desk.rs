//! The director's desk (issue 31, items 2, 3 and 5): the registration desk and the check-in
//! for the next round at `/t/{id}/desk`, and the quick result entry by table number shown on a
//! round's pairings in director mode. Pure rendering, like [`super::pages`]: every action is
//! the page script (`assets/desk.js`) calling the existing `tournament.*` methods over
//! JSON-RPC with the director's token, so the daemon checks each field and its messages are
//! the ones shown next to the fields.

use maud::{Markup, html};
use serde_json::{Value, json};

use crate::store::TournamentId;
use crate::tournament::Tournament;
use crate::tournament::engine::result_code;
use crate::tournament::model::{Player, Round, RoundNumber, format_rank};

use super::pages::{Nav, Page, RESULT_CHOICES, Viewer};
use super::text::{T, t};

/// The strings the desk script shows, as a JSON object for a `data-` attribute.
fn script_strings() -> String {
    use T::*;
    let pairs = [
        ("working", Working),
        ("error", ErrorPrefix),
        ("added", DeskAdded),
        ("saved", DeskSaved),
        ("absent_in", DeskAbsentIn),
        ("dup_name", DeskDupName),
        ("dup_pin", DeskDupPin),
        ("no_hits", DeskNoHits),
        ("edit_title", DeskEditTitle),
        ("add_title", DeskAddTitle),
        ("add", DeskAdd),
        ("save", DeskSave),
        ("present", DeskPresent),
        ("absent", DeskAbsentMark),
        ("withdrawn", DeskWithdrawnMark),
        ("reinstated", DeskReinstated),
        ("participation_set", DeskParticipationSet),
        ("no_table", QuickNoTable),
        ("already", QuickAlready),
        ("overwrite", QuickOverwrite),
        ("set", QuickSet),
        ("undone", QuickUndone),
        ("nothing_to_undo", QuickNothingToUndo),
        ("bad_key", QuickBadKey),
        ("kept", QuickKept),
        ("table", Table),
    ];
    let map: serde_json::Map<String, serde_json::Value> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_string(), serde_json::Value::from(t(*v))))
        .collect();
    serde_json::Value::Object(map).to_string()
}

/// Rounds as text: `[1, 2, 3, 5]` → "1–3, 5".
pub fn rounds_text(rounds: &[RoundNumber]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < rounds.len() {
        let start = rounds[i];
        let mut end = start;
        while i + 1 < rounds.len() && rounds[i + 1] == end + 1 {
            i += 1;
            end = rounds[i];
        }
        out.push(if end == start {
            start.to_string()
        } else {
            format!("{start}–{end}")
        });
        i += 1;
    }
    out.join(", ")
}

/// Half points as text (2 → "1", 1 → "0.5").
fn half_points(v: i32) -> String {
    if v % 2 == 0 {
        (v / 2).to_string()
    } else {
        format!("{}.5", v / 2)
    }
}

/// The player's fields the desk form edits, as the JSON the script fills the form with.
fn player_data(p: &Player) -> String {
    json!({
        "id": p.id,
        "name": p.name,
        "first_name": p.first_name,
        "rank": format_rank(p.rank),
        "rating": p.rating,
        "club": p.club,
        "country": p.country,
        "egf_pin": p.egf_pin,
        "ffg_licence": p.ffg_licence,
        "aga_id": p.aga_id,
        "skip": p.skip,
    })
    .to_string()
}

fn full_name(p: &Player) -> String {
    if p.first_name.is_empty() {
        p.name.clone()
    } else {
        format!("{} {}", p.name, p.first_name)
    }
}

/// A player's standing at the desk: withdrawn (after which round), absent rounds, or present.
pub fn status_text(p: &Player) -> String {
    let mut parts = Vec::new();
    if let Some(w) = p.withdrawn_after {
        parts.push(if w == 0 {
            t(T::DeskWithdrawnBefore).to_string()
        } else {
            format!("{} {w}", t(T::DeskWithdrawnAfter))
        });
    }
    if !p.skip.is_empty() {
        parts.push(format!(
            "{} {}",
            t(T::DeskAbsentRounds),
            rounds_text(&p.skip)
        ));
    }
    if parts.is_empty() {
        t(T::DeskRegistered).to_string()
    } else {
        parts.join("; ")
    }
}

/// One field of the registration form: its label, input and the place for the daemon's
/// message about it.
fn field(key: &str, label: T, kind: &str, extra: Option<&str>) -> Markup {
    let id = format!("f-{key}");
    let err = format!("err-{key}");
    html! {
        div.field {
            label for=(id) { (t(label)) }
            input id=(id) name=(key) type=(kind) autocomplete="off" aria-describedby=(err)
                inputmode=[extra];
            small.field-error id=(err) role="alert" {}
        }
    }
}

/// `GET /t/{id}/desk`. A viewer who is not the director (auth on, no token) gets a notice
/// only: the desk shows licence numbers and exists to change things.
pub fn desk(tid: TournamentId, tour: &Tournament, v: Viewer) -> Page {
    let s = &tour.data.settings;
    let paired = tour.paired_rounds();
    let next = paired + 1;
    let title = t(T::DeskTitle).to_string();
    let body = if v.public_only {
        html! {
            h1 { (title) }
            p.notice { (t(T::DeskNeedsDirector)) }
        }
    } else {
        html! {
            div #desk data-tid=(tid) data-desk-text=(script_strings()) {
                h1 { (title) }
                p.lead { (tour.data.players.len()) " " (t(T::DeskRegistered)) " · " (t(T::Rounds)) " " (paired) " / " (s.rounds) }
                // desk-edit2: the last round's pairing, while it is not published.
                @if tour.data.round(paired).is_some_and(|rd| !rd.published) {
                    p.edit-link { a href={"/t/" (tid) "/round/" (paired) "/edit"} { (t(T::EditLink)) " (" (t(T::Round)) " " (paired) ")" } }
                }
                div.desk-grid {
                    section #register aria-labelledby="desk-form-h" {
                        h2 #desk-form-h { (t(T::DeskAddTitle)) }
                        div.desk-search {
                            label for="desk-search" { (t(T::DeskSearchLabel)) }
                            input #desk-search type="search" role="combobox" autocomplete="off"
                                aria-autocomplete="list" aria-expanded="false" aria-controls="desk-hits"
                                placeholder=(t(T::DeskSearchHint));
                            ul #desk-hits role="listbox" aria-label=(t(T::DeskSearchLabel)) hidden {}
                        }
                        (late_entry(tour))
                        form #desk-form novalidate {
                            input #f-id type="hidden" name="player_id";
                            input #f-rating_origin type="hidden" name="rating_origin";
                            input #f-grade type="hidden" name="grade";
                            input #f-ffg_licence_status type="hidden" name="ffg_licence_status";
                            input #f-aga_expiration type="hidden" name="aga_expiration";
                            div.fields {
                                (field("name", T::DeskName, "text", None))
                                (field("first_name", T::DeskFirstName, "text", None))
                                (field("rank", T::Rank, "text", None))
                                (field("rating", T::DeskRating, "text", Some("numeric")))
                                (field("club", T::Club, "text", None))
                                (field("country", T::Country, "text", None))
                                (field("egf_pin", T::DeskEgfPin, "text", Some("numeric")))
                                (field("ffg_licence", T::DeskFfgLicence, "text", None))
                                (field("aga_id", T::DeskAgaId, "text", Some("numeric")))
                            }
                            div #desk-dup.notice role="alert" hidden {
                                p #desk-dup-text {}
                                button #desk-dup-add type="button" { (t(T::DeskAddAnyway)) }
                                " "
                                button #desk-dup-cancel type="button" { (t(T::Cancel)) }
                            }
                            p.form-error #err-form role="alert" {}
                            div.buttons {
                                button #desk-submit type="submit" { (t(T::DeskAdd)) }
                                button #desk-clear type="button" { (t(T::DeskClear)) }
                            }
                        }
                        p #desk-msg role="status" aria-live="polite" {}
                    }
                    (checkin(tour, next))
                }
                (players_table(tid, tour))
            }
        }
    };
    Page {
        title,
        tournament: Some((tid, display_name(&s.name, tid), paired)),
        nav: Nav::Other,
        // The desk script refreshes its lists itself, keeping what is being typed.
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

/// What a player added now misses: the rounds already paired count as absences.
fn late_entry(tour: &Tournament) -> Markup {
    let paired = tour.paired_rounds();
    let sc = &tour.data.settings.scoring;
    html! {
        div #desk-late {
            @if paired > 0 {
                @let rounds: Vec<RoundNumber> = (1..=paired).collect();
                p.notice {
                    (t(T::DeskLateEntry)) " " (rounds_text(&rounds)) ". "
                    (t(T::DeskLateScored)) " " (half_points(sc.mms2_absent)) " "
                    (t(T::DeskLateMms)) ", " (half_points(sc.nbw2_absent)) " " (t(T::DeskLateWins)) "."
                }
            }
        }
    }
}

/// The check-in list for round `round`: who takes part, ticked at once through
/// `tournament.player.set_participation`.
fn checkin(tour: &Tournament, round: RoundNumber) -> Markup {
    let rounds = tour.data.settings.rounds;
    let listed: Vec<&Player> = tour
        .data
        .players
        .iter()
        .filter(|p| p.withdrawn_after.is_none_or(|w| round <= w))
        .collect();
    let present = listed.iter().filter(|p| p.participates(round)).count();
    let withdrawn = tour.data.players.len() - listed.len();
    html! {
        section #checkin aria-labelledby="checkin-h" data-round=(round) {
            @if round > rounds {
                h2 #checkin-h { (t(T::CheckinTitle)) }
                p { (t(T::CheckinAllPaired)) }
            } @else {
                h2 #checkin-h { (t(T::CheckinTitle)) " " (round) }
                p.hint { (t(T::CheckinHelp)) }
                div.checkin-bar {
                    label for="checkin-filter" { (t(T::CheckinFilter)) }
                    input #checkin-filter type="search" role="combobox" autocomplete="off"
                        aria-controls="checkin-list" aria-expanded="true" aria-autocomplete="list";
                    output #checkin-count aria-live="polite" data-present=(present) data-total=(listed.len()) {
                        strong { (present) } " / " (listed.len()) " " (t(T::CheckinPresent))
                    }
                }
                @if withdrawn > 0 {
                    p.hint { (withdrawn) " " (t(T::CheckinWithdrawnNotListed)) }
                }
                ul #checkin-list role="listbox" aria-multiselectable="true" aria-label=(t(T::CheckinTitle)) {
                    @for p in &listed {
                        @let here = p.participates(round);
                        li.ci id={"ci-" (p.id)} role="option" aria-selected=(if here { "true" } else { "false" })
                            data-pid=(p.id) data-skip=(json!(p.skip).to_string())
                            data-key=(full_name(p).to_lowercase()) {
                            span.box aria-hidden="true" {}
                            span.who { (full_name(p)) }
                            span.rank { (format_rank(p.rank)) }
                            span.state { (if here { t(T::DeskPresent) } else { t(T::DeskAbsentMark) }) }
                        }
                    }
                }
            }
        }
    }
}

/// Every registered player with their status and the actions on them.
fn players_table(tid: TournamentId, tour: &Tournament) -> Markup {
    let paired = tour.paired_rounds();
    html! {
        section #desk-players aria-labelledby="desk-players-h" data-paired=(paired) {
            h2 #desk-players-h { (t(T::PlayersCaption)) " (" (tour.data.players.len()) ")" }
            div.scroll {
                table.desk-players {
                    thead { tr {
                        th.num scope="col" { (t(T::LineNumberShort)) }
                        th scope="col" { (t(T::Name)) }
                        th scope="col" { (t(T::Rank)) }
                        th.num.wide-only scope="col" { (t(T::DeskRating)) }
                        th.wide-only scope="col" { (t(T::Club)) }
                        th.wide-only scope="col" { (t(T::Country)) }
                        th.wide-only scope="col" { (t(T::DeskIds)) }
                        th scope="col" { (t(T::Status)) }
                        th scope="col" { (t(T::DeskActions)) }
                    } }
                    tbody {
                        @for p in &tour.data.players {
                            @let ids: Vec<&str> = [p.egf_pin.as_str(), p.ffg_licence.as_str(), p.aga_id.as_str()]
                                .into_iter().filter(|s| !s.is_empty()).collect();
                            tr data-pid=(p.id) data-player=(player_data(p))
                                class=[p.withdrawn_after.is_some().then_some("withdrawn")] {
                                td.num { (p.id) }
                                th scope="row" { a href={"/t/" (tid) "/player/" (p.id)} { (full_name(p)) } }
                                td { (format_rank(p.rank)) }
                                td.num.wide-only { (p.rating) }
                                td.wide-only { (p.club) }
                                td.wide-only { (p.country) }
                                td.wide-only.ids { (ids.join(" · ")) }
                                td.status { (status_text(p)) }
                                td.actions {
                                    button.desk-edit type="button" { (t(T::DeskEdit)) }
                                    @if p.withdrawn_after.is_some() {
                                        button.desk-reinstate type="button" { (t(T::DeskReinstate)) }
                                    } @else {
                                        button.desk-withdraw type="button" { (t(T::DeskWithdraw)) }
                                    }
                                    form.desk-skip {
                                        @let id = format!("skip-{}", p.id);
                                        label for=(id) { (t(T::DeskAbsentLabel)) }
                                        input id=(id) type="text" inputmode="numeric" size="6"
                                            value=(p.skip.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(", "));
                                        button type="submit" { (t(T::Set)) }
                                        small.field-error role="alert" {}
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The quick result entry of round `r` (director mode only): a table number, then a key.
pub fn quick_entry(tid: TournamentId, r: RoundNumber, rd: &Round) -> Markup {
    let games: serde_json::Map<String, Value> = rd
        .games
        .iter()
        .map(|g| {
            (
                g.table.to_string(),
                Value::from(result_code(g.outcome, g.forfeit)),
            )
        })
        .collect();
    let labels: serde_json::Map<String, Value> = RESULT_CHOICES
        .iter()
        .map(|(c, l)| ((*c).to_string(), Value::from(*l)))
        .collect();
    html! {
        section #quick-box.quick.director-only aria-labelledby="quick-h" data-tid=(tid) data-round=(r)
            data-games=(Value::Object(games).to_string()) data-labels=(Value::Object(labels).to_string())
            data-desk-text=(script_strings()) {
            h2 #quick-h { (t(T::QuickTitle)) }
            div.quick-row {
                label for="quick" { (t(T::QuickLabel)) }
                input #quick type="text" autocomplete="off" autocapitalize="off" spellcheck="false"
                    size="8" aria-describedby="quick-keys quick-msg";
                button #quick-undo type="button" disabled { (t(T::QuickUndo)) }
            }
            p #quick-keys.hint {
                kbd { "w" } " " (t(T::QuickKeyW)) " · " kbd { "b" } " " (t(T::QuickKeyB)) " · "
                kbd { "j" } " " (t(T::Jigo)) " · " kbd { "f" } kbd { "w" } " / " kbd { "f" } kbd { "b" } " "
                (t(T::QuickKeyF)) " · " kbd { "x" } " " (t(T::QuickKeyX)) " · " kbd { "u" } " " (t(T::QuickKeyU))
            }
            p #quick-msg role="status" aria-live="polite" {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_text_joins_runs() {
        assert_eq!(rounds_text(&[]), "");
        assert_eq!(rounds_text(&[2]), "2");
        assert_eq!(rounds_text(&[1, 2, 3, 5, 7, 8]), "1–3, 5, 7–8");
    }

    #[test]
    fn half_points_reads_as_points() {
        assert_eq!(half_points(0), "0");
        assert_eq!(half_points(1), "0.5");
        assert_eq!(half_points(2), "1");
    }
}
