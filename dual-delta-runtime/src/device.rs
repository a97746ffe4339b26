//! The device a run's functions used: a backend gives the facts of its
//! device ([`DeviceFacts`]: the adapter, what it does to arithmetic) on
//! each dispatch ([`used`]), and the run whose function dispatched records
//! them in its report, and no other run: a test on the CPU never names the
//! GPU another test of the process used, whichever ran first, and two runs
//! at the same time (with the same seed or not) each name only their own.
//!
//! A kernel of your own names its device the same way: its facts made
//! once, with the device, and noted on each dispatch.
//!
//! ```
//! use dual_delta_runtime::device::{self, DeviceFacts};
//! use dual_delta_runtime::prelude::*;
//!
//! fn exact(x: &Vec<f32>) -> f64 { x.iter().map(|&v| f64::from(v)).sum() }
//! fn naive(x: &Vec<f32>) -> f32 { x.iter().sum() }
//! fn input(rng: &mut TrialRng) -> Vec<f32> {
//!     (0..100).map(|_| rng.random_range(0.0f32..1.0)).collect()
//! }
//!
//! let facts = DeviceFacts::new([("gpu.adapter", "My GPU (Vulkan)")]);
//! let on_the_device = |x: &Vec<f32>| {
//!     device::used(&facts); // on each dispatch
//!     naive(x)
//! };
//! let gpu = DualDelta::new(on_the_device, naive, exact, input).n(40).run().unwrap();
//! let cpu = DualDelta::new(naive, naive, exact, input).n(40).run().unwrap();
//! assert_eq!(gpu.environment()["gpu.adapter"], "My GPU (Vulkan)");
//! assert!(!cpu.environment().contains_key("gpu.adapter"));
//! ```

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::lock::lock;

/// The facts of one device for reports, by key (`gpu.adapter`,
/// `gpu.semantics`, `gpu.caveats`, ...): made once, where the device is
/// opened, and cheap to clone (the facts are shared, not copied).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceFacts {
    facts: Arc<BTreeMap<String, String>>,
}

impl DeviceFacts {
    /// The facts `pairs`, key and value; a later value for the same key
    /// replaces an earlier one.
    pub fn new<K, V>(pairs: impl IntoIterator<Item = (K, V)>) -> DeviceFacts
    where
        K: Into<String>,
        V: Into<String>,
    {
        DeviceFacts {
            facts: Arc::new(
                pairs
                    .into_iter()
                    .map(|(k, v)| (k.into(), v.into()))
                    .collect(),
            ),
        }
    }

    /// The value of `key`, if the device has one.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.facts.get(key).map(String::as_str)
    }

    /// The facts, key and value, sorted by key.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.facts.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The facts as a map, sorted by key (as a report's environment).
    pub fn as_map(&self) -> &BTreeMap<String, String> {
        &self.facts
    }
}

/// Notes that the calling thread used the device whose facts are `facts`:
/// a backend calls it on each dispatch. The run whose function (candidate,
/// baseline, oracle, input generator or metric) made the call on this
/// thread records these facts in its report ([`crate::outcome::Outcome`]'s
/// `environment`, the terminal table's `adapter:` line), and no other run
/// does. Where a run's functions used several devices, the report names
/// the one used last. Outside a call of a run's function (on a thread the
/// function started, say) it does nothing.
pub fn used(facts: &DeviceFacts) {
    CALL.with_borrow_mut(|call| {
        if let Some(used) = call {
            *used = Some(facts.clone());
        }
    });
}

/// Records that this process opened the device whose facts are `facts`:
/// [`crate::environment`] lists them (a later device's facts replace an
/// earlier one's, key by key). No run's report names them unless its
/// functions used the device ([`used`]).
pub fn opened(facts: &DeviceFacts) {
    lock(&OPENED).extend(facts.iter().map(|(k, v)| (k.to_owned(), v.to_owned())));
}

/// The facts of the devices this process opened ([`opened`]).
pub(crate) fn opened_facts() -> BTreeMap<String, String> {
    lock(&OPENED).clone()
}

static OPENED: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());

thread_local! {
    /// The call of a run's function this thread is in, if any ([`Record::during`]),
    /// and the device it used last.
    static CALL: RefCell<Option<Option<DeviceFacts>>> = const { RefCell::new(None) };
}

/// The device a run's functions used: one for each run, held by the run
/// and given to each call of its functions ([`Record::during`]). Each
/// record has a number of its own, which names its run to the watchdog
/// (two runs of one seed at once are two runs).
#[derive(Debug)]
pub(crate) struct Record {
    run: u64,
    used: Mutex<Option<DeviceFacts>>,
}

impl Default for Record {
    fn default() -> Self {
        static RUNS: AtomicU64 = AtomicU64::new(0);
        Record {
            run: RUNS.fetch_add(1, Ordering::Relaxed),
            used: Mutex::new(None),
        }
    }
}

impl Record {
    /// The run's number: no other record of the process has it.
    pub(crate) fn run(&self) -> u64 {
        self.run
    }

    /// The facts of the device the run's functions used last, if any.
    pub(crate) fn facts(&self) -> Option<DeviceFacts> {
        lock(&self.used).clone()
    }

    /// Calls `f`, a function of this record's run, on this thread: a device
    /// it uses ([`used`]) is this run's, not that of a call it was made
    /// in, nor of one made in it.
    pub(crate) fn during<T>(&self, f: impl FnOnce() -> T) -> T {
        let outer = CALL.with(|c| c.replace(Some(None)));
        let _restore = Restore {
            record: self,
            outer,
        };
        f()
    }
}

/// Ends a call ([`Record::during`]), panicking or not: its device to its
/// record, and the call it was made in restored.
struct Restore<'r> {
    record: &'r Record,
    outer: Option<Option<DeviceFacts>>,
}

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        let outer = std::mem::take(&mut self.outer);
        if let Some(Some(facts)) = CALL.with(|c| c.replace(outer)) {
            *lock(&self.record.used) = Some(facts);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_use_lands_in_the_record_of_the_call_it_was_made_in() {
        let facts = |name: &str| DeviceFacts::new([("gpu.adapter", name)]);
        let (outer, inner) = (Record::default(), Record::default());
        outer.during(|| {
            used(&facts("a"));
            inner.during(|| used(&facts("b")));
        });
        assert_eq!(outer.facts(), Some(facts("a")));
        assert_eq!(inner.facts(), Some(facts("b")));
        // Outside a call, and on a thread of its own, nothing is recorded.
        used(&facts("c"));
        let record = Record::default();
        record.during(|| std::thread::scope(|s| s.spawn(|| used(&facts("d"))).join().unwrap()));
        assert_eq!(record.facts(), None);
        assert_eq!(outer.facts(), Some(facts("a")));
    }

    #[test]
    fn a_panicking_call_still_ends() {
        let record = Record::default();
        let facts = DeviceFacts::new([("gpu.adapter", "x")]);
        let caught = std::panic::catch_unwind(|| {
            record.during(|| {
                used(&facts);
                panic!("in the call");
            })
        });
        assert!(caught.is_err());
        assert_eq!(record.facts(), Some(facts.clone()));
        assert!(CALL.with_borrow(Option::is_none));
    }

    #[test]
    fn facts_read_back_sorted_and_the_last_value_of_a_key_wins() {
        let facts = DeviceFacts::new([("b", "2"), ("a", "1"), ("b", "3")]);
        assert_eq!(facts.get("b"), Some("3"));
        assert_eq!(facts.get("c"), None);
        assert_eq!(facts.iter().collect::<Vec<_>>(), [("a", "1"), ("b", "3")]);
        assert_eq!(facts.as_map().len(), 2);
    }
}
