//! NodeUnschedulable's explanation: the cordon in the TAINTS column, `spec.unschedulable` in
//! the drill-down, uncordoning as the change.

use std::fmt;

use super::Change;
use crate::scheduler::details::{Change as AnyChange, FilterDetails};
use crate::scheduler::explain::{Column, Explain, Mark, NodeEntries, Paint, Peers, Tables};
use crate::scheduler::plugin_id::PluginId;
use crate::scheduler::result::FilterResult;
use crate::state::Pod;

#[derive(Debug)]
pub struct Explainer;

impl Explain for Explainer {
    fn columns(&self) -> &'static [Column] {
        &[Column::Taints]
    }

    fn cell(&self, _: Column, node: NodeEntries<'_>, _: Tables<'_>) -> Option<Mark> {
        let f = node.filter(&PluginId::NodeUnschedulable)?;
        Some(match f.pass {
            Some(false) => Mark::Fails("✗ cordoned".to_string()),
            None => Mark::Unknown,
            Some(true) => Mark::Passes(None),
        })
    }

    fn filter_lines(&self, f: FilterResult<'_>, _: Tables<'_>, _: &dyn Paint) -> Vec<String> {
        match f.details {
            Some(FilterDetails::NodeUnschedulable(d)) if d.unschedulable => vec![format!(
                "      node is cordoned (spec.unschedulable); toleration: {}",
                d.tolerated_by
                    .map(|i| format!("[{i}]"))
                    .unwrap_or_else(|| "none".into())
            )],
            _ => Vec::new(),
        }
    }

    fn suggestions(
        &self,
        _: FilterResult<'_>,
        _: &Pod,
        _: Tables<'_>,
        _: &Peers<'_>,
    ) -> Vec<AnyChange> {
        vec![Change::Uncordon.into()]
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::Uncordon => f.write_str("uncordon the node (kubectl uncordon)"),
        }
    }
}
