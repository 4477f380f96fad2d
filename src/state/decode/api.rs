//! Full `k8s-openapi` objects (a manifest's pod, the pod `explain` fetched, a snapshot pod
//! the JSON parts refused) made into the parts the model is built from.

use k8s_openapi::api::core::v1 as core;

use crate::state::labels::Labels;
use crate::state::parts::{
    Checked, Condition, Container, ContainerStatus, Meta, NodeImage, NodeParts, Owner, PodParts,
    Spec, Status, Volume,
};
use crate::state::taints::{Taint, Toleration};

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
            host_network: s.host_network,
            init_containers: s.init_containers.map(containers),
            node_name: s.node_name,
            node_selector: s.node_selector,
            overhead: s.overhead,
            preemption_policy: s.preemption_policy,
            priority: s.priority,
            resource_claims: s
                .resource_claims
                .map(|l| l.iter().map(|_| Checked::SET).collect()),
            resources: s.resources,
            scheduler_name: s.scheduler_name,
            scheduling_gates: s.scheduling_gates,
            tolerations: s
                .tolerations
                .map(|l| l.iter().map(Toleration::from).collect()),
            topology_spread_constraints: s.topology_spread_constraints,
            volumes: s.volumes.map(|l| {
                l.into_iter()
                    .map(|v| Volume {
                        name: v.name,
                        persistent_volume_claim: v.persistent_volume_claim,
                        ephemeral: present(&v.ephemeral),
                        gce_persistent_disk: v.gce_persistent_disk,
                        aws_elastic_block_store: v.aws_elastic_block_store,
                        rbd: v.rbd,
                        iscsi: v.iscsi,
                        azure_disk: present(&v.azure_disk),
                        azure_file: present(&v.azure_file),
                        cinder: present(&v.cinder),
                        vsphere_volume: present(&v.vsphere_volume),
                        portworx_volume: present(&v.portworx_volume),
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
                start_time: s.start_time,
                nominated_node_name: s.nominated_node_name,
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
                deletion_timestamp: present(&m.deletion_timestamp),
                owner_references: m.owner_references.map(|l| {
                    l.into_iter()
                        .map(|o| Owner {
                            api_version: o.api_version,
                            kind: o.kind,
                            name: o.name,
                            controller: o.controller == Some(true),
                        })
                        .collect()
                }),
            }),
            spec,
            status,
        }
    }
}

/// By value: every caller decoded the node to build it, and moving its labels and taints
/// saves copying them (5,000 nodes of a live list).
impl From<core::Node> for NodeParts {
    fn from(n: core::Node) -> NodeParts {
        let spec = n.spec.unwrap_or_default();
        let status = n.status.unwrap_or_default();
        NodeParts {
            name: n.metadata.name.unwrap_or_default(),
            labels: Labels::from(n.metadata.labels.unwrap_or_default()),
            taints: spec
                .taints
                .into_iter()
                .flatten()
                .map(|t| Taint {
                    key: t.key,
                    value: t.value.unwrap_or_default(),
                    effect: t.effect,
                })
                .collect(),
            unschedulable: spec.unschedulable.unwrap_or(false),
            // `SetDefaults_NodeStatus`: a node written without allocatable offers its
            // capacity (API servers store it so; a hand-written snapshot may lack it).
            allocatable: status.allocatable.or(status.capacity),
            images: status
                .images
                .into_iter()
                .flatten()
                .map(|i| NodeImage {
                    names: i.names.unwrap_or_default(),
                    size_bytes: i.size_bytes.unwrap_or(0),
                })
                .collect(),
        }
    }
}

/// A field the parts hold only the presence of.
fn present<T>(field: &Option<T>) -> Option<Checked<T>> {
    field.as_ref().map(|_| Checked::SET)
}
