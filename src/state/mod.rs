//! The cluster model: nodes, pods and namespaces in the compact, indexed form the evaluation
//! reads, plus the offline file reader.
//!
//! Objects arrive in JSON, in protobuf or as k8s-openapi values; each front-end (`decode/`)
//! reads them into the parts the model is built from (`parts.rs`), and one function builds
//! pods and nodes from those parts (`build.rs`). The state folds them in once: label
//! selectors are parsed, pods are indexed by node, and terminal or unbound pods are set
//! aside, so the evaluation never walks raw API objects again.

mod build;
pub mod decode;
mod index;
pub mod labels;
mod manifest;
pub mod needs;
pub(crate) mod parts;
pub mod quantity;
mod read;
pub mod resources;
pub mod selector;
mod taints;
pub mod validate;
mod yaml;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

// Internal maps hashed once per pod read (150,000 times): SipHash was half of `add_pod`.
use foldhash::{HashMap as FastMap, HashSet as FastSet};
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;
use serde::{Deserialize, Serialize};

pub use index::{AffinityGroup, Candidates, Domains, PodIndex, PodList, Topology};
pub use manifest::{
    ManifestPod, add_daemon_tolerations, merge_match_label_keys, read_pod_manifests,
    read_pod_manifests_str,
};
pub use read::{
    Located, SourceError, parse_documents, read_objects, read_snapshot, read_snapshot_str,
};
pub use taints::{Taint, Toleration};
pub use yaml::to_yaml_string;

use labels::Labels;
use resources::{
    HostPort, ImageNames, NodeResources, PodResources, Resources, normalized_image_name,
};
use selector::{LabelSelector, Requirement};

/// `namespace/name`, the way kubectl and the scheduler's logs name a pod.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct PodRef {
    /// Shared by the pods of a template (which includes the namespace): a replica's
    /// identity then allocates only its name.
    pub namespace: Arc<str>,
    /// Boxed, not a `String`: the identity (shared behind an `Arc`) is then 48 bytes, not
    /// 56, which the allocator rounds to 64 (2.4 MB at 150,000 pods).
    pub name: Box<str>,
}

impl std::fmt::Display for PodRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

#[derive(Debug, Clone)]
pub struct Node {
    pub name: String,
    pub labels: Labels,
    pub taints: Vec<Taint>,
    pub unschedulable: bool,
    /// Allocatable resources and cached images.
    pub resources: NodeResources,
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
/// workload's replicas have in common is in one shared [`PodTemplate`]. At 150,000 pods the
/// vector of pods is written into fresh memory, which the kernel zeroes first: pushing pods
/// of 184 bytes into it was 6% of a live run's samples (perf), and each replica took a dozen
/// reference counts where it now takes one.
#[derive(Debug, Clone)]
pub struct Pod {
    /// Shared, so that the report's per-domain pod lists cost a reference count, not two
    /// strings, per matching pod.
    pub id: Arc<PodRef>,
    /// Shared between pods with equal labels (the replicas of a workload): see
    /// [`ClusterState::add_pod`].
    pub labels: Arc<Labels>,
    /// Once in the state, the node's own name (one copy per node, not per pod: 150,000
    /// copies were 5 MB of a live run).
    pub node_name: Arc<str>,
    pub terminating: bool,
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
    /// has): 150,000 pods then hold no copy of either.
    pub phase: Cow<'static, str>,
    pub scheduler_name: Cow<'static, str>,
    pub node_selector: Option<Arc<Labels>>,
    pub node_affinity: Option<Arc<core::NodeAffinity>>,
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
    /// What kinds of volumes the pod has, for the storage plugins' PreFilter.
    pub volumes: VolumeKinds,
    /// `spec.topologySpreadConstraints`, parsed; empty for most existing pods.
    pub topology_spread: Vec<SpreadConstraint>,
    /// Requests, host ports and images, folded once.
    pub resources: Arc<PodResources>,
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

/// A Service or ReplicationController as default topology spreading reads it: its
/// `spec.selector` is a plain label map. Only these fields are decoded: every other one
/// (a controller's whole pod template, `managedFields`) is stepped over unparsed.
#[derive(Debug, Deserialize)]
pub struct MapSelectorObject {
    #[serde(default)]
    pub metadata: ObjectName,
    #[serde(default)]
    pub spec: Option<MapSelectorSpec>,
}

#[derive(Debug, Deserialize)]
pub struct MapSelectorSpec {
    #[serde(default)]
    pub selector: Option<Labels>,
}

/// A ReplicaSet or StatefulSet as default topology spreading reads it: its `spec.selector`
/// is a label selector.
#[derive(Debug, Deserialize)]
pub struct LabelSelectorObject {
    #[serde(default)]
    pub metadata: ObjectName,
    #[serde(default)]
    pub spec: Option<LabelSelectorSpec>,
}

#[derive(Debug, Deserialize)]
pub struct LabelSelectorSpec {
    #[serde(default)]
    pub selector: Option<meta::LabelSelector>,
}

/// The metadata a workload is keyed by.
#[derive(Debug, Default, Deserialize)]
pub struct ObjectName {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub namespace: Option<String>,
}

/// The selectors of the objects that can "own" a pod for default topology spreading
/// (`helper.DefaultSelector`): only namespace, name and selector are kept.
#[derive(Debug, Clone, Default)]
pub struct WorkloadSelectors {
    /// Per namespace, the `spec.selector` of every Service that has one, in input order
    /// (a Service without a selector selects nothing and is dropped).
    pub services: HashMap<String, Vec<Labels>>,
    /// `(namespace, name)` -> `spec.selector` of a ReplicationController.
    pub replication_controllers: HashMap<(String, String), Labels>,
    /// `(namespace, name)` -> the requirements of a ReplicaSet's label selector (none for a nil,
    /// empty or invalid selector, which add nothing upstream either).
    pub replica_sets: HashMap<(String, String), Vec<Requirement>>,
    /// Same for StatefulSets.
    pub stateful_sets: HashMap<(String, String), Vec<Requirement>>,
}

impl WorkloadSelectors {
    /// A Service's `spec.selector`; a nil selector selects nothing (GetPodServices skips it).
    pub fn add_service(&mut self, namespace: String, selector: Option<Labels>) {
        if let Some(sel) = selector {
            self.services.entry(namespace).or_default().push(sel);
        }
    }

    /// A ReplicationController's `spec.selector` (nil reads as empty).
    pub fn add_replication_controller(&mut self, key: (String, String), selector: Option<Labels>) {
        self.replication_controllers
            .insert(key, selector.unwrap_or_default());
    }

    /// A ReplicaSet's or StatefulSet's label selector. Upstream adds the requirements only
    /// when the selector converts without error; nil and `{}` have none.
    pub fn add_label_selector(
        &mut self,
        stateful_set: bool,
        key: (String, String),
        selector: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
    ) {
        let reqs = match LabelSelector::from_api(selector) {
            Ok(LabelSelector::Requirements(r)) => r,
            _ => Vec::new(),
        };
        let map = if stateful_set {
            &mut self.stateful_sets
        } else {
            &mut self.replica_sets
        };
        map.insert(key, reqs);
    }
}

/// What the scheduler's snapshot would hold: nodes, the pods bound to them, namespaces.
#[derive(Debug, Clone, Default)]
pub struct ClusterState {
    pub nodes: Vec<Node>,
    node_index: FastMap<String, usize>,
    /// Per node, its position among all nodes' names: the report orders 5,000 nodes by name
    /// with integers, not string comparisons.
    pub name_rank: Vec<u32>,
    /// Per node, its name, shared by the report's entry for the node (one count, not one
    /// copy, per node and evaluation).
    pub node_names: Vec<Arc<str>>,
    /// Pods bound to a known node and not terminal: the scheduler's "existing pods".
    pub pods: Vec<Pod>,
    /// Node index of each existing pod.
    pub pod_node: Vec<usize>,
    /// Existing pods per node (indexes into `pods`).
    pub pods_by_node: Vec<Vec<usize>>,
    /// Pods that are not existing pods (pending, terminal, or bound to an unknown node), kept so
    /// that `explain` can find them.
    pub other_pods: Vec<Pod>,
    /// Namespace labels by name. `None` when namespaces were not read at all.
    pub namespaces: Option<BTreeMap<String, Labels>>,
    /// Services, ReplicaSets, ReplicationControllers and StatefulSets. `None` when the source
    /// held none of these kinds, so default spreading cannot be derived.
    pub workloads: Option<WorkloadSelectors>,
    /// Per node, what its existing pods hold (`NodeInfo.Requested` and friends), summed
    /// once here so the resource plugins never walk the pods.
    pub node_usage: Vec<NodeUsage>,
    /// Per image name in any node's `status.images`: the size the scheduler's cache keeps
    /// (the first node's) and on how many nodes it is.
    pub images: FastMap<String, ImageSpread>,
    /// Existing pods by label and by distinct affinity terms.
    pub index: PodIndex,
    /// Node label values numbered per key (topology domains).
    pub topology: Topology,
    /// One copy of each distinct label set and toleration list among the pods.
    shared_labels: Shared<Labels>,
    shared_tolerations: Shared<[Toleration]>,
    shared_controllers: Shared<ControllerRef>,
    /// The last template given to [`ClusterState::add_pod`] and the copy it was replaced by.
    last_template: Option<(Arc<PodTemplate>, Arc<PodTemplate>)>,
    /// Which names of the nodes' images were kept: all of them, or, read live, only those of
    /// the pods the read was for (see [`ClusterState::keeps_images_of`]).
    pub image_names: ImageNames,
}

/// What the existing pods of one node hold.
#[derive(Debug, Clone, Default)]
pub struct NodeUsage {
    /// Number of existing pods.
    pub pods: i64,
    pub requested: Resources,
    pub non_zero_milli_cpu: i64,
    pub non_zero_memory: i64,
    /// Host ports in use, with the pod index that binds each.
    pub host_ports: Vec<(HostPort, usize)>,
}

impl NodeUsage {
    /// Adds (`sign` 1) or takes out (`sign` -1) one pod.
    pub fn apply(&mut self, pod: &PodResources, index: usize, sign: i64) {
        self.pods += sign;
        self.requested.accumulate(&pod.usage, sign);
        self.non_zero_milli_cpu = self
            .non_zero_milli_cpu
            .saturating_add(pod.non_zero_milli_cpu.saturating_mul(sign));
        self.non_zero_memory = self
            .non_zero_memory
            .saturating_add(pod.non_zero_memory.saturating_mul(sign));
        if sign > 0 {
            self.host_ports
                .extend(pod.host_ports.iter().map(|p| (p.clone(), index)));
        } else {
            self.host_ports.retain(|(_, i)| *i != index);
        }
    }
}

/// `ImageStateSummary`: an image's size and how many nodes have it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageSpread {
    pub size_bytes: i64,
    /// The nodes that have it, ascending: ImageLocality asks per node whether the image is
    /// there, which is a search here instead of a walk over the node's image names.
    pub on_nodes: Vec<u32>,
}

impl ImageSpread {
    /// How many nodes have it (`ImageStateSummary.NumNodes`).
    pub fn nodes(&self) -> usize {
        self.on_nodes.len()
    }
}

impl ClusterState {
    /// Builds the model; terminal pods and pods on unknown nodes are kept aside, exactly as the
    /// scheduler's cache never sees them.
    pub fn new(
        nodes: Vec<Node>,
        pods: Vec<Pod>,
        namespaces: Option<BTreeMap<String, Labels>>,
    ) -> ClusterState {
        let node_index: FastMap<String, usize> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.clone(), i))
            .collect();
        // foldhash: SipHash over every image name of 5,000 nodes showed in profiles.
        let mut images: FastMap<String, ImageSpread> = FastMap::default();
        for (ni, n) in nodes.iter().enumerate() {
            let ni = u32::try_from(ni).unwrap_or(u32::MAX);
            let mut seen: FastSet<&str> = FastSet::default();
            for img in &n.resources.images {
                for name in &img.names {
                    if !seen.insert(name.as_str()) {
                        continue;
                    }
                    let spread = images.entry(name.clone()).or_insert(ImageSpread {
                        size_bytes: img.size_bytes,
                        on_nodes: Vec::new(),
                    });
                    spread.on_nodes.push(ni);
                }
            }
        }
        let mut by_name: Vec<usize> = (0..nodes.len()).collect();
        by_name.sort_by(|&a, &b| nodes[a].name.cmp(&nodes[b].name));
        let mut name_rank = vec![0u32; nodes.len()];
        for (rank, &n) in by_name.iter().enumerate() {
            name_rank[n] = u32::try_from(rank).unwrap_or(u32::MAX);
        }
        let mut state = ClusterState {
            name_rank,
            node_names: nodes.iter().map(|n| Arc::from(n.name.as_str())).collect(),
            topology: Topology::new(&nodes),
            pods_by_node: vec![Vec::new(); nodes.len()],
            node_usage: vec![NodeUsage::default(); nodes.len()],
            images,
            nodes,
            node_index,
            namespaces,
            ..Default::default()
        };
        // Room for as many pods as the nodes may run (their allocatable `pods`, as
        // NodeResourcesFit counts them), so that the vectors of pods are not copied as they
        // grow: at 150,000 pods the copies, and the fresh pages they write, took a tenth of
        // the thread that reads the pages. Only the pages written are ever resident.
        let room = state
            .nodes
            .iter()
            .map(|n| usize::try_from(n.resources.allowed_pods.clamp(0, 1_000)).unwrap_or(0))
            .sum::<usize>()
            .max(pods.len());
        state.pods.reserve(room);
        state.pod_node.reserve(room);
        state.index.reserve(room);
        for pod in pods {
            state.add_pod(pod);
        }
        state
    }

    /// Adds a pod read from the source. At 150,000 pods, labels and tolerations were a third
    /// of the model's memory, and replicas carry equal ones: each distinct set is kept once,
    /// as is each controller reference (three strings, the same for a workload's replicas).
    pub fn add_pod(&mut self, mut pod: Pod) {
        self.shared_labels.share(&mut pod.labels);
        if let Some(controller) = &mut pod.controller {
            self.shared_controllers.share(controller);
        }
        self.share_template(&mut pod.template);
        match self.node_index.get(&*pod.node_name) {
            Some(&n) if !pod.is_terminal() => {
                // A pod built on its own (from a file) holds its own copy of the name, which
                // the node's replaces. One decoded from a page holds the decoding thread's,
                // already shared by the pods of that node: swapping it updated two reference
                // counts, one on another core's cache line, for every pod.
                if Arc::strong_count(&pod.node_name) == 1 {
                    pod.node_name = self.node_names[n].clone();
                }
                let index = self.pods.len();
                self.index.add(
                    index,
                    &pod.id,
                    &pod.labels,
                    pod.template.pod_affinity.as_ref(),
                );
                self.node_usage[n].apply(&pod.template.resources, index, 1);
                self.pods_by_node[n].push(self.pods.len());
                self.pod_node.push(n);
                self.pods.push(pod);
            }
            _ => self.other_pods.push(pod),
        }
    }

    /// Gives `template` the kept copies of its tolerations and of its affinity terms (the
    /// index's, when existing pods carry equal ones). A page's replicas hold one template,
    /// so this runs once per template, not per pod: the last one given and the one it was
    /// replaced by are kept, and the next replica takes that without a look-up.
    fn share_template(&mut self, template: &mut Arc<PodTemplate>) {
        if let Some((given, kept)) = &self.last_template
            && Arc::ptr_eq(given, template)
        {
            // Kept as given (its parts were the kept ones already): nothing to swap, and
            // no reference count of the decoding thread's to touch.
            if !Arc::ptr_eq(given, kept) {
                *template = kept.clone();
            }
            return;
        }
        // The kept copies of its parts, found before the template is touched: a page's
        // templates mostly hold them already (a workload's terms are its own), and are then
        // kept as given, with no copy made and none swapped into each replica. A toleration
        // set held by more than this template (the copy a decoding thread keeps for every
        // template it builds with it) is kept as given too: swapping it for the state's equal
        // copy would copy the template and free nothing. A template's own set (a pod read
        // from a file) is shared.
        let own_tolerations = Arc::strong_count(&template.tolerations) == 1;
        let mut tolerations = template.tolerations.clone();
        if own_tolerations {
            self.shared_tolerations.share(&mut tolerations);
        }
        let mut terms = template.pod_affinity.clone();
        if let Some(terms) = &mut terms {
            self.index.share_terms(terms);
        }
        let same_terms = match (&terms, &template.pod_affinity) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        let shared = (Arc::strong_count(template) > 1).then(|| template.clone());
        if Arc::ptr_eq(&tolerations, &template.tolerations) && same_terms {
            if let Some(given) = shared {
                self.last_template = Some((given.clone(), given));
            }
            return;
        }
        // A template other pods still hold (a page's replicas) is copied, its parts being
        // reference counts, and they are mapped to the copy; one held by this pod alone (a
        // snapshot's pods are built one by one) is changed where it is.
        let t = Arc::make_mut(template);
        t.tolerations = tolerations;
        t.pod_affinity = terms;
        if let Some(given) = shared {
            self.last_template = Some((given, template.clone()));
        }
    }

    /// Whether every image of `pod` was kept, so that ImageLocality can evaluate it: a live
    /// read keeps only the images of the pods it was made for.
    pub fn keeps_images_of(&self, pod: &Pod) -> bool {
        pod.template
            .resources
            .images
            .iter()
            .all(|i| self.image_names.keeps(&normalized_image_name(i)))
    }

    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.node_index.get(name).copied()
    }

    /// Labels of a namespace; a namespace without an object reads as having no labels, as
    /// upstream's `GetNamespaceLabelsSnapshot` does.
    pub fn namespace_labels(&self, name: &str) -> Labels {
        self.namespaces
            .as_ref()
            .and_then(|m| m.get(name).cloned())
            .unwrap_or_default()
    }

    /// Every pod read, existing or not.
    pub fn all_pods(&self) -> impl Iterator<Item = &Pod> {
        self.pods.iter().chain(&self.other_pods)
    }

    /// Finds a pod by namespace and name: the index among existing pods, or a copy of a pod
    /// that is not an existing pod.
    pub fn find_pod(&self, id: &PodRef) -> Option<FoundPod<'_>> {
        // By the index's namespace numbers first: comparing 150,000 pods' names and
        // namespaces was on the critical path of a live run, between its last page and the
        // evaluation.
        if let Some(ns) = self.index.namespace_id(&id.namespace)
            && let Some(i) = (0..self.pods.len()).find(|&i| {
                u32::try_from(i).is_ok_and(|i| self.index.namespace_of(i) == ns)
                    && self.pods[i].id.name == id.name
            })
        {
            return Some(FoundPod::Existing(i));
        }
        self.other_pods
            .iter()
            .find(|p| *p.id == *id)
            .map(FoundPod::Other)
    }
}

/// One copy of each distinct value, and the last copy given and what it was replaced by:
/// replicas decoded from one page hold the same copy already (see
/// `decode::protobuf::shared`), and are then shared without hashing and comparing their
/// values again. Each copy is kept with its hash, so that the set grows without hashing its
/// values again: at 150,000 pods the rehashing of label sets was about half of the hashing
/// that sharing them took.
#[derive(Debug)]
struct Shared<T: ?Sized> {
    set: FastSet<Hashed<T>>,
    last: Option<(Arc<T>, Arc<T>)>,
}

/// A kept copy and its hash (by the hasher of the set or map that keeps it).
#[derive(Debug)]
struct Hashed<T: ?Sized>(u64, Arc<T>);

impl<T: ?Sized> Clone for Hashed<T> {
    fn clone(&self) -> Self {
        Hashed(self.0, self.1.clone())
    }
}

impl<T: ?Sized> std::hash::Hash for Hashed<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.0);
    }
}

impl<T: Eq + ?Sized> PartialEq for Hashed<T> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0 && *self.1 == *other.1
    }
}

impl<T: Eq + ?Sized> Eq for Hashed<T> {}

impl<T: ?Sized> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared {
            set: self.set.clone(),
            last: self.last.clone(),
        }
    }
}

impl<T: ?Sized> Default for Shared<T> {
    fn default() -> Self {
        Shared {
            set: FastSet::default(),
            last: None,
        }
    }
}

impl<T: std::hash::Hash + Eq + ?Sized> Shared<T> {
    /// Replaces `value` by the equal copy kept, or keeps it as the copy.
    fn share(&mut self, value: &mut Arc<T>) {
        use std::hash::BuildHasher;
        if let Some((given, kept)) = &self.last
            && Arc::ptr_eq(given, value)
        {
            // A copy kept as given needs no swap (nor the given one's count touched).
            if !Arc::ptr_eq(given, kept) {
                *value = kept.clone();
            }
            return;
        }
        let given = value.clone();
        let hashed = Hashed(self.set.hasher().hash_one(&**value), value.clone());
        match self.set.get(&hashed) {
            Some(kept) => *value = kept.1.clone(),
            None => {
                self.set.insert(hashed);
            }
        }
        self.last = Some((given, value.clone()));
    }
}

#[derive(Debug, Clone, Copy)]
pub enum FoundPod<'a> {
    Existing(usize),
    Other(&'a Pod),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replicas share one copy of their labels and tolerations; a pod with other labels
    /// keeps its own, and sharing changes no value.
    #[test]
    fn equal_labels_and_tolerations_are_stored_once() {
        let rs = |name: &str| {
            format!(
                r#""ownerReferences":[{{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"{name}","uid":"u","controller":true}}]"#
            )
        };
        let (x, y) = (rs("x-1"), rs("y-1"));
        let text = format!(
            r#"{{"apiVersion":"v1","kind":"List","items":[
          {{"apiVersion":"v1","kind":"Node","metadata":{{"name":"n1"}}}},
          {{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"a","namespace":"ns","labels":{{"app":"x"}},{x}}},
           "spec":{{"nodeName":"n1","containers":[{{"name":"c"}}],"tolerations":[{{"key":"k","operator":"Exists"}}]}}}},
          {{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"b","namespace":"ns","labels":{{"app":"x"}},{x}}},
           "spec":{{"nodeName":"n1","containers":[{{"name":"c"}}],"tolerations":[{{"key":"k","operator":"Exists"}}]}}}},
          {{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"c","namespace":"ns","labels":{{"app":"y"}},{y}}},
           "spec":{{"nodeName":"n1","containers":[{{"name":"c"}}]}}}}]}}"#
        );
        let state = read_snapshot_str(&text, "t").expect("read");
        let [a, b, c] = [0, 1, 2].map(|i| &state.pods[i]);
        assert!(Arc::ptr_eq(&a.labels, &b.labels));
        assert!(Arc::ptr_eq(
            &a.template.tolerations,
            &b.template.tolerations
        ));
        assert!(!Arc::ptr_eq(&a.labels, &c.labels));
        assert_eq!(c.labels.get("app"), Some("y"));
        assert_eq!(b.template.tolerations[0].key, "k");
        assert!(c.template.tolerations.is_empty());
        let controller = |p: &Pod| p.controller.clone().expect("a controller");
        assert!(Arc::ptr_eq(&controller(a), &controller(b)));
        assert!(!Arc::ptr_eq(&controller(a), &controller(c)));
        assert_eq!(controller(c).name, "y-1");
        assert_eq!(controller(b).name, "x-1");
    }

    /// A pod is found by namespace and name among the existing pods (by the index's
    /// namespace numbers), then among the others; a name in another namespace is not it.
    /// Existing pods share their node's name.
    #[test]
    fn pods_are_found_by_namespace_and_name() {
        let pod = |ns: &str, name: &str, node: &str| {
            Pod::from_api(
                &serde_json::from_value(serde_json::json!({
                    "metadata": {"name": name, "namespace": ns},
                    "spec": {"nodeName": node, "containers": [{"name": "c"}]},
                    "status": {"phase": "Running"}
                }))
                .expect("pod"),
            )
        };
        let state = ClusterState::new(
            vec![node_n1()],
            vec![
                pod("a", "web", "n1"),
                pod("b", "db", "n1"),
                pod("b", "web", "n1"),
                pod("c", "web", "elsewhere"),
            ],
            None,
        );
        let find = |ns: &str, name: &str| {
            state.find_pod(&PodRef {
                namespace: Arc::from(ns),
                name: name.into(),
            })
        };
        assert!(matches!(find("b", "web"), Some(FoundPod::Existing(2))));
        assert!(matches!(find("a", "web"), Some(FoundPod::Existing(0))));
        assert!(matches!(find("c", "web"), Some(FoundPod::Other(p)) if &*p.id.name == "web"));
        assert!(find("a", "db").is_none());
        assert!(find("z", "web").is_none());
        // Existing pods hold their node's own name; the others keep theirs.
        assert!(
            state
                .pods
                .iter()
                .all(|p| Arc::ptr_eq(&p.node_name, &state.node_names[0]))
        );
        assert_eq!(&*state.other_pods[0].node_name, "elsewhere");
    }

    /// A replica of workload `x` on node `n1`, with a toleration and a pod anti-affinity term.
    fn workload_pod(name: &str) -> Pod {
        Pod::from_api(
            &serde_json::from_value(serde_json::json!({
                "metadata": {"name": name, "namespace": "ns", "labels": {"app": "x"}},
                "spec": {"nodeName": "n1", "containers": [{"name": "c"}],
                    "tolerations": [{"key": "k", "operator": "Exists"}],
                    "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "zone"}]}}},
                "status": {"phase": "Running"}
            }))
            .expect("pod"),
        )
    }

    fn node_n1() -> Node {
        Node::from(
            serde_json::from_value::<core::Node>(serde_json::json!({"metadata": {"name": "n1"}}))
                .expect("node"),
        )
    }

    /// Replicas holding one template (as a page's decoder gives them) end up holding one
    /// copy of it, with the tolerations of an earlier pod that has equal ones and the terms
    /// of the index's group; the template of a pod alone is changed where it is.
    #[test]
    fn replicas_holding_one_template_share_its_kept_copy() {
        let (pod, node) = (workload_pod, node_n1());
        let first = pod("a");
        let alone = Arc::as_ptr(&first.template);
        let replica = pod("b");
        let mut again = replica.clone();
        again.id = Arc::new(PodRef {
            namespace: replica.id.namespace.clone(),
            name: "c".into(),
        });
        let given = Arc::as_ptr(&replica.template);
        let state = ClusterState::new(vec![node], vec![first, replica, again], None);
        let [a, b, c] = [0, 1, 2].map(|i| &state.pods[i]);
        assert_eq!(Arc::as_ptr(&a.template), alone, "changed where it was");
        assert!(
            Arc::ptr_eq(&b.template, &c.template),
            "one copy for the replicas"
        );
        assert_ne!(
            Arc::as_ptr(&b.template),
            given,
            "the copy, not the given one"
        );
        assert!(Arc::ptr_eq(
            &a.template.tolerations,
            &b.template.tolerations
        ));
        let terms = |p: &Pod| p.template.pod_affinity.clone().expect("terms");
        assert!(Arc::ptr_eq(&terms(a), &terms(b)));
        let groups = state.index.affinity_groups();
        assert_eq!(groups.len(), 1);
        assert!(Arc::ptr_eq(&groups[0].terms, &terms(c)));
        assert_eq!(groups[0].pods, vec![0, 1, 2]);
    }

    /// Replicas whose template holds the kept parts already (a workload's terms are its own)
    /// or a toleration set held beyond it (a decoding thread's) keep it as given, and so
    /// does a node name the replicas share: nothing is copied, and nothing is swapped into
    /// each replica, whose reference counts the decoding thread still updates.
    #[test]
    fn replicas_holding_the_kept_parts_keep_their_template_and_node_name() {
        let (pod, node) = (workload_pod, node_n1());
        let mut state = ClusterState::new(vec![node], vec![pod("a")], None);
        // Another template (another Arc) holding the kept tolerations and the group's terms.
        let given = Arc::new((*state.pods[0].template).clone());
        let name: Arc<str> = Arc::from("n1");
        for replica in ["b", "c"] {
            let mut p = pod(replica);
            p.template = given.clone();
            p.node_name = name.clone();
            state.add_pod(p);
        }
        for p in &state.pods[1..] {
            assert!(Arc::ptr_eq(&p.template, &given), "kept as given");
            assert!(Arc::ptr_eq(&p.node_name, &name), "the shared name kept");
        }
        assert_eq!(state.index.affinity_groups()[0].pods, vec![0, 1, 2]);
        // A template whose parts are not the kept ones is still copied and given them.
        let mut other = pod("d");
        let held = Arc::new((*other.template).clone());
        other.template = held.clone();
        state.add_pod(other);
        let d = &state.pods[3];
        assert!(!Arc::ptr_eq(&d.template, &held), "copied");
        assert!(Arc::ptr_eq(
            &d.template.tolerations,
            &state.pods[0].template.tolerations
        ));
        // The group's terms and an equal toleration set of its own that something else
        // holds too (as a decoding thread holds the sets it built): kept as given, set and all.
        let cache: Arc<[Toleration]> = Arc::from(state.pods[0].template.tolerations.to_vec());
        let mut t = (*state.pods[0].template).clone();
        t.tolerations = cache.clone();
        let held = Arc::new(t);
        let mut e = pod("e");
        e.template = held.clone();
        state.add_pod(e);
        assert!(Arc::ptr_eq(&state.pods[4].template, &held), "kept as given");
        assert!(Arc::ptr_eq(&state.pods[4].template.tolerations, &cache));
    }

    /// The same copy given twice in a row is replaced without a lookup, by what it was
    /// replaced with the first time; equal copies still meet in one, others stay apart.
    #[test]
    fn shared_copies_given_again_take_the_kept_copy() {
        let mut shared: Shared<Labels> = Shared::default();
        let labels = |v: &str| Arc::new(Labels::from([("app".to_string(), v.to_string())]));
        let mut first = labels("x");
        shared.share(&mut first);
        let page = labels("x");
        let (mut a, mut b) = (page.clone(), page.clone());
        shared.share(&mut a);
        shared.share(&mut b);
        assert!(Arc::ptr_eq(&a, &first) && Arc::ptr_eq(&b, &first));
        let mut other = labels("y");
        shared.share(&mut other);
        assert_eq!(other.get("app"), Some("y"));
        let mut again = page.clone();
        shared.share(&mut again);
        assert!(Arc::ptr_eq(&again, &first));
        assert_eq!(shared.set.len(), 2);
    }

    /// A pod built from an owned API object keeps every field read, and an invalid selector
    /// in a term is reported with the term's path (formatted only then).
    #[test]
    fn owned_pod_fields_and_term_errors() {
        let api: core::Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "p", "labels": {"app": "x"}, "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u"},
                {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "ss", "uid": "v", "controller": true}]},
            "spec": {"nodeName": "n1", "priority": 7, "preemptionPolicy": "Never",
                "containers": [{"name": "c"}],
                "affinity": {
                    "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}},
                    "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                        {"topologyKey": "zone"},
                        {"topologyKey": "zone", "namespaceSelector":
                            {"matchExpressions": [{"key": "team", "operator": "In"}]}}]},
                    "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 5, "podAffinityTerm": {"topologyKey": "zone"}},
                        {"weight": 9, "podAffinityTerm": {"topologyKey": "zone", "labelSelector":
                            {"matchExpressions": [{"key": "a", "operator": "Bogus"}]}}}]}}},
            "status": {"phase": "Running"}
        }))
        .expect("pod");
        let pod = Pod::from_owned(api);
        assert_eq!((&*pod.id.namespace, &*pod.id.name), ("default", "p"));
        assert_eq!(pod.labels.get("app"), Some("x"));
        assert_eq!(
            (&*pod.node_name, pod.template.phase.as_ref()),
            ("n1", "Running")
        );
        assert_eq!(pod.template.scheduler_name, "default-scheduler");
        assert_eq!(
            (pod.template.priority, pod.template.preempt_never),
            (7, true)
        );
        assert!(pod.template.node_affinity.is_some());
        assert_eq!(pod.controller.as_ref().map(|c| c.name.as_str()), Some("ss"));
        let terms = &pod
            .template
            .pod_affinity
            .as_ref()
            .expect("terms")
            .preferred_anti_affinity;
        assert_eq!(terms.iter().map(|t| t.weight).collect::<Vec<_>>(), [5, 9]);
        let errors = &pod.template.pod_affinity.as_ref().expect("terms").errors;
        assert_eq!(errors.len(), 2, "{errors:?}");
        let paths = [
            "podAffinity.requiredDuringSchedulingIgnoredDuringExecution[1].namespaceSelector: ",
            "podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[1].podAffinityTerm.labelSelector: ",
        ];
        for (error, path) in errors.iter().zip(paths) {
            assert!(error.starts_with(path), "{error}");
        }
    }

    /// Nodes listed out of name order: each gets its rank among the names, and each cached
    /// image lists the nodes that have it (under any of its names, once per node).
    #[test]
    fn node_name_ranks_and_image_nodes() {
        let node = |name: &str, images: &str| {
            format!(
                r#"{{"apiVersion":"v1","kind":"Node","metadata":{{"name":"{name}"}},
                    "status":{{"images":[{images}]}}}}"#
            )
        };
        let big = r#"{"names":["reg/big:1","reg/big@sha256:aa"],"sizeBytes":500000000}"#;
        let small = r#"{"names":["reg/small:1"],"sizeBytes":1000}"#;
        let text = format!(
            r#"{{"apiVersion":"v1","kind":"List","items":[{},{},{}]}}"#,
            node("node-c", big),
            node("node-a", small),
            node("node-b", &format!("{big},{small}")),
        );
        let state = read_snapshot_str(&text, "t").expect("read");
        assert_eq!(state.name_rank, [2, 0, 1]);
        let names: Vec<&str> = state.node_names.iter().map(|n| &**n).collect();
        assert_eq!(names, ["node-c", "node-a", "node-b"]);
        let big = &state.images["reg/big:1"];
        assert_eq!((big.nodes(), big.on_nodes.as_slice()), (2, &[0, 2][..]));
        assert_eq!(state.images["reg/big@sha256:aa"].on_nodes, [0, 2]);
        assert_eq!(state.images["reg/small:1"].on_nodes, [1, 2]);
    }
}
