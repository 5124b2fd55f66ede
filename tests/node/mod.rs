//! Running the extension's node tests from cargo: `node ARGS` in `extension/`
//! with `GASOLINE_BIN` set to the binary under test. They need
//! `scripts/setup.sh` (Debian chromium, node, the extension's npm packages);
//! without them they fail and say so: they never skip.

use std::path::Path;
use std::process::Command;

#[allow(dead_code)] // each test binary includes this module; not all of them use both
pub fn run_node(args: &[&str]) {
    run_node_with(args, &[]);
}

/// `node ARGS` with these environment variables set too.
#[allow(dead_code)]
pub fn run_node_with(args: &[&str], env: &[(&str, &str)]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("extension");
    assert!(
        dir.join("node_modules/playwright-core").is_dir(),
        "extension/node_modules is missing: run scripts/setup.sh (npm ci --prefix extension)"
    );
    let output = Command::new("node")
        .args(args)
        .current_dir(&dir)
        .env("GASOLINE_BIN", env!("CARGO_BIN_EXE_gasoline"))
        .envs(env.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("cannot run node ({e}): run scripts/setup.sh to install Node.js"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "node {args:?} failed ({})\n{stdout}\n{stderr}", output.status);
    eprintln!("{stdout}");
}
