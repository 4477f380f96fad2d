//! VolumeZone's explanation: the volumes' zone labels against the node's, in the
//! drill-down's volumes.

use crate::scheduler::details::FilterDetails;
use crate::scheduler::explain::{Explain, Paint, Section, Tables, node_has};
use crate::scheduler::result::FilterResult;

#[derive(Debug)]
pub struct Explainer;

impl Explain for Explainer {
    fn section(&self) -> Section {
        Section::Volumes
    }

    fn filter_lines(&self, f: FilterResult<'_>, _: Tables<'_>, p: &dyn Paint) -> Vec<String> {
        let d = match f.details {
            Some(FilterDetails::VolumeZone(d)) if !d.checks.is_empty() => d,
            _ => return Vec::new(),
        };
        let mut out = vec![format!("    {}", f.plugin)];
        if d.node_unzoned {
            out.push("      the node has no zone or region label: any volume zone fits".into());
        }
        for c in &d.checks {
            out.push(format!(
                "      {} volume {} (claim {}) {} in [{}]; {}",
                p.check(c.matched || d.node_unzoned),
                c.topology.volume,
                c.topology.claim,
                c.topology.key,
                c.topology.values.join(", "),
                node_has(c.topology.key, c.node_value.as_deref())
            ));
        }
        out
    }
}
