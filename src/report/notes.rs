//! The notes a reader needs to read a result right, as data. Their words are chosen in
//! `render/` (`impl Display for Note`); the document carries each note as those words. What
//! makes a rule reject most nodes is the plugin's to say (its explanation's cause).

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};

use crate::scheduler::details::Cause;
use crate::scheduler::explain::{Few, Tables};
use crate::scheduler::inter_pod_affinity::NamespacesUnread;
use crate::scheduler::storage::Gap;
use crate::scheduler::{Entries, FilterCell, FilterDetails, PluginId, ReportedStatus, explain_of};
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
    /// A list of DRA objects was refused: DynamicResources is not evaluated.
    DraForbidden(Refusal),
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
    /// The server or snapshot says a release newer than the newest emulated, which is
    /// emulated in its place.
    NewerThanEmulated { seen: String, release: &'static str },
    /// `whatif --server-dry-run`: the pod is the one the API server returned.
    ServerDryRun,
    /// `whatif --validate=warn`: a validating admission plugin would refuse the pod.
    AdmissionRejected {
        plugin: &'static str,
        message: String,
    },
    /// The pod sets pod-level requests, which NodeResourcesFit's score ignores (from 1.34,
    /// where PodLevelResources is on).
    PodLevelFitScore { release: &'static str },
    /// The pod sets pod-level requests, which the release ignores: PodLevelResources is off
    /// (before 1.34), and every plugin counts the containers' requests.
    PodLevelIgnored { release: &'static str },
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
    /// GangScheduling is on: its plugin is not evaluated; what it would say.
    GangSchedulingNotEvaluated(crate::scheduler::release::GangTexts),
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
    /// `snapshot`: a DRA kind was refused and left out.
    SnapshotWithoutDra(Refusal),
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
    /// `whatif` of a workload: DefaultPreemption would nominate this replica to `node`; it
    /// stays Pending, nominated there, and its victims leave the state.
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
    /// `whatif -f` of files with more than pods and workloads: the objects that joined the
    /// cluster as they would once applied, and those skipped, as `N Kind`.
    Applied {
        joined: Vec<String>,
        skipped: Vec<String>,
    },
    /// `whatif` of a new workload: its pods as its controller creates them, owned by `owner`
    /// (e.g. `ReplicaSet/web-5d8f7b9c4`), with the controller's `labels`; `ordered`: a
    /// StatefulSet's OrderedReady, which creates no ordinal after a Pending one.
    CreatedByController {
        workload: String,
        owner: String,
        labels: Vec<String>,
        ordered: bool,
        /// Whether default spreading reads the owner (not a Job).
        spread_reads: bool,
        /// The controller's rule for how many pods run at once, or how the owner is named.
        rule: Option<String>,
    },
    /// A read of LimitRanges, RuntimeClasses or a namespace for admission was refused.
    AdmissionObjectsForbidden(Refusal),
    /// `whatif -f` of a workload that exists (`workload`, e.g. `StatefulSet shop/zk`, with
    /// `old` pods): an update, as its controller rolls it out by `rule`.
    Updated {
        workload: String,
        old: usize,
        rule: UpdateRule,
        /// With OrderedReady, the old pod that is not running, which stops the update.
        waits_for: Option<String>,
    },
    /// `whatif -f` of a workload whose existence could not be read (`error`): evaluated as
    /// a new one.
    UpdateNotRead { workload: String, error: String },
    /// `whatif --scale`: the new replicas are scheduled beside the `current` pods the workload
    /// owns, which stay where they are; `pending` of those wait for a node and are not
    /// scheduled here.
    ScaledBeside { current: u32, pending: Vec<String> },
    /// `snapshot`: LimitRanges or RuntimeClasses were left out, their list refused.
    SnapshotWithoutAdmissionObjects(Refusal),
    /// `snapshot`: the scheduler's FailedScheduling events were left out, their list refused.
    SnapshotWithoutEvents(Refusal),
    /// What in the pod's rules or the cluster will not do what it seems to, though the
    /// scheduler accepts it.
    Lint(Lint),
}

/// A lint (`pipeline::lints`): each names what it is about and what follows from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lint {
    /// A required (anti-)affinity term that selects no pod in its namespaces, the pod
    /// included.
    TermSelectsNoPod {
        /// `podAntiAffinity.required...[0] (app=zk, topologyKey kubernetes.io/hostname)`.
        term: String,
        /// The namespaces it reads, in words.
        namespaces: String,
        anti: bool,
    },
    /// A spread constraint of the pod whose selector matches no pod of its namespace, the
    /// pod included.
    SpreadSelectsNoPod {
        constraint: String,
        namespace: String,
    },
    /// Nodes without the topology key of a spread constraint applied (`of` nodes in all).
    NodesWithoutKey {
        key: String,
        constraint: String,
        nodes: Few,
        of: usize,
        /// What being in no domain does to them, in words.
        effect: &'static str,
    },
    /// A ReadWriteOnce claim of the pod used by pods already running (`namespace/name`,
    /// node).
    ClaimInUse {
        claim: String,
        users: Vec<(String, String)>,
    },
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

/// The rule an update follows, for its note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "strategy", rename_all_fields = "camelCase")]
pub enum UpdateRule {
    /// A Deployment's RollingUpdate: at most `replicas + max_surge` pods, at least
    /// `replicas - max_unavailable` available.
    RollingUpdate {
        max_surge: u32,
        max_unavailable: u32,
        replicas: u32,
    },
    /// A Deployment's Recreate: every old pod removed, then the new ones created.
    Recreate,
    /// A StatefulSet's RollingUpdate: highest ordinal first, one at a time, down to
    /// `partition`; `kept` keep the old revision.
    OrdinalRollingUpdate { partition: u32, kept: Vec<String> },
    /// OnDelete: the controller replaces no pod; a pod is updated when it is deleted.
    OnDelete,
    /// A DaemonSet's RollingUpdate: per node, with `max_surge` 0 the old pod is deleted
    /// before the new one is created; above 0 the new one is created beside it.
    DaemonSetRollingUpdate { max_surge: String },
    /// A DaemonSet's OnDelete: each node's pod is updated when it is deleted.
    DaemonSetOnDelete,
    /// The pod template is the one the pods run: no rollout; `created` pods more are
    /// scaled beside them.
    Unchanged { created: u32 },
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

/// A node no Filter lets through, as [`RejectedMost`] reads it.
pub(super) struct Rejected<'a> {
    pub reported: Option<&'a ReportedStatus>,
    pub filters: &'a Entries<FilterCell>,
}

impl RejectedMost {
    /// `None` unless no node, or at most a quarter of them, can take the pod (or may: their
    /// verdict is unknown), and when two rules reject the same most nodes (the message gives
    /// both counts).
    pub(super) fn of(
        rejected: &[Rejected],
        nodes: usize,
        tables: Tables<'_>,
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
            cause: plugin.and_then(|p| cause_of(p, reason, top, tables)),
        })
    }
}

/// What makes `plugin` reject the nodes of a group that all record `reason`, when the
/// details it gives on every one of them say the same.
fn cause_of(
    plugin: &PluginId,
    reason: &str,
    nodes: &[&Rejected],
    tables: Tables<'_>,
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
    if all.is_empty() || all.len() != nodes.len() {
        return None;
    }
    explain_of(plugin).cause(&all, reason, tables)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;
    use crate::scheduler::Code;

    fn reported(plugin: PluginId, reason: &'static str) -> ReportedStatus {
        ReportedStatus {
            plugin: Some(plugin),
            code: Code::Unschedulable,
            reason: Cow::Borrowed(reason),
            uncertain: false,
        }
    }

    fn most(statuses: &[&ReportedStatus], nodes: usize) -> Option<RejectedMost> {
        let filters = Entries::default();
        let rejected: Vec<Rejected> = statuses
            .iter()
            .map(|r| Rejected {
                reported: Some(*r),
                filters: &filters,
            })
            .collect();
        RejectedMost::of(&rejected, nodes, Tables::default())
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
