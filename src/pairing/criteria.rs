//! The placement criteria, described once: for each, the name the API takes and gives
//! (`tournament.*`, settings, standings), OpenGotha's long name (the one its XML files carry),
//! the short name of a column header (the EGF table's), the unit its values are kept in, and
//! a description. Every parser and writer of a criterion's name reads this table, so a new
//! criterion is a row here, a variant of [`Crit`] and its computation in
//! `tournament/standings.rs`. It lives in `pairing/`, the lowest layer that needs criteria
//! (OpenGotha's pair weight reads them, as `opengotha::Crit`); `tournament/` and its formats
//! use it from here.
//! Pure code: no I/O.

/// A placement criterion; its names, unit and description are its row of [`TABLE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Crit {
    Nul,
    Cat,
    Rank,
    Rating,
    Nbw,
    Mms,
    Sts,
    Cps,
    Sosw,
    SoswM1,
    SoswM2,
    Sodosw,
    Sososw,
    Cussw,
    Sosm,
    SosmM1,
    SosmM2,
    Sodosm,
    Sososm,
    Cussm,
    Sosts,
    Ext,
    Exr,
    /// Direct confrontation: not computed for pairing (always 0 here); see docs.
    Dc,
    Sdc,
}

impl Crit {
    /// The criterion by its API name (OpenGotha's short spelling), any case ("NULL"/"NONE"
    /// = no criterion); the names are [`TABLE`]'s.
    pub fn parse(s: &str) -> Option<Crit> {
        by_api_name(s)
    }
    /// Every criterion's name, as [`Crit::name`] gives it.
    pub fn names() -> impl Iterator<Item = &'static str> {
        TABLE.iter().map(|d| d.api)
    }
    pub fn name(self) -> &'static str {
        describe(self).api
    }
}

/// What a criterion's internal value counts, which fixes how it is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Minus the 0-based category index (CAT): shown as the category number from 1.
    Category,
    /// OpenGotha's rank integer (−30 = 30k … 8 = 9d).
    Rank,
    /// A rating.
    Rating,
    /// A whole count (direct confrontation, and NULL's 0).
    Count,
    /// Half points (scores and their sums): 2 make one point.
    HalfPoints,
    /// Quarter points (SODOS): 4 make one point.
    QuarterPoints,
}

impl Unit {
    /// How many internal units make one displayed unit.
    pub fn coef(self) -> i64 {
        match self {
            Unit::HalfPoints => 2,
            Unit::QuarterPoints => 4,
            Unit::Category | Unit::Rank | Unit::Rating | Unit::Count => 1,
        }
    }
}

/// One placement criterion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Descriptor {
    pub crit: Crit,
    /// The API's name ("SOSWM1"), read in any case.
    pub api: &'static str,
    /// OpenGotha's long name ("SOSW-1"), what its XML files carry, which the API also reads.
    pub opengotha: &'static str,
    /// The column header (OpenGotha's short name, the EGF table's: "SOS-1").
    pub short: &'static str,
    pub unit: Unit,
    /// One line for people.
    pub description: &'static str,
}

const fn d(
    crit: Crit,
    api: &'static str,
    opengotha: &'static str,
    short: &'static str,
    unit: Unit,
    description: &'static str,
) -> Descriptor {
    Descriptor {
        crit,
        api,
        opengotha,
        short,
        unit,
        description,
    }
}

use Unit::*;

/// Every criterion, NULL first, then in OpenGotha's order.
pub const TABLE: &[Descriptor] = &[
    d(Crit::Nul, "NULL", "NULL", "NULL", Count, "No criterion"),
    d(Crit::Cat, "CAT", "CAT", "CAT", Category, "Category"),
    d(Crit::Rank, "RANK", "Rank", "Rank", Rank, "Rank"),
    d(Crit::Rating, "RATING", "Rating", "Rating", Rating, "Rating"),
    d(Crit::Nbw, "NBW", "NBW", "NBW", HalfPoints, "Number of wins"),
    d(Crit::Mms, "MMS", "MMS", "MMS", HalfPoints, "McMahon score"),
    d(
        Crit::Sts,
        "STS",
        "STS",
        "STS",
        HalfPoints,
        "Strasbourg score",
    ),
    d(Crit::Cps, "CPS", "CPS", "CPS", HalfPoints, "Cup score"),
    d(
        Crit::Sosw,
        "SOSW",
        "SOSW",
        "SOS",
        HalfPoints,
        "Sum of opponents' wins",
    ),
    d(
        Crit::SoswM1,
        "SOSWM1",
        "SOSW-1",
        "SOS-1",
        HalfPoints,
        "SOSW without the lowest",
    ),
    d(
        Crit::SoswM2,
        "SOSWM2",
        "SOSW-2",
        "SOS-2",
        HalfPoints,
        "SOSW without the two lowest",
    ),
    d(
        Crit::Sodosw,
        "SODOSW",
        "SODOSW",
        "SODOS",
        QuarterPoints,
        "Sum of defeated opponents' wins",
    ),
    d(
        Crit::Sososw,
        "SOSOSW",
        "SOSOSW",
        "SOSOS",
        HalfPoints,
        "Sum of opponents' SOSW",
    ),
    d(
        Crit::Cussw,
        "CUSSW",
        "CUSSW",
        "CUSS",
        HalfPoints,
        "Cumulative sum of wins",
    ),
    d(
        Crit::Sosm,
        "SOSM",
        "SOSM",
        "SOS",
        HalfPoints,
        "Sum of opponents' McMahon scores",
    ),
    d(
        Crit::SosmM1,
        "SOSMM1",
        "SOSM-1",
        "SOS-1",
        HalfPoints,
        "SOSM without the lowest",
    ),
    d(
        Crit::SosmM2,
        "SOSMM2",
        "SOSM-2",
        "SOS-2",
        HalfPoints,
        "SOSM without the two lowest",
    ),
    d(
        Crit::Sodosm,
        "SODOSM",
        "SODOSM",
        "SODOS",
        QuarterPoints,
        "Sum of defeated opponents' McMahon scores",
    ),
    d(
        Crit::Sososm,
        "SOSOSM",
        "SOSOSM",
        "SOSOS",
        HalfPoints,
        "Sum of opponents' SOSM",
    ),
    d(
        Crit::Cussm,
        "CUSSM",
        "CUSSM",
        "CUSS",
        HalfPoints,
        "Cumulative sum of McMahon scores",
    ),
    d(
        Crit::Sosts,
        "SOSTS",
        "SOSTS",
        "SOSTS",
        HalfPoints,
        "Sum of opponents' Strasbourg scores",
    ),
    d(
        Crit::Ext,
        "EXT",
        "EXT",
        "EXT",
        HalfPoints,
        "Exploits tentés",
    ),
    d(
        Crit::Exr,
        "EXR",
        "EXR",
        "EXR",
        HalfPoints,
        "Exploits réussis",
    ),
    d(Crit::Dc, "DC", "DC", "DC", Count, "Direct confrontation"),
    d(
        Crit::Sdc,
        "SDC",
        "SDC",
        "SDC",
        Count,
        "Simplified direct confrontation",
    ),
];

/// The row of `c`.
pub fn describe(c: Crit) -> &'static Descriptor {
    TABLE.iter().find(|d| d.crit == c).unwrap_or(&TABLE[0])
}

/// A criterion by its API name, any case; "NONE" and "" are NULL.
pub fn by_api_name(name: &str) -> Option<Crit> {
    let u = name.trim();
    if u.is_empty() || u.eq_ignore_ascii_case("NONE") {
        return Some(Crit::Nul);
    }
    TABLE
        .iter()
        .find(|d| d.api.eq_ignore_ascii_case(u))
        .map(|d| d.crit)
}

/// A criterion by its API name or OpenGotha's long name ("SOSW-1", "Rating"), any case.
pub fn by_any_name(name: &str) -> Option<Crit> {
    by_api_name(name).or_else(|| {
        let u = name.trim();
        TABLE
            .iter()
            .find(|d| d.opengotha.eq_ignore_ascii_case(u))
            .map(|d| d.crit)
    })
}

/// A criterion as an OpenGotha XML file names it. OpenGotha's importer reads any name but its
/// own as no criterion, and so does this: goswiss's spelling is read too where it differs
/// from OpenGotha's only in case ("RANK"), not where OpenGotha would not ("SOSWM1" → NULL).
pub fn from_xml(name: &str) -> Crit {
    if let Some(d) = TABLE.iter().find(|d| d.opengotha == name) {
        return d.crit;
    }
    match by_api_name(name) {
        Some(c) if describe(c).opengotha.eq_ignore_ascii_case(describe(c).api) => c,
        _ => Crit::Nul,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Every row reads back from its API name (any case) and its XML name, and the names that
    /// identify a criterion are unique.
    #[test]
    fn every_row_reads_back_by_its_names_which_are_unique() {
        let mut api = HashSet::new();
        let mut xml = HashSet::new();
        let mut crits = HashSet::new();
        for d in TABLE {
            assert!(crits.insert(d.crit), "{:?} twice", d.crit);
            assert!(
                api.insert(d.api.to_ascii_uppercase()),
                "API name {} twice",
                d.api
            );
            assert!(xml.insert(d.opengotha), "XML name {} twice", d.opengotha);
            assert_eq!(by_api_name(d.api), Some(d.crit), "{}", d.api);
            assert_eq!(by_api_name(&d.api.to_ascii_lowercase()), Some(d.crit));
            assert_eq!(by_any_name(d.opengotha), Some(d.crit), "{}", d.opengotha);
            assert_eq!(from_xml(d.opengotha), d.crit, "{}", d.opengotha);
            assert_eq!(describe(d.crit), d);
            assert_eq!(d.crit.name(), d.api);
            assert!(!d.short.is_empty() && d.short.len() <= 6, "{}", d.short);
            assert!(!d.description.is_empty());
        }
        // An API name may not be another row's XML name, or a name would read two ways.
        for d in TABLE {
            for e in TABLE.iter().filter(|e| e.crit != d.crit) {
                assert!(
                    !d.api.eq_ignore_ascii_case(e.opengotha),
                    "{} / {}",
                    d.api,
                    e.api
                );
            }
        }
    }

    #[test]
    fn the_aliases_read_today_still_read() {
        assert_eq!(by_api_name("none"), Some(Crit::Nul));
        assert_eq!(by_api_name(" sosmm2 "), Some(Crit::SosmM2));
        assert_eq!(by_api_name("SOSW-1"), None);
        assert_eq!(by_any_name("SOSW-1"), Some(Crit::SoswM1));
        assert_eq!(by_any_name("Rating"), Some(Crit::Rating));
        assert_eq!(by_any_name("XYZ"), None);
        // The XML reader's quirks, as OpenGotha's importer.
        assert_eq!(from_xml("RANK"), Crit::Rank);
        assert_eq!(from_xml("SOSWM1"), Crit::Nul);
        assert_eq!(from_xml("sosw-1"), Crit::Nul);
        assert_eq!(from_xml("XYZ"), Crit::Nul);
    }

    #[test]
    fn units_give_the_coefficients_standings_use() {
        assert_eq!(describe(Crit::Mms).unit.coef(), 2);
        assert_eq!(describe(Crit::Sodosm).unit.coef(), 4);
        assert_eq!(describe(Crit::Dc).unit.coef(), 1);
        assert_eq!(describe(Crit::Cat).unit.coef(), 1);
    }
}
