//! Model providers (SPEC §5): OpenAI-compatible Chat Completions, Anthropic Messages, and the
//! offline Demo. Each turns a provider-neutral [`ChatRequest`] into one streamed completion,
//! reporting text and tool-call fragments as they arrive.
//!
//! A stream that ends without its finish event, or carries a malformed chunk, is an error —
//! never a silently shortened answer (F-26).
//!
//! A crate of its own. It depends on `tollgate-protocol`, `tollgate-store` (provider
//! configurations) and `tollgate-secrets` (keys, redaction), and must never depend on the
//! engine: the chat loop drives a provider; a provider knows nothing of tools or the gate.

pub mod anthropic;
pub mod config;
pub mod demo;
pub mod http;
pub mod local;
pub mod openai;
mod outgoing;
pub mod sse;
pub mod think;
mod types;

pub use outgoing::Outgoing;
pub use types::*;

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;
use tollgate_protocol::{ProviderKind, ToolCalling};

/// Assembles one completion from a provider's stream, event by event.
pub trait StreamAssembler: Send {
    /// Handles one event's `data`, reporting fragments to `on_delta`.
    fn on_data(
        &mut self,
        data: &str,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
    ) -> Result<(), ProviderError>;
    /// Whether the stream said it is finished (nothing more will come).
    fn is_done(&self) -> bool;
    /// The completion, or an error if the stream never said it was finished.
    fn finish(self) -> Result<Completion, ProviderError>;
}

/// A model provider.
#[async_trait]
pub trait Provider: Send + Sync {
    /// What kind of provider this is (for the UI and the record).
    fn kind(&self) -> ProviderKind;

    /// How its model calls tools (F-35); native unless configured otherwise.
    fn tool_calling(&self) -> ToolCalling {
        ToolCalling::Native
    }

    /// Streams one completion. `on_delta` sees text and tool-call fragments as they arrive; the
    /// result is the assembled completion. Cancelling `cancel` aborts the stream.
    async fn complete(
        &self,
        request: &Outgoing,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
        cancel: &CancellationToken,
    ) -> Result<Completion, ProviderError>;

    /// The models the server offers, where the API allows listing them.
    async fn models(&self) -> Result<Vec<String>, ProviderError>;
}
