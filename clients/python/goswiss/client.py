"""The blocking client: JSON-RPC 2.0 over HTTP (default) or XML-RPC, one keep-alive connection.

    from goswiss import Client
    with Client("http://127.0.0.1:9090/") as c:
        t = c.tournament_create({"name": "Autumn Cup", "rounds": 4, "system": "mcmahon"})
        c.use_token(t["director_token"])

Every method of the daemon is a typed method of `Client` (generated from `rpc.discover`:
`tournament.player.add` is `tournament_player_add`); `call(name, *params)` reaches any
other. Errors raise the `goswiss.errors` class of their code. One object per thread.
"""

from __future__ import annotations

import http.client
import itertools
import json
import urllib.parse
import xmlrpc.client
from types import TracebackType
from typing import Any, Literal

from ._generated import SyncMethods
from .errors import ConnectionLost, TransportError, fault_for

__all__ = ["Client"]

Protocol = Literal["jsonrpc", "xmlrpc"]


class Client(SyncMethods):
    """A blocking goswiss client over `protocol` "jsonrpc" (HTTP POST) or "xmlrpc"."""

    def __init__(
        self,
        url: str = "http://127.0.0.1:9090/",
        *,
        protocol: Protocol = "jsonrpc",
        token: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        if protocol not in ("jsonrpc", "xmlrpc"):
            raise ValueError(f"unknown protocol {protocol!r} (jsonrpc or xmlrpc)")
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise ValueError(f"{url!r}: an http:// or https:// URL")
        self.url = url
        self.protocol: Protocol = protocol
        self.token = token
        self.timeout = timeout
        self._host = parts.hostname or "127.0.0.1"
        self._port = parts.port
        self._https = parts.scheme == "https"
        self._path = parts.path or "/"
        self._ids = itertools.count(1)
        self._conn: http.client.HTTPConnection | None = None

    # -- plumbing ----------------------------------------------------------------------------

    def use_token(self, token: str | None) -> None:
        """Sends `Authorization: Bearer token` with every later call (None: no header)."""
        self.token = token

    def call(self, method: str, *params: Any) -> Any:
        """Calls any method with positional parameters; returns its result as sent."""
        return self._call(method, list(params))

    def _call(self, method: str, params: list[Any]) -> Any:
        if self.protocol == "xmlrpc":
            body = xmlrpc.client.dumps(tuple(params), method, allow_none=True).encode()
            ctype = "text/xml"
        else:
            rid = next(self._ids)
            request = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
            body = json.dumps(request).encode()
            ctype = "application/json"
        status, data = self._post(method, body, ctype)
        if status != 200:
            raise TransportError(f"{method}: HTTP {status}: {data[:200]!r}")
        if self.protocol == "xmlrpc":
            return self._xml_result(method, data)
        return self._json_result(method, rid, data)

    def _post(self, method: str, body: bytes, ctype: str) -> tuple[int, bytes]:
        headers = {"Content-Type": ctype}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        for attempt in (1, 2):
            fresh = self._conn is None
            conn = self._connection()
            try:
                conn.request("POST", self._path, body=body, headers=headers)
            except (OSError, http.client.HTTPException) as e:
                # Not sent (a keep-alive connection the server had closed): safe to resend.
                self.close()
                if fresh or attempt == 2:
                    raise TransportError(f"{method}: {e}") from None
                continue
            try:
                resp = conn.getresponse()
                return resp.status, resp.read()
            except http.client.RemoteDisconnected as e:
                # Closed before any answer: a keep-alive connection timing out as we wrote.
                self.close()
                if fresh or attempt == 2:
                    raise ConnectionLost(f"{method}: {e}") from None
            except (OSError, http.client.HTTPException) as e:
                self.close()
                raise ConnectionLost(f"{method}: {e}") from None
        raise TransportError(f"{method}: no answer")  # pragma: no cover (loop returns)

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            self._conn = cls(self._host, self._port, timeout=self.timeout)
        return self._conn

    @staticmethod
    def _json_result(method: str, rid: int, data: bytes) -> Any:
        try:
            reply = json.loads(data)
        except ValueError as e:
            raise TransportError(f"{method}: bad JSON reply: {e}") from None
        if not isinstance(reply, dict) or reply.get("id") != rid:
            raise TransportError(f"{method}: bad JSON-RPC reply: {data[:200]!r}")
        err = reply.get("error")
        if isinstance(err, dict):
            code = err.get("code")
            raise fault_for(
                code if isinstance(code, int) else 0, str(err.get("message", "")), err.get("data")
            )
        if "result" not in reply:
            raise TransportError(f"{method}: reply without result: {data[:200]!r}")
        return reply["result"]

    @staticmethod
    def _xml_result(method: str, data: bytes) -> Any:
        try:
            params, _ = xmlrpc.client.loads(data, use_builtin_types=True)
        except xmlrpc.client.Fault as f:
            raise fault_for(f.faultCode, f.faultString) from None
        except Exception as e:  # expat errors on a malformed reply
            raise TransportError(f"{method}: bad XML-RPC reply: {e}") from None
        return params[0] if params else None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
