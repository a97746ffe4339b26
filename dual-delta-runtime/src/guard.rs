//! Calling the user's functions: a panic becomes an error naming the trial,
//! printed once, in the failure message, rather than also by the panicking
//! thread.

use std::cell::Cell;
use std::io::Write as _;
use std::panic::{AssertUnwindSafe, PanicHookInfo, catch_unwind};
use std::sync::{Mutex, Once, OnceLock};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use crate::device::Record as DeviceRecord;
use crate::error::{Fault, Role, RunError, SkipPayload, TrialFault, TrialId};
use crate::lock::lock;

thread_local! {
    /// How many [`guarded`] calls this thread is inside.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    /// Where the last panic caught by [`guarded`] on this thread happened.
    static LOCATION: Cell<Option<String>> = const { Cell::new(None) };
}

/// Calls `f` for `role` in `trial`: a panic becomes an error naming the
/// trial, with the panic's message and location; [`crate::error::skip`] becomes a
/// skip. The panic is not printed where it happens (by the default hook,
/// with its backtrace note): the error carries it to the test's failure
/// message, so it is printed once. A device the call used on this thread
/// ([`crate::device::used`]) goes to `device`, the record of the run
/// whose function this is, so that its report names the device.
pub(crate) fn guarded<T>(
    device: &DeviceRecord,
    role: Role,
    trial: TrialId,
    f: impl FnOnce() -> T,
) -> Result<T, RunError> {
    install_hook();
    let _call = Call::start(device.run(), role, trial);
    DEPTH.with(|d| d.set(d.get() + 1));
    let result = device.during(|| catch_unwind(AssertUnwindSafe(f)));
    DEPTH.with(|d| d.set(d.get() - 1));
    result.map_err(|payload| match payload.downcast::<SkipPayload>() {
        Ok(skip) => RunError::Skipped(crate::error::Skip {
            role,
            reason: skip.0,
        }),
        Err(payload) => {
            let mut message = panic_message(&*payload);
            if let Some(location) = LOCATION.with(Cell::take) {
                message.push_str(&format!(" (at {location})"));
            }
            TrialFault::new(role, trial, Fault::Panicked { message }).into()
        }
    })
}

/// The runs being watched, by number ([`crate::device::Record::run`]): the
/// test's name and its per-trial limit.
static RUNS: Mutex<Vec<Watched>> = Mutex::new(Vec::new());
/// The calls under way, by thread.
static CALLS: Mutex<Vec<Running>> = Mutex::new(Vec::new());

/// What the watchdog calls before it ends the process: the test, why and
/// the command that replays it (set by the layer that keeps records; none
/// for a bare builder's run).
static ON_HANG: OnceLock<Record> = OnceLock::new();

/// Records a run that could not finish: the test, why and the replay
/// command; the record's path, where one was written.
pub(crate) type Record = fn(&str, &str, &str) -> Option<std::path::PathBuf>;

/// Has the watchdog call `record` with the test, the reason and the replay
/// command before it ends the process on a hung call.
pub(crate) fn on_hang(record: Record) {
    let _ = ON_HANG.set(record);
}

/// A run watched for hung calls until it is dropped.
pub(crate) struct Watch {
    run: u64,
}

/// Watches the run numbered `run` (its device record's,
/// [`crate::device::Record::run`]) of test `test`: a call of one of its
/// functions that runs longer than `limit` ends the process with a message
/// naming the trial, its seed and the replay command. Called on the thread
/// the run starts on, whose name selects the test.
pub(crate) fn watch(run: u64, test: &str, limit: Duration) -> Watch {
    static WATCHDOG: Once = Once::new();
    crate::replay::register_thread(test);
    lock(&RUNS).push((run, test.to_owned(), limit));
    WATCHDOG.call_once(|| {
        std::thread::Builder::new()
            .name("dual-delta watchdog".to_owned())
            .spawn(watchdog)
            .expect("the watchdog thread starts");
    });
    Watch { run }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let mut runs = lock(&RUNS);
        if let Some(i) = runs.iter().position(|r| r.0 == self.run) {
            runs.swap_remove(i);
        }
    }
}

/// A call under way, removed from [`CALLS`] when dropped.
struct Call;

impl Call {
    fn start(run: u64, role: Role, trial: TrialId) -> Option<Call> {
        if lock(&RUNS).is_empty() {
            return None;
        }
        lock(&CALLS).push((
            std::thread::current().id(),
            run,
            role,
            trial,
            Instant::now(),
        ));
        Some(Call)
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        let me = std::thread::current().id();
        let mut calls = lock(&CALLS);
        // The innermost call of this thread is the last pushed.
        if let Some(i) = calls.iter().rposition(|c| c.0 == me) {
            calls.remove(i);
        }
    }
}

/// A run being watched: its number, its test and its per-trial limit.
type Watched = (u64, String, Duration);
/// A call under way: its thread, its run's number, the role, the trial and
/// when it began.
type Running = (ThreadId, u64, Role, TrialId, Instant);

/// The first call under way that has run past its own run's limit at
/// `now`: its run's test, the call, how long it has run and the limit.
/// Each call is matched to its run by the run's number, never by seed: two
/// runs of one seed at once are told apart.
fn overdue<'r>(
    runs: &'r [Watched],
    calls: &[Running],
    now: Instant,
) -> Option<(&'r str, Role, TrialId, Duration, Duration)> {
    calls.iter().find_map(|&(_, run, role, trial, start)| {
        let (_, test, limit) = runs.iter().find(|r| r.0 == run)?;
        let elapsed = now.saturating_duration_since(start);
        (elapsed > *limit).then_some((test.as_str(), role, trial, elapsed, *limit))
    })
}

/// Checks the calls under way every quarter second and ends the process
/// on the first over its run's limit.
fn watchdog() {
    loop {
        std::thread::sleep(Duration::from_millis(250));
        let runs = lock(&RUNS).clone();
        let calls = lock(&CALLS).clone();
        let Some((test, role, trial, elapsed, limit)) = overdue(&runs, &calls, Instant::now())
        else {
            continue;
        };
        // Straight to the process's standard error: libtest captures
        // `eprintln!` (this thread inherits the capture of the test that
        // started it), and its capture is never printed once the process
        // ends here.
        let reason = format!(
            "the {role} has run for {:.0} s on trial {} (trial seed {:#018x}), over the \
             per-trial limit of {} s (DUAL_DELTA_TRIAL_TIMEOUT)",
            elapsed.as_secs_f64(),
            trial.index,
            trial.seed,
            limit.as_secs_f64(),
        );
        let replay = crate::replay::command(test, trial.base_seed);
        let record = ON_HANG
            .get()
            .and_then(|record| record(test, &reason, &replay))
            .map_or_else(String::new, |p| format!("  record: {}\n", p.display()));
        let message = format!(
            "dual-delta: {test}: {reason}; ending the process. Replay it with \
             {replay}\n{record}"
        );
        let mut stderr = std::io::stderr().lock();
        let _ = stderr.write_all(message.as_bytes());
        let _ = stderr.flush();
        std::process::exit(124);
    }
}

/// Wraps the panic hook in place once: inside [`guarded`] it only notes
/// where the panic happened; elsewhere it calls the hook it replaced.
fn install_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info: &PanicHookInfo<'_>| {
            if DEPTH.with(Cell::get) > 0 {
                let location = info.location().map(ToString::to_string);
                LOCATION.with(|l| l.set(location));
            } else {
                previous(info);
            }
        }));
    });
}

/// The message of a panic payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trial() -> TrialId {
        TrialId {
            index: 3,
            seed: 7,
            base_seed: 1,
        }
    }

    #[test]
    fn a_panic_becomes_an_error_with_its_message_and_location() {
        let e = guarded(
            &DeviceRecord::default(),
            Role::Candidate,
            trial(),
            || -> u32 { panic!("boom {}", 42) },
        )
        .unwrap_err();
        match e {
            RunError::Trial(TrialFault {
                role,
                trial: t,
                kind: Fault::Panicked { message },
            }) => {
                assert_eq!((role, t), (Role::Candidate, trial()));
                assert!(message.starts_with("boom 42 (at "), "{message}");
                assert!(message.contains("guard.rs"), "{message}");
            }
            other => panic!("unexpected {other:?}"),
        }
        // Outside `guarded`, nothing is left over for the next call.
        assert_eq!(
            guarded(&DeviceRecord::default(), Role::Oracle, trial(), || 5).unwrap(),
            5
        );
    }

    #[test]
    fn a_skip_is_a_skip() {
        let e = guarded(
            &DeviceRecord::default(),
            Role::Baseline,
            trial(),
            || -> () { crate::error::skip("no GPU") },
        )
        .unwrap_err();
        assert_eq!(
            e,
            RunError::Skipped(crate::error::Skip {
                role: Role::Baseline,
                reason: "no GPU".to_owned()
            })
        );
    }

    #[test]
    fn an_overdue_call_names_its_own_run_not_another_of_the_same_seed() {
        let (seed, now) = (7, Instant::now());
        let runs = [
            (1, "twin::steady".to_owned(), Duration::from_secs(60)),
            (2, "twin::hangs".to_owned(), Duration::from_secs(1)),
        ];
        let thread = std::thread::current().id();
        let call = |run, secs| {
            let trial = TrialId::of(seed, 3);
            (
                thread,
                run,
                Role::Candidate,
                trial,
                now - Duration::from_secs(secs),
            )
        };
        // The steady run's call is 5 s old, within its minute; the other's
        // 2 s, past its second: the hang is the second run's.
        let calls = [call(1, 5), call(2, 2)];
        let (test, _, trial, elapsed, limit) = overdue(&runs, &calls, now).unwrap();
        assert_eq!(
            (test, trial.base_seed, trial.index),
            ("twin::hangs", seed, 3)
        );
        assert_eq!(
            (elapsed, limit),
            (Duration::from_secs(2), Duration::from_secs(1))
        );
        assert!(overdue(&runs, &calls[..1], now).is_none());
    }
}
