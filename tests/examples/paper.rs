//! The paper's three matrix-multiplication case studies (section 5), run by
//! dual-delta on the default wgpu adapter, N = 1000 each (`DUAL_DELTA_N`
//! overrides).
//!
//! ```sh
//! cargo run --release --example paper
//! ```
//!
//! For each case it prints the paper's table (mean error and std per
//! implementation) beside the values measured here, the Wilcoxon p-values
//! both ways, the KS p-value and the verdict, and after how many trials the
//! anytime-valid sequential test decided (the runs take all N trials, as the
//! paper's do); then where the reports lie.

use std::process::ExitCode;
use std::time::Instant;

use dual_delta_gpu::matmul::{MatmulInput, matmul_cpu_f16, matmul_f64};
use dual_delta_runtime::report::numbers::{num, p_is};
use dual_delta_runtime::stats::Summary;
use dual_delta_runtime::{DualDelta, Expect, Rule, outcome::Names, outcome::Outcome, report};
use dual_delta_tests::{CASE_STUDIES, CaseStudy, PaperFigures};

fn main() -> ExitCode {
    let start = Instant::now();
    let gpu = dual_delta_tests::gpu();
    let adapter = gpu.adapter_info();
    println!("Dual-Delta Testing: the paper's matrix-multiplication case studies");
    println!("adapter: {adapter}");
    println!(
        "the paper's test (`rule = paper`): one-sided Wilcoxon at α over all N trials, no margin, \
         no mean criterion (any significant loss fails)"
    );
    println!();

    let mut all_as_expected = true;
    let mut reports = Vec::new();
    for case in CASE_STUDIES {
        let expect = if case.config.strategy_for(case.m, case.k, case.n)
            == dual_delta_gpu::matmul::Accumulation::F32
        {
            Expect::NoWorse
        } else {
            Expect::Worse
        };
        // 32 trials' matmuls per GPU submission, while the CPU computes the
        // references of the same trials.
        let outcome = DualDelta::batched(
            |xs: &[MatmulInput]| case.gpu_matmul_batch(xs),
            matmul_cpu_f16,
            matmul_f64,
            |rng| case.input(rng),
        )
        .names(Names {
            test: format!("paper::{}", case.name),
            candidate: "GPU (FP16)".into(),
            baseline: "CPU (FP16)".into(),
            oracle: "f64 matmul".into(),
            input: format!(
                "randn({}, {}) / randn({}, {}) as f16",
                case.m, case.k, case.k, case.n
            ),
        })
        .expect(expect)
        // The paper's own test: the one-sided Wilcoxon test over all N
        // trials at α, no margin, no mean criterion, no early stop
        // (dual-delta's default claim is non-inferiority at a 5% margin).
        .rule(Rule::Paper)
        .run();
        let outcome = match outcome {
            Ok(o) => o,
            Err(e) => {
                eprintln!("{}: could not run: {e}", case.title);
                return ExitCode::FAILURE;
            }
        };
        let report = report::write(&outcome);
        let figures_ok = case.check(&outcome);
        print_case(&case, &outcome, expect, &figures_ok);
        all_as_expected &= outcome.passed() && figures_ok.is_ok();
        reports.push((case.name, report));
    }

    println!("Reports:");
    for (name, report) in &reports {
        match report {
            Ok(path) => println!("  {name}: {}", path.display()),
            Err(e) => println!("  {name}: not written ({e})"),
        }
    }
    println!(
        "  all runs: {}",
        report::report_root()
            .map(|r| r.join("index.html").display().to_string())
            .unwrap_or_else(|e| e.to_string())
    );
    println!();
    println!("total time: {:.1} s", start.elapsed().as_secs_f64());
    if all_as_expected {
        ExitCode::SUCCESS
    } else {
        println!("some case did not come out as the paper reports (see above)");
        ExitCode::FAILURE
    }
}

fn print_case(case: &CaseStudy, o: &Outcome, expect: Expect, figures: &Result<(), String>) {
    println!("{}", case.title);
    println!(
        "  N = {}, metric {}, base seed {:#x}, GPU strategy {}",
        o.settings().n(),
        o.settings().metric(),
        o.settings().seed(),
        case.config.strategy_for(case.m, case.k, case.n).name()
    );
    println!(
        "  {:<12} {:>14} {:>14}   {:>14} {:>14} {:>10}",
        "", "paper mean", "paper std", "measured mean", "measured std", "mean diff"
    );
    let row = |label: &str, paper: PaperFigures, s: &Summary| {
        println!(
            "  {label:<12} {:>14.6e} {:>14.6e}   {:>14.6e} {:>14.6e} {:>+9.2}%",
            paper.mean,
            paper.std,
            s.mean,
            population_std(s),
            100.0 * (s.mean / paper.mean - 1.0)
        );
    };
    row("GPU (FP16)", case.paper_gpu, &o.summaries().candidate);
    row("CPU (FP16)", case.paper_cpu, &o.summaries().baseline);
    let p = |r: &dual_delta_runtime::decision::TestOutcome| match r {
        Ok(t) => p_is(t.p_value),
        Err(e) => format!("p not computed ({e})"),
    };
    println!(
        "  Wilcoxon (GPU worse) {}, (GPU better) {}, KS {}, mean ratio = {}",
        p(&o.analysis().wilcoxon_greater),
        p(&o.analysis().wilcoxon_less),
        p(&o.analysis().ks),
        num(o.summaries().candidate.mean / o.summaries().baseline.mean)
    );
    println!(
        "  verdict: {}",
        o.verdict().accuracy_sentence("GPU (FP16)", "CPU (FP16)")
    );
    println!("  sequential test: {}", sequential(o));
    println!(
        "  expected `{}`: {}; paper figures: {}",
        expect,
        if o.passed() { "met" } else { "NOT met" },
        match figures {
            Ok(()) => "consistent".to_owned(),
            Err(why) => format!("NOT consistent: {why}"),
        }
    );
    println!(
        "  time: {:.1} s for {} trials",
        o.trial_time().as_secs_f64(),
        o.settings().n()
    );
    println!();
}

/// After how many trials the anytime-valid sequential test decided, and what.
fn sequential(o: &Outcome) -> String {
    use dual_delta_runtime::stats::sequential::Crossed;
    match o.sequential().crossed {
        Crossed::Neither => format!("undecided after {} trials", o.trials_run()),
        Crossed::Pass {
            after, evidence, ..
        } => format!(
            "pass after {after} of {} trials (e-value {evidence:.3e}): {}",
            o.trials_run(),
            claim(&o.sequential().crossed)
        ),
        Crossed::Fail {
            after, evidence, ..
        } => format!(
            "fail after {after} of {} trials (e-value {evidence:.3e}): {}",
            o.trials_run(),
            claim(&o.sequential().crossed)
        ),
    }
}

fn claim(d: &dual_delta_runtime::stats::sequential::Crossed) -> &'static str {
    use dual_delta_runtime::stats::sequential::Crossed;
    match d {
        Crossed::Pass { reason, .. } | Crossed::Fail { reason, .. } => reason.sentence(),
        Crossed::Neither => "",
    }
}

/// The paper's table uses NumPy's `np.std` (ddof = 0); the summary's std
/// has ddof = 1.
fn population_std(s: &Summary) -> f64 {
    let n = s.n as f64;
    s.std * ((n - 1.0) / n).sqrt()
}
