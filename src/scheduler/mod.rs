//! Pure evaluation: the scheduling cycle of one pod against a cluster state, mirroring
//! kube-scheduler's framework (PreFilter, Filter, PreScore, Score, NormalizeScore, PostFilter),
//! one file per upstream plugin. Nothing here touches a client, a terminal or a clock.
//!
//! A plugin imports what a plugin sees ([`plugin`], [`status`], [`config`], and a plugin it
//! borrows from), never the files that name every plugin ([`details`], `registry`,
//! [`framework`]): those sit above the plugins, so no import runs in a circle. A plugin's
//! explanation (its `explain` module, an [`explain::Explain`]) reads its details through
//! [`details`], and is registered beside the plugin in `registry`: render/ and report/ reach
//! it by [`PluginId`] through [`explain_of`].

pub mod audit;
pub mod balanced_allocation;
pub mod config;
pub mod default_preemption;
pub mod details;
pub mod dra;
pub mod dynamic_resources;
pub mod explain;
pub mod few;
pub mod framework;
pub mod image_locality;
pub mod inter_pod_affinity;
pub mod needs;
pub mod node_affinity;
pub mod node_declared_features;
pub mod node_name;
pub mod node_ports;
pub mod node_resources_fit;
pub mod node_unschedulable;
pub mod node_volume_limits;
pub mod plugin;
pub mod plugin_id;
pub mod pod_topology_spread;
pub mod preemption;
pub mod profile;
mod registry;
pub mod release;
pub mod result;
pub mod status;
pub mod storage;
pub mod taint_toleration;
pub mod volume_binding;
pub mod volume_restrictions;
pub mod volume_zone;
pub mod workload;

pub use details::{FilterDetails, ScoreDetails};
pub use framework::{Evaluation, PreFilterReport, PreScoreReport, Scoring, evaluate};
pub use plugin::Input;
pub use plugin_id::PluginId;
pub use registry::{explain_of, explanations};
pub use result::{
    Entries, FilterCell, FilterResult, NodeResult, Nominated, ScoreCell, ScoreResult,
};
pub use status::{Code, ReportedStatus, Status, Verdict, fit_error_message};

/// What plugin tests share: a whole evaluation from JSON objects.
#[cfg(test)]
pub(crate) mod testing {
    use super::{Evaluation, Input, evaluate};
    use crate::scheduler::config::FeatureGates;
    use crate::scheduler::profile::Profile;
    use crate::state::{Pod, read_snapshot_str};
    use serde_json::{Value, json};

    /// The cluster state of the List of `items`.
    pub(crate) fn state_of(items: Value) -> crate::state::ClusterState {
        read_snapshot_str(
            &json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
            "test",
        )
        .expect("snapshot")
    }

    /// A pod from its object.
    pub(crate) fn pod_of(pod: Value) -> Pod {
        let pod: k8s_openapi::api::core::v1::Pod = serde_json::from_value(pod).expect("pod");
        Pod::from_api(&pod)
    }

    /// Evaluates `pod` (a Pod object) against the List of `items` under the default profile.
    pub(crate) fn evaluate_default(items: Value, pod: Value) -> Evaluation {
        evaluate_with(
            items,
            pod,
            &Profile::default_profile(FeatureGates::default()),
        )
    }

    /// The same under `profile`.
    pub(crate) fn evaluate_with(items: Value, pod: Value, profile: &Profile) -> Evaluation {
        let state = read_snapshot_str(
            &json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
            "test",
        )
        .expect("snapshot");
        let pod: k8s_openapi::api::core::v1::Pod = serde_json::from_value(pod).expect("pod");
        let pod = Pod::from_api(&pod);
        evaluate(
            Input {
                pod: &pod,
                state: &state,
                exclude: None,
                removed: &[],
            },
            profile,
        )
    }

    /// A node with room for any test pod, labelled `zone`.
    pub(crate) fn zone_node(name: &str, zone: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "Node",
               "metadata": {"name": name, "labels": {"zone": zone}},
               "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
    }

    /// A pod labelled `app: db` in namespace default, bound to `node`.
    pub(crate) fn db_pod(name: &str, node: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": "default", "labels": {"app": "db"}},
               "spec": {"nodeName": node, "containers": [{"name": "c", "image": "x"}]}})
    }
}
