//! Which plugin: upstream's in-tree plugins by name (`pkg/scheduler/framework/plugins/names`),
//! and any other a KubeSchedulerConfiguration names, kept as written. A plugin is named by
//! its string only where profiles are read and documents written.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A scheduler plugin. Compared and ordered by name, as the names were before, so that every
/// sorted list of plugins keeps its order.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum PluginId {
    SchedulingGates,
    PrioritySort,
    NodeUnschedulable,
    NodeName,
    TaintToleration,
    NodeAffinity,
    NodePorts,
    NodeResourcesFit,
    VolumeRestrictions,
    NodeVolumeLimits,
    VolumeBinding,
    VolumeZone,
    PodTopologySpread,
    InterPodAffinity,
    DynamicResources,
    DefaultPreemption,
    NodeResourcesBalancedAllocation,
    ImageLocality,
    DefaultBinder,
    /// A plugin upstream does not ship (out of tree), or `*` in a profile's disabled list,
    /// by its name as written. Never the name of one of the others: [`PluginId::named`]
    /// makes those.
    Other(Arc<str>),
}

impl PluginId {
    /// Every in-tree plugin.
    pub const IN_TREE: [PluginId; 19] = [
        PluginId::SchedulingGates,
        PluginId::PrioritySort,
        PluginId::NodeUnschedulable,
        PluginId::NodeName,
        PluginId::TaintToleration,
        PluginId::NodeAffinity,
        PluginId::NodePorts,
        PluginId::NodeResourcesFit,
        PluginId::VolumeRestrictions,
        PluginId::NodeVolumeLimits,
        PluginId::VolumeBinding,
        PluginId::VolumeZone,
        PluginId::PodTopologySpread,
        PluginId::InterPodAffinity,
        PluginId::DynamicResources,
        PluginId::DefaultPreemption,
        PluginId::NodeResourcesBalancedAllocation,
        PluginId::ImageLocality,
        PluginId::DefaultBinder,
    ];

    /// The plugin a profile names `name`.
    pub fn named(name: &str) -> PluginId {
        PluginId::IN_TREE
            .into_iter()
            .find(|p| p.as_str() == name)
            .unwrap_or_else(|| PluginId::Other(name.into()))
    }

    /// Its name in profiles and documents.
    pub fn as_str(&self) -> &str {
        match self {
            PluginId::SchedulingGates => "SchedulingGates",
            PluginId::PrioritySort => "PrioritySort",
            PluginId::NodeUnschedulable => "NodeUnschedulable",
            PluginId::NodeName => "NodeName",
            PluginId::TaintToleration => "TaintToleration",
            PluginId::NodeAffinity => "NodeAffinity",
            PluginId::NodePorts => "NodePorts",
            PluginId::NodeResourcesFit => "NodeResourcesFit",
            PluginId::VolumeRestrictions => "VolumeRestrictions",
            PluginId::NodeVolumeLimits => "NodeVolumeLimits",
            PluginId::VolumeBinding => "VolumeBinding",
            PluginId::VolumeZone => "VolumeZone",
            PluginId::PodTopologySpread => "PodTopologySpread",
            PluginId::InterPodAffinity => "InterPodAffinity",
            PluginId::DynamicResources => "DynamicResources",
            PluginId::DefaultPreemption => "DefaultPreemption",
            PluginId::NodeResourcesBalancedAllocation => "NodeResourcesBalancedAllocation",
            PluginId::ImageLocality => "ImageLocality",
            PluginId::DefaultBinder => "DefaultBinder",
            PluginId::Other(name) => name,
        }
    }
}

impl Ord for PluginId {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for PluginId {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// As its name is: quoted, as error messages quote plugin names.
impl fmt::Debug for PluginId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// The name, padded as asked (`{:<20}` lines names up in the drill-down).
impl fmt::Display for PluginId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl Serialize for PluginId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for PluginId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Ok(PluginId::named(&name))
    }
}

#[cfg(test)]
mod tests {
    use super::PluginId;

    /// Each in-tree plugin reads back from its name; any other name is kept as written.
    #[test]
    fn names_read_back() {
        for p in PluginId::IN_TREE {
            assert_eq!(PluginId::named(p.as_str()), p);
        }
        assert_eq!(
            PluginId::named("Coscheduling"),
            PluginId::Other("Coscheduling".into())
        );
        assert_eq!(
            format!("[{:<18}]", PluginId::NodeName),
            "[NodeName          ]"
        );
        assert!(PluginId::ImageLocality < PluginId::InterPodAffinity);
    }
}
