//! Structured diagnostics. Where AGATourn prints a `carp` message (and often sets its sticky error
//! flag), goswiss returns the same decision plus one of these: where (file, line), how bad, a
//! stable code, a clear message, and the exact carp text as `legacy_text` so compat callers and
//! the golden tests can compare it byte for byte (docs/aga.md).

use serde::Serialize;

/// How bad a finding is. `Error` is what sets AGATourn's sticky error flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

/// One diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// File name (`register.tde`, `2.tde`) when the line came from a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// 1-based line number, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub severity: Severity,
    /// Stable machine-readable code, e.g. `register.unparsable`.
    pub code: &'static str,
    /// A clear English message.
    pub message: String,
    /// AGATourn's carp text without Perl's trailing ` at FILE line N.` and trailing whitespace.
    pub legacy_text: String,
}

/// Where a line came from; it feeds both the structured fields and the legacy text (AGATourn
/// prints `$.`, the current input line number, and ` at line N in FILE ` when it read a file).
#[derive(Debug, Clone, Copy, Default)]
pub struct LineCtx<'a> {
    pub file: Option<&'a str>,
    pub line: Option<usize>,
}

impl<'a> LineCtx<'a> {
    pub fn new(file: Option<&'a str>, line: Option<usize>) -> Self {
        LineCtx { file, line }
    }

    /// Perl's `$.` as interpolated text (empty when undefined).
    pub fn dot(&self) -> String {
        self.line.map(|l| l.to_string()).unwrap_or_default()
    }

    /// AGATourn's `$fileMsg`: ` at line N in FILE ` once a file was read, else empty.
    pub fn file_msg(&self) -> String {
        match self.file {
            Some(f) => format!(" at line {} in {} ", self.dot(), f),
            None => String::new(),
        }
    }

    pub fn warn(
        &self,
        severity: Severity,
        code: &'static str,
        message: impl Into<String>,
        legacy: &str,
    ) -> Warning {
        Warning {
            file: self.file.map(str::to_string),
            line: self.line,
            severity,
            code,
            message: message.into(),
            legacy_text: legacy.trim_end().to_string(),
        }
    }
}

/// A warning that is not tied to an input line (e.g. from a conversion call).
pub fn plain(
    severity: Severity,
    code: &'static str,
    message: impl Into<String>,
    legacy: &str,
) -> Warning {
    LineCtx::default().warn(severity, code, message, legacy)
}
