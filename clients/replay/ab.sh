#!/usr/bin/env bash
# ab.sh SERVER REPLAY API PROTO N : one durable replay run (64 concurrent tournaments, 16 players) against the
# daemon binary SERVER on a fresh SQLite file; prints cycles/s and the daemon's CPU (user+sys from /proc).
# Run it alternately with two daemon binaries to compare them (BENCHMARKS.md, hardening round two).
# prints cycles/s, the daemon's CPU seconds (user+sys, from /proc) and CPU ms per tournament.
set -euo pipefail
SERVER=$1 REPLAY=$2 API=$3 PROTO=$4 N=$5
PORT=$((20000 + RANDOM % 20000))
D=$(mktemp -d)
"$SERVER" serve --listen "127.0.0.1:$PORT" --db "$D/b.db" --log-level warn &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null || true; rm -rf "$D"' EXIT
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break; sleep 0.1; done
cpu() { awk '{print $14+$15}' /proc/$PID/stat; }
c0=$(cpu)
out=$("$REPLAY" --url "http://127.0.0.1:$PORT/" --protocol "$PROTO" --players 16 --tournaments "$N" \
   --concurrency 64 --allow-repeat --seed 1 --json --quiet --api "$API")
c1=$(cpu)
TCK=$(getconf CLK_TCK)
echo "$out" | python3 -c 'import json,sys; s=json.load(sys.stdin); c=('"$c1"'-'"$c0"')/'"$TCK"'; print(round(s["match_cycles_per_second"]), "cycles/s", "server_cpu_s %.2f"%c, "ms/tournament %.2f"%(1000*c/'"$N"'), "problems", s["problems"], "errors", s["transport_errors"])'
