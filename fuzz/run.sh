#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer's coverage instrumentation on stable Rust and runs one.
#
#   fuzz/run.sh build                      build every target
#   fuzz/run.sh TARGET [libFuzzer flags]   build, then fuzz TARGET on fuzz/corpus/TARGET,
#                                          seeded from fuzz/seeds/TARGET (made by seed.sh)
#
# e.g. fuzz/run.sh sgf_parse -runs=10000000 -max_len=4096
# Crashes land in fuzz/artifacts/TARGET/; replay one with `fuzz/run.sh TARGET FILE...`. A
# crash found becomes a file in tests/data/fuzz/TARGET/, replayed by tests/it/protocol/fuzz_regressions.rs.
#
# These are the flags cargo-fuzz passes with `--sanitizer none`, all stable: no nightly, no
# RUSTC_BOOTSTRAP. `--target` keeps them off build scripts and proc macros, which must not be
# instrumented (they are not linked with libFuzzer). The coverage instrumentation itself is
# added by fuzz/sancov-rustc to goswiss's own crates only (why: see that file); every crate
# gets debug assertions and overflow checks.
set -euo pipefail
cd "$(dirname "$0")"
triple=$(rustc -vV | sed -n 's/^host: //p')
export RUSTFLAGS="--cfg fuzzing -Cdebug-assertions -Coverflow-checks"
export RUSTC_WRAPPER="$PWD/sancov-rustc"
target=${1:?usage: fuzz/run.sh build | TARGET [libFuzzer flags]}
shift
if [ "$target" = build ]; then
    exec cargo build --release --target "$triple" --bins
fi
cargo build --release --target "$triple" --bin "$target"
bin="target/$triple/release/$target"
# Replay: fuzz/run.sh TARGET FILE... runs just those inputs.
if [ $# -gt 0 ] && [ -f "$1" ]; then
    exec "$bin" "$@"
fi
mkdir -p "corpus/$target" "artifacts/$target"
seeds=()
[ -d "seeds/$target" ] && seeds=("seeds/$target")
exec "$bin" -artifact_prefix="artifacts/$target/" "$@" \
    "corpus/$target" "${seeds[@]}"
