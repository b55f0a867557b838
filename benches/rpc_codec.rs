//! The protocol share of one match cycle, without HTTP or the store: decoding a Ruby-style
//! `commit_match` request and encoding its reply over XML-RPC, and putting JSON-RPC params in
//! the table's order. End-to-end figures (HTTP, durable commits) are in BENCHMARKS.md, from
//! `clients/replay/bench.sh`.

use criterion::{Criterion, criterion_group, criterion_main};
use goswiss::rpc::{json_call, lookup, xmlrpc};
use serde_json::json;
use std::hint::black_box;

const COMMIT: &[u8] = b"<?xml version=\"1.0\" ?><methodCall><methodName>matchmaker.commit_match</methodName><params><param><value><i4>19</i4></value></param><param><value><array><data><value><i4>3</i4></value><value><i4>2</i4></value></data></array></value></param><param><value><i4>-1</i4></value></param></params></methodCall>\n";

fn bench(c: &mut Criterion) {
    c.bench_function("xmlrpc parse commit_match", |b| {
        b.iter(|| xmlrpc::parse_call(black_box(COMMIT)).unwrap())
    });
    c.bench_function("xmlrpc parse + to_json commit_match", |b| {
        b.iter(|| {
            let call = xmlrpc::parse_call(black_box(COMMIT)).unwrap();
            call.params
                .into_iter()
                .map(xmlrpc::to_json)
                .collect::<Vec<_>>()
        })
    });
    let pair = json!([102, 105]);
    c.bench_function("xmlrpc write checkout reply", |b| {
        b.iter(|| xmlrpc::write_response(black_box(&pair), false))
    });
    let method = lookup("matchmaker.commit_match").unwrap();
    c.bench_function("jsonrpc positional params", |b| {
        b.iter(|| json_call::params_for(method, Some(black_box("[19,[3,2],-1]"))).unwrap())
    });
    c.bench_function("jsonrpc named params", |b| {
        b.iter(|| {
            json_call::params_for(
                method,
                Some(black_box(
                    r#"{"tournament_id":19,"pair":[3,2],"result":-1}"#,
                )),
            )
            .unwrap()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
