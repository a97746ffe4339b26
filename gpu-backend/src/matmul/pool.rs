//! The matrices of dropped matmul inputs, kept for the next input drawn.
//!
//! One matrix of the paper's deep-K cases (`128 × 4096` `f16`) is 1 MiB.
//! The allocator hands a block that large back to the system when it is
//! freed and maps a fresh one for the next trial's input, which then costs
//! a page fault for every 4 KiB written: more than drawing the numbers
//! themselves. A matrix dropped with its input is kept here instead, and
//! the next input of at most its length is drawn into it.

use std::sync::{Mutex, PoisonError};

/// Matrices smaller than this are not kept: the allocator reuses them
/// itself.
const MIN_BYTES: usize = 128 << 10;

/// At most this much is kept: a batch of 32 of the paper's deep-K inputs
/// (two 1 MiB matrices each) holds 64 MiB.
const MAX_BYTES: usize = 128 << 20;

/// Kept matrices of one element type.
///
/// Invariant: every vector held has a capacity of at least [`MIN_BYTES`],
/// and their capacities sum to at most [`MAX_BYTES`].
pub struct Pool<T> {
    free: Mutex<Vec<Vec<T>>>,
}

impl<T: Copy> Pool<T> {
    /// An empty pool.
    pub(crate) const fn new() -> Self {
        Self {
            free: Mutex::new(Vec::new()),
        }
    }

    /// A vector of `len` elements for a generator to overwrite: a kept
    /// matrix long enough when there is one (its values unspecified), else
    /// `len` copies of `fill`.
    pub(crate) fn take(&self, len: usize, fill: T) -> Vec<T> {
        if len * size_of::<T>() >= MIN_BYTES {
            let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(i) = free.iter().position(|v| v.capacity() >= len) {
                let mut v = free.swap_remove(i);
                drop(free);
                v.resize(len, fill);
                return v;
            }
        }
        vec![fill; len]
    }

    /// Keeps `v` for a later [`Pool::take`] when it is large enough to be
    /// worth it and the pool has room; drops it otherwise.
    pub(crate) fn give(&self, v: Vec<T>) {
        let bytes = v.capacity() * size_of::<T>();
        if bytes < MIN_BYTES {
            return;
        }
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        let held: usize = free.iter().map(|v| v.capacity() * size_of::<T>()).sum();
        if held + bytes <= MAX_BYTES {
            free.push(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_matrix_is_taken_again_and_small_ones_are_not_kept() {
        let pool = Pool::<u16>::new();
        let big = vec![7u16; 1 << 20];
        let at = big.as_ptr();
        pool.give(big);
        let again = pool.take(1 << 19, 0);
        assert_eq!((again.as_ptr(), again.len()), (at, 1 << 19));
        // Nothing left: a fresh vector, filled.
        assert_eq!(pool.take(1 << 20, 3), vec![3u16; 1 << 20]);
        pool.give(vec![1u16; 16]);
        assert!(pool.free.lock().unwrap().is_empty());
    }

    #[test]
    fn the_pool_holds_at_most_its_bound() {
        let pool = Pool::<u8>::new();
        for _ in 0..(MAX_BYTES / MIN_BYTES + 8) {
            pool.give(vec![0u8; MIN_BYTES]);
        }
        let held: usize = pool.free.lock().unwrap().iter().map(Vec::capacity).sum();
        assert!(held <= MAX_BYTES && held + MIN_BYTES > MAX_BYTES, "{held}");
    }
}
