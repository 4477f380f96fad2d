//! The notes a reader needs to read a result right, as data. Their words are chosen in
//! `render/` (`impl Display for Note`); the document carries each note as those words.

use serde::{Serialize, Serializer};

use crate::scheduler::inter_pod_affinity::NamespacesUnread;
use crate::scheduler::storage::Gap;
use crate::state::PodRef;
use crate::state::validate::Finding;

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
    /// `whatif`: matchLabelKeys/mismatchLabelKeys merged into this many requirements.
    LabelKeysMerged(usize),
    /// `whatif`: a DaemonSet's pod, given the daemon tolerations.
    DaemonSet(DaemonTolerations),
    /// `whatif`: `spec.nodeName` is set (to this node).
    NodeNameSet(String),
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
    /// Storage plugins not evaluated for the pod, and why.
    StorageNotEvaluated {
        plugins: Vec<&'static str>,
        gap: Gap,
    },
    /// `whatif`: claims of a StatefulSet's volumeClaimTemplates, not in the cluster, evaluated
    /// as its controller would create them for its first replica.
    ClaimsFromTemplates(Vec<String>),
    /// Claims naming their volume without the bind-completed annotation: VolumeBinding treats
    /// them as unbound immediate claims.
    ClaimsNotBindCompleted(Vec<String>),
    /// `snapshot`: namespaces were left out, their list refused.
    SnapshotWithoutNamespaces(Refusal),
    /// `snapshot`: a kind default spreading selects by was left out, its list refused.
    SnapshotWithoutWorkloads(Refusal),
    /// `snapshot`: a storage kind was left out, its list refused.
    SnapshotWithoutStorage(Refusal),
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
