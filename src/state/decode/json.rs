//! The JSON front-end: pages of a list and the items of a snapshot read straight into the
//! parts the model is built from, by the parts' own serde derives (`parts.rs`), each item
//! built as soon as it is read.
//!
//! A value that does not decode here is decoded again the full way by the caller, so error
//! messages stay those of the full type.

use std::borrow::Cow;

use serde::Deserialize;

use crate::state::parts::{Meta, PodParts, Spec, Status};
use crate::state::pod::Pod;
use crate::state::spec::wire;

wire! {
    /// A list's `metadata`: the continue token, the other fields checked for their type as
    /// the API's decode checks them.
    struct ListMeta as "ListMeta" {
        continue_: Option<String> = "continue",
        _remaining_item_count: Option<i64> = "remainingItemCount",
        _resource_version: Option<String> = "resourceVersion",
        _self_link: Option<String> = "selfLink",
    }
}

/// One page of a pod list, decoded into compact pods. `on_continue` gets the page's continue
/// token as soon as the list's `metadata` is read (API servers write it before `items`), so
/// that the next page can be requested while this one's pods are still being decoded; it is
/// called once, with `None` at the end when there is no `metadata`, and never on an error
/// before that.
pub fn pod_page(
    text: &str,
    on_continue: impl FnOnce(Option<String>),
) -> Result<Vec<Pod>, serde_json::Error> {
    list_page(text, on_continue, Pod::from_parts)
}

/// One page of a list of any kind, as [`pod_page`] reads pods: its items, each read as
/// `K` and made a `T` by `convert` as soon as it is read (so that a page's `K`s, which can be
/// large, are never all held: a `Vec` of a page's nodes grew into fresh memory on every
/// page),
/// and, as soon as the list's `metadata` is read, its continue token. As kube's
/// `ObjectList`: metadata may be missing, items may be null but not missing.
pub fn list_page<K, T>(
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
                        let m: Option<ListMeta> = map.next_value()?;
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

/// One item of a JSON `List`, as far as one pass over it reads it.
pub(crate) enum ListItem<'a> {
    /// A pod, read into its parts and built.
    Pod(Box<Pod>),
    /// Any other kind (`""` when the item has none).
    Other(Cow<'a, str>),
    /// A pod whose parts did not decode: the general decode gives the error (or the pod).
    PodRefused,
    /// Not an object with a string `kind`: the input is not the shape the fast path reads.
    Unreadable,
}

/// Reads one list item in a single pass. `kind` comes first in what API servers and kubectl
/// write, so a pod's `metadata`, `spec` and `status` decode straight into its parts; a
/// part that comes before `kind` is kept as raw text and decoded once the kind is known.
pub(crate) fn list_item(text: &str) -> ListItem<'_> {
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
    ListItem::Pod(Box::new(Pod::from_snapshot(PodParts {
        metadata: pod.metadata.flatten(),
        spec: pod.spec.flatten(),
        status: pod.status.flatten(),
    })))
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1 as core;

    use super::*;

    /// Items are converted one by one, in order; `items` may be null but not missing or
    /// anything but a sequence, and errors read as those of serde's own `Option<Vec<_>>`.
    #[test]
    fn list_pages_convert_each_item_and_refuse_what_is_not_a_list() {
        let names = |text: &str| {
            let mut token = None;
            let mut seen = 0;
            list_page(
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

    /// A pod read into its parts builds the same compact pod as the full API object.
    #[test]
    fn parts_and_full_decodes_agree() {
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
            let parts: PodParts = serde_json::from_str(text).unwrap();
            let (a, b) = (Pod::from_api(&full), Pod::from_parts(parts));
            assert_eq!(format!("{a:?}"), format!("{b:?}"), "{text}");
        }
    }

    /// Kind anywhere in the item: parts before it are decoded afterwards, the same way.
    #[test]
    fn list_items_are_read_whatever_the_key_order() {
        let pod = |text: &str| match list_item(text) {
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
        assert!(matches!(list_item(r#"{"metadata":{},"kind":"Node"}"#),
            ListItem::Other(k) if k == "Node"));
        assert!(matches!(list_item(r#"{"metadata":{}}"#), ListItem::Other(k) if k.is_empty()));
        for refused in [
            r#"{"kind":"Pod","spec":{"containers":"no"}}"#,
            r#"{"spec":{"containers":"no"},"kind":"Pod"}"#,
            r#"{"kind":"Pod","spec":{},"spec":{}}"#,
            r#"{"spec":{},"kind":"Pod","spec":{}}"#,
        ] {
            assert!(
                matches!(list_item(refused), ListItem::PodRefused),
                "{refused}"
            );
        }
        for unreadable in [r#"[]"#, r#"{"kind":3}"#, r#"{"kind":"Pod","kind":"Pod"}"#] {
            assert!(
                matches!(list_item(unreadable), ListItem::Unreadable),
                "{unreadable}"
            );
        }
    }
}
