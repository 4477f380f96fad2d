//! The objects default topology spreading reads a pod's selector from (Services,
//! ReplicationControllers, ReplicaSets, StatefulSets), decoded to their selectors only.
//!
//! The selectors come from whole API objects (`k8s-openapi`'s) and become the model's here.

use std::collections::HashMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;
use serde::Deserialize;

use super::labels::Labels;
use super::selector::{LabelSelector, Requirement};

/// A Service or ReplicationController as default topology spreading reads it: its
/// `spec.selector` is a plain label map. Only these fields are decoded: every other one
/// (a controller's whole pod template, `managedFields`) is stepped over unparsed.
#[derive(Debug, Deserialize)]
pub struct MapSelectorObject {
    #[serde(default)]
    pub metadata: ObjectName,
    #[serde(default)]
    pub spec: Option<MapSelectorSpec>,
}

#[derive(Debug, Deserialize)]
pub struct MapSelectorSpec {
    #[serde(default)]
    pub selector: Option<Labels>,
}

/// A ReplicaSet or StatefulSet as default topology spreading reads it: its `spec.selector`
/// is a label selector.
#[derive(Debug, Deserialize)]
pub struct LabelSelectorObject {
    #[serde(default)]
    pub metadata: ObjectName,
    #[serde(default)]
    pub spec: Option<LabelSelectorSpec>,
}

#[derive(Debug, Deserialize)]
pub struct LabelSelectorSpec {
    #[serde(default)]
    pub selector: Option<meta::LabelSelector>,
}

/// The metadata a workload is keyed by.
#[derive(Debug, Default, Deserialize)]
pub struct ObjectName {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub namespace: Option<String>,
}

/// The selectors of the objects that can "own" a pod for default topology spreading
/// (`helper.DefaultSelector`): only namespace, name and selector are kept.
#[derive(Debug, Clone, Default)]
pub struct WorkloadSelectors {
    /// Per namespace, the `spec.selector` of every Service that has one, in input order
    /// (a Service without a selector selects nothing and is dropped).
    pub services: HashMap<String, Vec<Labels>>,
    /// `(namespace, name)` -> `spec.selector` of a ReplicationController.
    pub replication_controllers: HashMap<(String, String), Labels>,
    /// `(namespace, name)` -> the requirements of a ReplicaSet's label selector (none for a nil,
    /// empty or invalid selector, which add nothing upstream either).
    pub replica_sets: HashMap<(String, String), Vec<Requirement>>,
    /// Same for StatefulSets.
    pub stateful_sets: HashMap<(String, String), Vec<Requirement>>,
}

impl WorkloadSelectors {
    /// A Service's `spec.selector`; a nil selector selects nothing (GetPodServices skips it).
    pub fn add_service(&mut self, namespace: String, selector: Option<Labels>) {
        if let Some(sel) = selector {
            self.services.entry(namespace).or_default().push(sel);
        }
    }

    /// A ReplicationController's `spec.selector` (nil reads as empty).
    pub fn add_replication_controller(&mut self, key: (String, String), selector: Option<Labels>) {
        self.replication_controllers
            .insert(key, selector.unwrap_or_default());
    }

    /// A ReplicaSet's or StatefulSet's label selector. Upstream adds the requirements only
    /// when the selector converts without error; nil and `{}` have none.
    pub fn add_label_selector(
        &mut self,
        stateful_set: bool,
        key: (String, String),
        selector: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
    ) {
        let reqs = match LabelSelector::from_api(selector.cloned().map(Into::into).as_ref()) {
            Ok(LabelSelector::Requirements(r)) => r,
            _ => Vec::new(),
        };
        let map = if stateful_set {
            &mut self.stateful_sets
        } else {
            &mut self.replica_sets
        };
        map.insert(key, reqs);
    }
}
