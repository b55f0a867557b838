//! Per-call caps of `sgf.*` and `aga.*` against the real server: records with too many nodes
//! or games, AGA files with too many lines, each refused with the namespace's limit code and
//! a message naming the limit; inputs just under the caps still work.

use crate::common;

use common::Server;
use serde_json::{Value, json};

fn refused(r: Result<Value, (i64, String)>, code: i64, limit: &str) {
    match r {
        Ok(_) => panic!("expected error {code}"),
        Err((c, m)) => {
            assert_eq!(c, code, "{m}");
            assert!(m.contains(limit), "{m} does not name {limit}");
        }
    }
}

/// One game of `n` nodes: a root and a chain of empty nodes.
fn chain(n: usize) -> String {
    format!("(;GM[1]SZ[19]{})", ";".repeat(n - 1))
}

#[tokio::test]
async fn sgf_node_and_game_caps() {
    let server = Server::start().await;
    let max = goswiss::rpc::methods::sgf::MAX_NODES;
    let big = chain(max + 1);
    for method in [
        "sgf.parse",
        "sgf.normalise",
        "sgf.main_line",
        "sgf.game_info",
    ] {
        refused(
            server.call(method, json!([big])).await,
            714,
            &format!("limit of {max} nodes"),
        );
    }
    // At the cap itself the record loads (main_line: cheap output).
    let v = server
        .call("sgf.main_line", json!([chain(max)]))
        .await
        .expect("at the cap");
    assert!(v.is_object());
    // Collections: the nodes of all games count together; and a game count cap.
    let three = format!("{}{}{}", chain(max / 2), chain(max / 2), chain(10));
    refused(
        server
            .call("sgf.parse", json!([three, {"collection": true}]))
            .await,
        714,
        &format!("more than {max} nodes"),
    );
    let games = goswiss::rpc::methods::sgf::MAX_GAMES;
    let many = "(;)".repeat(games + 1);
    refused(
        server
            .call("sgf.parse", json!([many, {"collection": true}]))
            .await,
        714,
        &format!("more than {games} games"),
    );
    let v = server
        .call(
            "sgf.parse",
            json!(["(;)".repeat(games), {"collection": true}]),
        )
        .await
        .expect("at the game cap");
    assert_eq!(v["games"].as_array().unwrap().len(), games);
    server.stop().await;
}

#[tokio::test]
async fn aga_line_caps() {
    let server = Server::start().await;
    let max = goswiss::rpc::methods::aga::MAX_LINES;
    let too_many = "\n".repeat(max);
    let limit = format!("limit of {max} lines");
    for method in ["aga.parse_tdlist", "aga.parse_register", "aga.parse_round"] {
        refused(server.call(method, json!([too_many])).await, 913, &limit);
    }
    // The register and round files of one call count together.
    let half = "\n".repeat(max / 2);
    refused(
        server
            .call("aga.tournament", json!([half, [half, "x"]]))
            .await,
        913,
        &limit,
    );
    // Just under: answered.
    let v = server
        .call("aga.parse_tdlist", json!(["\n".repeat(max - 1)]))
        .await
        .expect("under the cap");
    assert!(v.is_object());
    server.stop().await;
}
