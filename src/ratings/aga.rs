//! The AGA TDList (`tdlista.txt`: UTF-8, CR LF, nine tab-separated fields), read as
//! OpenGotha's `RatingList` reads it:
//!
//! ```text
//! Lefebvre, Loïc<TAB>24897<TAB>Full<TAB>4.72008<TAB>10/26/2020<TAB>VGC<TAB><TAB>0.75995<TAB>10/26/2019
//! ```
//!
//! Fields: name ("Family, Given", else split at the first space), AGA id, membership type
//! (`Forgn`: no country, anything else: US), rating (a decimal, kept in hundredths: −20.06;
//! none: OpenGotha's −28.50), expiry date, chapter (the club); the state, sigma and join date
//! after them are not used. Lines under 10 bytes are not rows.
//!
//! Where goswiss reads less than OpenGotha: a row needs its id field (a line without a tab is
//! no row, where OpenGotha would register the whole line as a name with placeholders), so a
//! web page or another list imported as a TDList is refused instead of read as thousands of
//! names. And where OpenGotha puts "xxx" for a missing first name, the first name is empty.

use super::convert::{AGA_UNRATED, aga_hundredths};
use super::text::{decode, trim};
use super::{Builder, Field, Fields};

const NAME: usize = 0;
const ID: usize = 1;
const MEMBERSHIP: usize = 2;
const RATING: usize = 3;
const EXPIRY: usize = 4;
const CHAPTER: usize = 5;

pub(super) fn line(b: &mut Builder, line: &[u8], number: u32) {
    if line.len() < 10 {
        return;
    }
    let mut fields: [&[u8]; 6] = [b""; 6];
    let mut count = 0;
    for (k, field) in line.split(|&c| c == b'\t').take(6).enumerate() {
        fields[k] = field;
        count = k + 1;
    }
    let names = trim(fields[NAME]);
    if names.is_empty() || count <= ID {
        return;
    }
    if trim(fields[ID]).is_empty() {
        b.skip(number);
        return;
    }
    // OpenGotha splits at commas when there is one, else at spaces, and takes the first two
    // parts.
    let sep = if names.contains(&b',') { b',' } else { b' ' };
    let mut parts = names.split(|&c| c == sep);
    let name = trim(parts.next().unwrap_or(b""));
    let first = trim(parts.next().unwrap_or(b""));
    let listed = decode(trim(fields[RATING]));
    let rated = aga_hundredths(&listed);
    let country = if count > MEMBERSHIP && fields[MEMBERSHIP] == b"Forgn" {
        ""
    } else {
        "US"
    };
    let mut f = Fields::default();
    f.set(Field::Name, decode(name));
    f.set(Field::FirstName, decode(first));
    f.set(Field::AgaId, decode(fields[ID]));
    f.set(Field::AgaExpiration, decode(fields[EXPIRY]));
    f.set(Field::Country, country.into());
    f.set(Field::Club, decode(fields[CHAPTER]));
    if rated.is_some() {
        f.set(Field::Listed, listed);
    }
    b.push(f, rated.unwrap_or(AGA_UNRATED), number);
}
