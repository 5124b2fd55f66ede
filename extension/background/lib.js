// The lib/ files the extension's modules (the service worker, the popup, the
// options page) use, as named exports. They stay classic scripts because the
// page world loads them too and cannot load modules: each adds its API to
// globalThis.__gasoline when it runs ("Registry:" in its header says what it
// reads there and adds). Imported here for that effect, each after the files
// it reads (test/unit/registry.test.mjs holds this order, and the page
// world's, to those headers).
import "../lib/limits.js";
import "../lib/kinds.js";
import "../lib/causes.js";
import "../lib/serialize.js";
import "../lib/format.js";
import "../lib/secrets.js";
import "../lib/redact.js";
import "../lib/scope.js";

export const { limits, kinds, causes, serialize, format, secrets, redact, scope } = globalThis.__gasoline;
