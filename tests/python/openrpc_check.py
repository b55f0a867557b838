#!/usr/bin/env python3
"""Checks goswiss's rpc.discover document with Python's jsonschema (tests/it/docs/openrpc_document.rs).

    openrpc_check.py DOC.json                # the document against the OpenRPC meta-schema
    openrpc_check.py DOC.json ANSWERS.jsonl  # and each answer against its method's schemas

Each line of ANSWERS.jsonl is {"method": name, "result": value} (checked against the
method's result schema) or {"method": name, "params": [values]} (each value against its
parameter's schema). `$ref`s resolve inside the document (`#/components/schemas/…`).
Prints one line per failure and exits 1 if there was any.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from jsonschema import Draft7Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "openrpc")
DOC_URI = "urn:goswiss:rpc.discover"


def load(name: str) -> Any:
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return json.load(f)


def meta_errors(doc: dict[str, Any]) -> list[str]:
    meta = load("openrpc-meta-schema-1.14.9.json")
    json_schema = load("json-schema-tools-meta-schema-1.8.0.json")
    resource = DRAFT7.create_resource(json_schema)
    registry: Registry[Any] = Registry().with_resources(
        [
            ("https://meta.json-schema.tools", resource),
            ("https://meta.json-schema.tools/", resource),
        ]
    )
    v = Draft7Validator(meta, registry=registry)
    return [
        f"meta-schema: /{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}"
        for e in v.iter_errors(doc)
    ]


def answer_errors(doc: dict[str, Any], lines: list[dict[str, Any]]) -> list[str]:
    registry: Registry[Any] = Registry().with_resource(
        DOC_URI, Resource.from_contents(doc, default_specification=DRAFT7)
    )
    index = {m["name"]: k for k, m in enumerate(doc["methods"])}
    out: list[str] = []
    for n, line in enumerate(lines, 1):
        name = line["method"]
        if name not in index:
            out.append(f"line {n}: {name} is not in the document")
            continue
        k = index[name]
        checks: list[tuple[str, Any]] = []
        if "result" in line:
            checks.append((f"{DOC_URI}#/methods/{k}/result/schema", line["result"]))
        for i, value in enumerate(line.get("params", [])):
            if i < len(doc["methods"][k]["params"]):
                checks.append((f"{DOC_URI}#/methods/{k}/params/{i}/schema", value))
        for ref, value in checks:
            v = Draft7Validator({"$ref": ref}, registry=registry)
            for e in v.iter_errors(value):
                what = "result" if ref.endswith("/result/schema") else ref.rsplit("/", 2)[-2]
                at = "/".join(map(str, e.absolute_path))
                out.append(f"line {n}: {name} {what} at /{at}: {e.message[:300]}")
    return out


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    errors = meta_errors(doc)
    if len(sys.argv) > 2:
        with open(sys.argv[2], encoding="utf-8") as f:
            lines = [json.loads(x) for x in f if x.strip()]
        errors += answer_errors(doc, lines)
        print(f"{len(lines)} answers checked")
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
