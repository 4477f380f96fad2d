//! NodeResourcesBalancedAllocation's explanation: the utilisation fractions and their spread
//! in the drill-down's resources.

use crate::scheduler::details::ScoreDetails;
use crate::scheduler::explain::{Explain, Paint, Section, Tables, amount};
use crate::scheduler::result::ScoreResult;

#[derive(Debug)]
pub struct Explainer;

impl Explain for Explainer {
    fn short_name(&self) -> Option<&'static str> {
        Some("balanced")
    }

    fn section(&self) -> Section {
        Section::Resources
    }

    fn score_lines(&self, s: ScoreResult<'_>, _: Tables<'_>, _: &dyn Paint) -> Vec<String> {
        let (Some(ScoreDetails::BalancedAllocation(d)), Some(raw)) = (s.details, s.raw) else {
            return Vec::new();
        };
        let parts: Vec<String> = d
            .fractions
            .iter()
            .map(|f| match f.fraction {
                Some(x) => format!(
                    "{} {}/{} = {:.0}%",
                    f.resource,
                    amount(&f.resource, f.requested),
                    amount(&f.resource, f.allocatable),
                    x * 100.0
                ),
                None => format!("{} left out", f.resource),
            })
            .collect();
        vec![
            format!("    {} score {raw}:", s.plugin),
            format!(
                "      utilisation with the pod: {}; spread (std dev) {:.3}",
                parts.join(", "),
                d.std_dev
            ),
        ]
    }
}
