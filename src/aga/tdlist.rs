//! AGA membership lists (docs/aga.md): AGATourn's `ParseTdListLine` for the tab-delimited TDListA/B
//! (exactly 9 fields, nothing trimmed) and the older space-delimited layouts (fixed columns, then
//! a free-form fallback). The tab path borrows from the input and allocates nothing, so a whole
//! 22,000-line list parses in a few milliseconds.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::diag::{LineCtx, Severity, Warning};
use super::perl::{fmt_num, is_word, numify};

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad built-in regex {pattern}: {e}"))
}

const WS: &str = r"[\t\n\x0B\x0C\r ]";

static HEAD: LazyLock<Regex> =
    LazyLock::new(|| re(&format!(r"^{WS}*([^\n]*?){WS}*([0-9]+) ([^\n]*)")));
static FIXED: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"([0-9A-Za-z_ ]{{6}}?) ([-0-9. ]{{5}}) ([0-9/ ]{{10}}) ([0-9A-Za-z_ ]{{4}}) ([^\n]*?){WS}*$"
    ))
});
static FIXED_RANK: LazyLock<Regex> = LazyLock::new(|| re(r"([0-9]+)([dkDK])"));
static FREE_MEMTYPE: LazyLock<Regex> =
    LazyLock::new(|| re(&format!(r"^{WS}*([^\t\n\x0B\x0C\r 0-9-]+) ")));
static FREE_RATING: LazyLock<Regex> = LazyLock::new(|| re(&format!(r"^{WS}*(-?[0-9]+\.[0-9]) ")));
static FREE_RANK: LazyLock<Regex> = LazyLock::new(|| re(&format!(r"^{WS}*([0-9]+)([dkDK]) ")));
static FREE_SMALL: LazyLock<Regex> = LazyLock::new(|| re(&format!(r"^{WS}*(-?[0-9][0-9]?) ")));
static FREE_EXPIRE: LazyLock<Regex> = LazyLock::new(|| re(&format!(r"^{WS}*([0-9/]+) ")));
static FREE_CLUB: LazyLock<Regex> = LazyLock::new(|| re(&format!(r"^([0-9A-Za-z_]+){WS}*")));
static FREE_STATE: LazyLock<Regex> = LazyLock::new(|| re(&format!(r"^{WS}*([^\n]*?){WS}*$")));

/// Which layout a line was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TdFormat {
    Tab,
    Space,
}

/// One membership record. Tab records borrow their fields from the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TdRecord<'a> {
    pub format: TdFormat,
    pub name: Cow<'a, str>,
    pub aga_num: Cow<'a, str>,
    pub mem_type: Cow<'a, str>,
    pub aga_rating: Cow<'a, str>,
    pub expire: Cow<'a, str>,
    pub club: Cow<'a, str>,
    pub state: Cow<'a, str>,
    /// Tab format only.
    pub sigma: Option<&'a str>,
    /// Tab format only (the 9th field: last rating date / join date).
    pub rating_date: Option<&'a str>,
    /// Space format only: the rank text when the list gave `4D` instead of a rating.
    pub aga_rank: Option<String>,
}

impl TdRecord<'_> {
    /// The country AGATourn reports (its default country).
    pub const COUNTRY: &'static str = "USA";

    /// The hash AGATourn returns, as JSON (the keys differ between the two layouts).
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        let s = |v: &str| Value::String(v.to_string());
        m.insert("name".into(), s(&self.name));
        m.insert("agaNum".into(), s(&self.aga_num));
        m.insert("memType".into(), s(&self.mem_type));
        m.insert("agaRating".into(), s(&self.aga_rating));
        m.insert("expire".into(), s(&self.expire));
        m.insert("club".into(), s(&self.club));
        m.insert("state".into(), s(&self.state));
        m.insert("country".into(), s(Self::COUNTRY));
        match self.format {
            TdFormat::Tab => {
                m.insert("sigma".into(), s(self.sigma.unwrap_or("")));
                m.insert("ratingDate".into(), s(self.rating_date.unwrap_or("")));
            }
            TdFormat::Space => {
                m.insert(
                    "agaRank".into(),
                    self.aga_rank.clone().map_or(Value::Null, Value::String),
                );
            }
        }
        Value::Object(m)
    }
}

/// `ParseTdListLine` on one line (its line end, if any, is stripped here as Perl does).
pub fn parse_tdlist_line<'a>(line: &'a str, ctx: &LineCtx) -> (Option<TdRecord<'a>>, Vec<Warning>) {
    let stripped = line.trim_end_matches(['\n', '\r']);
    if let Some(rec) = tab_record(stripped) {
        return (Some(rec), Vec::new());
    }
    space_record(stripped, ctx)
}

/// The tab layout: Perl appends a TAB and collects every `(.*?)\t`; a field cannot span a
/// newline, so only the part after a segment's last `\n` counts.
fn tab_record(s: &str) -> Option<TdRecord<'_>> {
    let mut f: [&str; 9] = [""; 9];
    let mut n = 0;
    for part in s.split('\t') {
        if n == 9 {
            return None;
        }
        f[n] = part;
        n += 1;
    }
    if n != 9 {
        return None;
    }
    if s.contains('\n') {
        for x in f.iter_mut() {
            *x = x.rsplit('\n').next().unwrap_or("");
        }
    }
    Some(TdRecord {
        format: TdFormat::Tab,
        name: Cow::Borrowed(f[0]),
        aga_num: Cow::Borrowed(f[1]),
        mem_type: Cow::Borrowed(f[2]),
        aga_rating: Cow::Borrowed(f[3]),
        expire: Cow::Borrowed(f[4]),
        club: Cow::Borrowed(f[5]),
        state: Cow::Borrowed(f[6]),
        sigma: Some(f[7]),
        rating_date: Some(f[8]),
        aga_rank: None,
    })
}

fn ws_clean(s: &str) -> String {
    s.trim_matches(super::perl::is_space).to_string()
}

fn rank_rating(digits: &str, kyu: bool) -> String {
    let r = numify(digits) + 0.5;
    fmt_num(if kyu { -r } else { r })
}

fn space_record<'a>(stripped: &str, ctx: &LineCtx) -> (Option<TdRecord<'a>>, Vec<Warning>) {
    let mut warnings = Vec::new();
    let string = format!("{stripped}\t");
    let Some(h) = HEAD.captures(&string) else {
        warnings.push(ctx.warn(
            Severity::Error,
            "tdlist.no_id",
            "cannot find an AGA number in the membership line (and it is not a 9-field tab line)",
            &format!("Error: can't extract AGA number from \"{string}\"\n"),
        ));
        return (None, warnings);
    };
    let name = h.get(1).map_or("", |m| m.as_str()).to_string();
    let aga_num = h.get(2).map_or("", |m| m.as_str()).to_string();
    let mut misc = h.get(3).map_or("", |m| m.as_str()).to_string();
    let (mut mem_type, mut rating, mut expire, mut club, mut state) = (
        String::new(),
        "-99".to_string(),
        String::new(),
        String::new(),
        String::new(),
    );
    let mut rank = None;
    if let Some(c) = FIXED.captures(&misc) {
        let g = |i: usize| ws_clean(c.get(i).map_or("", |m| m.as_str()));
        mem_type = g(1);
        rating = g(2);
        expire = g(3);
        club = g(4);
        state = g(5);
        if let Some(r) = FIXED_RANK.captures(&rating) {
            let digits = r.get(1).map_or("", |m| m.as_str()).to_string();
            let kyu = r
                .get(2)
                .is_some_and(|m| m.as_str().eq_ignore_ascii_case("k"));
            rank = Some(rating.to_ascii_uppercase());
            rating = rank_rating(&digits, kyu);
        }
    } else {
        let uh_oh = |what: &str, misc: &str| {
            ctx.warn(
                Severity::Warning,
                "tdlist.layout",
                format!("membership line: no {what} column in {misc:?}"),
                &format!("Uh oh, no {what} space in: '{misc}'"),
            )
        };
        // Each step removes what it recognised from the front of `misc`.
        let take = |re: &Regex, misc: &mut String| -> Option<Vec<String>> {
            let c = re.captures(misc)?;
            let groups = (1..c.len())
                .map(|i| c.get(i).map_or("", |m| m.as_str()).to_string())
                .collect();
            let end = c.get(0).map_or(0, |m| m.end());
            misc.replace_range(..end, "");
            Some(groups)
        };
        if let Some(g) = take(&FREE_MEMTYPE, &mut misc) {
            mem_type = g[0].clone();
        } else if let Some(rest) = misc.strip_prefix("       ") {
            misc = rest.to_string();
        } else {
            warnings.push(uh_oh("membership type", &misc));
        }
        if let Some(g) = take(&FREE_RATING, &mut misc) {
            rating = g[0].clone();
        } else if let Some(g) = take(&FREE_RANK, &mut misc) {
            rank = Some(format!("{}{}", g[0], g[1]).to_ascii_uppercase());
            rating = rank_rating(&g[0], g[1].eq_ignore_ascii_case("k"));
        } else if let Some(g) = take(&FREE_SMALL, &mut misc) {
            rating = g[0].clone();
        } else if let Some(rest) = misc.strip_prefix("      ") {
            misc = rest.to_string();
        } else {
            warnings.push(uh_oh("rating", &misc));
        }
        if let Some(g) = take(&FREE_EXPIRE, &mut misc) {
            expire = g[0].clone();
        } else if misc.contains("           ") {
            misc = misc.replacen("           ", "", 1);
        } else {
            warnings.push(uh_oh("expire", &misc));
        }
        if let Some(g) = take(&FREE_CLUB, &mut misc) {
            club = g[0].chars().filter(|&c| is_word(c)).collect();
        } else if misc.contains("     ") {
            misc = misc.replacen("     ", "", 1);
        } else {
            // AGATourn says "expire" here too.
            warnings.push(uh_oh("expire", &misc));
        }
        if let Some(g) = take(&FREE_STATE, &mut misc) {
            state = g[0].clone();
        }
        if !misc.is_empty() {
            warnings.push(ctx.warn(
                Severity::Warning,
                "tdlist.leftover",
                format!("membership line: {misc:?} was left over"),
                &format!(
                    "Error: \"{misc}\" was left over after parsing \"{string}\"\nname={name}, id={aga_num}, mem={mem_type}, rating={rating}, expire={expire}, club={club}, state={state}\n"
                ),
            ));
        }
    }
    let rec = TdRecord {
        format: TdFormat::Space,
        name: Cow::Owned(name),
        aga_num: Cow::Owned(aga_num),
        mem_type: Cow::Owned(mem_type),
        aga_rating: Cow::Owned(rating),
        expire: Cow::Owned(expire),
        club: Cow::Owned(club),
        state: Cow::Owned(state),
        sigma: None,
        rating_date: None,
        aga_rank: rank,
    };
    (Some(rec), warnings)
}

/// Parses a whole list, line by line (`\n` ends a line; CRs before it are dropped), calling `f`
/// with the 1-based line number, the record (or `None` for a line that failed) and its warnings.
/// Streaming: nothing is collected here, so the caller decides what to keep.
///
/// One SIMD scan for TABs and newlines over the whole text finds every field boundary; a line with
/// exactly 8 TABs is a tab record built from those offsets without looking at its bytes again.
/// Anything else goes through [`parse_tdlist_line`].
pub fn for_each_line<'a>(
    text: &'a str,
    mut f: impl FnMut(usize, Option<TdRecord<'a>>, Vec<Warning>),
) {
    let bytes = text.as_bytes();
    let mut line_start = 0;
    let mut tabs = [0usize; 8];
    let mut ntabs = 0;
    let mut line_no = 0;
    let mut finish = |start: usize, end: usize, ntabs: usize, tabs: &[usize; 8], line_no: usize| {
        // `end` is past the line's `\n` (or the text's end); CR/LF are stripped as Perl does.
        let mut stop = end;
        while stop > start && matches!(bytes[stop - 1], b'\n' | b'\r') {
            stop -= 1;
        }
        if ntabs == 8 {
            let field = |a: usize, b: usize| text.get(a..b).unwrap_or("");
            let rec = TdRecord {
                format: TdFormat::Tab,
                name: Cow::Borrowed(field(start, tabs[0])),
                aga_num: Cow::Borrowed(field(tabs[0] + 1, tabs[1])),
                mem_type: Cow::Borrowed(field(tabs[1] + 1, tabs[2])),
                aga_rating: Cow::Borrowed(field(tabs[2] + 1, tabs[3])),
                expire: Cow::Borrowed(field(tabs[3] + 1, tabs[4])),
                club: Cow::Borrowed(field(tabs[4] + 1, tabs[5])),
                state: Cow::Borrowed(field(tabs[5] + 1, tabs[6])),
                sigma: Some(field(tabs[6] + 1, tabs[7])),
                rating_date: Some(field(tabs[7] + 1, stop)),
                aga_rank: None,
            };
            f(line_no, Some(rec), Vec::new());
        } else {
            let ctx = LineCtx::new(None, Some(line_no));
            let (rec, w) = parse_tdlist_line(text.get(start..end).unwrap_or(""), &ctx);
            f(line_no, rec, w);
        }
    };
    for pos in memchr::memchr2_iter(b'\t', b'\n', bytes) {
        if bytes[pos] == b'\t' {
            if ntabs < 8 {
                tabs[ntabs] = pos;
            }
            ntabs += 1;
            continue;
        }
        line_no += 1;
        finish(line_start, pos + 1, ntabs, &tabs, line_no);
        line_start = pos + 1;
        ntabs = 0;
    }
    if line_start < bytes.len() {
        finish(line_start, bytes.len(), ntabs, &tabs, line_no + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaming_equals_line_by_line() {
        let text = "A, B \t1\tFull\t\t1/2/2003\t\tCA\t\t\r\nCorporation       6 7 CA\n\r\n\ta\tb\n\
                    x\ty\t\t\t\t\t\t\tlast\r\r";
        let mut fast = Vec::new();
        for_each_line(text, |n, r, w| fast.push((n, r.map(|r| r.to_json()), w)));
        let slow: Vec<_> = text
            .split_inclusive('\n')
            .enumerate()
            .map(|(i, l)| {
                let (r, w) = parse_tdlist_line(l, &LineCtx::new(None, Some(i + 1)));
                (i + 1, r.map(|r| r.to_json()), w)
            })
            .collect();
        assert_eq!(fast.len(), 5);
        assert_eq!(fast, slow);
    }

    #[test]
    fn tab_and_space() {
        let ctx = LineCtx::default();
        let (r, w) = parse_tdlist_line("A, B \t1\tFull\t\t1/2/2003\t\tCA\t\t\r\n", &ctx);
        assert!(w.is_empty());
        let r = r.unwrap();
        assert_eq!(r.format, TdFormat::Tab);
        assert_eq!(r.name, "A, B ");
        let (r, w) = parse_tdlist_line("Corporation       6 7 CA", &ctx);
        assert_eq!(w.len(), 2);
        assert_eq!(r.unwrap().club, "CA");
    }
}
