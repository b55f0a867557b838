"""goswiss: a typed Python client for the goswiss tournament daemon.

- `Client`: blocking, JSON-RPC over HTTP or XML-RPC (`protocol="xmlrpc"`).
- `AsyncClient`: asyncio, JSON-RPC over one WebSocket, pipelined calls, and
  `async for event in client.subscribe(tid)` that reconnects and catches up.
- `goswiss.errors`: one exception class per documented error code.
- `goswiss.types`: the TypedDicts generated from the daemon's `rpc.discover`.
"""

from . import errors, types
from .aio import AsyncClient, TournamentEvent
from .client import Client
from .errors import ConnectionLost, Fault, GoswissError, TransportError

__all__ = [
    "AsyncClient",
    "Client",
    "ConnectionLost",
    "Fault",
    "GoswissError",
    "TournamentEvent",
    "TransportError",
    "errors",
    "types",
]

__version__ = "0.1.0"
