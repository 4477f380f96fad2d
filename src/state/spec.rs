//! The scheduling fields of a pod spec, as the model reads them: affinity, resource
//! requirements, spread constraints, ports, scheduling gates and the volume sources the storage
//! plugins compare, with the selector shapes they share (also a profile's `addedAffinity` and
//! `defaultConstraints`, which are written in the same shapes).
//!
//! These are the model's own wire types: the API's field names and optionality (a required
//! field is a plain value, an optional one an `Option`), and the decode of `k8s-openapi`'s own
//! types, which [`wire!`] writes out once for all of them. That decode is the API server's
//! JSON as Go's `encoding/json` reads it: unknown fields are skipped, a null or missing field
//! reads as its zero value (a required one too), a field given twice keeps the last, and
//! anything but an object in place of one is refused with the type's name ("expected
//! NodeAffinity"). So a pod or a profile refused before is refused now, with the same words,
//! and one read before reads the same. The full API objects of manifests and snapshots are
//! converted into these types at their edge (`decode/api.rs`).

use std::collections::BTreeMap;

use serde::de::{self, Deserialize, Deserializer, Visitor};

/// Structs that decode as `k8s-openapi`'s generated ones do (see the module doc): each field
/// with its JSON name, each struct with the name its errors give.
macro_rules! wire {
    ($(
        $(#[$attr:meta])*
        $vis:vis struct $name:ident as $expecting:literal {
            $( $(#[$fattr:meta])* $fvis:vis $field:ident: $ty:ty = $key:literal, )*
        }
    )*) => {$(
        $(#[$attr])*
        #[derive(Debug, Clone, Default, PartialEq)]
        $vis struct $name {
            $( $(#[$fattr])* $fvis $field: $ty, )*
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                /// A field's name, `None` for one the type does not have.
                struct Key(Option<&'static str>);
                impl<'de> ::serde::Deserialize<'de> for Key {
                    fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                        struct KeyVisitor;
                        impl ::serde::de::Visitor<'_> for KeyVisitor {
                            type Value = Key;
                            fn expecting(
                                &self,
                                f: &mut std::fmt::Formatter<'_>,
                            ) -> std::fmt::Result {
                                f.write_str("field identifier")
                            }
                            fn visit_str<E: ::serde::de::Error>(self, v: &str) -> Result<Key, E> {
                                Ok(Key(match v {
                                    $( $key => Some($key), )*
                                    _ => None,
                                }))
                            }
                        }
                        d.deserialize_identifier(KeyVisitor)
                    }
                }
                struct StructVisitor;
                impl<'de> ::serde::de::Visitor<'de> for StructVisitor {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        let mut out = $name::default();
                        while let Some(Key(key)) = map.next_key()? {
                            match key {
                                $( Some($key) => {
                                    out.$field = map.next_value::<Option<$ty>>()?.unwrap_or_default();
                                } )*
                                _ => {
                                    map.next_value::<::serde::de::IgnoredAny>()?;
                                }
                            }
                        }
                        Ok(out)
                    }
                }
                d.deserialize_struct($expecting, &[$($key),*], StructVisitor)
            }
        }
    )*};
}
pub(crate) use wire;

wire! {
    /// `metav1.LabelSelector`.
    pub struct LabelSelector as "LabelSelector" {
        pub match_expressions: Option<Vec<LabelSelectorRequirement>> = "matchExpressions",
        pub match_labels: Option<BTreeMap<String, String>> = "matchLabels",
    }

    pub struct LabelSelectorRequirement as "LabelSelectorRequirement" {
        pub key: String = "key",
        pub operator: String = "operator",
        pub values: Option<Vec<String>> = "values",
    }

    /// `affinity`.
    pub struct Affinity as "Affinity" {
        pub node_affinity: Option<NodeAffinity> = "nodeAffinity",
        pub pod_affinity: Option<PodAffinity> = "podAffinity",
        pub pod_anti_affinity: Option<PodAntiAffinity> = "podAntiAffinity",
    }

    pub struct NodeAffinity as "NodeAffinity" {
        pub preferred_during_scheduling_ignored_during_execution:
            Option<Vec<PreferredSchedulingTerm>> = "preferredDuringSchedulingIgnoredDuringExecution",
        pub required_during_scheduling_ignored_during_execution:
            Option<NodeSelector> = "requiredDuringSchedulingIgnoredDuringExecution",
    }

    /// Also a PersistentVolume's `nodeAffinity.required`.
    pub struct NodeSelector as "NodeSelector" {
        pub node_selector_terms: Vec<NodeSelectorTerm> = "nodeSelectorTerms",
    }

    pub struct NodeSelectorTerm as "NodeSelectorTerm" {
        pub match_expressions: Option<Vec<NodeSelectorRequirement>> = "matchExpressions",
        pub match_fields: Option<Vec<NodeSelectorRequirement>> = "matchFields",
    }

    pub struct NodeSelectorRequirement as "NodeSelectorRequirement" {
        pub key: String = "key",
        pub operator: String = "operator",
        pub values: Option<Vec<String>> = "values",
    }

    pub struct PreferredSchedulingTerm as "PreferredSchedulingTerm" {
        pub preference: NodeSelectorTerm = "preference",
        pub weight: i32 = "weight",
    }

    pub struct PodAffinity as "PodAffinity" {
        pub preferred_during_scheduling_ignored_during_execution:
            Option<Vec<WeightedPodAffinityTerm>> = "preferredDuringSchedulingIgnoredDuringExecution",
        pub required_during_scheduling_ignored_during_execution:
            Option<Vec<PodAffinityTerm>> = "requiredDuringSchedulingIgnoredDuringExecution",
    }

    /// The same lists as [`PodAffinity`], its own type as in the API (errors name it).
    pub struct PodAntiAffinity as "PodAntiAffinity" {
        pub preferred_during_scheduling_ignored_during_execution:
            Option<Vec<WeightedPodAffinityTerm>> = "preferredDuringSchedulingIgnoredDuringExecution",
        pub required_during_scheduling_ignored_during_execution:
            Option<Vec<PodAffinityTerm>> = "requiredDuringSchedulingIgnoredDuringExecution",
    }

    pub struct PodAffinityTerm as "PodAffinityTerm" {
        pub label_selector: Option<LabelSelector> = "labelSelector",
        pub match_label_keys: Option<Vec<String>> = "matchLabelKeys",
        pub mismatch_label_keys: Option<Vec<String>> = "mismatchLabelKeys",
        pub namespace_selector: Option<LabelSelector> = "namespaceSelector",
        pub namespaces: Option<Vec<String>> = "namespaces",
        pub topology_key: String = "topologyKey",
    }

    pub struct WeightedPodAffinityTerm as "WeightedPodAffinityTerm" {
        pub pod_affinity_term: PodAffinityTerm = "podAffinityTerm",
        pub weight: i32 = "weight",
    }

    /// `topologySpreadConstraints[]`, and a profile's `defaultConstraints[]`.
    pub struct TopologySpreadConstraint as "TopologySpreadConstraint" {
        pub label_selector: Option<LabelSelector> = "labelSelector",
        pub match_label_keys: Option<Vec<String>> = "matchLabelKeys",
        pub max_skew: i32 = "maxSkew",
        pub min_domains: Option<i32> = "minDomains",
        pub node_affinity_policy: Option<String> = "nodeAffinityPolicy",
        pub node_taints_policy: Option<String> = "nodeTaintsPolicy",
        pub topology_key: String = "topologyKey",
        pub when_unsatisfiable: String = "whenUnsatisfiable",
    }

    /// A container's (or the pod's, or a container status's) `resources`.
    pub struct ResourceRequirements as "ResourceRequirements" {
        pub claims: Option<Vec<ResourceClaim>> = "claims",
        pub limits: Option<BTreeMap<String, Quantity>> = "limits",
        pub requests: Option<BTreeMap<String, Quantity>> = "requests",
    }

    pub struct ResourceClaim as "ResourceClaim" {
        pub name: String = "name",
        pub request: Option<String> = "request",
    }

    pub struct ContainerPort as "ContainerPort" {
        pub container_port: i32 = "containerPort",
        pub host_ip: Option<String> = "hostIP",
        pub host_port: Option<i32> = "hostPort",
        pub name: Option<String> = "name",
        pub protocol: Option<String> = "protocol",
    }

    /// `restartPolicyRules[]` of a container: only the action is read (NodeDeclaredFeatures).
    pub struct ContainerRestartRule as "ContainerRestartRule" {
        pub action: String = "action",
    }

    pub struct PodSchedulingGate as "PodSchedulingGate" {
        pub name: String = "name",
    }

    pub struct PersistentVolumeClaimVolumeSource as "PersistentVolumeClaimVolumeSource" {
        pub claim_name: String = "claimName",
        pub read_only: Option<bool> = "readOnly",
    }

    /// Decoded whole, as every source a plugin compares: the fields not read are still
    /// checked for their type.
    pub struct GCEPersistentDiskVolumeSource as "GCEPersistentDiskVolumeSource" {
        pub fs_type: Option<String> = "fsType",
        pub partition: Option<i32> = "partition",
        pub pd_name: String = "pdName",
        pub read_only: Option<bool> = "readOnly",
    }

    pub struct AWSElasticBlockStoreVolumeSource as "AWSElasticBlockStoreVolumeSource" {
        pub fs_type: Option<String> = "fsType",
        pub partition: Option<i32> = "partition",
        pub read_only: Option<bool> = "readOnly",
        pub volume_id: String = "volumeID",
    }

    pub struct RBDVolumeSource as "RBDVolumeSource" {
        pub fs_type: Option<String> = "fsType",
        pub image: String = "image",
        pub keyring: Option<String> = "keyring",
        pub monitors: Vec<String> = "monitors",
        pub pool: Option<String> = "pool",
        pub read_only: Option<bool> = "readOnly",
        pub secret_ref: Option<LocalObjectReference> = "secretRef",
        pub user: Option<String> = "user",
    }

    pub struct ISCSIVolumeSource as "ISCSIVolumeSource" {
        pub chap_auth_discovery: Option<bool> = "chapAuthDiscovery",
        pub chap_auth_session: Option<bool> = "chapAuthSession",
        pub fs_type: Option<String> = "fsType",
        pub initiator_name: Option<String> = "initiatorName",
        pub iqn: String = "iqn",
        pub iscsi_interface: Option<String> = "iscsiInterface",
        pub lun: i32 = "lun",
        pub portals: Option<Vec<String>> = "portals",
        pub read_only: Option<bool> = "readOnly",
        pub secret_ref: Option<LocalObjectReference> = "secretRef",
        pub target_portal: String = "targetPortal",
    }

    pub struct LocalObjectReference as "LocalObjectReference" {
        pub name: String = "name",
    }

    /// `resourceClaims[]`: a claim by name, or a template the resourceclaim controller
    /// makes one from.
    pub struct PodResourceClaim as "PodResourceClaim" {
        pub name: String = "name",
        pub resource_claim_name: Option<String> = "resourceClaimName",
        pub resource_claim_template_name: Option<String> = "resourceClaimTemplateName",
    }

    /// `status.resourceClaimStatuses[]`: the claim the controller made for a template.
    pub struct PodResourceClaimStatus as "PodResourceClaimStatus" {
        pub name: String = "name",
        pub resource_claim_name: Option<String> = "resourceClaimName",
    }

    /// The in-tree sources NodeVolumeLimits counts: only their presence is read.
    pub struct AzureDiskVolumeSource as "AzureDiskVolumeSource" {
        pub caching_mode: Option<String> = "cachingMode",
        pub disk_name: String = "diskName",
        pub disk_uri: String = "diskURI",
        pub fs_type: Option<String> = "fsType",
        pub kind: Option<String> = "kind",
        pub read_only: Option<bool> = "readOnly",
    }

    pub struct AzureFileVolumeSource as "AzureFileVolumeSource" {
        pub read_only: Option<bool> = "readOnly",
        pub secret_name: String = "secretName",
        pub share_name: String = "shareName",
    }

    pub struct CinderVolumeSource as "CinderVolumeSource" {
        pub fs_type: Option<String> = "fsType",
        pub read_only: Option<bool> = "readOnly",
        pub secret_ref: Option<LocalObjectReference> = "secretRef",
        pub volume_id: String = "volumeID",
    }

    pub struct VsphereVirtualDiskVolumeSource as "VsphereVirtualDiskVolumeSource" {
        pub fs_type: Option<String> = "fsType",
        pub storage_policy_id: Option<String> = "storagePolicyID",
        pub storage_policy_name: Option<String> = "storagePolicyName",
        pub volume_path: String = "volumePath",
    }

    /// An image volume (ImageLocality counts its image from 1.36).
    pub struct ImageVolumeSource as "ImageVolumeSource" {
        pub pull_policy: Option<String> = "pullPolicy",
        pub reference: Option<String> = "reference",
    }

    pub struct PortworxVolumeSource as "PortworxVolumeSource" {
        pub fs_type: Option<String> = "fsType",
        pub read_only: Option<bool> = "readOnly",
        pub volume_id: String = "volumeID",
    }
}

/// A quantity as written (`"500m"`, `"1Gi"`); `state::quantity` parses it where it is read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Quantity(pub String);

impl<'de> Deserialize<'de> for Quantity {
    /// As `k8s-openapi`'s: a string, or a number written as Rust writes it (`1`, `0.5`).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct QuantityVisitor;
        impl<'de> Visitor<'de> for QuantityVisitor {
            type Value = Quantity;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("Quantity")
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Quantity, D::Error> {
                d.deserialize_any(self)
            }
            fn visit_i32<E: de::Error>(self, v: i32) -> Result<Quantity, E> {
                Ok(Quantity(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Quantity, E> {
                Ok(Quantity(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Quantity, E> {
                Ok(Quantity(v.to_string()))
            }
            fn visit_f32<E: de::Error>(self, v: f32) -> Result<Quantity, E> {
                Ok(Quantity(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Quantity, E> {
                Ok(Quantity(v.to_string()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Quantity, E> {
                Ok(Quantity(v.to_string()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Quantity, E> {
                Ok(Quantity(v))
            }
        }
        d.deserialize_newtype_struct("Quantity", QuantityVisitor)
    }
}

/// A `metav1.Time` (RFC 3339, as the API writes it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Time(pub jiff::Timestamp);

impl Time {
    /// Nanoseconds since the epoch (saturating), the way preemption compares start times.
    pub fn unix_nanos(&self) -> i64 {
        i64::try_from(self.0.as_nanosecond()).unwrap_or(i64::MAX)
    }
}

impl<'de> Deserialize<'de> for Time {
    /// As `k8s-openapi`'s: a newtype of jiff's timestamp.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct TimeVisitor;
        impl<'de> Visitor<'de> for TimeVisitor {
            type Value = Time;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("Time")
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Time, D::Error> {
                jiff::Timestamp::deserialize(d).map(Time)
            }
        }
        d.deserialize_newtype_struct("Time", TimeVisitor)
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1 as core;

    use crate::state::parts::PodParts;

    /// What a pod's parts hold of the subtrees written as the model's own types.
    fn subtrees(p: PodParts) -> String {
        let s = p.spec.unwrap_or_default();
        let containers: Vec<_> = s
            .containers
            .iter()
            .flatten()
            .chain(s.init_containers.iter().flatten())
            .map(|c| format!("{:?} {:?}", c.ports, c.resources))
            .collect();
        let volumes: Vec<_> = s
            .volumes
            .iter()
            .flatten()
            .map(|v| {
                format!(
                    "{:?} {:?} {:?} {:?} {:?} {:?}",
                    v.persistent_volume_claim,
                    v.gce_persistent_disk,
                    v.aws_elastic_block_store,
                    v.rbd,
                    v.iscsi,
                    [
                        v.ephemeral.is_some(),
                        v.azure_disk.is_some(),
                        v.azure_file.is_some(),
                        v.cinder.is_some(),
                        v.vsphere_volume.is_some(),
                        v.portworx_volume.is_some(),
                    ]
                )
            })
            .collect();
        let statuses: Vec<_> = p
            .status
            .iter()
            .flat_map(|s| s.container_statuses.iter().flatten())
            .map(|c| format!("{:?} {:?}", c.allocated_resources, c.resources))
            .collect();
        format!(
            "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{containers:?}\n{volumes:?}\n{statuses:?}\n{:?}",
            s.affinity,
            s.topology_spread_constraints,
            s.scheduling_gates,
            s.resources,
            s.overhead,
            s.resource_claims.map(|c| c.len()),
            p.status.and_then(|s| s.start_time),
        )
    }

    /// `doc` decoded the way `T` is, with the path of the error as serde_path_to_error gives
    /// it (the profile's arguments are read so).
    fn decode<T: serde::de::DeserializeOwned>(doc: &str) -> Result<T, String> {
        serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_str(doc))
            .map_err(|e| format!("{}: {}", e.path(), e.inner()))
    }

    /// Pods whose subtrees exercise what Go's decode (and so `k8s-openapi`'s) does that
    /// serde's derives would not: nulls for required fields, a field given twice, unknown
    /// fields, and the type errors and their words.
    #[test]
    fn the_spec_types_decode_as_the_apis_own() {
        let docs = [
            r#"{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}],"matchFields":[{"key":"metadata.name","operator":"In","values":["n1"]}]}]},"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":5,"preference":{"matchExpressions":[{"key":"disk","operator":"Exists"}]}}]},"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"a"},"matchExpressions":[{"key":"k","operator":"NotIn","values":["x"]}]},"topologyKey":"zone","namespaces":["n"],"namespaceSelector":{},"matchLabelKeys":["pod-template-hash"],"mismatchLabelKeys":["x"]}]},"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":3,"podAffinityTerm":{"topologyKey":"host"}}]}},"topologySpreadConstraints":[{"maxSkew":2,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"a"}},"matchLabelKeys":["h"],"minDomains":3,"nodeAffinityPolicy":"Honor","nodeTaintsPolicy":"Ignore"}],"schedulingGates":[{"name":"g"}],"resources":{"requests":{"cpu":"1"},"limits":{"memory":"1Gi"},"claims":[{"name":"c","request":"r"}]},"overhead":{"cpu":"250m"},"resourceClaims":[{"name":"c","resourceClaimName":"rc"}],"containers":[{"name":"a","ports":[{"containerPort":80,"hostPort":8080,"hostIP":"10.0.0.1","protocol":"UDP","name":"http"}],"resources":{"requests":{"cpu":"100m"}}}],"initContainers":[{"name":"i","resources":{"limits":{"cpu":"1"}}}],"volumes":[{"name":"a","persistentVolumeClaim":{"claimName":"c","readOnly":true}},{"name":"b","gcePersistentDisk":{"pdName":"pd","fsType":"ext4","partition":1,"readOnly":true}},{"name":"c","awsElasticBlockStore":{"volumeID":"v","partition":2}},{"name":"d","rbd":{"monitors":["m"],"image":"i","pool":"p","user":"u","keyring":"k","secretRef":{"name":"s"},"readOnly":false}},{"name":"e","iscsi":{"targetPortal":"t","iqn":"q","lun":1,"portals":["p"],"chapAuthDiscovery":true,"chapAuthSession":false,"initiatorName":"n","iscsiInterface":"default","secretRef":{"name":"s"}}},{"name":"f","azureDisk":{"diskName":"d","diskURI":"u","cachingMode":"None","kind":"Managed"}},{"name":"g","azureFile":{"secretName":"s","shareName":"h"}},{"name":"h","cinder":{"volumeID":"v","secretRef":{"name":"s"}}},{"name":"i","vsphereVolume":{"volumePath":"p","storagePolicyName":"n","storagePolicyID":"i"}},{"name":"j","portworxVolume":{"volumeID":"v"}},{"name":"k","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"]}}}}]},"status":{"startTime":"2025-01-02T03:04:05Z","containerStatuses":[{"name":"a","allocatedResources":{"cpu":"1"},"resources":{"requests":{"cpu":"1"}}}]}}"#,
            // Nulls, for optional and required fields alike, read as the zero value.
            r#"{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":null},"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":null,"preference":null}]},"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":null,"labelSelector":{"matchExpressions":[{"key":null,"operator":null,"values":null}]}}]},"podAntiAffinity":null},"topologySpreadConstraints":[{"maxSkew":null,"topologyKey":null,"whenUnsatisfiable":null,"labelSelector":null}],"schedulingGates":[{"name":null}],"resources":{"claims":[{"name":null}],"requests":null},"containers":[{"ports":[{"containerPort":null,"hostPort":null}]}],"volumes":[{"name":"r","rbd":{"monitors":null,"image":null,"pool":null}},{"name":"i","iscsi":{"lun":null,"iqn":null}},{"name":"p","persistentVolumeClaim":{"claimName":null}}]}}"#,
            // A field given twice keeps the last; unknown fields are skipped.
            r#"{"spec":{"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"weight":7,"preference":{},"extra":[1,{"x":null}]}]},"unknown":{"a":1}},"topologySpreadConstraints":[{"maxSkew":1,"maxSkew":4,"topologyKey":"a","topologyKey":"b","whenUnsatisfiable":"ScheduleAnyway"}],"containers":[{"ports":[{"containerPort":1,"hostPort":2,"hostPort":3}]}]}}"#,
            r#"{"spec":{"affinity":[]}}"#,
            r#"{"spec":{"affinity":{"nodeAffinity":"near"}}}"#,
            r#"{"spec":{"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{}}}}}"#,
            r#"{"spec":{"affinity":{"podAntiAffinity":[1]}}}"#,
            r#"{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":1}]}]}}}}}"#,
            r#"{"spec":{"affinity":{"podAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":"heavy"}]}}}}"#,
            r#"{"spec":{"topologySpreadConstraints":[{"maxSkew":"1"}]}}"#,
            r#"{"spec":{"topologySpreadConstraints":[{"labelSelector":{"matchLabels":[]}}]}}"#,
            r#"{"spec":{"resources":{"requests":{"cpu":1,"memory":0.5,"pods":-3,"x":1e3}}}}"#,
            r#"{"spec":{"resources":{"requests":{"cpu":true}}}}"#,
            r#"{"spec":{"overhead":{"cpu":{"v":1}}}}"#,
            r#"{"spec":{"schedulingGates":["g"]}}"#,
            r#"{"spec":{"resourceClaims":[{"name":5}]}}"#,
            r#"{"spec":{"containers":[{"ports":[{"hostPort":"80"}]}]}}"#,
            r#"{"spec":{"containers":[{"resources":{"claims":{}}}]}}"#,
            r#"{"spec":{"volumes":[{"name":"v","rbd":{"monitors":"m"}}]}}"#,
            r#"{"spec":{"volumes":[{"name":"v","iscsi":{"lun":"1"}}]}}"#,
            r#"{"spec":{"volumes":[{"name":"v","azureDisk":{"readOnly":"no"}}]}}"#,
            r#"{"spec":{"volumes":[{"name":"v","cinder":{"secretRef":"s"}}]}}"#,
            r#"{"spec":{"volumes":[{"name":"v","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":"RWO"}}}}]}}"#,
            r#"{"status":{"startTime":"yesterday"}}"#,
            r#"{"status":{"containerStatuses":[{"name":"a","resources":{"limits":{"cpu":true}}}]}}"#,
        ];
        for doc in docs {
            let native = decode::<PodParts>(doc).map(subtrees);
            let api = decode::<core::Pod>(doc).map(|p| subtrees(PodParts::from(p)));
            assert_eq!(native, api, "{doc}");
        }
    }

    /// A profile's `addedAffinity` and `defaultConstraints` are read as these types too: the
    /// same values, and errors with the same paths and words.
    #[test]
    fn profile_arguments_decode_as_the_apis_own() {
        let affinity = [
            r#"{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["n"]}]}]}}"#,
            r#"{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"In","values":"v"}]}]}}"#,
            r#"{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1.5}]}"#,
            r#"{"preferredDuringSchedulingIgnoredDuringExecution":{"weight":1}}"#,
            r#"[]"#,
            r#""x""#,
        ];
        for doc in affinity {
            let native = decode::<super::NodeAffinity>(doc);
            let api = decode::<core::NodeAffinity>(doc).map(super::NodeAffinity::from);
            assert_eq!(native, api, "{doc}");
        }
        let constraints = [
            r#"[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}]"#,
            r#"[{"maxSkew":1,"labelSelector":{"matchExpressions":[{"key":"a","operator":7}]}}]"#,
            r#"[{"minDomains":"2"}]"#,
            r#"[[1]]"#,
        ];
        for doc in constraints {
            let native = decode::<Vec<super::TopologySpreadConstraint>>(doc);
            let api = decode::<Vec<core::TopologySpreadConstraint>>(doc)
                .map(|l| l.into_iter().map(Into::into).collect());
            assert_eq!(native, api, "{doc}");
        }
    }
}
