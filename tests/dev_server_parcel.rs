//! A dev server known by its HMR socket alone: the fixture app
//! (`extension/test/e2e/fixture/parcel-app/`) served by Parcel, the
//! real extension in headless Chromium, the real binary
//! (`extension/test/e2e/parcel.mjs`): a warning maps through Parcel's source map,
//! a syntax error saved into a file is an error entry placed at the broken line,
//! and saved again as it was, it is said fixed. Needs `scripts/setup.sh`
//! (Chromium, node, the extension's and the fixture app's npm packages); without
//! them it fails and says so: it never skips.

mod node;

use node::run_node;

#[test]
fn a_parcel_build_error_is_an_error_entry_at_its_line_and_said_fixed_once_saved_again() {
    run_node(&["test/e2e/parcel.mjs"]);
}
