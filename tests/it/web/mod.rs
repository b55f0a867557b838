//! Integration tests: web.

mod browser;
mod pages;
