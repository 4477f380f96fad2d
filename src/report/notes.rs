//! The notes a reader needs to read a result right, as data. Their words are chosen in
//! `render/` (`impl Display for Note`); the document carries each note as those words.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Serialize, Serializer};

use super::entries::Reported;
use crate::scheduler::inter_pod_affinity::{self, NamespacesUnread, TermKind, TermTables};
use crate::scheduler::storage::Gap;
use crate::scheduler::{Entries, FilterCell, FilterDetails, PluginId};
use crate::state::admission::Change;
use crate::state::validate::Finding;
use crate::state::{Defaulted, PodRef};

/// One note of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// `whatif`: the manifest the pod comes from (`Deployment/web`).
    WhatIf { pod: PodRef, origin: String },
    /// Listing namespaces was refused: namespaceSelector terms cannot be evaluated.
    NamespacesForbidden(Refusal),
    /// A read for default spreading's selector was refused.
    WorkloadsForbidden(Refusal),
    /// A list of storage objects was refused: the volume plugins are not evaluated.
    StorageForbidden(Refusal),
    /// Listing the pod's events was refused: the scheduler's own message is not shown.
    EventsForbidden(Refusal),
    /// `whatif`: what the API server's validation says about a scheduling field.
    Finding(Finding),
    /// `whatif`: what the API server's defaulting set on the pod (requests from limits,
    /// pod-level requests, host ports of a hostNetwork pod).
    Defaulted(Vec<Defaulted>),
    /// `whatif`: what the API server's admission plugins changed on the pod.
    Admitted(Vec<Change>),
    /// A release other than 1.35 is emulated; what of it is left to 1.35's rules.
    Emulated {
        release: &'static str,
        unmodelled: Vec<&'static str>,
    },
    /// `whatif --server-dry-run`: the pod is the one the API server returned.
    ServerDryRun,
    /// `whatif --validate=warn`: a validating admission plugin would refuse the pod.
    AdmissionRejected {
        plugin: &'static str,
        message: String,
    },
    /// The pod sets pod-level requests, which NodeResourcesFit's score ignores in 1.35.
    PodLevelFitScore,
    /// `whatif`: matchLabelKeys/mismatchLabelKeys merged into this many requirements.
    LabelKeysMerged(usize),
    /// `whatif`: a DaemonSet's pod, given the daemon tolerations.
    DaemonSet(DaemonTolerations),
    /// `explain`: the pod runs on this node already.
    RunsOn(String),
    /// PodTopologySpread's default constraints derive no selector: no workloads were read.
    WorkloadsUnread,
    /// InterPodAffinity is not evaluated: a namespaceSelector term needs namespace labels.
    NamespacesUnread(NamespacesUnread),
    /// Filter and Score plugins of the profile this version does not evaluate.
    NotEvaluated(Vec<PluginId>),
    /// A feature gate given that changes no plugin this version evaluates.
    GateNotModelled(String),
    /// The pod's affinity has label selectors the API server would reject.
    InvalidAffinitySelectors(Vec<String>),
    /// The scheduler's last FailedScheduling event (seen then, if known) differs from ours.
    EventDiffers { last_seen: Option<String> },
    /// One node is feasible: the scheduler takes it without PreScore or Score, and the scores
    /// shown are computed for reference.
    OneFeasibleNotScored,
    /// The pod's own nominated node passes every Filter: the scheduler tries it first and
    /// takes it without PreScore or Score; the scores shown are computed for reference.
    NominatedNodeFirst,
    /// A PreScore plugin failed: the cycle ends with its error, Score does not run, and the
    /// scores shown are computed for reference.
    PreScoreEndsCycle,
    /// Storage plugins not evaluated for the pod, and why.
    StorageNotEvaluated { plugins: Vec<PluginId>, gap: Gap },
    /// `whatif`: claims of a StatefulSet's volumeClaimTemplates, not in the cluster, evaluated
    /// as its controller would create them for the replica.
    ClaimsFromTemplates(Vec<String>),
    /// Claims naming their volume without the bind-completed annotation: VolumeBinding treats
    /// them as unbound immediate claims.
    ClaimsNotBindCompleted(Vec<String>),
    /// `snapshot`: namespaces were left out, their list refused.
    SnapshotWithoutNamespaces(Refusal),
    /// `snapshot`: a kind default spreading selects by was left out, its list refused.
    SnapshotWithoutWorkloads(Refusal),
    /// Listing PodDisruptionBudgets or PriorityClasses was refused.
    PreemptionObjectsForbidden(Refusal),
    /// `snapshot`: PodDisruptionBudgets or PriorityClasses were left out, their list refused.
    SnapshotWithoutPreemptionObjects(Refusal),
    /// `snapshot`: a storage kind was left out, its list refused.
    SnapshotWithoutStorage(Refusal),
    /// `whatif` of a workload: the first replica whose top total was shared by several nodes
    /// (`nodes` of them, `node` picked), how many replicas had a tie, the `--seed` if any, and
    /// whether replicas came after it.
    ReplicaTie {
        replica: usize,
        node: String,
        nodes: usize,
        ties: usize,
        seed: Option<u64>,
        later: bool,
    },
    /// `whatif` of a workload on over 100 nodes: the scheduler stops filtering after
    /// `to_find` feasible nodes from a rotating start; `replicas` had more feasible nodes.
    NodesSampled {
        nodes: usize,
        to_find: usize,
        replicas: usize,
    },
    /// `whatif` of a workload: replicas placed on a node whose verdict is Unknown.
    ReplicasOnUnknownNodes(Vec<usize>),
    /// `whatif` of a workload: DefaultPreemption would nominate this replica to `node`; the
    /// simulation leaves it Pending and evicts nothing.
    ReplicaWouldPreempt { replica: usize, node: String },
    /// `whatif` of a workload with claims: a placed replica's claims are not bound in the
    /// simulation (VolumeBinding's assume).
    ClaimsNotAssumed,
    /// `whatif` of a workload the scheduler would not take (gated, or no profile serves its
    /// scheduler): no replica is placed.
    ReplicasNotScheduled,
    /// `whatif` of a workload whose replicas PodTopologySpread's default constraints would
    /// select by their controller (a ReplicaSet, ReplicationController or StatefulSet), which
    /// does not exist yet: they are not spread from one another by it.
    DefaultSpreadingWithoutController { kind: String },
    /// A read of LimitRanges, RuntimeClasses or a namespace for admission was refused.
    AdmissionObjectsForbidden(Refusal),
    /// `whatif --scale`: the new replicas are scheduled beside the `current` pods the workload
    /// owns, which stay where they are; `pending` of those wait for a node and are not
    /// scheduled here.
    ScaledBeside { current: u32, pending: Vec<String> },
    /// `snapshot`: LimitRanges or RuntimeClasses were left out, their list refused.
    SnapshotWithoutAdmissionObjects(Refusal),
}

/// Why the scheduler would not place the pod at all. The evaluation still shows what it would
/// decide if it tried (the gates removed, the pod unbound, another scheduler's pod taken by
/// the default profile).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all_fields = "camelCase")]
pub enum Unplaced {
    /// `spec.schedulingGates`: the pod waits at PreEnqueue until every gate is removed.
    SchedulingGated { gates: Vec<String> },
    /// `spec.nodeName` is set: the pod is bound, the node's kubelet admits or rejects it.
    Bound { node: String },
    /// `spec.schedulerName` names a scheduler no profile serves: this one never takes it; it
    /// is evaluated with the default-scheduler's profile.
    NoProfile { scheduler_name: String },
    /// Succeeded or Failed: the pod is done; the scheduler's cache leaves it out, and it
    /// runs on no node.
    Terminal { phase: String },
}

/// A request the API server refused (403 Forbidden), and for whom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The kubeconfig user and context the request was made as.
    pub user: String,
    pub context: String,
    pub verb: String,
    pub resource: String,
    /// `None`: cluster-scoped, or all namespaces.
    pub namespace: Option<String>,
    /// `None`: a list.
    pub name: Option<String>,
}

/// What the DaemonSet controller adds to its pods' tolerations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DaemonTolerations {
    /// How many of the daemon tolerations the pod did not have.
    pub added: usize,
    /// The pod uses the host network, so it tolerates network-unavailable too.
    pub host_network: bool,
}

/// A note is its words in the document, so `-o json` and the table say the same.
impl Serialize for Note {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// When no node, or only a few, can take the pod: the rule that rejects the most nodes,
/// counted as the FailedScheduling message counts them (each node once, under the status the
/// scheduler records for it), and what in the cluster makes it reject them. The message gives
/// the counts; this says which one decides and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RejectedMost {
    /// The plugin that records the status; `None` for a status the framework made itself
    /// (nodes a PreFilter result left out).
    pub plugin: Option<PluginId>,
    /// Upstream's words, as in the FailedScheduling message.
    pub reason: String,
    /// How many nodes it rejects, of how many.
    pub nodes: usize,
    pub of: usize,
    /// What makes it reject them, when the rule's details say (the same for every such node).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<Cause>,
}

/// What a rule rejects the nodes for, from the plugins' details.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all_fields = "camelCase")]
pub enum Cause {
    /// Pods that match the pod's required anti-affinity run in the nodes' domains of this key.
    AntiAffinityPods {
        topology_key: String,
        pods: Vec<String>,
    },
    /// Existing pods whose required anti-affinity matches the pod run in the nodes' domains.
    RepelledBy { pods: Vec<String> },
    /// No pod matching the pod's required affinity runs in the nodes' domains of this key.
    NoAffinityPod { topology_key: String },
    /// The taints the pod does not tolerate (each node's first, as upstream logs it), by key.
    Taints { keys: Vec<String> },
    /// The label of the pod's node selector or affinity the nodes fail: their values, and how
    /// many lack it.
    NodeLabel {
        key: String,
        values: Vec<String>,
        missing: usize,
    },
    /// A DoNotSchedule spread constraint: placing the pod makes the skew exceed maxSkew.
    Skew { topology_key: String, max_skew: i32 },
}

/// A node no Filter lets through, as [`RejectedMost`] reads it.
pub(super) struct Rejected<'a> {
    pub reported: Option<&'a Reported>,
    pub filters: &'a Entries<FilterCell>,
}

impl RejectedMost {
    /// `None` unless no node, or at most a quarter of them, can take the pod (or may: their
    /// verdict is unknown), and when two rules reject the same most nodes (the message gives
    /// both counts).
    pub(super) fn of(
        rejected: &[Rejected],
        nodes: usize,
        terms: Option<&TermTables>,
    ) -> Option<RejectedMost> {
        if nodes == 0 || rejected.len() * 4 < nodes * 3 {
            return None;
        }
        let mut groups: BTreeMap<(Option<&PluginId>, &str), Vec<&Rejected>> = BTreeMap::new();
        for n in rejected {
            if let Some(r) = n.reported {
                groups
                    .entry((r.plugin.as_ref(), &r.reason))
                    .or_default()
                    .push(n);
            }
        }
        let mut groups: Vec<_> = groups.into_iter().collect();
        groups.sort_by_key(|(_, g)| std::cmp::Reverse(g.len()));
        let ((plugin, reason), top) = groups.first()?;
        if groups.get(1).is_some_and(|(_, g)| g.len() == top.len()) {
            return None;
        }
        Some(RejectedMost {
            plugin: plugin.cloned(),
            reason: reason.to_string(),
            nodes: top.len(),
            of: nodes,
            cause: plugin.and_then(|p| Cause::of(p, reason, top, terms)),
        })
    }
}

impl Cause {
    fn of(
        plugin: &PluginId,
        reason: &str,
        nodes: &[&Rejected],
        terms: Option<&TermTables>,
    ) -> Option<Cause> {
        let all: Vec<&FilterDetails> = nodes
            .iter()
            .filter_map(|n| {
                n.filters
                    .iter()
                    .find(|f| f.plugin == plugin)
                    .and_then(|f| f.details)
            })
            .collect();
        if all.len() != nodes.len() {
            return None;
        }
        match all.first()? {
            FilterDetails::InterPodAffinity(_) => inter_pod(&all, reason, terms?),
            FilterDetails::TaintToleration(_) => {
                let keys: Option<BTreeSet<String>> = all
                    .iter()
                    .map(|d| match d {
                        FilterDetails::TaintToleration(d) => {
                            d.first_untolerated().map(|t| t.key.clone())
                        }
                        _ => None,
                    })
                    .collect();
                Some(Cause::Taints {
                    keys: keys?.into_iter().collect(),
                })
            }
            FilterDetails::NodeAffinity(_) => node_label(&all),
            FilterDetails::PodTopologySpread(first) => {
                let c = first.constraints.iter().find(|c| !c.satisfied)?;
                // Only when every node fails the same constraint.
                all.iter()
                    .all(|d| match d {
                        FilterDetails::PodTopologySpread(d) => d
                            .constraints
                            .iter()
                            .find(|x| !x.satisfied)
                            .is_some_and(|x| x.constraint == c.constraint && x.domain.is_some()),
                        _ => false,
                    })
                    .then(|| Cause::Skew {
                        topology_key: c.topology_key.clone(),
                        max_skew: c.max_skew,
                    })
            }
            _ => None,
        }
    }
}

/// The pods behind an InterPodAffinity rejection, by the reason every node of the group
/// reports (the pod's affinity, its anti-affinity, then existing pods' anti-affinity, in the
/// order of upstream's `interpodaffinity/filtering.go` Filter).
fn inter_pod(all: &[&FilterDetails], reason: &str, terms: &TermTables) -> Option<Cause> {
    let ipa: Vec<&inter_pod_affinity::FilterDetails> = all
        .iter()
        .filter_map(|d| match d {
            FilterDetails::InterPodAffinity(d) => Some(d.as_ref()),
            _ => None,
        })
        .collect();
    let first = ipa.first()?;
    match reason {
        inter_pod_affinity::REASON_AFFINITY => {
            let t = first.affinity.iter().find(|t| !t.satisfied)?;
            Some(Cause::NoAffinityPod {
                topology_key: t.topology_key.to_string(),
            })
        }
        inter_pod_affinity::REASON_ANTI_AFFINITY => {
            let term = first.anti_affinity.iter().find(|t| !t.satisfied)?;
            let table = terms
                .terms
                .iter()
                .find(|t| t.kind == TermKind::RequiredAntiAffinity && t.index == term.index)?;
            let mut pods = BTreeSet::new();
            for t in ipa.iter().flat_map(|d| &d.anti_affinity) {
                let in_domain = t.domain.as_deref().and_then(|v| table.domains.get(v));
                if t.index == term.index
                    && !t.satisfied
                    && let Some(list) = in_domain
                {
                    pods.extend(list.iter().map(|p| p.to_string()));
                }
            }
            Some(Cause::AntiAffinityPods {
                topology_key: term.topology_key.to_string(),
                pods: pods.into_iter().collect(),
            })
        }
        inter_pod_affinity::REASON_EXISTING_ANTI_AFFINITY => {
            let pods: BTreeSet<String> = ipa
                .iter()
                .flat_map(|d| &d.existing_anti_affinity)
                .filter_map(|&i| terms.existing_anti_affinity.get(i))
                .map(|h| h.pod.to_string())
                .collect();
            Some(Cause::RepelledBy {
                pods: pods.into_iter().collect(),
            })
        }
        _ => None,
    }
}

/// The label each node fails first (its node selector's, then its single required term's),
/// when that is the same label on every node.
fn node_label(all: &[&FilterDetails]) -> Option<Cause> {
    let mut key: Option<&str> = None;
    let mut values = BTreeSet::new();
    let mut missing = 0;
    for d in all {
        let FilterDetails::NodeAffinity(d) = d else {
            return None;
        };
        if d.added_affinity.as_ref().is_some_and(|a| !a.matched) {
            return None;
        }
        let (k, v) = if let Some(c) = d.node_selector.iter().find(|c| !c.matched) {
            (&*c.key, c.node_value.as_deref())
        } else {
            let r = d.required.as_ref()?;
            let [term] = r.terms.as_slice() else {
                return None;
            };
            let r = term
                .match_expressions
                .iter()
                .chain(&term.match_fields)
                .find(|r| !r.matched)?;
            (&*r.written.key, r.node_value.as_deref())
        };
        if *key.get_or_insert(k) != k {
            return None;
        }
        match v {
            Some(v) => {
                values.insert(v.to_string());
            }
            None => missing += 1,
        }
    }
    Some(Cause::NodeLabel {
        key: key?.to_string(),
        values: values.into_iter().collect(),
        missing,
    })
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;
    use crate::report::Code;

    fn reported(plugin: PluginId, reason: &'static str) -> Reported {
        Reported {
            plugin: Some(plugin),
            code: Code::Unschedulable,
            reason: Cow::Borrowed(reason),
            uncertain: false,
        }
    }

    fn most(statuses: &[&Reported], nodes: usize) -> Option<RejectedMost> {
        let filters = Entries::default();
        let rejected: Vec<Rejected> = statuses
            .iter()
            .map(|r| Rejected {
                reported: Some(*r),
                filters: &filters,
            })
            .collect();
        RejectedMost::of(&rejected, nodes, None)
    }

    #[test]
    fn the_rule_that_rejects_most_nodes_is_counted_as_failed_scheduling_counts() {
        let taint = reported(
            PluginId::TaintToleration,
            "node(s) had untolerated taint(s)",
        );
        let cordon = reported(PluginId::NodeUnschedulable, "node(s) were unschedulable");
        let most_of = most(&[&taint, &taint, &cordon], 3).expect("taints reject most");
        assert_eq!(most_of.plugin, Some(PluginId::TaintToleration));
        assert_eq!((most_of.nodes, most_of.of), (2, 3));
        // No details to read: no cause rather than a guessed one.
        assert_eq!(most_of.cause, None);
        // Two rules reject as many nodes: neither is "the" rule.
        assert_eq!(most(&[&taint, &cordon], 2), None);
        // Two of four nodes can take the pod: not "few".
        assert_eq!(most(&[&taint, &taint], 4), None);
        // One of four can: few.
        assert!(most(&[&taint, &taint, &cordon], 4).is_some());
        assert_eq!(most(&[], 0), None);
    }
}
