//! The tournament set-up form: creating a tournament from the home page (`/new`) and editing
//! its settings later with the same form (`/t/{id}/settings`).
//!
//! The form only gathers what is typed; the daemon judges it. `assets/setup.js` sends the
//! form's settings to `tournament.settings.check` as fields change and shows the refusal next
//! to the field its path names, with the EGF class the settings imply (the `.h9` export's own
//! `egf_class`); submitting calls `tournament.create` or `tournament.settings.set`, the same
//! methods (and checks) as any client. No rule is written twice.

use maud::{Markup, html};

use crate::pairing::opengotha::Crit;
use crate::store::TournamentId;
use crate::tournament::Tournament;
use crate::tournament::formats::egf::egf_class;
use crate::tournament::model::{Overtime, Settings, System, format_rank};

use super::pages::{Nav, Page};
use super::text::{T, t};

/// Komi in half points as the form shows it, in points ("7.5", "0.5", "6").
fn points(komi2: i32) -> String {
    if komi2 % 2 == 0 {
        (komi2 / 2).to_string()
    } else {
        format!("{}", f64::from(komi2) / 2.0)
    }
}

fn system_code(s: System) -> &'static str {
    match s {
        System::Mcmahon => "mcmahon",
        System::Swiss => "swiss",
        System::Swisscat => "swisscat",
        System::Cup => "cup",
    }
}

/// One labelled field: the input with its path, and the place for its message.
fn field(id: &str, label: T, input: Markup, hint: Option<T>) -> Markup {
    html! {
        div.field {
            label for=(id) { (t(label)) }
            (input)
            @if let Some(h) = hint { small #{"hint-" (id)} { (t(h)) } }
            p.field-error #{"err-" (id)} aria-live="polite" {}
        }
    }
}

fn text_input(id: &str, path: &str, kind: &str, value: &str, extra: &str) -> Markup {
    html! {
        input #(id) name=(id) type=(if extra == "date" { "date" } else { "text" })
            data-path=(path) data-kind=(kind) value=(value)
            aria-describedby={"err-" (id) " hint-" (id)}
            autocomplete="off";
    }
}

fn number_input(id: &str, path: &str, kind: &str, value: &str) -> Markup {
    html! {
        input #(id) name=(id) type="text" inputmode="decimal" data-path=(path) data-kind=(kind)
            value=(value) aria-describedby={"err-" (id) " hint-" (id)} autocomplete="off";
    }
}

/// The form, empty (a new tournament: McMahon's defaults) or filled with `tour`'s settings.
pub fn form(existing: Option<(TournamentId, &Tournament)>) -> Page {
    let defaults = Settings::defaults(System::Mcmahon);
    let s = existing.map_or(&defaults, |(_, tour)| &tour.data.settings);
    let paired = existing.map_or(0, |(_, tour)| tour.paired_rounds());
    let (over_kind, periods, seconds) = match &s.time.overtime {
        Overtime::SuddenDeath => ("sudden_death", 0, 0),
        Overtime::Byoyomi { seconds, periods } => ("byoyomi", *periods, *seconds),
        Overtime::Canadian { stones, seconds } => ("canadian", *stones, *seconds),
        Overtime::Fischer { increment } => ("fischer", 0, *increment),
    };
    let rule = if s.handicap.ceiling == 0 {
        "none".to_string()
    } else {
        s.handicap.correction.to_string()
    };
    let title = match existing {
        None => t(T::NewTournament).to_string(),
        Some(_) => t(T::EditSettings).to_string(),
    };
    let body = html! {
        h1 { (title) }
        @if paired > 0 {
            p.notice { (t(T::PairedNote)) " " (paired) "." }
        }
        // data-keep: the page script does not re-fetch this page (its script holds the form).
        form #setup novalidate data-keep
            data-mode=(if existing.is_some() { "edit" } else { "new" })
            data-tid=[existing.map(|(id, _)| id)]
            data-label-up=(t(T::MoveUp)) data-label-down=(t(T::MoveDown))
            data-label-remove=(t(T::Remove)) {
            fieldset {
                legend { (t(T::FsGeneral)) }
                (field("f-name", T::Name, text_input("f-name", "settings.name", "text", &s.name, ""), None))
                (field("f-short", T::ShortName, text_input("f-short", "settings.short_name", "text", &s.short_name, ""), Some(T::ShortNameHint)))
                div.row {
                    (field("f-begin", T::BeginDate, text_input("f-begin", "settings.begin_date", "text", &s.begin_date, "date"), None))
                    (field("f-end", T::EndDate, text_input("f-end", "settings.end_date", "text", &s.end_date, "date"), None))
                }
                div.row {
                    (field("f-country", T::CountryCode, text_input("f-country", "settings.country", "text", &s.country, ""), Some(T::CountryHint)))
                    (field("f-city", T::City, text_input("f-city", "settings.location", "text", &s.location, ""), None))
                }
                (field("f-rounds", T::NumberOfRounds, number_input("f-rounds", "settings.rounds", "int", &s.rounds.to_string()), None))
            }
            fieldset {
                legend { (t(T::FsPairing)) }
                div.field {
                    label for="f-system" { (t(T::System)) }
                    select #f-system data-path="settings.system" data-kind="text" aria-describedby="err-f-system" {
                        @for (v, label) in [("mcmahon", T::SystemMcMahon), ("swiss", T::SystemSwiss), ("swisscat", T::SystemSwissCat)] {
                            option value=(v) selected[system_code(s.system) == v] { (t(label)) }
                        }
                    }
                    p.field-error #err-f-system aria-live="polite" {}
                }
                div.row {
                    (field("f-bar", T::McMahonBar, text_input("f-bar", "settings.mcmahon.bar", "text", &format_rank(s.mcmahon.bar), ""), Some(T::RankHint)))
                    (field("f-floor", T::McMahonFloor, text_input("f-floor", "settings.mcmahon.floor", "text", &format_rank(s.mcmahon.floor), ""), Some(T::RankHint)))
                }
            }
            fieldset {
                legend { (t(T::Handicap)) }
                div.row {
                    div.field {
                        label for="f-hrule" { (t(T::HandicapRule)) }
                        select #f-hrule data-path="settings.handicap.correction" data-kind="hrule" aria-describedby="err-f-hrule" {
                            option value="none" selected[rule == "none"] { (t(T::HandicapNone)) }
                            @for c in 0..=3 {
                                option value=(c) selected[rule == c.to_string()] {
                                    (t(T::HandicapMms)) @if c > 0 { " − " (c) }
                                }
                            }
                        }
                        p.field-error #err-f-hrule aria-live="polite" {}
                    }
                    (field("f-ceiling", T::HandicapCeiling, number_input("f-ceiling", "settings.handicap.ceiling", "int", &s.handicap.ceiling.max(if rule == "none" { 9 } else { 0 }).to_string()), None))
                }
                div.row {
                    (field("f-komi", T::Komi, number_input("f-komi", "settings.komi2", "komi", &points(s.komi2)), None))
                    (field("f-hkomi", T::HandicapKomi, number_input("f-hkomi", "settings.handicap_komi2", "komi", &points(s.handicap_komi2)), None))
                }
            }
            fieldset #criteria data-path="settings.placement" {
                legend { (t(T::Criteria)) }
                ol #crit-list aria-describedby="err-criteria" {
                    // NULL places nobody: OpenGotha's empty slots are not shown.
                    @for c in s.placement.iter().filter(|c| c.0 != Crit::Nul) {
                        li data-crit=(c.0.name()) {
                            span.crit { (c.0.name()) }
                            button.up type="button" aria-label={(t(T::MoveUp)) " " (c.0.name())} { "↑" }
                            button.down type="button" aria-label={(t(T::MoveDown)) " " (c.0.name())} { "↓" }
                            button.remove type="button" aria-label={(t(T::Remove)) " " (c.0.name())} { "✕" }
                        }
                    }
                }
                div.row.add-crit {
                    label for="f-crit-add" { (t(T::CriteriaAdd)) }
                    select #f-crit-add {
                        @for name in Crit::names().filter(|n| *n != "NULL") {
                            option value=(name) { (name) }
                        }
                    }
                    button #crit-add type="button" { (t(T::Add)) }
                }
                p.field-error #err-criteria aria-live="polite" {}
            }
            fieldset {
                legend { (t(T::TimeSystem)) }
                div.row {
                    (field("f-main", T::MainTime, number_input("f-main", "settings.time.basic_minutes", "int", &s.time.basic_minutes.to_string()), None))
                    div.field {
                        label for="f-okind" { (t(T::OvertimeKind)) }
                        select #f-okind data-path="settings.time.overtime" data-kind="text" aria-describedby="err-f-okind" {
                            @for (v, label) in [("byoyomi", T::OvertimeByoyomi), ("canadian", T::OvertimeCanadian), ("fischer", T::OvertimeFischer), ("sudden_death", T::OvertimeSudden)] {
                                option value=(v) selected[over_kind == v] { (t(label)) }
                            }
                        }
                        p.field-error #err-f-okind aria-live="polite" {}
                    }
                }
                div.row {
                    (field("f-periods", T::Periods, number_input("f-periods", "settings.time.overtime.periods", "int", &periods.to_string()), Some(T::PeriodsHint)))
                    (field("f-seconds", T::Seconds, number_input("f-seconds", "settings.time.overtime.seconds", "int", &seconds.to_string()), Some(T::SecondsHint)))
                }
                p.egf { (t(T::EgfClass)) ": " output #egf-class aria-live="polite" { (egf_class(s)) } }
            }
            @if existing.is_none() {
                fieldset {
                    legend { (t(T::AdminToken)) }
                    (field("f-admin", T::AdminToken, html! {
                        input #f-admin type="password" autocomplete="off" aria-describedby="err-f-admin hint-f-admin";
                    }, Some(T::AdminTokenHint)))
                }
            } @else {
                fieldset.director-token {
                    legend { (t(T::DirectorTokenLabel)) }
                    (field("f-token", T::DirectorTokenLabel, html! {
                        input #f-token type="password" autocomplete="off" aria-describedby="err-f-token hint-f-token";
                    }, Some(T::DirectorTokenHint)))
                }
            }
            p.field-error #err-form aria-live="polite" {}
            div #confirm.notice hidden {
                p #confirm-text { (t(T::AltersPlayed)) }
                ul #confirm-list {}
                button #confirm-yes type="button" { (t(T::ApplyAnyway)) }
                " "
                button #confirm-no type="button" { (t(T::Cancel)) }
            }
            div.actions {
                button #setup-submit type="submit" {
                    (if existing.is_some() { t(T::SaveSettings) } else { t(T::CreateTournament) })
                }
            }
        }
        section #token-box.token-box hidden aria-labelledby="token-h" {
            h2 #token-h { (t(T::TokenShown)) }
            p { code #new-token {} " " button #copy-token type="button" { (t(T::Copy)) } " " span #copied aria-live="polite" {} }
            p { (t(T::TokenAdvice)) }
            p { a.button #go-tournament href="/" { (t(T::GoToTournament)) } }
        }
        div #setup-text hidden data-copied=(t(T::Copied)) data-errors=(t(T::FormHasErrors)) {}
        script src=(super::assets::setup_js_url()) defer {}
    };
    Page {
        title,
        tournament: existing.map(|(id, tour)| (id, tour.data.settings.name.clone(), paired)),
        nav: if existing.is_some() {
            Nav::Other
        } else {
            Nav::List
        },
        live: false,
        body,
    }
}
