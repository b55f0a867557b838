//! The RPC metrics every wire records: one place that the HTTP front (XML-RPC) and the
//! JSON-RPC adapter both call, so that the adapter need not reach up into the server.
//!
//! Every call records a counter and a histogram. Through the `metrics` macros each record
//! builds its labels and looks them up in the recorder's registry (some 3,600 instructions a
//! call, as much as the rest of the JSON-RPC adapter), so once the daemon's recorder is in
//! place ([`recorder_installed`]) each worker thread keeps the handles it has used.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use metrics::{Counter, Histogram};

/// Set once the process's recorder is installed: handles taken before it are the no-op ones
/// and must not be kept.
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Says that the process-wide recorder is in place (the server calls it after installing its
/// own); from then on [`record`] keeps handles. It stays in place for the process's life.
pub fn recorder_installed() {
    INSTALLED.store(true, Ordering::Release);
}

/// A method name, a wire and an outcome, by the addresses of their static strings (equal
/// names at other addresses only make a second entry for the same metrics).
type HandleKey = (usize, usize, bool);

thread_local! {
    static HANDLES: RefCell<HashMap<HandleKey, (Counter, Histogram)>> = RefCell::new(HashMap::new());
}

/// Counts one RPC and records its latency. `method` is always a name from the method table
/// (or "unknown"), never raw client input, so label cardinality stays bounded (and so does
/// each thread's cache of handles).
pub fn record(method: &'static str, proto: &'static str, ok: bool, start: Instant) {
    let seconds = start.elapsed().as_secs_f64();
    if !INSTALLED.load(Ordering::Acquire) {
        let (counter, histogram) = handles(method, proto, ok);
        counter.increment(1);
        histogram.record(seconds);
        return;
    }
    let key = (method.as_ptr() as usize, proto.as_ptr() as usize, ok);
    HANDLES.with(|cache| {
        let mut cache = cache.borrow_mut();
        let (counter, histogram) = cache
            .entry(key)
            .or_insert_with(|| handles(method, proto, ok));
        counter.increment(1);
        histogram.record(seconds);
    });
}

fn handles(method: &'static str, proto: &'static str, ok: bool) -> (Counter, Histogram) {
    let outcome = if ok { "ok" } else { "error" };
    (
        metrics::counter!("goswiss_rpc_requests_total", "proto" => proto, "method" => method, "outcome" => outcome),
        metrics::histogram!("goswiss_rpc_duration_seconds", "proto" => proto, "method" => method),
    )
}
