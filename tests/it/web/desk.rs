//! The director's desk (issue 31, items 2, 3 and 5): the registration desk and check-in page
//! `/t/{id}/desk` and the quick result entry on a round's pairings, over HTTP (status,
//! content, escaping, what a viewer without the token gets) and in headless Chromium driven
//! by keys and clicks as a director uses them: players found in an imported EGF excerpt or
//! typed (é, ü, ő, Japanese, Korean), a field error from the daemon, duplicate warnings, a
//! withdrawal, an absence for a chosen round, the check-in by keyboard, pairing, and results
//! by table number. State is read back over RPC to compare. Screenshots (desktop and phone)
//! are saved under `target/web-screenshots/` to look at, never compared.

use crate::common;
use crate::common::browser;

use std::path::PathBuf;
use std::time::Duration;

use base64::Engine as _;
use browser::Browser;
use common::{Server, client};
use serde_json::{Value, json};

const EVIL: &str = "<script>alert(1)</script>";
const ADMIN: &str = "admin-token-for-the-desk-test-42";
/// A bound only a hang reaches; the waits poll and return as soon as the page shows it.
const LIMIT: Duration = Duration::from_secs(60);

/// WebDriver key codes.
const ENTER: &str = "\u{E007}";
const ESCAPE: &str = "\u{E00C}";
const SPACE: &str = "\u{E00D}";
const DOWN: &str = "\u{E015}";

async fn call(req: reqwest::RequestBuilder, method: &str, params: Value) -> Value {
    req.json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .send()
        .await
        .expect("send")
        .json()
        .await
        .expect("reply")
}

async fn rpc(c: &reqwest::Client, s: &Server, method: &str, params: Value) -> Value {
    let v = call(c.post(s.url("/jsonrpc")), method, params).await;
    v.get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method}: {v}"))
}

async fn rpc_as(c: &reqwest::Client, s: &Server, tok: &str, method: &str, p: Value) -> Value {
    let v = call(c.post(s.url("/jsonrpc")).bearer_auth(tok), method, p).await;
    v.get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method}: {v}"))
}

async fn get(c: &reqwest::Client, s: &Server, path: &str, tok: Option<&str>) -> (u16, String) {
    let mut req = c.get(s.url(path));
    if let Some(t) = tok {
        req = req.bearer_auth(t);
    }
    let r = req.send().await.expect("get");
    (r.status().as_u16(), r.text().await.expect("body"))
}

async fn create(c: &reqwest::Client, s: &Server, rounds: u32) -> i64 {
    rpc(
        c,
        s,
        "tournament.create",
        json!([{"name": "Desk Open", "rounds": rounds, "board_size": 9}]),
    )
    .await["id"]
        .as_i64()
        .expect("id")
}

async fn add(c: &reqwest::Client, s: &Server, id: i64, p: Value) -> i64 {
    rpc(c, s, "tournament.player.add", json!([id, p])).await["player_id"]
        .as_i64()
        .expect("player id")
}

#[tokio::test]
async fn the_desk_lists_players_with_their_status_and_escapes_names() {
    let s = Server::start().await;
    let c = client();
    let id = create(&c, &s, 4).await;
    let evil = add(
        &c,
        &s,
        id,
        json!({"name": EVIL, "first_name": "X", "rank": "3k", "egf_pin": "12345678"}),
    )
    .await;
    let gone = add(
        &c,
        &s,
        id,
        json!({"name": "Gone", "first_name": "Ann", "rank": "1d"}),
    )
    .await;
    let away = add(
        &c,
        &s,
        id,
        json!({"name": "Away", "first_name": "Bob", "rank": "2k"}),
    )
    .await;
    rpc(&c, &s, "tournament.player.withdraw", json!([id, gone])).await;
    rpc(
        &c,
        &s,
        "tournament.player.set_participation",
        json!([id, away, [1, 3]]),
    )
    .await;

    let (status, page) = get(&c, &s, &format!("/t/{id}/desk"), None).await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("<!DOCTYPE html>"), "a whole document");
    assert!(
        page.contains("/assets/desk.js?v="),
        "the desk script is loaded"
    );
    assert!(!page.contains(EVIL), "a typed name is escaped");
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(page.contains("id=\"desk-form\""), "the registration form");
    for f in [
        "name",
        "first_name",
        "rank",
        "rating",
        "club",
        "country",
        "egf_pin",
        "ffg_licence",
        "aga_id",
    ] {
        assert!(page.contains(&format!("id=\"f-{f}\"")), "field {f}");
        assert!(
            page.contains(&format!("id=\"err-{f}\"")),
            "error place of {f}"
        );
    }
    assert!(page.contains("withdrawn before round 1"), "the withdrawal");
    assert!(page.contains("absent in rounds 1, 3"), "the absent rounds");
    // Check-in for round 1: the withdrawn player is not listed; the absent one is unticked.
    assert!(page.contains("Check-in for round 1"));
    assert!(
        page.contains("data-present=\"1\" data-total=\"2\""),
        "{page}"
    );
    assert!(page.contains(&format!(
        "id=\"ci-{evil}\" role=\"option\" aria-selected=\"true\""
    )));
    assert!(page.contains(&format!(
        "id=\"ci-{away}\" role=\"option\" aria-selected=\"false\""
    )));
    assert!(!page.contains(&format!("id=\"ci-{gone}\"")));
    // No late-entry notice before a round is paired.
    assert!(!page.contains("Late entry"));

    // The fragment only, for the script's refresh.
    let (status, frag) = get(&c, &s, &format!("/t/{id}/desk?fragment=1"), None).await;
    assert_eq!(status, 200);
    assert!(!frag.contains("<html") && frag.contains("id=\"desk-players\""));

    // After round 1 is paired: the late-entry notice, check-in for round 2.
    rpc(&c, &s, "tournament.round.pair", json!([id, 1])).await;
    let (_, page) = get(&c, &s, &format!("/t/{id}/desk"), None).await;
    assert!(page.contains("Late entry"), "the late-entry notice");
    assert!(page.contains("Check-in for round 2"));
    assert!(page.contains("1 withdrawn players are not listed"));

    // Errors.
    assert_eq!(get(&c, &s, "/t/999/desk", None).await.0, 404);
    assert_eq!(get(&c, &s, "/t/abc/desk", None).await.0, 400);
    s.stop().await;
}

#[tokio::test]
async fn withdrawn_players_are_shown_as_withdrawn_on_the_public_pages() {
    let s = Server::start().await;
    let c = client();
    let id = create(&c, &s, 3).await;
    let mut ids = Vec::new();
    for (k, rank) in ["4d", "2d", "1k", "3k"].iter().enumerate() {
        ids.push(
            add(
                &c,
                &s,
                id,
                json!({"name": format!("P{k}"), "first_name": "A", "rank": rank}),
            )
            .await,
        );
    }
    rpc(&c, &s, "tournament.round.pair", json!([id, 1])).await;
    let marker = "class=\"tag withdrawn\"";
    let (_, before) = get(&c, &s, &format!("/t/{id}/standings"), None).await;
    assert!(!before.contains(marker), "nobody withdrawn yet");
    rpc(&c, &s, "tournament.player.withdraw", json!([id, ids[3]])).await;
    for path in [
        format!("/t/{id}/standings"),
        format!("/t/{id}"),
        format!("/t/{id}/player/{}", ids[3]),
    ] {
        let (status, page) = get(&c, &s, &path, None).await;
        assert_eq!(status, 200);
        assert_eq!(page.matches(marker).count(), 1, "{path}: {page}");
    }
    // After round 1 the withdrawn player's later rounds say so, not "absent".
    rpc(&c, &s, "tournament.round.pair", json!([id, 2])).await;
    let (_, page) = get(&c, &s, &format!("/t/{id}/player/{}", ids[3]), None).await;
    assert!(page.contains("<td colspan=\"5\">withdrawn</td>"), "{page}");
    s.stop().await;
}

#[tokio::test]
async fn the_round_page_carries_the_quick_entry_with_its_tables() {
    let s = Server::start().await;
    let c = client();
    let id = create(&c, &s, 3).await;
    for (k, rank) in ["4d", "2d", "1k", "3k"].iter().enumerate() {
        add(&c, &s, id, json!({"name": format!("Q{k}"), "rank": rank})).await;
    }
    let paired = rpc(&c, &s, "tournament.round.pair", json!([id, 1])).await;
    let t1 = paired["games"][0]["table"].as_u64().unwrap();
    rpc(&c, &s, "tournament.result.set", json!([id, 1, t1, "B+!"])).await;
    let (status, page) = get(&c, &s, &format!("/t/{id}/round/1"), None).await;
    assert_eq!(status, 200);
    assert!(page.contains("id=\"quick-box\""), "the quick entry");
    assert!(
        page.contains("class=\"quick director-only\""),
        "director mode only"
    );
    let games = page
        .split("data-games=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("data-games")
        .replace("&quot;", "\"");
    let games: Value = serde_json::from_str(&games).expect("JSON");
    assert_eq!(games[t1.to_string()], "B+!", "{games}");
    assert_eq!(games.as_object().unwrap().len(), 2, "{games}");
    // The keys are said on the screen.
    assert!(page.contains("<kbd>w</kbd> White wins"));
    assert!(page.contains("<kbd>x</kbd> both lose"));
    // The script is served.
    let r = c.get(s.url("/assets/desk.js")).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/javascript")
    );
    s.stop().await;
}

#[tokio::test]
async fn with_auth_on_the_desk_shows_nothing_and_changes_nothing_without_the_token() {
    let s = Server::start_with(goswiss::config::Config {
        admin_token: goswiss::config::Secret(ADMIN.into()),
        ..goswiss::config::Config::default()
    })
    .await;
    let c = client();
    let created = rpc_as(
        &c,
        &s,
        ADMIN,
        "tournament.create",
        json!([{"name": "Auth Desk", "rounds": 3}]),
    )
    .await;
    let id = created["id"].as_i64().unwrap();
    let dt = created["director_token"].as_str().unwrap().to_string();
    let pid = rpc_as(
        &c,
        &s,
        &dt,
        "tournament.player.add",
        json!([id, {"name": "Secret", "first_name": "Pin", "rank": "1d", "egf_pin": "87654321"}]),
    )
    .await["player_id"]
        .clone();
    let (status, public) = get(&c, &s, &format!("/t/{id}/desk"), None).await;
    assert_eq!(status, 200);
    assert!(
        public.contains("is for the tournament's director"),
        "{public}"
    );
    assert!(!public.contains("desk-form") && !public.contains("87654321"));
    let (_, director) = get(&c, &s, &format!("/t/{id}/desk"), Some(&dt)).await;
    assert!(director.contains("desk-form") && director.contains("87654321"));
    // What the desk's script would send, without the token: refused.
    for (method, params) in [
        ("tournament.player.add", json!([id, {"name": "Intruder"}])),
        ("tournament.player.set_participation", json!([id, pid, [1]])),
        ("tournament.player.withdraw", json!([id, pid])),
    ] {
        let v = call(c.post(s.url("/jsonrpc")), method, params).await;
        assert!(v.get("error").is_some(), "{method} without the token: {v}");
    }
    let players = rpc_as(&c, &s, &dt, "tournament.player.list", json!([id])).await;
    assert_eq!(players.as_array().unwrap().len(), 1);
    assert_eq!(players[0]["skip"], json!([]));
    s.stop().await;
}

// ---- Chromium ---------------------------------------------------------------------------------

fn shots() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/web-screenshots")
}

fn egf_excerpt() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/ratings/egf_db-2018-12-27-excerpt.txt"
    );
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// JavaScript that is true once the element `css` has text containing `want`.
fn has_text(css: &str, want: &str) -> String {
    format!(
        "var e = document.querySelector({}); return !!e && e.textContent.indexOf({}) >= 0;",
        serde_json::to_string(css).unwrap(),
        serde_json::to_string(want).unwrap()
    )
}

async fn players(c: &reqwest::Client, s: &Server, id: i64) -> Vec<Value> {
    rpc(c, s, "tournament.player.list", json!([id]))
        .await
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn by_name<'a>(ps: &'a [Value], name: &str) -> &'a Value {
    ps.iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no player {name} in {ps:?}"))
}

/// Polls `f` until it gives `want`, for at most `LIMIT`.
async fn until<F, Fut>(mut f: F, want: Value) -> Value
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Value>,
{
    let start = std::time::Instant::now();
    loop {
        let got = f().await;
        if got == want || start.elapsed() > LIMIT {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits for `script` to be true; on failure the test stops with what the page says.
async fn expect(b: &Browser, script: &str, what: &str) {
    if !b.wait_for(script, LIMIT).await {
        let said = b
            .exec(
                "return Array.prototype.map.call(document.querySelectorAll('#desk-msg, .field-error, .form-error, #quick-msg, #status, #desk-dup'), function (e) { return (e.id || e.className) + ': ' + e.textContent; }).join(' | ');",
                vec![],
            )
            .await;
        panic!("{what}: not shown within {LIMIT:?}; the page says {said}");
    }
}

/// Types one player into the empty form and adds them.
async fn type_player(b: &Browser, fields: &[(&str, &str)]) {
    for (k, v) in fields {
        b.type_into(&format!("#f-{k}"), v).await;
    }
    b.click("#desk-submit").await;
}

#[tokio::test]
async fn a_director_registers_checks_in_pairs_and_enters_results_with_the_keyboard() {
    let Some(b) = Browser::start("web_desk").await else {
        return;
    };
    let s = Server::start().await;
    let c = client();
    let id = create(&c, &s, 3).await;
    rpc(
        &c,
        &s,
        "ratings.import",
        json!(["egf", egf_excerpt(), {"base64": true, "source": "egf_db-2018-12-27-excerpt.txt"}]),
    )
    .await;
    b.set_size(1280, 1000).await;
    b.goto(&s.url(&format!("/t/{id}/desk"))).await;
    expect(
        &b,
        "return document.body.getAttribute('data-desk-js') === 'ready' && document.body.getAttribute('data-js') === 'ready';",
        "the scripts run",
    )
    .await;

    // 1. Found in the rating list: type, wait for the hits, Enter fills the form.
    b.type_into("#desk-search", "Aaij").await;
    expect(
        &b,
        &has_text("#desk-hits li[data-index='0']", "Aaij Rene"),
        "the rating list answers as one types",
    )
    .await;
    b.screenshot(&shots().join("desk-search-1280.png")).await;
    b.send_keys("#desk-search", ENTER).await;
    assert_eq!(
        b.exec(
            "return ['name','first_name','rank','club','country','egf_pin','rating_origin'].map(function (k) { return document.getElementById('f-' + k).value; });",
            vec![]
        )
        .await,
        json!(["Aaij", "Rene", "4D", "Gron", "NL", "10537560", "EGF"]),
        "the chosen row fills the form"
    );
    b.click("#desk-submit").await;
    expect(&b, &has_text("#desk-msg", "Added: Aaij Rene"), "condition").await;

    // The second row of a search, chosen with the mouse after an arrow key.
    b.type_into("#desk-search", "Aalto").await;
    expect(
        &b,
        "return document.querySelectorAll('#desk-hits li[data-index]').length === 3;",
        "Aalto Jukka, Aalto Pekka, Aaltonen Ari",
    )
    .await;
    b.send_keys("#desk-search", DOWN).await;
    assert_eq!(
        b.exec(
            "return document.getElementById('desk-search').getAttribute('aria-activedescendant');",
            vec![]
        )
        .await,
        json!("hit-1")
    );
    b.click("#desk-hits li[data-index='0']").await;
    let aalto = b
        .exec(
            "return document.getElementById('f-first_name').value;",
            vec![],
        )
        .await;
    b.click("#desk-submit").await;
    expect(&b, &has_text("#desk-msg", "Added: Aalto"), "condition").await;

    // 2. Typed names, with a field error from the daemon first.
    type_player(
        &b,
        &[("name", "Lévêque"), ("first_name", "Zoé"), ("rank", "99x")],
    )
    .await;
    expect(
        &b,
        &has_text("#err-rank", "player.rank"),
        "the daemon's message next to the rank field",
    )
    .await;
    assert_eq!(
        b.exec(
            "return document.getElementById('f-rank').getAttribute('aria-invalid');",
            vec![]
        )
        .await,
        json!("true")
    );
    b.type_into("#f-rank", "5k").await;
    b.click("#desk-submit").await;
    expect(
        &b,
        &has_text("#desk-msg", "Added: Lévêque Zoé"),
        "condition",
    )
    .await;
    for (name, first, rank, club) in [
        ("Müller", "Jürgen", "2k", "Köln"),
        ("Erdős", "Pál", "1k", "Budapest"),
        ("山田", "太郎", "3d", "東京"),
        ("김", "민준", "2d", "서울"),
    ] {
        type_player(
            &b,
            &[
                ("name", name),
                ("first_name", first),
                ("rank", rank),
                ("club", club),
            ],
        )
        .await;
        expect(
            &b,
            &has_text("#desk-msg", &format!("Added: {name} {first}")),
            "{name} added",
        )
        .await;
    }

    // 3. Duplicates: the same name (spelt without the accent) is warned about; cancelled.
    type_player(
        &b,
        &[("name", "Muller"), ("first_name", "Jurgen"), ("rank", "2k")],
    )
    .await;
    expect(&b, "var d = document.getElementById('desk-dup'); return !d.hidden && d.textContent.indexOf('Müller Jürgen') >= 0;", "a duplicate warning names the registered player").await;
    b.screenshot(&shots().join("desk-duplicate-1280.png")).await;
    b.click("#desk-dup-cancel").await;
    // The same PIN: warned about, then added anyway by the director.
    b.click("#desk-clear").await;
    type_player(
        &b,
        &[
            ("name", "Twin"),
            ("first_name", "Pin"),
            ("rank", "4d"),
            ("egf_pin", "10537560"),
        ],
    )
    .await;
    expect(&b, "var d = document.getElementById('desk-dup'); return !d.hidden && d.textContent.indexOf('Aaij Rene') >= 0;", "a duplicate PIN is warned about").await;
    b.click("#desk-dup-add").await;
    expect(&b, &has_text("#desk-msg", "Added: Twin Pin"), "condition").await;
    let ps = players(&c, &s, id).await;
    assert_eq!(ps.len(), 8, "{ps:?}");
    assert!(
        ps.iter().all(|p| p["name"] != "Muller"),
        "the cancelled duplicate is not added"
    );
    let aaij = by_name(&ps, "Aaij");
    assert_eq!(
        (aaij["egf_pin"].clone(), aaij["rank_text"].clone()),
        (json!("10537560"), json!("4D"))
    );
    assert_eq!(by_name(&ps, "Aalto")["first_name"], aalto);
    assert_eq!(by_name(&ps, "山田")["first_name"], "太郎");
    assert_eq!(by_name(&ps, "김")["club"], "서울");
    assert_eq!(by_name(&ps, "Erdős")["first_name"], "Pál");

    // 4. A rank correction through the edit form.
    let row = |name: &str| format!("#desk-players tr[data-pid='{}']", by_name(&ps, name)["id"]);
    expect(
        &b,
        &format!(
            "return !!document.querySelector(\"{} .desk-edit\");",
            row("Lévêque")
        ),
        "condition",
    )
    .await;
    b.click(&format!("{} .desk-edit", row("Lévêque"))).await;
    b.type_into("#f-rank", "4k").await;
    b.click("#desk-submit").await;
    expect(
        &b,
        &has_text("#desk-msg", "Saved: Lévêque Zoé"),
        "condition",
    )
    .await;

    // 5. Withdraw the twin; Erdős absent in round 2.
    b.click(&format!("{} .desk-withdraw", row("Twin"))).await;
    expect(
        &b,
        &has_text(&format!("{} td.status", row("Twin")), "withdrawn"),
        "condition",
    )
    .await;
    b.type_into(&format!("{} form.desk-skip input", row("Erdős")), "2")
        .await;
    b.click(&format!("{} form.desk-skip button", row("Erdős")))
        .await;
    expect(
        &b,
        &has_text(&format!("{} td.status", row("Erdős")), "absent in rounds 2"),
        "condition",
    )
    .await;

    // 6. Check-in for round 1 by keyboard: filter, Space; arrows, Enter twice (off, on again).
    b.click("#checkin-filter").await;
    b.send_keys("#checkin-filter", "mull").await;
    expect(
        &b,
        "return document.querySelectorAll('#checkin-list li.ci:not([hidden])').length === 1;",
        "the filter keeps Müller only (accents aside)",
    )
    .await;
    b.send_keys("#checkin-filter", SPACE).await;
    expect(
        &b,
        &has_text("#checkin-count", "6 / 7"),
        "the counter follows",
    )
    .await;
    b.send_keys("#checkin-filter", ESCAPE).await;
    b.send_keys("#checkin-filter", &format!("{DOWN}{DOWN}"))
        .await;
    let third = b
        .exec(
            "return document.querySelector('#checkin-list li.active').getAttribute('data-pid');",
            vec![],
        )
        .await;
    b.send_keys("#checkin-filter", ENTER).await;
    expect(&b, &has_text("#checkin-count", "5 / 7"), "condition").await;
    b.screenshot(&shots().join("desk-checkin-1280.png")).await;
    b.send_keys("#checkin-filter", ENTER).await;
    expect(&b, &has_text("#checkin-count", "6 / 7"), "condition").await;
    let (cr, sr) = (&c, &s);
    let skips = move || async move {
        let ps = players(cr, sr, id).await;
        json!(
            ps.iter()
                .map(|p| (p["name"].clone(), p["skip"].clone()))
                .collect::<Vec<_>>()
        )
    };
    let want = json!([
        ["Aaij", []],
        ["Aalto", []],
        ["Lévêque", []],
        ["Müller", [1]],
        ["Erdős", [2]],
        ["山田", []],
        ["김", []],
        ["Twin", []]
    ]);
    assert_eq!(
        until(skips, want.clone()).await,
        want,
        "every tick stored (third row {third})"
    );
    // A reload shows the same ticks.
    b.goto(&s.url(&format!("/t/{id}/desk"))).await;
    expect(
        &b,
        "return document.body.getAttribute('data-desk-js') === 'ready';",
        "condition",
    )
    .await;
    expect(&b, &has_text("#checkin-count", "6 / 7"), "condition").await;
    assert_eq!(
        b.exec(
            &format!(
                "return document.getElementById('ci-{}').getAttribute('aria-selected');",
                by_name(&ps, "Müller")["id"]
            ),
            vec![]
        )
        .await,
        json!("false")
    );

    // 7. Pair round 1 from the overview in director mode (auth off: an empty token).
    b.goto(&s.url(&format!("/t/{id}"))).await;
    expect(
        &b,
        "return document.body.getAttribute('data-js') === 'ready';",
        "condition",
    )
    .await;
    b.click("#director-toggle").await;
    b.click("#director-form button[type=submit]").await;
    expect(&b, "return document.body.classList.contains('director') && !!document.querySelector(\"button.act[data-method='tournament.round.pair']\") && document.getElementById('fragment').getAttribute('aria-busy') !== 'true';", "condition").await;
    b.click("button.act[data-method='tournament.round.pair']")
        .await;
    let paired = until(
        || async {
            json!(rpc(&c, &s, "tournament.get", json!([id])).await["paired_rounds"].clone())
        },
        json!(1),
    )
    .await;
    let round = rpc(&c, &s, "tournament.round.get", json!([id, 1])).await;
    let games = round["games"].as_array().cloned().unwrap_or_default();
    assert_eq!(
        games.len(),
        3,
        "six present players, three games (paired {paired}): {round}"
    );
    let tables: Vec<u64> = games.iter().map(|g| g["table"].as_u64().unwrap()).collect();

    // 8. Quick results on the round's page.
    b.goto(&s.url(&format!("/t/{id}/round/1"))).await;
    expect(&b, "return document.body.classList.contains('director') && !!document.getElementById('quick') && document.getElementById('fragment').getAttribute('aria-busy') !== 'true';", "condition").await;
    b.click("#quick").await;
    let result = |t: u64| {
        let (cr, sr) = (&c, &s);
        move || async move {
            rpc(cr, sr, "tournament.round.get", json!([id, 1])).await["games"]
                .as_array()
                .and_then(|g| {
                    g.iter()
                        .find(|g| g["table"].as_u64() == Some(t))
                        .map(|g| g["result"].clone())
                })
                .unwrap_or(Value::Null)
        }
    };
    b.send_keys("#quick", &format!("{}w", tables[0])).await;
    assert_eq!(until(result(tables[0]), json!("W+")).await, json!("W+"));
    expect(
        &b,
        &has_text("#quick-msg", &format!("Table {} set: 1–0", tables[0])),
        "condition",
    )
    .await;
    b.send_keys("#quick", &format!("{}j", tables[1])).await;
    assert_eq!(until(result(tables[1]), json!("jigo")).await, json!("jigo"));
    b.send_keys("#quick", &format!("{}fb", tables[2])).await;
    assert_eq!(until(result(tables[2]), json!("B+!")).await, json!("B+!"));
    expect(
        &b,
        &has_text(&format!("tr[data-table='{}'] td.result", tables[2]), "0–1!"),
        "condition",
    )
    .await;
    // A table that does not exist.
    b.send_keys("#quick", "99w").await;
    expect(&b, "var m = document.getElementById('quick-msg'); return m.classList.contains('error') && m.textContent.indexOf('No such table in this round: 99') >= 0;", "condition").await;
    // A table already set: asked first; Esc keeps it, Enter replaces it.
    b.send_keys("#quick", &format!("{}b", tables[0])).await;
    expect(&b, &has_text("#quick-msg", "already has 1–0"), "condition").await;
    b.screenshot(&shots().join("quick-entry-1280.png")).await;
    b.send_keys("#quick", ESCAPE).await;
    expect(&b, &has_text("#quick-msg", "Kept"), "condition").await;
    assert_eq!(
        result(tables[0])().await,
        json!("W+"),
        "Esc changed nothing"
    );
    b.send_keys("#quick", &format!("{}b", tables[0])).await;
    expect(
        &b,
        &has_text("#quick-msg", "Enter replaces it"),
        "condition",
    )
    .await;
    b.send_keys("#quick", ENTER).await;
    assert_eq!(until(result(tables[0]), json!("B+")).await, json!("B+"));
    // Undo the last entry: back to what it was.
    b.send_keys("#quick", "u").await;
    assert_eq!(until(result(tables[0]), json!("W+")).await, json!("W+"));
    expect(&b, &has_text("#quick-msg", "Undone"), "condition").await;

    // Screenshots at phone width: the search open, the check-in, the quick entry.
    b.set_size(390, 844).await;
    b.screenshot(&shots().join("quick-entry-390.png")).await;
    b.goto(&s.url(&format!("/t/{id}/desk"))).await;
    expect(
        &b,
        "return document.body.getAttribute('data-desk-js') === 'ready';",
        "condition",
    )
    .await;
    b.type_into("#desk-search", "Aa").await;
    expect(
        &b,
        "return document.querySelectorAll('#desk-hits li[data-index]').length > 2;",
        "condition",
    )
    .await;
    b.screenshot(&shots().join("desk-search-390.png")).await;
    b.exec(
        "document.getElementById('checkin').scrollIntoView();",
        vec![],
    )
    .await;
    b.screenshot(&shots().join("desk-checkin-390.png")).await;
    b.set_size(1280, 1000).await;
    b.exec(
        "document.getElementById('desk-players').scrollIntoView();",
        vec![],
    )
    .await;
    b.screenshot(&shots().join("desk-players-1280.png")).await;

    // The state over RPC: the withdrawal, the absence, the late check-in for round 2.
    let ps = players(&c, &s, id).await;
    assert_eq!(by_name(&ps, "Twin")["withdrawn_after"], json!(0));
    assert_eq!(by_name(&ps, "Lévêque")["rank_text"], json!("4K"));
    b.close().await;
    s.stop().await;
}

/// A figure for the report, not a timing test (ignored): the desk and a round's page with its
/// quick entry for a 1,000-player event, fetched over HTTP on 127.0.0.1 (an upper bound of the
/// server-side rendering). `cargo test --release --test it web::desk::speed -- --ignored --nocapture`
#[tokio::test]
#[ignore]
async fn speed_of_the_desk_pages_for_1000_players() {
    let s = Server::start().await;
    let c = client();
    let id = create(&c, &s, 5).await;
    for k in 0..1000 {
        add(
            &c,
            &s,
            id,
            json!({"name": format!("Player{k:04}"), "first_name": "Given", "rank": format!("{}k", 1 + k % 25),
                   "club": "Club", "country": "FR", "egf_pin": format!("{}", 10_000_000 + k)}),
        )
        .await;
    }
    rpc(&c, &s, "tournament.round.pair", json!([id, 1])).await;
    for path in [format!("/t/{id}/desk"), format!("/t/{id}/round/1")] {
        let mut times = Vec::new();
        for _ in 0..21 {
            let t0 = std::time::Instant::now();
            let (status, body) = get(&c, &s, &path, None).await;
            times.push(t0.elapsed());
            assert_eq!(status, 200);
            assert!(body.len() > 10_000);
        }
        times.sort();
        println!(
            "{path}: median {:?}, min {:?}, max {:?}",
            times[times.len() / 2],
            times[0],
            times[times.len() - 1]
        );
    }
    s.stop().await;
}
