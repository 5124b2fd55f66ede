// The extension's kinds (lib/kinds.js) and the fields its normalizer knows are
// the server's (`gasoline kinds`, from src/kind.rs): adding a kind or a column on
// one side only fails here. GASOLINE_BIN names the binary (cargo test sets it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { normalize } from "../../background/normalize.js";

const require = createRequire(import.meta.url);

const kinds = require("../../lib/kinds.js");
const here = path.dirname(fileURLToPath(import.meta.url));
const bin = process.env.GASOLINE_BIN || path.resolve(here, "../../../target/debug/gasoline");

function declared() {
  assert.ok(existsSync(bin), `no gasoline binary at ${bin}: cargo build, or set GASOLINE_BIN`);
  return JSON.parse(execFileSync(bin, ["kinds"], { encoding: "utf8" })).kinds;
}

test("the extension's event kinds are the server's, in its order", () => {
  assert.deepEqual(kinds.EVENT_KINDS, declared().map((k) => k.name));
});

test("every kind has a name for a person in the popup and the options, and no two share one", () => {
  assert.deepEqual(Object.keys(kinds.LABELS).sort(), [...kinds.ALL].sort());
  const labels = Object.values(kinds.LABELS);
  assert.equal(new Set(labels).size, labels.length);
});

test("every column the normalizer fills is a field the server declares", () => {
  for (const kind of declared()) {
    const fields = new Set(kind.fields);
    const entry = normalize(kind.name, {}, 1);
    assert.ok(entry, `the normalizer knows ${kind.name}`);
    for (const key of Object.keys(entry)) assert.ok(fields.has(key), `${kind.name}.${key} is not declared by src/kind.rs`);
    for (const column of kind.columns.filter((c) => c.required === true)) {
      assert.ok(column.field in entry, `${kind.name}: the normalizer fills the required ${column.field}`);
    }
  }
});
