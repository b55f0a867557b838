//! Print sheets (issue 31, item 6): each sheet is reached by clicking its link on the page it
//! belongs to, printed to PDF by headless Chromium (WebDriver's print), and read back with
//! poppler's `pdfinfo`/`pdftotext`: the page count is what the sheet's content needs, the
//! text holds the names and tables and none of the site's navigation. `pdftoppm` renders the
//! pages as PNGs under `target/web-screenshots/print/` to look at (never compared). With auth
//! on, the public's sheets of an unpublished round are a 404, the director's are not.

use crate::common;
use crate::common::browser;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use browser::Browser;
use common::{Server, client};
use serde_json::{Value, json};

const LIMIT: Duration = Duration::from_secs(60);

async fn rpc(c: &reqwest::Client, server: &Server, method: &str, params: Value) -> Value {
    let v: Value = c
        .post(server.url("/jsonrpc"))
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

fn out_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/web-screenshots/print")
}

/// Whether poppler's tools are here; without them (and without CI requiring them) a loud skip.
fn poppler() -> bool {
    let ok = Command::new("pdftotext").arg("-v").output().is_ok()
        && Command::new("pdftoppm").arg("-v").output().is_ok();
    if !ok {
        assert!(
            !std::env::var("GOSWISS_REQUIRE_CHROMIUM").is_ok_and(|v| v == "1"),
            "pdftotext/pdftoppm missing (apt-get install poppler-utils)"
        );
        eprintln!("\nSKIPPED print sheets: poppler-utils not found ***\n");
    }
    ok
}

/// Saves `pdf` as `name.pdf`, renders its pages to `name-N.png` and returns (pages, text).
fn read_pdf(pdf: &[u8], name: &str) -> (usize, String) {
    let dir = out_dir();
    std::fs::create_dir_all(&dir).expect("print dir");
    let path = dir.join(format!("{name}.pdf"));
    std::fs::write(&path, pdf).expect("write pdf");
    assert!(pdf.starts_with(b"%PDF"), "{name}: not a PDF");
    let text = Command::new("pdftotext")
        .args(["-layout"])
        .arg(&path)
        .arg("-")
        .output()
        .expect("pdftotext");
    assert!(text.status.success(), "pdftotext {name}");
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    let png = Command::new("pdftoppm")
        .args(["-png", "-r", "70"])
        .arg(&path)
        .arg(dir.join(name))
        .status()
        .expect("pdftoppm");
    assert!(png.success(), "pdftoppm {name}");
    // pdftotext ends every page with a form feed.
    let pages = text.matches('\u{c}').count();
    (pages, text)
}

fn page_size(path: &Path) -> String {
    let info = Command::new("pdfinfo").arg(path).output().expect("pdfinfo");
    String::from_utf8_lossy(&info.stdout)
        .lines()
        .find(|l| l.starts_with("Page size"))
        .unwrap_or_default()
        .to_string()
}

/// Clicks the link whose text is `label` (the first) and waits for the next page to load.
async fn follow(b: &Browser, label: &str, path_part: &str) {
    let found = b
        .exec(
            "var l = arguments[0]; \
             var a = Array.from(document.querySelectorAll('a')).find(function (a) { return a.textContent.trim() === l; }); \
             if (!a) return false; a.id = 'to-follow'; return true;",
            vec![json!(label)],
        )
        .await;
    assert_eq!(found, json!(true), "no link {label:?}");
    b.click("#to-follow").await;
    assert!(
        b.wait_for(
            &format!(
                "return location.pathname.indexOf({}) >= 0 && document.readyState === 'complete';",
                serde_json::to_string(path_part).unwrap()
            ),
            LIMIT
        )
        .await,
        "the link {label:?} did not lead to {path_part}"
    );
}

const NAV: [&str; 4] = [
    "Director mode",
    "Tournaments",
    "Crosstable ",
    "Print this sheet",
];

#[tokio::test]
async fn print_sheets_reach_a4_pdf_with_names_tables_and_no_navigation() {
    if !poppler() {
        return;
    }
    let Some(b) = Browser::start("web_print").await else {
        return;
    };
    let server = Server::start().await;
    let c = client();
    let id = rpc(
        &c,
        &server,
        "tournament.create",
        json!([{"name": "Printed Open <b>x</b>", "rounds": 3, "board_size": 19,
                "location": "Lyon", "begin_date": "2026-11-28"}]),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    // 13 players: 6 games and a bye, so the slips take two pages (five to a page).
    let names = [
        "Zoltán",
        "Élodie",
        "Müller",
        "Abel",
        "Nakamura",
        "Kim",
        "Østergaard",
        "Bauer",
        "Petit",
        "Durand",
        "Yilmaz",
        "Fischer",
        "Ciobanu",
    ];
    let ranks = [
        "5d", "4d", "3d", "2d", "1d", "1k", "2k", "3k", "5k", "7k", "9k", "12k", "15k",
    ];
    for (n, r) in names.iter().zip(ranks) {
        rpc(
            &c,
            &server,
            "tournament.player.add",
            json!([id, {"name": n, "first_name": "Jo", "rank": r, "club": "Club", "country": "FR"}]),
        )
        .await;
    }
    let paired = rpc(&c, &server, "tournament.round.pair", json!([id, 1])).await;
    let games = paired["games"].as_array().unwrap().clone();
    assert_eq!(games.len(), 6);
    for g in &games {
        rpc(
            &c,
            &server,
            "tournament.result.set",
            json!([id, 1, g["table"], "W+"]),
        )
        .await;
    }
    let round = rpc(&c, &server, "tournament.round.get", json!([id, 1])).await;
    let players = rpc(&c, &server, "tournament.player.list", json!([id])).await;
    let name_of = |pid: &Value| -> String {
        let p = players
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == *pid)
            .unwrap_or_else(|| panic!("no player {pid}"));
        p["name"].as_str().unwrap().to_string()
    };

    // 1. Pairings by table, from the round's page.
    b.goto(&server.url(&format!("/t/{id}/round/1"))).await;
    follow(&b, "Pairings by table", "/print/tables").await;
    assert_eq!(
        b.exec(
            "return document.querySelectorAll('button, nav, form, script').length;",
            vec![]
        )
        .await,
        json!(0),
        "a sheet has nothing to click"
    );
    let (pages, text) = read_pdf(&b.print_pdf(false).await, "tables");
    assert_eq!(pages, 1, "six games fit one page:\n{text}");
    assert!(
        page_size(&out_dir().join("tables.pdf")).contains("595"),
        "A4 portrait"
    );
    assert!(text.contains("Printed Open <b>x</b>"), "{text}");
    assert!(text.contains("Round 1"), "{text}");
    for g in round["games"].as_array().unwrap() {
        let (w, bl) = (name_of(&g["white"]), name_of(&g["black"]));
        // One line per table: its number, then White, then Black.
        let line = text
            .lines()
            .find(|l| l.contains(&w) && l.contains(&bl))
            .unwrap_or_else(|| panic!("no line with {w} and {bl}:\n{text}"));
        assert!(
            line.trim_start()
                .starts_with(&g["table"].as_u64().unwrap().to_string()),
            "{line}"
        );
        assert!(line.find(&w) < line.find(&bl), "White first: {line}");
    }
    let bye = name_of(&round["byes"][0]);
    assert!(text.contains(&bye), "the bye is printed: {bye}");
    for n in NAV {
        assert!(!text.contains(n), "{n:?} is not on paper:\n{text}");
    }
    // On screen, the sheet's one line back.
    b.set_size(390, 844).await;
    b.screenshot(&out_dir().join("screen-tables-390.png")).await;
    b.set_size(1280, 900).await;
    b.screenshot(&out_dir().join("screen-tables-1280.png"))
        .await;

    // 2. Find my table: every player once, in alphabetical order (accents folded: Élodie
    // between Durand and Fischer, Østergaard after Nakamura).
    b.goto(&server.url(&format!("/t/{id}/round/1"))).await;
    follow(&b, "Find my table (by name)", "/print/alpha").await;
    let (pages, text) = read_pdf(&b.print_pdf(false).await, "alpha");
    assert_eq!(pages, 1, "{text}");
    let mut sorted = names.to_vec();
    sorted.sort_by_key(|n| {
        n.replace('É', "E")
            .replace('Ø', "O")
            .replace('á', "a")
            .replace('ü', "u")
    });
    let leading: Vec<&str> = text
        .lines()
        .filter_map(|l| {
            names
                .iter()
                .copied()
                .find(|n| l.trim_start().starts_with(n))
        })
        .collect();
    assert_eq!(
        leading, sorted,
        "every player once, alphabetically:\n{text}"
    );
    // A player's line says the table, the colour and the opponent.
    let g0 = &round["games"][0];
    let (w0, b0) = (name_of(&g0["white"]), name_of(&g0["black"]));
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(&w0))
        .unwrap_or_else(|| panic!("no line for {w0}:\n{text}"));
    assert!(
        line.contains("White") && line.contains(&b0),
        "{w0}'s line: {line}"
    );
    assert!(line.contains(&format!(" {} ", g0["table"])), "{line}");

    // 3. Result slips: one per table, five to a page, with boxes and signatures.
    b.goto(&server.url(&format!("/t/{id}/round/1"))).await;
    follow(&b, "Result slips", "/print/slips").await;
    let (pages, text) = read_pdf(&b.print_pdf(false).await, "slips");
    assert_eq!(pages, 2, "six slips on two pages:\n{text}");
    for g in round["games"].as_array().unwrap() {
        assert!(
            text.contains(&format!("Table {}", g["table"])),
            "slip of table {}",
            g["table"]
        );
    }
    assert_eq!(text.matches("Signature").count(), 12, "{text}");
    assert_eq!(text.matches("wins").count(), 12, "{text}");

    // 4. Standings, from the standings page.
    b.goto(&server.url(&format!("/t/{id}/standings"))).await;
    follow(&b, "Print", "/print/standings").await;
    let (pages, text) = read_pdf(&b.print_pdf(false).await, "standings");
    assert_eq!(pages, 1, "{text}");
    assert!(text.contains("Standings after round 1"), "{text}");
    for n in names {
        assert!(text.contains(n), "{n} in the standings");
    }
    for n in NAV {
        assert!(!text.contains(n), "{n:?} is not on paper:\n{text}");
    }

    // 5. Crosstable, landscape.
    b.goto(&server.url(&format!("/t/{id}/crosstable"))).await;
    follow(&b, "Print", "/print/crosstable").await;
    let pdf = b.print_pdf(true).await;
    let (pages, text) = read_pdf(&pdf, "crosstable");
    assert_eq!(pages, 1, "{text}");
    assert!(text.contains("Crosstable after round 1"), "{text}");
    for n in names {
        assert!(text.contains(n), "{n} in the crosstable");
    }
    b.close().await;
    server.stop().await;
}

const ADMIN: &str = "admin-token-for-print-sheets-0123456789";

#[tokio::test]
async fn with_auth_on_the_public_gets_no_sheet_of_an_unpublished_round() {
    let server = Server::start_with(goswiss::config::Config {
        admin_token: goswiss::config::Secret(ADMIN.into()),
        ..goswiss::config::Config::default()
    })
    .await;
    let c = client();
    let call = |method: &'static str, params: Value, token: String| {
        let c = c.clone();
        let url = server.url("/jsonrpc");
        async move {
            let v: Value = c
                .post(url)
                .bearer_auth(token)
                .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            v["result"].clone()
        }
    };
    let created = call(
        "tournament.create",
        json!([{"name": "Closed", "rounds": 2}]),
        ADMIN.into(),
    )
    .await;
    let id = created["id"].as_i64().unwrap();
    let dt = created["director_token"].as_str().unwrap().to_string();
    for n in ["Secretname", "Hiddenname"] {
        call(
            "tournament.player.add",
            json!([id, {"name": n, "rank": "1k"}]),
            dt.clone(),
        )
        .await;
    }
    call("tournament.round.pair", json!([id, 1]), dt.clone()).await;
    let get = |path: String, token: Option<String>| {
        let mut req = c.get(server.url(&path));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        async move {
            let r = req.send().await.unwrap();
            (r.status().as_u16(), r.text().await.unwrap())
        }
    };
    for sheet in ["tables", "alpha", "slips"] {
        let path = format!("/t/{id}/round/1/print/{sheet}");
        let (status, body) = get(path.clone(), None).await;
        assert_eq!(status, 404, "{path}");
        assert!(!body.contains("Secretname"), "{path}");
        let (status, body) = get(path.clone(), Some(dt.clone())).await;
        assert_eq!(status, 200, "{path} for the director");
        assert!(body.contains("Secretname"), "{path}");
    }
    // The standings and crosstable sheets stop before the unpublished round.
    for what in ["standings", "crosstable"] {
        assert_eq!(
            get(format!("/t/{id}/print/{what}?after=1"), None).await.0,
            404
        );
        assert_eq!(get(format!("/t/{id}/print/{what}"), None).await.0, 200);
    }
    call("tournament.round.publish", json!([id, 1]), dt.clone()).await;
    let (status, body) = get(format!("/t/{id}/round/1/print/alpha"), None).await;
    assert_eq!(status, 200);
    assert!(body.contains("Secretname") && body.contains("Hiddenname"));
    // Bad paths are clear errors, not panics.
    assert_eq!(
        get(format!("/t/{id}/round/1/print/nope"), None).await.0,
        404
    );
    assert_eq!(
        get(format!("/t/{id}/round/x/print/tables"), None).await.0,
        400
    );
    assert_eq!(
        get(format!("/t/{id}/round/9/print/tables"), None).await.0,
        404
    );
    assert_eq!(get(format!("/t/{id}/print/nope"), None).await.0, 404);
    assert_eq!(
        get(format!("/t/{id}/print/standings?after=z"), None)
            .await
            .0,
        400
    );
    assert_eq!(get("/t/999/print/standings".into(), None).await.0, 404);
    server.stop().await;
}
