//! Line parsers for `register.tde` and the round files `N.tde` (docs/aga.md), giving exactly
//! AGATourn 1.035's `ParseRegisterLine` / `ParseRoundLine` answers. Their Perl regexes are
//! reproduced with the `regex` crate, whose leftmost-first semantics match Perl's for these
//! backreference-free patterns; Perl's `\s`, `\d`, `\w` and `.` are spelled out as ASCII classes
//! so that non-ASCII text behaves as it does for Perl's byte strings.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::diag::{LineCtx, Severity, Warning};
use super::perl::{is_word, trim_end};
use super::rating::{normalize_id, rank_to_rating, split_id};

/// Perl `\s` as an ASCII class.
macro_rules! ws {
    () => {
        r"[\t\n\x0B\x0C\r ]"
    };
}
/// Perl `\S`.
macro_rules! nws {
    () => {
        r"[^\t\n\x0B\x0C\r ]"
    };
}

fn re(pattern: &str) -> Regex {
    // The patterns are constants of this file, covered by the unit tests.
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad built-in regex {pattern}: {e}"))
}

static DIRECTIVE_LEAD: LazyLock<Regex> =
    LazyLock::new(|| re(concat!("^", ws!(), "*##", ws!(), "*")));
static DIRECTIVE_BODY: LazyLock<Regex> =
    LazyLock::new(|| re(concat!("(", nws!(), "+)", ws!(), "*([^\n]*?)", ws!(), "*$")));
static ROUND_DIRECTIVE_BODY: LazyLock<Regex> = LazyLock::new(|| re(concat!("(", nws!(), "+)")));
static COMMENT: LazyLock<Regex> =
    LazyLock::new(|| re(concat!(ws!(), "*#", ws!(), "*([^\n]*?)", ws!(), "*$")));
static CLUB: LazyLock<Regex> =
    LazyLock::new(|| re(concat!(ws!(), "*CLUB=(", nws!(), "*)", ws!(), "*")));
static RANK_DK: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        "^",
        ws!(),
        "*(",
        nws!(),
        "*)",
        ws!(),
        "+([^\n]*?)",
        ws!(),
        "+([0-9]+[dDkK])",
        ws!(),
        "*"
    ))
});
static RANK_DEC: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        "^",
        ws!(),
        "*(",
        nws!(),
        "*)",
        ws!(),
        "+([^\n]*?)",
        ws!(),
        "+(-*[0-9]+\\.[0-9]+)",
        ws!(),
        "*"
    ))
});
static RANK_INT: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        "^",
        ws!(),
        "*(",
        nws!(),
        "*)",
        ws!(),
        "+([^\n]*?)",
        ws!(),
        "+(-*[0-9]+)",
        ws!(),
        "*"
    ))
});
static GAME: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        "^",
        ws!(),
        "*([0-9A-Za-z_]+)([0-9]+)",
        ws!(),
        "+([0-9A-Za-z_]+)([0-9]+)",
        ws!(),
        "+([bwBW?])",
        ws!(),
        "+([0-9]+)",
        ws!(),
        "+(-?[0-9]+)$"
    ))
});
/// `strict` mode: komi may be a decimal (`7.5`) and a one-digit ID is an ID.
static GAME_STRICT: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        "^",
        ws!(),
        "*([0-9A-Za-z_]*)([0-9]+)",
        ws!(),
        "+([0-9A-Za-z_]*)([0-9]+)",
        ws!(),
        "+([bwBW?])",
        ws!(),
        "+([0-9]+)",
        ws!(),
        "+(-?[0-9]+(?:\\.[0-9]+)?)$"
    ))
});

/// A parsed player line of `register.tde` (the hash `ParseRegisterLine` returns).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerLine {
    pub aga_num: String,
    pub aga_rank: Option<String>,
    pub aga_rating: String,
    pub club: String,
    pub comment: String,
    pub country: String,
    pub flags: String,
    pub name: String,
}

impl PlayerLine {
    /// The registration key: country + agaNum.
    pub fn id(&self) -> String {
        format!("{}{}", self.country, self.aga_num)
    }
}

/// What one `register.tde` line is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegisterLine {
    /// Empty or whitespace only (Perl: undef).
    Empty,
    /// `## NAME value`. `name` is `None` for a bare `##` (Perl: undef).
    Directive {
        name: Option<String>,
        value: Option<String>,
    },
    Comment(String),
    Player(PlayerLine),
    /// Could not be parsed (Perl: empty return, error flag set).
    Unparsable,
}

/// A game line of a round file (the hash `ParseRoundLine` returns).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameLine {
    #[serde(rename = "bagaNum")]
    pub b_aga_num: String,
    #[serde(rename = "bcountry")]
    pub b_country: String,
    pub comment: String,
    pub handi: String,
    pub komi: String,
    pub result: String,
    #[serde(rename = "wagaNum")]
    pub w_aga_num: String,
    #[serde(rename = "wcountry")]
    pub w_country: String,
}

impl GameLine {
    pub fn white_id(&self) -> String {
        normalize_id(&format!("{}{}", self.w_country, self.w_aga_num))
    }
    pub fn black_id(&self) -> String {
        normalize_id(&format!("{}{}", self.b_country, self.b_aga_num))
    }
}

/// What one round-file line is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoundLine {
    Empty,
    /// Directives in round files keep their name but always an empty value, and have no effect.
    Directive {
        name: Option<String>,
    },
    Comment(String),
    Game(GameLine),
    /// Could not be parsed (Perl: undef, error flag set).
    Unparsable,
}

/// Splits off a comment the way both parsers do: the first `#` with the whitespace before it.
fn split_comment(line: &str) -> (String, Option<String>) {
    match COMMENT.captures(line) {
        Some(c) => {
            let m = c.get(0).map_or(0..0, |m| m.range());
            let comment = c.get(1).map_or("", |m| m.as_str()).to_string();
            let mut rest = String::with_capacity(line.len());
            rest.push_str(&line[..m.start]);
            rest.push_str(&line[m.end..]);
            (rest, Some(comment))
        }
        None => (line.to_string(), None),
    }
}

/// `ParseRegisterLine`.
pub fn parse_register_line(raw: &str, ctx: &LineCtx) -> (RegisterLine, Vec<Warning>) {
    let mut warnings = Vec::new();
    let line = trim_end(raw);
    if line.is_empty() {
        return (RegisterLine::Empty, warnings);
    }
    if let Some(m) = DIRECTIVE_LEAD.find(line) {
        let rest = &line[m.end()..];
        return match DIRECTIVE_BODY.captures(rest) {
            Some(c) => (
                RegisterLine::Directive {
                    name: c.get(1).map(|m| m.as_str().to_string()),
                    value: Some(c.get(2).map_or("", |m| m.as_str()).to_string()),
                },
                warnings,
            ),
            None => (
                RegisterLine::Directive {
                    name: None,
                    value: None,
                },
                warnings,
            ),
        };
    }
    let (mut line, comment) = split_comment(line);
    let comment = comment.unwrap_or_default();
    if line.is_empty() {
        return (RegisterLine::Comment(comment), warnings);
    }
    let mut club = String::new();
    if let Some(c) = CLUB.captures(&line) {
        club = c
            .get(1)
            .map_or("", |m| m.as_str())
            .chars()
            .filter(|&ch| is_word(ch))
            .collect();
        let r = c.get(0).map_or(0..0, |m| m.range());
        line.replace_range(r, "");
    }
    let (id, name, rank, rating, rest);
    if let Some(c) = RANK_DK.captures(&line) {
        let r = c.get(3).map_or("", |m| m.as_str()).to_string();
        rating = rank_to_rating(Some(&r));
        rank = Some(r);
        id = c.get(1).map_or("", |m| m.as_str()).to_string();
        name = c.get(2).map_or("", |m| m.as_str()).to_string();
        rest = line[c.get(0).map_or(0, |m| m.end())..].to_string();
    } else if let Some(c) = RANK_DEC.captures(&line) {
        rating = c.get(3).map_or("", |m| m.as_str()).to_string();
        rank = None;
        id = c.get(1).map_or("", |m| m.as_str()).to_string();
        name = c.get(2).map_or("", |m| m.as_str()).to_string();
        rest = line[c.get(0).map_or(0, |m| m.end())..].to_string();
    } else if let Some(c) = RANK_INT.captures(&line) {
        rating = format!("{}.0", c.get(3).map_or("", |m| m.as_str()));
        rank = None;
        id = c.get(1).map_or("", |m| m.as_str()).to_string();
        name = c.get(2).map_or("", |m| m.as_str()).to_string();
        rest = line[c.get(0).map_or(0, |m| m.end())..].to_string();
        warnings.push(ctx.warn(
            Severity::Warning,
            "register.rank_not_decimal",
            format!("rank {rating:?} is a whole number, read as the rating {rating}"),
            &format!("Warning: rank is non-decimalized:\n{rest}\n"),
        ));
    } else {
        warnings.push(ctx.warn(
            Severity::Error,
            "register.unparsable",
            format!("cannot parse player line (expected: ID NAME RANK [FLAGS]): {line:?}"),
            &format!("Error: Can't parse name{}:\n{line}\n", ctx.file_msg()),
        ));
        return (RegisterLine::Unparsable, warnings);
    }
    let (country, aga_num) = split_id(&id);
    if !name.contains(',') {
        warnings.push(ctx.warn(
            Severity::Warning,
            "register.name_no_comma",
            format!("name {name:?} has no comma (expected \"Last, First\")"),
            &format!("Warning: no comma in name \"{name}\"{}\n", ctx.file_msg()),
        ));
    }
    let p = PlayerLine {
        aga_num,
        aga_rank: rank,
        aga_rating: rating,
        club,
        comment,
        country,
        flags: rest,
        name,
    };
    (RegisterLine::Player(p), warnings)
}

/// `ParseRoundLine`.
pub fn parse_round_line(raw: &str, ctx: &LineCtx) -> (RoundLine, Vec<Warning>) {
    parse_round_line_mode(raw, ctx, false)
}

/// `ParseRoundLine`, or with `strict` its `strict`-mode variant that accepts a decimal komi.
pub fn parse_round_line_mode(raw: &str, ctx: &LineCtx, strict: bool) -> (RoundLine, Vec<Warning>) {
    let line = trim_end(raw);
    if line.is_empty() {
        return (RoundLine::Empty, vec![]);
    }
    if let Some(m) = DIRECTIVE_LEAD.find(line) {
        let rest = &line[m.end()..];
        let name = ROUND_DIRECTIVE_BODY
            .find(rest)
            .map(|m| m.as_str().to_string());
        return (RoundLine::Directive { name }, vec![]);
    }
    let (line, comment) = split_comment(line);
    let comment = comment.unwrap_or_default();
    if line.is_empty() {
        return (RoundLine::Comment(comment), vec![]);
    }
    let game: &Regex = if strict { &GAME_STRICT } else { &GAME };
    if let Some(c) = game.captures(&line) {
        let g = |i: usize| c.get(i).map_or("", |m| m.as_str()).to_string();
        return (
            RoundLine::Game(GameLine {
                w_country: g(1).to_ascii_uppercase(),
                w_aga_num: g(2),
                b_country: g(3).to_ascii_uppercase(),
                b_aga_num: g(4),
                result: g(5).to_ascii_lowercase(),
                handi: g(6),
                komi: g(7),
                comment,
            }),
            vec![],
        );
    }
    let w = ctx.warn(
        Severity::Error,
        "round.unparsable",
        format!(
            "cannot parse game line (expected: WHITE BLACK b|w|? HANDICAP KOMI, integer komi): {line:?}"
        ),
        &format!("Can't parse round line {}{}:\n{line}\n", ctx.dot(), ctx.file_msg()),
    );
    (RoundLine::Unparsable, vec![w])
}

/// The Perl-shaped JSON of a register line (what the probes show): `null` for an empty line, no
/// value at all (`None`) for an unparsable one.
pub fn register_line_json(l: &RegisterLine) -> Option<serde_json::Value> {
    use serde_json::json;
    match l {
        RegisterLine::Empty => Some(serde_json::Value::Null),
        RegisterLine::Directive { name, value } => Some(json!({"directive": name, "value": value})),
        RegisterLine::Comment(c) => Some(json!({ "comment": c })),
        RegisterLine::Player(p) => serde_json::to_value(p).ok(),
        RegisterLine::Unparsable => None,
    }
}

/// The Perl-shaped JSON of a round line: `null` for empty and unparsable lines.
pub fn round_line_json(l: &RoundLine) -> serde_json::Value {
    use serde_json::json;
    match l {
        RoundLine::Empty | RoundLine::Unparsable => serde_json::Value::Null,
        RoundLine::Directive { name } => json!({"directive": name, "value": ""}),
        RoundLine::Comment(c) => json!({ "comment": c }),
        RoundLine::Game(g) => serde_json::to_value(g).unwrap_or(serde_json::Value::Null),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regexes_compile_and_parse() {
        let ctx = LineCtx::default();
        let (l, w) = parse_register_line("USA5 Smith, 3Doors 5k", &ctx);
        assert!(w.is_empty());
        match l {
            RegisterLine::Player(p) => {
                assert_eq!(p.name, "Smith,");
                assert_eq!(p.flags, "oors 5k");
            }
            other => panic!("{other:?}"),
        }
        let (l, _) = parse_round_line("USA31742 USA31749 b 5 -5 # c", &ctx);
        assert!(matches!(l, RoundLine::Game(ref g) if g.w_country == "USA3174"));
        let (l, _) = parse_register_line("##", &ctx);
        assert_eq!(
            l,
            RegisterLine::Directive {
                name: None,
                value: None
            }
        );
    }
}
