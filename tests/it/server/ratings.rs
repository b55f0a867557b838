//! `ratings.*` end to end: the three lists imported over XML-RPC and JSON-RPC (text, base64 of
//! their own encodings, gzip), searched accent- and case-insensitively with each entry's player
//! as OpenGotha fills it; an import replacing its list; the lists kept across a restart; the
//! admin token needed to import with auth on (searches stay open); `goswiss ratings` working
//! on a running daemon's database; the caps and error codes (README "Error codes").

use crate::common;

use std::io::Write;

use base64::Engine as _;
use common::rpc::{Client, Proto, xml_outcome, xml_value};
use common::{Server, client, files};
use goswiss::config::{Config, Secret};
use serde_json::{Value, json};

const FFG: &str = "ratings/ech_ffg_V3-2021-01-11-excerpt.txt";
const EGF: &str = "ratings/egf_db-2018-12-27-excerpt.txt";
const AGA: &str = "ratings/tdlista-2021-excerpt.txt";
const ADMIN: &str = "admin-ratings-5c1e9a7b3d2f4e60";

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// The file's bytes as `ratings.import` takes them: base64 (the FFG and EGF files are
/// ISO-8859-1, not UTF-8).
fn import_params(kind: &str, rel: &str) -> Vec<Value> {
    vec![
        json!(kind),
        json!(b64(&files::read(files::data(rel)))),
        json!({"base64": true, "source": rel.rsplit('/').next().unwrap()}),
    ]
}

/// "FAMILY Given" of each entry of a search answer.
fn names(found: &Value) -> Vec<String> {
    found["entries"]
        .as_array()
        .unwrap_or_else(|| panic!("no entries: {found}"))
        .iter()
        .map(|e| {
            format!(
                "{} {}",
                e["player"]["name"].as_str().unwrap(),
                e["player"]["first_name"].as_str().unwrap()
            )
        })
        .collect()
}

#[tokio::test]
async fn lists_import_and_search_on_both_protocols() {
    for proto in [Proto::Xml, Proto::Json] {
        let server = Server::start().await;
        let c = Client::new(&server, proto);

        let ffg = c.ok("ratings.import", import_params("ffg", FFG)).await;
        assert_eq!(ffg["kind"], "ffg", "{proto:?}");
        // OpenGotha's 107 rows and "ÉTIENNE Fabrice", which it drops (docs/ratings.md).
        assert_eq!(ffg["entries"], 108, "{ffg}");
        assert_eq!(ffg["list_date"], "11/01/2021 07:09:39");
        assert_eq!(ffg["list_date_iso"], "2021-01-11");
        assert_eq!(ffg["source"], "ech_ffg_V3-2021-01-11-excerpt.txt");
        assert_eq!(ffg["replaced"], false);

        // The EGF list gzip-compressed, as the full 7 MB list must travel under the body cap.
        let egf_file = gzip(&files::read(files::data(EGF)));
        let egf = c
            .ok(
                "ratings.import",
                vec![json!("EGF"), json!(b64(&egf_file)), json!({"base64": true})],
            )
            .await;
        assert_eq!(egf["entries"], 37, "{egf}");
        assert_eq!(egf["list_date_iso"], "2018-12-27");

        // The AGA TDList is UTF-8: as plain text.
        let aga_text = files::read_to_string(files::data(AGA));
        let aga = c
            .ok("ratings.import", vec![json!("aga"), json!(aga_text)])
            .await;
        assert_eq!(aga["entries"], 34, "{aga}");

        // Accents and case do not matter, "family given" and "given family" both find.
        let found = c
            .ok(
                "ratings.search",
                vec![json!("ffg"), json!("etienne"), json!(5)],
            )
            .await;
        assert_eq!(
            names(&found)[..2],
            ["ÉTIENNE Fabrice", "MULLER Etienne"],
            "{proto:?}"
        );
        let found = c
            .ok("ratings.search", vec![json!("ffg"), json!("Francois Zwil")])
            .await;
        assert_eq!(names(&found), ["ZWILLING François"]);
        // The player as OpenGotha fills it from the échelle (oracle/…-excerpt.tsv: rating
        // -500 → 1550, 5K).
        let e = &found["entries"][0];
        assert_eq!(e["list"], "ffg");
        assert_eq!(
            e["player"],
            json!({
                "name": "ZWILLING", "first_name": "François", "rank": "5K", "rating": 1550,
                "rating_origin": "FFG", "grade": "5K", "country": "FR", "club": "74An",
                "egf_pin": "", "ffg_licence": "1200075", "ffg_licence_status": "-",
                "aga_id": "", "aga_expiration": ""
            })
        );
        assert_eq!(e["listed_rating"], "-500");
        assert_eq!(found["more"], false);

        let found = c
            .ok("ratings.search", vec![json!("egf"), json!("ágota")])
            .await;
        assert_eq!(names(&found), ["Dreelyi_Kis Ágota"]);
        assert_eq!(found["entries"][0]["player"]["rating_origin"], "EGF");
        let found = c
            .ok("ratings.search", vec![json!("aga"), json!("FROB")])
            .await;
        assert_eq!(names(&found), ["Fröberg Oscar"]);
        assert_eq!(found["entries"][0]["player"]["aga_id"], "22629");
        let found = c
            .ok("ratings.search", vec![json!("aga"), json!("bjorn w")])
            .await;
        assert_eq!(names(&found), ["Wendsjö Björn"]);

        // "all": every list, merged best first; `more` says the limit cut some off.
        let found = c
            .ok(
                "ratings.search",
                vec![json!("all"), json!("muller "), json!(40)],
            )
            .await;
        let lists: std::collections::BTreeSet<&str> = found["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["list"].as_str().unwrap())
            .collect();
        assert_eq!(lists, ["egf", "ffg"].into(), "{found}");
        let two = c
            .ok(
                "ratings.search",
                vec![json!("all"), json!("muller"), json!(2)],
            )
            .await;
        assert_eq!(two["entries"].as_array().unwrap().len(), 2);
        assert_eq!(two["more"], true);
        // An id finds its entry.
        let found = c
            .ok("ratings.search", vec![json!("all"), json!("1200075")])
            .await;
        assert_eq!(names(&found), ["ZWILLING François"]);
        // Nothing to look for: nothing found.
        let found = c.ok("ratings.search", vec![json!("all"), json!(" ")]).await;
        assert_eq!(found["entries"], json!([]));

        let info = c.ok("ratings.info", vec![]).await;
        let kinds: Vec<&str> = info["lists"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["egf", "ffg", "aga"]);
        assert!(info["lists"][2].get("list_date").is_none(), "{info}");
        server.stop().await;
    }
}

#[tokio::test]
async fn an_import_replaces_its_list_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ratings.db");
    let server = Server::start_on(&db, Config::default()).await;
    server
        .ok("ratings.import", json!(import_params("ffg", FFG)))
        .await;
    // A newer échelle: only its first three players.
    let full = files::read(files::data(FFG));
    let newer: Vec<u8> = full
        .split_inclusive(|&b| b == b'\n')
        .take(4)
        .flatten()
        .copied()
        .collect();
    let replaced = server
        .ok(
            "ratings.import",
            json!(["ffg", b64(&newer), {"base64": true}]),
        )
        .await;
    assert_eq!(replaced["replaced"], true);
    assert_eq!(replaced["entries"], 3, "{replaced}");
    let found = server
        .ok("ratings.search", json!(["ffg", "zwilling"]))
        .await;
    assert_eq!(found["entries"], json!([]), "the old list is gone");
    let first = server.ok("ratings.info", json!([])).await;
    server.stop().await;

    let server = Server::start_on(&db, Config::default()).await;
    let again = server.ok("ratings.info", json!([])).await;
    assert_eq!(again, first, "the same import, read back at start");
    let found = server.ok("ratings.search", json!(["ffg", "aaij"])).await;
    assert_eq!(names(&found), ["AAIJ René"]);
    server.stop().await;
}

#[tokio::test]
async fn errors_and_caps() {
    let server = Server::start().await;
    let err = |r: Result<Value, (i64, String)>| r.expect_err("an error");
    // Nothing imported yet.
    let (code, msg) = err(server.call("ratings.search", json!(["egf", "kim"])).await);
    assert_eq!(code, 1204, "{msg}");
    assert_eq!(
        err(server.call("ratings.search", json!(["all", "kim"])).await).0,
        1204
    );
    assert_eq!(
        server.ok("ratings.info", json!([])).await["lists"],
        json!([])
    );
    // Kinds.
    assert_eq!(
        err(server.call("ratings.import", json!(["elo", "x"])).await).0,
        1201
    );
    assert_eq!(
        err(server.call("ratings.import", json!(["all", "x"])).await).0,
        1201
    );
    assert_eq!(
        err(server.call("ratings.search", json!(["xyz", "kim"])).await).0,
        1201
    );
    // Files that are not such a list.
    let (code, msg) = err(server
        .call(
            "ratings.import",
            json!(["egf", "<html>no list here</html>"]),
        )
        .await);
    assert_eq!(code, 1202, "{msg}");
    assert!(msg.contains("EGF"), "{msg}");
    let (code, msg) = err(server
        .call(
            "ratings.import",
            json!(["egf", b64(b"PK\x03\x04broken"), {"base64": true}]),
        )
        .await);
    assert_eq!(code, 1202, "{msg}");
    let (code, msg) = err(server
        .call("ratings.import", json!(["egf", "%%%", {"base64": true}]))
        .await);
    assert_eq!(code, -32602, "{msg}");
    let (code, msg) = err(server
        .call("ratings.import", json!(["egf", "x", {"base65": true}]))
        .await);
    assert_eq!(code, -32602, "{msg}");
    // A small gzip file that unpacks past the 16 MiB cap is stopped at the cap.
    let bomb = gzip(&vec![b' '; 17 * 1024 * 1024]);
    assert!(bomb.len() < 100_000);
    let (code, msg) = err(server
        .call(
            "ratings.import",
            json!(["aga", b64(&bomb), {"base64": true}]),
        )
        .await);
    assert_eq!(code, 1203, "{msg}");
    // Rows over the cap (200,000), in a file under the byte cap.
    let rows: String = (0..200_001)
        .map(|k| format!("Family{k}, Given\t{k}\n"))
        .collect();
    let (code, msg) = err(server
        .call(
            "ratings.import",
            json!(["aga", b64(&gzip(rows.as_bytes())), {"base64": true}]),
        )
        .await);
    assert_eq!(code, 1203, "{msg}");
    assert_eq!(
        server.ok("ratings.info", json!([])).await["lists"],
        json!([])
    );
    // Search caps.
    server
        .ok("ratings.import", json!(import_params("ffg", FFG)))
        .await;
    assert_eq!(
        err(server
            .call("ratings.search", json!(["ffg", "kim", 101]))
            .await)
        .0,
        1203
    );
    assert!(
        server
            .call("ratings.search", json!(["ffg", "kim", 100]))
            .await
            .is_ok()
    );
    assert_eq!(
        err(server
            .call("ratings.search", json!(["ffg", "k".repeat(101)]))
            .await)
        .0,
        1203
    );
    assert_eq!(
        err(server
            .call("ratings.search", json!(["ffg", "kim", -1]))
            .await)
        .0,
        -32602
    );
    assert_eq!(
        err(server.call("ratings.search", json!(["ffg"])).await).0,
        -32602
    );
    server.stop().await;
}

async fn call_as(
    server: &Server,
    proto: Proto,
    token: Option<&str>,
    method: &str,
    params: Vec<Value>,
) -> Result<Value, (i64, String)> {
    let req = match proto {
        Proto::Xml => {
            let mut body = format!(
                "<?xml version=\"1.0\"?><methodCall><methodName>{method}</methodName><params>"
            );
            for p in &params {
                body.push_str(&format!("<param><value>{}</value></param>", xml_value(p)));
            }
            body.push_str("</params></methodCall>");
            client()
                .post(server.url("/RPC2"))
                .header("content-type", "text/xml")
                .body(body)
        }
        Proto::Json => client()
            .post(server.url("/jsonrpc"))
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})),
    };
    let req = match token {
        Some(t) => req.bearer_auth(t),
        None => req,
    };
    let text = req.send().await.unwrap().text().await.unwrap();
    match proto {
        Proto::Xml => xml_outcome(&text),
        Proto::Json => common::rpc::outcome(serde_json::from_str(&text).unwrap()),
    }
}

#[tokio::test]
async fn with_auth_on_only_the_admin_imports() {
    let server = Server::start_with(Config {
        admin_token: Secret(ADMIN.into()),
        ..Config::default()
    })
    .await;
    for proto in [Proto::Xml, Proto::Json] {
        for token in [None, Some("not-the-admin-token")] {
            let r = call_as(
                &server,
                proto,
                token,
                "ratings.import",
                import_params("ffg", FFG),
            )
            .await;
            assert_eq!(r.expect_err("refused").0, -32010, "{proto:?} {token:?}");
        }
        let info = call_as(&server, proto, None, "ratings.info", vec![]).await;
        assert_eq!(info.unwrap()["lists"], json!([]), "nothing was imported");
    }
    let imported = call_as(
        &server,
        Proto::Json,
        Some(ADMIN),
        "ratings.import",
        import_params("ffg", FFG),
    )
    .await
    .unwrap();
    assert_eq!(imported["entries"], 108);
    // Searching and reading stay open.
    for proto in [Proto::Xml, Proto::Json] {
        let found = call_as(
            &server,
            proto,
            None,
            "ratings.search",
            vec![json!("ffg"), json!("zwilling")],
        )
        .await
        .unwrap();
        assert_eq!(names(&found), ["ZWILLING François"]);
        assert!(
            call_as(&server, proto, None, "ratings.info", vec![])
                .await
                .is_ok()
        );
    }
    server.stop().await;
}

/// `goswiss ratings …` on the database of a running daemon.
#[tokio::test]
async fn the_command_imports_into_a_running_daemons_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("desk.db");
    let server = Server::start_on(&db, Config::default()).await;
    // Up (its database created and migrated) before the command opens the file.
    assert_eq!(
        server.ok("ratings.info", json!([])).await["lists"],
        json!([])
    );
    let exe = common::daemon::exe();
    let out = tokio::process::Command::new(exe)
        .args(["ratings", "import", "--kind", "ffg"])
        .arg(files::data(FFG))
        .arg("--db")
        .arg(&db)
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("108 entries"), "{stdout}");
    // The daemon looks for newer lists at ratings.info.
    let info = server.ok("ratings.info", json!([])).await;
    assert_eq!(info["lists"][0]["entries"], 108, "{info}");
    assert_eq!(
        info["lists"][0]["source"],
        "ech_ffg_V3-2021-01-11-excerpt.txt"
    );
    let found = server
        .ok("ratings.search", json!(["ffg", "Müller d"]))
        .await;
    assert_eq!(
        names(&found),
        ["MULLER Damien", "MULLER Dominique"],
        "{found}"
    );

    let out = tokio::process::Command::new(exe)
        .args(["ratings", "search", "--db"])
        .arg(&db)
        .args(["--limit", "1", "zwil"])
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout,
        "ffg\tZWILLING François\t5K\t1550\tFR\t74An\t1200075\n"
    );
    let out = tokio::process::Command::new(exe)
        .args(["ratings", "import", "--kind", "aga"])
        .arg(files::data(FFG))
        .arg("--db")
        .arg(&db)
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no line of this file reads"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    server.stop().await;
}
