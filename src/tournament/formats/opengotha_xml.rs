//! OpenGotha's XML tournament file, both ways. [`read`] turns one into a [`TournamentData`]:
//! players, games with their results (the forfeit flag kept apart), byes, and every parameter
//! set OpenGotha stores (general, handicap, placement, pairing; the display, publishing and
//! team parameters it does not interpret are kept in `settings.extra`), teams and clubs
//! groups. Missing attributes
//! take OpenGotha's *importer* defaults, which are not always its defaults for a new
//! tournament. [`write`] produces the file OpenGotha 3.51 writes for the same tournament.

use std::collections::HashMap;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use crate::pairing::opengotha::Crit;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::tournament::model::{
    ClubsGroup, Criterion, Game, GameFormat, Mode3, Outcome, Overtime, Player, Rank, Registration,
    Round, Seeding, System, Team, TeamBoard, TournamentData, format_rank,
};

#[derive(Debug, thiserror::Error)]
#[error("OpenGotha XML: {0}")]
pub struct XmlError(pub String);

fn attrs(e: &BytesStart) -> Result<HashMap<String, String>, XmlError> {
    let mut m = HashMap::new();
    for a in e.attributes() {
        let a = a.map_err(|x| XmlError(x.to_string()))?;
        let k = a.key.as_ref().to_string();
        let v = a
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|x| XmlError(x.to_string()))?
            .into_owned();
        m.insert(k, v);
    }
    Ok(m)
}

fn get<'a>(m: &'a HashMap<String, String>, k: &str, d: &'a str) -> &'a str {
    m.get(k).map_or(d, |s| s.as_str())
}

fn int(m: &HashMap<String, String>, k: &str, d: i64) -> Result<i64, XmlError> {
    match m.get(k) {
        None => Ok(d),
        Some(s) => s
            .trim()
            .parse()
            .map_err(|_| XmlError(format!("attribute {k}={s:?} is not an integer"))),
    }
}

fn long(m: &HashMap<String, String>, k: &str, d: i64) -> Result<i64, XmlError> {
    int(m, k, d)
}

fn boolean(m: &HashMap<String, String>, k: &str, d: bool) -> bool {
    // Java's Boolean.parseBoolean: "true" in any case is true, anything else false.
    m.get(k).map_or(d, |s| s.eq_ignore_ascii_case("true"))
}

/// An integer attribute that must fit `T` (a count, a round or table number): a value out of
/// its range is refused, never wrapped.
fn num<T: TryFrom<i64>>(m: &HashMap<String, String>, k: &str, d: i64) -> Result<T, XmlError> {
    let v = int(m, k, d)?;
    T::try_from(v).map_err(|_| XmlError(format!("attribute {k}={v} is out of range")))
}

/// A rank attribute read as OpenGotha reads it ([`opengotha_rank`]); text it cannot read
/// at all is 30K (see [`opengotha_rank`]).
fn rank(m: &HashMap<String, String>, k: &str, d: &str) -> i32 {
    opengotha_rank(get(m, k, d)).unwrap_or(MIN_RANK_LIMIT)
}

/// The first code point of each run of ten decimal digits in the Basic Multilingual Plane:
/// Java's `Integer.parseInt` reads any of them (`Character.digit`), one UTF-16 unit each.
/// Generated from the Unicode Character Database (category Nd, value 0); checked against
/// Java 17 by the oracle's rank dump (tests/data/opengotha/golden/ranks.tsv).
const DIGIT_ZEROS: &[u32] = &[
    0x0030, 0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6,
    0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80,
    0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0,
    0xFF10,
];

fn java_digit(c: char) -> Option<i64> {
    let c = c as u32;
    DIGIT_ZEROS
        .iter()
        .find(|&&z| (z..z + 10).contains(&c))
        .map(|&z| i64::from(c - z))
}

/// Java's `Integer.parseInt`: an optional sign, then at least one digit, within `int`.
fn java_parse_int(s: &str) -> Option<i32> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i64 = 0;
    for c in digits.chars() {
        v = v * 10 + java_digit(c)?;
        if v > 1 << 31 {
            return None;
        }
    }
    i32::try_from(if neg { -v } else { v }).ok()
}

/// A rank as OpenGotha 3.51's `Player.convertKDPToInt` reads it: the text trimmed, its last
/// character the kind and the rest a Java integer — `k`/`K` kyu, `d`/`D` dan, `p`/`P` pro
/// (1–3p = 7D, 4–6p = 8D, more 9D), a digit makes the whole text a kyu number (`12` = 12K,
/// but a lone `5` has no number before its last character and is not read), any other
/// character a kyu too (`5x` = 5K; `-3d` = −3 − 1 = 4K) — and the result clamped to
/// 30K … 9D (`99K` = 30K, `12D` = 9D). `None` where OpenGotha gets its "no rank" −99, which
/// it writes back as `99K` and so reads as 30K on its next load.
pub fn opengotha_rank(s: &str) -> Option<Rank> {
    // Java's trim: every character up to U+0020 at both ends.
    let t = s.trim_matches(|c: char| c <= ' ');
    let last = t.chars().next_back()?;
    if last.len_utf16() > 1 {
        // Java's last char is then half a surrogate pair, and the other half spoils the number.
        return None;
    }
    let head = &t[..t.len() - last.len_utf8()];
    let n = java_parse_int(head)?;
    // Java's int arithmetic wraps: `-2147483648d` is 9D there.
    let rank = match last {
        '0'..='9' => java_parse_int(t)?.wrapping_neg(),
        'd' | 'D' => n.wrapping_sub(1),
        'p' | 'P' => match n {
            i32::MIN..=3 => 6,
            4..=6 => 7,
            _ => 8,
        },
        _ => n.wrapping_neg(),
    };
    Some(rank.clamp(MIN_RANK_LIMIT, crate::tournament::model::MAX_RANK))
}

/// OpenGotha's result name → outcome and forfeit flag.
pub fn parse_result(s: &str) -> Option<(Outcome, bool)> {
    let (base, forfeit) = match s.strip_suffix("_BYDEF") {
        Some(b) => (b, true),
        None => (s, false),
    };
    let o = match base {
        "RESULT_UNKNOWN" => Outcome::Unknown,
        "RESULT_WHITEWINS" => Outcome::WhiteWins,
        "RESULT_BLACKWINS" => Outcome::BlackWins,
        "RESULT_EQUAL" => Outcome::Jigo,
        "RESULT_BOTHWIN" => Outcome::BothWin,
        // pairgoth writes the misspelt form; accept it too.
        "RESULT_BOTHLOSE" | "RESULT_BOTHLOOSE" => Outcome::BothLose,
        _ => return None,
    };
    Some((o, forfeit))
}

/// OpenGotha's ratings range (`Player.MIN_RATING`, `MAX_RATING`).
const MIN_RATING: i32 = -900;
const MAX_RATING: i32 = 2949;

/// The data version OpenGotha's own files carry; older files store FFG-scale ratings.
const DATA_VERSION: i64 = 201;

/// Participation flags OpenGotha writes (`Gotha.MAX_NUMBER_OF_ROUNDS`).
const OPENGOTHA_ROUNDS: u32 = 20;

/// `settings.extra` keys: the parameter sets OpenGotha stores that goswiss does not interpret.
pub const EXTRA_GENERAL: &str = "GeneralParameterSet";
pub const EXTRA_PAIRING: &str = "PairingParameterSet";
pub const EXTRA_DP: &str = "DPParameterSet";
pub const EXTRA_PUBLISH: &str = "PublishParameterSet";
pub const EXTRA_TEAM_GENERAL: &str = "TeamGeneralParameterSet";
/// Placement criteria as numbered in the file (number → long name), so the empty slots
/// OpenGotha keeps between criteria are written back where they were.
pub const EXTRA_PLACEMENT: &str = "PlacementCriteria";
/// Team placement criteria: number → name.
pub const EXTRA_TEAM_PLACEMENT: &str = "TeamPlacementCriteria";

/// OpenGotha's long criterion names, the ones its XML carries (its importer knows no other).
fn crit_long_name(c: Crit) -> &'static str {
    crate::pairing::criteria::describe(c).opengotha
}

fn parse_crit(name: &str) -> Crit {
    crate::pairing::criteria::from_xml(name)
}

/// The system a file was made for, from its first placement criterion (OpenGotha stores no
/// system; its presets differ by that criterion).
fn infer_system(placement: &[Criterion]) -> System {
    match placement.first().map(|c| c.0) {
        Some(Crit::Nbw) => System::Swiss,
        Some(Crit::Cat) => System::Swisscat,
        Some(Crit::Cps) => System::Cup,
        _ => System::Mcmahon,
    }
}

fn dudd_mode(s: &str) -> Mode3 {
    match s {
        "TOP" => Mode3::Top,
        "BOT" => Mode3::Bot,
        _ => Mode3::Mid,
    }
}

fn seeding(s: &str, d: Seeding) -> Seeding {
    match s {
        "SPLITANDRANDOM" => Seeding::SplitAndRandom,
        "SPLITANDFOLD" => Seeding::SplitAndFold,
        "SPLITANDSLIP" => Seeding::SplitAndSlip,
        _ => d,
    }
}

/// Komi as written ("7.5", "-0.5", "6") → half points.
fn parse_komi2(s: &str) -> Option<i32> {
    let v: f64 = s.trim().parse().ok()?;
    let k2 = (v * 2.0).round();
    if !(-400.0..=400.0).contains(&k2) || (k2 - v * 2.0).abs() > 1e-9 {
        return None;
    }
    Some(k2 as i32)
}

fn format_komi2(k2: i32) -> String {
    let sign = if k2 < 0 { "-" } else { "" };
    let a = k2.unsigned_abs();
    if a.is_multiple_of(2) {
        format!("{sign}{}", a / 2)
    } else {
        format!("{sign}{}.5", a / 2)
    }
}

/// OpenGotha's display parameters when a file has none (a new `DPParameterSet`).
const DP_DEFAULTS: &[(&str, &str)] = &[
    ("displayClCol", "true"),
    ("displayCoCol", "true"),
    ("displayIndGamesInMatches", "true"),
    ("displayNPPlayers", "false"),
    ("displayNumCol", "true"),
    ("displayPlCol", "true"),
    ("gameFormat", "full"),
    ("playerSortType", "name"),
    ("showByePlayer", "true"),
    ("showNotFinallyRegisteredPlayers", "true"),
    ("showNotPairedPlayers", "true"),
    ("showNotParticipatingPlayers", "false"),
    ("showPlayerClub", "true"),
    ("showPlayerCountry", "false"),
    ("showPlayerGrade", "true"),
];

/// What OpenGotha's importer takes for an attribute missing from a `DPParameterSet` element
/// (not all the same as a new set's values above).
const DP_IMPORT_DEFAULTS: &[(&str, &str)] = &[
    ("displayClCol", "false"),
    ("displayCoCol", "true"),
    ("displayIndGamesInMatches", "true"),
    ("displayNPPlayers", "false"),
    ("displayNumCol", "true"),
    ("displayPlCol", "true"),
    ("gameFormat", "full"),
    ("playerSortType", "name"),
    ("showByePlayer", "true"),
    ("showNotFinallyRegisteredPlayers", "true"),
    ("showNotPairedPlayers", "true"),
    ("showNotParticipatingPlayers", "true"),
    ("showPlayerClub", "true"),
    ("showPlayerCountry", "false"),
    ("showPlayerGrade", "true"),
];

const PUBLISH_DEFAULTS: &[(&str, &str)] = &[
    ("exportToLocalFile", "true"),
    ("htmlAutoScroll", "false"),
    ("print", "true"),
];

/// Time-system values OpenGotha keeps for every complementary system, not only the active one.
const TIME_DEFAULTS: &[(&str, &str)] = &[
    ("canByoYomiTime", "300"),
    ("fischerTime", "10"),
    ("nbMovesCanTime", "15"),
    ("stdByoYomiTime", "30"),
];

/// Normalises a flag set the way OpenGotha's importer reads it: known attributes only, a
/// missing one at the importer default, booleans spelt "true"/"false".
fn flags(m: &HashMap<String, String>, defaults: &[(&str, &str)]) -> BTreeMap<String, String> {
    defaults
        .iter()
        .map(|(k, d)| {
            let v = match m.get(*k) {
                None => (*d).to_string(),
                Some(v) if *d == "true" || *d == "false" => {
                    (v.eq_ignore_ascii_case("true")).to_string()
                }
                Some(v) => v.clone(),
            };
            ((*k).to_string(), v)
        })
        .collect()
}

/// Reads an OpenGotha tournament file.
pub fn read(xml: &str) -> Result<TournamentData, XmlError> {
    let mut t = TournamentData::default();
    let mut r = Reader::from_str(xml);
    let mut keys: HashMap<String, u32> = HashMap::new();
    let mut games: Vec<(u32, HashMap<String, String>)> = Vec::new();
    let mut byes: Vec<(u32, String)> = Vec::new();
    let mut placement: Vec<(i64, Crit)> = Vec::new();
    let mut team_placement: BTreeMap<String, String> = BTreeMap::new();
    let mut categories: Vec<(i64, i32)> = Vec::new();
    let mut ncat = 1i64;
    let mut seen_root = false;
    let mut data_version = 200i64;
    // Placement criteria appear under both the individual and the team parameter sets.
    let mut in_team_placement = false;
    // Teams (number, name, seats as round, board, player key) and clubs groups (name,
    // clubs) as the file has them; resolved once the players are known.
    let mut teams: Vec<RawTeam> = Vec::new();
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    // goswiss's own element (our writes only): what OpenGotha's sets have no place for.
    let mut goswiss: Option<HashMap<String, String>> = None;
    let mut depth = 0i64;
    loop {
        let ev = r.read_event().map_err(|e| {
            XmlError(format!(
                "at byte {}: {e}",
                r.error_position().max(r.buffer_position())
            ))
        })?;
        let e = match &ev {
            Event::Start(e) => {
                depth += 1;
                e
            }
            Event::Empty(e) => e,
            Event::End(e) => {
                depth -= 1;
                if e.name().as_ref() == "TeamPlacementParameterSet" {
                    in_team_placement = false;
                }
                continue;
            }
            Event::Eof if depth > 0 => {
                return Err(XmlError("the file ends inside an element".into()));
            }
            Event::Eof => break,
            _ => continue,
        };
        let m = attrs(e)?;
        let name = e.name();
        let ctx = |x: XmlError| {
            XmlError(format!(
                "<{}> at byte {}: {}",
                name.as_ref(),
                r.buffer_position(),
                x.0
            ))
        };
        match name.as_ref() {
            "Tournament" => {
                seen_root = true;
                data_version = int(&m, "dataVersion", 200).map_err(ctx)?;
            }
            "Player" => {
                let id = t.players.len() as u32 + 1;
                let mut rating = int(&m, "rating", -900).map_err(ctx)?;
                if data_version < DATA_VERSION {
                    // Older files store FFG-scale ratings (OpenGotha's reader quirk, kept so
                    // a file reads as OpenGotha reads it).
                    rating += 2050;
                }
                let rating = rating.clamp(MIN_RATING as i64, MAX_RATING as i64) as i32;
                // OpenGotha's Player takes the grade's rank when the rank is not one.
                let p_rank = opengotha_rank(get(&m, "rank", "30K"))
                    .or_else(|| opengotha_rank(get(&m, "grade", "")))
                    .unwrap_or(MIN_RANK_LIMIT);
                let mut p = Player {
                    id,
                    name: get(&m, "name", "").to_string(),
                    first_name: get(&m, "firstName", "").to_string(),
                    rank: p_rank,
                    rating,
                    rating_origin: get(&m, "ratingOrigin", "").to_string(),
                    grade: get(&m, "grade", "").to_uppercase(),
                    country: get(&m, "country", "").to_string(),
                    club: get(&m, "club", "").to_string(),
                    egf_pin: get(&m, "egfPin", "").to_string(),
                    ffg_licence: get(&m, "ffgLicence", "").to_string(),
                    ffg_licence_status: get(&m, "ffgLicenceStatus", "").to_string(),
                    aga_id: get(&m, "agaId", "").to_string(),
                    aga_expiration: get(&m, "agaExpirationDate", "").to_string(),
                    mms_correction: num(&m, "smmsCorrection", 0).map_err(ctx)?,
                    registration: if get(&m, "registeringStatus", "FIN") == "PRE" {
                        Registration::Preliminary
                    } else {
                        Registration::Final
                    },
                    ..Player::default()
                };
                for (k, c) in get(&m, "participating", "").chars().enumerate() {
                    if c == '0' && (k as u32) < crate::tournament::model::MAX_ROUNDS {
                        p.skip.push(k as u32 + 1);
                    }
                }
                if p.grade.is_empty() {
                    // OpenGotha's Player takes the rank as the grade when none is given.
                    p.grade = format_rank(p.rank);
                }
                let key = p.opengotha_key();
                if keys.insert(key.clone(), id).is_some() {
                    return Err(ctx(XmlError(format!(
                        "two players have the key {key:?} (name + first name)"
                    ))));
                }
                t.players.push(p);
            }
            "Game" => games.push((num(&m, "roundNumber", 1).map_err(ctx)?, m)),
            "ByePlayer" => byes.push((
                num(&m, "roundNumber", 1).map_err(ctx)?,
                get(&m, "player", "").to_string(),
            )),
            "GeneralParameterSet" => {
                let s = &mut t.settings;
                s.name = get(&m, "name", "default Name").to_string();
                s.short_name = get(&m, "shortName", "defaultshortname").to_string();
                s.location = get(&m, "location", "Paris").to_string();
                s.director = get(&m, "director", "").to_string();
                // A missing date is "today" for OpenGotha; the writer supplies it then.
                s.begin_date = get(&m, "beginDate", "").to_string();
                s.end_date = get(&m, "endDate", "").to_string();
                s.rounds = num(&m, "numberOfRounds", 5).map_err(ctx)?;
                s.board_size = num(&m, "size", 19).map_err(ctx)?;
                let komi = get(&m, "komi", "7.5");
                s.komi2 = parse_komi2(komi)
                    .ok_or_else(|| ctx(XmlError(format!("komi={komi:?} is not a komi"))))?;
                s.internet = boolean(&m, "bInternet", false);
                // Files older than the complementary systems only say whether there is
                // (Canadian) byo-yomi.
                let old = if boolean(&m, "byoYomi", true) {
                    "CANBYOYOMI"
                } else {
                    "SUDDENDEATH"
                };
                let basic = int(&m, "time", 60).map_err(ctx)?;
                s.time.basic_minutes = num(&m, "basicTime", basic).map_err(ctx)?;
                let mut time = BTreeMap::new();
                for (k, d) in TIME_DEFAULTS {
                    let v: u32 = num(&m, k, d.parse().unwrap_or(0)).map_err(ctx)?;
                    time.insert((*k).to_string(), v.to_string());
                }
                let tv = |k: &str| time.get(k).and_then(|v| v.parse().ok()).unwrap_or(0);
                s.time.overtime = match get(&m, "complementaryTimeSystem", old) {
                    "SUDDENDEATH" => Overtime::SuddenDeath,
                    "STDBYOYOMI" => Overtime::Byoyomi {
                        seconds: tv("stdByoYomiTime"),
                        periods: 1,
                    },
                    "FISCHER" => Overtime::Fischer {
                        increment: tv("fischerTime"),
                    },
                    _ => Overtime::Canadian {
                        stones: tv("nbMovesCanTime"),
                        seconds: tv("canByoYomiTime"),
                    },
                };
                s.extra.insert(EXTRA_GENERAL.to_string(), time);
                s.mcmahon.bar = rank(&m, "genMMBar", "4D");
                s.mcmahon.floor = rank(&m, "genMMFloor", "20K");
                s.mcmahon.zero = rank(&m, "genMMZero", "30K");
                let sc = &mut s.scoring;
                sc.nbw2_absent = num(&m, "genNBW2ValueAbsent", 0).map_err(ctx)?;
                sc.nbw2_bye = num(&m, "genNBW2ValueBye", 0).map_err(ctx)?;
                sc.mms2_absent = num(&m, "genMMS2ValueAbsent", 0).map_err(ctx)?;
                sc.mms2_bye = num(&m, "genMMS2ValueBye", 0).map_err(ctx)?;
                sc.round_down = boolean(&m, "genRoundDownNBWMMS", true);
                sc.count_not_played_as_half =
                    boolean(&m, "genCountNotPlayedGamesAsHalfPoint", false);
                ncat = int(&m, "numberOfCategories", 1).map_err(ctx)?;
            }
            "Category" => categories.push((
                int(&m, "number", 1).map_err(ctx)?,
                rank(&m, "lowerLimit", "30K"),
            )),
            "HandicapParameterSet" => {
                let h = &mut t.settings.handicap;
                h.based_on_mms = boolean(&m, "hdBasedOnMMS", true);
                h.no_handicap_threshold = rank(&m, "hdNoHdRankThreshold", "1D");
                h.correction = num(&m, "hdCorrection", 1).map_err(ctx)?;
                h.ceiling = num(&m, "hdCeiling", 9).map_err(ctx)?;
            }
            "TeamPlacementParameterSet" => in_team_placement = true,
            "PlacementCriterion" if in_team_placement => {
                team_placement.insert(
                    int(&m, "number", 1).map_err(ctx)?.to_string(),
                    get(&m, "name", "NULL").to_string(),
                );
            }
            "PlacementCriterion" => {
                let c = parse_crit(get(&m, "name", "NULL"));
                placement.push((int(&m, "number", 1).map_err(ctx)?, c));
            }
            "PairingParameterSet" => {
                let p = &mut t.settings.pairing;
                let nx1 = get(&m, "paiStandardNX1Factor", "0.5");
                p.nx1 = nx1.trim().parse().map_err(|_| {
                    ctx(XmlError(format!(
                        "attribute paiStandardNX1Factor={nx1:?} is not a number"
                    )))
                })?;
                p.avoid_dupl_game =
                    long(&m, "paiBaAvoidDuplGame", 500_000_000_000_000).map_err(ctx)?;
                p.random = long(&m, "paiBaRandom", 0).map_err(ctx)?;
                p.deterministic_random = boolean(&m, "paiBaDeterministic", true);
                p.balance_wb = long(&m, "paiBaBalanceWB", 1000).map_err(ctx)?;
                p.avoid_mixing_categories =
                    long(&m, "paiMaAvoidMixingCategories", 20_000_000_000_000).map_err(ctx)?;
                p.minimize_score_difference =
                    long(&m, "paiMaMinimizeScoreDifference", 100_000_000_000).map_err(ctx)?;
                p.dudd_weight = long(&m, "paiMaDUDDWeight", 100_000_000).map_err(ctx)?;
                p.compensate_dudd = boolean(&m, "paiMaCompensateDUDD", true);
                p.dudd_upper = dudd_mode(get(&m, "paiMaDUDDUpperMode", "MID"));
                p.dudd_lower = dudd_mode(get(&m, "paiMaDUDDLowerMode", "MID"));
                p.maximize_seeding = long(&m, "paiMaMaximizeSeeding", 5_000_000).map_err(ctx)?;
                let last = int(&m, "paiMaLastRoundForSeedSystem1", 2).map_err(ctx)?;
                p.last_round_seed_system1 = last.clamp(0, 1000) as u32;
                p.seed_system1 = seeding(
                    get(&m, "paiMaSeedSystem1", "SPLITANDRANDOM"),
                    Seeding::SplitAndRandom,
                );
                // OpenGotha reads an unknown second seeding as split-and-random.
                p.seed_system2 = seeding(
                    get(&m, "paiMaSeedSystem2", "SPLITANDFOLD"),
                    Seeding::SplitAndRandom,
                );
                let c1 = get(&m, "paiMaAdditionalPlacementCritSystem1", "Rating");
                p.additional_crit1 = Criterion(match parse_crit(c1) {
                    Crit::Nul if c1 != "NULL" => Crit::Rating,
                    c => c,
                });
                let c2 = get(&m, "paiMaAdditionalPlacementCritSystem2", "NULL");
                p.additional_crit2 = Criterion(parse_crit(c2));
                p.se_rank_threshold = rank(&m, "paiSeRankThreshold", "4D");
                p.se_nbwins_threshold_active = boolean(&m, "paiSeNbWinsThresholdActive", true);
                p.se_bar_threshold_active = boolean(&m, "paiSeBarThresholdActive", true);
                p.minimize_handicap = long(&m, "paiSeMinimizeHandicap", 0).map_err(ctx)?;
                p.avoid_same_geo = long(&m, "paiSeAvoidSameGeo", 100_000_000_000).map_err(ctx)?;
                p.prefer_mms_diff_country =
                    num(&m, "paiSePreferMMSDiffRatherThanSameCountry", 1).map_err(ctx)?;
                p.prefer_mms_diff_club =
                    num(&m, "paiSePreferMMSDiffRatherThanSameClub", 3).map_err(ctx)?;
                let def_sec = long(&m, "paiSeDefSecCrit", 100_000_000_000).map_err(ctx)?;
                t.settings.extra.insert(
                    EXTRA_PAIRING.to_string(),
                    BTreeMap::from([("paiSeDefSecCrit".to_string(), def_sec.to_string())]),
                );
            }
            "DPParameterSet" => {
                let dp = flags(&m, DP_IMPORT_DEFAULTS);
                t.settings.game_format = Some(GameFormat::parse(
                    dp.get("gameFormat").map_or("full", |v| v.as_str()),
                ));
                t.settings.extra.insert(EXTRA_DP.to_string(), dp);
            }
            GOSWISS_SET => goswiss = Some(m),
            "PublishParameterSet" => {
                t.settings
                    .extra
                    .insert(EXTRA_PUBLISH.to_string(), flags(&m, PUBLISH_DEFAULTS));
            }
            "Team" => teams.push((
                int(&m, "teamNumber", 1).map_err(ctx)?,
                get(&m, "teamName", "Unnamed team").to_string(),
                Vec::new(),
            )),
            "Board" => {
                let seat = (
                    int(&m, "roundNumber", 0).map_err(ctx)?,
                    int(&m, "boardNumber", 1).map_err(ctx)?,
                    get(&m, "player", "unnamed player").to_string(),
                );
                if let Some(t) = teams.last_mut() {
                    t.2.push(seat);
                }
            }
            "ClubsGroup" => groups.push((
                get(&m, "name", "Unnamed Clubs Group").to_string(),
                Vec::new(),
            )),
            "Club" => {
                if let Some(g) = groups.last_mut() {
                    g.1.push(get(&m, "name", "Unnamed club").to_string());
                }
            }
            "TeamGeneralParameterSet" => {
                let size = int(&m, "teamSize", 4).map_err(ctx)?;
                t.settings.extra.insert(
                    EXTRA_TEAM_GENERAL.to_string(),
                    BTreeMap::from([("teamSize".to_string(), size.to_string())]),
                );
            }
            _ => {}
        }
    }
    if !seen_root {
        return Err(XmlError("no <Tournament> element".into()));
    }
    // Sets the file lacks take the values OpenGotha gives a new tournament, so a file reads
    // the same whether or not they were written out.
    let team_placement: BTreeMap<String, String> = (1..=6)
        .map(|n| {
            let k = n.to_string();
            let v = team_placement
                .get(&k)
                .cloned()
                .unwrap_or_else(|| "NULL".into());
            (k, v)
        })
        .collect();
    let extra = &mut t.settings.extra;
    extra.insert(EXTRA_TEAM_PLACEMENT.to_string(), team_placement);
    if t.settings.game_format.is_none() {
        // No display set: OpenGotha's default, full.
        t.settings.game_format = Some(GameFormat::Full);
    }
    for (set, defaults) in [
        (EXTRA_DP, DP_DEFAULTS),
        (EXTRA_PUBLISH, PUBLISH_DEFAULTS),
        (EXTRA_TEAM_GENERAL, &[("teamSize", "4")][..]),
        (EXTRA_GENERAL, TIME_DEFAULTS),
        (EXTRA_PAIRING, &[("paiSeDefSecCrit", "100000000000")][..]),
    ] {
        extra.entry(set.to_string()).or_insert_with(|| {
            defaults
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        });
    }
    if !(1..=crate::tournament::model::MAX_ROUNDS as i64 + 1).contains(&ncat) {
        return Err(XmlError(format!(
            "numberOfCategories={ncat} is out of range"
        )));
    }
    if ncat > 1 {
        // OpenGotha sizes the limits by numberOfCategories and places each by its number.
        let mut limits = vec![MIN_RANK_LIMIT; (ncat - 1) as usize];
        for (n, l) in categories {
            if n < 1 || n > ncat - 1 {
                return Err(XmlError(format!("Category number={n} is out of range")));
            }
            limits[n as usize - 1] = l;
        }
        t.settings.categories = limits;
    } else {
        t.settings.categories = Vec::new();
    }
    placement.sort_by_key(|(n, _)| *n);
    let layout: BTreeMap<String, String> = placement
        .iter()
        .map(|(n, c)| (n.to_string(), crit_long_name(*c).to_string()))
        .collect();
    t.settings.extra.insert(EXTRA_PLACEMENT.to_string(), layout);
    t.settings.placement = placement
        .into_iter()
        .filter(|(_, c)| *c != Crit::Nul)
        .map(|(_, c)| Criterion(c))
        .collect();
    t.settings.system = infer_system(&t.settings.placement);
    let lookup = |k: &str, what: &str| -> Result<u32, XmlError> {
        keys.get(k)
            .copied()
            .ok_or_else(|| XmlError(format!("{what}: unknown player key {k:?}")))
    };
    let max_round = games
        .iter()
        .map(|(r, _)| *r)
        .chain(byes.iter().map(|(r, _)| *r))
        .max()
        .unwrap_or(0);
    if max_round > crate::tournament::model::MAX_ROUNDS {
        return Err(XmlError(format!("round {max_round} is out of range")));
    }
    t.rounds = vec![Round::default(); max_round as usize];
    for (rn, m) in games {
        if rn == 0 {
            return Err(XmlError("<Game> with round number 0".into()));
        }
        let table: u32 = num(&m, "tableNumber", 0)?;
        let what = format!("<Game> round {rn} table {table}");
        let res = get(&m, "result", "RESULT_UNKNOWN");
        let (outcome, forfeit) =
            parse_result(res).ok_or_else(|| XmlError(format!("{what}: unknown result {res:?}")))?;
        let g = Game {
            table,
            white: lookup(get(&m, "whitePlayer", ""), &what)?,
            black: lookup(get(&m, "blackPlayer", ""), &what)?,
            handicap: int(&m, "handicap", 0)?.clamp(0, 1000) as u32,
            komi2: t.settings.komi2,
            outcome,
            forfeit,
            // OpenGotha 3.51's importer looks for "strKnownColor", never written, so every
            // game it reads has known colours; read as it does, so colour balance and
            // standings agree with it.
            known_colour: get(&m, "strKnownColor", "true") != "false",
            ..Game::default()
        };
        t.rounds[rn as usize - 1].games.push(g);
    }
    for round in &mut t.rounds {
        round.games.sort_by_key(|g| g.table);
    }
    for (rn, k) in byes {
        if rn == 0 {
            return Err(XmlError("<ByePlayer> with round number 0".into()));
        }
        let id = lookup(&k, &format!("<ByePlayer> round {rn}"))?;
        t.rounds[rn as usize - 1].byes.push(id);
    }
    t.settings.clubs_groups = clubs_groups(groups);
    t.settings.teams = read_teams(teams, &keys)?;
    if let Some(m) = goswiss {
        read_goswiss(&m, &mut t).map_err(|e| XmlError(format!("<{GOSWISS_SET}>: {}", e.0)))?;
    }
    Ok(t)
}

/// goswiss's element in its own XML files, beside OpenGotha's parameter sets (OpenGotha's
/// reader looks its elements up by name and passes over this one): the byo-yomi periods, the
/// time text, the rules, the komi of handicap games, the venue's country and the published
/// rounds, none of which OpenGotha's sets can hold.
const GOSWISS_SET: &str = "GoswissParameterSet";

fn read_goswiss(m: &HashMap<String, String>, t: &mut TournamentData) -> Result<(), XmlError> {
    let s = &mut t.settings;
    if let Overtime::Byoyomi { periods, .. } = &mut s.time.overtime {
        *periods = num(m, "stdByoYomiPeriods", 1)?;
    }
    s.time.text = get(m, "timeText", "").to_string();
    s.rules = get(m, "rules", &s.rules).to_string();
    s.country = get(m, "country", "").to_string();
    if let Some(k) = m.get("handicapKomi") {
        s.handicap_komi2 =
            parse_komi2(k).ok_or_else(|| XmlError(format!("handicapKomi={k:?} is not a komi")))?;
    }
    for r in get(m, "publishedRounds", "").split_whitespace() {
        let n: u32 = r
            .parse()
            .map_err(|_| XmlError(format!("publishedRounds: {r:?} is not a round number")))?;
        // A round the file has no games or byes for was never paired: nothing to publish.
        if let Some(round) = n.checked_sub(1).and_then(|i| t.rounds.get_mut(i as usize)) {
            round.published = true;
        }
    }
    Ok(())
}

/// The goswiss element's attributes, or `None` when everything in it is what a file without
/// it reads as (an OpenGotha tournament's file stays exactly OpenGotha's).
fn goswiss_attrs(t: &TournamentData) -> Option<Vec<(&'static str, String)>> {
    let s = &t.settings;
    let base = TournamentData::default().settings;
    let periods = match s.time.overtime {
        Overtime::Byoyomi { periods, .. } => periods,
        _ => 1,
    };
    let published: Vec<String> = t
        .rounds
        .iter()
        .enumerate()
        .filter(|(_, r)| r.published)
        .map(|(i, _)| (i + 1).to_string())
        .collect();
    let plain = periods == 1
        && s.time.text.is_empty()
        && s.rules == base.rules
        && s.handicap_komi2 == base.handicap_komi2
        && s.country.is_empty()
        && published.is_empty();
    (!plain).then(|| {
        vec![
            ("country", s.country.clone()),
            ("handicapKomi", format_komi2(s.handicap_komi2)),
            ("publishedRounds", published.join(" ")),
            ("rules", s.rules.clone()),
            ("stdByoYomiPeriods", periods.to_string()),
            ("timeText", s.time.text.clone()),
        ]
    })
}

/// A `<Team>` as the file has it: teamNumber, teamName, and its `<Board>`s as roundNumber,
/// boardNumber and player key.
type RawTeam = (i64, String, Vec<(i64, i64, String)>);

/// OpenGotha's rounds: a team seat without a round number (files before 3.28.04) holds for
/// every one of them.
const OPENGOTHA_TEAM_ROUNDS: u32 = 20;

/// Clubs groups as OpenGotha's importer keeps them: a second group of the same name is
/// dropped, a club named twice in a group is one club.
fn clubs_groups(groups: Vec<(String, Vec<String>)>) -> Vec<ClubsGroup> {
    let mut out: Vec<ClubsGroup> = Vec::new();
    for (name, clubs) in groups {
        if out.iter().any(|g| g.name == name) {
            continue;
        }
        let mut kept: Vec<String> = Vec::new();
        for c in clubs {
            if !kept.contains(&c) {
                kept.push(c);
            }
        }
        out.push(ClubsGroup { name, clubs: kept });
    }
    out
}

/// Teams as OpenGotha's importer adds them: a name already taken gets `_2`, `_3`, …; a
/// number below 2 or taken gets the smallest free one (its `addTeam`); a seat whose player
/// is unknown is skipped, a later seat on the same board of the same round replaces the
/// earlier, and a seat without a round number (or one below 1) holds for all of OpenGotha's
/// 20 rounds.
fn read_teams(raw: Vec<RawTeam>, keys: &HashMap<String, u32>) -> Result<Vec<Team>, XmlError> {
    let mut out: Vec<Team> = Vec::new();
    for (number, name, seats) in raw {
        let taken = |n: &str, out: &[Team]| out.iter().any(|t| t.name == n);
        let mut name2 = name.clone();
        let mut k = 2;
        while taken(&name2, &out) {
            name2 = format!("{name}_{k}");
            k += 1;
        }
        let used = |n: u32, out: &[Team]| out.iter().any(|t| t.number == n);
        let mut number = u32::try_from(number).unwrap_or(0);
        if number < 2 || used(number, &out) {
            number = (1..).find(|&n| !used(n, &out)).unwrap_or(1);
        }
        let mut boards: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        for (round, board, key) in seats {
            let what = || format!("<Team> {name:?} <Board> round {round} board {board}");
            if !(1..=i64::from(crate::tournament::engine::MAX_TEAM_BOARDS)).contains(&board) {
                return Err(XmlError(format!(
                    "{}: boardNumber must be 1 … {}",
                    what(),
                    crate::tournament::engine::MAX_TEAM_BOARDS
                )));
            }
            if round > i64::from(crate::tournament::model::MAX_ROUNDS) {
                return Err(XmlError(format!("{}: roundNumber is out of range", what())));
            }
            let Some(&player) = keys.get(&key) else {
                continue;
            };
            // OpenGotha reads any round number below 1 as "no round number".
            let rounds = if round < 1 {
                1..=OPENGOTHA_TEAM_ROUNDS
            } else {
                round as u32..=round as u32
            };
            for r in rounds {
                boards.insert((r, board as u32), player);
            }
        }
        out.push(Team {
            number,
            name: name2,
            boards: boards
                .into_iter()
                .map(|((round, board), player)| TeamBoard {
                    round,
                    board,
                    player,
                })
                .collect(),
        });
    }
    Ok(out)
}

const MIN_RANK_LIMIT: Rank = crate::tournament::model::MIN_RANK;

/// What [`write`] cannot take from the tournament: the moment of the save.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// OpenGotha's saveDT, `yyyyMMddHHmmss`; its first eight digits date a tournament whose
    /// begin or end date is not set (OpenGotha's "today").
    pub save_dt: String,
}

/// Writes one element with its attributes in the order OpenGotha's XML transformer uses
/// (alphabetical).
fn element(out: &mut String, depth: usize, name: &str, attrs: &[(&str, String)], close: bool) {
    let mut a: Vec<&(&str, String)> = attrs.iter().collect();
    a.sort_by(|x, y| x.0.cmp(y.0));
    for _ in 0..depth {
        out.push_str("    ");
    }
    out.push('<');
    out.push_str(name);
    for (k, v) in a {
        let _ = write!(out, " {k}=\"{}\"", escape_attr(v));
    }
    out.push_str(if close { "/>\n" } else { ">\n" });
}

fn end(out: &mut String, depth: usize, name: &str) {
    for _ in 0..depth {
        out.push_str("    ");
    }
    let _ = writeln!(out, "</{name}>");
}

fn escape_attr(v: &str) -> String {
    let mut s = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            // Attribute normalisation would turn these into spaces on reading.
            '\n' => s.push_str("&#10;"),
            '\r' => s.push_str("&#13;"),
            '\t' => s.push_str("&#9;"),
            c => s.push(c),
        }
    }
    s
}

fn result_name(outcome: Outcome, forfeit: bool) -> String {
    let base = match outcome {
        Outcome::Unknown => return "RESULT_UNKNOWN".into(),
        Outcome::WhiteWins => "RESULT_WHITEWINS",
        Outcome::BlackWins => "RESULT_BLACKWINS",
        Outcome::Jigo => "RESULT_EQUAL",
        Outcome::BothWin => "RESULT_BOTHWIN",
        Outcome::BothLose => "RESULT_BOTHLOSE",
    };
    if forfeit {
        format!("{base}_BYDEF")
    } else {
        base.to_string()
    }
}

fn mode_name(m: Mode3) -> &'static str {
    match m {
        Mode3::Top => "TOP",
        Mode3::Mid => "MID",
        Mode3::Bot => "BOT",
    }
}

fn seeding_name(s: Seeding) -> &'static str {
    match s {
        Seeding::SplitAndRandom => "SPLITANDRANDOM",
        Seeding::SplitAndFold => "SPLITANDFOLD",
        Seeding::SplitAndSlip => "SPLITANDSLIP",
    }
}

/// Java's `Double.toString` for the values a factor takes ("0.5", "1.0").
fn java_double(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e7 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    }
}

fn extra_or(
    t: &TournamentData,
    set: &str,
    defaults: &[(&'static str, &str)],
) -> Vec<(&'static str, String)> {
    let kept = t.settings.extra.get(set);
    defaults
        .iter()
        .map(|&(k, d)| {
            let v = kept
                .and_then(|m| m.get(k))
                .cloned()
                .unwrap_or_else(|| d.to_string());
            (k, v)
        })
        .collect()
}

/// Writes the tournament as OpenGotha 3.51 saves it: the same elements and attributes, with
/// `dataVersion="201"` added so OpenGotha reads the ratings as they are (3.51 omits it and
/// then takes its own files for old FFG-scale ones). What OpenGotha's sets cannot hold and a
/// re-import needs (byo-yomi periods, the time text, rules, handicap komi, the venue's
/// country, the published rounds) goes into goswiss's own `<GoswissParameterSet>`, written
/// only when one of them differs from what a file without it reads as; game records and komi
/// per game are left out; a withdrawal is written as non-participation in the later rounds.
pub fn write(t: &TournamentData, opts: &WriteOptions) -> String {
    let s = &t.settings;
    let mut o = String::with_capacity(4096 + 400 * t.players.len());
    o.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
    element(
        &mut o,
        0,
        "Tournament",
        &[
            ("dataVersion", DATA_VERSION.to_string()),
            ("externalIPAddress", String::new()),
            (
                "fullVersionNumber",
                format!("goswiss {}", env!("CARGO_PKG_VERSION")),
            ),
            ("runningMode", "SAL".into()),
            ("saveDT", opts.save_dt.clone()),
        ],
        false,
    );
    let key = |id: u32| t.player(id).map(|p| p.opengotha_key()).unwrap_or_default();
    element(&mut o, 1, "Players", &[], false);
    let nflags = OPENGOTHA_ROUNDS.max(s.rounds);
    for p in &t.players {
        let part: String = (1..=nflags)
            .map(|r| if p.participates(r) { '1' } else { '0' })
            .collect();
        element(
            &mut o,
            2,
            "Player",
            &[
                ("agaExpirationDate", p.aga_expiration.clone()),
                ("agaId", p.aga_id.clone()),
                ("club", p.club.clone()),
                ("country", p.country.clone()),
                ("egfPin", p.egf_pin.clone()),
                ("ffgLicence", p.ffg_licence.clone()),
                ("ffgLicenceStatus", p.ffg_licence_status.clone()),
                ("firstName", p.first_name.clone()),
                ("grade", p.grade.clone()),
                ("name", p.name.clone()),
                ("participating", part),
                ("rank", format_rank(p.rank)),
                ("rating", p.rating.to_string()),
                ("ratingOrigin", p.rating_origin.clone()),
                (
                    "registeringStatus",
                    match p.registration {
                        Registration::Preliminary => "PRE",
                        Registration::Final => "FIN",
                    }
                    .into(),
                ),
                ("smmsCorrection", p.mms_correction.to_string()),
            ],
            true,
        );
    }
    end(&mut o, 1, "Players");
    element(&mut o, 1, "Games", &[], false);
    for (i, r) in t.rounds.iter().enumerate() {
        for g in &r.games {
            element(
                &mut o,
                2,
                "Game",
                &[
                    ("blackPlayer", key(g.black)),
                    ("handicap", g.handicap.to_string()),
                    ("knownColor", g.known_colour.to_string()),
                    ("result", result_name(g.outcome, g.forfeit)),
                    ("roundNumber", (i + 1).to_string()),
                    ("tableNumber", g.table.to_string()),
                    ("whitePlayer", key(g.white)),
                ],
                true,
            );
        }
    }
    end(&mut o, 1, "Games");
    if t.rounds.iter().any(|r| !r.byes.is_empty()) {
        element(&mut o, 1, "ByePlayers", &[], false);
        for (i, r) in t.rounds.iter().enumerate() {
            for b in &r.byes {
                element(
                    &mut o,
                    2,
                    "ByePlayer",
                    &[("player", key(*b)), ("roundNumber", (i + 1).to_string())],
                    true,
                );
            }
        }
        end(&mut o, 1, "ByePlayers");
    }
    if !s.teams.is_empty() {
        element(&mut o, 1, "Teams", &[], false);
        for team in &s.teams {
            // A seat of a player no longer registered has no key to write.
            let seats: Vec<&TeamBoard> = team
                .boards
                .iter()
                .filter(|b| t.player(b.player).is_some())
                .collect();
            let attrs = [
                ("teamName", team.name.clone()),
                ("teamNumber", team.number.to_string()),
            ];
            element(&mut o, 2, "Team", &attrs, seats.is_empty());
            if !seats.is_empty() {
                for b in seats {
                    element(
                        &mut o,
                        3,
                        "Board",
                        &[
                            ("boardNumber", b.board.to_string()),
                            ("player", key(b.player)),
                            ("roundNumber", b.round.to_string()),
                        ],
                        true,
                    );
                }
                end(&mut o, 2, "Team");
            }
        }
        end(&mut o, 1, "Teams");
    }
    element(&mut o, 1, "TournamentParameterSet", &[], false);
    let today = {
        let d = opts.save_dt.get(..8).unwrap_or("20000101");
        format!("{}-{}-{}", &d[..4], &d[4..6], &d[6..8])
    };
    let date = |d: &str| {
        if d.is_empty() {
            today.clone()
        } else {
            d.to_string()
        }
    };
    let mut time = extra_or(t, EXTRA_GENERAL, TIME_DEFAULTS);
    let mut set_time = |k: &str, v: u32| {
        if let Some(slot) = time.iter_mut().find(|(n, _)| *n == k) {
            slot.1 = v.to_string();
        }
    };
    let cts = match s.time.overtime {
        Overtime::SuddenDeath => "SUDDENDEATH",
        Overtime::Byoyomi { seconds, .. } => {
            set_time("stdByoYomiTime", seconds);
            "STDBYOYOMI"
        }
        Overtime::Canadian { stones, seconds } => {
            set_time("nbMovesCanTime", stones);
            set_time("canByoYomiTime", seconds);
            "CANBYOYOMI"
        }
        Overtime::Fischer { increment } => {
            set_time("fischerTime", increment);
            "FISCHER"
        }
    };
    let ncat = s.categories.len() + 1;
    let mut general = vec![
        ("bInternet", s.internet.to_string()),
        ("basicTime", s.time.basic_minutes.to_string()),
        ("beginDate", date(&s.begin_date)),
        ("complementaryTimeSystem", cts.to_string()),
        ("director", s.director.clone()),
        ("endDate", date(&s.end_date)),
        (
            "genCountNotPlayedGamesAsHalfPoint",
            s.scoring.count_not_played_as_half.to_string(),
        ),
        ("genMMBar", format_rank(s.mcmahon.bar)),
        ("genMMFloor", format_rank(s.mcmahon.floor)),
        ("genMMS2ValueAbsent", s.scoring.mms2_absent.to_string()),
        ("genMMS2ValueBye", s.scoring.mms2_bye.to_string()),
        ("genMMZero", format_rank(s.mcmahon.zero)),
        ("genNBW2ValueAbsent", s.scoring.nbw2_absent.to_string()),
        ("genNBW2ValueBye", s.scoring.nbw2_bye.to_string()),
        ("genRoundDownNBWMMS", s.scoring.round_down.to_string()),
        ("komi", format_komi2(s.komi2)),
        ("location", s.location.clone()),
        ("name", s.name.clone()),
        ("numberOfCategories", ncat.to_string()),
        ("numberOfRounds", s.rounds.to_string()),
        ("shortName", s.short_name.clone()),
        ("size", s.board_size.to_string()),
    ];
    general.extend(time);
    if ncat > 1 {
        element(&mut o, 2, "GeneralParameterSet", &general, false);
        element(&mut o, 3, "Categories", &[], false);
        for (i, l) in s.categories.iter().enumerate() {
            element(
                &mut o,
                4,
                "Category",
                &[
                    ("lowerLimit", format_rank(*l)),
                    ("number", (i + 1).to_string()),
                ],
                true,
            );
        }
        end(&mut o, 3, "Categories");
        end(&mut o, 2, "GeneralParameterSet");
    } else {
        element(&mut o, 2, "GeneralParameterSet", &general, true);
    }
    let h = &s.handicap;
    element(
        &mut o,
        2,
        "HandicapParameterSet",
        &[
            ("hdBasedOnMMS", h.based_on_mms.to_string()),
            ("hdCeiling", h.ceiling.to_string()),
            ("hdCorrection", h.correction.to_string()),
            ("hdNoHdRankThreshold", format_rank(h.no_handicap_threshold)),
        ],
        true,
    );
    element(&mut o, 2, "PlacementParameterSet", &[], false);
    element(&mut o, 3, "PlacementCriteria", &[], false);
    // The file's own layout when it still lists the same criteria in the same order.
    let mut slots: Vec<(String, String)> = Vec::new();
    if let Some(layout) = s.extra.get(EXTRA_PLACEMENT) {
        let named: Vec<&str> = layout
            .values()
            .map(|v| v.as_str())
            .filter(|v| *v != "NULL")
            .collect();
        let ours: Vec<&str> = s.placement.iter().map(|c| crit_long_name(c.0)).collect();
        if named == ours {
            slots = layout.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            slots.sort_by_key(|(k, _)| k.parse::<u32>().unwrap_or(u32::MAX));
        }
    }
    if slots.is_empty() {
        slots = s
            .placement
            .iter()
            .enumerate()
            .map(|(i, c)| ((i + 1).to_string(), crit_long_name(c.0).to_string()))
            .collect();
    }
    for n in slots.len() + 1..=6 {
        slots.push((n.to_string(), "NULL".into()));
    }
    for (number, name) in slots {
        element(
            &mut o,
            4,
            "PlacementCriterion",
            &[("name", name), ("number", number)],
            true,
        );
    }
    end(&mut o, 3, "PlacementCriteria");
    end(&mut o, 2, "PlacementParameterSet");
    let p = &s.pairing;
    let def_sec = extra_or(t, EXTRA_PAIRING, &[("paiSeDefSecCrit", "100000000000")]);
    let mut pairing = vec![
        ("paiBaAvoidDuplGame", p.avoid_dupl_game.to_string()),
        ("paiBaBalanceWB", p.balance_wb.to_string()),
        ("paiBaDeterministic", p.deterministic_random.to_string()),
        ("paiBaRandom", p.random.to_string()),
        (
            "paiMaAdditionalPlacementCritSystem1",
            crit_long_name(p.additional_crit1.0).into(),
        ),
        (
            "paiMaAdditionalPlacementCritSystem2",
            crit_long_name(p.additional_crit2.0).into(),
        ),
        (
            "paiMaAvoidMixingCategories",
            p.avoid_mixing_categories.to_string(),
        ),
        ("paiMaCompensateDUDD", p.compensate_dudd.to_string()),
        ("paiMaDUDDLowerMode", mode_name(p.dudd_lower).into()),
        ("paiMaDUDDUpperMode", mode_name(p.dudd_upper).into()),
        ("paiMaDUDDWeight", p.dudd_weight.to_string()),
        (
            "paiMaLastRoundForSeedSystem1",
            p.last_round_seed_system1.to_string(),
        ),
        ("paiMaMaximizeSeeding", p.maximize_seeding.to_string()),
        (
            "paiMaMinimizeScoreDifference",
            p.minimize_score_difference.to_string(),
        ),
        ("paiMaSeedSystem1", seeding_name(p.seed_system1).into()),
        ("paiMaSeedSystem2", seeding_name(p.seed_system2).into()),
        ("paiSeAvoidSameGeo", p.avoid_same_geo.to_string()),
        (
            "paiSeBarThresholdActive",
            p.se_bar_threshold_active.to_string(),
        ),
        ("paiSeMinimizeHandicap", p.minimize_handicap.to_string()),
        (
            "paiSeNbWinsThresholdActive",
            p.se_nbwins_threshold_active.to_string(),
        ),
        (
            "paiSePreferMMSDiffRatherThanSameClub",
            p.prefer_mms_diff_club.to_string(),
        ),
        (
            "paiSePreferMMSDiffRatherThanSameCountry",
            p.prefer_mms_diff_country.to_string(),
        ),
        ("paiSeRankThreshold", format_rank(p.se_rank_threshold)),
        ("paiStandardNX1Factor", java_double(p.nx1)),
    ];
    pairing.extend(def_sec);
    element(&mut o, 2, "PairingParameterSet", &pairing, true);
    let mut dp = extra_or(t, EXTRA_DP, DP_DEFAULTS);
    if let Some(slot) = dp.iter_mut().find(|(k, _)| *k == "gameFormat") {
        slot.1 = s.effective_game_format().name().to_string();
    }
    element(&mut o, 2, "DPParameterSet", &dp, true);
    element(
        &mut o,
        2,
        "PublishParameterSet",
        &extra_or(t, EXTRA_PUBLISH, PUBLISH_DEFAULTS),
        true,
    );
    if let Some(attrs) = goswiss_attrs(t) {
        element(&mut o, 2, GOSWISS_SET, &attrs, true);
    }
    end(&mut o, 1, "TournamentParameterSet");
    element(&mut o, 1, "TeamTournamentParameterSet", &[], false);
    element(
        &mut o,
        2,
        "TeamGeneralParameterSet",
        &extra_or(t, EXTRA_TEAM_GENERAL, &[("teamSize", "4")]),
        true,
    );
    element(&mut o, 2, "TeamPlacementParameterSet", &[], false);
    element(&mut o, 3, "PlacementCriteria", &[], false);
    let team = t.settings.extra.get(EXTRA_TEAM_PLACEMENT);
    for n in 1..=6 {
        let name = team
            .and_then(|m| m.get(&n.to_string()))
            .cloned()
            .unwrap_or_else(|| "NULL".into());
        element(
            &mut o,
            4,
            "PlacementCriterion",
            &[("name", name), ("number", n.to_string())],
            true,
        );
    }
    end(&mut o, 3, "PlacementCriteria");
    end(&mut o, 2, "TeamPlacementParameterSet");
    end(&mut o, 1, "TeamTournamentParameterSet");
    if !s.clubs_groups.is_empty() {
        element(&mut o, 1, "ClubsGroups", &[], false);
        for g in &s.clubs_groups {
            let attrs = [("name", g.name.clone())];
            element(&mut o, 2, "ClubsGroup", &attrs, g.clubs.is_empty());
            if !g.clubs.is_empty() {
                for c in &g.clubs {
                    element(&mut o, 3, "Club", &[("name", c.clone())], true);
                }
                end(&mut o, 2, "ClubsGroup");
            }
        }
        end(&mut o, 1, "ClubsGroups");
    }
    end(&mut o, 0, "Tournament");
    o
}
