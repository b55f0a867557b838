//! Bytes to text for the lists: lines as Java's `readLine` splits them, byte columns, Java's
//! `trim`, and each field's encoding found on its own.
//!
//! The EGF list and the FFG échelle are single-byte files (ISO-8859-1 in practice: é, è, ç,
//! ë, ï, ô, É, Ü; OpenGotha reads all three lists as ISO-8859-15, which agrees with it on
//! every letter the lists hold), laid out in byte columns. The AGA TDList is UTF-8, and the
//! EGF list also carries a few names whose UTF-8 bytes were written into the single-byte
//! file (`Na\xC3\xAFm`, "Naïm", where OpenGotha shows "NaÃ¯m"). So each field is cut from
//! the line's bytes first and then decoded by itself: UTF-8 when its bytes are valid UTF-8,
//! ISO-8859-15 otherwise (a name in Latin-1 is practically never valid UTF-8: an accented
//! letter would have to be followed by one of the symbols 0x80–0xBF).

use std::borrow::Cow;

/// The lines of `data` as Java's `BufferedReader.readLine` gives them: ended by CR LF, LF or
/// a lone CR, without their ends; a last line without an end counts.
pub fn lines(data: &[u8]) -> Lines<'_> {
    Lines { rest: data }
}

pub struct Lines<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        if self.rest.is_empty() {
            return None;
        }
        match memchr::memchr2(b'\n', b'\r', self.rest) {
            Some(k) => {
                let line = &self.rest[..k];
                let skip = if self.rest[k] == b'\r' && self.rest.get(k + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                self.rest = &self.rest[k + skip..];
                Some(line)
            }
            None => {
                let line = self.rest;
                self.rest = &[];
                Some(line)
            }
        }
    }
}

/// Bytes `from .. to` of `line`, as much of them as the line has (Java's `substring` would
/// throw past its end).
pub fn cols(line: &[u8], from: usize, to: usize) -> &[u8] {
    let to = to.min(line.len());
    let from = from.min(to);
    &line[from..to]
}

/// Java's `String.trim`: every byte up to a space off both ends (no single-byte or UTF-8
/// letter is among them).
pub fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|&b| b > b' ').unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|&b| b > b' ')
        .map_or(start, |k| k + 1);
    &bytes[start..end]
}

/// A field's text: ASCII and valid UTF-8 as they are, anything else as ISO-8859-15.
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => {
            encoding_rs::ISO_8859_15
                .decode_without_bom_handling(bytes)
                .0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_as_java_reads_them() {
        let got: Vec<&[u8]> = lines(b"a\r\nb\nc\rd\r\n\r\ne").collect();
        assert_eq!(got, vec![&b"a"[..], b"b", b"c", b"d", b"", b"e"]);
        assert_eq!(lines(b"").count(), 0);
        assert_eq!(lines(b"x\n").count(), 1);
    }

    #[test]
    fn fields_decode_each_by_itself() {
        assert_eq!(decode(b"Ren\xe9"), "René");
        assert_eq!(decode(b"Na\xc3\xafm"), "Naïm");
        assert_eq!(decode(b"F\xdc"), "FÜ");
        // Where ISO-8859-15 and ISO-8859-1 differ, OpenGotha's choice.
        assert_eq!(decode(b"\xa6\xa8\xb4\xb8\xbd"), "ŠšŽžœ");
        assert_eq!(trim(b" \t ab c \r"), b"ab c");
        assert_eq!(trim(b"   "), b"");
        assert_eq!(cols(b"abcdef", 2, 4), b"cd");
        assert_eq!(cols(b"abc", 2, 9), b"c");
        assert_eq!(cols(b"abc", 5, 9), b"");
    }
}
