//! The state every command shares: the engine service.

use std::sync::Arc;
use tollgate_engine::service::Tollgate;

/// Shared by every command.
pub struct AppState {
    pub app: Arc<Tollgate>,
}
