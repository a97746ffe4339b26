//! Facts about the process that every report records, such as the GPU
//! adapter a backend selected.

use std::collections::BTreeMap;
use std::sync::Mutex;

static ENVIRONMENT: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());

/// Records a fact about this process (for example `gpu.adapter`), included
/// in the report of every run that ends after this call. A later value for
/// the same key replaces the earlier one.
pub fn record_environment(key: impl Into<String>, value: impl Into<String>) {
    let mut map = ENVIRONMENT.lock().unwrap_or_else(|e| e.into_inner());
    map.insert(key.into(), value.into());
}

/// The facts recorded so far, sorted by key.
pub fn environment() -> BTreeMap<String, String> {
    ENVIRONMENT
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
}
