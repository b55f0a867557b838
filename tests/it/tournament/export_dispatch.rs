//! One export dispatch (`tournament::formats::export`): the pages' downloads and
//! `tournament.export` give the same file under the same name, for a tournament named in its
//! own language (a UTF-8 file name with an ASCII stand-in), and every format answers its file
//! name over RPC.

use crate::common;

use common::{Server, client};
use serde_json::{Value, json};

async fn event(server: &Server) -> i64 {
    let id = server
        .ok(
            "tournament.create",
            // Dates given: OpenGotha's file would otherwise take them from the time it is
            // written.
            json!([{"name": "Tournoi de Nîmes", "rounds": 2,
                    "begin_date": "2026-05-01", "end_date": "2026-05-02"}]),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    for (name, rank) in [
        ("Kim", "3d"),
        ("Lee", "1d"),
        ("Dupré", "2k"),
        ("Öhler", "5k"),
    ] {
        server
            .ok(
                "tournament.player.add",
                json!([id, {"name": name, "first_name": "A", "rank": rank}]),
            )
            .await;
    }
    server.ok("tournament.round.pair", json!([id, 1])).await;
    let round = server.ok("tournament.round.get", json!([id, 1])).await;
    for g in round["games"].as_array().unwrap() {
        server
            .ok("tournament.result.set", json!([id, 1, g["table"], "W+"]))
            .await;
    }
    id
}

struct Download {
    status: u16,
    mime: String,
    disposition: String,
    warnings: Option<String>,
    body: Vec<u8>,
}

async fn download(server: &Server, path: &str) -> Download {
    let r = client().get(server.url(path)).send().await.unwrap();
    let header = |k: &str| {
        r.headers()
            .get(k)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    Download {
        status: r.status().as_u16(),
        mime: header("content-type").unwrap_or_default(),
        disposition: header("content-disposition").unwrap_or_default(),
        warnings: header("x-export-warnings"),
        body: r.bytes().await.unwrap().to_vec(),
    }
}

/// The ISO-8859-1 reading of bytes (the EGF table's letters here are all in it).
fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| b as char).collect()
}

#[tokio::test]
async fn the_pages_download_what_tournament_export_answers_under_its_name() {
    let server = Server::start().await;
    let id = event(&server).await;
    let stem_ascii = "Tournoi_de_N_mes";
    let stem_utf8 = "Tournoi_de_N%C3%AEmes";
    for (format, suffix, mime) in [
        ("h9", ".h9", "text/plain; charset=iso-8859-15"),
        ("csv", "_standings.csv", "text/csv; charset=utf-8"),
        ("send2aga", "_send2aga.tde", "text/plain; charset=utf-8"),
    ] {
        let rpc = server.ok("tournament.export", json!([id, format])).await;
        assert_eq!(
            rpc["file_name"],
            format!("Tournoi_de_Nîmes{suffix}"),
            "{format}: {rpc}"
        );
        let d = download(&server, &format!("/t/{id}/export/{format}")).await;
        assert_eq!(d.status, 200, "{format}: {}", latin1(&d.body));
        assert_eq!(d.mime, mime, "{format}");
        assert_eq!(
            d.disposition,
            format!(
                "attachment; filename=\"{stem_ascii}{suffix}\"; \
                 filename*=UTF-8''{stem_utf8}{suffix}"
            ),
            "{format}"
        );
        let text = rpc["text"].as_str().unwrap();
        if format == "h9" {
            // One character per byte of the ISO-8859-15 file, over RPC and in the download.
            assert_eq!(latin1(&d.body), text, "{format}");
            assert!(text.contains("Dupr\u{e9}"), "{text}");
            let warned = rpc["warnings"].as_array().map_or(0, Vec::len);
            assert_eq!(d.warnings, Some(warned.to_string()), "{format}");
        } else {
            assert_eq!(String::from_utf8(d.body).unwrap(), text, "{format}");
        }
    }

    // OpenGotha's file carries the time it was written: the same file but for that.
    let rpc = server
        .ok(
            "tournament.export",
            json!([id, "opengotha", {"save_dt": "20261128120000"}]),
        )
        .await;
    assert_eq!(rpc["file_name"], "Tournoi_de_Nîmes.xml");
    let d = download(&server, &format!("/t/{id}/export/opengotha")).await;
    assert_eq!(d.mime, "application/xml; charset=utf-8");
    let page = String::from_utf8(d.body).unwrap();
    let strip = |x: &str| {
        x.lines()
            .filter(|l| !l.contains("saveDT"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&page), strip(rpc["text"].as_str().unwrap()));

    // The AGA archive and a file of it, named the same way.
    let rpc = server.ok("tournament.export", json!([id, "aga"])).await;
    assert_eq!(rpc["file_name"], "Tournoi_de_Nîmes_aga.zip", "{rpc}");
    assert_eq!(rpc["rounds"][0]["name"], "1.tde", "{rpc}");
    let d = download(&server, &format!("/t/{id}/export/aga")).await;
    assert_eq!(d.mime, "application/zip");
    assert_eq!(
        d.disposition,
        format!(
            "attachment; filename=\"{stem_ascii}_aga.zip\"; filename*=UTF-8''{stem_utf8}_aga.zip"
        )
    );
    let d = download(&server, &format!("/t/{id}/export/aga/1.tde")).await;
    assert_eq!(String::from_utf8(d.body).unwrap(), rpc["rounds"][0]["text"]);
    assert_eq!(d.disposition, "attachment; filename=\"1.tde\"");

    // What the pages do not offer is not there; the method names every format it knows.
    for format in ["h9_nobydef", "aga_results", "pdf"] {
        let d = download(&server, &format!("/t/{id}/export/{format}")).await;
        assert_eq!(d.status, 404, "{format}");
    }
    let e = server
        .call("tournament.export", json!([id, "pdf"]))
        .await
        .unwrap_err();
    assert_eq!(e.0, 1042, "{e:?}");
    for name in [
        "h9",
        "h9_nobydef",
        "csv",
        "opengotha",
        "aga",
        "send2aga",
        "aga_results",
    ] {
        assert!(e.1.contains(name), "{name}: {e:?}");
    }
    // A name in any case, with blanks around, as before.
    let v: Value = server.ok("tournament.export", json!([id, " CSV "])).await;
    assert_eq!(v["format"], "csv");
    server.stop().await;
}

/// A tournament whose name is all ASCII downloads under that name alone.
#[tokio::test]
async fn an_ascii_name_needs_no_second_name() {
    let server = Server::start().await;
    let id = server
        .ok(
            "tournament.create",
            json!([{"name": "Open", "short_name": "open26"}]),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let d = download(&server, &format!("/t/{id}/export/csv")).await;
    assert_eq!(d.status, 200);
    assert_eq!(
        d.disposition,
        "attachment; filename=\"open26_standings.csv\""
    );
    server.stop().await;
}
