//! Facts about the process that every report records, and facts about a
//! device (the GPU adapter a backend selected) that a report records only
//! where the run's own functions used it.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

static ENVIRONMENT: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());
static DEVICE: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());
/// The facts of one device, as a context holds them
/// ([`note_device_use_of`]).
pub type DeviceFacts = Arc<BTreeMap<String, String>>;

/// The base seeds of the runs whose functions used a device, with the
/// facts of the device they used where its context gave them.
static USED_A_DEVICE: Mutex<BTreeMap<u64, Option<DeviceFacts>>> = Mutex::new(BTreeMap::new());

thread_local! {
    /// How many times this thread used a device ([`note_device_use`]).
    static DEVICE_USES: Cell<u64> = const { Cell::new(0) };
    /// The facts of the device this thread used last, where its context
    /// gave them ([`note_device_use_of`]).
    static LAST_DEVICE: RefCell<Option<DeviceFacts>> = const { RefCell::new(None) };
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Records a fact about this process, included in the report of every run
/// that ends after this call. A later value for the same key replaces the
/// earlier one.
pub fn record_environment(key: impl Into<String>, value: impl Into<String>) {
    lock(&ENVIRONMENT).insert(key.into(), value.into());
}

/// Records a fact about a device (for example `gpu.adapter`), included in
/// the report of each later run whose candidate, baseline, oracle or
/// generator used a device ([`note_device_use`]), and only there: a test on
/// the CPU never names a GPU that another test of the process opened.
pub fn record_device(key: impl Into<String>, value: impl Into<String>) {
    lock(&DEVICE).insert(key.into(), value.into());
}

/// Notes that the calling thread used a device: a device backend calls it
/// on each dispatch, so that the run whose function made the call records
/// the device's facts ([`record_device`]).
pub fn note_device_use() {
    LAST_DEVICE.with(|d| *d.borrow_mut() = None);
    DEVICE_USES.with(|c| c.set(c.get() + 1));
}

/// Notes that the calling thread used the device whose facts are `facts`
/// (a context's adapter, semantics and caveats): the run whose function
/// made the call records these, whichever other contexts the process
/// holds and whatever [`record_device`] recorded last.
pub fn note_device_use_of(facts: &DeviceFacts) {
    LAST_DEVICE.with(|d| *d.borrow_mut() = Some(Arc::clone(facts)));
    DEVICE_USES.with(|c| c.set(c.get() + 1));
}

/// The facts of the device this thread used last, if its context gave
/// them.
pub(crate) fn last_device() -> Option<DeviceFacts> {
    LAST_DEVICE.with(|d| d.borrow().clone())
}

/// How many times this thread has used a device.
pub(crate) fn device_uses() -> u64 {
    DEVICE_USES.with(Cell::get)
}

/// Marks the run with base seed `run` as one whose functions used a
/// device, `facts` the device's where its context gave them.
pub(crate) fn mark_device_use(run: u64, facts: Option<DeviceFacts>) {
    let mut used = lock(&USED_A_DEVICE);
    let entry = used.entry(run).or_insert(None);
    if facts.is_some() {
        *entry = facts;
    }
}

/// The facts a run with base seed `run` records: the process's, and the
/// device's where its functions used one: the facts of the context they
/// used where it gave them, else those [`record_device`] recorded (the
/// mark is then cleared).
pub(crate) fn of_run(run: u64) -> BTreeMap<String, String> {
    let mut facts = lock(&ENVIRONMENT).clone();
    match lock(&USED_A_DEVICE).remove(&run) {
        Some(Some(device)) => facts.extend(device.iter().map(|(k, v)| (k.clone(), v.clone()))),
        Some(None) => facts.extend(lock(&DEVICE).clone()),
        None => {}
    }
    facts
}

/// The facts recorded so far, the process's and the devices', sorted by
/// key.
pub fn environment() -> BTreeMap<String, String> {
    let mut facts = lock(&ENVIRONMENT).clone();
    facts.extend(lock(&DEVICE).clone());
    facts
}
