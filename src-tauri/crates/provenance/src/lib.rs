//! The provenance-aware gate (SPEC §10; SPEC F-80…F-85), a crate of its own: pure functions
//! over the protocol's types, with no I/O — no database, no network, no clock, no file. It
//! depends only on `tollgate-protocol` and `tollgate-names` (how names and hosts are read) and
//! must never depend on the engine: the executor hands
//! it what a call is and what the chat read, and it answers.
//!
//! Every piece of content that reaches a chat carries its [`Source`] (a fetched page, a file, an
//! MCP result, an attachment, an imported chat). Whether a source is trusted is decided *now*,
//! from the user's settings and the chat's endorsements ([`Trust`]), so a host trusted later
//! stops counting at once. The [`Exposure`] of a call is what the model had read when it made
//! the call: the sources in its context and an index of their text, so the spans of the call's
//! arguments that came from them can be found ([`spans`]). The [`guard`] decides from the
//! exposure and what the call may do whether a rule, a record or an `auto` policy may still
//! let the call run without a card, and which of the call's [`targets`] the content chose.

pub mod exposure;
pub mod guard;
pub mod ledger;
pub mod spans;
pub mod target_values;
pub mod targets;
pub mod trust;

pub use exposure::{Exposure, ExposureBuilder, SharedExposure};
pub use guard::{derived_sources, distinct, each_string, guard_note, GuardInputs};
pub use ledger::{Ledger, Offered, RequestLedger, Said};
pub use trust::Trust;
