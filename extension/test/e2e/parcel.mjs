// Parcel, a dev server the extension knows by its HMR socket alone (`{"type":"error","diagnostics":…}`
// when a build fails; its runtime logs "[parcel] ✨ Error resolved" when one succeeds again),
// serving the fixture app (fixture/parcel-app/): the scenario of build_errors.mjs. Parcel's maps
// name sources from the project's root; its build error names the file by its absolute path.
//
//   GASOLINE_BIN=target/debug/gasoline node extension/test/e2e/parcel.mjs
import path from "node:path";

import { buildErrorScenario } from "./build_errors.mjs";

await buildErrorScenario({
  name: "parcel",
  entries: ["package.json", "src"],
  bin: "parcel/lib/bin.js",
  args: (port, work) => [
    "serve", "src/index.html", "--host", "127.0.0.1", "--port", String(port), "--no-autoinstall",
    "--cache-dir", path.join(work, "parcel-cache"), "--dist-dir", path.join(work, "dist"),
  ],
  source: (_app, file) => file,
  broken: (app, file) => path.join(app, file),
  said: "[parcel] @parcel/transformer-js: ",
});
