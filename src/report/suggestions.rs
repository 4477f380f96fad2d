//! What would make a node take the pod: per failing Filter, the smallest change, read from
//! the evaluation's own details (never re-evaluated): the toleration to add (a near miss
//! named), the label or expression the node fails, how much of a resource is short, the pods
//! that block (anti-)affinity, the cordon to lift.

use std::sync::Arc;

use serde::Serialize;

use crate::scheduler::inter_pod_affinity::{TermKind, TermTables};
use crate::scheduler::{Entries, FilterCell, FilterDetails, PluginId};
use crate::state::{Pod, Toleration};

/// One change to one rule.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Suggestion {
    /// The Filter plugin that rejects the node.
    pub rule: PluginId,
    pub change: Change,
}

/// The change, as data: its words are render/'s.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Change {
    /// The node is cordoned: uncordon it.
    Uncordon,
    /// Add this toleration to the pod; `near_miss` is one the pod has for the same key that
    /// does not match (another value, operator or effect).
    AddToleration {
        toleration: Toleration,
        #[serde(skip_serializing_if = "Option::is_none")]
        near_miss: Option<Toleration>,
    },
    /// A `nodeSelector` entry the node's label does not give.
    Label {
        key: Arc<str>,
        value: Arc<str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        node_value: Option<Arc<str>>,
    },
    /// A required node-affinity expression the node fails (every term fails: any one term
    /// satisfied would do).
    Expression {
        term: usize,
        key: String,
        operator: String,
        values: Vec<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        node_value: Option<Arc<str>>,
    },
    /// A resource the node is short of, by this much (milli-cpu, bytes, units).
    Resource { resource: Arc<str>, short: i64 },
    /// The node runs as many pods as it allows.
    PodCount { allowed: i64 },
    /// Pods whose presence breaks required anti-affinity (the pod's or theirs).
    BlockingPods { pods: Vec<String> },
    /// A hard spread constraint: placing the pod in the node's domain would reach this skew
    /// (`matching + self - global minimum`), above the constraint's maxSkew; `skew` is absent
    /// when the node lacks the topology key.
    Skew {
        topology_key: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        domain: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        skew: Option<i64>,
        max_skew: i32,
    },
    /// Required affinity finds no matching pod in the node's domain.
    NoAffinityPod {
        topology_key: Arc<str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        domain: Option<Arc<str>>,
    },
}

/// The suggestions for one node, from its Filter entries.
pub fn for_node(
    filters: &Entries<FilterCell>,
    pod: &Pod,
    terms: Option<&TermTables>,
) -> Vec<Suggestion> {
    let mut out = Vec::new();
    for f in filters.iter().filter(|f| f.pass == Some(false)) {
        let rule = match f.plugin {
            PluginId::NodeUnschedulable
            | PluginId::TaintToleration
            | PluginId::NodeAffinity
            | PluginId::NodeResourcesFit
            | PluginId::InterPodAffinity
            | PluginId::PodTopologySpread => f.plugin,
            _ => continue,
        };
        let mut push = |change| {
            out.push(Suggestion {
                rule: rule.clone(),
                change,
            })
        };
        match f.details {
            _ if *rule == PluginId::NodeUnschedulable => push(Change::Uncordon),
            Some(FilterDetails::TaintToleration(d)) => {
                for c in d
                    .taints
                    .iter()
                    .filter(|c| c.considered && c.tolerated_by.is_none())
                {
                    let t = &c.taint;
                    let near_miss = pod
                        .template
                        .tolerations
                        .iter()
                        .find(|tol| tol.key == t.key)
                        .cloned();
                    let toleration = Toleration {
                        key: t.key.clone(),
                        operator: if t.value.is_empty() {
                            "Exists"
                        } else {
                            "Equal"
                        }
                        .to_string(),
                        value: t.value.clone(),
                        effect: t.effect.clone(),
                    };
                    push(Change::AddToleration {
                        toleration,
                        near_miss,
                    });
                }
            }
            Some(FilterDetails::NodeAffinity(d)) => {
                for c in d.node_selector.iter().filter(|c| !c.matched) {
                    push(Change::Label {
                        key: c.key.clone(),
                        value: c.value.clone(),
                        node_value: c.node_value.clone(),
                    });
                }
                let selectors = d.added_affinity.as_deref().into_iter().chain(&d.required);
                for sel in selectors.filter(|s| !s.matched) {
                    for (i, t) in sel.terms.iter().enumerate() {
                        for r in t.match_expressions.iter().chain(&t.match_fields) {
                            if !r.matched {
                                push(Change::Expression {
                                    term: i,
                                    key: r.written.key.clone(),
                                    operator: r.written.operator.clone(),
                                    values: r.written.values.clone(),
                                    node_value: r.node_value.clone(),
                                });
                            }
                        }
                    }
                }
            }
            Some(FilterDetails::NodeResourcesFit(d)) => {
                if !d.pods.fits {
                    push(Change::PodCount {
                        allowed: d.pods.allowed,
                    });
                }
                for r in d
                    .resources
                    .iter()
                    .filter(|r| !r.fits && r.ignored.is_none())
                {
                    push(Change::Resource {
                        resource: r.resource.clone(),
                        short: r
                            .requested
                            .saturating_add(r.used)
                            .saturating_sub(r.allocatable),
                    });
                }
            }
            Some(FilterDetails::PodTopologySpread(d)) => {
                for c in d.constraints.iter().filter(|c| !c.satisfied) {
                    push(Change::Skew {
                        topology_key: c.topology_key.clone(),
                        domain: c.domain.clone(),
                        skew: c.skew,
                        max_skew: c.max_skew,
                    });
                }
            }
            Some(FilterDetails::InterPodAffinity(d)) => {
                let mut pods: Vec<String> = Vec::new();
                if let Some(tables) = terms {
                    for t in d.anti_affinity.iter().filter(|t| !t.satisfied) {
                        let table = tables.terms.iter().find(|x| {
                            x.kind == TermKind::RequiredAntiAffinity && x.index == t.index
                        });
                        let list = t
                            .domain
                            .as_deref()
                            .and_then(|dom| table.and_then(|x| x.domains.get(dom)));
                        pods.extend(
                            list.into_iter()
                                .flat_map(|l| l.iter().map(|p| p.to_string())),
                        );
                    }
                    pods.extend(
                        d.existing_anti_affinity
                            .iter()
                            .filter_map(|&i| tables.existing_anti_affinity.get(i))
                            .map(|h| h.pod.to_string()),
                    );
                }
                pods.sort();
                pods.dedup();
                if !pods.is_empty() {
                    push(Change::BlockingPods { pods });
                }
                for t in d.affinity.iter().filter(|t| !t.satisfied) {
                    push(Change::NoAffinityPod {
                        topology_key: t.topology_key.clone(),
                        domain: t.domain.clone(),
                    });
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::scheduler::testing::{evaluate_default, pod_of, zone_node};

    #[test]
    fn a_near_miss_toleration_is_named_beside_the_one_to_add() {
        let mut node = zone_node("a", "z1");
        node["spec"] =
            json!({"taints": [{"key": "gpu", "value": "present", "effect": "NoSchedule"}]});
        let pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default"},
            "spec": {"nodeSelector": {"zone": "z2"},
                     "tolerations": [{"key": "gpu", "operator": "Equal", "value": "true",
                                      "effect": "NoSchedule"}],
                     "containers": [{"name": "c", "image": "x"}]}});
        let eval = evaluate_default(json!([node]), pod.clone());
        let s = for_node(
            &eval.nodes[0].filters,
            &pod_of(pod),
            eval.pod_terms.as_ref(),
        );
        assert_eq!(
            serde_json::to_value(&s).expect("json"),
            json!([
                {"rule": "TaintToleration", "change": {"addToleration": {
                    "toleration": {"key": "gpu", "operator": "Equal", "value": "present",
                                   "effect": "NoSchedule"},
                    "nearMiss": {"key": "gpu", "operator": "Equal", "value": "true",
                                 "effect": "NoSchedule"}}}},
                {"rule": "NodeAffinity", "change": {"label": {
                    "key": "zone", "value": "z2", "nodeValue": "z1"}}}
            ])
        );
    }
}
