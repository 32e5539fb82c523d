//! `switchboard bundle`: an MCP Bundle (`.mcpb`) of this very binary, so a
//! host such as Claude Desktop installs switchboard with one click, and the
//! MCP Registry's `server.json` entry that points at it.
//!
//! Why a bundle: the official registry names packages by registry type
//! (`npm`, `pypi`, `oci`, `nuget`, `mcpb`), not crates.io, so a Rust binary
//! reaches hosts as an MCP Bundle: a zip holding `manifest.json` and the
//! binary. The manifest asks the person installing it for the folder to
//! serve (`user_config.folder`, a directory picker in the host) and starts
//! `switchboard serve FOLDER` over stdio. The bundle is for the platform the
//! command runs on: the binary inside is the one running (`current_exe`).
//!
//! `server.json` (written when `--url` says where the bundle will be
//! downloaded from) carries the bundle's SHA-256 (`fileSha256`), which the
//! registry requires for `mcpb` packages and hosts check before running it.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use zip::write::SimpleFileOptions;

use crate::cli::BundleArgs;
use crate::exit;

/// The MCPB manifest revision written (supported by the official
/// `@anthropic-ai/mcpb` CLI and by Claude Desktop).
pub(crate) const MANIFEST_VERSION: &str = "0.3";

/// The registry's `server.json` schema the written file declares.
pub(crate) const SERVER_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/// Builds the bundle (and `server.json` when asked) and says on stdout what
/// it wrote.
pub(crate) fn run(args: &BundleArgs) -> anyhow::Result<()> {
    let binary =
        std::env::current_exe().context("finding the running switchboard binary").map_err(exit::io)?;
    let platform = Platform::host();
    let bytes = build(&binary, &platform).map_err(exit::io)?;
    std::fs::write(&args.out, &bytes)
        .with_context(|| format!("writing {}", args.out.display()))
        .map_err(exit::io)?;
    let sha256 = hex_sha256(&bytes);
    println!("wrote {} ({} bytes, sha256 {sha256})", args.out.display(), bytes.len());
    if let (Some(url), Some(registry_name)) = (&args.url, &args.registry_name) {
        let path = args.server_json.clone().unwrap_or_else(|| beside(&args.out, "server.json"));
        let entry = server_json(registry_name, url, &sha256);
        let text = serde_json::to_string_pretty(&entry).context("serializing server.json")?;
        std::fs::write(&path, text + "\n")
            .with_context(|| format!("writing {}", path.display()))
            .map_err(exit::io)?;
        println!("wrote {} (registryType mcpb, identifier {url})", path.display());
    }
    Ok(())
}

/// `name` in the folder of `file`.
fn beside(file: &Path, name: &str) -> PathBuf {
    match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(name),
        _ => PathBuf::from(name),
    }
}

/// The platform a bundle is built for, in the manifest's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Platform {
    /// `darwin`, `win32` or `linux`.
    pub os: &'static str,
    /// The binary's name inside the bundle's `server/` folder.
    pub binary_name: &'static str,
}

impl Platform {
    /// The platform this switchboard was built for.
    pub(crate) fn host() -> Platform {
        match std::env::consts::OS {
            "macos" => Platform { os: "darwin", binary_name: "switchboard" },
            "windows" => Platform { os: "win32", binary_name: "switchboard.exe" },
            _ => Platform { os: "linux", binary_name: "switchboard" },
        }
    }

    /// The binary's path inside the bundle.
    fn entry_point(&self) -> String {
        format!("server/{}", self.binary_name)
    }
}

/// The bundle's `manifest.json`.
pub(crate) fn manifest(platform: &Platform) -> Value {
    let entry_point = platform.entry_point();
    json!({
        "manifest_version": MANIFEST_VERSION,
        "name": "switchboard",
        "display_name": "switchboard",
        "version": env!("CARGO_PKG_VERSION"),
        "description": "Serves a folder to the model: search, read and (when the folder's switchboard.toml allows) write files, run its commands, query its databases, with views for hosts that render MCP Apps.",
        "long_description": "switchboard serves the folder you pick over MCP. Without a switchboard.toml in it, the folder is served read-only (search and read). A switchboard.toml in the folder adds tools (commands, HTTP and OpenAPI calls, SQL databases, other MCP servers), prompts, skills and views.",
        "author": { "name": "switchboard contributors" },
        "license": "MIT OR Apache-2.0",
        "keywords": ["files", "search", "folder", "tools", "mcp-apps"],
        "server": {
            "type": "binary",
            "entry_point": entry_point,
            "mcp_config": {
                "command": format!("${{__dirname}}/{entry_point}"),
                "args": ["serve", "${user_config.folder}"],
            },
        },
        "tools_generated": true,
        "prompts_generated": true,
        "compatibility": { "platforms": [platform.os] },
        "user_config": {
            "folder": {
                "type": "directory",
                "title": "Folder to serve",
                "description": "The project folder switchboard serves; its switchboard.toml, if any, says what more it offers.",
                "required": true,
            },
        },
    })
}

/// The zip: `manifest.json` and the binary (executable) under `server/`.
pub(crate) fn build(binary: &Path, platform: &Platform) -> anyhow::Result<Vec<u8>> {
    let mut program = Vec::new();
    std::fs::File::open(binary)
        .and_then(|mut f| f.read_to_end(&mut program))
        .with_context(|| format!("reading {}", binary.display()))?;
    let manifest = serde_json::to_vec_pretty(&manifest(platform)).context("serializing manifest.json")?;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let deflated = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("manifest.json", deflated.unix_permissions(0o644)).context("adding manifest.json")?;
    zip.write_all(&manifest).context("adding manifest.json")?;
    let entry = platform.entry_point();
    // Large (tens of MiB): zip64 headers in case a debug build passes 4 GiB.
    let executable = deflated.unix_permissions(0o755).large_file(program.len() > u32::MAX as usize / 2);
    zip.start_file(entry.as_str(), executable).with_context(|| format!("adding {entry}"))?;
    zip.write_all(&program).with_context(|| format!("adding {entry}"))?;
    let cursor = zip.finish().context("finishing the zip")?;
    Ok(cursor.into_inner())
}

/// The registry entry for a bundle downloadable at `url` whose SHA-256 is `sha256`.
pub(crate) fn server_json(registry_name: &str, url: &str, sha256: &str) -> Value {
    json!({
        "$schema": SERVER_SCHEMA,
        "name": registry_name,
        "title": "switchboard",
        "description": "Serves a folder over MCP: search, read, commands, databases and views, from one binary.",
        "version": env!("CARGO_PKG_VERSION"),
        "packages": [{
            "registryType": "mcpb",
            "identifier": url,
            "version": env!("CARGO_PKG_VERSION"),
            "fileSha256": sha256,
            "transport": { "type": "stdio" },
        }],
    })
}

/// Lower-case hex SHA-256 of `bytes`.
pub(crate) fn hex_sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}
