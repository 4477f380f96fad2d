//! The cluster model: nodes, pods and namespaces in the compact, indexed form the evaluation
//! reads, plus the offline file reader.
//!
//! Objects arrive as k8s-openapi values (from a snapshot file or the API) and are folded into
//! this model once: label selectors are parsed here, pods are indexed by node, and terminal or
//! unbound pods are set aside, so the evaluation never walks raw API objects again.

mod manifest;
mod read;
mod yaml;

use std::collections::{BTreeMap, HashMap};

use k8s_openapi::api::core::v1 as core;
use serde::Serialize;

pub use manifest::{ManifestPod, merge_match_label_keys, read_pod_manifests};
pub use read::{
    Located, SourceError, parse_documents, read_objects, read_snapshot, read_snapshot_str,
};
pub use yaml::to_yaml_string;

use crate::scheduler::selector::{LabelSelector, Labels};

/// `namespace/name`, the way kubectl and the scheduler's logs name a pod.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct PodRef {
    pub namespace: String,
    pub name: String,
}

impl std::fmt::Display for PodRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Taint {
    pub key: String,
    pub value: String,
    pub effect: String,
}

/// A toleration with upstream's empty-string defaults made explicit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Toleration {
    pub key: String,
    pub operator: String,
    pub value: String,
    pub effect: String,
}

impl From<&core::Toleration> for Toleration {
    fn from(t: &core::Toleration) -> Self {
        Toleration {
            key: t.key.clone().unwrap_or_default(),
            operator: t.operator.clone().unwrap_or_default(),
            value: t.value.clone().unwrap_or_default(),
            effect: t.effect.clone().unwrap_or_default(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Node {
    pub name: String,
    pub labels: Labels,
    pub taints: Vec<Taint>,
    pub unschedulable: bool,
}

impl From<&core::Node> for Node {
    fn from(n: &core::Node) -> Self {
        let spec = n.spec.as_ref();
        Node {
            name: n.metadata.name.clone().unwrap_or_default(),
            labels: n.metadata.labels.clone().unwrap_or_default(),
            taints: spec
                .and_then(|s| s.taints.as_ref())
                .into_iter()
                .flatten()
                .map(|t| Taint {
                    key: t.key.clone(),
                    value: t.value.clone().unwrap_or_default(),
                    effect: t.effect.clone(),
                })
                .collect(),
            unschedulable: spec.and_then(|s| s.unschedulable).unwrap_or(false),
        }
    }
}

/// A pod (anti-)affinity term, parsed. The namespace set follows
/// `getNamespacesFromPodAffinityTerm`: no names and no selector means the owner's namespace.
#[derive(Debug, Clone)]
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

/// The four term lists of a pod's `podAffinity` / `podAntiAffinity`.
#[derive(Debug, Clone, Default)]
pub struct PodAffinity {
    pub required_affinity: Vec<AffinityTerm>,
    pub required_anti_affinity: Vec<AffinityTerm>,
    pub preferred_affinity: Vec<AffinityTerm>,
    pub preferred_anti_affinity: Vec<AffinityTerm>,
}

/// A pod as the evaluation needs it. For the incoming pod the raw node affinity is kept;
/// existing pods only need identity, labels and their pod-affinity terms.
#[derive(Debug, Clone)]
pub struct Pod {
    pub id: PodRef,
    pub labels: Labels,
    pub node_name: String,
    pub phase: String,
    pub scheduler_name: String,
    pub terminating: bool,
    pub node_selector: Option<Labels>,
    pub node_affinity: Option<Box<core::NodeAffinity>>,
    pub tolerations: Vec<Toleration>,
    /// `Some` when the pod has a `podAffinity` or `podAntiAffinity` stanza.
    pub pod_affinity: Option<Box<PodAffinity>>,
    /// Parse errors in the pod's affinity label selectors (rejected by API validation, so only
    /// seen in hand-written manifests): upstream fails PreFilter/PreScore for such a pod.
    pub affinity_errors: Vec<String>,
}

impl Pod {
    pub fn from_api(p: &core::Pod) -> Pod {
        let namespace = p
            .metadata
            .namespace
            .clone()
            .unwrap_or_else(|| "default".to_string());
        let spec = p.spec.as_ref();
        let mut errors = Vec::new();
        let affinity = spec.and_then(|s| s.affinity.as_ref());
        let pod_affinity = affinity
            .filter(|a| a.pod_affinity.is_some() || a.pod_anti_affinity.is_some())
            .map(|a| Box::new(parse_pod_affinity(a, &namespace, &mut errors)));
        Pod {
            id: PodRef {
                namespace,
                name: p.metadata.name.clone().unwrap_or_default(),
            },
            labels: p.metadata.labels.clone().unwrap_or_default(),
            node_name: spec.and_then(|s| s.node_name.clone()).unwrap_or_default(),
            phase: p
                .status
                .as_ref()
                .and_then(|s| s.phase.clone())
                .unwrap_or_default(),
            scheduler_name: spec
                .and_then(|s| s.scheduler_name.clone())
                .unwrap_or_else(|| "default-scheduler".to_string()),
            terminating: p.metadata.deletion_timestamp.is_some(),
            node_selector: spec.and_then(|s| s.node_selector.clone()),
            node_affinity: affinity.and_then(|a| a.node_affinity.clone()).map(Box::new),
            tolerations: spec
                .and_then(|s| s.tolerations.as_ref())
                .into_iter()
                .flatten()
                .map(Toleration::from)
                .collect(),
            pod_affinity,
            affinity_errors: errors,
        }
    }

    /// Succeeded and Failed pods hold no resources and are filtered out of the scheduler's
    /// pod informer.
    pub fn is_terminal(&self) -> bool {
        self.phase == "Succeeded" || self.phase == "Failed"
    }

    /// Every (anti-)affinity term of the pod, required and preferred.
    pub fn affinity_terms(&self) -> impl Iterator<Item = &AffinityTerm> {
        self.pod_affinity.as_deref().into_iter().flat_map(|a| {
            a.required_affinity
                .iter()
                .chain(&a.required_anti_affinity)
                .chain(&a.preferred_affinity)
                .chain(&a.preferred_anti_affinity)
        })
    }
}

fn parse_term(
    t: &core::PodAffinityTerm,
    weight: i32,
    owner_ns: &str,
    what: &str,
    errors: &mut Vec<String>,
) -> AffinityTerm {
    let selector = LabelSelector::from_api(t.label_selector.as_ref()).unwrap_or_else(|e| {
        errors.push(format!("{what}.labelSelector: {e}"));
        LabelSelector::Nothing
    });
    let namespace_selector =
        LabelSelector::from_api(t.namespace_selector.as_ref()).unwrap_or_else(|e| {
            errors.push(format!("{what}.namespaceSelector: {e}"));
            LabelSelector::Nothing
        });
    let names = t.namespaces.clone().unwrap_or_default();
    let namespaces = if names.is_empty() && t.namespace_selector.is_none() {
        vec![owner_ns.to_string()]
    } else {
        names
    };
    AffinityTerm {
        selector,
        namespaces,
        namespace_selector,
        topology_key: t.topology_key.clone(),
        weight,
    }
}

fn parse_pod_affinity(a: &core::Affinity, ns: &str, errors: &mut Vec<String>) -> PodAffinity {
    let req = |terms: Option<&Vec<core::PodAffinityTerm>>, what: &str, errors: &mut Vec<String>| {
        terms
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, t)| parse_term(t, 0, ns, &format!("{what}[{i}]"), errors))
            .collect::<Vec<_>>()
    };
    let pref = |terms: Option<&Vec<core::WeightedPodAffinityTerm>>,
                what: &str,
                errors: &mut Vec<String>| {
        terms
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, t)| {
                parse_term(
                    &t.pod_affinity_term,
                    t.weight,
                    ns,
                    &format!("{what}[{i}].podAffinityTerm"),
                    errors,
                )
            })
            .collect::<Vec<_>>()
    };
    let pa = a.pod_affinity.as_ref();
    let paa = a.pod_anti_affinity.as_ref();
    PodAffinity {
        required_affinity: req(
            pa.and_then(|p| {
                p.required_during_scheduling_ignored_during_execution
                    .as_ref()
            }),
            "podAffinity.requiredDuringSchedulingIgnoredDuringExecution",
            errors,
        ),
        required_anti_affinity: req(
            paa.and_then(|p| {
                p.required_during_scheduling_ignored_during_execution
                    .as_ref()
            }),
            "podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution",
            errors,
        ),
        preferred_affinity: pref(
            pa.and_then(|p| {
                p.preferred_during_scheduling_ignored_during_execution
                    .as_ref()
            }),
            "podAffinity.preferredDuringSchedulingIgnoredDuringExecution",
            errors,
        ),
        preferred_anti_affinity: pref(
            paa.and_then(|p| {
                p.preferred_during_scheduling_ignored_during_execution
                    .as_ref()
            }),
            "podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution",
            errors,
        ),
    }
}

/// What the scheduler's snapshot would hold: nodes, the pods bound to them, namespaces.
#[derive(Debug, Clone, Default)]
pub struct ClusterState {
    pub nodes: Vec<Node>,
    node_index: HashMap<String, usize>,
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
}

impl ClusterState {
    /// Builds the model; terminal pods and pods on unknown nodes are kept aside, exactly as the
    /// scheduler's cache never sees them.
    pub fn new(
        nodes: Vec<Node>,
        pods: Vec<Pod>,
        namespaces: Option<BTreeMap<String, Labels>>,
    ) -> ClusterState {
        let node_index: HashMap<String, usize> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.clone(), i))
            .collect();
        let mut state = ClusterState {
            pods_by_node: vec![Vec::new(); nodes.len()],
            nodes,
            node_index,
            namespaces,
            ..Default::default()
        };
        for pod in pods {
            state.add_pod(pod);
        }
        state
    }

    pub fn add_pod(&mut self, pod: Pod) {
        match self.node_index.get(&pod.node_name) {
            Some(&n) if !pod.is_terminal() => {
                self.pods_by_node[n].push(self.pods.len());
                self.pod_node.push(n);
                self.pods.push(pod);
            }
            _ => self.other_pods.push(pod),
        }
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

    /// Finds a pod by namespace and name: the index among existing pods, or a copy of a pod
    /// that is not an existing pod.
    pub fn find_pod(&self, id: &PodRef) -> Option<FoundPod<'_>> {
        if let Some(i) = self.pods.iter().position(|p| &p.id == id) {
            return Some(FoundPod::Existing(i));
        }
        self.other_pods
            .iter()
            .find(|p| &p.id == id)
            .map(FoundPod::Other)
    }
}

#[derive(Debug, Clone, Copy)]
pub enum FoundPod<'a> {
    Existing(usize),
    Other(&'a Pod),
}
