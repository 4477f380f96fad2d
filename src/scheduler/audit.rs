//! RequiredDuringExecution as a user means it: whether the node a pod is bound to still
//! satisfies the pod's required rules today. Scheduling rules are IgnoredDuringExecution, so
//! the kubelet keeps such a pod running (only untolerated NoExecute taints evict it); this
//! tells which ones would no longer be placed there, and by which rule.
//!
//! The rules are the scheduler's own: NodeAffinity (nodeSelector and required node affinity),
//! TaintToleration (NoSchedule and NoExecute taints) and InterPodAffinity (required affinity,
//! required anti-affinity in both directions), each run through its PreFilter and its Filter
//! on the pod's own node only, with the pod itself left out of the state as `explain` leaves
//! it out. A cordoned node is said apart: NodeUnschedulable rejects every new pod there, but
//! nothing evicts the pods it runs.

use std::sync::Arc;

use super::details::FilterDetails;
use super::inter_pod_affinity::{InterPodAffinity, TermKind};
use super::node_affinity::{LastRequired, NodeAffinity};
use super::plugin::{Input, Plugin};
use super::plugin_id::PluginId;
use super::profile::Profile;
use super::status::{PreFilterOutcome, Status};
use super::taint_toleration::TaintToleration;
use crate::state::{ClusterState, PodRef, Taint};

/// The taint the node lifecycle controller puts on a cordoned node (`TaintNodeUnschedulable`,
/// staging/src/k8s.io/api/core/v1/well_known_taints.go). On a cordoned node it is the cordon
/// itself, said as such, not an untolerated taint of its own.
pub const UNSCHEDULABLE_TAINT: &str = "node.kubernetes.io/unschedulable";

/// The plugins whose Filter checks a pod's required rules against its node, in the default
/// profile's order.
const RULES: [PluginId; 3] = [
    PluginId::TaintToleration,
    PluginId::NodeAffinity,
    PluginId::InterPodAffinity,
];

/// A required rule the pod's node no longer satisfies, as its plugin's Filter says it.
#[derive(Debug, Clone)]
pub struct Broken {
    pub plugin: PluginId,
    /// The plugin's status, in upstream's words (PreFilter's when PreFilter rejected the pod).
    pub status: Status,
    /// The Filter's details on the node: every term and expression with the node's value,
    /// every taint and the toleration that matched it, every pod term with its domain.
    pub details: Option<FilterDetails>,
    /// TaintToleration: the NoSchedule and NoExecute taints no toleration matches.
    pub taints: Vec<Taint>,
    /// InterPodAffinity: the pods that break the rule, those the pod's anti-affinity selects
    /// in the node's domain and those whose anti-affinity selects the pod.
    pub pods: Vec<Arc<PodRef>>,
}

/// What the pod's node says of the pod's required rules today.
#[derive(Debug, Clone, Default)]
pub struct Standing {
    /// `spec.unschedulable` of the node: no new pod goes there, the pods it runs stay.
    pub cordoned: bool,
    pub broken: Vec<Broken>,
    /// Plugins that could not be evaluated, with why (never shown as satisfied).
    pub not_evaluated: Vec<(PluginId, String)>,
}

/// Checks existing pod `pod` (an index into `state.pods()`) against its own node under
/// `profile`, with the plugins the profile enables at Filter; `last` holds the parse of the
/// required node affinity of the pod checked before.
pub fn check_bound(
    state: &ClusterState,
    pod: usize,
    profile: &Profile,
    last: &mut LastRequired,
) -> Standing {
    let node = state.pod_node(pod);
    let input = Input {
        pod: &state.pods()[pod],
        state,
        exclude: Some(pod),
        removed: &[],
    };
    let mut standing = Standing {
        cordoned: state.nodes()[node].unschedulable,
        ..Standing::default()
    };
    for plugin in RULES {
        if !profile.filter.contains(&plugin) {
            continue;
        }
        let pre_filter = profile.pre_filter.contains(&plugin);
        let checked = match plugin {
            PluginId::TaintToleration => {
                run(
                    TaintToleration::new(input, &profile.gates),
                    pre_filter,
                    node,
                )
                .map(|r| {
                    r.map(|(status, details)| {
                        let taints = details
                            .as_ref()
                            .map(|d| untolerated(d, standing.cordoned))
                            .unwrap_or_default();
                        (status, details.map(Into::into), taints, Vec::new())
                    })
                    // Only the cordon's own taint is untolerated: that is the cordon.
                    .filter(|(_, details, taints, _)| details.is_none() || !taints.is_empty())
                })
            }
            PluginId::NodeAffinity => run(
                NodeAffinity::alone(input, &profile.node_affinity, last),
                pre_filter,
                node,
            )
            .map(|r| r.map(|(s, d)| (s, d.map(Into::into), Vec::new(), Vec::new()))),
            _ => {
                let mut ipa = InterPodAffinity::new(input, profile.inter_pod_affinity);
                match ipa.unavailable() {
                    Some(why) => Err(why),
                    None => {
                        let (status, details) = filter_once(&mut ipa, pre_filter, node);
                        let pods = match (&status, &details) {
                            (Some(_), Some(d)) => blocking_pods(&mut ipa, d),
                            _ => Vec::new(),
                        };
                        Ok(status.map(|s| (s, details.map(Into::into), Vec::new(), pods)))
                    }
                }
            }
        };
        match checked {
            Err(why) => standing.not_evaluated.push((plugin, why)),
            Ok(None) => {}
            Ok(Some((status, details, taints, pods))) => standing.broken.push(Broken {
                plugin,
                status,
                details,
                taints,
                pods,
            }),
        }
    }
    standing
}

type Checked<D> = Result<Option<(Status, Option<D>)>, String>;

/// A plugin's PreFilter (when the profile enables it) and its Filter on `node`: the failing
/// status with the Filter's details, `None` when it passes or PreFilter skipped it.
fn run<P: Plugin>(mut plugin: P, pre_filter: bool, node: usize) -> Checked<P::FilterDetails> {
    if let Some(why) = plugin.unavailable() {
        return Err(why);
    }
    let (status, details) = filter_once(&mut plugin, pre_filter, node);
    Ok(status.map(|s| (s, details)))
}

fn filter_once<P: Plugin>(
    plugin: &mut P,
    pre_filter: bool,
    node: usize,
) -> (Option<Status>, Option<P::FilterDetails>) {
    if !pre_filter {
        plugin.pre_filter_disabled();
        return plugin.filter(node);
    }
    match plugin.pre_filter() {
        PreFilterOutcome::Skip => (None, None),
        PreFilterOutcome::Reject(status) => (Some(status), None),
        // Node names PreFilter narrows to are Filter's own verdict too (NodeAffinity's
        // `metadata.name` fields): Filter says it on the node, with its details.
        PreFilterOutcome::Proceed(_) => plugin.filter(node),
    }
}

/// The NoSchedule and NoExecute taints no toleration matches; on a cordoned node, without the
/// cordon's own taint.
fn untolerated(d: &super::taint_toleration::FilterDetails, cordoned: bool) -> Vec<Taint> {
    d.taints
        .iter()
        .filter(|c| c.considered && c.tolerated_by.is_none())
        .filter(|c| {
            !(cordoned && c.taint.key == UNSCHEDULABLE_TAINT && c.taint.effect == "NoSchedule")
        })
        .map(|c| c.taint.clone())
        .collect()
}

/// The pods that break the pod's required pod (anti-)affinity on the node: those its
/// unsatisfied anti-affinity terms select in the node's domain, and those whose own required
/// anti-affinity selects it there. Unsatisfied affinity is the absence of pods: none named.
fn blocking_pods(
    ipa: &mut InterPodAffinity<'_>,
    d: &super::inter_pod_affinity::FilterDetails,
) -> Vec<Arc<PodRef>> {
    let Some(tables) = ipa.tables() else {
        return Vec::new();
    };
    let mut pods: Vec<Arc<PodRef>> = Vec::new();
    for t in d.anti_affinity.iter().filter(|t| !t.satisfied) {
        let Some(domain) = &t.domain else { continue };
        let table = tables
            .terms
            .iter()
            .find(|x| x.kind == TermKind::RequiredAntiAffinity && x.index == t.index);
        if let Some(list) = table.and_then(|x| x.domains.get(domain)) {
            pods.extend(list.iter().map(|p| Arc::new(p.clone())));
        }
    }
    pods.extend(
        d.existing_anti_affinity
            .iter()
            .filter_map(|&i| tables.existing_anti_affinity.get(i))
            .map(|hit| hit.pod.clone()),
    );
    pods.sort();
    pods.dedup();
    pods
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::scheduler::config::FeatureGates;
    use crate::scheduler::testing::{db_pod, state_of, zone_node};

    fn standing(items: serde_json::Value, pod: &str) -> Standing {
        let state = state_of(items);
        let i = state
            .pods()
            .iter()
            .position(|p| &*p.id.name == pod)
            .expect("pod");
        check_bound(
            &state,
            i,
            &Profile::default_profile(FeatureGates::default()),
            &mut LastRequired::default(),
        )
    }

    #[test]
    fn a_node_that_still_satisfies_every_rule_breaks_none() {
        let s = standing(json!([zone_node("a", "z1"), db_pod("p", "a")]), "p");
        assert!(s.broken.is_empty() && s.not_evaluated.is_empty() && !s.cordoned);
    }

    #[test]
    fn a_relabelled_node_breaks_the_node_selector_with_the_nodes_value() {
        let mut pod = db_pod("p", "a");
        pod["spec"]["nodeSelector"] = json!({"zone": "z2"});
        let s = standing(json!([zone_node("a", "z1"), pod]), "p");
        assert_eq!(s.broken.len(), 1);
        assert_eq!(s.broken[0].plugin, PluginId::NodeAffinity);
        assert_eq!(
            s.broken[0].status.message(),
            "node(s) didn't match Pod's node affinity/selector"
        );
        let Some(FilterDetails::NodeAffinity(d)) = &s.broken[0].details else {
            panic!("details: {:?}", s.broken[0].details);
        };
        assert_eq!(d.node_selector[0].node_value.as_deref(), Some("z1"));
        assert!(!d.node_selector[0].matched);
    }

    #[test]
    fn the_cordon_taint_is_the_cordon_and_another_taint_is_broken() {
        let mut node = zone_node("a", "z1");
        node["spec"] = json!({"unschedulable": true, "taints": [
            {"key": UNSCHEDULABLE_TAINT, "effect": "NoSchedule"}]});
        let s = standing(json!([node.clone(), db_pod("p", "a")]), "p");
        assert!(s.cordoned);
        assert!(s.broken.is_empty(), "{:?}", s.broken);
        node["spec"]["taints"]
            .as_array_mut()
            .expect("taints")
            .push(json!({"key": "gpu", "value": "true", "effect": "NoExecute"}));
        let s = standing(json!([node, db_pod("p", "a")]), "p");
        assert_eq!(s.broken.len(), 1);
        assert_eq!(
            s.broken[0].status.message(),
            "node(s) had untolerated taint(s)"
        );
        let keys: Vec<&str> = s.broken[0].taints.iter().map(|t| t.key.as_str()).collect();
        assert_eq!(keys, ["gpu"]);
    }

    #[test]
    fn anti_affinity_is_broken_in_both_directions_naming_the_pods() {
        let mut shy = db_pod("shy", "a");
        shy["metadata"]["labels"] = json!({"app": "shy"});
        shy["spec"]["affinity"] = json!({"podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}]}});
        let items = json!([zone_node("a", "z1"), shy, db_pod("db-0", "a")]);
        let s = standing(items.clone(), "shy");
        assert_eq!(s.broken.len(), 1);
        assert_eq!(
            s.broken[0].status.message(),
            "node(s) didn't match pod anti-affinity rules"
        );
        assert_eq!(s.broken[0].pods[0].to_string(), "default/db-0");
        // The other pod breaks shy's anti-affinity: it is told too.
        let s = standing(items, "db-0");
        assert_eq!(
            s.broken[0].status.message(),
            "node(s) didn't satisfy existing pods anti-affinity rules"
        );
        assert_eq!(s.broken[0].pods[0].to_string(), "default/shy");
    }

    #[test]
    fn the_pod_is_left_out_of_its_own_affinity() {
        // A pod whose anti-affinity selects itself is not blocked by itself.
        let mut lone = db_pod("lone", "a");
        lone["spec"]["affinity"] = json!({"podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}]}});
        let s = standing(json!([zone_node("a", "z1"), lone]), "lone");
        assert!(s.broken.is_empty(), "{:?}", s.broken);
    }
}
