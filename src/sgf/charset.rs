//! Character sets named by `CA`: normalising a name the way sgfmill does (Python's codec
//! registry), decoding raw bytes to text and encoding text back.
//!
//! `encoding_rs` does the real work. Three things it does not do the Python way are done by
//! hand: ISO-8859-1 (WHATWG maps that label to windows-1252; Python keeps bytes 0x80–0x9F as
//! C1 controls), ASCII (strict 7-bit) and UTF-8 (std). Encoding never substitutes: an
//! unrepresentable character is an error, as Python's `strict` handler makes it.

use encoding_rs::Encoding;

use super::error::SgfError;

/// A character set we can decode and encode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Charset {
    /// The normalised name, as sgfmill's `get_charset()` gives it (`UTF-8`, `ISO-8859-1`,
    /// `SHIFT-JIS`, `CP932`, …).
    name: &'static str,
    codec: Codec,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Codec {
    Utf8,
    Latin1,
    Ascii,
    Rs(&'static Encoding),
}

/// How a multibyte encoding can hide ASCII `\` or `]` bytes in the second byte of a
/// character (see the charset-aware tokeniser).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Multibyte {
    /// Every byte of a multibyte character is ≥ 0x80 (UTF-8, EUC-*, single-byte sets): the
    /// byte-level grammar is safe.
    #[default]
    Safe,
    /// Shift_JIS / CP932: lead bytes 0x81–0x9F and 0xE0–0xFC.
    ShiftJis,
    /// Big5, GBK, GB18030: lead bytes 0x81–0xFE.
    DoubleByte,
}

impl Multibyte {
    /// Whether `b` starts a two-byte character (so the next byte is never `\` or `]`).
    #[inline]
    pub fn is_lead(self, b: u8) -> bool {
        match self {
            Multibyte::Safe => false,
            Multibyte::ShiftJis => matches!(b, 0x81..=0x9F | 0xE0..=0xFC),
            Multibyte::DoubleByte => matches!(b, 0x81..=0xFE),
        }
    }
}

/// Python's codec names (after its own normalisation: lower case, runs of punctuation → `_`)
/// mapped to the codec's canonical name. Only the codecs we can actually run are listed;
/// everything else is an unknown encoding.
const ALIASES: &[(&[&str], &str)] = &[
    (
        &[
            "utf_8",
            "utf8",
            "u8",
            "utf",
            "utf8_ucs2",
            "utf8_ucs4",
            "cp65001",
        ],
        "utf-8",
    ),
    (
        &[
            "latin_1",
            "latin1",
            "latin",
            "l1",
            "iso8859_1",
            "iso_8859_1",
            "8859",
            "cp819",
            "iso_ir_100",
            "csisolatin1",
            "iso_8859_1_1987",
        ],
        "iso8859-1",
    ),
    (
        &[
            "ascii",
            "us_ascii",
            "646",
            "ansi_x3.4_1968",
            "ansi_x3_4_1968",
            "ansi_x3.4_1986",
            "cp367",
            "csascii",
            "ibm367",
            "iso646_us",
            "iso_646.irv_1991",
            "iso_ir_6",
            "us",
        ],
        "ascii",
    ),
    (
        &["shift_jis", "sjis", "shiftjis", "s_jis", "csshiftjis"],
        "shift_jis",
    ),
    (
        &[
            "cp932",
            "932",
            "ms932",
            "mskanji",
            "ms_kanji",
            "windows_31j",
        ],
        "cp932",
    ),
    (&["euc_jp", "eucjp", "ujis", "u_jis"], "euc_jp"),
    (
        &["iso2022_jp", "iso_2022_jp", "iso2022jp", "csiso2022jp"],
        "iso2022_jp",
    ),
    (
        &[
            "gb2312",
            "euc_cn",
            "euccn",
            "eucgb2312_cn",
            "gb2312_1980",
            "gb2312_80",
            "iso_ir_58",
            "chinese",
            "csiso58gb231280",
        ],
        "gb2312",
    ),
    (&["gbk", "936", "cp936", "ms936", "windows_936"], "gbk"),
    (&["gb18030", "gb18030_2000"], "gb18030"),
    (&["big5", "big5_tw", "csbig5", "cp950", "ms950"], "big5"),
    (&["big5hkscs", "big5_hkscs", "hkscs"], "big5hkscs"),
    (
        &[
            "euc_kr",
            "euckr",
            "korean",
            "ksc5601",
            "ks_c_5601",
            "ks_c_5601_1987",
            "ksx1001",
            "ks_x_1001",
            "cp949",
            "949",
            "ms949",
            "uhc",
        ],
        "euc_kr",
    ),
    (&["koi8_r", "cskoi8r"], "koi8-r"),
    (&["koi8_u"], "koi8-u"),
    (&["mac_roman", "macroman", "macintosh"], "mac-roman"),
    (&["utf_16", "utf16", "u16"], "utf-16"),
    (&["utf_16_le", "utf_16le", "utf16le"], "utf-16-le"),
    (&["utf_16_be", "utf_16be", "utf16be"], "utf-16-be"),
];

/// Python canonical name → (normalised sgfmill name, codec).
fn codec_for(canonical: &str) -> Option<(&'static str, Codec)> {
    use encoding_rs as e;
    let rs = |name: &'static str, enc: &'static Encoding| Some((name, Codec::Rs(enc)));
    match canonical {
        "utf-8" => Some(("UTF-8", Codec::Utf8)),
        "iso8859-1" => Some(("ISO-8859-1", Codec::Latin1)),
        "ascii" => Some(("ASCII", Codec::Ascii)),
        // encoding_rs's Shift_JIS is Windows-31J, a superset of both Python codecs.
        "shift_jis" => rs("SHIFT-JIS", e::SHIFT_JIS),
        "cp932" => rs("CP932", e::SHIFT_JIS),
        "euc_jp" => rs("EUC-JP", e::EUC_JP),
        "iso2022_jp" => rs("ISO2022-JP", e::ISO_2022_JP),
        // GBK is a superset of GB2312, as Big5 (WHATWG) is of Python's big5.
        "gb2312" => rs("GB2312", e::GBK),
        "gbk" => rs("GBK", e::GBK),
        "gb18030" => rs("GB18030", e::GB18030),
        "big5" => rs("BIG5", e::BIG5),
        "big5hkscs" => rs("BIG5HKSCS", e::BIG5),
        "euc_kr" => rs("EUC-KR", e::EUC_KR),
        "koi8-r" => rs("KOI8-R", e::KOI8_R),
        "koi8-u" => rs("KOI8-U", e::KOI8_U),
        "mac-roman" => rs("MAC-ROMAN", e::MACINTOSH),
        "utf-16" => rs("UTF-16", e::UTF_16LE),
        "utf-16-le" => rs("UTF-16-LE", e::UTF_16LE),
        "utf-16-be" => rs("UTF-16-BE", e::UTF_16BE),
        _ => None,
    }
}

/// Python's `encodings.normalize_encoding` followed by lower-casing: runs of characters
/// other than ASCII alphanumerics and `.` become one `_`, leading/trailing ones vanish.
fn python_normalise(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut pending = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '.' {
            if pending && !out.is_empty() {
                out.push('_');
            }
            pending = false;
            out.push(c.to_ascii_lowercase());
        } else {
            pending = true;
        }
    }
    out
}

impl Charset {
    pub const UTF8: Charset = Charset {
        name: "UTF-8",
        codec: Codec::Utf8,
    };
    pub const LATIN1: Charset = Charset {
        name: "ISO-8859-1",
        codec: Codec::Latin1,
    };

    /// Looks a charset name up like Python's `codecs.lookup`, giving sgfmill's normalised
    /// name. Errors: `encoding names must be ascii`, `unknown encoding: NAME`.
    pub fn lookup(name: &str) -> Result<Charset, SgfError> {
        if !name.is_ascii() {
            return Err(SgfError::value("encoding names must be ascii"));
        }
        let norm = python_normalise(name);
        let canonical = ALIASES
            .iter()
            .find(|(names, _)| names.contains(&norm.as_str()))
            .map(|(_, canonical)| *canonical)
            .or_else(|| windows_or_iso(&norm));
        let found = canonical.and_then(|c| {
            // windows_or_iso returns names we build on the fly; map them here.
            codec_for(c).or_else(|| single_byte(c))
        });
        found
            .map(|(name, codec)| Charset { name, codec })
            .ok_or_else(|| SgfError::lookup(format!("unknown encoding: {name}")))
    }

    /// Looks up the first raw value of a `CA` property (bytes).
    pub fn lookup_bytes(raw: &[u8]) -> Result<Charset, SgfError> {
        if !raw.is_ascii() {
            return Err(SgfError::value("encoding names must be ascii"));
        }
        // Checked ASCII above, so this is lossless.
        Charset::lookup(&String::from_utf8_lossy(raw))
    }

    /// sgfmill's normalised name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Whether multibyte characters can contain ASCII `\` / `]` bytes.
    pub fn multibyte(&self) -> Multibyte {
        match self.codec {
            Codec::Rs(enc) if enc == encoding_rs::SHIFT_JIS => Multibyte::ShiftJis,
            Codec::Rs(enc)
                if enc == encoding_rs::BIG5
                    || enc == encoding_rs::GBK
                    || enc == encoding_rs::GB18030 =>
            {
                Multibyte::DoubleByte
            }
            _ => Multibyte::Safe,
        }
    }

    /// Whether two charsets encode text identically (so no transcoding is needed).
    pub fn same_codec(&self, other: &Charset) -> bool {
        self.name == other.name
    }

    /// Strict decoding; error class `UnicodeDecodeError` as in Python.
    pub fn decode(&self, bytes: &[u8]) -> Result<String, SgfError> {
        match self.codec {
            Codec::Utf8 => std::str::from_utf8(bytes)
                .map(str::to_owned)
                .map_err(|e| self.decode_error(bytes, e.valid_up_to())),
            Codec::Latin1 => Ok(bytes.iter().map(|&b| char::from(b)).collect()),
            Codec::Ascii => match bytes.iter().position(|b| !b.is_ascii()) {
                None => Ok(bytes.iter().map(|&b| char::from(b)).collect()),
                Some(pos) => Err(self.decode_error(bytes, pos)),
            },
            Codec::Rs(enc) => enc
                .decode_without_bom_handling_and_without_replacement(bytes)
                .map(|c| c.into_owned())
                .ok_or_else(|| self.decode_error(bytes, first_bad(enc, bytes))),
        }
    }

    /// Strict encoding; error class `UnicodeEncodeError`.
    pub fn encode(&self, text: &str) -> Result<Vec<u8>, SgfError> {
        match self.codec {
            Codec::Utf8 => Ok(text.as_bytes().to_vec()),
            Codec::Latin1 | Codec::Ascii => {
                let limit = if self.codec == Codec::Latin1 {
                    0xFF
                } else {
                    0x7F
                };
                text.chars()
                    .enumerate()
                    .map(|(i, c)| {
                        u8::try_from(u32::from(c))
                            .ok()
                            .filter(|&b| u32::from(b) <= limit)
                            .ok_or_else(|| self.encode_error(c, i))
                    })
                    .collect()
            }
            Codec::Rs(enc) => {
                let out_enc = enc.output_encoding();
                if out_enc != enc {
                    // UTF-16 and the like: encoding_rs only decodes them.
                    return Err(SgfError::new(
                        super::error::ErrorKind::UnicodeEncode,
                        format!(
                            "'{}' codec: encoding not supported",
                            self.name.to_ascii_lowercase()
                        ),
                    ));
                }
                let mut encoder = enc.new_encoder();
                let mut out = Vec::with_capacity(text.len() + 16);
                let max = encoder
                    .max_buffer_length_from_utf8_without_replacement(text.len())
                    .unwrap_or(text.len() * 4 + 16);
                out.resize(max, 0);
                let (result, read, written) =
                    encoder.encode_from_utf8_without_replacement(text, &mut out, true);
                match result {
                    encoding_rs::EncoderResult::InputEmpty => {
                        out.truncate(written);
                        Ok(out)
                    }
                    encoding_rs::EncoderResult::Unmappable(c) => {
                        Err(self.encode_error(c, text[..read].chars().count().saturating_sub(1)))
                    }
                    encoding_rs::EncoderResult::OutputFull => Err(SgfError::new(
                        super::error::ErrorKind::UnicodeEncode,
                        "encoder output buffer too small",
                    )),
                }
            }
        }
    }

    fn decode_error(&self, bytes: &[u8], pos: usize) -> SgfError {
        let byte = bytes.get(pos).copied().unwrap_or(0);
        SgfError::new(
            super::error::ErrorKind::UnicodeDecode,
            format!(
                "'{}' codec can't decode byte 0x{byte:02x} in position {pos}",
                self.name.to_ascii_lowercase()
            ),
        )
    }

    fn encode_error(&self, c: char, pos: usize) -> SgfError {
        SgfError::new(
            super::error::ErrorKind::UnicodeEncode,
            format!(
                "'{}' codec can't encode character '\\u{:04x}' in position {pos}",
                self.name.to_ascii_lowercase(),
                u32::from(c)
            ),
        )
    }
}

/// Position of the first byte encoding_rs rejects (for the error message only).
fn first_bad(enc: &'static Encoding, bytes: &[u8]) -> usize {
    let mut decoder = enc.new_decoder_without_bom_handling();
    let mut out = vec![0u8; bytes.len() * 3 + 16];
    let mut read_total = 0;
    let mut src = bytes;
    loop {
        let (result, read, _) = decoder.decode_to_utf8_without_replacement(src, &mut out, true);
        match result {
            encoding_rs::DecoderResult::Malformed(bad, consumed_after) => {
                read_total += read;
                return (read_total).saturating_sub(usize::from(bad) + usize::from(consumed_after));
            }
            encoding_rs::DecoderResult::InputEmpty => return bytes.len(),
            encoding_rs::DecoderResult::OutputFull => {
                read_total += read;
                src = &src[read..];
            }
        }
    }
}

/// `cp1250`…`cp1258` / `windows_125x` and `iso8859_N` names.
fn windows_or_iso(norm: &str) -> Option<&'static str> {
    const WIN: [&str; 9] = [
        "cp1250", "cp1251", "cp1252", "cp1253", "cp1254", "cp1255", "cp1256", "cp1257", "cp1258",
    ];
    for (i, canonical) in WIN.iter().enumerate() {
        let digit = i + 1250;
        if norm == *canonical || norm == format!("windows_{digit}") || norm == format!("{digit}") {
            return Some(canonical);
        }
    }
    const ISO: [(u8, &str); 13] = [
        (2, "iso8859-2"),
        (3, "iso8859-3"),
        (4, "iso8859-4"),
        (5, "iso8859-5"),
        (6, "iso8859-6"),
        (7, "iso8859-7"),
        (8, "iso8859-8"),
        (10, "iso8859-10"),
        (13, "iso8859-13"),
        (14, "iso8859-14"),
        (15, "iso8859-15"),
        (16, "iso8859-16"),
        (11, "iso8859-11"),
    ];
    for (n, canonical) in ISO {
        for prefix in ["iso8859_", "iso_8859_", "8859_"] {
            if norm.strip_prefix(prefix) == Some(&n.to_string()) {
                return Some(canonical);
            }
        }
    }
    None
}

fn single_byte(canonical: &str) -> Option<(&'static str, Codec)> {
    use encoding_rs as e;
    let (name, enc): (&'static str, &'static Encoding) = match canonical {
        "cp1250" => ("CP1250", e::WINDOWS_1250),
        "cp1251" => ("CP1251", e::WINDOWS_1251),
        "cp1252" => ("CP1252", e::WINDOWS_1252),
        "cp1253" => ("CP1253", e::WINDOWS_1253),
        "cp1254" => ("CP1254", e::WINDOWS_1254),
        "cp1255" => ("CP1255", e::WINDOWS_1255),
        "cp1256" => ("CP1256", e::WINDOWS_1256),
        "cp1257" => ("CP1257", e::WINDOWS_1257),
        "cp1258" => ("CP1258", e::WINDOWS_1258),
        "iso8859-2" => ("ISO-8859-2", e::ISO_8859_2),
        "iso8859-3" => ("ISO-8859-3", e::ISO_8859_3),
        "iso8859-4" => ("ISO-8859-4", e::ISO_8859_4),
        "iso8859-5" => ("ISO-8859-5", e::ISO_8859_5),
        "iso8859-6" => ("ISO-8859-6", e::ISO_8859_6),
        "iso8859-7" => ("ISO-8859-7", e::ISO_8859_7),
        "iso8859-8" => ("ISO-8859-8", e::ISO_8859_8),
        "iso8859-10" => ("ISO-8859-10", e::ISO_8859_10),
        "iso8859-11" => ("ISO-8859-11", e::WINDOWS_874),
        "iso8859-13" => ("ISO-8859-13", e::ISO_8859_13),
        "iso8859-14" => ("ISO-8859-14", e::ISO_8859_14),
        "iso8859-15" => ("ISO-8859-15", e::ISO_8859_15),
        "iso8859-16" => ("ISO-8859-16", e::ISO_8859_16),
        _ => return None,
    };
    Some((name, Codec::Rs(enc)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalised_names_match_sgfmill() {
        for (input, want) in [
            ("utf-8", "UTF-8"),
            ("utf8", "UTF-8"),
            ("UTF-8", "UTF-8"),
            ("latin1", "ISO-8859-1"),
            ("ISO8859_1", "ISO-8859-1"),
            ("ISO-8859-1", "ISO-8859-1"),
            ("EUC-CN", "GB2312"),
            ("MS_KANJI", "CP932"),
            ("SJIS", "SHIFT-JIS"),
            ("Shift_JIS", "SHIFT-JIS"),
            ("macintosh", "MAC-ROMAN"),
            ("Windows-1251", "CP1251"),
            ("Windows-1252", "CP1252"),
            ("ISO-2022-JP", "ISO2022-JP"),
            ("Big5", "BIG5"),
            ("GBK", "GBK"),
            ("GB18030", "GB18030"),
            ("EUC-KR", "EUC-KR"),
            ("ISO-8859-15", "ISO-8859-15"),
            ("ISO-8859-3", "ISO-8859-3"),
            ("ASCII", "ASCII"),
        ] {
            assert_eq!(
                Charset::lookup(input).map(|c| c.name()),
                Ok(want),
                "{input}"
            );
        }
    }

    #[test]
    fn unknown_and_non_ascii_names_fail() {
        assert_eq!(
            Charset::lookup("foo").unwrap_err().message,
            "unknown encoding: foo"
        );
        assert_eq!(
            Charset::lookup("").unwrap_err().message,
            "unknown encoding: "
        );
        assert_eq!(
            Charset::lookup_bytes(b"\xe9").unwrap_err().message,
            "encoding names must be ascii"
        );
    }

    #[test]
    fn latin1_is_not_windows_1252() {
        assert_eq!(Charset::LATIN1.decode(b"\x80\xe9").unwrap(), "\u{80}\u{e9}");
        assert!(Charset::LATIN1.encode("\u{20ac}").is_err());
        let cp1252 = Charset::lookup("cp1252").unwrap();
        assert_eq!(cp1252.decode(b"\x80").unwrap(), "\u{20ac}");
    }

    #[test]
    fn strict_round_trip_and_errors() {
        let sjis = Charset::lookup("Shift_JIS").unwrap();
        let bytes = sjis.encode("表ソフト").unwrap();
        assert_eq!(&bytes[..2], b"\x95\x5c");
        assert_eq!(sjis.decode(&bytes).unwrap(), "表ソフト");
        assert!(sjis.encode("한").is_err());
        assert!(Charset::UTF8.decode(b"\xff").is_err());
        assert!(Charset::lookup("ascii").unwrap().decode(b"\x80").is_err());
    }
}
