//! VolumeRestrictions' explanation: conflicting disks and ReadWriteOncePod claims in use, in
//! the drill-down's volumes.

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
            Some(FilterDetails::VolumeRestrictions(d))
                if !d.disk_conflicts.is_empty() || !d.claims_in_use.is_empty() =>
            {
                d
            }
            _ => return Vec::new(),
        };
        let mut out = vec![format!("    {}", f.plugin)];
        for c in &d.disk_conflicts {
            out.push(format!(
                "      {} {} is mounted by {}",
                p.check(false),
                c.disk.describe(),
                c.pod
            ));
        }
        for c in &d.claims_in_use {
            let pods: Vec<String> = c.pods.iter().map(ToString::to_string).collect();
            out.push(format!(
                "      {} claim {} is ReadWriteOncePod and used by {}",
                p.check(false),
                c.claim,
                pods.join(", ")
            ));
        }
        out
    }
}
