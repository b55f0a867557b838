//! Errors carry `data` where a client needs a value to act on (README "Error codes"): the
//! revision a stale `if_revision` missed, the limit a call ran into, the path of a bad value
//! and the nearest valid key. XML-RPC faults stay as they were (code and message only).

use crate::common;

use common::Server;
use common::rpc::xml_outcome;
use goswiss::config::Config;
use serde_json::{Value, json};

async fn error(s: &Server, method: &str, params: Value) -> Value {
    let r = s.jsonrpc(method, params).await;
    assert!(r.get("result").is_none(), "{method}: {r}");
    r["error"].clone()
}

#[tokio::test]
async fn a_stale_revision_says_the_current_one() {
    let s = Server::start().await;
    let t = s.ok("tournament.create", json!([{"name": "Open"}])).await;
    let id = t["id"].clone();
    s.ok("tournament.player.add", json!([id, {"name": "A"}]))
        .await;
    let e = error(
        &s,
        "tournament.player.add",
        json!([id, {"name": "B"}, {"if_revision": 1}]),
    )
    .await;
    assert_eq!(e["code"], 1002, "{e}");
    assert_eq!(e["data"], json!({"revision": 2, "if_revision": 1}), "{e}");
    // The revision it gives is the one to retry at.
    s.ok(
        "tournament.player.add",
        json!([id, {"name": "B"}, {"if_revision": e["data"]["revision"]}]),
    )
    .await;
    // XML-RPC: the same fault as ever, no room for data.
    let xml = common::xml_post(
        &common::client(),
        &s.url("/RPC2"),
        common::call_xml(
            "tournament.delete",
            &[&common::i4(id.as_i64().unwrap()), "<struct><member><name>if_revision</name><value><i4>1</i4></value></member></struct>"],
        ),
    )
    .await;
    let (code, message) = xml_outcome(&xml).unwrap_err();
    assert_eq!(code, 1002);
    assert!(message.contains("revision 3"), "{message}");
    assert!(!xml.contains("data"), "{xml}");
    s.stop().await;
}

#[tokio::test]
async fn a_bad_value_says_its_path_and_the_nearest_key() {
    let s = Server::start().await;
    let e = error(
        &s,
        "tournament.create",
        json!([{"handicap": {"ceiling": 12}}]),
    )
    .await;
    assert_eq!(e["code"], -32602);
    assert_eq!(
        e["data"],
        json!({"path": "settings.handicap.ceiling"}),
        "{e}"
    );
    let t = s.ok("tournament.create", json!([{}])).await;
    let e = error(&s, "tournament.player.add", json!([t["id"], {"rnk": "3d"}])).await;
    assert_eq!(
        e["data"],
        json!({"path": "player.rnk", "nearest": "rank"}),
        "{e}"
    );
    let e = error(
        &s,
        "tournament.round.set_games",
        json!([t["id"], 1, [{"white": 1, "black": "x"}]]),
    )
    .await;
    assert_eq!(e["data"]["path"], "games[0].black", "{e}");
    let e = error(&s, "tournament.get", json!(["one"])).await;
    assert_eq!(
        e["message"],
        "parameter tournament_id: invalid type: string \"one\", expected i64"
    );
    assert_eq!(e["data"]["path"], "tournament_id", "{e}");
    s.stop().await;
}

#[tokio::test]
async fn limits_say_their_values() {
    let config = Config {
        max_reply_bytes: 10_000,
        max_tournament_bytes: 4_000,
        ..Config::default()
    };
    let s = Server::start_with(config).await;
    let e = error(&s, "system.echo", json!(["x".repeat(20_000)])).await;
    assert_eq!(e["code"], -32013, "{e}");
    assert_eq!(e["data"], json!({"max_reply_bytes": 10_000}), "{e}");
    // The creation itself may be past so small a budget: its refusal says the same.
    let t = s.jsonrpc("tournament.create", json!([{}])).await;
    let mut full = t.get("error").cloned();
    let t = t.get("result").cloned().unwrap_or_default();
    for k in 0..100 {
        if full.is_some() {
            break;
        }
        let r = s
            .jsonrpc(
                "tournament.player.add",
                json!([t["id"], {"name": format!("Player number {k}")}]),
            )
            .await;
        if r.get("error").is_some() {
            full = Some(r["error"].clone());
            break;
        }
    }
    let e = full.expect("the log's budget is reached");
    assert_eq!(e["code"], 1038, "{e}");
    assert_eq!(e["data"]["max_tournament_bytes"], 4_000, "{e}");
    assert!(e["data"]["size"].as_u64().unwrap() <= 4_000, "{e}");
    assert!(e["data"]["adding"].as_u64().unwrap() > 0, "{e}");
    s.stop().await;
}
