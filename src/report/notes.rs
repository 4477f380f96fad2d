//! The notes a reader needs to read a result right, as data. Their words are chosen in
//! `render/` (`impl Display for Note`); the document carries each note as those words.

use serde::{Serialize, Serializer};

use crate::scheduler::inter_pod_affinity::NamespacesUnread;
use crate::scheduler::storage::Gap;
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
    NotEvaluated(Vec<String>),
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
    StorageNotEvaluated {
        plugins: Vec<&'static str>,
        gap: Gap,
    },
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
