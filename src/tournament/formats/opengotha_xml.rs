//! Reading OpenGotha's XML tournament file into a [`TournamentData`]: players, games with
//! their results (the forfeit flag kept apart), byes, and the general, handicap and placement
//! parameters. Missing attributes take OpenGotha's importer defaults.

use std::collections::HashMap;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use crate::pairing::opengotha::Crit;
use crate::tournament::model::{
    Criterion, Game, Outcome, Player, Registration, Round, TournamentData, parse_rank,
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

fn rank(m: &HashMap<String, String>, k: &str, d: &str) -> Result<i32, XmlError> {
    let s = get(m, k, d);
    parse_rank(s).ok_or_else(|| XmlError(format!("attribute {k}={s:?} is not a rank")))
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

/// Reads an OpenGotha tournament file.
pub fn read(xml: &str) -> Result<TournamentData, XmlError> {
    let mut t = TournamentData::default();
    let mut r = Reader::from_str(xml);
    let mut keys: HashMap<String, u32> = HashMap::new();
    let mut games: Vec<(u32, HashMap<String, String>)> = Vec::new();
    let mut byes: Vec<(u32, String)> = Vec::new();
    let mut placement: Vec<(i64, Crit)> = Vec::new();
    let mut categories: Vec<i32> = Vec::new();
    let mut ncat = 1i64;
    let mut seen_root = false;
    loop {
        let ev = r.read_event().map_err(|e| XmlError(e.to_string()))?;
        let e = match &ev {
            Event::Start(e) | Event::Empty(e) => e,
            Event::Eof => break,
            _ => continue,
        };
        let m = attrs(e)?;
        match e.name().as_ref() {
            "Tournament" => seen_root = true,
            "Player" => {
                let id = t.players.len() as u32 + 1;
                let mut p = Player {
                    id,
                    name: get(&m, "name", "").to_string(),
                    first_name: get(&m, "firstName", "").to_string(),
                    rank: rank(&m, "rank", "30K")?,
                    rating: int(&m, "rating", -900)? as i32,
                    rating_origin: get(&m, "ratingOrigin", "").to_string(),
                    grade: get(&m, "grade", "").to_string(),
                    country: get(&m, "country", "").to_string(),
                    club: get(&m, "club", "").to_string(),
                    egf_pin: get(&m, "egfPin", "").to_string(),
                    ffg_licence: get(&m, "ffgLicence", "").to_string(),
                    ffg_licence_status: get(&m, "ffgLicenceStatus", "").to_string(),
                    aga_id: get(&m, "agaId", "").to_string(),
                    aga_expiration: get(&m, "agaExpirationDate", "").to_string(),
                    mms_correction: int(&m, "smmsCorrection", 0)? as i32,
                    registration: if get(&m, "registeringStatus", "FIN") == "PRE" {
                        Registration::Preliminary
                    } else {
                        Registration::Final
                    },
                    ..Player::default()
                };
                for (k, c) in get(&m, "participating", "").chars().enumerate() {
                    if c == '0' {
                        p.skip.push(k as u32 + 1);
                    }
                }
                keys.insert(p.opengotha_key(), id);
                t.players.push(p);
            }
            "Game" => games.push((int(&m, "roundNumber", 1)? as u32, m)),
            "ByePlayer" => byes.push((
                int(&m, "roundNumber", 1)? as u32,
                get(&m, "player", "").to_string(),
            )),
            "GeneralParameterSet" => {
                let s = &mut t.settings;
                s.name = get(&m, "name", "").to_string();
                s.short_name = get(&m, "shortName", "").to_string();
                s.location = get(&m, "location", "").to_string();
                s.director = get(&m, "director", "").to_string();
                s.begin_date = get(&m, "beginDate", "").to_string();
                s.end_date = get(&m, "endDate", "").to_string();
                s.rounds = int(&m, "numberOfRounds", 5)? as u32;
                s.board_size = int(&m, "size", 19)? as u32;
                s.internet = get(&m, "bInternet", "false") == "true";
                s.mcmahon.bar = rank(&m, "genMMBar", "8D")?;
                s.mcmahon.floor = rank(&m, "genMMFloor", "30K")?;
                s.mcmahon.zero = rank(&m, "genMMZero", "30K")?;
                let sc = &mut s.scoring;
                sc.nbw2_absent = int(&m, "genNBW2ValueAbsent", 0)? as i32;
                sc.nbw2_bye = int(&m, "genNBW2ValueBye", 0)? as i32;
                sc.mms2_absent = int(&m, "genMMS2ValueAbsent", 1)? as i32;
                sc.mms2_bye = int(&m, "genMMS2ValueBye", 0)? as i32;
                sc.round_down = get(&m, "genRoundDownNBWMMS", "true") == "true";
                sc.count_not_played_as_half =
                    get(&m, "genCountNotPlayedGamesAsHalfPoint", "false") == "true";
                ncat = int(&m, "numberOfCategories", 1)?;
            }
            "Category" => categories.push(rank(&m, "lowerLimit", "30K")?),
            "HandicapParameterSet" => {
                let h = &mut t.settings.handicap;
                h.based_on_mms = get(&m, "hdBasedOnMMS", "true") == "true";
                h.no_handicap_threshold = rank(&m, "hdNoHdRankThreshold", "1D")?;
                h.correction = int(&m, "hdCorrection", 1)? as i32;
                h.ceiling = int(&m, "hdCeiling", 9)? as i32;
            }
            "PlacementCriterion" => {
                // OpenGotha writes its long names ("SOSW-1", "Rank"); its importer reads any
                // other name as no criterion, and so do we.
                let name = get(&m, "name", "NULL");
                let c = match name {
                    "SOSW-1" => Crit::SoswM1,
                    "SOSW-2" => Crit::SoswM2,
                    "SOSM-1" => Crit::SosmM1,
                    "SOSM-2" => Crit::SosmM2,
                    "SOSWM1" | "SOSWM2" | "SOSMM1" | "SOSMM2" => Crit::Nul,
                    other => Crit::parse(other).unwrap_or(Crit::Nul),
                };
                placement.push((int(&m, "number", 1)?, c));
            }
            _ => {}
        }
    }
    if !seen_root {
        return Err(XmlError("no <Tournament> element".into()));
    }
    if ncat > 1 {
        categories.truncate((ncat - 1) as usize);
        t.settings.categories = categories;
    } else {
        t.settings.categories = Vec::new();
    }
    placement.sort_by_key(|(n, _)| *n);
    t.settings.placement = placement
        .into_iter()
        .filter(|(_, c)| *c != Crit::Nul)
        .map(|(_, c)| Criterion(c))
        .collect();
    let lookup = |k: &str| -> Result<u32, XmlError> {
        keys.get(k)
            .copied()
            .ok_or_else(|| XmlError(format!("unknown player key {k:?}")))
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
            return Err(XmlError("round number 0".into()));
        }
        let res = get(&m, "result", "RESULT_UNKNOWN");
        let (outcome, forfeit) =
            parse_result(res).ok_or_else(|| XmlError(format!("unknown result {res:?}")))?;
        let g = Game {
            table: int(&m, "tableNumber", 0)? as u32,
            white: lookup(get(&m, "whitePlayer", ""))?,
            black: lookup(get(&m, "blackPlayer", ""))?,
            handicap: int(&m, "handicap", 0)? as u32,
            outcome,
            forfeit,
            known_colour: get(&m, "knownColor", "true") == "true",
            ..Game::default()
        };
        t.rounds[rn as usize - 1].games.push(g);
    }
    for round in &mut t.rounds {
        round.games.sort_by_key(|g| g.table);
    }
    for (rn, k) in byes {
        if rn == 0 {
            return Err(XmlError("round number 0".into()));
        }
        let id = lookup(&k)?;
        t.rounds[rn as usize - 1].byes.push(id);
    }
    Ok(t)
}
