//! Typed property values (sgfmill's `sgf_properties`): the `FF[4]` type table, interpreting
//! raw values and serialising typed values back to raw ones.
//!
//! Number and Real follow Python's `int()` / `float()` syntax rules, because that is what
//! sgfmill accepts; points use sgfmill's orientation (row 0 at the bottom) so the golden
//! files compare directly, with conversions to SGF letters and GTP vertices for callers.

use std::collections::BTreeSet;
use std::fmt;

use super::charset::{Charset, Multibyte};
use super::error::SgfError;
use super::grammar::is_ws;

/// A board point: `row` counts from the bottom (0 = bottom line), `col` from the left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Point {
    pub row: u8,
    pub col: u8,
}

/// SGF coordinate letters: `a`–`z` for lines 1–26, then `A`–`Z` for 27–52 (`FF[4]`'s
/// large boards; only reachable with the large-boards leniency).
const LETTERS: &[u8; 52] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const GTP_COLUMNS: &[u8; 25] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

fn letter_index(b: u8) -> Option<u8> {
    match b {
        b'a'..=b'z' => Some(b - b'a'),
        b'A'..=b'Z' => Some(b - b'A' + 26),
        _ => None,
    }
}

impl Point {
    pub fn new(row: u8, col: u8) -> Point {
        Point { row, col }
    }

    /// The two SGF letters (column, then row from the top) on a board of `size`.
    pub fn to_sgf(self, size: u8) -> [u8; 2] {
        self.to_sgf_rect(size, size)
    }

    /// The two SGF letters on a `width` × `height` board.
    pub fn to_sgf_rect(self, _width: u8, height: u8) -> [u8; 2] {
        let from_top = height.saturating_sub(1).saturating_sub(self.row);
        [
            LETTERS[usize::from(self.col.min(51))],
            LETTERS[usize::from(from_top.min(51))],
        ]
    }

    /// Reads two SGF letters; `None` when not a point of this board. Upper-case letters
    /// stand for lines 27–52, so on boards up to 26 they are never points (as in sgfmill).
    pub fn from_sgf(s: &[u8], size: u8) -> Option<Point> {
        Point::from_sgf_rect(s, size, size)
    }

    /// Reads two SGF letters on a `width` × `height` board.
    pub fn from_sgf_rect(s: &[u8], width: u8, height: u8) -> Option<Point> {
        let [c, r] = s else { return None };
        let col = letter_index(*c)?;
        let from_top = letter_index(*r)?;
        if col >= width || from_top >= height {
            return None;
        }
        Some(Point {
            row: height - 1 - from_top,
            col,
        })
    }

    /// GTP vertex (`A1` is the lower left; no `I`). `None` past column 25.
    pub fn to_gtp(self) -> Option<String> {
        let c = GTP_COLUMNS.get(usize::from(self.col))?;
        Some(format!("{}{}", char::from(*c), u32::from(self.row) + 1))
    }

    /// SGF-native coordinates (x from the left, y from the top), as used by the RPC layer.
    pub fn xy(self, size: u8) -> (u8, u8) {
        (self.col, size.saturating_sub(1).saturating_sub(self.row))
    }
}

/// A player colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Colour {
    Black,
    White,
}

impl Colour {
    /// `"b"` or `"w"`, sgfmill's spelling.
    pub fn letter(self) -> &'static str {
        match self {
            Colour::Black => "b",
            Colour::White => "w",
        }
    }

    pub fn opponent(self) -> Colour {
        match self {
            Colour::Black => Colour::White,
            Colour::White => Colour::Black,
        }
    }

    /// The move property of this colour.
    pub fn ident(self) -> &'static str {
        match self {
            Colour::Black => "B",
            Colour::White => "W",
        }
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.letter())
    }
}

/// The type of a property (sgfmill's names, as in the golden files).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PropType {
    None,
    Number,
    Real,
    Double,
    Colour,
    SimpleText,
    Text,
    Move,
    PointList,
    StoneList,
    PointElist,
    Ap,
    ArlnList,
    Fg,
    LbList,
}

impl PropType {
    /// The type of a property identifier; unknown identifiers are Text (`known == false`).
    pub fn of(ident: &[u8]) -> (PropType, bool) {
        use PropType as T;
        let t = match ident {
            b"DO" | b"IT" | b"KO" => T::None,
            b"FF" | b"GM" | b"HA" | b"MN" | b"OB" | b"OW" | b"PM" | b"ST" | b"SZ" => T::Number,
            b"BL" | b"KM" | b"TM" | b"V" | b"WL" => T::Real,
            b"BM" | b"DM" | b"GB" | b"GW" | b"HO" | b"TE" | b"UC" => T::Double,
            b"PL" => T::Colour,
            b"AN" | b"BR" | b"BT" | b"CA" | b"CP" | b"DT" | b"EV" | b"GN" | b"N" | b"ON"
            | b"OT" | b"PB" | b"PC" | b"PW" | b"RE" | b"RO" | b"RU" | b"SO" | b"US" | b"WR"
            | b"WT" => T::SimpleText,
            b"C" | b"GC" => T::Text,
            b"B" | b"W" => T::Move,
            b"AE" | b"CR" | b"MA" | b"SL" | b"SQ" | b"TR" => T::PointList,
            b"AB" | b"AW" => T::StoneList,
            b"DD" | b"TB" | b"TW" | b"VW" => T::PointElist,
            b"AP" => T::Ap,
            b"AR" | b"LN" => T::ArlnList,
            b"FG" => T::Fg,
            b"LB" => T::LbList,
            _ => return (T::Text, false),
        };
        (t, true)
    }

    /// sgfmill's type name as written in the golden files.
    pub fn name(self) -> &'static str {
        use PropType as T;
        match self {
            T::None => "none",
            T::Number => "number",
            T::Real => "real",
            T::Double => "double",
            T::Colour => "colour",
            T::SimpleText => "simpletext",
            T::Text => "text",
            T::Move => "move",
            T::PointList => "point_list",
            T::StoneList => "stone_list",
            T::PointElist => "point_elist",
            T::Ap => "AP",
            T::ArlnList => "ARLN_list",
            T::Fg => "FG",
            T::LbList => "LB_list",
        }
    }

    fn uses_list(self) -> bool {
        matches!(
            self,
            PropType::PointList
                | PropType::StoneList
                | PropType::PointElist
                | PropType::ArlnList
                | PropType::LbList
        )
    }
}

/// A typed property value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A None-typed property (DO, IT, KO): present.
    None,
    Number(i64),
    Real(f64),
    /// 1 (normal) or 2 (emphasised).
    Double(u8),
    Colour(Colour),
    /// SimpleText or Text, decoded.
    Text(String),
    /// A move; `None` is a pass.
    Move(Option<Point>),
    /// point_list, stone_list, point_elist.
    Points(BTreeSet<Point>),
    /// AP: (application, version).
    Ap(String, String),
    /// AR, LN.
    Arrows(Vec<(Point, Point)>),
    /// FG: `None` for the empty value, else (flags, name).
    Figure(Option<(i64, String)>),
    /// LB.
    Labels(Vec<(Point, String)>),
}

/// What interpreting a value needs to know.
#[derive(Debug, Clone, Copy)]
pub struct Context {
    /// Board width (the size of a square board).
    pub size: u8,
    /// Board height (equal to `size` unless the rectangular-boards leniency read `SZ[w:h]`).
    pub height: u8,
    pub charset: Charset,
    pub multibyte: Multibyte,
    /// Write point sets as rectangles (`aa:bc`) where possible; sgfmill never does.
    pub compress_point_lists: bool,
}

fn bare() -> SgfError {
    SgfError::value("")
}

/// Python's `int()` failure on bytes.
fn int_error(s: &[u8]) -> SgfError {
    SgfError::value(format!(
        "invalid literal for int() with base 10: {}",
        super::error::bytes_repr(s)
    ))
}

/// sgfmill handing `None` to its text reader (a compose value without its second part).
fn none_text() -> SgfError {
    SgfError::type_error("expected string or bytes-like object, got 'NoneType'")
}

// ---------------------------------------------------------------- Python number syntax

fn strip_ws(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&b| !is_ws(b)).unwrap_or(s.len());
    let end = s.iter().rposition(|&b| !is_ws(b)).map_or(start, |e| e + 1);
    &s[start..end]
}

/// Digits with single `_` between digits (Python ≥ 3.6), appended to `out` without the `_`.
fn py_digits(s: &[u8], out: &mut String) -> bool {
    if s.is_empty() || s[0] == b'_' || s[s.len() - 1] == b'_' {
        return false;
    }
    let mut prev_underscore = false;
    for &b in s {
        if b == b'_' {
            if prev_underscore {
                return false;
            }
            prev_underscore = true;
        } else if b.is_ascii_digit() {
            prev_underscore = false;
            out.push(char::from(b));
        } else {
            return false;
        }
    }
    true
}

/// Python `int(bytes)` for base 10; `None` if Python would raise (or the value overflows i64).
pub fn py_int(s: &[u8]) -> Option<i64> {
    py_int_text(s)?.parse().ok()
}

/// The decimal text Python's `int(bytes)` would produce (`-7` for `b" -0_07 "`), however
/// large; `None` if Python would raise.
pub fn py_int_text(s: &[u8]) -> Option<String> {
    let s = strip_ws(s);
    let (neg, body) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut digits = String::with_capacity(body.len() + 1);
    if neg {
        digits.push('-');
    }
    if !py_digits(body, &mut digits) {
        return None;
    }
    let sign_len = usize::from(neg);
    let trimmed = digits[sign_len..].trim_start_matches('0');
    if trimmed.is_empty() {
        return Some("0".to_owned());
    }
    Some(format!("{}{trimmed}", if neg { "-" } else { "" }))
}

/// Python `float(bytes)`; `None` if Python would raise.
pub fn py_float(s: &[u8]) -> Option<f64> {
    let s = strip_ws(s);
    let (sign, body) = match s.first() {
        Some(b'-') => ("-", &s[1..]),
        Some(b'+') => ("", &s[1..]),
        _ => ("", s),
    };
    let lower = body.to_ascii_lowercase();
    match lower.as_slice() {
        b"inf" | b"infinity" => {
            return Some(if sign == "-" {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            });
        }
        b"nan" => return Some(f64::NAN),
        _ => {}
    }
    let (mantissa, exponent) = match lower.iter().position(|&b| b == b'e') {
        Some(e) => (&lower[..e], Some(&lower[e + 1..])),
        None => (&lower[..], None),
    };
    let (int_part, frac_part) = match mantissa.iter().position(|&b| b == b'.') {
        Some(d) => (&mantissa[..d], Some(&mantissa[d + 1..])),
        None => (mantissa, None),
    };
    let mut text = String::from(sign);
    let int_ok = int_part.is_empty() || py_digits(int_part, &mut text);
    if int_part.is_empty() {
        text.push('0');
    }
    text.push('.');
    let frac_ok = match frac_part {
        None | Some([]) => {
            text.push('0');
            true
        }
        Some(f) => py_digits(f, &mut text),
    };
    if !int_ok || !frac_ok || (int_part.is_empty() && frac_part.is_none_or(|f| f.is_empty())) {
        return None;
    }
    if let Some(e) = exponent {
        text.push('e');
        let (esign, edigits) = match e.first() {
            Some(b'-') => ("-", &e[1..]),
            Some(b'+') => ("", &e[1..]),
            _ => ("", e),
        };
        text.push_str(esign);
        if !py_digits(edigits, &mut text) {
            return None;
        }
    }
    text.parse().ok()
}

// ---------------------------------------------------------------- text

/// sgfmill's `text_value` / `simpletext_value` on bytes (before decoding): line breaks
/// normalised, TAB/VT/FF to space, escapes resolved, soft line breaks removed; SimpleText
/// also turns the remaining line breaks into spaces. With a multibyte charset the trail
/// byte of a character is never taken as `\`.
pub fn unescape_text(raw: &[u8], simple: bool, mb: Multibyte) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut escaped = false;
    let mut i = 0;
    let n = raw.len();
    while i < n {
        let b = raw[i];
        // Newline sequences, longest first: LFCR, CRLF, LF, CR.
        let newline = match b {
            b'\n' | b'\r' => {
                if i + 1 < n && (raw[i + 1] == b'\n' || raw[i + 1] == b'\r') && raw[i + 1] != b {
                    2
                } else {
                    1
                }
            }
            _ => 0,
        };
        if newline > 0 {
            i += newline;
            if escaped {
                escaped = false;
            } else {
                out.push(if simple { b' ' } else { b'\n' });
            }
            continue;
        }
        if mb.is_lead(b) && i + 1 < n {
            out.extend_from_slice(&raw[i..i + 2]);
            i += 2;
            escaped = false;
            continue;
        }
        i += 1;
        let b = match b {
            b'\t' | 0x0b | 0x0c => b' ',
            _ => b,
        };
        if escaped {
            out.push(b);
            escaped = false;
        } else if b == b'\\' {
            escaped = true;
        } else {
            out.push(b);
        }
    }
    out
}

/// Escapes encoded text for a raw value: `\` → `\\`, `]` → `\]` (and `:` → `\:` when
/// `colon`), leaving multibyte characters alone.
pub fn escape_text(bytes: &[u8], colon: bool, mb: Multibyte) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 4);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if mb.is_lead(b) && i + 1 < bytes.len() {
            out.extend_from_slice(&bytes[i..i + 2]);
            i += 2;
            continue;
        }
        if b == b'\\' || b == b']' || (colon && b == b':') {
            out.push(b'\\');
        }
        out.push(b);
        i += 1;
    }
    out
}

/// sgfmill's `parse_compose`: split at the first unescaped `:`; `None` when there is none.
pub fn split_compose(s: &[u8], mb: Multibyte) -> (&[u8], Option<&[u8]>) {
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        if b == b':' {
            return (&s[..i], Some(&s[i + 1..]));
        }
        if b == b'\\' || mb.is_lead(b) {
            if i + 1 >= s.len() {
                break;
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    (s, None)
}

// ---------------------------------------------------------------- interpreting

impl Context {
    fn text(&self, raw: &[u8], simple: bool) -> Result<String, SgfError> {
        self.charset
            .decode(&unescape_text(raw, simple, self.multibyte))
    }

    /// A point or pass (`""`, and `tt` on boards up to 19), as sgfmill's
    /// `interpret_go_point`.
    pub fn go_point(&self, s: &[u8]) -> Result<Option<Point>, SgfError> {
        if s.is_empty() || (s == b"tt" && self.size <= 19 && self.height <= 19) {
            return Ok(None);
        }
        match s.len() {
            1 => Err(SgfError::value(
                "not enough values to unpack (expected 2, got 1)",
            )),
            2 => Point::from_sgf_rect(s, self.size, self.height)
                .map(Some)
                .ok_or_else(bare),
            _ => Err(SgfError::value("too many values to unpack (expected 2)")),
        }
    }

    fn point(&self, s: &[u8]) -> Result<Point, SgfError> {
        self.go_point(s)?.ok_or_else(bare)
    }

    fn point_list(&self, values: &[&[u8]]) -> Result<BTreeSet<Point>, SgfError> {
        let mut result = BTreeSet::new();
        for s in values {
            match s.iter().position(|&b| b == b':') {
                Some(c) => {
                    let top_left = self.point(&s[..c])?;
                    let bottom_right = self.point(&s[c + 1..])?;
                    if !(bottom_right.row <= top_left.row && top_left.col <= bottom_right.col) {
                        return Err(bare());
                    }
                    for row in bottom_right.row..=top_left.row {
                        for col in top_left.col..=bottom_right.col {
                            result.insert(Point { row, col });
                        }
                    }
                }
                None => {
                    result.insert(self.point(s)?);
                }
            }
        }
        Ok(result)
    }

    /// Interprets the raw values of a property of type `ty`.
    pub fn interpret(&self, ty: PropType, raw: &[&[u8]]) -> Result<Value, SgfError> {
        if raw.is_empty() {
            return Err(SgfError::value("no raw values"));
        }
        if ty.uses_list() {
            let values: &[&[u8]] = if raw.len() == 1 && raw[0].is_empty() {
                &[]
            } else {
                raw
            };
            return match ty {
                PropType::ArlnList => values
                    .iter()
                    .map(|s| {
                        let (a, b) = split_compose(s, self.multibyte);
                        let a = self.point(a)?;
                        // Without a colon sgfmill reads None as the second point.
                        let b = b.ok_or_else(|| {
                            SgfError::type_error("cannot unpack non-iterable NoneType object")
                        })?;
                        Ok((a, self.point(b)?))
                    })
                    .collect::<Result<_, _>>()
                    .map(Value::Arrows),
                PropType::LbList => values
                    .iter()
                    .map(|s| {
                        let (a, b) = split_compose(s, self.multibyte);
                        let a = self.point(a)?;
                        // Without a colon the label is None, which sgfmill's text reader
                        // rejects by type.
                        Ok((a, self.text(b.ok_or_else(none_text)?, true)?))
                    })
                    .collect::<Result<_, _>>()
                    .map(Value::Labels),
                _ => self.point_list(values).map(Value::Points),
            };
        }
        if raw.len() > 1 {
            return Err(SgfError::value("multiple values"));
        }
        let s = raw[0];
        match ty {
            PropType::None => Ok(Value::None),
            PropType::Number => {
                let no_spaces: Vec<u8> = s.iter().copied().filter(|&b| b != b' ').collect();
                py_int(&no_spaces).map(Value::Number).ok_or_else(|| {
                    SgfError::value(format!(
                        "invalid literal for int() with base 10: {}",
                        super::error::bytes_repr(&no_spaces)
                    ))
                })
            }
            PropType::Real => {
                let f = py_float(s).ok_or_else(|| {
                    SgfError::value(format!(
                        "could not convert string to float: {}",
                        super::error::bytes_repr(s)
                    ))
                })?;
                if f.is_infinite() {
                    Err(SgfError::value("infinite"))
                } else if f.is_nan() {
                    Err(SgfError::value("not a number"))
                } else {
                    Ok(Value::Real(f))
                }
            }
            PropType::Double => Ok(Value::Double(if strip_ws(s) == b"2" { 2 } else { 1 })),
            PropType::Colour => match s.to_ascii_lowercase().as_slice() {
                b"b" => Ok(Value::Colour(Colour::Black)),
                b"w" => Ok(Value::Colour(Colour::White)),
                _ => Err(bare()),
            },
            PropType::SimpleText => self.text(s, true).map(Value::Text),
            PropType::Text => self.text(s, false).map(Value::Text),
            PropType::Move => self.go_point(s).map(Value::Move),
            PropType::Ap => {
                let (app, version) = split_compose(s, self.multibyte);
                Ok(Value::Ap(
                    self.text(app, true)?,
                    self.text(version.unwrap_or(b""), true)?,
                ))
            }
            PropType::Fg => {
                if s.is_empty() {
                    return Ok(Value::Figure(None));
                }
                match split_compose(s, self.multibyte) {
                    (flags, Some(name)) => {
                        let flags = py_int(flags).ok_or_else(|| int_error(flags))?;
                        Ok(Value::Figure(Some((flags, self.text(name, true)?))))
                    }
                    // sgfmill converts the flags first, then reads the missing name.
                    (flags, None) => {
                        py_int(flags).ok_or_else(|| int_error(flags))?;
                        Err(none_text())
                    }
                }
            }
            // uses_list types returned above
            _ => Err(bare()),
        }
    }

    // ------------------------------------------------------------ serialising

    fn ser_text(&self, text: &str, colon: bool) -> Result<Vec<u8>, SgfError> {
        Ok(escape_text(
            &self.charset.encode(text)?,
            colon,
            self.multibyte,
        ))
    }

    fn ser_point(&self, p: Point) -> Result<Vec<u8>, SgfError> {
        if p.row >= self.height || p.col >= self.size {
            return Err(SgfError::value("point out of range"));
        }
        Ok(p.to_sgf_rect(self.size, self.height).to_vec())
    }

    /// Raw values for a typed value of type `ty`.
    pub fn serialise(&self, ty: PropType, value: &Value) -> Result<Vec<Vec<u8>>, SgfError> {
        // A value of another type than the property's is a type error, as sgfmill's
        // serialisers raise TypeError for a Python value of the wrong type.
        let wrong = || SgfError::type_error(format!("wrong value type for {}", ty.name()));
        let single = |v: Vec<u8>| Ok(vec![v]);
        match (ty, value) {
            (PropType::None, _) => single(Vec::new()),
            (PropType::Number, Value::Number(n)) => single(n.to_string().into_bytes()),
            (PropType::Real, Value::Real(f)) => single(serialise_real(*f)?.into_bytes()),
            (PropType::Real, Value::Number(n)) => single(n.to_string().into_bytes()),
            (PropType::Double, Value::Double(d)) => single(if *d == 2 {
                b"2".to_vec()
            } else {
                b"1".to_vec()
            }),
            (PropType::Colour, Value::Colour(c)) => single(c.ident().as_bytes().to_vec()),
            (PropType::SimpleText | PropType::Text, Value::Text(t)) => {
                single(self.ser_text(t, false)?)
            }
            (PropType::Move, Value::Move(m)) => single(match m {
                None if self.size <= 19 && self.height <= 19 => b"tt".to_vec(),
                None => Vec::new(),
                Some(p) => self.ser_point(*p)?,
            }),
            (
                PropType::PointList | PropType::StoneList | PropType::PointElist,
                Value::Points(pts),
            ) => {
                let mut out = if self.compress_point_lists {
                    self.compressed(pts)?
                } else {
                    pts.iter()
                        .map(|p| self.ser_point(*p))
                        .collect::<Result<Vec<_>, _>>()?
                };
                out.sort();
                self.list_result(ty, out)
            }
            (PropType::ArlnList, Value::Arrows(pairs)) => {
                let out = pairs
                    .iter()
                    .map(|(a, b)| {
                        let mut v = self.ser_point(*a)?;
                        v.push(b':');
                        v.extend(self.ser_point(*b)?);
                        Ok(v)
                    })
                    .collect::<Result<Vec<_>, SgfError>>()?;
                self.list_result(ty, out)
            }
            (PropType::LbList, Value::Labels(labels)) => {
                let out = labels
                    .iter()
                    .map(|(p, text)| {
                        let mut v = self.ser_point(*p)?;
                        v.push(b':');
                        v.extend(self.ser_text(text, false)?);
                        Ok(v)
                    })
                    .collect::<Result<Vec<_>, SgfError>>()?;
                self.list_result(ty, out)
            }
            (PropType::Ap, Value::Ap(app, version)) => {
                let mut v = self.ser_text(app, true)?;
                v.push(b':');
                v.extend(self.ser_text(version, false)?);
                single(v)
            }
            (PropType::Fg, Value::Figure(fig)) => single(match fig {
                None => Vec::new(),
                Some((flags, name)) => {
                    let mut v = flags.to_string().into_bytes();
                    v.push(b':');
                    v.extend(self.ser_text(name, false)?);
                    v
                }
            }),
            _ => Err(wrong()),
        }
    }

    /// A point set as rectangles: from each uncovered point (column by column, top down),
    /// grow down as far as the set goes, then right while whole columns of that height are
    /// in the set. Reading the result back gives the same set.
    fn compressed(&self, pts: &BTreeSet<Point>) -> Result<Vec<Vec<u8>>, SgfError> {
        for p in pts {
            self.ser_point(*p)?;
        }
        // SGF-native (x, y-from-top) coordinates.
        let top = |p: &Point| (p.col, self.height - 1 - p.row);
        let set: BTreeSet<(u8, u8)> = pts.iter().map(top).collect();
        let mut covered: BTreeSet<(u8, u8)> = BTreeSet::new();
        let free = |x: u8, y: u8, covered: &BTreeSet<(u8, u8)>| {
            set.contains(&(x, y)) && !covered.contains(&(x, y))
        };
        let mut out = Vec::new();
        for &(x0, y0) in &set {
            if covered.contains(&(x0, y0)) {
                continue;
            }
            let mut y1 = y0;
            while y1 + 1 < self.height && free(x0, y1 + 1, &covered) {
                y1 += 1;
            }
            let mut x1 = x0;
            while x1 + 1 < self.size && (y0..=y1).all(|y| free(x1 + 1, y, &covered)) {
                x1 += 1;
            }
            for x in x0..=x1 {
                for y in y0..=y1 {
                    covered.insert((x, y));
                }
            }
            let corner = |x: u8, y: u8| {
                Point::new(self.height - 1 - y, x).to_sgf_rect(self.size, self.height)
            };
            let mut v = corner(x0, y0).to_vec();
            if (x1, y1) != (x0, y0) {
                v.push(b':');
                v.extend_from_slice(&corner(x1, y1));
            }
            out.push(v);
        }
        Ok(out)
    }

    fn list_result(&self, ty: PropType, out: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, SgfError> {
        if out.is_empty() {
            if ty == PropType::PointElist {
                Ok(vec![Vec::new()])
            } else {
                Err(SgfError::value("empty list"))
            }
        } else {
            Ok(out)
        }
    }
}

/// sgfmill's `serialise_real`: whole numbers without `.0` or exponent, otherwise Python's
/// shortest repr, and `0` where that repr would have a negative exponent.
pub fn serialise_real(f: f64) -> Result<String, SgfError> {
    if !f.is_finite() {
        return Err(bare());
    }
    if f == f.trunc() {
        if f == 0.0 {
            return Ok("0".to_owned());
        }
        return Ok(format!("{f:.0}"));
    }
    if f.abs() < 1e-4 {
        return Ok("0".to_owned());
    }
    // Rust's Display is the shortest round-trip digits, positional: Python's repr for
    // 1e-4 <= |x| < 1e16, and every non-integer float is below 2^53.
    Ok(format!("{f}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(size: u8) -> Context {
        Context {
            size,
            height: size,
            charset: Charset::UTF8,
            multibyte: Multibyte::Safe,
            compress_point_lists: false,
        }
    }

    #[test]
    fn coordinate_conversions() {
        // sgfmill common_tests: GTP vertices skip I; (0, 0) is A1 at the lower left.
        assert_eq!(Point::new(0, 0).to_gtp().as_deref(), Some("A1"));
        assert_eq!(Point::new(18, 18).to_gtp().as_deref(), Some("T19"));
        assert_eq!(Point::new(0, 8).to_gtp().as_deref(), Some("J1"));
        assert_eq!(Point::new(24, 24).to_gtp().as_deref(), Some("Z25"));
        assert_eq!(Point::new(0, 25).to_gtp(), None);
        assert_eq!(Point::new(18, 0).to_sgf(19), *b"aa");
        assert_eq!(Point::new(0, 18).to_sgf(19), *b"ss");
        assert_eq!(Point::from_sgf(b"pd", 19), Some(Point::new(15, 15)));
        assert_eq!(Point::new(15, 15).xy(19), (15, 3));
        assert_eq!(Point::from_sgf(b"ja", 9), None);
    }

    #[test]
    fn compressed_point_lists() {
        let c = Context {
            compress_point_lists: true,
            ..ctx(9)
        };
        let raw = |v: &[&str]| v.iter().map(|s| s.as_bytes().to_vec()).collect::<Vec<_>>();
        // The red-bean VW example: aa:bi plus ca:ce.
        let set = match c
            .interpret(PropType::PointElist, &[b"aa:bi", b"ca:ce"])
            .unwrap()
        {
            Value::Points(p) => p,
            _ => unreachable!(),
        };
        let out = c
            .serialise(PropType::PointElist, &Value::Points(set.clone()))
            .unwrap();
        assert_eq!(out, raw(&["aa:bi", "ca:ce"]));
        let back: Vec<&[u8]> = out.iter().map(Vec::as_slice).collect();
        assert_eq!(
            c.interpret(PropType::PointElist, &back).unwrap(),
            Value::Points(set)
        );
        let one: BTreeSet<Point> = [Point::new(8, 0)].into();
        assert_eq!(
            c.serialise(PropType::StoneList, &Value::Points(one))
                .unwrap(),
            raw(&["aa"])
        );
        let l: BTreeSet<Point> = [Point::new(8, 0), Point::new(7, 0), Point::new(8, 1)].into();
        assert_eq!(
            c.serialise(PropType::StoneList, &Value::Points(l)).unwrap(),
            raw(&["aa:ab", "ba"])
        );
    }

    fn interp(ident: &str, raw: &[&str], size: u8) -> Result<Value, SgfError> {
        let raws: Vec<&[u8]> = raw.iter().map(|s| s.as_bytes()).collect();
        ctx(size).interpret(PropType::of(ident.as_bytes()).0, &raws)
    }

    #[test]
    fn python_int_rules() {
        assert_eq!(py_int(b" 19 "), Some(19));
        assert_eq!(py_int(b"+1_000"), Some(1000));
        assert_eq!(py_int(b"-007"), Some(-7));
        for bad in [
            &b"1.5"[..],
            b"0xaf",
            b"",
            b"1__0",
            b"_1",
            b"1_",
            b"19:19",
            b"- 1",
        ] {
            assert_eq!(py_int(bad), None, "{bad:?}");
        }
        // Number deletes spaces first.
        assert_eq!(interp("HA", &["1 2"], 19), Ok(Value::Number(12)));
        assert!(interp("HA", &["1.5"], 19).is_err());
    }

    #[test]
    fn python_float_rules() {
        assert_eq!(py_float(b"7.5"), Some(7.5));
        assert_eq!(py_float(b" -.5 "), Some(-0.5));
        assert_eq!(py_float(b"5."), Some(5.0));
        assert_eq!(py_float(b"1_0.2_5e1_0"), Some(10.25e10));
        assert_eq!(py_float(b"1E3"), Some(1000.0));
        assert!(py_float(b"Infinity").is_some_and(f64::is_infinite));
        for bad in [
            &b"."[..],
            b"",
            b"1e",
            b"e3",
            b"10:00",
            b"-",
            b"1._5",
            b"0x10",
            b"1 0",
        ] {
            assert_eq!(py_float(bad), None, "{bad:?}");
        }
        assert_eq!(interp("KM", &["inf"], 19).unwrap_err().message, "infinite");
        assert_eq!(
            interp("KM", &["nan"], 19).unwrap_err().message,
            "not a number"
        );
        assert_eq!(
            interp("KM", &["1e400"], 19).unwrap_err().message,
            "infinite"
        );
    }

    #[test]
    fn real_serialisation() {
        for (f, want) in [
            (7.0, "7"),
            (7.5, "7.5"),
            (-0.0, "0"),
            (1e20, "100000000000000000000"),
            (0.1, "0.1"),
            (0.00015, "0.00015"),
            (0.00001, "0"),
            (-3.25, "-3.25"),
        ] {
            assert_eq!(serialise_real(f).unwrap(), want);
        }
        assert!(serialise_real(f64::NAN).is_err());
    }

    #[test]
    fn text_rules() {
        // sgfmill test_text_value
        let t = |s: &[u8]| String::from_utf8(unescape_text(s, false, Multibyte::Safe)).unwrap();
        let st = |s: &[u8]| String::from_utf8(unescape_text(s, true, Multibyte::Safe)).unwrap();
        assert_eq!(t(b"abc "), "abc ");
        assert_eq!(t(b"ab c"), "ab c");
        assert_eq!(t(b"ab\tc"), "ab c");
        assert_eq!(t(b"ab \tc"), "ab  c");
        assert_eq!(t(b"ab\nc"), "ab\nc");
        assert_eq!(t(b"ab\\\nc"), "abc");
        assert_eq!(t(b"ab\\\\\nc"), "ab\\\nc");
        assert_eq!(t(b"ab\rc"), "ab\nc");
        assert_eq!(t(b"ab\r\nc"), "ab\nc");
        assert_eq!(t(b"ab\n\rc"), "ab\nc");
        assert_eq!(t(b"ab\r\n\r\nc"), "ab\n\nc");
        assert_eq!(t(b"ab\r\n\r\n\rc"), "ab\n\n\nc");
        assert_eq!(t(b"ab\n\n\rc"), "ab\n\nc");
        assert_eq!(t(b"ab\\\tc"), "ab c");
        assert_eq!(t(b"ab\\\\c"), "ab\\c");
        assert_eq!(t(b"ab\\]c"), "ab]c");
        assert_eq!(t(b"abc\\"), "abc");
        assert_eq!(t(b"\\\\abc"), "\\abc");
        assert_eq!(t(b"ab\\\r\nc"), "abc");
        assert_eq!(t(b"ab\\\n\rc"), "abc");
        // simpletext
        assert_eq!(st(b"ab\nc"), "ab c");
        assert_eq!(st(b"ab\\\nc"), "abc");
        assert_eq!(st(b"ab\\\\\nc"), "ab\\ c");
        assert_eq!(st(b"ab\r\n\r\nc"), "ab  c");
    }

    #[test]
    fn compose_split() {
        let mb = Multibyte::Safe;
        assert_eq!(split_compose(b"word", mb), (&b"word"[..], None));
        assert_eq!(split_compose(b"word:", mb), (&b"word"[..], Some(&b""[..])));
        assert_eq!(
            split_compose(b"word:?", mb),
            (&b"word"[..], Some(&b"?"[..]))
        );
        assert_eq!(
            split_compose(b"word:123:456", mb),
            (&b"word"[..], Some(&b"123:456"[..]))
        );
        assert_eq!(split_compose(b":123", mb), (&b""[..], Some(&b"123"[..])));
        assert_eq!(
            split_compose(b"w\\:2:123", mb),
            (&b"w\\:2"[..], Some(&b"123"[..]))
        );
        assert_eq!(
            split_compose(b"w\\\\:2:123", mb),
            (&b"w\\\\"[..], Some(&b"2:123"[..]))
        );
        assert_eq!(split_compose(b"w\\", mb), (&b"w\\"[..], None));
    }

    #[test]
    fn points_and_moves() {
        assert_eq!(
            interp("B", &["aa"], 19),
            Ok(Value::Move(Some(Point::new(18, 0))))
        );
        assert_eq!(interp("B", &["tt"], 19), Ok(Value::Move(None)));
        assert_eq!(
            interp("B", &["tt"], 20),
            Ok(Value::Move(Some(Point::new(0, 19))))
        );
        assert_eq!(interp("B", &[""], 19), Ok(Value::Move(None)));
        assert!(interp("B", &["ss"], 9).is_err());
        assert!(interp("B", &["AA"], 19).is_err());
        assert_eq!(
            interp("B", &["abc"], 19).unwrap_err().message,
            "too many values to unpack (expected 2)"
        );
        let set =
            |pts: &[(u8, u8)]| Value::Points(pts.iter().map(|&(r, c)| Point::new(r, c)).collect());
        assert_eq!(interp("AB", &["aa", "ab"], 2), Ok(set(&[(1, 0), (0, 0)])));
        assert_eq!(
            interp("AB", &["aa:bb"], 3),
            Ok(set(&[(2, 0), (2, 1), (1, 0), (1, 1)]))
        );
        assert_eq!(interp("AB", &["aa:aa", "aa"], 3), Ok(set(&[(2, 0)])));
        assert_eq!(interp("AB", &["bb:aa"], 3).unwrap_err().message, "");
        assert_eq!(interp("AE", &[""], 3), Ok(set(&[])));
        assert!(interp("AE", &["", "aa"], 3).is_err());
        assert!(interp("AB", &["tt"], 19).is_err());
        assert_eq!(interp("PL", &["w"], 19), Ok(Value::Colour(Colour::White)));
        assert!(interp("PL", &[" b"], 19).is_err());
        assert_eq!(interp("GB", &[" 2 "], 19), Ok(Value::Double(2)));
        assert_eq!(interp("GB", &["junk"], 19), Ok(Value::Double(1)));
        assert_eq!(interp("KO", &["x"], 19), Ok(Value::None));
        assert_eq!(
            interp("SZ", &["1", "2"], 19).unwrap_err().message,
            "multiple values"
        );
    }

    #[test]
    fn compose_types() {
        assert_eq!(
            interp("AP", &["Sabaki:0.35\\:1"], 19),
            Ok(Value::Ap("Sabaki".into(), "0.35:1".into()))
        );
        assert_eq!(
            interp("AP", &["name"], 19),
            Ok(Value::Ap("name".into(), "".into()))
        );
        assert_eq!(interp("FG", &[""], 19), Ok(Value::Figure(None)));
        assert_eq!(
            interp("FG", &["515:fig"], 19),
            Ok(Value::Figure(Some((515, "fig".into()))))
        );
        assert_eq!(
            interp("LB", &["aa:x", "bb:y\\]"], 19),
            Ok(Value::Labels(vec![
                (Point::new(18, 0), "x".into()),
                (Point::new(17, 1), "y]".into())
            ]))
        );
        assert_eq!(
            interp("AR", &["aa:bb"], 19),
            Ok(Value::Arrows(vec![(Point::new(18, 0), Point::new(17, 1))]))
        );
        assert!(interp("LN", &["aa"], 19).is_err());
    }

    #[test]
    fn serialising_values() {
        let c = ctx(19);
        assert_eq!(
            c.serialise(PropType::Move, &Value::Move(None)).unwrap(),
            vec![b"tt".to_vec()]
        );
        assert_eq!(
            ctx(20)
                .serialise(PropType::Move, &Value::Move(None))
                .unwrap(),
            vec![b"".to_vec()]
        );
        let pts: BTreeSet<Point> = [Point::new(0, 0), Point::new(18, 1), Point::new(18, 0)].into();
        assert_eq!(
            c.serialise(PropType::StoneList, &Value::Points(pts))
                .unwrap(),
            vec![b"aa".to_vec(), b"as".to_vec(), b"ba".to_vec()]
        );
        assert_eq!(
            c.serialise(PropType::StoneList, &Value::Points(BTreeSet::new()))
                .unwrap_err()
                .message,
            "empty list"
        );
        assert_eq!(
            c.serialise(PropType::PointElist, &Value::Points(BTreeSet::new()))
                .unwrap(),
            vec![b"".to_vec()]
        );
        assert_eq!(
            c.serialise(PropType::Text, &Value::Text("a]b\\c:d".into()))
                .unwrap(),
            vec![b"a\\]b\\\\c:d".to_vec()]
        );
        assert_eq!(
            c.serialise(PropType::Ap, &Value::Ap("a:b".into(), "1:2".into()))
                .unwrap(),
            vec![b"a\\:b:1:2".to_vec()]
        );
        assert_eq!(
            ctx(26)
                .serialise(PropType::Move, &Value::Move(Some(Point::new(0, 25))))
                .unwrap(),
            vec![b"zz".to_vec()]
        );
        // Large boards: A-Z after z.
        assert_eq!(
            ctx(52)
                .serialise(PropType::Move, &Value::Move(Some(Point::new(0, 26))))
                .unwrap(),
            vec![b"AZ".to_vec()]
        );
        assert_eq!(ctx(52).go_point(b"AZ").unwrap(), Some(Point::new(0, 26)));
        assert!(ctx(26).go_point(b"Aa").is_err());
    }

    #[test]
    fn multibyte_escaping() {
        // 表 is 95 5C in Shift_JIS: the 5C is not an escape.
        let sjis = Multibyte::ShiftJis;
        assert_eq!(
            unescape_text(b"\x95\x5c]", false, sjis),
            b"\x95\x5c]".to_vec()
        );
        assert_eq!(
            unescape_text(b"\x95\x5c]", false, Multibyte::Safe),
            b"\x95]".to_vec()
        );
        assert_eq!(
            escape_text(b"\x95\x5c]", false, sjis),
            b"\x95\x5c\\]".to_vec()
        );
    }
}
