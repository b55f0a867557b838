//! The languages of the pages (Accept-Language, the switcher's `?lang=` and its cookie) and
//! the set-up form's routes and check method over HTTP: `/new`, `/t/{id}/settings`, the
//! form's script, and `tournament.settings.check` judging as create / settings.set do.

use crate::common;

use common::{Server, client};
use serde_json::{Value, json};

const ADMIN: &str = "setup-admin-token";

async fn rpc(c: &reqwest::Client, server: &Server, method: &str, params: Value) -> Value {
    common::rpc::jsonrpc(c, &server.url("/jsonrpc"), method, params).await
}

async fn ok(c: &reqwest::Client, server: &Server, method: &str, params: Value) -> Value {
    let v = rpc(c, server, method, params).await;
    v.get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method}: {v}"))
}

/// A page fetched with `headers`: status, `Set-Cookie`, body.
async fn page(
    c: &reqwest::Client,
    server: &Server,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, Option<String>, String) {
    let mut req = c.get(server.url(path));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let r = req.send().await.expect("get");
    let status = r.status().as_u16();
    let cookie = r
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    (status, cookie, r.text().await.expect("body"))
}

#[tokio::test]
async fn pages_follow_accept_language_the_switcher_and_its_cookie() {
    let server = Server::start().await;
    let c = client();
    let id = ok(
        &c,
        &server,
        "tournament.create",
        json!([{"name": "Languages Open", "rounds": 3}]),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let standings = format!("/t/{id}/standings");

    let (_, _, fr) = page(&c, &server, &standings, &[("Accept-Language", "fr")]).await;
    assert!(fr.contains(r#"<html lang="fr">"#), "{fr}");
    assert!(fr.contains("Classement avant la première ronde"), "{fr}");
    assert!(fr.contains(">Grille croisée<"), "{fr}");

    let (_, _, de) = page(
        &c,
        &server,
        &standings,
        &[("Accept-Language", "de-CH,de;q=0.9")],
    )
    .await;
    assert!(de.contains(r#"<html lang="de">"#), "{de}");
    assert!(de.contains("Tabelle vor der ersten Runde"), "{de}");
    assert!(de.contains(">Kreuztabelle<"), "{de}");

    // Quality values: French is preferred over German here.
    let (_, _, q) = page(
        &c,
        &server,
        &format!("/t/{id}"),
        &[("Accept-Language", "de;q=0.4, fr;q=0.8, en;q=0.1")],
    )
    .await;
    assert!(q.contains(r#"<html lang="fr">"#));
    assert!(
        q.contains(">Appariements<") || q.contains(">Rondes<"),
        "{q}"
    );

    for unknown in ["ja, it;q=0.5", "*", ""] {
        let (_, _, en) = page(&c, &server, &standings, &[("Accept-Language", unknown)]).await;
        assert!(en.contains(r#"<html lang="en">"#), "{unknown}");
        assert!(en.contains("Standings before the first round"), "{unknown}");
    }
    let (_, _, none) = page(&c, &server, &standings, &[]).await;
    assert!(none.contains(r#"<html lang="en">"#));

    // The switcher: a link per language on every page, the current one marked.
    for path in [
        "/",
        "/new",
        standings.as_str(),
        &format!("/t/{id}/crosstable"),
    ] {
        let (_, _, body) = page(&c, &server, path, &[("Accept-Language", "de")]).await;
        for l in ["en", "fr", "de"] {
            assert!(
                body.contains(&format!(r#"href="?lang={l}""#)),
                "{path}: {l}"
            );
        }
        assert!(
            body.contains(r#"href="?lang=de" lang="de" hreflang="de" aria-current="true""#),
            "{path}"
        );
    }

    // ?lang= wins over the header and sets the cookie; the cookie then wins over the header.
    let (_, cookie, body) = page(
        &c,
        &server,
        &format!("{standings}?lang=de"),
        &[("Accept-Language", "fr")],
    )
    .await;
    assert!(body.contains(r#"<html lang="de">"#));
    let cookie = cookie.expect("the switcher's choice is kept in a cookie");
    assert!(cookie.starts_with("goswiss_lang=de;"), "{cookie}");
    assert!(cookie.contains("Path=/"), "{cookie}");
    let (_, again, body) = page(
        &c,
        &server,
        &format!("/t/{id}"),
        &[("Accept-Language", "fr"), ("Cookie", "goswiss_lang=de")],
    )
    .await;
    assert!(body.contains(r#"<html lang="de">"#));
    assert!(again.is_none(), "the cookie is only set by the switcher");
    // An unknown language in the link is ignored: the header decides.
    let (status, cookie, body) = page(
        &c,
        &server,
        &format!("{standings}?lang=xx"),
        &[("Accept-Language", "fr")],
    )
    .await;
    assert_eq!(status, 200);
    assert!(cookie.is_none());
    assert!(body.contains(r#"<html lang="fr">"#));

    // Error pages too.
    let (status, _, body) = page(&c, &server, "/t/999999", &[("Accept-Language", "de")]).await;
    assert_eq!(status, 404);
    assert!(body.contains("Nicht gefunden"), "{body}");
}

#[tokio::test]
async fn the_new_and_settings_forms_are_served_and_filled() {
    let server = Server::start().await;
    let c = client();
    let (status, _, home) = page(&c, &server, "/", &[]).await;
    assert_eq!(status, 200);
    assert!(
        home.contains(r#"href="/new""#),
        "the home page links the form"
    );

    let (status, _, new) = page(&c, &server, "/new", &[("Accept-Language", "fr")]).await;
    assert_eq!(status, 200);
    assert!(
        new.contains(r#"<form id="setup" novalidate data-keep data-mode="new""#),
        "{new}"
    );
    assert!(new.contains("Nouveau tournoi"));
    for path in [
        "settings.name",
        "settings.short_name",
        "settings.begin_date",
        "settings.end_date",
        "settings.country",
        "settings.location",
        "settings.rounds",
        "settings.system",
        "settings.mcmahon.bar",
        "settings.mcmahon.floor",
        "settings.handicap.correction",
        "settings.handicap.ceiling",
        "settings.komi2",
        "settings.placement",
        "settings.time.basic_minutes",
        "settings.time.overtime",
        "settings.time.overtime.periods",
        "settings.time.overtime.seconds",
    ] {
        assert!(new.contains(&format!(r#"data-path="{path}""#)), "{path}");
    }
    // McMahon's defaults, ranks as text, and the admin token field (no tournament yet).
    assert!(new.contains(r#"value="4D""#) && new.contains(r#"value="20K""#));
    assert!(new.contains(r#"id="f-admin""#));
    let js = new
        .split(r#"<script src=""#)
        .filter_map(|s| s.split('"').next())
        .find(|s| s.starts_with("/assets/setup.js?v="))
        .expect("the form's script")
        .to_string();
    let r = c.get(server.url(&js)).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(
        r.headers()["content-type"],
        "text/javascript; charset=utf-8"
    );
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("tournament.settings.check")
    );

    let id = ok(
        &c,
        &server,
        "tournament.create",
        json!([{"name": "Filled <b>Open</b>", "rounds": 4, "system": "swiss", "country": "CH",
                "location": "Bern", "mcmahon": {"bar": "2d", "floor": "15k"},
                "time": {"basic_minutes": 90, "overtime": {"kind": "canadian", "stones": 15, "seconds": 300}}}]),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let (status, _, edit) = page(&c, &server, &format!("/t/{id}/settings"), &[]).await;
    assert_eq!(status, 200);
    assert!(edit.contains(&format!(r#"data-mode="edit" data-tid="{id}""#)));
    assert!(
        edit.contains(r#"value="Filled &lt;b&gt;Open&lt;/b&gt;""#),
        "escaped"
    );
    assert!(!edit.contains("<b>Open"));
    assert!(edit.contains(r#"value="2D""#) && edit.contains(r#"value="15K""#));
    assert!(edit.contains(r#"<option value="swiss" selected>"#));
    assert!(edit.contains(r#"<option value="canadian" selected>"#));
    assert!(edit.contains(r#"value="CH""#) && edit.contains(r#"value="Bern""#));
    assert!(!edit.contains(r#"id="f-admin""#));
    // 90 min + 15 stones / 5 min: class A, shown before any script runs.
    assert!(
        edit.contains(r#"<output id="egf-class" aria-live="polite">A</output>"#),
        "{edit}"
    );

    let (status, _, _) = page(&c, &server, "/t/424242/settings", &[]).await;
    assert_eq!(status, 404);
    let (status, _, _) = page(&c, &server, "/t/abc/settings", &[]).await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn the_check_judges_as_create_and_settings_set_do() {
    let server = Server::start().await;
    let c = client();
    let check = |settings: Value, opts: Value| {
        let (c, server) = (&c, &server);
        async move {
            ok(
                c,
                server,
                "tournament.settings.check",
                json!([settings, opts]),
            )
            .await
        }
    };

    let good = check(
        json!({"name": "A", "mcmahon": {"bar": "3d", "floor": "20k"}}),
        json!({}),
    )
    .await;
    assert_eq!(good["ok"], true, "{good}");
    assert_eq!(good["settings"]["mcmahon"]["bar"], 2, "3d");
    // The class is the .h9 export's: the same function on the same settings.
    let settings: goswiss::tournament::model::Settings =
        serde_json::from_value(good["settings"].clone()).expect("settings");
    assert_eq!(
        good["egf_class"],
        goswiss::tournament::formats::egf::egf_class(&settings).to_string()
    );

    // A bad rank: refused with its path, as create refuses it.
    let bad = check(json!({"mcmahon": {"bar": "3x"}}), json!({})).await;
    assert_eq!(bad["ok"], false);
    assert_eq!(bad["field"], "settings.mcmahon.bar", "{bad}");
    let created = rpc(
        &c,
        &server,
        "tournament.create",
        json!([{"mcmahon": {"bar": "3x"}}]),
    )
    .await;
    assert_eq!(
        created["error"]["message"], bad["message"],
        "the same words as create"
    );
    // A misspelt setting is an error, not ignored.
    let typo = check(json!({"mcmahon": {"barr": "3d"}}), json!({})).await;
    assert_eq!(typo["ok"], false);
    assert!(
        typo["field"]
            .as_str()
            .unwrap()
            .starts_with("settings.mcmahon"),
        "{typo}"
    );
    // The engine's own checks (bar below floor, a bad country code) name their fields too.
    let below = check(json!({"mcmahon": {"bar": "20k", "floor": "3d"}}), json!({})).await;
    assert_eq!(below["field"], "settings.mcmahon.bar", "{below}");
    let country = check(json!({"country": "FRA"}), json!({})).await;
    assert_eq!(country["field"], "settings.country", "{country}");
    let crit = check(json!({"placement": ["MMS", "SOSX"]}), json!({})).await;
    assert_eq!(crit["ok"], false);
    assert!(
        crit["field"]
            .as_str()
            .unwrap()
            .starts_with("settings.placement"),
        "{crit}"
    );
    // The class moves with the time control (the .h9 export's own function).
    let short = check(
        json!({"time": {"basic_minutes": 10, "overtime": {"kind": "sudden_death"}}}),
        json!({}),
    )
    .await;
    assert_eq!(short["egf_class"], "X");
    // Nothing was created by any check.
    assert_eq!(
        ok(&c, &server, "tournament.list", json!([])).await,
        json!([])
    );
    // Bad parameters are RPC errors.
    let unknown_opt = rpc(
        &c,
        &server,
        "tournament.settings.check",
        json!([{}, {"tournament": 1}]),
    )
    .await;
    assert_eq!(unknown_opt["error"]["code"], -32602, "{unknown_opt}");

    // On a tournament: what changes, and what alters the rounds already paired.
    let id = ok(
        &c,
        &server,
        "tournament.create",
        json!([{"name": "Played", "rounds": 3}]),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    for (n, r) in [("A", "3d"), ("B", "1k"), ("C", "5k"), ("D", "9k")] {
        ok(
            &c,
            &server,
            "tournament.player.add",
            json!([id, {"name": n, "first_name": "X", "rank": r}]),
        )
        .await;
    }
    let before = check(
        json!({"mcmahon": {"bar": "1d"}}),
        json!({"tournament_id": id}),
    )
    .await;
    assert_eq!(before["ok"], true);
    assert_eq!(before["changed"], json!(["mcmahon.bar"]));
    assert_eq!(before["alters_played"], json!([]), "no round paired yet");
    ok(&c, &server, "tournament.round.pair", json!([id, 1])).await;
    let after = check(
        json!({"mcmahon": {"bar": "1d"}, "name": "Played (renamed)"}),
        json!({"tournament_id": id}),
    )
    .await;
    assert_eq!(after["paired_rounds"], 1);
    assert_eq!(after["alters_played"], json!(["mcmahon.bar"]), "{after}");
    // The form leaves OpenGotha's empty (NULL) slots out: not a change of placement.
    let placement: Vec<Value> =
        ok(&c, &server, "tournament.get", json!([id])).await["settings"]["placement"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| *c != "NULL")
            .cloned()
            .collect();
    let same = check(
        json!({"placement": placement}),
        json!({"tournament_id": id}),
    )
    .await;
    assert_eq!(same["changed"], json!([]), "{same}");
    let name_only = check(json!({"name": "Renamed"}), json!({"tournament_id": id})).await;
    assert_eq!(name_only["alters_played"], json!([]));
    // settings.set's own refusal (fewer rounds than paired) is the check's too.
    let fewer = check(json!({"rounds": 0}), json!({"tournament_id": id})).await;
    assert_eq!(fewer["field"], "settings.rounds", "{fewer}");
    // The check stored nothing.
    let t = ok(&c, &server, "tournament.get", json!([id])).await;
    assert_eq!(t["settings"]["mcmahon"]["bar"], 3);
    let missing = rpc(
        &c,
        &server,
        "tournament.settings.check",
        json!([{}, {"tournament_id": 999999}]),
    )
    .await;
    assert_eq!(missing["error"]["code"], 1001, "{missing}");
}

#[tokio::test]
async fn with_auth_on_the_check_is_open_and_creating_needs_the_admin_token() {
    let server = Server::start_with(goswiss::config::Config {
        admin_token: goswiss::config::Secret(ADMIN.into()),
        ..goswiss::config::Config::default()
    })
    .await;
    let c = client();
    // The form's check writes nothing, so it needs no token.
    let r = ok(
        &c,
        &server,
        "tournament.settings.check",
        json!([{"name": "Open"}]),
    )
    .await;
    assert_eq!(r["ok"], true);
    // Creating without the token: refused (the page shows the message), nothing created.
    let refused = rpc(&c, &server, "tournament.create", json!([{"name": "Open"}])).await;
    assert_eq!(refused["error"]["code"], -32010, "{refused}");
    let (status, _, body) = page(&c, &server, "/new", &[]).await;
    assert_eq!(status, 200);
    assert!(body.contains(r#"id="f-admin""#));
    // The edit form is served to anyone, but saving it needs the director's token.
    let created: Value = c
        .post(server.url("/jsonrpc"))
        .bearer_auth(ADMIN)
        .json(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tournament.create",
                      "params": [{"name": "Closed"}]}),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["result"]["id"].as_i64().expect("created");
    let token = created["result"]["director_token"].as_str().unwrap();
    let (status, _, body) = page(&c, &server, &format!("/t/{id}/settings"), &[]).await;
    assert_eq!(status, 200);
    assert!(!body.contains(token), "no token in the page");
    let set = rpc(
        &c,
        &server,
        "tournament.settings.set",
        json!([id, {"name": "Taken over"}]),
    )
    .await;
    assert_eq!(set["error"]["code"], -32010, "{set}");
    let t = ok(&c, &server, "tournament.get", json!([id])).await;
    assert_eq!(t["settings"]["name"], "Closed");
}
