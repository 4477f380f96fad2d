//! NodeVolumeLimits' explanation: the attach counts per CSI driver against the node's
//! limits, in the drill-down's volumes.

use crate::scheduler::details::FilterDetails;
use crate::scheduler::explain::{Explain, Paint, Section, Tables};
use crate::scheduler::result::FilterResult;

#[derive(Debug)]
pub struct Explainer;

impl Explain for Explainer {
    fn section(&self) -> Section {
        Section::Volumes
    }

    fn filter_lines(&self, f: FilterResult<'_>, _: Tables<'_>, p: &dyn Paint) -> Vec<String> {
        let d = match f.details {
            Some(FilterDetails::NodeVolumeLimits(d)) if !d.counts.is_empty() => d,
            _ => return Vec::new(),
        };
        let mut out = vec![format!("    {}", f.plugin)];
        for c in &d.counts {
            let limit = c
                .limit
                .map_or_else(|| "no limit".to_string(), |l| format!("limit {l}"));
            out.push(format!(
                "      {} {}: {} attached + {} new, {limit}",
                p.check(!(c.new > 0 && c.exceeded())),
                c.driver,
                c.attached,
                c.new
            ));
        }
        out
    }
}
