//! ImageLocality's explanation: each of the pod's images on the node, with what it scores, in
//! the drill-down's resources.

use crate::scheduler::details::ScoreDetails;
use crate::scheduler::explain::{Explain, Paint, Section, Tables, amount};
use crate::scheduler::result::ScoreResult;

#[derive(Debug)]
pub struct Explainer;

impl Explain for Explainer {
    fn short_name(&self) -> Option<&'static str> {
        Some("image")
    }

    fn section(&self) -> Section {
        Section::Resources
    }

    fn score_lines(&self, s: ScoreResult<'_>, _: Tables<'_>, _: &dyn Paint) -> Vec<String> {
        let (Some(ScoreDetails::ImageLocality(d)), Some(raw)) = (s.details, s.raw) else {
            return Vec::new();
        };
        let mut out = vec![format!("    {} score {raw}:", s.plugin)];
        for i in &d.images {
            out.push(match (i.present, i.size_bytes, i.nodes_with_image) {
                (true, Some(size), Some(nodes)) => format!(
                    "      {} present ({}, on {nodes} of {} nodes -> {})",
                    i.normalized,
                    amount("memory", size),
                    d.total_nodes,
                    amount("memory", i.scaled_score)
                ),
                _ => format!("      {} not on this node", i.normalized),
            });
        }
        out
    }
}
