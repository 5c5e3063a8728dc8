//! The suites of `tests/all.rs`.

mod attacks;
mod invariants;
