//! JSON-RPC adapter.
