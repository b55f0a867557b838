//! Integration tests: server.

mod auth;
mod connections;
mod cross_site;
mod slow_clients;
