//! HTTP front: one axum router for XML-RPC, JSON-RPC, health and metrics.
pub async fn serve() {}
