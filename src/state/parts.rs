//! What the model is built from: the fields of a pod (and of a node) that the evaluation
//! reads, and nothing else. Every way an object arrives (a JSON page or snapshot, a protobuf
//! page, a manifest's full API object) is made into these parts, and one function builds the
//! model from them (`build.rs`), so a field the model gains is read in one place per format.
//!
//! The parts are decoded straight from an API server's JSON by the serde derives below (the
//! JSON front-end is these derives): the parts of a pod no plugin looks at (`managedFields`,
//! annotations, env, probes, most of the status) are stepped over, never decoded into typed
//! values. Fields are optional as in the API (a missing required field
//! reads as its default, as Go's decode gives it), and the subtrees are the model's own types
//! ([`crate::state::spec`]), so the model names no `k8s-openapi` type.

use std::collections::BTreeMap;
use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};

use crate::state::decode::checked::EphemeralVolumeSource;
use crate::state::labels::Labels;
use crate::state::spec::{self, Quantity, Time};
use crate::state::taints::{Taint, Toleration};

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
    pub(crate) deletion_timestamp: Option<Checked<Time>>,
    #[serde(default)]
    pub(crate) owner_references: Option<Vec<Owner>>,
}

/// `status`, the fields the resource plugins read.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Status {
    #[serde(default)]
    pub(crate) phase: Option<String>,
    /// Preemption orders victims of equal priority, and picks between nodes, by it.
    #[serde(default)]
    pub(crate) start_time: Option<Time>,
    /// Set by preemption: the node the pod waits on while its victims go.
    #[serde(default)]
    pub(crate) nominated_node_name: Option<String>,
    #[serde(default)]
    pub(crate) conditions: Option<Vec<Condition>>,
    #[serde(default)]
    pub(crate) container_statuses: Option<Vec<ContainerStatus>>,
    #[serde(default)]
    pub(crate) init_container_statuses: Option<Vec<ContainerStatus>>,
    /// Pod-level resources after an in-place resize (read from 1.36 on).
    #[serde(default)]
    pub(crate) resources: Option<spec::ResourceRequirements>,
    #[serde(default)]
    pub(crate) allocated_resources: Option<BTreeMap<String, Quantity>>,
    /// The claims the resourceclaim controller made from the pod's templates.
    #[serde(default)]
    pub(crate) resource_claim_statuses: Option<Vec<spec::PodResourceClaimStatus>>,
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
    pub(crate) resources: Option<spec::ResourceRequirements>,
}

/// `spec`, the fields the model is built from. Containers carry env, probes and mounts, and
/// every pod has a projected token volume: building those as `k8s-openapi` values, only to
/// drop them, was most of the decode. Fields are optional as in the API (a missing required
/// field reads as its default, as in Go's decode).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Spec {
    #[serde(default)]
    pub(crate) affinity: Option<spec::Affinity>,
    #[serde(default)]
    pub(crate) containers: Option<Vec<Container>>,
    /// Read only for the API server's defaulting (`defaults.rs`): pods from a live API server
    /// come with their host ports set, and their decode leaves it out.
    #[serde(default)]
    pub(crate) host_network: Option<bool>,
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
    pub(crate) resource_claims: Option<Vec<spec::PodResourceClaim>>,
    #[serde(default)]
    pub(crate) resources: Option<spec::ResourceRequirements>,
    #[serde(default)]
    pub(crate) scheduler_name: Option<String>,
    #[serde(default)]
    pub(crate) scheduling_gates: Option<Vec<spec::PodSchedulingGate>>,
    #[serde(default)]
    pub(crate) tolerations: Option<Vec<Toleration>>,
    #[serde(default)]
    pub(crate) topology_spread_constraints: Option<Vec<spec::TopologySpreadConstraint>>,
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
    pub(crate) ports: Option<Vec<spec::ContainerPort>>,
    #[serde(default)]
    pub(crate) resources: Option<spec::ResourceRequirements>,
    #[serde(default)]
    pub(crate) restart_policy: Option<String>,
    #[serde(default)]
    pub(crate) restart_policy_rules: Option<Vec<spec::ContainerRestartRule>>,
}

/// A volume, only the sources the storage plugins look for (`VolumeKinds::of` and
/// `PodVolume`s); the common ones (projected, configMap, secret, emptyDir) are skipped. The
/// sources whose fields a plugin compares are kept whole (they are small).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Volume {
    #[serde(default)]
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) persistent_volume_claim: Option<spec::PersistentVolumeClaimVolumeSource>,
    #[serde(default)]
    pub(crate) ephemeral: Option<Checked<EphemeralVolumeSource>>,
    #[serde(default)]
    pub(crate) gce_persistent_disk: Option<spec::GCEPersistentDiskVolumeSource>,
    #[serde(default)]
    pub(crate) aws_elastic_block_store: Option<spec::AWSElasticBlockStoreVolumeSource>,
    #[serde(default)]
    pub(crate) rbd: Option<spec::RBDVolumeSource>,
    #[serde(default)]
    pub(crate) iscsi: Option<spec::ISCSIVolumeSource>,
    #[serde(default)]
    pub(crate) azure_disk: Option<Checked<spec::AzureDiskVolumeSource>>,
    #[serde(default)]
    pub(crate) azure_file: Option<Checked<spec::AzureFileVolumeSource>>,
    #[serde(default)]
    pub(crate) cinder: Option<Checked<spec::CinderVolumeSource>>,
    #[serde(default)]
    pub(crate) vsphere_volume: Option<Checked<spec::VsphereVirtualDiskVolumeSource>>,
    #[serde(default)]
    pub(crate) portworx_volume: Option<Checked<spec::PortworxVolumeSource>>,
    #[serde(default)]
    pub(crate) image: Option<spec::ImageVolumeSource>,
}

/// A node, the fields the model is built from.
pub(crate) struct NodeParts {
    pub(crate) name: String,
    pub(crate) labels: Labels,
    pub(crate) taints: Vec<Taint>,
    pub(crate) unschedulable: bool,
    pub(crate) allocatable: Option<BTreeMap<String, Quantity>>,
    /// The images the read keeps (see `ImageNames`).
    pub(crate) images: Vec<NodeImage>,
    /// `status.declaredFeatures` (read by NodeDeclaredFeatures from 1.36).
    pub(crate) declared_features: Vec<String>,
}

/// One `status.images` entry of a node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeImage {
    pub names: Vec<String>,
    pub size_bytes: i64,
}

/// The JSON names of a pod's fields the parts read, object by object: what the snapshot
/// writer keeps of a pod (`cluster/snapshot.rs`). They are taken from the derives above, so a
/// field the parts gain is kept without being named again.
pub(crate) struct PodFields {
    pub(crate) metadata: &'static [&'static str],
    pub(crate) spec: &'static [&'static str],
    pub(crate) container: &'static [&'static str],
    pub(crate) status: &'static [&'static str],
    pub(crate) condition: &'static [&'static str],
    pub(crate) container_status: &'static [&'static str],
}

impl PodFields {
    pub(crate) fn of_parts() -> PodFields {
        PodFields {
            metadata: field_names::<Meta>(),
            spec: field_names::<Spec>(),
            container: field_names::<Container>(),
            status: field_names::<Status>(),
            condition: field_names::<Condition>(),
            container_status: field_names::<ContainerStatus>(),
        }
    }
}

/// The JSON names of the fields a struct's derive reads: the derive hands them to
/// `deserialize_struct`, where this deserializer takes them and stops.
pub(crate) fn field_names<T: DeserializeOwned>() -> &'static [&'static str] {
    use serde::de::{self, Visitor};

    struct Names<'a>(&'a mut &'static [&'static str]);

    impl<'de> Deserializer<'de> for Names<'_> {
        type Error = de::value::Error;

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(de::Error::custom("only the names were wanted"))
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }

    let mut names: &'static [&'static str] = &[];
    // Always the error above: the names are what is wanted.
    let _ = T::deserialize(Names(&mut names));
    names
}

/// A field the model reads only the presence of: decoded as the API's type (the model's own
/// in `spec.rs`, or `k8s-openapi`'s in `decode/checked.rs`), so that what the API's decode
/// refuses is refused here too, and then dropped.
pub(crate) struct Checked<T>(PhantomData<fn() -> T>);

impl<T> Checked<T> {
    /// The field, present.
    pub(crate) const SET: Checked<T> = Checked(PhantomData);
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Checked<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(|_| Checked::SET)
    }
}

/// An owner reference, the fields `metav1.GetControllerOf` reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Owner {
    pub(crate) api_version: String,
    pub(crate) kind: String,
    pub(crate) name: String,
    pub(crate) controller: bool,
}

/// An owner reference as the API writes it: every field optional (a missing or null one
/// reads as its default, as in `k8s-openapi`), the ones not read checked for their type.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WrittenOwner {
    #[serde(default)]
    api_version: Option<String>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    controller: Option<bool>,
    #[serde(default, rename = "uid")]
    _uid: Option<Checked<String>>,
    #[serde(default, rename = "blockOwnerDeletion")]
    _block_owner_deletion: Option<Checked<bool>>,
}

impl<'de> Deserialize<'de> for Owner {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let o = WrittenOwner::deserialize(d)?;
        Ok(Owner {
            api_version: o.api_version.unwrap_or_default(),
            kind: o.kind.unwrap_or_default(),
            name: o.name.unwrap_or_default(),
            controller: o.controller == Some(true),
        })
    }
}

/// A toleration as the API writes it, as [`WrittenOwner`].
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WrittenToleration {
    #[serde(default)]
    key: Option<String>,
    #[serde(default)]
    operator: Option<String>,
    #[serde(default)]
    value: Option<String>,
    #[serde(default)]
    effect: Option<String>,
    #[serde(default, rename = "tolerationSeconds")]
    _toleration_seconds: Option<Checked<i64>>,
}

impl<'de> Deserialize<'de> for Toleration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let t = WrittenToleration::deserialize(d)?;
        Ok(Toleration {
            key: t.key.unwrap_or_default(),
            operator: t.operator.unwrap_or_default(),
            value: t.value.unwrap_or_default(),
            effect: t.effect.unwrap_or_default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1 as core;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;

    use super::*;

    /// The names the snapshot writer keeps are the JSON names the derives read, renames
    /// included.
    #[test]
    fn field_names_are_the_derives_json_names() {
        assert_eq!(field_names::<Condition>(), ["type", "reason"]);
        assert_eq!(field_names::<PodParts>(), ["metadata", "spec", "status"]);
        let fields = PodFields::of_parts();
        assert!(fields.metadata.contains(&"ownerReferences"));
        assert!(fields.spec.contains(&"topologySpreadConstraints"));
        assert!(fields.status.contains(&"nominatedNodeName"));
    }

    /// Fields read only for their type refuse what `k8s-openapi` refuses, and null or missing
    /// fields read as the defaults it gives them.
    #[test]
    fn written_fields_read_and_refuse_as_the_apis_types() {
        let toleration: Toleration =
            serde_json::from_str(r#"{"key":null,"operator":"Exists","tolerationSeconds":5,"x":1}"#)
                .expect("toleration");
        assert_eq!(
            (toleration.key.as_str(), toleration.operator.as_str()),
            ("", "Exists")
        );
        for refused in [r#"{"tolerationSeconds":"5"}"#, r#"{"key":1}"#] {
            assert!(
                serde_json::from_str::<Toleration>(refused).is_err(),
                "{refused}"
            );
            assert!(
                serde_json::from_str::<core::Toleration>(refused).is_err(),
                "{refused}"
            );
        }
        let owner: Owner = serde_json::from_str(
            r#"{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":null,"controller":true}"#,
        )
        .expect("owner");
        assert_eq!(
            owner,
            Owner {
                api_version: "apps/v1".into(),
                kind: "ReplicaSet".into(),
                name: "rs".into(),
                controller: true,
            }
        );
        for refused in [r#"{"uid":3}"#, r#"{"blockOwnerDeletion":"yes"}"#] {
            assert!(serde_json::from_str::<Owner>(refused).is_err(), "{refused}");
            assert!(
                serde_json::from_str::<meta::OwnerReference>(refused).is_err(),
                "{refused}"
            );
        }
        let meta: Meta =
            serde_json::from_str(r#"{"deletionTimestamp":"2025-01-01T00:00:00Z"}"#).expect("meta");
        assert!(meta.deletion_timestamp.is_some());
        assert!(serde_json::from_str::<Meta>(r#"{"deletionTimestamp":"soon"}"#).is_err());
    }
}
