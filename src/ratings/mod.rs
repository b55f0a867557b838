//! Rating lists for the registration desk: the EGF rating list (`allworld_lp.html`,
//! OpenGotha's `egf_db.txt`), the FFG échelle (`ech_ffg_V3.txt`) and the AGA TDList
//! (`tdlista.txt`), read as OpenGotha's `RatingList.java` reads them, and searched by name
//! prefix, accent- and case-insensitively ([`index`]). Each entry carries what fills a
//! tournament player: name, first name, rank, rating, club, country, EGF PIN / FFG licence /
//! AGA id, with OpenGotha's conversions ([`convert`]). Pure: no I/O; the store keeps the file
//! as imported and the RPC layer keeps the index (docs/ratings.md).
//!
//! A list is stored compactly (every field's text in one string, each row a fixed-size
//! record of spans), since a daemon holds the three lists, some 110,000 rows, for good.

pub mod convert;
pub mod fold;
pub mod index;
pub mod text;
pub mod unpack;

mod aga;
mod egf;
mod ffg;
#[cfg(test)]
mod tests;

use std::borrow::Cow;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

pub use convert::Rank;
pub use index::{Hit, Index, Query};

/// Largest list accepted, in bytes (after unpacking a gzip or ZIP file): the EGF list, the
/// largest, is about 7 MB for 80,000 players.
pub const MAX_LIST_BYTES: usize = 16 * 1024 * 1024;
/// Most rows a list may have.
pub const MAX_LIST_ROWS: usize = 200_000;
/// Longest text of one field, in characters (a tournament player's text cap, so an entry
/// always fills a player); longer text is cut.
pub const MAX_FIELD: usize = 200;
/// Lines numbers of the rows that could not be read kept per list, for the summary.
pub const MAX_SKIPPED_SHOWN: usize = 20;

/// Which federation's list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Egf,
    Ffg,
    Aga,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Egf, Kind::Ffg, Kind::Aga];

    /// The name in the API, the database and the CLI: "egf", "ffg", "aga".
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Egf => "egf",
            Kind::Ffg => "ffg",
            Kind::Aga => "aga",
        }
    }

    /// OpenGotha's rating origin: "EGF", "FFG", "AGA".
    pub fn origin(self) -> &'static str {
        match self {
            Kind::Egf => "EGF",
            Kind::Ffg => "FFG",
            Kind::Aga => "AGA",
        }
    }

    /// "egf", "FFG", ... (any case).
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(s.trim()))
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.origin())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    #[error("the {kind} list is {bytes} bytes, more than the limit of {max} bytes", max = MAX_LIST_BYTES)]
    TooBig { kind: Kind, bytes: usize },
    #[error("the {kind} list has more than {max} rows (the limit)", max = MAX_LIST_ROWS)]
    TooManyRows { kind: Kind },
    #[error(
        "no line of this file reads as a row of the {kind} list ({lines} lines{skipped}): is it \
         the right file, and the right kind?",
        skipped = if *.skipped > 0 { format!(", {} that look like rows but do not read", .skipped) } else { String::new() }
    )]
    NoRows {
        kind: Kind,
        lines: usize,
        skipped: usize,
    },
    #[error("cannot unpack the file: {0}")]
    Unpack(String),
    #[error("the work ran out of time")]
    OverBudget,
}

impl From<crate::budget::OverBudget> for ListError {
    fn from(_: crate::budget::OverBudget) -> ListError {
        ListError::OverBudget
    }
}

/// The text fields of a row, in [`Row::spans`] order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Name,
    FirstName,
    Country,
    Club,
    Grade,
    EgfPin,
    FfgLicence,
    FfgLicenceStatus,
    AgaId,
    AgaExpiration,
    /// The list's own rating text, as the file writes it (empty when it has none).
    Listed,
}

const FIELDS: usize = 11;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Span {
    start: u32,
    len: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Row {
    spans: [Span; FIELDS],
    /// OpenGotha's raw rating: the GoR, the FFG rating, the AGA rating in hundredths.
    raw: i32,
    /// The line of the file (from 1).
    line: u32,
}

/// One parsed list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RatingList {
    kind: Kind,
    list_date: Option<String>,
    text: String,
    rows: Vec<Row>,
    lines: usize,
    skipped: usize,
    skipped_lines: Vec<u32>,
}

/// One row of a list, with OpenGotha's conversions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry<'a> {
    pub kind: Kind,
    pub name: &'a str,
    pub first_name: &'a str,
    pub country: &'a str,
    pub club: &'a str,
    /// The grade the list gives (EGF only), as written ("4d", "1p").
    pub listed_grade: &'a str,
    pub egf_pin: &'a str,
    pub ffg_licence: &'a str,
    pub ffg_licence_status: &'a str,
    pub aga_id: &'a str,
    pub aga_expiration: &'a str,
    /// The list's own rating as the file writes it ("2388", "243", "-20.05711"); empty when
    /// the row has none (AGA members not rated yet).
    pub listed_rating: &'a str,
    /// OpenGotha's raw rating ([`Row::raw`]).
    pub raw: i32,
    /// The row's line in the file, from 1.
    pub line: u32,
}

impl Entry<'_> {
    /// The EGF-scale rating OpenGotha registers ([`convert::standard_rating`]).
    pub fn rating(&self) -> i32 {
        convert::standard_rating(self.kind, self.raw)
    }

    /// The rank OpenGotha registers by default: from the rating.
    pub fn rank(&self) -> Rank {
        convert::rank_from_rating(self.rating())
    }

    /// The rank from the list's grade (OpenGotha's "set Rank from Grade", EGF list only).
    pub fn rank_from_grade(&self) -> Option<Rank> {
        if self.listed_grade.is_empty() {
            return None;
        }
        convert::rank_from_grade(self.listed_grade)
    }

    /// The grade OpenGotha records: the list's, upper case, or else the rank.
    pub fn grade(&self) -> String {
        if self.listed_grade.is_empty() {
            convert::format_rank(self.rank())
        } else {
            self.listed_grade.to_uppercase()
        }
    }

    /// The rating as OpenGotha's form shows it ("-20.06" for an AGA rating).
    pub fn raw_rating_text(&self) -> String {
        convert::raw_rating_text(self.kind, self.raw)
    }

    /// The player this entry fills, with exactly the keys of a `tournament.*` player
    /// (`tournament.player.add` takes it as it is).
    pub fn player(&self) -> PlayerFill<'_> {
        PlayerFill(self)
    }
}

/// [`Entry::player`]: serializes as a player object.
pub struct PlayerFill<'a>(&'a Entry<'a>);

impl Serialize for PlayerFill<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.0;
        let mut m = s.serialize_map(Some(13))?;
        m.serialize_entry("name", e.name)?;
        m.serialize_entry("first_name", e.first_name)?;
        m.serialize_entry("rank", &convert::format_rank(e.rank()))?;
        m.serialize_entry("rating", &e.rating())?;
        m.serialize_entry("rating_origin", e.kind.origin())?;
        m.serialize_entry("grade", &e.grade())?;
        m.serialize_entry("country", e.country)?;
        m.serialize_entry("club", e.club)?;
        m.serialize_entry("egf_pin", e.egf_pin)?;
        m.serialize_entry("ffg_licence", e.ffg_licence)?;
        m.serialize_entry("ffg_licence_status", e.ffg_licence_status)?;
        m.serialize_entry("aga_id", e.aga_id)?;
        m.serialize_entry("aga_expiration", e.aga_expiration)?;
        m.end()
    }
}

/// A search answer's entry: which list, the player it fills, and what the list says besides.
impl Serialize for Entry<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("list", self.kind.as_str())?;
        m.serialize_entry("player", &self.player())?;
        m.serialize_entry("listed_rating", self.listed_rating)?;
        if let Some(r) = self.rank_from_grade() {
            m.serialize_entry("rank_from_grade", &convert::format_rank(r))?;
        }
        m.serialize_entry("line", &self.line)?;
        m.end()
    }
}

impl RatingList {
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The date the file gives itself, as it writes it ("27 Dec 2018", "11/01/2021 07:09:39").
    pub fn list_date(&self) -> Option<&str> {
        self.list_date.as_deref()
    }

    /// [`RatingList::list_date`] as an ISO date (YYYY-MM-DD), when it reads as one.
    pub fn list_date_iso(&self) -> Option<String> {
        let d = self.list_date.as_deref()?;
        match self.kind {
            Kind::Egf => egf::iso_date(d),
            Kind::Ffg => ffg::iso_date(d),
            Kind::Aga => None,
        }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Lines in the file.
    pub fn lines(&self) -> usize {
        self.lines
    }

    /// Lines that look like rows but could not be read (a rating that is no number, a line
    /// cut short), and the first [`MAX_SKIPPED_SHOWN`] of their numbers.
    pub fn skipped(&self) -> (usize, &[u32]) {
        (self.skipped, &self.skipped_lines)
    }

    pub fn entry(&self, k: usize) -> Option<Entry<'_>> {
        let row = self.rows.get(k)?;
        let f = |field: Field| {
            let Span { start, len } = row.spans[field as usize];
            let start = start as usize;
            self.text.get(start..start + usize::from(len)).unwrap_or("")
        };
        Some(Entry {
            kind: self.kind,
            name: f(Field::Name),
            first_name: f(Field::FirstName),
            country: f(Field::Country),
            club: f(Field::Club),
            listed_grade: f(Field::Grade),
            egf_pin: f(Field::EgfPin),
            ffg_licence: f(Field::FfgLicence),
            ffg_licence_status: f(Field::FfgLicenceStatus),
            aga_id: f(Field::AgaId),
            aga_expiration: f(Field::AgaExpiration),
            listed_rating: f(Field::Listed),
            raw: row.raw,
            line: row.line,
        })
    }

    pub fn entries(&self) -> impl Iterator<Item = Entry<'_>> {
        (0..self.rows.len()).filter_map(|k| self.entry(k))
    }
}

/// Reads `data` (the file's bytes, unpacked: see [`unpack::unpack`]) as a list of `kind`.
/// Refuses a file over [`MAX_LIST_BYTES`] or [`MAX_LIST_ROWS`], and one where no line reads
/// as a row (the wrong kind, a web page instead of the list). Lines that look like rows but
/// do not read are skipped and counted ([`RatingList::skipped`]), where OpenGotha would stop
/// reading the file.
pub fn parse(kind: Kind, data: &[u8]) -> Result<RatingList, ListError> {
    if data.len() > MAX_LIST_BYTES {
        return Err(ListError::TooBig {
            kind,
            bytes: data.len(),
        });
    }
    let mut b = Builder::new(kind, data.len());
    for (k, line) in text::lines(data).enumerate() {
        if k % 4096 == 4095 {
            crate::budget::check()?;
        }
        b.lines = k + 1;
        let number = (k + 1) as u32;
        match kind {
            Kind::Egf => egf::line(&mut b, line, number),
            Kind::Ffg => ffg::line(&mut b, line, number),
            Kind::Aga => aga::line(&mut b, line, number),
        }
        if b.rows.len() > MAX_LIST_ROWS {
            return Err(ListError::TooManyRows { kind });
        }
    }
    if b.rows.is_empty() {
        return Err(ListError::NoRows {
            kind,
            lines: b.lines,
            skipped: b.skipped,
        });
    }
    Ok(b.finish())
}

/// Collects rows while a file is read.
struct Builder {
    kind: Kind,
    list_date: Option<String>,
    text: String,
    rows: Vec<Row>,
    lines: usize,
    skipped: usize,
    skipped_lines: Vec<u32>,
}

/// One row's fields as the format read them.
#[derive(Default)]
struct Fields<'a> {
    values: [Cow<'a, str>; FIELDS],
}

impl<'a> Fields<'a> {
    fn set(&mut self, field: Field, value: Cow<'a, str>) {
        self.values[field as usize] = value;
    }
}

impl Builder {
    fn new(kind: Kind, bytes: usize) -> Builder {
        Builder {
            kind,
            list_date: None,
            // About half of a list's bytes are the text kept (the rest is padding).
            text: String::with_capacity(bytes / 2),
            rows: Vec::new(),
            lines: 0,
            skipped: 0,
            skipped_lines: Vec::new(),
        }
    }

    fn skip(&mut self, line: u32) {
        self.skipped += 1;
        if self.skipped_lines.len() < MAX_SKIPPED_SHOWN {
            self.skipped_lines.push(line);
        }
    }

    /// Adds a row: each field without control characters and cut at [`MAX_FIELD`] characters.
    fn push(&mut self, fields: Fields<'_>, raw: i32, line: u32) {
        let mut spans = [Span::default(); FIELDS];
        for (span, value) in spans.iter_mut().zip(fields.values.iter()) {
            let start = self.text.len();
            for c in value.chars().filter(|c| !c.is_control()).take(MAX_FIELD) {
                self.text.push(c);
            }
            // At most MAX_FIELD characters of at most 4 bytes: fits in u16; the whole text
            // is within MAX_LIST_BYTES times a small factor, well within u32.
            *span = Span {
                start: start as u32,
                len: (self.text.len() - start) as u16,
            };
        }
        self.rows.push(Row { spans, raw, line });
    }

    fn finish(mut self) -> RatingList {
        self.text.shrink_to_fit();
        self.rows.shrink_to_fit();
        RatingList {
            kind: self.kind,
            list_date: self.list_date,
            text: self.text,
            rows: self.rows,
            lines: self.lines,
            skipped: self.skipped,
            skipped_lines: self.skipped_lines,
        }
    }
}
