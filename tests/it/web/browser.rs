//! The pages in headless Chromium (chromedriver's WebDriver API): a result entered over RPC
//! shows on an open standings page without a reload; a director sets a result from the
//! pairings page (the page's own JSON-RPC call); the game viewer steps through the record.
//! Screenshots of the pairings, standings and game pages at phone and desktop widths are
//! saved under `target/web-screenshots/` to look at (never compared: no test depends on
//! fonts or pixels).

use crate::common;
// Only this test drives a browser: the driver stays out of the other tests' common module.
use crate::common::browser;

use std::path::PathBuf;
use std::time::Duration;

use browser::Browser;
use common::{Server, client};
use serde_json::{Value, json};

async fn rpc(c: &reqwest::Client, server: &Server, method: &str, params: Value) -> Value {
    send(c.post(server.url("/jsonrpc")), method, params).await
}

/// A JSON-RPC call on `req` (a POST to /jsonrpc, with or without a token): its result.
async fn send(req: reqwest::RequestBuilder, method: &str, params: Value) -> Value {
    let v: Value = req
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .send()
        .await
        .expect("send")
        .json()
        .await
        .expect("reply");
    v.get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method}: {v}"))
}

fn shots() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/web-screenshots")
}

/// How long a page may take to show what a test waits for: a bound only a hang reaches (the
/// waits poll and return as soon as it shows; Chromium on a loaded machine is slow).
const LIMIT: Duration = Duration::from_secs(60);

#[tokio::test]
async fn live_pages_director_actions_and_the_game_viewer_in_chromium() {
    let Some(b) = Browser::start("web_browser").await else {
        return;
    };
    let server = Server::start().await;
    let c = client();
    let id = rpc(
        &c,
        &server,
        "tournament.create",
        json!([{"name": "Browser Open <b>bold</b>", "rounds": 3, "board_size": 9}]),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    for (k, rank) in ["4d", "2d", "1d", "1k", "3k", "6k", "9k", "12k"]
        .iter()
        .enumerate()
    {
        rpc(
            &c,
            &server,
            "tournament.player.add",
            json!([id, {"name": format!("Player{k} <i>x</i>"), "first_name": "A", "rank": rank, "club": "Club", "country": "FR"}]),
        )
        .await;
    }
    let paired = rpc(&c, &server, "tournament.round.pair", json!([id, 1])).await;
    let tables: Vec<u64> = paired["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["table"].as_u64().unwrap())
        .collect();
    let sgf_path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/score/games/large_eye_dame_9x9.sgf"
    );
    let sgf = std::fs::read_to_string(sgf_path).unwrap_or_else(|e| panic!("{sgf_path}: {e}"));
    rpc(
        &c,
        &server,
        "tournament.result.set",
        json!([id, 1, tables[0], "W+", {"sgf": sgf}]),
    )
    .await;

    // 1. Standings: a result entered over RPC shows without a reload.
    b.goto(&server.url(&format!("/t/{id}/standings"))).await;
    assert!(
        b.wait_for(
            "return document.body.getAttribute('data-js') === 'ready' && document.body.getAttribute('data-live-state') === 'open';",
            LIMIT
        )
        .await,
        "the page script runs and its live stream opens"
    );
    b.exec("window.__notReloaded = true;", vec![]).await;
    rpc(
        &c,
        &server,
        "tournament.result.set",
        json!([id, 1, tables[1], "B+"]),
    )
    .await;
    // The page's fragment must become what the server renders now.
    let fresh = c
        .get(server.url(&format!("/t/{id}/standings?fragment=1")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let same = b
        .wait_for(
            &format!(
                "var t = document.createElement('div'); t.innerHTML = {}; \
                 return document.getElementById('fragment').innerHTML === t.innerHTML;",
                serde_json::to_string(&fresh).unwrap()
            ),
            LIMIT,
        )
        .await;
    assert!(
        same,
        "the standings were not updated in place within {LIMIT:?}"
    );
    assert_eq!(
        b.exec("return window.__notReloaded === true;", vec![])
            .await,
        json!(true),
        "the page was reloaded instead of updated"
    );
    // Names typed by clients are text on the page, never markup.
    assert_eq!(
        b.exec(
            "return document.querySelectorAll('#fragment i, #fragment b').length;",
            vec![]
        )
        .await,
        json!(0)
    );
    for (w, h) in [(390, 844), (1280, 900)] {
        b.set_size(w, h).await;
        b.screenshot(&shots().join(format!("standings-{w}.png")))
            .await;
    }

    // 2. Director mode on the pairings page: set a result with the page's own form.
    b.goto(&server.url(&format!("/t/{id}/round/1"))).await;
    assert!(
        b.wait_for(
            "return document.body.getAttribute('data-js') === 'ready';",
            LIMIT
        )
        .await
    );
    let table = tables[2];
    b.exec(
        "document.getElementById('director-toggle').click(); \
         document.getElementById('director-form').requestSubmit();",
        vec![],
    )
    .await;
    // The form asks the daemon whether the token opens this tournament (a fetch) before the
    // mode is entered: wait for it.
    assert!(
        b.wait_for(
            "return document.body.classList.contains('director');",
            LIMIT
        )
        .await,
        "director mode was not entered within {LIMIT:?}"
    );
    b.exec(
        &format!(
            "var s = document.getElementById('res-1-{table}'); s.value = 'jigo'; \
             s.form.requestSubmit();"
        ),
        vec![],
    )
    .await;
    let mut set = false;
    for _ in 0..600 {
        let round = rpc(&c, &server, "tournament.round.get", json!([id, 1])).await;
        let g = round["games"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["table"].as_u64() == Some(table))
            .cloned()
            .unwrap();
        if g["result"] == "jigo" {
            set = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(set, "the director's result did not reach the server");
    assert!(
        b.wait_for(
            &format!("var r = document.querySelector('tr[data-table=\"{table}\"] td.result'); return !!r && r.textContent === '½–½';"),
            LIMIT
        )
        .await,
        "the pairings show the director's result"
    );
    // An error from the server is shown, not swallowed: an unknown table.
    b.exec(
        &format!(
            "var f = document.querySelector('form.act-form'); \
             f.setAttribute('data-params', '[{id},1,999]'); f.requestSubmit();"
        ),
        vec![],
    )
    .await;
    assert!(
        b.wait_for(
            "var s = document.getElementById('status'); return s.classList.contains('error') && s.textContent.indexOf('1028') >= 0;",
            LIMIT
        )
        .await,
        "the error is shown"
    );
    // Screenshots in visitor mode.
    b.exec(
        "document.getElementById('director-toggle').click();",
        vec![],
    )
    .await;
    for (w, h) in [(390, 844), (1280, 900)] {
        b.set_size(w, h).await;
        b.screenshot(&shots().join(format!("pairings-{w}.png")))
            .await;
    }

    // 3. The game viewer: first, next, keyboard, last.
    b.goto(&server.url(&format!("/t/{id}/round/1/game/{}", tables[0])))
        .await;
    assert!(
        b.wait_for(
            "return document.body.getAttribute('data-js') === 'ready';",
            LIMIT
        )
        .await
    );
    let stones = "return document.querySelectorAll('#board circle.s1, #board circle.s2').length;";
    let at_end = b.exec(stones, vec![]).await;
    b.exec("document.querySelector('[data-go=first]').click();", vec![])
        .await;
    assert_eq!(b.exec(stones, vec![]).await, json!(0));
    assert_eq!(
        b.exec(
            "return document.getElementById('board').classList.contains('at-end');",
            vec![]
        )
        .await,
        json!(false),
        "the count's marks are hidden away from the end"
    );
    b.exec("document.querySelector('[data-go=next]').click();", vec![])
        .await;
    assert_eq!(b.exec(stones, vec![]).await, json!(1));
    b.exec(
        "document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));",
        vec![],
    )
    .await;
    assert_eq!(b.exec(stones, vec![]).await, json!(2));
    assert_eq!(
        b.exec(
            "return document.getElementById('move-no').textContent;",
            vec![]
        )
        .await,
        json!("Move 2 / 26")
    );
    b.exec("document.querySelector('[data-go=last]').click();", vec![])
        .await;
    assert_eq!(b.exec(stones, vec![]).await, at_end);
    for (w, h) in [(390, 844), (1280, 900)] {
        b.set_size(w, h).await;
        b.screenshot(&shots().join(format!("game-{w}.png"))).await;
    }
    b.close().await;
    server.stop().await;
}

const ADMIN: &str = "admin-token-for-the-browser-test-42";

async fn rpc_as(
    c: &reqwest::Client,
    server: &Server,
    token: &str,
    method: &str,
    params: Value,
) -> Value {
    send(
        c.post(server.url("/jsonrpc")).bearer_auth(token),
        method,
        params,
    )
    .await
}

/// A game's result code over RPC.
async fn result_of(c: &reqwest::Client, server: &Server, id: i64, round: u32, table: u64) -> Value {
    let r = rpc(c, server, "tournament.round.get", json!([id, round])).await;
    r["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["table"].as_u64() == Some(table))
        .map(|g| g["result"].clone())
        .unwrap_or(Value::Null)
}

/// Polls `f` (an RPC read) until it gives `want`, for at most `LIMIT`.
async fn until<F, Fut>(mut f: F, want: Value) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Value>,
{
    let start = std::time::Instant::now();
    while start.elapsed() < LIMIT {
        if f().await == want {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

#[tokio::test]
async fn a_director_with_auth_on_acts_through_the_page_and_the_public_page_follows() {
    let Some(b) = Browser::start("web_browser (auth)").await else {
        return;
    };
    let server = Server::start_with(goswiss::config::Config {
        admin_token: goswiss::config::Secret(ADMIN.into()),
        ..goswiss::config::Config::default()
    })
    .await;
    let c = client();
    // With auth on, creating is the operator's (the admin token).
    let created = rpc_as(
        &c,
        &server,
        ADMIN,
        "tournament.create",
        json!([{"name": "Auth Open", "rounds": 3, "board_size": 9}]),
    )
    .await;
    let id = created["id"].as_i64().unwrap();
    let dt = created["director_token"].as_str().unwrap().to_string();
    for (k, rank) in ["4d", "2d", "1k", "3k", "6k", "9k"].iter().enumerate() {
        rpc_as(
            &c,
            &server,
            &dt,
            "tournament.player.add",
            json!([id, {"name": format!("Dir{k}"), "first_name": "B", "rank": rank}]),
        )
        .await;
    }
    let paired = rpc_as(&c, &server, &dt, "tournament.round.pair", json!([id, 1])).await;
    rpc_as(&c, &server, &dt, "tournament.round.publish", json!([id, 1])).await;
    let table = paired["games"][0]["table"].as_u64().unwrap();
    // Ready: the script ran, the live stream is open, and no re-read of the page (a director's
    // view fetched at load) is under way to replace what the next click aims at.
    let ready = "return document.body.getAttribute('data-js') === 'ready' && document.body.getAttribute('data-live-state') === 'open' && document.getElementById('fragment').getAttribute('aria-busy') !== 'true';";
    let (cr, sr) = (&c, &server);
    let revision =
        move || async move { rpc(cr, sr, "tournament.get", json!([id])).await["revision"].clone() };

    // A public tab on round 1's pairings: it must follow the director's actions live.
    let director_tab = b.window().await;
    let public_tab = b.new_tab().await;
    b.switch_to(&public_tab).await;
    b.goto(&server.url(&format!("/t/{id}/round/1"))).await;
    assert!(b.wait_for(ready, LIMIT).await, "public page ready");
    b.exec("window.__notReloaded = true;", vec![]).await;

    // The director's tab.
    b.switch_to(&director_tab).await;
    b.goto(&server.url(&format!("/t/{id}/round/1"))).await;
    assert!(b.wait_for(ready, LIMIT).await, "director page ready");
    let before = revision().await;

    // 1. A wrong token: a clear, visible error; director mode stays off, nothing changes.
    b.click("#director-toggle").await;
    b.type_into("#director-token", "not-the-token").await;
    b.click("#director-form button[type=submit]").await;
    assert!(
        b.wait_for(
            "var s = document.getElementById('status'); return s.classList.contains('error') && s.textContent.indexOf('does not open director mode') >= 0;",
            LIMIT
        )
        .await,
        "a wrong token is refused with a message"
    );
    assert_eq!(
        b.exec(
            "return [document.body.classList.contains('director'), sessionStorage.length, \
             getComputedStyle(document.querySelector('td.director-only')).display, \
             document.getElementById('director-form').hidden];",
            vec![]
        )
        .await,
        json!([false, 0, "none", false]),
        "not in director mode, nothing stored, no forms shown, the token form still open"
    );
    // A token that stopped working (stored earlier): the action fails visibly and changes
    // nothing.
    b.exec(
        &format!(
            "sessionStorage.setItem('goswiss-director-{id}', '1'); \
             sessionStorage.setItem('goswiss-token-{id}', 'stale-token');"
        ),
        vec![],
    )
    .await;
    b.goto(&server.url(&format!("/t/{id}/round/1"))).await;
    assert!(b.wait_for(ready, LIMIT).await);
    b.click(&format!("#res-1-{table} option[value='W+']")).await;
    b.click(&format!(
        "tr[data-table='{table}'] form.act-form button[type=submit]"
    ))
    .await;
    assert!(
        b.wait_for(
            "var s = document.getElementById('status'); return s.classList.contains('error') && s.textContent.indexOf('-32010') >= 0 && s.textContent.indexOf('unauthorized') >= 0;",
            LIMIT
        )
        .await,
        "the refused action's error is shown"
    );
    assert_eq!(revision().await, before, "a refused action changes nothing");
    assert_eq!(result_of(&c, &server, id, 1, table).await, json!("?"));
    b.click("#director-toggle").await; // leaves director mode, forgets the stale token

    // 2. The right token, typed into the form.
    b.click("#director-toggle").await;
    b.type_into("#director-token", &dt).await;
    b.click("#director-form button[type=submit]").await;
    assert!(
        b.wait_for(
            // Entering the mode re-reads the page for the director: wait until it is read,
            // or the next click may land on an element about to be replaced.
            "return document.body.classList.contains('director') && document.getElementById('status').textContent === 'Director mode is on' && document.getElementById('fragment').getAttribute('aria-busy') !== 'true';",
            LIMIT
        )
        .await,
        "the director's token opens director mode"
    );

    // 3. Enter a result, then correct it, with the page's form.
    for (code, shown) in [("W+", "1–0"), ("B+", "0–1")] {
        b.click(&format!("#res-1-{table} option[value='{code}']"))
            .await;
        b.click(&format!(
            "tr[data-table='{table}'] form.act-form button[type=submit]"
        ))
        .await;
        assert!(
            until(move || result_of(cr, sr, id, 1, table), json!(code)).await,
            "{code} reached the server"
        );
        let cell = format!(
            "var r = document.querySelector('tr[data-table=\"{table}\"] td.result'); return !!r && r.textContent === '{shown}' && document.getElementById('fragment').getAttribute('aria-busy') !== 'true';"
        );
        assert!(
            b.wait_for(&cell, LIMIT).await,
            "director page shows {shown}"
        );
        b.switch_to(&public_tab).await;
        assert!(b.wait_for(&cell, LIMIT).await, "public page shows {shown}");
        b.switch_to(&director_tab).await;
    }

    // 4. Pair the next round from the overview; the public cannot see it until published.
    b.goto(&server.url(&format!("/t/{id}"))).await;
    assert!(b.wait_for(ready, LIMIT).await);
    b.click("button.act[data-method='tournament.round.pair']")
        .await;
    assert!(
        until(
            move || async move {
                rpc(cr, sr, "tournament.round.get", json!([id, 2])).await["paired"].clone()
            },
            json!(true)
        )
        .await,
        "round 2 paired"
    );
    b.switch_to(&public_tab).await;
    b.goto(&server.url(&format!("/t/{id}/round/2"))).await;
    assert!(b.wait_for(ready, LIMIT).await);
    b.exec("window.__notReloaded = true;", vec![]).await;
    assert_eq!(
        b.exec(
            "return [document.querySelectorAll('#fragment table.pairings').length, \
             document.getElementById('fragment').textContent.indexOf('not published yet') >= 0];",
            vec![]
        )
        .await,
        json!([0, true]),
        "the public does not see an unpublished round"
    );
    b.switch_to(&director_tab).await;
    b.goto(&server.url(&format!("/t/{id}/round/2"))).await;
    assert!(
        b.wait_for(
            "return document.querySelectorAll('#fragment table.pairings tbody tr').length > 0 && document.getElementById('fragment').textContent.indexOf('may still change') >= 0;",
            LIMIT
        )
        .await,
        "the director sees the draft of round 2"
    );

    // 5. Publish it from the overview: the public tab shows the pairings without a reload.
    b.goto(&server.url(&format!("/t/{id}"))).await;
    assert!(b.wait_for(ready, LIMIT).await);
    b.click(&format!(
        "button.act[data-method='tournament.round.publish'][data-params='[{id},2]']"
    ))
    .await;
    let published = until(
        move || async move {
            rpc(cr, sr, "tournament.round.get", json!([id, 2])).await["published"].clone()
        },
        json!(true),
    )
    .await;
    assert!(
        published,
        "round 2 published; the page says {}",
        b.exec(
            "return document.getElementById('status').textContent + ' | ' + document.getElementById('fragment').innerHTML;",
            vec![]
        )
        .await
    );
    b.switch_to(&public_tab).await;
    assert!(
        b.wait_for(
            "return document.querySelectorAll('#fragment table.pairings tbody tr').length > 0 && document.getElementById('fragment').textContent.indexOf('not published yet') < 0;",
            LIMIT
        )
        .await,
        "the public page shows the published round"
    );
    assert_eq!(
        b.exec("return window.__notReloaded === true;", vec![])
            .await,
        json!(true),
        "updated in place"
    );
    for (w, h) in [(390, 844), (1280, 900)] {
        b.set_size(w, h).await;
        b.screenshot(&shots().join(format!("pairings-published-{w}.png")))
            .await;
    }
    b.close().await;
    server.stop().await;
}
