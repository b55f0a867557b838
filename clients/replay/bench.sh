#!/usr/bin/env bash
# End-to-end throughput of a release goswiss, as recorded in BENCHMARKS.md: durable match
# cycles/s at 1, 8 and 64 concurrent tournaments over JSON-RPC and XML-RPC, the bare protocol
# cost (system.echo) for comparison, and the server's CPU time per RPC (from /proc).
#
#   cargo build --release && clients/replay/bench.sh
#
# Environment: PORT (default 19090), DB_DIR (default a fresh temporary directory on the same
# disk as /tmp), PLAYERS (16), SCALE (1: multiply the tournament counts), PROTOCOLS
# ("jsonrpc xmlrpc"), LEVELS ("1 8 64"), SERVER and REPLAY (the binaries, default
# target/release/: point SERVER at a copy of an older build for interleaved A/B runs).
# Loopback only; every run is bounded.
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT=${PORT:-19090}
PLAYERS=${PLAYERS:-16}
SCALE=${SCALE:-1}
PROTOCOLS=${PROTOCOLS:-"jsonrpc xmlrpc"}
LEVELS=${LEVELS:-"1 8 64"}
DB_DIR=${DB_DIR:-$(mktemp -d)}
SERVER=${SERVER:-target/release/goswiss}
REPLAY=${REPLAY:-target/release/goswiss-replay}
URL="http://127.0.0.1:$PORT/"

"$SERVER" serve --listen "127.0.0.1:$PORT" --db "$DB_DIR/bench.db" --log-level warn &
PID=$!
trap 'kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
    if curl -sf "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; then break; fi
    sleep 0.1
done

TCK=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$PID/stat"; }

echo "# $(date -u +%FT%TZ) $(nproc) cores, $(uptime | sed 's/.*load/load/')"
echo "# db: $DB_DIR/bench.db ($(df -h "$DB_DIR" | awk 'NR==2{print $1}')), players $PLAYERS"
printf '%-8s %5s %6s %9s %9s %9s %9s %9s %12s\n' protocol conc tourn cycles/s RPC/s \
    co_p50ms cm_p50ms cm_p99ms srv_us/RPC

run() { # protocol concurrency tournaments [extra replay flags...]
    local proto=$1 conc=$2 n=$3
    shift 3
    local before after out
    before=$(cpu)
    out=$("$REPLAY" --url "$URL" --protocol "$proto" --players "$PLAYERS" --tournaments "$n" \
        --concurrency "$conc" --allow-repeat --seed 1 --json --quiet "$@")
    after=$(cpu)
    python3 - "$proto" "$conc" "$before" "$after" "$TCK" "$out" <<'EOF'
import json, sys
proto, conc, before, after, tck, out = sys.argv[1:]
s = json.loads(out)
lat = s["latency"]
cpu_us = (float(after) - float(before)) / float(tck) * 1e6
per = cpu_us / max(s["rpcs"], 1)
if "system.echo" in lat:
    e = lat["system.echo"]
    print(f"{proto:<8} {conc:>5} {'echo':>6} {'-':>9} {s['rpc_per_second']:>9.0f} "
          f"{e['p50_ms']:>9.3f} {'-':>9} {e['p99_ms']:>9.3f} {per:>12.1f}")
else:
    co, cm = lat["matchmaker.checkout_match"], lat["matchmaker.commit_match"]
    bad = "" if s["violations"] == 0 and s["transport_errors"] == 0 else "  VIOLATIONS/ERRORS"
    print(f"{proto:<8} {conc:>5} {s['tournaments']:>6} {s['match_cycles_per_second']:>9.0f} "
          f"{s['rpc_per_second']:>9.0f} {co['p50_ms']:>9.3f} {cm['p50_ms']:>9.3f} "
          f"{cm['p99_ms']:>9.3f} {per:>12.1f}  problems {s['problems']}{bad}")
EOF
}

for proto in $PROTOCOLS; do
    for c in $LEVELS; do
        run "$proto" "$c" $(( (c == 1 ? 20 : c * 8) * SCALE ))
    done
    for c in $LEVELS; do
        run "$proto" "$c" 0 --echo $(( 20000 * SCALE ))
    done
done
