//! A progress line for long runs, on standard error: a widget of the run,
//! not a report.
//!
//! Shown only when standard error is a terminal, `CI` is not set, and
//! `DUAL_DELTA_PROGRESS` is not `0`; otherwise every method does nothing.
//! Nothing is drawn during the first half second, so short runs stay quiet
//! even on a terminal; after that the line is redrawn at most ten times a
//! second, however often [`Progress::inc`] is called and from however many
//! threads. Runs going on at once in one process (tests on several test
//! threads) share one line, which shows each of them ([`combined_line`]).

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Nothing is drawn before this much time has passed.
const QUIET_START: Duration = Duration::from_millis(500);
/// The line is redrawn at most this often.
const REDRAW_EVERY: Duration = Duration::from_millis(100);

/// A thread-safe progress counter that draws a line on a terminal: the
/// scheduler counts each finished trial with [`Progress::inc`], and
/// [`Progress::finish`] erases the line before the verdict table.
#[derive(Debug)]
pub(crate) struct Progress {
    inner: Option<Arc<Inner>>,
}

/// The active counters of this process, in the order they started: each
/// redraw shows all of them on one line.
static ACTIVE: Mutex<Vec<Arc<Inner>>> = Mutex::new(Vec::new());

#[derive(Debug)]
struct Inner {
    total: usize,
    label: String,
    done: AtomicUsize,
    start: Instant,
    /// Milliseconds after `start` of the last redraw (0: never drawn).
    last_draw_ms: AtomicU64,
    finished: AtomicBool,
}

impl Progress {
    /// A counter of `total` steps named `label`, active only when `shown`
    /// ([`Settings::progress`](crate::settings::Settings::progress)) and standard
    /// error is a terminal.
    pub(crate) fn new(total: usize, label: &str, shown: bool) -> Progress {
        if shown && std::io::stderr().is_terminal() {
            Progress::active(total, label)
        } else {
            Progress::hidden()
        }
    }

    /// A counter that never draws anything.
    pub(crate) fn hidden() -> Progress {
        Progress { inner: None }
    }

    fn active(total: usize, label: &str) -> Progress {
        let inner = Arc::new(Inner {
            total,
            label: label.to_owned(),
            done: AtomicUsize::new(0),
            start: Instant::now(),
            last_draw_ms: AtomicU64::new(0),
            finished: AtomicBool::new(false),
        });
        lock_active().push(Arc::clone(&inner));
        Progress { inner: Some(inner) }
    }

    /// Whether this counter draws on the terminal.
    #[cfg(test)]
    pub(crate) fn is_active(&self) -> bool {
        self.inner.is_some()
    }

    /// Counts one step done (and redraws the line if it is due).
    pub(crate) fn inc(&self) {
        let Some(p) = &self.inner else {
            return;
        };
        p.done.fetch_add(1, Ordering::Relaxed);
        let elapsed = p.start.elapsed();
        if elapsed < QUIET_START {
            return;
        }
        let now = elapsed.as_millis() as u64;
        let last = p.last_draw_ms.load(Ordering::Relaxed);
        if (last == 0 || now >= last + REDRAW_EVERY.as_millis() as u64)
            && p.last_draw_ms
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
            && !p.finished.load(Ordering::Relaxed)
        {
            redraw();
        }
    }

    /// Ends the line: erases it, if anything was drawn (the verdict table
    /// follows). Later calls do nothing.
    pub(crate) fn finish(&self) {
        let Some(p) = &self.inner else {
            return;
        };
        if p.finished.swap(true, Ordering::Relaxed) {
            return;
        }
        let mut active = lock_active();
        active.retain(|other| !Arc::ptr_eq(other, p));
        let drawn = p.last_draw_ms.load(Ordering::Relaxed) != 0;
        if drawn
            || active
                .iter()
                .any(|o| o.last_draw_ms.load(Ordering::Relaxed) != 0)
        {
            // Erase the line; the others' runs redraw it on their next step.
            draw("\r\x1b[K");
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

fn lock_active() -> std::sync::MutexGuard<'static, Vec<Arc<Inner>>> {
    crate::lock::lock(&ACTIVE)
}

/// Draws the line of every active counter.
fn redraw() {
    let active = lock_active();
    let runs: Vec<Run<'_>> = active
        .iter()
        .map(|p| Run {
            label: &p.label,
            done: p.done.load(Ordering::Relaxed).min(p.total),
            total: p.total,
            elapsed: p.start.elapsed(),
        })
        .collect();
    draw(&format!("\r{}\x1b[K", combined_line(&runs)));
}

/// One run on the shared progress line.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Run<'a> {
    /// The test's name.
    pub label: &'a str,
    /// Trials done.
    pub done: usize,
    /// Trials in all.
    pub total: usize,
    /// Time since the run started.
    pub elapsed: Duration,
}

/// The line for the runs going on at once: one run's full [`line()`]; for
/// several, `3 tests: sum_naive 51%, gpu_matmul 12%, softmax 90%` (labels
/// cut to their last path segment, the line to about 120 characters).
pub(crate) fn combined_line(runs: &[Run<'_>]) -> String {
    match runs {
        [] => String::new(),
        [one] => line(one.label, one.done, one.total, one.elapsed),
        several => {
            let mut out = format!("{} tests:", several.len());
            for (i, r) in several.iter().enumerate() {
                let name = r.label.rsplit("::").next().unwrap_or(r.label);
                let percent = (r.done * 100).checked_div(r.total).unwrap_or(100);
                let part = format!("{} {name} {percent}%", if i == 0 { "" } else { "," });
                if out.chars().count() + part.chars().count() > 116 {
                    out.push_str(", …");
                    break;
                }
                out.push_str(&part);
            }
            out
        }
    }
}

fn draw(s: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(s.as_bytes());
    let _ = err.flush();
}

/// The progress line: `label [#####-----] 512/1000  51%  1.2 s, about 1.1 s left`.
pub(crate) fn line(label: &str, done: usize, total: usize, elapsed: Duration) -> String {
    const WIDTH: usize = 28;
    let fraction = if total == 0 {
        1.0
    } else {
        (done as f64 / total as f64).min(1.0)
    };
    let filled = (fraction * WIDTH as f64).round() as usize;
    let secs = elapsed.as_secs_f64();
    let left = if done > 0 && done < total {
        let rest = secs / done as f64 * (total - done) as f64;
        format!(", about {} left", duration(rest))
    } else {
        String::new()
    };
    let label: String = label.chars().take(40).collect();
    format!(
        "{label} [{}{}] {done}/{total} {:>3}%  {}{left}",
        "#".repeat(filled),
        "-".repeat(WIDTH - filled),
        (fraction * 100.0).floor() as u32,
        duration(secs)
    )
}

fn duration(secs: f64) -> String {
    if secs < 60.0 {
        format!("{secs:.1} s")
    } else {
        let s = secs.round() as u64;
        format!("{}m{:02}s", s / 60, s % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line() {
        let l = line("sum", 512, 1024, Duration::from_secs(2));
        assert!(
            l.starts_with("sum [##############--------------] 512/1024  50%  2.0 s"),
            "{l}"
        );
        assert!(l.ends_with("about 2.0 s left"), "{l}");
        let l = line("x", 10, 10, Duration::from_secs(125));
        assert!(
            l.contains("100%") && l.contains("2m05s") && !l.contains("left"),
            "{l}"
        );
        assert!(line("x", 0, 0, Duration::ZERO).contains("100%"));
    }

    #[test]
    fn runs_at_once_share_one_line() {
        let run = |label, done, total| Run {
            label,
            done,
            total,
            elapsed: Duration::from_secs(1),
        };
        assert_eq!(
            combined_line(&[run("a::sum_naive", 512, 1024)]),
            line("a::sum_naive", 512, 1024, Duration::from_secs(1))
        );
        let two = combined_line(&[run("a::sum_naive", 512, 1024), run("b::gpu", 1, 10)]);
        assert_eq!(two, "2 tests: sum_naive 50%, gpu 10%");
        let many: Vec<Run<'_>> = (0..40).map(|_| run("some_long_test_name", 1, 2)).collect();
        let l = combined_line(&many);
        assert!(l.starts_with("40 tests: some_long_test_name 50%, "), "{l}");
        assert!(l.ends_with(", …") && l.chars().count() <= 120, "{l}");
        // Two active counters are both on the shared line until finished.
        let (p, q) = (
            Progress::active(10, "x::first"),
            Progress::active(10, "x::second"),
        );
        let labels = || -> Vec<String> { lock_active().iter().map(|i| i.label.clone()).collect() };
        assert!(labels().contains(&"x::first".to_owned()));
        p.finish();
        assert!(!labels().contains(&"x::first".to_owned()));
        assert!(labels().contains(&"x::second".to_owned()));
        q.finish();
        assert!(!labels().contains(&"x::second".to_owned()));
    }

    #[test]
    fn hidden_counters_do_nothing_and_are_thread_safe() {
        let p = Progress::hidden();
        assert!(!p.is_active());
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| (0..1000).for_each(|_| p.inc()));
            }
        });
        p.finish();
        // An active counter used from threads, finished before anything was
        // due, draws nothing and counts everything.
        let p = Progress::active(4000, "t");
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| (0..1000).for_each(|_| p.inc()));
            }
        });
        assert_eq!(p.inner.as_ref().unwrap().done.load(Ordering::Relaxed), 4000);
        p.finish();
    }
}
