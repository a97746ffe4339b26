//! Compile-fail tests of `#[dual_delta_test]`: each file under `tests/ui/`
//! holds one kind of mistake and its `.stderr` the exact errors expected.
//!
//! After a deliberate change of a message, regenerate the `.stderr` files
//! with `TRYBUILD=overwrite cargo test -p dual-delta-macros --test
//! compile_fail` and read the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
