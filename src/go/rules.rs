//! Rule sets (docs/score.md, "Rules"): each preset fixes the play rules (ko and
//! suicide), the counting method, the tax on seki, White's handicap bonus and the default
//! komi. The play rules are also usable alone, e.g. the compat replay of sgfmill's reference
//! board (suicide allowed, no ko check).

use std::fmt;
use std::str::FromStr;

use super::board::SuicideRule;

/// Which repetitions are forbidden. Simple ko is part of every rule except `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KoRule {
    /// No ko check at all (sgfmill's reference board).
    None,
    Simple,
    Positional,
    Situational,
}

/// Legality rules for moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayRules {
    pub ko: KoRule,
    pub suicide: SuicideRule,
}

impl PlayRules {
    /// sgfmill's reference board: every suicide allowed, no ko.
    pub const COMPAT: PlayRules = PlayRules {
        ko: KoRule::None,
        suicide: SuicideRule::All,
    };
}

/// Area (stones + territory) or territory (territory + prisoners) counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counting {
    Area,
    Territory,
}

/// White's compensation for N handicap stones under area counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandicapBonus {
    Zero,
    N,
    NMinusOne,
}

impl HandicapBonus {
    /// Points for White with `handicap` stones (0 or 1 mean no handicap stones).
    pub fn points(self, handicap: u32) -> f64 {
        if handicap < 2 {
            return 0.0;
        }
        match self {
            HandicapBonus::Zero => 0.0,
            HandicapBonus::N => handicap as f64,
            HandicapBonus::NMinusOne => (handicap - 1) as f64,
        }
    }
}

/// The goswiss presets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Preset {
    TrompTaylor,
    Chinese,
    Japanese,
    Korean,
    Aga,
    NewZealand,
    Ing,
    /// Cinderblock Scorable's compat scoring (§2.7): no captures, ties to White.
    Cinderblock,
}

/// Everything a preset fixes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RuleSet {
    pub preset: Preset,
    pub play: PlayRules,
    pub counting: Counting,
    /// Territory rules: no points for eyes and dame in seki.
    pub seki_tax: bool,
    pub handicap_bonus: HandicapBonus,
    pub default_komi: f64,
    /// Dead-stone marks are honoured (Tromp-Taylor counts every stone on the board).
    pub uses_dead_stones: bool,
    /// A tie goes to White instead of being a draw.
    pub ties_to_white: bool,
    /// Pass stones: each pass gives the opponent a prisoner (AGA).
    pub pass_stones: bool,
}

impl Preset {
    pub const ALL: [Preset; 8] = [
        Preset::TrompTaylor,
        Preset::Chinese,
        Preset::Japanese,
        Preset::Korean,
        Preset::Aga,
        Preset::NewZealand,
        Preset::Ing,
        Preset::Cinderblock,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Preset::TrompTaylor => "tromp-taylor",
            Preset::Chinese => "chinese",
            Preset::Japanese => "japanese",
            Preset::Korean => "korean",
            Preset::Aga => "aga",
            Preset::NewZealand => "nz",
            Preset::Ing => "ing",
            Preset::Cinderblock => "cinderblock",
        }
    }

    pub fn rules(self) -> RuleSet {
        use HandicapBonus as H;
        use KoRule as K;
        use SuicideRule as S;
        let (ko, suicide, counting, seki_tax, bonus, komi) = match self {
            Preset::TrompTaylor => (
                K::Positional,
                S::MultiStone,
                Counting::Area,
                false,
                H::Zero,
                7.5,
            ),
            Preset::Chinese => (K::Simple, S::Forbidden, Counting::Area, false, H::N, 7.5),
            Preset::Japanese | Preset::Korean => (
                K::Simple,
                S::Forbidden,
                Counting::Territory,
                true,
                H::Zero,
                6.5,
            ),
            Preset::Aga => (
                K::Situational,
                S::Forbidden,
                Counting::Area,
                false,
                H::NMinusOne,
                7.5,
            ),
            Preset::NewZealand => (
                K::Situational,
                S::MultiStone,
                Counting::Area,
                false,
                H::Zero,
                7.0,
            ),
            // KataGo's choice (no bonus); OGS gives +N. See docs/score.md.
            Preset::Ing => (
                K::Positional,
                S::MultiStone,
                Counting::Area,
                false,
                H::Zero,
                7.5,
            ),
            Preset::Cinderblock => (
                K::Situational,
                S::Forbidden,
                Counting::Territory,
                false,
                H::Zero,
                6.5,
            ),
        };
        RuleSet {
            preset: self,
            play: PlayRules { ko, suicide },
            counting,
            seki_tax,
            handicap_bonus: bonus,
            default_komi: komi,
            uses_dead_stones: self != Preset::TrompTaylor,
            ties_to_white: self == Preset::Cinderblock,
            pass_stones: self == Preset::Aga,
        }
    }

    /// The preset an SGF `RU` value maps to, if any (case-insensitive, common spellings).
    pub fn from_ru(ru: &str) -> Option<Preset> {
        let s = ru.trim().to_ascii_lowercase();
        let s = s.replace(['_', ' '], "-");
        Some(match s.as_str() {
            "japanese" | "jp" | "japan" => Preset::Japanese,
            "korean" | "korea" => Preset::Korean,
            "chinese" | "cn" | "china" => Preset::Chinese,
            "aga" | "bga" | "french" => Preset::Aga,
            "nz" | "new-zealand" | "newzealand" => Preset::NewZealand,
            "ing" | "goe" => Preset::Ing,
            "tromp-taylor" | "tromptaylor" | "tt" => Preset::TrompTaylor,
            "cinderblock" => Preset::Cinderblock,
            _ => return None,
        })
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Preset {
    type Err = String;
    fn from_str(s: &str) -> Result<Preset, String> {
        Preset::from_ru(s).ok_or_else(|| {
            format!(
                "unknown rules {s:?} (expected one of {})",
                Preset::ALL.map(Preset::name).join(", ")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Preset::ALL {
            assert_eq!(p.name().parse::<Preset>(), Ok(p));
        }
        assert!("go".parse::<Preset>().is_err());
        assert_eq!(Preset::from_ru("Japanese"), Some(Preset::Japanese));
    }

    #[test]
    fn handicap_bonus() {
        assert_eq!(Preset::Chinese.rules().handicap_bonus.points(4), 4.0);
        assert_eq!(Preset::Aga.rules().handicap_bonus.points(4), 3.0);
        assert_eq!(Preset::Aga.rules().handicap_bonus.points(1), 0.0);
        assert_eq!(Preset::Japanese.rules().handicap_bonus.points(9), 0.0);
    }
}
