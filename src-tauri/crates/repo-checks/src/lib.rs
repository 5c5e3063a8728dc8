//! The repository's own checks (`cargo test -p tollgate-repo-checks`). They read the source and
//! the documents as files and build nothing of the app, so they run in seconds and sit apart
//! from the crates they check:
//!
//! - `tests/suite/layers.rs`: the crate table of docs/ARCHITECTURE.md is the manifests; the
//!   engine's modules keep their layers; no crate's files use each other in a circle; every
//!   `F-nn` and `SPEC §n` the code cites is in docs/SPEC.md;
//! - `tests/suite/architecture_doc.rs`: what docs/ARCHITECTURE.md lists is what the code has;
//! - `tests/suite/security_doc.rs`: every test SECURITY.md names exists where it says;
//! - `tests/suite/file_sizes.rs`: no production file is over 800 lines;
//! - `tests/suite/one_decision.rs`: of the executor's files only `decision.rs` weighs a policy;
//! - `tests/suite/one_host_reader.rs`: only the names crate takes a host out of a web address.
//!
//! It depends on no crate of Tollgate's: a check that needed one would be a test of that crate.
