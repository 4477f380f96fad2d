//! The document's `workload`: where each replica of a `whatif` workload goes (placed by
//! `pipeline::replicas`), beside the per-node explanation of one of them.

use serde::Serialize;

use super::notes::Note;

/// Where every replica of a workload goes.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadReport {
    pub kind: String,
    pub name: String,
    pub namespace: String,
    /// How many pods were scheduled (the workload's count, or `--replicas`).
    pub replicas: usize,
    pub placed: usize,
    pub pending: usize,
    /// The replicas the controller does not create (after a Pending one, OrderedReady).
    #[serde(skip_serializing_if = "is_zero")]
    pub not_created: usize,
    /// In the order the scheduler takes them.
    pub pods: Vec<ReplicaReport>,
    /// The index of the replica the per-node explanation beside this is of.
    pub explained: usize,
    /// What the reader needs to read the placements right (ties, sampling, what the
    /// simulation does not assume).
    pub notes: Vec<Note>,
    /// A workload that exists, updated: which old pod each new one replaces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub update: Option<UpdateReport>,
}

/// One replica's cycle (`Default`: not scheduled yet).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaReport {
    /// 0 for the first replica scheduled.
    pub index: usize,
    pub name: String,
    /// The node it is assumed onto; null when it stays Pending.
    pub node: Option<String>,
    /// The node's total score; null when the cycle did not score (one candidate, or the
    /// replica stays Pending).
    pub score: Option<i64>,
    /// The other nodes with the same top total, the first three by name: the scheduler may
    /// take any of them. Ties on a large cluster are hundreds of nodes.
    pub tied_with: Vec<String>,
    /// How many nodes `tied_with` stands for (absent without a tie).
    #[serde(skip_serializing_if = "is_zero")]
    pub tied_count: usize,
    /// What the scheduler would write in the FailedScheduling event of a Pending replica.
    pub failed_scheduling_message: Option<String>,
    /// A replica its controller does not create: the Pending one it waits for (a
    /// StatefulSet's OrderedReady creates no ordinal after a Pending one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_created: Option<NotCreated>,
    /// A Pending replica DefaultPreemption nominates to a node: the next replicas count it
    /// there, as the scheduler counts nominated pods.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption: Option<ReplicaPreemption>,
}

/// Where a replica's preemption nominates it, and whom it would evict there.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaPreemption {
    pub nominated_node: String,
    /// `namespace/name`, most important first.
    pub victims: Vec<String>,
}

/// Why a replica is not created.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotCreated {
    /// The replica that must run first.
    pub waits_for: String,
}

/// How a workload that exists is updated (`pkg/controller/deployment`, `statefulset`): the
/// rule, and per new pod the old one it replaces.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateReport {
    /// The strategy's type: `RollingUpdate`, `Recreate` or `OnDelete`.
    pub strategy: String,
    /// A Deployment's RollingUpdate, resolved against its replicas.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_surge: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_unavailable: Option<u32>,
    /// A StatefulSet's RollingUpdate: the ordinals below it keep the old revision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<u32>,
    /// The old pods when the update starts, by name.
    pub old_pods: Vec<String>,
    /// Per new pod, in the order of `pods`.
    pub pods: Vec<UpdatedPod>,
}

/// What a new pod of an update is created beside.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdatedPod {
    /// The replica's index in the workload's `pods`.
    pub index: usize,
    /// The old pod whose removal made room for it; `None`: it surges, created while the
    /// old pods still run.
    pub replaces: Option<String>,
    /// How many old pods still run when it is created.
    pub old_running: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
