//! The web pages over HTTP against the real server: status codes, content types, table
//! structure, escaping of client-typed names, fragments, errors, the game page's board and
//! count, assets' cache headers, and the live stream delivering a change made over RPC.

mod common;

use std::time::{Duration, Instant};

use common::{Server, client};
use goswiss::tournament::{Tournament, standings::standings};
use serde_json::{Value, json};

const EVIL: &str = "<script>alert(1)</script>";

struct Site {
    server: Server,
    c: reqwest::Client,
    id: i64,
}

impl Site {
    async fn rpc(&self, method: &str, params: Value) -> Result<Value, Value> {
        let v: Value = self
            .c
            .post(self.server.url("/jsonrpc"))
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
            .send()
            .await
            .expect("send")
            .json()
            .await
            .expect("json reply");
        match v.get("result") {
            Some(r) => Ok(r.clone()),
            None => Err(v["error"].clone()),
        }
    }

    async fn ok(&self, method: &str, params: Value) -> Value {
        self.rpc(method, params)
            .await
            .unwrap_or_else(|e| panic!("{method}: {e}"))
    }

    async fn get(&self, path: &str) -> (u16, String, String) {
        let r = self.c.get(self.server.url(path)).send().await.expect("get");
        let status = r.status().as_u16();
        let ct = r
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        (status, ct, r.text().await.expect("body"))
    }

    async fn page(&self, path: &str) -> String {
        let (status, ct, body) = self.get(path).await;
        assert_eq!(status, 200, "{path}: {body}");
        assert_eq!(ct, "text/html; charset=utf-8", "{path}");
        body
    }

    /// The tournament's state as the engine rebuilds it from the served log.
    async fn state(&self) -> Tournament {
        let ev = self.ok("tournament.events", json!([self.id, 0])).await;
        let events: Vec<goswiss::tournament::Event> = ev["events"]
            .as_array()
            .expect("events")
            .iter()
            .map(|e| serde_json::from_value(e["event"].clone()).expect("event"))
            .collect();
        Tournament::replay(&events).expect("replay")
    }
}

/// A 9×9 McMahon tournament of six players (one with markup in its name), round 1 paired.
async fn site() -> Site {
    let server = Server::start().await;
    let c = client();
    let mut s = Site { server, c, id: 0 };
    let created = s
        .ok(
            "tournament.create",
            json!([{"name": format!("Open {EVIL}"), "rounds": 3, "board_size": 9, "system": "mcmahon"}]),
        )
        .await;
    s.id = created["id"].as_i64().expect("id");
    let players = [
        (EVIL, "Eve", "3d"),
        ("Black", "Bo", "2d"),
        ("White", "Wu", "2d"),
        ("Kim", "Ana", "1k"),
        ("Lee", "Ben", "5k"),
        ("Ng", "Cy", "10k"),
    ];
    for (name, first, rank) in players {
        s.ok(
            "tournament.player.add",
            json!([s.id, {"name": name, "first_name": first, "rank": rank, "club": "Tokyo & Co", "country": "JP"}]),
        )
        .await;
    }
    s.ok("tournament.round.pair", json!([s.id, 1])).await;
    s
}

fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

#[tokio::test]
async fn pages_have_tables_with_headers_and_escape_names() {
    let s = site().await;
    let id = s.id;
    let list = s.page("/").await;
    assert!(list.contains("<html lang=\"en\">"), "{list}");
    assert!(list.contains(&format!("href=\"/t/{id}\"")));
    for path in [
        "/".to_string(),
        format!("/t/{id}"),
        format!("/t/{id}/round/1"),
        format!("/t/{id}/standings"),
        format!("/t/{id}/crosstable"),
        format!("/t/{id}/player/1"),
    ] {
        let body = s.page(&path).await;
        assert!(body.starts_with("<!DOCTYPE html>"), "{path}");
        // Client-typed names never reach the page as markup.
        assert!(!body.contains("<script>alert"), "{path} has raw markup");
        assert!(
            body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{path}"
        );
        assert!(
            body.contains("Tokyo &amp; Co") || !path.contains("standings"),
            "{path}"
        );
        assert!(body.contains("<table"), "{path}");
        assert!(body.contains("<caption"), "{path}");
        assert!(
            body.contains("scope=\"col\"") || body.contains("scope=\"row\""),
            "{path}"
        );
        assert!(body.contains("/assets/site.css?v="), "{path}");
        assert!(body.contains("id=\"fragment\""), "{path}");
    }
    // Pairings: one row per game, both players linked, handicap and komi columns.
    let t = s.state().await;
    let round = t.data.round(1).expect("round 1");
    let pairings = s.page(&format!("/t/{id}/round/1")).await;
    assert_eq!(count(&pairings, "<tr data-table="), round.games.len());
    for col in [
        "Table",
        "White",
        "Black",
        "Handicap",
        "Komi",
        "Result (W–B)",
    ] {
        assert!(
            pairings.contains(&format!("<th scope=\"col\">{col}</th>")),
            "{col}"
        );
    }
    // Not published yet: the page says so.
    assert!(pairings.contains("not published yet"));
    // Directors get a result form that calls the RPC method.
    assert!(pairings.contains("data-method=\"tournament.result.set\""));
    // Standings: the tournament's own criteria as columns, rows in the engine's order.
    let page = s.page(&format!("/t/{id}/standings")).await;
    for c in t
        .data
        .settings
        .placement
        .iter()
        .filter(|c| c.0.name() != "NULL")
    {
        assert!(
            page.contains(&format!("<th scope=\"col\">{}</th>", c.0.name())),
            "{}",
            c.0.name()
        );
    }
    let want = standings(&t.data, 1, &t.data.settings.placement);
    let order: Vec<u32> = page
        .split("<tr data-player=\"")
        .skip(1)
        .chain(page.split("<tr class=\"tied\" data-player=\"").skip(1))
        .map(|s| s.split('"').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(order.len(), want.rows.len());
    let mut want_sorted: Vec<u32> = want.rows.iter().map(|r| r.id).collect();
    let mut got_sorted = order.clone();
    want_sorted.sort();
    got_sorted.sort();
    assert_eq!(got_sorted, want_sorted);
    s.server.stop().await;
}

#[tokio::test]
async fn standings_follow_results_with_shared_places() {
    let s = site().await;
    let id = s.id;
    let t = s.state().await;
    let games = t.data.round(1).expect("round 1").games.clone();
    for g in &games {
        s.ok("tournament.result.set", json!([id, 1, g.table, "W+"]))
            .await;
    }
    let t = s.state().await;
    let want = standings(&t.data, 1, &t.data.settings.placement);
    let page = s.page(&format!("/t/{id}/standings")).await;
    // Rows in the engine's order, each with its place; tied rows marked.
    let mut rest = page.as_str();
    for row in &want.rows {
        let tag = format!("data-player=\"{}\"", row.id);
        let at = rest
            .find(&tag)
            .unwrap_or_else(|| panic!("player {} out of order", row.id));
        let tr_start = rest[..at].rfind("<tr").expect("row start");
        let tr = &rest[tr_start..];
        assert_eq!(
            tr.starts_with("<tr class=\"tied\""),
            row.tied_with_previous,
            "{}",
            row.id
        );
        let place = format!("<td class=\"num\">{}</td>", row.place);
        assert!(
            tr[..tr.find("</tr>").unwrap()].contains(&place),
            "place of {}",
            row.id
        );
        rest = &rest[at + tag.len()..];
    }
    assert!(
        want.rows.iter().any(|r| r.tied_with_previous),
        "some places are shared"
    );
    // The pairings show the results White first; the crosstable EGF cells.
    let pairings = s.page(&format!("/t/{id}/round/1")).await;
    assert_eq!(
        count(&pairings, "<td class=\"result\">1–0</td>"),
        games.len()
    );
    let cross = s.page(&format!("/t/{id}/crosstable")).await;
    let places: std::collections::HashMap<u32, u32> =
        want.rows.iter().map(|r| (r.id, r.place)).collect();
    let g = &games[0];
    let hd = if g.handicap > 0 {
        g.handicap.to_string()
    } else {
        String::new()
    };
    let white_cell = format!("<td class=\"cell\">{}+/w{hd}</td>", places[&g.black]);
    let black_cell = format!("<td class=\"cell\">{}-/b{hd}</td>", places[&g.white]);
    assert!(cross.contains(&white_cell), "{white_cell} in {cross}");
    assert!(cross.contains(&black_cell), "{black_cell}");
    // The player page lists the game as a win.
    let player = s.page(&format!("/t/{id}/player/{}", g.white)).await;
    assert!(player.contains("<td>win</td>"), "{player}");
    s.server.stop().await;
}

#[tokio::test]
async fn bad_paths_are_400_and_unknown_things_404_as_pages() {
    let s = site().await;
    let id = s.id;
    for (path, want) in [
        ("/t/999999".to_string(), 404),
        ("/t/abc".to_string(), 400),
        ("/t/-1/standings".to_string(), 404),
        (format!("/t/{id}/round/99"), 404),
        (format!("/t/{id}/round/0"), 404),
        (format!("/t/{id}/round/x"), 400),
        (format!("/t/{id}/round/3"), 200), // in the settings, not paired: says so
        (format!("/t/{id}/player/999"), 404),
        (format!("/t/{id}/player/1e3"), 400),
        (format!("/t/{id}/round/1/game/999"), 404),
        (format!("/t/{id}/round/2/game/1"), 404),
        (format!("/t/{id}/round/1/game/%FF"), 400),
        (format!("/t/{id}/standings?after=9"), 404),
        (format!("/t/{id}/standings?after=x"), 400),
        (format!("/t/{id}/standings?after=0"), 200),
        ("/t/99999999999999999999999".to_string(), 400),
        (format!("/t/{id}/live/extra"), 404),
    ] {
        let (status, ct, body) = s.get(&path).await;
        assert_eq!(status, want, "{path}: {body}");
        if path.starts_with("/t/") && !path.ends_with("/extra") {
            assert_eq!(ct, "text/html; charset=utf-8", "{path}");
            assert!(body.contains("<html lang=\"en\">"), "{path}");
        }
    }
    let (_, _, body) = s.get(&format!("/t/{id}/round/3")).await;
    assert!(body.contains("not paired yet"));
    let (status, _, _) = s.get("/t/999999/live").await;
    assert_eq!(status, 404);
    s.server.stop().await;
}

#[tokio::test]
async fn fragments_are_the_main_part_only() {
    let s = site().await;
    let id = s.id;
    for path in ["standings", "crosstable", "round/1", ""] {
        let url = if path.is_empty() {
            format!("/t/{id}?fragment=1")
        } else {
            format!("/t/{id}/{path}?fragment=1")
        };
        let body = s.page(&url).await;
        assert!(!body.contains("<html"), "{url}");
        assert!(!body.contains("<header"), "{url}");
        assert!(body.contains("<table"), "{url}");
        assert!(body.starts_with("<h1>"), "{url}: {body}");
    }
    let list = s.page("/?fragment=1").await;
    assert!(list.starts_with("<h1>") && !list.contains("<html"));
    s.server.stop().await;
}

#[tokio::test]
async fn game_page_draws_the_record_and_counts_the_final_position() {
    let s = site().await;
    let id = s.id;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/score/games/large_eye_dame_9x9.sgf"
    );
    let sgf = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    // RE in the file is goscorer's count of the final position.
    let re = sgf
        .split("RE[")
        .nth(1)
        .and_then(|r| r.split(']').next())
        .expect("RE");
    let t = s.state().await;
    let g = t.data.round(1).unwrap().games[0].clone();
    let set = s
        .ok(
            "tournament.result.set",
            json!([id, 1, g.table, "W+", {"sgf": sgf}]),
        )
        .await;
    assert!(set["revision"].as_u64().is_some());
    let page = s.page(&format!("/t/{id}/round/1/game/{}", g.table)).await;
    assert!(page.contains("<svg id=\"board\""), "{page}");
    // One circle per point; every stone of the final position drawn.
    assert_eq!(count(&page, "<circle class=\"s s"), 81);
    let stones = sgf.matches(";B[").count() + sgf.matches(";W[").count()
        - sgf.matches(";B[]").count()
        - sgf.matches(";W[]").count();
    let drawn = count(&page, "class=\"s s1") + count(&page, "class=\"s s2");
    assert_eq!(drawn, stones, "no captures in this game");
    // 26 nodes with a move (two passes at the end): 26 steps for the viewer.
    assert!(page.contains("data-steps-count=\"26\""), "steps");
    assert!(
        page.contains(&format!("<strong id=\"counted\">{re}</strong>")),
        "counted {re}"
    );
    assert!(page.contains("id=\"terr\""));
    for b in ["first", "prev", "next", "last"] {
        assert!(page.contains(&format!("data-go=\"{b}\"")));
    }
    // The pairings link to it; a game without a record says so.
    let pairings = s.page(&format!("/t/{id}/round/1")).await;
    assert!(pairings.contains(&format!("/t/{id}/round/1/game/{}", g.table)));
    let other = t.data.round(1).unwrap().games[1].table;
    let none = s.page(&format!("/t/{id}/round/1/game/{other}")).await;
    assert!(none.contains("No game record"));
    assert!(!none.contains("<svg"));
    s.server.stop().await;
}

#[tokio::test]
async fn assets_are_embedded_and_cached_by_version() {
    let s = site().await;
    let page = s.page("/").await;
    for (kind, mime) in [("css", "text/css"), ("js", "text/javascript")] {
        let start = page
            .find(&format!("/assets/site.{kind}?v="))
            .unwrap_or_else(|| panic!("{kind} link"));
        let url: String = page[start..].chars().take_while(|c| *c != '"').collect();
        let r = s.c.get(s.server.url(&url)).send().await.unwrap();
        assert_eq!(r.status(), 200);
        let h = r.headers();
        assert!(h["content-type"].to_str().unwrap().starts_with(mime));
        assert!(h["cache-control"].to_str().unwrap().contains("immutable"));
        assert!(h.contains_key("etag"));
        let old =
            s.c.get(s.server.url(&format!("/assets/site.{kind}?v=old")))
                .send()
                .await
                .unwrap();
        assert_eq!(old.headers()["cache-control"], "no-cache");
    }
    let r = s.c.get(s.server.url("/")).send().await.unwrap();
    let csp = r.headers()["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("script-src 'self'"));
    s.server.stop().await;
}

#[tokio::test]
async fn a_page_script_call_passes_the_cross_site_guard() {
    let s = site().await;
    let origin = format!("http://{}", s.server.addr);
    // What the page script sends: same origin, JSON body.
    let r = s
        .c
        .post(s.server.url("/jsonrpc"))
        .header("origin", &origin)
        .header("sec-fetch-site", "same-origin")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tournament.round.publish", "params": [s.id, 1]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["result"]["published"], true, "{v}");
    let pairings = s.page(&format!("/t/{}/round/1", s.id)).await;
    assert!(!pairings.contains("not published yet"));
    // Another site's page may not.
    let r = s
        .c
        .post(s.server.url("/jsonrpc"))
        .header("origin", "http://evil.example")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tournament.round.publish", "params": [s.id, 1]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    s.server.stop().await;
}

#[tokio::test]
async fn exports_download_as_files() {
    let s = site().await;
    let id = s.id;
    let overview = s.page(&format!("/t/{id}")).await;
    for (format, ct, start) in [
        ("h9", "text/plain; charset=iso-8859-15", "; "),
        ("csv", "text/csv; charset=utf-8", ""),
        ("opengotha", "application/xml; charset=utf-8", "<?xml"),
    ] {
        assert!(
            overview.contains(&format!("/t/{id}/export/{format}")),
            "{format} link"
        );
        let (status, got_ct, body) = s.get(&format!("/t/{id}/export/{format}")).await;
        assert_eq!((status, got_ct.as_str()), (200, ct), "{format}: {body}");
        assert!(
            body.starts_with(start) && body.len() > 20,
            "{format}: {body}"
        );
    }
    let (status, _, _) = s.get(&format!("/t/{id}/export/nonsense")).await;
    assert_eq!(status, 404);
    s.server.stop().await;
}

/// Reads the stream until `want` appears or `limit` passes.
async fn read_until(resp: &mut reqwest::Response, want: &str, limit: Duration) -> String {
    let start = Instant::now();
    let mut seen = String::new();
    while start.elapsed() < limit && !seen.contains(want) {
        match tokio::time::timeout(limit.saturating_sub(start.elapsed()), resp.chunk()).await {
            Ok(Ok(Some(chunk))) => seen.push_str(&String::from_utf8_lossy(&chunk)),
            _ => break,
        }
    }
    seen
}

#[tokio::test]
async fn the_live_stream_delivers_a_result_set_over_rpc() {
    let s = site().await;
    let id = s.id;
    let mut live =
        s.c.get(s.server.url(&format!("/t/{id}/live")))
            .send()
            .await
            .unwrap();
    assert_eq!(live.status(), 200);
    assert!(
        live.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let t = s.state().await;
    let table = t.data.round(1).unwrap().games[0].table;
    let set = s
        .ok("tournament.result.set", json!([id, 1, table, "B+"]))
        .await;
    let revision = set["revision"].as_u64().unwrap();
    let seen = read_until(&mut live, "\n\n", Duration::from_secs(5)).await;
    assert!(seen.contains("event: change"), "{seen}");
    assert!(seen.contains(&format!("\"revision\":{revision}")), "{seen}");
    assert!(seen.contains("result_set"), "{seen}");
    // A deleted tournament ends the stream.
    s.ok("tournament.delete", json!([id])).await;
    let seen = read_until(&mut live, "event: deleted", Duration::from_secs(5)).await;
    assert!(seen.contains("event: deleted"), "{seen}");
    drop(live);
    // Shutdown is not held up by an open stream.
    let s2 = site().await;
    let _open =
        s2.c.get(s2.server.url(&format!("/t/{}/live", s2.id)))
            .send()
            .await
            .unwrap();
    let started = Instant::now();
    s2.server.stop().await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    s.server.stop().await;
}
