//! The tournament object of AGATourn 1.035 in compat mode (docs/aga.md): registered players,
//! directives, round results, counters, bands and handicaps, with AGATourn's sticky error flag
//! and every carp as a structured [`Warning`] in an append-only log. Loading is pure: the caller
//! hands over the text of `register.tde` and of the round files.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::diag::{LineCtx, Severity, Warning, plain};
use super::handicap::agatourn_table;
use super::lines::{RegisterLine, RoundLine, parse_register_line, parse_round_line_mode};
use super::perl::{fmt_num, int, is_space, numify};
use super::rating::{
    NOTARANK, collapse, normalize_id_strict, rank_to_rating, rating_of_text, sigma,
};

/// A registered player, as AGATourn keeps it (ratings stay the text that was read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Player {
    pub name: String,
    pub rating: String,
    pub rank: Option<String>,
    pub club: String,
    pub flags: String,
    pub comment: String,
}

/// Wins, losses and unfinished games of one ID (registered or not).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    pub wins: u32,
    pub losses: u32,
    pub no_results: u32,
}

/// One game of a round file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    pub white: String,
    pub black: String,
    /// `w`, `b` or `?`.
    pub result: String,
    pub handicap: String,
    pub komi: String,
    /// The round file's number, as text (empty when no round file was being read).
    pub round: String,
}

impl Game {
    /// AGATourn's GamesList string `W,B,result,handicap,komi,round`.
    pub fn list_string(&self) -> String {
        format!(
            "{},{},{},{},{},{}",
            self.white, self.black, self.result, self.handicap, self.komi, self.round
        )
    }
}

/// Score bands after `_setBands`: parallel lists, strongest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bands {
    pub top: Vec<f64>,
    pub bot: Vec<f64>,
}

/// Which behaviour to follow (docs/aga.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Exactly AGATourn 1.035, quirks included.
    #[default]
    Compat,
    /// Sane behaviour for today's AGA: directive names upper-cased, decimal komi, numeric IDs in
    /// round files normalised like register IDs, a duplicate ID keeps the first line, a gap in
    /// the round files is reported, bands recomputed when a BAND directive is added.
    Strict,
}

/// AGATourn's tournament object.
#[derive(Debug, Clone)]
pub struct Tournament {
    mode: Mode,
    directives: BTreeMap<String, Vec<String>>,
    players: BTreeMap<String, Player>,
    /// Registration order (first line of each ID).
    order: Vec<String>,
    counters: BTreeMap<String, Counters>,
    played: BTreeMap<String, Vec<String>>,
    games: Vec<Game>,
    round: Option<String>,
    name_length: usize,
    error: bool,
    bands: Option<Bands>,
    file: Option<String>,
    line: Option<usize>,
    log: Vec<Warning>,
    register_text: String,
}

impl Default for Tournament {
    fn default() -> Self {
        Self::new()
    }
}

/// Perl's `split(/\s+/, $s)` for a value without leading whitespace.
fn split_ws(s: &str) -> Vec<&str> {
    s.split(is_space).filter(|p| !p.is_empty()).collect()
}

/// Perl's `while (my $line = <$fh>)`: lines with their `\n`; a last line that is exactly `0`
/// (no newline) is false and ends the loop.
fn perl_lines(text: &str) -> impl Iterator<Item = &str> {
    text.split_inclusive('\n').take_while(|l| *l != "0")
}

impl Tournament {
    /// A fresh object (`new` without files, then `Clear`).
    pub fn new() -> Self {
        let mut directives = BTreeMap::new();
        directives.insert("ROUNDS".to_string(), vec!["1".to_string()]);
        directives.insert(
            "TOURNEY".to_string(),
            vec!["Unknown tournament".to_string()],
        );
        Tournament {
            mode: Mode::Compat,
            directives,
            players: BTreeMap::new(),
            order: Vec::new(),
            counters: BTreeMap::new(),
            played: BTreeMap::new(),
            games: Vec::new(),
            round: None,
            name_length: 0,
            error: false,
            bands: None,
            file: None,
            line: None,
            log: Vec::new(),
            register_text: String::new(),
        }
    }

    /// A fresh object in the given mode.
    pub fn with_mode(mode: Mode) -> Self {
        Tournament {
            mode,
            ..Tournament::new()
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Loads a tournament directory: `register.tde`, then `1.tde`, `2.tde`, … up to the first
    /// missing file (`None`), as AGATourn's `new` does.
    pub fn load(register: &str, rounds: &[Option<&str>]) -> Self {
        Self::load_mode(Mode::Compat, register, rounds)
    }

    /// [`Tournament::load`] in the given mode; `strict` reports round files after a gap.
    pub fn load_mode(mode: Mode, register: &str, rounds: &[Option<&str>]) -> Self {
        let mut t = Tournament::with_mode(mode);
        t.read_register(register);
        for (i, text) in rounds.iter().enumerate() {
            let Some(text) = text else {
                let later: Vec<String> = rounds[i..]
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| r.is_some())
                    .map(|(j, _)| format!("{}.tde", i + j + 1))
                    .collect();
                if mode == Mode::Strict && !later.is_empty() {
                    let w = LineCtx::new(None, None).warn(
                        Severity::Error,
                        "round.gap",
                        format!(
                            "round file {}.tde is missing, so {} were not read",
                            i + 1,
                            later.join(", ")
                        ),
                        "",
                    );
                    t.emit(vec![w]);
                }
                break;
            };
            t.read_round(i + 1, text);
        }
        t.line = None;
        t
    }

    /// `ReadRegisterFile` on in-memory text.
    pub fn read_register(&mut self, text: &str) {
        self.file = Some("register.tde".to_string());
        self.register_text.push_str(text);
        for (i, line) in perl_lines(text).enumerate() {
            self.line = Some(i + 1);
            self.add_register_line(line);
        }
    }

    /// `ReadRoundFile("N.tde")` on in-memory text.
    pub fn read_round(&mut self, number: usize, text: &str) {
        self.file = Some(format!("{number}.tde"));
        self.round = Some(number.to_string());
        for (i, line) in perl_lines(text).enumerate() {
            self.line = Some(i + 1);
            self.add_round_line(line);
        }
    }

    /// Sets Perl's `$.` (the current input line number) for the next calls.
    pub fn set_line(&mut self, line: Option<usize>) {
        self.line = line;
    }

    fn ctx(&self) -> LineCtx<'_> {
        LineCtx::new(self.file.as_deref(), self.line)
    }

    fn emit(&mut self, w: Vec<Warning>) {
        for x in &w {
            if x.severity == Severity::Error {
                self.error = true;
            }
        }
        self.log.extend(w);
    }

    /// Every warning emitted so far, in order.
    pub fn log(&self) -> &[Warning] {
        &self.log
    }

    /// AGATourn's sticky error flag.
    pub fn error(&self) -> bool {
        self.error
    }

    /// `AddRegisterLine`.
    pub fn add_register_line(&mut self, raw: &str) {
        let (parsed, warnings) = parse_register_line(raw, &self.ctx());
        self.emit(warnings);
        match parsed {
            RegisterLine::Directive { name, value } => {
                let mut name = name.unwrap_or_default();
                if self.mode == Mode::Strict {
                    name = name.to_ascii_uppercase();
                    if name == "BAND" {
                        // Recomputed on the next use instead of AGATourn's one-time cache.
                        self.bands = None;
                    }
                }
                let value = value.unwrap_or_default();
                if matches!(name.as_str(), "HANDICAPS" | "ROUNDS" | "RULES" | "TOURNEY") {
                    self.directives.insert(name, vec![value]);
                } else {
                    self.directives.entry(name).or_default().push(value);
                }
            }
            RegisterLine::Player(p) => {
                let id = p.id();
                if self.players.contains_key(&id) {
                    let ctx = self.ctx();
                    let w = ctx.warn(
                        Severity::Error,
                        "register.duplicate_id",
                        format!("player ID {id} is registered twice; the later line replaces the earlier"),
                        &format!("Error: Player ID {id} is duplicated{}\n", ctx.file_msg()),
                    );
                    self.emit(vec![w]);
                    if self.mode == Mode::Strict {
                        return;
                    }
                } else {
                    self.order.push(id.clone());
                }
                self.name_length = self.name_length.max(p.name.chars().count());
                self.players.insert(
                    id.clone(),
                    Player {
                        name: p.name,
                        rating: p.aga_rating,
                        rank: p.aga_rank,
                        club: p.club,
                        flags: p.flags,
                        comment: p.comment,
                    },
                );
                self.played.entry(id.clone()).or_default();
                self.counters.entry(id).or_default();
            }
            RegisterLine::Empty | RegisterLine::Comment(_) | RegisterLine::Unparsable => {}
        }
    }

    /// `AddRoundLine`.
    pub fn add_round_line(&mut self, raw: &str) {
        let strict = self.mode == Mode::Strict;
        let (parsed, warnings) = parse_round_line_mode(raw, &self.ctx(), strict);
        self.emit(warnings);
        let RoundLine::Game(g) = parsed else { return };
        let (mut w, mut b) = (g.white_id(), g.black_id());
        if strict {
            w = normalize_id_strict(&w);
            b = normalize_id_strict(&b);
        }
        for id in [&w, &b] {
            if !self.players.contains_key(id.as_str()) {
                let msg = format!("Game {w}.vs.{b}, {id} is not registered\n");
                let warn = self.ctx().warn(
                    Severity::Warning,
                    "round.unregistered",
                    format!("{id} plays in game {w} vs {b} but is not registered"),
                    &msg,
                );
                self.emit(vec![warn]);
            }
        }
        self.counters.entry(w.clone()).or_default();
        self.counters.entry(b.clone()).or_default();
        match g.result.as_str() {
            "w" | "b" => {
                let (winner, loser) = if g.result == "w" { (&w, &b) } else { (&b, &w) };
                if let Some(c) = self.counters.get_mut(winner) {
                    c.wins += 1;
                }
                if let Some(c) = self.counters.get_mut(loser) {
                    c.losses += 1;
                }
                self.played.entry(b.clone()).or_default().push(w.clone());
                self.played.entry(w.clone()).or_default().push(b.clone());
            }
            _ => {
                for id in [&b, &w] {
                    if let Some(c) = self.counters.get_mut(id) {
                        c.no_results += 1;
                    }
                }
            }
        }
        self.games.push(Game {
            white: w,
            black: b,
            result: g.result,
            handicap: g.handi,
            komi: g.komi,
            round: self.round.clone().unwrap_or_default(),
        });
    }

    /// `Tourney()`.
    pub fn tourney(&self) -> Option<&str> {
        self.directives
            .get("TOURNEY")
            .and_then(|v| v.first())
            .map(String::as_str)
    }

    /// `Rounds()`: the ROUNDS directive, else the last round read.
    pub fn rounds(&self) -> Option<String> {
        self.directives
            .get("ROUNDS")
            .and_then(|v| v.first())
            .cloned()
            .or_else(|| self.round.clone())
    }

    /// `Round()`: the last round file read.
    pub fn round(&self) -> Option<&str> {
        self.round.as_deref()
    }

    pub fn name_length(&self) -> usize {
        self.name_length
    }

    /// All directives: name as written → values.
    pub fn directives(&self) -> &BTreeMap<String, Vec<String>> {
        &self.directives
    }

    /// `Directive(name)`: the name is upper-cased for the lookup only.
    pub fn directive(&self, name: &str) -> Option<&[String]> {
        self.directives
            .get(&name.to_ascii_uppercase())
            .map(Vec::as_slice)
    }

    pub fn players(&self) -> &BTreeMap<String, Player> {
        &self.players
    }

    pub fn player(&self, id: &str) -> Option<&Player> {
        self.players.get(id)
    }

    /// IDs in registration order.
    pub fn registration_order(&self) -> &[String] {
        &self.order
    }

    pub fn games(&self) -> &[Game] {
        &self.games
    }

    pub fn counters(&self, id: &str) -> Option<Counters> {
        self.counters.get(id).copied()
    }

    /// Every ID with counters (registered or only seen in round files).
    pub fn counter_ids(&self) -> impl Iterator<Item = &String> {
        self.counters.keys()
    }

    /// `Played(id)`: opponents of completed games in read order.
    pub fn played(&self, id: &str) -> &[String] {
        self.played.get(id).map_or(&[], Vec::as_slice)
    }

    /// The raw `register.tde` text that was read (send2aga copies its comment lines).
    pub fn register_text(&self) -> &str {
        &self.register_text
    }

    /// `Rating(id)`: a registered ID's stored text, else the converter of `Rating()`.
    pub fn rating(&mut self, id: &str) -> Option<String> {
        if let Some(p) = self.players.get(id) {
            return Some(p.rating.clone());
        }
        let (r, w) = rating_of_text(id);
        self.emit(w);
        r
    }

    /// `Sigma(id)`.
    pub fn sigma(&mut self, id: &str) -> Option<f64> {
        match self.players.get(id) {
            Some(p) => sigma(p.rank.as_deref(), Some(&p.rating)),
            None => {
                let w = plain(
                    Severity::Warning,
                    "player.unregistered",
                    format!("{id} is not registered"),
                    &format!("{id} is not registered\n"),
                );
                self.emit(vec![w]);
                None
            }
        }
    }

    /// `Handicap(p1, p2)` → (handicap, komi) as Perl prints them. `ing` overrides the RULES
    /// directive (the probes' `HandicapIng`).
    pub fn handicap(&mut self, p1: &str, p2: &str, ing: Option<bool>) -> (String, String) {
        let r1 = self.rating(p1);
        let (c1, _, w1) = collapse(r1.as_deref());
        self.emit(w1.into_iter().collect());
        let r2 = self.rating(p2);
        let (c2, _, w2) = collapse(r2.as_deref());
        self.emit(w2.into_iter().collect());
        let (Some(c1), Some(c2)) = (c1, c2) else {
            return ("-1".into(), "-1".into());
        };
        // Reading RULES autovivifies an empty list, which dump.json shows.
        let strict = self.mode == Mode::Strict;
        let rules = self.directives.entry("RULES".to_string()).or_default();
        let ing = ing.unwrap_or_else(|| {
            rules
                .first()
                .is_some_and(|r| r == "ING" || (strict && r.eq_ignore_ascii_case("ING")))
        });
        let d = agatourn_table(c1, c2, ing);
        (fmt_num(d.handicap), fmt_num(d.komi))
    }

    /// The numeric value AGATourn compares for a band boundary passed through RankToRating.
    fn band_value(x: f64) -> f64 {
        numify(&rank_to_rating(Some(&fmt_num(x))))
    }

    /// `WhichBandIs` on a number (already through RankToRating).
    fn band_index(&self, r: f64) -> Option<usize> {
        let b = self.bands.as_ref()?;
        for (i, &top) in b.top.iter().enumerate() {
            if r > top {
                continue;
            }
            if r >= b.bot.get(i).copied().unwrap_or(0.0) {
                return Some(i);
            }
        }
        None
    }

    fn set_bands(&mut self) {
        let default = vec!["99D 99K".to_string()];
        if !self.directives.contains_key("BAND") && self.mode == Mode::Compat {
            self.directives.insert("BAND".to_string(), default.clone());
        }
        self.bands = Some(Bands::default());
        // Strict mode does not store the implicit band as if it were a directive.
        let list = self.directives.get("BAND").cloned().unwrap_or(default);
        for band in &list {
            let parts = split_ws(band);
            let mut top = int(numify(&rank_to_rating(parts.first().copied())));
            if top > 0.0 {
                top += 0.99999;
            }
            let mut bot = int(numify(&rank_to_rating(parts.get(1).copied())));
            if bot < 0.0 {
                bot -= 0.99999;
            }
            if top > 9999.0 || bot < -9999.0 || bot >= top {
                let file = self.file.clone().unwrap_or_default();
                let w = self.ctx().warn(
                    Severity::Error,
                    "band.unparsable",
                    format!("BAND {band:?}: the top must be stronger than the bottom"),
                    &format!(
                        "Error: can't parse BAND directive at line {} in {file}: {band}\n",
                        self.ctx().dot()
                    ),
                );
                self.emit(vec![w]);
                return;
            }
            let mut ov = self.band_index(Self::band_value(top));
            if ov.is_some() {
                ov = self.band_index(Self::band_value(bot));
            }
            if let Some(o) = ov {
                let other = list.get(o).cloned().unwrap_or_default();
                let w = plain(
                    Severity::Warning,
                    "band.overlap",
                    format!("BAND {band:?} overlaps BAND {other:?}"),
                    &format!("Warning: band conflict: {band}\n  (overlaps {other})\n"),
                );
                self.emit(vec![w]);
            }
            if let Some(b) = self.bands.as_mut() {
                b.top.push(top);
                b.bot.push(bot);
            }
        }
        let Some(b) = self.bands.as_mut() else { return };
        b.top.sort_by(|x, y| y.total_cmp(x));
        b.bot.sort_by(|x, y| y.total_cmp(x));
        let mut holes = 0;
        for i in 0..b.top.len().saturating_sub(1) {
            if b.bot[i] == 1.0 && b.top[i + 1] == -1.0 {
                continue;
            }
            if b.bot[i] - b.top[i + 1] > 0.001 {
                holes += 1;
            }
        }
        for _ in 0..holes {
            let w = plain(
                Severity::Warning,
                "band.hole",
                "there is a hole between two bands",
                "Warning: hole between bands\n",
            );
            self.emit(vec![w]);
        }
    }

    /// `WhichBandIs(rank or rating)`: the band index, `None` for NOTARANK. The first call builds
    /// the bands, which are cached from then on (compat).
    pub fn which_band_is(&mut self, r: Option<&str>) -> Option<usize> {
        if self.bands.is_none() {
            self.set_bands();
        }
        self.band_index(numify(&rank_to_rating(r)))
    }

    /// `BandName(index)` for a Perl array index (negative counts from the end).
    pub fn band_name(&mut self, idx: i64) -> Option<String> {
        let list = match self.directives.get("BAND") {
            Some(l) => l.clone(),
            None if self.mode == Mode::Strict && self.bands.is_some() => {
                vec!["99D 99K".to_string()]
            }
            None => return None,
        };
        for band in &list {
            let parts = split_ws(band);
            let top = int(numify(&rank_to_rating(parts.first().copied())));
            // AGATourn's `$self->{bandTop}[$idx]` autovivifies an empty band list here.
            let bands = self.bands.get_or_insert_with(Bands::default);
            let len = bands.top.len() as i64;
            let i = if idx < 0 { idx + len } else { idx };
            let t = if (0..len).contains(&i) {
                bands.top[i as usize]
            } else {
                return None;
            };
            if top == int(t) {
                return Some(band.clone());
            }
        }
        None
    }

    /// The current bands, if built.
    pub fn bands(&self) -> Option<&Bands> {
        self.bands.as_ref()
    }

    /// The canonical dump of `dump.json` (docs/aga.md): every scalar a Perl string.
    pub fn dump(&mut self) -> Value {
        self.dump_with(true)
    }

    /// The dump, optionally without the all-pairs handicap table (quadratic in the players).
    pub fn dump_with(&mut self, with_handicaps: bool) -> Value {
        let new_mark = self.log.len();
        let new_warnings: Vec<String> = self.log[..new_mark]
            .iter()
            .map(|w| w.legacy_text.clone())
            .collect();
        let ids: Vec<String> = self.players.keys().cloned().collect();
        let mut players = serde_json::Map::new();
        for id in &ids {
            let mark = self.log.len();
            let Some(p) = self.players.get(id).cloned() else {
                continue;
            };
            let sig = self.sigma(id).map(fmt_num);
            let band = self.which_band_is(Some(&p.rating));
            let band_text = band.map_or(NOTARANK.to_string(), |b| b.to_string());
            let band_name = match band {
                Some(b) => self.band_name(b as i64),
                None => self.band_name(int(numify(NOTARANK)) as i64),
            };
            let c = self.counters(id).unwrap_or_default();
            let warnings: Vec<String> = self.log[mark..]
                .iter()
                .map(|w| w.legacy_text.clone())
                .collect();
            players.insert(
                id.clone(),
                json!({
                    "name": p.name, "rating": p.rating, "rank": p.rank, "sigma": sig,
                    "club": p.club, "flags": p.flags, "comment": p.comment,
                    "wins": c.wins.to_string(), "losses": c.losses.to_string(),
                    "noResults": c.no_results.to_string(), "played": self.played(id),
                    "band": band_text, "bandName": band_name, "warnings": warnings,
                }),
            );
        }
        let mut handicaps = Vec::new();
        for p1 in ids.iter().filter(|_| with_handicaps) {
            for p2 in &ids {
                if p1 == p2 {
                    continue;
                }
                let mark = self.log.len();
                let (h, k) = self.handicap(p1, p2, None);
                let warnings: Vec<String> = self.log[mark..]
                    .iter()
                    .map(|w| w.legacy_text.clone())
                    .collect();
                handicaps.push(
                    json!({"p1": p1, "p2": p2, "handicap": h, "komi": k, "warnings": warnings}),
                );
            }
        }
        let mut unregistered = serde_json::Map::new();
        for (id, c) in &self.counters {
            if !self.players.contains_key(id) {
                unregistered.insert(
                    id.clone(),
                    json!({"Wins": c.wins.to_string(), "Losses": c.losses.to_string(), "NoResults": c.no_results.to_string()}),
                );
            }
        }
        let bands = self.bands.clone().unwrap_or_default();
        json!({
            "tourney": self.tourney(),
            "rounds": self.rounds(),
            "round": self.round,
            "nameLength": self.name_length.to_string(),
            "error": if self.error { "1" } else { "0" },
            "directives": self.directives,
            "games": self.games.iter().map(Game::list_string).collect::<Vec<_>>(),
            "bands": {
                "top": bands.top.iter().map(|x| fmt_num(*x)).collect::<Vec<_>>(),
                "bot": bands.bot.iter().map(|x| fmt_num(*x)).collect::<Vec<_>>(),
            },
            "players": players,
            "unregistered_counters": unregistered,
            "handicaps": handicaps,
            "new_warnings": new_warnings,
            "late_warnings": Vec::<String>::new(),
        })
    }
}
