//! NodeName's explanation: the pod's `spec.nodeName` in the drill-down.

use crate::scheduler::details::FilterDetails;
use crate::scheduler::explain::{Explain, Paint, Tables};
use crate::scheduler::result::FilterResult;

#[derive(Debug)]
pub struct Explainer;

impl Explain for Explainer {
    fn filter_lines(&self, f: FilterResult<'_>, _: Tables<'_>, _: &dyn Paint) -> Vec<String> {
        match f.details {
            Some(FilterDetails::NodeName(d)) => d
                .requested
                .iter()
                .map(|r| format!("      spec.nodeName: {r}"))
                .collect(),
            _ => Vec::new(),
        }
    }
}
