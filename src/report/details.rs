//! How the document writes a plugin's details of a Filter verdict or a score: each plugin's
//! fields, in the schema's own types, borrowed from the plugin's (5,000 nodes' details are
//! not copied to be written). The plugins' types are theirs to reshape; what users read is
//! fixed here. InterPodAffinity, PodTopologySpread and NodeResourcesFit still write their
//! own.

use std::sync::Arc;

use serde::{Serialize, Serializer};

use crate::scheduler::{
    FilterDetails, ScoreDetails, balanced_allocation, image_locality, node_affinity, node_name,
    node_ports, node_unschedulable, taint_toleration,
};
use crate::state::resources::HostPort;
use crate::state::selector::{SelectorCheck, TermCheck};
use crate::state::{PodRef, Taint, Toleration};

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
        FilterDetails::InterPodAffinity(d) => d.serialize(s),
        FilterDetails::PodTopologySpread(d) => d.serialize(s),
        FilterDetails::NodeResourcesFit(d) => d.serialize(s),
        FilterDetails::NodePorts(d) => NodePorts::from(&**d).serialize(s),
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
        ScoreDetails::InterPodAffinity(d) => d.serialize(s),
        ScoreDetails::PodTopologySpread(d) => d.serialize(s),
        ScoreDetails::NodeResourcesFit(d) => d.serialize(s),
        ScoreDetails::BalancedAllocation(d) => BalancedAllocation::from(d).serialize(s),
        ScoreDetails::ImageLocality(d) => ImageLocality::from(&**d).serialize(s),
    }
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

fn taint_checks(checks: &[taint_toleration::TaintCheck]) -> Vec<TaintCheck<'_>> {
    checks.iter().map(TaintCheck::from).collect()
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TaintFilter<'a> {
    taints: Vec<TaintCheck<'a>>,
    /// The one upstream logs.
    #[serde(skip_serializing_if = "Option::is_none")]
    first_untolerated: Option<&'a Taint>,
}

impl<'a> From<&'a taint_toleration::FilterDetails> for TaintFilter<'a> {
    fn from(d: &'a taint_toleration::FilterDetails) -> Self {
        TaintFilter {
            taints: taint_checks(&d.taints),
            first_untolerated: d.first_untolerated(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TaintScore<'a> {
    taints: Vec<TaintCheck<'a>>,
    untolerated_prefer_no_schedule: i64,
}

impl<'a> From<&'a taint_toleration::ScoreDetails> for TaintScore<'a> {
    fn from(d: &'a taint_toleration::ScoreDetails) -> Self {
        TaintScore {
            taints: taint_checks(&d.taints),
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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NodeAffinityFilter<'a> {
    /// The profile's `addedAffinity`, checked first.
    #[serde(skip_serializing_if = "Option::is_none")]
    added_affinity: Option<&'a SelectorCheck>,
    node_selector: Vec<LabelCheck<'a>>,
    /// The pod's required node affinity, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    required: Option<&'a SelectorCheck>,
}

impl<'a> From<&'a node_affinity::FilterDetails> for NodeAffinityFilter<'a> {
    fn from(d: &'a node_affinity::FilterDetails) -> Self {
        NodeAffinityFilter {
            added_affinity: d.added_affinity.as_deref(),
            node_selector: d
                .node_selector
                .iter()
                .map(|c| LabelCheck {
                    key: &c.key,
                    value: &c.value,
                    node_value: c.node_value.as_ref(),
                    matched: c.matched,
                })
                .collect(),
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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NodeAffinityScore<'a> {
    terms: Vec<PreferredCheck<'a>>,
}

impl<'a> From<&'a node_affinity::ScoreDetails> for NodeAffinityScore<'a> {
    fn from(d: &'a node_affinity::ScoreDetails) -> Self {
        NodeAffinityScore {
            terms: d
                .terms
                .iter()
                .map(|t| PreferredCheck {
                    weight: t.weight,
                    source: t.source,
                    term: &t.term,
                })
                .collect(),
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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NodePorts<'a> {
    wanted: &'a [HostPort],
    conflicts: Vec<PortConflict<'a>>,
}

impl<'a> From<&'a node_ports::FilterDetails> for NodePorts<'a> {
    fn from(d: &'a node_ports::FilterDetails) -> Self {
        NodePorts {
            wanted: &d.wanted,
            conflicts: d
                .conflicts
                .iter()
                .map(|c| PortConflict {
                    wanted: &c.wanted,
                    used: &c.used,
                    pod: &c.pod,
                })
                .collect(),
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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BalancedAllocation<'a> {
    fractions: Vec<Fraction<'a>>,
    std_dev: f64,
}

impl<'a> From<&'a balanced_allocation::ScoreDetails> for BalancedAllocation<'a> {
    fn from(d: &'a balanced_allocation::ScoreDetails) -> Self {
        BalancedAllocation {
            fractions: d
                .fractions
                .iter()
                .map(|f| Fraction {
                    resource: &f.resource,
                    requested: f.requested,
                    allocatable: f.allocatable,
                    fraction: f.fraction,
                })
                .collect(),
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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ImageLocality<'a> {
    images: Vec<ImageCheck<'a>>,
    total_nodes: usize,
    sum: i64,
}

impl<'a> From<&'a image_locality::ScoreDetails> for ImageLocality<'a> {
    fn from(d: &'a image_locality::ScoreDetails) -> Self {
        ImageLocality {
            images: d
                .images
                .iter()
                .map(|i| ImageCheck {
                    image: &i.image,
                    normalized: &i.normalized,
                    present: i.present,
                    size_bytes: i.size_bytes,
                    nodes_with_image: i.nodes_with_image,
                    scaled_score: i.scaled_score,
                })
                .collect(),
            total_nodes: d.total_nodes,
            sum: d.sum,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::scheduler::{FilterDetails, node_ports};
    use crate::state::PodRef;
    use crate::state::resources::HostPort;

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
