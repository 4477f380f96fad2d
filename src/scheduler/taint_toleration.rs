//! TaintToleration (`pkg/scheduler/framework/plugins/tainttoleration`): Filter rejects a node
//! with a NoSchedule/NoExecute taint no toleration tolerates; Score counts untolerated
//! PreferNoSchedule taints (fewer is better, reversed normalization).

pub mod explain;

use std::convert::Infallible;

use serde::{Serialize, Serializer};

use super::config::FeatureGates;
use super::plugin::{Input, Plugin, default_normalize};
use super::status::{Code, Status};
use crate::state::{Taint, Toleration};

/// Upstream's reason (PR #134740, v1.35 and release-1.34): the taint itself is only logged.
pub const REASON_UNTOLERATED: &str = "node(s) had untolerated taint(s)";

/// `Toleration.ToleratesTaint` (k8s.io/api core/v1 toleration.go).
pub fn tolerates(t: &Toleration, taint: &Taint, comparison_operators: bool) -> bool {
    if !t.effect.is_empty() && t.effect != taint.effect {
        return false;
    }
    if !t.key.is_empty() && t.key != taint.key {
        return false;
    }
    match t.operator.as_str() {
        "" | "Equal" => t.value == taint.value,
        "Exists" => true,
        "Gt" | "Lt" if comparison_operators => {
            match (canonical_int(&t.value), canonical_int(&taint.value)) {
                (Some(tol), Some(val)) if t.operator == "Gt" => val > tol,
                (Some(tol), Some(val)) => val < tol,
                _ => false,
            }
        }
        _ => false,
    }
}

/// A decimal integer in strict canonical form: optional `-`, no `+`, no leading zeros.
fn canonical_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let ok = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && s != "-0";
    if ok { s.parse().ok() } else { None }
}

/// Index of the first toleration that tolerates the taint.
pub fn tolerated_by(
    tolerations: &[Toleration],
    taint: &Taint,
    gates: &FeatureGates,
) -> Option<usize> {
    tolerations
        .iter()
        .position(|t| tolerates(t, taint, gates.taint_toleration_comparison_operators))
}

/// One taint of the node and what the pod's tolerations make of it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaintCheck {
    #[serde(flatten)]
    pub taint: Taint,
    /// Whether this check looks at the taint at all (Filter: NoSchedule/NoExecute; Score:
    /// PreferNoSchedule).
    pub considered: bool,
    /// The toleration that tolerates it, by index in the pod's list, with its content.
    pub tolerated_by: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toleration: Option<Toleration>,
}

/// Filter's checks of the node's taints. The first untolerated taint is derived from them
/// rather than stored, so that the entry stays small on each of 5,000 nodes.
#[derive(Debug, Clone)]
pub struct FilterDetails {
    pub taints: Vec<TaintCheck>,
}

/// Written with the first untolerated taint, the one upstream logs.
impl Serialize for FilterDetails {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Written<'a> {
            taints: &'a [TaintCheck],
            #[serde(skip_serializing_if = "Option::is_none")]
            first_untolerated: Option<&'a Taint>,
        }
        Written {
            taints: &self.taints,
            first_untolerated: self.first_untolerated(),
        }
        .serialize(s)
    }
}

impl FilterDetails {
    /// The first untolerated taint, the one upstream logs.
    pub fn first_untolerated(&self) -> Option<&Taint> {
        self.taints
            .iter()
            .find(|c| c.considered && c.tolerated_by.is_none())
            .map(|c| &c.taint)
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreDetails {
    pub taints: Vec<TaintCheck>,
    pub untolerated_prefer_no_schedule: i64,
}

/// What would make a tainted node take the pod.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Change {
    /// Add this toleration to the pod; `near_miss` is one the pod has for the same key that
    /// does not match (another value, operator or effect).
    AddToleration {
        toleration: Toleration,
        #[serde(skip_serializing_if = "Option::is_none")]
        near_miss: Option<Toleration>,
    },
    /// The taint keeps the node for other pods (a system pool, the control plane) or marks
    /// it unfit for any (a node condition, a node being removed): tolerating it is not the
    /// fix for a pod with no toleration of that key.
    Reserved { taint: Taint, node_is: &'static str },
}

/// Taints that set a node apart rather than ask pods to opt in, with what they say of it.
/// Suggesting to tolerate them would send an ordinary pod where it must not run.
pub const RESERVED_TAINTS: &[(&str, &str)] = &[
    (
        "CriticalAddonsOnly",
        "kept for critical add-ons (a system node pool)",
    ),
    (
        "node-role.kubernetes.io/control-plane",
        "kept for the control plane",
    ),
    (
        "node-role.kubernetes.io/master",
        "kept for the control plane",
    ),
    ("node.kubernetes.io/not-ready", "not ready"),
    ("node.kubernetes.io/unreachable", "unreachable"),
    (
        "node.kubernetes.io/memory-pressure",
        "under memory pressure",
    ),
    ("node.kubernetes.io/disk-pressure", "under disk pressure"),
    ("node.kubernetes.io/pid-pressure", "under PID pressure"),
    ("node.kubernetes.io/network-unavailable", "without network"),
    ("node.kubernetes.io/out-of-service", "out of service"),
    (
        "node.cloudprovider.kubernetes.io/uninitialized",
        "not initialized by the cloud provider yet",
    ),
    (
        "ToBeDeletedByClusterAutoscaler",
        "being removed by the cluster autoscaler",
    ),
    ("karpenter.sh/disrupted", "being removed by Karpenter"),
];

/// What a reserved taint says of its node, when `key` is one.
pub fn reserved_for(key: &str) -> Option<&'static str> {
    RESERVED_TAINTS
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, why)| *why)
}

/// What makes the plugin reject the nodes it rejects most.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all_fields = "camelCase")]
pub enum Cause {
    /// The taints the pod does not tolerate (each node's first, as upstream logs it), by key.
    Taints { keys: Vec<String> },
}

#[derive(Debug)]
pub struct TaintToleration<'a> {
    input: Input<'a>,
    gates: &'a FeatureGates,
    /// PreScore keeps tolerations whose effect is empty or PreferNoSchedule.
    prefer_tolerations: Vec<Toleration>,
}

impl<'a> TaintToleration<'a> {
    pub fn new(input: Input<'a>, gates: &'a FeatureGates) -> Self {
        let prefer_tolerations = input
            .pod
            .template
            .tolerations
            .iter()
            .filter(|t| t.effect.is_empty() || t.effect == "PreferNoSchedule")
            .cloned()
            .collect();
        TaintToleration {
            input,
            gates,
            prefer_tolerations,
        }
    }

    fn check(&self, taint: &Taint, considered: bool, tolerations: &[Toleration]) -> TaintCheck {
        let by = considered
            .then(|| tolerated_by(tolerations, taint, self.gates))
            .flatten();
        TaintCheck {
            taint: taint.clone(),
            considered,
            tolerated_by: by,
            toleration: by.map(|i| tolerations[i].clone()),
        }
    }
}

impl Plugin for TaintToleration<'_> {
    type FilterDetails = FilterDetails;
    type ScoreDetails = ScoreDetails;
    type Tables = Infallible;

    fn filter(&self, node: usize) -> (Option<Status>, Option<Self::FilterDetails>) {
        let node = self.input.node(node);
        let taints: Vec<TaintCheck> = node
            .taints
            .iter()
            .map(|t| {
                let considered = t.effect == "NoSchedule" || t.effect == "NoExecute";
                self.check(t, considered, &self.input.pod.template.tolerations)
            })
            .collect();
        let details = FilterDetails { taints };
        // Up to 1.33 the reason names the first untolerated taint (taint_toleration.go).
        let names_taint = self.gates.release.facts().taint_reason_names_taint;
        let status = details.first_untolerated().map(|t| {
            if names_taint {
                Status::new(
                    Code::UnschedulableAndUnresolvable,
                    format!("node(s) had untolerated taint {{{}: {}}}", t.key, t.value),
                )
            } else {
                Status::new(Code::UnschedulableAndUnresolvable, REASON_UNTOLERATED)
            }
        });
        (status, Some(details))
    }

    fn score(&self, node: usize) -> Result<(i64, Option<Self::ScoreDetails>), String> {
        let node = self.input.node(node);
        let taints: Vec<TaintCheck> = node
            .taints
            .iter()
            .map(|t| self.check(t, t.effect == "PreferNoSchedule", &self.prefer_tolerations))
            .collect();
        let count = taints
            .iter()
            .filter(|c| c.considered && c.tolerated_by.is_none())
            .count() as i64;
        Ok((
            count,
            Some(ScoreDetails {
                taints,
                untolerated_prefer_no_schedule: count,
            }),
        ))
    }

    fn normalize(&self, scores: &mut [i64]) {
        default_normalize(scores, true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tol(key: &str, op: &str, value: &str, effect: &str) -> Toleration {
        Toleration {
            key: key.into(),
            operator: op.into(),
            value: value.into(),
            effect: effect.into(),
        }
    }
    fn taint(key: &str, value: &str, effect: &str) -> Taint {
        Taint {
            key: key.into(),
            value: value.into(),
            effect: effect.into(),
        }
    }

    #[test]
    fn toleration_table() {
        let t = taint("dedicated", "user1", "NoSchedule");
        let cases = [
            (tol("dedicated", "Equal", "user1", "NoSchedule"), true),
            (tol("dedicated", "", "user1", ""), true),
            (tol("dedicated", "Equal", "user2", "NoSchedule"), false),
            (tol("dedicated", "Exists", "", ""), true),
            (tol("", "Exists", "", ""), true),
            (tol("", "Exists", "", "NoExecute"), false),
            (tol("other", "Exists", "", ""), false),
            (tol("dedicated", "Bogus", "user1", ""), false),
            // Empty key with Equal matches any key with an equal value (API validation forbids it).
            (tol("", "Equal", "user1", ""), true),
        ];
        for (tl, want) in cases {
            assert_eq!(tolerates(&tl, &t, false), want, "{tl:?}");
        }
    }

    #[test]
    fn comparison_operators_need_the_gate_and_canonical_integers() {
        let t = taint("cap", "950", "NoSchedule");
        assert!(!tolerates(&tol("cap", "Gt", "750", ""), &t, false));
        assert!(tolerates(&tol("cap", "Gt", "750", ""), &t, true));
        assert!(!tolerates(&tol("cap", "Lt", "750", ""), &t, true));
        assert!(tolerates(&tol("cap", "Lt", "1000", ""), &t, true));
        assert!(!tolerates(&tol("cap", "Gt", "0750", ""), &t, true));
        assert!(!tolerates(&tol("cap", "Gt", "+750", ""), &t, true));
        assert!(!tolerates(
            &tol("cap", "Gt", "750", ""),
            &taint("cap", "abc", "NoSchedule"),
            true
        ));
        assert!(tolerates(
            &tol("cap", "Lt", "0", ""),
            &taint("cap", "-3", "NoSchedule"),
            true
        ));
    }
}
