//! PodTopologySpread (`pkg/scheduler/framework/plugins/podtopologyspread`): hard constraints
//! (`DoNotSchedule`) filter, soft ones (`ScheduleAnyway`) score; a pod without any constraint
//! gets the profile's default constraints, with a selector derived from the Services and the
//! controller that select it (`helper.DefaultSelector`).
//!
//! As upstream, PreFilter counts matching pods per topology domain over *all* nodes once, and
//! Filter is a lookup per node; PreScore counts over all nodes for the domains of the
//! candidates. Every constraint is evaluated on every node so the user sees all of them; the
//! status is the first failing constraint's, as upstream returns. What the report shows of
//! the counts (each constraint's domains) is made beside them, in [`SpreadTables`].
//!
//! The spec and the oracle cases agree; where they and older upstream copies differ, this
//! follows the newest code (which the cases record):
//! - an everything selector (`labelSelector: {}` with no matchLabelKeys added) counts no
//!   existing pod (`countPodsMatchSelector` bails out on an empty selector), while the incoming
//!   pod still matches itself;
//! - matchLabelKeys cannot revive a null selector: it keeps matching nothing.

pub mod explain;

mod common;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use self::common::{
    Constraint, DO_NOT_SCHEDULE, RequiredNodeAffinity, SCHEDULE_ANYWAY, count_pods, has_all_keys,
};
use super::config::{DefaultingType, FeatureGates, PodTopologySpreadArgs};
use super::plugin::{Input, MAX_NODE_SCORE, Plugin, missing_cycle_state};
use super::plugin_id::PluginId;
use super::status::{Code, PreFilterOutcome, PreScoreOutcome, Status};
use crate::state::Node;

pub use self::common::{default_selector, default_spreading_applies, defaults_without_workloads};

/// `ErrReasonConstraintsNotMatch`: the skew would exceed maxSkew.
pub const REASON_CONSTRAINTS_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints";
/// `ErrReasonNodeLabelNotMatch`: the node lacks a hard constraint's topology key.
pub const REASON_NODE_LABEL_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints (missing required label)";

/// `v1.LabelHostname`: scoring counts this key per node instead of per domain.
pub const LABEL_HOSTNAME: &str = "kubernetes.io/hostname";

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
        /// Fewer eligible domains than minDomains: the global minimum counts as 0.
        #[serde(skip_serializing_if = "Option::is_none")]
        below_min_domains: Option<MinDomains>,
        /// The domains at the global minimum hold it down though none of their nodes takes
        /// the pod.
        #[serde(skip_serializing_if = "Option::is_none")]
        held_by: Option<HeldBy>,
    },
}

/// A constraint's eligible domains against its minDomains.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MinDomains {
    pub domains: usize,
    pub min_domains: i32,
}

/// The domains at a constraint's global minimum when every node in them refuses the pod
/// for another rule: they count (with their few matching pods) though the pod can never go
/// there, so the skew elsewhere cannot shrink.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeldBy {
    pub global_min: i64,
    pub domains: super::few::Few,
    /// The Filter plugins that refuse the pod on their nodes (each node's first).
    pub refused_by: Vec<String>,
    pub node_taints_policy: &'static str,
    pub node_affinity_policy: &'static str,
}

/// What makes the plugin reject the nodes it rejects most.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all_fields = "camelCase")]
pub enum Cause {
    /// A DoNotSchedule spread constraint: placing the pod makes the skew exceed maxSkew.
    Skew { topology_key: String, max_skew: i32 },
}

/// What PreFilter counts for Filter (upstream's `preFilterState`).
#[derive(Debug, Default)]
struct PreFilterState {
    hard: Vec<Constraint>,
    /// Per hard constraint: eligible domain -> matching pods (`TpValueToMatchNum`).
    counts: Vec<HashMap<String, i64>>,
    /// Per hard constraint: the minimum over its domains (`i32::MAX` when it has none, as
    /// upstream's critical paths start).
    min: Vec<i64>,
    /// Per node: whether its pods count, per hard constraint.
    counted: Vec<Vec<bool>>,
}

impl PreFilterState {
    /// The global minimum for constraint `i`, minDomains applied (`minMatchNum`), and whether
    /// fewer domains than minDomains forced it to 0.
    fn global_min(&self, i: usize) -> (i64, bool) {
        let domains = self.counts[i].len();
        if (domains as i64) < i64::from(self.hard[i].min_domains) {
            (0, true)
        } else {
            (self.min[i], false)
        }
    }
}

/// What PreScore counts for Score (upstream's `preScoreState`).
#[derive(Debug, Default)]
struct PreScoreState {
    soft: Vec<Constraint>,
    /// Per soft constraint: the candidates' domains -> matching pods
    /// (`TopologyValueToPodCounts`; the hostname key is counted per node in Score).
    counts: Vec<HashMap<String, i64>>,
    /// Per soft constraint: `topologyNormalizingWeight`.
    weights: Vec<f64>,
    /// Per node index: a candidate that lacks some soft key (and is not scored).
    ignored: Vec<bool>,
    candidates: Vec<usize>,
    /// Offset of the soft constraints in the tables' constraints.
    offset: usize,
}

#[derive(Debug)]
pub struct PodTopologySpread<'a> {
    input: Input<'a>,
    gates: &'a FeatureGates,
    args: &'a PodTopologySpreadArgs,
    required: RequiredNodeAffinity<'a>,
    pre_filter: Option<PreFilterState>,
    pre_score: Option<PreScoreState>,
    tables: SpreadTables,
}

impl<'a> PodTopologySpread<'a> {
    pub fn new(input: Input<'a>, args: &'a PodTopologySpreadArgs, gates: &'a FeatureGates) -> Self {
        PodTopologySpread {
            input,
            gates,
            args,
            required: RequiredNodeAffinity::of(input.pod),
            pre_filter: None,
            pre_score: None,
            tables: SpreadTables::default(),
        }
    }

    /// The pod's constraints with `action`, and where they come from.
    fn constraints(&self, action: &str) -> Result<(Vec<Constraint>, ConstraintSource), String> {
        let c = common::constraints(self.input, self.args, self.gates, action)?;
        let source = match self.args.defaulting_type {
            _ if !self.input.pod.template.topology_spread.is_empty() => ConstraintSource::Pod,
            DefaultingType::System => ConstraintSource::SystemDefault,
            DefaultingType::List => ConstraintSource::ListDefault,
        };
        Ok((c, source))
    }

    /// `matchNodeInclusionPolicies` of constraint `c` on `node`.
    fn included(&self, c: &Constraint, node: &Node) -> bool {
        c.match_node_inclusion_policies(self.input.pod, node, &self.required, self.gates)
    }

    /// `calPreFilterState`'s counting: per hard constraint, the matching pods in each domain
    /// of the nodes that carry every hard key and pass the constraint's inclusion policies.
    fn count_hard(&self, hard: Vec<Constraint>) -> PreFilterState {
        let input = self.input;
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
                *counts[i].entry(value.to_string()).or_insert(0) +=
                    count_pods(&input, n, &c.selector);
                counted[n][i] = true;
            }
        }
        PreFilterState {
            min: counts
                .iter()
                .map(|m| m.values().copied().min().unwrap_or(i64::from(i32::MAX)))
                .collect(),
            counts,
            counted,
            hard,
        }
    }

    /// Hard constraint `i` on `node`, with the existing pods `removed` (all on `node`) taken
    /// out of its counts: upstream's `RemovePod` (`updateWithPod` with -1) then Filter's
    /// check. Only the node's own domain loses pods, so its count drops and the minimum can
    /// only fall to it. Upstream's quirk is kept: `updateWithPod` does not skip a
    /// terminating pod, which PreFilter never counted.
    fn on_node(
        &self,
        state: &PreFilterState,
        i: usize,
        node: usize,
        removed: &[usize],
    ) -> ConstraintOnNode {
        let c = &state.hard[i];
        let domain = self
            .input
            .node(node)
            .labels
            .get(&c.topology_key)
            .map(str::to_string);
        let (global_min, forced) = state.global_min(i);
        let self_match = c.selector.matches(&self.input.pod.labels);
        let node_counted = state
            .counted
            .get(node)
            .and_then(|v| v.get(i))
            .copied()
            .unwrap_or(false);
        let taken_out = if node_counted {
            let pods = self.input.state.pods();
            let ns = &self.input.pod.id.namespace;
            let matching =
                |p: &&usize| pods[**p].id.namespace == *ns && c.selector.matches(&pods[**p].labels);
            removed.iter().filter(matching).count() as i64
        } else {
            0
        };
        let matching = domain
            .as_ref()
            .and_then(|d| state.counts[i].get(d))
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
        ConstraintOnNode {
            constraint: i,
            topology_key: c.topology_key.clone(),
            domain,
            matching_pods: matching,
            self_match,
            global_min,
            domains: state.counts[i].len(),
            min_domains: c.min_domains,
            min_domains_forced_zero: forced,
            skew,
            max_skew: c.max_skew,
            node_counted,
            satisfied: skew.is_some_and(|s| s <= i64::from(c.max_skew)),
        }
    }

    /// Filter on `node` with the existing pods `removed` (all on `node`) taken out of what
    /// PreFilter counted, for preemption's dry run: every hard constraint on the node, the
    /// status the first that fails gives.
    fn filter_without(
        &self,
        node: usize,
        removed: &[usize],
    ) -> (Option<Status>, Option<Box<FilterDetails>>) {
        let Some(state) = &self.pre_filter else {
            let missing = missing_cycle_state("PreFilter", PluginId::PodTopologySpread);
            return (Some(Status::new(Code::Error, missing)), None);
        };
        let constraints: Vec<ConstraintOnNode> = (0..state.hard.len())
            .map(|i| self.on_node(state, i, node, removed))
            .collect();
        let status = constraints
            .iter()
            .find(|c| !c.satisfied)
            .map(|c| match c.skew {
                None => Status::new(
                    Code::UnschedulableAndUnresolvable,
                    REASON_NODE_LABEL_NOT_MATCH,
                ),
                Some(_) => Status::new(Code::Unschedulable, REASON_CONSTRAINTS_NOT_MATCH),
            });
        (status, Some(Box::new(FilterDetails { constraints })))
    }

    /// `initPreScoreState`'s domains: the candidates' values of each soft key (but the
    /// hostname's, counted per node), the candidates that lack a key when every key is
    /// required, and each constraint's `topologyNormalizingWeight`.
    fn soft_domains(&self, state: &mut PreScoreState, candidates: &[usize], require_all: bool) {
        let nodes = self.input.state.nodes();
        state.counts = vec![HashMap::new(); state.soft.len()];
        state.ignored = vec![false; nodes.len()];
        let mut ignored = 0;
        for &c in candidates {
            let Some(node) = nodes.get(c) else { continue };
            if require_all && !has_all_keys(&node.labels, &state.soft) {
                state.ignored[c] = true;
                ignored += 1;
                continue;
            }
            for (i, con) in state.soft.iter().enumerate() {
                if con.topology_key == LABEL_HOSTNAME {
                    continue;
                }
                let value = node.labels.get(&con.topology_key).unwrap_or_default();
                state.counts[i].entry(value.to_string()).or_insert(0);
            }
        }
        state.weights = state
            .soft
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let size = if c.topology_key == LABEL_HOSTNAME {
                    candidates.len().saturating_sub(ignored)
                } else {
                    state.counts[i].len()
                };
                normalizing_weight(size)
            })
            .collect();
    }

    /// PreScore's counting: the matching pods of every node that counts, in the candidates'
    /// domains.
    fn count_soft(&self, state: &mut PreScoreState, require_all: bool) {
        let input = self.input;
        let gate = self.gates.node_inclusion_policy_in_pod_topology_spread();
        for (n, node) in input.state.nodes().iter().enumerate() {
            if !gate && !self.required.matches(node) {
                continue;
            }
            if require_all && !has_all_keys(&node.labels, &state.soft) {
                continue;
            }
            for (i, c) in state.soft.iter().enumerate() {
                if gate && !self.included(c, node) {
                    continue;
                }
                let value = node.labels.get(&c.topology_key).unwrap_or_default();
                if !state.counts[i].contains_key(value) {
                    continue;
                }
                let count = count_pods(&input, n, &c.selector);
                if let Some(x) = state.counts[i].get_mut(value) {
                    *x += count;
                }
            }
        }
    }

    /// A constraint's row of the report's table.
    fn table(
        &self,
        c: &Constraint,
        action: &'static str,
        source: ConstraintSource,
        domains: &HashMap<String, i64>,
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
            domains: domains.iter().map(|(k, v)| (k.clone(), *v)).collect(),
            global_min: None,
            weight: None,
        }
    }
}

fn policy_name(honor: bool) -> &'static str {
    if honor { "Honor" } else { "Ignore" }
}

/// `topologyNormalizingWeight`.
fn normalizing_weight(size: usize) -> f64 {
    ((size + 2) as f64).ln()
}

impl Plugin for PodTopologySpread<'_> {
    type FilterDetails = Box<FilterDetails>;
    type ScoreDetails = ScoreDetails;
    type Tables = SpreadTables;

    fn pre_filter(&mut self) -> PreFilterOutcome {
        let (hard, source) = match self.constraints(DO_NOT_SCHEDULE) {
            Ok(x) => x,
            Err(e) => {
                self.pre_filter = Some(PreFilterState::default());
                return PreFilterOutcome::Reject(Status::new(
                    Code::Error,
                    format!("get constraints from pod: {e}"),
                ));
            }
        };
        if hard.is_empty() {
            self.pre_filter = Some(PreFilterState::default());
            return PreFilterOutcome::Skip;
        }
        let state = self.count_hard(hard);
        for (i, c) in state.hard.iter().enumerate() {
            let mut t = self.table(c, DO_NOT_SCHEDULE, source, &state.counts[i]);
            t.global_min = Some(state.global_min(i).0);
            self.tables.constraints.push(t);
        }
        self.pre_filter = Some(state);
        PreFilterOutcome::Proceed(None)
    }

    fn filter(&self, node: usize) -> (Option<Status>, Option<Self::FilterDetails>) {
        self.filter_without(node, &[])
    }

    fn filter_removing(&self, node: usize, removed: &[usize]) -> Option<Option<Status>> {
        Some(self.filter_without(node, removed).0)
    }

    fn pre_score(&mut self, candidates: &[usize]) -> PreScoreOutcome {
        let mut state = PreScoreState::default();
        let outcome = self.pre_score_into(&mut state, candidates);
        self.pre_score = Some(state);
        outcome
    }

    fn score(&self, node: usize) -> Result<(i64, Option<Self::ScoreDetails>), String> {
        let Some(state) = &self.pre_score else {
            let missing = missing_cycle_state("PreScore", PluginId::PodTopologySpread);
            return Err(format!("error {missing}"));
        };
        if state.ignored.get(node).copied().unwrap_or(false) {
            let details = ScoreDetails {
                ignored: true,
                constraints: Vec::new(),
            };
            return Ok((0, Some(details)));
        }
        let input = self.input;
        let n = input.node(node);
        let mut score = 0.0_f64;
        let mut parts = Vec::with_capacity(state.soft.len());
        for (i, c) in state.soft.iter().enumerate() {
            let weight = state.weights.get(i).copied().unwrap_or(0.0);
            let domain = n.labels.get(&c.topology_key).map(str::to_string);
            let (matching, value) = match &domain {
                Some(v) => {
                    let cnt = if c.topology_key == LABEL_HOSTNAME {
                        count_pods(&input, node, &c.selector)
                    } else {
                        state.counts[i].get(v).copied().unwrap_or(0)
                    };
                    let value = cnt as f64 * weight + f64::from(c.max_skew.wrapping_sub(1));
                    score += value;
                    (cnt, value)
                }
                None => (0, 0.0),
            };
            parts.push(ConstraintScore {
                constraint: state.offset + i,
                topology_key: c.topology_key.clone(),
                domain,
                matching_pods: matching,
                weight,
                max_skew: c.max_skew,
                value,
            });
        }
        let details = ScoreDetails {
            ignored: false,
            constraints: parts,
        };
        // Go's math.Round: half away from zero, like f64::round.
        Ok((score.round() as i64, Some(details)))
    }

    /// `(max + min − raw) / max` over the non-ignored candidates; ignored ones get 0. Upstream
    /// marks ignored nodes with −1 and then treats any −1 as ignored; that is kept.
    fn normalize(&self, scores: &mut [i64]) {
        const INVALID: i64 = -1;
        let state = self.pre_score.as_ref();
        let ignored = |k: usize| {
            state
                .and_then(|s| s.candidates.get(k).and_then(|&c| s.ignored.get(c)))
                .copied()
                .unwrap_or(false)
        };
        let mut min = i64::MAX;
        let mut max = 0_i64;
        for (k, s) in scores.iter_mut().enumerate() {
            if ignored(k) {
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

impl PodTopologySpread<'_> {
    /// PreScore into `state`: upstream's `PreScore` (`initPreScoreState`, then the counts).
    fn pre_score_into(
        &mut self,
        state: &mut PreScoreState,
        candidates: &[usize],
    ) -> PreScoreOutcome {
        if self.input.state.nodes().is_empty() {
            return PreScoreOutcome::Skip;
        }
        // Nodes without a zone label are still scored by hostname under system defaults.
        let require_all = !self.input.pod.template.topology_spread.is_empty()
            || self.args.defaulting_type != DefaultingType::System;
        let (soft, source) = match self.constraints(SCHEDULE_ANYWAY) {
            Ok(x) => x,
            Err(e) => return PreScoreOutcome::Error(format!("calculating preScoreState: {e}")),
        };
        if soft.is_empty() {
            return PreScoreOutcome::Skip;
        }
        state.soft = soft;
        self.soft_domains(state, candidates, require_all);
        self.count_soft(state, require_all);
        state.candidates = candidates.to_vec();
        state.offset = self.tables.constraints.len();
        for (i, c) in state.soft.iter().enumerate() {
            let mut t = self.table(c, SCHEDULE_ANYWAY, source, &state.counts[i]);
            t.weight = Some(state.weights[i]);
            self.tables.constraints.push(t);
        }
        PreScoreOutcome::Proceed
    }
}
