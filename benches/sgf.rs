//! SGF throughput: parse, parse + typed main line, serialise, on a large collection made by
//! concatenating the loadable golden files many times (spec/sgf.md §12: ≥ 200 MB/s parse),
//! and the `sgf-parse` crate on the same UTF-8 games in the same run, for the ratio.
//!
//! Run: `nice -n 10 cargo bench --bench sgf`. The corpus is read from ../shared/data/sgf at
//! run time (never copied into the repository).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use goswiss::sgf::{LoadOptions, parse_collection};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/sgf");
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

fn benches(c: &mut Criterion) {
    let corpus = corpus();
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

    let mut group = c.benchmark_group("sgf");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(4));
    group.throughput(Throughput::Bytes(corpus.all.len() as u64));
    group.bench_function("parse", |b| {
        b.iter(|| parse_collection(black_box(&corpus.all), &opts).map(|g| g.len()))
    });
    group.bench_function("parse_and_typed_main_line", |b| {
        b.iter(|| parse_and_main_lines(black_box(&corpus.all)))
    });
    group.throughput(Throughput::Bytes(serialised_len as u64));
    group.bench_function("serialise", |b| {
        b.iter(|| {
            games
                .iter()
                .map(|g| g.serialise(Some(79)).map_or(0, |s| s.len()))
                .sum::<usize>()
        })
    });
    group.throughput(Throughput::Bytes(corpus.utf8.len() as u64));
    group.bench_function("parse_utf8_subset", |b| {
        b.iter(|| parse_collection(black_box(corpus.utf8.as_bytes()), &opts).map(|g| g.len()))
    });
    group.bench_function("sgf_parse_crate_utf8_subset", |b| {
        b.iter(|| sgf_parse::parse(black_box(&corpus.utf8)).map(|g| g.len()))
    });
    group.finish();

    // The ratio, measured here in one run on the same input. This machine is shared, so
    // CPU time (from /proc/self/stat) is printed beside wall-clock time: it is what the
    // parser costs, whatever else is running.
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

/// This process's user + system CPU time, from /proc/self/stat (Linux; zero elsewhere).
fn cpu_time() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i).and_then(|f| f.parse::<u64>().ok()))
        .sum();
    // USER_HZ is 100 on Linux.
    Duration::from_millis(ticks * 10)
}

/// Average wall and CPU time per run over `runs` runs.
fn timed<F: FnMut()>(runs: u32, mut f: F) -> (Duration, Duration) {
    let (w0, c0) = (Instant::now(), cpu_time());
    for _ in 0..runs {
        f();
    }
    let (wall, cpu) = (w0.elapsed(), cpu_time().saturating_sub(c0));
    (wall / runs, (cpu / runs).max(Duration::from_micros(1)))
}

criterion_group!(sgf_benches, benches);
criterion_main!(sgf_benches);
