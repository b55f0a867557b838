//! The one error type of the SGF library. It keeps the Python exception class sgfmill would
//! raise next to the message, because the golden files record failures as
//! `"<Class>: <message>"` and callers (the RPC layer) map classes to codes.

use std::fmt;

/// Which Python exception sgfmill raises for this failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// `ValueError`: bad syntax, bad values, illegal operations.
    Value,
    /// `KeyError`: a property that is not there.
    NotFound,
    /// `LookupError`: an unknown encoding name.
    Lookup,
    /// `UnicodeDecodeError`: bytes that are not valid in the charset.
    UnicodeDecode,
    /// `UnicodeEncodeError`: text the charset cannot represent.
    UnicodeEncode,
    /// `TypeError`: a value of the wrong shape where sgfmill unpacks a pair (an `AR`/`LN`
    /// value without `:`, an `LB` or `FG` value without its text part).
    Type,
    /// `IndexError` / lookup of a node that is not in this game (bad id, deleted node).
    BadNode,
    /// A caller's cap was hit ([`super::LoadOptions::max_nodes`]); not an sgfmill failure,
    /// so it has no class of its own: sgfmill's nearest is `ValueError`.
    Limit,
}

impl ErrorKind {
    /// The Python class name.
    pub fn class(self) -> &'static str {
        match self {
            ErrorKind::Value => "ValueError",
            ErrorKind::NotFound => "KeyError",
            ErrorKind::Lookup => "LookupError",
            ErrorKind::UnicodeDecode => "UnicodeDecodeError",
            ErrorKind::UnicodeEncode => "UnicodeEncodeError",
            ErrorKind::Type => "TypeError",
            ErrorKind::BadNode => "IndexError",
            ErrorKind::Limit => "ValueError",
        }
    }
}

/// An SGF failure: the class and the message (sgfmill's exact text where sgfmill has one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SgfError {
    pub kind: ErrorKind,
    pub message: String,
}

impl SgfError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        SgfError {
            kind,
            message: message.into(),
        }
    }

    pub fn value(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Value, message)
    }

    pub fn type_error(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Type, message)
    }

    pub fn lookup(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Lookup, message)
    }

    pub fn not_found(ident: &str) -> Self {
        Self::new(ErrorKind::NotFound, format!("'{ident}'"))
    }

    pub fn bad_node() -> Self {
        Self::new(ErrorKind::BadNode, "no such node")
    }

    /// `"<Class>: <message>"`, or just the class when the message is empty — the golden
    /// files' spelling.
    pub fn python(&self) -> String {
        if self.message.is_empty() {
            self.kind.class().to_owned()
        } else {
            format!("{}: {}", self.kind.class(), self.message)
        }
    }
}

impl fmt::Display for SgfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            f.write_str(self.kind.class())
        } else {
            f.write_str(&self.message)
        }
    }
}

impl std::error::Error for SgfError {}

/// Python's `repr()` of a bytes object (`b'19:19'`), used in sgfmill's messages.
pub fn bytes_repr(bytes: &[u8]) -> String {
    let quote = if bytes.contains(&b'\'') && !bytes.contains(&b'"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(bytes.len() + 3);
    out.push('b');
    out.push(quote);
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            _ if char::from(b) == quote => {
                out.push('\\');
                out.push(quote);
            }
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_repr_matches_python() {
        assert_eq!(bytes_repr(b"19:19"), "b'19:19'");
        assert_eq!(bytes_repr(b"a'b"), "b\"a'b\"");
        assert_eq!(bytes_repr(b"a'\"b"), "b'a\\'\"b'");
        assert_eq!(bytes_repr(b"\\\n\x00\xff"), "b'\\\\\\n\\x00\\xff'");
    }

    #[test]
    fn python_spelling() {
        assert_eq!(SgfError::value("").python(), "ValueError");
        assert_eq!(
            SgfError::value("multiple values").python(),
            "ValueError: multiple values"
        );
    }
}
