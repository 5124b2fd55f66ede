//! Source-mapped frames from a real webpack dev server whose every module runs
//! through `eval` (devtool `eval-source-map`, Next.js's webpack dev default):
//! the fixture app (`extension/test/e2e/fixture/webpack-app/`) served by
//! webpack-dev-server, the real extension in headless Chromium, the real binary
//! (`extension/test/e2e/webpack.mjs`). Needs `scripts/setup.sh` (Chromium, node,
//! the extension's and the fixture app's npm packages); without them it fails
//! and says so: it never skips.

mod node;

use node::run_node;

#[test]
fn an_error_in_a_webpack_eval_module_reads_as_its_line_in_src_util_js() {
    run_node(&["test/e2e/webpack.mjs"]);
}
