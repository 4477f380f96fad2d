//! PodTopologySpread (`pkg/scheduler/framework/plugins/podtopologyspread`): hard constraints
//! (`DoNotSchedule`) filter, soft ones (`ScheduleAnyway`) score; a pod without any constraint
//! gets the profile's default constraints, with a selector derived from the Services and the
//! controller that select it (`helper.DefaultSelector`).
//!
//! As upstream, PreFilter counts matching pods per topology domain over *all* nodes once, and
//! Filter is a lookup per node; PreScore counts over all nodes for the domains of the
//! candidates. Every constraint is evaluated on every node so the user sees all of them; the
//! status is the first failing constraint's, as upstream returns.
//!
//! The spec and the oracle cases agree; where they and older upstream copies differ, this
//! follows the newest code (which the cases record):
//! - an everything selector (`labelSelector: {}` with no matchLabelKeys added) counts no
//!   existing pod (`countPodsMatchSelector` bails out on an empty selector), while the incoming
//!   pod still matches itself;
//! - matchLabelKeys cannot revive a null selector: it keeps matching nothing.

pub mod explain;

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::config::{DefaultingType, FeatureGates, PodTopologySpreadArgs};
use super::plugin::{Input, MAX_NODE_SCORE, Plugin, missing_cycle_state};
use super::plugin_id::PluginId;
use super::status::{Code, PreFilterOutcome, PreScoreOutcome, Status};
use super::taint_toleration::tolerated_by;
use crate::state::labels::Labels;
use crate::state::selector::{LabelSelector, NodeSelector, Op, Requirement};
use crate::state::{ClusterState, Node, OwnerKind, Pod, SpreadConstraint, WorkloadSelectors};

/// `ErrReasonConstraintsNotMatch`: the skew would exceed maxSkew.
pub const REASON_CONSTRAINTS_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints";
/// `ErrReasonNodeLabelNotMatch`: the node lacks a hard constraint's topology key.
pub const REASON_NODE_LABEL_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints (missing required label)";

/// `v1.LabelHostname`: scoring counts this key per node instead of per domain.
pub const LABEL_HOSTNAME: &str = "kubernetes.io/hostname";

const DO_NOT_SCHEDULE: &str = "DoNotSchedule";
const SCHEDULE_ANYWAY: &str = "ScheduleAnyway";

/// Where a constraint the plugin uses comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ConstraintSource {
    /// The pod's own `spec.topologySpreadConstraints`.
    Pod,
    /// `defaultingType: System`: upstream's built-in soft constraints.
    SystemDefault,
    /// `defaultingType: List`: the profile's `defaultConstraints`.
    ListDefault,
}

/// Upstream's internal `topologySpreadConstraint`: defaults applied, selector final.
#[derive(Debug, Clone)]
struct Constraint {
    /// Position in the list it came from (the pod's or the profile's defaults).
    index: usize,
    max_skew: i32,
    topology_key: String,
    selector: LabelSelector,
    min_domains: i32,
    honor_node_affinity: bool,
    honor_node_taints: bool,
}

/// One constraint the plugin applies to the pod, with its cluster-wide counts.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConstraintTable {
    /// `DoNotSchedule` (Filter) or `ScheduleAnyway` (Score).
    pub when_unsatisfiable: &'static str,
    pub source: ConstraintSource,
    /// Position in the pod's constraint list (or in the default constraints).
    pub index: usize,
    pub topology_key: String,
    /// The final selector (matchLabelKeys merged, or derived for default constraints).
    pub selector: String,
    pub max_skew: i32,
    /// Only hard constraints use it.
    pub min_domains: i32,
    pub node_affinity_policy: &'static str,
    pub node_taints_policy: &'static str,
    pub incoming_pod_matches: bool,
    /// Domain value -> matching pods. Hard: every eligible domain, zeros included. Soft: the
    /// candidates' domains (empty for the hostname key, which is counted per node).
    pub domains: BTreeMap<String, i64>,
    /// Hard: the global minimum the skew is measured against (0 when there are fewer domains
    /// than minDomains).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_min: Option<i64>,
    /// Soft: `ln(domains + 2)`, the factor applied to each count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
}

/// The pod-level view for the report; nodes refer to constraints by position here.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpreadTables {
    pub constraints: Vec<ConstraintTable>,
}

/// One hard constraint on one node.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConstraintOnNode {
    /// Index into `topologySpread.constraints`.
    pub constraint: usize,
    pub topology_key: String,
    /// The node's value for the key; `None` when the node lacks it.
    pub domain: Option<String>,
    /// Matching pods already in that domain.
    pub matching_pods: i64,
    /// Whether the incoming pod matches the selector itself (adds 1 to the domain).
    pub self_match: bool,
    pub global_min: i64,
    /// Eligible domains of this constraint.
    pub domains: usize,
    pub min_domains: i32,
    /// Fewer eligible domains than minDomains forced the global minimum to 0.
    pub min_domains_forced_zero: bool,
    /// `matching + self - min`; `None` when the node lacks the key.
    pub skew: Option<i64>,
    pub max_skew: i32,
    /// Whether this node's own pods count toward its domain (it carries every hard key and
    /// passes the constraint's inclusion policies).
    pub node_counted: bool,
    pub satisfied: bool,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FilterDetails {
    pub constraints: Vec<ConstraintOnNode>,
}

/// One soft constraint's part of a node's raw score.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConstraintScore {
    /// Index into `topologySpread.constraints`.
    pub constraint: usize,
    pub topology_key: String,
    /// `None` when the node lacks the key: the constraint adds nothing.
    pub domain: Option<String>,
    /// Matching pods in the domain (on the node itself for the hostname key).
    pub matching_pods: i64,
    pub weight: f64,
    pub max_skew: i32,
    /// `matching × weight + (maxSkew − 1)`, or 0 without the key.
    pub value: f64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreDetails {
    /// The node lacks a topology key of a non-system-default constraint: raw and final 0, and
    /// it takes no part in normalization.
    pub ignored: bool,
    pub constraints: Vec<ConstraintScore>,
}

/// What would make a node take the pod within a hard spread constraint.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Change {
    /// Placing the pod in the node's domain would reach this skew (`matching + self - global
    /// minimum`), above the constraint's maxSkew; `skew` is absent when the node lacks the
    /// topology key.
    Skew {
        topology_key: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        domain: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        skew: Option<i64>,
        max_skew: i32,
    },
}

/// What makes the plugin reject the nodes it rejects most.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all_fields = "camelCase")]
pub enum Cause {
    /// A DoNotSchedule spread constraint: placing the pod makes the skew exceed maxSkew.
    Skew { topology_key: String, max_skew: i32 },
}

/// `nodeaffinity.GetRequiredNodeAffinity`: nodeSelector AND required node affinity, parse
/// errors meaning "no match" (upstream ignores them here for backwards compatibility).
#[derive(Debug)]
struct RequiredNodeAffinity<'a> {
    node_selector: Option<&'a Labels>,
    affinity: Option<NodeSelector>,
}

impl<'a> RequiredNodeAffinity<'a> {
    fn of(pod: &'a Pod) -> Self {
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

    fn matches(&self, node: &Node) -> bool {
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
fn count_pods(input: &Input<'_>, node: usize, selector: &LabelSelector, ns: &str) -> i64 {
    if selector.is_everything() {
        return 0;
    }
    let state = input.state;
    state
        .pods_on(node)
        .iter()
        .filter(|&&i| !input.is_excluded(i))
        .filter_map(|&i| state.pods().get(i))
        .filter(|p| !p.terminating && *p.id.namespace == *ns && selector.matches(&p.labels))
        .count() as i64
}

fn has_all_keys(labels: &Labels, constraints: &[Constraint]) -> bool {
    constraints
        .iter()
        .all(|c| labels.contains_key(&c.topology_key))
}

fn policy_name(honor: bool) -> &'static str {
    if honor { "Honor" } else { "Ignore" }
}

/// `topologyNormalizingWeight`.
fn normalizing_weight(size: usize) -> f64 {
    ((size + 2) as f64).ln()
}

#[derive(Debug)]
pub struct PodTopologySpread<'a> {
    input: Input<'a>,
    gates: &'a FeatureGates,
    args: &'a PodTopologySpreadArgs,
    required: RequiredNodeAffinity<'a>,
    pre_filtered: bool,
    hard: Vec<Constraint>,
    /// Per hard constraint: eligible domain -> matching pods.
    hard_counts: Vec<HashMap<String, i64>>,
    /// Per hard constraint: the minimum over its domains (`i32::MAX` when it has none, as
    /// upstream's critical paths start).
    hard_min: Vec<i64>,
    /// Per node: whether its pods count, per hard constraint.
    hard_counted: Vec<Vec<bool>>,
    pre_scored: bool,
    soft: Vec<Constraint>,
    soft_counts: Vec<HashMap<String, i64>>,
    weights: Vec<f64>,
    /// Per node index: a candidate that lacks some soft key (and is not scored).
    ignored: Vec<bool>,
    candidates: Vec<usize>,
    /// Offset of the soft constraints in `tables.constraints`.
    soft_offset: usize,
    tables: SpreadTables,
}

impl<'a> PodTopologySpread<'a> {
    pub fn new(input: Input<'a>, args: &'a PodTopologySpreadArgs, gates: &'a FeatureGates) -> Self {
        PodTopologySpread {
            input,
            gates,
            args,
            required: RequiredNodeAffinity::of(input.pod),
            pre_filtered: false,
            hard: Vec::new(),
            hard_counts: Vec::new(),
            hard_min: Vec::new(),
            hard_counted: Vec::new(),
            pre_scored: false,
            soft: Vec::new(),
            soft_counts: Vec::new(),
            weights: Vec::new(),
            ignored: Vec::new(),
            candidates: Vec::new(),
            soft_offset: 0,
            tables: SpreadTables::default(),
        }
    }

    /// `filterTopologySpreadConstraints`: the constraints with `action`, selectors parsed,
    /// matchLabelKeys merged, defaults for minDomains and the inclusion policies.
    fn convert(&self, list: &[SpreadConstraint], action: &str) -> Result<Vec<Constraint>, String> {
        let pod = self.input.pod;
        let mut out = Vec::new();
        for (index, c) in list.iter().enumerate() {
            if c.when_unsatisfiable != action {
                continue;
            }
            let mut selector = c.selector.clone()?;
            if self.gates.match_label_keys_in_pod_topology_spread() {
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
            if self.gates.node_inclusion_policy_in_pod_topology_spread() {
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

    /// `getConstraints` / `initPreScoreState`: the pod's own constraints of one kind, or, when
    /// it has none at all, the defaults with the derived selector.
    fn constraints(&self, action: &str) -> Result<(Vec<Constraint>, ConstraintSource), String> {
        let pod = self.input.pod;
        let kind = if action == DO_NOT_SCHEDULE {
            "hard"
        } else {
            "soft"
        };
        if !pod.template.topology_spread.is_empty() {
            let c = self
                .convert(&pod.template.topology_spread, action)
                .map_err(|e| format!("obtaining pod's {kind} topology spread constraints: {e}"))?;
            return Ok((c, ConstraintSource::Pod));
        }
        let source = match self.args.defaulting_type {
            DefaultingType::System => ConstraintSource::SystemDefault,
            DefaultingType::List => ConstraintSource::ListDefault,
        };
        let mut c = self
            .convert(&self.args.default_constraints, action)
            .map_err(|e| format!("setting default {kind} topology spread constraints: {e}"))?;
        if c.is_empty() {
            return Ok((c, source));
        }
        let selector = default_selector(pod, self.input.state.workloads());
        if selector.is_empty() {
            return Ok((Vec::new(), source));
        }
        for x in &mut c {
            x.selector = LabelSelector::Requirements(selector.clone());
        }
        Ok((c, source))
    }

    /// `matchNodeInclusionPolicies`.
    fn included(&self, c: &Constraint, node: &Node) -> bool {
        if c.honor_node_affinity && !self.required.matches(node) {
            return false;
        }
        if c.honor_node_taints {
            let untolerated = node.taints.iter().any(|t| {
                (t.effect == "NoSchedule" || t.effect == "NoExecute")
                    && tolerated_by(&self.input.pod.template.tolerations, t, self.gates).is_none()
            });
            if untolerated {
                return false;
            }
        }
        true
    }

    fn table(
        &self,
        c: &Constraint,
        action: &'static str,
        source: ConstraintSource,
        domains: BTreeMap<String, i64>,
    ) -> ConstraintTable {
        ConstraintTable {
            when_unsatisfiable: action,
            source,
            index: c.index,
            topology_key: c.topology_key.clone(),
            selector: c.selector.to_string(),
            max_skew: c.max_skew,
            min_domains: c.min_domains,
            node_affinity_policy: policy_name(c.honor_node_affinity),
            node_taints_policy: policy_name(c.honor_node_taints),
            incoming_pod_matches: c.selector.matches(&self.input.pod.labels),
            domains,
            global_min: None,
            weight: None,
        }
    }

    /// The global minimum for constraint `i`, minDomains applied (`minMatchNum`).
    fn global_min(&self, i: usize) -> (i64, bool) {
        let domains = self.hard_counts[i].len();
        if (domains as i64) < i64::from(self.hard[i].min_domains) {
            (0, true)
        } else {
            (self.hard_min[i], false)
        }
    }
}

impl PodTopologySpread<'_> {
    /// Filter on `node` with the existing pods `removed` (all on `node`) taken out of what
    /// PreFilter counted: upstream's `RemovePod` (`updateWithPod` with -1) followed by
    /// Filter, for preemption's dry run. Only the node's own domain loses pods, so its count
    /// drops and the minimum can only fall to it. Upstream's quirk is kept: `updateWithPod`
    /// does not skip a terminating pod, which PreFilter never counted.
    fn filter_without(
        &self,
        node: usize,
        removed: &[usize],
    ) -> (Option<Status>, Option<Box<FilterDetails>>) {
        if !self.pre_filtered {
            return (
                Some(Status::new(
                    Code::Error,
                    missing_cycle_state("PreFilter", PluginId::PodTopologySpread),
                )),
                None,
            );
        }
        let n = self.input.node(node);
        let pod_labels = &self.input.pod.labels;
        let mut status = None;
        let mut constraints = Vec::with_capacity(self.hard.len());
        for (i, c) in self.hard.iter().enumerate() {
            let domain = n.labels.get(&c.topology_key).map(str::to_string);
            let (global_min, forced) = self.global_min(i);
            let self_match = c.selector.matches(pod_labels);
            let node_counted = self
                .hard_counted
                .get(node)
                .and_then(|v| v.get(i))
                .copied()
                .unwrap_or(false);
            let taken_out = if node_counted {
                let pods = self.input.state.pods();
                removed
                    .iter()
                    .filter(|&&p| {
                        pods[p].id.namespace == self.input.pod.id.namespace
                            && c.selector.matches(&pods[p].labels)
                    })
                    .count() as i64
            } else {
                0
            };
            let matching = domain
                .as_ref()
                .and_then(|d| self.hard_counts[i].get(d))
                .copied()
                .unwrap_or(0)
                - taken_out;
            // The node's domain is one of the counted ones when pods were taken out of it.
            let global_min = if !forced && taken_out > 0 {
                global_min.min(matching)
            } else {
                global_min
            };
            let skew = domain
                .as_ref()
                .map(|_| matching + i64::from(self_match) - global_min);
            let satisfied = skew.is_some_and(|s| s <= i64::from(c.max_skew));
            if status.is_none() && !satisfied {
                status = Some(if skew.is_none() {
                    Status::new(
                        Code::UnschedulableAndUnresolvable,
                        REASON_NODE_LABEL_NOT_MATCH,
                    )
                } else {
                    Status::new(Code::Unschedulable, REASON_CONSTRAINTS_NOT_MATCH)
                });
            }
            constraints.push(ConstraintOnNode {
                constraint: i,
                topology_key: c.topology_key.clone(),
                domain,
                matching_pods: matching,
                self_match,
                global_min,
                domains: self.hard_counts[i].len(),
                min_domains: c.min_domains,
                min_domains_forced_zero: forced,
                skew,
                max_skew: c.max_skew,
                node_counted,
                satisfied,
            });
        }
        (status, Some(Box::new(FilterDetails { constraints })))
    }
}

impl Plugin for PodTopologySpread<'_> {
    type FilterDetails = Box<FilterDetails>;
    type ScoreDetails = ScoreDetails;
    type Tables = SpreadTables;

    fn pre_filter(&mut self) -> PreFilterOutcome {
        self.pre_filtered = true;
        let (hard, source) = match self.constraints(DO_NOT_SCHEDULE) {
            Ok(x) => x,
            Err(e) => {
                return PreFilterOutcome::Reject(Status::new(
                    Code::Error,
                    format!("get constraints from pod: {e}"),
                ));
            }
        };
        if hard.is_empty() {
            return PreFilterOutcome::Skip;
        }
        let input = self.input;
        let ns = &input.pod.id.namespace;
        let gate = self.gates.node_inclusion_policy_in_pod_topology_spread();
        let mut counts: Vec<HashMap<String, i64>> = vec![HashMap::new(); hard.len()];
        let mut counted = vec![vec![false; hard.len()]; input.state.nodes().len()];
        for (n, node) in input.state.nodes().iter().enumerate() {
            if !gate && !self.required.matches(node) {
                continue;
            }
            if !has_all_keys(&node.labels, &hard) {
                continue;
            }
            for (i, c) in hard.iter().enumerate() {
                if gate && !self.included(c, node) {
                    continue;
                }
                let Some(value) = node.labels.get(&c.topology_key) else {
                    continue;
                };
                let count = count_pods(&input, n, &c.selector, ns);
                *counts[i].entry(value.to_string()).or_insert(0) += count;
                counted[n][i] = true;
            }
        }
        self.hard_min = counts
            .iter()
            .map(|m| m.values().copied().min().unwrap_or(i64::from(i32::MAX)))
            .collect();
        self.hard_counts = counts;
        self.hard_counted = counted;
        self.hard = hard;
        for i in 0..self.hard.len() {
            let domains: BTreeMap<String, i64> = self.hard_counts[i]
                .iter()
                .map(|(k, v)| (k.clone(), *v))
                .collect();
            let mut t = self.table(&self.hard[i], DO_NOT_SCHEDULE, source, domains);
            t.global_min = Some(self.global_min(i).0);
            self.tables.constraints.push(t);
        }
        self.soft_offset = self.tables.constraints.len();
        PreFilterOutcome::Proceed(None)
    }

    fn filter(&self, node: usize) -> (Option<Status>, Option<Self::FilterDetails>) {
        self.filter_without(node, &[])
    }

    fn filter_removing(&self, node: usize, removed: &[usize]) -> Option<Option<Status>> {
        Some(self.filter_without(node, removed).0)
    }

    fn pre_score(&mut self, candidates: &[usize]) -> PreScoreOutcome {
        self.pre_scored = true;
        let input = self.input;
        let nodes = input.state.nodes();
        if nodes.is_empty() {
            return PreScoreOutcome::Skip;
        }
        // Nodes without a zone label are still scored by hostname under system defaults.
        let require_all = !input.pod.template.topology_spread.is_empty()
            || self.args.defaulting_type != DefaultingType::System;
        let (soft, source) = match self.constraints(SCHEDULE_ANYWAY) {
            Ok(x) => x,
            Err(e) => return PreScoreOutcome::Error(format!("calculating preScoreState: {e}")),
        };
        if soft.is_empty() {
            return PreScoreOutcome::Skip;
        }
        let mut counts: Vec<HashMap<String, i64>> = vec![HashMap::new(); soft.len()];
        let mut ignored = vec![false; nodes.len()];
        let mut ignored_count = 0;
        for &c in candidates {
            let Some(node) = nodes.get(c) else { continue };
            if require_all && !has_all_keys(&node.labels, &soft) {
                ignored[c] = true;
                ignored_count += 1;
                continue;
            }
            for (i, con) in soft.iter().enumerate() {
                if con.topology_key == LABEL_HOSTNAME {
                    continue;
                }
                let value = node
                    .labels
                    .get(&con.topology_key)
                    .unwrap_or_default()
                    .to_string();
                counts[i].entry(value).or_insert(0);
            }
        }
        self.weights = soft
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let size = if c.topology_key == LABEL_HOSTNAME {
                    candidates.len().saturating_sub(ignored_count)
                } else {
                    counts[i].len()
                };
                normalizing_weight(size)
            })
            .collect();
        let gate = self.gates.node_inclusion_policy_in_pod_topology_spread();
        let ns = &input.pod.id.namespace;
        for (n, node) in nodes.iter().enumerate() {
            if !gate && !self.required.matches(node) {
                continue;
            }
            if require_all && !has_all_keys(&node.labels, &soft) {
                continue;
            }
            for (i, c) in soft.iter().enumerate() {
                if gate && !self.included(c, node) {
                    continue;
                }
                let value = node.labels.get(&c.topology_key).unwrap_or_default();
                if !counts[i].contains_key(value) {
                    continue;
                }
                let count = count_pods(&input, n, &c.selector, ns);
                if let Some(x) = counts[i].get_mut(value) {
                    *x += count;
                }
            }
        }
        self.ignored = ignored;
        self.candidates = candidates.to_vec();
        self.soft_counts = counts;
        self.soft = soft;
        self.soft_offset = self.tables.constraints.len();
        for i in 0..self.soft.len() {
            let domains: BTreeMap<String, i64> = self.soft_counts[i]
                .iter()
                .map(|(k, v)| (k.clone(), *v))
                .collect();
            let mut t = self.table(&self.soft[i], SCHEDULE_ANYWAY, source, domains);
            t.weight = Some(self.weights[i]);
            self.tables.constraints.push(t);
        }
        PreScoreOutcome::Proceed
    }

    fn score(&self, node: usize) -> Result<(i64, Option<Self::ScoreDetails>), String> {
        if !self.pre_scored {
            return Err(format!(
                "error {}",
                missing_cycle_state("PreScore", PluginId::PodTopologySpread)
            ));
        }
        if self.ignored.get(node).copied().unwrap_or(false) {
            return Ok((
                0,
                Some(ScoreDetails {
                    ignored: true,
                    constraints: Vec::new(),
                }),
            ));
        }
        let input = self.input;
        let n = input.node(node);
        let mut score = 0.0_f64;
        let mut parts = Vec::with_capacity(self.soft.len());
        for (i, c) in self.soft.iter().enumerate() {
            let weight = self.weights.get(i).copied().unwrap_or(0.0);
            let domain = n.labels.get(&c.topology_key).map(str::to_string);
            let (matching, value) = match &domain {
                Some(v) => {
                    let cnt = if c.topology_key == LABEL_HOSTNAME {
                        count_pods(&input, node, &c.selector, &input.pod.id.namespace)
                    } else {
                        self.soft_counts[i].get(v).copied().unwrap_or(0)
                    };
                    let value = cnt as f64 * weight + f64::from(c.max_skew.wrapping_sub(1));
                    score += value;
                    (cnt, value)
                }
                None => (0, 0.0),
            };
            parts.push(ConstraintScore {
                constraint: self.soft_offset + i,
                topology_key: c.topology_key.clone(),
                domain,
                matching_pods: matching,
                weight,
                max_skew: c.max_skew,
                value,
            });
        }
        // Go's math.Round: half away from zero, like f64::round.
        Ok((
            score.round() as i64,
            Some(ScoreDetails {
                ignored: false,
                constraints: parts,
            }),
        ))
    }

    /// `(max + min − raw) / max` over the non-ignored candidates; ignored ones get 0. Upstream
    /// marks ignored nodes with −1 and then treats any −1 as ignored; that is kept.
    fn normalize(&self, scores: &mut [i64]) {
        const INVALID: i64 = -1;
        let mut min = i64::MAX;
        let mut max = 0_i64;
        for (k, s) in scores.iter_mut().enumerate() {
            let ignored = self
                .candidates
                .get(k)
                .and_then(|&c| self.ignored.get(c))
                .copied()
                .unwrap_or(false);
            if ignored {
                *s = INVALID;
                continue;
            }
            min = min.min(*s);
            max = max.max(*s);
        }
        for s in scores.iter_mut() {
            if *s == INVALID {
                *s = 0;
            } else if max == 0 {
                *s = MAX_NODE_SCORE;
            } else {
                *s = MAX_NODE_SCORE.wrapping_mul(max.wrapping_add(min).wrapping_sub(*s)) / max;
            }
        }
    }

    fn tables(&mut self) -> Option<SpreadTables> {
        (!self.tables.constraints.is_empty()).then(|| self.tables.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::FilterDetails as AnyFilterDetails;
    use crate::scheduler::profile::Profile;
    use crate::scheduler::{Evaluation, evaluate};
    use crate::state::read_snapshot_str;
    use serde_json::{Value, json};

    fn node(name: &str, labels: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}})
    }

    fn existing(name: &str, ns: &str, labels: Value, node: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": ns, "labels": labels},
               "spec": {"nodeName": node, "containers": [{"name": "c", "image": "x"}]}})
    }

    fn incoming(labels: Value, spec: Value) -> Pod {
        let mut spec = spec;
        spec["containers"] = json!([{"name": "c", "image": "x"}]);
        let p: k8s_openapi::api::core::v1::Pod = serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default", "labels": labels,
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                              "name": "rs1", "uid": "u", "controller": true}]},
            "spec": spec
        }))
        .expect("pod");
        Pod::from_api(&p)
    }

    /// Preemption's dry run takes pods out of what PreFilter counted (`filter_without`): on
    /// every node and for every set of its pods, the answer is the one PreFilter gives on a
    /// state without those pods, for a zone constraint whose minimum moves, a hostname one,
    /// and minDomains above the domains there are.
    #[test]
    fn taking_pods_out_agrees_with_prefiltering_without_them() {
        use crate::scheduler::config::{FeatureGates, PodTopologySpreadArgs};
        let zone = |name: &str, z: &str| {
            node(
                name,
                json!({"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": z,
                       "pool": "x"}),
            )
        };
        let web = |name: &str, node: &str| existing(name, "default", json!({"app": "web"}), node);
        let items = vec![
            zone("a", "z1"),
            zone("b", "z1"),
            zone("c", "z2"),
            node("d", json!({"kubernetes.io/hostname": "d"})),
            // Outside the first pod's nodeSelector: its zone is not counted.
            node(
                "e",
                json!({"kubernetes.io/hostname": "e", "topology.kubernetes.io/zone": "z3"}),
            ),
            web("w0", "a"),
            web("w1", "a"),
            existing("other-ns", "prod", json!({"app": "web"}), "a"),
            existing("db", "default", json!({"app": "db"}), "a"),
            web("w2", "c"),
            web("w3", "b"),
            web("w4", "d"),
        ];
        let state = read_snapshot_str(
            &json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
            "test",
        )
        .expect("snapshot");
        let gates = FeatureGates::default();
        let args = PodTopologySpreadArgs::default();
        let spread = |key: &str, max_skew: i32, min_domains: Option<i32>| {
            let mut c = json!({"maxSkew": max_skew, "topologyKey": key,
                               "whenUnsatisfiable": "DoNotSchedule",
                               "labelSelector": {"matchLabels": {"app": "web"}}});
            if let Some(m) = min_domains {
                c["minDomains"] = json!(m);
            }
            c
        };
        let pods = [
            incoming(
                json!({"app": "web"}),
                json!({"nodeSelector": {"pool": "x"}, "topologySpreadConstraints": [
                    spread("topology.kubernetes.io/zone", 1, None),
                    spread("kubernetes.io/hostname", 2, None)]}),
            ),
            incoming(
                json!({"app": "web"}),
                json!({"topologySpreadConstraints": [
                    spread("topology.kubernetes.io/zone", 1, Some(3))]}),
            ),
        ];
        let mut compared = 0;
        for pod in &pods {
            let input = Input {
                pod,
                state: &state,
                exclude: None,
                removed: &[],
            };
            let mut cycle = PodTopologySpread::new(input, &args, &gates);
            cycle.pre_filter();
            for n in 0..state.nodes().len() {
                let on = state.pods_on(n);
                for mask in 0..(1u32 << on.len()) {
                    let mut removed: Vec<usize> = (0..on.len())
                        .filter(|i| mask & (1 << i) != 0)
                        .map(|i| on[i])
                        .collect();
                    removed.sort_unstable();
                    let mut fresh = PodTopologySpread::new(
                        Input {
                            removed: &removed,
                            ..input
                        },
                        &args,
                        &gates,
                    );
                    fresh.pre_filter();
                    let show = |(status, details): (Option<Status>, Option<Box<FilterDetails>>)| {
                        format!("{status:?} {:?}", details.expect("details").constraints)
                    };
                    assert_eq!(
                        show(cycle.filter_without(n, &removed)),
                        show(fresh.filter(n)),
                        "node {n}, removed {removed:?}"
                    );
                    compared += 1;
                }
            }
        }
        assert_eq!(compared, 2 * (16 + 2 + 2 + 2 + 1));
        // A node whose zone is not counted (e) is measured against the counted minimum (z2's
        // one pod), never against its own empty count.
        let input = Input {
            pod: &pods[0],
            state: &state,
            exclude: None,
            removed: &[],
        };
        let mut plugin = PodTopologySpread::new(input, &args, &gates);
        plugin.pre_filter();
        let e = state.node_index("e").expect("node e");
        let (status, details) = plugin.filter(e);
        let zone = &details.expect("details").constraints[0];
        assert_eq!(
            (zone.matching_pods, zone.global_min, zone.skew),
            (0, 1, Some(0))
        );
        assert!(status.is_none());
    }

    fn run(pod: &Pod, items: Vec<Value>, args: Value, gates: &str) -> Evaluation {
        let state = read_snapshot_str(
            &json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
            "test",
        )
        .expect("snapshot");
        let cfg = json!({
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{
                "plugins": {"multiPoint": {"enabled": [{"name": "PodTopologySpread"}],
                                           "disabled": [{"name": "*"}]}},
                "pluginConfig": [{"name": "PodTopologySpread", "args": args}],
            }]
        });
        let profile = Profile::from_config(
            &cfg,
            "default-scheduler",
            FeatureGates::parse(gates).expect("gates"),
            "t",
        )
        .expect("profile");
        evaluate(
            Input {
                pod,
                state: &state,
                exclude: None,
                removed: &[],
            },
            &profile,
        )
    }

    /// Per node: "ok", "skew" (Unschedulable) or "label" (UnschedulableAndUnresolvable).
    fn verdicts(e: &Evaluation) -> Vec<(String, &'static str)> {
        e.nodes
            .iter()
            .map(|n| {
                let s = n.filters.first().and_then(|f| f.status);
                let v = match s.map(|s| (s.code, s.message())) {
                    None => "ok",
                    Some((Code::Unschedulable, m)) if m == REASON_CONSTRAINTS_NOT_MATCH => "skew",
                    Some((Code::UnschedulableAndUnresolvable, m))
                        if m == REASON_NODE_LABEL_NOT_MATCH =>
                    {
                        "label"
                    }
                    Some(_) => "other",
                };
                (n.name.to_string(), v)
            })
            .collect()
    }

    fn zones() -> Vec<Value> {
        vec![
            node("a", json!({"zone": "z1"})),
            node("b", json!({"zone": "z2"})),
            node("c", json!({"zone": "z3"})),
        ]
    }

    #[test]
    fn filter_table() {
        let hard = |extra: Value| {
            let mut c = json!({"maxSkew": 1, "topologyKey": "zone",
                               "whenUnsatisfiable": "DoNotSchedule",
                               "labelSelector": {"matchLabels": {"app": "web"}}});
            if let (Some(c), Some(e)) = (c.as_object_mut(), extra.as_object()) {
                c.extend(e.clone());
            }
            json!({"topologySpreadConstraints": [c]})
        };
        let web = json!({"app": "web"});
        let two_in_a = || {
            let mut v = zones();
            v.push(existing("w1", "default", json!({"app": "web"}), "a"));
            v.push(existing("w2", "default", json!({"app": "web"}), "a"));
            v.push(existing("w3", "default", json!({"app": "web"}), "b"));
            v
        };
        let list = json!({"defaultingType": "List"});
        // (name, incoming pod, cluster objects, feature gates, verdict per node a/b/c)
        type Case<'a> = (&'a str, Pod, Vec<Value>, &'a str, [&'a str; 3]);
        let cases: Vec<Case> = vec![
            (
                "counts 2/1/0: only the empty zone fits",
                incoming(web.clone(), hard(json!({}))),
                two_in_a(),
                "",
                ["skew", "skew", "ok"],
            ),
            (
                "maxSkew 2 lets the middle zone in",
                incoming(web.clone(), hard(json!({"maxSkew": 2}))),
                two_in_a(),
                "",
                ["skew", "ok", "ok"],
            ),
            (
                "pod not matching its own selector adds nothing",
                incoming(json!({"app": "other"}), hard(json!({}))),
                two_in_a(),
                "",
                ["skew", "ok", "ok"],
            ),
            (
                "{} selector counts no existing pod, but self-matches",
                incoming(web.clone(), hard(json!({"labelSelector": {}}))),
                two_in_a(),
                "",
                ["ok", "ok", "ok"],
            ),
            (
                "null selector matches nothing, not even the pod",
                incoming(web.clone(), hard(json!({"labelSelector": null}))),
                two_in_a(),
                "",
                ["ok", "ok", "ok"],
            ),
            (
                "terminating and other-namespace pods do not count",
                incoming(web.clone(), hard(json!({}))),
                {
                    let mut v = zones();
                    let mut t = existing("t", "default", json!({"app": "web"}), "a");
                    t["metadata"]["deletionTimestamp"] = json!("2024-01-01T00:00:00Z");
                    v.push(t);
                    v.push(existing("o", "other", json!({"app": "web"}), "b"));
                    v
                },
                "",
                ["ok", "ok", "ok"],
            ),
            (
                "a node without the key: unresolvable, and not a domain",
                incoming(web.clone(), hard(json!({}))),
                {
                    let mut v = two_in_a();
                    v[2] = node("c", json!({}));
                    v
                },
                "",
                ["skew", "ok", "label"],
            ),
            (
                "minDomains above the domain count forces the minimum to 0",
                incoming(web.clone(), hard(json!({"minDomains": 4, "maxSkew": 2}))),
                two_in_a(),
                "",
                ["skew", "ok", "ok"],
            ),
            (
                "nodeTaintsPolicy Honor drops the tainted empty zone from the minimum",
                incoming(web.clone(), hard(json!({"nodeTaintsPolicy": "Honor"}))),
                {
                    let mut v = two_in_a();
                    v[2]["spec"] = json!({"taints": [{"key": "k", "effect": "NoSchedule"}]});
                    v
                },
                "",
                ["skew", "ok", "ok"],
            ),
            (
                "with the gate off nodeTaintsPolicy is ignored",
                incoming(web.clone(), hard(json!({"nodeTaintsPolicy": "Honor"}))),
                {
                    let mut v = two_in_a();
                    v[2]["spec"] = json!({"taints": [{"key": "k", "effect": "NoSchedule"}]});
                    v
                },
                "NodeInclusionPolicyInPodTopologySpread=false",
                ["skew", "skew", "ok"],
            ),
            (
                "nodeAffinityPolicy Honor (default) drops nodes outside the nodeSelector",
                incoming(
                    web.clone(),
                    json!({"nodeSelector": {"pool": "x"},
                           "topologySpreadConstraints": hard(json!({}))["topologySpreadConstraints"]}),
                ),
                {
                    let mut v = two_in_a();
                    v[0] = node("a", json!({"zone": "z1", "pool": "x"}));
                    v[1] = node("b", json!({"zone": "z2", "pool": "x"}));
                    v
                },
                "",
                ["skew", "ok", "ok"],
            ),
            (
                "matchLabelKeys narrows the selector to the pod's revision",
                incoming(
                    json!({"app": "web", "rev": "2"}),
                    hard(json!({"matchLabelKeys": ["rev"]})),
                ),
                two_in_a(),
                "",
                ["ok", "ok", "ok"],
            ),
            (
                "matchLabelKeys is ignored with its gate off",
                incoming(
                    json!({"app": "web", "rev": "2"}),
                    hard(json!({"matchLabelKeys": ["rev"]})),
                ),
                two_in_a(),
                "MatchLabelKeysInPodTopologySpread=false",
                ["skew", "skew", "ok"],
            ),
        ];
        for (name, pod, items, gates, want) in cases {
            let e = run(&pod, items, list.clone(), gates);
            let got = verdicts(&e);
            let got: Vec<&str> = got.iter().map(|(_, v)| *v).collect();
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn first_failing_constraint_decides_the_status() {
        let pod = incoming(
            json!({"app": "web"}),
            json!({"topologySpreadConstraints": [
                {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                 "labelSelector": {"matchLabels": {"app": "web"}}},
                {"maxSkew": 1, "topologyKey": "rack", "whenUnsatisfiable": "DoNotSchedule",
                 "labelSelector": {"matchLabels": {"app": "web"}}}]}),
        );
        let items = vec![
            node("a", json!({"zone": "z1", "rack": "r1"})),
            node("b", json!({"zone": "z2", "rack": "r2"})),
            node("c", json!({"zone": "z1"})),
            existing("w1", "default", json!({"app": "web"}), "a"),
            existing("w2", "default", json!({"app": "web"}), "a"),
        ];
        let e = run(&pod, items, json!({"defaultingType": "List"}), "");
        let v = verdicts(&e);
        // node-c fails the zone skew first, so it is Unschedulable, not unresolvable.
        assert_eq!(v[2], ("c".to_string(), "skew"));
        assert_eq!(v[1], ("b".to_string(), "ok"));
        let Some(AnyFilterDetails::PodTopologySpread(d)) =
            e.nodes[2].filters.first().and_then(|f| f.details)
        else {
            panic!("details");
        };
        assert_eq!(d.constraints[0].skew, Some(3));
        assert_eq!(d.constraints[1].domain, None);
        // c lacks rack, so its pods count for neither constraint.
        assert!(!d.constraints[0].node_counted);
    }

    fn scores(e: &Evaluation) -> Vec<i64> {
        e.nodes
            .iter()
            .filter_map(|n| n.scores.first().and_then(|s| s.normalized))
            .collect()
    }

    #[test]
    fn score_normalization_table() {
        let soft = |key: &str| {
            json!({"topologySpreadConstraints": [
                {"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "ScheduleAnyway",
                 "labelSelector": {"matchLabels": {"app": "web"}}}]})
        };
        let host = |n: &str| node(n, json!({"kubernetes.io/hostname": n, "zone": "z"}));
        let pods = |counts: &[(&str, usize)]| {
            let mut v = Vec::new();
            for (n, c) in counts {
                for i in 0..*c {
                    v.push(existing(
                        &format!("{n}{i}"),
                        "default",
                        json!({"app": "web"}),
                        n,
                    ));
                }
            }
            v
        };
        let mut spec_example = vec![host("a"), host("b"), host("c"), host("d")];
        spec_example.extend(pods(&[("a", 2), ("b", 1), ("d", 3)]));
        let mut with_ignored = vec![
            host("a"),
            host("b"),
            node("x", json!({"kubernetes.io/hostname": "x"})),
        ];
        with_ignored.extend(pods(&[("a", 2), ("x", 5)]));
        let cases: Vec<(&str, Pod, Vec<Value>, Vec<i64>)> = vec![
            (
                // ln 6 weights; raw 4, 2, 0, 5 -> 100*(5+0-raw)/5.
                "hostname counts 2/1/0/3",
                incoming(json!({"app": "web"}), soft("kubernetes.io/hostname")),
                spec_example,
                vec![20, 60, 100, 0],
            ),
            (
                "a candidate without the zone key is ignored: 0, out of min/max",
                incoming(json!({"app": "web"}), soft("zone")),
                with_ignored,
                vec![100, 100, 0],
            ),
        ];
        for (name, pod, items, want) in cases {
            let e = run(&pod, items, json!({"defaultingType": "List"}), "");
            assert_eq!(scores(&e), want, "{name}");
        }
    }

    #[test]
    fn default_constraints_need_an_owner_selector() {
        let nodes = || {
            vec![
                node("a", json!({"kubernetes.io/hostname": "a"})),
                node("b", json!({"kubernetes.io/hostname": "b"})),
                existing("w1", "default", json!({"app": "web"}), "a"),
            ]
        };
        let bare = incoming(json!({"app": "web"}), json!({}));
        // No Service/ReplicaSet: system defaults do nothing at all.
        let e = run(&bare, nodes(), json!({}), "");
        assert_eq!(e.pre_score[0].result, "Skip");
        // The owning ReplicaSet provides the selector; zone is optional under System.
        let mut items = nodes();
        items.push(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                          "metadata": {"name": "rs1", "namespace": "default"},
                          "spec": {"selector": {"matchLabels": {"app": "web"}}}}));
        let e = run(&bare, items.clone(), json!({}), "");
        assert_eq!(e.pre_score[0].result, "Success");
        // raw: a = 1*ln4 + 2 = 3.39 -> 3, b = 2; 100*(3+2-raw)/3.
        assert_eq!(scores(&e), vec![66, 100]);
        // A pod with its own (hard-only) constraints never gets defaults.
        let own = incoming(
            json!({"app": "web"}),
            json!({"topologySpreadConstraints": [
                {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
                 "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {}}]}),
        );
        let e = run(&own, items, json!({}), "");
        assert_eq!(e.pre_score[0].result, "Skip");
    }

    #[test]
    fn default_selector_table() {
        let labels: Labels = [("app", "web"), ("tier", "fe")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut w = WorkloadSelectors::default();
        w.services.insert(
            "default".into(),
            vec![
                [("app".to_string(), "web".to_string())].into(),
                [("app".to_string(), "db".to_string())].into(),
            ],
        );
        w.replication_controllers.insert(
            ("default".into(), "rc1".into()),
            [("tier".to_string(), "fe".to_string())].into(),
        );
        w.replica_sets.insert(
            ("default".into(), "rs1".into()),
            vec![Requirement {
                key: "tier".into(),
                op: Op::Exists,
            }],
        );
        let owned = |api: &str, kind: &str, name: &str| {
            let mut p = incoming(json!({"app": "web", "tier": "fe"}), json!({}));
            p.labels = std::sync::Arc::new(labels.clone());
            p.controller = Some(std::sync::Arc::new(crate::state::ControllerRef {
                api_version: api.into(),
                kind: kind.into(),
                name: name.into(),
            }));
            p
        };
        let cases: Vec<(&str, Pod, &str)> = vec![
            (
                "service + ReplicaSet",
                owned("apps/v1", "ReplicaSet", "rs1"),
                "app=web,tier",
            ),
            (
                "service + RC",
                owned("v1", "ReplicationController", "rc1"),
                "app=web,tier=fe",
            ),
            (
                "old API group is not recognised",
                owned("extensions/v1beta1", "ReplicaSet", "rs1"),
                "app=web",
            ),
            (
                "Deployment owners add nothing",
                owned("apps/v1", "Deployment", "rs1"),
                "app=web",
            ),
            (
                "unknown ReplicaSet adds nothing",
                owned("apps/v1", "ReplicaSet", "gone"),
                "app=web",
            ),
        ];
        for (name, pod, want) in cases {
            let sel = LabelSelector::Requirements(default_selector(&pod, Some(&w)));
            assert_eq!(sel.to_string(), want, "{name}");
        }
    }

    #[test]
    fn prefilter_error_for_an_invalid_selector() {
        let pod = incoming(
            json!({}),
            json!({"topologySpreadConstraints": [
                {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                 "labelSelector": {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}}]}),
        );
        let e = run(&pod, zones(), json!({"defaultingType": "List"}), "");
        let s = e.pre_filter[0].status.as_ref().expect("rejected");
        assert_eq!(s.code, Code::Error);
        assert!(
            s.message().starts_with(
                "get constraints from pod: obtaining pod's hard topology spread constraints:"
            ),
            "{}",
            s.message()
        );
    }
}
