//! Integration tests: server.

mod auth;
mod connections;
mod cross_site;
mod replies;
mod slow_clients;
