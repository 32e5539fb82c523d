//! Integration tests of the configured and built-in tools, driven through a
//! real `switchboard_server::Server` and `switchboard_testkit::TestClient`.

mod command;
mod common;
mod files;
mod http;
