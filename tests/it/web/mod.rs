//! Integration tests: web.

mod browser;
mod pages;
// desk-print
mod print;
