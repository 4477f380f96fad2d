//! How the document writes a plugin's details of a Filter verdict or a score, and the tables
//! a plugin adds beside the nodes: each plugin's fields in the schema's own types, borrowed
//! from the plugin's (5,000 nodes' details are not copied to be written). The plugins' types
//! are theirs to reshape; what users read is fixed here.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Serialize, Serializer};

use super::volumes;
use crate::scheduler::config::StrategyType as Strategy;
use crate::scheduler::{
    FilterDetails, ScoreDetails, balanced_allocation, image_locality, inter_pod_affinity,
    node_affinity, node_name, node_ports, node_resources_fit, node_unschedulable,
    pod_topology_spread, taint_toleration,
};
use crate::state::resources::HostPort;
use crate::state::selector::{SelectorCheck, TermCheck};
use crate::state::{PodList, PodRef, Taint, Toleration};

/// A Filter entry's details, as the plugin that gave them is written.
pub(super) fn filter<S: Serializer>(d: &Option<&FilterDetails>, s: S) -> Result<S::Ok, S::Error> {
    let Some(d) = d else {
        return s.serialize_none();
    };
    match d {
        FilterDetails::NodeUnschedulable(d) => NodeUnschedulable::from(d).serialize(s),
        FilterDetails::NodeName(d) => NodeName::from(d).serialize(s),
        FilterDetails::TaintToleration(d) => TaintFilter::from(d).serialize(s),
        FilterDetails::NodeAffinity(d) => NodeAffinityFilter::from(&**d).serialize(s),
        FilterDetails::InterPodAffinity(d) => PodAffinityFilter::from(&**d).serialize(s),
        FilterDetails::PodTopologySpread(d) => SpreadFilter::from(&**d).serialize(s),
        FilterDetails::NodeResourcesFit(d) => FitFilter::from(&**d).serialize(s),
        FilterDetails::NodePorts(d) => NodePorts::from(&**d).serialize(s),
        FilterDetails::VolumeRestrictions(d) => {
            volumes::VolumeRestrictions::from(&**d).serialize(s)
        }
        FilterDetails::NodeVolumeLimits(d) => volumes::NodeVolumeLimits::from(&**d).serialize(s),
        FilterDetails::VolumeBinding(d) => volumes::VolumeBinding::from(&**d).serialize(s),
        FilterDetails::VolumeZone(d) => volumes::VolumeZone::from(&**d).serialize(s),
    }
}

/// A Score entry's details, as the plugin that gave them is written.
pub(super) fn score<S: Serializer>(d: &Option<&ScoreDetails>, s: S) -> Result<S::Ok, S::Error> {
    let Some(d) = d else {
        return s.serialize_none();
    };
    match d {
        ScoreDetails::TaintToleration(d) => TaintScore::from(d).serialize(s),
        ScoreDetails::NodeAffinity(d) => NodeAffinityScore::from(&**d).serialize(s),
        ScoreDetails::InterPodAffinity(d) => PodAffinityScore::from(d).serialize(s),
        ScoreDetails::PodTopologySpread(d) => SpreadScore::from(d).serialize(s),
        ScoreDetails::NodeResourcesFit(d) => FitScore::from(d).serialize(s),
        ScoreDetails::BalancedAllocation(d) => BalancedAllocation::from(d).serialize(s),
        ScoreDetails::ImageLocality(d) => ImageLocality::from(&**d).serialize(s),
    }
}

/// InterPodAffinity's terms with their matching pods per domain.
pub(super) fn pod_terms<S: Serializer>(
    t: &Option<inter_pod_affinity::TermTables>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => TermTables::from(t).serialize(s),
        None => s.serialize_none(),
    }
}

/// PodTopologySpread's constraints with their per-domain counts.
pub(super) fn topology_spread<S: Serializer>(
    t: &Option<pod_topology_spread::SpreadTables>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => SpreadTables::from(t).serialize(s),
        None => s.serialize_none(),
    }
}

/// A slice written item by item through the schema's type for an item, without a copy.
struct Each<'a, T, U>(&'a [T], fn(&'a T) -> U);

impl<'a, T, U: Serialize> Serialize for Each<'a, T, U> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(self.1))
    }
}

fn is_zero_i32(v: &i32) -> bool {
    *v == 0
}

fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}

fn is_empty(v: &&[String]) -> bool {
    v.is_empty()
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NodeUnschedulable {
    /// `spec.unschedulable` of the node.
    unschedulable: bool,
    /// Index of the toleration that tolerates the synthetic unschedulable taint.
    #[serde(skip_serializing_if = "Option::is_none")]
    tolerated_by: Option<u32>,
}

impl From<&node_unschedulable::Details> for NodeUnschedulable {
    fn from(d: &node_unschedulable::Details) -> Self {
        NodeUnschedulable {
            unschedulable: d.unschedulable,
            tolerated_by: d.tolerated_by,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NodeName<'a> {
    /// The pod's `spec.nodeName`, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    requested: Option<&'a Arc<str>>,
}

impl<'a> From<&'a node_name::Details> for NodeName<'a> {
    fn from(d: &'a node_name::Details) -> Self {
        NodeName {
            requested: d.requested.as_ref(),
        }
    }
}

/// A taint of the node and the toleration that tolerates it, if any.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TaintCheck<'a> {
    #[serde(flatten)]
    taint: &'a Taint,
    /// Whether the check looks at the taint at all (Filter: NoSchedule/NoExecute; Score:
    /// PreferNoSchedule).
    considered: bool,
    /// The toleration's index in the pod's list.
    tolerated_by: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    toleration: Option<&'a Toleration>,
}

impl<'a> From<&'a taint_toleration::TaintCheck> for TaintCheck<'a> {
    fn from(c: &'a taint_toleration::TaintCheck) -> Self {
        TaintCheck {
            taint: &c.taint,
            considered: c.considered,
            tolerated_by: c.tolerated_by,
            toleration: c.toleration.as_ref(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TaintFilter<'a> {
    taints: Each<'a, taint_toleration::TaintCheck, TaintCheck<'a>>,
    /// The one upstream logs.
    #[serde(skip_serializing_if = "Option::is_none")]
    first_untolerated: Option<&'a Taint>,
}

impl<'a> From<&'a taint_toleration::FilterDetails> for TaintFilter<'a> {
    fn from(d: &'a taint_toleration::FilterDetails) -> Self {
        TaintFilter {
            taints: Each(&d.taints, TaintCheck::from),
            first_untolerated: d.first_untolerated(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TaintScore<'a> {
    taints: Each<'a, taint_toleration::TaintCheck, TaintCheck<'a>>,
    untolerated_prefer_no_schedule: i64,
}

impl<'a> From<&'a taint_toleration::ScoreDetails> for TaintScore<'a> {
    fn from(d: &'a taint_toleration::ScoreDetails) -> Self {
        TaintScore {
            taints: Each(&d.taints, TaintCheck::from),
            untolerated_prefer_no_schedule: d.untolerated_prefer_no_schedule,
        }
    }
}

/// One `nodeSelector` entry against the node's label.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LabelCheck<'a> {
    key: &'a Arc<str>,
    value: &'a Arc<str>,
    node_value: Option<&'a Arc<str>>,
    matched: bool,
}

impl<'a> From<&'a node_affinity::LabelCheck> for LabelCheck<'a> {
    fn from(c: &'a node_affinity::LabelCheck) -> Self {
        LabelCheck {
            key: &c.key,
            value: &c.value,
            node_value: c.node_value.as_ref(),
            matched: c.matched,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NodeAffinityFilter<'a> {
    /// The profile's `addedAffinity`, checked first.
    #[serde(skip_serializing_if = "Option::is_none")]
    added_affinity: Option<&'a SelectorCheck>,
    node_selector: Each<'a, node_affinity::LabelCheck, LabelCheck<'a>>,
    /// The pod's required node affinity, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    required: Option<&'a SelectorCheck>,
}

impl<'a> From<&'a node_affinity::FilterDetails> for NodeAffinityFilter<'a> {
    fn from(d: &'a node_affinity::FilterDetails) -> Self {
        NodeAffinityFilter {
            added_affinity: d.added_affinity.as_deref(),
            node_selector: Each(&d.node_selector, LabelCheck::from),
            required: d.required.as_ref(),
        }
    }
}

/// A preferred term, its weight and where it comes from ("pod" or "addedAffinity").
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PreferredCheck<'a> {
    weight: i32,
    source: &'static str,
    #[serde(flatten)]
    term: &'a TermCheck,
}

impl<'a> From<&'a node_affinity::PreferredCheck> for PreferredCheck<'a> {
    fn from(t: &'a node_affinity::PreferredCheck) -> Self {
        PreferredCheck {
            weight: t.weight,
            source: t.source,
            term: &t.term,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NodeAffinityScore<'a> {
    terms: Each<'a, node_affinity::PreferredCheck, PreferredCheck<'a>>,
}

impl<'a> From<&'a node_affinity::ScoreDetails> for NodeAffinityScore<'a> {
    fn from(d: &'a node_affinity::ScoreDetails) -> Self {
        NodeAffinityScore {
            terms: Each(&d.terms, PreferredCheck::from),
        }
    }
}

/// A wanted host port and the existing pod that already binds it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PortConflict<'a> {
    wanted: &'a HostPort,
    used: &'a HostPort,
    pod: &'a PodRef,
}

impl<'a> From<&'a node_ports::PortConflict> for PortConflict<'a> {
    fn from(c: &'a node_ports::PortConflict) -> Self {
        PortConflict {
            wanted: &c.wanted,
            used: &c.used,
            pod: &c.pod,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NodePorts<'a> {
    wanted: &'a [HostPort],
    conflicts: Each<'a, node_ports::PortConflict, PortConflict<'a>>,
}

impl<'a> From<&'a node_ports::FilterDetails> for NodePorts<'a> {
    fn from(d: &'a node_ports::FilterDetails) -> Self {
        NodePorts {
            wanted: &d.wanted,
            conflicts: Each(&d.conflicts, PortConflict::from),
        }
    }
}

/// One resource's requested share of the node.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Fraction<'a> {
    resource: &'a Arc<str>,
    /// Requested on the node including the pod (milli for cpu).
    requested: i64,
    allocatable: i64,
    /// requested / allocatable, capped at 1; `None` when left out (allocatable 0).
    fraction: Option<f64>,
}

impl<'a> From<&'a balanced_allocation::Fraction> for Fraction<'a> {
    fn from(f: &'a balanced_allocation::Fraction) -> Self {
        Fraction {
            resource: &f.resource,
            requested: f.requested,
            allocatable: f.allocatable,
            fraction: f.fraction,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BalancedAllocation<'a> {
    fractions: Each<'a, balanced_allocation::Fraction, Fraction<'a>>,
    std_dev: f64,
}

impl<'a> From<&'a balanced_allocation::ScoreDetails> for BalancedAllocation<'a> {
    fn from(d: &'a balanced_allocation::ScoreDetails) -> Self {
        BalancedAllocation {
            fractions: Each(&d.fractions, Fraction::from),
            std_dev: d.std_dev,
        }
    }
}

/// One of the pod's images on the node.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ImageCheck<'a> {
    image: &'a Arc<str>,
    /// The name looked up in the node's `status.images`.
    normalized: &'a Arc<str>,
    present: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    size_bytes: Option<i64>,
    /// On how many nodes of the cluster the image is.
    #[serde(skip_serializing_if = "Option::is_none")]
    nodes_with_image: Option<usize>,
    scaled_score: i64,
}

impl<'a> From<&'a image_locality::ImageCheck> for ImageCheck<'a> {
    fn from(i: &'a image_locality::ImageCheck) -> Self {
        ImageCheck {
            image: &i.image,
            normalized: &i.normalized,
            present: i.present,
            size_bytes: i.size_bytes,
            nodes_with_image: i.nodes_with_image,
            scaled_score: i.scaled_score,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ImageLocality<'a> {
    images: Each<'a, image_locality::ImageCheck, ImageCheck<'a>>,
    total_nodes: usize,
    sum: i64,
}

impl<'a> From<&'a image_locality::ScoreDetails> for ImageLocality<'a> {
    fn from(d: &'a image_locality::ScoreDetails) -> Self {
        ImageLocality {
            images: Each(&d.images, ImageCheck::from),
            total_nodes: d.total_nodes,
            sum: d.sum,
        }
    }
}

/// The pods the node may hold, against those it holds.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PodCount {
    existing: i64,
    allowed: i64,
    fits: bool,
}

/// One resource the pod requests, against the node's allocatable.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResourceCheck<'a> {
    resource: &'a Arc<str>,
    requested: i64,
    /// Requested by the pods already on the node.
    used: i64,
    allocatable: i64,
    fits: bool,
    /// The request exceeds the node's whole allocatable: evicting pods cannot help.
    unresolvable: bool,
    /// Why the check was skipped (an ignored resource), when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    ignored: Option<&'a String>,
}

impl<'a> From<&'a node_resources_fit::ResourceCheck> for ResourceCheck<'a> {
    fn from(c: &'a node_resources_fit::ResourceCheck) -> Self {
        ResourceCheck {
            resource: &c.resource,
            requested: c.requested,
            used: c.used,
            allocatable: c.allocatable,
            fits: c.fits,
            unresolvable: c.unresolvable,
            ignored: c.ignored.as_ref(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FitFilter<'a> {
    pods: PodCount,
    resources: Each<'a, node_resources_fit::ResourceCheck, ResourceCheck<'a>>,
}

impl<'a> From<&'a node_resources_fit::FilterDetails> for FitFilter<'a> {
    fn from(d: &'a node_resources_fit::FilterDetails) -> Self {
        FitFilter {
            pods: PodCount {
                existing: d.pods.existing,
                allowed: d.pods.allowed,
                fits: d.pods.fits,
            },
            resources: Each(&d.resources, ResourceCheck::from),
        }
    }
}

/// The scoring strategy, by its name in the scheduler's configuration.
#[derive(Serialize)]
enum StrategyType {
    LeastAllocated,
    MostAllocated,
    RequestedToCapacityRatio,
}

impl From<Strategy> for StrategyType {
    fn from(s: Strategy) -> Self {
        match s {
            Strategy::LeastAllocated => StrategyType::LeastAllocated,
            Strategy::MostAllocated => StrategyType::MostAllocated,
            Strategy::RequestedToCapacityRatio => StrategyType::RequestedToCapacityRatio,
        }
    }
}

/// One resource's part of the score.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResourceScore<'a> {
    resource: &'a Arc<str>,
    weight: i64,
    /// Node total with the pod (non-zero defaults for cpu/memory where the strategy uses them).
    requested: i64,
    allocatable: i64,
    /// `None` when the resource is left out (allocatable 0, or a scalar the pod does not
    /// request).
    score: Option<i64>,
}

impl<'a> From<&'a node_resources_fit::ResourceScore> for ResourceScore<'a> {
    fn from(r: &'a node_resources_fit::ResourceScore) -> Self {
        ResourceScore {
            resource: &r.resource,
            weight: r.weight,
            requested: r.requested,
            allocatable: r.allocatable,
            score: r.score,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FitScore<'a> {
    strategy: StrategyType,
    resources: Each<'a, node_resources_fit::ResourceScore, ResourceScore<'a>>,
}

impl<'a> From<&'a node_resources_fit::ScoreDetails> for FitScore<'a> {
    fn from(d: &'a node_resources_fit::ScoreDetails) -> Self {
        FitScore {
            strategy: d.strategy.into(),
            resources: Each(&d.resources, ResourceScore::from),
        }
    }
}

/// Where a spread constraint comes from.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
enum ConstraintSource {
    /// The pod's own `spec.topologySpreadConstraints`.
    Pod,
    /// `defaultingType: System`: upstream's built-in soft constraints.
    SystemDefault,
    /// `defaultingType: List`: the profile's `defaultConstraints`.
    ListDefault,
}

impl From<pod_topology_spread::ConstraintSource> for ConstraintSource {
    fn from(s: pod_topology_spread::ConstraintSource) -> Self {
        use pod_topology_spread::ConstraintSource as S;
        match s {
            S::Pod => ConstraintSource::Pod,
            S::SystemDefault => ConstraintSource::SystemDefault,
            S::ListDefault => ConstraintSource::ListDefault,
        }
    }
}

/// A spread constraint and its counts per domain.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ConstraintTable<'a> {
    /// `DoNotSchedule` (Filter) or `ScheduleAnyway` (Score).
    when_unsatisfiable: &'static str,
    source: ConstraintSource,
    /// Position in the pod's constraint list (or in the default constraints).
    index: usize,
    topology_key: &'a str,
    /// The final selector (matchLabelKeys merged, or derived for default constraints).
    selector: &'a str,
    max_skew: i32,
    /// Only hard constraints use it.
    min_domains: i32,
    node_affinity_policy: &'static str,
    node_taints_policy: &'static str,
    incoming_pod_matches: bool,
    /// Domain value -> matching pods.
    domains: &'a BTreeMap<String, i64>,
    /// Hard: the global minimum the skew is measured against.
    #[serde(skip_serializing_if = "Option::is_none")]
    global_min: Option<i64>,
    /// Soft: `ln(domains + 2)`, the factor applied to each count.
    #[serde(skip_serializing_if = "Option::is_none")]
    weight: Option<f64>,
}

impl<'a> From<&'a pod_topology_spread::ConstraintTable> for ConstraintTable<'a> {
    fn from(c: &'a pod_topology_spread::ConstraintTable) -> Self {
        ConstraintTable {
            when_unsatisfiable: c.when_unsatisfiable,
            source: c.source.into(),
            index: c.index,
            topology_key: &c.topology_key,
            selector: &c.selector,
            max_skew: c.max_skew,
            min_domains: c.min_domains,
            node_affinity_policy: c.node_affinity_policy,
            node_taints_policy: c.node_taints_policy,
            incoming_pod_matches: c.incoming_pod_matches,
            domains: &c.domains,
            global_min: c.global_min,
            weight: c.weight,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SpreadTables<'a> {
    constraints: Each<'a, pod_topology_spread::ConstraintTable, ConstraintTable<'a>>,
}

impl<'a> From<&'a pod_topology_spread::SpreadTables> for SpreadTables<'a> {
    fn from(t: &'a pod_topology_spread::SpreadTables) -> Self {
        SpreadTables {
            constraints: Each(&t.constraints, ConstraintTable::from),
        }
    }
}

/// A hard constraint on one node.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ConstraintOnNode<'a> {
    /// Index into `topologySpread.constraints`.
    constraint: usize,
    topology_key: &'a str,
    /// The node's value for the key; `None` when the node lacks it.
    domain: Option<&'a str>,
    /// Matching pods already in that domain.
    matching_pods: i64,
    /// Whether the incoming pod matches the selector itself (adds 1 to the domain).
    self_match: bool,
    global_min: i64,
    /// Eligible domains of this constraint.
    domains: usize,
    min_domains: i32,
    /// Fewer eligible domains than minDomains forced the global minimum to 0.
    min_domains_forced_zero: bool,
    /// `matching + self - min`; `None` when the node lacks the key.
    skew: Option<i64>,
    max_skew: i32,
    /// Whether this node's own pods count toward its domain.
    node_counted: bool,
    satisfied: bool,
}

impl<'a> From<&'a pod_topology_spread::ConstraintOnNode> for ConstraintOnNode<'a> {
    fn from(c: &'a pod_topology_spread::ConstraintOnNode) -> Self {
        ConstraintOnNode {
            constraint: c.constraint,
            topology_key: &c.topology_key,
            domain: c.domain.as_deref(),
            matching_pods: c.matching_pods,
            self_match: c.self_match,
            global_min: c.global_min,
            domains: c.domains,
            min_domains: c.min_domains,
            min_domains_forced_zero: c.min_domains_forced_zero,
            skew: c.skew,
            max_skew: c.max_skew,
            node_counted: c.node_counted,
            satisfied: c.satisfied,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SpreadFilter<'a> {
    constraints: Each<'a, pod_topology_spread::ConstraintOnNode, ConstraintOnNode<'a>>,
}

impl<'a> From<&'a pod_topology_spread::FilterDetails> for SpreadFilter<'a> {
    fn from(d: &'a pod_topology_spread::FilterDetails) -> Self {
        SpreadFilter {
            constraints: Each(&d.constraints, ConstraintOnNode::from),
        }
    }
}

/// A soft constraint's part of one node's score.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ConstraintScore<'a> {
    /// Index into `topologySpread.constraints`.
    constraint: usize,
    topology_key: &'a str,
    /// `None` when the node lacks the key: the constraint adds nothing.
    domain: Option<&'a str>,
    /// Matching pods in the domain (on the node itself for the hostname key).
    matching_pods: i64,
    weight: f64,
    max_skew: i32,
    /// `matching × weight + (maxSkew − 1)`, or 0 without the key.
    value: f64,
}

impl<'a> From<&'a pod_topology_spread::ConstraintScore> for ConstraintScore<'a> {
    fn from(c: &'a pod_topology_spread::ConstraintScore) -> Self {
        ConstraintScore {
            constraint: c.constraint,
            topology_key: &c.topology_key,
            domain: c.domain.as_deref(),
            matching_pods: c.matching_pods,
            weight: c.weight,
            max_skew: c.max_skew,
            value: c.value,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SpreadScore<'a> {
    /// The node lacks a topology key of a non-system-default constraint: raw and final 0.
    ignored: bool,
    constraints: Each<'a, pod_topology_spread::ConstraintScore, ConstraintScore<'a>>,
}

impl<'a> From<&'a pod_topology_spread::ScoreDetails> for SpreadScore<'a> {
    fn from(d: &'a pod_topology_spread::ScoreDetails) -> Self {
        SpreadScore {
            ignored: d.ignored,
            constraints: Each(&d.constraints, ConstraintScore::from),
        }
    }
}

/// Which of the pod's (anti-)affinity lists a term is in.
// The variants are the schema's words (`requiredAffinity`...).
#[allow(clippy::enum_variant_names)]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
enum TermKind {
    RequiredAffinity,
    RequiredAntiAffinity,
    PreferredAffinity,
    PreferredAntiAffinity,
}

impl From<inter_pod_affinity::TermKind> for TermKind {
    fn from(k: inter_pod_affinity::TermKind) -> Self {
        use inter_pod_affinity::TermKind as K;
        match k {
            K::RequiredAffinity => TermKind::RequiredAffinity,
            K::RequiredAntiAffinity => TermKind::RequiredAntiAffinity,
            K::PreferredAffinity => TermKind::PreferredAffinity,
            K::PreferredAntiAffinity => TermKind::PreferredAntiAffinity,
        }
    }
}

/// Domain value -> matching pods, in the domains' order.
struct DomainPods<'a>(&'a inter_pod_affinity::DomainPods);

impl Serialize for DomainPods<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter())
    }
}

/// One of the incoming pod's terms with its matching pods per domain.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TermTable<'a> {
    kind: TermKind,
    index: usize,
    topology_key: &'a str,
    #[serde(skip_serializing_if = "is_zero_i32")]
    weight: i32,
    selector: &'a str,
    namespaces: &'a [String],
    /// True when `namespaceSelector: {}` selects every namespace.
    all_namespaces: bool,
    /// Domain value -> matching pods on nodes of that domain.
    domains: DomainPods<'a>,
    /// Matching pods on nodes that lack the topology key: they count for nothing.
    pods_without_domain: &'a PodList,
    /// Whether the incoming pod matches this term itself (the first-pod exception).
    incoming_pod_matches: bool,
}

impl<'a> From<&'a inter_pod_affinity::TermTable> for TermTable<'a> {
    fn from(t: &'a inter_pod_affinity::TermTable) -> Self {
        TermTable {
            kind: t.kind.into(),
            index: t.index,
            topology_key: &t.topology_key,
            weight: t.weight,
            selector: &t.selector,
            namespaces: &t.namespaces,
            all_namespaces: t.all_namespaces,
            domains: DomainPods(&t.domains),
            pods_without_domain: &t.pods_without_domain,
            incoming_pod_matches: t.incoming_pod_matches,
        }
    }
}

/// An existing pod's term that matches the incoming pod.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExistingTermHit<'a> {
    pod: &'a PodRef,
    node: &'a str,
    kind: TermKind,
    index: usize,
    topology_key: &'a str,
    /// The existing pod's node's value for the key; `None` when the node lacks it.
    domain: Option<&'a str>,
    /// Score contribution (weight, or hardPodAffinityWeight, signed); 0 for Filter hits.
    #[serde(skip_serializing_if = "is_zero_i64")]
    score: i64,
}

impl<'a> From<&'a inter_pod_affinity::ExistingTermHit> for ExistingTermHit<'a> {
    fn from(h: &'a inter_pod_affinity::ExistingTermHit) -> Self {
        ExistingTermHit {
            pod: &h.pod,
            node: &h.node,
            kind: h.kind.into(),
            index: h.index,
            topology_key: &h.topology_key,
            domain: h.domain.as_deref(),
            score: h.score,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TermTables<'a> {
    terms: Each<'a, inter_pod_affinity::TermTable, TermTable<'a>>,
    /// Existing pods' required anti-affinity terms that match the incoming pod (symmetry).
    existing_anti_affinity: Each<'a, inter_pod_affinity::ExistingTermHit, ExistingTermHit<'a>>,
    /// Existing pods' terms that add to or subtract from scores.
    existing_scoring_terms: Each<'a, inter_pod_affinity::ExistingTermHit, ExistingTermHit<'a>>,
    /// Set when the incoming pod's namespaceSelector could not be resolved.
    #[serde(skip_serializing_if = "is_empty")]
    warnings: &'a [String],
}

impl<'a> From<&'a inter_pod_affinity::TermTables> for TermTables<'a> {
    fn from(t: &'a inter_pod_affinity::TermTables) -> Self {
        TermTables {
            terms: Each(&t.terms, TermTable::from),
            existing_anti_affinity: Each(&t.existing_anti_affinity, ExistingTermHit::from),
            existing_scoring_terms: Each(&t.existing_scoring_terms, ExistingTermHit::from),
            warnings: &t.warnings,
        }
    }
}

/// One of the incoming pod's required terms on one node.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TermOnNode<'a> {
    index: usize,
    topology_key: &'a Arc<str>,
    /// The node's value for the key; `None` when the node lacks it.
    domain: Option<&'a Arc<str>>,
    /// Matching pods counted in that domain.
    matching_pods: i64,
    satisfied: bool,
}

impl<'a> From<&'a inter_pod_affinity::TermOnNode> for TermOnNode<'a> {
    fn from(t: &'a inter_pod_affinity::TermOnNode) -> Self {
        TermOnNode {
            index: t.index,
            topology_key: &t.topology_key,
            domain: t.domain.as_ref(),
            matching_pods: t.matching_pods,
            satisfied: t.satisfied,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PodAffinityFilter<'a> {
    affinity: Each<'a, inter_pod_affinity::TermOnNode, TermOnNode<'a>>,
    /// `Some(true)` when the node passes only by the first-pod exception; `Some(false)` when
    /// the exception was considered and did not apply.
    #[serde(skip_serializing_if = "Option::is_none")]
    first_pod_exception: Option<bool>,
    anti_affinity: Each<'a, inter_pod_affinity::TermOnNode, TermOnNode<'a>>,
    /// Existing pods whose required anti-affinity rejects the incoming pod on this node
    /// (indexes into `podTerms.existingAntiAffinity`).
    existing_anti_affinity: &'a [usize],
}

impl<'a> From<&'a inter_pod_affinity::FilterDetails> for PodAffinityFilter<'a> {
    fn from(d: &'a inter_pod_affinity::FilterDetails) -> Self {
        PodAffinityFilter {
            affinity: Each(&d.affinity, TermOnNode::from),
            first_pod_exception: d.first_pod_exception,
            anti_affinity: Each(&d.anti_affinity, TermOnNode::from),
            existing_anti_affinity: &d.existing_anti_affinity,
        }
    }
}

/// What one term adds to (or takes from) a node's score.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Contribution<'a> {
    topology_key: &'a Arc<str>,
    domain: &'a Arc<str>,
    /// e.g. `preferredAffinity[0]` of the incoming pod, or `existing:requiredAffinity`.
    source: &'a Arc<str>,
    pods: i64,
    score: i64,
}

impl<'a> From<&'a inter_pod_affinity::Contribution> for Contribution<'a> {
    fn from(c: &'a inter_pod_affinity::Contribution) -> Self {
        Contribution {
            topology_key: &c.topology_key,
            domain: &c.domain,
            source: &c.source,
            pods: c.pods,
            score: c.score,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PodAffinityScore<'a> {
    contributions: Each<'a, inter_pod_affinity::Contribution, Contribution<'a>>,
}

impl<'a> From<&'a inter_pod_affinity::ScoreDetails> for PodAffinityScore<'a> {
    fn from(d: &'a inter_pod_affinity::ScoreDetails) -> Self {
        PodAffinityScore {
            contributions: Each(&d.contributions, Contribution::from),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::DomainPods;
    use crate::scheduler::testing::{db_pod, evaluate_default, zone_node};
    use crate::scheduler::{FilterDetails, node_ports};
    use crate::state::PodRef;
    use crate::state::resources::HostPort;

    /// A term's domains are a map, in the domains' order, of each domain's pods.
    #[test]
    fn term_domains_are_written_as_a_map() {
        let (node, pod) = (zone_node, db_pod);
        let items = json!([
            node("n1", "zone-c"),
            node("n2", "zone-a"),
            pod("p1", "n1"),
            pod("p2", "n2"),
            pod("p3", "n1"),
        ]);
        let eval = evaluate_default(
            items,
            json!({
                "metadata": {"name": "new", "namespace": "default"},
                "spec": {"containers": [{"name": "c", "image": "x"}],
                         "affinity": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                             {"weight": 5, "podAffinityTerm": {
                                 "topologyKey": "zone",
                                 "labelSelector": {"matchLabels": {"app": "db"}}}}]}}}
            }),
        );
        let tables = eval.pod_terms.expect("term tables");
        let mut out = Vec::new();
        serde::Serialize::serialize(
            &DomainPods(&tables.terms[0].domains),
            &mut serde_json::Serializer::new(&mut out),
        )
        .expect("serialize");
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            r#"{"zone-a":[{"namespace":"default","name":"p2"}],"zone-c":[{"namespace":"default","name":"p1"},{"namespace":"default","name":"p3"}]}"#
        );
    }

    /// NodePorts' details in the order and names the schema has always had (no transcript
    /// shows a conflict).
    #[test]
    fn node_ports_details_keep_their_shape() {
        let port = HostPort {
            host_ip: "0.0.0.0".to_string(),
            protocol: "TCP".to_string(),
            port: 80,
        };
        let details = FilterDetails::NodePorts(Box::new(node_ports::FilterDetails {
            wanted: vec![port.clone()],
            conflicts: vec![node_ports::PortConflict {
                wanted: port.clone(),
                used: port,
                pod: PodRef {
                    namespace: "shop".into(),
                    name: "web".into(),
                },
            }],
        }));
        let mut out = Vec::new();
        super::filter(&Some(&details), &mut serde_json::Serializer::new(&mut out))
            .expect("serialize");
        let port = r#"{"hostIp":"0.0.0.0","protocol":"TCP","port":80}"#;
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            format!(
                r#"{{"wanted":[{port}],"conflicts":[{{"wanted":{port},"used":{port},"pod":{{"namespace":"shop","name":"web"}}}}]}}"#
            )
        );
    }
}
