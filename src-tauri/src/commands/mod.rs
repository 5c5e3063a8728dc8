//! Tauri commands, one module per area. Each returns `Result<T, String>` so the UI receives a
//! readable message on failure.

pub mod tools;
