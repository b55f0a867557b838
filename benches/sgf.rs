//! SGF throughput: parse, parse + typed main line, serialise, on a large collection made by
//! concatenating the loadable golden files many times (goal: ≥ 200 MB/s parse),
//! and the `sgf-parse` crate on the same UTF-8 games in the same run, for the ratio.
//!
//! Run: `nice -n 10 cargo bench --bench sgf`. The corpus is read from tests/data/sgf at
//! run time (never copied into the repository).
//!
//! The machine is shared, so every benchmark runs twice: group `sgf` measures wall-clock
//! time, group `sgf_cpu` this process's CPU time (what the code costs whatever else runs).
//! Throughput is in MB/s (10^6 bytes).

use std::hint::black_box;
use std::time::{Duration, Instant};

use std::sync::LazyLock;

use cpu_time::ProcessTime;
use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use goswiss::sgf::{LoadOptions, parse_collection};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sgf");
/// Target corpus size: large enough that the game data does not sit in L2.
const TARGET_BYTES: usize = 16 << 20;

struct Corpus {
    /// Every file that loads as a one-game collection, concatenated and repeated.
    all: Vec<u8>,
    /// The subset that is UTF-8 and that sgf-parse also accepts, repeated.
    utf8: String,
}

fn files() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(DATA)];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "sgf")
                && let Ok(bytes) = std::fs::read(&path)
            {
                out.push(bytes);
            }
        }
    }
    out.sort();
    out
}

fn corpus() -> Corpus {
    let opts = LoadOptions::default();
    let mut one = Vec::new();
    let mut one_utf8 = String::new();
    for f in files() {
        // Keep files that load cleanly as a collection on their own (truncated files and
        // trailing junk with another `(;` would break the concatenation).
        if parse_collection(&f, &opts).is_err() {
            continue;
        }
        one.extend_from_slice(&f);
        one.push(b'\n');
        if let Ok(text) = std::str::from_utf8(&f)
            && sgf_parse::parse(text).is_ok()
        {
            one_utf8.push_str(text);
            one_utf8.push('\n');
        }
    }
    let reps = TARGET_BYTES / one.len().max(1) + 1;
    let reps_utf8 = TARGET_BYTES / one_utf8.len().max(1) + 1;
    Corpus {
        all: one.repeat(reps),
        utf8: one_utf8.repeat(reps_utf8),
    }
}

/// Parses, then reads every main-line move as a typed point (what a rules engine does).
fn parse_and_main_lines(bytes: &[u8]) -> usize {
    let games = parse_collection(bytes, &LoadOptions::default()).expect("corpus parses");
    let mut moves = 0;
    for g in &games {
        for node in g.main_sequence() {
            if let Ok(Some(_)) = g.get_move(node) {
                moves += 1;
            }
        }
    }
    moves
}

fn mb_per_s(bytes: usize, elapsed: Duration) -> f64 {
    bytes as f64 / elapsed.as_secs_f64() / 1e6
}

static CORPUS: LazyLock<Corpus> = LazyLock::new(corpus);

/// Process CPU time as a criterion measurement.
struct CpuTime;

struct CpuFormatter;

impl ValueFormatter for CpuFormatter {
    fn scale_values(&self, _typical: f64, values: &mut [f64]) -> &'static str {
        for v in values.iter_mut() {
            *v /= 1e6;
        }
        "ms CPU"
    }

    fn scale_throughputs(
        &self,
        _typical: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let (amount, unit) = match *throughput {
            Throughput::Bytes(b) | Throughput::BytesDecimal(b) => (b as f64 / 1e6, "MB/s CPU"),
            Throughput::Elements(e) | Throughput::ElementsAndBytes { elements: e, .. } => {
                (e as f64, "elem/s CPU")
            }
            Throughput::Bits(b) => (b as f64 / 1e6, "Mbit/s CPU"),
        };
        for v in values.iter_mut() {
            *v = amount * 1e9 / *v;
        }
        unit
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

impl Measurement for CpuTime {
    type Intermediate = ProcessTime;
    type Value = Duration;

    fn start(&self) -> ProcessTime {
        ProcessTime::now()
    }

    fn end(&self, start: ProcessTime) -> Duration {
        start.elapsed()
    }

    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuFormatter
    }
}

/// The benchmarks, under any measurement.
fn group<M: Measurement>(c: &mut Criterion<M>, name: &str) {
    let corpus = &*CORPUS;
    let opts = LoadOptions::default();
    let games = parse_collection(&corpus.all, &opts).expect("corpus parses");
    let serialised_len: usize = games
        .iter()
        .map(|g| g.serialise(Some(79)).map_or(0, |s| s.len()))
        .sum();
    eprintln!(
        "corpus: {:.1} MB, {} games; UTF-8 subset for sgf-parse: {:.1} MB",
        corpus.all.len() as f64 / 1e6,
        games.len(),
        corpus.utf8.len() as f64 / 1e6
    );

    let mut group = c.benchmark_group(name);
    // Each run takes 50 ms to 2 s: flat sampling keeps the total time bounded.
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .measurement_time(Duration::from_secs(4));
    group.throughput(Throughput::BytesDecimal(corpus.all.len() as u64));
    group.bench_function("parse", |b| {
        b.iter(|| parse_collection(black_box(&corpus.all), &opts).map(|g| g.len()))
    });
    group.bench_function("parse_and_typed_main_line", |b| {
        b.iter(|| parse_and_main_lines(black_box(&corpus.all)))
    });
    group.throughput(Throughput::BytesDecimal(serialised_len as u64));
    group.bench_function("serialise", |b| {
        b.iter(|| {
            games
                .iter()
                .map(|g| g.serialise(Some(79)).map_or(0, |s| s.len()))
                .sum::<usize>()
        })
    });
    group.throughput(Throughput::BytesDecimal(corpus.utf8.len() as u64));
    group.bench_function("parse_utf8_subset", |b| {
        b.iter(|| parse_collection(black_box(corpus.utf8.as_bytes()), &opts).map(|g| g.len()))
    });
    group.bench_function("sgf_parse_crate_utf8_subset", |b| {
        b.iter(|| sgf_parse::parse(black_box(&corpus.utf8)).map(|g| g.len()))
    });
    group.finish();
}

fn wall_benches(c: &mut Criterion) {
    group(c, "sgf");
}

fn cpu_benches(c: &mut Criterion<CpuTime>) {
    group(c, "sgf_cpu");
}

/// Figures measured back to back in one run, wall and CPU, with the sgf-parse ratio.
fn same_run(_: &mut Criterion) {
    let corpus = &*CORPUS;
    let opts = LoadOptions::default();
    let games = parse_collection(&corpus.all, &opts).expect("corpus parses");
    // The ratio, measured here in one run on the same input, wall-clock and CPU time.
    let n = corpus.utf8.len();
    let (ours_wall, ours_cpu) = timed(8, || {
        black_box(
            parse_collection(corpus.utf8.as_bytes(), &opts)
                .map(|g| g.len())
                .ok(),
        );
    });
    let (theirs_wall, theirs_cpu) = timed(2, || {
        black_box(sgf_parse::parse(&corpus.utf8).map(|g| g.len()).ok());
    });
    eprintln!(
        "same run, UTF-8 subset ({:.1} MB): goswiss {:.0} MB/s wall, {:.0} MB/s CPU; \
         sgf-parse {:.1} MB/s wall, {:.1} MB/s CPU; ratio {:.1}x wall, {:.1}x CPU",
        n as f64 / 1e6,
        mb_per_s(n, ours_wall),
        mb_per_s(n, ours_cpu),
        mb_per_s(n, theirs_wall),
        mb_per_s(n, theirs_cpu),
        theirs_wall.as_secs_f64() / ours_wall.as_secs_f64(),
        theirs_cpu.as_secs_f64() / ours_cpu.as_secs_f64(),
    );
    let all = corpus.all.len();
    let (wall, cpu) = timed(8, || {
        black_box(parse_collection(&corpus.all, &opts).map(|g| g.len()).ok());
    });
    let (mwall, mcpu) = timed(8, || {
        black_box(parse_and_main_lines(&corpus.all));
    });
    let out: usize = games
        .iter()
        .map(|g| g.serialise(Some(79)).map_or(0, |s| s.len()))
        .sum();
    let (swall, scpu) = timed(8, || {
        black_box(
            games
                .iter()
                .map(|g| g.serialise(Some(79)).map_or(0, |s| s.len()))
                .sum::<usize>(),
        );
    });
    eprintln!(
        "full corpus ({:.1} MB): parse {:.0} MB/s wall, {:.0} MB/s CPU; parse + typed main line {:.0} / {:.0}; \
         serialise {:.0} / {:.0}",
        all as f64 / 1e6,
        mb_per_s(all, wall),
        mb_per_s(all, cpu),
        mb_per_s(all, mwall),
        mb_per_s(all, mcpu),
        mb_per_s(out, swall),
        mb_per_s(out, scpu),
    );
}

/// Average wall and CPU time per run over `runs` runs.
fn timed<F: FnMut()>(runs: u32, mut f: F) -> (Duration, Duration) {
    let (w0, c0) = (Instant::now(), ProcessTime::now());
    for _ in 0..runs {
        f();
    }
    let (wall, cpu) = (w0.elapsed(), c0.elapsed());
    (wall / runs, (cpu / runs).max(Duration::from_micros(1)))
}

criterion_group!(sgf_wall, wall_benches, same_run);
criterion_group! {
    name = sgf_cpu;
    config = Criterion::default().with_measurement(CpuTime);
    targets = cpu_benches
}
criterion_main!(sgf_wall, sgf_cpu);
