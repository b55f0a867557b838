//! Integration tests: web.

mod browser;
mod pages;
// desk-setup: languages and the set-up form.
mod setup;
mod setup_browser;
// desk-print
mod print;
