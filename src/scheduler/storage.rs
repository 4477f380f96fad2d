//! VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone and DynamicResources: the
//! plugins whose decisions need objects we do not read (PersistentVolumeClaims and Volumes,
//! StorageClasses, CSINodes, ResourceClaims and ResourceSlices).
//!
//! They are modelled only as far as their PreFilter goes: each one returns Skip for a pod that
//! does not use what it checks, and then upstream runs neither its Filter nor (for the scoring
//! ones) anything that changes a score. Most pods have no claims and no persistent volumes, so
//! for them these plugins are decided exactly. For a pod that does use them, the plugin is
//! reported as not evaluated (and the nodes as unknown), never as passed. They share this file
//! because that PreFilter test is all of them we model.
//!
//! Upstream: pkg/scheduler/framework/plugins/{volumerestrictions,nodevolumelimits,
//! volumebinding,volumezone,dynamicresources}.

use std::convert::Infallible;

use super::plugin::Plugin;
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
    pub fn from_name(name: &str) -> Option<Kind> {
        Some(match name {
            "VolumeRestrictions" => Kind::VolumeRestrictions,
            "NodeVolumeLimits" => Kind::NodeVolumeLimits,
            "VolumeBinding" => Kind::VolumeBinding,
            "VolumeZone" => Kind::VolumeZone,
            "DynamicResources" => Kind::DynamicResources,
            _ => return None,
        })
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

/// A storage plugin for a pod that does not use it: PreFilter Skip, every node passes, no
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
        // VolumeBinding (with StorageCapacityScoring) scores 0 on nodes without pod volumes,
        // DynamicResources skips: either way nothing reaches a node's total.
        PreScoreOutcome::Skip
    }
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
