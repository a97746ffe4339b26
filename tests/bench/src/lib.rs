//! Criterion benchmarks of dual-delta on the paper's shapes: see
//! `benches/trials.rs` (`cargo bench -p dual-delta-bench`).
