//! Integration tests: web.

mod browser;
// desk-floor: registration desk, check-in, quick results.
mod desk;
mod pages;
