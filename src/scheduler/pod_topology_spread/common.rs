//! What filtering and scoring share (upstream's `common.go`): the constraints the plugin
//! applies to a pod, with their defaults and final selectors; the default constraints'
//! selector (`helper.DefaultSelector`); the nodes whose pods count; the pods counted on a
//! node.

use std::collections::BTreeMap;

use crate::scheduler::config::{FeatureGates, PodTopologySpreadArgs};
use crate::scheduler::plugin::Input;
use crate::scheduler::taint_toleration::tolerated_by;
use crate::state::labels::Labels;
use crate::state::selector::{LabelSelector, NodeSelector, Op, Requirement};
use crate::state::{ClusterState, Node, OwnerKind, Pod, SpreadConstraint, WorkloadSelectors};

/// `v1.DoNotSchedule`: a hard constraint, which Filter checks.
pub(super) const DO_NOT_SCHEDULE: &str = "DoNotSchedule";
/// `v1.ScheduleAnyway`: a soft constraint, which Score weighs.
pub(super) const SCHEDULE_ANYWAY: &str = "ScheduleAnyway";

/// Upstream's internal `topologySpreadConstraint`: defaults applied, selector final.
#[derive(Debug, Clone)]
pub(super) struct Constraint {
    /// Position in the list it came from (the pod's or the profile's defaults).
    pub(super) index: usize,
    pub(super) max_skew: i32,
    pub(super) topology_key: String,
    pub(super) selector: LabelSelector,
    pub(super) min_domains: i32,
    pub(super) honor_node_affinity: bool,
    pub(super) honor_node_taints: bool,
}

/// `nodeaffinity.GetRequiredNodeAffinity`: nodeSelector AND required node affinity, parse
/// errors meaning "no match" (upstream ignores them here for backwards compatibility).
#[derive(Debug)]
pub(super) struct RequiredNodeAffinity<'a> {
    node_selector: Option<&'a Labels>,
    affinity: Option<NodeSelector>,
}

impl<'a> RequiredNodeAffinity<'a> {
    pub(super) fn of(pod: &'a Pod) -> Self {
        RequiredNodeAffinity {
            node_selector: pod
                .template
                .node_selector
                .as_deref()
                .filter(|s| !s.is_empty()),
            affinity: pod
                .template
                .node_affinity
                .as_deref()
                .and_then(|a| {
                    a.required_during_scheduling_ignored_during_execution
                        .as_ref()
                })
                .map(NodeSelector::parse),
        }
    }

    pub(super) fn matches(&self, node: &Node) -> bool {
        self.node_selector
            .is_none_or(|s| s.iter().all(|(k, v)| node.labels.get(k) == Some(v)))
            && self
                .affinity
                .as_ref()
                .is_none_or(|a| a.matches(&node.name, &node.labels))
    }
}

/// `helper.DefaultSelector`: the union of the selectors of the pod's Services, plus its
/// controller's (ReplicationController map, ReplicaSet/StatefulSet requirements), looked up by
/// namespace and name. Empty means default constraints do not apply.
pub fn default_selector(pod: &Pod, workloads: Option<&WorkloadSelectors>) -> Vec<Requirement> {
    let Some(w) = workloads else {
        return Vec::new();
    };
    let ns: &str = &pod.id.namespace;
    // Services that select the pod cannot conflict on a key; a later one wins like
    // `labels.Merge`.
    let mut set: BTreeMap<String, String> = BTreeMap::new();
    for sel in w.services.get(ns).into_iter().flatten() {
        if sel.iter().all(|(k, v)| pod.labels.get(k) == Some(v)) {
            set.extend(sel.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        }
    }
    let from_set = |set: &BTreeMap<String, String>| -> Vec<Requirement> {
        set.iter()
            .map(|(k, v)| Requirement {
                key: k.clone(),
                op: Op::Equals(v.clone()),
            })
            .collect()
    };
    let mut selector = from_set(&set);
    let Some((owner, kind)) = pod
        .controller
        .as_deref()
        .and_then(|o| Some((o, OwnerKind::of(o)?)))
    else {
        return selector;
    };
    let key = (ns.to_string(), owner.name.clone());
    match kind {
        OwnerKind::ReplicationController => {
            if let Some(rc) = w.replication_controllers.get(&key) {
                set.extend(rc.iter().map(|(k, v)| (k.to_string(), v.to_string())));
                selector = from_set(&set);
            }
        }
        OwnerKind::ReplicaSet => {
            if let Some(reqs) = w.replica_sets.get(&key) {
                selector.extend(reqs.iter().cloned());
            }
        }
        OwnerKind::StatefulSet => {
            if let Some(reqs) = w.stateful_sets.get(&key) {
                selector.extend(reqs.iter().cloned());
            }
        }
    }
    selector
}

/// Whether default spreading would apply but the cluster source held no Service, ReplicaSet,
/// ReplicationController or StatefulSet, so no selector can be derived and the default
/// constraints do nothing: the report says so.
pub fn defaults_without_workloads(
    pod: &Pod,
    state: &ClusterState,
    args: &PodTopologySpreadArgs,
) -> bool {
    default_spreading_applies(pod, args) && state.workloads().is_none()
}

/// Whether the profile's default constraints apply to `pod`: it has none of its own and the
/// profile has some. Only then does `helper.DefaultSelector` read its Services and
/// controller.
pub fn default_spreading_applies(pod: &Pod, args: &PodTopologySpreadArgs) -> bool {
    pod.template.topology_spread.is_empty() && !args.default_constraints.is_empty()
}

/// `countPodsMatchSelector`: same namespace, not terminating, labels match; an everything
/// selector counts nothing.
pub(super) fn count_pods(input: &Input<'_>, node: usize, selector: &LabelSelector) -> i64 {
    if selector.is_everything() {
        return 0;
    }
    let state = input.state;
    let ns = &input.pod.id.namespace;
    state
        .pods_on(node)
        .iter()
        .filter(|&&i| !input.is_excluded(i))
        .filter_map(|&i| state.pods().get(i))
        .filter(|p| !p.terminating && p.id.namespace == *ns && selector.matches(&p.labels))
        .count() as i64
}

/// `nodeLabelsMatchSpreadConstraints`: the node has every constraint's topology key.
pub(super) fn has_all_keys(labels: &Labels, constraints: &[Constraint]) -> bool {
    constraints
        .iter()
        .all(|c| labels.contains_key(&c.topology_key))
}

/// `filterTopologySpreadConstraints`: the constraints with `action`, selectors parsed,
/// matchLabelKeys merged, defaults for minDomains and the inclusion policies.
fn convert(
    pod: &Pod,
    gates: &FeatureGates,
    list: &[SpreadConstraint],
    action: &str,
) -> Result<Vec<Constraint>, String> {
    let mut out = Vec::new();
    for (index, c) in list.iter().enumerate() {
        if c.when_unsatisfiable != action {
            continue;
        }
        let mut selector = c.selector.clone()?;
        if gates.match_label_keys_in_pod_topology_spread() {
            let extra: BTreeMap<&str, &str> = c
                .match_label_keys
                .iter()
                .filter_map(|k| pod.labels.get_key_value(k))
                .collect();
            // `mergeLabelSetWithSelector`: a null selector stays "nothing".
            if let (false, LabelSelector::Requirements(reqs)) = (extra.is_empty(), &selector) {
                let mut merged: Vec<Requirement> = extra
                    .into_iter()
                    .map(|(k, v)| Requirement {
                        key: k.to_string(),
                        op: Op::Equals(v.to_string()),
                    })
                    .collect();
                merged.extend(reqs.iter().cloned());
                selector = LabelSelector::Requirements(merged);
            }
        }
        let (mut affinity, mut taints) = (true, false);
        if gates.node_inclusion_policy_in_pod_topology_spread() {
            if let Some(p) = &c.node_affinity_policy {
                affinity = p == "Honor";
            }
            if let Some(p) = &c.node_taints_policy {
                taints = p == "Honor";
            }
        }
        out.push(Constraint {
            index,
            max_skew: c.max_skew,
            topology_key: c.topology_key.clone(),
            selector,
            min_domains: c.min_domains.unwrap_or(1),
            honor_node_affinity: affinity,
            honor_node_taints: taints,
        });
    }
    Ok(out)
}

/// `getConstraints` / `initPreScoreState`: the pod's own constraints of one kind, or, when it
/// has none at all, the profile's defaults with the derived selector.
pub(super) fn constraints(
    input: Input<'_>,
    args: &PodTopologySpreadArgs,
    gates: &FeatureGates,
    action: &str,
) -> Result<Vec<Constraint>, String> {
    let pod = input.pod;
    let kind = if action == DO_NOT_SCHEDULE {
        "hard"
    } else {
        "soft"
    };
    if !pod.template.topology_spread.is_empty() {
        return convert(pod, gates, &pod.template.topology_spread, action)
            .map_err(|e| format!("obtaining pod's {kind} topology spread constraints: {e}"));
    }
    let mut c = convert(pod, gates, &args.default_constraints, action)
        .map_err(|e| format!("setting default {kind} topology spread constraints: {e}"))?;
    if c.is_empty() {
        return Ok(c);
    }
    let selector = default_selector(pod, input.state.workloads());
    if selector.is_empty() {
        return Ok(Vec::new());
    }
    for x in &mut c {
        x.selector = LabelSelector::Requirements(selector.clone());
    }
    Ok(c)
}

impl Constraint {
    /// `matchNodeInclusionPolicies`: whether the node's pods count for the constraint.
    pub(super) fn match_node_inclusion_policies(
        &self,
        pod: &Pod,
        node: &Node,
        required: &RequiredNodeAffinity<'_>,
        gates: &FeatureGates,
    ) -> bool {
        if self.honor_node_affinity && !required.matches(node) {
            return false;
        }
        if self.honor_node_taints {
            let untolerated = node.taints.iter().any(|t| {
                (t.effect == "NoSchedule" || t.effect == "NoExecute")
                    && tolerated_by(&pod.template.tolerations, t, gates).is_none()
            });
            if untolerated {
                return false;
            }
        }
        true
    }
}
