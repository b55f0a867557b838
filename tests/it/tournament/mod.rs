//! Integration tests: tournament.

mod export_dispatch;
mod export_egf;
mod formats_opengotha;
mod growth;
mod io;
mod rpc;
mod standings_oracle;
mod standings_rpc;
mod ws;
