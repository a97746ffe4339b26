//! Calling the user's functions: a panic becomes an error naming the trial,
//! printed once, in the failure message, rather than also by the panicking
//! thread.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, PanicHookInfo, catch_unwind};
use std::sync::Once;

use crate::error::{Role, RunError, SkipPayload, TrialId};

thread_local! {
    /// How many [`guarded`] calls this thread is inside.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    /// Where the last panic caught by [`guarded`] on this thread happened.
    static LOCATION: Cell<Option<String>> = const { Cell::new(None) };
}

/// Calls `f` for `role` in `trial`: a panic becomes an error naming the
/// trial, with the panic's message and location; [`crate::skip`] becomes a
/// skip. The panic is not printed where it happens (by the default hook,
/// with its backtrace note): the error carries it to the test's failure
/// message, so it is printed once.
pub(crate) fn guarded<T>(role: Role, trial: TrialId, f: impl FnOnce() -> T) -> Result<T, RunError> {
    install_hook();
    DEPTH.with(|d| d.set(d.get() + 1));
    let result = catch_unwind(AssertUnwindSafe(f));
    DEPTH.with(|d| d.set(d.get() - 1));
    result.map_err(|payload| match payload.downcast::<SkipPayload>() {
        Ok(skip) => RunError::Skipped {
            role,
            reason: skip.0,
        },
        Err(payload) => {
            let mut message = panic_message(&*payload);
            if let Some(location) = LOCATION.with(Cell::take) {
                message.push_str(&format!(" (at {location})"));
            }
            RunError::Panicked {
                role,
                trial,
                message,
            }
        }
    })
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
        let e = guarded(Role::Candidate, trial(), || -> u32 {
            panic!("boom {}", 42)
        })
        .unwrap_err();
        match e {
            RunError::Panicked {
                role,
                trial: t,
                message,
            } => {
                assert_eq!((role, t), (Role::Candidate, trial()));
                assert!(message.starts_with("boom 42 (at "), "{message}");
                assert!(message.contains("guard.rs"), "{message}");
            }
            other => panic!("unexpected {other:?}"),
        }
        // Outside `guarded`, nothing is left over for the next call.
        assert_eq!(guarded(Role::Oracle, trial(), || 5).unwrap(), 5);
    }

    #[test]
    fn a_skip_is_a_skip() {
        let e = guarded(Role::Baseline, trial(), || -> () { crate::skip("no GPU") }).unwrap_err();
        assert_eq!(
            e,
            RunError::Skipped {
                role: Role::Baseline,
                reason: "no GPU".to_owned()
            }
        );
    }
}
