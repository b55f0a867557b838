//! Integration tests: server.

mod auth;
mod connections;
mod cross_site;
mod ratings;
mod replies;
mod slow_clients;
