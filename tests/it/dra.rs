//! DynamicResources end to end: pods with ResourceClaims evaluated against DeviceClasses,
//! ResourceSlices and claims in use, through the command line (`whatif -o json`), each test
//! asserting what the scheduler would decide and what the explanation says; and the four
//! kinds read live from the fake API server.

// Tests may unwrap: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use serde_json::{Value, json};

use crate::support::fake_api::FakeApi;
use crate::support::run;

const GPU: &str = "gpu.example.com";

fn node(name: &str, zone: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
        "kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}},
        "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}})
}

fn class(name: &str, selectors: &[&str]) -> Value {
    let selectors: Vec<Value> = selectors
        .iter()
        .map(|e| json!({"cel": {"expression": e}}))
        .collect();
    json!({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
        "metadata": {"name": name}, "spec": {"selectors": selectors}})
}

/// A GPU with a model, a driver version and memory.
fn gpu(name: &str, model: &str, version: &str, memory: &str) -> Value {
    json!({"name": name, "attributes": {"model": {"string": model},
        "driverVersion": {"version": version}},
        "capacity": {"memory": {"value": memory}}})
}

fn slice(node: &str, devices: Vec<Value>) -> Value {
    json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
        "metadata": {"name": format!("{node}-gpus")},
        "spec": {"driver": GPU, "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": devices}})
}

/// A claim in `namespace` holding `devices` of `node`'s pool, reserved for a running pod.
fn held(name: &str, node: &str, devices: &[&str]) -> Value {
    let results: Vec<Value> = devices
        .iter()
        .map(|d| json!({"request": "gpu", "driver": GPU, "pool": node, "device": d}))
        .collect();
    json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "gpu",
            "exactly": {"deviceClassName": "gpu", "count": devices.len()}}]}},
        "status": {"allocation": {"devices": {"results": results},
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [node]}]}]}},
            "reservedFor": [{"resource": "pods", "name": "trainer", "uid": "u-1"}]}})
}

fn template(name: &str, namespace: &str, requests: Value, constraints: Value) -> Value {
    json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"spec": {"devices": {"requests": requests, "constraints": constraints}}}})
}

fn exactly(name: &str, class: &str, count: u32, selector: Option<&str>) -> Value {
    let mut e = json!({"deviceClassName": class, "allocationMode": "ExactCount", "count": count});
    if let Some(s) = selector {
        e["selectors"] = json!([{"cel": {"expression": s}}]);
    }
    json!({"name": name, "exactly": e})
}

fn pod(namespace: &str, template: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "train", "namespace": namespace},
        "spec": {"resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": template}],
            "containers": [{"name": "c", "image": "trainer:1",
                "resources": {"claims": [{"name": "gpus"}]}}]}})
}

fn list(items: Vec<Value>) -> String {
    serde_json::to_string(&json!({"apiVersion": "v1", "kind": "List", "items": items})).unwrap()
}

/// `whatif -f pod --snapshot cluster -o json`.
fn whatif(dir: &Path, cluster: &[Value], pod: &Value, extra: &[&str]) -> Value {
    let c = dir.join("cluster.json");
    let p = dir.join("pod.json");
    std::fs::write(&c, list(cluster.to_vec())).unwrap();
    std::fs::write(&p, serde_json::to_string(pod).unwrap()).unwrap();
    let mut args = vec![
        "whatif".to_string(),
        "-f".to_string(),
        p.display().to_string(),
        "--snapshot".to_string(),
        c.display().to_string(),
        "-o".to_string(),
        "json".to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let out = run(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn node_of<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == name)
        .unwrap()
}

/// The devices allocated on a node: (claim, request, device).
fn allocated(doc: &Value, node: &str) -> Vec<(String, String, String)> {
    let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
    node_of(doc, node)["dra"]["allocation"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| {
            c["devices"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| (s(&c["claim"]), s(&d["request"]), s(&d["device"])))
        })
        .collect()
}

/// Three nodes: one whose A100s are all in use, one with only T4s, one with a free A100.
fn three_nodes() -> Vec<Value> {
    vec![
        node("full", "a"),
        node("other", "a"),
        node("fits", "b"),
        class("gpu", &[&format!("device.driver == \"{GPU}\"")]),
        slice(
            "full",
            vec![
                gpu("gpu-0", "a100", "1.10.0", "80Gi"),
                gpu("gpu-1", "a100", "1.10.0", "80Gi"),
            ],
        ),
        slice("other", vec![gpu("gpu-0", "t4", "1.10.0", "16Gi")]),
        slice("fits", vec![gpu("gpu-0", "a100", "1.10.0", "80Gi")]),
        held("training", "full", &["gpu-0", "gpu-1"]),
    ]
}

#[test]
fn a_gpu_pod_from_a_template_gets_the_free_a100() {
    let dir = tempfile::tempdir().unwrap();
    let model = format!("device.attributes[\"{GPU}\"].model == \"a100\"");
    let mut cluster = three_nodes();
    cluster.push(template(
        "a100",
        "default",
        json!([exactly("gpu", "gpu", 1, Some(&model))]),
        json!([]),
    ));
    let doc = whatif(dir.path(), &cluster, &pod("default", "a100"), &[]);
    // The controller's claim, named as the API server would (hash suffix), holds the A100.
    let claim = format!(
        "default/train-gpus-{}",
        kubectl_affinity::pipeline::resource_claims::suffix("default", "train", "gpus")
    );
    assert_eq!(
        allocated(&doc, "fits"),
        [(claim.clone(), "gpu".to_string(), "gpu-0".to_string())]
    );
    assert_eq!(node_of(&doc, "fits")["verdict"], "Feasible");
    for name in ["full", "other"] {
        let n = node_of(&doc, name);
        assert_eq!(n["reported"]["plugin"], "DynamicResources", "{name}");
        assert_eq!(n["reported"]["code"], "UnschedulableAndUnresolvable");
        assert_eq!(n["reported"]["reason"], "cannot allocate all claims");
    }
    // Why, per node: the A100s in use by the other claim; the T4 rejected by the selector,
    // with its model.
    let reasons = |name: &str| node_of(&doc, name)["dra"]["reasons"].to_string();
    assert!(
        reasons("full").contains("default/training"),
        "{}",
        reasons("full")
    );
    assert!(reasons("other").contains("t4"), "{}", reasons("other"));
    assert_eq!(doc["summary"]["selected"], json!(["fits"]));

    // Two A100s: no node has them free, and the message says so as the scheduler does.
    cluster.pop();
    cluster.push(template(
        "a100",
        "default",
        json!([exactly("gpu", "gpu", 2, Some(&model))]),
        json!([]),
    ));
    let doc = whatif(dir.path(), &cluster, &pod("default", "a100"), &[]);
    assert_eq!(
        doc["summary"]["failedSchedulingMessage"],
        "0/3 nodes are available: 3 cannot allocate all claims. still not schedulable, \
         preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    );
}

#[test]
fn selectors_compare_quantities_and_versions() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = vec![
        node("n1", "a"),
        class(
            "gpu",
            &[
                &format!("device.driver == \"{GPU}\""),
                &format!("device.capacity[\"{GPU}\"].memory.compareTo(quantity(\"40Gi\")) >= 0"),
                &format!(
                    "device.attributes[\"{GPU}\"].driverVersion.isGreaterThan(semver(\"1.2.0\"))"
                ),
            ],
        ),
        slice(
            "n1",
            vec![
                // Too little memory; an old driver (1.2.0 is not greater); a release
                // candidate of 2.0.0 is greater than 1.2.0; 40960Mi is 40Gi.
                gpu("small", "a100", "1.10.0", "16Gi"),
                gpu("old", "a100", "1.2.0", "80Gi"),
                gpu("rc", "a100", "2.0.0-rc.1", "40960Mi"),
            ],
        ),
        template(
            "t",
            "default",
            json!([exactly("gpu", "gpu", 1, None)]),
            json!([]),
        ),
    ];
    let doc = whatif(dir.path(), &cluster, &pod("default", "t"), &[]);
    let devices: Vec<String> = allocated(&doc, "n1").into_iter().map(|d| d.2).collect();
    assert_eq!(devices, ["rc"]);
}

#[test]
fn first_available_takes_the_first_subrequest_that_fits_and_scores_it() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = vec![
        node("big", "a"),
        node("small", "a"),
        class("gpu", &[&format!("device.driver == \"{GPU}\"")]),
        slice("big", vec![gpu("gpu-0", "a100", "1.10.0", "80Gi")]),
        slice("small", vec![gpu("gpu-0", "t4", "1.10.0", "16Gi")]),
        template(
            "t",
            "default",
            json!([{"name": "gpu", "firstAvailable": [
                {"name": "a100", "deviceClassName": "gpu", "allocationMode": "ExactCount",
                 "count": 1, "selectors": [{"cel": {"expression":
                    format!("device.attributes[\"{GPU}\"].model == \"a100\"")}}]},
                {"name": "any", "deviceClassName": "gpu", "allocationMode": "ExactCount",
                 "count": 1}]}]),
            json!([]),
        ),
    ];
    let doc = whatif(dir.path(), &cluster, &pod("default", "t"), &[]);
    assert_eq!(allocated(&doc, "big")[0].1, "gpu/a100");
    assert_eq!(allocated(&doc, "small")[0].1, "gpu/any");
    // 8 - 0 against 8 - 1, normalized to 100 and 87, weight 2.
    let dra_score = |n: &str| {
        node_of(&doc, n)["scores"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["plugin"] == "DynamicResources")
            .map(|s| s["weighted"].clone())
            .unwrap()
    };
    assert_eq!(dra_score("big"), 200);
    assert_eq!(dra_score("small"), 174);
    // With DRAPrioritizedList off the claim is refused before any node is looked at.
    let doc = whatif(
        dir.path(),
        &cluster,
        &pod("default", "t"),
        &["--feature-gates", "DRAPrioritizedList=false"],
    );
    let message = doc["summary"]["failedSchedulingMessage"].as_str().unwrap();
    assert!(
        message.contains(
            "request gpu: has subrequests, but the DRAPrioritizedList feature is disabled"
        ),
        "{message}"
    );
}

#[test]
fn match_attribute_keeps_the_devices_of_a_claim_alike() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = vec![
        node("mixed", "a"),
        node("pair", "a"),
        class("gpu", &[&format!("device.driver == \"{GPU}\"")]),
        slice(
            "mixed",
            vec![
                gpu("gpu-0", "a100", "1.10.0", "80Gi"),
                gpu("gpu-1", "t4", "1.10.0", "16Gi"),
            ],
        ),
        slice(
            "pair",
            vec![
                gpu("gpu-0", "a100", "1.10.0", "80Gi"),
                gpu("gpu-1", "t4", "1.10.0", "16Gi"),
                gpu("gpu-2", "t4", "1.10.0", "16Gi"),
            ],
        ),
        template(
            "t",
            "default",
            json!([exactly("a", "gpu", 1, None), exactly("b", "gpu", 1, None)]),
            json!([{"requests": ["a", "b"], "matchAttribute": format!("{GPU}/model")}]),
        ),
    ];
    let doc = whatif(dir.path(), &cluster, &pod("default", "t"), &[]);
    assert_eq!(
        node_of(&doc, "mixed")["reported"]["reason"],
        "cannot allocate all claims"
    );
    let devices: Vec<String> = allocated(&doc, "pair").into_iter().map(|d| d.2).collect();
    assert_eq!(devices, ["gpu-1", "gpu-2"]);
    assert!(
        node_of(&doc, "mixed")["dra"]["reasons"]
            .to_string()
            .contains("constraint"),
        "{}",
        node_of(&doc, "mixed")["dra"]
    );
}

#[test]
fn admin_access_uses_devices_in_use() {
    let dir = tempfile::tempdir().unwrap();
    let mut cluster = three_nodes();
    cluster.push(
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ops",
        "labels": {"resource.kubernetes.io/admin-access": "true"}}}),
    );
    let mut request = exactly("gpu", "gpu", 1, None);
    request["exactly"]["adminAccess"] = json!(true);
    cluster.push(template("watch", "ops", json!([request]), json!([])));
    let doc = whatif(dir.path(), &cluster, &pod("ops", "watch"), &[]);
    // Every node has a GPU for it, the ones in use on "full" too.
    for name in ["full", "other", "fits"] {
        assert_eq!(allocated(&doc, name).len(), 1, "{name}");
        assert_eq!(node_of(&doc, name)["verdict"], "Feasible", "{name}");
    }
    assert_eq!(
        node_of(&doc, "full")["dra"]["allocation"][0]["devices"][0]["adminAccess"],
        true
    );
}

/// The four kinds read live (paged lists from the fake API server) decide as the same
/// objects read from a file do.
#[test]
fn a_live_run_reads_the_four_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let model = format!("device.attributes[\"{GPU}\"].model == \"a100\"");
    let mut cluster = three_nodes();
    cluster.push(template(
        "a100",
        "default",
        json!([exactly("gpu", "gpu", 1, Some(&model))]),
        json!([]),
    ));
    let offline = whatif(dir.path(), &cluster, &pod("default", "a100"), &[]);
    let file = dir.path().join("cluster.json");
    let fake = FakeApi::start(&file);
    let kubeconfig = fake.kubeconfig(dir.path(), None);
    let p = dir.path().join("pod.json");
    let out = run(&[
        "whatif",
        "-f",
        p.to_str().unwrap(),
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let live: Value = serde_json::from_slice(&out.stdout).unwrap();
    for name in ["full", "other", "fits"] {
        assert_eq!(
            node_of(&live, name)["dra"],
            node_of(&offline, name)["dra"],
            "{name}"
        );
        assert_eq!(
            node_of(&live, name)["reported"],
            node_of(&offline, name)["reported"]
        );
    }
    assert!(!allocated(&live, "fits").is_empty());
}
