//! "Did my change fix it?" end to end (`extension/test/e2e/compare.mjs`): the
//! real extension in headless Chromium on a page that throws error A; the agent
//! sets a mark; the page reloads with A fixed and B introduced; `observe
//! what=compare` across the mark and across the tab's last two loads says A is
//! gone and B is new. Needs `scripts/setup.sh`; without it the test fails and
//! says so: it never skips.

mod node;

#[test]
fn compare_says_which_error_is_gone_and_which_is_new_in_headless_chromium() {
    node::run_node(&["test/e2e/compare.mjs"]);
}
