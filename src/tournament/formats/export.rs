//! One export dispatch: every file a tournament can be written as, described once (name,
//! label, extension, media type, whether a round can be chosen) and produced by [`export`].
//! `tournament.export` and the web downloads are thin callers: they choose the tournament data
//! the caller may see and the options, and turn the [`Export`] into their wire's shape. A new
//! format is a row of [`FORMATS`] and an arm of [`export`]. Pure code: no I/O, no clock (the
//! caller passes OpenGotha's save time).

use crate::aga::report::{Finding, ReportOptions};
use crate::tournament::model::{RoundNumber, TournamentData};

use super::{NameWarning, aga, csv, egf, opengotha_xml};

/// A file format of [`export`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The EGF results table, byes and forfeits kept (OpenGotha's "keep by default").
    H9,
    /// The EGF results table with forfeits written `0=`.
    H9NoByDef,
    /// The standings as CSV.
    Csv,
    /// OpenGotha's tournament file.
    OpenGotha,
    /// The AGA files: `register.tde` and one `N.tde` per round.
    Aga,
    /// AGATourn's `send2aga` report.
    Send2Aga,
    /// The AGA's modern results report.
    AgaResults,
}

/// How a format's text is encoded in its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    /// ISO-8859-15: the EGF table (its text holds one character per byte of the file).
    Latin9,
}

impl Encoding {
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "UTF-8",
            Encoding::Latin9 => "ISO-8859-15",
        }
    }
}

/// One row of [`FORMATS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormatInfo {
    pub format: Format,
    /// The name `tournament.export` and `/t/{id}/export/{name}` take.
    pub name: &'static str,
    /// Other names read as this one.
    pub aliases: &'static [&'static str],
    /// What the pages call the download (English; the pages translate it).
    pub label: &'static str,
    /// The file name after the tournament's stem: `.h9`, `_standings.csv`, …
    pub suffix: &'static str,
    /// The media type of a download.
    pub mime: &'static str,
    pub encoding: Encoding,
    /// Whether `after_round` applies (the tables); the files of the whole tournament refuse it.
    pub takes_round: bool,
    /// Whether the pages offer it as a download at `/t/{id}/export/{name}` (the AGA files
    /// have their own links and archive; the results report needs options a link cannot give).
    pub offered: bool,
}

const TEXT: &str = "text/plain; charset=utf-8";

/// Every export format, in the order the pages offer them.
pub const FORMATS: &[FormatInfo] = &[
    FormatInfo {
        format: Format::H9,
        name: "h9",
        aliases: &[],
        label: "EGF results (.h9)",
        suffix: ".h9",
        mime: "text/plain; charset=iso-8859-15",
        encoding: Encoding::Latin9,
        takes_round: true,
        offered: true,
    },
    FormatInfo {
        format: Format::H9NoByDef,
        name: "h9_nobydef",
        aliases: &[],
        label: "EGF results, forfeits not rated (.h9)",
        suffix: "_nobydef.h9",
        mime: "text/plain; charset=iso-8859-15",
        encoding: Encoding::Latin9,
        takes_round: true,
        offered: false,
    },
    FormatInfo {
        format: Format::Csv,
        name: "csv",
        aliases: &[],
        label: "Standings (.csv)",
        suffix: "_standings.csv",
        mime: "text/csv; charset=utf-8",
        encoding: Encoding::Utf8,
        takes_round: true,
        offered: true,
    },
    FormatInfo {
        format: Format::OpenGotha,
        name: "opengotha",
        aliases: &["opengotha_xml"],
        label: "OpenGotha file (.xml)",
        suffix: ".xml",
        mime: "application/xml; charset=utf-8",
        encoding: Encoding::Utf8,
        takes_round: false,
        offered: true,
    },
    FormatInfo {
        format: Format::Aga,
        name: "aga",
        aliases: &[],
        label: "AGA files (.tde)",
        suffix: "_aga.zip",
        mime: "application/zip",
        encoding: Encoding::Utf8,
        takes_round: false,
        offered: false,
    },
    FormatInfo {
        format: Format::Send2Aga,
        name: "send2aga",
        aliases: &[],
        label: "AGA results (.tde)",
        suffix: "_send2aga.tde",
        mime: TEXT,
        encoding: Encoding::Utf8,
        takes_round: false,
        offered: true,
    },
    FormatInfo {
        format: Format::AgaResults,
        name: "aga_results",
        aliases: &[],
        label: "AGA results report (.txt)",
        suffix: "_aga_results.txt",
        mime: TEXT,
        encoding: Encoding::Utf8,
        takes_round: false,
        offered: false,
    },
];

impl Format {
    /// The format by its name or an alias, any case, blanks around ignored.
    pub fn parse(name: &str) -> Option<Format> {
        let n = name.trim();
        FORMATS
            .iter()
            .find(|f| {
                f.name.eq_ignore_ascii_case(n)
                    || f.aliases.iter().any(|a| a.eq_ignore_ascii_case(n))
            })
            .map(|f| f.format)
    }

    /// Its row of [`FORMATS`].
    pub fn info(self) -> &'static FormatInfo {
        FORMATS
            .iter()
            .find(|f| f.format == self)
            .unwrap_or(&FORMATS[0])
    }

    /// Every format's name, for messages.
    pub fn names() -> impl Iterator<Item = &'static str> {
        FORMATS.iter().map(|f| f.name)
    }
}

/// What an export may be told; each format reads only its own (the callers refuse the others
/// by name, so a misspelt option is never ignored).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// The tables: standings after this round, with the cells of rounds 1..=it (default: the
    /// tournament's last paired round).
    pub after_round: Option<RoundNumber>,
    /// The EGF table: OpenGotha 3.51's exact bytes.
    pub opengotha_exact: bool,
    /// OpenGotha's file: its `saveDT`, `yyyyMMddHHmmss` (the caller's clock; required).
    pub save_dt: String,
    /// The AGA results report.
    pub report: ReportOptions,
}

/// The content of an export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// One file's text (for [`Encoding::Latin9`] one character per byte of the file).
    Text(String),
    /// Several files: `(file name, text)`, the AGA register first.
    Files(Vec<(String, String)>),
}

/// One export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    pub format: Format,
    /// The suggested file name: the tournament's stem ([`file_stem`]) and the format's suffix.
    pub file_name: String,
    pub content: Content,
    /// Texts the file writes otherwise than the tournament holds them.
    pub warnings: Vec<NameWarning>,
    /// The AGA reports' notes (`send2aga` prints them on stderr).
    pub notes: Vec<String>,
    /// The AGA reports' findings.
    pub findings: Vec<Finding>,
}

impl Export {
    pub fn info(&self) -> &'static FormatInfo {
        self.format.info()
    }

    /// The file's bytes (one file's text in its encoding). `None` for several files: a
    /// caller packs them its own way (the pages as a ZIP, RPC as a list).
    pub fn bytes(&self) -> Option<Vec<u8>> {
        match &self.content {
            Content::Text(t) => Some(match self.info().encoding {
                Encoding::Latin9 => egf::encode_latin9(t),
                Encoding::Utf8 => t.clone().into_bytes(),
            }),
            Content::Files(_) => None,
        }
    }
}

/// Why an export was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportError {
    /// An option the format cannot take or a bad value (the message names it).
    Invalid(String),
    /// The AGA report refused the tournament (its findings).
    Refused(String),
}

/// A file name from the tournament's short name (or name): letters (any script), digits, `-`
/// and `_` kept, the rest `_`, at most 64 characters; "tournament" when nothing is left.
pub fn file_stem(t: &TournamentData) -> String {
    let s = &t.settings;
    let base = if s.short_name.trim().is_empty() {
        &s.name
    } else {
        &s.short_name
    };
    let stem: String = base
        .trim()
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if stem.trim_matches('_').is_empty() {
        "tournament".into()
    } else {
        stem
    }
}

/// Decodes ISO-8859-15 bytes (the inverse of [`egf::encode_latin9`]).
fn latin9_to_string(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| match b {
            0xA4 => '€',
            0xA6 => 'Š',
            0xA8 => 'š',
            0xB4 => 'Ž',
            0xB8 => 'ž',
            0xBC => 'Œ',
            0xBD => 'œ',
            0xBE => 'Ÿ',
            b => b as char,
        })
        .collect()
}

/// `t` written as `format`. The caller has already cut `t` to what its reader may see and
/// checked `after_round` against it.
pub fn export(t: &TournamentData, format: Format, o: &Options) -> Result<Export, ExportError> {
    let info = format.info();
    if o.after_round.is_some() && !info.takes_round {
        return Err(ExportError::Invalid(format!(
            "after_round applies to {} only; the {} export is the whole tournament",
            FORMATS
                .iter()
                .filter(|f| f.takes_round)
                .map(|f| f.name)
                .collect::<Vec<_>>()
                .join(", "),
            info.name
        )));
    }
    let file_name = format!("{}{}", file_stem(t), info.suffix);
    let mut out = Export {
        format,
        file_name,
        content: Content::Text(String::new()),
        warnings: Vec::new(),
        notes: Vec::new(),
        findings: Vec::new(),
    };
    match format {
        Format::H9 | Format::H9NoByDef => {
            let f = egf::h9_file(
                t,
                &egf::H9Options {
                    keep_by_default: format == Format::H9,
                    after_round: o.after_round,
                    opengotha_exact: o.opengotha_exact,
                    ..egf::H9Options::default()
                },
            );
            out.content = Content::Text(latin9_to_string(&f.bytes));
            out.warnings = f.warnings;
        }
        Format::Csv => {
            let r = o.after_round.unwrap_or(t.rounds.len() as RoundNumber);
            out.content = Content::Text(csv::standings_csv(t, r));
        }
        Format::OpenGotha => {
            if o.save_dt.len() != 14 || !o.save_dt.bytes().all(|b| b.is_ascii_digit()) {
                return Err(ExportError::Invalid(
                    "options.save_dt: yyyyMMddHHmmss (14 digits)".into(),
                ));
            }
            out.content = Content::Text(opengotha_xml::write(
                t,
                &opengotha_xml::WriteOptions {
                    save_dt: o.save_dt.clone(),
                },
            ));
        }
        Format::Aga => {
            let f = aga::export(t);
            let mut files = vec![("register.tde".to_string(), f.register)];
            files.extend(f.rounds);
            out.content = Content::Files(files);
            out.warnings = f.warnings;
        }
        Format::Send2Aga | Format::AgaResults => {
            let r = if format == Format::Send2Aga {
                aga::send2aga(t)
            } else {
                aga::results_report(t, o.report.clone())
            }
            .map_err(|e| ExportError::Refused(e.to_string()))?;
            out.content = Content::Text(r.text);
            out.notes = r.notes;
            out.findings = r.findings;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_reads_back_by_its_names_which_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for f in FORMATS {
            assert!(seen.insert(f.name), "{} twice", f.name);
            assert_eq!(Format::parse(f.name), Some(f.format));
            assert_eq!(
                Format::parse(&format!(" {} ", f.name.to_uppercase())),
                Some(f.format)
            );
            for a in f.aliases {
                assert!(seen.insert(a), "{a} twice");
                assert_eq!(Format::parse(a), Some(f.format));
            }
            assert_eq!(f.format.info(), f);
        }
        assert_eq!(Format::parse("pdf"), None);
    }

    #[test]
    fn the_stem_keeps_letters_of_any_script_and_has_a_fallback() {
        let mut t = TournamentData::default();
        t.settings.name = "Tournoi de Nîmes 2026".into();
        assert_eq!(file_stem(&t), "Tournoi_de_Nîmes_2026");
        t.settings.short_name = "  ".into();
        assert_eq!(file_stem(&t), "Tournoi_de_Nîmes_2026");
        t.settings.short_name = "nimes26".into();
        assert_eq!(file_stem(&t), "nimes26");
        t.settings.short_name = "../..".into();
        assert_eq!(file_stem(&t), "tournament");
    }

    #[test]
    fn a_whole_tournament_file_refuses_a_round_and_opengotha_needs_its_time() {
        let t = TournamentData::default();
        let o = Options {
            after_round: Some(1),
            ..Options::default()
        };
        let e = export(&t, Format::OpenGotha, &o).unwrap_err();
        assert!(
            matches!(&e, ExportError::Invalid(m) if m.contains("after_round")),
            "{e:?}"
        );
        let e = export(&t, Format::OpenGotha, &Options::default()).unwrap_err();
        assert!(
            matches!(&e, ExportError::Invalid(m) if m.contains("save_dt")),
            "{e:?}"
        );
        let ok = export(
            &t,
            Format::OpenGotha,
            &Options {
                save_dt: "20261128235959".into(),
                ..Options::default()
            },
        )
        .unwrap();
        assert_eq!(ok.file_name, "tournament.xml");
        assert!(matches!(&ok.content, Content::Text(x) if x.contains("20261128235959")));
    }

    #[test]
    fn the_egf_table_is_latin9_bytes() {
        let mut t = TournamentData::default();
        t.settings.name = "Œuvre".into();
        let e = export(&t, Format::H9, &Options::default()).unwrap();
        let bytes = e.bytes().unwrap();
        assert!(bytes.contains(&0xBC), "Œ is one Latin-9 byte");
        assert_eq!(e.info().encoding.name(), "ISO-8859-15");
    }
}
