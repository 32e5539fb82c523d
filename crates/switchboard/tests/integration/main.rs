//! Integration tests of the `switchboard` binary: each module drives the real
//! executable (`CARGO_BIN_EXE_switchboard`) over stdio or HTTP, as a host or
//! an attacker would, and checks the real state afterwards (files on disk,
//! processes, databases). One test binary for the crate, so it links once.
//!
//! A new test goes in the module of the feature it exercises; a new feature
//! gets a module here, with a line saying what it holds. The shared harness
//! (`Switchboard::start*`, `start_http`, the 2026-07-28 helpers) is `common`.

mod common;

// The command line and what a person meets.

/// `switchboard bundle`: the `.mcpb` and the registry's `server.json`.
mod bundle;
/// `switchboard check`: every problem at once, placed, in text and `--json`; `schema`.
mod check;
/// The command line as a person meets it: `--help`, exit statuses, `call`, `init`, `completions`,
/// `man`, `--http` addresses, the terminal banner, `/healthz` and `/readyz`.
mod cli;
/// Shipping: every crate's metadata and licence files, and the given-up names appear nowhere.
mod packaging;

// Transports: stdio and HTTP under load and abuse.

/// `serve --fixtures … --config FILE` applies the file's `[limits]`.
mod fixtures_limits;
/// Hostile input over stdio and HTTP: oversized, deep, broken messages.
mod hostile;
/// No process switchboard started outlives it (signals, stdin closed, errors).
mod process_hygiene;
/// The binary over real pipes: the handshake, progress, cancellation, both eras.
mod stdio;
/// Backpressure over real pipes: a client that stops reading.
mod stdio_backpressure;
/// The kinds of stdin and stdout hosts hand switchboard: pipes, socket pairs, regular files.
mod stdio_streams;

// A served folder: what the model may see and write.

/// Views rendered in a real headless browser.
mod apps_browser;
/// Views (MCP Apps) from `switchboard.toml`.
mod apps_config;
/// The configuration is the user's, never the model's; `env_file` secrets.
mod config_secrets;
/// `[[databases]]` and `[[tools.sql]]` with SQLite.
mod databases;
/// A real PostgreSQL served by the binary.
mod databases_postgres;
/// Edits made while a big folder's first scan runs (after `initialize`) are never missed.
mod first_scan;
/// Changes in a served folder as a subscribed client hears them.
mod folder_changes;
/// The folder tools (list, find, info, read, write) against every kind of unserved path.
mod folder_tools;
/// The git tools and history resources.
mod git_tools;
/// `[[tools.openapi]]` end to end, and large outputs.
mod openapi;
/// A project folder end to end: configuration, prompts, tools, live reload.
mod project;
/// A configuration edit that does not load reaches the client as a log message.
mod reload_log;
/// `serve` over stdio with no folder: the client's roots.
mod roots;
/// Command tools in the Landlock sandbox.
mod sandbox;
/// The served tree as an attacker sees it: hidden, ignored and linked paths.
mod served_tree;
/// A skills folder through the skills extension.
mod skills;
/// No `switchboard.toml`: a `prompts/` made for something else is noted, not fatal.
mod zero_config;

// Other servers behind switchboard, and several switchboards.

/// `switchboard proxy` in front of a real upstream.
mod proxy;
/// Several `serve --http` processes sharing one Redis.
mod scale_out;
/// Change notifications between processes over Redis.
mod scale_out_notifications;
/// What an upstream asks and announces reaches the right client.
mod upstream_relay;
/// `[[upstreams]]`: real switchboard processes behind one.
mod upstreams;

// Observability and other clients.

/// The official MCP conformance suite.
mod conformance;
/// `/metrics`: Prometheus counts and latencies.
mod observability;
/// OpenTelemetry: trace context in, spans out.
mod otel;
/// The official TypeScript client SDKs.
mod sdk_clients;
