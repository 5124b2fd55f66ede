//! No line lost when the server dies mid-page: `extension/test/e2e/soak.mjs`
//! in headless Chromium with the real extension, three seeded rounds (one
//! SIGKILL with a restart 0.5 s later, two kills 3 s apart, three kills in a
//! row) while a page logs 1,000 numbered lines; every line must be stored
//! exactly once. The 20-round soak with every variant (10 s down, a kill during
//! uploads, the worker stopped, the port squatted by another program) is run by
//! hand: `ROUNDS=20 node extension/test/e2e/soak.mjs` (RELIABILITY.md). Needs
//! `scripts/setup.sh`; without it the test fails and says so: it never skips.

mod node;

#[test]
fn every_line_stored_exactly_once_through_server_kills_in_headless_chromium() {
    node::run_node_with(&["test/e2e/soak.mjs"], &[("ROUNDS", "3"), ("SEED", "2026")]);
}
