//! Handicap and komi (docs/aga.md). `agatourn_table` is AGATourn's `Handicap` arithmetic in IEEE
//! doubles, which the 145,161-row sweep pins; `Convention` adds the other tables of the same
//! family as named options, and `cap` limits the stones (AGATourn has no cap: 33 stones happen).

use serde::{Deserialize, Serialize};

/// The komi/threshold convention.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Convention {
    /// AGATourn 1.035: komi 6 / 0 / −6 (half point implied).
    #[default]
    Agatourn,
    /// AGATourn with `## RULES ING`: 7 / −1 / −7.
    AgatournIng,
    /// GoPair `aradjust` under AGA rules: 5 / 0 / −5, handicap games komi 0.
    Aradjust,
    /// `aradjust` under Ing rules: 7 / −1 / −7, handicap games komi = −stones.
    AradjustIng,
    /// DataObjects 0.152 `Game::handicap` with default komi 7.5: thresholds 0.5 / 1.0 / 1.5,
    /// komi 7.5 / 0.5 / −7.5, stones = int(d + 0.5) with komi 0.5.
    DataObjects,
}

/// Handicap options beyond AGATourn's own behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct HandicapOptions {
    #[serde(default)]
    pub convention: Convention,
    /// Maximum stones (e.g. 9); `None` = no cap, as AGATourn.
    #[serde(default)]
    pub cap: Option<u32>,
}

/// A handicap decision. `handicap` follows AGATourn's sign convention: negative means the
/// second player takes White (−1 = no stones, colours swapped).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Decision {
    pub handicap: f64,
    pub komi: f64,
}

/// AGATourn's table on two collapsed ratings.
pub fn agatourn_table(c1: f64, c2: f64, ing: bool) -> Decision {
    let mut diff = c1 - c2;
    let mut swap = 1.0;
    let mut handi = 0.0;
    if diff < 0.0 {
        swap = -1.0;
        handi = -1.0;
        diff = -diff;
    }
    let komi;
    if diff <= 0.650 {
        komi = if ing { 7.0 } else { 6.0 };
    } else if diff <= 1.25 {
        komi = if ing { -1.0 } else { 0.0 };
    } else if diff <= 2.2 {
        komi = if ing { -7.0 } else { -6.0 };
    } else {
        handi = swap * (diff / 1.1).trunc();
        komi = 0.0;
    }
    Decision {
        handicap: handi.trunc(),
        komi,
    }
}

/// The decision for two collapsed ratings under `opts`.
pub fn decide(c1: f64, c2: f64, opts: &HandicapOptions) -> Decision {
    let mut d = match opts.convention {
        Convention::Agatourn => agatourn_table(c1, c2, false),
        Convention::AgatournIng => agatourn_table(c1, c2, true),
        Convention::Aradjust | Convention::AradjustIng => {
            let ing = opts.convention == Convention::AradjustIng;
            let mut d = agatourn_table(c1, c2, ing);
            if d.handicap.abs() >= 2.0 {
                d.komi = if ing { -d.handicap.abs() } else { 0.0 };
            } else if !ing {
                // aradjust's AGA column: 5 / 0 / -5 instead of 6 / 0 / -6.
                d.komi = match d.komi as i64 {
                    6 => 5.0,
                    -6 => -5.0,
                    k => k as f64,
                };
            }
            d
        }
        Convention::DataObjects => {
            let raw = c1 - c2;
            let (swap, r) = if raw < 0.0 { (-1.0, -raw) } else { (1.0, raw) };
            let (stones, komi) = if r < 0.5 {
                (0.0, 7.5)
            } else if r < 1.0 {
                (0.0, 0.5)
            } else if r < 1.5 {
                (0.0, -7.5)
            } else {
                ((r + 0.5).trunc(), 0.5)
            };
            let handicap = if stones == 0.0 {
                if swap < 0.0 { -1.0 } else { 0.0 }
            } else {
                swap * stones
            };
            Decision { handicap, komi }
        }
    };
    if let Some(cap) = opts.cap {
        let cap = f64::from(cap);
        if d.handicap.abs() > cap && d.handicap.abs() >= 2.0 {
            d.handicap = d.handicap.signum() * cap;
            if cap < 2.0 {
                // A cap below two stones turns the game into an even game without komi.
                d.handicap = if d.handicap < 0.0 { -1.0 } else { 0.0 };
            }
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_and_cap() {
        assert_eq!(agatourn_table(8.0, -29.0, false).handicap, 33.0);
        let capped = decide(
            8.0,
            -29.0,
            &HandicapOptions {
                convention: Convention::Agatourn,
                cap: Some(9),
            },
        );
        assert_eq!(capped.handicap, 9.0);
        let ar = decide(
            3.0,
            3.0,
            &HandicapOptions {
                convention: Convention::Aradjust,
                cap: None,
            },
        );
        assert_eq!(ar.komi, 5.0);
        let ari = decide(
            6.0,
            1.0,
            &HandicapOptions {
                convention: Convention::AradjustIng,
                cap: None,
            },
        );
        assert_eq!((ari.handicap, ari.komi), (4.0, -4.0));
        let dob = decide(
            2.0,
            2.7,
            &HandicapOptions {
                convention: Convention::DataObjects,
                cap: None,
            },
        );
        assert_eq!((dob.handicap, dob.komi), (-1.0, 0.5));
    }
}
