// What the docs promise: src/generated.ts is current with the daemon's rpc.discover, the
// generator types what a document declares, and the README's TypeScript example is
// examples/quickstart.ts (which tsc compiled) and runs as printed.

import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { daemonUrl } from "./helpers.mjs";

const PKG = fileURLToPath(new URL("..", import.meta.url));
const GEN = join(PKG, "tools", "gen-types.mjs");
// The repository's README (the Rust test runs a copy of the package and says where it is).
const README = process.env.GOSWISS_README ?? join(PKG, "..", "..", "README.md");

test("src/generated.ts is current with the daemon's rpc.discover", () => {
  const out = spawnSync(process.execPath, [GEN, "--url", daemonUrl(), "--check"], { encoding: "utf8", timeout: 120000 });
  assert.equal(
    out.status,
    0,
    `src/generated.ts differs from what rpc.discover gives now: run \`node clients/typescript/tools/gen-types.mjs --url URL\`\n${out.stdout}${out.stderr}`,
  );
});

test("the generator types what the document declares, and --check sees a stale file", () => {
  const dir = mkdtempSync(join(tmpdir(), "goswiss-gen-"));
  try {
    const doc = {
      methods: [
        {
          name: "demo.add",
          params: [
            { name: "player", required: true, schema: { $ref: "#/components/schemas/P" } },
            { name: "class", required: false, schema: { type: ["integer", "null"] } },
          ],
          result: { name: "r", schema: { type: "array", items: { type: "string" } } },
        },
        { name: "demo.loose", params: [], result: { name: "r", schema: { type: "object" } } },
        { name: "tournament.subscribe", params: [], result: { name: "r", schema: true } },
      ],
      components: {
        schemas: {
          P: {
            type: "object",
            description: "A player.",
            required: ["name"],
            properties: {
              name: { type: "string" },
              rank: { enum: ["1d", "2d"] },
              "first-name": { type: "object", properties: { x: { type: "number" } } },
              pair: { type: "array", prefixItems: [{ type: "integer" }, { type: "string" }], maxItems: 2 },
            },
          },
          Colour: { enum: ["black", "white"] },
        },
      },
    };
    const path = join(dir, "doc.json");
    const target = join(dir, "gen.ts");
    writeFileSync(path, JSON.stringify(doc));
    const run = (extra) => spawnSync(process.execPath, [GEN, "--document", path, "--out", target, ...extra], { encoding: "utf8" });
    assert.equal(run([]).status, 0);
    const text = readFileSync(target, "utf8");
    assert.match(text, /\/\*\* A player\. \*\/\nexport interface P \{/);
    assert.match(text, /  name: string;/);
    assert.match(text, /  rank\?: "1d" \| "2d";/);
    assert.match(text, /  "first-name"\?: \{\n    x\?: number;\n  \};/);
    assert.match(text, /  pair\?: \[number, string\];/);
    assert.match(text, /export type Colour = "black" \| "white";/);
    assert.match(text, /  demoAdd\(player: P, class_\?: number \| null\): Promise<string\[\]> \{/);
    assert.match(text, /  demoLoose\(\): Promise<Record<string, unknown>> \{/);
    assert.match(text, /UNTYPED_METHODS: readonly string\[\] = \[\n  "demo.loose",\n\];/);
    assert.doesNotMatch(text, /tournament\.subscribe|tournamentSubscribe/);
    assert.equal(run(["--check"]).status, 0);
    writeFileSync(target, text.replace("name: string;", "name: number;"));
    const stale = run(["--check"]);
    assert.equal(stale.status, 1);
    assert.match(stale.stderr, /is stale/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function readmeExample() {
  const readme = readFileSync(README, "utf8");
  const section = readme.split("\n## Clients\n")[1].split("\n## ")[0];
  const m = /```ts\n([\s\S]*?)```/.exec(section);
  assert.ok(m, "the README's Clients section has a ```ts block");
  return m[1];
}

test("the README's TypeScript example is examples/quickstart.ts", () => {
  assert.equal(readmeExample(), readFileSync(join(PKG, "examples", "quickstart.ts"), "utf8"));
});

test("the README's TypeScript example runs as printed", () => {
  // The compiled example (tsc checked it with the rest); "goswiss" resolves to this package.
  const out = spawnSync(process.execPath, [join(PKG, "dist", "examples", "quickstart.js")], {
    encoding: "utf8",
    timeout: 120000,
    env: { ...process.env, GOSWISS_URL: daemonUrl() },
  });
  assert.equal(out.status, 0, out.stdout + out.stderr);
  const lines = out.stdout.trim().split("\n");
  assert.ok(lines.some((l) => l.startsWith("refused: 1021 ")), out.stdout);
  assert.equal(lines.filter((l) => /^\d \w+ \{/.test(l)).length, 4);
  const events = lines.filter((l) => l.startsWith("event ")).map((l) => l.split(" ").slice(1, 3));
  assert.deepEqual(
    events.map(([rev]) => Number(rev)),
    events.map((_, k) => k + 2),
  );
  assert.deepEqual(
    events.map(([, kind]) => kind),
    [...Array(4).fill("player_registered"), "round_paired", "result_set", "result_set"],
  );
  assert.equal(lines[lines.length - 1], "live events: 7");
});
