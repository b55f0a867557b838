//! Every string the web pages show, in one catalog keyed by [`T`], with one table per language
//! (`src/web/text/{en,fr,de}.txt`, `Key = text` lines, compiled into the binary). Pages never
//! spell a UI string inline; data (player names, settings) is not translated.
//!
//! The language of a page is the request's ([`super::language`] picks it from `?lang=`, the
//! `goswiss_lang` cookie or `Accept-Language`) and reaches [`t`] through a task-local set for
//! the whole request, so a page renders in one language without every page function passing
//! it along. Outside a request (tests, logs) it is English. A key missing from a table falls
//! back to English, never to a panic; the tests say which keys are missing or unknown.

use std::collections::HashMap;
use std::sync::LazyLock;

/// Declares the catalog: the enum and each key's name, which is how the tables spell it.
macro_rules! catalog {
    ($($(#[$m:meta])* $key:ident,)*) => {
        /// A UI string's id.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum T {
            $($(#[$m])* $key,)*
        }

        impl T {
            /// Every key, in catalog order.
            pub const ALL: &'static [T] = &[$(T::$key,)*];

            /// The key's name in the tables.
            pub fn key(self) -> &'static str {
                match self {
                    $(T::$key => stringify!($key),)*
                }
            }
        }
    };
}

catalog! {
    SiteName,
    SkipToContent,
    MainNav,
    Tournaments,
    Overview,
    Pairings,
    Standings,
    Crosstable,
    Round,
    Rounds,
    Players,
    Player,
    Game,
    DirectorMode,
    DirectorOn,
    DirectorOff,
    DirectorTokenLabel,
    DirectorTokenHint,
    DirectorEnter,
    Cancel,
    NoTournaments,
    MatchmakerTournaments,
    TournamentsCaption,
    MatchmakerCaption,
    Id,
    Name,
    System,
    Archived,
    Yes,
    No,
    Settings,
    Setting,
    Value,
    Location,
    Dates,
    Director,
    Komi,
    HandicapKomi,
    Rules,
    BoardSize,
    TimeSystem,
    Criteria,
    McMahonBar,
    RoundsCaption,
    Status,
    Results,
    NotPaired,
    Paired,
    Published,
    Draft,
    DraftNote,
    PairNext,
    Publish,
    Unpublish,
    Exports,
    PlayersCaption,
    Rank,
    Club,
    Country,
    Table,
    White,
    Black,
    Handicap,
    ResultWb,
    Result,
    Record,
    ViewRecord,
    Bye,
    Byes,
    Absent,
    Set,
    SetResultFor,
    RoundNotPaired,
    PairingsCaption,
    Place,
    StandingsAfter,
    StandingsBefore,
    CrosstableCaption,
    Opponent,
    Colour,
    Win,
    Loss,
    Jigo,
    Unknown,
    GamesCaption,
    NoGames,
    NoRecord,
    First,
    Previous,
    Next,
    Last,
    MoveOf,
    BoardLabel,
    ScoreCaption,
    Stones,
    Territory,
    Captures,
    DeadStones,
    Total,
    ScoreResult,
    NotPlayedOut,
    RecordWarnings,
    RecordUnreadable,
    NotFound,
    BadRequest,
    BackToList,
    Saved,
    ErrorPrefix,
    Working,
    LiveUpdated,
    Matches,
    Ended,
    After,
    Score,
    AgaArchive,
    NotPublished,
    NotPublishedNote,
    LineNumber,
    LineNumberShort,
    CrosstableBefore,
    BadToken,
    TokenNeeded,
    ExportWarnings,
    // desk-setup: the language switcher and the export labels.
    Language,
    ExportH9,
    ExportCsv,
    ExportOpengotha,
    ExportSend2aga,
    // desk-setup: the set-up form.
    NewTournament,
    EditSettings,
    PairedNote,
    FsGeneral,
    ShortName,
    ShortNameHint,
    BeginDate,
    EndDate,
    CountryCode,
    CountryHint,
    City,
    NumberOfRounds,
    FsPairing,
    SystemMcMahon,
    SystemSwiss,
    SystemSwissCat,
    McMahonFloor,
    RankHint,
    HandicapRule,
    HandicapNone,
    HandicapMms,
    HandicapCeiling,
    MoveUp,
    MoveDown,
    Remove,
    CriteriaAdd,
    Add,
    MainTime,
    OvertimeKind,
    OvertimeByoyomi,
    OvertimeCanadian,
    OvertimeFischer,
    OvertimeSudden,
    Periods,
    PeriodsHint,
    Seconds,
    SecondsHint,
    EgfClass,
    AdminToken,
    AdminTokenHint,
    AltersPlayed,
    ApplyAnyway,
    SaveSettings,
    CreateTournament,
    TokenShown,
    Copy,
    Copied,
    TokenAdvice,
    GoToTournament,
    FormHasErrors,
    // desk-print: print sheets.
    Print,
    PrintTables,
    PrintAlpha,
    PrintSlips,
    PrintBack,
    PrintHint,
    HandicapShort,
    SlipWins,
    Signature,
    // ---- desk-floor: registration desk, check-in, quick results ----
    DeskTitle,
    DeskNeedsDirector,
    DeskNav,
    DeskAddTitle,
    DeskEditTitle,
    DeskSearchLabel,
    DeskSearchHint,
    DeskNoHits,
    DeskName,
    DeskFirstName,
    DeskRating,
    DeskEgfPin,
    DeskFfgLicence,
    DeskAgaId,
    DeskAdd,
    DeskSave,
    DeskClear,
    DeskAddAnyway,
    DeskDupName,
    DeskDupPin,
    DeskAdded,
    DeskSaved,
    DeskAbsentIn,
    DeskLateEntry,
    DeskLateScored,
    DeskLateMms,
    DeskLateWins,
    DeskIds,
    DeskActions,
    DeskEdit,
    DeskWithdraw,
    DeskReinstate,
    DeskReinstated,
    DeskAbsentLabel,
    DeskParticipationSet,
    DeskRegistered,
    DeskWithdrawnAfter,
    DeskWithdrawnBefore,
    DeskWithdrawnMark,
    DeskAbsentRounds,
    DeskPresent,
    DeskAbsentMark,
    CheckinTitle,
    CheckinHelp,
    CheckinFilter,
    CheckinPresent,
    CheckinAllPaired,
    CheckinWithdrawnNotListed,
    QuickTitle,
    QuickLabel,
    QuickKeyW,
    QuickKeyB,
    QuickKeyF,
    QuickKeyX,
    QuickKeyU,
    QuickUndo,
    QuickNoTable,
    QuickAlready,
    QuickOverwrite,
    QuickKept,
    QuickSet,
    QuickUndone,
    QuickNothingToUndo,
    QuickBadKey,
    Withdrawn,
    // ---- desk-edit2: the pairing-edit screen ----
    EditTitle,
    EditLink,
    EditNeedsDirector,
    EditPublished,
    EditNotLast,
    EditToRoundPage,
    EditGames,
    EditUnpairedCount,
    EditWarnedCount,
    EditRulesTitle,
    EditRuleBig,
    EditRuleStones,
    EditRuleColour,
    EditRuleOthers,
    EditHelp,
    EditColours,
    EditWarnings,
    EditTableOf,
    EditHandicapOf,
    EditUnpair,
    EditUnpairedTitle,
    EditNoneUnpaired,
    EditPairHelp,
    EditWarnSameClub,
    EditWarnSameCountry,
    EditWarnRepeated,
    EditWarnBigHandicap,
    EditWarnColour,
    EditPicked,
    EditCancelled,
    EditSwapped,
    EditColoursDone,
    EditUnpairedDone,
    EditPairedDone,
    EditTableDone,
    EditHandicapDone,
    EditPublishedDone,
    EditStale,
    EditNotNumber,
}

/// A language the pages are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    En,
    Fr,
    De,
}

impl Lang {
    pub const ALL: [Lang; 3] = [Lang::En, Lang::Fr, Lang::De];

    /// The language's tag (`<html lang>`, `?lang=`, the cookie).
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Fr => "fr",
            Lang::De => "de",
        }
    }

    /// The language named by a tag's primary subtag (`fr`, `de-CH`), any case.
    pub fn from_tag(tag: &str) -> Option<Lang> {
        let primary = tag.split(['-', '_']).next().unwrap_or("");
        Lang::ALL
            .into_iter()
            .find(|l| l.code().eq_ignore_ascii_case(primary))
    }

    /// The language's name in itself, for the switcher.
    pub fn native_name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Fr => "Français",
            Lang::De => "Deutsch",
        }
    }

    /// The table's source text.
    fn source(self) -> &'static str {
        match self {
            Lang::En => include_str!("text/en.txt"),
            Lang::Fr => include_str!("text/fr.txt"),
            Lang::De => include_str!("text/de.txt"),
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

tokio::task_local! {
    /// The language of the request being answered.
    static LANG: Lang;
}

/// The current request's language (English outside a request).
pub fn current() -> Lang {
    LANG.try_with(|l| *l).unwrap_or(Lang::En)
}

/// Runs `fut` (a request's handling) with `lang` as the pages' language.
pub async fn with_lang<F: std::future::Future>(lang: Lang, fut: F) -> F::Output {
    LANG.scope(lang, fut).await
}

/// One table read from its source: the lines `Key = text`, and what is wrong with it.
struct Table {
    texts: Vec<Option<&'static str>>,
    problems: Vec<String>,
}

/// Reads a table. Blank lines and `#` comments are skipped; anything else must be
/// `Key = text` with a key of the catalog, once, and a text that is not empty.
fn parse(source: &'static str) -> Table {
    static KEYS: LazyLock<HashMap<&'static str, T>> =
        LazyLock::new(|| T::ALL.iter().map(|k| (k.key(), *k)).collect());
    let mut texts: Vec<Option<&'static str>> = vec![None; T::ALL.len()];
    let mut problems = Vec::new();
    for (n, line) in source.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((key, text)) = line.split_once('=') else {
            problems.push(format!("line {}: not `Key = text`", n + 1));
            continue;
        };
        let (key, text) = (key.trim(), text.trim());
        let Some(id) = KEYS.get(key) else {
            problems.push(format!("line {}: unknown key {key}", n + 1));
            continue;
        };
        if text.is_empty() {
            problems.push(format!("line {}: {key} has no text", n + 1));
            continue;
        }
        let slot = &mut texts[*id as usize];
        if slot.is_some() {
            problems.push(format!("line {}: {key} given twice", n + 1));
        }
        *slot = Some(text);
    }
    for id in T::ALL {
        if texts[*id as usize].is_none() {
            problems.push(format!("missing key {}", id.key()));
        }
    }
    Table { texts, problems }
}

static TABLES: LazyLock<[Table; 3]> = LazyLock::new(|| Lang::ALL.map(|l| parse(l.source())));

/// What is wrong with `lang`'s table: missing, unknown, doubled or empty keys (none, as the
/// tests require).
pub fn problems(lang: Lang) -> &'static [String] {
    &TABLES[lang.index()].problems
}

/// What is wrong with a table's source text (for the tests of the check itself).
pub fn problems_of(source: &'static str) -> Vec<String> {
    parse(source).problems
}

/// The text of `id` in `lang` (English when that table lacks it).
pub fn text_in(lang: Lang, id: T) -> &'static str {
    let i = id as usize;
    TABLES[lang.index()].texts[i]
        .or(TABLES[Lang::En.index()].texts[i])
        .unwrap_or_else(|| id.key())
}

/// The text of `id` in the current request's language.
pub fn t(id: T) -> &'static str {
    text_in(current(), id)
}

/// The strings the page script shows, as a JSON object for a `data-` attribute.
pub fn script_strings() -> String {
    use T::*;
    let pairs = [
        ("saved", Saved),
        ("error", ErrorPrefix),
        ("working", Working),
        ("updated", LiveUpdated),
        ("director_on", DirectorOn),
        ("director_off", DirectorOff),
        ("director_mode", DirectorMode),
        ("move", MoveOf),
        ("bad_token", BadToken),
        ("token_needed", TokenNeeded),
    ];
    let map: serde_json::Map<String, serde_json::Value> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_string(), serde_json::Value::from(t(*v))))
        .collect();
    serde_json::Value::Object(map).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_has_every_key_and_no_other() {
        for lang in Lang::ALL {
            assert_eq!(problems(lang), &[] as &[String], "table {}", lang.code());
        }
    }

    #[test]
    fn the_check_names_missing_unknown_and_doubled_keys() {
        let p =
            problems_of("# a comment\nSiteName = x\nSiteName = y\nNoSuchKey = z\nbroken\nYes =\n");
        assert!(
            p.iter().any(|m| m.contains("SiteName given twice")),
            "{p:?}"
        );
        assert!(
            p.iter().any(|m| m.contains("unknown key NoSuchKey")),
            "{p:?}"
        );
        assert!(p.iter().any(|m| m.contains("line 5: not")), "{p:?}");
        assert!(p.iter().any(|m| m.contains("Yes has no text")), "{p:?}");
        assert!(p.iter().any(|m| m == "missing key Tournaments"), "{p:?}");
        assert!(!p.iter().any(|m| m == "missing key SiteName"), "{p:?}");
    }

    #[tokio::test]
    async fn the_request_language_picks_the_table() {
        assert_eq!(t(T::Standings), "Standings");
        let fr = with_lang(Lang::Fr, async { t(T::Standings) }).await;
        let de = with_lang(Lang::De, async { t(T::Crosstable) }).await;
        assert_eq!((fr, de), ("Classement", "Kreuztabelle"));
        // Outside the scope again: English.
        assert_eq!(current(), Lang::En);
    }

    #[test]
    fn the_translations_differ_from_english() {
        // A table copied from English would pass the key check; the words a director reads
        // most must really be translated.
        for id in [
            T::Pairings,
            T::Standings,
            T::Round,
            T::Handicap,
            T::Crosstable,
        ] {
            for lang in [Lang::Fr, Lang::De] {
                if !(lang == Lang::Fr && id == T::Handicap) {
                    assert_ne!(
                        text_in(lang, id),
                        text_in(Lang::En, id),
                        "{id:?} in {lang:?}"
                    );
                }
            }
        }
    }
}
