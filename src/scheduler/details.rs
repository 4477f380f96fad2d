//! What the evaluation keeps of each plugin's own types: an enum per kind with a variant per
//! plugin. Plugins return their own types (`Plugin`'s associated types) and never import this
//! file, which names them all; so no plugin depends on another through it.

use std::convert::Infallible;
use std::sync::Arc;

use super::balanced_allocation;
use super::image_locality;
use super::inter_pod_affinity;
use super::node_affinity;
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
/// `Infallible`, what a plugin that tells nothing of that kind returns.
macro_rules! per_plugin {
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
    /// Per-plugin typed details of a Filter verdict.
    #[derive(Debug, Clone)]
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
    }
}

per_plugin! {
    /// Per-plugin typed details of a score.
    #[derive(Debug, Clone)]
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
