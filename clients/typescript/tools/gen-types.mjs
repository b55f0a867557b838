#!/usr/bin/env node
// Generates src/generated.ts from the daemon's own description of its API (rpc.discover).
//
//   node tools/gen-types.mjs --url http://127.0.0.1:9090/           rewrite src/generated.ts
//   node tools/gen-types.mjs --url http://127.0.0.1:9090/ --check   exit 1 if it is stale
//   node tools/gen-types.mjs --document discover.json [--out file]  from a saved document
//
// Every schema in components.schemas becomes an interface (objects with properties) or a
// type alias (enums, unions, maps); every method becomes one typed method of the abstract
// class `Methods`, which the client extends: `tournament.player.add` is
// `tournamentPlayerAdd(tournament_id: number, player: Player): Promise<PlayerAdded>`.
// Where the document says only "object" / "array" / nothing, the type is
// Record<string, unknown> / unknown[] / unknown, so rerunning this tightens the package as
// the document gains types. Plain Node, no dependencies.

import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const DEFAULT_OUT = join(HERE, "..", "src", "generated.ts");

// Served over WebSocket as a subscription: Client.subscribe() is their typed front.
const SKIPPED = new Set(["tournament.subscribe", "tournament.unsubscribe"]);

const RESERVED = new Set(
  ("break case catch class const continue debugger default delete do else enum export extends " +
    "false finally for function if import in instanceof new null return super switch this throw " +
    "true try typeof var void while with yield let static implements interface package private " +
    "protected public await arguments eval").split(" "),
);

/** `tournament.player.add` -> `tournamentPlayerAdd`; `system.listMethods` -> `systemListMethods`. */
export function camel(name) {
  const parts = name.split(/[^0-9A-Za-z]+/).filter(Boolean);
  let s = parts.map((p, k) => (k === 0 ? p : p[0].toUpperCase() + p.slice(1))).join("");
  if (/^[0-9]/.test(s) || RESERVED.has(s)) s = "m_" + s;
  return s;
}

function ident(name) {
  let s = name.replace(/[^0-9A-Za-z_$]/g, "_");
  if (!s || /^[0-9]/.test(s)) s = "_" + s;
  if (RESERVED.has(s)) s += "_";
  return s;
}

function typeName(name) {
  const s = name
    .split(/[^0-9A-Za-z]+/)
    .filter(Boolean)
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join("");
  return ident(s || "Anonymous");
}

function propKey(k) {
  return /^[A-Za-z_$][0-9A-Za-z_$]*$/.test(k) ? k : JSON.stringify(k);
}

function comment(text, pad) {
  if (!text) return "";
  const lines = String(text).trim().replace(/\*\//g, "*\\/").split("\n");
  if (lines.length === 1) return `${pad}/** ${lines[0]} */\n`;
  return `${pad}/**\n${lines.map((l) => `${pad} *${l ? " " + l : ""}`).join("\n")}\n${pad} */\n`;
}

function union(types) {
  const seen = [];
  for (const t of types) if (!seen.includes(t)) seen.push(t);
  if (seen.includes("unknown")) return "unknown";
  return seen.length === 1 ? seen[0] : seen.map((t) => (/[|&]/.test(t) && !t.startsWith("{") ? `(${t})` : t)).join(" | ");
}

export class Gen {
  constructor(doc) {
    this.doc = doc;
    this.defs = new Map(); // type name -> schema
    const comps = (doc.components && doc.components.schemas) || {};
    for (const name of Object.keys(comps).sort()) this.collect(name, comps[name]);
  }

  collect(name, schema) {
    if (!schema || typeof schema !== "object") return;
    for (const key of ["definitions", "$defs"]) {
      const sub = schema[key] || {};
      for (const n of Object.keys(sub).sort()) this.collect(n, sub[n]);
    }
    const t = typeName(name);
    if (!this.defs.has(t)) this.defs.set(t, schema);
  }

  ref(ref) {
    const t = typeName(ref.split("/").pop());
    return this.defs.has(t) ? t : "unknown";
  }

  /** The TypeScript type of a schema, written inline. */
  type(schema, indent = "") {
    if (schema === false) return "never";
    if (!schema || typeof schema !== "object" || Object.keys(schema).length === 0) return "unknown";
    if (schema.$ref) return this.ref(schema.$ref);
    if ("const" in schema) return JSON.stringify(schema.const);
    if (Array.isArray(schema.enum)) return union(schema.enum.map((v) => JSON.stringify(v)));
    for (const key of ["anyOf", "oneOf"]) {
      if (Array.isArray(schema[key])) return union(schema[key].map((s) => this.type(s, indent)));
    }
    if (Array.isArray(schema.allOf)) {
      const parts = schema.allOf.map((s) => this.type(s, indent)).filter((t) => t !== "unknown");
      return parts.length ? [...new Set(parts)].join(" & ") : "unknown";
    }
    const t = schema.type;
    if (Array.isArray(t)) return union(t.map((one) => this.type({ ...schema, type: one }, indent)));
    switch (t) {
      case "string":
        return "string";
      case "integer":
      case "number":
        return "number";
      case "boolean":
        return "boolean";
      case "null":
        return "null";
      case "array": {
        if (Array.isArray(schema.prefixItems)) {
          const items = schema.prefixItems.map((s) => this.type(s, indent));
          const rest = schema.items === false || schema.maxItems === items.length ? "" : ", ...unknown[]";
          return `[${items.join(", ")}${rest}]`;
        }
        const item = this.type(schema.items, indent);
        return /[|&]/.test(item) && !item.startsWith("{") ? `(${item})[]` : `${item}[]`;
      }
      default:
        break;
    }
    if (t === "object" || schema.properties) {
      if (schema.properties && Object.keys(schema.properties).length) return this.object(schema, indent);
      const extra = schema.additionalProperties;
      const value = extra && typeof extra === "object" ? this.type(extra, indent) : "unknown";
      return `Record<string, ${value}>`;
    }
    return "unknown";
  }

  object(schema, indent) {
    const required = new Set(schema.required || []);
    const inner = indent + "  ";
    const lines = Object.keys(schema.properties)
      .sort()
      .map((k) => {
        const p = schema.properties[k];
        const desc = p && typeof p === "object" ? p.description : undefined;
        return `${comment(desc, inner)}${inner}${propKey(k)}${required.has(k) ? "" : "?"}: ${this.type(p, inner)};`;
      });
    return `{\n${lines.join("\n")}\n${indent}}`;
  }

  declaration(name) {
    const schema = this.defs.get(name);
    const doc = comment(schema.description || schema.title, "");
    const hasProps = schema.properties && Object.keys(schema.properties).length;
    if (hasProps && !schema.anyOf && !schema.oneOf && !schema.allOf && (schema.type === "object" || !schema.type)) {
      return `${doc}export interface ${name} ${this.object(schema, "")}\n`;
    }
    const { description, title, ...rest } = schema;
    return `${doc}export type ${name} = ${this.type(rest, "")};\n`;
  }

  method(m) {
    const name = m.name;
    const params = m.params || [];
    const args = [];
    const names = [];
    let optionalSeen = false;
    let untyped = false;
    for (const [k, p] of params.entries()) {
      const pname = ident(p.name || `p${k}`);
      const schema = p.schema;
      const t = this.type(schema, "    ");
      if (t === "unknown" || t.startsWith("Record<string, unknown>") || t === "unknown[]") untyped = true;
      if (p.required && !optionalSeen) args.push(`${pname}: ${t}`);
      else {
        optionalSeen = true;
        args.push(`${pname}?: ${t === "unknown" || /(^|\| )null( |$)/.test(t) ? t : t + " | null"}`);
      }
      names.push(pname);
    }
    const rt = this.type((m.result || {}).schema, "    ");
    if (rt === "unknown" || rt === "Record<string, unknown>" || rt === "unknown[]") untyped = true;
    const summary = m.summary || m.description || "";
    const doc = comment(`\`${name}\`${summary ? ": " + summary : ""}`, "  ");
    const text =
      `${doc}  ${camel(name)}(${args.join(", ")}): Promise<${rt}> {\n` +
      `    return this._call(${JSON.stringify(name)}, trim([${names.join(", ")}])) as Promise<${rt}>;\n  }\n`;
    return { text, untyped, params: names.length, rt };
  }

  render() {
    const methods = (this.doc.methods || [])
      .filter((m) => !SKIPPED.has(m.name))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const rendered = methods.map((m) => ({ m, ...this.method(m) }));
    const untyped = rendered.filter((r) => r.untyped).map((r) => r.m.name);
    const decls = [...this.defs.keys()].sort().map((n) => this.declaration(n));
    const out = [
      "// Types and methods generated by tools/gen-types.mjs from the daemon's `rpc.discover`.",
      "// Do not edit: rerun the generator against the daemon (a test checks it is current).",
      "/* eslint-disable */",
      "",
      "/** Methods with a parameter or result the document types only as object/array/anything. */",
      "export const UNTYPED_METHODS: readonly string[] = [",
      ...untyped.map((n) => `  ${JSON.stringify(n)},`),
      "];",
      "",
      "/** Every method of the document (the subscription pair aside: see Client.subscribe). */",
      "export const METHODS: readonly string[] = [",
      ...methods.map((m) => `  ${JSON.stringify(m.name)},`),
      "];",
      "",
      "/** Drops trailing undefined/null (optional, not given); inner ones travel as null. */",
      "function trim(params: unknown[]): unknown[] {",
      "  while (params.length && (params[params.length - 1] === undefined || params[params.length - 1] === null)) params.pop();",
      "  return params.map((p) => (p === undefined ? null : p));",
      "}",
      "",
      ...decls,
      "/** Every method of the document, one typed call each; the client supplies `_call`. */",
      "export abstract class Methods {",
      "  protected abstract _call(method: string, params: unknown[]): Promise<unknown>;",
      "",
      rendered.map((r) => r.text).join("\n"),
      "}",
      "",
    ];
    return out.join("\n");
  }
}

async function discover(url) {
  const reply = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "rpc.discover", params: [] }),
  });
  const body = await reply.json();
  if (!body || typeof body !== "object" || !("result" in body)) {
    throw new Error(`rpc.discover failed: ${JSON.stringify(body).slice(0, 500)}`);
  }
  return body.result;
}

async function main(argv) {
  const args = { out: DEFAULT_OUT, check: false };
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k];
    if (a === "--check") args.check = true;
    else if (a === "--url" || a === "--document" || a === "--out") args[a.slice(2)] = argv[++k];
    else {
      console.error(`unknown argument ${a}\nusage: gen-types.mjs (--url URL | --document FILE) [--out FILE] [--check]`);
      return 2;
    }
  }
  if (!args.url === !args.document) {
    console.error("give one of --url URL or --document FILE");
    return 2;
  }
  let doc;
  if (args.url) doc = await discover(args.url);
  else {
    doc = JSON.parse(readFileSync(args.document, "utf8"));
    if (doc && doc.result) doc = doc.result;
  }
  const text = new Gen(doc).render();
  if (args.check) {
    let old = "";
    try {
      old = readFileSync(args.out, "utf8");
    } catch {
      old = "";
    }
    if (old !== text) {
      const a = old.split("\n");
      const b = text.split("\n");
      let k = 0;
      while (k < a.length && k < b.length && a[k] === b[k]) k++;
      console.log(`first difference at line ${k + 1}:\n- ${a[k] ?? "(end)"}\n+ ${b[k] ?? "(end)"}`);
      console.error(`${args.out} is stale: rerun node tools/gen-types.mjs --url URL`);
      return 1;
    }
    console.log(`${args.out} is current`);
    return 0;
  }
  writeFileSync(args.out, text);
  console.log(`wrote ${args.out}`);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      console.error(String(e && e.stack ? e.stack : e));
      process.exit(1);
    },
  );
}
