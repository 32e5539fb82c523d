//! One-click install: `switchboard bundle` builds an MCP Bundle (`.mcpb`) of
//! the binary and the MCP Registry's `server.json` entry for it, as the
//! README's "Install" section promises.
//!
//! Checked with the official tools, installed at test time and never
//! committed: the bundle with the official MCP Bundle CLI
//! (`@anthropic-ai/mcpb` 2.1.2, pinned in `tests/apps-host/package.json`,
//! installed by `tests/apps-host/run.sh` into its ignored `node_modules`):
//! it unpacks it and validates its manifest; then the unpacked binary is
//! started exactly as the manifest tells a host to, and serves the folder
//! the person picked. `server.json` is validated with the `jsonschema` crate
//! against the registry's published schema (`$id`
//! `https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json`),
//! which the PyPI package `skillsaw` 0.22.0 ships byte for byte (only the
//! npm, crates, PyPI and Debian registries are reachable from CI, and the
//! schema's own host is not); `pip download` fetches that wheel into the
//! target folder. These tests fail (never skip) when either is impossible.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use switchboard_testkit::process::StdioProcess;

/// Where the bundle says it will be downloaded from (any URL: nothing is fetched).
const URL: &str = "https://example.com/releases/v0.1.0/switchboard-linux-x64.mcpb";
/// The registry name the test gives.
const REGISTRY_NAME: &str = "io.github.example/switchboard";

/// The wheel that ships the registry's schema, and the schema inside it.
const SCHEMA_WHEEL: &str = "skillsaw==0.22.0";
const SCHEMA_IN_WHEEL: &str = "skillsaw/schemas/mcp_registry/v2025_12_11/server.schema.json";
/// SHA-256 of the published 2025-12-11 schema: a different copy fails the test.
const SCHEMA_SHA256: &str = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The bundle and server.json that `switchboard bundle` wrote (once per
/// test binary: both tests read the same files).
struct Built {
    dir: tempfile::TempDir,
    bundle: PathBuf,
    server_json: PathBuf,
}

fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let bundle = dir.path().join("switchboard.mcpb");
        let run = Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .arg("bundle")
            .arg("--out")
            .arg(&bundle)
            .args(["--url", URL, "--registry-name", REGISTRY_NAME])
            .output()
            .expect("switchboard bundle runs");
        let said = String::from_utf8_lossy(&run.stdout);
        assert!(run.status.success(), "switchboard bundle failed: {}", String::from_utf8_lossy(&run.stderr));
        assert!(said.contains("wrote") && said.contains("sha256"), "it says what it wrote: {said}");
        let server_json = dir.path().join("server.json");
        Built { dir, bundle, server_json }
    })
}

/// Runs the official MCP Bundle CLI with `args`; its exit status and output.
/// One at a time: the first run installs it into a shared folder.
fn mcpb(args: &[&str]) -> (bool, String) {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let out = Command::new("bash")
        .arg(root().join("tests/apps-host/run.sh"))
        .arg("node_modules/@anthropic-ai/mcpb/dist/cli/cli.js")
        .args(args)
        .output()
        .expect("bash runs tests/apps-host/run.sh");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn the_bundle_passes_mcpb_validate_and_its_binary_serves_the_folder_given_at_install() {
    let Built { bundle, .. } = built();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let unpacked = dir.path().join("unpacked");
    let (ok, output) =
        mcpb(&["unpack", bundle.to_str().expect("UTF-8 path"), unpacked.to_str().expect("UTF-8 path")]);
    assert!(ok, "mcpb unpack failed:\n{output}");
    let manifest_path = unpacked.join("manifest.json");
    let (ok, output) = mcpb(&["validate", manifest_path.to_str().expect("UTF-8 path")]);
    assert!(
        ok && output.contains("Manifest schema validation passes"),
        "mcpb validate refused it:\n{output}"
    );

    let manifest: Value = serde_json::from_slice(&std::fs::read(&manifest_path).expect("manifest.json"))
        .expect("manifest.json is JSON");
    assert_eq!(manifest["server"]["type"], "binary", "{manifest}");
    assert_eq!(manifest["user_config"]["folder"]["type"], "directory", "{manifest}");
    assert_eq!(manifest["user_config"]["folder"]["required"], true, "{manifest}");
    assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(manifest["compatibility"]["platforms"], json!(["linux"]), "built on Linux, for Linux");

    // The binary inside is this switchboard, executable.
    let entry = unpacked.join(manifest["server"]["entry_point"].as_str().expect("entry_point"));
    let inside = std::fs::read(&entry).expect("the entry point is in the bundle");
    let built = std::fs::read(env!("CARGO_BIN_EXE_switchboard")).expect("the built binary");
    assert!(inside == built, "the bundle's binary is not the switchboard that built it");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&entry).expect("entry point metadata").permissions().mode();
        assert_eq!(mode & 0o111, 0o111, "the entry point is not executable (mode {mode:o})");
    }

    // Started as the manifest tells a host: ${__dirname} is the unpacked
    // bundle, ${user_config.folder} the folder the person picked.
    let picked = dir.path().join("picked folder");
    std::fs::create_dir(&picked).expect("create the picked folder");
    std::fs::write(picked.join("notes.md"), "served through the bundle\n").expect("write notes.md");
    let substitute = |s: &str| {
        s.replace("${__dirname}", unpacked.to_str().expect("UTF-8 path"))
            .replace("${user_config.folder}", picked.to_str().expect("UTF-8 path"))
    };
    let config = &manifest["server"]["mcp_config"];
    let mut command = Command::new(substitute(config["command"].as_str().expect("command")));
    for arg in config["args"].as_array().expect("args") {
        command.arg(substitute(arg.as_str().expect("a string argument")));
    }
    let mut server = StdioProcess::initialized(command, "2025-11-25");
    let read = server.result("tools/call", json!({"name": "read_file", "arguments": {"path": "notes.md"}}));
    assert_ne!(read["isError"], true, "{read}");
    assert!(read.to_string().contains("served through the bundle"), "{read}");
}

/// The registry's published `server.json` schema, from the wheel that ships
/// it (downloaded once into the target folder).
fn registry_schema() -> Value {
    let folder = Path::new(env!("CARGO_TARGET_TMPDIR")).join("registry-schema");
    let find_wheel = || {
        std::fs::read_dir(&folder)
            .ok()?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "whl"))
    };
    if find_wheel().is_none() {
        let out = Command::new("python3")
            .args([
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--only-binary=:all:",
                "--disable-pip-version-check",
                "-d",
            ])
            .arg(&folder)
            .arg(SCHEMA_WHEEL)
            .output()
            .expect("python3 runs (pip downloads the wheel that ships the registry schema)");
        assert!(
            out.status.success(),
            "pip download {SCHEMA_WHEEL} failed (install pip: `apt-get install -y python3-pip`):\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let wheel = find_wheel().expect("pip put the wheel there");
    let mut archive =
        zip::ZipArchive::new(std::fs::File::open(&wheel).expect("open the wheel")).expect("a wheel is a zip");
    let mut text = Vec::new();
    archive
        .by_name(SCHEMA_IN_WHEEL)
        .unwrap_or_else(|e| panic!("{} has no {SCHEMA_IN_WHEEL}: {e}", wheel.display()))
        .read_to_end(&mut text)
        .expect("read the schema");
    assert_eq!(sha256_hex(&text), SCHEMA_SHA256, "not the published 2025-12-11 server.json schema");
    serde_json::from_slice(&text).expect("the schema is JSON")
}

#[test]
fn server_json_is_valid_against_the_registry_schema_and_names_the_bundle_by_its_sha256() {
    let Built { bundle, server_json, dir } = built();
    assert_eq!(server_json.parent(), Some(dir.path()), "server.json is written beside the bundle");
    let entry: Value = serde_json::from_slice(&std::fs::read(server_json).expect("server.json written"))
        .expect("server.json is JSON");
    let schema = registry_schema();
    assert_eq!(entry["$schema"], schema["$id"], "server.json declares the schema it is checked against");

    let validator = jsonschema::options().build(&schema).expect("the registry schema compiles");
    let errors: Vec<String> =
        validator.iter_errors(&entry).map(|e| format!("{}: {e}", e.instance_path())).collect();
    assert!(errors.is_empty(), "server.json is not valid:\n{}\n{entry:#}", errors.join("\n"));

    let package = &entry["packages"][0];
    assert_eq!(package["registryType"], "mcpb");
    assert_eq!(package["identifier"], URL);
    assert_eq!(package["transport"]["type"], "stdio");
    assert_eq!(entry["name"], REGISTRY_NAME);
    let bytes = std::fs::read(bundle).expect("the bundle");
    assert_eq!(package["fileSha256"], sha256_hex(&bytes), "fileSha256 is the bundle's SHA-256");

    // The validator is not vacuous: the registry's own rules refuse a hash
    // in capitals and a package without a transport.
    let mut upper = entry.clone();
    upper["packages"][0]["fileSha256"] = json!(sha256_hex(&bytes).to_uppercase());
    assert!(!validator.is_valid(&upper), "an upper-case fileSha256 must be refused");
    let mut no_transport = entry.clone();
    no_transport["packages"][0].as_object_mut().expect("a package object").remove("transport");
    assert!(!validator.is_valid(&no_transport), "a package without transport must be refused");
}

#[test]
fn a_registry_entry_needs_both_the_download_url_and_the_registry_name() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let out = dir.path().join("never.mcpb");
    for half in [["--url", URL], ["--registry-name", REGISTRY_NAME]] {
        let run = Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .arg("bundle")
            .arg("--out")
            .arg(&out)
            .args(half)
            .output()
            .expect("switchboard runs");
        assert_eq!(run.status.code(), Some(2), "a usage error: {}", String::from_utf8_lossy(&run.stderr));
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(stderr.contains("--url") && stderr.contains("--registry-name"), "{stderr}");
        assert!(!out.exists(), "nothing is written on a usage error");
    }
}
