//! Parsing a TDListA of the real list's size (22,000 lines): lines per second through
//! `aga::tdlist::for_each_line`. The list is generated from the anonymised 526-row sample (same
//! fields, empty fields, CRLF ends, trailing spaces), with fresh IDs so no line repeats.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use goswiss::aga::tdlist;
use std::hint::black_box;

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/aga/upstream/opengotha-tdlista-anonymised-sample.txt"
);
const LINES: usize = 22_000;

fn generate() -> String {
    let sample =
        std::fs::read_to_string(SAMPLE).expect("the TDListA sample is in tests/data/aga/upstream");
    let rows: Vec<&str> = sample.lines().collect();
    let mut out = String::with_capacity(LINES * 70);
    for i in 0..LINES {
        let row = rows[i % rows.len()];
        let mut fields: Vec<&str> = row.split('\t').collect();
        let id = (10_000 + i).to_string();
        fields[1] = &id;
        out.push_str(&fields.join("\t"));
        out.push_str("\r\n");
    }
    out
}

fn bench(c: &mut Criterion) {
    let text = generate();
    let mut g = c.benchmark_group("aga_tdlist");
    g.throughput(Throughput::Elements(LINES as u64));
    g.bench_function("parse_tdlista_22000_lines", |b| {
        b.iter(|| {
            let mut n = 0usize;
            tdlist::for_each_line(black_box(&text), |_, rec, _| {
                if let Some(r) = rec {
                    n += r.aga_num.len();
                }
            });
            n
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
