//! The three wires the replay client speaks: XML-RPC and JSON-RPC over HTTP/1.1 keep-alive, and
//! JSON-RPC over one WebSocket per client. The client has its own small codecs rather than the
//! server's, so it checks the server's bytes instead of agreeing with them by construction.

use std::fmt::Write as _;

use futures::{SinkExt as _, StreamExt as _};
use quick_xml::Reader;
use quick_xml::events::Event;
use serde_json::{Map, Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// A fault (XML-RPC) or error object (JSON-RPC) the server answered with.
#[derive(Debug, Clone, PartialEq)]
pub struct Fault {
    pub code: i64,
    pub message: String,
}

#[derive(Debug)]
pub enum CallError {
    Fault(Fault),
    /// The call did not get a well-formed answer: connection, HTTP status or parse failure.
    Transport(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Fault(x) => write!(f, "fault {}: {}", x.code, x.message),
            CallError::Transport(m) => write!(f, "transport: {m}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Protocol {
    Xmlrpc,
    Jsonrpc,
    Ws,
}

impl Protocol {
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Xmlrpc => "xmlrpc",
            Protocol::Jsonrpc => "jsonrpc",
            Protocol::Ws => "ws",
        }
    }
}

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// One client's connection. HTTP transports share reqwest's keep-alive pool; a WebSocket
/// transport owns its socket, so each concurrent client gets its own.
pub enum Transport {
    Xml {
        http: reqwest::Client,
        url: String,
    },
    Json {
        http: reqwest::Client,
        url: String,
        next_id: u64,
    },
    Ws {
        ws: Box<Ws>,
        next_id: u64,
    },
}

/// `http://host:port/path` → `ws://host:port/path` (and https → wss).
pub fn ws_url(url: &str) -> String {
    if let Some(rest) = url.strip_prefix("http://") {
        format!("ws://{rest}")
    } else if let Some(rest) = url.strip_prefix("https://") {
        format!("wss://{rest}")
    } else {
        url.to_string()
    }
}

/// POSTs one request body and returns the reply text; transport failures and non-2xx answers
/// are transport errors (a fault or JSON-RPC error comes back with 200).
async fn post(
    http: &reqwest::Client,
    url: &str,
    content_type: &str,
    body: String,
    method: &str,
) -> Result<String, CallError> {
    let transport = |e: reqwest::Error| CallError::Transport(format!("{method}: {e}"));
    let resp = http
        .post(url)
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .map_err(transport)?;
    let status = resp.status();
    let text = resp.text().await.map_err(transport)?;
    if !status.is_success() {
        return Err(CallError::Transport(format!(
            "{method}: HTTP {status}: {}",
            excerpt(&text)
        )));
    }
    Ok(text)
}

impl Transport {
    pub async fn connect(
        protocol: Protocol,
        http: &reqwest::Client,
        url: &str,
    ) -> Result<Transport, String> {
        Ok(match protocol {
            Protocol::Xmlrpc => Transport::Xml {
                http: http.clone(),
                url: url.to_string(),
            },
            Protocol::Jsonrpc => Transport::Json {
                http: http.clone(),
                url: url.to_string(),
                next_id: 1,
            },
            Protocol::Ws => {
                let (ws, _) = tokio_tungstenite::connect_async(ws_url(url))
                    .await
                    .map_err(|e| format!("WebSocket connect to {}: {e}", ws_url(url)))?;
                if let MaybeTlsStream::Plain(tcp) = ws.get_ref() {
                    // Small request/response messages: do not wait for Nagle.
                    let _ = tcp.set_nodelay(true);
                }
                Transport::Ws {
                    ws: Box::new(ws),
                    next_id: 1,
                }
            }
        })
    }

    pub async fn call(&mut self, method: &str, params: Vec<Value>) -> Result<Value, CallError> {
        match self {
            Transport::Xml { http, url } => {
                let body = encode_call(method, &params);
                let text = post(http, url, "text/xml", body, method).await?;
                match parse_response(&text) {
                    Ok(Ok(v)) => Ok(v),
                    Ok(Err(f)) => Err(CallError::Fault(f)),
                    Err(e) => Err(CallError::Transport(format!(
                        "{method}: bad XML-RPC reply ({e}): {}",
                        excerpt(&text)
                    ))),
                }
            }
            Transport::Json { http, url, next_id } => {
                let id = *next_id;
                *next_id += 1;
                let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
                let text = post(http, url, "application/json", body.to_string(), method).await?;
                json_answer(method, id, &text)
            }
            Transport::Ws { ws, next_id } => {
                let id = *next_id;
                *next_id += 1;
                let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
                ws.send(Message::text(body.to_string()))
                    .await
                    .map_err(|e| CallError::Transport(format!("{method}: {e}")))?;
                loop {
                    let msg = ws.next().await.ok_or_else(|| {
                        CallError::Transport(format!("{method}: WebSocket closed"))
                    })?;
                    let msg = msg.map_err(|e| CallError::Transport(format!("{method}: {e}")))?;
                    match msg {
                        Message::Text(t) => return json_answer(method, id, t.as_str()),
                        Message::Close(_) => {
                            return Err(CallError::Transport(format!(
                                "{method}: WebSocket closed by the server"
                            )));
                        }
                        // Pings are answered by tungstenite itself.
                        _ => continue,
                    }
                }
            }
        }
    }
}

fn excerpt(s: &str) -> String {
    let s = s.trim();
    if s.len() > 200 {
        format!("{}…", &s[..s.floor_char_boundary(200)])
    } else {
        s.to_string()
    }
}

/// A JSON-RPC 2.0 response: `result`, or `error {code, message}`; the id must be ours.
fn json_answer(method: &str, id: u64, text: &str) -> Result<Value, CallError> {
    let bad = |why: &str| {
        CallError::Transport(format!(
            "{method}: bad JSON-RPC reply ({why}): {}",
            excerpt(text)
        ))
    };
    let Ok(Value::Object(mut reply)) = serde_json::from_str::<Value>(text) else {
        return Err(bad("not a JSON object"));
    };
    if reply.get("jsonrpc") != Some(&json!("2.0")) {
        return Err(bad("no \"jsonrpc\": \"2.0\""));
    }
    if reply.get("id") != Some(&json!(id)) {
        return Err(bad("wrong id"));
    }
    if let Some(err) = reply.remove("error") {
        let code = err.get("code").and_then(Value::as_i64);
        let message = err.get("message").and_then(Value::as_str);
        return match (code, message) {
            (Some(code), Some(message)) => Err(CallError::Fault(Fault {
                code,
                message: message.to_string(),
            })),
            _ => Err(bad("error without code and message")),
        };
    }
    reply.remove("result").ok_or_else(|| bad("no result"))
}

fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}

fn encode_value(out: &mut String, v: &Value) {
    out.push_str("<value>");
    match v {
        Value::Null => out.push_str("<nil/>"),
        Value::Bool(b) => {
            let _ = write!(out, "<boolean>{}</boolean>", u8::from(*b));
        }
        Value::Number(n) => match n.as_i64() {
            Some(i) if i32::try_from(i).is_ok() => {
                let _ = write!(out, "<i4>{i}</i4>");
            }
            Some(i) => {
                let _ = write!(out, "<i8>{i}</i8>");
            }
            None => {
                let _ = write!(out, "<double>{}</double>", n.as_f64().unwrap_or(0.0));
            }
        },
        Value::String(s) => {
            out.push_str("<string>");
            escape_into(out, s);
            out.push_str("</string>");
        }
        Value::Array(items) => {
            out.push_str("<array><data>");
            for item in items {
                encode_value(out, item);
            }
            out.push_str("</data></array>");
        }
        Value::Object(members) => {
            out.push_str("<struct>");
            for (k, item) in members {
                out.push_str("<member><name>");
                escape_into(out, k);
                out.push_str("</name>");
                encode_value(out, item);
                out.push_str("</member>");
            }
            out.push_str("</struct>");
        }
    }
    out.push_str("</value>");
}

/// A one-line `<methodCall>` as Ruby's client writes it (`<i4>` integers).
pub fn encode_call(method: &str, params: &[Value]) -> String {
    let mut out = String::with_capacity(160);
    out.push_str("<?xml version=\"1.0\" ?><methodCall><methodName>");
    escape_into(&mut out, method);
    out.push_str("</methodName><params>");
    for p in params {
        out.push_str("<param>");
        encode_value(&mut out, p);
        out.push_str("</param>");
    }
    out.push_str("</params></methodCall>\n");
    out
}

#[derive(Debug, PartialEq)]
enum Tok {
    Start(String),
    End(String),
    Text(String),
}

fn tokens(body: &str) -> Result<Vec<Tok>, String> {
    let mut reader = Reader::from_str(body);
    reader.config_mut().check_end_names = true;
    let mut out = Vec::new();
    loop {
        let ev = reader.read_event().map_err(|e| e.to_string())?;
        match ev {
            Event::Start(e) => out.push(Tok::Start(e.local_name().as_ref().to_string())),
            Event::Empty(e) => {
                let name = e.local_name().as_ref().to_string();
                out.push(Tok::Start(name.clone()));
                out.push(Tok::End(name));
            }
            Event::End(e) => out.push(Tok::End(e.local_name().as_ref().to_string())),
            Event::Text(t) => out.push(Tok::Text(t.xml10_content().into_owned())),
            Event::CData(t) => out.push(Tok::Text(t.xml10_content().into_owned())),
            Event::GeneralRef(r) => {
                let text = if r.is_char_ref() {
                    r.resolve_char_ref()
                        .ok()
                        .flatten()
                        .map(String::from)
                        .ok_or("bad character reference")?
                } else {
                    quick_xml::escape::resolve_predefined_entity(&r)
                        .map(str::to_string)
                        .ok_or("unknown entity")?
                };
                out.push(Tok::Text(text));
            }
            Event::Eof => return Ok(out),
            _ => {}
        }
    }
}

struct Cursor {
    toks: Vec<Tok>,
    at: usize,
}

impl Cursor {
    /// The next token, skipping whitespace-only text.
    fn next_tag(&mut self) -> Option<&Tok> {
        while let Some(Tok::Text(t)) = self.toks.get(self.at) {
            if !t.trim().is_empty() {
                break;
            }
            self.at += 1;
        }
        let t = self.toks.get(self.at);
        self.at += 1;
        t
    }

    fn expect_start(&mut self, name: &str) -> Result<(), String> {
        match self.next_tag() {
            Some(Tok::Start(n)) if n == name => Ok(()),
            other => Err(format!("expected <{name}>, found {other:?}")),
        }
    }

    fn expect_end(&mut self, name: &str) -> Result<(), String> {
        match self.next_tag() {
            Some(Tok::End(n)) if n == name => Ok(()),
            other => Err(format!("expected </{name}>, found {other:?}")),
        }
    }

    fn text_until(&mut self, name: &str) -> Result<String, String> {
        let mut s = String::new();
        loop {
            let t = self.toks.get(self.at);
            self.at += 1;
            match t {
                Some(Tok::Text(t)) => s.push_str(t),
                Some(Tok::End(n)) if n == name => return Ok(s),
                other => return Err(format!("expected text in <{name}>, found {other:?}")),
            }
        }
    }

    /// The contents of a `<value>` whose start tag was consumed, through `</value>`.
    fn value(&mut self) -> Result<Value, String> {
        let mut text = String::new();
        loop {
            let t = self.toks.get(self.at);
            self.at += 1;
            match t {
                Some(Tok::Text(t)) => text.push_str(t),
                Some(Tok::End(n)) if n == "value" => return Ok(Value::String(text)),
                Some(Tok::Start(tag)) => {
                    let tag = tag.clone();
                    let v = self.typed(&tag)?;
                    self.expect_end("value")?;
                    return Ok(v);
                }
                other => return Err(format!("expected a value, found {other:?}")),
            }
        }
    }

    fn typed(&mut self, tag: &str) -> Result<Value, String> {
        Ok(match tag {
            "i4" | "int" | "i8" => {
                let t = self.text_until(tag)?;
                json!(
                    t.trim()
                        .parse::<i64>()
                        .map_err(|_| format!("bad <{tag}> {t:?}"))?
                )
            }
            "boolean" => match self.text_until(tag)?.trim() {
                "1" => json!(true),
                "0" => json!(false),
                t => return Err(format!("bad <boolean> {t:?}")),
            },
            "double" => {
                let t = self.text_until(tag)?;
                json!(
                    t.trim()
                        .parse::<f64>()
                        .map_err(|_| format!("bad <double> {t:?}"))?
                )
            }
            "string" => Value::String(self.text_until(tag)?),
            "nil" => {
                self.text_until(tag)?;
                Value::Null
            }
            "array" => {
                self.expect_start("data")?;
                let mut items = Vec::new();
                loop {
                    match self.next_tag() {
                        Some(Tok::Start(n)) if n == "value" => items.push(self.value()?),
                        Some(Tok::End(n)) if n == "data" => break,
                        other => return Err(format!("expected <value> or </data>, {other:?}")),
                    }
                }
                self.expect_end("array")?;
                Value::Array(items)
            }
            "struct" => {
                let mut members = Map::new();
                loop {
                    match self.next_tag() {
                        Some(Tok::Start(n)) if n == "member" => {
                            self.expect_start("name")?;
                            let name = self.text_until("name")?;
                            self.expect_start("value")?;
                            let v = self.value()?;
                            self.expect_end("member")?;
                            members.insert(name, v);
                        }
                        Some(Tok::End(n)) if n == "struct" => break,
                        other => return Err(format!("expected <member> or </struct>, {other:?}")),
                    }
                }
                Value::Object(members)
            }
            other => return Err(format!("unknown value type <{other}>")),
        })
    }
}

/// A `<methodResponse>`: `Ok(Ok(value))`, `Ok(Err(fault))`, or `Err` when it is malformed.
pub fn parse_response(body: &str) -> Result<Result<Value, Fault>, String> {
    let mut c = Cursor {
        toks: tokens(body)?,
        at: 0,
    };
    c.expect_start("methodResponse")?;
    let out = match c.next_tag() {
        Some(Tok::Start(n)) if n == "params" => {
            c.expect_start("param")?;
            c.expect_start("value")?;
            let v = c.value()?;
            c.expect_end("param")?;
            c.expect_end("params")?;
            Ok(v)
        }
        Some(Tok::Start(n)) if n == "fault" => {
            c.expect_start("value")?;
            let v = c.value()?;
            c.expect_end("fault")?;
            let code = v.get("faultCode").and_then(Value::as_i64);
            let message = v.get("faultString").and_then(Value::as_str);
            match (code, message) {
                (Some(code), Some(message)) => Err(Fault {
                    code,
                    message: message.to_string(),
                }),
                _ => return Err("fault without faultCode and faultString".into()),
            }
        }
        other => return Err(format!("expected <params> or <fault>, found {other:?}")),
    };
    c.expect_end("methodResponse")?;
    if let Some(t) = c.next_tag() {
        return Err(format!("trailing {t:?}"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_rswiss_replies() {
        let ok = "<?xml version=\"1.0\" ?><methodResponse><params><param><value><array><data><value><i4>102</i4></value><value><i4>105</i4></value></data></array></value></param></params></methodResponse>\n";
        assert_eq!(parse_response(ok).unwrap(), Ok(json!([102, 105])));
        let row = "<methodResponse><params><param><value><array><data><value><i4>106</i4></value><value><double>1.5</double></value><value><string>a&amp;b</string></value><value>raw</value><value><boolean>1</boolean></value><value><struct><member><name>k</name><value><string/></value></member></struct></value></data></array></value></param></params></methodResponse>";
        assert_eq!(
            parse_response(row).unwrap(),
            Ok(json!([106, 1.5, "a&b", "raw", true, {"k": ""}]))
        );
        let fault = "<?xml version=\"1.0\" ?><methodResponse><fault><value><struct><member><name>faultCode</name><value><i4>202</i4></value></member><member><name>faultString</name><value><string>This tournament reached the end!</string></value></member></struct></value></fault></methodResponse>\n";
        assert_eq!(
            parse_response(fault).unwrap(),
            Err(Fault {
                code: 202,
                message: "This tournament reached the end!".into()
            })
        );
        assert!(parse_response("<methodResponse><params>").is_err());
        assert!(parse_response("<html>500</html>").is_err());
    }

    #[test]
    fn encodes_like_ruby() {
        assert_eq!(
            encode_call(
                "matchmaker.commit_match",
                &[json!(19), json!([3, 2]), json!(-1)]
            ),
            "<?xml version=\"1.0\" ?><methodCall><methodName>matchmaker.commit_match</methodName><params><param><value><i4>19</i4></value></param><param><value><array><data><value><i4>3</i4></value><value><i4>2</i4></value></data></array></value></param><param><value><i4>-1</i4></value></param></params></methodCall>\n"
        );
        assert!(encode_call("x", &[json!({"pairing": "rswiss"}), json!(false)]).contains(
            "<struct><member><name>pairing</name><value><string>rswiss</string></value></member></struct>"
        ));
    }

    #[test]
    fn json_answers() {
        assert_eq!(
            json_answer("m", 3, r#"{"jsonrpc":"2.0","id":3,"result":[1,2]}"#).unwrap(),
            json!([1, 2])
        );
        match json_answer(
            "m",
            3,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":201,"message":"Still 1 matches to be returned!"}}"#,
        ) {
            Err(CallError::Fault(f)) => assert_eq!(f.code, 201),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            json_answer("m", 4, r#"{"jsonrpc":"2.0","id":3,"result":1}"#),
            Err(CallError::Transport(_))
        ));
        assert_eq!(ws_url("http://127.0.0.1:9/"), "ws://127.0.0.1:9/");
    }
}
