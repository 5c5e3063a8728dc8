//! Model servers running on this computer, found instead of typed (F-34): Ollama, LM Studio
//! and llama.cpp's server each listen on a usual port of 127.0.0.1 and speak the OpenAI API
//! under `/v1`. Each candidate is asked for its model list with a short timeout; those that
//! answer are offered with their models.

use super::http::{self, Endpoint};
use super::ProviderError;
use serde::Serialize;
use std::time::Duration;

/// How long a probe waits: a local server answers at once or is not there.
const PROBE_TIMEOUT: Duration = Duration::from_millis(1_500);

/// Where a kind of local server usually listens.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub name: String,
    /// The OpenAI-compatible base URL, ending in `/v1`.
    pub base_url: String,
}

impl Candidate {
    pub fn new(name: &str, base_url: &str) -> Self {
        Self {
            name: name.to_string(),
            base_url: base_url.to_string(),
        }
    }
}

/// The usual ports: Ollama 11434, LM Studio 1234, llama.cpp's `llama-server` 8080.
pub fn default_candidates() -> Vec<Candidate> {
    vec![
        Candidate::new("Ollama", "http://127.0.0.1:11434/v1"),
        Candidate::new("LM Studio", "http://127.0.0.1:1234/v1"),
        Candidate::new("llama.cpp", "http://127.0.0.1:8080/v1"),
    ]
}

/// A server that answered, with the models it offers (sorted).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LocalServer {
    pub name: String,
    pub base_url: String,
    pub models: Vec<String>,
}

/// Asks every candidate at once; returns those that answered with a model list, in the
/// candidates' order. A port that is closed, answers something else, or is slow is left out.
pub async fn detect(candidates: &[Candidate]) -> Vec<LocalServer> {
    let probes = candidates.iter().map(|c| async move {
        match probe(&c.base_url).await {
            Ok(models) => Some(LocalServer {
                name: c.name.clone(),
                base_url: c.base_url.clone(),
                models,
            }),
            Err(e) => {
                tracing::debug!("no {} at {}: {e}", c.name, c.base_url);
                None
            }
        }
    });
    futures::future::join_all(probes)
        .await
        .into_iter()
        .flatten()
        .collect()
}

async fn probe(base_url: &str) -> Result<Vec<String>, ProviderError> {
    let endpoint = Endpoint::new(base_url, "models")?;
    let request = http::client()?.get(endpoint.url());
    tokio::time::timeout(PROBE_TIMEOUT, http::list_model_ids(request))
        .await
        .map_err(|_| ProviderError::Timeout)?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn closed_ports_and_other_servers_are_left_out() {
        // A port nothing listens on (bound, then released).
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", closed.local_addr().unwrap());
        drop(closed);
        let found = detect(&[Candidate::new("nothing", &url)]).await;
        assert!(found.is_empty());
    }
}
