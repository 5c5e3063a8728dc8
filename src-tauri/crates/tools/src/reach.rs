//! Which network addresses `fetch_url` may reach (F-47): the checks live with the sandbox,
//! whose proxy refuses the same addresses ([`tollgate_sandbox::reach`]); here is the resolver
//! that applies them to reqwest's connections.

use std::net::SocketAddr;
pub use tollgate_sandbox::reach::*;

/// A resolver that returns only the addresses `reach` permits, so a name that resolves to
/// loopback, a private network or the metadata service cannot be connected to.
pub struct PublicResolver {
    pub reach: Reach,
}

impl reqwest::dns::Resolve for PublicResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let reach = self.reach.clone();
        let host = name.as_str().to_string();
        Box::pin(async move {
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await
                .map_err(|_| ReachError::Unresolved(host.clone()))?
                .collect();
            let public: Vec<SocketAddr> = found
                .iter()
                .copied()
                .filter(|a| reach.permits(a.ip()))
                .collect();
            if public.is_empty() {
                let addrs = found
                    .iter()
                    .map(|a| a.ip().to_string())
                    .collect::<Vec<_>>()
                    .join(", ");
                return Err(Box::new(ReachError::Resolved { host, addrs })
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(public.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn names_that_resolve_to_loopback_are_refused_by_the_resolver() {
        use reqwest::dns::Resolve;
        let resolver = PublicResolver {
            reach: Reach::public(),
        };
        let err = resolver
            .resolve("localhost".parse().unwrap())
            .await
            .err()
            .expect("localhost is refused");
        assert!(
            err.to_string().contains("localhost resolves only to"),
            "{err}"
        );
    }
}
