"""A stdlib-only Python client for goswiss (and rswiss): XML-RPC or JSON-RPC over HTTP.

    from goswiss_client import connect, Fault
    s = connect("http://localhost:9090/", "jsonrpc")      # or "xmlrpc" (the default)
    t = s.create_tournament([1, 2, 3, 4], 0, False, {"seed": 7})
    p1, p2 = s.checkout_match(t)
    s.commit_match(t, [p1, p2], -1)                       # -1 p1 wins, 0 draw, 1 p2 wins
    try:
        s.winner(t)
    except Fault as f:
        print(f.code, f.message)                          # 401 The Tournament has not ended yet.

Both transports keep one HTTP/1.1 connection alive per client object; use one object per
thread. Faults (XML-RPC) and error objects (JSON-RPC) both raise `Fault(code, message)`.

`tournament.*` (a whole Go tournament kept by the daemon) has its own class, `Tournaments`;
clients/python/mcmahon_event.py walks a whole McMahon event with it:

    from goswiss_client import tournaments
    t = tournaments("http://localhost:9090/", "jsonrpc")
    created = t.create({"name": "Autumn Cup", "rounds": 4, "system": "mcmahon"})
    t.use_token(created["director_token"])                # needed when the daemon has auth on
    tid = created["id"]
    t.add_player(tid, {"name": "Lee", "first_name": "Ann", "rank": "3d", "country": "KR"})
"""

import http.client
import itertools
import json
import urllib.parse
import xmlrpc.client

__all__ = [
    "Fault",
    "TransportError",
    "XmlRpc",
    "JsonRpc",
    "Matchmaker",
    "Tournaments",
    "connect",
    "tournaments",
]


class Fault(Exception):
    """The server answered with a fault: `code` and `message` as sent."""

    def __init__(self, code, message):
        super().__init__(f"fault {code}: {message}")
        self.code = code
        self.message = message


class TransportError(Exception):
    """No well-formed answer: connection refused, HTTP error, unparsable reply."""


class XmlRpc:
    """XML-RPC through the standard library's `xmlrpc.client` (keep-alive transport)."""

    def __init__(self, url, timeout=60, token=None):
        self.url = url
        self.timeout = timeout
        self._build(token)

    def _build(self, token):
        url, timeout = self.url, self.timeout
        scheme = urllib.parse.urlsplit(url).scheme
        transport_cls = xmlrpc.client.SafeTransport if scheme == "https" else xmlrpc.client.Transport
        headers = [("Authorization", f"Bearer {token}")] if token else []
        transport = transport_cls(headers=headers)
        # xmlrpc.client has no timeout parameter; set it on each new connection.
        make = transport.make_connection

        def make_connection(host):
            conn = make(host)
            conn.timeout = timeout
            return conn

        transport.make_connection = make_connection
        # allow_none: an optional parameter skipped before a given one travels as <nil/>.
        self.proxy = xmlrpc.client.ServerProxy(url, transport=transport, allow_none=True)

    def set_token(self, token):
        """Sends `Authorization: Bearer token` from now on (None: no header)."""
        self.proxy("close")()
        self._build(token)

    def call(self, method, *params):
        try:
            return getattr(self.proxy, method)(*params)
        except xmlrpc.client.Fault as f:
            raise Fault(f.faultCode, f.faultString) from None
        except (OSError, xmlrpc.client.ProtocolError, xmlrpc.client.ResponseError) as e:
            raise TransportError(f"{method}: {e}") from None
        except Exception as e:  # expat errors on a malformed reply
            raise TransportError(f"{method}: bad reply: {e}") from None

    def close(self):
        self.proxy("close")()


class JsonRpc:
    """JSON-RPC 2.0 over one keep-alive `http.client` connection."""

    def __init__(self, url, timeout=60, token=None):
        self.url = url
        self.token = token
        parts = urllib.parse.urlsplit(url)
        self.host = parts.hostname or "localhost"
        self.port = parts.port
        self.https = parts.scheme == "https"
        self.path = parts.path or "/"
        self.timeout = timeout
        self.ids = itertools.count(1)
        self.conn = None

    def _connection(self):
        if self.conn is None:
            cls = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
            self.conn = cls(self.host, self.port, timeout=self.timeout)
        return self.conn

    def call(self, method, *params):
        rid = next(self.ids)
        body = json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": list(params)})
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        for attempt in (1, 2):
            conn = self._connection()
            try:
                conn.request("POST", self.path, body=body.encode(), headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                break
            except (OSError, http.client.HTTPException) as e:
                # A keep-alive connection the server closed: reconnect once.
                conn.close()
                self.conn = None
                if attempt == 2:
                    raise TransportError(f"{method}: {e}") from None
        if resp.status != 200:
            raise TransportError(f"{method}: HTTP {resp.status}: {data[:200]!r}")
        try:
            reply = json.loads(data)
        except ValueError as e:
            raise TransportError(f"{method}: bad JSON reply: {e}") from None
        if not isinstance(reply, dict) or reply.get("jsonrpc") != "2.0" or reply.get("id") != rid:
            raise TransportError(f"{method}: bad JSON-RPC reply: {data[:200]!r}")
        if "error" in reply:
            err = reply["error"]
            raise Fault(err.get("code"), err.get("message"))
        if "result" not in reply:
            raise TransportError(f"{method}: reply without result: {data[:200]!r}")
        return reply["result"]

    def set_token(self, token):
        """Sends `Authorization: Bearer token` from now on (None: no header)."""
        self.token = token

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


class Matchmaker:
    """The `matchmaker.*` methods (rswiss's interface) over either transport."""

    def __init__(self, rpc):
        self.rpc = rpc

    def create_tournament(self, players, additional_rounds=0, allow_repeat=True, options=None):
        params = [list(players), additional_rounds, allow_repeat]
        if options:
            params.append(options)
        return self.rpc.call("matchmaker.create_tournament", *params)

    def checkout_match(self, tid):
        return self.rpc.call("matchmaker.checkout_match", tid)

    def commit_match(self, tid, pair, result):
        return self.rpc.call("matchmaker.commit_match", tid, list(pair), result)

    def has_ended(self, tid):
        return self.rpc.call("matchmaker.has_ended", tid)

    def round(self, tid):
        return self.rpc.call("matchmaker.round", tid)

    def checkedout_matches(self, tid):
        return self.rpc.call("matchmaker.checkedout_matches", tid)

    def repeated_matches(self, tid):
        return self.rpc.call("matchmaker.repeated_matches", tid)

    def table_by_criteria(self, tid):
        return self.rpc.call("matchmaker.table_by_criteria", tid)

    def table_by_score(self, tid):
        return self.rpc.call("matchmaker.table_by_score", tid)

    def winner(self, tid):
        return self.rpc.call("matchmaker.winner", tid)

    def close(self):
        self.rpc.close()


def _trim(params):
    """Drops trailing None parameters (optional and not given); inner ones are sent as null."""
    params = list(params)
    while params and params[-1] is None:
        params.pop()
    return params


class Tournaments:
    """The `tournament.*` methods (docs/tournament.md) over either transport.

    Each method is one RPC call and returns its answer as the server sends it (dicts and
    lists). Mutating methods take `options` last (`if_revision` and the method's own
    options); errors raise `Fault` with the codes of docs/tournament.md (1001 no such
    tournament, 1002 stale revision, ...). Ranks are given as text ("3d", "12k") or
    OpenGotha's integers (-30 = 30k ... 0 = 1d ... 8 = 9d).
    """

    def __init__(self, rpc):
        self.rpc = rpc

    def _call(self, method, *params):
        return self.rpc.call("tournament." + method, *_trim(params))

    def use_token(self, token):
        """Sends a director (or admin) token with every later call: needed with auth on."""
        self.rpc.set_token(token)

    # -- tournaments
    def create(self, settings=None, options=None):
        """-> {id, revision, director_token}; settings over OpenGotha's defaults."""
        return self._call("create", settings if settings is not None else {}, options)

    def get(self, tid):
        return self._call("get", tid)

    def list(self):
        return self._call("list")

    def set_settings(self, tid, settings, options=None):
        return self._call("settings.set", tid, settings, options)

    def events(self, tid, since_revision=None):
        return self._call("events", tid, since_revision)

    def archive(self, tid, options=None):
        return self._call("archive", tid, options)

    def delete(self, tid, options=None):
        return self._call("delete", tid, options)

    # -- players
    def add_player(self, tid, player, options=None):
        """-> {player_id, revision}; after round k is paired the player skips 1..k."""
        return self._call("player.add", tid, player, options)

    def update_player(self, tid, player_id, fields, options=None):
        return self._call("player.update", tid, player_id, fields, options)

    def withdraw(self, tid, player_id, options=None):
        return self._call("player.withdraw", tid, player_id, options)

    def set_participation(self, tid, player_id, skip, options=None):
        """The rounds `player_id` skips (absences), as a list of round numbers."""
        return self._call("player.set_participation", tid, player_id, list(skip), options)

    def remove_player(self, tid, player_id, options=None):
        return self._call("player.remove", tid, player_id, options)

    def players(self, tid):
        return self._call("player.list", tid)

    # -- rounds
    def pair(self, tid, round_number, options=None):
        """Pairs the next round -> {revision, games [{table, white, black, handicap, ...}], byes}."""
        return self._call("round.pair", tid, round_number, options)

    def unpair(self, tid, round_number, options=None):
        return self._call("round.unpair", tid, round_number, options)

    def set_games(self, tid, round_number, games, options=None):
        return self._call("round.set_games", tid, round_number, list(games), options)

    def swap(self, tid, round_number, player_a, player_b, options=None):
        return self._call("round.swap", tid, round_number, player_a, player_b, options)

    def publish(self, tid, round_number, options=None):
        return self._call("round.publish", tid, round_number, options)

    def round(self, tid, round_number):
        return self._call("round.get", tid, round_number)

    def explain(self, tid, round_number, player_a, player_b=None):
        return self._call("round.explain", tid, round_number, player_a, player_b)

    # -- results
    def set_result(self, tid, round_number, table, result, options=None):
        """Sets or corrects a result ("W+", "B+", "jigo", "B+!" for a forfeit, ...);
        options {sgf, strict, forfeit, remove_record} -> {revision, result, warnings}."""
        return self._call("result.set", tid, round_number, table, result, options)

    def game_sgf(self, tid, round_number, table):
        return self._call("game.sgf", tid, round_number, table)

    # -- views and files
    def standings(self, tid, after_round=None, criteria=None):
        return self._call("standings", tid, after_round, None if criteria is None else list(criteria))

    def crosstable(self, tid, after_round=None):
        return self._call("crosstable", tid, after_round)

    def export(self, tid, fmt, after_round=None, options=None):
        """-> {file_name, encoding, text}: write `text` in `encoding` to get the file."""
        return self._call("export", tid, fmt, after_round, options)

    def close(self):
        self.rpc.close()


def _transport(url, protocol, timeout, token=None):
    if protocol == "xmlrpc":
        return XmlRpc(url, timeout, token)
    if protocol == "jsonrpc":
        return JsonRpc(url, timeout, token)
    raise ValueError(f"unknown protocol {protocol!r} (xmlrpc or jsonrpc)")


def connect(url, protocol="xmlrpc", timeout=60):
    """A `Matchmaker` over XML-RPC (`protocol="xmlrpc"`) or JSON-RPC (`"jsonrpc"`)."""
    return Matchmaker(_transport(url, protocol, timeout))


def tournaments(url, protocol="xmlrpc", timeout=60, token=None):
    """A `Tournaments` client over XML-RPC or JSON-RPC; `token` as for `use_token`."""
    return Tournaments(_transport(url, protocol, timeout, token))
