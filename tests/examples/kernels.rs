//! The case studies beyond matmul, in one table: each GPU kernel variant
//! (row sums, softmax, ...) against the careful CPU baseline, both measured
//! against the f64 oracle, on N = 1000 inputs each (`DUAL_DELTA_N`
//! overrides), a failure stopping as soon as the anytime-valid sequential
//! test has shown it (`DUAL_DELTA_STOP_EARLY=0` runs every input in full).
//!
//! ```sh
//! cargo run --release --example kernels
//! ```
//!
//! For each case it prints the kernel, the variant, the inputs, the mean
//! error of the candidate (Δ1) and of the baseline (Δ2), their ratio, the
//! one-sided Wilcoxon p-value (candidate worse), the verdict, the inputs
//! checked and, of those, the inputs whose errors were measured (the oracle
//! is skipped on most inputs where the two outputs are identical); then
//! where the reports lie. It exits with failure when a verdict is
//! not the one expected.

use std::process::ExitCode;
use std::time::Instant;

use dual_delta_runtime::report::numbers::num;
use dual_delta_runtime::{decision::Accuracy, outcome::Outcome, report};
use dual_delta_tests::kernels::{KERNEL_CASES, KernelCase};

fn main() -> ExitCode {
    let start = Instant::now();
    let adapter = dual_delta_tests::gpu().adapter_info();
    println!("Dual-Delta Testing: kernels beyond matmul");
    println!("adapter: {adapter}");
    println!();
    println!(
        "| kernel | variant | input | mean Δ1 | mean Δ2 | Δ1/Δ2 | p (worse) | verdict | inputs (measured) | expected |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");

    let mut all_as_expected = true;
    let mut reports = Vec::new();
    for case in &KERNEL_CASES {
        let outcome = match case.run(1000, true) {
            Ok(o) => o,
            Err(e) => {
                println!(
                    "| {} | {} | could not run: {e} |",
                    case.kernel.family(),
                    case.kernel.variant()
                );
                all_as_expected = false;
                continue;
            }
        };
        println!("{}", row(case, &outcome));
        all_as_expected &= outcome.passed();
        reports.push((case.name, report::write(&outcome)));
    }

    println!();
    println!("Reports:");
    for (name, report) in &reports {
        match report {
            Ok(path) => println!("  {name}: {}", path.display()),
            Err(e) => println!("  {name}: not written ({e})"),
        }
    }
    println!();
    println!("total time: {:.1} s", start.elapsed().as_secs_f64());
    if all_as_expected {
        ExitCode::SUCCESS
    } else {
        println!("some case did not give the verdict expected (see above)");
        ExitCode::FAILURE
    }
}

/// One line of the table.
fn row(case: &KernelCase, o: &Outcome) -> String {
    let (d1, d2) = (o.summaries().candidate.mean, o.summaries().baseline.mean);
    let p = o
        .p_worse()
        .map_or_else(|| "–".to_owned(), |p| format!("{p:.2e}"));
    format!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} ({}) | {} {} |",
        case.kernel.family(),
        case.kernel.variant(),
        case.kernel.inputs(),
        num(d1),
        num(d2),
        ratio(d1 / d2),
        p,
        verdict(o),
        o.inputs_checked(),
        o.trials_run(),
        case.expect.to_string().replace('_', " "),
        if o.passed() { "✓" } else { "✗ NOT MET" },
    )
}

fn verdict(o: &Outcome) -> &'static str {
    if o.non_finite_gate() {
        return "non-finite outputs";
    }
    match o.judgement().accuracy() {
        Accuracy::LessAccurate => "less accurate",
        Accuracy::MoreAccurate => "more accurate",
        Accuracy::NoSignificantDifference => "no significant difference",
    }
}

fn ratio(r: f64) -> String {
    if r.is_finite() {
        format!("{r:.3}")
    } else {
        num(r)
    }
}
