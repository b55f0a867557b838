//! XML-RPC adapter.
