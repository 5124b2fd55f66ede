// Rsbuild (Rspack), a dev server the extension knows by its HMR socket alone (`/rsbuild-hmr`:
// `{"type":"errors"}` when a build fails, `{"type":"ok"}` when one succeeds), serving the fixture
// app (fixture/rsbuild-app/): the scenario of build_errors.mjs. Rspack's maps name sources by their
// absolute path; its build error names the file as the project does (`./src/App.jsx`).
//
//   GASOLINE_BIN=target/debug/gasoline node extension/test/e2e/rsbuild.mjs
import path from "node:path";

import { buildErrorScenario } from "./build_errors.mjs";

await buildErrorScenario({
  name: "rsbuild",
  entries: ["package.json", "rsbuild.config.mjs", "src"],
  bin: "@rsbuild/core/bin/rsbuild.js",
  args: (port) => ["dev", "--host", "127.0.0.1", "--port", String(port), "--strict-port"],
  source: (app, file) => path.join(app, file),
  broken: (_app, file) => file,
  said: "[rsbuild] File: ./src/App.jsx",
});
