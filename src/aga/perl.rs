//! Perl value semantics that the compat mode must reproduce: how Perl turns a string into a
//! number, truncates with `int()`, and prints a number (`%.15g`, no trailing `.0`). AGATourn keeps
//! ratings as the text it read and only converts for arithmetic, so these three operations decide
//! every printed value (docs/aga.md).

/// Perl's whitespace class `\s` on ASCII (space, \t, \n, \v, \f, \r).
pub fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// Perl's `\w` for a non-UTF-8 string: ASCII letters, digits and `_`.
pub fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `s/\s*$//`: strips trailing whitespace (this also removes CR/LF line ends).
pub fn trim_end(s: &str) -> &str {
    s.trim_end_matches(is_space)
}

/// Numeric value of a string as Perl computes it: leading whitespace, an optional sign, then the
/// longest decimal-number prefix (digits, fraction, exponent); anything else counts as 0. Perl's
/// `inf`/`nan` spellings are deliberately not recognised: no AGA file holds them and a client
/// must not be able to push a NaN into the handicap table.
pub fn numify(s: &str) -> f64 {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && is_space(b[i] as char) {
        i += 1;
    }
    let start = i;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - int_start;
    if i < b.len() && b[i] == b'.' {
        let frac_start = i + 1;
        let mut j = frac_start;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if digits > 0 || j > frac_start {
            digits += j - frac_start;
            i = j;
        }
    }
    if digits == 0 {
        return 0.0;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'-' || b[j] == b'+') {
            j += 1;
        }
        let exp_start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > exp_start {
            i = j;
        }
    }
    // The prefix is a valid Rust float literal by construction (a lone "." was excluded above).
    s[start..i].parse::<f64>().unwrap_or(0.0)
}

/// Perl's `int()`: truncation toward zero.
pub fn int(x: f64) -> f64 {
    x.trunc()
}

/// Prints a number the way Perl stringifies it: integers without a decimal point, everything
/// else with up to 15 significant digits (`%.15g`).
pub fn fmt_num(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Inf" } else { "-Inf" }.to_string();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // Whole numbers that Perl keeps as integers print every digit.
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format!("{}", x as i64);
    }
    let sci = format!("{:.14e}", x);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..15).contains(&exp) {
        let m = strip_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{m}e{sign}{:02}", exp.abs());
    }
    let decimals = (14 - exp).max(0) as usize;
    strip_zeros(&format!("{:.*}", decimals, x)).to_string()
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_perl() {
        assert_eq!(fmt_num(4.5), "4.5");
        assert_eq!(fmt_num(0.0), "0");
        assert_eq!(fmt_num(1.0), "1");
        assert_eq!(fmt_num(-1.5), "-1.5");
        assert_eq!(fmt_num((25.0 - 0.3) / 6.0), "4.11666666666667");
        assert_eq!(fmt_num((15.0 - 4.4) / 6.0), "1.76666666666667");
        assert_eq!(fmt_num(6.0 + 0.99999), "6.99999");
        assert_eq!(fmt_num(-3.0 - 0.99999), "-3.99999");
        assert_eq!(fmt_num(1e20), "1e+20");
        assert_eq!(fmt_num(0.0001), "0.0001");
        assert_eq!(fmt_num(0.00001), "1e-05");
    }

    #[test]
    fn numifies_like_perl() {
        assert_eq!(numify("-4.55"), -4.55);
        assert_eq!(numify("  12abc"), 12.0);
        assert_eq!(numify("abc"), 0.0);
        assert_eq!(numify("."), 0.0);
        assert_eq!(numify("5."), 5.0);
        assert_eq!(numify(".5"), 0.5);
        assert_eq!(numify("1e3x"), 1000.0);
        assert_eq!(numify("1e"), 1.0);
        assert_eq!(numify("--5"), 0.0);
    }
}
