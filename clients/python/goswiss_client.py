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
"""

import http.client
import itertools
import json
import urllib.parse
import xmlrpc.client

__all__ = ["Fault", "TransportError", "XmlRpc", "JsonRpc", "Matchmaker", "connect"]


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

    def __init__(self, url, timeout=60):
        self.url = url
        scheme = urllib.parse.urlsplit(url).scheme
        transport_cls = xmlrpc.client.SafeTransport if scheme == "https" else xmlrpc.client.Transport
        transport = transport_cls()
        # xmlrpc.client has no timeout parameter; set it on each new connection.
        make = transport.make_connection

        def make_connection(host):
            conn = make(host)
            conn.timeout = timeout
            return conn

        transport.make_connection = make_connection
        self.proxy = xmlrpc.client.ServerProxy(url, transport=transport)

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

    def __init__(self, url, timeout=60):
        self.url = url
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


def connect(url, protocol="xmlrpc", timeout=60):
    """A `Matchmaker` over XML-RPC (`protocol="xmlrpc"`) or JSON-RPC (`"jsonrpc"`)."""
    if protocol == "xmlrpc":
        return Matchmaker(XmlRpc(url, timeout))
    if protocol == "jsonrpc":
        return Matchmaker(JsonRpc(url, timeout))
    raise ValueError(f"unknown protocol {protocol!r} (xmlrpc or jsonrpc)")
