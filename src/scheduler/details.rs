//! What the evaluation keeps of each plugin's own types: an enum per kind with a variant per
//! plugin, written as the plugin's own type is. Plugins return their own types (`Plugin`'s
//! associated types) and never import this file, which names them all; so no plugin depends
//! on another through it. Their explanations (`explain` modules) read it.

use std::convert::Infallible;
use std::sync::Arc;

use serde::Serialize;

use super::balanced_allocation;
use super::dynamic_resources;
use super::image_locality;
use super::inter_pod_affinity;
use super::node_affinity;
use super::node_declared_features;
use super::node_name;
use super::node_ports;
use super::node_resources_fit;
use super::node_unschedulable;
use super::node_volume_limits;
use super::pod_topology_spread;
use super::taint_toleration;
use super::volume_binding;
use super::volume_restrictions;
use super::volume_zone;

/// An enum with a variant per plugin, each made `From` what that plugin returns; and from
/// `Infallible`, what a plugin that tells nothing of that kind returns. `said:` before the
/// enum: it is also said in words, as each plugin's type is (`Display`).
macro_rules! per_plugin {
    (said: $($enum:tt)*) => {
        per_plugin!($($enum)*);
        per_plugin!(@display $($enum)*);
    };
    (@display $(#[$attr:meta])* $vis:vis enum $name:ident {
        $($(#[$doc:meta])* $variant:ident($ty:ty),)+
    }) => {
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    $($name::$variant(x) => std::fmt::Display::fmt(x, f),)+
                }
            }
        }
    };
    ($(#[$attr:meta])* $vis:vis enum $name:ident {
        $($(#[$doc:meta])* $variant:ident($ty:ty),)+
    }) => {
        $(#[$attr])*
        $vis enum $name {
            $($(#[$doc])* $variant($ty),)+
        }

        $(impl From<$ty> for $name {
            fn from(value: $ty) -> $name {
                $name::$variant(value)
            }
        })+

        impl From<Infallible> for $name {
            fn from(never: Infallible) -> $name {
                match never {}
            }
        }
    };
}

per_plugin! {
    /// Per-plugin typed details of a Filter verdict, written as the plugin's own.
    #[derive(Debug, Clone, Serialize)]
    #[serde(untagged)]
    pub enum FilterDetails {
        NodeUnschedulable(node_unschedulable::Details),
        NodeName(node_name::Details),
        TaintToleration(taint_toleration::FilterDetails),
        /// Shared by the nodes with equal values for the keys it reads.
        NodeAffinity(Arc<node_affinity::FilterDetails>),
        InterPodAffinity(Box<inter_pod_affinity::FilterDetails>),
        PodTopologySpread(Box<pod_topology_spread::FilterDetails>),
        NodeResourcesFit(Box<node_resources_fit::FilterDetails>),
        NodePorts(Box<node_ports::FilterDetails>),
        VolumeRestrictions(Box<volume_restrictions::FilterDetails>),
        NodeVolumeLimits(Box<node_volume_limits::FilterDetails>),
        VolumeBinding(Box<volume_binding::FilterDetails>),
        VolumeZone(Box<volume_zone::FilterDetails>),
        NodeDeclaredFeatures(node_declared_features::FilterDetails),
        DynamicResources(Box<dynamic_resources::FilterDetails>),
    }
}

per_plugin! {
    /// Per-plugin typed details of a score, written as the plugin's own.
    #[derive(Debug, Clone, Serialize)]
    #[serde(untagged)]
    pub enum ScoreDetails {
        TaintToleration(taint_toleration::ScoreDetails),
        /// Shared by the candidates with equal values for the keys it reads.
        NodeAffinity(Arc<node_affinity::ScoreDetails>),
        InterPodAffinity(inter_pod_affinity::ScoreDetails),
        PodTopologySpread(pod_topology_spread::ScoreDetails),
        NodeResourcesFit(node_resources_fit::ScoreDetails),
        BalancedAllocation(balanced_allocation::ScoreDetails),
        /// Shared by the candidates that have the same of the pod's images.
        ImageLocality(Arc<image_locality::ScoreDetails>),
        DynamicResources(dynamic_resources::ScoreDetails),
    }
}

per_plugin! {
    /// The tables a plugin adds to the evaluation beside the nodes' entries.
    pub(crate) enum Tables {
        /// Pod (anti-)affinity terms with their matching pods per topology domain.
        PodTerms(inter_pod_affinity::TermTables),
        /// Topology spread constraints with their per-domain counts.
        TopologySpread(pod_topology_spread::SpreadTables),
    }
}

per_plugin! {
    said:
    /// What would make a rejected node take the pod: one change to the rule of the plugin
    /// that rejects it, written as that plugin's change.
    #[derive(Debug, Clone, Serialize)]
    #[serde(untagged)]
    pub enum Change {
        NodeUnschedulable(node_unschedulable::Change),
        TaintToleration(taint_toleration::Change),
        NodeAffinity(node_affinity::Change),
        NodeResourcesFit(node_resources_fit::Change),
        NodePorts(node_ports::Change),
        VolumeBinding(volume_binding::Change),
        VolumeZone(volume_zone::Change),
        InterPodAffinity(inter_pod_affinity::Change),
        PodTopologySpread(pod_topology_spread::Change),
    }
}

per_plugin! {
    said:
    /// What makes a plugin reject the nodes it rejects most, written as that plugin's cause.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
    #[serde(untagged)]
    pub enum Cause {
        TaintToleration(taint_toleration::Cause),
        NodeAffinity(node_affinity::Cause),
        InterPodAffinity(inter_pod_affinity::Cause),
        PodTopologySpread(pod_topology_spread::Cause),
    }
}
