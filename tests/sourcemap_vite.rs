//! Source-mapped frames from a real Vite dev server: the fixture React app
//! (`extension/test/e2e/fixture/vite-app/`) served by Vite, the real extension
//! in headless Chromium, the real binary (`extension/test/e2e/vite.mjs`). Needs
//! `scripts/setup.sh` (Chromium, node, the extension's and the fixture app's
//! npm packages); without them it fails and says so: it never skips.

mod node;

use node::run_node;

#[test]
fn a_component_error_in_a_vite_app_reads_as_its_line_in_src_app_jsx() {
    run_node(&["test/e2e/vite.mjs"]);
}
