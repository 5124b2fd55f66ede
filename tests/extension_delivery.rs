//! The extension's delivery in headless Chromium against the real binary:
//! exactly-once delivery of the page's rows through a lost reply, a worker
//! stopped mid-flight, an extension reload and a browser restart while the
//! server is down (`extension/test/e2e/delivery.mjs`; what each row says of
//! its request is `network.mjs`'s, run from `extension.rs`). Needs
//! `scripts/setup.sh` (Debian chromium, node, the extension's npm packages);
//! without them it fails and says so: it never skips.

mod node;

#[test]
fn every_batch_delivered_exactly_once_in_headless_chromium() {
    node::run_node(&["test/e2e/delivery.mjs"]);
}
