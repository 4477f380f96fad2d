//! The API's own messages (`k8s.io/api/core/v1/generated.proto`,
//! `k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto`), cut down to the fields the
//! [`PodParts`] hold, with upstream's field numbers (fields not declared here are skipped by
//! prost), and their conversion into parts.

use std::collections::BTreeMap;

use prost::Message;

use crate::state::parts::{self, Checked, Owner, PodParts};
use crate::state::spec::{self, Quantity, Time};
use crate::state::taints::Toleration;

/// An empty string of a non-pointer field is the field left out.
pub(super) fn non_empty(s: Option<String>) -> Option<String> {
    s.filter(|s| !s.is_empty())
}

pub(super) fn some_vec<T, U>(v: Vec<T>, f: impl FnMut(T) -> U) -> Option<Vec<U>> {
    (!v.is_empty()).then(|| v.into_iter().map(f).collect())
}

/// An entry of a `map<string, string>`. Maps are read as what a map is on the wire, a list
/// of such entries, and made a map at once by [`string_map`]: prost's own maps insert each
/// entry as it is read, which showed in the instructions nodes took to decode (a dozen
/// labels each).
#[derive(Clone, PartialEq, Message)]
pub(super) struct PbStringEntry {
    #[prost(string, tag = "1")]
    pub(super) key: String,
    #[prost(string, tag = "2")]
    pub(super) value: String,
}

/// An entry of a `map<string, Quantity>`, as [`PbStringEntry`].
#[derive(Clone, PartialEq, Message)]
pub(super) struct PbQuantityEntry {
    #[prost(string, tag = "1")]
    pub(super) key: String,
    #[prost(message, optional, tag = "2")]
    pub(super) value: Option<PbQuantity>,
}

/// The map protobuf reads from `entries`: an entry without its key or value has the empty
/// one, and a key given again keeps its last value (as `BTreeMap`'s `FromIterator` keeps the
/// last of equal keys). `None` when empty, as the API's optional maps.
pub(super) fn string_map(entries: Vec<PbStringEntry>) -> Option<BTreeMap<String, String>> {
    (!entries.is_empty()).then(|| entries.into_iter().map(|e| (e.key, e.value)).collect())
}

/// As [`string_map`], each value a quantity.
pub(super) fn quantity_map(entries: Vec<PbQuantityEntry>) -> Option<BTreeMap<String, Quantity>> {
    (!entries.is_empty()).then(|| {
        entries
            .into_iter()
            .map(|e| {
                (
                    e.key,
                    Quantity(e.value.and_then(|q| q.string).unwrap_or_default()),
                )
            })
            .collect()
    })
}

pub(super) fn some_strings(v: Vec<String>) -> Option<Vec<String>> {
    (!v.is_empty()).then_some(v)
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct TypeMeta {
    #[prost(string, optional, tag = "2")]
    pub(super) kind: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct ListMeta {
    #[prost(string, optional, tag = "3")]
    pub(super) continue_: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbStatus {
    #[prost(string, optional, tag = "2")]
    pub(super) status: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub(super) message: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub(super) reason: Option<String>,
    #[prost(message, optional, tag = "5")]
    pub(super) details: Option<PbStatusDetails>,
    #[prost(int32, optional, tag = "6")]
    pub(super) code: Option<i32>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbStatusDetails {
    #[prost(int32, optional, tag = "5")]
    pub(super) retry_after_seconds: Option<i32>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbPod {
    #[prost(message, optional, tag = "1")]
    pub(super) metadata: Option<PbMeta>,
    #[prost(message, optional, tag = "2")]
    pub(super) spec: Option<PbSpec>,
    #[prost(message, optional, tag = "3")]
    pub(super) status: Option<PbPodStatus>,
}

/// A `Pod` without its metadata, which prost steps over by its length: a template's first
/// pod needs only its spec and status built (its name, labels and owners are each pod's own,
/// read apart; see `shared`).
#[derive(Clone, PartialEq, Message)]
pub(super) struct PbPodBody {
    #[prost(message, optional, tag = "2")]
    pub(super) spec: Option<PbSpec>,
    #[prost(message, optional, tag = "3")]
    pub(super) status: Option<PbPodStatus>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbMeta {
    #[prost(string, optional, tag = "1")]
    pub(super) name: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub(super) namespace: Option<String>,
    /// Only whether it is set is read.
    #[prost(message, optional, tag = "9")]
    pub(super) deletion_timestamp: Option<PbTime>,
    #[prost(message, repeated, tag = "11")]
    pub(super) labels: Vec<PbStringEntry>,
    #[prost(message, repeated, tag = "13")]
    pub(super) owner_references: Vec<PbOwnerReference>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbTime {
    #[prost(int64, optional, tag = "1")]
    pub(super) seconds: Option<i64>,
    #[prost(int32, optional, tag = "2")]
    pub(super) nanos: Option<i32>,
}

impl PbTime {
    /// The time, when its seconds and nanos are in range.
    pub(super) fn to_time(&self) -> Option<Time> {
        let ts = jiff::Timestamp::new(self.seconds.unwrap_or(0), self.nanos.unwrap_or(0));
        ts.ok().map(Time)
    }
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbOwnerReference {
    #[prost(string, optional, tag = "1")]
    pub(super) kind: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub(super) name: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub(super) uid: Option<String>,
    #[prost(string, optional, tag = "5")]
    pub(super) api_version: Option<String>,
    #[prost(bool, optional, tag = "6")]
    pub(super) controller: Option<bool>,
    #[prost(bool, optional, tag = "7")]
    pub(super) block_owner_deletion: Option<bool>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbSpec {
    #[prost(message, repeated, tag = "1")]
    pub(super) volumes: Vec<PbVolume>,
    #[prost(message, repeated, tag = "2")]
    pub(super) containers: Vec<PbContainer>,
    #[prost(message, repeated, tag = "7")]
    pub(super) node_selector: Vec<PbStringEntry>,
    #[prost(string, optional, tag = "10")]
    pub(super) node_name: Option<String>,
    #[prost(message, optional, tag = "18")]
    pub(super) affinity: Option<PbAffinity>,
    #[prost(string, optional, tag = "19")]
    pub(super) scheduler_name: Option<String>,
    #[prost(message, repeated, tag = "20")]
    pub(super) init_containers: Vec<PbContainer>,
    #[prost(message, repeated, tag = "22")]
    pub(super) tolerations: Vec<PbToleration>,
    #[prost(int32, optional, tag = "25")]
    pub(super) priority: Option<i32>,
    #[prost(string, optional, tag = "31")]
    pub(super) preemption_policy: Option<String>,
    #[prost(message, repeated, tag = "32")]
    pub(super) overhead: Vec<PbQuantityEntry>,
    #[prost(message, repeated, tag = "33")]
    pub(super) topology_spread_constraints: Vec<PbTopologySpreadConstraint>,
    #[prost(message, repeated, tag = "38")]
    pub(super) scheduling_gates: Vec<PbSchedulingGate>,
    #[prost(message, repeated, tag = "39")]
    pub(super) resource_claims: Vec<PbPodResourceClaim>,
    #[prost(message, optional, tag = "40")]
    pub(super) resources: Option<PbResourceRequirements>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbSchedulingGate {
    #[prost(string, optional, tag = "1")]
    pub(super) name: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbQuantity {
    #[prost(string, optional, tag = "1")]
    pub(super) string: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbContainer {
    #[prost(string, optional, tag = "1")]
    pub(super) name: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub(super) image: Option<String>,
    #[prost(message, repeated, tag = "6")]
    pub(super) ports: Vec<PbContainerPort>,
    #[prost(message, optional, tag = "8")]
    pub(super) resources: Option<PbResourceRequirements>,
    #[prost(string, optional, tag = "24")]
    pub(super) restart_policy: Option<String>,
    #[prost(message, repeated, tag = "25")]
    pub(super) restart_policy_rules: Vec<PbContainerRestartRule>,
}

/// `ContainerRestartRule`: only the action is read (NodeDeclaredFeatures).
#[derive(Clone, PartialEq, Message)]
pub(super) struct PbContainerRestartRule {
    #[prost(string, optional, tag = "1")]
    pub(super) action: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbContainerPort {
    #[prost(string, optional, tag = "1")]
    pub(super) name: Option<String>,
    #[prost(int32, optional, tag = "2")]
    pub(super) host_port: Option<i32>,
    #[prost(int32, optional, tag = "3")]
    pub(super) container_port: Option<i32>,
    #[prost(string, optional, tag = "4")]
    pub(super) protocol: Option<String>,
    #[prost(string, optional, tag = "5")]
    pub(super) host_ip: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbResourceRequirements {
    #[prost(message, repeated, tag = "1")]
    pub(super) limits: Vec<PbQuantityEntry>,
    #[prost(message, repeated, tag = "2")]
    pub(super) requests: Vec<PbQuantityEntry>,
    #[prost(message, repeated, tag = "3")]
    pub(super) claims: Vec<PbResourceClaim>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbResourceClaim {
    #[prost(string, optional, tag = "1")]
    pub(super) name: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub(super) request: Option<String>,
}

/// A volume is `{name, volumeSource}` in protobuf; of most sources only whether they are
/// set is read, so each is an empty message here (its fields are skipped); of the claim and
/// the disks VolumeRestrictions compares, the fields the plugins read.
#[derive(Clone, PartialEq, Message)]
pub(super) struct PbVolume {
    /// Bytes, not text: the template key leaves the name out unread (see `shared::VOLUME`),
    /// so the whole decode does not check it either.
    #[prost(bytes = "vec", optional, tag = "1")]
    pub(super) name: Option<Vec<u8>>,
    #[prost(message, optional, tag = "2")]
    pub(super) source: Option<PbVolumeSource>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbClaimSource {
    #[prost(string, optional, tag = "1")]
    pub(super) claim_name: Option<String>,
    #[prost(bool, optional, tag = "2")]
    pub(super) read_only: Option<bool>,
}

/// `GCEPersistentDiskVolumeSource` and `AWSElasticBlockStoreVolumeSource` share their layout:
/// the disk's name, then (tag 4) readOnly.
#[derive(Clone, PartialEq, Message)]
pub(super) struct PbDisk {
    #[prost(string, optional, tag = "1")]
    pub(super) name: Option<String>,
    #[prost(bool, optional, tag = "4")]
    pub(super) read_only: Option<bool>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbIscsi {
    #[prost(string, optional, tag = "2")]
    pub(super) iqn: Option<String>,
    #[prost(bool, optional, tag = "6")]
    pub(super) read_only: Option<bool>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbRbd {
    #[prost(string, repeated, tag = "1")]
    pub(super) monitors: Vec<String>,
    #[prost(string, optional, tag = "2")]
    pub(super) image: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub(super) pool: Option<String>,
    #[prost(bool, optional, tag = "8")]
    pub(super) read_only: Option<bool>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct Present {}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbVolumeSource {
    #[prost(message, optional, tag = "3")]
    pub(super) gce_persistent_disk: Option<PbDisk>,
    #[prost(message, optional, tag = "4")]
    pub(super) aws_elastic_block_store: Option<PbDisk>,
    #[prost(message, optional, tag = "8")]
    pub(super) iscsi: Option<PbIscsi>,
    #[prost(message, optional, tag = "10")]
    pub(super) persistent_volume_claim: Option<PbClaimSource>,
    #[prost(message, optional, tag = "11")]
    pub(super) rbd: Option<PbRbd>,
    #[prost(message, optional, tag = "13")]
    pub(super) cinder: Option<Present>,
    #[prost(message, optional, tag = "18")]
    pub(super) azure_file: Option<Present>,
    #[prost(message, optional, tag = "20")]
    pub(super) vsphere_volume: Option<Present>,
    #[prost(message, optional, tag = "22")]
    pub(super) azure_disk: Option<Present>,
    #[prost(message, optional, tag = "24")]
    pub(super) portworx_volume: Option<Present>,
    #[prost(message, optional, tag = "29")]
    pub(super) ephemeral: Option<Present>,
    #[prost(message, optional, tag = "30")]
    pub(super) image: Option<PbImageVolumeSource>,
}

/// `ImageVolumeSource` (ImageLocality counts the image from 1.36).
#[derive(Clone, PartialEq, Message)]
pub(super) struct PbImageVolumeSource {
    #[prost(string, optional, tag = "1")]
    pub(super) reference: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub(super) pull_policy: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbAffinity {
    #[prost(message, optional, tag = "1")]
    pub(super) node_affinity: Option<PbNodeAffinity>,
    #[prost(message, optional, tag = "2")]
    pub(super) pod_affinity: Option<PbPodAffinity>,
    #[prost(message, optional, tag = "3")]
    pub(super) pod_anti_affinity: Option<PbPodAffinity>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbNodeAffinity {
    #[prost(message, optional, tag = "1")]
    pub(super) required: Option<PbNodeSelector>,
    #[prost(message, repeated, tag = "2")]
    pub(super) preferred: Vec<PbPreferredSchedulingTerm>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbNodeSelector {
    #[prost(message, repeated, tag = "1")]
    pub(super) terms: Vec<PbNodeSelectorTerm>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbNodeSelectorTerm {
    #[prost(message, repeated, tag = "1")]
    pub(super) match_expressions: Vec<PbRequirement>,
    #[prost(message, repeated, tag = "2")]
    pub(super) match_fields: Vec<PbRequirement>,
}

/// A node selector requirement and a label selector requirement have the same fields.
#[derive(Clone, PartialEq, Message)]
pub(super) struct PbRequirement {
    #[prost(string, optional, tag = "1")]
    pub(super) key: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub(super) operator: Option<String>,
    #[prost(string, repeated, tag = "3")]
    pub(super) values: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbPreferredSchedulingTerm {
    #[prost(int32, optional, tag = "1")]
    pub(super) weight: Option<i32>,
    #[prost(message, optional, tag = "2")]
    pub(super) preference: Option<PbNodeSelectorTerm>,
}

/// Pod affinity and pod anti-affinity have the same fields.
#[derive(Clone, PartialEq, Message)]
pub(super) struct PbPodAffinity {
    #[prost(message, repeated, tag = "1")]
    pub(super) required: Vec<PbPodAffinityTerm>,
    #[prost(message, repeated, tag = "2")]
    pub(super) preferred: Vec<PbWeightedPodAffinityTerm>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbPodAffinityTerm {
    #[prost(message, optional, tag = "1")]
    pub(super) label_selector: Option<PbLabelSelector>,
    #[prost(string, repeated, tag = "2")]
    pub(super) namespaces: Vec<String>,
    #[prost(string, optional, tag = "3")]
    pub(super) topology_key: Option<String>,
    #[prost(message, optional, tag = "4")]
    pub(super) namespace_selector: Option<PbLabelSelector>,
    #[prost(string, repeated, tag = "5")]
    pub(super) match_label_keys: Vec<String>,
    #[prost(string, repeated, tag = "6")]
    pub(super) mismatch_label_keys: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbWeightedPodAffinityTerm {
    #[prost(int32, optional, tag = "1")]
    pub(super) weight: Option<i32>,
    #[prost(message, optional, tag = "2")]
    pub(super) term: Option<PbPodAffinityTerm>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbLabelSelector {
    #[prost(message, repeated, tag = "1")]
    pub(super) match_labels: Vec<PbStringEntry>,
    #[prost(message, repeated, tag = "2")]
    pub(super) match_expressions: Vec<PbRequirement>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbToleration {
    #[prost(string, optional, tag = "1")]
    pub(super) key: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub(super) operator: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub(super) value: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub(super) effect: Option<String>,
    #[prost(int64, optional, tag = "5")]
    pub(super) toleration_seconds: Option<i64>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbTopologySpreadConstraint {
    #[prost(int32, optional, tag = "1")]
    pub(super) max_skew: Option<i32>,
    #[prost(string, optional, tag = "2")]
    pub(super) topology_key: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub(super) when_unsatisfiable: Option<String>,
    #[prost(message, optional, tag = "4")]
    pub(super) label_selector: Option<PbLabelSelector>,
    #[prost(int32, optional, tag = "5")]
    pub(super) min_domains: Option<i32>,
    #[prost(string, optional, tag = "6")]
    pub(super) node_affinity_policy: Option<String>,
    #[prost(string, optional, tag = "7")]
    pub(super) node_taints_policy: Option<String>,
    #[prost(string, repeated, tag = "8")]
    pub(super) match_label_keys: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbPodResourceClaim {
    #[prost(string, optional, tag = "1")]
    pub(super) name: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub(super) resource_claim_name: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub(super) resource_claim_template_name: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbPodStatus {
    #[prost(string, optional, tag = "1")]
    pub(super) phase: Option<String>,
    #[prost(message, repeated, tag = "2")]
    pub(super) conditions: Vec<PbCondition>,
    #[prost(message, optional, tag = "7")]
    pub(super) start_time: Option<PbTime>,
    #[prost(message, repeated, tag = "8")]
    pub(super) container_statuses: Vec<PbContainerStatus>,
    #[prost(message, repeated, tag = "10")]
    pub(super) init_container_statuses: Vec<PbContainerStatus>,
    #[prost(string, optional, tag = "11")]
    pub(super) nominated_node_name: Option<String>,
    #[prost(message, repeated, tag = "15")]
    pub(super) resource_claim_statuses: Vec<PbPodResourceClaimStatus>,
    #[prost(message, repeated, tag = "19")]
    pub(super) allocated_resources: Vec<PbQuantityEntry>,
    #[prost(message, optional, tag = "20")]
    pub(super) resources: Option<PbResourceRequirements>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbPodResourceClaimStatus {
    #[prost(string, optional, tag = "1")]
    pub(super) name: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub(super) resource_claim_name: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbCondition {
    #[prost(string, optional, tag = "1")]
    pub(super) type_: Option<String>,
    #[prost(string, optional, tag = "5")]
    pub(super) reason: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbContainerStatus {
    #[prost(string, optional, tag = "1")]
    pub(super) name: Option<String>,
    #[prost(message, repeated, tag = "10")]
    pub(super) allocated_resources: Vec<PbQuantityEntry>,
    #[prost(message, optional, tag = "11")]
    pub(super) resources: Option<PbResourceRequirements>,
}

impl From<PbPod> for PodParts {
    fn from(p: PbPod) -> PodParts {
        PodParts {
            metadata: p.metadata.map(|m| parts::Meta {
                name: non_empty(m.name),
                namespace: non_empty(m.namespace),
                labels: string_map(m.labels),
                deletion_timestamp: m.deletion_timestamp.map(|_| Checked::SET),
                owner_references: some_vec(m.owner_references, owner_reference),
            }),
            spec: p.spec.map(spec),
            status: p.status.map(|s| parts::Status {
                phase: non_empty(s.phase),
                start_time: s.start_time.as_ref().and_then(PbTime::to_time),
                nominated_node_name: non_empty(s.nominated_node_name),
                conditions: some_vec(s.conditions, |c| parts::Condition {
                    type_: c.type_.unwrap_or_default(),
                    reason: non_empty(c.reason),
                }),
                container_statuses: some_vec(s.container_statuses, container_status),
                init_container_statuses: some_vec(s.init_container_statuses, container_status),
                resources: s.resources.map(requirements),
                allocated_resources: quantity_map(s.allocated_resources),
                resource_claim_statuses: some_vec(s.resource_claim_statuses, |c| {
                    spec::PodResourceClaimStatus {
                        name: c.name.unwrap_or_default(),
                        resource_claim_name: c.resource_claim_name,
                    }
                }),
            }),
        }
    }
}

pub(super) fn owner_reference(o: PbOwnerReference) -> Owner {
    Owner {
        api_version: o.api_version.unwrap_or_default(),
        kind: o.kind.unwrap_or_default(),
        name: o.name.unwrap_or_default(),
        controller: o.controller == Some(true),
    }
}

pub(super) fn spec(s: PbSpec) -> parts::Spec {
    parts::Spec {
        affinity: s.affinity.map(affinity),
        containers: some_vec(s.containers, container),
        // Only the defaulting reads it, and a live API server's pods come defaulted.
        host_network: None,
        init_containers: some_vec(s.init_containers, container),
        node_name: non_empty(s.node_name),
        node_selector: string_map(s.node_selector),
        overhead: quantity_map(s.overhead),
        preemption_policy: s.preemption_policy,
        priority: s.priority,
        resource_claims: some_vec(s.resource_claims, |c| spec::PodResourceClaim {
            name: c.name.unwrap_or_default(),
            resource_claim_name: c.resource_claim_name,
            resource_claim_template_name: c.resource_claim_template_name,
        }),
        resources: s.resources.map(requirements),
        scheduler_name: non_empty(s.scheduler_name),
        scheduling_gates: some_vec(s.scheduling_gates, |g| spec::PodSchedulingGate {
            name: g.name.unwrap_or_default(),
        }),
        tolerations: some_vec(s.tolerations, |t| Toleration {
            key: t.key.unwrap_or_default(),
            operator: t.operator.unwrap_or_default(),
            value: t.value.unwrap_or_default(),
            effect: t.effect.unwrap_or_default(),
        }),
        topology_spread_constraints: some_vec(s.topology_spread_constraints, |c| {
            spec::TopologySpreadConstraint {
                label_selector: c.label_selector.map(label_selector),
                match_label_keys: some_strings(c.match_label_keys),
                max_skew: c.max_skew.unwrap_or_default(),
                min_domains: c.min_domains,
                node_affinity_policy: c.node_affinity_policy,
                node_taints_policy: c.node_taints_policy,
                topology_key: c.topology_key.unwrap_or_default(),
                when_unsatisfiable: c.when_unsatisfiable.unwrap_or_default(),
            }
        }),
        volumes: some_vec(s.volumes, |v| {
            let name = String::from_utf8_lossy(&v.name.unwrap_or_default()).into_owned();
            let v = v.source.unwrap_or_default();
            parts::Volume {
                name,
                image: v.image.map(|i| spec::ImageVolumeSource {
                    pull_policy: non_empty(i.pull_policy),
                    reference: non_empty(i.reference),
                }),
                persistent_volume_claim: v.persistent_volume_claim.map(|c| {
                    spec::PersistentVolumeClaimVolumeSource {
                        claim_name: c.claim_name.unwrap_or_default(),
                        read_only: c.read_only,
                    }
                }),
                ephemeral: set(v.ephemeral),
                gce_persistent_disk: v.gce_persistent_disk.map(|d| {
                    spec::GCEPersistentDiskVolumeSource {
                        pd_name: d.name.unwrap_or_default(),
                        read_only: d.read_only,
                        ..Default::default()
                    }
                }),
                aws_elastic_block_store: v.aws_elastic_block_store.map(|d| {
                    spec::AWSElasticBlockStoreVolumeSource {
                        volume_id: d.name.unwrap_or_default(),
                        read_only: d.read_only,
                        ..Default::default()
                    }
                }),
                rbd: v.rbd.map(|d| spec::RBDVolumeSource {
                    monitors: d.monitors,
                    image: d.image.unwrap_or_default(),
                    pool: d.pool,
                    read_only: d.read_only,
                    ..Default::default()
                }),
                iscsi: v.iscsi.map(|d| spec::ISCSIVolumeSource {
                    iqn: d.iqn.unwrap_or_default(),
                    read_only: d.read_only,
                    ..Default::default()
                }),
                azure_disk: set(v.azure_disk),
                azure_file: set(v.azure_file),
                cinder: set(v.cinder),
                vsphere_volume: set(v.vsphere_volume),
                portworx_volume: set(v.portworx_volume),
            }
        }),
    }
}

/// A volume source's presence (only presence is read).
pub(super) fn set<T>(p: Option<Present>) -> Option<Checked<T>> {
    p.map(|_| Checked::SET)
}

pub(super) fn container(c: PbContainer) -> parts::Container {
    parts::Container {
        name: Some(c.name.unwrap_or_default()),
        image: non_empty(c.image),
        ports: some_vec(c.ports, |p| spec::ContainerPort {
            container_port: p.container_port.unwrap_or_default(),
            host_ip: non_empty(p.host_ip),
            host_port: p.host_port.filter(|p| *p != 0),
            name: non_empty(p.name),
            protocol: non_empty(p.protocol),
        }),
        resources: c.resources.map(requirements),
        restart_policy: c.restart_policy,
        restart_policy_rules: some_vec(c.restart_policy_rules, |r| spec::ContainerRestartRule {
            action: r.action.unwrap_or_default(),
        }),
    }
}

pub(super) fn container_status(c: PbContainerStatus) -> parts::ContainerStatus {
    parts::ContainerStatus {
        name: c.name.unwrap_or_default(),
        allocated_resources: quantity_map(c.allocated_resources),
        resources: c.resources.map(requirements),
    }
}

pub(super) fn requirements(r: PbResourceRequirements) -> spec::ResourceRequirements {
    spec::ResourceRequirements {
        claims: some_vec(r.claims, |c| spec::ResourceClaim {
            name: c.name.unwrap_or_default(),
            request: non_empty(c.request),
        }),
        limits: quantity_map(r.limits),
        requests: quantity_map(r.requests),
    }
}

pub(super) fn affinity(a: PbAffinity) -> spec::Affinity {
    spec::Affinity {
        node_affinity: a.node_affinity.map(|n| spec::NodeAffinity {
            required_during_scheduling_ignored_during_execution: n.required.map(|s| {
                spec::NodeSelector {
                    node_selector_terms: s.terms.into_iter().map(node_selector_term).collect(),
                }
            }),
            preferred_during_scheduling_ignored_during_execution: some_vec(n.preferred, |p| {
                spec::PreferredSchedulingTerm {
                    preference: node_selector_term(p.preference.unwrap_or_default()),
                    weight: p.weight.unwrap_or_default(),
                }
            }),
        }),
        pod_affinity: a.pod_affinity.map(|p| {
            let (required, preferred) = pod_affinity(p);
            spec::PodAffinity {
                required_during_scheduling_ignored_during_execution: required,
                preferred_during_scheduling_ignored_during_execution: preferred,
            }
        }),
        pod_anti_affinity: a.pod_anti_affinity.map(|p| {
            let (required, preferred) = pod_affinity(p);
            spec::PodAntiAffinity {
                required_during_scheduling_ignored_during_execution: required,
                preferred_during_scheduling_ignored_during_execution: preferred,
            }
        }),
    }
}

pub(super) type PodAffinityTerms = (
    Option<Vec<spec::PodAffinityTerm>>,
    Option<Vec<spec::WeightedPodAffinityTerm>>,
);

fn pod_affinity(p: PbPodAffinity) -> PodAffinityTerms {
    (
        some_vec(p.required, pod_affinity_term),
        some_vec(p.preferred, |w| spec::WeightedPodAffinityTerm {
            pod_affinity_term: pod_affinity_term(w.term.unwrap_or_default()),
            weight: w.weight.unwrap_or_default(),
        }),
    )
}

pub(super) fn pod_affinity_term(t: PbPodAffinityTerm) -> spec::PodAffinityTerm {
    spec::PodAffinityTerm {
        label_selector: t.label_selector.map(label_selector),
        match_label_keys: some_strings(t.match_label_keys),
        mismatch_label_keys: some_strings(t.mismatch_label_keys),
        namespace_selector: t.namespace_selector.map(label_selector),
        namespaces: some_strings(t.namespaces),
        topology_key: t.topology_key.unwrap_or_default(),
    }
}

pub(super) fn node_selector_term(t: PbNodeSelectorTerm) -> spec::NodeSelectorTerm {
    let requirement = |r: PbRequirement| spec::NodeSelectorRequirement {
        key: r.key.unwrap_or_default(),
        operator: r.operator.unwrap_or_default(),
        values: some_strings(r.values),
    };
    spec::NodeSelectorTerm {
        match_expressions: some_vec(t.match_expressions, requirement),
        match_fields: some_vec(t.match_fields, requirement),
    }
}

pub(super) fn label_selector(s: PbLabelSelector) -> spec::LabelSelector {
    spec::LabelSelector {
        match_expressions: some_vec(s.match_expressions, |r| spec::LabelSelectorRequirement {
            key: r.key.unwrap_or_default(),
            operator: r.operator.unwrap_or_default(),
            values: some_strings(r.values),
        }),
        match_labels: string_map(s.match_labels),
    }
}
