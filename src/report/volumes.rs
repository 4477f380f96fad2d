//! How the document writes the storage plugins' details of a Filter verdict: the claims and
//! their volumes, the zone labels and the attach counts, borrowed from the plugins' types.

use serde::Serialize;

use crate::scheduler::{node_volume_limits, volume_binding, volume_restrictions, volume_zone};
use crate::state::PodRef;
use crate::state::selector::SelectorCheck;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct VolumeRestrictions<'a> {
    disk_conflicts: Vec<DiskConflict<'a>>,
    /// The pod's ReadWriteOncePod claims that pods already use (anywhere in the cluster).
    claims_in_use: Vec<ClaimInUse<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DiskConflict<'a> {
    disk: String,
    pod: &'a PodRef,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ClaimInUse<'a> {
    claim: &'a str,
    pods: &'a [PodRef],
}

impl<'a> From<&'a volume_restrictions::FilterDetails> for VolumeRestrictions<'a> {
    fn from(d: &'a volume_restrictions::FilterDetails) -> Self {
        VolumeRestrictions {
            disk_conflicts: d
                .disk_conflicts
                .iter()
                .map(|c| DiskConflict {
                    disk: c.disk.describe(),
                    pod: &c.pod,
                })
                .collect(),
            claims_in_use: d
                .claims_in_use
                .iter()
                .map(|c| ClaimInUse {
                    claim: &c.claim,
                    pods: &c.pods,
                })
                .collect(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct NodeVolumeLimits<'a> {
    counts: Vec<DriverCount<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DriverCount<'a> {
    driver: &'a str,
    limit: Option<i64>,
    attached: usize,
    new: usize,
    exceeded: bool,
}

impl<'a> From<&'a node_volume_limits::FilterDetails> for NodeVolumeLimits<'a> {
    fn from(d: &'a node_volume_limits::FilterDetails) -> Self {
        NodeVolumeLimits {
            counts: d
                .counts
                .iter()
                .map(|c| DriverCount {
                    driver: &c.driver,
                    limit: c.limit,
                    attached: c.attached,
                    new: c.new,
                    exceeded: c.exceeded(),
                })
                .collect(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct VolumeBinding<'a> {
    claims: Vec<ClaimCheck<'a>>,
}

/// One claim's outcome on the node, tagged by what was checked.
#[derive(Serialize)]
#[serde(rename_all = "camelCase", tag = "check")]
enum ClaimCheck<'a> {
    #[serde(rename_all = "camelCase")]
    Bound {
        claim: &'a str,
        volume: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        node_affinity: Option<&'a SelectorCheck>,
        matched: bool,
    },
    #[serde(rename_all = "camelCase")]
    VolumeMissing { claim: &'a str, volume: &'a str },
    #[serde(rename_all = "camelCase")]
    SelectedNode { claim: &'a str, node: &'a str },
    #[serde(rename_all = "camelCase")]
    StaticVolume { claim: &'a str, volume: &'a str },
    #[serde(rename_all = "camelCase")]
    Provision {
        claim: &'a str,
        storage_class: &'a str,
        provisioner: &'a str,
        unprovisionable: bool,
        topology_allowed: bool,
    },
}

impl<'a> From<&'a volume_binding::ClaimCheck> for ClaimCheck<'a> {
    fn from(c: &'a volume_binding::ClaimCheck) -> Self {
        use volume_binding::ClaimCheck as C;
        match c {
            C::Bound {
                claim,
                volume,
                affinity,
                matched,
            } => ClaimCheck::Bound {
                claim,
                volume,
                node_affinity: affinity.as_ref(),
                matched: *matched,
            },
            C::VolumeMissing { claim, volume } => ClaimCheck::VolumeMissing { claim, volume },
            C::SelectedNode { claim, node } => ClaimCheck::SelectedNode { claim, node },
            C::Matched { claim, volume } => ClaimCheck::StaticVolume { claim, volume },
            C::Provision {
                claim,
                class,
                provisioner,
                unprovisionable,
                topology_allowed,
            } => ClaimCheck::Provision {
                claim,
                storage_class: class,
                provisioner,
                unprovisionable: *unprovisionable,
                topology_allowed: *topology_allowed,
            },
        }
    }
}

impl<'a> From<&'a volume_binding::FilterDetails> for VolumeBinding<'a> {
    fn from(d: &'a volume_binding::FilterDetails) -> Self {
        VolumeBinding {
            claims: d.claims.iter().map(ClaimCheck::from).collect(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct VolumeZone<'a> {
    /// The node has no zone or region label, so any volume zone fits it.
    node_unzoned: bool,
    checks: Vec<TopologyCheck<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TopologyCheck<'a> {
    claim: &'a str,
    volume: &'a str,
    key: &'a str,
    values: &'a [String],
    node_value: Option<&'a str>,
    matched: bool,
}

impl<'a> From<&'a volume_zone::FilterDetails> for VolumeZone<'a> {
    fn from(d: &'a volume_zone::FilterDetails) -> Self {
        VolumeZone {
            node_unzoned: d.node_unzoned,
            checks: d
                .checks
                .iter()
                .map(|c| TopologyCheck {
                    claim: &c.topology.claim,
                    volume: &c.topology.volume,
                    key: c.topology.key,
                    values: &c.topology.values,
                    node_value: c.node_value.as_deref(),
                    matched: c.matched,
                })
                .collect(),
        }
    }
}
