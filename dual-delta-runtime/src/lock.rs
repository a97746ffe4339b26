//! Locking a mutex whatever a panicking holder left: every lock of the
//! runtime guards a list, a map or a file that each holder leaves whole, so
//! a panic in a user's function on another thread never poisons a run.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `m`, whatever a panicking holder left.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
