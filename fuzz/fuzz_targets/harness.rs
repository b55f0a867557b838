//! The fuzz targets' bodies, as plain functions: `fuzz_targets/*.rs` hand them libFuzzer's
//! inputs, and `tests/it/protocol/fuzz_regressions.rs` (in `cargo test`) replays every saved input through
//! the same functions. An input passes when the function returns: a panic is the bug.

#![allow(dead_code)]

use goswiss::rpc::methods::{aga, sgf, tournament_io};
use goswiss::rpc::{Params, TABLE, Value, Wire, json_call, xmlrpc};
use goswiss::tournament::formats::export;
use goswiss::tournament::model::TournamentData;
use serde_json::json;

/// The XML-RPC request body parser, then the conversion of its values to the method table's
/// JSON and the reply writer on them (what a request's values go through).
pub fn xmlrpc_body(data: &[u8]) {
    let Ok(call) = xmlrpc::parse_call(data) else {
        return;
    };
    let _ = goswiss::rpc::lookup(&call.name);
    let params: Vec<Value> = call.params.into_iter().map(xmlrpc::to_json).collect();
    let reply = xmlrpc::write_response(&Value::Array(params), call.uses_nil);
    assert!(reply.starts_with("<?xml"));
}

/// The JSON-RPC params adapter: the first byte picks a method of the table, the rest is the
/// `params` text (array, object, anything), put in the table's positional order.
pub fn jsonrpc_params(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let method = TABLE[pick as usize % TABLE.len()];
    let Ok(raw) = std::str::from_utf8(rest) else {
        return;
    };
    let raw = (!raw.is_empty()).then_some(raw);
    if let Ok(params) = json_call::params_for(method, raw) {
        for (i, p) in method.params.iter().enumerate() {
            let _ = params.opt::<Value>(i, p.name);
        }
    }
}

const ENCODINGS: &[Option<&str>] = &[
    None,
    None,
    Some("UTF-8"),
    Some("ISO-8859-1"),
    Some("GB2312"),
    Some("Shift_JIS"),
    Some("UTF-16"),
    Some("no-such-charset"),
];

/// `sgf.parse`, `sgf.normalise`, `sgf.game_info`, `sgf.main_line` with every option,
/// `sgf.serialise` of what `sgf.parse` returned, and the JSON-RPC text of one of the
/// `sgf.parse` and `sgf.main_line` answers and the XML-RPC text of the other (which one gets
/// which follows the input's length). The first two bytes choose the options; the rest
/// is the file's bytes (sent as an array of bytes, so any encoding reaches the parser, or as
/// text when bit 6 of the second byte says so and the bytes are UTF-8); bit 7 of the second
/// byte says whether the XML-RPC client used `<nil/>`.
pub fn sgf_parse(data: &[u8]) {
    let [a, b, rest @ ..] = data else {
        return;
    };
    let bit = |x: u8, i: u32| x >> i & 1 == 1;
    let wrap = [None, Some(0), Some(1), Some(79)][(*b >> 4 & 3) as usize];
    let options = json!({
        "collection": bit(*a, 0),
        "root_without_semicolon": bit(*a, 1),
        "multibyte_aware": bit(*a, 2),
        "utf16": bit(*a, 3),
        "detect_encoding": bit(*a, 4),
        "large_boards": bit(*a, 5),
        "rectangular_boards": bit(*a, 6),
        "allow_undefined_bytes": bit(*a, 7),
        "lenient": bit(*b, 0),
        "encoding": ENCODINGS[(*b >> 1 & 7) as usize],
        "wrap": wrap,
    });
    let input = match std::str::from_utf8(rest) {
        Ok(s) if bit(*b, 6) => Value::String(s.to_owned()),
        _ => Value::Array(rest.iter().map(|&x| Value::from(x)).collect()),
    };
    let params = Params::positional(vec![input.clone(), options.clone()]);
    if let Ok(parsed) = sgf::parse(&params) {
        // What parse gives, serialise takes back: each game of the answer (an error entry
        // of a collection is refused as a tree, which is fine too).
        if let Some(Value::Array(games)) = parsed.get("games") {
            for g in games {
                let _ = sgf::serialise(&Params::positional(vec![g.clone()]));
            }
        }
    }
    // The answer as a wire writes it, one node at a time: JSON-RPC for parse and XML-RPC for
    // main_line, or the other way round by the input's length. Each load is most of an
    // input's cost, so one wire per method instead of both keeps the executions cheap
    // while every method still meets every wire.
    let nil_ok = bit(*b, 7);
    let (parse_wire, main_line_wire) = if rest.len() % 2 == 0 {
        (Wire::Json, Wire::Xml { nil_ok })
    } else {
        (Wire::Xml { nil_ok }, Wire::Json)
    };
    let _ = sgf::parse_on_wire(&params.with_wire(parse_wire));
    let mut one = options;
    one["collection"] = Value::Bool(false);
    let params = Params::positional(vec![input, one]);
    let _ = sgf::normalise(&params);
    let _ = sgf::game_info(&params);
    let _ = sgf::main_line_on_wire(&params.with_wire(main_line_wire));
}

/// The AGA file parsers over RPC: `aga.parse_register`, `aga.parse_round`, `aga.parse_tdlist`
/// and `aga.tournament` (register + round files, with tscore). The first byte picks the method
/// and mode; for `aga.tournament` NUL bytes separate the register from the round files.
pub fn aga_files(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest).into_owned();
    let mode = if pick & 4 == 0 { "compat" } else { "strict" };
    let _ = match pick & 3 {
        0 => aga::parse_register_method(&Params::positional(vec![text.into(), mode.into()])),
        1 => aga::parse_round_method(&Params::positional(vec![
            text.into(),
            Value::from(u32::from(pick >> 3)),
            mode.into(),
        ])),
        2 => aga::parse_tdlist_method(&Params::positional(vec![
            text.into(),
            json!({"offset": pick >> 3, "limit": if pick & 8 == 0 { None } else { Some(3) }}),
        ])),
        _ => {
            let mut files = text.split('\0');
            let register = files.next().unwrap_or_default().to_owned();
            let rounds: Vec<Value> = files.map(Value::from).collect();
            aga::tournament_method(&Params::positional(vec![
                register.into(),
                rounds.into(),
                json!({"mode": mode, "handicaps": pick & 8 != 0}),
            ]))
        }
    };
}

/// `tournament.import` of an OpenGotha XML file: the reader, the checks that turn it into
/// events, then every export of what was read.
pub fn opengotha_import(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(t) = tournament_io::parse_import("opengotha", text.into()) {
        import_and_export(t);
    }
}

/// `tournament.import` of AGA files (register.tde, then round files, separated by NUL bytes):
/// the reader, the checks that turn it into events, then every export of what was read.
pub fn aga_import(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut files = text.split('\0');
    let register = files.next().unwrap_or_default();
    let rounds: Vec<&str> = files.collect();
    let data = json!({"register": register, "rounds": rounds});
    if let Ok(t) = tournament_io::parse_import("aga", data) {
        import_and_export(t);
    }
}

/// What the import targets do with a file that read: the import's events, then every export
/// format of the data (OpenGotha XML, AGA files and reports, the EGF `.h9` table, CSV).
fn import_and_export(t: TournamentData) {
    if tournament_io::import_events(t.clone(), 7).is_err() {
        return;
    }
    let o = export::Options {
        save_dt: "20261126120000".into(),
        ..export::Options::default()
    };
    for f in export::FORMATS {
        let _ = export::export(&t, f.format, &o);
    }
}

/// A target's body.
pub type Target = fn(&[u8]);

/// Every target by name, for the regression test.
pub const TARGETS: &[(&str, Target)] = &[
    ("xmlrpc_body", xmlrpc_body),
    ("jsonrpc_params", jsonrpc_params),
    ("sgf_parse", sgf_parse),
    ("aga_files", aga_files),
    ("opengotha_import", opengotha_import),
    ("aga_import", aga_import),
];
