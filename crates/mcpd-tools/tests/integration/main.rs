//! Integration tests of the configured and built-in tools, driven through a
//! real `mcp_server::Server` and `mcp_testkit::TestClient`.

mod command;
mod common;
mod files;
mod http;
