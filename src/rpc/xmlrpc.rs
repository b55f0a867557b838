//! XML-RPC adapter: our own dispatcher on dxr's value types.
//!
//! Requests are read with quick-xml into [`dxr::Value`]s (we parse ourselves rather than with
//! `dxr::MethodCall::from_xml` because that drops the parser's error and echoes the request
//! back), converted to `serde_json::Value` for the method table, and the answer is written in
//! rswiss's exact byte form: one line, `<i4>` integers, `<double>` in Ruby's `Float#to_s` form,
//! `<boolean>1</boolean>`, strings always in `<string>`, never `<nil/>` unless the client sent
//! one itself.

use std::fmt::Write as _;
use std::str::FromStr;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use dxr::{DateTime, Value as XValue};
use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};
use serde_json::{Map, Number, Value};

use super::{Answer, Ctx, Params, RpcError, Wire};

/// Deepest value nesting accepted; bounds recursion on hostile input.
const MAX_DEPTH: usize = 64;

/// A parsed `<methodCall>`.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodCall {
    pub name: String,
    pub params: Vec<XValue>,
    /// The request used `<nil/>`, so the client can read it back.
    pub uses_nil: bool,
}

struct Parser<'a> {
    reader: Reader<&'a [u8]>,
    uses_nil: bool,
}

/// What the parser met next, with comments, processing instructions and the XML declaration
/// skipped.
enum Tok {
    Start(String),
    Empty(String),
    End(String),
    Text(String),
    Eof,
}

fn local(e: &BytesStart) -> String {
    e.local_name().as_ref().to_string()
}

impl<'a> Parser<'a> {
    fn err(&self, msg: impl std::fmt::Display) -> String {
        format!("{msg} (at byte {})", self.reader.buffer_position())
    }

    fn next(&mut self) -> Result<Tok, String> {
        loop {
            let ev = self
                .reader
                .read_event()
                .map_err(|e| format!("{e} (at byte {})", self.reader.error_position()))?;
            return Ok(match ev {
                Event::Start(e) => Tok::Start(local(&e)),
                Event::Empty(e) => Tok::Empty(local(&e)),
                Event::End(e) => Tok::End(e.local_name().as_ref().to_string()),
                Event::Text(t) => Tok::Text(t.xml10_content().into_owned()),
                Event::CData(t) => Tok::Text(t.xml10_content().into_owned()),
                Event::GeneralRef(r) => {
                    if r.is_char_ref() {
                        match r.resolve_char_ref() {
                            Ok(Some(c)) => Tok::Text(c.to_string()),
                            _ => {
                                return Err(
                                    self.err(format!("invalid character reference &{};", &*r))
                                );
                            }
                        }
                    } else if let Some(s) = quick_xml::escape::resolve_predefined_entity(&r) {
                        Tok::Text(s.to_string())
                    } else {
                        return Err(self.err(format!("unknown entity &{};", &*r)));
                    }
                }
                Event::DocType(_) => return Err(self.err("DOCTYPE declarations are not allowed")),
                Event::Decl(_) | Event::PI(_) | Event::Comment(_) => continue,
                Event::Eof => Tok::Eof,
            });
        }
    }

    /// Next token that is not whitespace-only text.
    fn next_tag(&mut self) -> Result<Tok, String> {
        loop {
            match self.next()? {
                Tok::Text(t) if t.trim().is_empty() => continue,
                Tok::Text(_) => return Err(self.err("unexpected text between elements")),
                tok => return Ok(tok),
            }
        }
    }

    fn expect_start(&mut self, name: &str) -> Result<(), String> {
        match self.next_tag()? {
            Tok::Start(n) if n == name => Ok(()),
            other => Err(self.err(format!("expected <{name}>, found {}", describe(&other)))),
        }
    }

    fn expect_end(&mut self, name: &str) -> Result<(), String> {
        match self.next_tag()? {
            Tok::End(n) if n == name => Ok(()),
            other => Err(self.err(format!("expected </{name}>, found {}", describe(&other)))),
        }
    }

    /// Text content up to `</name>`; no child elements allowed.
    fn text_until(&mut self, name: &str) -> Result<String, String> {
        let mut s = String::new();
        loop {
            match self.next()? {
                Tok::Text(t) => s.push_str(&t),
                Tok::End(n) if n == name => return Ok(s),
                other => {
                    return Err(self.err(format!(
                        "expected text or </{name}>, found {}",
                        describe(&other)
                    )));
                }
            }
        }
    }

    fn method_call(&mut self) -> Result<MethodCall, String> {
        self.expect_start("methodCall")?;
        self.expect_start("methodName")?;
        let name = self.text_until("methodName")?;
        let mut params = Vec::new();
        match self.next_tag()? {
            Tok::End(n) if n == "methodCall" => {}
            Tok::Empty(n) if n == "params" => self.expect_end("methodCall")?,
            Tok::Start(n) if n == "params" => {
                loop {
                    match self.next_tag()? {
                        Tok::Start(n) if n == "param" => {
                            self.expect_start("value")?;
                            params.push(self.value(0)?);
                            self.expect_end("param")?;
                        }
                        Tok::End(n) if n == "params" => break,
                        other => {
                            return Err(self.err(format!(
                                "expected <param> or </params>, found {}",
                                describe(&other)
                            )));
                        }
                    }
                }
                self.expect_end("methodCall")?;
            }
            other => return Err(self.err(format!("expected <params>, found {}", describe(&other)))),
        }
        match self.next_tag()? {
            Tok::Eof => {}
            other => {
                return Err(self.err(format!(
                    "unexpected {} after </methodCall>",
                    describe(&other)
                )));
            }
        }
        Ok(MethodCall {
            name,
            params,
            uses_nil: self.uses_nil,
        })
    }

    /// The content of a `<value>` whose start tag was just read, through `</value>`.
    fn value(&mut self, depth: usize) -> Result<XValue, String> {
        if depth > MAX_DEPTH {
            return Err(self.err(format!("values nested deeper than {MAX_DEPTH}")));
        }
        let mut text = String::new();
        loop {
            match self.next()? {
                Tok::Text(t) => text.push_str(&t),
                Tok::End(n) if n == "value" => return Ok(XValue::String(text)),
                Tok::Start(tag) => {
                    if !text.trim().is_empty() {
                        return Err(self.err("text beside a typed value"));
                    }
                    let v = self.typed(&tag, depth)?;
                    self.expect_end("value")?;
                    return Ok(v);
                }
                Tok::Empty(tag) => {
                    let v = match tag.as_str() {
                        "nil" => {
                            self.uses_nil = true;
                            XValue::Nil
                        }
                        "string" => XValue::String(String::new()),
                        "base64" => XValue::Base64(Vec::new()),
                        "array" => XValue::Array(Vec::new()),
                        "struct" => XValue::Struct(Default::default()),
                        other => return Err(self.err(format!("empty <{other}/> is not a value"))),
                    };
                    self.expect_end("value")?;
                    return Ok(v);
                }
                other => {
                    return Err(self.err(format!("expected a value, found {}", describe(&other))));
                }
            }
        }
    }

    fn typed(&mut self, tag: &str, depth: usize) -> Result<XValue, String> {
        Ok(match tag {
            "i4" | "int" => {
                let t = self.text_until(tag)?;
                XValue::Integer(
                    t.trim()
                        .parse()
                        .map_err(|_| self.err(format!("<{tag}> value is not a 32-bit integer")))?,
                )
            }
            "i8" => {
                let t = self.text_until(tag)?;
                XValue::Long(
                    t.trim()
                        .parse()
                        .map_err(|_| self.err("<i8> value is not a 64-bit integer"))?,
                )
            }
            "boolean" => {
                let t = self.text_until(tag)?;
                XValue::Boolean(match t.trim() {
                    "1" | "true" => true,
                    "0" | "false" => false,
                    _ => return Err(self.err("<boolean> value is not 0 or 1")),
                })
            }
            "double" => {
                let t = self.text_until(tag)?;
                let f: f64 = t
                    .trim()
                    .parse()
                    .ok()
                    .filter(|f: &f64| f.is_finite())
                    .ok_or_else(|| self.err("<double> value is not a finite number"))?;
                XValue::Double(f)
            }
            "string" => XValue::String(self.text_until(tag)?),
            "dateTime.iso8601" => {
                let t = self.text_until(tag)?;
                XValue::DateTime(DateTime::from_str(t.trim()).map_err(|_| {
                    self.err("<dateTime.iso8601> value is not of the form YYYYMMDDTHH:MM:SS")
                })?)
            }
            "base64" => {
                let t = self.text_until(tag)?;
                let compact: String = t.chars().filter(|c| !c.is_ascii_whitespace()).collect();
                XValue::Base64(
                    B64.decode(compact)
                        .map_err(|e| self.err(format!("<base64>: {e}")))?,
                )
            }
            "nil" => {
                self.text_until(tag)?;
                self.uses_nil = true;
                XValue::Nil
            }
            "array" => {
                let mut items = Vec::new();
                match self.next_tag()? {
                    Tok::Empty(n) if n == "data" => {}
                    Tok::Start(n) if n == "data" => loop {
                        match self.next_tag()? {
                            Tok::Start(n) if n == "value" => items.push(self.value(depth + 1)?),
                            Tok::End(n) if n == "data" => break,
                            other => {
                                return Err(self.err(format!(
                                    "expected <value> or </data>, found {}",
                                    describe(&other)
                                )));
                            }
                        }
                    },
                    other => {
                        return Err(
                            self.err(format!("expected <data>, found {}", describe(&other)))
                        );
                    }
                }
                self.expect_end("array")?;
                XValue::Array(items)
            }
            "struct" => {
                let mut members = std::collections::BTreeMap::new();
                loop {
                    match self.next_tag()? {
                        Tok::Start(n) if n == "member" => {
                            self.expect_start("name")?;
                            let name = self.text_until("name")?;
                            self.expect_start("value")?;
                            let v = self.value(depth + 1)?;
                            self.expect_end("member")?;
                            members.insert(name, v);
                        }
                        Tok::End(n) if n == "struct" => break,
                        other => {
                            return Err(self.err(format!(
                                "expected <member> or </struct>, found {}",
                                describe(&other)
                            )));
                        }
                    }
                }
                XValue::Struct(members)
            }
            other => return Err(self.err(format!("unknown value type <{other}>"))),
        })
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Start(n) => format!("<{n}>"),
        Tok::Empty(n) => format!("<{n}/>"),
        Tok::End(n) => format!("</{n}>"),
        Tok::Text(_) => "text".into(),
        Tok::Eof => "the end of the document".into(),
    }
}

/// Parses a request body. The error is the parser's message with its byte position; it never
/// contains the request itself beyond a 40-byte excerpt.
pub fn parse_call(body: &[u8]) -> Result<MethodCall, String> {
    let text = std::str::from_utf8(body).map_err(|e| format!("the request is not UTF-8: {e}"))?;
    let mut reader = Reader::from_str(text);
    let config = reader.config_mut();
    config.trim_text(false);
    config.check_end_names = true;
    let mut p = Parser {
        reader,
        uses_nil: false,
    };
    p.method_call()
}

/// XML-RPC value → the method table's JSON value. base64 becomes its (canonical) base64 text
/// and dateTime an ISO 8601 string, so handlers see the same shapes JSON-RPC clients send.
pub fn to_json(v: XValue) -> Value {
    match v {
        XValue::Integer(i) => Value::from(i),
        XValue::Long(i) => Value::from(i),
        XValue::Boolean(b) => Value::Bool(b),
        XValue::String(s) => Value::String(s),
        XValue::Double(f) => Number::from_f64(f)
            .map(Value::Number)
            .unwrap_or(Value::Null),
        XValue::DateTime(d) => Value::String(format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            d.year(),
            d.month(),
            d.day(),
            d.hour(),
            d.minute(),
            d.second()
        )),
        XValue::Base64(b) => Value::String(B64.encode(b)),
        XValue::Struct(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| (k, to_json(v)))
                .collect::<Map<_, _>>(),
        ),
        XValue::Array(a) => Value::Array(a.into_iter().map(to_json).collect()),
        XValue::Nil => Value::Null,
        // dxr::Value is non-exhaustive; every variant it has today is handled above.
        #[allow(unreachable_patterns)]
        _ => Value::Null,
    }
}

/// Ruby's `Float#to_s`, which rswiss clients saw: `8.0`, `3.75`, `1.0e+16`, `1.0e-05`.
pub fn ruby_float(x: f64) -> String {
    let a = x.abs();
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    if (1e-4..1e16).contains(&a) {
        let s = format!("{x}");
        if s.contains('.') { s } else { format!("{s}.0") }
    } else {
        let s = format!("{x:e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let mantissa = if mantissa.contains('.') {
            mantissa.to_string()
        } else {
            format!("{mantissa}.0")
        };
        let (sign, digits) = match exp.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', exp),
        };
        format!("{mantissa}e{sign}{digits:0>2}")
    }
}

pub(super) fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            // A bare CR would be read back as LF by every XML parser.
            '\r' => out.push_str("&#13;"),
            c => out.push(c),
        }
    }
}

pub(super) fn write_value(out: &mut String, v: &Value, nil_ok: bool) {
    out.push_str("<value>");
    match v {
        Value::Null if nil_ok => out.push_str("<nil/>"),
        // Never <nil/> to a client that did not use it (Ruby's client rejects it).
        Value::Null => out.push_str("<string></string>"),
        Value::Bool(b) => out.push_str(if *b {
            "<boolean>1</boolean>"
        } else {
            "<boolean>0</boolean>"
        }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                if i32::try_from(i).is_ok() {
                    let _ = write!(out, "<i4>{i}</i4>");
                } else {
                    let _ = write!(out, "<i8>{i}</i8>");
                }
            } else if let Some(u) = n.as_u64() {
                let _ = write!(out, "<i8>{u}</i8>");
            } else {
                let _ = write!(
                    out,
                    "<double>{}</double>",
                    ruby_float(n.as_f64().unwrap_or(0.0))
                );
            }
        }
        Value::String(s) => {
            out.push_str("<string>");
            escape_into(out, s);
            out.push_str("</string>");
        }
        Value::Array(items) => {
            out.push_str("<array><data>");
            for item in items {
                write_value(out, item, nil_ok);
            }
            out.push_str("</data></array>");
        }
        Value::Object(members) => {
            out.push_str("<struct>");
            for (k, item) in members {
                if item.is_null() && !nil_ok {
                    continue;
                }
                out.push_str("<member><name>");
                escape_into(out, k);
                out.push_str("</name>");
                write_value(out, item, nil_ok);
                out.push_str("</member>");
            }
            out.push_str("</struct>");
        }
    }
    out.push_str("</value>");
}

const HEAD: &str = "<?xml version=\"1.0\" ?><methodResponse>";

/// A successful response, byte for byte as rswiss writes it.
pub fn write_response(v: &Value, nil_ok: bool) -> String {
    let mut out = String::with_capacity(128);
    out.push_str(HEAD);
    out.push_str(RESPONSE_OPEN);
    write_value(&mut out, v, nil_ok);
    out.push_str(RESPONSE_CLOSE);
    out
}

const RESPONSE_OPEN: &str = "<params><param>";
const RESPONSE_CLOSE: &str = "</param></params></methodResponse>\n";

/// A successful response holding `answer` (written for this wire, or a `Value`).
pub fn write_answer(answer: Answer, nil_ok: bool) -> Result<String, RpcError> {
    match answer {
        Answer::Xml(value) => Ok(write_response_value(&value)),
        other => other.into_value().map(|v| write_response(&v, nil_ok)),
    }
}

/// A successful response around its `<value>…</value>`.
fn write_response_value(value: &str) -> String {
    let len = HEAD.len() + RESPONSE_OPEN.len() + value.len() + RESPONSE_CLOSE.len();
    let mut out = String::with_capacity(len);
    out.push_str(HEAD);
    out.push_str(RESPONSE_OPEN);
    out.push_str(value);
    out.push_str(RESPONSE_CLOSE);
    out
}

/// A fault response.
pub fn write_fault(e: &RpcError) -> String {
    let mut out = String::with_capacity(192);
    out.push_str(HEAD);
    let _ = write!(
        out,
        "<fault><value><struct><member><name>faultCode</name><value><i4>{}</i4></value></member>\
         <member><name>faultString</name><value><string>",
        e.code
    );
    escape_into(&mut out, &e.message);
    out.push_str("</string></value></member></struct></value></fault></methodResponse>\n");
    out
}

/// The answer to one XML-RPC request.
pub struct Reply {
    pub body: String,
    /// The method's table name, for metrics; `None` when the call reached no method.
    pub method: Option<&'static str>,
    pub ok: bool,
}

/// Serves one XML-RPC request body from an anonymous caller.
pub async fn handle(ctx: &Arc<Ctx>, body: &[u8]) -> Reply {
    handle_as(ctx, body, super::auth::Caller::default()).await
}

/// Serves one XML-RPC request body from `caller`.
pub async fn handle_as(ctx: &Arc<Ctx>, body: &[u8], caller: super::auth::Caller) -> Reply {
    let call = match parse_call(body) {
        Ok(c) => c,
        Err(msg) => return fault_reply(&RpcError::parse_error(msg)),
    };
    let Some(method) = super::lookup(&call.name) else {
        return fault_reply(&super::unknown_method(&call.name));
    };
    let params = Params::positional(call.params.into_iter().map(to_json).collect())
        .with_caller(caller)
        .with_wire(Wire::Xml {
            nil_ok: call.uses_nil,
        });
    let answer = super::call_on_wire(ctx, method, params).await;
    let limit = ctx.config.reply_limit();
    let written = answer
        .and_then(|a| write_answer(a, call.uses_nil))
        .and_then(|body| match limit {
            // Said instead of a cut reply; most big answers (`Handler::Encoded`) stopped
            // writing at the limit already.
            Some(limit) if body.len() > limit => Err(RpcError::reply_too_big(limit)),
            _ => Ok(body),
        });
    let (body, ok) = match written {
        Ok(body) => (body, true),
        Err(e) => (write_fault(&e), false),
    };
    Reply {
        body,
        method: Some(method.name),
        ok,
    }
}

/// A fault that happened before any method ran (parse errors, unknown methods, limits).
pub fn fault_reply(e: &RpcError) -> Reply {
    Reply {
        body: write_fault(e),
        method: None,
        ok: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_python_and_ruby_requests() {
        let py = b"<?xml version='1.0'?>\n<methodCall>\n<methodName>matchmaker.create_tournament</methodName>\n<params>\n<param>\n<value><array><data>\n<value><int>101</int></value>\n<value><int>102</int></value>\n</data></array></value>\n</param>\n<param>\n<value><int>0</int></value>\n</param>\n<param>\n<value><boolean>0</boolean></value>\n</param>\n</params>\n</methodCall>\n";
        let c = parse_call(py).unwrap();
        assert_eq!(c.name, "matchmaker.create_tournament");
        assert_eq!(
            c.params,
            vec![
                XValue::Array(vec![XValue::Integer(101), XValue::Integer(102)]),
                XValue::Integer(0),
                XValue::Boolean(false)
            ]
        );
        let rb = b"<?xml version=\"1.0\" ?><methodCall><methodName>matchmaker.commit_match</methodName><params><param><value><i4>19</i4></value></param><param><value><array><data><value><i4>3</i4></value><value><i4>2</i4></value></data></array></value></param><param><value><i4>-1</i4></value></param></params></methodCall>\n";
        let c = parse_call(rb).unwrap();
        assert_eq!(c.params[2], XValue::Integer(-1));
    }

    #[test]
    fn values_of_every_type() {
        let body = "<methodCall><methodName>x</methodName><params>\
            <param><value>  untyped &amp; raw </value></param>\
            <param><value><string>a&lt;b&#x263A;</string></value></param>\
            <param><value><i8>4294967296</i8></value></param>\
            <param><value><double>-2.5</double></value></param>\
            <param><value><dateTime.iso8601>20260301T12:30:05</dateTime.iso8601></value></param>\
            <param><value><base64>aGVs\nbG8=</base64></value></param>\
            <param><value><struct><member><name>k</name><value><nil/></value></member></struct></value></param>\
            <param><value><string/></value></param>\
            <param><value><![CDATA[<x>]]></value></param>\
            </params></methodCall>";
        let c = parse_call(body.as_bytes()).unwrap();
        let j: Vec<Value> = c.params.into_iter().map(to_json).collect();
        assert_eq!(
            Value::Array(j),
            serde_json::json!(["  untyped & raw ", "a<b☺", 4294967296i64, -2.5, "2026-03-01T12:30:05", "aGVsbG8=", {"k": null}, "", "<x>"])
        );
        assert!(c.uses_nil);
    }

    #[test]
    fn malformed_input_is_reported_not_echoed() {
        let secret = "S3CR3T";
        for bad in [
            format!("<methodCall><methodName>x</methodName><params><param><value><int>{secret}"),
            format!("<methodCall><methodName>{secret}</methodName><params></methodCall>"),
            format!("not xml {secret}"),
            format!("<!DOCTYPE x [<!ENTITY e \"{secret}\">]><methodCall/>"),
            "<methodCall><methodName>x</methodName><params><param><value><int>4294967296</int></value></param></params></methodCall>".to_string(),
            "<methodCall><methodName>x</methodName><params><param><value><bogus>1</bogus></value></param></params></methodCall>".to_string(),
            "<methodCall><methodName>x</methodName><params><param><value><double>NaN</double></value></param></params></methodCall>".to_string(),
        ] {
            let e = parse_call(bad.as_bytes()).unwrap_err();
            assert!(!e.contains(secret), "{e}");
            assert!(!e.is_empty());
        }
        let deep = format!(
            "<methodCall><methodName>x</methodName><params><param><value>{}1{}</value></param></params></methodCall>",
            "<array><data><value>".repeat(200),
            "</value></data></array>".repeat(200)
        );
        assert!(
            parse_call(deep.as_bytes())
                .unwrap_err()
                .contains("nested deeper")
        );
        assert!(parse_call(&[0xff, 0xfe]).unwrap_err().contains("UTF-8"));
    }

    #[test]
    fn replies_are_written_as_rswiss_does() {
        assert_eq!(
            write_response(&serde_json::json!(8), false),
            "<?xml version=\"1.0\" ?><methodResponse><params><param><value><i4>8</i4></value></param></params></methodResponse>\n"
        );
        assert_eq!(
            write_response(&serde_json::json!([103, "score"]), false),
            "<?xml version=\"1.0\" ?><methodResponse><params><param><value><array><data><value><i4>103</i4></value><value><string>score</string></value></data></array></value></param></params></methodResponse>\n"
        );
        assert_eq!(
            write_fault(&RpcError::new(202, "This tournament reached the end!")),
            "<?xml version=\"1.0\" ?><methodResponse><fault><value><struct><member><name>faultCode</name><value><i4>202</i4></value></member><member><name>faultString</name><value><string>This tournament reached the end!</string></value></member></struct></value></fault></methodResponse>\n"
        );
        assert_eq!(
            write_response(&serde_json::json!({"a": null, "b": true, "c": 1.5}), false),
            "<?xml version=\"1.0\" ?><methodResponse><params><param><value><struct><member><name>b</name><value><boolean>1</boolean></value></member><member><name>c</name><value><double>1.5</double></value></member></struct></value></param></params></methodResponse>\n"
        );
        assert!(write_response(&serde_json::json!([null]), true).contains("<nil/>"));
        assert!(
            write_response(&serde_json::json!(5_000_000_000i64), false)
                .contains("<i8>5000000000</i8>")
        );
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(body in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)) {
            let _ = parse_call(&body);
        }

        #[test]
        fn damaged_requests_never_panic(cut in 0usize..400, insert in "[<>/&;a-z0-9 ]{0,12}") {
            let good = "<?xml version=\"1.0\"?><methodCall><methodName>m</methodName><params><param><value><struct><member><name>a</name><value><array><data><value><i4>1</i4></value><value><double>2.5</double></value><value>x&amp;y</value></data></array></value></member></struct></value></param></params></methodCall>";
            let cut = cut.min(good.len());
            let damaged = format!("{}{}{}", &good[..cut], insert, &good[cut..]);
            let _ = parse_call(damaged.as_bytes());
            let _ = parse_call(&good.as_bytes()[..cut]);
        }

        #[test]
        fn written_values_read_back(v in json_value()) {
            // What we write, we (and so any XML-RPC client) can read back as the same value.
            let reply = write_response(&v, true);
            let call = reply
                .replace("<?xml version=\"1.0\" ?><methodResponse><params>", "<methodCall><methodName>x</methodName><params>")
                .replace("</params></methodResponse>", "</params></methodCall>");
            let parsed = parse_call(call.as_bytes()).expect("our own output parses");
            proptest::prop_assert_eq!(to_json(parsed.params.into_iter().next().unwrap()), v);
        }
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            (-1e9f64..1e9).prop_map(Value::from),
            "[ -~\u{a0}-\u{2fff}\n\t\r]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map("[a-z]{1,4}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    #[test]
    fn floats_look_like_ruby() {
        for (x, s) in [
            (8.0, "8.0"),
            (3.75, "3.75"),
            (0.5, "0.5"),
            (0.0, "0.0"),
            (-1.5, "-1.5"),
            (1e16, "1.0e+16"),
            (1.5e-5, "1.5e-05"),
            (123456789.125, "123456789.125"),
            (1e100, "1.0e+100"),
        ] {
            assert_eq!(ruby_float(x), s, "{x}");
        }
    }
}
