//! NodeDeclaredFeatures' explanation: "✗ node features" in OTHER; the features the pod needs
//! and those the node does not declare in the drill-down.

use crate::scheduler::details::FilterDetails;
use crate::scheduler::explain::{Explain, Paint, Tables};
use crate::scheduler::result::FilterResult;

#[derive(Debug)]
pub struct Explainer;

impl Explain for Explainer {
    fn failed(&self, _: FilterResult<'_>) -> String {
        "✗ node features".to_string()
    }

    fn filter_lines(&self, f: FilterResult<'_>, _: Tables<'_>, p: &dyn Paint) -> Vec<String> {
        let Some(FilterDetails::NodeDeclaredFeatures(d)) = f.details else {
            return Vec::new();
        };
        let mut out = vec![format!(
            "    {}: the pod needs {}",
            f.plugin,
            d.required.join(", ")
        )];
        out.extend(d.required.iter().map(|r| {
            let declared = !d.missing.contains(r);
            format!(
                "      {} {r} {} in the node's status.declaredFeatures",
                p.check(declared),
                if declared { "is" } else { "is not" }
            )
        }));
        out
    }
}
