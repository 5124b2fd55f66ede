//! The extension's service-worker side in headless Chromium against the real
//! binary: every request of a tab from chrome.webRequest (a `.invalid` host, a
//! 302 → 302 → 200 chain, a CORS refusal, a broken image, each once with its
//! reason or chain), and exactly-once delivery through a lost reply, a worker
//! stopped mid-flight, an extension reload and a browser restart while the
//! server is down (`extension/test/e2e/delivery.mjs`). Needs `scripts/setup.sh`
//! (Debian chromium, node, the extension's npm packages); without them it fails
//! and says so: it never skips.

use std::path::Path;
use std::process::Command;

#[test]
fn every_request_recorded_once_and_every_batch_delivered_exactly_once_in_headless_chromium() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("extension");
    assert!(
        dir.join("node_modules/playwright-core").is_dir(),
        "extension/node_modules is missing: run scripts/setup.sh (npm ci --prefix extension)"
    );
    let output = Command::new("node")
        .arg("test/e2e/delivery.mjs")
        .current_dir(&dir)
        .env("GASOLINE_BIN", env!("CARGO_BIN_EXE_gasoline"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run node ({e}): run scripts/setup.sh to install Node.js"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "delivery e2e failed ({})\n{stdout}\n{stderr}", output.status);
    eprintln!("{stdout}");
}
