//! Full `k8s-openapi` objects (a manifest's pod, the pod `explain` fetched, a snapshot pod
//! the JSON parts refused) made into the parts the model is built from.

use k8s_openapi::api::core::v1 as core;

use crate::state::parts::{
    Condition, Container, ContainerStatus, Meta, PodParts, Spec, Status, Volume,
};

/// The full type's fields the parts hold, moved out of it.
impl From<core::Pod> for PodParts {
    fn from(p: core::Pod) -> PodParts {
        let m = p.metadata;
        let containers = |list: Vec<core::Container>| {
            list.into_iter()
                .map(|c| Container {
                    name: Some(c.name),
                    image: c.image,
                    ports: c.ports,
                    resources: c.resources,
                    restart_policy: c.restart_policy,
                })
                .collect::<Vec<_>>()
        };
        let spec = p.spec.map(|s| Spec {
            affinity: s.affinity,
            containers: Some(containers(s.containers)),
            init_containers: s.init_containers.map(containers),
            node_name: s.node_name,
            node_selector: s.node_selector,
            overhead: s.overhead,
            preemption_policy: s.preemption_policy,
            priority: s.priority,
            resource_claims: s.resource_claims,
            resources: s.resources,
            scheduler_name: s.scheduler_name,
            tolerations: s.tolerations,
            topology_spread_constraints: s.topology_spread_constraints,
            volumes: s.volumes.map(|l| {
                l.into_iter()
                    .map(|v| Volume {
                        persistent_volume_claim: v.persistent_volume_claim,
                        ephemeral: v.ephemeral,
                        gce_persistent_disk: v.gce_persistent_disk,
                        aws_elastic_block_store: v.aws_elastic_block_store,
                        rbd: v.rbd,
                        iscsi: v.iscsi,
                        azure_disk: v.azure_disk,
                        azure_file: v.azure_file,
                        cinder: v.cinder,
                        vsphere_volume: v.vsphere_volume,
                        portworx_volume: v.portworx_volume,
                    })
                    .collect()
            }),
        });
        let status = p.status.map(|s| {
            let statuses = |list: Option<Vec<core::ContainerStatus>>| {
                list.map(|l| {
                    l.into_iter()
                        .map(|c| ContainerStatus {
                            name: c.name,
                            allocated_resources: c.allocated_resources,
                            resources: c.resources,
                        })
                        .collect()
                })
            };
            Status {
                phase: s.phase,
                conditions: s.conditions.map(|cs| {
                    cs.into_iter()
                        .map(|c| Condition {
                            type_: c.type_,
                            reason: c.reason,
                        })
                        .collect()
                }),
                container_statuses: statuses(s.container_statuses),
                init_container_statuses: statuses(s.init_container_statuses),
            }
        });
        PodParts {
            metadata: Some(Meta {
                name: m.name,
                namespace: m.namespace,
                labels: m.labels,
                deletion_timestamp: m.deletion_timestamp,
                owner_references: m.owner_references,
            }),
            spec,
            status,
        }
    }
}
