//! Lints: what in the pod's rules or the cluster will not do what it seems to, though the
//! scheduler accepts it, said as notes beside `explain` and `whatif`. Each is a small pure
//! function of the pod, the cluster state and the document (the evaluation's own tables);
//! none re-evaluates a rule.
//!
//! Here and not in `report/`, which describes results and computes none, nor in
//! `scheduler/`, which mirrors kube-scheduler and nothing else: a lint reads the whole
//! state, as only a pipeline step does.

use crate::report::{Explanation, Lint, Note};
use crate::scheduler::explain::Few;
use crate::scheduler::pod_topology_spread::{ConstraintSource, LABEL_HOSTNAME};
use crate::state::AffinityTerm;
use crate::state::selector::LabelSelector;
use crate::state::{ClusterState, Pod};

/// Every lint for `pod` on `state`, in a stable order.
pub fn lints(pod: &Pod, state: &ClusterState, doc: &Explanation) -> Vec<Note> {
    let mut out = Vec::new();
    out.extend(terms_selecting_nothing(pod, state));
    out.extend(spread_selecting_nothing(pod, state));
    out.extend(nodes_without_key(state, doc));
    out.extend(claims_in_use_elsewhere(pod, state));
    out.into_iter().map(Note::Lint).collect()
}

/// Whether a pod other than `pod` (by identity), and not terminal, is matched by `matches`.
fn any_other(pod: &Pod, state: &ClusterState, matches: impl Fn(&Pod) -> bool) -> bool {
    state
        .all_pods()
        .any(|p| p.id != pod.id && !p.is_terminal() && matches(p))
}

/// A required (anti-)affinity term that selects no pod of the cluster in its namespaces,
/// nor the pod itself: an affinity term can never be met, an anti-affinity term never
/// repels anything (the replicas of the pod's own workload included). A term the pod matches
/// itself is left alone: its first replica has nothing to match yet, and the others will.
fn terms_selecting_nothing(pod: &Pod, state: &ClusterState) -> Vec<Lint> {
    let Some(a) = &pod.template.pod_affinity else {
        return Vec::new();
    };
    let lists = [
        ("podAffinity", &a.required_affinity, false),
        ("podAntiAffinity", &a.required_anti_affinity, true),
    ];
    let mut out = Vec::new();
    for (field, terms, anti) in lists {
        for (i, term) in terms.iter().enumerate() {
            // Without the namespaces' labels, which pods a namespaceSelector takes is unknown.
            if term.needs_namespace_labels() && state.namespaces().is_none() {
                continue;
            }
            let own = pod.id.namespace.to_string();
            let matches = |p: &Pod| {
                term.matches(
                    &p.id.namespace,
                    &p.labels,
                    &state.namespace_labels(&p.id.namespace),
                )
            };
            if matches(pod) || any_other(pod, state, matches) {
                continue;
            }
            out.push(Lint::TermSelectsNoPod {
                term: format!(
                    "{field}.requiredDuringSchedulingIgnoredDuringExecution[{i}] ({}, topologyKey {})",
                    term.selector, term.topology_key
                ),
                namespaces: namespaces_of(term, &own),
                anti,
            });
        }
    }
    out
}

/// The namespaces a term reads, as said: its names, its selector, or the pod's own.
fn namespaces_of(term: &AffinityTerm, own: &str) -> String {
    let mut parts = Vec::new();
    match term.namespaces.as_slice() {
        [] => {}
        [one] => parts.push(format!("namespace {one}")),
        many => parts.push(format!("namespaces {}", many.join(", "))),
    }
    if !matches!(term.namespace_selector, LabelSelector::Nothing) {
        parts.push(format!(
            "namespaces selected by {}",
            term.namespace_selector
        ));
    }
    if parts.is_empty() {
        parts.push(format!("namespace {own}"));
    }
    parts.join(" and ")
}

/// A spread constraint of the pod's own whose selector matches no pod of its namespace, nor
/// the pod: every domain counts 0 whatever is placed, so it spreads nothing.
fn spread_selecting_nothing(pod: &Pod, state: &ClusterState) -> Vec<Lint> {
    let mut out = Vec::new();
    for (i, c) in pod.template.topology_spread.iter().enumerate() {
        let Ok(selector) = &c.selector else {
            continue;
        };
        let matches = |p: &Pod| *p.id.namespace == *pod.id.namespace && selector.matches(&p.labels);
        if matches(pod) || any_other(pod, state, matches) {
            continue;
        }
        out.push(Lint::SpreadSelectsNoPod {
            constraint: format!(
                "topologySpreadConstraints[{i}] ({selector}, topologyKey {})",
                c.topology_key
            ),
            namespace: pod.id.namespace.to_string(),
        });
    }
    out
}

/// Nodes without the topology key of a spread constraint the evaluation applied: they are
/// in no domain. What that does depends on the constraint: DoNotSchedule rejects them,
/// the pod's ScheduleAnyway scores them 0, and default spreading scores them as holding none
/// of the pods, so it sends pods there.
fn nodes_without_key(state: &ClusterState, doc: &Explanation) -> Vec<Lint> {
    let Some(tables) = &doc.topology_spread else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for t in &tables.constraints {
        // Each node has its hostname label (the kubelet sets it); a missing one is not this.
        if t.topology_key == LABEL_HOSTNAME {
            continue;
        }
        let lacking: Vec<String> = state
            .nodes()
            .iter()
            .filter(|n| n.labels.get(&t.topology_key).is_none())
            .map(|n| n.name.clone())
            .collect();
        if lacking.is_empty() {
            continue;
        }
        let default = t.source != ConstraintSource::Pod;
        out.push(Lint::NodesWithoutKey {
            key: t.topology_key.clone(),
            constraint: match t.source {
                ConstraintSource::Pod => format!("topologySpreadConstraints[{}]", t.index),
                _ => format!("default spreading [{}]", t.index),
            },
            nodes: Few::of(lacking),
            of: state.nodes().len(),
            effect: match (default, t.when_unsatisfiable) {
                (true, _) => "scoring as if they held none of the pods, they attract them",
                (false, "DoNotSchedule") => "they reject the pod (missing required label)",
                (false, _) => "they score 0 for it",
            },
        });
    }
    out
}

/// A ReadWriteOnce claim of the pod that pods on a node use already: the volume attaches to
/// one node, so on any other the kubelet fails with a Multi-Attach error, though the
/// scheduler places the pod (it checks ReadWriteOncePod only).
fn claims_in_use_elsewhere(pod: &Pod, state: &ClusterState) -> Vec<Lint> {
    let Some(volumes) = state.volumes() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for v in &pod.template.storage {
        let Some(name) = v.claim_name(&pod.id.name) else {
            continue;
        };
        let Some(claim) = volumes.claim(&pod.id.namespace, &name) else {
            continue;
        };
        let modes = &claim.access_modes;
        if !modes.iter().any(|m| m == "ReadWriteOnce")
            || modes
                .iter()
                .any(|m| m == "ReadWriteMany" || m == "ReadOnlyMany" || m == "ReadWriteOncePod")
        {
            continue;
        }
        let mut users: Vec<(String, String)> = state
            .all_pods()
            .filter(|p| {
                p.id != pod.id
                    && !p.is_terminal()
                    && !p.node_name.is_empty()
                    && *p.id.namespace == *pod.id.namespace
                    && p.template
                        .storage
                        .iter()
                        .any(|u| u.claim_name(&p.id.name).as_deref() == Some(name.as_str()))
            })
            .map(|p| (p.id.to_string(), p.node_name.to_string()))
            .collect();
        if users.is_empty() {
            continue;
        }
        users.sort();
        out.push(Lint::ClaimInUse {
            claim: format!("{}/{name}", pod.id.namespace),
            users,
        });
    }
    out
}
