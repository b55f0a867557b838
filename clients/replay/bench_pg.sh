#!/usr/bin/env bash
# Durable match cycles/s of a release goswiss on PostgreSQL with 1, 2 and 3 daemons sharing
# one database, beside one daemon on SQLite, at 64 concurrent tournaments (JSON-RPC), as
# recorded in BENCHMARKS.md.
#
#   cargo build --release && clients/replay/bench_pg.sh
#
# The script makes its own throw-away PostgreSQL cluster (initdb in a temporary directory, on
# a loopback port; as the `postgres` user when run as root) with the stock durability
# settings: fsync = on, synchronous_commit = on, full_page_writes = on (printed below). With
# several daemons one replay process spreads its 64 tournaments in flight over them in turn
# (so every level has the same client), and cycles/s is its matches over the wall time of the
# whole level. srv_us/cyc, pg_us/cyc and cl_us/cyc are the CPU time (user + system) the
# daemons, the PostgreSQL cluster and the replay client spent per match cycle: on a loaded
# machine they say more than cycles/s.
#
# Environment: PORT (first daemon port, default 19190), PGPORT (default 19290), PLAYERS (16),
# CONC (64), SCALE (1: multiply the tournament count, 8 per concurrent tournament), DAEMONS
# ("1 2 3"), SQLITE (1: also measure SQLite), SERVER and REPLAY (default target/release/),
# PGSTAT (0; 1: load pg_stat_statements in the cluster and print, for each PostgreSQL level,
# the batches of appends the writers sent (`batches`: one statement each), the appends each
# carried on average (`app/batch`) and the explicit COMMITs (`commits`: batches with a
# creation or a deletion; a batch of appends only is one statement in an implicit
# transaction): counts that do not depend on the machine's load, at a small cost in
# PostgreSQL CPU; 2: also list each level's costliest statements), PERF (unset; a directory:
# `perf record` the daemons and the PostgreSQL cluster over each level's replay window, into
# NAME-DAEMONS.data there; read it with `perf report -i FILE --comm tokio-rt-worker` for the
# daemons or `--comm postgres`), PERF_OPTS (`-g -F 999`; `--call-graph dwarf -F 299` gives the
# daemons' Rust frames, which have no frame pointers), DAEMON_CPU (unset; a number of CPUs such
# as 0.25: each daemon runs in its own cgroup whose CPU time is capped at that many CPUs, as if
# each had its own small machine. On a box with fewer cores than daemons plus PostgreSQL, the
# uncapped levels measure how the processes share the cores rather than how daemons scale;
# capped, a level's daemons have CPU in proportion to their number, so the levels show whether
# the shared database holds throughput back. Needs root and the cgroup v1 `cpu` controller or
# cgroup v2 with `cpu` enabled), DAEMON_THREADS (unset; a number: each daemon's
# `worker_threads`), SPLIT (0; 1: one replay process per daemon, each with its share of CONC
# and of the tournaments, as the script did before 2026-11-28).
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT=${PORT:-19190}
PGPORT=${PGPORT:-19290}
PLAYERS=${PLAYERS:-16}
CONC=${CONC:-64}
SCALE=${SCALE:-1}
DAEMONS=${DAEMONS:-"1 2 3"}
SQLITE=${SQLITE:-1}
SPLIT=${SPLIT:-0}
PGSTAT=${PGSTAT:-0}
PERF=${PERF:-}
PERF_OPTS=${PERF_OPTS:-"-g -F 999"}
DAEMON_CPU=${DAEMON_CPU:-}
SERVER=$(realpath "${SERVER:-target/release/goswiss}")
REPLAY=$(realpath "${REPLAY:-target/release/goswiss-replay}")
TOURNAMENTS=$((CONC * 8 * SCALE))

BIN=$(dirname "$(realpath "$(command -v initdb || ls -d /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")")
WORK=$(mktemp -d)
AS=()
if [ "$(id -u)" = 0 ]; then
    chown postgres: "$WORK"
    AS=(runuser -u postgres --)
fi
PIDS=()
CGROUPS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    "${AS[@]}" "$BIN/pg_ctl" stop -m immediate -D "$WORK/data" >/dev/null 2>&1 || true
    rm -rf "$WORK"
    local g
    for g in "${CGROUPS[@]}"; do rmdir "$g" 2>/dev/null || true; done
}
trap cleanup EXIT
PRELOAD=""
if [ "$PGSTAT" != 0 ]; then PRELOAD="-c shared_preload_libraries=pg_stat_statements"; fi
"${AS[@]}" "$BIN/initdb" -D "$WORK/data" -U goswiss --auth=trust -E UTF8 >/dev/null
"${AS[@]}" "$BIN/pg_ctl" start -w -D "$WORK/data" -l "$WORK/log" \
    -o "-c listen_addresses=127.0.0.1 -p $PGPORT -k $WORK -c max_connections=100 $PRELOAD" >/dev/null
psql_() { psql -h 127.0.0.1 -p "$PGPORT" -U goswiss -d "${2:-postgres}" -Atc "$1"; }

echo "# $(date -u +%FT%TZ) $(nproc) cores, $(uptime | sed 's/.*load/load/')"
echo "# $("$BIN/postgres" --version); $(psql_ "SELECT string_agg(name || '=' || setting, ', ' ORDER BY name) FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method', 'shared_buffers', 'commit_delay')")"
echo "# players $PLAYERS, $CONC concurrent tournaments, $TOURNAMENTS tournaments per level, JSON-RPC${DAEMON_CPU:+, each daemon capped at $DAEMON_CPU CPU}"
printf '%-10s %7s %9s %9s %9s %11s %11s %11s %8s %9s %8s  %s\n' store daemons matches seconds \
    cycles/s srv_us/cyc pg_us/cyc cl_us/cyc batches app/batch commits problems

TCK=$(getconf CLK_TCK)
# CPU ticks (user + system) of the given processes.
ticks() {
    local sum=0 p
    for p in "$@"; do
        if [ -r "/proc/$p/stat" ]; then
            sum=$((sum + $(awk '{print $14 + $15}' "/proc/$p/stat")))
        fi
    done
    echo "$sum"
}
# The cluster's processes: the postmaster and its children (backends, WAL writer, ...).
pg_pids() {
    local pm
    pm=$(head -1 "$WORK/data/postmaster.pid")
    echo "$pm" $(pgrep -P "$pm")
}

# With DAEMON_CPU, daemon K of every level runs in the capped cgroup $CG_ROOT/goswiss-bench-$$-K.
CG_ROOT=""
if [ -n "$DAEMON_CPU" ]; then
    if [ -w /sys/fs/cgroup/cpu ] && [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
        CG_ROOT=/sys/fs/cgroup/cpu
    elif [ -w /sys/fs/cgroup ] && grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
        CG_ROOT=/sys/fs/cgroup
    else
        echo "DAEMON_CPU needs root and a writable cpu cgroup controller" >&2
        exit 1
    fi
    quota=$(awk -v c="$DAEMON_CPU" 'BEGIN { printf "%d", c * 100000 }')
    most=$(printf '%s\n' $DAEMONS | sort -n | tail -1)
    for k in $(seq 0 $((most - 1))); do
        g="$CG_ROOT/goswiss-bench-$$-$k"
        mkdir "$g"
        CGROUPS+=("$g")
        if [ -f "$g/cpu.cfs_quota_us" ]; then
            echo 100000 >"$g/cpu.cfs_period_us"
            echo "$quota" >"$g/cpu.cfs_quota_us"
        else
            echo "$quota 100000" >"$g/cpu.max"
        fi
    done
fi

wait_up() {
    for _ in $(seq 1 300); do
        if curl -sf "http://127.0.0.1:$1/health" >/dev/null 2>&1; then return 0; fi
        sleep 0.1
    done
    echo "daemon on port $1 did not come up" >&2
    return 1
}

# level NAME DB N [DBNAME]: N daemons on DB, the tournaments split between them (DBNAME:
# the PostgreSQL database, for the counts).
level() {
    local name=$1 db=$2 n=$3 k out
    local started=()
    for k in $(seq 0 $((n - 1))); do
        # One replay process creates all of a daemon's tournaments from one address: no quota
        # (SCALE > 1 would pass the default 1,000 per address).
        local prefix=()
        if [ -n "$CG_ROOT" ]; then
            # The shell joins the cgroup first, so every thread of the daemon starts in it.
            prefix=(sh -c 'echo $$ >"$0/cgroup.procs" && shift && exec "$@"' "$CG_ROOT/goswiss-bench-$$-$k" --)
        fi
        env GOSWISS_MAX_TOURNAMENTS_PER_ADDRESS=0 ${DAEMON_THREADS:+GOSWISS_WORKER_THREADS=$DAEMON_THREADS} "${prefix[@]}" \
            "$SERVER" serve --listen "127.0.0.1:$((PORT + k))" --db "$db" --log-level error &
        PIDS+=($!)
        started+=($!)
    done
    for k in $(seq 0 $((n - 1))); do wait_up $((PORT + k)); done
    out=$(mktemp -d)
    local t0 t1
    local s0 p0 s1 p1
    local counted="- - -"
    if [ "$PGSTAT" != 0 ] && [ "$name" = postgres ]; then
        psql_ "SELECT pg_stat_statements_reset()" "$4" >/dev/null
    fi
    local perf_pid=""
    if [ -n "$PERF" ]; then
        mkdir -p "$PERF"
        local watched
        watched=$(echo "${started[@]}" $(pg_pids) | tr ' ' ,)
        perf record $PERF_OPTS -p "$watched" -o "$PERF/$name-$n.data" >/dev/null 2>&1 &
        perf_pid=$!
        sleep 0.5
    fi
    s0=$(ticks "${started[@]}")
    p0=$(ticks $(pg_pids))
    t0=$(date +%s.%N)
    local replays=()
    # replay URLS TOURNAMENTS CONCURRENCY SEED: one replay process in the background.
    replay() {
        "$REPLAY" --url "$1" --protocol jsonrpc --players "$PLAYERS" --tournaments "$2" \
            --concurrency "$3" --allow-repeat --seed "$4" --json --quiet >"$out/$4.json" &
        replays+=($!)
    }
    if [ "$SPLIT" = 1 ]; then
        for k in $(seq 0 $((n - 1))); do
            # CONC and TOURNAMENTS split as evenly as they go.
            replay "http://127.0.0.1:$((PORT + k))/" \
                $(( TOURNAMENTS / n + (k < TOURNAMENTS % n ? 1 : 0) )) \
                $(( CONC / n + (k < CONC % n ? 1 : 0) )) "$k"
        done
    else
        # One process, its CONC workers spread over the daemons in turn.
        local urls
        urls=$(for k in $(seq 0 $((n - 1))); do printf 'http://127.0.0.1:%d/,' $((PORT + k)); done)
        replay "${urls%,}" "$TOURNAMENTS" "$CONC" 0
    fi
    local failed=0
    for p in "${replays[@]}"; do wait "$p" || failed=1; done
    t1=$(date +%s.%N)
    s1=$(ticks "${started[@]}")
    p1=$(ticks $(pg_pids))
    if [ -n "$perf_pid" ]; then kill -INT "$perf_pid"; wait "$perf_pid" || true; fi
    if [ "$PGSTAT" != 0 ] && [ "$name" = postgres ]; then
        # The appends of a batch are one statement (unless a batch names a tournament twice),
        # which returns a row per append; a batch with a creation, a deletion or such an
        # append has an explicit COMMIT (the readers' one load per start came before).
        counted=$(psql_ "SELECT coalesce(sum(calls) FILTER (WHERE query LIKE 'WITH w AS%'), 0) || ' ' ||
            coalesce(sum(rows) FILTER (WHERE query LIKE 'WITH w AS%'), 0) || ' ' ||
            coalesce(sum(calls) FILTER (WHERE query = 'COMMIT'), 0)
            FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())" "$4")
    fi
    if [ "$PGSTAT" = 2 ] && [ "$name" = postgres ]; then
        # Every statement of the level: calls, rows, total ms, the statement's start.
        psql_ "SELECT calls || ' ' || rows || ' ' || round(total_exec_time::numeric, 1) || ' ' ||
            left(regexp_replace(query, '\s+', ' ', 'g'), 70) FROM pg_stat_statements
            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            ORDER BY total_exec_time DESC LIMIT 12" "$4" | sed "s/^/# $n daemons: /"
    fi
    python3 - "$name" "$n" "$t0" "$t1" "$failed" $((s1 - s0)) $((p1 - p0)) "$TCK" $counted "$out"/*.json <<'EOF'
import json, sys
name, n, t0, t1, failed, srv, pgc, tck, batches, appends, commits, *files = sys.argv[1:]
runs = [json.load(open(f)) for f in files]
# The replay processes' own CPU time (user + system).
client = sum(r.get("cpu_seconds") or 0 for r in runs)
matches = sum(r["matches"] for r in runs)
problems = sum(r["problems"] + r["violations"] for r in runs)
secs = float(t1) - float(t0)
note = "" if problems == 0 and failed == "0" else "  PROBLEMS/VIOLATIONS"
us = lambda t: int(t) / int(tck) * 1e6 / max(matches, 1)
cl_us = client * 1e6 / max(matches, 1)
pg_us = f"{us(pgc):.1f}" if name == "postgres" else "-"
per = f"{int(appends) / max(int(batches), 1):.1f}" if batches != "-" else "-"
print(f"{name:<10} {n:>7} {matches:>9} {secs:>9.2f} {matches / secs:>9.0f} {us(srv):>11.1f} "
      f"{pg_us:>11} {cl_us:>11.1f} {batches:>8} {per:>9} {commits:>8}  {problems}{note}")
EOF
    rm -rf "$out"
    for p in "${started[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
}

if [ "$SQLITE" = 1 ]; then
    mkdir -p "$WORK/sqlite"
    level sqlite "$WORK/sqlite/bench.db" 1
fi
for n in $DAEMONS; do
    psql_ "CREATE DATABASE bench$n" >/dev/null
    if [ "$PGSTAT" != 0 ]; then psql_ "CREATE EXTENSION pg_stat_statements" "bench$n" >/dev/null; fi
    level postgres "postgres://goswiss@127.0.0.1:$PGPORT/bench$n" "$n" "bench$n"
done
