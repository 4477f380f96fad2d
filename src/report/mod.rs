//! The explanation document: renderer-agnostic, versioned, deterministically ordered.
//! `-o json`/`-o yaml` print it as is; the table renders it. Nothing here formats text for a
//! terminal, but the scheduler's own messages (the FailedScheduling event) are built here,
//! exactly as upstream builds them, because they are data users match on.
//!
//! The document is built from the evaluation: the plugins' details and tables are their own
//! types, written as they are; the extension points' entries are written as `entries`
//! shapes them; the notes in `notes` (data; their words are render/'s). `context` decides
//! which notes apply.

use std::sync::Arc;

use serde::Serialize;

use crate::scheduler::explain::{NodeEntries, Peers, Tables};
use crate::scheduler::inter_pod_affinity::TermTables;
use crate::scheduler::pod_topology_spread::SpreadTables;
use crate::scheduler::{
    Entries, Evaluation, FilterCell, NodeResult, Nominated, PluginId, PreFilterReport,
    PreScoreReport, ReportedStatus, ScoreCell, Scoring, Verdict, fit_error_message,
};
use crate::state::PodRef;

pub mod audit;
mod context;
pub mod diff;
mod entries;
mod notes;
pub mod pods;
pub mod suggestions;
pub mod workload;

pub use context::{Context, KUBERNETES_VERSION, Manifest, SchedulerInfo, Subject, Unevaluated};
pub use entries::PostFilterEntry;
pub use notes::{DaemonTolerations, Lint, Note, Refusal, RejectedMost, Unplaced, UpdateRule};

pub const API_VERSION: &str = "kubectl-affinity.dev/v1alpha1";
pub const KIND: &str = "SchedulingExplanation";

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
    /// PostFilter plugins (only when no node can take the pod): the tail of the
    /// FailedScheduling message.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub post_filter: Vec<PostFilterEntry>,
    /// For a pod that runs already: its node, judged as if it were scheduled today.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current: Option<CurrentNode>,
    /// For a DaemonSet: where its controller would create pods and where they would run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub daemon_set: Option<DaemonSetPlacement>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topology_spread: Option<SpreadTables>,
    /// Things the user must know to read the result right (not evaluated plugins, quirks).
    pub notes: Vec<Note>,
    /// Pod-level failures (PreScore errors...), in upstream's words.
    pub errors: Vec<String>,
    /// The scheduler's own last FailedScheduling event for the pod (explain, live), to set
    /// beside `summary.failedSchedulingMessage`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler_event: Option<SchedulerEvent>,
    /// `whatif` of a workload: where each replica goes (this document explains one of them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<workload::WorkloadReport>,
    /// `explain` of several pods (a workload's, or a selector's): a row each; this document
    /// explains the one marked `explained`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pods: Vec<pods::PodRow>,
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
    /// Whether it says what we computed (to the end where our message is complete, else as
    /// far as ours goes).
    pub matches_computed: bool,
}

/// The node `asked` names among `names` (`--node`): the one of that name, else the only one
/// whose name starts with it (a table shows long names shortened); `Err` with the names it
/// starts when several do (none: no node).
pub fn node_named<'a>(
    names: impl Iterator<Item = &'a str> + Clone,
    asked: &str,
) -> Result<&'a str, Vec<String>> {
    if let Some(name) = names.clone().find(|n| *n == asked) {
        return Ok(name);
    }
    let mut starting = names.filter(|n| n.starts_with(asked));
    match (starting.next(), starting.clone().next()) {
        (Some(only), None) => Ok(only),
        (None, _) => Err(Vec::new()),
        (Some(first), Some(_)) => {
            let mut all = vec![first.to_string()];
            all.extend(starting.map(str::to_string));
            Err(all)
        }
    }
}

/// Whether the scheduler's event message says the same as ours. Where our message is
/// incomplete (preemption's dry run not simulated), the event only has to start with it.
fn same_failure(event: &str, computed: Option<&str>, complete: bool) -> bool {
    let event = event.trim();
    computed.is_some_and(|c| {
        let c = c.trim();
        // An incomplete message lacks the preemption tail the scheduler appended.
        if complete {
            event == c
        } else {
            event.starts_with(c)
        }
    })
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Why the scheduler would not place the pod at all (the evaluation below is what it
    /// would decide if it tried); empty for a pod it would try to place.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_scheduled: Vec<Unplaced>,
    pub nodes: usize,
    pub feasible: usize,
    /// Nodes that passed every evaluated Filter but where some plugin was not evaluated.
    pub unknown: usize,
    /// Whether the scheduler runs PreScore and Score in this cycle; when it does not, the
    /// nodes' scores are computed for reference only.
    pub scoring: Scoring,
    /// The node(s) the scheduler would pick: the only candidate, or those with the highest
    /// total (several means a tie, which upstream breaks at random); none when the cycle
    /// fails or ends with an error.
    pub selected: Vec<String>,
    /// What the scheduler would write in the FailedScheduling event when no node fits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_scheduling_message: Option<String>,
    /// False when part of that message (a PostFilter plugin's) could not be evaluated: the
    /// real message has more after what is shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_scheduling_message_complete: Option<bool>,
    /// When no node can take the pod: the nodes closest to taking it (fewest failing
    /// rules), by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub closest: Vec<String>,
    /// When no node or only a few can take the pod: the rule that rejects the most nodes
    /// and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rejected_most: Option<RejectedMost>,
}

/// A running pod's node. Scheduling rules are IgnoredDuringExecution: a pod keeps running
/// where its node no longer satisfies them; this says whether it still would be placed there.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CurrentNode {
    pub node: String,
    /// False when the node is not in the cluster state any more.
    pub in_cluster: bool,
    /// The node's verdict today, the pod itself left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// Every Filter reason that rejects the node today (empty when it still passes).
    pub reasons: Vec<String>,
    /// 1-based rank among the candidates (ties share a rank).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<usize>,
    /// How many nodes are candidates (feasible or unknown).
    pub candidates: usize,
    /// Whether the node has the highest total (alone or in a tie).
    pub best: bool,
}

/// A DaemonSet's pods are created by its controller, one per node, pinned to that node with a
/// `metadata.name` node-affinity field and given the daemon tolerations. The controller skips
/// nodes whose node selector/affinity or NoSchedule/NoExecute taints reject the pod; the
/// scheduler then only places each pod on its own node.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DaemonSetPlacement {
    /// Nodes where the pod would be created and scheduled.
    pub runs: Vec<String>,
    /// Nodes where the pod would be created but stay Pending (another filter rejects it).
    pub pending: Vec<String>,
    /// Nodes where the controller creates no pod.
    pub not_created: Vec<String>,
    /// Nodes whose verdict depends on a plugin that was not evaluated.
    pub unknown: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeReport {
    pub name: Arc<str>,
    /// True only when every enabled Filter plugin was evaluated and passed.
    pub feasible: bool,
    pub verdict: Verdict,
    /// The status the scheduler records for this node (first failure in profile order).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reported: Option<ReportedStatus>,
    /// One entry per Filter plugin, in profile order.
    #[serde(serialize_with = "entries::filters")]
    pub filters: Entries<FilterCell>,
    /// One entry per Score plugin (empty for rejected nodes).
    #[serde(serialize_with = "entries::scores")]
    pub scores: Entries<ScoreCell>,
    /// Total weighted score of the evaluated plugins; null for rejected nodes.
    pub score: Option<i64>,
    /// Whether every enabled score plugin was evaluated for this node.
    pub score_complete: bool,
    /// 1-based rank among candidates by score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<usize>,
    /// Pods nominated to this node that the pod must yield to, counted in a first Filter
    /// pass (absent when there are none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nominated_pods: Option<NominatedPods>,
    /// What would make a rejected node take the pod, per failing rule (see
    /// [`Explanation::suggest`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<suggestions::Suggestion>,
    /// Fields a plugin adds to the node of its own (DynamicResources' `dra`).
    #[serde(flatten)]
    pub own: std::collections::BTreeMap<&'static str, serde_json::Value>,
}

/// The pods nominated to a node (by an earlier preemption) whose priority is at least the
/// pod's: the scheduler filters the node first with them counted as running there, then
/// without; the node must pass both.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NominatedPods {
    /// `namespace/name` of each.
    pub pods: Vec<String>,
    /// The Filter entries that fail with them counted, in profile order (the first is what
    /// the scheduler records); empty when the node passes with them.
    #[serde(serialize_with = "entries::failed_filters")]
    pub failed: Entries<FilterCell>,
}

impl From<Nominated> for NominatedPods {
    fn from(n: Nominated) -> NominatedPods {
        NominatedPods {
            pods: n.pods.iter().map(|p| p.to_string()).collect(),
            failed: n.filters,
        }
    }
}

/// `FitError.Error()`: the reasons (see [`fit_error_message`]), then the PostFilter plugins'
/// messages joined with ", ". Returns the message and whether it is complete (every PostFilter
/// plugin was evaluated).
pub fn failed_scheduling_message(eval: &Evaluation) -> Option<(String, bool)> {
    // An error ends the cycle instead (a Filter's, or with feasible nodes a Score's).
    if !eval.errors.is_empty() || eval.nodes.iter().any(|x| x.verdict != Verdict::Infeasible) {
        return None;
    }
    let prefilter = eval
        .pre_filter
        .iter()
        .find(|p| p.result == "Rejected")
        .and_then(|p| p.status.as_ref())
        .map(|s| s.message());
    let reasons: Vec<String> = eval
        .nodes
        .iter()
        .filter_map(|node| node.reported.as_ref().map(|r| node_reasons(node, r)))
        .flatten()
        .collect();
    let mut msg = fit_error_message(
        eval.nodes.len(),
        prefilter.as_deref(),
        reasons.iter().map(String::as_str),
    );
    let tail: Vec<&str> = eval
        .post_filter
        .iter()
        .filter_map(|p| p.message.as_deref())
        .collect();
    if !tail.is_empty() {
        msg.push(' ');
        msg.push_str(&tail.join(", "));
    }
    Some((
        msg,
        eval.post_filter
            .iter()
            .all(|p| p.evaluated || p.note.is_none()),
    ))
}

/// The reasons of the status recorded for a node, each on its own: the failing plugin's, from
/// the Filter pass with the pods nominated to the node when that pass failed.
fn node_reasons(node: &NodeResult, r: &ReportedStatus) -> Vec<String> {
    let nominated = node.nominated.iter().flat_map(|n| n.filters.iter());
    nominated
        .chain(node.filters.iter())
        .filter(|f| r.plugin.as_ref() == Some(f.plugin))
        .filter_map(|f| f.status)
        .find(|s| s.message() == r.reason)
        .map(|s| s.reasons.iter().map(|r| r.to_string()).collect())
        .unwrap_or_else(|| vec![r.reason.to_string()])
}

impl NodeReport {
    /// The node's entries, as the plugins' explanations read them.
    pub fn entries(&self) -> NodeEntries<'_> {
        NodeEntries {
            filters: &self.filters,
            scores: &self.scores,
        }
    }
}

impl Explanation {
    /// The tables the plugins add beside the nodes, as their explanations read them.
    pub fn tables(&self) -> Tables<'_> {
        Tables {
            pod_terms: self.pod_terms.as_ref(),
            topology_spread: self.topology_spread.as_ref(),
        }
    }

    /// Sets the scheduler's own last FailedScheduling event beside the computed message, with
    /// a note when the two differ.
    pub fn set_scheduler_event(
        &mut self,
        message: String,
        last_seen: Option<String>,
        count: Option<i32>,
        reported_by: Option<String>,
    ) {
        let matches_computed = same_failure(
            &message,
            self.summary.failed_scheduling_message.as_deref(),
            self.summary.failed_scheduling_message_complete != Some(false),
        );
        if !matches_computed {
            self.notes.push(Note::EventDiffers {
                last_seen: last_seen.clone(),
            });
        }
        self.scheduler_event = Some(SchedulerEvent {
            message,
            last_seen,
            count,
            reported_by,
            matches_computed,
        });
    }

    /// Adds what would make each rejected node take `pod` (the pod evaluated), and, when no
    /// node can, the closest nodes: those with the fewest failing Filter plugins.
    pub fn suggest(&mut self, pod: &crate::state::Pod) {
        let tables = Tables {
            pod_terms: self.pod_terms.as_ref(),
            topology_spread: self.topology_spread.as_ref(),
        };
        let made: Vec<Vec<suggestions::Suggestion>> = {
            let peers = Peers::new(self.nodes.iter().map(|n| (&*n.name, &n.filters)).collect());
            self.nodes
                .iter()
                .map(|n| match n.verdict {
                    Verdict::Infeasible => suggestions::for_node(&n.filters, pod, tables, &peers),
                    _ => Vec::new(),
                })
                .collect()
        };
        for (n, s) in self.nodes.iter_mut().zip(made) {
            n.suggestions = s;
        }
        if self.summary.feasible > 0 || self.summary.unknown > 0 {
            return;
        }
        let failing = |n: &NodeReport| n.filters.iter().filter(|f| f.pass == Some(false)).count();
        let fewest = self.nodes.iter().map(failing).min();
        let mut closest: Vec<String> = self
            .nodes
            .iter()
            .filter(|n| Some(failing(n)) == fewest)
            .map(|n| n.name.to_string())
            .collect();
        closest.sort();
        self.summary.closest = closest;
    }

    pub fn new(eval: Evaluation, ctx: Context) -> Explanation {
        let failed = if ctx.daemon_set {
            None
        } else {
            failed_scheduling_message(&eval)
        };
        let group = |v: Verdict| -> u8 {
            match v {
                Verdict::Feasible => 0,
                Verdict::Unknown => 1,
                Verdict::Infeasible => 2,
            }
        };
        // The order is decided on compact keys, then each node is moved once: sorting the
        // node reports themselves would move large values many times each. The key packs
        // (verdict group, score descending with none last, name rank) into one integer, which
        // compares in one instruction where a tuple compares field by field.
        let key = |n: &NodeResult| -> u128 {
            let total = match n.total {
                // 0 ..= 2^64 - 1, the highest score first.
                Some(t) => (i128::from(i64::MAX) - i128::from(t)) as u128,
                None => 1 << 64,
            };
            (u128::from(group(n.verdict)) << 100) | (total << 32) | u128::from(n.name_rank)
        };
        let mut order: Vec<(u128, u32)> = eval
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (key(n), u32::try_from(i).unwrap_or(u32::MAX)))
            .collect();
        order.sort_unstable();
        // Ranks are distinct for distinct names; equal ones (a state built without ranks)
        // fall back on the names, then on the input order, as before.
        for run in order.chunk_by_mut(|a, b| a.0 == b.0) {
            if run.len() > 1 {
                run.sort_by(|x, y| {
                    eval.nodes[x.1 as usize]
                        .name
                        .cmp(&eval.nodes[y.1 as usize].name)
                        .then(x.1.cmp(&y.1))
                });
            }
        }
        let mut slots: Vec<Option<NodeResult>> = eval.nodes.into_iter().map(Some).collect();
        let mut nodes: Vec<NodeReport> = Vec::with_capacity(slots.len());
        nodes.extend(
            order
                .into_iter()
                .filter_map(|(_, i)| slots[i as usize].take())
                .map(|n| NodeReport {
                    own: n
                        .filters
                        .iter()
                        .filter_map(|f| crate::scheduler::explain_of(f.plugin).node_fields(f))
                        .collect(),
                    feasible: n.verdict == Verdict::Feasible,
                    verdict: n.verdict,
                    reported: n.reported,
                    filters: n.filters,
                    scores: n.scores,
                    score: n.total,
                    score_complete: n.score_complete,
                    rank: None,
                    nominated_pods: n.nominated.map(|b| NominatedPods::from(*b)),
                    suggestions: Vec::new(),
                    name: n.name,
                }),
        );
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
        // A cycle that ends with an error binds the pod nowhere (`schedulingCycle`).
        let selected: Vec<String> = if ctx.daemon_set || !eval.errors.is_empty() {
            Vec::new()
        } else if let Some(node) = &eval.nominated_node {
            vec![node.to_string()]
        } else {
            nodes
                .iter()
                .filter(|n| n.verdict != Verdict::Infeasible && n.score == best)
                .map(|n| n.name.to_string())
                .collect()
        };
        let candidates = nodes
            .iter()
            .filter(|n| n.verdict != Verdict::Infeasible)
            .count();
        let current = ctx.current_node.as_ref().map(|name| {
            let report = nodes.iter().find(|n| *n.name == **name);
            CurrentNode {
                node: name.clone(),
                in_cluster: report.is_some(),
                verdict: report.map(|n| n.verdict),
                reasons: report
                    .map(|n| {
                        n.filters
                            .iter()
                            .filter(|f| f.pass == Some(false))
                            .filter_map(|f| f.reason())
                            .collect()
                    })
                    .unwrap_or_default(),
                rank: report.and_then(|n| n.rank),
                candidates,
                best: selected.contains(name),
            }
        });
        let daemon_set = ctx.daemon_set.then(|| daemon_set_placement(&nodes));
        // A DaemonSet's pods are each pinned to one node: no rule "rejects most nodes".
        let rejected_most = if ctx.daemon_set {
            None
        } else {
            let rejected: Vec<notes::Rejected> = nodes
                .iter()
                .filter(|n| n.verdict == Verdict::Infeasible)
                .map(|n| notes::Rejected {
                    reported: n.reported.as_ref(),
                    filters: &n.filters,
                })
                .collect();
            let tables = Tables {
                pod_terms: eval.pod_terms.as_ref(),
                topology_spread: eval.topology_spread.as_ref(),
            };
            RejectedMost::of(&rejected, nodes.len(), tables)
        };
        let scoring = eval.scoring;
        let mut notes = ctx.notes;
        let scored = nodes.iter().any(|n| n.score.is_some());
        match scoring {
            _ if ctx.daemon_set || !scored => {}
            Scoring::Ran => {}
            Scoring::NotRun if eval.nominated_node.is_some() => {
                notes.push(Note::NominatedNodeFirst)
            }
            Scoring::NotRun => notes.push(Note::OneFeasibleNotScored),
            Scoring::StoppedAtPreScore => notes.push(Note::PreScoreEndsCycle),
        }
        Explanation {
            api_version: API_VERSION,
            kind: KIND,
            pod: ctx.pod,
            source: None,
            scheduler: ctx.scheduler,
            summary: Summary {
                not_scheduled: ctx.not_scheduled,
                nodes: nodes.len(),
                feasible: nodes
                    .iter()
                    .filter(|n| n.verdict == Verdict::Feasible)
                    .count(),
                unknown: nodes
                    .iter()
                    .filter(|n| n.verdict == Verdict::Unknown)
                    .count(),
                scoring,
                selected,
                failed_scheduling_message_complete: failed.as_ref().map(|(_, c)| *c),
                closest: Vec::new(),
                rejected_most,
                failed_scheduling_message: failed.map(|(m, _)| m),
            },
            pre_filter: eval.pre_filter,
            pre_score: eval.pre_score,
            nodes,
            pod_terms: eval.pod_terms,
            post_filter: if ctx.daemon_set {
                Vec::new()
            } else {
                eval.post_filter
                    .into_iter()
                    .map(PostFilterEntry::from)
                    .collect()
            },
            current,
            daemon_set,
            topology_spread: eval.topology_spread,
            notes,
            errors: eval.errors,
            scheduler_event: None,
            workload: None,
            pods: Vec::new(),
        }
    }
}

/// Plugins whose rejection means the DaemonSet controller creates no pod on the node
/// (`NodeShouldRunDaemonPod`: node name, node selector/affinity, taints).
const DAEMON_PREDICATES: [PluginId; 3] = [
    PluginId::NodeName,
    PluginId::NodeAffinity,
    PluginId::TaintToleration,
];

fn daemon_set_placement(nodes: &[NodeReport]) -> DaemonSetPlacement {
    let mut out = DaemonSetPlacement {
        runs: Vec::new(),
        pending: Vec::new(),
        not_created: Vec::new(),
        unknown: Vec::new(),
    };
    for n in nodes {
        let skipped_by_controller = n
            .filters
            .iter()
            .any(|f| f.pass == Some(false) && DAEMON_PREDICATES.contains(f.plugin));
        let list = if skipped_by_controller {
            &mut out.not_created
        } else {
            match n.verdict {
                Verdict::Feasible => &mut out.runs,
                Verdict::Infeasible => &mut out.pending,
                Verdict::Unknown => &mut out.unknown,
            }
        };
        list.push(n.name.to_string());
    }
    for l in [
        &mut out.runs,
        &mut out.pending,
        &mut out.not_created,
        &mut out.unknown,
    ] {
        l.sort();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Context, Explanation, SchedulerInfo};
    use crate::scheduler::{Entries, Evaluation, NodeResult, Verdict};
    use crate::state::PodRef;

    /// The context of a pod `default/p` under the default scheduler, with nothing to note.
    fn bare_context() -> Context {
        Context {
            pod: PodRef {
                namespace: "default".into(),
                name: "p".into(),
            },
            scheduler: SchedulerInfo {
                kubernetes_version: "v1.35",
                scheduler_name: "default-scheduler".to_string(),
                profile_source: "default".to_string(),
                feature_gates: Default::default(),
                percentage_of_nodes_to_score: None,
            },
            notes: Vec::new(),
            current_node: None,
            daemon_set: false,
            not_scheduled: Vec::new(),
        }
    }

    fn node(name: &str, verdict: Verdict, total: Option<i64>, name_rank: u32) -> NodeResult {
        NodeResult {
            name: name.into(),
            name_rank,
            verdict,
            reported: None,
            filters: Entries::default(),
            scores: Entries::default(),
            total,
            score_complete: true,
            nominated: None,
        }
    }

    /// Nodes are ordered by verdict group, then score (highest first), then name rank; nodes
    /// with equal keys (no rank) by name, as before the key was packed into one integer.
    #[test]
    fn nodes_are_ordered_by_group_score_rank_then_name() {
        let eval = Evaluation {
            pre_filter: Vec::new(),
            pre_score: Vec::new(),
            nodes: vec![
                node("b", Verdict::Feasible, Some(10), u32::MAX),
                node("d", Verdict::Infeasible, None, 0),
                node("a", Verdict::Feasible, Some(10), u32::MAX),
                node("e", Verdict::Unknown, Some(500), 1),
                node("c", Verdict::Feasible, Some(20), u32::MAX),
                node("z", Verdict::Feasible, Some(10), 0),
                node("n", Verdict::Feasible, Some(-3), 2),
            ],
            scoring: crate::scheduler::Scoring::Ran,
            nominated_node: None,
            errors: Vec::new(),
            pod_terms: None,
            post_filter: Vec::new(),
            topology_spread: None,
        };
        let order: Vec<String> = Explanation::new(eval, bare_context())
            .nodes
            .iter()
            .map(|n| n.name.to_string())
            .collect();
        assert_eq!(order, ["c", "z", "a", "b", "n", "e", "d"]);
    }

    /// The cycle's scoring outcome reaches the document: one feasible node is taken
    /// unscored (a note says the scores are for reference); a PreScore error ends the cycle
    /// with no node selected.
    #[test]
    fn what_the_cycle_runs_reaches_the_summary() {
        use crate::report::Note;
        use crate::scheduler::Scoring;
        use crate::scheduler::config::FeatureGates;
        use crate::scheduler::profile::Profile;
        use crate::scheduler::testing::evaluate_with;
        use serde_json::json;
        let node = |name: &str, cpu: &str| {
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                   "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}})
        };
        let pod = json!({"metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "x",
                "resources": {"requests": {"cpu": "1"}}}],
                "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 1, "preference": {"matchExpressions": [
                        {"key": "tier", "operator": "Gt", "values": ["-1"]}]}}]}}}});
        let profile = Profile::default_profile(FeatureGates::default());
        let one = evaluate_with(
            json!([node("a", "4"), node("b", "100m")]),
            pod.clone(),
            &profile,
        );
        let doc = Explanation::new(one, bare_context());
        assert_eq!(doc.summary.scoring, Scoring::NotRun);
        assert_eq!(doc.summary.selected, ["a"]);
        assert!(doc.errors.is_empty(), "{:?}", doc.errors);
        assert_eq!(doc.notes, [Note::OneFeasibleNotScored]);
        let json = serde_json::to_value(&doc.summary).expect("serialize");
        assert_eq!(json["scoring"], "NotRun");
        let two = evaluate_with(json!([node("a", "4"), node("b", "4")]), pod, &profile);
        let doc = Explanation::new(two, bare_context());
        assert_eq!(doc.summary.scoring, Scoring::StoppedAtPreScore);
        assert!(doc.summary.selected.is_empty());
        assert_eq!(doc.errors.len(), 1);
        assert_eq!(doc.notes, [Note::PreScoreEndsCycle]);
    }
}
