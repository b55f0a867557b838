//! Colours, handicap and komi of each board, decided **after** matching (docs/pairing.md,
//! "Boards") for the Pair::Best-style presets (`gopair`, `custom`): gopair's rules — AGATourn's
//! `Handicap` on the two ratings (AGA-collapsed when the model collapses them), the stronger
//! player White — or, with `handicap: "none"`, even games whose colours come from a seeded
//! hash of the two ids (gopair draws them at random; a hash makes a re-run give the same
//! colours).

use serde::Deserialize;
use serde_json::{Value, json};

use crate::aga::handicap::{Convention, HandicapOptions, decide};
use crate::rpc::RpcError;

/// `options.handicap`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HandicapMode {
    /// AGATourn's table (gopair's handicap tournaments).
    #[default]
    Aga,
    /// Even games, colours by a seeded hash (gopair's `-nh`).
    None,
}

/// The board options of `pairing.pair` (all optional).
#[derive(Debug, Clone, Copy, Default)]
pub struct BoardOptions {
    pub mode: HandicapMode,
    pub convention: Convention,
    pub cap: Option<u32>,
    pub seed: u64,
}

/// One player as the boards see it: the id as the caller gave it and the rating the handicap
/// is computed from (already collapsed when the model collapses ratings).
pub struct Seat<'a> {
    pub id: &'a Value,
    pub rating: f64,
}

/// The even-game komi of a convention, in the convention's own notation (AGATourn's integer
/// with the half point implied; DataObjects' real komi).
fn even_komi(c: Convention) -> f64 {
    match c {
        Convention::Agatourn => 6.0,
        Convention::AgatournIng | Convention::AradjustIng => 7.0,
        Convention::Aradjust => 5.0,
        Convention::DataObjects => 7.5,
    }
}

/// FNV-1a over the seed and both ids, mixed, order-independent in the ids, so that a pair gets the same
/// colours whichever way round it is listed.
fn colour_hash(seed: u64, a: &str, b: &str) -> u64 {
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in seed
        .to_le_bytes()
        .iter()
        .chain(lo.as_bytes())
        .chain([0u8].iter())
        .chain(hi.as_bytes())
    {
        h ^= u64::from(*byte);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    // FNV's low bits are barely mixed (the low bit is a parity of the input): finish with
    // splitmix64's mixer so that every bit depends on every byte.
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

fn id_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The board of one pair: `{white, black, handicap (stones; 0 = even or no-komi game), komi}`.
pub fn board(a: &Seat, b: &Seat, o: &BoardOptions) -> Value {
    match o.mode {
        HandicapMode::Aga => {
            let d = decide(
                a.rating,
                b.rating,
                &HandicapOptions {
                    convention: o.convention,
                    cap: o.cap,
                },
            );
            // AGATourn's sign: negative = the second player takes White.
            let (white, black) = if d.handicap < 0.0 { (b, a) } else { (a, b) };
            let stones = if d.handicap.abs() >= 2.0 {
                d.handicap.abs()
            } else {
                0.0
            };
            json!({"white": white.id, "black": black.id, "handicap": stones as u32, "komi": d.komi})
        }
        HandicapMode::None => {
            let (ta, tb) = (id_text(a.id), id_text(b.id));
            // The lower id (as text) is White when the hash's low bit is 0.
            let a_low = ta <= tb;
            let low_white = colour_hash(o.seed, &ta, &tb) & 1 == 0;
            let (white, black) = if a_low == low_white { (a, b) } else { (b, a) };
            json!({"white": white.id, "black": black.id, "handicap": 0,
                   "komi": even_komi(o.convention)})
        }
    }
}

/// Reads `options.handicap`, `options.handicap_convention`, `options.handicap_cap` and
/// `options.colour_seed`.
pub fn options(
    mode: Option<&str>,
    convention: Option<&str>,
    cap: Option<u32>,
    seed: Option<u64>,
) -> Result<BoardOptions, RpcError> {
    let mode = match mode {
        None | Some("aga") => HandicapMode::Aga,
        Some("none") => HandicapMode::None,
        Some(other) => {
            return Err(RpcError::invalid_params(format!(
                "options.handicap must be \"aga\" or \"none\", got {other:?}"
            )));
        }
    };
    let convention = match convention {
        None => Convention::Agatourn,
        Some(c) => serde_json::from_value(Value::String(c.to_string())).map_err(|_| {
            RpcError::invalid_params(format!(
                "options.handicap_convention must be agatourn, agatourn_ing, aradjust, \
                 aradjust_ing or data_objects, got {c:?}"
            ))
        })?,
    };
    if cap == Some(0) {
        return Err(RpcError::invalid_params(
            "options.handicap_cap must be at least 1 stone",
        ));
    }
    Ok(BoardOptions {
        mode,
        convention,
        cap,
        seed: seed.unwrap_or(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(id: &Value, rating: f64) -> Seat<'_> {
        Seat { id, rating }
    }

    #[test]
    fn aga_boards_put_the_stronger_player_on_white() {
        let (x, y) = (json!("x"), json!(7));
        let o = BoardOptions::default();
        // 4 vs −2 collapsed: a 6-point gap → int(6/1.1) = 5 stones, komi 0.
        let b = board(&seat(&x, 4.0), &seat(&y, -2.0), &o);
        assert_eq!(
            b,
            json!({"white": "x", "black": 7, "handicap": 5, "komi": 0.0})
        );
        // The same pair the other way round: same board.
        assert_eq!(board(&seat(&y, -2.0), &seat(&x, 4.0), &o), b);
        // Within 0.65: even game, komi 6 (6.5), the stronger White.
        let b = board(&seat(&x, 1.0), &seat(&y, 1.5), &o);
        assert_eq!(
            b,
            json!({"white": 7, "black": "x", "handicap": 0, "komi": 6.0})
        );
        // Within 1.25: no komi; within 2.2: reverse komi.
        assert_eq!(board(&seat(&x, 2.0), &seat(&y, 1.0), &o)["komi"], 0.0);
        assert_eq!(board(&seat(&x, 3.0), &seat(&y, 1.0), &o)["komi"], -6.0);
        // A cap.
        let capped = BoardOptions { cap: Some(9), ..o };
        assert_eq!(
            board(&seat(&x, 8.0), &seat(&y, -29.0), &capped)["handicap"],
            9
        );
        assert_eq!(board(&seat(&x, 8.0), &seat(&y, -29.0), &o)["handicap"], 33);
    }

    #[test]
    fn even_boards_are_deterministic_and_not_all_alike() {
        let o = BoardOptions {
            mode: HandicapMode::None,
            ..BoardOptions::default()
        };
        let ids: Vec<Value> = (0..40).map(|i| json!(format!("p{i}"))).collect();
        let mut first_white = 0;
        for w in ids.windows(2) {
            let b = board(&seat(&w[0], 5.0), &seat(&w[1], -5.0), &o);
            assert_eq!(b["handicap"], 0);
            assert_eq!(b, board(&seat(&w[1], -5.0), &seat(&w[0], 5.0), &o));
            if b["white"] == w[0] {
                first_white += 1;
            }
        }
        // A fair coin over 39 boards: both colours happen.
        assert!((5..=34).contains(&first_white), "{first_white}");
        // Another seed gives other colours somewhere.
        let o2 = BoardOptions { seed: 1, ..o };
        assert!(
            ids.windows(2)
                .any(|w| board(&seat(&w[0], 0.0), &seat(&w[1], 0.0), &o)
                    != board(&seat(&w[0], 0.0), &seat(&w[1], 0.0), &o2))
        );
    }

    #[test]
    fn bad_options_are_refused() {
        assert!(options(Some("maybe"), None, None, None).is_err());
        assert!(options(None, Some("chinese"), None, None).is_err());
        assert!(options(None, None, Some(0), None).is_err());
        let o = options(Some("none"), Some("aradjust_ing"), Some(9), Some(3)).unwrap();
        assert_eq!(o.mode, HandicapMode::None);
        assert_eq!(o.convention, Convention::AradjustIng);
    }
}
