//! The cluster model: nodes, pods and namespaces in the compact, indexed form the evaluation
//! reads, plus the offline file reader.
//!
//! Objects arrive in JSON, in protobuf or as k8s-openapi values; each front-end (`decode/`)
//! reads them into the parts the model is built from (`parts.rs`), and one function builds
//! pods and nodes from those parts (`build.rs`). The state folds them in once
//! (`cluster.rs`): label selectors are parsed, pods are indexed by node, and terminal or
//! unbound pods are set aside, so the evaluation never walks raw API objects again. Every
//! other kind read (namespaces, workloads, budgets, classes, storage, events) is kept in one
//! struct (`objects.rs`), which every source fills alike, and the state is made from the three.
//!
//! This file only declares and re-exports: the model's files import each other, never this
//! one, so that no file imports itself through others.

pub mod admission;
mod build;
mod cluster;
pub mod decode;
mod defaults;
mod disruption_budget;
pub mod dra;
pub mod edits;
pub mod events;
mod index;
mod interned;
pub mod labels;
pub mod limit_range;
mod manifest;
pub mod needs;
mod node;
mod objects;
pub(crate) mod parts;
mod pod;
mod priority_class;
pub mod quantity;
mod read;
pub mod resources;
pub mod runtime_class;
pub mod scale;
pub mod selector;
mod selector_flag;
mod source;
pub mod spec;
mod strict;
mod taints;
pub mod validate;
pub mod volumes;
mod workloads;
mod yaml;

pub use cluster::{ClusterState, FoundPod, ImageSpread, NodeUsage};
pub use defaults::{ContainerName, Defaulted, PodRequestFrom};
pub use disruption_budget::{DisruptionBudget, DisruptionBudgetObject};
pub use index::{AffinityGroup, Candidates, Domains, PodIndex, PodList, Topology};
pub use manifest::{
    Applied, ManifestPod, WorkloadSpec, add_daemon_tolerations, merge_match_label_keys,
    read_applied, read_pod_manifests, read_pod_manifests_str,
};
pub use node::Node;
pub use objects::{Kinds, Object, Objects};
pub use pod::{
    AffinityTerm, ControllerRef, OwnerKind, Pod, PodAffinity, PodClaim, PodRef, PodTemplate,
    SpreadConstraint, VolumeKinds,
};
pub use priority_class::{Admitted, PriorityClass, PriorityClassObject, admit};
pub use read::{
    VERSION_COMMENT, parse_documents, read_objects, read_snapshot, read_snapshot_str,
    recorded_version, require_nodes,
};
pub use resources::ResourceRules;
pub use selector_flag::parse_selector_flag;
pub use source::{Located, SourceError};
pub use strict::closest;
pub use taints::{Taint, Toleration};
pub use workloads::{
    LabelSelectorObject, LabelSelectorSpec, MapSelectorObject, MapSelectorSpec, ObjectName,
    WorkloadSelectors,
};
pub use yaml::to_yaml_string;
