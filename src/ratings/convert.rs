//! OpenGotha's conversions between a list's own rating, the EGF-scale rating a player gets
//! (`RatedPlayer.getStdRating`), ranks (`Player.rankFromRating`, `convertKDPToInt`,
//! `convertIntToKD`) and the rating text its registration form shows
//! (`RatedPlayer.getStrRawRating`), reproduced with their quirks (docs/ratings.md).

use super::Kind;

/// OpenGotha's rank integer: 30k = −30 … 1k = −1, 1d = 0 … 9d = 8.
pub type Rank = i32;

pub const MIN_RANK: Rank = -30;
pub const MAX_RANK: Rank = 8;
/// The EGF-scale ratings a player may have in OpenGotha (`Player.MIN_RATING`, `MAX_RATING`).
pub const MIN_RATING: i32 = -900;
pub const MAX_RATING: i32 = 2949;

/// OpenGotha's raw rating of an AGA member whose TDList row has no rating: −28.50, so such a
/// member is registered at 28K.
pub const AGA_UNRATED: i32 = -2850;

/// The EGF-scale rating OpenGotha gives a player from a list's own value `raw`: the GoR as it
/// is (EGF), the FFG rating + 2050, the AGA rating (in hundredths) + 1950 from 1.00 up and
/// + 2150 from −1.00 down (2050 between), clamped to −900 … 2949.
pub fn standard_rating(kind: Kind, raw: i32) -> i32 {
    let std = match kind {
        Kind::Egf => raw,
        Kind::Ffg => raw.saturating_add(2050),
        Kind::Aga if raw >= 100 => raw.saturating_add(1950),
        Kind::Aga if raw <= -100 => raw.saturating_add(2150),
        Kind::Aga => 2050,
    };
    std.clamp(MIN_RATING, MAX_RATING)
}

/// `Player.rankFromRating`: `(rating + 950) / 100 − 30` (Java's division, toward zero),
/// clamped to 30k … 9d. So 2050 … 2149 is 1d, 1950 … 2049 is 1k, 50 … 149 is 20k: a rank's
/// band is centred on its [`rating_from_rank`].
pub fn rank_from_rating(rating: i32) -> Rank {
    ((rating.saturating_add(950)) / 100 - 30).clamp(MIN_RANK, MAX_RANK)
}

/// `Player.ratingFromRank`: the middle of the rank's band, `(rank + 30) × 100 − 900`.
pub fn rating_from_rank(rank: Rank) -> i32 {
    (rank + 30) * 100 - 900
}

/// `Player.convertKDPToInt`, OpenGotha's reading of a grade such as "4d", "12k", "1p" (the
/// "rank from grade" choice for the EGF list). Its quirks kept: a number without a letter is a
/// kyu grade but needs two characters at least ("15" is 15k, "5" is nothing); 1p–3p are 7d,
/// 4p–6p 8d, 7p and up 9d; any other last letter counts as kyu; the result is clamped to
/// 30k … 9d. `None` where OpenGotha gets −99 (no grade).
pub fn rank_from_grade(grade: &str) -> Option<Rank> {
    let t = grade.trim();
    let last = t.chars().next_back()?;
    let head = &t[..t.len() - last.len_utf8()];
    // Java's Integer parse: an optional sign and ASCII digits, nothing else.
    let parse = |s: &str| -> Option<i32> {
        let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    let mut num = parse(head)?;
    let mut kind = last;
    if last.is_ascii_digit() {
        kind = 'k';
        num = parse(t)?;
    }
    let rank = match kind {
        'k' | 'K' => num.checked_neg()?,
        'd' | 'D' => num - 1,
        'p' | 'P' if num <= 3 => 6,
        'p' | 'P' if num <= 6 => 7,
        'p' | 'P' => 8,
        _ => num.checked_neg()?,
    };
    Some(rank.clamp(MIN_RANK, MAX_RANK))
}

/// `Player.convertIntToKD`: "12K", "1D".
pub fn format_rank(rank: Rank) -> String {
    if rank < 0 {
        format!("{}K", -rank)
    } else {
        format!("{}D", rank + 1)
    }
}

/// `RatedPlayer.getStrRawRating`: the list's value as OpenGotha shows it, "2388" (EGF), "243"
/// (FFG), "-20.06" (AGA, from hundredths: Java's truncating division for the whole part).
pub fn raw_rating_text(kind: Kind, raw: i32) -> String {
    match kind {
        Kind::Egf | Kind::Ffg => raw.to_string(),
        Kind::Aga => format!("{}.{:02}", raw / 100, (raw % 100).abs()),
    }
}

/// OpenGotha's AGA rating in hundredths from the TDList's text: Java's `Float.parseFloat`
/// (surrounding blanks and a trailing `f`/`d` allowed), times 100 in double precision,
/// rounded half up (`Math.round`). `None` for text that is no number (OpenGotha then keeps
/// [`AGA_UNRATED`]), and for infinities, NaN and values past ±10⁶, where Java's casts give
/// nonsense.
pub fn aga_hundredths(text: &str) -> Option<i32> {
    let t = text.trim_matches(|c: char| c <= ' ');
    let t = t.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(t);
    if t.is_empty()
        || !t
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'))
    {
        return None;
    }
    let value: f32 = t.parse().ok()?;
    let x = f64::from(value) * 100.0;
    if !x.is_finite() || x.abs() > 1e8 {
        return None;
    }
    let floor = x.floor();
    let rounded = if x - floor >= 0.5 { floor + 1.0 } else { floor };
    Some(rounded as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_from_ratings_follow_opengotha_bands() {
        // (rating, rank) pairs computed with OpenGotha's formula by hand.
        for (rating, rank) in [
            (-900, -30),
            (-851, -30),
            (-850, -29),
            (100, -20),
            (149, -20),
            (150, -19),
            (200, -19),
            (1949, -2),
            (1950, -1),
            (2049, -1),
            (2050, 0),
            (2149, 0),
            (2150, 1),
            (2388, 3),
            (2749, 6),
            (2750, 7),
            (2850, 8),
            (2949, 8),
            (5000, 8),
            (-5000, -30),
        ] {
            assert_eq!(rank_from_rating(rating), rank, "rating {rating}");
        }
        for rank in MIN_RANK..=MAX_RANK {
            assert_eq!(rank_from_rating(rating_from_rank(rank)), rank);
        }
    }

    #[test]
    fn standard_ratings_per_list() {
        assert_eq!(standard_rating(Kind::Egf, 2388), 2388);
        assert_eq!(standard_rating(Kind::Egf, -1200), MIN_RATING);
        assert_eq!(standard_rating(Kind::Ffg, 243), 2293);
        assert_eq!(standard_rating(Kind::Ffg, -9999), MIN_RATING);
        assert_eq!(standard_rating(Kind::Ffg, 950), MAX_RATING);
        assert_eq!(standard_rating(Kind::Aga, 472), 2422);
        assert_eq!(standard_rating(Kind::Aga, 100), 2050);
        assert_eq!(standard_rating(Kind::Aga, 99), 2050);
        assert_eq!(standard_rating(Kind::Aga, -99), 2050);
        // OpenGotha's boundary: −1.00 lands on 2050 (1d), −1.01 on 2049 (1k).
        assert_eq!(standard_rating(Kind::Aga, -100), 2050);
        assert_eq!(standard_rating(Kind::Aga, -101), 2049);
        assert_eq!(standard_rating(Kind::Aga, -2006), 144);
        assert_eq!(standard_rating(Kind::Aga, AGA_UNRATED), -700);
        assert_eq!(rank_from_rating(-700), -28);
    }

    #[test]
    fn grades_read_as_convert_kdp_to_int() {
        for (grade, rank) in [
            ("4d", Some(3)),
            (" 6k", Some(-6)),
            ("1D", Some(0)),
            ("20k", Some(-20)),
            ("35k", Some(-30)),
            ("9d", Some(8)),
            ("12d", Some(8)),
            ("1p", Some(6)),
            ("3p", Some(6)),
            ("4p", Some(7)),
            ("6P", Some(7)),
            ("7p", Some(8)),
            ("15", Some(-15)),
            ("5", None),
            ("", None),
            ("k", None),
            ("x5k", None),
            ("5x", Some(-5)),
            ("-5k", Some(5)),
            ("1ȴ", Some(-1)),
            ("99999999999k", None),
        ] {
            assert_eq!(rank_from_grade(grade), rank, "grade {grade:?}");
        }
    }

    #[test]
    fn raw_ratings_print_as_opengotha() {
        assert_eq!(raw_rating_text(Kind::Egf, 2388), "2388");
        assert_eq!(raw_rating_text(Kind::Ffg, -1400), "-1400");
        assert_eq!(raw_rating_text(Kind::Aga, -2006), "-20.06");
        assert_eq!(raw_rating_text(Kind::Aga, 472), "4.72");
        assert_eq!(raw_rating_text(Kind::Aga, 705), "7.05");
        assert_eq!(format_rank(-12), "12K");
        assert_eq!(format_rank(0), "1D");
    }

    #[test]
    fn aga_ratings_round_as_java() {
        assert_eq!(aga_hundredths("-20.05711"), Some(-2006));
        assert_eq!(aga_hundredths("4.72008"), Some(472));
        assert_eq!(aga_hundredths(" 1.5 "), Some(150));
        assert_eq!(aga_hundredths("2f"), Some(200));
        // Exactly half in binary: Math.round goes up, toward +∞.
        assert_eq!(aga_hundredths("0.125"), Some(13));
        assert_eq!(aga_hundredths("-0.125"), Some(-12));
        assert_eq!(aga_hundredths(""), None);
        assert_eq!(aga_hundredths("abc"), None);
        assert_eq!(aga_hundredths("NaN"), None);
        assert_eq!(aga_hundredths("1e30"), None);
    }
}
