"""The blocking client over both protocols against the live daemon."""

from __future__ import annotations

import os
import re

import pytest

import goswiss
from goswiss import Client, errors
from goswiss.client import Protocol

from conftest import players

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")


def test_the_installed_package_is_under_test() -> None:
    # tests/it/clients/python_client.rs installs the package with pip and points PYTHONPATH at it.
    where = os.environ.get("GOSWISS_PACKAGE_DIR")
    if where is None:
        pytest.skip("not run from tests/it/clients/python_client.rs")
    assert os.path.abspath(goswiss.__file__).startswith(os.path.abspath(where))
    assert os.path.exists(os.path.join(os.path.dirname(goswiss.__file__), "py.typed"))


@pytest.mark.parametrize("protocol", ["jsonrpc", "xmlrpc"])
def test_a_whole_round_over_each_protocol(url: str, protocol: Protocol) -> None:
    with Client(url, protocol=protocol) as c:
        t = c.tournament_create({"name": f"Sync {protocol}", "rounds": 2, "system": "mcmahon"})
        tid = t["id"]
        assert isinstance(tid, int) and t["revision"] == 1 and t["director_token"]
        ids = players(c, tid, 6)
        assert sorted(p["id"] for p in c.tournament_player_list(tid)) == sorted(ids)
        paired = c.tournament_round_pair(tid, 1)
        games = paired["games"]
        assert len(games) == 3
        seen = {g["white"] for g in games} | {g["black"] for g in games}
        assert seen == set(ids)
        for g in games:
            r = c.tournament_result_set(tid, 1, g["table"], "B+")
            assert r["result"] == "B+"
        rows = c.tournament_standings(tid, None, ["NBW"])["rows"]
        assert len(rows) == 6
        nbw = {row["player_id"]: row["values"]["NBW"] for row in rows}
        winners = {g["black"] for g in games}
        assert {nbw[p] for p in winners} == {1} and {nbw[p] for p in set(ids) - winners} == {0}
        assert {row["player_id"] for row in rows[:3]} == winners
        log = c.tournament_events(tid)
        assert log["revision"] == 1 + 6 + 1 + 3
        assert [e["revision"] for e in log["events"]] == list(range(1, 12))


@pytest.mark.parametrize("protocol", ["jsonrpc", "xmlrpc"])
def test_errors_raise_their_codes_class(url: str, protocol: Protocol) -> None:
    with Client(url, protocol=protocol) as c:
        with pytest.raises(errors.NoSuchTournament) as e:
            c.tournament_get(987654321)
        assert e.value.code == 1001 and "987654321" in e.value.message
        assert isinstance(e.value, errors.TournamentError)
        t = c.tournament_create({"name": "Errors", "rounds": 3})
        with pytest.raises(errors.StaleRevision):
            c.tournament_player_add(
                t["id"], {"name": "A", "first_name": "B", "rank": "1d"}, {"if_revision": 99}
            )
        with pytest.raises(errors.InvalidParams) as bad:
            c.call("tournament.create", {"name": "Typo", "roundz": 3})  # mypy refuses it typed
        assert bad.value.code == -32602
        with pytest.raises(errors.WrongRound):
            c.tournament_round_pair(t["id"], 2)  # round 1 first
        with pytest.raises(errors.NoSuchRound):
            c.tournament_round_pair(t["id"], 4)


def test_unknown_method_over_jsonrpc(client: Client) -> None:
    with pytest.raises(errors.MethodNotFound):
        client.call("no.such.method")


def test_error_data_is_kept() -> None:
    body = b'{"jsonrpc":"2.0","id":7,"error":{"code":1002,"message":"stale","data":{"revision":5}}}'
    with pytest.raises(errors.StaleRevision) as e:
        Client._json_result("tournament.get", 7, body)
    assert e.value.data == {"revision": 5}
    unknown = errors.fault_for(4242, "new code")
    assert type(unknown) is errors.Fault and unknown.code == 4242 and unknown.data is None


def test_a_dead_daemon_is_a_transport_error() -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on once it is closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with Client(f"http://127.0.0.1:{port}/", timeout=5) as c:
        with pytest.raises(errors.TransportError):
            c.system_echo("x")


def documented_codes() -> set[int]:
    """Every code in the README's error table and docs/*.md error tables."""
    codes: set[int] = set()
    paths = [os.path.join(REPO, "README.md")] + [
        os.path.join(REPO, "docs", n)
        for n in ("tournament.md", "rswiss.md", "pairing.md", "sgf.md", "score.md", "aga.md")
    ]
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"^\| *(-?\d{1,5})(?: *[–-] *(\d{1,5}))? *\|", line)
                if m:
                    first = int(m.group(1))
                    # A row for a range ("1201–1204") documents every code in it.
                    last = int(m.group(2)) if m.group(2) else first
                    codes.update(range(first, last + 1))
                # docs/tournament.md puts several codes on one line: "· 1012 duplicate ..."
                if m and "·" in line:
                    codes.update(int(x) for x in re.findall(r"· (\d{4}) ", line))
    return codes


def test_every_documented_code_has_its_class() -> None:
    codes = documented_codes()
    assert {-32602, 1001, 1002, 202, 610, 710, 810, 910, -32010} <= codes
    missing = sorted(codes - set(errors.ERRORS))
    assert missing == [], f"documented codes without a class in goswiss.errors: {missing}"
    for code, cls in errors.ERRORS.items():
        assert cls.code == code and issubclass(cls, errors.Fault)
    assert len({cls.__name__ for cls in errors.ERRORS.values()}) == len(errors.ERRORS)


def test_every_code_rpc_discover_declares_has_its_class(url: str) -> None:
    with Client(url) as c:
        doc = c.call("rpc.discover")
    declared = {e["code"] for m in doc["methods"] for e in m.get("errors", [])}
    assert {1001, 1101, 1204} <= declared
    missing = sorted(declared - set(errors.ERRORS))
    assert missing == [], f"codes rpc.discover declares without a class: {missing}"
