//! The explanation document: renderer-agnostic, versioned, deterministically ordered.
//! `-o json`/`-o yaml` print it as is; the table renders it. Nothing here formats text for a
//! terminal, but the scheduler's own messages (the FailedScheduling event) are built here,
//! exactly as upstream builds them, because they are data users match on.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::scheduler::inter_pod_affinity::TermTables;
use crate::scheduler::{
    Code, Evaluation, FilterDetails, PreFilterReport, PreScoreReport, ReportedStatus, ScoreDetails,
    Verdict,
};
use crate::state::PodRef;

pub const API_VERSION: &str = "kubectl-affinity.dev/v1alpha1";
pub const KIND: &str = "SchedulingExplanation";
/// The kube-scheduler release whose behaviour (plugins, reasons, defaults) is reproduced.
pub const KUBERNETES_VERSION: &str = "1.35";

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Explanation {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub pod: PodRef,
    /// Where the cluster state came from: `snapshot FILE` or `context NAME (SERVER)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub scheduler: SchedulerInfo,
    pub summary: Summary,
    pub pre_filter: Vec<PreFilterReport>,
    pub pre_score: Vec<PreScoreReport>,
    /// Candidates by total score (highest first, then by name), then nodes whose verdict is
    /// unknown, then rejected nodes by name.
    pub nodes: Vec<NodeReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_terms: Option<TermTables>,
    /// Things the user must know to read the result right (not evaluated plugins, quirks).
    pub notes: Vec<String>,
    /// Pod-level failures (PreScore errors...), in upstream's words.
    pub errors: Vec<String>,
    /// The scheduler's own last FailedScheduling event for the pod (explain, live), to set
    /// beside `summary.failedSchedulingMessage`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler_event: Option<SchedulerEvent>,
}

/// What the scheduler itself last wrote about the pod.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SchedulerEvent {
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_seen: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reported_by: Option<String>,
    /// Whether it says what we computed (its "preemption: ..." tail left aside).
    pub matches_computed: bool,
}

/// Whether the scheduler's event message says the same as ours. The event appends the
/// preemption outcome (". preemption: ..."), which we do not compute.
pub fn same_failure(event: &str, computed: Option<&str>) -> bool {
    let event = event.trim();
    let event = match event.find(" preemption: ") {
        Some(i) => &event[..i],
        None => event,
    };
    computed.is_some_and(|c| c.trim() == event)
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SchedulerInfo {
    pub kubernetes_version: &'static str,
    pub scheduler_name: String,
    pub profile_source: String,
    pub feature_gates: BTreeMap<String, bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub percentage_of_nodes_to_score: Option<i32>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub nodes: usize,
    pub feasible: usize,
    /// Nodes that passed every evaluated Filter but where some plugin was not evaluated.
    pub unknown: usize,
    /// The node(s) with the highest total among the candidates; several means a tie, which
    /// upstream breaks at random.
    pub selected: Vec<String>,
    /// What the scheduler would write in the FailedScheduling event when no node fits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_scheduling_message: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FilterEntry {
    pub plugin: String,
    /// `None` (null) when the plugin was not evaluated.
    pub pass: Option<bool>,
    pub reason: Option<String>,
    pub code: Option<Code>,
    pub skipped: bool,
    pub evaluated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<FilterDetails>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreEntry {
    pub plugin: String,
    pub raw: Option<i64>,
    pub normalized: Option<i64>,
    pub weight: i64,
    pub weighted: Option<i64>,
    pub skipped: bool,
    pub evaluated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<ScoreDetails>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeReport {
    pub name: String,
    /// True only when every enabled Filter plugin was evaluated and passed.
    pub feasible: bool,
    pub verdict: Verdict,
    /// The status the scheduler records for this node (first failure in profile order).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reported: Option<ReportedStatus>,
    pub filters: Vec<FilterEntry>,
    pub scores: Vec<ScoreEntry>,
    /// Total weighted score of the evaluated plugins; null for rejected nodes.
    pub score: Option<i64>,
    /// Whether every enabled score plugin was evaluated for this node.
    pub score_complete: bool,
    /// 1-based rank among candidates by score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<usize>,
}

/// Context the evaluation does not know: who the pod is and which profile ran.
#[derive(Debug, Clone)]
pub struct Context {
    pub pod: PodRef,
    pub scheduler: SchedulerInfo,
    pub notes: Vec<String>,
}

/// `FitError.Error()`: "0/N nodes are available: " then either the PreFilter message or the
/// histogram of node reasons ("2 node(s) ..., 1 ...", sorted as strings), ending with ".".
pub fn failed_scheduling_message(eval: &Evaluation) -> Option<String> {
    let n = eval.nodes.len();
    if eval.nodes.iter().any(|x| x.verdict != Verdict::Infeasible) {
        return None;
    }
    let mut msg = format!("0/{n} nodes are available:");
    let prefilter = eval
        .pre_filter
        .iter()
        .find(|p| p.result == "Rejected")
        .and_then(|p| p.status.as_ref());
    if let Some(s) = prefilter {
        msg.push_str(&format!(" {}.", s.message()));
        return Some(msg);
    }
    let mut histogram: BTreeMap<String, usize> = BTreeMap::new();
    for node in &eval.nodes {
        if let Some(r) = &node.reported {
            // Each reason of a multi-reason status counts on its own.
            for reason in node_reasons(node, r) {
                *histogram.entry(reason).or_default() += 1;
            }
        }
    }
    let mut parts: Vec<String> = histogram
        .into_iter()
        .map(|(reason, count)| format!("{count} {reason}"))
        .collect();
    parts.sort();
    msg.push_str(&format!(" {}.", parts.join(", ")));
    Some(msg)
}

fn node_reasons(node: &crate::scheduler::NodeResult, r: &ReportedStatus) -> Vec<String> {
    node.filters
        .iter()
        .find(|f| f.plugin == r.plugin)
        .and_then(|f| f.status.as_ref())
        .filter(|s| s.message() == r.reason)
        .map(|s| s.reasons.clone())
        .unwrap_or_else(|| vec![r.reason.clone()])
}

impl Explanation {
    pub fn new(eval: Evaluation, ctx: Context) -> Explanation {
        let failed_scheduling_message = failed_scheduling_message(&eval);
        let mut nodes: Vec<NodeReport> = eval
            .nodes
            .into_iter()
            .map(|n| {
                let score_complete = n.scores.iter().all(|s| s.not_evaluated.is_none());
                NodeReport {
                    feasible: n.verdict == Verdict::Feasible,
                    verdict: n.verdict,
                    reported: n.reported,
                    filters: n
                        .filters
                        .into_iter()
                        .map(|f| FilterEntry {
                            reason: f.status.as_ref().map(|s| s.message()),
                            code: f.status.as_ref().map(|s| s.code),
                            evaluated: f.not_evaluated.is_none(),
                            note: f.not_evaluated.or_else(|| {
                                f.skipped.then(|| {
                                    "PreFilter returned Skip: the scheduler does not run this Filter for the pod".to_string()
                                })
                            }),
                            plugin: f.plugin,
                            pass: f.pass,
                            skipped: f.skipped,
                            details: f.details,
                        })
                        .collect(),
                    scores: n
                        .scores
                        .into_iter()
                        .map(|s| ScoreEntry {
                            evaluated: s.not_evaluated.is_none(),
                            note: s.not_evaluated.or_else(|| {
                                s.skipped.then(|| {
                                    "PreScore returned Skip: the plugin adds nothing to any node's score".to_string()
                                })
                            }),
                            plugin: s.plugin,
                            raw: s.raw,
                            normalized: s.normalized,
                            weight: s.weight,
                            weighted: s.weighted,
                            skipped: s.skipped,
                            details: s.details,
                        })
                        .collect(),
                    score: n.total,
                    score_complete,
                    rank: None,
                    name: n.name,
                }
            })
            .collect();
        let group = |v: Verdict| match v {
            Verdict::Feasible => 0,
            Verdict::Unknown => 1,
            Verdict::Infeasible => 2,
        };
        nodes.sort_by(|a, b| {
            group(a.verdict)
                .cmp(&group(b.verdict))
                .then(b.score.cmp(&a.score))
                .then(a.name.cmp(&b.name))
        });
        let mut rank = 0;
        let mut last = None;
        for (i, n) in nodes.iter_mut().enumerate() {
            if n.verdict == Verdict::Infeasible {
                continue;
            }
            if last != Some(n.score) {
                rank = i + 1;
                last = Some(n.score);
            }
            n.rank = Some(rank);
        }
        let best = nodes
            .first()
            .filter(|n| n.verdict != Verdict::Infeasible)
            .and_then(|n| n.score);
        let selected = nodes
            .iter()
            .filter(|n| n.verdict != Verdict::Infeasible && n.score == best)
            .map(|n| n.name.clone())
            .collect();
        Explanation {
            api_version: API_VERSION,
            kind: KIND,
            pod: ctx.pod,
            source: None,
            scheduler: ctx.scheduler,
            summary: Summary {
                nodes: nodes.len(),
                feasible: nodes
                    .iter()
                    .filter(|n| n.verdict == Verdict::Feasible)
                    .count(),
                unknown: nodes
                    .iter()
                    .filter(|n| n.verdict == Verdict::Unknown)
                    .count(),
                selected,
                failed_scheduling_message,
            },
            pre_filter: eval.pre_filter,
            pre_score: eval.pre_score,
            nodes,
            pod_terms: eval.pod_terms,
            notes: ctx.notes,
            errors: eval.errors,
            scheduler_event: None,
        }
    }
}
