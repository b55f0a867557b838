//! Player IDs, ranks and ratings (docs/aga.md): AGATourn's `NormalizeID`, `RankToRating`, the
//! `Rating()` converter, `CollapseRating` / `ExpandRating` and the two sigma formulas, each with
//! the exact text AGATourn returns, plus the normalisation used by `strict` mode.

use super::diag::{Severity, Warning, plain};
use super::perl::{fmt_num, is_space, is_word, numify};

/// AGATourn's NOTARANK, as Perl prints it.
pub const NOTARANK: &str = "-99.9";
/// Its numeric value.
pub const NOTARANK_F: f64 = -99.9;

/// Perl's `$` matches at the end or before one final newline; match bodies are tested on this.
fn perl_body(s: &str) -> &str {
    s.strip_suffix('\n').unwrap_or(s)
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `^-?\d+\.\d+$`
fn is_decimal(s: &str) -> bool {
    let s = s.strip_prefix('-').unwrap_or(s);
    match s.split_once('.') {
        Some((a, b)) => all_digits(a) && all_digits(b),
        None => false,
    }
}

/// `NormalizeID` (compat): upper-case, then drop the zeros that directly follow the
/// leading letters when a digit 1–9 comes next.
pub fn normalize_id(id: &str) -> String {
    let up = id.to_ascii_uppercase();
    let b = up.as_bytes();
    let letters = b.iter().take_while(|c| c.is_ascii_uppercase()).count();
    let zeros = b[letters..].iter().take_while(|&&c| c == b'0').count();
    match b.get(letters + zeros) {
        Some(c) if (b'1'..=b'9').contains(c) && zeros > 0 => {
            format!("{}{}", &up[..letters], &up[letters + zeros..])
        }
        _ => up,
    }
}

/// `strict` normalisation: the compat rule, plus the default country `USA` for purely
/// numeric IDs, and surrounding whitespace removed; the same in every file.
pub fn normalize_id_strict(id: &str) -> String {
    let id = id.trim_matches(is_space);
    let n = normalize_id(id);
    if n.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        normalize_id(&format!("USA{n}"))
    } else {
        n
    }
}

/// Splits a register ID into (country, agaNum) the way `ParseRegisterLine` does: normalise,
/// then the leading non-digits (upper-cased) are the country, `USA` when there are none.
pub fn split_id(id: &str) -> (String, String) {
    let n = normalize_id(id);
    let split = n
        .char_indices()
        .find(|(_, c)| c.is_ascii_digit())
        .map(|(i, _)| i)
        .unwrap_or(n.len());
    if split == 0 {
        ("USA".to_string(), n)
    } else {
        (n[..split].to_ascii_uppercase(), n[split..].to_string())
    }
}

/// `RankToRating`: always returns text.
pub fn rank_to_rating(rank: Option<&str>) -> String {
    let Some(r) = rank else {
        return NOTARANK.to_string();
    };
    if r.is_empty() {
        return NOTARANK.to_string();
    }
    let body = perl_body(r);
    if all_digits(body.strip_prefix('-').unwrap_or(body)) {
        return format!("{r}.0");
    }
    if is_decimal(body) {
        return r.to_string();
    }
    match rank_parts(body) {
        Some((digits, kyu)) => {
            let text = format!("{digits}.5");
            if kyu { fmt_num(-numify(&text)) } else { text }
        }
        None => NOTARANK.to_string(),
    }
}

/// `^(\d+)([dDkK])$` → (digits, is_kyu).
fn rank_parts(s: &str) -> Option<(&str, bool)> {
    let last = s.chars().last()?;
    let digits = &s[..s.len() - last.len_utf8()];
    if !all_digits(digits) {
        return None;
    }
    match last {
        'd' | 'D' => Some((digits, false)),
        'k' | 'K' => Some((digits, true)),
        _ => None,
    }
}

/// The converter half of `Rating()` for an argument that is not a registered ID.
pub fn rating_of_text(arg: &str) -> (Option<String>, Vec<Warning>) {
    let b = arg.as_bytes();
    // ^(-?\d+\.\d)
    {
        let mut i = usize::from(b.first() == Some(&b'-'));
        let d0 = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i > d0 && b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            return (Some(arg[..i + 2].to_string()), vec![]);
        }
    }
    let ws = arg.chars().take_while(|&c| is_space(c)).count();
    let rest = &arg[ws..];
    let rb = rest.as_bytes();
    let boundary = |i: usize| rb.get(i).is_none_or(|&c| !is_word(c as char));
    // ^\s*(\d+)([dkDK])\b
    {
        let n = rb.iter().take_while(|c| c.is_ascii_digit()).count();
        if n > 0 && matches!(rb.get(n), Some(b'd' | b'k' | b'D' | b'K')) && boundary(n + 1) {
            let digits = &rest[..n];
            let kyu = matches!(rb[n], b'k' | b'K');
            let v = if kyu {
                fmt_num(-numify(digits))
            } else {
                digits.to_string()
            };
            return (Some(v), vec![]);
        }
    }
    // ^\s*(-?\d\d?)\b
    {
        let s0 = usize::from(rb.first() == Some(&b'-'));
        let n = rb[s0..]
            .iter()
            .take(2)
            .take_while(|c| c.is_ascii_digit())
            .count();
        for len in (1..=n).rev() {
            if boundary(s0 + len) {
                return (Some(rest[..s0 + len].to_string()), vec![]);
            }
        }
    }
    let w = plain(
        Severity::Warning,
        "rating.invalid",
        format!("{arg:?} is neither a registered ID, a rank nor a rating"),
        &format!("Invalid Rating argument:{arg}\n"),
    );
    (None, vec![w])
}

/// `CollapseRating`'s arithmetic on a number: no gap between 1k (−1) and 1d (+1). Values in the
/// (−1, 1) hole, which no AGA rating has, are kept as they are.
pub fn collapse_value(r: f64) -> f64 {
    if r >= 1.0 {
        r - 1.0
    } else if r <= -1.0 {
        r + 1.0
    } else {
        r
    }
}

/// `CollapseRating`: the numeric value to compute with, its Perl text, and the warning
/// for a rating in the (−1, 1) hole. An undefined input stays undefined.
pub fn collapse(rating: Option<&str>) -> (Option<f64>, Option<String>, Option<Warning>) {
    let r = rating.map(numify).unwrap_or(0.0);
    if rating.is_some() && (r >= 1.0 || r <= -1.0) {
        let v = collapse_value(r);
        return (Some(v), Some(fmt_num(v)), None);
    }
    let text = rating.unwrap_or("");
    let w = plain(
        Severity::Warning,
        "rating.in_hole",
        format!("rating {text:?} lies between -1 and +1, where no AGA rating exists"),
        &format!("CollapseRating called on a rating between -1 and +1: {text}\n"),
    );
    (rating.map(|_| r), rating.map(str::to_string), Some(w))
}

/// `ExpandRating`.
pub fn expand(collapsed: &str) -> String {
    let c = numify(collapsed);
    fmt_num(if c >= 0.0 { c + 1.0 } else { c - 1.0 })
}

/// `Sigma` for a player registered with `rank` (text such as `4d`) or `rating` text.
pub fn sigma(rank: Option<&str>, rating: Option<&str>) -> Option<f64> {
    if let Some(rank) = rank {
        let (digits, kyu) = rank_parts(perl_body(rank)).unwrap_or(("0", false));
        let r = if kyu { -numify(digits) } else { numify(digits) };
        let s = (-r - 0.3) / 6.0;
        return Some(if s > 1.2 { s } else { 1.2 });
    }
    let r = numify(rating?);
    let s = (-r - 4.4) / 6.0;
    Some(if s > 0.6 { s } else { 0.6 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids() {
        assert_eq!(normalize_id("usa02122"), "USA2122");
        assert_eq!(normalize_id("Usa0a01"), "USA0A01");
        assert_eq!(normalize_id("02122"), "2122");
        assert_eq!(normalize_id("USA000"), "USA000");
        assert_eq!(normalize_id_strict("02122"), "USA2122");
        assert_eq!(split_id("2122"), ("USA".into(), "2122".into()));
        assert_eq!(split_id("tmp07"), ("TMP".into(), "7".into()));
    }

    #[test]
    fn ranks() {
        assert_eq!(rank_to_rating(Some("05d")), "05.5");
        assert_eq!(rank_to_rating(Some("05k")), "-5.5");
        assert_eq!(rating_of_text(" 4.5").0.as_deref(), Some("4"));
        assert_eq!(rating_of_text("05k").0.as_deref(), Some("-5"));
        assert_eq!(rating_of_text("4d-").0.as_deref(), Some("4"));
        assert_eq!(rating_of_text("-7x").1.len(), 1);
    }
}
