//! Every input the fuzz targets (fuzz/, README "Fuzzing") found a crash with, replayed
//! through the same target code: each must now return without a panic. The inputs are in
//! tests/data/fuzz/TARGET/, one file each, named after what they caught.

#[path = "../../../fuzz/fuzz_targets/harness.rs"]
mod harness;

use crate::common::files;

#[test]
fn every_saved_crash_input_passes() {
    let mut replayed = 0;
    for (target, run) in harness::TARGETS {
        let dir = format!("{}/tests/data/fuzz/{target}", env!("CARGO_MANIFEST_DIR"));
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            if path.extension().is_some_and(|e| e == "md") {
                continue;
            }
            let data = files::read(&path);
            eprintln!("{target}: {}", path.display());
            run(&data);
            replayed += 1;
        }
    }
    eprintln!("{replayed} inputs replayed");
}

/// The harness itself on real files (so the test above cannot pass on a harness that does
/// nothing): each target reads them without a panic, with a few option bytes.
#[test]
fn the_targets_read_real_files() {
    let register = files::read(files::data("aga/upstream/agatourn-1.035-t/register.tde"));
    let round = files::read(files::data("aga/upstream/agatourn-1.035-t/1.tde"));
    let xml = files::read(files::data("opengotha/synthetic/synth_small.xml"));
    let sgf = files::read(files::data("sgf/SabakiHQ__sgf/tests/sgf/japanese.sgf"));
    let with = |prefix: &[u8], body: &[u8]| [prefix, body].concat();
    for (prefix, body) in [
        (&[0u8, 0][..], &sgf),
        (&[0xff, 0x41], &sgf),
        (&[1, 0x4e], &sgf),
    ] {
        harness::sgf_parse(&with(prefix, body));
    }
    for pick in [0u8, 4, 1, 9] {
        harness::aga_files(&with(
            &[pick],
            if pick & 3 == 0 { &register } else { &round },
        ));
    }
    let files_nul = [register.clone(), vec![0], round.clone()].concat();
    harness::aga_files(&with(&[3], &files_nul));
    harness::aga_import(&files_nul);
    harness::opengotha_import(&xml);
    harness::xmlrpc_body(
        b"<?xml version=\"1.0\"?><methodCall><methodName>system.echo</methodName><params>\
          <param><value><struct><member><name>a</name><value><base64>aGk=</base64></value>\
          </member></struct></value></param></params></methodCall>",
    );
    harness::jsonrpc_params(b"\x05{\"players\":[1,2,3]}");
}
