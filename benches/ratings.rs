//! The registration desk's search, one keystroke at a time, on a full-size EGF list: the goal
//! is ≤ 5 ms per keystroke (README, docs/ratings.md). The real list (~80,000 players, 7 MB)
//! is not in the repository (tests/data/ratings holds excerpts), so the list is generated in
//! the EGF's own byte columns and encoding (ISO-8859-1): 80,000 players whose family names
//! are drawn from a pool skewed like a real list's (a few names such as Kim, Lee or Müller
//! held by thousands, most by one or two), with accented letters, some without a first name.
//! Also measured: reading and indexing the whole list (an import, or a daemon's start). With
//! `GOSWISS_BENCH_EGF_LIST=FILE` the keystrokes are timed on that real list too.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use goswiss::ratings::{self, Index, Kind, Query};
use std::hint::black_box;

const PLAYERS: usize = 80_000;

/// A small deterministic generator (xorshift64*): the same list on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const SYLLABLES: &[&str] = &[
    "ka", "ki", "ko", "ma", "mü", "mo", "le", "li", "sa", "sé", "ta", "to", "ná", "ne", "ro", "ra",
    "bö", "be", "ha", "hi", "ja", "ju", "va", "vé", "da", "de", "fa", "fi", "go", "gu", "pa", "pe",
    "wa", "we", "zi", "zo", "ch", "sch", "ll", "er", "an", "en", "ol", "ul", "ás", "ek",
];
const COMMON: &[&str] = &[
    "Kim", "Lee", "Park", "Müller", "Schmidt", "Nagy", "Novák", "Wang", "Li", "Chen", "Martin",
    "Bernard", "Petit", "Dubois", "Jansen", "Smirnov", "Ivanov", "Kovács", "Horváth", "Svoboda",
];
const GIVEN: &[&str] = &[
    "Hans",
    "Jörg",
    "Ágota",
    "René",
    "Éva",
    "Zoltán",
    "Anna",
    "Peter",
    "Jan",
    "Ivan",
    "Marie",
    "Tomás",
    "Lukas",
    "Sören",
    "Ana",
    "Min",
    "Ji",
    "Hyun",
    "Yuki",
    "Aleksandr",
    "François",
    "Béla",
    "Ilse",
    "Ole",
    "Sara",
    "Marco",
    "Jiří",
    "Paweł",
    "Dmitri",
    "Kees",
];
const COUNTRIES: &[&str] = &["DE", "FR", "HU", "CZ", "KR", "NL", "RU", "PL", "UA", "AT"];

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The list as the EGD publishes it: a `<pre>` of fixed byte columns, ISO-8859-1.
fn generate() -> Vec<u8> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let pool: Vec<String> = (0..20_000)
        .map(|_| {
            let n = 2 + rng.below(3);
            capitalised(
                &(0..n)
                    .map(|_| SYLLABLES[rng.below(SYLLABLES.len())])
                    .collect::<String>(),
            )
        })
        .collect();
    let mut text = String::from("<pre>\n(27 Dec 2018)\n");
    for k in 0..PLAYERS {
        // A third of the players share the 20 common names, the rest spread over the pool
        // with a skew towards its start (min of two draws).
        let family = if rng.below(3) == 0 {
            COMMON[rng.below(COMMON.len()).min(rng.below(COMMON.len()))].to_string()
        } else {
            pool[rng.below(pool.len()).min(rng.below(pool.len()))].clone()
        };
        let given = if rng.below(40) == 0 {
            ""
        } else {
            GIVEN[rng.below(GIVEN.len())]
        };
        let names = format!("{family} {given}");
        let gor = 100 + rng.below(2700);
        let grade = if gor >= 2100 {
            format!("{}d", (gor - 2000) / 100)
        } else {
            format!("{}k", (2100 - gor) / 100)
        };
        let pin = 10_000_000 + k;
        let country = COUNTRIES[rng.below(COUNTRIES.len())];
        let club = rng.below(10_000);
        text.push_str(&format!(
            " {pin:08}  {names:<37} {country:<3} {club:<4}   {grade:>3}   --   {gor:>4}    12  T181124B\n"
        ));
    }
    text.push_str("</pre>\n");
    // ISO-8859-1, as the EGD writes it (ř, ł are outside it: written as r, l by the EGD too).
    text.chars()
        .map(|c| match c {
            'ř' => b'r',
            'ł' => b'l',
            c if (c as u32) < 256 => c as u32 as u8,
            _ => b'?',
        })
        .collect()
}

/// Every keystroke of typing `name`: "m", "mü", "mül", ...
fn keystrokes(name: &str) -> Vec<Query> {
    name.char_indices()
        .map(|(k, c)| Query::new(&name[..k + c.len_utf8()]))
        .collect()
}

const TYPED: &[&str] = &[
    "Müller Hans",
    "kim ji",
    "Novak E",
    "agota",
    "Zoltan N",
    "10054321",
];

fn bench(c: &mut Criterion) {
    let file = generate();
    let list = ratings::parse(Kind::Egf, &file).expect("the generated list reads");
    assert_eq!(list.len(), PLAYERS);
    keystrokes_on(c, "ratings", &Index::new(list));
    // A real list too, when one is at hand (not in the repository): the EGD's
    // allworld_lp.html, or OpenGotha's ratinglists/egf_db.txt.
    if let Some(path) = std::env::var_os("GOSWISS_BENCH_EGF_LIST") {
        let real = std::fs::read(&path).expect("GOSWISS_BENCH_EGF_LIST is readable");
        let list = ratings::parse(Kind::Egf, &real).expect("GOSWISS_BENCH_EGF_LIST reads");
        println!(
            "real EGF list: {} players, {} bytes",
            list.len(),
            real.len()
        );
        keystrokes_on(c, "ratings_real_list", &Index::new(list));
    }

    let mut g = c.benchmark_group("ratings_import");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(file.len() as u64));
    g.bench_function("parse_and_index_80000_players", |b| {
        b.iter(|| {
            Index::new(ratings::parse(Kind::Egf, black_box(&file)).unwrap())
                .list()
                .len()
        })
    });
    g.finish();
}

fn keystrokes_on(c: &mut Criterion, group: &str, index: &Index) {
    let mut g = c.benchmark_group(group);
    for name in TYPED {
        let typed = keystrokes(name);
        g.throughput(Throughput::Elements(typed.len() as u64));
        g.bench_function(format!("keystrokes_{}", name.replace(' ', "_")), |b| {
            b.iter(|| {
                let mut found = 0;
                for q in &typed {
                    found += index.search(black_box(q), 10).len();
                }
                found
            })
        });
    }
    // The worst single keystroke: one letter, the most common initial.
    let k = Query::new("k");
    g.throughput(Throughput::Elements(1));
    g.bench_function("keystroke_k_limit_100", |b| {
        b.iter(|| index.search(black_box(&k), 100).len())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
