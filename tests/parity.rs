//! The two protocols answer every method of the table alike: the same result or the same error
//! code and message, whatever the namespace.

mod common;

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
            let xml_params: Vec<String> = params
                .iter()
                .map(|p| match p {
                    Value::String(s) => format!("<string>{s}</string>"),
                    Value::Number(n) => format!("<i4>{n}</i4>"),
                    Value::Array(items) => format!(
                        "<array><data>{}</data></array>",
                        items
                            .iter()
                            .map(|i| format!("<value><i4>{i}</i4></value>"))
                            .collect::<String>()
                    ),
                    other => panic!("no XML form for {other}"),
                })
                .collect();
            let refs: Vec<&str> = xml_params.iter().map(String::as_str).collect();
            let xml = xml_post(&c, &server.url("/RPC2"), call_xml(name, &refs)).await;
            let json: Value = c
                .post(server.url("/jsonrpc"))
                .json(&json!({"jsonrpc": "2.0", "id": 1, "method": name, "params": params}))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
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
