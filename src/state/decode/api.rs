//! Full `k8s-openapi` objects (a manifest's pod, the pod `explain` fetched, a snapshot pod
//! the JSON parts refused, a PersistentVolume's node affinity) made into the parts and the
//! spec types the model is built from. This is the edge where the API's own types stop: they
//! stay where whole objects are read (manifests and snapshots decode them, and admission and
//! defaulting act on them as the API server does), and each is converted here, once.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;

use crate::state::defaults::{self, Defaulted};
use crate::state::labels::Labels;
use crate::state::node::Node;
use crate::state::parts::{
    Checked, Condition, Container, ContainerStatus, Meta, NodeImage, NodeParts, Owner, PodParts,
    Spec, Status, Volume,
};
use crate::state::pod::Pod;
use crate::state::resources::{ImageNames, PodResources};
use crate::state::spec::{self, Quantity, Time};
use crate::state::taints::{Taint, Toleration};

impl Pod {
    pub fn from_api(p: &core::Pod) -> Pod {
        Pod::from_owned(p.clone())
    }

    /// As [`Pod::from_api`], moving the strings, labels and node affinity out of the API
    /// object instead of copying them.
    pub fn from_owned(p: core::Pod) -> Pod {
        Pod::from_parts(PodParts::from(p))
    }

    /// The pod a manifest would create: as the API server stores it (its defaults applied),
    /// with what the defaulting set.
    pub fn from_manifest(p: core::Pod) -> (Pod, Vec<Defaulted>) {
        let mut parts = PodParts::from(p);
        let defaulted = defaults::apply(&mut parts);
        (Pod::from_parts(parts), defaulted)
    }
}

impl From<core::Node> for Node {
    fn from(n: core::Node) -> Self {
        Node::from_parts(NodeParts::from(n))
    }
}

impl PodResources {
    /// From a full API pod (a manifest's, or a test's): copied into the parts every pod
    /// is built from.
    pub fn from_api(p: &core::Pod) -> PodResources {
        PodResources::from_parts(&PodParts::from(p.clone()))
    }
}

impl ImageNames {
    /// `images` with only the names kept, and without the images left with none (as
    /// [`ImageNames::Only`] says).
    pub fn retain(&self, images: &mut Option<Vec<core::ContainerImage>>) {
        let ImageNames::Only(_) = self else {
            return;
        };
        if let Some(list) = images {
            list.retain_mut(|i| {
                if let Some(names) = &mut i.names {
                    names.retain(|n| self.keeps(n));
                }
                i.names.as_ref().is_some_and(|n| !n.is_empty())
            });
            if list.is_empty() {
                *images = None;
            }
        }
    }
}

impl From<&core::Toleration> for Toleration {
    fn from(t: &core::Toleration) -> Self {
        Toleration {
            key: t.key.clone().unwrap_or_default(),
            operator: t.operator.clone().unwrap_or_default(),
            value: t.value.clone().unwrap_or_default(),
            effect: t.effect.clone().unwrap_or_default(),
        }
    }
}

/// The full type's fields the parts hold, moved out of it.
impl From<core::Pod> for PodParts {
    fn from(p: core::Pod) -> PodParts {
        let m = p.metadata;
        let containers = |list: Vec<core::Container>| {
            list.into_iter()
                .map(|c| Container {
                    name: Some(c.name),
                    image: c.image,
                    ports: c.ports.map(|l| l.into_iter().map(port).collect()),
                    resources: c.resources.map(requirements),
                    restart_policy: c.restart_policy,
                    restart_policy_rules: c.restart_policy_rules.map(|l| {
                        l.into_iter()
                            .map(|r| spec::ContainerRestartRule { action: r.action })
                            .collect()
                    }),
                })
                .collect::<Vec<_>>()
        };
        let spec = p.spec.map(|s| Spec {
            affinity: s.affinity.map(affinity),
            containers: Some(containers(s.containers)),
            host_network: s.host_network,
            init_containers: s.init_containers.map(containers),
            node_name: s.node_name,
            node_selector: s.node_selector,
            overhead: s.overhead.map(quantities),
            preemption_policy: s.preemption_policy,
            priority: s.priority,
            resource_claims: s.resource_claims.map(|l| {
                l.into_iter()
                    .map(|c| spec::PodResourceClaim {
                        name: c.name,
                        resource_claim_name: c.resource_claim_name,
                        resource_claim_template_name: c.resource_claim_template_name,
                    })
                    .collect()
            }),
            resources: s.resources.map(requirements),
            scheduler_name: s.scheduler_name,
            scheduling_gates: s.scheduling_gates.map(|l| {
                l.into_iter()
                    .map(|g| spec::PodSchedulingGate { name: g.name })
                    .collect()
            }),
            tolerations: s
                .tolerations
                .map(|l| l.iter().map(Toleration::from).collect()),
            topology_spread_constraints: s.topology_spread_constraints.map(|l| {
                l.into_iter()
                    .map(spec::TopologySpreadConstraint::from)
                    .collect()
            }),
            volumes: s.volumes.map(|l| {
                l.into_iter()
                    .map(|v| Volume {
                        name: v.name,
                        image: v.image.map(|i| spec::ImageVolumeSource {
                            pull_policy: i.pull_policy,
                            reference: i.reference,
                        }),
                        persistent_volume_claim: v.persistent_volume_claim.map(|c| {
                            spec::PersistentVolumeClaimVolumeSource {
                                claim_name: c.claim_name,
                                read_only: c.read_only,
                            }
                        }),
                        ephemeral: present(&v.ephemeral),
                        gce_persistent_disk: v.gce_persistent_disk.map(|d| {
                            spec::GCEPersistentDiskVolumeSource {
                                fs_type: d.fs_type,
                                partition: d.partition,
                                pd_name: d.pd_name,
                                read_only: d.read_only,
                            }
                        }),
                        aws_elastic_block_store: v.aws_elastic_block_store.map(|d| {
                            spec::AWSElasticBlockStoreVolumeSource {
                                fs_type: d.fs_type,
                                partition: d.partition,
                                read_only: d.read_only,
                                volume_id: d.volume_id,
                            }
                        }),
                        rbd: v.rbd.map(|d| spec::RBDVolumeSource {
                            fs_type: d.fs_type,
                            image: d.image,
                            keyring: d.keyring,
                            monitors: d.monitors,
                            pool: d.pool,
                            read_only: d.read_only,
                            secret_ref: d.secret_ref.map(object_reference),
                            user: d.user,
                        }),
                        iscsi: v.iscsi.map(|d| spec::ISCSIVolumeSource {
                            chap_auth_discovery: d.chap_auth_discovery,
                            chap_auth_session: d.chap_auth_session,
                            fs_type: d.fs_type,
                            initiator_name: d.initiator_name,
                            iqn: d.iqn,
                            iscsi_interface: d.iscsi_interface,
                            lun: d.lun,
                            portals: d.portals,
                            read_only: d.read_only,
                            secret_ref: d.secret_ref.map(object_reference),
                            target_portal: d.target_portal,
                        }),
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
                            allocated_resources: c.allocated_resources.map(quantities),
                            resources: c.resources.map(requirements),
                        })
                        .collect()
                })
            };
            Status {
                phase: s.phase,
                start_time: s.start_time.map(|t| Time(t.0)),
                nominated_node_name: s.nominated_node_name,
                resource_claim_statuses: s.resource_claim_statuses.map(|l| {
                    l.into_iter()
                        .map(|c| spec::PodResourceClaimStatus {
                            name: c.name,
                            resource_claim_name: c.resource_claim_name,
                        })
                        .collect()
                }),
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
                resources: s.resources.map(requirements),
                allocated_resources: s.allocated_resources.map(quantities),
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
/// saves copying them (every node of a live list).
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
            declared_features: status.declared_features.unwrap_or_default(),
            // `SetDefaults_NodeStatus`: a node written without allocatable offers its
            // capacity (API servers store it so; a hand-written snapshot may lack it).
            allocatable: status.allocatable.or(status.capacity).map(quantities),
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
fn present<T, U>(field: &Option<T>) -> Option<Checked<U>> {
    field.as_ref().map(|_| Checked::SET)
}

fn quantities(list: BTreeMap<String, ApiQuantity>) -> BTreeMap<String, Quantity> {
    list.into_iter().map(|(k, v)| (k, Quantity(v.0))).collect()
}

fn requirements(r: core::ResourceRequirements) -> spec::ResourceRequirements {
    spec::ResourceRequirements {
        claims: r.claims.map(|l| {
            l.into_iter()
                .map(|c| spec::ResourceClaim {
                    name: c.name,
                    request: c.request,
                })
                .collect()
        }),
        limits: r.limits.map(quantities),
        requests: r.requests.map(quantities),
    }
}

fn port(p: core::ContainerPort) -> spec::ContainerPort {
    spec::ContainerPort {
        container_port: p.container_port,
        host_ip: p.host_ip,
        host_port: p.host_port,
        name: p.name,
        protocol: p.protocol,
    }
}

fn object_reference(r: core::LocalObjectReference) -> spec::LocalObjectReference {
    spec::LocalObjectReference { name: r.name }
}

fn affinity(a: core::Affinity) -> spec::Affinity {
    spec::Affinity {
        node_affinity: a.node_affinity.map(spec::NodeAffinity::from),
        pod_affinity: a.pod_affinity.map(|p| spec::PodAffinity {
            preferred_during_scheduling_ignored_during_execution: p
                .preferred_during_scheduling_ignored_during_execution
                .map(weighted_terms),
            required_during_scheduling_ignored_during_execution: p
                .required_during_scheduling_ignored_during_execution
                .map(terms),
        }),
        pod_anti_affinity: a.pod_anti_affinity.map(|p| spec::PodAntiAffinity {
            preferred_during_scheduling_ignored_during_execution: p
                .preferred_during_scheduling_ignored_during_execution
                .map(weighted_terms),
            required_during_scheduling_ignored_during_execution: p
                .required_during_scheduling_ignored_during_execution
                .map(terms),
        }),
    }
}

fn terms(l: Vec<core::PodAffinityTerm>) -> Vec<spec::PodAffinityTerm> {
    l.into_iter().map(pod_affinity_term).collect()
}

fn weighted_terms(l: Vec<core::WeightedPodAffinityTerm>) -> Vec<spec::WeightedPodAffinityTerm> {
    l.into_iter()
        .map(|w| spec::WeightedPodAffinityTerm {
            pod_affinity_term: pod_affinity_term(w.pod_affinity_term),
            weight: w.weight,
        })
        .collect()
}

fn pod_affinity_term(t: core::PodAffinityTerm) -> spec::PodAffinityTerm {
    spec::PodAffinityTerm {
        label_selector: t.label_selector.map(spec::LabelSelector::from),
        match_label_keys: t.match_label_keys,
        mismatch_label_keys: t.mismatch_label_keys,
        namespace_selector: t.namespace_selector.map(spec::LabelSelector::from),
        namespaces: t.namespaces,
        topology_key: t.topology_key,
    }
}

impl From<core::NodeAffinity> for spec::NodeAffinity {
    fn from(n: core::NodeAffinity) -> Self {
        spec::NodeAffinity {
            preferred_during_scheduling_ignored_during_execution: n
                .preferred_during_scheduling_ignored_during_execution
                .map(|l| {
                    l.into_iter()
                        .map(|p| spec::PreferredSchedulingTerm {
                            preference: p.preference.into(),
                            weight: p.weight,
                        })
                        .collect()
                }),
            required_during_scheduling_ignored_during_execution: n
                .required_during_scheduling_ignored_during_execution
                .map(spec::NodeSelector::from),
        }
    }
}

/// Also a PersistentVolume's `nodeAffinity.required`.
impl From<core::NodeSelector> for spec::NodeSelector {
    fn from(s: core::NodeSelector) -> Self {
        spec::NodeSelector {
            node_selector_terms: s.node_selector_terms.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<core::NodeSelectorTerm> for spec::NodeSelectorTerm {
    fn from(t: core::NodeSelectorTerm) -> Self {
        let requirements = |l: Option<Vec<core::NodeSelectorRequirement>>| {
            l.map(|l| {
                l.into_iter()
                    .map(|r| spec::NodeSelectorRequirement {
                        key: r.key,
                        operator: r.operator,
                        values: r.values,
                    })
                    .collect()
            })
        };
        spec::NodeSelectorTerm {
            match_expressions: requirements(t.match_expressions),
            match_fields: requirements(t.match_fields),
        }
    }
}

impl From<core::TopologySpreadConstraint> for spec::TopologySpreadConstraint {
    fn from(c: core::TopologySpreadConstraint) -> Self {
        spec::TopologySpreadConstraint {
            label_selector: c.label_selector.map(spec::LabelSelector::from),
            match_label_keys: c.match_label_keys,
            max_skew: c.max_skew,
            min_domains: c.min_domains,
            node_affinity_policy: c.node_affinity_policy,
            node_taints_policy: c.node_taints_policy,
            topology_key: c.topology_key,
            when_unsatisfiable: c.when_unsatisfiable,
        }
    }
}

/// Also the selectors of workloads and claims read from their whole objects.
impl From<meta::LabelSelector> for spec::LabelSelector {
    fn from(s: meta::LabelSelector) -> Self {
        spec::LabelSelector {
            match_expressions: s.match_expressions.map(|l| {
                l.into_iter()
                    .map(|r| spec::LabelSelectorRequirement {
                        key: r.key,
                        operator: r.operator,
                        values: r.values,
                    })
                    .collect()
            }),
            match_labels: s.match_labels,
        }
    }
}
