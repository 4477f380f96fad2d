//! What the model is built from: the fields of a pod (and of a node) that the evaluation
//! reads, and nothing else. Every way an object arrives (a JSON page or snapshot, a protobuf
//! page, a manifest's full API object) is made into these parts, and one function builds the
//! model from them (`build.rs`), so a field the model gains is read in one place per format.
//!
//! The parts are decoded straight from an API server's JSON by the serde derives below (the
//! JSON front-end is these derives): the parts of a pod no plugin looks at (`managedFields`,
//! annotations, env, probes, most of the status) are stepped over, which halves the bytes
//! decoded into typed values. Fields are optional as in `k8s-openapi` (a missing required
//! field reads as its default there too).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;
use serde::Deserialize;

/// A pod, the fields the model is built from.
#[derive(Deserialize)]
pub(crate) struct PodParts {
    #[serde(default)]
    pub(crate) metadata: Option<Meta>,
    #[serde(default)]
    pub(crate) spec: Option<Spec>,
    #[serde(default)]
    pub(crate) status: Option<Status>,
}

/// `metadata`, the fields `Pod::from_api` reads.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Meta {
    #[serde(default)]
    pub(crate) name: Option<String>,
    #[serde(default)]
    pub(crate) namespace: Option<String>,
    #[serde(default)]
    pub(crate) labels: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub(crate) deletion_timestamp: Option<meta::Time>,
    #[serde(default)]
    pub(crate) owner_references: Option<Vec<meta::OwnerReference>>,
}

/// `status`, the fields the resource plugins read.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Status {
    #[serde(default)]
    pub(crate) phase: Option<String>,
    #[serde(default)]
    pub(crate) conditions: Option<Vec<Condition>>,
    #[serde(default)]
    pub(crate) container_statuses: Option<Vec<ContainerStatus>>,
    #[serde(default)]
    pub(crate) init_container_statuses: Option<Vec<ContainerStatus>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Condition {
    #[serde(rename = "type")]
    pub(crate) type_: String,
    #[serde(default)]
    pub(crate) reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContainerStatus {
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) allocated_resources: Option<BTreeMap<String, Quantity>>,
    #[serde(default)]
    pub(crate) resources: Option<core::ResourceRequirements>,
}

/// `spec`, the fields `Pod::from_api` and `PodResources::from_api` read. Containers carry
/// env, probes and mounts, and every pod has a projected token volume: building those as
/// `k8s-openapi` values, only to drop them, was most of the decode. Fields are optional as in
/// `k8s-openapi` (a missing required field reads as its default there too).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Spec {
    #[serde(default)]
    pub(crate) affinity: Option<core::Affinity>,
    #[serde(default)]
    pub(crate) containers: Option<Vec<Container>>,
    #[serde(default)]
    pub(crate) init_containers: Option<Vec<Container>>,
    #[serde(default)]
    pub(crate) node_name: Option<String>,
    #[serde(default)]
    pub(crate) node_selector: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub(crate) overhead: Option<BTreeMap<String, Quantity>>,
    #[serde(default)]
    pub(crate) preemption_policy: Option<String>,
    #[serde(default)]
    pub(crate) priority: Option<i32>,
    #[serde(default)]
    pub(crate) resource_claims: Option<Vec<core::PodResourceClaim>>,
    #[serde(default)]
    pub(crate) resources: Option<core::ResourceRequirements>,
    #[serde(default)]
    pub(crate) scheduler_name: Option<String>,
    #[serde(default)]
    pub(crate) tolerations: Option<Vec<core::Toleration>>,
    #[serde(default)]
    pub(crate) topology_spread_constraints: Option<Vec<core::TopologySpreadConstraint>>,
    #[serde(default)]
    pub(crate) volumes: Option<Vec<Volume>>,
}

/// A container, the fields the resource plugins read (requests, host ports, image, and
/// `restartPolicy`, which makes an init container a sidecar).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Container {
    #[serde(default)]
    pub(crate) name: Option<String>,
    #[serde(default)]
    pub(crate) image: Option<String>,
    #[serde(default)]
    pub(crate) ports: Option<Vec<core::ContainerPort>>,
    #[serde(default)]
    pub(crate) resources: Option<core::ResourceRequirements>,
    #[serde(default)]
    pub(crate) restart_policy: Option<String>,
}

/// A volume, only the sources `VolumeKinds::of` looks for; the common ones (projected,
/// configMap, secret, emptyDir) are skipped.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Volume {
    #[serde(default)]
    pub(crate) persistent_volume_claim: Option<core::PersistentVolumeClaimVolumeSource>,
    #[serde(default)]
    pub(crate) ephemeral: Option<core::EphemeralVolumeSource>,
    #[serde(default)]
    pub(crate) gce_persistent_disk: Option<core::GCEPersistentDiskVolumeSource>,
    #[serde(default)]
    pub(crate) aws_elastic_block_store: Option<core::AWSElasticBlockStoreVolumeSource>,
    #[serde(default)]
    pub(crate) rbd: Option<core::RBDVolumeSource>,
    #[serde(default)]
    pub(crate) iscsi: Option<core::ISCSIVolumeSource>,
    #[serde(default)]
    pub(crate) azure_disk: Option<core::AzureDiskVolumeSource>,
    #[serde(default)]
    pub(crate) azure_file: Option<core::AzureFileVolumeSource>,
    #[serde(default)]
    pub(crate) cinder: Option<core::CinderVolumeSource>,
    #[serde(default)]
    pub(crate) vsphere_volume: Option<core::VsphereVirtualDiskVolumeSource>,
    #[serde(default)]
    pub(crate) portworx_volume: Option<core::PortworxVolumeSource>,
}
