//! The kube-scheduler releases the tool emulates, and the facts that differ between them, in
//! one table (read from each release's code: 1.35 = v1.35.4, 1.34 = v1.34.7, 1.33 = v1.33.3,
//! 1.32 = v1.32.5, 1.31 = v1.31.8). The plugins that differ consult the table through the
//! profile's gates; nothing else names a release.
//!
//! Facts the table holds, each with the upstream file it comes from:
//! - TaintToleration's Filter reason (`pkg/scheduler/framework/plugins/tainttoleration/
//!   taint_toleration.go`): up to 1.33 it names the first untolerated taint, `node(s) had
//!   untolerated taint {key: value}`;
//! - NodeResourcesFit's status code (`pkg/scheduler/framework/plugins/noderesources/fit.go`):
//!   from 1.34, UnschedulableAndUnresolvable when a request exceeds the node's allocatable,
//!   so preemption skips the node; before, always Unschedulable;
//! - DynamicResources in the default profile (`pkg/scheduler/apis/config/v1/
//!   default_plugins.go`, gate DynamicResourceAllocation): from 1.34, with its PostFilter
//!   (`no new claims to deallocate, ` before preemption's message); from 1.35, with a Score
//!   weight of 2;
//! - VolumeBinding's node-affinity reason (`pkg/scheduler/framework/plugins/volumebinding/
//!   binder.go`), older up to 1.32, and VolumeRestrictions' ReadWriteOncePod reason
//!   (`pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go`), older up to
//!   1.33;
//! - how a pod's requests are counted (`staging/src/k8s.io/component-helpers/resource/
//!   helpers.go`, `pkg/scheduler/framework/types.go`): pod-level requests from 1.34
//!   (PodLevelResources), existing pods' container resize status from 1.33
//!   (InPlacePodVerticalScaling), their pod-level resize status from 1.36; in 1.31 the nodes'
//!   non-zero requests count a sidecar as an init container; NodePorts counts sidecars' host
//!   ports from 1.34; ImageLocality counts image volumes from 1.36 (`ResourceRules`);
//! - NodeResourcesBalancedAllocation (`pkg/scheduler/framework/plugins/noderesources/
//!   balanced_allocation.go`): from 1.33 it skips a pod requesting none of its resources;
//!   from 1.36 it scores the change of balance;
//! - the scheduler's feature gates each release knows, and the DRA gates on by default
//!   (`pkg/features/kube_features.go`); from 1.36, DynamicResources' filter timeout is an
//!   Error naming the node (`pkg/scheduler/framework/plugins/dynamicresources/
//!   dynamicresources.go`);
//! - GangScheduling's texts and the field naming a pod's group (`pkg/scheduler/framework/
//!   plugins/gangscheduling/gangscheduling.go`, `pod.spec.workloadRef` in 1.35,
//!   `pod.spec.schedulingGroup` from 1.36).
//!
//! Not emulated, said in the report for a release other than 1.35 (`Release::unmodelled`):
//! PodTopologySpread counting per topology key (1.31, 1.32), namespaceSelector terms
//! replaced (1.31–1.33), 1.31's FitError leaving out nodes a PreFilterResult removed, and the
//! uniformly random pick among the top-scored nodes (up to 1.34).

use std::fmt;

use crate::state::ResourceRules;

/// A kube-scheduler minor release.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Release {
    V1_31,
    V1_32,
    V1_33,
    V1_34,
    #[default]
    V1_35,
    V1_36,
}

/// What differs from one release to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Facts {
    /// TaintToleration's Filter reason names the first untolerated taint.
    pub taint_reason_names_taint: bool,
    /// NodeResourcesFit is UnschedulableAndUnresolvable when a request exceeds allocatable.
    pub fit_unresolvable_over_allocatable: bool,
    /// DynamicResources is in the default profile (DynamicResourceAllocation on).
    pub dynamic_resources_default: bool,
    /// DynamicResources scores, with weight 2.
    pub dynamic_resources_scores: bool,
    /// VolumeBinding's node-affinity reason is the older "had volume node affinity conflict".
    pub volume_binding_older_node_reason: bool,
    /// VolumeRestrictions' ReadWriteOncePod reason is the older "node has pod using ...".
    pub read_write_once_pod_older_reason: bool,
    /// PodLevelResources on: `spec.resources.requests` replace the containers' sum, for the
    /// incoming pod and every existing one (`staging/src/k8s.io/component-helpers/resource/
    /// helpers.go`).
    pub pod_level_resources: bool,
    /// InPlacePodVerticalScaling on: existing pods' containers count their resize status.
    pub container_resize_status: bool,
    /// InPlacePodLevelResourcesVerticalScaling on: existing pods' pod-level requests count
    /// the pod's resize status.
    pub pod_level_resize_status: bool,
    /// The nodes' non-zero requests count a sidecar as an init container
    /// (`calculateResource` in `pkg/scheduler/framework/types.go`).
    pub sidecar_non_zero_as_init: bool,
    /// NodePorts counts sidecars' host ports (`pkg/scheduler/util/utils.go`).
    pub sidecar_host_ports: bool,
    /// ImageLocality counts image volumes (`sumImageScores`).
    pub image_locality_image_volumes: bool,
    /// BalancedAllocation skips, at PreScore, a pod requesting none of its resources
    /// (kubernetes#129138).
    pub balanced_allocation_skips_best_effort: bool,
    /// BalancedAllocation scores the change of balance the pod makes (kubernetes#135573).
    pub balanced_allocation_scores_change: bool,
    /// NodeDeclaredFeatures is in the default profile (gate NodeDeclaredFeatures on), and
    /// the API server admits `restartPolicyRules` with `RestartAllContainers`
    /// (RestartAllContainersOnContainerExits on).
    pub node_declared_features: bool,
    /// The DRA gates the structured allocator reads that are on by default
    /// (`pkg/features/kube_features.go`); the others are off.
    pub dra_gates_on: &'static [&'static str],
    /// DynamicResources' Filter ends a search past `filterTimeout` with an Error naming the
    /// node (the pod retried with backoff), not Unschedulable (`dynamicresources.go`).
    pub dra_filter_timeout_is_error: bool,
    /// GangScheduling's texts, from the release that has the gate (1.35).
    pub gang: Option<GangTexts>,
    /// Scheduler feature gates new in this release (of those the table tracks).
    pub gates_new: &'static [&'static str],
}

/// What the GangScheduling plugin (gate GangScheduling, Alpha and off) says of a pod of a
/// pod group (`pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go`), as Go
/// formats (`%q`: the group's name), and the field naming the pod's group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GangTexts {
    pub group_field: &'static str,
    /// PreEnqueue, until the pod's group is in the scheduling queue.
    pub waiting_in_queue: &'static str,
    /// Permit, until minCount pods of the gang are placed.
    pub waiting_at_permit: &'static str,
}

const GANG_1_35: GangTexts = GangTexts {
    group_field: "spec.workloadRef",
    waiting_in_queue: "waiting for pods's workload %q to appear in scheduling queue",
    waiting_at_permit: "waiting for minCount pods from a gang to be waiting on permit",
};

const GANG_1_36: GangTexts = GangTexts {
    group_field: "spec.schedulingGroup",
    waiting_in_queue: "waiting for pods's pod group %q to appear in scheduling queue",
    waiting_at_permit: "waiting for minCount pods from a gang to be scheduled",
};

/// The allocator's DRA gates on by default in 1.34 and 1.35 (DRAAdminAccess,
/// DRAPrioritizedList and DRAResourceClaimDeviceStatus Beta).
const DRA_ON_1_34: &[&str] = &[
    "DRAAdminAccess",
    "DRAPrioritizedList",
    "DRAResourceClaimDeviceStatus",
];

/// In 1.36: DRAConsumableCapacity, DRADeviceBindingConditions, DRADeviceTaints and
/// DRAPartitionableDevices Beta and on; DRAAdminAccess and DRAPrioritizedList GA.
const DRA_ON_1_36: &[&str] = &[
    "DRAAdminAccess",
    "DRAConsumableCapacity",
    "DRADeviceBindingConditions",
    "DRADeviceTaints",
    "DRAPartitionableDevices",
    "DRAPrioritizedList",
    "DRAResourceClaimDeviceStatus",
];

/// Gates new in 1.36 (of those the scheduler reads; `pkg/features/kube_features.go` of
/// v1.36.2).
const NEW_IN_1_36: &[&str] = &[
    "DRAListTypeAttributes",
    "DRANodeAllocatableResources",
    "DRAWorkloadResourceClaims",
    "TopologyAwareWorkloadScheduling",
];

/// Gates new in 1.35.
const NEW_IN_1_35: &[&str] = &[
    "DRADeviceTaintRules",
    "GangScheduling",
    "GenericWorkload",
    "InPlacePodLevelResourcesVerticalScaling",
    "NodeDeclaredFeatures",
    "OpportunisticBatching",
    "TaintTolerationComparisonOperators",
    "VolumeLimitScaling",
];

/// Gates new in 1.34.
const NEW_IN_1_34: &[&str] = &[
    "DRAConsumableCapacity",
    "DRADeviceBindingConditions",
    "DRAExtendedResource",
    "DRAResourceClaimDeviceStatus",
    "DRASchedulerFilterTimeout",
    "NominatedNodeNameForExpectation",
    "SchedulerAsyncAPICalls",
];

/// Gates new in 1.33.
const NEW_IN_1_33: &[&str] = &[
    "SchedulerPopFromBackoffQ",
    "StorageCapacityScoring",
    "DRADeviceTaints",
    "DRAPartitionableDevices",
    "DRAPrioritizedList",
];

/// Gates new in 1.32.
const NEW_IN_1_32: &[&str] = &["SchedulerAsyncPreemption", "PodLevelResources"];

/// Every release, oldest first, with its facts.
const TABLE: [(Release, &str, Facts); 6] = [
    (
        Release::V1_31,
        "1.31",
        Facts {
            taint_reason_names_taint: true,
            fit_unresolvable_over_allocatable: false,
            dynamic_resources_default: false,
            dynamic_resources_scores: false,
            volume_binding_older_node_reason: true,
            read_write_once_pod_older_reason: true,
            pod_level_resources: false,
            container_resize_status: false,
            pod_level_resize_status: false,
            sidecar_non_zero_as_init: true,
            sidecar_host_ports: false,
            image_locality_image_volumes: false,
            balanced_allocation_skips_best_effort: false,
            balanced_allocation_scores_change: false,
            node_declared_features: false,
            dra_gates_on: &[],
            dra_filter_timeout_is_error: false,
            gang: None,
            gates_new: &[],
        },
    ),
    (
        Release::V1_32,
        "1.32",
        Facts {
            taint_reason_names_taint: true,
            fit_unresolvable_over_allocatable: false,
            dynamic_resources_default: false,
            dynamic_resources_scores: false,
            volume_binding_older_node_reason: true,
            read_write_once_pod_older_reason: true,
            pod_level_resources: false,
            container_resize_status: false,
            pod_level_resize_status: false,
            sidecar_non_zero_as_init: false,
            sidecar_host_ports: false,
            image_locality_image_volumes: false,
            balanced_allocation_skips_best_effort: false,
            balanced_allocation_scores_change: false,
            node_declared_features: false,
            dra_gates_on: &[],
            dra_filter_timeout_is_error: false,
            gang: None,
            gates_new: NEW_IN_1_32,
        },
    ),
    (
        Release::V1_33,
        "1.33",
        Facts {
            taint_reason_names_taint: true,
            fit_unresolvable_over_allocatable: false,
            dynamic_resources_default: false,
            dynamic_resources_scores: false,
            volume_binding_older_node_reason: false,
            read_write_once_pod_older_reason: true,
            pod_level_resources: false,
            container_resize_status: true,
            pod_level_resize_status: false,
            sidecar_non_zero_as_init: false,
            sidecar_host_ports: false,
            image_locality_image_volumes: false,
            balanced_allocation_skips_best_effort: true,
            balanced_allocation_scores_change: false,
            node_declared_features: false,
            dra_gates_on: &[],
            dra_filter_timeout_is_error: false,
            gang: None,
            gates_new: NEW_IN_1_33,
        },
    ),
    (
        Release::V1_34,
        "1.34",
        Facts {
            taint_reason_names_taint: false,
            fit_unresolvable_over_allocatable: true,
            dynamic_resources_default: true,
            dynamic_resources_scores: false,
            volume_binding_older_node_reason: false,
            read_write_once_pod_older_reason: false,
            pod_level_resources: true,
            container_resize_status: true,
            pod_level_resize_status: false,
            sidecar_non_zero_as_init: false,
            sidecar_host_ports: true,
            image_locality_image_volumes: false,
            balanced_allocation_skips_best_effort: true,
            balanced_allocation_scores_change: false,
            node_declared_features: false,
            dra_gates_on: DRA_ON_1_34,
            dra_filter_timeout_is_error: false,
            gang: None,
            gates_new: NEW_IN_1_34,
        },
    ),
    (
        Release::V1_35,
        "1.35",
        Facts {
            taint_reason_names_taint: false,
            fit_unresolvable_over_allocatable: true,
            dynamic_resources_default: true,
            dynamic_resources_scores: true,
            volume_binding_older_node_reason: false,
            read_write_once_pod_older_reason: false,
            pod_level_resources: true,
            container_resize_status: true,
            pod_level_resize_status: false,
            sidecar_non_zero_as_init: false,
            sidecar_host_ports: true,
            image_locality_image_volumes: false,
            balanced_allocation_skips_best_effort: true,
            balanced_allocation_scores_change: false,
            node_declared_features: false,
            dra_gates_on: DRA_ON_1_34,
            dra_filter_timeout_is_error: false,
            gang: Some(GANG_1_35),
            gates_new: NEW_IN_1_35,
        },
    ),
    (
        Release::V1_36,
        "1.36",
        Facts {
            taint_reason_names_taint: false,
            fit_unresolvable_over_allocatable: true,
            dynamic_resources_default: true,
            dynamic_resources_scores: true,
            volume_binding_older_node_reason: false,
            read_write_once_pod_older_reason: false,
            pod_level_resources: true,
            container_resize_status: true,
            pod_level_resize_status: true,
            sidecar_non_zero_as_init: false,
            sidecar_host_ports: true,
            image_locality_image_volumes: true,
            balanced_allocation_skips_best_effort: true,
            balanced_allocation_scores_change: true,
            node_declared_features: true,
            dra_gates_on: DRA_ON_1_36,
            dra_filter_timeout_is_error: true,
            gang: Some(GANG_1_36),
            gates_new: NEW_IN_1_36,
        },
    ),
];

/// The releases emulated, for messages: `1.31, 1.32, 1.33, 1.34, 1.35`.
pub fn supported() -> String {
    TABLE.map(|(_, name, _)| name).join(", ")
}

impl Release {
    fn row(self) -> &'static (Release, &'static str, Facts) {
        // Every variant has its row: the table is indexed by the enum's order.
        &TABLE[self as usize]
    }

    /// The newest release emulated.
    pub fn newest() -> Release {
        TABLE[TABLE.len() - 1].0
    }

    pub fn facts(self) -> &'static Facts {
        &self.row().2
    }

    /// How this release counts a pod's requests, host ports and images.
    pub fn resource_rules(self) -> ResourceRules {
        let f = self.facts();
        ResourceRules {
            pod_level: f.pod_level_resources,
            container_status: f.container_resize_status,
            pod_level_status: f.pod_level_resize_status,
            sidecar_non_zero_as_init: f.sidecar_non_zero_as_init,
            sidecar_host_ports: f.sidecar_host_ports,
            image_volumes: f.image_locality_image_volumes,
        }
    }

    /// Whether this release's kube-scheduler has feature gate `gate`: no later release
    /// brought it.
    pub fn has_gate(self, gate: &str) -> bool {
        TABLE[self as usize + 1..]
            .iter()
            .all(|(_, _, f)| !f.gates_new.contains(&gate))
    }

    /// `1.33`.
    pub fn name(self) -> &'static str {
        self.row().1
    }

    /// The release of `version`: `1.33`, `v1.33`, `v1.33.5`, `v1.33.5-gke.1`; or an API
    /// server's `/version` minor (`33`, `33+`) after `1.`. `None` for another release.
    pub fn parse(version: &str) -> Option<Release> {
        let v = version.trim().trim_start_matches('v');
        let mut parts = v.split('.');
        let major = parts.next()?;
        let minor: String = parts
            .next()?
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if major != "1" {
            return None;
        }
        TABLE
            .iter()
            .find(|(_, name, _)| name.strip_prefix("1.") == Some(minor.as_str()))
            .map(|(r, ..)| *r)
    }

    /// The release to emulate for `version` (an API server's `gitVersion`, or what a
    /// snapshot records): that release; for one newer than the newest emulated, the newest
    /// (`Closest::Newer`); an unreadable version as 1.35. One older than the oldest is an
    /// error naming it.
    pub fn closest(version: &str) -> Result<Closest, String> {
        if let Some(r) = Release::parse(version) {
            return Ok(Closest::Same(r));
        }
        let minor: Option<u32> = version
            .trim()
            .trim_start_matches('v')
            .strip_prefix("1.")
            .and_then(|m| m.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|m| m.parse().ok());
        let oldest = TABLE[0].1;
        match minor {
            Some(m) if m < 31 => Err(format!(
                "kube-scheduler {} is older than the oldest release this version emulates \
                 ({oldest}): its rules are not known here; pass --kubernetes-version with \
                 one of {} to evaluate as that release",
                version.trim(),
                supported()
            )),
            Some(_) => Ok(Closest::Newer(Release::newest())),
            None => Ok(Closest::Same(Release::default())),
        }
    }

    /// What the report leaves to 1.35's rules for this release, said beside the answer.
    pub fn unmodelled(self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self <= Release::V1_32 {
            v.push("PodTopologySpread counting constraints that share a topology key together");
        }
        if self <= Release::V1_33 {
            v.push("namespaceSelector of the pod's affinity terms replaced once resolved");
        }
        if self == Release::V1_31 {
            v.push("FitError counting only the nodes that ran Filter");
        }
        if self <= Release::V1_34 {
            v.push("a uniformly random pick among the top-scored nodes");
        }
        v
    }
}

/// The release emulated for a version read from a server or a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closest {
    Same(Release),
    /// Newer than the newest release emulated: emulated as that one, and said.
    Newer(Release),
}

impl Closest {
    pub fn release(self) -> Release {
        match self {
            Closest::Same(r) | Closest::Newer(r) => r,
        }
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1.36 turns DRAConsumableCapacity, DRADeviceBindingConditions, DRADeviceTaints and
    /// DRAPartitionableDevices on, and with binding conditions `bindingTimeout` defaults to
    /// 600s; 1.34 and 1.35 leave them off and it unset; a gate given still decides.
    #[test]
    fn dra_gates_and_binding_timeout_follow_the_release() {
        use crate::scheduler::config::FeatureGates;
        let gates = |r: Release, given: &str| {
            FeatureGates::parse(given)
                .and_then(|g| g.for_release(r))
                .expect("gates")
        };
        for r in [Release::V1_34, Release::V1_35] {
            let g = gates(r, "");
            let f = g.dra_features();
            assert!(f.admin_access && f.prioritized_list, "{r}");
            assert!(
                !f.partitionable_devices
                    && !f.device_taints
                    && !f.device_binding_and_status
                    && !f.consumable_capacity,
                "{r}"
            );
            assert_eq!(g.dra_binding_timeout_seconds(), None, "{r}");
        }
        let g = gates(Release::V1_36, "");
        let f = g.dra_features();
        assert!(
            f.admin_access
                && f.prioritized_list
                && f.partitionable_devices
                && f.device_taints
                && f.device_binding_and_status
                && f.consumable_capacity
        );
        assert_eq!(g.dra_binding_timeout_seconds(), Some(600));
        let g = gates(Release::V1_36, "DRADeviceBindingConditions=false");
        assert_eq!(g.dra_binding_timeout_seconds(), None);
        assert!(
            !Release::V1_33
                .facts()
                .dra_gates_on
                .contains(&"DRAPrioritizedList")
        );
    }

    #[test]
    fn the_table_follows_the_enum_and_versions_parse() {
        for (i, (r, name, _)) in TABLE.iter().enumerate() {
            assert_eq!(*r as usize, i);
            assert_eq!(r.name(), *name);
            assert_eq!(Release::parse(name), Some(*r));
        }
        assert_eq!(Release::parse("v1.33.5-gke.1200"), Some(Release::V1_33));
        assert_eq!(Release::parse("1.32+"), Some(Release::V1_32));
        assert_eq!(Release::parse("1.30"), None);
        assert_eq!(Release::parse("2.35"), None);
        // A gate is there from the release that brought it on.
        for (release, gate, has) in [
            (Release::V1_35, "TaintTolerationComparisonOperators", true),
            (Release::V1_34, "TaintTolerationComparisonOperators", false),
            (Release::V1_34, "DRAConsumableCapacity", true),
            (Release::V1_33, "DRAConsumableCapacity", false),
            (Release::V1_31, "TaintTolerationComparisonOperators", false),
            (Release::V1_32, "PodLevelResources", true),
            (Release::V1_31, "PodLevelResources", false),
            (Release::V1_31, "SchedulerQueueingHints", true),
        ] {
            assert_eq!(release.has_gate(gate), has, "{release} {gate}");
        }
    }
}
