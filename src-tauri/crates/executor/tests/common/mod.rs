//! The executor's harness (`tollgate_test_support::executor`), under the name the suites use.
pub use tollgate_test_support::executor::*;
