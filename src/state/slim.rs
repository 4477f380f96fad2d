//! Decoding pods from JSON straight into the fields the compact [`Pod`] is built from,
//! skipping the parts of an API server's pod that no plugin looks at: `managedFields`,
//! annotations, most of the status. On 150,000 realistic pods that halves the bytes decoded
//! into typed values and avoids most allocations. A full `k8s-openapi` pod (a manifest's)
//! is moved into the same [`SlimPod`] form, so every compact pod is built by one function
//! ([`Pod::from_slim`]) from the same fields, whichever way it was decoded.
//!
//! A value that does not decode here is decoded again the full way by the caller, so error
//! messages stay those of the full type.

use std::borrow::Cow;
use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;
use serde::Deserialize;

use super::Pod;

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

/// One page of a pod list, decoded into compact pods. `on_continue` gets the page's continue
/// token as soon as the list's `metadata` is read (API servers write it before `items`), so
/// that the next page can be requested while this one's pods are still being decoded; it is
/// called once, with `None` at the end when there is no `metadata`, and never on an error
/// before that.
pub fn decode_pod_page(
    text: &str,
    on_continue: impl FnOnce(Option<String>),
) -> Result<Vec<Pod>, serde_json::Error> {
    decode_list_page(text, on_continue, SlimPod::into_pod)
}

/// One page of a list of any kind, as [`decode_pod_page`] reads pods: its items, each read as
/// `K` and made a `T` by `convert` as soon as it is read (so that a page's `K`s, which can be
/// large, are never all held: a `Vec` of 500 nodes grew into fresh memory on every page),
/// and, as soon as the list's `metadata` is read, its continue token. As kube's
/// `ObjectList`: metadata may be missing, items may be null but not missing.
pub fn decode_list_page<K, T>(
    text: &str,
    on_continue: impl FnOnce(Option<String>),
    convert: impl FnMut(K) -> T,
) -> Result<Vec<T>, serde_json::Error>
where
    K: serde::de::DeserializeOwned,
{
    use std::marker::PhantomData;

    use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

    /// The list: its metadata (the continue token) and its items.
    struct Page<F, C, K>(Option<F>, C, PhantomData<K>);

    impl<'de, F: FnOnce(Option<String>), C: FnMut(K) -> T, K: Deserialize<'de>, T>
        DeserializeSeed<'de> for Page<F, C, K>
    {
        type Value = Option<Vec<T>>;
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_struct("List", &["metadata", "items"], self)
        }
    }

    impl<'de, F: FnOnce(Option<String>), C: FnMut(K) -> T, K: Deserialize<'de>, T> Visitor<'de>
        for Page<F, C, K>
    {
        type Value = Option<Vec<T>>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("struct List")
        }
        fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut seen_metadata = false;
            let mut items: Option<Option<Vec<T>>> = None;
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                match key.as_ref() {
                    "metadata" => {
                        if seen_metadata {
                            return Err(de::Error::duplicate_field("metadata"));
                        }
                        seen_metadata = true;
                        let m: Option<meta::ListMeta> = map.next_value()?;
                        if let Some(f) = self.0.take() {
                            f(m.and_then(|m| m.continue_));
                        }
                    }
                    "items" => {
                        if items.is_some() {
                            return Err(de::Error::duplicate_field("items"));
                        }
                        items = Some(map.next_value_seed(Items(&mut self.1, PhantomData))?);
                    }
                    _ => {
                        map.next_value::<de::IgnoredAny>()?;
                    }
                }
            }
            let items = items.ok_or_else(|| de::Error::missing_field("items"))?;
            if let Some(f) = self.0.take() {
                f(None);
            }
            Ok(items)
        }
    }

    /// `items`: null, or a sequence of `K`s, each converted as it is read.
    struct Items<'c, C, K>(&'c mut C, PhantomData<K>);

    impl<'de, C: FnMut(K) -> T, K: Deserialize<'de>, T> DeserializeSeed<'de> for Items<'_, C, K> {
        type Value = Option<Vec<T>>;
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_option(self)
        }
    }

    impl<'de, C: FnMut(K) -> T, K: Deserialize<'de>, T> Visitor<'de> for Items<'_, C, K> {
        type Value = Option<Vec<T>>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a sequence")
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_seq(self)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(item) = seq.next_element::<K>()? {
                out.push((self.0)(item));
            }
            Ok(Some(out))
        }
    }

    let mut de = serde_json::Deserializer::from_str(text);
    let items = Page(Some(on_continue), convert, PhantomData::<K>).deserialize(&mut de)?;
    de.end()?;
    Ok(items.unwrap_or_default())
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

/// A pod with only what the evaluation reads.
#[derive(Deserialize)]
pub(crate) struct SlimPod {
    #[serde(default)]
    pub(crate) metadata: Option<Meta>,
    #[serde(default)]
    pub(crate) spec: Option<Spec>,
    #[serde(default)]
    pub(crate) status: Option<Status>,
}

impl SlimPod {
    pub(crate) fn into_pod(self) -> Pod {
        Pod::from_slim(self)
    }
}

/// The full type's fields the slim one keeps, moved: manifests, the incoming pod and pods the
/// slim decode refused are built into the compact model by the same code as slim pods.
impl From<core::Pod> for SlimPod {
    fn from(p: core::Pod) -> SlimPod {
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
        SlimPod {
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

/// One item of a JSON `List`, as far as one pass over it reads it.
pub(crate) enum ListItem<'a> {
    /// A pod, decoded slim.
    Pod(Box<Pod>),
    /// Any other kind (`""` when the item has none).
    Other(Cow<'a, str>),
    /// A pod the slim decode refused: the general decode gives the error (or the pod).
    PodRefused,
    /// Not an object with a string `kind`: the input is not the shape the fast path reads.
    Unreadable,
}

/// Reads one list item in a single pass. `kind` comes first in what API servers and kubectl
/// write, so a pod's `metadata`, `spec` and `status` decode straight into the slim types; a
/// part that comes before `kind` is kept as raw text and decoded once the kind is known.
pub(crate) fn decode_list_item(text: &str) -> ListItem<'_> {
    use serde::de::{self, DeserializeSeed, MapAccess, Visitor};

    #[derive(Clone, Copy)]
    enum Part {
        Metadata,
        Spec,
        Status,
    }

    /// A pod's parts; `Some(None)` is a part given as `null`.
    #[derive(Default)]
    struct Slots {
        metadata: Option<Option<Meta>>,
        spec: Option<Option<Spec>>,
        status: Option<Option<Status>>,
    }

    #[derive(Default)]
    struct Parts<'de> {
        kind: Option<Cow<'de, str>>,
        pod: Option<Slots>,
        early: Vec<(Part, &'de serde_json::value::RawValue)>,
    }

    /// Set while a pod's own part decodes: an error then is the pod's, not the item's shape.
    struct ItemSeed<'s> {
        in_pod: &'s mut bool,
    }

    impl<'de> DeserializeSeed<'de> for ItemSeed<'_> {
        type Value = Parts<'de>;
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Parts<'de>, D::Error> {
            d.deserialize_map(self)
        }
    }

    impl<'de> Visitor<'de> for ItemSeed<'_> {
        type Value = Parts<'de>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Parts<'de>, A::Error> {
            let mut parts = Parts::default();
            let mut kind_seen = false;
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                let part = match key.as_ref() {
                    "kind" => {
                        if kind_seen {
                            return Err(de::Error::duplicate_field("kind"));
                        }
                        kind_seen = true;
                        parts.kind = map.next_value()?;
                        if parts.kind.as_deref() == Some("Pod") {
                            parts.pod = Some(Slots::default());
                        }
                        continue;
                    }
                    "metadata" => Part::Metadata,
                    "spec" => Part::Spec,
                    "status" => Part::Status,
                    _ => {
                        map.next_value::<de::IgnoredAny>()?;
                        continue;
                    }
                };
                match (&mut parts.pod, kind_seen) {
                    (Some(pod), _) => {
                        *self.in_pod = true;
                        pod.set(part, &mut map)?;
                        *self.in_pod = false;
                    }
                    (None, false) => parts.early.push((part, map.next_value()?)),
                    (None, true) => {
                        map.next_value::<de::IgnoredAny>()?;
                    }
                }
            }
            Ok(parts)
        }
    }

    /// Fills a slot once: a part given twice is an error, as in the derived decoder.
    fn once<'de, T: Deserialize<'de>, E: de::Error>(
        slot: &mut Option<Option<T>>,
        name: &'static str,
        value: impl FnOnce() -> Result<Option<T>, E>,
    ) -> Result<(), E> {
        if slot.is_some() {
            return Err(de::Error::duplicate_field(name));
        }
        *slot = Some(value()?);
        Ok(())
    }

    impl Slots {
        fn set<'de, A: MapAccess<'de>>(&mut self, part: Part, map: &mut A) -> Result<(), A::Error> {
            match part {
                Part::Metadata => once(&mut self.metadata, "metadata", || map.next_value()),
                Part::Spec => once(&mut self.spec, "spec", || map.next_value()),
                Part::Status => once(&mut self.status, "status", || map.next_value()),
            }
        }

        fn set_raw(&mut self, part: Part, raw: &str) -> Result<(), serde_json::Error> {
            match part {
                Part::Metadata => {
                    once(&mut self.metadata, "metadata", || serde_json::from_str(raw))
                }
                Part::Spec => once(&mut self.spec, "spec", || serde_json::from_str(raw)),
                Part::Status => once(&mut self.status, "status", || serde_json::from_str(raw)),
            }
        }
    }

    let mut in_pod = false;
    let mut de = serde_json::Deserializer::from_str(text);
    let seed = ItemSeed {
        in_pod: &mut in_pod,
    };
    let parts = match seed.deserialize(&mut de).and_then(|p| de.end().map(|()| p)) {
        Ok(p) => p,
        Err(_) if in_pod => return ListItem::PodRefused,
        Err(_) => return ListItem::Unreadable,
    };
    let Some(mut pod) = parts.pod else {
        return ListItem::Other(parts.kind.unwrap_or_default());
    };
    for (part, raw) in parts.early {
        if pod.set_raw(part, raw.get()).is_err() {
            return ListItem::PodRefused;
        }
    }
    let slim = SlimPod {
        metadata: pod.metadata.flatten(),
        spec: pod.spec.flatten(),
        status: pod.status.flatten(),
    };
    ListItem::Pod(Box::new(slim.into_pod()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items are converted one by one, in order; `items` may be null but not missing or
    /// anything but a sequence, and errors read as those of serde's own `Option<Vec<_>>`.
    #[test]
    fn list_pages_convert_each_item_and_refuse_what_is_not_a_list() {
        let names = |text: &str| {
            let mut token = None;
            let mut seen = 0;
            decode_list_page(
                text,
                |t| token = Some(t),
                |ns: core::Namespace| {
                    seen += 1;
                    (seen, ns.metadata.name.unwrap_or_default())
                },
            )
            .map(|items| (items, token))
        };
        let (items, token) = names(
            r#"{"metadata":{"continue":"c-2"},"items":[{"metadata":{"name":"a"}},
                {"metadata":{"name":"b"}}],"kind":"NamespaceList"}"#,
        )
        .expect("a page");
        assert_eq!(items, [(1, "a".to_string()), (2, "b".to_string())]);
        assert_eq!(token, Some(Some("c-2".to_string())));
        let (items, token) = names(r#"{"items":null}"#).expect("null items");
        assert!(items.is_empty());
        assert_eq!(token, Some(None));

        let error = |text: &str| names(text).expect_err("not a list").to_string();
        assert_eq!(
            error(r#"{"metadata":{}}"#),
            "missing field `items` at line 1 column 15"
        );
        let serde_says = serde_json::from_str::<Option<Vec<core::Namespace>>>("{}")
            .expect_err("a map")
            .to_string();
        assert_eq!(
            error(r#"{"items":{}}"#).split(" at ").next(),
            serde_says.split(" at ").next()
        );
        assert!(error(r#"{"items":[1]}"#).contains("invalid type: integer `1`"));
    }

    /// The slim decode builds the same compact pod as the full one.
    #[test]
    fn slim_and_full_decodes_agree() {
        let text = r#"{"metadata":{"name":"a","namespace":"ns","labels":{"app":"x"},
            "deletionTimestamp":"2025-01-01T00:00:00Z","managedFields":[{"manager":"m"}],
            "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"x-1","uid":"u","controller":true}]},
          "spec":{"nodeName":"n1","containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}],
            "affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
              {"labelSelector":{"matchLabels":{"app":"x"}},"topologyKey":"zone"}]}}},
          "status":{"phase":"Running","conditions":[{"type":"PodResizePending","status":"True","reason":"Infeasible"}],
            "containerStatuses":[{"name":"c","image":"i","imageID":"","ready":true,"restartCount":0,
              "allocatedResources":{"cpu":"2"},"resources":{"requests":{"cpu":"3"}}}]}}"#;
        // Every spec field the compact model reads, next to fields it skips.
        let every = r#"{"metadata":{"name":"b","labels":{"app":"y"}},
          "spec":{"nodeName":"n2","schedulerName":"other","priority":1000,"preemptionPolicy":"Never",
            "nodeSelector":{"disk":"ssd"},
            "tolerations":[{"key":"k","operator":"Equal","value":"v","effect":"NoSchedule","tolerationSeconds":5}],
            "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
                {"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}]},
              "preferredDuringSchedulingIgnoredDuringExecution":[{"weight":3,"preference":{"matchFields":[
                {"key":"metadata.name","operator":"NotIn","values":["n9"]}]}}]},
              "podAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":7,"podAffinityTerm":{
                "labelSelector":{"matchExpressions":[{"key":"app","operator":"Exists"}]},
                "namespaceSelector":{"matchLabels":{"team":"t"}},"namespaces":["n"],"topologyKey":"zone"}}]}},
            "overhead":{"cpu":"250m","memory":"120Mi"},
            "resources":{"requests":{"cpu":"2","memory":"1Gi"},"limits":{"cpu":"4"}},
            "resourceClaims":[{"name":"gpu","resourceClaimName":"gpu-claim"}],
            "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule",
              "labelSelector":{"matchLabels":{"app":"y"}},"matchLabelKeys":["pod-template-hash"],"minDomains":2,
              "nodeAffinityPolicy":"Honor","nodeTaintsPolicy":"Ignore"}],
            "initContainers":[
              {"name":"init","image":"busybox","resources":{"requests":{"cpu":"3","memory":"64Mi"}},
               "ports":[{"containerPort":1,"hostPort":7000}]},
              {"name":"sidecar","image":"envoy","restartPolicy":"Always",
               "resources":{"requests":{"cpu":"100m","example.com/dev":"1"}},
               "ports":[{"containerPort":9901,"hostPort":9901,"hostIP":"10.0.0.1","protocol":"UDP"}],
               "env":[{"name":"X","value":"1"}],"readinessProbe":{"httpGet":{"path":"/","port":9901}}}],
            "containers":[
              {"name":"main","image":"nginx","resources":{"requests":{"cpu":"500m","hugepages-2Mi":"4Mi"},"limits":{"memory":"1Gi"}},
               "ports":[{"containerPort":80,"hostPort":8080},{"containerPort":81,"hostPort":0},{"containerPort":82}],
               "env":[{"name":"A","valueFrom":{"fieldRef":{"fieldPath":"status.podIP"}}}],
               "volumeMounts":[{"name":"data","mountPath":"/data"}],"securityContext":{"runAsUser":1}},
              {"name":"nothing"}],
            "volumes":[
              {"name":"data","persistentVolumeClaim":{"claimName":"data"}},
              {"name":"eph","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"]}}}},
              {"name":"gce","gcePersistentDisk":{"pdName":"pd"}},
              {"name":"ebs","awsElasticBlockStore":{"volumeID":"vol"}},
              {"name":"rbd","rbd":{"monitors":["m"],"image":"i"}},
              {"name":"iscsi","iscsi":{"targetPortal":"t","iqn":"q","lun":0}},
              {"name":"ad","azureDisk":{"diskName":"d","diskURI":"u"}},
              {"name":"af","azureFile":{"secretName":"s","shareName":"s"}},
              {"name":"cinder","cinder":{"volumeID":"c"}},
              {"name":"vs","vsphereVolume":{"volumePath":"p"}},
              {"name":"px","portworxVolume":{"volumeID":"x"}},
              {"name":"token","projected":{"sources":[{"serviceAccountToken":{"path":"token"}}]}},
              {"name":"cm","configMap":{"name":"cm"}}]},
          "status":{"phase":"Pending","initContainerStatuses":[{"name":"sidecar","image":"i","imageID":"",
            "ready":true,"restartCount":0,"allocatedResources":{"cpu":"200m"}}]}}"#;
        // Each volume kind alone, so that one kind cannot hide another's flag.
        let volumes = [
            "persistentVolumeClaim\":{\"claimName\":\"d\"}",
            "ephemeral\":{}",
            "gcePersistentDisk\":{\"pdName\":\"pd\"}",
            "awsElasticBlockStore\":{\"volumeID\":\"v\"}",
            "rbd\":{\"monitors\":[],\"image\":\"i\"}",
            "iscsi\":{\"targetPortal\":\"t\",\"iqn\":\"q\",\"lun\":0}",
            "azureDisk\":{\"diskName\":\"d\",\"diskURI\":\"u\"}",
            "azureFile\":{\"secretName\":\"s\",\"shareName\":\"s\"}",
            "cinder\":{\"volumeID\":\"c\"}",
            "vsphereVolume\":{\"volumePath\":\"p\"}",
            "portworxVolume\":{\"volumeID\":\"x\"}",
        ]
        .map(|v| format!(r#"{{"spec":{{"containers":[],"volumes":[{{"name":"v","{v}}}]}}}}"#));
        let texts = [text, every, r#"{"spec":{}}"#, "{}"];
        for text in texts
            .iter()
            .copied()
            .chain(volumes.iter().map(String::as_str))
        {
            let full: core::Pod = serde_json::from_str(text).unwrap();
            let slim: SlimPod = serde_json::from_str(text).unwrap();
            let (a, b) = (Pod::from_api(&full), slim.into_pod());
            assert_eq!(format!("{a:?}"), format!("{b:?}"), "{text}");
        }
    }

    /// Kind anywhere in the item: parts before it are decoded afterwards, the same way.
    #[test]
    fn list_items_are_read_whatever_the_key_order() {
        let pod = |text: &str| match decode_list_item(text) {
            ListItem::Pod(p) => format!("{p:?}"),
            _ => panic!("not read as a pod: {text}"),
        };
        let first = r#"{"kind":"Pod","metadata":{"name":"a","labels":{"x":"y"}},
            "spec":{"nodeName":"n","containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]},
            "status":{"phase":"Running"}}"#;
        let last = r#"{"metadata":{"name":"a","labels":{"x":"y"}},
            "spec":{"nodeName":"n","containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]},
            "status":{"phase":"Running"},"apiVersion":"v1","kind":"Pod"}"#;
        let middle = r#"{"metadata":{"name":"a","labels":{"x":"y"}},"kind":"Pod",
            "spec":{"nodeName":"n","containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]},
            "status":{"phase":"Running"}}"#;
        let full: core::Pod = serde_json::from_str(first).unwrap();
        let expected = format!("{:?}", Pod::from_api(&full));
        for text in [first, last, middle] {
            assert_eq!(pod(text), expected, "{text}");
        }
        assert!(
            matches!(decode_list_item(r#"{"metadata":{},"kind":"Node"}"#),
            ListItem::Other(k) if k == "Node")
        );
        assert!(
            matches!(decode_list_item(r#"{"metadata":{}}"#), ListItem::Other(k) if k.is_empty())
        );
        for refused in [
            r#"{"kind":"Pod","spec":{"containers":"no"}}"#,
            r#"{"spec":{"containers":"no"},"kind":"Pod"}"#,
            r#"{"kind":"Pod","spec":{},"spec":{}}"#,
            r#"{"spec":{},"kind":"Pod","spec":{}}"#,
        ] {
            assert!(
                matches!(decode_list_item(refused), ListItem::PodRefused),
                "{refused}"
            );
        }
        for unreadable in [r#"[]"#, r#"{"kind":3}"#, r#"{"kind":"Pod","kind":"Pod"}"#] {
            assert!(
                matches!(decode_list_item(unreadable), ListItem::Unreadable),
                "{unreadable}"
            );
        }
    }
}
