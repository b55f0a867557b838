//! The RPC metrics every wire records: one place that the HTTP front (XML-RPC) and the
//! JSON-RPC adapter both call, so that the adapter need not reach up into the server.

use std::time::Instant;

/// Counts one RPC and records its latency. `method` is always a name from the method table
/// (or "unknown"), never raw client input, so label cardinality stays bounded.
pub fn record(method: &'static str, proto: &'static str, ok: bool, start: Instant) {
    let outcome = if ok { "ok" } else { "error" };
    metrics::counter!("goswiss_rpc_requests_total", "proto" => proto, "method" => method, "outcome" => outcome)
        .increment(1);
    metrics::histogram!("goswiss_rpc_duration_seconds", "proto" => proto, "method" => method)
        .record(start.elapsed().as_secs_f64());
}
