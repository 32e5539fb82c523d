//! switchboard-server's layering, held by the workspace's one scanner.

#[path = "../../../tests/layering/scan.rs"]
mod scan;
