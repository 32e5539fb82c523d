//! switchboard-http's layering: no import circle among its modules, nor among the
//! files of any folder of its `src/` (the workspace's one scanner,
//! tests/layering/scan.rs, run on this crate), and no function past 80 lines.

#[path = "../../../tests/layering/scan.rs"]
mod scan;

#[test]
fn modules_import_downward_only() {
    scan::assert_no_import_cycles(env!("CARGO_MANIFEST_DIR"));
}

#[test]
fn no_function_is_longer_than_80_lines() {
    scan::assert_no_function_longer_than(env!("CARGO_MANIFEST_DIR"), 80);
}
