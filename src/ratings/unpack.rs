//! A list as the director downloaded it: the file itself, gzip-compressed, or the first file
//! of a ZIP archive (the EGD offers `allworld_lp.zip`). A compressed list is also how the
//! 7 MB EGF list fits in one request under the daemon's 4 MiB body cap. Unpacking stops past
//! [`MAX_LIST_BYTES`], so a small archive cannot expand into gigabytes.

use std::borrow::Cow;
use std::io::Read;

use super::{Kind, ListError, MAX_LIST_BYTES};

const GZIP: &[u8] = b"\x1f\x8b";
const ZIP_LOCAL: &[u8] = b"PK\x03\x04";
/// General-purpose flag: sizes and CRC follow the data instead of the header.
const DATA_DESCRIPTOR: u16 = 0x0008;
const ENCRYPTED: u16 = 0x0001;

/// What kind of container `data` is in, for messages: "gzip", "zip" or "plain".
pub fn container(data: &[u8]) -> &'static str {
    if data.starts_with(GZIP) {
        "gzip"
    } else if data.starts_with(ZIP_LOCAL) {
        "zip"
    } else {
        "plain"
    }
}

/// The list's bytes out of `data`: unpacked from gzip or from the first file of a ZIP
/// archive, else `data` as it is. `kind` names the list in errors.
pub fn unpack(kind: Kind, data: &[u8]) -> Result<Cow<'_, [u8]>, ListError> {
    match container(data) {
        "gzip" => read_capped(kind, flate2::read::MultiGzDecoder::new(data)).map(Cow::Owned),
        "zip" => first_zip_file(kind, data).map(Cow::Owned),
        _ => Ok(Cow::Borrowed(data)),
    }
}

fn bad(what: impl Into<String>) -> ListError {
    ListError::Unpack(what.into())
}

fn read_capped(kind: Kind, reader: impl Read) -> Result<Vec<u8>, ListError> {
    let mut out = Vec::new();
    reader
        .take(MAX_LIST_BYTES as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| bad(e.to_string()))?;
    if out.len() > MAX_LIST_BYTES {
        return Err(ListError::TooBig {
            kind,
            bytes: out.len(),
        });
    }
    Ok(out)
}

fn u16_at(data: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(data.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(data.get(at..at + 4)?.try_into().ok()?))
}

/// The first member of a ZIP archive, from its local header (stored or deflated), its CRC-32
/// checked when the header gives it.
fn first_zip_file(kind: Kind, data: &[u8]) -> Result<Vec<u8>, ListError> {
    let truncated = || bad("the ZIP archive is cut short");
    let flags = u16_at(data, 6).ok_or_else(truncated)?;
    let method = u16_at(data, 8).ok_or_else(truncated)?;
    let crc = u32_at(data, 14).ok_or_else(truncated)?;
    let packed = u32_at(data, 18).ok_or_else(truncated)? as usize;
    let name_len = usize::from(u16_at(data, 26).ok_or_else(truncated)?);
    let extra_len = usize::from(u16_at(data, 28).ok_or_else(truncated)?);
    let start = 30 + name_len + extra_len;
    let name = data.get(30..30 + name_len).ok_or_else(truncated)?;
    if name.ends_with(b"/") {
        return Err(bad(
            "the ZIP archive's first entry is a folder, not the list",
        ));
    }
    if flags & ENCRYPTED != 0 {
        return Err(bad("the ZIP archive is encrypted"));
    }
    let body = data.get(start..).ok_or_else(truncated)?;
    let sized = flags & DATA_DESCRIPTOR == 0;
    let out = match method {
        0 if sized => {
            if packed > MAX_LIST_BYTES {
                return Err(ListError::TooBig {
                    kind,
                    bytes: packed,
                });
            }
            body.get(..packed).ok_or_else(truncated)?.to_vec()
        }
        0 => return Err(bad("a stored ZIP entry without its size is not supported")),
        // Deflate streams end by themselves: the sizes in the header are not needed.
        8 => read_capped(kind, flate2::read::DeflateDecoder::new(body))?,
        m => return Err(bad(format!("ZIP compression method {m} is not supported"))),
    };
    if sized {
        let mut sum = flate2::Crc::new();
        sum.update(&out);
        if sum.sum() != crc {
            return Err(bad(
                "the ZIP entry's CRC-32 does not match: the file is damaged",
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// A one-file ZIP archive, written by hand (method 8 deflate, or 0 stored).
    pub(crate) fn zip(name: &str, data: &[u8], deflate: bool) -> Vec<u8> {
        let packed = if deflate {
            let mut e =
                flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        } else {
            data.to_vec()
        };
        let mut crc = flate2::Crc::new();
        crc.update(data);
        let mut out = Vec::new();
        out.extend_from_slice(ZIP_LOCAL);
        out.extend_from_slice(&20u16.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&(if deflate { 8u16 } else { 0 }).to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&crc.sum().to_le_bytes());
        out.extend_from_slice(&(packed.len() as u32).to_le_bytes());
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&packed);
        out
    }

    #[test]
    fn containers_unpack_to_the_file() {
        let list = b" 13286603  Aakerblom Charlie ...\n".repeat(50);
        assert_eq!(unpack(Kind::Egf, &list).unwrap(), &list[..]);
        assert_eq!(unpack(Kind::Egf, &gzip(&list)).unwrap(), &list[..]);
        for deflate in [true, false] {
            let z = zip("allworld_lp.html", &list, deflate);
            assert_eq!(
                unpack(Kind::Egf, &z).unwrap(),
                &list[..],
                "deflate {deflate}"
            );
        }
    }

    #[test]
    fn damaged_or_huge_containers_are_refused() {
        let list = b"some list\n".repeat(100);
        let mut z = zip("l.txt", &list, true);
        let n = z.len();
        z[n - 3] ^= 0x55;
        assert!(matches!(unpack(Kind::Ffg, &z), Err(ListError::Unpack(_))));
        assert!(matches!(
            unpack(Kind::Ffg, &z[..20]),
            Err(ListError::Unpack(_))
        ));
        let g = gzip(&list);
        assert!(matches!(
            unpack(Kind::Ffg, &g[..g.len() / 2]),
            Err(ListError::Unpack(_))
        ));
        // 17 MiB of zeros packs into a few kilobytes; unpacking stops past the cap.
        let bomb = gzip(&vec![0u8; MAX_LIST_BYTES + 1024 * 1024]);
        assert!(bomb.len() < 100_000);
        assert!(matches!(
            unpack(Kind::Aga, &bomb),
            Err(ListError::TooBig { .. })
        ));
    }
}
