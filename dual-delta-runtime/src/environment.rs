//! Facts about the process that every report records, and the facts a
//! run records: the process's, and those of the device its own functions
//! used ([`crate::device`]).

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::device::DeviceFacts;
use crate::lock::lock;

static ENVIRONMENT: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());

/// Records a fact about this process, included in the report of every run
/// that ends after this call. A later value for the same key replaces the
/// earlier one. A device's facts are a run's only where its functions used
/// the device: [`crate::device`].
pub fn record_environment(key: impl Into<String>, value: impl Into<String>) {
    lock(&ENVIRONMENT).insert(key.into(), value.into());
}

/// The facts a run records: the process's, and those of the device its
/// functions used, where they used one.
pub(crate) fn of_run(device: Option<&DeviceFacts>) -> BTreeMap<String, String> {
    let mut facts = lock(&ENVIRONMENT).clone();
    if let Some(device) = device {
        facts.extend(device.iter().map(|(k, v)| (k.to_owned(), v.to_owned())));
    }
    facts
}

/// The facts recorded so far, the process's and those of the devices it
/// opened ([`crate::device::opened`]), sorted by key.
pub fn environment() -> BTreeMap<String, String> {
    let mut facts = lock(&ENVIRONMENT).clone();
    facts.extend(crate::device::opened_facts());
    facts
}
