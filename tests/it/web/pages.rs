//! The web pages over HTTP against the real server: status codes, content types, table
//! structure, escaping of client-typed names, fragments, errors, the game page's board and
//! count, assets' cache headers, and the live stream delivering a change made over RPC.

use crate::common;

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
        let v = common::rpc::jsonrpc(&self.c, &self.server.url("/jsonrpc"), method, params).await;
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
    // Cells name the opponent by line number (places can be shared, lines cannot).
    let lines: std::collections::HashMap<u32, usize> = want
        .rows
        .iter()
        .enumerate()
        .map(|(k, r)| (r.id, k + 1))
        .collect();
    let g = &games[0];
    let hd = g.handicap;
    let white_cell = format!(
        "<td class=\"cell\" data-kind=\"game\" data-result=\"win\">{}+/w{hd}</td>",
        lines[&g.black]
    );
    let black_cell = format!(
        "<td class=\"cell\" data-kind=\"game\" data-result=\"loss\">{}-/b{hd}</td>",
        lines[&g.white]
    );
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
        (format!("/t/{id}/crosstable?after=9"), 404),
        (format!("/t/{id}/crosstable?after=x"), 400),
        (format!("/t/{id}/crosstable?after=1"), 200),
        (format!("/t/{id}/export/aga/7.tde"), 404),
        (format!("/t/{id}/export/aga/..%2Fregister.tde"), 404),
        ("/t/x/export/aga".to_string(), 400),
        ("/t/999999/export/aga".to_string(), 404),
        ("/t/999999/director".to_string(), 404),
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
    let seen = read_until(&mut live, "\n\n", Duration::from_secs(60)).await;
    assert!(seen.contains("event: change"), "{seen}");
    assert!(seen.contains(&format!("\"revision\":{revision}")), "{seen}");
    assert!(seen.contains("result_set"), "{seen}");
    // A deleted tournament ends the stream.
    s.ok("tournament.delete", json!([id])).await;
    let seen = read_until(&mut live, "event: deleted", Duration::from_secs(60)).await;
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
    // Held up, it would take the 10 s grace for busy connections; under that, however loaded
    // the machine (the store's flush on a busy disk included).
    assert!(
        started.elapsed() < Duration::from_secs(9),
        "{:?}",
        started.elapsed()
    );
    s.server.stop().await;
}

/// The crosstable page's rows: (player id, line number, place, [(text, kind, result)]).
type PageRow = (u64, u64, u64, Vec<(String, String, String)>);

fn crosstable_rows(page: &str) -> Vec<PageRow> {
    let attr = |cell: &str, name: &str| -> String {
        let key = format!("{name}=\"");
        let at = cell
            .find(&key)
            .unwrap_or_else(|| panic!("{name} in {cell}"))
            + key.len();
        cell[at..].split('"').next().unwrap().to_string()
    };
    page.split("<tr data-player=\"")
        .skip(1)
        .map(|chunk| {
            let row = &chunk[..chunk.find("</tr>").expect("row end")];
            let id: u64 = row.split('"').next().unwrap().parse().unwrap();
            let nums: Vec<u64> = row
                .split("<td class=\"num\">")
                .skip(1)
                .take(2)
                .map(|n| n.split('<').next().unwrap().parse().unwrap())
                .collect();
            let cells = row
                .split("<td class=\"cell\"")
                .skip(1)
                .map(|c| {
                    let open = &c[..c.find('>').unwrap()];
                    let text = c[c.find('>').unwrap() + 1..].split("</td>").next().unwrap();
                    (
                        text.to_string(),
                        attr(open, "data-kind"),
                        attr(open, "data-result"),
                    )
                })
                .collect();
            (id, nums[0], nums[1], cells)
        })
        .collect()
}

#[tokio::test]
async fn the_crosstable_page_and_the_rpc_agree_cell_for_cell() {
    let s = site().await;
    let id = s.id;
    // A seventh player: someone gets the bye from round 2 on.
    s.ok(
        "tournament.player.add",
        json!([id, {"name": "Odd", "first_name": "One", "rank": "4k"}]),
    )
    .await;
    let t = s.state().await;
    let games = t.data.round(1).expect("round 1").games.clone();
    // A win each way, a forfeit, a jigo: every kind of cell.
    for (g, result) in games.iter().zip(["W+", "B+!", "jigo"]) {
        s.ok("tournament.result.set", json!([id, 1, g.table, result]))
            .await;
    }
    s.ok("tournament.round.pair", json!([id, 2])).await;
    let t = s.state().await;
    let round2 = t.data.round(2).expect("round 2");
    assert!(!round2.byes.is_empty(), "round 2 has a bye");
    // One result in round 2, the others not known yet.
    s.ok(
        "tournament.result.set",
        json!([id, 2, round2.games[0].table, "B+"]),
    )
    .await;
    let mut kinds = std::collections::HashSet::new();
    for (query, after) in [("", 2), ("?after=1", 1), ("?after=2", 2), ("?after=0", 0)] {
        let page = s.page(&format!("/t/{id}/crosstable{query}")).await;
        let rpc = s.ok("tournament.crosstable", json!([id, after])).await;
        assert_eq!(rpc["after_round"], json!(after));
        let want = rpc["rows"].as_array().expect("rows");
        let got = crosstable_rows(&page);
        assert_eq!(got.len(), want.len(), "{query}: rows");
        assert_eq!(got.len(), 7);
        for (g, w) in got.iter().zip(want) {
            assert_eq!(g.0, w["player_id"].as_u64().unwrap(), "{query}: order");
            assert_eq!(g.1, w["position"].as_u64().unwrap(), "{query}: line");
            assert_eq!(g.2, w["place"].as_u64().unwrap(), "{query}: place");
            let cells = w["cells"].as_array().expect("cells");
            assert_eq!(g.3.len(), cells.len(), "{query}: cells of {}", g.0);
            assert_eq!(cells.len(), after as usize);
            for (gc, wc) in g.3.iter().zip(cells) {
                assert_eq!(gc.0, wc["text"].as_str().unwrap(), "{query}: {wc}");
                assert_eq!(gc.1, wc["kind"].as_str().unwrap(), "{query}: {wc}");
                assert_eq!(gc.2, wc["result"].as_str().unwrap(), "{query}: {wc}");
                kinds.insert((gc.1.clone(), gc.2.clone(), gc.0.contains('!')));
            }
        }
    }
    // The comparison covered games won, lost, drawn, unknown, forfeited, and the bye.
    for want in [
        ("game", "win", false),
        ("game", "loss", false),
        ("game", "jigo", false),
        ("game", "unknown", false),
        ("game", "win", true),
        ("game", "loss", true),
    ] {
        let want = (want.0.to_string(), want.1.to_string(), want.2);
        assert!(kinds.contains(&want), "{want:?} in {kinds:?}");
    }
    assert!(kinds.iter().any(|k| k.0 == "bye"), "{kinds:?}");
    s.server.stop().await;
}

/// A zip archive's files, read with the central directory and checked with flate2's CRC-32
/// (not the writer's).
fn unzip(z: &[u8]) -> Vec<(String, Vec<u8>)> {
    let u16_at = |at: usize| u16::from_le_bytes([z[at], z[at + 1]]) as usize;
    let u32_at = |at: usize| u32::from_le_bytes([z[at], z[at + 1], z[at + 2], z[at + 3]]);
    let end = z.len() - 22;
    assert_eq!(u32_at(end), 0x0605_4B50, "end of central directory");
    let n = u16_at(end + 10);
    let mut at = u32_at(end + 16) as usize;
    let mut out = Vec::new();
    for _ in 0..n {
        assert_eq!(u32_at(at), 0x0201_4B50, "central directory entry");
        assert_eq!(u16_at(at + 10), 0, "stored");
        let crc = u32_at(at + 16);
        let size = u32_at(at + 24) as usize;
        let name_len = u16_at(at + 28);
        let name = String::from_utf8(z[at + 46..at + 46 + name_len].to_vec()).unwrap();
        let local = u32_at(at + 42) as usize;
        assert_eq!(u32_at(local), 0x0403_4B50, "local header of {name}");
        let start = local + 30 + u16_at(local + 26) + u16_at(local + 28);
        let data = z[start..start + size].to_vec();
        let mut c = flate2::Crc::new();
        c.update(&data);
        assert_eq!(c.sum(), crc, "CRC-32 of {name}");
        out.push((name, data));
        at += 46 + name_len;
    }
    out
}

fn disposition(r: &reqwest::Response) -> String {
    r.headers()
        .get("content-disposition")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string()
}

#[tokio::test]
async fn aga_files_download_one_by_one_and_as_a_zip() {
    let s = site().await;
    let id = s.id;
    s.ok(
        "tournament.settings.set",
        json!([id, {"short_name": "open26"}]),
    )
    .await;
    let t = s.state().await;
    for g in &t.data.round(1).expect("round 1").games {
        s.ok("tournament.result.set", json!([id, 1, g.table, "W+"]))
            .await;
    }
    s.ok("tournament.round.pair", json!([id, 2])).await;
    let want = s.ok("tournament.export", json!([id, "aga"])).await;
    let mut files = vec![(
        "register.tde".to_string(),
        want["register"].as_str().unwrap().to_string(),
    )];
    for r in want["rounds"].as_array().unwrap() {
        files.push((
            r["name"].as_str().unwrap().to_string(),
            r["text"].as_str().unwrap().to_string(),
        ));
    }
    assert_eq!(
        files.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(),
        ["register.tde", "1.tde", "2.tde"]
    );
    // The overview links every file and the archive.
    let overview = s.page(&format!("/t/{id}")).await;
    for (name, _) in &files {
        assert!(
            overview.contains(&format!("href=\"/t/{id}/export/aga/{name}\"")),
            "{name} link"
        );
    }
    assert!(overview.contains(&format!("href=\"/t/{id}/export/aga\"")));
    for (name, text) in &files {
        let r =
            s.c.get(s.server.url(&format!("/t/{id}/export/aga/{name}")))
                .send()
                .await
                .unwrap();
        assert_eq!(r.status(), 200, "{name}");
        assert_eq!(
            r.headers()["content-type"],
            "text/plain; charset=utf-8",
            "{name}"
        );
        assert_eq!(disposition(&r), format!("attachment; filename=\"{name}\""));
        assert_eq!(&r.text().await.unwrap(), text, "{name}");
    }
    // A player's line in the register, a game's line in the round file: real content.
    assert!(files[0].1.contains("Kim, Ana"), "{}", files[0].1);
    assert!(files[1].1.starts_with("## ROUND 1\n") && files[1].1.contains(" w "));
    let r =
        s.c.get(s.server.url(&format!("/t/{id}/export/aga")))
            .send()
            .await
            .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/zip");
    assert_eq!(disposition(&r), "attachment; filename=\"open26_aga.zip\"");
    let zip = r.bytes().await.unwrap().to_vec();
    let got: Vec<(String, String)> = unzip(&zip)
        .into_iter()
        .map(|(n, d)| (n, String::from_utf8(d).expect("UTF-8 text")))
        .collect();
    assert_eq!(got, files);
    // Python's zipfile (what users' tools are like) reads it too, CRCs checked.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("aga.zip");
    std::fs::write(&path, &zip).unwrap();
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile, json\n\
             z = zipfile.ZipFile(sys.argv[1])\n\
             assert z.testzip() is None\n\
             print(json.dumps([[i.filename, z.read(i).decode()] for i in z.infolist()]))",
        ])
        .arg(&path)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let py: Vec<(String, String)> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(py, files);
    s.server.stop().await;
}

const ADMIN: &str = "admin-token-for-web-pages-0123456789";

/// A GET with an optional Bearer token: (status, body).
async fn get_as(s: &Site, path: &str, token: Option<&str>) -> (u16, String) {
    let mut req = s.c.get(s.server.url(path));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let r = req.send().await.expect("get");
    (r.status().as_u16(), r.text().await.expect("body"))
}

async fn call_as(s: &Site, method: &str, params: Value, token: &str) -> Value {
    let v: Value =
        s.c.post(s.server.url("/jsonrpc"))
            .bearer_auth(token)
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
            .send()
            .await
            .expect("send")
            .json()
            .await
            .expect("json reply");
    v.get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method}: {v}"))
}

#[tokio::test]
async fn with_auth_on_unpublished_rounds_are_for_the_director_only() {
    let server = Server::start_with(goswiss::config::Config {
        admin_token: goswiss::config::Secret(ADMIN.into()),
        ..goswiss::config::Config::default()
    })
    .await;
    let mut s = Site {
        server,
        c: client(),
        id: 0,
    };
    // With auth on, creating is the operator's (the admin token).
    let created = call_as(
        &s,
        "tournament.create",
        json!([{"name": "Closed Open", "rounds": 3, "board_size": 9}]),
        ADMIN,
    )
    .await;
    s.id = created["id"].as_i64().unwrap();
    let id = s.id;
    let dt = created["director_token"].as_str().unwrap().to_string();
    for (name, rank) in [("Ann", "3d"), ("Bob", "1d"), ("Cat", "2k"), ("Dan", "5k")] {
        call_as(
            &s,
            "tournament.player.add",
            json!([id, {"name": name, "first_name": "X", "rank": rank}]),
            &dt,
        )
        .await;
    }
    call_as(&s, "tournament.round.pair", json!([id, 1]), &dt).await;
    // The log as the director reads it: the public's leaves the draft round's events out.
    let ev = call_as(&s, "tournament.events", json!([id, 0]), &dt).await;
    let events: Vec<goswiss::tournament::Event> = ev["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| serde_json::from_value(e["event"].clone()).expect("event"))
        .collect();
    let t = Tournament::replay(&events).expect("replay");
    let g = t.data.round(1).unwrap().games[0].clone();
    let white = t.data.player(g.white).unwrap().name.clone();

    // The director-mode check: only the tournament's token or the admin's opens it.
    for (token, director) in [
        (None, false),
        (Some("wrong"), false),
        (Some(dt.as_str()), true),
        (Some(ADMIN), true),
    ] {
        let (status, body) = get_as(&s, &format!("/t/{id}/director"), token).await;
        assert_eq!(status, 200);
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v, json!({"auth": true, "director": director}), "{token:?}");
    }

    // Round 1 is paired, not published: the public sees a note, no games.
    let hidden_paths = [
        format!("/t/{id}/round/1"),
        format!("/t/{id}/round/1?fragment=1"),
        format!("/t/{id}/player/{}", g.white),
    ];
    for token in [None, Some("wrong")] {
        for path in &hidden_paths {
            let (status, body) = get_as(&s, path, token).await;
            assert_eq!(status, 200, "{path}");
            assert!(body.contains("not published yet"), "{path}: {body}");
            assert!(!body.contains("<table class=\"pairings\""), "{path}");
            assert!(
                !body.contains(&format!("/round/1/game/{}", g.table)),
                "{path}"
            );
        }
        let (status, _) = get_as(&s, &format!("/t/{id}/round/1"), token).await;
        assert_eq!(status, 200);
        let (_, pairings) = get_as(&s, &format!("/t/{id}/round/1"), token).await;
        assert_eq!(count(&pairings, "<tr data-table="), 0);
        for (path, want) in [
            (format!("/t/{id}/standings?after=1"), 404),
            (format!("/t/{id}/crosstable?after=1"), 404),
            (format!("/t/{id}/export/aga/1.tde"), 404),
            (format!("/t/{id}/standings"), 200),
        ] {
            assert_eq!(get_as(&s, &path, token).await.0, want, "{path}");
        }
        let (_, overview) = get_as(&s, &format!("/t/{id}"), token).await;
        assert!(!overview.contains(&format!("/t/{id}/export/aga/1.tde")));
        assert!(overview.contains(&format!("/t/{id}/export/aga/register.tde")));
    }
    // The director (or the admin) sees them, marked as a draft.
    for token in [dt.as_str(), ADMIN] {
        let (_, body) = get_as(&s, &format!("/t/{id}/round/1?fragment=1"), Some(token)).await;
        assert!(body.contains("<table class=\"pairings\""), "{body}");
        assert!(body.contains("may still change"), "{body}");
        assert!(body.contains(&white), "{body}");
        let (_, player) = get_as(&s, &format!("/t/{id}/player/{}", g.white), Some(token)).await;
        assert!(!player.contains("not published yet"));
        assert_eq!(
            get_as(&s, &format!("/t/{id}/export/aga/1.tde"), Some(token))
                .await
                .0,
            200
        );
        assert_eq!(
            get_as(&s, &format!("/t/{id}/crosstable?after=1"), Some(token))
                .await
                .0,
            200
        );
    }
    // A result in the hidden round does not reach the public standings either.
    call_as(
        &s,
        "tournament.result.set",
        json!([id, 1, g.table, "W+"]),
        &dt,
    )
    .await;
    let (_, st) = get_as(&s, &format!("/t/{id}/standings"), None).await;
    assert!(st.contains("Standings before the first round"), "{st}");
    let (_, st) = get_as(&s, &format!("/t/{id}/standings"), Some(&dt)).await;
    assert!(st.contains("Standings after round 1"), "{st}");

    // Published: everyone sees the pairings, without the draft note.
    call_as(&s, "tournament.round.publish", json!([id, 1]), &dt).await;
    let (_, body) = get_as(&s, &format!("/t/{id}/round/1"), None).await;
    assert!(body.contains("<table class=\"pairings\""));
    assert!(!body.contains("not published yet") && !body.contains("may still change"));
    let (status, _) = get_as(&s, &format!("/t/{id}/export/aga/1.tde"), None).await;
    assert_eq!(status, 200);
    let (_, zip) = {
        let r =
            s.c.get(s.server.url(&format!("/t/{id}/export/aga")))
                .send()
                .await
                .unwrap();
        (r.status(), r.bytes().await.unwrap().to_vec())
    };
    let names: Vec<String> = unzip(&zip).into_iter().map(|f| f.0).collect();
    assert_eq!(names, ["register.tde", "1.tde"]);
    // Round 2 paired, not published: left out of the public archive again.
    call_as(&s, "tournament.round.pair", json!([id, 2]), &dt).await;
    let r =
        s.c.get(s.server.url(&format!("/t/{id}/export/aga")))
            .send()
            .await
            .unwrap();
    let names: Vec<String> = unzip(&r.bytes().await.unwrap())
        .into_iter()
        .map(|f| f.0)
        .collect();
    assert_eq!(names, ["register.tde", "1.tde"]);
    s.server.stop().await;
}

#[tokio::test]
async fn with_auth_off_unpublished_rounds_show_with_a_draft_note() {
    let s = site().await;
    let id = s.id;
    let (status, body) = get_as(&s, &format!("/t/{id}/director"), None).await;
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"auth": false, "director": true})
    );
    let (_, body) = get_as(&s, &format!("/t/{id}/round/1"), None).await;
    assert!(body.contains("may still change"));
    assert!(body.contains("<table class=\"pairings\""));
    assert_eq!(
        get_as(&s, &format!("/t/{id}/export/aga/1.tde"), None)
            .await
            .0,
        200
    );
    s.server.stop().await;
}

#[tokio::test]
async fn downloads_say_what_their_files_write_otherwise() {
    let server = Server::start().await;
    let mut s = Site {
        server,
        c: client(),
        id: 0,
    };
    let created = s
        .ok("tournament.create", json!([{"name": "Names", "rounds": 2}]))
        .await;
    s.id = created["id"].as_i64().expect("id");
    let id = s.id;
    for (name, first) in [
        ("Wałęsa", "Łukasz"),
        ("李", "明"),
        ("Doe", "Jo"),
        ("Roe", "Al"),
    ] {
        s.ok(
            "tournament.player.add",
            json!([id, {"name": name, "first_name": first, "rank": "3k"}]),
        )
        .await;
    }
    s.ok("tournament.round.pair", json!([id, 1])).await;
    let overview = s.page(&format!("/t/{id}")).await;
    // Next to the EGF table's link: each name it writes otherwise, and how.
    let h9_link = overview
        .find(&format!("/t/{id}/export/h9\""))
        .expect("h9 link");
    let after = &overview[h9_link..];
    // Up to the next download link.
    let link_len = format!("/t/{id}/export/h9\"").len();
    let next = after[link_len..]
        .find("/export/")
        .map_or(after.len(), |k| k + link_len);
    let item = &after[..next];
    assert!(item.contains("Written otherwise in this file:"), "{item}");
    assert!(item.contains("Walesa Lukasz"), "{item}");
    assert!(
        item.contains("李 明") && item.contains("cannot hold"),
        "{item}"
    );
    assert!(!item.contains("Doe"), "{item}");
    // The download itself says how many, in a header.
    let r =
        s.c.get(s.server.url(&format!("/t/{id}/export/h9")))
            .send()
            .await
            .expect("get");
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-export-warnings"], "2");
    let r =
        s.c.get(s.server.url(&format!("/t/{id}/export/csv")))
            .send()
            .await
            .expect("get");
    assert_eq!(r.headers()["x-export-warnings"], "0");
    s.server.stop().await;
}

/// With auth on, the live stream (anonymous: an `EventSource` sends no token) says that a
/// draft round changed, but not what: an unpublished round's events are not named, as the
/// public pages do not show them; once published they are.
#[tokio::test]
async fn with_auth_on_the_live_stream_does_not_name_a_draft_rounds_events() {
    const ADMIN: &str = "admin-web-live-0123456789abcdef";
    let server = Server::start_with(goswiss::config::Config {
        admin_token: goswiss::config::Secret(ADMIN.into()),
        ..goswiss::config::Config::default()
    })
    .await;
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::AUTHORIZATION,
        format!("Bearer {ADMIN}").parse().unwrap(),
    );
    let admin = reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .unwrap();
    let url = server.url("/jsonrpc");
    let ok = |method: &'static str, params: Value| {
        let (admin, url) = (&admin, &url);
        async move {
            let v = common::rpc::jsonrpc(admin, url, method, params).await;
            v.get("result")
                .cloned()
                .unwrap_or_else(|| panic!("{method}: {v}"))
        }
    };
    let id = ok("tournament.create", json!([{"rounds": 2}])).await["id"].clone();
    for (name, rank) in [("Ai", "1d"), ("Bo", "2k"), ("Cy", "3k"), ("Di", "4k")] {
        ok(
            "tournament.player.add",
            json!([id, {"name": name, "rank": rank}]),
        )
        .await;
    }
    ok("tournament.round.pair", json!([id, 1])).await;
    let mut live = client()
        .get(server.url(&format!("/t/{id}/live")))
        .send()
        .await
        .unwrap();
    assert_eq!(live.status(), 200);
    let mut expect = async |revision: &Value, kinds: Value| {
        let want = format!("\"revision\":{revision}");
        let seen = read_until(&mut live, &want, Duration::from_secs(60)).await;
        let line = seen
            .lines()
            .find(|l| l.contains(&want))
            .unwrap_or_else(|| panic!("{seen}"));
        let data: Value = serde_json::from_str(line.trim_start_matches("data:").trim()).unwrap();
        assert_eq!(data["kinds"], kinds, "{line}");
    };
    let set = ok("tournament.result.set", json!([id, 1, 1, "W+"])).await;
    expect(&set["revision"], json!([])).await;
    let added = ok(
        "tournament.player.add",
        json!([id, {"name": "Ed", "rank": "5k"}]),
    )
    .await;
    expect(&added["revision"], json!(["player_registered"])).await;
    let published = ok("tournament.round.publish", json!([id, 1])).await;
    expect(&published["revision"], json!(["round_published"])).await;
    let set = ok("tournament.result.set", json!([id, 1, 1, "B+"])).await;
    expect(&set["revision"], json!(["result_set"])).await;
    drop(live);
    server.stop().await;
}
