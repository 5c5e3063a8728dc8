//! The request ledger's property (F-82; docs/ARCHITECTURE.md, "The request is the ledger"):
//! for random mixes of groups — Tollgate's own, servers the user confirmed, servers nobody
//! reviewed; with their tools on, off, or all off; with guidance, guides and schemas (property
//! names, enums, defaults, examples) — every piece of text that reaches the request is
//! attributed to the group that wrote it, and the exposure built from the request holds every
//! untrusted writer whose text was sent, and finds that text.

#![allow(clippy::unwrap_used)]

use crate::prompt::prompt_ledger;
use proptest::prelude::*;
use serde_json::{json, Value};
use tollgate_protocol::Source;
use tollgate_provenance::{ExposureBuilder, RequestLedger};
use tollgate_tools::{
    Guidance, Guide, Registry, Tool, ToolContext, ToolError, ToolGroup, ToolSpec,
};

struct Fixed(ToolSpec);

#[async_trait::async_trait]
impl Tool for Fixed {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    async fn execute(&self, _args: Value, _ctx: ToolContext) -> Result<Value, ToolError> {
        Ok(json!("ok"))
    }
}

/// A marker long enough to be found as a copied stretch (at least the span index's guaranteed
/// 15 characters), unique to one group and one place.
fn marker(group: usize, place: &str) -> String {
    format!("qz{group}x{place}mk{group}w{place}kqv")
}

/// What one random group is made of.
#[derive(Debug, Clone)]
struct GroupPlan {
    /// Who wrote its texts: 0 Tollgate, 1 a server the user confirmed, 2 a server not reviewed.
    writer: u8,
    guidance: bool,
    guides: u8,
    tools: Vec<bool>,
    enabled: bool,
}

fn group_plan() -> impl Strategy<Value = GroupPlan> {
    (
        0u8..3,
        any::<bool>(),
        0u8..3,
        prop::collection::vec(any::<bool>(), 0..4),
        any::<bool>(),
    )
        .prop_map(|(writer, guidance, guides, tools, enabled)| GroupPlan {
            writer,
            guidance,
            guides,
            tools,
            enabled,
        })
}

/// The group `i` of `plan`, every text of it carrying its own markers.
fn build(i: usize, plan: &GroupPlan) -> ToolGroup {
    let name = format!("g{i}");
    let mut group = ToolGroup::new(&name, marker(i, "title"), marker(i, "desc"));
    if plan.writer == 2 {
        group.said_by = Some(Source::McpServer {
            server: name.clone(),
        });
    }
    if plan.guidance {
        group = group.guidance(Guidance::Text(format!("Do this: {}", marker(i, "guid"))));
    }
    for g in 0..plan.guides {
        group = group.guide(Guide {
            name: marker(i, &format!("gn{g}")),
            desc: marker(i, &format!("gd{g}")),
            prompt: format!("Guide text {}", marker(i, &format!("gp{g}"))),
            when: Some(marker(i, &format!("gw{g}"))),
            always_load: g == 0,
        });
    }
    for (t, _) in plan.tools.iter().enumerate() {
        let schema = json!({
            "type": "object",
            "properties": {
                marker(i, &format!("pn{t}")): {
                    "type": "string",
                    "description": marker(i, &format!("pd{t}")),
                    "enum": [marker(i, &format!("pe{t}"))],
                    "default": marker(i, &format!("pf{t}")),
                    "examples": [marker(i, &format!("px{t}"))]
                }
            }
        });
        group = group.tool(Fixed(ToolSpec::new(
            format!("g{i}_t{t}"),
            marker(i, &format!("td{t}")),
            schema,
        )));
    }
    group
}

/// Every marker of group `i` in `text`.
fn markers_of(i: usize, text: &str) -> Vec<String> {
    let start = format!("qz{i}x");
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(&start) {
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(tail.len());
        out.push(tail[..end].to_string());
        rest = &tail[end..];
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, ..ProptestConfig::default() })]

    #[test]
    fn every_piece_of_a_request_has_its_writer_and_the_exposure_misses_none(
        plans in prop::collection::vec(group_plan(), 1..6)
    ) {
        let mut registry = Registry::new();
        for (i, plan) in plans.iter().enumerate() {
            registry.register_group(build(i, plan)).unwrap();
        }
        let groups: Vec<&ToolGroup> = registry
            .groups()
            .iter()
            .zip(&plans)
            .filter(|(_, p)| p.enabled)
            .map(|(g, _)| g)
            .collect();
        let enabled: Vec<String> = plans
            .iter()
            .enumerate()
            .filter(|(_, p)| p.enabled)
            .flat_map(|(i, p)| {
                p.tools
                    .iter()
                    .enumerate()
                    .filter(|(_, on)| **on)
                    .map(move |(t, _)| format!("g{i}_t{t}"))
            })
            .collect();
        let request = RequestLedger {
            system: prompt_ledger(&groups, &enabled),
            tools: crate::tool_executor::offered_tools(&registry, &enabled),
        };
        // What the model is sent: the system prompt and each definition.
        let system = request.system.text();
        let definitions: Vec<String> = request.tools.iter().map(|o| o.text()).collect();
        let sent = format!("{system}\n{}", definitions.join("\n"));
        let mut exposure = ExposureBuilder::new();
        exposure.add_request(&request);
        let exposure = exposure.snapshot();
        for (i, plan) in plans.iter().enumerate() {
            let sent_markers = markers_of(i, &sent);
            // A group that is off sends nothing; a tool that is off sends nothing.
            if !plan.enabled {
                prop_assert!(sent_markers.is_empty(), "group {i} is off: {sent_markers:?}");
                continue;
            }
            let server = Source::McpServer { server: format!("g{i}") };
            for m in &sent_markers {
                // Attributed to its writer, never to anyone else.
                for part in request.system.parts() {
                    if part.text.contains(m.as_str()) {
                        let expected = (plan.writer == 2).then_some(&server);
                        prop_assert_eq!(part.by.as_ref(), expected, "{} in {:?}", m, part);
                    }
                }
                for offered in &request.tools {
                    if offered.text().contains(m.as_str()) {
                        prop_assert_eq!(offered.by.as_ref(), (plan.writer == 2).then_some(&server));
                    }
                }
                // An untrusted writer's text that was sent is in the exposure, and found.
                if plan.writer == 2 {
                    prop_assert!(exposure.sources().contains(&server), "{server:?} missing");
                    let found = exposure.find(&format!("copied: {m}"));
                    prop_assert!(
                        found.iter().any(|(_, sources)| sources.contains(&server)),
                        "{m} not found in the exposure"
                    );
                }
            }
            // Trusted or confirmed text adds no source.
            if plan.writer != 2 {
                prop_assert!(!exposure.sources().contains(&server));
            }
            // An untrusted server with nothing sent is not counted; one with anything sent is.
            if plan.writer == 2 {
                prop_assert_eq!(
                    exposure.sources().contains(&server),
                    !sent_markers.is_empty()
                );
            }
        }
        // Every byte of the system prompt is a piece's: the prompt is the pieces, in order.
        let pieces: String = request.system.parts().iter().map(|p| p.text.as_str()).collect();
        prop_assert_eq!(pieces, system);
    }
}
