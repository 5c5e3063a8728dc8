//! Model providers (SPEC §5): OpenAI-compatible Chat Completions, Anthropic Messages, and the
//! offline Demo. Each turns a provider-neutral [`ChatRequest`] into one streamed completion,
//! reporting text and tool-call fragments as they arrive.
//!
//! A stream that ends without its finish event, or carries a malformed chunk, is an error —
//! never a silently shortened answer (F-26).

pub mod anthropic;
pub mod config;
pub mod demo;
pub mod http;
pub mod openai;
pub mod sse;
mod types;

pub use types::*;

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

/// A model provider.
#[async_trait]
pub trait Provider: Send + Sync {
    /// What kind of provider this is (for the UI and the record).
    fn kind(&self) -> ProviderKind;

    /// Streams one completion. `on_delta` sees text and tool-call fragments as they arrive; the
    /// result is the assembled completion. Cancelling `cancel` aborts the stream.
    async fn complete(
        &self,
        request: &ChatRequest,
        on_delta: &mut (dyn FnMut(StreamDelta) + Send),
        cancel: &CancellationToken,
    ) -> Result<Completion, ProviderError>;

    /// The models the server offers, where the API allows listing them.
    async fn models(&self) -> Result<Vec<String>, ProviderError>;
}
