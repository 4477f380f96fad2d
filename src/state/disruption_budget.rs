//! PodDisruptionBudgets (policy/v1) as preemption reads them: which pods each one covers and
//! how many more disruptions it allows (upstream `defaultpreemption`'s
//! `filterPodsWithPDBViolation`). Only those fields are decoded.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::labels::Labels;
use super::selector::LabelSelector;
use super::spec;
use super::workloads::ObjectName;

/// A PodDisruptionBudget: its namespace, selector and status.
#[derive(Debug, Clone)]
pub struct DisruptionBudget {
    pub namespace: String,
    pub name: String,
    /// `None` for a nil, empty (`{}`) or invalid selector: upstream's check skips such a
    /// budget ("A PDB with a nil or empty selector matches nothing").
    pub selector: Option<LabelSelector>,
    /// `status.disruptionsAllowed`.
    pub disruptions_allowed: i32,
    /// `status.disruptedPods`: pods the API server already counted as disrupted, which do not
    /// count again.
    pub disrupted_pods: Vec<String>,
}

impl DisruptionBudget {
    /// Whether the budget covers a pod of `namespace` named `name` with `labels`, and the pod
    /// is not among its disrupted pods (a pod without labels matches no budget).
    pub fn counts(&self, namespace: &str, name: &str, labels: &Labels) -> bool {
        self.namespace == namespace
            && !labels.is_empty()
            && self.selector.as_ref().is_some_and(|s| s.matches(labels))
            && !self.disrupted_pods.iter().any(|p| p == name)
    }
}

/// A PodDisruptionBudget as written, the fields read.
#[derive(Debug, Deserialize)]
pub struct DisruptionBudgetObject {
    #[serde(default)]
    pub metadata: ObjectName,
    #[serde(default)]
    pub spec: Option<DisruptionBudgetSpec>,
    #[serde(default)]
    pub status: Option<DisruptionBudgetStatus>,
}

#[derive(Debug, Deserialize)]
pub struct DisruptionBudgetSpec {
    #[serde(default)]
    pub selector: Option<spec::LabelSelector>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DisruptionBudgetStatus {
    #[serde(default)]
    pub disruptions_allowed: i32,
    #[serde(default)]
    pub disrupted_pods: Option<BTreeMap<String, serde_json::Value>>,
}

impl From<DisruptionBudgetObject> for DisruptionBudget {
    fn from(o: DisruptionBudgetObject) -> DisruptionBudget {
        let selector = match LabelSelector::from_api(o.spec.and_then(|s| s.selector).as_ref()) {
            Ok(s @ LabelSelector::Requirements(_)) if !s.is_everything() => Some(s),
            _ => None,
        };
        let status = o.status;
        DisruptionBudget {
            namespace: o
                .metadata
                .namespace
                .unwrap_or_else(|| "default".to_string()),
            name: o.metadata.name.unwrap_or_default(),
            selector,
            disruptions_allowed: status.as_ref().map_or(0, |s| s.disruptions_allowed),
            disrupted_pods: status
                .and_then(|s| s.disrupted_pods)
                .map(|m| m.into_keys().collect())
                .unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{DisruptionBudget, DisruptionBudgetObject};
    use crate::state::labels::Labels;

    fn budget(v: serde_json::Value) -> DisruptionBudget {
        serde_json::from_value::<DisruptionBudgetObject>(v)
            .expect("decodes")
            .into()
    }

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs.iter().copied().collect()
    }

    /// A budget covers pods of its namespace its selector matches, except those already
    /// disrupted; an empty selector, and a pod without labels, match nothing.
    #[test]
    fn which_pods_a_budget_counts() {
        let b = budget(serde_json::json!({
            "metadata": {"name": "db", "namespace": "shop"},
            "spec": {"selector": {"matchLabels": {"app": "db"}}},
            "status": {"disruptionsAllowed": 1, "disruptedPods": {"db-1": "2026-01-01T00:00:00Z"}}}));
        assert_eq!(b.disruptions_allowed, 1);
        let db = labels(&[("app", "db")]);
        assert!(b.counts("shop", "db-0", &db));
        assert!(!b.counts("shop", "db-1", &db), "already disrupted");
        assert!(!b.counts("other", "db-0", &db), "another namespace");
        assert!(!b.counts("shop", "web-0", &labels(&[("app", "web")])));
        let empty =
            budget(serde_json::json!({"metadata": {"name": "all"}, "spec": {"selector": {}}}));
        assert!(!empty.counts("default", "x", &db));
        assert!(!b.counts("shop", "bare", &Labels::default()));
    }
}
