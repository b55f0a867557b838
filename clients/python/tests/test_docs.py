"""What the docs promise: the generated types are current with the daemon's rpc.discover,
and the README's Clients example runs as printed (and is the one mypy checks)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

import goswiss

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.join(HERE, "..")
REPO = os.path.join(PKG, "..", "..")
PACKAGE_DIR = os.path.dirname(os.path.abspath(goswiss.__file__))


def test_generated_types_are_current(url: str) -> None:
    out = subprocess.run(
        [sys.executable, os.path.join(PKG, "tools", "gen_types.py"), "--url", url, "--check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, (
        "goswiss/_generated.py differs from what rpc.discover gives now: run "
        f"`python3 clients/python/tools/gen_types.py --url URL`\n{out.stdout}{out.stderr}"
    )


def test_the_generator_types_what_the_document_declares(tmp_path: object) -> None:
    import json

    doc = {
        "methods": [
            {
                "name": "demo.add",
                "params": [
                    {"name": "player", "required": True, "schema": {"$ref": "#/components/schemas/P"}},
                    {"name": "class", "required": False, "schema": {"type": ["integer", "null"]}},
                ],
                "result": {"name": "r", "schema": {"type": "array", "items": {"type": "string"}}},
            },
            {"name": "demo.loose", "params": [], "result": {"name": "r", "schema": {"type": "object"}}},
        ],
        "components": {
            "schemas": {
                "P": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {
                        "name": {"type": "string"},
                        "rank": {"enum": ["1d", "2d"]},
                        "from": {"type": "object", "properties": {"x": {"type": "number"}}},
                    },
                }
            }
        },
    }
    path = os.path.join(str(tmp_path), "doc.json")
    target = os.path.join(str(tmp_path), "gen.py")
    with open(path, "w") as f:
        json.dump(doc, f)
    subprocess.run(
        [sys.executable, os.path.join(PKG, "tools", "gen_types.py"), "--document", path, "--out", target],
        check=True,
        capture_output=True,
        timeout=60,
    )
    with open(target) as f:
        text = f.read()
    assert '"name": Required[str]' in text and '"rank": Literal["1d", "2d"]' in text
    assert '"from": PFrom' in text and "class PFrom(TypedDict, total=False):" in text
    assert "def demo_add(self, player: P, class_: int | None = None) -> list[str]:" in text
    assert "def demo_loose(self) -> dict[str, Any]:" in text
    assert re.search(r'UNTYPED_METHODS[^)]*"demo.loose",\n\)', text)
    compile(text, target, "exec")


def readme_example() -> str:
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    section = readme.split("\n## Clients\n", 1)[1].split("\n## ", 1)[0]
    m = re.search(r"```python\n(.*?)```", section, re.S)
    assert m, "the README's Clients section has a ```python block"
    return m.group(1)


def test_readme_example_is_the_checked_example() -> None:
    with open(os.path.join(PKG, "examples", "quickstart.py"), encoding="utf-8") as f:
        assert readme_example() == f.read()


def test_readme_example_runs(url: str, tmp_path: object) -> None:
    script = os.path.join(str(tmp_path), "example.py")
    with open(script, "w", encoding="utf-8") as f:
        f.write(readme_example())
    out = subprocess.run(
        [sys.executable, script],
        capture_output=True,
        text=True,
        timeout=120,
        # The goswiss under test (installed, or this checkout's when run by hand).
        env={**os.environ, "GOSWISS_URL": url, "PYTHONPATH": os.path.dirname(PACKAGE_DIR)},
        cwd=str(tmp_path),
    )
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert any(line.startswith("refused: 1021 ") for line in lines), out.stdout
    places = [line for line in lines if re.match(r"^\d \w+ \{", line)]
    assert len(places) == 4
    events = [line.split()[1:3] for line in lines if line.startswith("event ")]
    assert [int(rev) for rev, _ in events] == list(range(2, 2 + len(events)))
    assert [kind for _, kind in events] == ["player_registered"] * 4 + ["round_paired"] + [
        "result_set"
    ] * 2
    assert lines[-1] == "live events: 7"


@pytest.mark.parametrize("name", ["quickstart.py"])
def test_examples_compile(name: str) -> None:
    with open(os.path.join(PKG, "examples", name), encoding="utf-8") as f:
        compile(f.read(), name, "exec")
