//! Pods as the evaluation reads them: identity, labels, node, controller and the template
//! replicas share (spec and phase), with their parsed affinity terms and spread constraints.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;

use super::labels::Labels;
use super::resources::{PodResources, ResourceRules};
use super::selector::LabelSelector;
use super::spec;
use super::taints::Toleration;
use super::volumes::PodVolume;

/// `namespace/name`, the way kubectl and the scheduler's logs name a pod.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct PodRef {
    /// Shared by the pods of a template (which includes the namespace): a replica's
    /// identity then allocates only its name.
    pub namespace: Arc<str>,
    /// Boxed, not a `String`: the identity (shared behind an `Arc`) is then 48 bytes, not
    /// 56, which the allocator rounds to 64.
    pub name: Box<str>,
}

impl std::fmt::Display for PodRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

/// A pod (anti-)affinity term, parsed. The namespace set follows
/// `getNamespacesFromPodAffinityTerm`: no names and no selector means the owner's namespace.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AffinityTerm {
    pub selector: LabelSelector,
    pub namespaces: Vec<String>,
    pub namespace_selector: LabelSelector,
    pub topology_key: String,
    /// 0 for required terms.
    pub weight: i32,
}

impl AffinityTerm {
    /// `AffinityTerm.Matches`: the pod's namespace is named, or its namespace's labels satisfy
    /// the namespace selector; and the pod's labels satisfy the label selector.
    pub fn matches(&self, namespace: &str, labels: &Labels, ns_labels: &Labels) -> bool {
        (self.namespaces.iter().any(|n| n == namespace)
            || self.namespace_selector.matches(ns_labels))
            && self.selector.matches(labels)
    }

    /// Whether matching this term needs namespace labels: its namespaceSelector is neither
    /// absent (no namespace) nor `{}` (every namespace).
    pub fn needs_namespace_labels(&self) -> bool {
        !matches!(self.namespace_selector, LabelSelector::Nothing)
            && !self.namespace_selector.is_everything()
    }
}

/// The four term lists of a pod's `podAffinity` / `podAntiAffinity`. Replicas of one workload
/// carry equal lists: the state keeps one shared copy per distinct list (see [`PodIndex`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct PodAffinity {
    pub required_affinity: Vec<AffinityTerm>,
    pub required_anti_affinity: Vec<AffinityTerm>,
    pub preferred_affinity: Vec<AffinityTerm>,
    pub preferred_anti_affinity: Vec<AffinityTerm>,
    /// Every label selector that does not parse, each with its path in the pod
    /// (`podAffinity.requiredDuringSchedulingIgnoredDuringExecution[1].labelSelector: ...`),
    /// for the output's note. API validation rejects such selectors, so only hand-written
    /// manifests have them.
    pub errors: Vec<String>,
    /// The same problems as kube-scheduler's `PodInfo` words them (InterPodAffinity's
    /// PreFilter and PreScore report it): per list, the first invalid selector of the first
    /// invalid term, e.g. `requiredAffinityTerms: values[0][app]: Invalid value: ...`.
    pub parse_error: Option<String>,
}

impl PodAffinity {
    /// Every term of the four lists, required and preferred.
    pub fn all(&self) -> impl Iterator<Item = &AffinityTerm> {
        self.required_affinity
            .iter()
            .chain(&self.required_anti_affinity)
            .chain(&self.preferred_affinity)
            .chain(&self.preferred_anti_affinity)
    }
}

/// One `topologySpreadConstraints` entry (of a pod, or a profile's default), with its label
/// selector parsed once so that no evaluation walks the raw API object again. The gate- and
/// pod-dependent parts (matchLabelKeys, inclusion-policy defaults) are applied by the plugin,
/// because they depend on the profile.
#[derive(Debug, Clone)]
pub struct SpreadConstraint {
    pub max_skew: i32,
    pub topology_key: String,
    pub when_unsatisfiable: String,
    /// `Err` keeps the parse error: upstream reports it only when it builds the constraint,
    /// i.e. only for the kind (hard or soft) being evaluated.
    pub selector: Result<LabelSelector, String>,
    pub match_label_keys: Vec<String>,
    pub min_domains: Option<i32>,
    pub node_affinity_policy: Option<String>,
    pub node_taints_policy: Option<String>,
}

/// The owner reference marked `controller: true` (`metav1.GetControllerOf`): default spreading
/// looks this object up by kind and name in the pod's namespace.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ControllerRef {
    pub api_version: String,
    pub kind: String,
    pub name: String,
}

/// The controllers whose selector `helper.DefaultSelector` reads. The live client gets
/// exactly the one a pod names, so it parses the reference here too: what it asks for and
/// what the selector reads cannot drift apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum OwnerKind {
    ReplicationController,
    ReplicaSet,
    StatefulSet,
}

impl OwnerKind {
    /// The kind of `owner` when default spreading reads it: its apiVersion must parse
    /// (`schema.ParseGroupVersion`: "v1" is the core group, more than one '/' is an error)
    /// and name core/v1 or apps/v1 exactly; any other owner adds nothing.
    pub fn of(owner: &ControllerRef) -> Option<OwnerKind> {
        let (group, version) = match owner.api_version.split('/').collect::<Vec<_>>().as_slice() {
            [v] => ("", *v),
            [g, v] => (*g, *v),
            _ => return None,
        };
        match (group, version, owner.kind.as_str()) {
            ("", "v1", "ReplicationController") => Some(OwnerKind::ReplicationController),
            ("apps", "v1", "ReplicaSet") => Some(OwnerKind::ReplicaSet),
            ("apps", "v1", "StatefulSet") => Some(OwnerKind::StatefulSet),
            _ => None,
        }
    }
}

/// A pod as the evaluation needs it. For the incoming pod the raw node affinity is kept;
/// existing pods only need identity, labels and their pod-affinity terms.
///
/// What is the pod's own (its name, labels, node, deletion and controller) is here; what a
/// workload's replicas have in common is in one shared [`PodTemplate`]: the vector of a large
/// cluster's pods is written into fresh memory, which the kernel zeroes first, so a smaller
/// pod costs less to push, and a replica takes one reference count where it took a dozen.
#[derive(Debug, Clone)]
pub struct Pod {
    /// Shared, so that the report's per-domain pod lists cost a reference count, not two
    /// strings, per matching pod.
    pub id: Arc<PodRef>,
    /// Shared between pods with equal labels (the replicas of a workload): see
    /// [`ClusterState::add_pod`].
    pub labels: Arc<Labels>,
    /// Once in the state, the node's own name (one copy per node, not per pod).
    pub node_name: Arc<str>,
    pub terminating: bool,
    /// `status.startTime` in nanoseconds since the epoch; `None` when not started (upstream's
    /// `GetPodStartTime` then takes the current time, later than any start).
    pub start_time: Option<i64>,
    /// Shared like `labels`: a workload's replicas have the same controller.
    pub controller: Option<Arc<ControllerRef>>,
    /// Shared by the replicas of a page (see `decode::protobuf::shared`) and, once in the
    /// state, by every pod that held the same copy.
    pub template: Arc<PodTemplate>,
}

/// What the scheduler reads of a pod besides its identity, labels, node, deletion and
/// controller: its spec and its phase. Replicas whose spec and status are written alike
/// hold one copy (see `decode::protobuf::shared`).
#[derive(Debug, Clone)]
pub struct PodTemplate {
    /// Borrowed for upstream's phases and the default scheduler's name (what nearly every pod
    /// has): the pods then hold no copy of either.
    pub phase: Cow<'static, str>,
    /// `status.nominatedNodeName`: the node preemption made room on, where a pending pod
    /// waits for its victims to go.
    pub nominated_node_name: Option<Arc<str>>,
    pub scheduler_name: Cow<'static, str>,
    /// `spec.schedulingGates` by name: while any is left, the pod waits at PreEnqueue.
    pub scheduling_gates: Vec<String>,
    pub node_selector: Option<Arc<Labels>>,
    pub node_affinity: Option<Arc<spec::NodeAffinity>>,
    /// Shared between templates: most pods carry the same default tolerations.
    pub tolerations: Arc<[Toleration]>,
    /// `Some` when the pod has a `podAffinity` or `podAntiAffinity` stanza; shared with the
    /// state's index, whose groups are keyed by these terms.
    pub pod_affinity: Option<Arc<PodAffinity>>,
    /// `spec.priority` (set by admission from the PriorityClass); 0 when absent, as upstream's
    /// `corev1helpers.PodPriority`. Preemption only ever evicts pods of lower priority.
    pub priority: i32,
    /// `spec.preemptionPolicy: Never`: the pod never preempts others.
    pub preempt_never: bool,
    /// The pod references ResourceClaims (dynamic resource allocation).
    pub has_resource_claims: bool,
    /// A container or init container has a `restartPolicyRules` entry with action
    /// `RestartAllContainers`: the pod needs nodes declaring
    /// `RestartAllContainersOnContainerExits` (NodeDeclaredFeatures, from 1.36).
    pub restarts_all_containers: bool,
    /// `spec.resourceClaims`, with what `status.resourceClaimStatuses` says of each.
    pub resource_claims: Vec<PodClaim>,
    /// What kinds of volumes the pod has, for the storage plugins' PreFilter.
    pub volumes: VolumeKinds,
    /// The volumes the storage plugins read (claims, ephemeral volumes, inline disks), in
    /// the pod's order; empty for most pods.
    pub storage: Vec<PodVolume>,
    /// `spec.topologySpreadConstraints`, parsed; empty for most existing pods.
    pub topology_spread: Vec<SpreadConstraint>,
    /// Requests, host ports and images, folded once.
    pub resources: Arc<PodResources>,
}

/// The `restartPolicyRules` action that makes a pod need a node feature.
pub const RESTART_ALL_CONTAINERS: &str = "RestartAllContainers";

impl PodTemplate {
    /// The template as a release counting resources by `rules` has it; `None` when the
    /// same.
    pub fn under(&self, rules: ResourceRules) -> Option<Arc<PodTemplate>> {
        let resources = self.resources.under(rules)?;
        Some(Arc::new(PodTemplate {
            resources: Arc::new(resources),
            ..self.clone()
        }))
    }
}

impl Pod {
    /// The pod as a release counting resources by `rules` has it.
    pub fn under(mut self, rules: ResourceRules) -> Pod {
        if let Some(t) = self.template.under(rules) {
            self.template = t;
        }
        self
    }
}

/// One `spec.resourceClaims[]` entry of a pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodClaim {
    pub name: String,
    pub claim_name: Option<String>,
    pub template_name: Option<String>,
    /// Its `status.resourceClaimStatuses` entry: `None` when there is none (the controller
    /// has not made the claim yet), `Some(None)` when it says no claim is needed.
    pub status: Option<Option<String>>,
}

/// The volume kinds the storage plugins look at (their PreFilter skips pods without them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VolumeKinds {
    /// `persistentVolumeClaim` volumes.
    pub claims: bool,
    /// Generic `ephemeral` volumes (each becomes a PVC).
    pub ephemeral: bool,
    /// GCE PD, AWS EBS, RBD or iSCSI: VolumeRestrictions checks conflicts between them.
    pub restricted_inline: bool,
    /// In-tree volumes migratable to CSI (GCE PD, AWS EBS, Azure Disk/File, Cinder, vSphere,
    /// Portworx): NodeVolumeLimits counts them.
    pub migratable_inline: bool,
}

impl Pod {
    /// Succeeded and Failed pods hold no resources and are filtered out of the scheduler's
    /// pod informer.
    pub fn is_terminal(&self) -> bool {
        let phase = &self.template.phase;
        phase == "Succeeded" || phase == "Failed"
    }

    /// Every (anti-)affinity term of the pod, required and preferred.
    pub fn affinity_terms(&self) -> impl Iterator<Item = &AffinityTerm> {
        self.template
            .pod_affinity
            .as_deref()
            .into_iter()
            .flat_map(PodAffinity::all)
    }
}
