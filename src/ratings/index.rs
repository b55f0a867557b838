//! The search index of one list: every entry under two folded keys ([`super::fold`]),
//! "family given" and "given family", each kind of key in one sorted array, and the entries'
//! ids (EGF PIN, FFG licence, AGA id). A query is a name prefix: the entries whose key starts
//! with the folded query, found by binary search, best first:
//!
//! 0. the query is an entry's id, exactly;
//! 1. "family given" starts with the query, which ends at a word's end ("kim" finds Kim Ann);
//! 2. "family given" starts with the query inside a word ("kim" finds Kimura Ken);
//! 3. and 4. the same for "given family" ("ann k" finds Kim Ann).
//!
//! Within a tier, in the keys' order (alphabetical, folded). A query that ends with a blank
//! wants the whole word: "kim " finds Kim Ann, not Kimura. In a sorted array the keys that
//! start with a prefix are one run, and in that run the ones where the prefix ends at a word's
//! end come first (a blank sorts before every letter and digit), so the best N of a key kind
//! are the first N of its run: a search costs two binary searches and N steps per key kind and
//! query form, whatever the list's size.

use std::collections::HashSet;

use super::fold::{fold, query_forms};
use super::{Entry, RatingList};

#[derive(Debug, Clone, Copy)]
struct Key {
    start: u32,
    len: u32,
    row: u32,
}

fn key_text<'a>(keys: &'a str, k: &Key) -> &'a str {
    let start = k.start as usize;
    keys.get(start..start + k.len as usize).unwrap_or("")
}

/// A list with its search keys.
pub struct Index {
    list: RatingList,
    keys: String,
    family: Vec<Key>,
    given: Vec<Key>,
    ids: Vec<Key>,
}

/// A query, folded once for every list it is run on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// The folded prefixes it is looked up under ([`query_forms`]).
    forms: Vec<String>,
}

impl Query {
    pub fn new(text: &str) -> Query {
        let mut forms = query_forms(text);
        // A trailing blank (or separator) means the word is complete.
        if text.ends_with(|c: char| c.is_whitespace() || matches!(c, '_' | ',' | '-')) {
            for f in &mut forms {
                f.push(' ');
            }
        }
        Query { forms }
    }

    /// Nothing to look for (only blanks and punctuation).
    pub fn is_empty(&self) -> bool {
        self.forms.is_empty()
    }
}

/// One entry found.
#[derive(Debug, Clone, Copy)]
pub struct Hit<'a> {
    pub entry: Entry<'a>,
    /// How good the match is, 0 (best) … 4: see the module's doc.
    pub tier: u8,
    /// The folded key it was found under (the order within a tier).
    pub key: &'a str,
    /// The entry's row in its list.
    pub row: u32,
}

impl<'a> Hit<'a> {
    /// The order of hits: tier, key, list, row.
    pub fn order(&self) -> (u8, &'a str, super::Kind, u32) {
        (self.tier, self.key, self.entry.kind, self.row)
    }
}

/// The best `limit` of `hits` (from one list or several), best first.
pub fn best(mut hits: Vec<Hit<'_>>, limit: usize) -> Vec<Hit<'_>> {
    hits.sort_by(|a, b| a.order().cmp(&b.order()));
    hits.truncate(limit);
    hits
}

impl Index {
    pub fn new(list: RatingList) -> Index {
        let mut keys = String::new();
        let mut family = Vec::with_capacity(list.len());
        let mut given = Vec::with_capacity(list.len());
        let mut ids = Vec::new();
        let add = |keys: &mut String, into: &mut Vec<Key>, text: &str, row: u32| {
            let start = keys.len() as u32;
            keys.push_str(text);
            into.push(Key {
                start,
                len: text.len() as u32,
                row,
            });
        };
        for (row, e) in list.entries().enumerate() {
            let row = row as u32;
            let fam = fold(e.name);
            let giv = fold(e.first_name);
            if !fam.is_empty() {
                // "family " with the blank even without a given name, so that "kim " finds
                // every Kim.
                add(&mut keys, &mut family, &format!("{fam} {giv}"), row);
            }
            if !giv.is_empty() {
                add(&mut keys, &mut given, &format!("{giv} {fam}"), row);
            }
            for id in [e.egf_pin, e.ffg_licence, e.aga_id] {
                let id = fold(id);
                // The FFG list writes "-------" for no licence: it folds to nothing.
                if !id.is_empty() {
                    add(&mut keys, &mut ids, &id, row);
                }
            }
        }
        for v in [&mut family, &mut given, &mut ids] {
            v.sort_unstable_by(|a, b| {
                key_text(&keys, a)
                    .cmp(key_text(&keys, b))
                    .then(a.row.cmp(&b.row))
            });
        }
        let mut index = Index {
            list,
            keys,
            family,
            given,
            ids,
        };
        index.keys.shrink_to_fit();
        index
    }

    pub fn list(&self) -> &RatingList {
        &self.list
    }

    fn key(&self, k: &Key) -> &str {
        key_text(&self.keys, k)
    }

    /// The run of `keys` that starts with `prefix`.
    fn run<'k>(&self, keys: &'k [Key], prefix: &str) -> &'k [Key] {
        let lo = keys.partition_point(|k| self.key(k) < prefix);
        let len = keys[lo..].partition_point(|k| self.key(k).starts_with(prefix));
        &keys[lo..lo + len]
    }

    /// Adds the first `limit` entries of `run` not `seen` yet.
    fn take<'s>(
        &'s self,
        hits: &mut Vec<Hit<'s>>,
        seen: &mut HashSet<u32>,
        run: &[Key],
        limit: usize,
        tier: impl Fn(&str) -> u8,
    ) {
        let mut taken = 0;
        for k in run {
            if taken == limit {
                break;
            }
            if !seen.insert(k.row) {
                continue;
            }
            let Some(entry) = self.list.entry(k.row as usize) else {
                continue;
            };
            let key = self.key(k);
            hits.push(Hit {
                entry,
                tier: tier(key),
                key,
                row: k.row,
            });
            taken += 1;
        }
    }

    /// The best `limit` entries for `query`, best first ([`Hit::order`]).
    pub fn search(&self, query: &Query, limit: usize) -> Vec<Hit<'_>> {
        let mut hits: Vec<Hit<'_>> = Vec::new();
        if limit == 0 {
            return hits;
        }
        let mut seen: HashSet<u32> = HashSet::new();
        for form in &query.forms {
            let id = form.trim_end();
            let run = self.run(&self.ids, id);
            let exact = run.partition_point(|k| self.key(k).len() == id.len());
            self.take(&mut hits, &mut seen, &run[..exact], limit, |_| 0);
        }
        // A row found under its "family given" key is not taken again under "given family".
        for (keys, base) in [(&self.family, 1u8), (&self.given, 3)] {
            for form in &query.forms {
                let ends_word = |key: &str| {
                    form.ends_with(' ')
                        || key.len() == form.len()
                        || key.as_bytes().get(form.len()) == Some(&b' ')
                };
                let tier = |key: &str| if ends_word(key) { base } else { base + 1 };
                self.take(&mut hits, &mut seen, self.run(keys, form), limit, tier);
            }
        }
        best(hits, limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ratings::{Kind, parse};

    /// An FFG-layout list of the given (family, given, rating) rows.
    fn ffg(rows: &[(&str, &str, i32)]) -> Index {
        let mut text = String::from("#Echelle au 01/02/2026 10:00:00\r\n");
        for (k, (family, given, rating)) in rows.iter().enumerate() {
            let names = format!("{family} {given}");
            text.push_str(&format!(
                "{names:<38}{rating:>5} L {:07} 75Pa FR\r\n",
                1000 + k
            ));
        }
        let bytes = encoding_rs::WINDOWS_1252.encode(&text).0.into_owned();
        Index::new(parse(Kind::Ffg, &bytes).unwrap())
    }

    fn names(hits: &[Hit<'_>]) -> Vec<String> {
        hits.iter()
            .map(|h| format!("{} {}", h.entry.name, h.entry.first_name))
            .collect()
    }

    #[test]
    fn prefixes_rank_whole_words_then_family_then_given() {
        let idx = ffg(&[
            ("KIMURA", "Ken", 100),
            ("KIM", "Ann", 200),
            ("LEE", "Kim", 300),
            ("KIM", "Bo", 400),
            ("ABEL", "Kimberley", 500),
            ("KIMBALL", "Joe", 600),
        ]);
        let got = names(&idx.search(&Query::new("kim"), 10));
        assert_eq!(
            got,
            [
                "KIM Ann",
                "KIM Bo",
                "KIMBALL Joe",
                "KIMURA Ken",
                "LEE Kim",
                "ABEL Kimberley"
            ]
        );
        assert_eq!(
            names(&idx.search(&Query::new("kim "), 10)),
            ["KIM Ann", "KIM Bo", "LEE Kim"]
        );
        assert_eq!(names(&idx.search(&Query::new("Kim b"), 10)), ["KIM Bo"]);
        assert_eq!(names(&idx.search(&Query::new("ann kim"), 10)), ["KIM Ann"]);
        assert_eq!(
            names(&idx.search(&Query::new("kim"), 2)),
            ["KIM Ann", "KIM Bo"]
        );
        assert!(idx.search(&Query::new("kim"), 0).is_empty());
        assert!(idx.search(&Query::new("zz"), 10).is_empty());
        assert!(idx.search(&Query::new(" -- "), 10).is_empty());
        assert!(Query::new(" -- ").is_empty());
    }

    #[test]
    fn accents_and_case_do_not_matter() {
        let idx = ffg(&[
            ("MÜLLER", "Hans", 200),
            ("MUELLER", "Jörg", 300),
            ("ÉTIENNE", "Fabrice", 400),
            ("STRAßE", "Uwe", 500),
        ]);
        // ő is not in the FFG file's encoding: see the AGA list's test for it.
        assert_eq!(
            names(&idx.search(&Query::new("muller"), 10)),
            ["MÜLLER Hans"]
        );
        assert_eq!(
            names(&idx.search(&Query::new("Müller"), 10)),
            ["MUELLER Jörg", "MÜLLER Hans"]
        );
        assert_eq!(
            names(&idx.search(&Query::new("etien"), 10)),
            ["ÉTIENNE Fabrice"]
        );
        assert_eq!(
            names(&idx.search(&Query::new("ÉTIENNE f"), 10)),
            ["ÉTIENNE Fabrice"]
        );
        assert_eq!(
            names(&idx.search(&Query::new("strasse"), 10)),
            ["STRAßE Uwe"]
        );
        assert_eq!(
            names(&idx.search(&Query::new("jorg"), 10)),
            ["MUELLER Jörg"]
        );
    }

    #[test]
    fn ids_find_their_entry_first() {
        let idx = ffg(&[("ALPHA", "One", 100), ("BETA", "Two", 200)]);
        let hits = idx.search(&Query::new("0001001"), 10);
        assert_eq!(names(&hits), ["BETA Two"]);
        assert_eq!(hits[0].tier, 0);
        // A part of an id is no match.
        assert!(idx.search(&Query::new("000100"), 10).is_empty());
    }
}
