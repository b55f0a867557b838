//! The players of a simulated tournament and their true strength: generated from a rank
//! distribution, listed by the caller (all of them, or a sample from a pool), read from a
//! rating list (CSV text, or a federation's list: EGF, FFG, AGA, through `ratings`), or taken
//! from an imported tournament. Each run draws its own field from the run's seed, so a run is
//! reproducible alone.
//!
//! Strength is on the EGF GoR scale (1d = 2100, 100 points a grade). A player's declared rank
//! and rating are what the pairing sees; the true strength, which only the result model sees,
//! is the rating plus a normal error of `strength_sd` grades, drawn anew for every run (a
//! generated player's rating is first spread uniformly over its grade), so the ranking the
//! metrics compare against has no ties unless the caller asks for them (`strength_sd` 0).

use rand::Rng;
use rand::seq::index::sample;
use serde::{Deserialize, Serialize};

use crate::tournament::engine::check_player;
use crate::tournament::model::{MAX_RANK, MIN_RANK, Player, Rank, TournamentData, parse_rank};

/// Nominal GoR of a rank (OpenGotha's integer: 1d = 0 → 2100, 1k = −1 → 2000, 20k → 100).
pub fn nominal_rating(rank: Rank) -> i32 {
    2100 + 100 * rank
}

/// The rank a GoR rating stands for: the grade whose nominal rating is nearest (2050 and up
/// is 1d), within 30k … 9d.
pub fn rank_of_rating(rating: f64) -> Rank {
    let r = ((rating - 2050.0) / 100.0).floor();
    if r.is_nan() {
        return MIN_RANK;
    }
    (r as i64).clamp(MIN_RANK as i64, MAX_RANK as i64) as Rank
}

/// A rank given as text ("3d", "12k") or as OpenGotha's integer (written as the integer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct RankValue(pub Rank);

impl<'de> Deserialize<'de> for RankValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Int(i64),
            Text(String),
        }
        let bad = |what: &str| {
            serde::de::Error::custom(format!(
                "{what} is not a rank (30k … 9d, or OpenGotha's integer {MIN_RANK} … {MAX_RANK})"
            ))
        };
        match Raw::deserialize(d)? {
            Raw::Int(i) if (MIN_RANK as i64..=MAX_RANK as i64).contains(&i) => {
                Ok(RankValue(i as Rank))
            }
            Raw::Int(i) => Err(bad(&i.to_string())),
            Raw::Text(s) => parse_rank(&s)
                .map(RankValue)
                .ok_or_else(|| bad(&format!("{:?}", s.chars().take(20).collect::<String>()))),
        }
    }
}

/// How declared ranks are drawn for a generated field.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "snake_case", tag = "shape")]
pub enum Distribution {
    /// Every rank from `from` to `to` equally likely.
    #[default]
    Uniform,
    /// A normal distribution over ranks (mean as a rank, sd in grades), rounded and kept
    /// within `from` … `to` (draws outside are drawn again).
    Normal { mean: RankValue, sd: f64 },
}

/// A generated field.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Generate {
    pub players: usize,
    /// Weakest declared rank.
    pub from: RankValue,
    /// Strongest declared rank.
    pub to: RankValue,
    #[serde(default)]
    pub distribution: Distribution,
    /// Clubs the players are spread over uniformly (default: one per 6 players).
    pub clubs: Option<usize>,
    /// Countries the clubs are spread over (default 1: everyone from one country).
    pub countries: Option<usize>,
}

/// One player of a caller's list.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Listed {
    pub name: String,
    #[serde(default)]
    pub first_name: String,
    /// Declared rank; from the rating when absent.
    pub rank: Option<RankValue>,
    /// GoR; the rank's nominal rating when absent.
    pub rating: Option<f64>,
    #[serde(default)]
    pub club: String,
    #[serde(default)]
    pub country: String,
}

/// A rating list as CSV text: a header naming the columns (`name` and `rating` or `rank`
/// required; `first_name`, `club`, `country` optional), then one player a line; comma,
/// semicolon or tab separated (the header's first one of them), double quotes around a field
/// that holds the separator.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RatingList {
    pub text: String,
    /// Each run takes this many players at random from the list (default: all of them).
    pub sample: Option<usize>,
}

/// A pool of listed players each run draws a sample from (a federation's rating list
/// narrowed by [`ListFilter`] arrives as one).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Pool {
    pub players: Vec<Listed>,
    /// Each run takes this many players at random from the pool (default: all of them).
    pub sample: Option<usize>,
}

/// Where a simulation's players come from.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum FieldSpec {
    Generate(Generate),
    Players(Vec<Listed>),
    Pool(Pool),
    RatingList(RatingList),
}

/// Which rows of a federation's rating list make a pool: the rated players of these
/// countries (any case; all when empty) whose rank is within `from` … `to` (either end open).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ListFilter {
    #[serde(default)]
    pub countries: Vec<String>,
    pub from: Option<RankValue>,
    pub to: Option<RankValue>,
}

impl ListFilter {
    fn keeps(&self, country: &str, rank: Rank) -> bool {
        (self.countries.is_empty()
            || self
                .countries
                .iter()
                .any(|c| c.trim().eq_ignore_ascii_case(country.trim())))
            && self.from.is_none_or(|f| rank >= f.0)
            && self.to.is_none_or(|t| rank <= t.0)
    }
}

/// The players of a federation's rating list (EGF, FFG échelle, AGA TDList, read by
/// `ratings`) that `filter` keeps, with the rank and EGF-scale rating OpenGotha registers from
/// each row (docs/ratings.md says how each list's rating converts). Rows without a rating (AGA
/// members not rated yet) are left out, and so is a row whose name repeats an earlier one's
/// (the lists hold a few homonyms; a tournament cannot register both). More than
/// [`MAX_LISTED`] kept is an error: narrow the filter.
pub fn from_rating_list(
    list: &crate::ratings::RatingList,
    filter: &ListFilter,
) -> Result<Vec<Listed>, String> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for e in list.entries() {
        if e.listed_rating.trim().is_empty() || !filter.keeps(e.country, e.rank()) {
            continue;
        }
        let key: String = e
            .name
            .chars()
            .chain(e.first_name.chars())
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_uppercase)
            .collect();
        if !seen.insert(key) {
            continue;
        }
        if out.len() >= MAX_LISTED {
            return Err(format!(
                "the {} list has more than {MAX_LISTED} players that match: narrow it with \
                 countries, from or to",
                list.kind()
            ));
        }
        out.push(Listed {
            name: e.name.to_string(),
            first_name: e.first_name.to_string(),
            rank: Some(RankValue(e.rank())),
            rating: Some(f64::from(e.rating())),
            club: e.club.to_string(),
            country: e.country.to_string(),
        });
    }
    Ok(out)
}

/// A player before the run draws its true strength.
#[derive(Debug, Clone, PartialEq)]
pub struct Entrant {
    pub name: String,
    pub first_name: String,
    pub rank: Rank,
    /// Declared GoR (what OpenGotha reads as the rating).
    pub rating: i32,
    pub club: String,
    pub country: String,
}

/// A field ready to draw runs from.
#[derive(Debug, Clone, PartialEq)]
pub enum Field {
    Generate(Generate),
    Fixed {
        pool: Vec<Entrant>,
        sample: Option<usize>,
    },
}

/// One run's players (ids 1 … n in registration order) and their true strengths (GoR).
#[derive(Debug, Clone, PartialEq)]
pub struct RunField {
    pub players: Vec<Player>,
    pub strength: Vec<f64>,
}

/// Country codes handed to generated clubs, in order.
const COUNTRIES: &[&str] = &[
    "FR", "DE", "NL", "CZ", "PL", "GB", "HU", "AT", "CH", "BE", "IT", "ES", "SE", "FI", "DK", "NO",
    "RO", "UA", "SK", "SI", "HR", "RS", "PT", "IE",
];

impl Field {
    /// Players in one run.
    pub fn size(&self) -> usize {
        match self {
            Field::Generate(g) => g.players,
            Field::Fixed { pool, sample } => sample.unwrap_or(pool.len()),
        }
    }

    /// A short description for reports ("40 players 20K … 3D, uniform, 7 clubs").
    pub fn describe(&self) -> String {
        use crate::tournament::model::format_rank;
        match self {
            Field::Generate(g) => {
                let shape = match &g.distribution {
                    Distribution::Uniform => "uniform".to_string(),
                    Distribution::Normal { mean, sd } => {
                        format!("normal around {} (sd {sd} grades)", format_rank(mean.0))
                    }
                };
                let count = |n: usize, one: &str, many: &str| {
                    format!("{n} {}", if n == 1 { one } else { many })
                };
                format!(
                    "{} generated players {} … {}, {shape}, {}, {}",
                    g.players,
                    format_rank(g.from.0),
                    format_rank(g.to.0),
                    count(clubs_of(g), "club", "clubs"),
                    count(g.countries.unwrap_or(1), "country", "countries")
                )
            }
            Field::Fixed { pool, sample } => match sample {
                Some(k) => format!("{k} players drawn from a list of {}", pool.len()),
                None => format!("{} listed players", pool.len()),
            },
        }
    }

    /// The field of one run, drawn with `rng`; true strength = declared rating (spread over
    /// its grade for generated players) + N(0, `strength_sd` grades).
    pub fn draw(&self, rng: &mut impl Rng, strength_sd: f64) -> RunField {
        let mut players = Vec::with_capacity(self.size());
        let mut strength = Vec::with_capacity(self.size());
        let mut push = |e: &Entrant, base: f64, rng: &mut dyn rand::RngCore| {
            let noise = if strength_sd > 0.0 {
                normal(rng) * strength_sd * 100.0
            } else {
                0.0
            };
            strength.push(base + noise);
            players.push(Player {
                id: players.len() as u32 + 1,
                name: e.name.clone(),
                first_name: e.first_name.clone(),
                rank: e.rank,
                rating: e.rating,
                club: e.club.clone(),
                country: e.country.clone(),
                ..Player::default()
            });
        };
        match self {
            Field::Generate(g) => {
                let clubs = clubs_of(g);
                let countries = g.countries.unwrap_or(1).max(1);
                let width = g.players.to_string().len().max(3);
                for k in 0..g.players {
                    let rank = draw_rank(g, rng);
                    let club = rng.random_range(0..clubs);
                    let e = Entrant {
                        name: format!("Player{:0width$}", k + 1),
                        first_name: "Sim".into(),
                        rank,
                        rating: nominal_rating(rank),
                        club: format!("Club{}", club + 1),
                        country: country_code(club % countries).to_string(),
                    };
                    // Anywhere inside the grade: ranks are coarse, strengths are not.
                    let base = f64::from(e.rating) + rng.random_range(-50.0..50.0);
                    push(&e, base, rng);
                }
            }
            Field::Fixed { pool, sample: k } => match k {
                Some(k) => {
                    let mut picked = sample(rng, pool.len(), *k).into_vec();
                    // Registration in list order, whatever order the sample came in.
                    picked.sort_unstable();
                    for i in picked {
                        push(&pool[i], f64::from(pool[i].rating), rng);
                    }
                }
                None => {
                    for e in pool {
                        push(e, f64::from(e.rating), rng);
                    }
                }
            },
        }
        RunField { players, strength }
    }
}

fn clubs_of(g: &Generate) -> usize {
    g.clubs.unwrap_or(g.players / 6).max(1)
}

fn country_code(k: usize) -> String {
    match COUNTRIES.get(k) {
        Some(c) => (*c).to_string(),
        // More countries than codes: made-up two-letter codes (X + letter, Y + letter …).
        None => {
            let k = k - COUNTRIES.len();
            let first = (b'X' + (k / 26 % 3) as u8) as char;
            let second = (b'A' + (k % 26) as u8) as char;
            format!("{first}{second}")
        }
    }
}

/// A standard normal draw (Box–Muller).
pub fn normal(rng: &mut (impl Rng + ?Sized)) -> f64 {
    let u: f64 = 1.0 - rng.random::<f64>();
    let v: f64 = rng.random::<f64>();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

fn draw_rank(g: &Generate, rng: &mut impl Rng) -> Rank {
    let (lo, hi) = (g.from.0.min(g.to.0), g.from.0.max(g.to.0));
    match &g.distribution {
        Distribution::Uniform => rng.random_range(lo..=hi),
        Distribution::Normal { mean, sd } => {
            // Bounded: a distribution far outside the range falls back to its nearest end.
            for _ in 0..64 {
                let r = (f64::from(mean.0) + normal(rng) * sd).round();
                if r >= f64::from(lo) && r <= f64::from(hi) {
                    return r as Rank;
                }
            }
            mean.0.clamp(lo, hi)
        }
    }
}

/// Most players one field may list (the engine's own cap on a tournament).
pub const MAX_LISTED: usize = crate::tournament::engine::MAX_PLAYERS;

/// Checks a field spec and turns it into a [`Field`]; errors name what is wrong.
pub fn prepare(spec: FieldSpec) -> Result<Field, String> {
    let field = match spec {
        FieldSpec::Generate(g) => {
            if g.players < 2 {
                return Err("field.generate.players must be at least 2".into());
            }
            if g.players > MAX_LISTED {
                return Err(format!(
                    "field.generate.players must be at most {MAX_LISTED}"
                ));
            }
            if let Distribution::Normal { sd, .. } = g.distribution
                && !(sd.is_finite() && sd > 0.0 && sd <= 30.0)
            {
                return Err("field.generate.distribution.sd must be in (0, 30] grades".into());
            }
            if g.clubs.is_some_and(|c| c == 0 || c > MAX_LISTED) {
                return Err(format!("field.generate.clubs must be 1 … {MAX_LISTED}"));
            }
            if g.countries.is_some_and(|c| c == 0 || c > 100) {
                return Err("field.generate.countries must be 1 … 100".into());
            }
            Field::Generate(g)
        }
        FieldSpec::Players(list) => Field::Fixed {
            pool: entrants(list.into_iter().map(Ok), "field.players")?,
            sample: None,
        },
        FieldSpec::Pool(p) => {
            let pool = entrants(p.players.into_iter().map(Ok), "field.pool.players")?;
            if let Some(k) = p.sample
                && !(2..=pool.len()).contains(&k)
            {
                return Err(format!(
                    "field.pool.sample must be 2 … {} (the pool's players)",
                    pool.len()
                ));
            }
            Field::Fixed {
                pool,
                sample: p.sample,
            }
        }
        FieldSpec::RatingList(r) => {
            let pool = entrants(parse_csv(&r.text)?.into_iter(), "field.rating_list")?;
            if let Some(k) = r.sample
                && !(2..=pool.len()).contains(&k)
            {
                return Err(format!(
                    "field.rating_list.sample must be 2 … {} (the list's players)",
                    pool.len()
                ));
            }
            Field::Fixed {
                pool,
                sample: r.sample,
            }
        }
    };
    Ok(field)
}

/// The listed players checked as the engine would register them (text, rank, rating; no two
/// with the same OpenGotha key).
fn entrants(
    list: impl Iterator<Item = Result<Listed, String>>,
    what: &str,
) -> Result<Vec<Entrant>, String> {
    let mut out = Vec::new();
    let mut keys = std::collections::HashSet::new();
    for (k, l) in list.enumerate() {
        let l = l?;
        if out.len() >= MAX_LISTED {
            return Err(format!("{what}: at most {MAX_LISTED} players"));
        }
        let rating = match (l.rating, l.rank) {
            (Some(r), _) => {
                if !r.is_finite() || !(-900.0..=3200.0).contains(&r) {
                    return Err(format!(
                        "{what}[{k}].rating must be a GoR in -900 … 3200, got {r}"
                    ));
                }
                r.round() as i32
            }
            (None, Some(rank)) => nominal_rating(rank.0),
            (None, None) => {
                return Err(format!("{what}[{k}] needs a rank or a rating"));
            }
        };
        let rank = l
            .rank
            .map_or_else(|| rank_of_rating(f64::from(rating)), |r| r.0);
        let e = Entrant {
            name: l.name,
            first_name: l.first_name,
            rank,
            rating,
            club: l.club,
            country: l.country.to_uppercase(),
        };
        let p = Player {
            name: e.name.clone(),
            first_name: e.first_name.clone(),
            rank: e.rank,
            rating: e.rating,
            club: e.club.clone(),
            country: e.country.clone(),
            ..Player::default()
        };
        check_player(&p).map_err(|err| format!("{what}[{k}] ({}): {err}", e.name))?;
        if !keys.insert(p.opengotha_key()) {
            return Err(format!(
                "{what}[{k}]: {} {} is listed twice",
                e.name, e.first_name
            ));
        }
        out.push(e);
    }
    if out.len() < 2 {
        return Err(format!("{what}: at least 2 players are needed"));
    }
    Ok(out)
}

/// The players of an imported (or running) tournament, as a listed field: their ranks,
/// ratings, clubs and countries.
pub fn from_tournament(t: &TournamentData) -> Vec<Listed> {
    t.players
        .iter()
        .map(|p| Listed {
            name: p.name.clone(),
            first_name: p.first_name.clone(),
            rank: Some(RankValue(p.rank)),
            rating: Some(f64::from(p.rating)),
            club: p.club.clone(),
            country: p.country.clone(),
        })
        .collect()
}

/// Splits one CSV line on `sep`, with double-quoted fields ("" inside is a quote).
fn split_csv(line: &str, sep: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            c if c == sep && !quoted => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out.into_iter().map(|f| f.trim().to_string()).collect()
}

/// The players of a CSV rating list (see [`RatingList`]).
pub fn parse_csv(text: &str) -> Result<Vec<Result<Listed, String>>, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some((_, header)) = lines.next() else {
        return Err("field.rating_list: the text is empty".into());
    };
    let sep = header
        .chars()
        .find(|c| matches!(c, ',' | ';' | '\t'))
        .unwrap_or(',');
    let columns: Vec<String> = split_csv(header, sep)
        .into_iter()
        .map(|c| c.to_lowercase().replace([' ', '-'], "_"))
        .collect();
    let col = |name: &str| columns.iter().position(|c| c == name);
    for c in &columns {
        if !["name", "first_name", "rank", "rating", "club", "country"].contains(&c.as_str()) {
            return Err(format!(
                "field.rating_list: unknown column {:?} (name, first_name, rank, rating, club, \
                 country)",
                c.chars().take(40).collect::<String>()
            ));
        }
    }
    let name = col("name").ok_or("field.rating_list: the header has no name column")?;
    if col("rank").is_none() && col("rating").is_none() {
        return Err("field.rating_list: the header needs a rank or a rating column".into());
    }
    let mut out = Vec::new();
    for (no, line) in lines {
        if out.len() >= MAX_LISTED {
            return Err(format!("field.rating_list: at most {MAX_LISTED} players"));
        }
        let f = split_csv(line, sep);
        let get = |c: Option<usize>| c.and_then(|i| f.get(i)).cloned().unwrap_or_default();
        let at = format!("field.rating_list line {}", no + 1);
        let rank = match get(col("rank")) {
            s if s.is_empty() => None,
            s => Some(RankValue(
                parse_rank(&s).ok_or_else(|| format!("{at}: {s:?} is not a rank"))?,
            )),
        };
        let rating = match get(col("rating")) {
            s if s.is_empty() => None,
            s => Some(
                s.parse::<f64>()
                    .map_err(|_| format!("{at}: rating {s:?} is not a number"))?,
            ),
        };
        out.push(Ok(Listed {
            name: get(Some(name)),
            first_name: get(col("first_name")),
            rank,
            rating,
            club: get(col("club")),
            country: get(col("country")),
        }));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn ranks_and_ratings_meet_at_the_grade_boundaries() {
        assert_eq!(nominal_rating(0), 2100);
        assert_eq!(nominal_rating(-20), 100);
        assert_eq!(rank_of_rating(2100.0), 0);
        assert_eq!(rank_of_rating(2050.0), 0);
        assert_eq!(rank_of_rating(2049.9), -1);
        assert_eq!(rank_of_rating(-5000.0), MIN_RANK);
        assert_eq!(rank_of_rating(9000.0), MAX_RANK);
        for r in MIN_RANK..=MAX_RANK {
            assert_eq!(rank_of_rating(f64::from(nominal_rating(r))), r);
        }
    }

    #[test]
    fn a_generated_field_stays_in_its_ranks_and_is_reproducible() {
        let spec: FieldSpec = serde_json::from_str(
            r#"{"generate": {"players": 300, "from": "20k", "to": "3d", "clubs": 10,
                "countries": 3}}"#,
        )
        .unwrap();
        let f = prepare(spec).unwrap();
        let a = f.draw(&mut ChaCha8Rng::seed_from_u64(5), 0.5);
        let b = f.draw(&mut ChaCha8Rng::seed_from_u64(5), 0.5);
        assert_eq!(a, b);
        assert_eq!(a.players.len(), 300);
        assert!(a.players.iter().all(|p| (-20..=2).contains(&p.rank)));
        let clubs: std::collections::HashSet<_> = a.players.iter().map(|p| &p.club).collect();
        let countries: std::collections::HashSet<_> =
            a.players.iter().map(|p| &p.country).collect();
        assert_eq!((clubs.len(), countries.len()), (10, 3));
        // Strength follows the rank: the mean gap to the nominal rating is small, the spread
        // about half a grade's uniform spread plus the noise.
        let gaps: Vec<f64> = a
            .players
            .iter()
            .zip(&a.strength)
            .map(|(p, s)| s - f64::from(nominal_rating(p.rank)))
            .collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        assert!(mean.abs() < 15.0, "{mean}");
        assert!(gaps.iter().all(|g| g.abs() < 50.0 + 5.0 * 50.0));
        let c = f.draw(&mut ChaCha8Rng::seed_from_u64(6), 0.5);
        assert_ne!(a, c);
    }

    #[test]
    fn a_rating_list_reads_its_columns_and_refuses_bad_lines() {
        let text = "Name;First name;Rating;Club;Country\n\
                    Lee;Ann;2430;Lyon;fr\n\
                    \"Smith; Jr\";Bob;1780;Berl;DE\n";
        let f = prepare(FieldSpec::RatingList(RatingList {
            text: text.into(),
            sample: None,
        }))
        .unwrap();
        let Field::Fixed { pool, .. } = &f else {
            panic!("fixed")
        };
        assert_eq!(pool[0].rank, 3);
        assert_eq!(pool[0].country, "FR");
        assert_eq!(pool[1].name, "Smith; Jr");
        assert_eq!(pool[1].rank, rank_of_rating(1780.0));
        let bad = |t: &str| {
            prepare(FieldSpec::RatingList(RatingList {
                text: t.into(),
                sample: None,
            }))
            .unwrap_err()
        };
        assert!(bad("name,grade\nA,3d\nB,2d").contains("unknown column"));
        assert!(bad("name,rank\nA,3x\nB,2d").contains("not a rank"));
        assert!(bad("name,rank\nA,3d\nA,2d").contains("listed twice"));
        assert!(bad("name,rank\nA,3d").contains("at least 2"));
        assert!(bad("name,rating\nA,1\nB,99999").contains("GoR"));
    }

    #[test]
    fn a_sample_takes_distinct_players_in_list_order() {
        let list: Vec<Listed> = (0..50)
            .map(|k| Listed {
                name: format!("P{k:02}"),
                first_name: String::new(),
                rank: None,
                rating: Some(1000.0 + 10.0 * k as f64),
                club: String::new(),
                country: String::new(),
            })
            .collect();
        let f = Field::Fixed {
            pool: entrants(list.into_iter().map(Ok), "t").unwrap(),
            sample: Some(20),
        };
        let run = f.draw(&mut ChaCha8Rng::seed_from_u64(1), 0.0);
        assert_eq!(run.players.len(), 20);
        let names: Vec<&str> = run.players.iter().map(|p| p.name.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
        // No noise: strength is the listed rating.
        for (p, s) in run.players.iter().zip(&run.strength) {
            assert_eq!(f64::from(p.rating), *s);
        }
    }

    const EGF_EXCERPT: &[u8] =
        include_bytes!("../../tests/data/ratings/egf_db-2018-12-27-excerpt.txt");

    fn egf_excerpt() -> crate::ratings::RatingList {
        crate::ratings::parse(crate::ratings::Kind::Egf, EGF_EXCERPT).unwrap()
    }

    fn filter(countries: &[&str], from: Option<&str>, to: Option<&str>) -> ListFilter {
        let rank = |r: &str| RankValue(parse_rank(r).unwrap());
        ListFilter {
            countries: countries.iter().map(|c| c.to_string()).collect(),
            from: from.map(rank),
            to: to.map(rank),
        }
    }

    /// The EGF list's rows become listed players with the rank and rating the desk registers
    /// (`ratings::Entry`), kept by country (any case) and rank range; a homonym's second row
    /// (the excerpt lists "Kim Alexandr" twice, 20k and 2d) is left out.
    #[test]
    fn a_federation_list_makes_a_pool_by_country_and_rank() {
        let list = egf_excerpt();
        let fr = from_rating_list(&list, &filter(&["fr"], None, None)).unwrap();
        let names: Vec<&str> = fr.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names.len(), 5, "{names:?}");
        assert!(
            names.contains(&"Abadie") && names.contains(&"Muller"),
            "{names:?}"
        );
        let abadie = fr.iter().find(|p| p.name == "Abadie").unwrap();
        let entry = list.entries().find(|e| e.name == "Abadie").unwrap();
        assert_eq!(abadie.rating, Some(f64::from(entry.rating())));
        assert_eq!(abadie.rank, Some(RankValue(entry.rank())));
        assert_eq!(
            (abadie.first_name.as_str(), abadie.country.as_str()),
            ("Yves", "FR")
        );

        let ru = from_rating_list(&list, &filter(&["RU"], None, None)).unwrap();
        let kims = ru
            .iter()
            .filter(|p| p.name == "Kim" && p.first_name == "Alexandr");
        assert_eq!(kims.count(), 1, "the homonym's second row is left out");
        assert_eq!(ru.len(), 7, "{ru:?}");

        // A rank range, both ends included; every kept player is inside it.
        let mid = from_rating_list(&list, &filter(&[], Some("10k"), Some("1d"))).unwrap();
        assert!(!mid.is_empty());
        for p in &mid {
            let r = p.rank.unwrap().0;
            assert!((-10..=0).contains(&r), "{p:?}");
        }
        let all = from_rating_list(&list, &ListFilter::default()).unwrap();
        assert!(all.len() > mid.len() + fr.len());

        // The pool plays: each run draws its sample from it.
        let f = prepare(FieldSpec::Pool(Pool {
            players: all.clone(),
            sample: Some(12),
        }))
        .unwrap();
        let run = f.draw(&mut ChaCha8Rng::seed_from_u64(3), 0.5);
        assert_eq!(run.players.len(), 12);
        let bad = prepare(FieldSpec::Pool(Pool {
            players: all,
            sample: Some(1),
        }))
        .unwrap_err();
        assert!(bad.contains("field.pool.sample"), "{bad}");
    }

    /// Unrated rows (AGA members without a rating yet) are not players of known strength;
    /// more than a tournament's players kept is refused with the way out.
    #[test]
    fn unrated_rows_are_left_out_and_a_pool_has_a_cap() {
        let aga = "Aal, Zachary\t15648\tFull\t-20.05711\t7/2/2008\tLIGC\tNY\t1.09\t8/1/2007\r\n\
                   Aaron, William C.\t7206\tFull\t\t12/28/1994\t\tCA\t\t12/28/1994\r\n";
        let list = crate::ratings::parse(crate::ratings::Kind::Aga, aga.as_bytes()).unwrap();
        let pool = from_rating_list(&list, &ListFilter::default()).unwrap();
        assert_eq!(pool.len(), 1, "{pool:?}");
        assert_eq!(pool[0].name, "Aal");

        let mut big = String::new();
        for k in 0..=MAX_LISTED {
            big.push_str(&format!(
                "Player{k}, Sim\t{}\tFull\t-10.5\t1/1/2020\tCLUB\tNY\t1.0\t1/1/2019\r\n",
                100_000 + k
            ));
        }
        let list = crate::ratings::parse(crate::ratings::Kind::Aga, big.as_bytes()).unwrap();
        let e = from_rating_list(&list, &ListFilter::default()).unwrap_err();
        assert!(e.contains("narrow"), "{e}");
    }
}
