//! What the shared adapter does to floating-point arithmetic: the adapter,
//! then one line per probe, the one-line summary recorded in the report of
//! every run that uses it (`gpu.semantics`) and the caveats (`gpu.caveats`).
//!
//! ```text
//! cargo run --release -p dual-delta-gpu --example probe
//! ```
//!
//! `DUAL_DELTA_ADAPTER` picks another adapter, as for the tests.

use dual_delta_gpu::Gpu;

fn main() -> Result<(), dual_delta_gpu::GpuError> {
    let gpu = Gpu::shared()?;
    let semantics = gpu.semantics();
    println!("adapter: {}", gpu.adapter_info());
    println!();
    let rows = semantics.table();
    let width = rows.iter().map(|(what, _)| what.chars().count()).max();
    for (what, found) in &rows {
        println!("{what:<w$}  {found}", w = width.unwrap_or(0));
    }
    println!();
    println!("summary: {semantics}");
    let caveats = semantics.caveats();
    if caveats.is_empty() {
        println!("caveats: none (every assumption of the CPU emulations holds)");
    }
    for caveat in caveats {
        println!("caveat: {caveat}");
    }
    Ok(())
}
