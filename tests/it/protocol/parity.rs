//! The two protocols answer every method of the table alike: the same result or the same error
//! code and message, whatever the namespace.

use crate::common;

use common::rpc::{xml_result, xml_value};
use common::{Server, call_xml, client, parse_fault, xml_post};
use serde_json::{Value, json};

#[tokio::test]
async fn every_method_answers_alike_on_both_protocols() {
    let server = Server::start().await;
    let c = client();
    let methods: Vec<String> = goswiss::rpc::TABLE
        .iter()
        .map(|m| m.name.to_string())
        .collect();
    assert!(methods.len() >= 14);
    let params_sets: [&[Value]; 3] = [&[], &[json!("x")], &[json!(1), json!([1, 2]), json!(0)]];
    for name in &methods {
        if name == "system.multicall" {
            continue; // its params are XML-RPC structs by design; covered in xmlrpc_wire
        }
        for params in params_sets {
            let (xml, json) = call_both(&server, &c, name, params).await;
            match parse_fault(&xml) {
                Some((code, message)) => {
                    let e = &json["error"];
                    assert_eq!(e["code"], code, "{name} {params:?}: {xml} vs {json}");
                    // XML escaping aside, the messages are the same text.
                    let m = e["message"]
                        .as_str()
                        .unwrap()
                        .replace('&', "&amp;")
                        .replace('<', "&lt;")
                        .replace('>', "&gt;");
                    assert_eq!(m, message, "{name} {params:?}");
                }
                None => assert!(
                    json.get("result").is_some(),
                    "{name} {params:?}: {xml} vs {json}"
                ),
            }
        }
    }
    server.stop().await;
}

/// Drops JSON nulls from objects: XML-RPC replies omit nil members for clients that did not
/// send nil.
fn without_nulls(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, without_nulls(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(without_nulls).collect()),
        other => other,
    }
}

/// Calls `name` with `params` over XML-RPC (params written by the server's own writer) and
/// over JSON-RPC; returns the XML reply text and the JSON-RPC response object.
async fn call_both(
    server: &Server,
    c: &reqwest::Client,
    name: &str,
    params: &[Value],
) -> (String, Value) {
    let xml_params: Vec<String> = params.iter().map(xml_value).collect();
    let refs: Vec<&str> = xml_params.iter().map(String::as_str).collect();
    let xml = xml_post(c, &server.url("/RPC2"), call_xml(name, &refs)).await;
    let json: Value = c
        .post(server.url("/jsonrpc"))
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": name, "params": params}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    (xml, json)
}

/// Asserts `name` succeeds on both protocols with the same result.
async fn assert_same_result(server: &Server, c: &reqwest::Client, name: &str, params: Vec<Value>) {
    let (xml, json) = call_both(server, c, name, &params).await;
    assert!(parse_fault(&xml).is_none(), "{name}: {xml}");
    let json_result = json
        .get("result")
        .unwrap_or_else(|| panic!("{name}: {json}"))
        .clone();
    assert_eq!(xml_result(&xml), without_nulls(json_result), "{name}");
}

#[tokio::test]
async fn library_namespaces_give_the_same_results_on_both_protocols() {
    let server = Server::start().await;
    let c = client();
    let sgf = "(;FF[4]GM[1]SZ[9]KM[6.5]PB[Black]PW[White];B[ee];W[cc];B[gg])";
    let players = json!([
        {"id": "a", "rating": 5.5, "score": 2, "wins": 2, "club": "Paris"},
        {"id": "b", "rating": 4.5, "score": 2, "wins": 2, "club": "paris"},
        {"id": "c", "rating": 2.0, "score": 1, "wins": 1, "opponents": ["a"]},
        {"id": "d", "rating": -3.0},
        {"id": "e", "rating": -5.0, "byes": 1}
    ]);
    let model = json!({"weights": {"rating": 1, "played": 16, "wins": 1.5, "club": 2}, "bye": {"byes": 100, "wins": 1}});
    let position = json!({"rows": ["bb...", "bw...", "bb...", ".....", "....."], "dead": ["bb"]});
    let calls: Vec<(&str, Vec<Value>)> = vec![
        ("sgf.normalise", vec![json!(sgf)]),
        ("sgf.game_info", vec![json!(sgf)]),
        ("sgf.main_line", vec![json!(sgf)]),
        ("aga.normalize_id", vec![json!("usa02122")]),
        ("aga.rank_to_rating", vec![json!("5k")]),
        ("pairing.pair", vec![players, model]),
        (
            "score.position",
            vec![position, json!({"rules": "japanese", "komi": 0})],
        ),
    ];
    for (name, params) in calls {
        assert_same_result(&server, &c, name, params).await;
    }
    server.stop().await;
}
