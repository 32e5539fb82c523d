//! switchboard-config's layering: no import circle among its modules, nor among the
//! files of any folder of its `src/` (the workspace's one scanner,
//! tests/layering/scan.rs, run on this crate).

// This crate uses the scanner's cycle check only, not its function-length one.
#[allow(dead_code)]
#[path = "../../../tests/layering/scan.rs"]
mod scan;

#[test]
fn modules_import_downward_only() {
    scan::assert_no_import_cycles(env!("CARGO_MANIFEST_DIR"));
}
