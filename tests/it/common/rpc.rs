//! Method calls for integration tests: one JSON-RPC call over HTTP, and a client that makes the
//! same call over either protocol (XML-RPC values written and read back by the server's own
//! codec, so a test compares JSON values whatever the wire).

use serde_json::{Value, json};

use super::{Server, call_xml, client, parse_fault, xml_post};

/// One JSON-RPC 2.0 call POSTed to `url`: the whole reply object (`result` or `error`).
pub async fn jsonrpc(c: &reqwest::Client, url: &str, method: &str, params: Value) -> Value {
    c.post(url)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .send()
        .await
        .unwrap_or_else(|e| panic!("{method}: request failed: {e}"))
        .json()
        .await
        .unwrap_or_else(|e| panic!("{method}: reply is not JSON: {e}"))
}

/// A JSON-RPC reply as the result, or the error's code and message.
pub fn outcome(v: Value) -> Result<Value, (i64, String)> {
    match v.get("result") {
        Some(r) => Ok(r.clone()),
        None => Err((
            v["error"]["code"].as_i64().unwrap_or(0),
            v["error"]["message"].as_str().unwrap_or("").to_string(),
        )),
    }
}

impl Server {
    /// One JSON-RPC call to this server over HTTP: the whole reply object.
    pub async fn jsonrpc(&self, method: &str, params: Value) -> Value {
        jsonrpc(&client(), &self.url("/jsonrpc"), method, params).await
    }

    /// One JSON-RPC call: the result, or the error's code and message.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, (i64, String)> {
        outcome(self.jsonrpc(method, params).await)
    }

    /// One JSON-RPC call that must succeed: its result (the test fails with the reply if not).
    pub async fn ok(&self, method: &str, params: Value) -> Value {
        let v = self.jsonrpc(method, params).await;
        match v.get("result") {
            Some(r) if v.get("error").is_none() => r.clone(),
            _ => panic!("{method}: {v}"),
        }
    }
}

/// Reads an XML-RPC reply back into JSON (a reply's params have a call's shape).
pub fn xml_result(reply: &str) -> Value {
    let call = reply
        .replace(
            "<?xml version=\"1.0\" ?><methodResponse><params>",
            "<methodCall><methodName>x</methodName><params>",
        )
        .replace("</params></methodResponse>", "</params></methodCall>");
    let parsed = goswiss::rpc::xmlrpc::parse_call(call.as_bytes())
        .unwrap_or_else(|e| panic!("{e}: {reply}"));
    goswiss::rpc::xmlrpc::to_json(parsed.params.into_iter().next().expect("one value"))
}

/// An XML-RPC reply as its value, or its fault's code and message. Only a `<fault>` reply is
/// a fault: a multicall's value holds per-call fault structs.
pub fn xml_outcome(reply: &str) -> Result<Value, (i64, String)> {
    if reply.contains("<methodResponse><fault>") {
        let (code, msg) = parse_fault(reply).unwrap_or_else(|| panic!("unreadable fault: {reply}"));
        return Err((code as i64, msg));
    }
    Ok(xml_result(reply))
}

/// A JSON value as the contents of an XML-RPC `<value>`, written by the server's own writer.
pub fn xml_value(v: &Value) -> String {
    let r = goswiss::rpc::xmlrpc::write_response(v, false);
    r.strip_prefix("<?xml version=\"1.0\" ?><methodResponse><params><param><value>")
        .and_then(|r| r.strip_suffix("</value></param></params></methodResponse>\n"))
        .expect("response envelope")
        .to_string()
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Proto {
    Xml,
    Json,
}

/// Calls methods of one server over one protocol, with JSON values either way.
#[derive(Clone)]
pub struct Client {
    c: reqwest::Client,
    base: String,
    pub proto: Proto,
}

impl Client {
    pub fn new(server: &Server, proto: Proto) -> Client {
        Client {
            c: client(),
            base: server.url(""),
            proto,
        }
    }

    /// The result, or the fault's (error's) code and message.
    pub async fn call(&self, method: &str, params: Vec<Value>) -> Result<Value, (i64, String)> {
        match self.proto {
            Proto::Xml => {
                let xs: Vec<String> = params.iter().map(xml_value).collect();
                let refs: Vec<&str> = xs.iter().map(String::as_str).collect();
                let reply = xml_post(
                    &self.c,
                    &format!("{}/RPC2", self.base),
                    call_xml(method, &refs),
                )
                .await;
                xml_outcome(&reply)
            }
            Proto::Json => outcome(
                jsonrpc(
                    &self.c,
                    &format!("{}/jsonrpc", self.base),
                    method,
                    Value::Array(params),
                )
                .await,
            ),
        }
    }

    /// A call that must succeed: its result.
    pub async fn ok(&self, method: &str, params: Vec<Value>) -> Value {
        self.call(method, params)
            .await
            .unwrap_or_else(|e| panic!("{method} ({:?}): {e:?}", self.proto))
    }

    /// A call that must fail: its code.
    pub async fn code(&self, method: &str, params: Vec<Value>) -> i64 {
        match self.call(method, params).await {
            Ok(v) => panic!("{method} succeeded: {v}"),
            Err((code, _)) => code,
        }
    }
}
