//! What a developer sees in Chrome's own DevTools beside Gasoline
//! (`extension/test/e2e/devtools.mjs`): with the shipped extension capturing a
//! local page, the DevTools front end Chromium bundles names the page's own
//! line as the source of its console messages, not Gasoline's console wrapper,
//! and shows no frame of ours in a logged error. Needs `scripts/setup.sh`;
//! without it the test fails and says so: it never skips.

mod node;

#[test]
fn devtools_shows_the_pages_line_not_the_wrapper_in_headless_chromium() {
    node::run_node(&["test/e2e/devtools.mjs"]);
}
