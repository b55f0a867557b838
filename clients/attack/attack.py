#!/usr/bin/env python3
"""Replays the hostile-client attacks of the hardening work against a release goswiss on
loopback and reports, for each, what the daemon answered, how long it took, the daemon's CPU
time and its peak memory during the attack. Python 3 standard library only.

    cargo build --release && python3 clients/attack/attack.py [--quick] [--only NAME,...]

Each attack runs against its own daemon (a fresh temporary SQLite database, 127.0.0.1 on a
free port, short body/write timeouts so that the slow-client attacks end in seconds), so its
peak memory (VmHWM) is its own. An attack passes when the daemon answers with the documented
limit and stays responsive; the script exits 1 if any attack does not. `--quick` uses smaller
inputs where the limit does not depend on size (the caps are still crossed), so a test can run
the whole set in well under a minute. Figures are wall-clock: give the machine's load with them.
"""

import argparse
import http.client
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Daemon:
    """A goswiss daemon on a free loopback port over a temporary database."""

    def __init__(self, server, env=None, nofile=None):
        self.dir = tempfile.TemporaryDirectory()
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        full_env = dict(os.environ)
        full_env.update(
            {
                "GOSWISS_BODY_TIMEOUT_SECS": "2",
                "GOSWISS_WRITE_TIMEOUT_SECS": "2",
                "GOSWISS_HEADER_TIMEOUT_SECS": "2",
                "GOSWISS_LOG_LEVEL": "warn",
            }
        )
        full_env.update(env or {})

        def limit():
            if nofile:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        self.log = open(os.path.join(self.dir.name, "daemon.log"), "w+")
        self.proc = subprocess.Popen(
            [server, "serve", "--listen", f"127.0.0.1:{self.port}",
             "--db", os.path.join(self.dir.name, "attack.db")],
            env=full_env, stdout=self.log, stderr=subprocess.STDOUT, preexec_fn=limit,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if self.health(timeout=1)[0] == 200:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"daemon exited: {self.logs()}")
            time.sleep(0.05)
        raise RuntimeError("daemon did not answer /health within 20 s")

    def logs(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def health(self, timeout=10):
        """(status, seconds) of GET /health."""
        t = time.monotonic()
        try:
            with urllib.request.urlopen(self.base + "/health", timeout=timeout) as r:
                return r.status, time.monotonic() - t
        except urllib.error.HTTPError as e:
            return e.code, time.monotonic() - t

    def cpu(self):
        """Seconds of CPU (user + system) the daemon has used."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def status(self, key):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) // 1024
        return 0

    def peak_mb(self):
        return self.status("VmHWM")

    def call(self, method, params, timeout=120):
        """One JSON-RPC call: (HTTP status, reply object or None, reply bytes)."""
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        return self.post("/jsonrpc", body.encode(), {"Content-Type": "application/json"}, timeout)

    def post(self, path, body, headers, timeout=120):
        req = urllib.request.Request(self.base + path, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                raw = r.read()
                status = r.status
        except urllib.error.HTTPError as e:
            raw = e.read()
            status = e.code
        try:
            reply = json.loads(raw)
        except ValueError:
            reply = None
        return status, reply, len(raw)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        self.dir.cleanup()


def code_of(reply):
    if isinstance(reply, dict) and "error" in reply:
        return reply["error"].get("code")
    return None


def message_of(reply):
    if isinstance(reply, dict) and "error" in reply:
        return reply["error"].get("message", "")
    return ""


# --- the attacks: each takes (daemon, quick) and returns (passed, what was seen) ---------------


def rpc_limit(method, params_of, expect, size, quick_size):
    """An attack that is one call expected to be refused with `expect`."""

    def attack(d, quick):
        n = quick_size if quick else size
        status, reply, nbytes = d.call(method, params_of(n))
        code = code_of(reply)
        seen = f"n={n:,}: HTTP {status}, code {code}, {nbytes:,} reply bytes: {message_of(reply)[:90]}"
        return code == expect, seen

    return attack


def sgf_moves(d, quick):
    """A long valid game is parsed; its reply stays proportional to the record."""
    n = 30_000 if quick else 300_000
    text = "(;SZ[19]" + "".join(";B[aa]" if i % 2 == 0 else ";W[bb]" for i in range(n)) + ")"
    status, reply, nbytes = d.call("sgf.parse", [text])
    ok = status == 200 and reply is not None and "result" in reply
    return ok, f"{n:,} moves, {len(text):,} bytes: HTTP {status}, {nbytes:,} reply bytes ({nbytes / len(text):.1f}× the record)"


def players(n):
    return [{"id": i, "rating": float(i * 7919 % 3000), "score": float(i % 4)} for i in range(1, n + 1)]


def pairing_infeasible(d, quick):
    n = 2_000 if quick else 6_000
    forbidden = [[1, k] for k in range(2, n + 1)]
    t = time.monotonic()
    status, reply, _ = d.call("pairing.pair", [players(n), None, {"forbidden": forbidden}])
    took = time.monotonic() - t
    return code_of(reply) == 610, f"{n:,} players, player 1 may meet nobody: code {code_of(reply)} in {took:.2f} s"


def pairing_neighbours(d, quick):
    n = 1_000 if quick else 4_000
    t = time.monotonic()
    status, reply, _ = d.call("pairing.pair", [players(n), None, {"neighbours": 1_000_000}])
    took = time.monotonic() - t
    ok = reply is not None and "result" in reply
    return ok, f"{n:,} players with options.neighbours = 1,000,000 (clamped to 64): answered in {took:.2f} s"


def matchmaker_players(d, quick):
    n = 100_000
    t = time.monotonic()
    status, reply, _ = d.call("matchmaker.create_tournament", [list(range(1, n + 1))])
    took = time.monotonic() - t
    return code_of(reply) == 2, f"{n:,} players: code {code_of(reply)} in {took:.2f} s: {message_of(reply)[:80]}"


def budget(d, quick):
    """A pairing far past the budget is answered -32012 at about the budget."""
    t = time.monotonic()
    status, reply, _ = d.call("pairing.pair", [players(10_000), None, {"window": 8}])
    took = time.monotonic() - t
    return code_of(reply) == -32012 and took < 8, f"10,000 players, window 8, budget 2 s: code {code_of(reply)} after {took:.2f} s"


def hang_up(d, quick):
    """A client that closes its socket during a heavy call stops the work."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "pairing.pair",
                       "params": [players(10_000), None, {"window": 8}]}).encode()
    s = socket.create_connection(("127.0.0.1", d.port))
    s.sendall(b"POST /jsonrpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
              + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    time.sleep(1.0)
    s.close()
    time.sleep(0.5)  # the next budget check
    before = d.cpu()
    time.sleep(2.0)
    used = d.cpu() - before
    return used < 0.5, f"closed 1 s into a minutes-long pairing: {used:.2f} s of daemon CPU in the 2 s after"


def multicall_health(d, quick):
    """Two heavy multicalls at once do not stall /health."""
    n = 200 if quick else 1_000
    rows = ["".join("." if c % 7 == 6 else ("b" if r % 4 < 2 else "w") for c in range(52)) for r in range(52)]
    calls = [{"methodName": "score.toggle_dead", "params": [{"rows": rows}, "aa"]}] * n
    results = []

    def run():
        results.append(d.call("system.multicall", [calls], timeout=300))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    worst = 0.0
    while any(t.is_alive() for t in threads):
        status, took = d.health()
        worst = max(worst, took)
        time.sleep(0.1)
    for t in threads:
        t.join()
    return worst < 1.0, f"2 × {n:,} score.toggle_dead on 52×52: slowest /health {worst * 1000:.0f} ms during them"


def slow_bodies(d, quick):
    """Clients that send a head and then nothing are cut off at the body timeout."""
    n = 50
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", d.port))
        s.sendall(b"POST /jsonrpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 1000\r\n\r\n{")
        socks.append(s)
    status, took = d.health()
    t = time.monotonic()
    closed = 0
    for s in socks:
        s.settimeout(max(0.1, 10 - (time.monotonic() - t)))
        try:
            s.recv(4096)  # a 408 answer or the close: either way the daemon let go
            closed += 1
        except socket.timeout:
            pass
        except OSError:
            closed += 1
        s.close()
    waited = time.monotonic() - t
    return status == 200 and closed == n, (
        f"{n} connections holding a body back: /health {status} in {took * 1000:.0f} ms; "
        f"all {closed} answered or closed by the daemon within {waited:.1f} s (body timeout 2 s)")


def slow_readers(d, quick):
    """Clients that never read big replies are cut off at the write timeout; memory stays bounded."""
    n = 10
    text = "(;SZ[19]" + ";B[aa];W[bb]" * (25_000 if quick else 150_000) + ")"
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "sgf.parse", "params": [text]}).encode()
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", d.port))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall(b"POST /jsonrpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                  + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        socks.append(s)
    time.sleep(6)  # replies computed, then the 2 s write timeout
    status, took = d.health()
    for s in socks:
        s.close()
    return status == 200, f"{n} clients not reading {len(body) / 1e6:.1f} MB records' replies: /health {status} in {took * 1000:.0f} ms"


def trickle_readers(d, quick):
    """Clients that read a big reply a trickle at a time (often enough to dodge the write
    timeout) are cut off at the minimum read rate; their replies and turns are given back."""
    n = 6
    size = (4 if quick else 24) << 20
    body = ("<?xml version=\"1.0\"?><methodCall><methodName>sgf.parse</methodName><params><param>"
            f"<value><string>(;C[{'x' * size}])</string></value></param></params></methodCall>").encode()
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", d.port))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall(b"POST /RPC2 HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/xml\r\n"
                  + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        s.settimeout(0.2)
        socks.append(s)
    t = time.monotonic()
    open_ = set(range(n))
    got = [0] * n
    while open_ and time.monotonic() - t < 120:
        for i in list(open_):
            try:
                b = socks[i].recv(16 << 10)  # 16 kB a second each: under 32 kB/s
                if not b:
                    open_.discard(i)
                got[i] += len(b)
            except socket.timeout:
                pass
            except OSError:
                open_.discard(i)
        time.sleep(1)
    took = time.monotonic() - t
    status, _ = d.health()
    for s in socks:
        s.close()
    return not open_ and status == 200, (
        f"{n} clients reading {size / 1e6:.0f} MB records' replies at 16 kB/s: "
        f"{n - len(open_)} cut off within {took:.0f} s after {max(got) / 1e6:.2f} MB at most; /health {status}")


def batch_health(d, quick):
    """Two clients sending JSON-RPC batches of heavy inline calls back to back do not stall
    /health."""
    n = 100 if quick else 500
    rows = ["".join("." if c % 7 == 6 else ("b" if r % 4 < 2 else "w") for c in range(52)) for r in range(52)]
    batch = json.dumps([{"jsonrpc": "2.0", "id": i, "method": "score.toggle_dead",
                         "params": [{"rows": rows}, "aa"]} for i in range(n)]).encode()
    stop = time.monotonic() + (10 if quick else 30)
    sent = [0]

    def run():
        while time.monotonic() < stop:
            d.post("/jsonrpc", batch, {"Content-Type": "application/json"}, timeout=300)
            sent[0] += 1

    threads = [threading.Thread(target=run) for _ in range(2)]
    for th in threads:
        th.start()
    time.sleep(0.3)
    worst = 0.0
    while any(th.is_alive() for th in threads):
        status, took = d.health()
        worst = max(worst, took)
        time.sleep(0.1)
    for th in threads:
        th.join()
    return worst < 1.0, f"2 clients, {sent[0]} batches of {n} score.toggle_dead on 52×52: slowest /health {worst * 1000:.0f} ms"


def ws_sessions(d, quick):
    """WebSocket sessions count against the per-address limit (20 here)."""
    socks = []
    upgraded = 0
    for _ in range(40):
        try:
            s = socket.create_connection(("127.0.0.1", d.port), timeout=5)
            s.sendall(b"GET /jsonrpc HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n"
                      b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                      b"Sec-WebSocket-Version: 13\r\n\r\n")
            if s.recv(4096).startswith(b"HTTP/1.1 101"):
                upgraded += 1
            socks.append(s)
        except OSError:
            pass
    other = socket.socket()
    other.bind(("127.0.0.2", 0))
    other.settimeout(10)
    other.connect(("127.0.0.1", d.port))
    other.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
    answer = other.recv(4096).split(b"\r\n", 1)[0].decode(errors="replace")
    other.close()
    for s in socks:
        s.close()
    return upgraded == 20 and "200" in answer, (
        f"40 upgrades from one address: {upgraded} sessions opened; another address's /health: {answer}")


def slow_bodies_spread(d, quick):
    """Slow bodies from five addresses cannot take every connection: a seventh address is
    served while they are held (the body timeout is 60 s here, so it is not what helps)."""
    socks = []
    for a in range(2, 7):
        for _ in range(50):
            s = socket.socket()
            s.bind((f"127.0.0.{a}", 0))
            s.settimeout(5)
            try:
                s.connect(("127.0.0.1", d.port))
                s.sendall(b"POST /jsonrpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                          b"Content-Length: 1000\r\n\r\n{")
            except OSError:
                pass
            socks.append(s)
    seventh = socket.socket()
    seventh.bind(("127.0.0.7", 0))
    seventh.settimeout(10)
    t = time.monotonic()
    try:
        seventh.connect(("127.0.0.1", d.port))
        seventh.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        answer = seventh.recv(4096).split(b"\r\n", 1)[0].decode(errors="replace")
    except OSError as e:
        answer = f"{type(e).__name__}"
    took = time.monotonic() - t
    seventh.close()
    for s in socks:
        s.close()
    return "200" in answer, f"5 addresses × 50 slow bodies, max_connections 256: a seventh address's /health: {answer} in {took * 1000:.0f} ms"


ADMIN = "attack-admin-token-0123456789abcdef"
AUTH_ON = {"GOSWISS_ADMIN_TOKEN": ADMIN, "GOSWISS_REQUEST_BUDGET_MS": "60000"}


def call_as(d, method, params, token=None, source=None, timeout=120):
    """One JSON-RPC call with `token` from `source` (a loopback address): the reply object."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    conn = http.client.HTTPConnection("127.0.0.1", d.port, timeout=timeout,
                                      source_address=(source, 0) if source else None)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        conn.request("POST", "/jsonrpc", body, headers)
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def quota(d, quick):
    """With auth on and open creation, 40 addresses of one /24 share its quota."""
    t = time.monotonic()
    made = 0
    codes = set()
    for k in range(1_100):
        reply = call_as(d, "tournament.create", [{"name": "flood", "rounds": 1}],
                        source=f"127.0.0.{1 + k % 40}")
        code = code_of(reply)
        if code is None:
            made += 1
        else:
            codes.add(code)
    took = time.monotonic() - t
    return made == 1_000 and codes == {-32011}, (
        f"1,100 creations from 40 addresses of 127.0.0.0/24: {made:,} made in {took:.2f} s, "
        f"the rest refused with {sorted(codes)}")


def quota_off(d, quick):
    """With auth off a local simulation creates as many tournaments as it needs."""
    t = time.monotonic()
    codes = [code_of(d.call("tournament.create", [{"name": "sim", "rounds": 1}])[1])
             for _ in range(1_100)]
    made = codes.count(None)
    return made == 1_100, f"auth off: {made:,} of 1,100 creations from 127.0.0.1 in {time.monotonic() - t:.2f} s"


def takeover(d, quick):
    """Anonymous writes flooded at the next ids while the admin creates: none may land."""
    n = 100 if quick else 400
    state = {"next": 1, "done": False, "landed": [], "tries": 0}

    def flood(k):
        methods = [("tournament.token.rotate", lambda i: [i]),
                   ("tournament.settings.set", lambda i: [i, {"name": "taken"}]),
                   ("tournament.player.add", lambda i: [i, {"name": f"X{k}", "rank": "1d"}])]
        j = 0
        while not state["done"] and j < 1_000_000:
            target = state["next"] + j % 2
            method, params = methods[(j // 2 + k) % 3]
            reply = call_as(d, method, params(target))
            if code_of(reply) is None:
                state["landed"].append((method, target))
            state["tries"] += 1
            j += 1

    threads = [threading.Thread(target=flood, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    made = []
    t = time.monotonic()
    for _ in range(n):
        reply = call_as(d, "tournament.create", [{"name": "mine", "rounds": 1}], token=ADMIN)
        made.append((reply["result"]["id"], reply["result"]["director_token"]))
        state["next"] = made[-1][0] + 1
    took = time.monotonic() - t
    state["done"] = True
    for th in threads:
        th.join()
    lost = [i for i, token in made
            if code_of(call_as(d, "tournament.player.add", [i, {"name": "Me", "rank": "2k"}],
                               token=token)) is not None]
    return not state["landed"] and not lost, (
        f"{n} creations in {took:.2f} s under {state['tries']:,} anonymous writes at the next ids: "
        f"{len(state['landed'])} landed, {len(lost)} tournaments no longer open to their creator")


def director_turns(d, quick):
    """A director's round.pair of 600 players, alone and while anonymous pairings hold the heavy turns."""
    register = "".join(f"USA{i} Player{i}, Given  {i % 29 + 1}k\n" for i in range(1, 601))
    events = []
    for _ in range(2):
        made = call_as(d, "tournament.import", ["aga", {"register": register, "rounds": []}],
                       token=ADMIN)
        events.append((made["result"]["id"], made["result"]["director_token"]))

    def pair(k):
        tid, token = events[k]
        t = time.monotonic()
        reply = call_as(d, "tournament.round.pair", [tid, 1], token=token)
        return time.monotonic() - t, code_of(reply)

    alone, code1 = pair(0)
    done = [False]
    size = 1_500 if quick else 3_000

    def anonymous():
        while not done[0]:
            call_as(d, "pairing.pair", [players(size)], timeout=300)

    threads = [threading.Thread(target=anonymous) for _ in range(6)]
    for th in threads:
        th.start()
    time.sleep(1.0)  # the anonymous calls hold every general turn
    flooded, code2 = pair(1)
    done[0] = True
    for th in threads:
        th.join()
    return code1 is None and code2 is None and flooded < 3.0, (
        f"round 1 of 600 players: alone {alone:.2f} s; another event's beside 6 anonymous "
        f"pairing.pair loops of {size:,} players {flooded:.2f} s")


def cross_site(d, quick):
    """A web page of another origin cannot post, and other Host names are not answered."""
    body = b'<?xml version="1.0"?><methodCall><methodName>matchmaker.create_tournament</methodName>' \
           b'<params><param><value><array><data><value><i4>1</i4></value><value><i4>2</i4></value>' \
           b'</data></array></value></param></params></methodCall>'
    seen = []
    ok = True
    for headers, want in [
        ({"Content-Type": "text/plain", "Origin": "http://evil.example"}, 403),
        ({"Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "cross-site"}, 403),
        ({"Content-Type": "text/xml", "Host": "evil.example"}, 421),
    ]:
        status, _, _ = d.post("/RPC2", body, headers)
        seen.append(str(status))
        ok &= status == want
    # A cross-site WebSocket upgrade.
    s = socket.create_connection(("127.0.0.1", d.port))
    s.sendall(b"GET /jsonrpc HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
              b"Origin: http://evil.example\r\n\r\n")
    s.settimeout(5)
    line = s.recv(4096).split(b"\r\n", 1)[0].decode(errors="replace")
    s.close()
    seen.append(line)
    ok &= " 403" in line
    return ok, "text/plain POST with a foreign Origin, form POST cross-site, foreign Host, WebSocket upgrade: " + ", ".join(seen)


def echo_cap(d, quick):
    name = "x" * 100_000
    status, reply, nbytes = d.call(name, [])
    return nbytes < 4_500 and code_of(reply) == -32601, f"100,000-byte method name: code {code_of(reply)}, {nbytes:,} reply bytes"


def fd_limit(d, quick):
    """At an open-file limit of 200, max_connections is clamped and the daemon stays up."""
    socks = []
    for _ in range(300):
        try:
            socks.append(socket.create_connection(("127.0.0.1", d.port), timeout=2))
        except OSError:
            break
    status, took = d.health(timeout=10)
    for s in socks:
        s.close()
    clamped = "max_connections lowered" in d.logs()
    status2, took2 = d.health()
    return clamped and status2 == 200, (
        f"ulimit -n 200, {len(socks)} idle connections opened: clamp logged {clamped}; "
        f"/health {status} in {took * 1000:.0f} ms while held, {status2} after")


ATTACKS = [
    ("sgf_nodes", rpc_limit("sgf.parse", lambda n: ["(;" + ";" * n + ")"], 714, 3_900_000, 600_000), {}),
    ("sgf_games", rpc_limit("sgf.parse", lambda n: ["(;)" * n, {"collection": True}], 714, 1_000_000, 20_000), {}),
    ("sgf_moves", sgf_moves, {}),
    ("tdlist_lines", rpc_limit("aga.parse_tdlist", lambda n: ["\n" * n], 913, 1_900_000, 250_000), {}),
    ("pairing_players", rpc_limit("pairing.pair", lambda n: [players(n), None, {"window": 8}], 613, 20_000, 20_000), {}),
    ("pairing_infeasible", pairing_infeasible, {}),
    ("pairing_neighbours", pairing_neighbours, {}),
    ("matchmaker_players", matchmaker_players, {}),
    ("budget", budget, {"GOSWISS_REQUEST_BUDGET_MS": "2000"}),
    ("hang_up", hang_up, {"GOSWISS_REQUEST_BUDGET_MS": "0"}),
    ("multicall_health", multicall_health, {}),
    ("slow_bodies", slow_bodies, {}),
    ("slow_readers", slow_readers, {}),
    ("trickle_readers", trickle_readers, {"GOSWISS_MAX_BODY_BYTES": str(32 << 20), "GOSWISS_WRITE_TIMEOUT_SECS": "30"}),
    ("batch_health", batch_health, {}),
    ("ws_sessions", ws_sessions, {"GOSWISS_MAX_CONNECTIONS_PER_IP": "20"}),
    ("slow_bodies_spread", slow_bodies_spread, {"GOSWISS_MAX_CONNECTIONS": "256", "GOSWISS_MAX_CONNECTIONS_PER_IP": "50",
                                                "GOSWISS_BODY_TIMEOUT_SECS": "60", "GOSWISS_HEADER_TIMEOUT_SECS": "60"}),
    ("quota", quota, dict(AUTH_ON, GOSWISS_OPEN_CREATION="true")),
    ("quota_off", quota_off, {}),
    ("takeover", takeover, AUTH_ON),
    ("director_turns", director_turns, AUTH_ON),
    ("cross_site", cross_site, {}),
    ("echo_cap", echo_cap, {}),
    ("fd_limit", fd_limit, {"nofile": 200}),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", default=os.path.join(ROOT, "target/release/goswiss"))
    ap.add_argument("--quick", action="store_true", help="smaller inputs (for tests)")
    ap.add_argument("--only", default="", help="comma-separated attack names")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    unknown = only - {name for name, _, _ in ATTACKS}
    if unknown:
        ap.error(f"unknown attack(s): {', '.join(sorted(unknown))}")
    print(f"# {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {os.cpu_count()} cores, "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}{', quick' if args.quick else ''}")
    print(f"{'attack':20} {'ok':3} {'wall s':>7} {'cpu s':>6} {'peak MB':>7}  seen")
    failed = []
    for name, attack, extra in ATTACKS:
        if only and name not in only:
            continue
        extra = dict(extra)
        nofile = extra.pop("nofile", None)
        d = Daemon(args.server, env=extra, nofile=nofile)
        try:
            cpu0 = d.cpu()
            t = time.monotonic()
            try:
                ok, seen = attack(d, args.quick)
            except Exception as e:  # an attack that breaks the client is a failure to report
                ok, seen = False, f"{type(e).__name__}: {e}"
            wall = time.monotonic() - t
            alive = d.proc.poll() is None and d.health()[0] == 200
            ok = ok and alive
            if not alive:
                seen += " — the daemon is no longer answering /health"
            print(f"{name:20} {'yes' if ok else 'NO':3} {wall:7.2f} {d.cpu() - cpu0:6.2f} "
                  f"{d.peak_mb():7}  {seen}", flush=True)
            if not ok:
                failed.append(name)
        finally:
            d.stop()
    if failed:
        print(f"FAILED: {', '.join(failed)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
