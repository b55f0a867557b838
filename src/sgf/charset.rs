//! Character sets named by `CA`: normalising a name the way sgfmill does (Python's codec
//! registry), decoding raw bytes to text and encoding text back.
//!
//! Names follow Python's registry (its normalisation and alias table), because sgfmill
//! looks `CA` up there. `encoding_rs` supplies the multibyte codecs and the tables of the
//! single-byte ones; where Python's single-byte tables differ (the holes WHATWG fills with
//! C1 controls, ISO-8859-1/-9/-11, KOI8-U) a 256-byte table per code page applies Python's
//! mapping, so undefined bytes fail as in Python unless the caller allows them. UTF-8 is
//! std's. Encoding never substitutes: an unrepresentable character is an error, as Python's
//! `strict` handler makes it.

use std::sync::OnceLock;

use encoding_rs::Encoding;

use super::error::SgfError;

/// A character set we can decode and encode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Charset {
    /// The normalised name, as sgfmill's `get_charset()` gives it (`UTF-8`, `ISO-8859-1`,
    /// `SHIFT-JIS`, `CP932`, …).
    name: &'static str,
    codec: Codec,
    /// Single-byte code pages: decode the bytes Python leaves undefined (windows-1252's
    /// 0x81, 0x8D, 0x8F, 0x90, 0x9D, …) as the code point of the same number instead of
    /// failing. Off by default (Python's behaviour).
    allow_undefined: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Codec {
    Utf8,
    Single(&'static SingleByte),
    Rs(&'static Encoding),
}

/// A single-byte code page as Python defines it: `encoding_rs`'s table (or the identity for
/// Latin-1 and ASCII) with the differences Python has. The full 256-byte table is built once.
#[derive(Debug)]
struct SingleByte {
    /// The WHATWG encoding the table starts from; `None`: byte = code point.
    base: Option<&'static Encoding>,
    /// Bytes Python leaves undefined (decoding them raises `UnicodeDecodeError`) where the
    /// base maps them (WHATWG fills windows-125x's holes with C1 controls).
    undefined: &'static [u8],
    /// Bytes Python maps to another code point than the base: `(byte, code point)`.
    remap: &'static [(u8, u32)],
    /// Every byte ≥ 0x80 is undefined (ASCII).
    seven_bit: bool,
    table: OnceLock<[Option<char>; 256]>,
}

impl PartialEq for SingleByte {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for SingleByte {}

impl SingleByte {
    const fn new(
        base: Option<&'static Encoding>,
        undefined: &'static [u8],
        remap: &'static [(u8, u32)],
    ) -> Self {
        SingleByte {
            base,
            undefined,
            remap,
            seven_bit: false,
            table: OnceLock::new(),
        }
    }

    /// Byte → character, `None` where Python has no mapping.
    fn table(&self) -> &[Option<char>; 256] {
        self.table.get_or_init(|| {
            let mut t = [None; 256];
            for (b, slot) in t.iter_mut().enumerate() {
                let byte = b as u8;
                *slot = if byte < 0x80 {
                    Some(char::from(byte))
                } else if self.seven_bit {
                    None
                } else {
                    match self.base {
                        None => Some(char::from(byte)),
                        Some(enc) => enc
                            .decode_without_bom_handling_and_without_replacement(&[byte])
                            .and_then(|s| s.chars().next()),
                    }
                };
            }
            for &byte in self.undefined {
                t[usize::from(byte)] = None;
            }
            for &(byte, cp) in self.remap {
                t[usize::from(byte)] = char::from_u32(cp);
            }
            t
        })
    }
}

/// Python's differences from WHATWG, per code page. Derived by comparing CPython 3.11's
/// codec tables with `encoding_rs`; the oracle test checks all 256 bytes of every table.
mod fixes {
    pub const NONE: &[u8] = &[];
    pub const CP1250: &[u8] = &[0x81, 0x83, 0x88, 0x90, 0x98];
    pub const CP1251: &[u8] = &[0x98];
    pub const CP1252: &[u8] = &[0x81, 0x8D, 0x8F, 0x90, 0x9D];
    pub const CP1253: &[u8] = &[
        0x81, 0x88, 0x8A, 0x8C, 0x8D, 0x8E, 0x8F, 0x90, 0x98, 0x9A, 0x9C, 0x9D, 0x9E, 0x9F,
    ];
    pub const CP1254: &[u8] = &[0x81, 0x8D, 0x8E, 0x8F, 0x90, 0x9D, 0x9E];
    pub const CP1255: &[u8] = &[
        0x81, 0x8A, 0x8C, 0x8D, 0x8E, 0x8F, 0x90, 0x9A, 0x9C, 0x9D, 0x9E, 0x9F, 0xCA,
    ];
    pub const CP1257: &[u8] = &[0x81, 0x83, 0x88, 0x8A, 0x8C, 0x90, 0x98, 0x9A, 0x9C, 0x9F];
    pub const CP1258: &[u8] = &[0x81, 0x8A, 0x8D, 0x8E, 0x8F, 0x90, 0x9A, 0x9D, 0x9E];
    pub const CP874: &[u8] = &[
        0x81, 0x82, 0x83, 0x84, 0x86, 0x87, 0x88, 0x89, 0x8A, 0x8B, 0x8C, 0x8D, 0x8E, 0x8F, 0x90,
        0x98, 0x99, 0x9A, 0x9B, 0x9C, 0x9D, 0x9E, 0x9F,
    ];
    /// TIS-620 has no no-break space.
    pub const TIS_620: &[u8] = &[0xA0];
    /// ISO-8859-11 / TIS-620 on windows-874: Python keeps C1 controls where Windows has
    /// punctuation.
    pub const THAI_C1: &[(u8, u32)] = &[
        (0x80, 0x80),
        (0x85, 0x85),
        (0x91, 0x91),
        (0x92, 0x92),
        (0x93, 0x93),
        (0x94, 0x94),
        (0x95, 0x95),
        (0x96, 0x96),
        (0x97, 0x97),
    ];
    /// ISO-8859-9 is Latin-1 with six Turkish letters.
    pub const LATIN5: &[(u8, u32)] = &[
        (0xD0, 0x011E),
        (0xDD, 0x0130),
        (0xDE, 0x015E),
        (0xF0, 0x011F),
        (0xFD, 0x0131),
        (0xFE, 0x015F),
    ];
    /// WHATWG's KOI8-U is KOI8-RU (Belarusian ў/Ў); Python's has box drawing there.
    pub const KOI8_U: &[(u8, u32)] = &[(0xAE, 0x255D), (0xBE, 0x256C)];
    pub const NO_REMAP: &[(u8, u32)] = &[];
}

static LATIN1: SingleByte = SingleByte::new(None, fixes::NONE, fixes::NO_REMAP);
static ASCII: SingleByte = SingleByte {
    base: None,
    undefined: fixes::NONE,
    remap: fixes::NO_REMAP,
    seven_bit: true,
    table: OnceLock::new(),
};

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

/// Python's codec aliases (`encodings.aliases`, CPython 3.11) for the codecs we can run,
/// alias → codec module; the module names themselves are accepted too (`codec_for`).
/// Everything else is an unknown encoding.
const ALIASES: &[(&str, &str)] = &[
    ("1250", "cp1250"),
    ("1251", "cp1251"),
    ("1252", "cp1252"),
    ("1253", "cp1253"),
    ("1254", "cp1254"),
    ("1255", "cp1255"),
    ("1256", "cp1256"),
    ("1257", "cp1257"),
    ("1258", "cp1258"),
    ("646", "ascii"),
    ("866", "cp866"),
    ("8859", "latin_1"),
    ("932", "cp932"),
    ("936", "gbk"),
    ("949", "cp949"),
    ("950", "cp950"),
    ("ansi_x3.4_1968", "ascii"),
    ("ansi_x3.4_1986", "ascii"),
    ("ansi_x3_4_1968", "ascii"),
    ("arabic", "iso8859_6"),
    ("asmo_708", "iso8859_6"),
    ("big5_hkscs", "big5hkscs"),
    ("big5_tw", "big5"),
    ("chinese", "gb2312"),
    ("cp367", "ascii"),
    ("cp65001", "utf_8"),
    ("cp819", "latin_1"),
    ("cp936", "gbk"),
    ("csascii", "ascii"),
    ("csbig5", "big5"),
    ("csibm866", "cp866"),
    ("csiso2022jp", "iso2022_jp"),
    ("csiso58gb231280", "gb2312"),
    ("csisolatin1", "latin_1"),
    ("csisolatin2", "iso8859_2"),
    ("csisolatin3", "iso8859_3"),
    ("csisolatin4", "iso8859_4"),
    ("csisolatin5", "iso8859_9"),
    ("csisolatin6", "iso8859_10"),
    ("csisolatinarabic", "iso8859_6"),
    ("csisolatincyrillic", "iso8859_5"),
    ("csisolatingreek", "iso8859_7"),
    ("csisolatinhebrew", "iso8859_8"),
    ("cskoi8r", "koi8_r"),
    ("csshiftjis", "shift_jis"),
    ("cyrillic", "iso8859_5"),
    ("ecma_114", "iso8859_6"),
    ("ecma_118", "iso8859_7"),
    ("elot_928", "iso8859_7"),
    ("euc_cn", "gb2312"),
    ("euccn", "gb2312"),
    ("eucgb2312_cn", "gb2312"),
    ("eucjp", "euc_jp"),
    ("euckr", "euc_kr"),
    ("gb18030_2000", "gb18030"),
    ("gb2312_1980", "gb2312"),
    ("gb2312_80", "gb2312"),
    ("greek", "iso8859_7"),
    ("greek8", "iso8859_7"),
    ("hebrew", "iso8859_8"),
    ("hkscs", "big5hkscs"),
    ("ibm367", "ascii"),
    ("ibm819", "latin_1"),
    ("ibm866", "cp866"),
    ("iso2022jp", "iso2022_jp"),
    ("iso646_us", "ascii"),
    ("iso8859", "latin_1"),
    ("iso8859_1", "latin_1"),
    ("iso_2022_jp", "iso2022_jp"),
    ("iso_646.irv_1991", "ascii"),
    ("iso_8859_1", "latin_1"),
    ("iso_8859_10", "iso8859_10"),
    ("iso_8859_10_1992", "iso8859_10"),
    ("iso_8859_11", "iso8859_11"),
    ("iso_8859_11_2001", "iso8859_11"),
    ("iso_8859_13", "iso8859_13"),
    ("iso_8859_14", "iso8859_14"),
    ("iso_8859_14_1998", "iso8859_14"),
    ("iso_8859_15", "iso8859_15"),
    ("iso_8859_16", "iso8859_16"),
    ("iso_8859_16_2001", "iso8859_16"),
    ("iso_8859_1_1987", "latin_1"),
    ("iso_8859_2", "iso8859_2"),
    ("iso_8859_2_1987", "iso8859_2"),
    ("iso_8859_3", "iso8859_3"),
    ("iso_8859_3_1988", "iso8859_3"),
    ("iso_8859_4", "iso8859_4"),
    ("iso_8859_4_1988", "iso8859_4"),
    ("iso_8859_5", "iso8859_5"),
    ("iso_8859_5_1988", "iso8859_5"),
    ("iso_8859_6", "iso8859_6"),
    ("iso_8859_6_1987", "iso8859_6"),
    ("iso_8859_7", "iso8859_7"),
    ("iso_8859_7_1987", "iso8859_7"),
    ("iso_8859_8", "iso8859_8"),
    ("iso_8859_8_1988", "iso8859_8"),
    ("iso_8859_9", "iso8859_9"),
    ("iso_8859_9_1989", "iso8859_9"),
    ("iso_celtic", "iso8859_14"),
    ("iso_ir_100", "latin_1"),
    ("iso_ir_101", "iso8859_2"),
    ("iso_ir_109", "iso8859_3"),
    ("iso_ir_110", "iso8859_4"),
    ("iso_ir_126", "iso8859_7"),
    ("iso_ir_127", "iso8859_6"),
    ("iso_ir_138", "iso8859_8"),
    ("iso_ir_144", "iso8859_5"),
    ("iso_ir_148", "iso8859_9"),
    ("iso_ir_157", "iso8859_10"),
    ("iso_ir_166", "tis_620"),
    ("iso_ir_199", "iso8859_14"),
    ("iso_ir_226", "iso8859_16"),
    ("iso_ir_58", "gb2312"),
    ("iso_ir_6", "ascii"),
    ("korean", "euc_kr"),
    ("ks_c_5601", "euc_kr"),
    ("ks_c_5601_1987", "euc_kr"),
    ("ks_x_1001", "euc_kr"),
    ("ksc5601", "euc_kr"),
    ("ksx1001", "euc_kr"),
    ("l1", "latin_1"),
    ("l10", "iso8859_16"),
    ("l2", "iso8859_2"),
    ("l3", "iso8859_3"),
    ("l4", "iso8859_4"),
    ("l5", "iso8859_9"),
    ("l6", "iso8859_10"),
    ("l7", "iso8859_13"),
    ("l8", "iso8859_14"),
    ("l9", "iso8859_15"),
    ("latin", "latin_1"),
    ("latin1", "latin_1"),
    ("latin10", "iso8859_16"),
    ("latin2", "iso8859_2"),
    ("latin3", "iso8859_3"),
    ("latin4", "iso8859_4"),
    ("latin5", "iso8859_9"),
    ("latin6", "iso8859_10"),
    ("latin7", "iso8859_13"),
    ("latin8", "iso8859_14"),
    ("latin9", "iso8859_15"),
    ("maccyrillic", "mac_cyrillic"),
    ("macintosh", "mac_roman"),
    ("macroman", "mac_roman"),
    ("ms932", "cp932"),
    ("ms936", "gbk"),
    ("ms949", "cp949"),
    ("ms950", "cp950"),
    ("ms_kanji", "cp932"),
    ("mskanji", "cp932"),
    ("s_jis", "shift_jis"),
    ("shiftjis", "shift_jis"),
    ("sjis", "shift_jis"),
    ("thai", "iso8859_11"),
    ("tis620", "tis_620"),
    ("tis_620_0", "tis_620"),
    ("tis_620_2529_0", "tis_620"),
    ("tis_620_2529_1", "tis_620"),
    ("u16", "utf_16"),
    ("u8", "utf_8"),
    ("u_jis", "euc_jp"),
    ("uhc", "cp949"),
    ("ujis", "euc_jp"),
    ("unicodebigunmarked", "utf_16_be"),
    ("unicodelittleunmarked", "utf_16_le"),
    ("us", "ascii"),
    ("us_ascii", "ascii"),
    ("utf", "utf_8"),
    ("utf16", "utf_16"),
    ("utf8", "utf_8"),
    ("utf8_ucs2", "utf_8"),
    ("utf8_ucs4", "utf_8"),
    ("utf_16be", "utf_16_be"),
    ("utf_16le", "utf_16_le"),
    ("windows_1250", "cp1250"),
    ("windows_1251", "cp1251"),
    ("windows_1252", "cp1252"),
    ("windows_1253", "cp1253"),
    ("windows_1254", "cp1254"),
    ("windows_1255", "cp1255"),
    ("windows_1256", "cp1256"),
    ("windows_1257", "cp1257"),
    ("windows_1258", "cp1258"),
    ("x_mac_japanese", "shift_jis"),
    ("x_mac_korean", "euc_kr"),
    ("x_mac_simp_chinese", "gb2312"),
    ("x_mac_trad_chinese", "big5"),
];

/// Python codec module → (sgfmill's normalised name, codec). `None`: a codec Python has and
/// goswiss cannot run (an unknown encoding here).
fn codec_for(module: &str) -> Option<(&'static str, Codec)> {
    use encoding_rs as e;
    macro_rules! single {
        ($name:literal, $base:expr) => {
            single!($name, Some($base), fixes::NONE, fixes::NO_REMAP)
        };
        ($name:literal, $base:expr, $undefined:expr) => {
            single!($name, Some($base), $undefined, fixes::NO_REMAP)
        };
        ($name:literal, $base:expr, $undefined:expr, $remap:expr) => {{
            static TABLE: SingleByte = SingleByte::new($base, $undefined, $remap);
            Some(($name, Codec::Single(&TABLE)))
        }};
    }
    let rs = |name: &'static str, enc: &'static Encoding| Some((name, Codec::Rs(enc)));
    match module {
        "utf_8" => Some(("UTF-8", Codec::Utf8)),
        "latin_1" => Some(("ISO-8859-1", Codec::Single(&LATIN1))),
        "ascii" => Some(("ASCII", Codec::Single(&ASCII))),
        "cp1250" => single!("CP1250", e::WINDOWS_1250, fixes::CP1250),
        "cp1251" => single!("CP1251", e::WINDOWS_1251, fixes::CP1251),
        "cp1252" => single!("CP1252", e::WINDOWS_1252, fixes::CP1252),
        "cp1253" => single!("CP1253", e::WINDOWS_1253, fixes::CP1253),
        "cp1254" => single!("CP1254", e::WINDOWS_1254, fixes::CP1254),
        "cp1255" => single!("CP1255", e::WINDOWS_1255, fixes::CP1255),
        "cp1256" => single!("CP1256", e::WINDOWS_1256),
        "cp1257" => single!("CP1257", e::WINDOWS_1257, fixes::CP1257),
        "cp1258" => single!("CP1258", e::WINDOWS_1258, fixes::CP1258),
        "iso8859_2" => single!("ISO-8859-2", e::ISO_8859_2),
        "iso8859_3" => single!("ISO-8859-3", e::ISO_8859_3),
        "iso8859_4" => single!("ISO-8859-4", e::ISO_8859_4),
        "iso8859_5" => single!("ISO-8859-5", e::ISO_8859_5),
        "iso8859_6" => single!("ISO-8859-6", e::ISO_8859_6),
        "iso8859_7" => single!("ISO-8859-7", e::ISO_8859_7),
        "iso8859_8" => single!("ISO-8859-8", e::ISO_8859_8),
        "iso8859_9" => single!("ISO-8859-9", None, fixes::NONE, fixes::LATIN5),
        "iso8859_10" => single!("ISO-8859-10", e::ISO_8859_10),
        "iso8859_11" => single!(
            "ISO-8859-11",
            Some(e::WINDOWS_874),
            fixes::NONE,
            fixes::THAI_C1
        ),
        "iso8859_13" => single!("ISO-8859-13", e::ISO_8859_13),
        "iso8859_14" => single!("ISO-8859-14", e::ISO_8859_14),
        "iso8859_15" => single!("ISO-8859-15", e::ISO_8859_15),
        "iso8859_16" => single!("ISO-8859-16", e::ISO_8859_16),
        "tis_620" => single!(
            "TIS-620",
            Some(e::WINDOWS_874),
            fixes::TIS_620,
            fixes::THAI_C1
        ),
        "cp874" => single!("CP874", e::WINDOWS_874, fixes::CP874),
        "cp866" => single!("CP866", e::IBM866),
        "koi8_r" => single!("KOI8-R", e::KOI8_R),
        "koi8_u" => single!("KOI8-U", Some(e::KOI8_U), fixes::NONE, fixes::KOI8_U),
        "mac_roman" => single!("MAC-ROMAN", e::MACINTOSH),
        "mac_cyrillic" => single!("MAC-CYRILLIC", e::X_MAC_CYRILLIC),
        // encoding_rs's Shift_JIS is Windows-31J, a superset of both Python codecs.
        "shift_jis" => rs("SHIFT-JIS", e::SHIFT_JIS),
        "cp932" => rs("CP932", e::SHIFT_JIS),
        "euc_jp" => rs("EUC-JP", e::EUC_JP),
        "iso2022_jp" => rs("ISO2022-JP", e::ISO_2022_JP),
        // GBK is a superset of GB2312, as Big5 (WHATWG) is of Python's big5 and cp950, and
        // WHATWG's EUC-KR (windows-949) is Python's cp949, a superset of its euc_kr.
        "gb2312" => rs("GB2312", e::GBK),
        "gbk" => rs("GBK", e::GBK),
        "gb18030" => rs("GB18030", e::GB18030),
        "big5" => rs("BIG5", e::BIG5),
        "big5hkscs" => rs("BIG5HKSCS", e::BIG5),
        "cp950" => rs("CP950", e::BIG5),
        "euc_kr" => rs("EUC-KR", e::EUC_KR),
        "cp949" => rs("CP949", e::EUC_KR),
        "utf_16" => rs("UTF-16", e::UTF_16LE),
        "utf_16_le" => rs("UTF-16-LE", e::UTF_16LE),
        "utf_16_be" => rs("UTF-16-BE", e::UTF_16BE),
        _ => None,
    }
}

/// Python's name normalisation (`codecs.lookup` then `encodings.normalize_encoding`),
/// lower-cased: runs of characters other than ASCII alphanumerics and `.` become one `_`;
/// leading and trailing ones vanish.
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

/// Python's `encodings.search_function`: the alias table (also with `.` read as `_`), then
/// the name as a codec module (a name with a `.` is never a module).
fn python_codec(norm: &str) -> Option<(&'static str, Codec)> {
    let alias = |n: &str| {
        ALIASES
            .binary_search_by(|(a, _)| (*a).cmp(n))
            .ok()
            .map(|i| ALIASES[i].1)
    };
    if let Some(module) = alias(norm).or_else(|| alias(&norm.replace('.', "_"))) {
        return codec_for(module);
    }
    if norm.contains('.') {
        return None;
    }
    codec_for(norm)
}

impl Charset {
    pub const UTF8: Charset = Charset {
        name: "UTF-8",
        codec: Codec::Utf8,
        allow_undefined: false,
    };
    pub const LATIN1: Charset = Charset {
        name: "ISO-8859-1",
        codec: Codec::Single(&LATIN1),
        allow_undefined: false,
    };

    /// Looks a charset name up like Python's `codecs.lookup`, giving sgfmill's normalised
    /// name. Errors (`ValueError`, as sgfmill raises them): `encoding names must be ascii`,
    /// `unknown encoding: NAME`.
    pub fn lookup(name: &str) -> Result<Charset, SgfError> {
        if !name.is_ascii() {
            return Err(SgfError::value("encoding names must be ascii"));
        }
        let norm = python_normalise(name);
        python_codec(&norm)
            .map(|(name, codec)| Charset {
                name,
                codec,
                allow_undefined: false,
            })
            .ok_or_else(|| SgfError::value(format!("unknown encoding: {name}")))
    }

    /// Looks up the first raw value of a `CA` property (bytes).
    pub fn lookup_bytes(raw: &[u8]) -> Result<Charset, SgfError> {
        if !raw.is_ascii() {
            return Err(SgfError::value("encoding names must be ascii"));
        }
        // Checked ASCII above, so this is lossless.
        Charset::lookup(&String::from_utf8_lossy(raw))
    }

    /// The same charset, decoding the bytes Python leaves undefined in a single-byte code
    /// page (the `allow_undefined_bytes` leniency) or not.
    pub fn with_undefined_bytes(self, allow: bool) -> Charset {
        Charset {
            allow_undefined: allow,
            ..self
        }
    }

    /// sgfmill's normalised name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Whether this is a single-byte code page (Latin-1, ASCII, windows-125x, ISO-8859-x…).
    pub fn is_single_byte(&self) -> bool {
        matches!(self.codec, Codec::Single(_))
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
            Codec::Single(sb) => {
                let table = sb.table();
                let mut out = String::with_capacity(bytes.len() + bytes.len() / 2);
                for (pos, &b) in bytes.iter().enumerate() {
                    match table[usize::from(b)] {
                        Some(c) => out.push(c),
                        None if self.allow_undefined => out.push(char::from(b)),
                        None => return Err(self.decode_error(bytes, pos)),
                    }
                }
                Ok(out)
            }
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
            Codec::Single(sb) => {
                let table = sb.table();
                text.chars()
                    .enumerate()
                    .map(|(i, c)| {
                        if c.is_ascii() {
                            return Ok(c as u8);
                        }
                        let found = (0x80..=0xFF).find(|&b| table[usize::from(b)] == Some(c));
                        let undefined = || {
                            u8::try_from(u32::from(c)).ok().filter(|&b| {
                                self.allow_undefined && table[usize::from(b)].is_none()
                            })
                        };
                        found
                            .or_else(undefined)
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

    /// Python's wording: charmap codecs say `'charmap' codec … character maps to
    /// <undefined>`, the others name themselves.
    fn decode_error(&self, bytes: &[u8], pos: usize) -> SgfError {
        let byte = bytes.get(pos).copied().unwrap_or(0);
        let message = match self.codec {
            Codec::Single(sb) if !sb.seven_bit => format!(
                "'charmap' codec can't decode byte 0x{byte:02x} in position {pos}: character maps to <undefined>"
            ),
            Codec::Single(_) => format!(
                "'{}' codec can't decode byte 0x{byte:02x} in position {pos}: ordinal not in range(128)",
                self.name.to_ascii_lowercase()
            ),
            _ => format!(
                "'{}' codec can't decode byte 0x{byte:02x} in position {pos}",
                self.name.to_ascii_lowercase()
            ),
        };
        SgfError::new(super::error::ErrorKind::UnicodeDecode, message)
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
            ("cp949", "CP949"),
            ("uhc", "CP949"),
            ("latin-1", "ISO-8859-1"),
            ("ISO_8859-1:1987", "ISO-8859-1"),
            ("  utf8  ", "UTF-8"),
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
        // Names Python rejects too.
        for name in ["koi8r", "cp-1252", "utf.8", "utf..8"] {
            assert_eq!(
                Charset::lookup(name).unwrap_err().message,
                format!("unknown encoding: {name}")
            );
        }
        assert_eq!(
            Charset::lookup_bytes(b"\xe9").unwrap_err().message,
            "encoding names must be ascii"
        );
    }

    #[test]
    fn alias_table_is_sorted_for_binary_search() {
        assert!(ALIASES.windows(2).all(|w| w[0].0 < w[1].0));
        for (_, module) in ALIASES {
            assert!(codec_for(module).is_some(), "{module}");
        }
    }

    #[test]
    fn undefined_bytes_fail_unless_allowed() {
        let cp1252 = Charset::lookup("windows-1252").unwrap();
        for b in [0x81u8, 0x8D, 0x8F, 0x90, 0x9D] {
            let e = cp1252.decode(&[b'a', b]).unwrap_err();
            assert_eq!(e.kind, super::super::error::ErrorKind::UnicodeDecode);
            assert_eq!(
                e.message,
                format!(
                    "'charmap' codec can't decode byte 0x{b:02x} in position 1: character maps to <undefined>"
                )
            );
            let lenient = cp1252.with_undefined_bytes(true);
            let text = lenient.decode(&[b]).unwrap();
            assert_eq!(text, char::from(b).to_string());
            assert_eq!(lenient.encode(&text).unwrap(), [b]);
            assert!(cp1252.encode(&text).is_err());
        }
        assert_eq!(cp1252.decode(b"\x80\x9f").unwrap(), "\u{20ac}\u{178}");
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
