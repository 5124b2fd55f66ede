//! The extension's service-worker side in headless Chromium against the real
//! binary: every request of a tab from chrome.webRequest (a `.invalid` host, a
//! 302 → 302 → 200 chain, a CORS refusal, a broken image, each once with its
//! reason or chain), and exactly-once delivery through a lost reply, a worker
//! stopped mid-flight, an extension reload and a browser restart while the
//! server is down (`extension/test/e2e/delivery.mjs`). Needs `scripts/setup.sh`
//! (Debian chromium, node, the extension's npm packages); without them it fails
//! and says so: it never skips.

mod node;

#[test]
fn every_request_recorded_once_and_every_batch_delivered_exactly_once_in_headless_chromium() {
    node::run_node(&["test/e2e/delivery.mjs"]);
}
