//! switchboard-http's layering (issue #18): modules import downward only, and
//! no function grows past 80 lines. The checks are switchboard-server's, run
//! here on this crate's `src/` (`CARGO_MANIFEST_DIR` is this crate's when the
//! file is compiled here), so the two crates are held by one scanner.

#[path = "../../../tests/layering/scan.rs"]
mod layering;
