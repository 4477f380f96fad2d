//! What would make a node take the pod: per failing Filter, the smallest change, as the
//! plugin that rejects the node reads it from its own details (never re-evaluated): the
//! toleration to add (a near miss named), the label or expression the node fails, how much
//! of a resource is short, the pods that block (anti-)affinity, the cordon to lift.

use serde::Serialize;

use crate::scheduler::details::Change;
use crate::scheduler::explain::{Peers, Tables};
use crate::scheduler::{Entries, FilterCell, PluginId, explain_of};
use crate::state::Pod;

/// One change to one rule.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Suggestion {
    /// The Filter plugin that rejects the node.
    pub rule: PluginId,
    /// As data, written as the plugin writes it; its words are the plugin's too.
    pub change: Change,
}

/// The suggestions for one node, from its Filter entries (and, for changes that name other
/// nodes, every node's: `peers`).
pub fn for_node(
    filters: &Entries<FilterCell>,
    pod: &Pod,
    tables: Tables<'_>,
    peers: &Peers<'_>,
) -> Vec<Suggestion> {
    let mut out = Vec::new();
    for f in filters.iter().filter(|f| f.pass == Some(false)) {
        let changes = explain_of(f.plugin).suggestions(f, pod, tables, peers);
        out.extend(changes.into_iter().map(|change| Suggestion {
            rule: f.plugin.clone(),
            change,
        }));
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
        let tables = Tables {
            pod_terms: eval.pod_terms.as_ref(),
            topology_spread: eval.topology_spread.as_ref(),
        };
        let peers = Peers::new(vec![("a", &eval.nodes[0].filters)]);
        let s = for_node(&eval.nodes[0].filters, &pod_of(pod), tables, &peers);
        assert_eq!(
            serde_json::to_value(&s).expect("json"),
            json!([
                {"rule": PluginId::TaintToleration, "change": {"addToleration": {
                    "toleration": {"key": "gpu", "operator": "Equal", "value": "present",
                                   "effect": "NoSchedule"},
                    "nearMiss": {"key": "gpu", "operator": "Equal", "value": "true",
                                 "effect": "NoSchedule"}}}},
                {"rule": PluginId::NodeAffinity, "change": {"label": {
                    "key": "zone", "value": "z2", "nodeValue": "z1"}}}
            ])
        );
    }
}
