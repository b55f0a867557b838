//! Integration tests: web.

mod browser;
// desk-floor: registration desk, check-in, quick results.
mod desk;
mod pages;
// desk-setup: languages and the set-up form.
mod setup;
mod setup_browser;
// desk-print
mod print;
// desk-edit2: the pairing-edit screen.
mod edit;
