//! End-to-end tests of dual-delta; see `tests/` and `examples/`.
