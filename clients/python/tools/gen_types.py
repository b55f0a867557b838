#!/usr/bin/env python3
"""Generates goswiss/_generated.py from the daemon's own description of its API.

    python3 tools/gen_types.py --url http://127.0.0.1:9090/          # rewrite the file
    python3 tools/gen_types.py --url http://127.0.0.1:9090/ --check  # exit 1 if it is stale
    python3 tools/gen_types.py --document discover.json              # from a saved document

The document is `rpc.discover` (OpenRPC 1.x). Every schema in `components.schemas` (and the
`definitions` / `$defs` nested in them) becomes a TypedDict; every method becomes a typed
stub in `SyncMethods` and `AsyncMethods`, which the clients inherit. Where the document says
only `object` or `array`, the type is `dict[str, Any]` or `list[Any]`: as the document gains
types, rerunning this script tightens the package with no hand edits. Methods whose whole
params and result are untyped are listed in the file's `UNTYPED_METHODS`.

Standard library only, so it runs wherever the daemon's tests run.
"""

from __future__ import annotations

import argparse
import difflib
import json
import keyword
import os
import re
import sys
import urllib.request
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "goswiss", "_generated.py")

# Served over WebSocket as a subscription: AsyncClient.subscribe() is its typed front.
SKIPPED = {"tournament.subscribe", "tournament.unsubscribe"}

# What a schema that says only "object" / "array" / nothing becomes.
FALLBACK = ("Any", "dict[str, Any]", "list[Any]")

SCALARS = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "null": "None",
}


def snake(name: str) -> str:
    """`tournament.player.add` -> `tournament_player_add`; `system.listMethods` -> `system_list_methods`."""
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
    s = re.sub(r"[^0-9a-z_]", "_", s)
    if s[0].isdigit() or keyword.iskeyword(s):
        s = "m_" + s
    return s


def ident(name: str) -> str:
    s = re.sub(r"\W", "_", name)
    if not s or s[0].isdigit():
        s = "_" + s
    if keyword.iskeyword(s) or s in ("self", "cast", "Any"):
        s += "_"
    return s


def class_name(name: str) -> str:
    parts = re.split(r"[^0-9A-Za-z]+", name)
    s = "".join(p[:1].upper() + p[1:] for p in parts if p)
    return ident(s or "Anonymous")


class Gen:
    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.defs: dict[str, Any] = {}  # class name -> schema
        self.order: list[str] = []
        self.emitted: dict[str, str] = {}
        comps = doc.get("components", {}).get("schemas", {}) or {}
        for name in sorted(comps):
            self.collect(name, comps[name])

    def collect(self, name: str, schema: Any) -> None:
        if not isinstance(schema, dict):
            return
        for key in ("definitions", "$defs"):
            for sub in sorted(schema.get(key, {}) or {}):
                self.collect(sub, schema[key][sub])
        cname = class_name(name)
        if cname not in self.defs:
            self.defs[cname] = schema
            self.order.append(cname)

    def ref(self, ref: str) -> str:
        cname = class_name(ref.rsplit("/", 1)[-1])
        return cname if cname in self.defs else "Any"

    def type_of(self, schema: Any, hint: str) -> str:
        """The Python type of a schema; inline objects with properties become named TypedDicts."""
        if not isinstance(schema, dict) or not schema:
            return "Any"
        if "$ref" in schema:
            return self.ref(schema["$ref"])
        if "const" in schema:
            return f"Literal[{json.dumps(schema['const'])}]"
        if "enum" in schema and all(
            isinstance(v, (str, int, bool)) or v is None for v in schema["enum"]
        ):
            lits = [json.dumps(v) if v is not None else "None" for v in schema["enum"]]
            lits = [lit.replace("true", "True").replace("false", "False") for lit in lits]
            return f"Literal[{', '.join(lits)}]"
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return self.union(
                    [self.type_of(s, f"{hint}{k}") for k, s in enumerate(schema[key])]
                )
        if "allOf" in schema and len(schema["allOf"]) == 1:
            return self.type_of(schema["allOf"][0], hint)
        t = schema.get("type")
        if isinstance(t, list):
            return self.union([self.type_of({**schema, "type": one}, hint) for one in t])
        if t in SCALARS:
            return SCALARS[t]
        if t == "array":
            items = schema.get("items")
            return f"list[{self.type_of(items, hint + 'Item')}]"
        if t == "object" or "properties" in schema:
            if schema.get("properties"):
                name = hint
                while name in self.defs and self.defs[name] is not schema:
                    name += "_"
                if name not in self.defs:
                    self.defs[name] = schema
                    self.order.append(name)
                return name
            extra = schema.get("additionalProperties")
            value = self.type_of(extra, hint + "Value") if isinstance(extra, dict) else "Any"
            return f"dict[str, {value}]"
        return "Any"

    @staticmethod
    def union(types: list[str]) -> str:
        seen: list[str] = []
        for t in types:
            if t not in seen:
                seen.append(t)
        if "Any" in seen:
            return "Any"
        return " | ".join(seen)

    def typed_dict(self, name: str) -> str:
        schema = self.defs[name]
        props: dict[str, Any] = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        doc = (schema.get("description") or schema.get("title") or name).strip()
        fields = []
        for key in sorted(props):
            t = self.type_of(props[key], name + class_name(key))
            fields.append((key, f"Required[{t}]" if key in required else t))
        lines = []
        plain = all(k.isidentifier() and not keyword.iskeyword(k) for k, _ in fields)
        if not fields:
            # An enum, a union of variants, a map: a type alias (quoted, as it may name
            # TypedDicts defined further down).
            if schema.get("properties") is None and (
                schema.get("type") != "object" or "additionalProperties" in schema
            ):
                t = self.type_of({**schema, "description": None}, name + "Variant")
            else:
                t = "dict[str, Any]"
            comment = "\n".join(f"# {line}".rstrip() for line in doc.splitlines())
            return f"{comment}\n{name}: TypeAlias = {t!r}\n"
        if plain:
            lines.append(f"class {name}(TypedDict, total=False):")
            lines.append(f"    {self.pydoc(doc, 4)}")
            lines.append("")
            lines += [f"    {k}: {t}" for k, t in fields]
        else:
            lines.append(f"{name} = TypedDict(")
            lines.append(f"    {json.dumps(name)},")
            lines.append("    {")
            lines += [f"        {json.dumps(k)}: {t}," for k, t in fields]
            lines.append("    },")
            lines.append("    total=False,")
            lines.append(")")
            lines.append(self.docline(name, doc))
        return "\n".join(lines) + "\n"

    @staticmethod
    def docline(name: str, doc: str) -> str:
        return f"{name}.__doc__ = {json.dumps(doc)}\n"

    @staticmethod
    def pydoc(text: str, indent: int) -> str:
        text = text.replace("\\", "\\\\").replace('"""', "'''")
        pad = " " * indent
        body = "\n".join((pad + line) if line else "" for line in text.splitlines())
        return f'"""{body.lstrip()}"""' if "\n" not in text else f'"""{body.lstrip()}\n{pad}"""'

    def method(self, m: dict[str, Any], asynchronous: bool) -> tuple[str, bool]:
        name = m["name"]
        py = snake(name)
        params = m.get("params") or []
        args: list[str] = ["self"]
        names: list[str] = []
        untyped = False
        optional_seen = False
        hint = class_name(name)
        for p in params:
            pname = ident(p.get("name", f"p{len(names)}"))
            t = self.type_of(p.get("schema"), hint + class_name(pname))
            untyped = untyped or t in FALLBACK
            if p.get("required") and not optional_seen:
                args.append(f"{pname}: {t}")
            else:
                optional_seen = True
                nullable = t == "Any" or "None" in t.split(" | ")
                args.append(f"{pname}: {t if nullable else t + ' | None'} = None")
            names.append(pname)
        rschema = (m.get("result") or {}).get("schema")
        rt = self.type_of(rschema, hint + "Result")
        untyped = untyped or rt in FALLBACK
        summary = (m.get("summary") or m.get("description") or name).strip()
        sig = ", ".join(args)
        call = f'self._call("{name}", _trim([{", ".join(names)}]))'
        lines = []
        if asynchronous:
            lines.append(f"    async def {py}({sig}) -> {rt}:")
        else:
            lines.append(f"    def {py}({sig}) -> {rt}:")
        lines.append(f"        {self.pydoc(f'`{name}`: {summary}', 8)}")
        value = f"await {call}" if asynchronous else call
        if rt == "Any":
            lines.append(f"        return {value}")
        else:
            lines.append(f'        return cast("{rt}", {value})')
        return "\n".join(lines) + "\n", untyped

    def render(self) -> str:
        methods = [
            m
            for m in sorted(self.doc.get("methods", []), key=lambda m: m["name"])
            if m["name"] not in SKIPPED
        ]
        sync_parts, async_parts, untyped = [], [], []
        for m in methods:
            text, is_untyped = self.method(m, False)
            sync_parts.append(text)
            async_parts.append(self.method(m, True)[0])
            if is_untyped:
                untyped.append(m["name"])
        # TypedDicts last discovered first need every name they use defined: rendering them
        # after the methods (which may add inline ones) and with postponed annotations works.
        k = 0
        dicts = []
        while k < len(self.order):
            dicts.append(self.typed_dict(self.order[k]))
            k += 1
        out = [
            '"""Types and method stubs generated by tools/gen_types.py from `rpc.discover`.',
            "",
            "Do not edit: rerun the generator against the daemon (tests check it is current).",
            '"""',
            "",
            "# ruff: noqa",
            "from __future__ import annotations",
            "",
            "from typing import Any, Literal, Required, TypeAlias, TypedDict, cast",
            "",
            "__all__ = [",
            *[f'    "{n}",' for n in sorted(self.order + ["AsyncMethods", "SyncMethods"])],
            "]",
            "",
            "# Methods with a parameter or result the document types only as object/array/any.",
            "UNTYPED_METHODS: tuple[str, ...] = (",
            *[f'    "{n}",' for n in untyped],
            ")",
            "",
            "",
            "def _trim(params: list[Any]) -> list[Any]:",
            '    """Drops trailing None (optional, not given); inner ones travel as null."""',
            "    while params and params[-1] is None:",
            "        params.pop()",
            "    return params",
            "",
            "",
        ]
        for d in dicts:
            out.append(d)
            out.append("")
        out += [
            "class SyncMethods:",
            '    """Every method of the document, one typed call each (the blocking clients)."""',
            "",
            "    def _call(self, method: str, params: list[Any]) -> Any:",
            "        raise NotImplementedError",
            "",
        ]
        for t in sync_parts:
            out.append(t)
        out += [
            "",
            "class AsyncMethods:",
            '    """Every method of the document, one typed coroutine each (the asyncio client)."""',
            "",
            "    async def _call(self, method: str, params: list[Any]) -> Any:",
            "        raise NotImplementedError",
            "",
        ]
        for t in async_parts:
            out.append(t)
        text = "\n".join(out)
        text = re.sub(r"\n{3,}(?=    )", "\n\n", text)
        text = re.sub(r"\n{4,}", "\n\n\n", text)
        return text.rstrip() + "\n"


def discover(url: str) -> dict[str, Any]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "rpc.discover", "params": []})
    req = urllib.request.Request(
        url, data=body.encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=60) as resp:
        reply = json.load(resp)
    if "result" not in reply:
        raise SystemExit(f"rpc.discover failed: {reply}")
    result: dict[str, Any] = reply["result"]
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--url", help="the daemon's JSON-RPC URL (http://host:port/)")
    src.add_argument("--document", help="a saved rpc.discover result (or whole reply)")
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--check", action="store_true", help="exit 1 if --out differs")
    args = ap.parse_args()
    if args.url:
        doc = discover(args.url)
    else:
        with open(args.document, encoding="utf-8") as f:
            doc = json.load(f)
        doc = doc.get("result", doc)
    text = Gen(doc).render()
    if args.check:
        try:
            with open(args.out, encoding="utf-8") as f:
                old = f.read()
        except FileNotFoundError:
            old = ""
        if old != text:
            diff = difflib.unified_diff(
                old.splitlines(True), text.splitlines(True), "committed", "regenerated"
            )
            sys.stdout.writelines(list(diff)[:200])
            print(f"\n{args.out} is stale: rerun tools/gen_types.py --url URL", file=sys.stderr)
            return 1
        print(f"{args.out} is current")
        return 0
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
