//! A row per pod when `explain` is given several (a workload's, or a selector's); made from
//! each pod's explanation by `audit::pod_row`.

use serde::Serialize;

/// One of several pods explained at once (`explain deploy/NAME`, `explain -l SELECTOR`): where
/// it is and what the scheduler would say of it now.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodRow {
    pub name: String,
    /// The node it is bound to; absent while Pending.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    pub phase: String,
    /// Pending: what the scheduler would write in the FailedScheduling event now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_scheduling_message: Option<String>,
    /// Pending: the node(s) the scheduler would pick now.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub selected: Vec<String>,
    /// Running: every Filter reason that rejects its node today (empty when it still passes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_reasons: Option<Vec<String>>,
    /// Whether this row's pod is the one explained in full.
    pub explained: bool,
}
