//! The Chrome extension: its node unit tests and its end-to-end run in
//! headless Chromium against the real binary. Both need `scripts/setup.sh`
//! (Debian chromium, node, the extension's npm packages); without them these
//! tests fail and say so: they never skip.

use std::path::{Path, PathBuf};
use std::process::Command;

fn extension_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("extension")
}

fn run_node(args: &[&str]) {
    let dir = extension_dir();
    assert!(
        dir.join("node_modules/playwright-core").is_dir(),
        "extension/node_modules is missing: run scripts/setup.sh (npm ci --prefix extension)"
    );
    let output = Command::new("node")
        .args(args)
        .current_dir(&dir)
        .env("GASOLINE_BIN", env!("CARGO_BIN_EXE_gasoline"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run node ({e}): run scripts/setup.sh to install Node.js"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "node {args:?} failed ({})\n{stdout}\n{stderr}", output.status);
    eprintln!("{stdout}");
}

#[test]
fn unit_tests_of_the_pure_parts() {
    run_node(&["--test", "test/unit/"]);
}

#[test]
fn captures_a_real_page_end_to_end_in_headless_chromium() {
    run_node(&["test/e2e/run.mjs"]);
}
