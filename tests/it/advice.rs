//! Suggestions only of changes that can work (issue 61, item 2), end to end through the
//! command line (`whatif`, run in this process as the binary runs it): each test asserts the
//! exact words of the change the closest nodes are given, and its data in `-o json`.

// Tests may unwrap: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::support::run;

pub(crate) fn node(name: &str, zone: &str, allocatable: Value) -> Value {
    let mut a = json!({"cpu": "8", "memory": "32Gi", "pods": "110"});
    for (k, v) in allocatable.as_object().unwrap() {
        a[k] = v.clone();
    }
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
        "kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}},
        "status": {"allocatable": a}})
}

/// A running pod on `node`.
pub(crate) fn running(name: &str, node: &str, labels: Value, spec: Value) -> Value {
    let mut spec = spec;
    spec["nodeName"] = json!(node);
    if spec.get("containers").is_none() {
        spec["containers"] = json!([{"name": "c", "image": "x"}]);
    }
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": labels, "uid": name},
        "spec": spec, "status": {"phase": "Running"}})
}

pub(crate) fn pod(labels: Value, spec: Value) -> Value {
    let mut spec = spec;
    if spec.get("containers").is_none() {
        spec["containers"] = json!([{"name": "c", "image": "x"}]);
    }
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "new", "namespace": "default", "labels": labels}, "spec": spec})
}

/// `whatif -f pod --snapshot cluster` as a table and as JSON.
pub(crate) fn whatif(cluster: &[Value], pod: &Value) -> (String, Value) {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("cluster.json");
    let p = dir.path().join("pod.json");
    let list = json!({"apiVersion": "v1", "kind": "List", "items": cluster});
    std::fs::write(&c, list.to_string()).unwrap();
    std::fs::write(&p, pod.to_string()).unwrap();
    let line = |format: &str| {
        let out = run(&[
            "whatif",
            "-f",
            p.to_str().unwrap(),
            "--snapshot",
            c.to_str().unwrap(),
            "-o",
            format,
        ]);
        assert!(
            out.status.code().is_some_and(|c| c == 0 || c == 3),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let table = String::from_utf8(line("table")).unwrap();
    let doc = serde_json::from_slice(&line("json")).unwrap();
    (table, doc)
}

fn suggestions<'a>(doc: &'a Value, node: &str) -> &'a Value {
    let n = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == node)
        .unwrap_or_else(|| panic!("no node {node}: {doc}"));
    &n["suggestions"]
}

/// The closest node's line under "Closest ... what would make them fit".
fn closest<'a>(table: &'a str, node: &str) -> &'a str {
    table
        .lines()
        .find(|l| l.starts_with(&format!("  {node}: ")))
        .unwrap_or_else(|| panic!("no closest line for {node}:\n{table}"))
}

fn gpus(n: i64) -> Value {
    json!([{"name": "c", "image": "x", "resources": {
        "requests": {"nvidia.com/gpu": n.to_string()}, "limits": {"nvidia.com/gpu": n.to_string()}}}])
}

/// "2 nvidia.com/gpu short" on a node with 1 allocatable read as if evicting pods would
/// help: the node is said to be too small, with the nodes that are big enough; a node short
/// only of what runs there keeps its shortfall.
#[test]
fn a_request_above_a_nodes_allocatable_says_the_node_is_too_small() {
    let cluster = [
        node("small-1", "z1", json!({"nvidia.com/gpu": "1"})),
        node("small-2", "z2", json!({"nvidia.com/gpu": "1"})),
        node("big-a", "z1", json!({"nvidia.com/gpu": "4"})),
        node("big-b", "z2", json!({"nvidia.com/gpu": "4"})),
        running("b1", "big-a", json!({}), json!({"containers": gpus(3)})),
        running("b2", "big-b", json!({}), json!({"containers": gpus(3)})),
    ];
    let (table, doc) = whatif(&cluster, &pod(json!({}), json!({"containers": gpus(2)})));
    assert_eq!(
        closest(&table, "small-1"),
        "  small-1: NodeResourcesFit: the node is too small for the pod: node has 1 \
         nvidia.com/gpu allocatable, the pod requests 2; big enough: big-a, big-b"
    );
    assert_eq!(
        closest(&table, "big-a"),
        "  big-a: NodeResourcesFit: 1 nvidia.com/gpu short"
    );
    assert!(!table.contains("2 nvidia.com/gpu short"), "{table}");
    assert_eq!(
        suggestions(&doc, "small-2"),
        &json!([{"rule": "NodeResourcesFit", "change": {"tooSmall": {
            "resource": "nvidia.com/gpu", "allocatable": 1, "requested": 2,
            "bigEnough": {"names": ["big-a", "big-b"], "count": 2}}}}])
    );

    // No node big enough: said so.
    let (table, _) = whatif(&cluster, &pod(json!({}), json!({"containers": gpus(5)})));
    assert_eq!(
        closest(&table, "big-b"),
        "  big-b: NodeResourcesFit: the node is too small for the pod: node has 4 \
         nvidia.com/gpu allocatable, the pod requests 5; no node is big enough"
    );
}

/// A port conflict named the reason again though the drill-down knew the holder pod.
#[test]
fn a_port_conflict_names_the_pod_that_holds_the_port() {
    let ports = json!([{"name": "c", "image": "x",
        "ports": [{"containerPort": 80, "hostPort": 8080}]}]);
    let cluster = [
        node("n1", "z1", json!({})),
        running("holder", "n1", json!({}), json!({"containers": ports})),
    ];
    let (table, doc) = whatif(&cluster, &pod(json!({}), json!({"containers": ports})));
    assert_eq!(
        closest(&table, "n1"),
        "  n1: NodePorts: host port 0.0.0.0:8080/TCP is held by pod default/holder on the \
         node: another hostPort, or that pod elsewhere"
    );
    assert_eq!(
        suggestions(&doc, "n1"),
        &json!([{"rule": "NodePorts", "change": {"freePort": {
            "port": {"hostIp": "0.0.0.0", "protocol": "TCP", "port": 8080},
            "holder": {"namespace": "default", "name": "holder"}}}}])
    );
}

/// A volume in another zone repeated the reason: the claim, its volume, the volume's node
/// affinity and zone, and the nodes that can use it are named.
#[test]
fn a_volume_elsewhere_names_the_claim_the_volume_and_where_it_can_be_used() {
    let mut tainted = node("n-z1", "z1", json!({}));
    // Cordoned and tainted: two rules fail there, as two fail on n-z2, so both are closest.
    tainted["spec"] = json!({"unschedulable": true,
        "taints": [{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]});
    let pv = json!({"apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": "pv-a", "labels": {"topology.kubernetes.io/zone": "z1"}},
        "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
            "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"},
            "claimRef": {"namespace": "default", "name": "data"},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["z1"]}]}]}}},
        "status": {"phase": "Bound"}});
    let pvc = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data", "namespace": "default",
            "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
        "spec": {"accessModes": ["ReadWriteOnce"], "volumeName": "pv-a", "storageClassName": "",
            "resources": {"requests": {"storage": "10Gi"}}},
        "status": {"phase": "Bound"}});
    let cluster = [tainted, node("n-z2", "z2", json!({})), pv, pvc];
    let p = pod(
        json!({}),
        json!({"volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}),
    );
    let (table, doc) = whatif(&cluster, &p);
    assert_eq!(
        closest(&table, "n-z2"),
        "  n-z2: VolumeBinding: claim data is bound to volume pv-a, usable only on \
         nodes with topology.kubernetes.io/zone In [z1]; nodes that can: n-z1; VolumeZone: \
         claim data is bound to volume pv-a in topology.kubernetes.io/zone [z1]; \
         nodes there: n-z1"
    );
    assert_eq!(
        suggestions(&doc, "n-z2")[0],
        json!({"rule": "VolumeBinding", "change": {"volumeAffinity": {
            "claim": "data", "volume": "pv-a",
            "nodeAffinity": "topology.kubernetes.io/zone In [z1]",
            "fitsOn": {"names": ["n-z1"], "count": 1}}}})
    );
}

/// AKS: a zone whose only nodes are the system pool (`CriticalAddonsOnly`) counts with 0
/// pods, so the spread is blocked everywhere else. The advice was "tolerate
/// CriticalAddonsOnly"; it names the domain that holds the minimum, why its nodes refuse the
/// pod, and the rule that would leave it out, and never the toleration.
#[test]
fn a_spread_held_by_a_zone_that_refuses_the_pod_names_the_zone_and_the_rule() {
    let mut system = node("sys-1", "z3", json!({}));
    system["spec"] = json!({"taints": [
        {"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"}]});
    let web = json!({"app": "web"});
    let cluster = [
        node("user-1", "z1", json!({})),
        node("user-2", "z2", json!({})),
        system,
        running("web-1", "user-1", web.clone(), json!({})),
        running("web-2", "user-2", web.clone(), json!({})),
    ];
    let spread = json!({"topologySpreadConstraints": [{"maxSkew": 1,
        "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "web"}}}]});
    let (table, doc) = whatif(&cluster, &pod(web.clone(), spread));
    assert_eq!(
        closest(&table, "sys-1"),
        "  sys-1: TaintToleration: the node is kept for critical add-ons (a system node pool) \
         (taint CriticalAddonsOnly=true:NoSchedule): tolerating it is not the fix"
    );
    assert_eq!(
        closest(&table, "user-1"),
        "  user-1: PodTopologySpread: placing it in topology.kubernetes.io/zone=z1 makes the \
         skew 2, above maxSkew 1; the global minimum 0 is held by topology.kubernetes.io/zone=z3, \
         where every node refuses the pod (TaintToleration), so that domain counts though the \
         pod cannot go there: nodeTaintsPolicy: Honor (tainted nodes then count in no domain)"
    );
    assert!(!table.contains("add the toleration"), "{table}");
    assert_eq!(
        suggestions(&doc, "user-2")[0]["change"]["skew"]["heldBy"],
        json!({"globalMin": 0, "domains": {"names": ["z3"], "count": 1},
            "refusedBy": ["TaintToleration"], "nodeTaintsPolicy": "Ignore",
            "nodeAffinityPolicy": "Honor"})
    );

    // A pod that tolerates the key in part was meant for such nodes: its toleration is fixed.
    let mut p = pod(web, json!({}));
    p["spec"]["tolerations"] =
        json!([{"key": "CriticalAddonsOnly", "operator": "Equal", "value": "false"}]);
    let (_, doc) = whatif(&cluster, &p);
    assert_eq!(
        suggestions(&doc, "sys-1")[0]["change"]["addToleration"]["toleration"],
        json!({"key": "CriticalAddonsOnly", "operator": "Equal", "value": "true",
            "effect": "NoSchedule"})
    );
}

/// Issue 61: the JSON's `tiedWith` named every tied node (hundreds on a large cluster): it
/// names three, as the table does, and `tiedCount` counts them all.
#[test]
fn ties_are_named_by_three_and_counted() {
    let cluster: Vec<Value> = (0..6)
        .map(|i| node(&format!("n{i}"), "z1", json!({})))
        .collect();
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "x"}]}}}});
    let (table, doc) = whatif(&cluster, &deployment);
    let first = &doc["workload"]["pods"][0];
    assert_eq!(first["tiedWith"], json!(["n1", "n2", "n3"]), "{first}");
    assert_eq!(first["tiedCount"], 5, "{first}");
    // The REASON column wraps on a narrow table.
    let words = table.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("top score, tied with n1, n2, n3 and 2 more"),
        "{table}"
    );
}
