//! Capture only where the person points, in headless Chromium against the real
//! binary (`extension/test/e2e/scope.mjs`): local development origins captured
//! by default; a site outside the scope gets no script and leaves no entry, not
//! even its tab's title; turned on from the popup it is captured from its next
//! load (on plain http, not a secure context) and after a browser restart;
//! turned off, its open page sends nothing more; pause stops everything; the
//! server's own origin is never captured; observe states the scope and says how
//! to turn a site on; the shipped extension's popup says how to get deep mode. Needs `scripts/setup.sh`; without it the test fails and
//! says so: it never skips.

mod node;

#[test]
fn captures_only_the_scope_the_person_chose_in_headless_chromium() {
    node::run_node(&["test/e2e/scope.mjs"]);
}
