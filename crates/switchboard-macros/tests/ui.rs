//! Compile errors for signatures and templates the macros reject, each
//! pointing at the user's own token (tests/ui/*.stderr hold the expected
//! messages; regenerate with `TRYBUILD=overwrite` and review the diff).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
