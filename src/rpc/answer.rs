//! A method's answer, and the wire it is for.
//!
//! Handlers answer `serde_json::Value`s, which both protocol adapters encode. A method whose
//! answer can be big (`sgf.parse` of a long record: a few maps and strings per node, some
//! kilobytes each as a `Value`) is a [`super::Handler::Encoded`] instead: it writes its answer
//! in the encoding of the wire the call came on ([`Params::wire`](super::Params::wire)), from
//! a `Serialize` view of its data, so the daemon holds the answer's text and never its tree.
//! The text is byte for byte what encoding the same answer as a `Value` gives: JSON object
//! keys come sorted (the view writes them so), and [`super::xml_value`] sorts struct members
//! as `serde_json::to_value` does.

use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

use super::{RpcError, Value};

/// The encoding a call's answer is wanted in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Wire {
    /// A `serde_json::Value`: calls inside a `system.multicall`, the web pages, tests.
    #[default]
    Value,
    /// JSON-RPC's `result`.
    Json,
    /// XML-RPC's `<value>`; `nil_ok`: the client used `<nil/>` itself.
    Xml { nil_ok: bool },
}

/// A successful call's answer.
#[derive(Debug, Clone)]
pub enum Answer {
    Value(Value),
    /// JSON text (a JSON-RPC call to an encoding method).
    Json(Box<RawValue>),
    /// One XML-RPC `<value>…</value>` (an XML-RPC call to an encoding method).
    Xml(String),
}

impl From<Value> for Answer {
    fn from(v: Value) -> Answer {
        Answer::Value(v)
    }
}

impl Answer {
    /// The answer as a `Value`: what [`super::call`] gives, whose calls ask for
    /// [`Wire::Value`] and so get one.
    pub fn into_value(self) -> Result<Value, RpcError> {
        match self {
            Answer::Value(v) => Ok(v),
            Answer::Json(text) => serde_json::from_str(text.get())
                .map_err(|e| RpcError::internal(format!("an answer did not read back: {e}"))),
            Answer::Xml(_) => Err(RpcError::internal(
                "an XML-RPC answer was given where a value was asked for",
            )),
        }
    }

    /// The answer if it is a `Value` (the methods whose answer auth looks at all are).
    pub fn as_value(&self) -> Option<&Value> {
        match self {
            Answer::Value(v) => Some(v),
            _ => None,
        }
    }
}

/// For jsonrpsee, which writes the `result` of a JSON-RPC response from it.
impl Serialize for Answer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Answer::Value(v) => v.serialize(s),
            Answer::Json(text) => text.serialize(s),
            Answer::Xml(_) => Err(serde::ser::Error::custom(
                "an XML-RPC answer was given to the JSON-RPC wire",
            )),
        }
    }
}

/// Runs `f`, an encoding method's work, with `limit` on the bytes of its answer: the XML-RPC
/// writer stops at it ([`super::xml_value::with_limit`]), and an answer that passes it is
/// [`RpcError::reply_too_big`] whatever `f` made of the stop, not a cut reply.
pub fn within_reply_limit(
    limit: Option<usize>,
    f: impl FnOnce() -> Result<Answer, RpcError>,
) -> Result<Answer, RpcError> {
    let Some(limit) = limit else {
        return f();
    };
    let (answer, past) = super::xml_value::with_limit(limit, f);
    let size = match &answer {
        Ok(Answer::Json(text)) => text.get().len(),
        Ok(Answer::Xml(text)) => text.len(),
        _ => 0,
    };
    if past || size > limit {
        return Err(RpcError::reply_too_big(limit));
    }
    answer
}

/// Encodes `x` for `wire`. The error is the `Serialize` impl's own (or, for XML-RPC, a map
/// key that is not text); callers with errors of their own keep them aside and look there
/// first.
pub fn encode<T: Serialize + ?Sized>(wire: Wire, x: &T) -> Result<Answer, String> {
    match wire {
        Wire::Value => serde_json::to_value(x)
            .map(Answer::Value)
            .map_err(|e| e.to_string()),
        Wire::Json => serde_json::value::to_raw_value(x)
            .map(Answer::Json)
            .map_err(|e| e.to_string()),
        Wire::Xml { nil_ok } => {
            let mut out = String::new();
            super::xml_value::write(&mut out, x, nil_ok)
                .map(|()| Answer::Xml(out))
                .map_err(|e| e.to_string())
        }
    }
}
