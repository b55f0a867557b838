//! Integration tests: the documentation stays true to the code.

mod architecture;
mod openrpc_document;
