//! The cluster state: nodes and the pods bound to them, folded in once and indexed for the
//! evaluation, with what was read beside them (`objects.rs`).

use std::collections::BTreeMap;
use std::sync::Arc;

use foldhash::{HashMap as FastMap, HashSet as FastSet};

use super::admission::AdmissionObjects;
use super::disruption_budget::DisruptionBudget;
use super::index::{PodIndex, Topology};
use super::interned::Shared;
use super::labels::Labels;
use super::node::Node;
use super::objects::Objects;
use super::pod::{ControllerRef, Pod, PodRef, PodTemplate};
use super::priority_class::PriorityClass;
use super::resources::{HostPort, PodResources, Resources, normalized_image_name};
use super::taints::Toleration;
use super::volumes::Volumes;
use super::workloads::WorkloadSelectors;

/// What the scheduler's snapshot would hold: nodes, the pods bound to them, and the objects
/// read beside them.
///
/// Most of it is derived from the nodes and the pods (names, ranks, usage, images, the index,
/// the topology) and must stay in step with them: the fields are private, read through
/// accessors, and changed only by the methods that keep what is derived in step.
#[derive(Debug, Clone, Default)]
pub struct ClusterState {
    nodes: Vec<Node>,
    node_index: FastMap<String, usize>,
    /// Per node, its position among all nodes' names: the report orders the nodes by name
    /// with integers, not string comparisons.
    name_rank: Vec<u32>,
    /// Per node, its name, shared by the report's entry for the node (one count, not one
    /// copy, per node and evaluation).
    node_names: Vec<Arc<str>>,
    /// Pods bound to a known node and not terminal: the scheduler's "existing pods".
    pods: Vec<Pod>,
    /// Node index of each existing pod.
    pod_node: Vec<usize>,
    /// Existing pods per node (indexes into `pods`).
    pods_by_node: Vec<Vec<usize>>,
    /// Pods that are not existing pods (pending, terminal, or bound to an unknown node), kept so
    /// that `explain` can find them.
    other_pods: Vec<Pod>,
    /// Everything read beside the nodes and pods, moved whole when the state is rebuilt.
    objects: Objects,
    /// Per node, what its existing pods hold (`NodeInfo.Requested` and friends), summed
    /// once here so the resource plugins never walk the pods.
    node_usage: Vec<NodeUsage>,
    /// Per image name in any node's `status.images`: the size the scheduler's cache keeps
    /// (the first node's) and on how many nodes it is.
    images: FastMap<String, ImageSpread>,
    /// Existing pods by label and by distinct affinity terms.
    index: PodIndex,
    /// Node label values numbered per key (topology domains).
    topology: Topology,
    /// One copy of each distinct label set and toleration list among the pods.
    shared_labels: Shared<Labels>,
    shared_tolerations: Shared<[Toleration]>,
    shared_controllers: Shared<ControllerRef>,
    /// The last template given to [`ClusterState::add_pod`] and the copy it was replaced by.
    last_template: Option<(Arc<PodTemplate>, Arc<PodTemplate>)>,
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
    /// Builds the model from the nodes, the pods and what was read beside them; terminal
    /// pods and pods on unknown nodes are kept aside, exactly as the scheduler's cache never
    /// sees them.
    pub fn new(nodes: Vec<Node>, pods: Vec<Pod>, objects: Objects) -> ClusterState {
        let node_index: FastMap<String, usize> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.clone(), i))
            .collect();
        // foldhash: SipHash over every image name of a large cluster's nodes showed in
        // profiles.
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
            objects,
            ..Default::default()
        };
        // Room for as many pods as the nodes may run (their allocatable `pods`, as
        // NodeResourcesFit counts them), so that the vectors of pods are not copied as they
        // grow (the copies, and the fresh pages they write, held up the thread that reads
        // the pages). Only the pages written are ever resident.
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

    /// Adds a pod read from the source. Labels and tolerations are much of the model's
    /// memory, and replicas carry equal ones: each distinct set is kept once,
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

    /// Forgets every pod, as a pod list that restarted does, and what they added (usage, the
    /// index, the kept copies); the nodes, and what was read beside them, stay.
    pub fn clear_pods(&mut self) {
        let mut state = std::mem::take(self);
        let nodes = std::mem::take(&mut state.nodes);
        *self = state.with_nodes_and_pods(nodes, Vec::new());
    }

    /// The same cluster with these nodes and pods, what was read beside them kept: edits to
    /// try (`state::edits`) rebuild the state through it, so everything derived from nodes
    /// and pods is derived again.
    pub fn with_nodes_and_pods(self, nodes: Vec<Node>, pods: Vec<Pod>) -> ClusterState {
        ClusterState::new(nodes, pods, self.objects)
    }

    /// What was read beside the nodes and pods.
    #[inline]
    pub fn objects(&self) -> &Objects {
        &self.objects
    }

    /// What was read beside the nodes and pods, to add to: a live read asks for some of it
    /// once the pods are read, and `whatif` adds what its workload would create. Nothing is
    /// derived from it.
    pub fn objects_mut(&mut self) -> &mut Objects {
        &mut self.objects
    }

    /// The latest FailedScheduling event of a pod, when the source held events.
    pub fn scheduling_event(
        &self,
        namespace: &str,
        name: &str,
    ) -> Option<&super::events::SchedulingEvent> {
        self.objects.scheduling_event(namespace, name)
    }

    #[inline]
    pub fn disruption_budgets(&self) -> &[DisruptionBudget] {
        self.objects.disruption_budgets()
    }

    #[inline]
    pub fn priority_classes(&self) -> &[PriorityClass] {
        self.objects.priority_classes()
    }

    #[inline]
    pub fn admission_objects(&self) -> &AdmissionObjects {
        self.objects.admission()
    }

    /// The storage objects, to add what a `whatif` workload would create (its
    /// volumeClaimTemplates' claims); `None` when none were read.
    pub fn volumes_mut(&mut self) -> Option<&mut Volumes> {
        self.objects.volumes_mut()
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
            .all(|i| self.objects.node_images().keeps(&normalized_image_name(i)))
    }

    #[inline]
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.node_index.get(name).copied()
    }

    /// The node's name, shared by the report's entry for it (one count, not one copy, per
    /// node and evaluation).
    #[inline]
    pub fn node_name(&self, node: usize) -> &Arc<str> {
        &self.node_names[node]
    }

    /// The node's position among all nodes' names.
    #[inline]
    pub fn name_rank(&self, node: usize) -> u32 {
        self.name_rank[node]
    }

    /// What the existing pods of the node hold.
    #[inline]
    pub fn node_usage(&self, node: usize) -> &NodeUsage {
        &self.node_usage[node]
    }

    /// The existing pods: bound to a known node and not terminal.
    #[inline]
    pub fn pods(&self) -> &[Pod] {
        &self.pods
    }

    /// The node index of existing pod `pod`.
    #[inline]
    pub fn pod_node(&self, pod: usize) -> usize {
        self.pod_node[pod]
    }

    /// The node index of each existing pod.
    #[inline]
    pub fn pod_nodes(&self) -> &[usize] {
        &self.pod_node
    }

    /// The existing pods on the node (indexes into [`ClusterState::pods`]).
    #[inline]
    pub fn pods_on(&self, node: usize) -> &[usize] {
        &self.pods_by_node[node]
    }

    /// The pods that are not existing pods (pending, terminal, or bound to an unknown node).
    #[inline]
    pub fn other_pods(&self) -> &[Pod] {
        &self.other_pods
    }

    /// The existing pods by label and by distinct affinity terms.
    #[inline]
    pub fn index(&self) -> &PodIndex {
        &self.index
    }

    /// The node label values numbered per key (topology domains).
    #[inline]
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// The size and the nodes of an image, by any of its names in the nodes' `status.images`.
    #[inline]
    pub fn image(&self, name: &str) -> Option<&ImageSpread> {
        self.images.get(name)
    }

    /// Namespace labels by name; `None` when namespaces were not read at all.
    #[inline]
    pub fn namespaces(&self) -> Option<&BTreeMap<String, Labels>> {
        self.objects.namespaces()
    }

    /// Services, ReplicaSets, ReplicationControllers and StatefulSets; `None` when the
    /// source held none of these kinds, so default spreading cannot be derived.
    #[inline]
    pub fn workloads(&self) -> Option<&WorkloadSelectors> {
        self.objects.workloads()
    }

    /// The storage objects; `None` when the source held none of their kinds.
    #[inline]
    pub fn volumes(&self) -> Option<&Volumes> {
        self.objects.volumes()
    }

    /// Labels of a namespace; a namespace without an object reads as having no labels, as
    /// upstream's `GetNamespaceLabelsSnapshot` does.
    pub fn namespace_labels(&self, name: &str) -> Labels {
        self.namespaces()
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
        // By the index's namespace numbers first: comparing every pod's name and namespace
        // was on the critical path of a live run, between its last page and the evaluation.
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

#[derive(Debug, Clone, Copy)]
pub enum FoundPod<'a> {
    Existing(usize),
    Other(&'a Pod),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{Kinds, read_snapshot_str};
    use k8s_openapi::api::core::v1 as core;

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

    /// Rebuilding with other nodes and pods (edits, a restarted pod list) keeps every object
    /// read beside them: admission's, preemption's, the scheduler's events.
    #[test]
    fn rebuilding_keeps_what_was_read_beside_nodes_and_pods() {
        let text = r#"apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}}
- apiVersion: v1
  kind: LimitRange
  metadata: {name: defaults, namespace: ns}
  spec: {limits: [{type: Container, defaultRequest: {cpu: 100m}}]}
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: db, namespace: ns}
  spec: {selector: {matchLabels: {app: db}}, maxUnavailable: 0}
  status: {disruptionsAllowed: 0}
- apiVersion: v1
  kind: Event
  metadata: {name: p.1, namespace: ns}
  involvedObject: {kind: Pod, name: p, namespace: ns}
  reason: FailedScheduling
  message: "0/1 nodes are available"
  lastTimestamp: "2026-01-01T00:00:00Z"
"#;
        let kept = |s: &ClusterState| {
            (
                s.admission_objects().limit_ranges.len(),
                s.disruption_budgets().len(),
                s.scheduling_event("ns", "p").map(|e| e.message.clone()),
            )
        };
        let want = (1, 1, Some("0/1 nodes are available".to_string()));
        let mut state = read_snapshot_str(text, "t").expect("read");
        assert_eq!(kept(&state), want);
        let nodes = state.nodes().to_vec();
        let rebuilt = state.clone().with_nodes_and_pods(nodes, Vec::new());
        assert_eq!(kept(&rebuilt), want);
        state.clear_pods();
        assert_eq!(kept(&state), want);
        assert_eq!(state.nodes().len(), 1);
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
            Objects::default(),
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

    /// A restarted pod list leaves the nodes and what was set beside them, and nothing the
    /// pods added: pods added again are numbered from the first.
    #[test]
    fn clearing_the_pods_keeps_the_nodes_and_nothing_of_the_pods() {
        let mut state =
            ClusterState::new(vec![node_n1()], vec![workload_pod("a")], Objects::default());
        let mut unbound = workload_pod("pending");
        unbound.node_name = Arc::from("");
        state.add_pod(unbound);
        state.objects_mut().read(Kinds::Namespaces);
        state.objects_mut().read(Kinds::Workloads);
        state.clear_pods();
        assert!(state.pods().is_empty() && state.other_pods().is_empty());
        assert!(state.pods_on(0).is_empty() && state.pod_nodes().is_empty());
        assert_eq!(state.node_usage(0).pods, 0);
        assert!(state.index().affinity_groups().is_empty());
        assert_eq!(state.node_index("n1"), Some(0));
        assert!(state.namespaces().is_some() && state.workloads().is_some());
        state.add_pod(workload_pod("b"));
        assert_eq!((state.pods_on(0), state.pod_node(0)), (&[0][..], 0));
        assert_eq!(state.node_usage(0).pods, 1);
        assert_eq!(state.index().affinity_groups()[0].pods, vec![0]);
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
        let state = ClusterState::new(vec![node], vec![first, replica, again], Objects::default());
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
        let mut state = ClusterState::new(vec![node], vec![pod("a")], Objects::default());
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
