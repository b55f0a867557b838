//! The FFG échelle (`ech_ffg_V3.txt`, ISO-8859-1, CR LF), read as OpenGotha's `RatingList`
//! reads it:
//!
//! ```text
//! #Echelle au 11/01/2021 07:09:39
//! ZWILLING François                      -500 - 1200075 74An FR
//! ```
//!
//! A row is a line of at least 60 bytes that starts with a letter; name and first name are
//! bytes 0–37 split at the first space (family names keep their own spaces as underscores:
//! `AÏT_ALI`), rating 38–42 (FFG scale: +2050 makes it EGF's), licence status 44 (`-` not
//! licensed, `L` licensed, `C` leisure licence, `e` foreign), licence 46–52 (`-------` for
//! none), club 54–57, country 59–60. The list's date follows "Echelle au ".
//!
//! Where goswiss reads more than OpenGotha: OpenGotha takes a row only when its first byte is
//! an ASCII letter, so it drops "ÉTIENNE Fabrice"; goswiss takes any letter.

use super::text::{cols, decode, trim};
use super::{Builder, Field, Fields};

const DATE_MARK: &[u8] = b"Echelle au ";

pub(super) fn line(b: &mut Builder, line: &[u8], number: u32) {
    if line.is_empty() {
        return;
    }
    if let Some(k) = memchr::memmem::find(line, DATE_MARK) {
        b.list_date = Some(decode(trim(&line[k + DATE_MARK.len()..])).into_owned());
    }
    if line.len() < 60 {
        return;
    }
    let names = cols(line, 0, 38);
    let first_letter = decode(cols(names, 0, 4))
        .chars()
        .next()
        .is_some_and(char::is_alphabetic);
    if !first_letter {
        return;
    }
    let Some(raw) = std::str::from_utf8(trim(cols(line, 38, 43)))
        .ok()
        .and_then(|s| s.parse::<i32>().ok())
    else {
        b.skip(number);
        return;
    };
    let names = trim(names);
    let (name, first) = match names.iter().position(|&c| c == b' ') {
        Some(k) => (&names[..k], trim(&names[k + 1..])),
        None => (names, &b""[..]),
    };
    let mut f = Fields::default();
    f.set(Field::Name, decode(name));
    f.set(Field::FirstName, decode(first));
    f.set(Field::FfgLicenceStatus, decode(cols(line, 44, 45)));
    f.set(Field::FfgLicence, decode(cols(line, 46, 53)));
    f.set(Field::Club, decode(trim(cols(line, 54, 58))));
    f.set(Field::Country, decode(trim(cols(line, 59, 61))));
    f.set(Field::Listed, decode(trim(cols(line, 38, 43))));
    b.push(f, raw, number);
}

/// "11/01/2021 07:09:39" (day first) → "2021-01-11".
pub(super) fn iso_date(d: &str) -> Option<String> {
    let date = d.split_whitespace().next()?;
    let mut parts = date.split('/');
    let day: u32 = parts.next()?.parse().ok()?;
    let month: u32 = parts.next()?.parse().ok()?;
    let year: u32 = parts.next()?.parse().ok()?;
    ((1..=31).contains(&day) && (1..=12).contains(&month) && parts.next().is_none())
        .then(|| format!("{year:04}-{month:02}-{day:02}"))
}
