//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! pinned in `conformance/package.json`) against the real `switchboard` binary
//! over Streamable HTTP on loopback. `conformance/run.sh` installs the suite
//! and the Node 22 it needs from the npm registry into
//! `conformance/node_modules` on first use; this test fails (never skips)
//! when that is impossible.

use std::path::Path;
use std::process::Command;

#[test]
fn official_conformance_suite_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = Command::new("bash")
        .arg(root.join("conformance/run.sh"))
        .arg(env!("CARGO_BIN_EXE_switchboard"))
        .output()
        .expect("bash runs conformance/run.sh");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "conformance suite failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("Total:"), "the suite ran no scenario:\n{stdout}");
    assert!(stdout.contains(" 0 failed"), "{stdout}");
}
