//! The Chrome extension: its node unit tests and its end-to-end run in
//! headless Chromium against the real binary. Both need `scripts/setup.sh`
//! (Debian chromium, node, the extension's npm packages); without them these
//! tests fail and say so: they never skip.

mod node;

use node::run_node;

#[test]
fn unit_tests_of_the_pure_parts() {
    run_node(&["--test", "test/unit/"]);
}

#[test]
fn captures_a_real_page_end_to_end_in_headless_chromium() {
    run_node(&["test/e2e/run.mjs"]);
}
