//! A stored (uncompressed) ZIP archive written by hand, for the AGA download: a handful of
//! small text files, so compression would save little and a deflate crate is not worth its
//! weight. The format is PKWARE's APPNOTE: a local header and the data per file, then the
//! central directory and its end record. No ZIP64 (the limits below are far beyond any
//! tournament's files), names flagged UTF-8 (bit 11).

/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), as ZIP needs it.
pub fn crc32(data: &[u8]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [0u32; 256];
        for (n, slot) in t.iter_mut().enumerate() {
            let mut c = n as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            *slot = c;
        }
        t
    });
    !data.iter().fold(!0u32, |c, &b| {
        table[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8)
    })
}

/// Why an archive could not be written.
#[derive(Debug, PartialEq, Eq)]
pub enum ZipError {
    /// More than 65,535 files, a name over 65,535 bytes or an archive over 4 GiB: only ZIP64
    /// could hold it.
    TooLarge,
}

fn u16le(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn u32le(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// MS-DOS time and date of the entries. A fixed 1980-01-01 00:00: the archive is made from
/// the tournament's state, so the same state gives the same bytes.
const DOS_TIME: u16 = 0;
const DOS_DATE: u16 = (1 << 5) | 1;
/// Version 2.0 (what stored entries need); bit 11 of the flags: names are UTF-8.
const VERSION: u16 = 20;
const FLAGS: u16 = 1 << 11;

/// The archive of `files` (name, content), in order, stored.
pub fn stored(files: &[(String, Vec<u8>)]) -> Result<Vec<u8>, ZipError> {
    let count = u16::try_from(files.len()).map_err(|_| ZipError::TooLarge)?;
    let mut out = Vec::with_capacity(
        files
            .iter()
            .map(|(n, d)| 76 + 2 * n.len() + d.len())
            .sum::<usize>()
            + 22,
    );
    let mut central = Vec::new();
    for (name, data) in files {
        let name_len = u16::try_from(name.len()).map_err(|_| ZipError::TooLarge)?;
        let size = u32::try_from(data.len()).map_err(|_| ZipError::TooLarge)?;
        let offset = u32::try_from(out.len()).map_err(|_| ZipError::TooLarge)?;
        let crc = crc32(data);
        // Local file header.
        u32le(&mut out, 0x0403_4B50);
        u16le(&mut out, VERSION);
        u16le(&mut out, FLAGS);
        u16le(&mut out, 0); // method: stored
        u16le(&mut out, DOS_TIME);
        u16le(&mut out, DOS_DATE);
        u32le(&mut out, crc);
        u32le(&mut out, size); // compressed = uncompressed
        u32le(&mut out, size);
        u16le(&mut out, name_len);
        u16le(&mut out, 0); // extra field
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        // Its central directory entry.
        u32le(&mut central, 0x0201_4B50);
        u16le(&mut central, VERSION); // made by (MS-DOS attributes)
        u16le(&mut central, VERSION); // needed
        u16le(&mut central, FLAGS);
        u16le(&mut central, 0);
        u16le(&mut central, DOS_TIME);
        u16le(&mut central, DOS_DATE);
        u32le(&mut central, crc);
        u32le(&mut central, size);
        u32le(&mut central, size);
        u16le(&mut central, name_len);
        u16le(&mut central, 0); // extra
        u16le(&mut central, 0); // comment
        u16le(&mut central, 0); // disk number
        u16le(&mut central, 0); // internal attributes
        u32le(&mut central, 0); // external attributes
        u32le(&mut central, offset);
        central.extend_from_slice(name.as_bytes());
    }
    let cd_offset = u32::try_from(out.len()).map_err(|_| ZipError::TooLarge)?;
    let cd_size = u32::try_from(central.len()).map_err(|_| ZipError::TooLarge)?;
    cd_offset.checked_add(cd_size).ok_or(ZipError::TooLarge)?;
    out.extend_from_slice(&central);
    // End of central directory.
    u32le(&mut out, 0x0605_4B50);
    u16le(&mut out, 0); // this disk
    u16le(&mut out, 0); // disk of the central directory
    u16le(&mut out, count);
    u16le(&mut out, count);
    u32le(&mut out, cd_size);
    u32le(&mut out, cd_offset);
    u16le(&mut out, 0); // comment
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_of_the_check_string() {
        // The standard check value of CRC-32/ISO-HDLC.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"a"), 0xE8B7_BE43);
    }

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
    }

    fn u16_at(b: &[u8], at: usize) -> u16 {
        u16::from_le_bytes([b[at], b[at + 1]])
    }

    #[test]
    fn the_archive_reads_back_through_its_central_directory() {
        let files = vec![
            ("register.tde".to_string(), b"; players\n".to_vec()),
            ("1.tde".to_string(), b"1 2 w 0 7\n".to_vec()),
        ];
        let z = stored(&files).expect("zip");
        let end = z.len() - 22;
        assert_eq!(u32_at(&z, end), 0x0605_4B50);
        assert_eq!(u16_at(&z, end + 10), 2);
        let mut at = u32_at(&z, end + 16) as usize;
        for (name, data) in &files {
            assert_eq!(u32_at(&z, at), 0x0201_4B50);
            assert_eq!(u32_at(&z, at + 16), crc32(data));
            let n = u16_at(&z, at + 28) as usize;
            assert_eq!(&z[at + 46..at + 46 + n], name.as_bytes());
            let local = u32_at(&z, at + 42) as usize;
            assert_eq!(u32_at(&z, local), 0x0403_4B50);
            let ln = u16_at(&z, local + 26) as usize;
            let start = local + 30 + ln;
            assert_eq!(&z[start..start + data.len()], &data[..]);
            at += 46 + n;
        }
        assert_eq!(at, end);
    }

    #[test]
    fn an_empty_archive_is_just_the_end_record() {
        let z = stored(&[]).expect("zip");
        assert_eq!(z.len(), 22);
        assert_eq!(u32_at(&z, 0), 0x0605_4B50);
    }
}
