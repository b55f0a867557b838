//! The application layer, between the wires (`rpc`, `web`, `server`) and the domain and the
//! store: the tournaments in memory in front of the store ([`registry`]), heavy work under
//! each call's budget and turns ([`work`], [`turn`]), and the call metrics ([`metrics`]).
//!
//! It knows no protocol. Its failures are [`AppError`] (and [`registry::RegistryError`]),
//! which the wire adapters turn into their own errors with one conversion each; the metrics
//! are recorded here for both adapters and the server, so none of them imports another for it.

pub mod error;
pub mod metrics;
pub mod registry;
pub mod turn;
pub mod work;

pub use error::AppError;
