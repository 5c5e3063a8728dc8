//! The suites of `tests/all.rs`, one module per area.

mod approvals;
mod background;
mod files;
mod pipeline;
mod plan;
mod results;
mod robustness;
mod writes;
