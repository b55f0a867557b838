//! The set-up form and the language switcher in headless Chromium, used as a director would:
//! with auth on, create a tournament by typing and clicking (a bad rank is refused next to
//! its field, then fixed), see the director token once, land on the tournament, edit a
//! setting that alters a paired round (confirmed first), then switch the pages to French and
//! German. State is read back over RPC only to compare. Screenshots (desktop and phone) go to
//! `target/web-screenshots/setup-*.png`, to look at, never compared.

use crate::common;
use crate::common::browser;

use std::path::PathBuf;
use std::time::Duration;

use browser::Browser;
use common::{Server, client};
use serde_json::{Value, json};

const ADMIN: &str = "setup-browser-admin";

/// A bound only a hang reaches: every wait polls and returns as soon as the page shows it.
const LIMIT: Duration = Duration::from_secs(60);

fn shots() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/web-screenshots")
}

async fn rpc_as(
    c: &reqwest::Client,
    server: &Server,
    token: &str,
    method: &str,
    p: Value,
) -> Value {
    let v: Value = c
        .post(server.url("/jsonrpc"))
        .bearer_auth(token)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": p}))
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

async fn both_sizes(b: &Browser, name: &str) {
    for (w, h) in [(390, 844), (1280, 900)] {
        b.set_size(w, h).await;
        b.screenshot(&shots().join(format!("setup-{name}-{w}.png")))
            .await;
    }
}

#[tokio::test]
async fn a_director_creates_and_edits_a_tournament_and_switches_language_in_chromium() {
    let Some(b) = Browser::start("web_setup_browser").await else {
        return;
    };
    let server = Server::start_with(goswiss::config::Config {
        admin_token: goswiss::config::Secret(ADMIN.into()),
        ..goswiss::config::Config::default()
    })
    .await;
    let c = client();
    b.set_size(1280, 900).await;

    // 1. From the home page to the form.
    b.goto(&server.url("/?lang=en")).await;
    b.click("a[href='/new']").await;
    let checked = "return document.getElementById('setup') && document.getElementById('setup').getAttribute('data-checked') !== null && !document.getElementById('setup').hasAttribute('aria-busy');";
    assert!(b.wait_for(checked, LIMIT).await, "the form's first check");

    b.type_into("#f-name", "Zürich Spring Open").await;
    b.type_into("#f-short", "zurich-2027").await;
    b.type_into("#f-country", "CH").await;
    b.type_into("#f-city", "Zürich").await;
    b.type_into("#f-rounds", "5").await;
    // A bad rank: the daemon's refusal shows next to the bar's field.
    b.type_into("#f-bar", "3x").await;
    assert!(
        b.wait_for(
            "var e = document.getElementById('err-f-bar'); return e.textContent.indexOf('settings.mcmahon.bar') >= 0 \
             && document.getElementById('f-bar').getAttribute('aria-invalid') === 'true';",
            LIMIT
        )
        .await,
        "the bad rank is refused next to its field"
    );
    // Submitting does not create anything while the field is wrong.
    b.click("#setup-submit").await;
    assert!(
        b.wait_for(
            "return document.activeElement && document.activeElement.id === 'f-bar' && document.getElementById('err-form').textContent !== '';",
            LIMIT
        )
        .await,
        "submit puts the focus on the wrong field"
    );
    b.exec(
        "document.getElementById('f-bar').scrollIntoView({block: 'center'});",
        vec![],
    )
    .await;
    both_sizes(&b, "create-error").await;
    b.set_size(1280, 900).await;
    assert_eq!(
        rpc_as(&c, &server, ADMIN, "tournament.list", json!([])).await,
        json!([])
    );

    // Fixed: the message goes.
    b.type_into("#f-bar", "2d").await;
    b.type_into("#f-floor", "18k").await;
    assert!(
        b.wait_for(
            "return document.getElementById('err-f-bar').textContent === '' && document.getElementById('setup').getAttribute('data-checked') === 'ok';",
            LIMIT
        )
        .await
    );
    // The EGF class follows the time control as it is typed (the daemon's answer).
    b.type_into("#f-main", "90").await;
    b.exec(
        "var s = document.getElementById('f-okind'); s.value = 'canadian'; s.dispatchEvent(new Event('change', {bubbles: true}));",
        vec![],
    )
    .await;
    b.type_into("#f-periods", "15").await;
    b.type_into("#f-seconds", "300").await;
    assert!(
        b.wait_for(
            "return document.getElementById('egf-class').textContent === 'A';",
            LIMIT
        )
        .await,
        "90 min + 15 stones in 5 min is class A"
    );
    // The placement criteria: add one, move it up, remove another, all with buttons.
    let crits = "return Array.prototype.map.call(document.querySelectorAll('#crit-list li'), function (l) { return l.getAttribute('data-crit'); });";
    let before = b.exec(crits, vec![]).await;
    b.exec(
        "document.getElementById('f-crit-add').value = 'NBW';",
        vec![],
    )
    .await;
    b.click("#crit-add").await;
    b.click("#crit-list li:last-child button.up").await;
    b.click("#crit-list li:first-child button.remove").await;
    let after = b.exec(crits, vec![]).await;
    let mut expected: Vec<Value> = before.as_array().unwrap()[1..].to_vec();
    let last = expected.len();
    expected.insert(last - 1, json!("NBW"));
    assert_eq!(after, Value::Array(expected.clone()), "from {before}");

    // Without the admin token: refused with the daemon's message, nothing created.
    b.click("#setup-submit").await;
    assert!(
        b.wait_for(
            "return document.getElementById('err-form').textContent.indexOf('admin') >= 0;",
            LIMIT
        )
        .await,
        "creating without the admin token is refused on the page"
    );
    b.type_into("#f-admin", ADMIN).await;
    b.click("#setup-submit").await;
    assert!(
        b.wait_for(
            "return !document.getElementById('token-box').hidden && document.getElementById('new-token').textContent.length > 20;",
            LIMIT
        )
        .await,
        "the new director token is shown"
    );
    both_sizes(&b, "token").await;
    b.set_size(1280, 900).await;
    let token = b
        .exec(
            "return document.getElementById('new-token').textContent;",
            vec![],
        )
        .await
        .as_str()
        .unwrap()
        .to_string();
    let list = rpc_as(&c, &server, ADMIN, "tournament.list", json!([])).await;
    let id = list[0]["id"].as_i64().expect("one tournament");
    let t = rpc_as(&c, &server, ADMIN, "tournament.get", json!([id])).await;
    let s = &t["settings"];
    assert_eq!(s["name"], "Zürich Spring Open");
    assert_eq!(s["short_name"], "zurich-2027");
    assert_eq!(
        (s["country"].clone(), s["location"].clone()),
        (json!("CH"), json!("Zürich"))
    );
    assert_eq!(s["rounds"], 5);
    assert_eq!(
        (s["mcmahon"]["bar"].clone(), s["mcmahon"]["floor"].clone()),
        (json!(1), json!(-18))
    );
    assert_eq!(
        s["time"]["overtime"],
        json!({"kind": "canadian", "stones": 15, "seconds": 300})
    );
    assert_eq!(s["placement"], Value::Array(expected));
    // The token shown is the tournament's: it opens director mode there.
    let d: Value = c
        .get(server.url(&format!("/t/{id}/director")))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(d["director"], true);

    // 2. To the tournament, already in director mode in this tab.
    b.click("#go-tournament").await;
    assert!(
        b.wait_for(
            &format!("return location.pathname === '/t/{id}' && document.body.classList.contains('director');"),
            LIMIT
        )
        .await,
        "landed on the new tournament in director mode"
    );
    // Players and a paired round (set up over RPC: not the screen under test).
    for (n, r) in [("Ann", "3d"), ("Bob", "1k"), ("Cem", "5k"), ("Dora", "9k")] {
        rpc_as(
            &c,
            &server,
            &token,
            "tournament.player.add",
            json!([id, {"name": n, "first_name": "X", "rank": r}]),
        )
        .await;
    }
    rpc_as(&c, &server, &token, "tournament.round.pair", json!([id, 1])).await;
    // Settled: loaded afresh, and the director's view (fetched at load) swapped in.
    b.goto(&server.url(&format!("/t/{id}"))).await;
    assert!(
        b.wait_for(
            "return document.body.getAttribute('data-js') === 'ready' && document.body.getAttribute('data-revision') !== null \
             && document.getElementById('fragment').getAttribute('aria-busy') !== 'true';",
            LIMIT
        )
        .await,
        "the director's overview"
    );
    b.click(&format!("a[href='/t/{id}/settings']")).await;
    assert!(b.wait_for(checked, LIMIT).await, "the edit form is checked");
    b.type_into("#f-bar", "1d").await;
    b.type_into("#f-rounds", "6").await;
    b.click("#setup-submit").await;
    assert!(
        b.wait_for(
            "return !document.getElementById('confirm').hidden && document.querySelector('#confirm-list li[data-setting=\"mcmahon.bar\"]') !== null \
             && document.getElementById('confirm-list').textContent.indexOf('McMahon bar') >= 0;",
            LIMIT
        )
        .await,
        "a change that alters the paired round asks first"
    );
    b.exec(
        "document.getElementById('confirm').scrollIntoView({block: 'center'});",
        vec![],
    )
    .await;
    both_sizes(&b, "edit-confirm").await;
    b.set_size(1280, 900).await;
    // Not applied before the confirmation.
    let t = rpc_as(&c, &server, &token, "tournament.get", json!([id])).await;
    assert_eq!(t["settings"]["mcmahon"]["bar"], 1);
    b.click("#confirm-yes").await;
    assert!(
        b.wait_for(&format!("return location.pathname === '/t/{id}';"), LIMIT)
            .await,
        "back on the overview after saving"
    );
    let t = rpc_as(&c, &server, &token, "tournament.get", json!([id])).await;
    assert_eq!(t["settings"]["mcmahon"]["bar"], 0, "1d");
    assert_eq!(t["settings"]["rounds"], 6);
    assert_eq!(t["settings"]["name"], "Zürich Spring Open", "the rest kept");

    // 3. The switcher: French, kept on the next page; then German.
    b.click("nav.lang a[hreflang='fr']").await;
    assert!(
        b.wait_for(
            "return document.documentElement.lang === 'fr' && document.querySelector('h2#settings-h').textContent === 'Paramètres';",
            LIMIT
        )
        .await,
        "the page is in French"
    );
    b.click(&format!("header.site a[href='/t/{id}/standings']"))
        .await;
    assert!(
        b.wait_for(
            &format!("return location.pathname === '/t/{id}/standings' && document.documentElement.lang === 'fr' && document.body.textContent.indexOf('Classement') >= 0;"),
            LIMIT
        )
        .await,
        "the next page stays in French"
    );
    both_sizes(&b, "fr").await;
    b.click("nav.lang a[hreflang='de']").await;
    assert!(
        b.wait_for(
            "return document.documentElement.lang === 'de' && document.body.textContent.indexOf('Tabelle') >= 0;",
            LIMIT
        )
        .await,
        "the page is in German"
    );
    b.click(&format!("header.site a[href='/t/{id}/round/1']"))
        .await;
    assert!(
        b.wait_for(
            "return document.documentElement.lang === 'de' && document.body.textContent.indexOf('Paarungen') >= 0;",
            LIMIT
        )
        .await
    );
    both_sizes(&b, "de").await;
    b.set_size(1280, 900).await;
    b.goto(&server.url(&format!("/t/{id}/settings"))).await;
    assert!(b.wait_for(checked, LIMIT).await);
    both_sizes(&b, "edit-de").await;
    b.close().await;
}
