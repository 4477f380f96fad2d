//! What the storage plugins share: the PreFilter test each one skips a pod by (`Kind`), the
//! look-ups of a pod's claims as their listers answer them, and why one is not evaluated
//! (`Gap`). VolumeRestrictions, NodeVolumeLimits, VolumeBinding and VolumeZone each have
//! a file of their own; DynamicResources too (`dynamic_resources.rs`), save its PreFilter
//! Skip for a pod without ResourceClaims ([`Skipped`]).
//!
//! Upstream: pkg/scheduler/framework/plugins/{volumerestrictions,nodevolumelimits,
//! volumebinding,volumezone,dynamicresources}.

use std::convert::Infallible;

use super::plugin::{Input, Plugin};
use super::plugin_id::PluginId;
use super::status::{PreFilterOutcome, PreScoreOutcome, Status};
use crate::state::Pod;

/// Which storage plugin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    VolumeRestrictions,
    NodeVolumeLimits,
    VolumeBinding,
    VolumeZone,
    DynamicResources,
}

impl Kind {
    /// The storage plugin `id` is, if it is one.
    pub fn of(id: &PluginId) -> Option<Kind> {
        Some(match id {
            PluginId::VolumeRestrictions => Kind::VolumeRestrictions,
            PluginId::NodeVolumeLimits => Kind::NodeVolumeLimits,
            PluginId::VolumeBinding => Kind::VolumeBinding,
            PluginId::VolumeZone => Kind::VolumeZone,
            PluginId::DynamicResources => Kind::DynamicResources,
            _ => return None,
        })
    }

    /// The plugin.
    pub fn id(self) -> PluginId {
        match self {
            Kind::VolumeRestrictions => PluginId::VolumeRestrictions,
            Kind::NodeVolumeLimits => PluginId::NodeVolumeLimits,
            Kind::VolumeBinding => PluginId::VolumeBinding,
            Kind::VolumeZone => PluginId::VolumeZone,
            Kind::DynamicResources => PluginId::DynamicResources,
        }
    }

    /// Why the plugin matters for this pod, or `None` when its PreFilter returns Skip.
    pub fn relevant(self, pod: &Pod) -> Option<&'static str> {
        let v = &pod.template.volumes;
        match self {
            // needsRestrictionsCheck (GCE PD, AWS EBS, RBD, iSCSI) or a PVC that could be
            // ReadWriteOncePod.
            Kind::VolumeRestrictions => (v.restricted_inline || v.claims)
                .then_some("the pod has persistent volume claims or GCE PD/EBS/RBD/iSCSI volumes"),
            // A PVC, a generic ephemeral volume or an in-tree volume migratable to CSI.
            Kind::NodeVolumeLimits => (v.claims || v.ephemeral || v.migratable_inline)
                .then_some("the pod has volumes that count against node volume limits"),
            // podHasPVCs: PVCs and generic ephemeral volumes.
            Kind::VolumeBinding => (v.claims || v.ephemeral)
                .then_some("the pod has persistent volume claims or generic ephemeral volumes"),
            // getPVbyPod: only PVC volumes carry a zone.
            Kind::VolumeZone => v.claims.then_some("the pod has persistent volume claims"),
            Kind::DynamicResources => pod
                .template
                .has_resource_claims
                .then_some("the pod has ResourceClaims"),
        }
    }
}

/// DynamicResources for a pod without ResourceClaims: PreFilter Skip, every node passes, no
/// score. Only instantiated when [`Kind::relevant`] is `None`.
#[derive(Debug)]
pub struct Skipped;

impl Plugin for Skipped {
    type FilterDetails = Infallible;
    type ScoreDetails = Infallible;
    type Tables = Infallible;

    fn pre_filter(&mut self) -> PreFilterOutcome {
        PreFilterOutcome::Skip
    }
    fn filter(&self, _node: usize) -> (Option<Status>, Option<Self::FilterDetails>) {
        (None, None)
    }
    fn pre_score(&mut self, _candidates: &[usize]) -> PreScoreOutcome {
        PreScoreOutcome::Skip
    }
}

/// Upstream's error for a claim its lister does not have (`apierrors.NewNotFound`).
pub(crate) fn claim_not_found(name: &str) -> String {
    format!("persistentvolumeclaim {name:?} not found")
}

/// Why a storage plugin is not evaluated for a pod that uses what it checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gap {
    /// The source held no PersistentVolumeClaims, PersistentVolumes, StorageClasses,
    /// CSINodes or CSIDrivers.
    Unread,
    /// A volume of an in-tree plugin that a node's CSINode lists as migrated: upstream
    /// translates it to CSI (csi-translation-lib) first, which is not modelled.
    Translated { plugin: &'static str },
    /// A claim to provision with a CSI driver that has `storageCapacity: true`: upstream
    /// checks CSIStorageCapacity objects, which are not read.
    StorageCapacity { claim: String, driver: String },
    /// `StorageCapacityScoring` is on: VolumeBinding's Score is not modelled.
    CapacityScoring,
}

impl std::fmt::Display for Gap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Gap::Unread => write!(
                f,
                "PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSINodes and \
                 CSIDrivers were not read (a snapshot without them: `kubectl affinity snapshot` \
                 writes them)"
            ),
            Gap::Translated { plugin } => write!(
                f,
                "a volume of the in-tree plugin {plugin} is migrated to CSI on some node, and \
                 that translation is not modelled"
            ),
            Gap::StorageCapacity { claim, driver } => write!(
                f,
                "claim {claim} would be provisioned by {driver}, which publishes storage \
                 capacity (CSIStorageCapacity objects are not read)"
            ),
            Gap::CapacityScoring => write!(
                f,
                "StorageCapacityScoring is on, and {}'s score is not modelled",
                PluginId::VolumeBinding
            ),
        }
    }
}

/// The in-tree plugins csi-translation-lib migrates, with the CSI driver each becomes.
pub(crate) const MIGRATED: [(&str, &str); 7] = [
    ("kubernetes.io/gce-pd", "pd.csi.storage.gke.io"),
    ("kubernetes.io/aws-ebs", "ebs.csi.aws.com"),
    ("kubernetes.io/azure-disk", "disk.csi.azure.com"),
    ("kubernetes.io/azure-file", "file.csi.azure.com"),
    ("kubernetes.io/cinder", "cinder.csi.openstack.org"),
    ("kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com"),
    ("kubernetes.io/portworx-volume", "pxd.portworx.com"),
];

/// Whether some node's CSINode lists the in-tree `plugin` as migrated (`isCSIMigrationOn`).
pub(crate) fn migrated_somewhere(input: Input<'_>, plugin: &str) -> bool {
    let Some(v) = input.state.volumes() else {
        return false;
    };
    input
        .state
        .nodes()
        .iter()
        .any(|n| v.csi_node(&n.name).is_some_and(|c| c.migrated(plugin)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1 as core;

    fn pod_with(volumes: serde_json::Value, claims: bool) -> Pod {
        let mut spec = serde_json::json!({
            "containers": [{"name": "c", "image": "pause"}],
            "volumes": volumes,
        });
        if claims {
            spec["resourceClaims"] =
                serde_json::json!([{"name": "gpu", "resourceClaimName": "gpu"}]);
        }
        let api: core::Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "p", "namespace": "default"},
            "spec": spec,
        }))
        .unwrap();
        Pod::from_api(&api)
    }

    #[test]
    fn prefilter_skip_follows_the_volumes_each_plugin_checks() {
        use Kind::*;
        let all = [
            VolumeRestrictions,
            NodeVolumeLimits,
            VolumeBinding,
            VolumeZone,
            DynamicResources,
        ];
        let relevant = |p: &Pod| -> Vec<Kind> {
            all.into_iter()
                .filter(|k| k.relevant(p).is_some())
                .collect()
        };
        let plain = pod_with(
            serde_json::json!([{"name": "cfg", "configMap": {"name": "x"}}, {"name": "tmp", "emptyDir": {}}]),
            false,
        );
        assert_eq!(relevant(&plain), vec![]);
        let pvc = pod_with(
            serde_json::json!([{"name": "data", "persistentVolumeClaim": {"claimName": "d"}}]),
            false,
        );
        assert_eq!(
            relevant(&pvc),
            vec![
                VolumeRestrictions,
                NodeVolumeLimits,
                VolumeBinding,
                VolumeZone
            ]
        );
        let eph = pod_with(
            serde_json::json!([{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}]),
            false,
        );
        assert_eq!(relevant(&eph), vec![NodeVolumeLimits, VolumeBinding]);
        let ebs = pod_with(
            serde_json::json!([{"name": "old", "awsElasticBlockStore": {"volumeID": "vol-1"}}]),
            false,
        );
        assert_eq!(relevant(&ebs), vec![VolumeRestrictions, NodeVolumeLimits]);
        let dra = pod_with(serde_json::json!([]), true);
        assert_eq!(relevant(&dra), vec![DynamicResources]);
    }
}
