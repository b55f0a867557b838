//! The EGF rating list (the EGD's `allworld_lp.html`: an HTML page whose `<pre>` holds one
//! player per line in byte columns), read as OpenGotha's `RatingList` reads `egf_db.txt`:
//!
//! ```text
//!  13286603  Aakerblom Charlie                     SE  Norr    5d   --   2442    71  T160920A
//! ```
//!
//! A row is a line of at least 10 bytes whose bytes 1–8 are digits (the PIN); name and first
//! name are bytes 11–47 split at the first space, country 49–51, club 53–56, grade 60–62, GoR
//! 71–74. The list's date is the first 11 characters after a `(` when the third blank-separated
//! word after it starts with "20": `(27 Dec 2018)`.

use super::text::{cols, decode, trim};
use super::{Builder, Field, Fields};

pub(super) fn line(b: &mut Builder, line: &[u8], number: u32) {
    if line.is_empty() {
        return;
    }
    if let Some(open) = line.iter().position(|&c| c == b'(') {
        let from = &line[open..];
        let third = from.split(|&c| c == b' ').nth(2);
        if third.is_some_and(|w| w.starts_with(b"20")) {
            let date = decode(cols(from, 1, 12));
            b.list_date = Some(date.trim().trim_end_matches(')').trim().to_string());
        }
    }
    if line.len() < 10 {
        return;
    }
    let pin = &line[1..9];
    if !pin.iter().all(u8::is_ascii_digit) {
        return;
    }
    let Some(raw) = std::str::from_utf8(trim(cols(line, 71, 75)))
        .ok()
        .and_then(|s| s.parse::<i32>().ok())
    else {
        b.skip(number);
        return;
    };
    let names = trim(cols(line, 11, 48));
    let (name, first) = match names.iter().position(|&c| c == b' ') {
        Some(k) => (&names[..k], trim(&names[k + 1..])),
        None => (names, &b""[..]),
    };
    let mut f = Fields::default();
    f.set(Field::Name, decode(name));
    f.set(Field::FirstName, decode(first));
    f.set(Field::Country, decode(trim(cols(line, 49, 52))));
    f.set(Field::Club, decode(trim(cols(line, 53, 57))));
    f.set(Field::Grade, decode(trim(cols(line, 60, 63))));
    f.set(Field::EgfPin, decode(pin));
    f.set(Field::Listed, decode(trim(cols(line, 71, 75))));
    b.push(f, raw, number);
}

/// "27 Dec 2018" → "2018-12-27".
pub(super) fn iso_date(d: &str) -> Option<String> {
    let mut words = d.split_whitespace();
    let day: u32 = words.next()?.parse().ok()?;
    let month = words.next()?;
    let year: u32 = words.next()?.parse().ok()?;
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let m = MONTHS
        .iter()
        .position(|name| month.get(..3).is_some_and(|p| p.eq_ignore_ascii_case(name)))?;
    (1..=31)
        .contains(&day)
        .then(|| format!("{year:04}-{:02}-{day:02}", m + 1))
}
