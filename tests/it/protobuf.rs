//! Pod and node lists in protobuf decode to the same compact pods and nodes as in JSON. The bytes
//! come from `kubectl_affinity_testkit::pb_encode`, which encodes through `k8s-pb` (generated from
//! upstream's `.proto` files), so a wrong field number in the tool's own messages shows here.
//! The pods and nodes are every one of the oracle corpus and of a generated cluster.

use k8s_openapi::api::core::v1 as core;
use k8s_pb::api::core::v1 as pbcore;
use kubectl_affinity::state::decode::json::{
    list_page as decode_list_page, pod_page as decode_pod_page,
};
use kubectl_affinity::state::decode::protobuf::{
    ListStart, ProtobufError, list_start, node_frames as decode_node_frames_protobuf,
    pod_frames as decode_pod_frames_protobuf, pod_page as decode_pod_page_protobuf,
    status as decode_status,
};
use kubectl_affinity::state::resources::ImageNames;
use kubectl_affinity::state::{Node, Pod};
use prost::Message;
use serde_json::{Value, json};

use crate::support::{self, cluster_gen, pb_encode};

/// Every object of `kind` (`Pod` or `Node`) in the oracle corpus, each case's incoming pod
/// first for pods, and in a 20-node generated cluster, named for the failure messages.
fn corpus<T: serde::de::DeserializeOwned>(kind: &str, pods_per_node: usize) -> Vec<(String, T)> {
    let label = kind.to_lowercase();
    let mut out = Vec::new();
    let mut folders: Vec<_> = std::fs::read_dir(support::oracle::oracle_dir())
        .expect("oracle dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().to_string())
        .collect();
    folders.sort();
    for folder in folders {
        for case in support::oracle::load_cases(&folder) {
            let incoming = (kind == "Pod").then(|| case.doc["pod"].clone());
            let existing = case.snapshot()["items"]
                .as_array()
                .expect("items")
                .iter()
                .filter(|i| i["kind"] == kind)
                .cloned()
                .collect::<Vec<_>>();
            for (i, v) in incoming.into_iter().chain(existing).enumerate() {
                let object = serde_json::from_value(v)
                    .unwrap_or_else(|e| panic!("{} {label} {i}: {e}", case.name()));
                out.push((format!("{} {label} {i}", case.name()), object));
            }
        }
    }
    let size = cluster_gen::Size {
        nodes: 20,
        pods_per_node,
    };
    let plural = format!("{label}s");
    cluster_gen::objects(size, |p, v| {
        if p == plural {
            let name = format!("generated {}", v["metadata"]["name"]);
            out.push((
                name,
                serde_json::from_value(v).map_err(std::io::Error::other)?,
            ));
        }
        Ok(())
    })
    .expect("generate");
    out
}

/// Every pod of the oracle corpus (incoming and existing) and of a 20-node generated cluster.
fn pods() -> Vec<(String, core::Pod)> {
    corpus("Pod", 30)
}

fn protobuf_page(pods: &[&core::Pod], continue_: Option<&str>) -> Vec<u8> {
    let bytes: Vec<Vec<u8>> = pods.iter().map(|p| pb_encode::pod_bytes(p)).collect();
    let items: Vec<&[u8]> = bytes.iter().map(Vec::as_slice).collect();
    pb_encode::pod_list_body(&items, "1000", continue_, continue_.map(|_| 7))
}

fn json_page(pods: &[&core::Pod]) -> String {
    json!({"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "1000"},
           "items": pods})
    .to_string()
}

#[test]
fn protobuf_pages_decode_to_the_same_pods_as_json() {
    let all = pods();
    assert!(all.len() > 1000, "only {} pods", all.len());
    let mut failures = Vec::new();
    for chunk in all.chunks(500) {
        let full: Vec<&core::Pod> = chunk.iter().map(|(_, p)| p).collect();
        let mut token = None;
        let from_pb =
            decode_pod_page_protobuf(&protobuf_page(&full, Some("c-500")), |t| token = Some(t))
                .expect("protobuf page");
        assert_eq!(token, Some(Some("c-500".to_string())));
        let from_json = decode_pod_page(&json_page(&full), |_| {}).expect("json page");
        assert_eq!(from_pb.len(), chunk.len());
        for (((name, api), pb), js) in chunk.iter().zip(&from_pb).zip(&from_json) {
            let expected = format!("{:?}", Pod::from_api(api));
            assert_eq!(format!("{js:?}"), expected, "{name}: JSON page");
            if format!("{pb:?}") != expected {
                failures.push(format!("{name}:\n  protobuf {pb:?}\n  expected {expected}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} pods differ:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

/// Go writes a non-pointer field even when it holds its zero value; JSON's `omitempty` leaves
/// it out. Both must read the same.
#[test]
fn zero_values_written_by_go_read_as_absent() {
    let api: core::Pod = serde_json::from_value(json!({
        "metadata": {"name": "p", "namespace": "ns", "ownerReferences": [
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u", "controller": true}]},
        "spec": {
            "containers": [{"name": "c", "ports": [{"containerPort": 80}],
                            "resources": {"requests": {"cpu": "1"}, "claims": [{"name": "gpu"}]}}],
            "tolerations": [{"operator": "Exists"}],
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Exists"}]}]}}}
        },
        "status": {"conditions": [{"type": "PodScheduled", "status": "False"}]}
    }))
    .expect("pod");
    let plain = pb_encode::pod(&api);
    let mut zeros = plain.clone();
    let some = || Some(String::new());
    let spec = zeros.spec.as_mut().expect("spec");
    spec.node_name = some();
    spec.scheduler_name = some();
    spec.node_selector.clear();
    let t = &mut spec.tolerations[0];
    (t.key, t.value, t.effect) = (some(), some(), some());
    let c = &mut spec.containers[0];
    c.image = some();
    let port = &mut c.ports[0];
    (port.name, port.protocol, port.host_ip, port.host_port) = (some(), some(), some(), Some(0));
    c.resources.as_mut().expect("resources").claims[0].request = some();
    let status = zeros.status.as_mut().expect("status");
    status.phase = some();
    status.conditions[0].reason = some();
    let page = |p: &k8s_pb::api::core::v1::Pod| {
        let bytes = p.encode_to_vec();
        pb_encode::pod_list_body(&[&bytes], "1", None, None)
    };
    let decode = |body: &[u8]| {
        let pods = decode_pod_page_protobuf(body, |_| {}).expect("decode");
        format!("{:?}", pods[0])
    };
    let expected = format!("{:?}", Pod::from_api(&api));
    assert_eq!(decode(&page(&plain)), expected);
    assert_eq!(decode(&page(&zeros)), expected);
    // A set value is read, so the zeros above were really written.
    zeros.spec.as_mut().expect("spec").node_name = Some("n1".to_string());
    assert_ne!(decode(&page(&zeros)), expected);
}

#[test]
fn bodies_that_are_not_a_pod_list_are_refused_with_the_reason() {
    let api: core::Pod =
        serde_json::from_value(json!({"metadata": {"name": "p"}, "spec": {"containers": []}}))
            .expect("pod");
    let good = protobuf_page(&[&api], None);
    let err = |body: &[u8]| decode_pod_page_protobuf(body, |_| {}).expect_err("refused");

    assert!(matches!(
        err(b"{\"kind\":\"PodList\"}"),
        ProtobufError::NoMagic
    ));
    let status = pb_encode::envelope("v1", "Status", &[]);
    let e = err(&status);
    assert!(matches!(e, ProtobufError::WrongKind { .. }), "{e:?}");
    assert_eq!(e.to_string(), "the body holds a Status, not a PodList");

    // Cut inside the list (as a dropped connection cuts it): an error that says the body ends
    // early, never a panic.
    // (A cut after the list's last byte, in the envelope's trailing fields, loses nothing.)
    let whole = format!(
        "{:?}",
        decode_pod_page_protobuf(&good, |_| {}).expect("whole")
    );
    let mut truncated = 0;
    for cut in good.len() / 2..good.len() {
        match decode_pod_page_protobuf(&good[..cut], |_| {}) {
            Err(e) => {
                assert!(e.is_truncated(), "cut at {cut} of {}: {e}", good.len());
                truncated += 1;
            }
            Ok(pods) => assert_eq!(format!("{pods:?}"), whole, "cut at {cut}"),
        }
    }
    assert!(
        truncated > good.len() / 3,
        "{truncated} cuts of {}",
        good.len()
    );
    assert!(!err(b"k8s\x00\x0a\x02\xff\xff").is_truncated());

    // A compressed object (API servers never send one) is named, not misread.
    let envelope = k8s_pb::apimachinery::pkg::runtime::Unknown {
        type_meta: Some(k8s_pb::apimachinery::pkg::runtime::TypeMeta {
            api_version: Some("v1".into()),
            kind: Some("PodList".into()),
        }),
        raw: Some(vec![]),
        content_encoding: Some("gzip".into()),
        content_type: None,
    };
    let mut body = b"k8s\x00".to_vec();
    body.extend(envelope.encode_to_vec());
    assert!(matches!(err(&body), ProtobufError::ContentEncoding(e) if e == "gzip"));
}

/// Live pages are asked for as soon as the page before shows its continue token in its first
/// bytes: every prefix of a page reads as "more bytes needed" until the list's metadata is
/// whole, and from then on as the token the whole decode gives.
#[test]
fn the_continue_token_is_read_from_a_pages_first_bytes() {
    let all = pods();
    let some: Vec<&core::Pod> = all.iter().take(3).map(|(_, p)| p).collect();
    for token in [Some("c-500"), None] {
        let body = protobuf_page(&some, token);
        let mut whole = None;
        decode_pod_page_protobuf(&body, |t| whole = Some(t)).expect("whole page");
        let whole = whole.expect("the decode gives the token");
        assert_eq!(whole.as_deref(), token);
        let mut first = None;
        for cut in 0..=body.len() {
            match list_start(&body[..cut], "PodList") {
                ListStart::NeedMore => {
                    assert!(first.is_none(), "cut {cut}: NeedMore after a token")
                }
                ListStart::Continue(t) => {
                    assert_eq!(t, whole, "cut {cut}");
                    first.get_or_insert(cut);
                }
                ListStart::Unknown => panic!("cut {cut}: a good page read as Unknown"),
            }
        }
        // Read within the first bytes: the envelope's kind and the list's metadata.
        let first = first.expect("read before the end");
        assert!(first < 100, "the token read only at byte {first}");
    }

    // Another kind, another encoding, or items before the metadata: left to the whole decode.
    let nodes = nodes();
    let node = pb_encode::node(&nodes[0].1);
    let node_page = node_page(&[node], Some("c-1"));
    assert_eq!(list_start(&node_page, "PodList"), ListStart::Unknown);
    assert_eq!(
        list_start(&node_page, "NodeList"),
        ListStart::Continue(Some("c-1".into()))
    );
    assert_eq!(
        list_start(b"{\"kind\":\"PodList\"}", "PodList"),
        ListStart::Unknown
    );
    assert_eq!(list_start(b"k8", "PodList"), ListStart::NeedMore);
    let meta = k8s_pb::apimachinery::pkg::apis::meta::v1::ListMeta {
        r#continue: Some("c-500".into()),
        ..Default::default()
    }
    .encode_to_vec();
    let item = pb_encode::pod_bytes(some[0]);
    let mut raw = Vec::new();
    for (tag, bytes) in [(2, &item), (1, &meta)] {
        prost::encoding::encode_key(tag, prost::encoding::WireType::LengthDelimited, &mut raw);
        prost::encoding::encode_varint(bytes.len() as u64, &mut raw);
        raw.extend_from_slice(bytes);
    }
    let items_first = pb_encode::envelope("v1", "PodList", &raw);
    assert_eq!(list_start(&items_first, "PodList"), ListStart::Unknown);
    // The whole decode still reads it (protobuf does not fix the order of fields).
    let mut token = None;
    let read = decode_pod_page_protobuf(&items_first, |t| token = Some(t)).expect("decoded");
    assert_eq!((read.len(), token), (1, Some(Some("c-500".to_string()))));
}

#[test]
fn error_statuses_in_protobuf_are_read() {
    use k8s_pb::apimachinery::pkg::apis::meta::v1 as pb;
    let status = pb::Status {
        metadata: Some(pb::ListMeta::default()),
        status: Some("Failure".into()),
        message: Some("pods is forbidden: User \"x\" cannot list".into()),
        reason: Some("Forbidden".into()),
        details: Some(pb::StatusDetails {
            retry_after_seconds: Some(3),
            ..Default::default()
        }),
        code: Some(403),
    };
    let body = pb_encode::envelope("v1", "Status", &status.encode_to_vec());
    let s = decode_status(&body).expect("status");
    assert_eq!(s.code, 403);
    assert_eq!(s.reason, "Forbidden");
    assert_eq!(s.status, "Failure");
    assert_eq!(s.message, "pods is forbidden: User \"x\" cannot list");
    assert_eq!(s.retry_after_seconds, 3);
    let list = protobuf_page(&[], None);
    assert!(matches!(
        decode_status(&list),
        Err(ProtobufError::WrongKind { .. })
    ));
}

/// The generated cluster's pods are as large as a real server's: protobuf is the smaller
/// encoding, which is the point of asking for it.
#[test]
fn protobuf_pages_are_smaller_than_json() {
    let all: Vec<core::Pod> = pods()
        .into_iter()
        .filter(|(n, _)| n.starts_with("generated"))
        .map(|(_, p)| p)
        .collect();
    let refs: Vec<&core::Pod> = all.iter().collect();
    let pb = protobuf_page(&refs, None).len();
    let js = json_page(&refs).len();
    assert!(pb * 10 < js * 8, "protobuf {pb} bytes, JSON {js} bytes");
    let _: Value = serde_json::from_str(&json_page(&refs)).expect("json");
}

/// A page's replicas share the parts built from equal bytes (`protobuf::shared`). Pods that
/// differ from a base pod in one field the build reads must each decode as they would alone;
/// pods listed after it that differ only in per-pod fields nothing reads (its replicas)
/// share the base's built parts.
#[test]
fn replicas_share_built_parts_and_differences_in_read_fields_are_never_shared() {
    let base = json!({
        "metadata": {"name": "web-1", "namespace": "shop", "uid": "u-1",
            "labels": {"app": "web", "pod-template-hash": "abc"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc",
                                 "uid": "rs-1", "controller": true, "blockOwnerDeletion": true}]},
        "spec": {
            "nodeName": "n1", "hostname": "web-1", "schedulerName": "default-scheduler",
            "priority": 10, "preemptionPolicy": "PreemptLowerPriority",
            "nodeSelector": {"disk": "ssd"},
            "overhead": {"cpu": "10m"},
            "volumes": [{"name": "kube-api-access-aaaaa", "projected": {"sources": []}},
                        {"name": "data", "persistentVolumeClaim": {"claimName": "data-web-1"}}],
            "initContainers": [{"name": "proxy", "image": "envoy:1", "restartPolicy": "Always",
                                "ports": [{"containerPort": 15000, "hostPort": 15000}]}],
            "containers": [{"name": "web", "image": "nginx:1",
                "env": [{"name": "POD", "value": "web-1"}],
                "volumeMounts": [{"name": "kube-api-access-aaaaa", "mountPath": "/var/run/secrets"}],
                "ports": [{"containerPort": 80, "hostPort": 8080, "protocol": "TCP"}],
                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}],
            "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                             "effect": "NoExecute", "tolerationSeconds": 300}],
            "affinity": {
                "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}},
                "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}},
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
                "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "web"}}}],
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu-t"}]
        },
        "status": {"phase": "Running", "podIP": "10.0.0.1", "startTime": "2025-01-15T09:00:00Z",
            "conditions": [{"type": "PodScheduled", "status": "True",
                            "lastTransitionTime": "2025-01-15T09:00:00Z"},
                           {"type": "PodResizePending", "status": "True", "reason": "Deferred"}],
            "containerStatuses": [{"name": "web", "ready": true, "restartCount": 0, "image": "nginx:1",
                "imageID": "sha", "containerID": "containerd://1",
                "allocatedResources": {"cpu": "50m", "memory": "64Mi"}}]}
    });
    let with = |pointer: &str, value: Value| {
        let mut v = base.clone();
        let (parent, field) = pointer.rsplit_once('/').expect("pointer");
        let parent = v.pointer_mut(parent).unwrap_or_else(|| panic!("{pointer}"));
        match parent {
            Value::Object(m) => {
                m.insert(field.to_string(), value);
            }
            Value::Array(a) => a[field.parse::<usize>().expect("index")] = value,
            _ => panic!("{pointer}"),
        }
        (pointer.to_string(), v)
    };
    // Each of these changes what the compact pod holds.
    let read = [
        with("/metadata/name", json!("web-2")),
        with("/metadata/namespace", json!("other")),
        with("/metadata/labels/app", json!("api")),
        with("/metadata/deletionTimestamp", json!("2025-01-15T10:00:00Z")),
        with("/metadata/ownerReferences/0/name", json!("web-def")),
        with("/metadata/ownerReferences/0/controller", json!(false)),
        with("/spec/nodeName", json!("n2")),
        with("/spec/schedulerName", json!("other-scheduler")),
        with("/spec/priority", json!(20)),
        with("/spec/preemptionPolicy", json!("Never")),
        with("/spec/nodeSelector/disk", json!("hdd")),
        with("/spec/overhead/cpu", json!("20m")),
        with("/spec/volumes/1", json!({"name": "data", "emptyDir": {}})),
        with("/spec/initContainers/0/restartPolicy", json!("OnFailure")),
        with("/spec/initContainers/0/image", json!("envoy:2")),
        with("/spec/containers/0/image", json!("nginx:2")),
        with("/spec/containers/0/ports/0/hostPort", json!(8081)),
        with("/spec/containers/0/resources/requests/cpu", json!("200m")),
        with("/spec/tolerations/0/effect", json!("NoSchedule")),
        with(
            "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchExpressions/0/values",
            json!(["b"]),
        ),
        with(
            "/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/0/topologyKey",
            json!("zone"),
        ),
        with("/spec/topologySpreadConstraints/0/maxSkew", json!(2)),
        with("/spec/resourceClaims", json!([])),
        with("/status/phase", json!("Pending")),
        // A resize down to the allocated 50m that is infeasible: the spec's 100m no longer
        // counts.
        with("/status/conditions/1/reason", json!("Infeasible")),
        with(
            "/status/containerStatuses/0/allocatedResources/cpu",
            json!("300m"),
        ),
    ];
    // Per-pod values nothing reads.
    let unread = [
        with("/metadata/uid", json!("u-2")),
        with("/metadata/ownerReferences/0/uid", json!("rs-2")),
        with("/spec/hostname", json!("web-2")),
        with("/spec/volumes/0/name", json!("kube-api-access-bbbbb")),
        with(
            "/spec/containers/0/volumeMounts/0/name",
            json!("kube-api-access-bbbbb"),
        ),
        with("/spec/containers/0/env/0/value", json!("web-2")),
        with("/status/podIP", json!("10.0.0.2")),
        with(
            "/status/conditions/0/lastTransitionTime",
            json!("2025-01-15T09:30:00Z"),
        ),
        with(
            "/status/containerStatuses/0/containerID",
            json!("containerd://2"),
        ),
        with("/status/containerStatuses/0/restartCount", json!(3)),
    ];
    let api = |v: &Value| -> core::Pod { serde_json::from_value(v.clone()).expect("pod") };
    let mut page = vec![("base".to_string(), base.clone())];
    page.extend(unread.iter().cloned());
    page.extend(read.iter().cloned());
    let pods: Vec<core::Pod> = page.iter().map(|(_, v)| api(v)).collect();
    let refs: Vec<&core::Pod> = pods.iter().collect();
    let decoded = decode_pod_page_protobuf(&protobuf_page(&refs, None), |_| {}).expect("page");
    let base_built = format!("{:?}", Pod::from_api(&pods[0]));
    for (((name, _), api), pb) in page.iter().zip(&pods).zip(&decoded) {
        let expected = format!("{:?}", Pod::from_api(api));
        assert_eq!(format!("{pb:?}"), expected, "{name}");
    }
    for (i, (name, _)) in read.iter().enumerate() {
        let built = format!("{:?}", Pod::from_api(&pods[1 + unread.len() + i]));
        assert_ne!(built, base_built, "{name} changes nothing the pod holds");
    }
    for (i, (name, _)) in unread.iter().enumerate() {
        let pb = &decoded[1 + i];
        // Its spec's parts: a replica holds the base's template, not a copy of its own.
        assert!(
            std::sync::Arc::ptr_eq(&pb.template, &decoded[0].template),
            "{name}: not built from the base's template"
        );
    }
}

/// A pod not written as API servers write it is decoded whole, by protobuf's rules: a part
/// given twice is merged (its maps too), and a read field of another wire type is an error.
/// The replicas around it still share their parts correctly.
#[test]
fn pods_written_unusually_are_decoded_whole_by_protobufs_rules() {
    let api = |labels: Value| -> core::Pod {
        serde_json::from_value(json!({
            "metadata": {"name": "p", "namespace": "ns", "labels": labels},
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "i"}]}
        }))
        .expect("pod")
    };
    let plain = api(json!({"app": "a"}));
    let merged = api(json!({"app": "a", "extra": "1"}));
    // `metadata` twice: the second adds a label.
    let mut twice = pb_encode::pod_bytes(&plain);
    let extra = k8s_pb::api::core::v1::Pod {
        metadata: Some(k8s_pb::apimachinery::pkg::apis::meta::v1::ObjectMeta {
            labels: [("extra".to_string(), "1".to_string())].into(),
            ..Default::default()
        }),
        ..Default::default()
    };
    twice.extend(extra.encode_to_vec());
    let plain_bytes = pb_encode::pod_bytes(&plain);
    let page = pb_encode::pod_list_body(&[&plain_bytes, &twice, &plain_bytes], "1", None, None);
    let pods = decode_pod_page_protobuf(&page, |_| {}).expect("page");
    let debug = |p: &core::Pod| format!("{:?}", Pod::from_api(p));
    assert_eq!(format!("{:?}", pods[0]), debug(&plain));
    assert_eq!(format!("{:?}", pods[1]), debug(&merged));
    assert_eq!(format!("{:?}", pods[2]), debug(&plain));

    // `spec.nodeName` (a string) also written as a number, in a pod otherwise equal to the
    // first, whose built parts it would share.
    let whole = pb_encode::pod(&plain);
    let mut spec = whole.spec.as_ref().expect("spec").encode_to_vec();
    spec.extend([0x50, 0x05]); // field 10, varint 5
    let mut bad = k8s_pb::api::core::v1::Pod {
        metadata: whole.metadata.clone(),
        ..Default::default()
    }
    .encode_to_vec();
    bad.push(0x12); // field 2 (spec)
    bad.push(u8::try_from(spec.len()).expect("a short spec"));
    bad.extend(spec);
    let page = pb_encode::pod_list_body(&[&plain_bytes, &bad], "1", None, None);
    let e = decode_pod_page_protobuf(&page, |_| {}).expect_err("a number for nodeName");
    assert!(matches!(e, ProtobufError::Decode(_)), "{e:?}");
}

/// A namespace, a label value or a node name that is not UTF-8 is an error, as prost reads
/// it, in a pod after one whose template and labels it would otherwise take: the shared
/// reading checks the namespace only when it builds a template, reads labels by its own
/// reader and each node name once, and leaves them to prost when they are not text.
#[test]
fn pod_text_that_is_not_utf8_is_refused_by_prost() {
    let pod: core::Pod = serde_json::from_value(json!({
        "metadata": {"name": "p", "namespace": "q-ns-q", "labels": {"app": "q-lv-q"}},
        "spec": {"nodeName": "q-nn-q", "containers": [{"name": "c", "image": "i"}]}
    }))
    .expect("pod");
    let plain = pb_encode::pod_bytes(&pod);
    for (from, what) in [
        (&b"q-ns-q"[..], "namespace"),
        (&b"q-lv-q"[..], "label value"),
        (&b"q-nn-q"[..], "node name"),
    ] {
        let at = plain
            .windows(from.len())
            .position(|w| w == from)
            .expect("the text is written once");
        let mut bad = plain.clone();
        bad[at + 2] = 0xff;
        let page = pb_encode::pod_list_body(&[&plain, &bad], "1", None, None);
        let e = decode_pod_page_protobuf(&page, |_| {}).expect_err(what);
        assert!(e.to_string().contains("UTF-8"), "{what}: {e}");
    }
}

/// The body split at `ends` (increasing offsets), as the frames a connection delivers.
fn frames_of<'a>(body: &'a [u8], ends: &[usize]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    for &end in ends.iter().chain([&body.len()]) {
        out.push(&body[start..end]);
        start = end;
    }
    out
}

/// What a decode gave, to compare: the pods, or the error and whether it says "cut short".
fn outcome(r: Result<Vec<Pod>, ProtobufError>) -> String {
    match r {
        Ok(pods) => format!("{pods:?}"),
        Err(e) => format!("error {e} (truncated: {})", e.is_truncated()),
    }
}

/// A page is read in the frames it arrives in, without joining them: wherever the frames
/// split it (inside a key, a length, a pod, the envelope), the pods or the error are those of
/// the joined body. Bodies: pages of realistic and unusual pods, cut short, with bytes
/// changed, and with a group (which API servers never write) at the list's level.
#[test]
fn pages_in_frames_decode_as_the_joined_page() {
    let all = pods();
    let api: Vec<&core::Pod> = all.iter().map(|(_, p)| p).collect();
    let small = protobuf_page(&api[api.len() - 3..], Some("c-3"));
    let large = protobuf_page(&api[api.len() - 500..], Some("c-500"));

    // A list with a group field (field 5: a varint and 40 bytes inside, longer than the
    // reads of keys and numbers) between its items.
    let items: Vec<Vec<u8>> = api[..2].iter().map(|p| pb_encode::pod_bytes(p)).collect();
    let mut list = Vec::new();
    for item in &items {
        list.push(0x12);
        prost::encoding::encode_varint(item.len() as u64, &mut list);
        list.extend_from_slice(item);
        list.extend_from_slice(&[0x2b, 0x08, 0x96, 0x01, 0x12, 40]);
        list.extend_from_slice(&[b'g'; 40]);
        list.push(0x2c);
    }
    let grouped = pb_encode::envelope("v1", "PodList", &list);
    assert!(
        decode_pod_page_protobuf(&grouped, |_| {}).is_ok_and(|p| p.len() == 2),
        "a group between items is stepped over"
    );

    // Deterministic "random" numbers (xorshift).
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move |below: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        usize::try_from(seed % below as u64).expect("small")
    };

    let mut bodies: Vec<Vec<u8>> = vec![small.clone(), grouped.clone()];
    for cut in [1, 3, 4, 5, 9, small.len() / 2, small.len() - 1] {
        bodies.push(small[..cut].to_vec());
    }
    for _ in 0..40 {
        let mut changed = small.clone();
        let at = next(changed.len());
        changed[at] ^= 1 << next(8);
        bodies.push(changed);
    }

    let mut compared = 0;
    for (i, body) in bodies.iter().enumerate() {
        let joined = outcome(decode_pod_page_protobuf(body, |_| {}));
        // Two frames, split at every byte of the whole pages; at 50 places of the others.
        let cuts: Vec<usize> = if i < 2 {
            (0..=body.len()).collect()
        } else {
            (0..50).map(|_| next(body.len() + 1)).collect()
        };
        for cut in cuts {
            let frames = frames_of(body, &[cut]);
            assert_eq!(
                outcome(decode_pod_frames_protobuf(&frames, |_| {})),
                joined,
                "split at {cut} of {}",
                body.len()
            );
            compared += 1;
        }
        // Frames of one to 20 bytes, some empty.
        let mut ends = Vec::new();
        let mut at = 0;
        while at < body.len() {
            at = (at + next(21)).min(body.len());
            ends.push(at);
        }
        let frames = frames_of(body, &ends);
        assert_eq!(outcome(decode_pod_frames_protobuf(&frames, |_| {})), joined);
    }
    assert!(compared > small.len() + grouped.len(), "{compared}");

    // The large page in frames of up to 64 KiB, at random places, with its continue token.
    let joined = outcome(decode_pod_page_protobuf(&large, |_| {}));
    for _ in 0..10 {
        let mut ends = Vec::new();
        let mut at = 0;
        while at < large.len() {
            at = (at + next(65_536)).min(large.len());
            ends.push(at);
        }
        let mut token = None;
        let frames = frames_of(&large, &ends);
        let pods = decode_pod_frames_protobuf(&frames, |t| token = Some(t));
        assert_eq!(outcome(pods), joined);
        assert_eq!(token, Some(Some("c-500".to_string())));
    }
}

/// Every node of the oracle corpus and of a 20-node generated cluster.
fn nodes() -> Vec<(String, core::Node)> {
    corpus("Node", 1)
}

fn node_page(nodes: &[pbcore::Node], continue_: Option<&str>) -> Vec<u8> {
    let bytes: Vec<Vec<u8>> = nodes.iter().map(Message::encode_to_vec).collect();
    let items: Vec<&[u8]> = bytes.iter().map(Vec::as_slice).collect();
    pb_encode::list_body("NodeList", &items, "1000", continue_, continue_.map(|_| 7))
}

/// A node with a label, a taint, allocatable CPU and pods, and `images` as its
/// `status.images`.
fn node_with_images(images: Value) -> core::Node {
    serde_json::from_value(json!({
        "metadata": {"name": "n1", "labels": {"zone": "a"}},
        "spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]},
        "status": {"allocatable": {"cpu": "2", "pods": "110"}, "images": images}
    }))
    .expect("node")
}

fn decode_nodes(body: &[u8]) -> Result<Vec<Node>, ProtobufError> {
    decode_node_frames_protobuf(&[body], |_| {}, &ImageNames::All)
}

/// Node lists are read in protobuf too: each node builds as the same node in JSON (its name,
/// labels, taints, unschedulable, allocatable and images), so a wrong field number in the
/// tool's node messages shows here.
#[test]
fn protobuf_node_pages_decode_to_the_same_nodes_as_json() {
    let all = nodes();
    assert!(all.len() > 300, "only {} nodes", all.len());
    assert!(
        all.iter()
            .any(|(_, n)| n.spec.as_ref().is_some_and(|s| s.taints.is_some())),
        "no node with taints"
    );
    let mut failures = Vec::new();
    for chunk in all.chunks(100) {
        let api: Vec<pbcore::Node> = chunk.iter().map(|(_, n)| pb_encode::node(n)).collect();
        let mut token = None;
        let from_pb = decode_node_frames_protobuf(
            &[node_page(&api, Some("c-1"))],
            |t| token = Some(t),
            &ImageNames::All,
        )
        .expect("protobuf page");
        assert_eq!(token, Some(Some("c-1".to_string())));
        let full: Vec<&core::Node> = chunk.iter().map(|(_, n)| n).collect();
        let json = json!({"kind": "NodeList", "apiVersion": "v1", "metadata": {}, "items": full});
        let from_json: Vec<Node> =
            decode_list_page(&json.to_string(), |_| {}, |n: core::Node| Node::from(n))
                .expect("json page");
        assert_eq!(from_pb.len(), chunk.len());
        for (((name, api), pb), js) in chunk.iter().zip(&from_pb).zip(&from_json) {
            let expected = format!("{:?}", Node::from(api.clone()));
            assert_eq!(format!("{js:?}"), expected, "{name}: JSON page");
            if format!("{pb:?}") != expected {
                failures.push(format!("{name}:\n  protobuf {pb:?}\n  expected {expected}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} nodes differ:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

/// A live read keeps only the image names the incoming pods use: in protobuf each other name
/// is stepped over, and the node is the one JSON gives with the same names kept; an image
/// left with no name is left out, and every other part of the node is as read whole.
#[test]
fn nodes_keep_only_the_image_names_asked_for() {
    let api = node_with_images(json!([
        {"names": ["reg/web@sha256:aa", "reg/web:1"], "sizeBytes": 300},
        {"names": ["reg/db:2"], "sizeBytes": 200},
        {"sizeBytes": 100},
        {"names": ["reg/web:1", "reg/cache:3"], "sizeBytes": 50}
    ]));
    let keep = ImageNames::Only(
        ["reg/web:1", "reg/none:9"]
            .map(String::from)
            .into_iter()
            .collect(),
    );
    let page = node_page(&[pb_encode::node(&api)], None);
    let from_pb = decode_node_frames_protobuf(&[&page[..]], |_| {}, &keep).expect("protobuf");
    let json = json!({"kind": "NodeList", "apiVersion": "v1", "metadata": {}, "items": [api]});
    let from_json: Vec<Node> = decode_list_page(
        &json.to_string(),
        |_| {},
        |mut n: core::Node| {
            keep.retain(&mut n.status.as_mut().expect("status").images);
            Node::from(n)
        },
    )
    .expect("json");
    let images: Vec<(Vec<String>, i64)> = from_pb[0]
        .resources
        .images
        .iter()
        .map(|i| (i.names.clone(), i.size_bytes))
        .collect();
    assert_eq!(
        images,
        [
            (vec!["reg/web:1".to_string()], 300),
            (vec!["reg/web:1".to_string()], 50)
        ]
    );
    assert_eq!(format!("{from_pb:?}"), format!("{from_json:?}"));
    // Everything else is the node read with every name.
    let mut all = decode_nodes(&page).expect("all");
    all[0].resources.images = from_pb[0].resources.images.clone();
    assert_eq!(format!("{all:?}"), format!("{from_pb:?}"));
    // No name asked for: no image.
    let none = ImageNames::Only(Default::default());
    let bare = decode_node_frames_protobuf(&[&page[..]], |_| {}, &none).expect("none");
    assert!(bare[0].resources.images.is_empty());
}

/// A length-delimited field of fewer than 128 bytes: its key byte (field number and wire type
/// 2), its length, its bytes.
fn field(key: u8, body: &[u8]) -> Vec<u8> {
    let mut field = vec![key, u8::try_from(body.len()).expect("a short field")];
    field.extend_from_slice(body);
    field
}

/// An image written as no API server writes it (a name of another wire type, or not UTF-8)
/// is read by prost, which refuses it as it refused the whole node before names were
/// filtered; an image field prost reads (a name given as bytes of valid UTF-8) reads alike.
#[test]
fn node_images_not_as_servers_write_them_are_refused_by_prost() {
    // Node { status (3) { images (8) { names (1): <bad> } } }
    let node_with_image = |image: &[u8]| field(0x1a, &field(0x42, image));
    let page = |node: Vec<u8>| pb_encode::list_body("NodeList", &[&node[..]], "1000", None, None);
    let keep = ImageNames::Only(["a".to_string()].into_iter().collect());
    // A name as a varint.
    let varint = page(node_with_image(&[0x08, 0x01]));
    let e = decode_node_frames_protobuf(&[&varint[..]], |_| {}, &keep).expect_err("varint");
    assert!(e.to_string().contains("wire type"), "{e}");
    // A name that is not UTF-8.
    let latin = page(node_with_image(&[0x0a, 0x01, 0xff]));
    let e = decode_node_frames_protobuf(&[&latin[..]], |_| {}, &keep).expect_err("not UTF-8");
    assert!(e.to_string().contains("UTF-8"), "{e}");
    // A well-formed name is kept.
    let good = page(node_with_image(&[0x0a, 0x01, b'a', 0x10, 0x07]));
    let nodes = decode_node_frames_protobuf(&[&good[..]], |_| {}, &keep).expect("good");
    assert_eq!(nodes[0].resources.images[0].names, ["a"]);
    assert_eq!(nodes[0].resources.images[0].size_bytes, 7);
}

/// Labels not written as servers write them go to prost, which says what is wrong, as for
/// images: the tool's own reader of labels never decides them.
#[test]
fn node_labels_not_as_servers_write_them_are_refused_by_prost() {
    // Node { metadata (1) { labels (11) { <entry> } } }
    let node_with_entry = |entry: &[u8]| {
        let node = field(0x0a, &field(0x5a, entry));
        pb_encode::list_body("NodeList", &[&node[..]], "1000", None, None)
    };
    // A key as a varint.
    let e = decode_nodes(&node_with_entry(&[0x08, 0x01])).expect_err("varint");
    assert!(e.to_string().contains("wire type"), "{e}");
    // A value that is not UTF-8.
    let e = decode_nodes(&node_with_entry(&[0x0a, 0x01, b'k', 0x12, 0x01, 0xff]))
        .expect_err("not UTF-8");
    assert!(e.to_string().contains("UTF-8"), "{e}");
    // A well-formed entry, and one whose value is given twice, keeping the last.
    let nodes = decode_nodes(&node_with_entry(&[
        0x0a, 0x01, b'k', 0x12, 0x01, b'a', 0x12, 0x01, b'b',
    ]))
    .expect("good");
    assert_eq!(
        nodes[0].labels,
        [("k".to_string(), "b".to_string())].into_iter().collect()
    );
}

/// Labels and allocatable resources are read as protobuf reads a map: a message given twice is
/// merged, an entry given again keeps its last value, and an entry without its key or value
/// has the empty one. The expected maps are those prost's own maps (`k8s-pb`) make of the same
/// bytes.
#[test]
fn node_maps_read_as_protobuf_reads_maps() {
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use k8s_pb::apimachinery::pkg::api::resource::Quantity as PbQuantity;

    let api = node_with_images(json!([]));
    let mut bytes = pb_encode::node(&api).encode_to_vec();
    // The same node again, with other entries: protobuf merges the two messages.
    let again = pbcore::Node {
        metadata: Some(k8s_pb::apimachinery::pkg::apis::meta::v1::ObjectMeta {
            labels: [("zone", "b"), ("", "no key"), ("no-value", "")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Default::default()
        }),
        status: Some(pbcore::NodeStatus {
            allocatable: [("cpu", Some("3")), ("memory", None)]
                .into_iter()
                .map(|(k, q)| {
                    (
                        k.to_string(),
                        PbQuantity {
                            string: q.map(str::to_string),
                        },
                    )
                })
                .collect(),
            ..Default::default()
        }),
        ..Default::default()
    };
    again.encode(&mut bytes).expect("encode");

    let whole = pbcore::Node::decode(&bytes[..]).expect("k8s-pb");
    let labels = whole.metadata.unwrap_or_default().labels;
    assert_eq!(labels.get("zone").map(String::as_str), Some("b"));
    assert_eq!(labels.get("").map(String::as_str), Some("no key"));
    assert_eq!(labels.get("no-value").map(String::as_str), Some(""));
    let allocatable = whole.status.unwrap_or_default().allocatable;
    assert_eq!(allocatable.len(), 3, "{allocatable:?}");
    let mut expected = api.clone();
    expected.metadata.labels = Some(labels);
    expected.status.as_mut().expect("status").allocatable = Some(
        allocatable
            .into_iter()
            .map(|(k, q)| (k, Quantity(q.string.unwrap_or_default())))
            .collect(),
    );
    let expected = format!("{:?}", Node::from(expected));
    assert!(
        expected.contains("\"zone\": \"b\"") && expected.contains("cpu"),
        "{expected}"
    );

    let page = pb_encode::list_body("NodeList", &[&bytes[..]], "1000", None, None);
    let read = decode_nodes(&page).expect("node");
    assert_eq!(format!("{:?}", read[0]), expected);
}

/// Go writes the zero values of non-pointer fields (`unschedulable: false`, an image's size
/// 0, an empty taint value) that JSON leaves out; a node is the same either way. Nothing
/// else of a node is read: its conditions, addresses and info change nothing.
#[test]
fn node_zero_values_and_unread_fields_change_nothing() {
    let api = node_with_images(json!([{"names": ["img:1"]}]));
    let plain = pb_encode::node(&api);
    let expected = format!(
        "{:?}",
        decode_nodes(&node_page(std::slice::from_ref(&plain), None)).expect("plain")
    );
    assert!(
        expected.contains("n1") && expected.contains("img:1") && expected.contains("NoSchedule")
    );

    let mut zeros = plain.clone();
    let spec = zeros.spec.as_mut().expect("spec");
    spec.unschedulable = Some(false);
    spec.taints[0].value = Some(String::new());
    let status = zeros.status.as_mut().expect("status");
    status.images[0].size_bytes = Some(0);
    status.phase = Some("Running".into());
    status.conditions.push(pbcore::NodeCondition {
        r#type: Some("Ready".into()),
        status: Some("False".into()),
        ..Default::default()
    });
    status.addresses.push(pbcore::NodeAddress {
        r#type: Some("InternalIP".into()),
        address: Some("10.0.0.1".into()),
    });
    let zeros_page = node_page(&[zeros], None);
    assert_eq!(
        format!("{:?}", decode_nodes(&zeros_page).expect("zeros")),
        expected
    );

    // What is read does change it.
    let mut cordoned = plain;
    cordoned.spec.as_mut().expect("spec").unschedulable = Some(true);
    assert_ne!(
        format!(
            "{:?}",
            decode_nodes(&node_page(&[cordoned], None)).expect("cordoned")
        ),
        expected
    );
}

/// A node page that is not a node list, or is cut short, is refused with the reason, and a
/// page in frames reads as the page joined, wherever the frames split it.
#[test]
fn node_pages_cut_or_of_another_kind_are_refused_and_frames_read_as_joined() {
    let all = nodes();
    let api: Vec<pbcore::Node> = all[..3].iter().map(|(_, n)| pb_encode::node(n)).collect();
    let good = node_page(&api, Some("c-3"));
    let whole = format!("{:?}", decode_nodes(&good).expect("whole"));

    let pods = protobuf_page(&[], None);
    let e = decode_nodes(&pods).expect_err("a pod list");
    assert_eq!(e.to_string(), "the body holds a PodList, not a NodeList");

    let mut truncated = 0;
    for cut in good.len() / 2..good.len() {
        match decode_nodes(&good[..cut]) {
            Err(e) => {
                assert!(e.is_truncated(), "cut at {cut} of {}: {e}", good.len());
                truncated += 1;
            }
            Ok(nodes) => assert_eq!(format!("{nodes:?}"), whole, "cut at {cut}"),
        }
    }
    assert!(
        truncated > good.len() / 3,
        "{truncated} cuts of {}",
        good.len()
    );

    for cut in 0..=good.len() {
        let frames = frames_of(&good, &[cut]);
        let mut token = None;
        let nodes = decode_node_frames_protobuf(&frames, |t| token = Some(t), &ImageNames::All);
        assert_eq!(
            format!("{:?}", nodes.expect("in frames")),
            whole,
            "split at {cut}"
        );
        assert_eq!(token, Some(Some("c-3".to_string())), "split at {cut}");
    }
}

/// The fields kube-scheduler 1.36 reads that 1.35's did not (`restartPolicyRules`, image
/// volumes, a pod's own resize status, a node's `declaredFeatures`) are read from protobuf as
/// from JSON: a live 1.36 cluster answers in protobuf.
#[test]
fn fields_new_in_1_36_read_from_protobuf_as_from_json() {
    let with = json!({
        "metadata": {"name": "p", "namespace": "ns"},
        "spec": {
            "nodeName": "n1",
            "containers": [{"name": "c", "image": "app:1", "restartPolicy": "Never",
                "restartPolicyRules": [{"action": "RestartAllContainers",
                    "exitCodes": {"operator": "In", "values": [42]}}],
                "resources": {"requests": {"cpu": "100m"}}}],
            "resources": {"requests": {"cpu": "200m", "memory": "256Mi"}},
            "volumes": [{"name": "model", "image": {"reference": "models/llm:7b",
                                                    "pullPolicy": "IfNotPresent"}}]
        },
        "status": {"phase": "Running",
                   "resources": {"requests": {"memory": "512Mi"}},
                   "allocatedResources": {"cpu": "300m"}}
    });
    let mut without = with.clone();
    for (path, field) in [
        ("/spec/containers/0", "restartPolicyRules"),
        ("/spec", "volumes"),
        ("/status", "resources"),
        ("/status", "allocatedResources"),
    ] {
        let object = without
            .pointer_mut(path)
            .and_then(Value::as_object_mut)
            .expect(path);
        object.remove(field).expect(field);
    }
    let decode = |v: &Value| {
        let api: core::Pod = serde_json::from_value(v.clone()).expect("pod");
        let from_pb =
            decode_pod_page_protobuf(&protobuf_page(&[&api], None), |_| {}).expect("protobuf page");
        let from_json = decode_pod_page(&json_page(&[&api]), |_| {}).expect("json page");
        (format!("{:?}", from_pb[0]), format!("{:?}", from_json[0]))
    };
    let (pb, js) = decode(&with);
    assert_eq!(pb, js, "a 1.36 pod");
    // The fields are kept at all (else both sides would agree by dropping them).
    assert_ne!(
        js,
        decode(&without).1,
        "the 1.36 fields change nothing read"
    );

    let node = |features: Value| -> core::Node {
        serde_json::from_value(json!({
            "metadata": {"name": "n1"},
            "status": {"allocatable": {"cpu": "4"}, "declaredFeatures": features}
        }))
        .expect("node")
    };
    for features in [json!(["RestartAllContainersOnContainerExits"]), json!([])] {
        let api = node(features.clone());
        let from_pb = decode_node_frames_protobuf(
            &[node_page(&[pb_encode::node(&api)], None)],
            |_| {},
            &ImageNames::All,
        )
        .expect("protobuf page");
        assert_eq!(
            format!("{:?}", from_pb[0]),
            format!("{:?}", Node::from(api)),
            "declaredFeatures {features}"
        );
    }
    assert_ne!(
        format!(
            "{:?}",
            Node::from(node(json!(["RestartAllContainersOnContainerExits"])))
        ),
        format!("{:?}", Node::from(node(json!([])))),
        "declaredFeatures change nothing read"
    );
}
