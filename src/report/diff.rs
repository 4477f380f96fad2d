//! What edits to try change (`--diff`): the evaluation of the edited cluster set against the
//! cluster as read, per node and in the summary; for `audit`, which pods start or stop being
//! Pending or breaking their rules.

use std::collections::BTreeSet;

use serde::Serialize;

use super::Explanation;
use super::audit::{Audit, AuditSummary};
use crate::scheduler::{ReportedStatus, Verdict};

/// A document with what the edits change beside it: `-o json` writes the document's fields,
/// then `diff`.
#[derive(Debug, Serialize)]
pub struct WithDiff<'a, T, D> {
    #[serde(flatten)]
    pub doc: &'a T,
    pub diff: &'a D,
}

/// A pod's evaluation before and after the edits.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExplanationDiff {
    /// The edits, as the flags gave them.
    pub edits: Vec<String>,
    pub before: SummaryBefore,
    /// The nodes whose verdict or recorded reason changes (a node the edits add has no
    /// `before`).
    pub nodes: Vec<NodeChange>,
}

/// The summary of the unedited cluster's evaluation.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryBefore {
    pub nodes: usize,
    pub feasible: usize,
    pub unknown: usize,
    pub selected: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_scheduling_message: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeChange {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Verdict>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_reason: Option<String>,
    pub after: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_reason: Option<String>,
}

impl ExplanationDiff {
    /// `after` set against `before`, the same pod on the unedited cluster.
    pub fn new(edits: Vec<String>, before: &Explanation, after: &Explanation) -> ExplanationDiff {
        let reason = |r: &Option<ReportedStatus>| r.as_ref().map(|r| r.reason.to_string());
        let mut nodes: Vec<NodeChange> = after
            .nodes
            .iter()
            .filter_map(|a| {
                let b = before.nodes.iter().find(|b| b.name == a.name);
                let changed = b.is_none_or(|b| {
                    b.verdict != a.verdict || reason(&b.reported) != reason(&a.reported)
                });
                changed.then(|| NodeChange {
                    name: a.name.to_string(),
                    before: b.map(|b| b.verdict),
                    before_reason: b.and_then(|b| reason(&b.reported)),
                    after: a.verdict,
                    after_reason: reason(&a.reported),
                })
            })
            .collect();
        nodes.sort_by(|x, y| x.name.cmp(&y.name));
        let s = &before.summary;
        ExplanationDiff {
            edits,
            before: SummaryBefore {
                nodes: s.nodes,
                feasible: s.feasible,
                unknown: s.unknown,
                selected: s.selected.clone(),
                failed_scheduling_message: s.failed_scheduling_message.clone(),
            },
            nodes,
        }
    }
}

/// An audit before and after the edits.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditDiff {
    pub edits: Vec<String>,
    pub before: AuditSummary,
    /// `namespace/name` of the pods Pending after the edits and not before, and so on.
    pub now_pending: Vec<String>,
    pub no_longer_pending: Vec<String>,
    pub now_violating: Vec<String>,
    pub no_longer_violating: Vec<String>,
}

impl AuditDiff {
    pub fn new(edits: Vec<String>, before: &Audit, after: &Audit) -> AuditDiff {
        let pending = |a: &Audit| -> BTreeSet<String> {
            a.pending
                .iter()
                .flatten()
                .flat_map(|g| {
                    g.pods
                        .iter()
                        .map(move |p| format!("{}/{}", g.namespace, p.name))
                })
                .collect()
        };
        let violating = |a: &Audit| -> BTreeSet<String> {
            a.violating
                .iter()
                .flatten()
                .map(|v| v.pod.clone())
                .collect()
        };
        let (pb, pa) = (pending(before), pending(after));
        let (vb, va) = (violating(before), violating(after));
        AuditDiff {
            edits,
            before: before.summary.clone(),
            now_pending: pa.difference(&pb).cloned().collect(),
            no_longer_pending: pb.difference(&pa).cloned().collect(),
            now_violating: va.difference(&vb).cloned().collect(),
            no_longer_violating: vb.difference(&va).cloned().collect(),
        }
    }
}
