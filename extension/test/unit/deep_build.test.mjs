// The deep view's permission: Chrome lets no extension ask for `debugger` at run time (it
// implies access to every site, and Chromium marks it "cannot be optional"), so the shipped
// extension does without it, and scripts/deep-extension.sh writes the build that holds it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const extension = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const manifestOf = (dir) => JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));

test("the shipped extension holds neither the debugger nor webRequest, nor asks for what Chrome cannot grant", () => {
  const m = manifestOf(extension);
  const all = [...m.permissions, ...(m.optional_permissions || [])];
  assert.ok(!all.includes("debugger") && !all.includes("webRequest"), JSON.stringify(all));
});

test("the deep build is the shipped extension plus the debugger permission", (t) => {
  const work = mkdtempSync(path.join(tmpdir(), "deep-build-"));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  const out = path.join(work, "deep");
  execFileSync(path.join(extension, "../scripts/deep-extension.sh"), [out], { stdio: "ignore" });
  const shipped = manifestOf(extension);
  const deep = manifestOf(out);
  assert.deepEqual(deep.permissions, ["debugger", ...shipped.permissions]);
  assert.deepEqual({ ...deep, permissions: shipped.permissions }, shipped, "nothing else differs");
  for (const f of ["background/worker.js", "content/relay.js", "page/start.js", "popup/popup.html", "lib/redact.js"]) {
    assert.equal(readFileSync(path.join(out, f), "utf8"), readFileSync(path.join(extension, f), "utf8"), f);
  }
  for (const left of ["node_modules", "test", "bench", "package.json"]) assert.ok(!existsSync(path.join(out, left)), left);
  // It never writes over a folder that holds something.
  assert.throws(() => execFileSync(path.join(extension, "../scripts/deep-extension.sh"), [out], { stdio: "ignore" }));
});
