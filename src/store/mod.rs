//! Durable event-log store.
