//! `whatif -f` of a workload that exists: an update, rolled out as its controller rolls it
//! (Deployment RollingUpdate and Recreate, StatefulSet RollingUpdate with a partition, and
//! OnDelete), each new pod placed at the step its controller creates it, beside the old
//! pods still running then.

use serde_json::Value;

use crate::support::run;

/// Three nodes, one CPU and a half each.
const NODES: &str = r#"
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}, status: {allocatable: {cpu: 1500m, memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}, status: {allocatable: {cpu: 1500m, memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n3, labels: {kubernetes.io/hostname: n3}}, status: {allocatable: {cpu: 1500m, memory: 8Gi, pods: "110"}}}
"#;

/// ZooKeeper's rule: no two servers on a node.
const ANTI_AFFINITY: &str = "{podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: \
     [{labelSelector: {matchLabels: {app: zk}}, topologyKey: kubernetes.io/hostname}]}}";

/// The StatefulSet `zk` with its three servers, zk-`k` on node n`k+1` (zk-1 Pending when
/// `pending`).
fn zk_cluster(pending: bool) -> String {
    let mut text = format!(
        "apiVersion: v1\nkind: List\nitems:\n{NODES}- apiVersion: apps/v1\n  kind: StatefulSet\n  \
         metadata: {{name: zk, namespace: shop}}\n  spec:\n    replicas: 3\n    serviceName: zk-hs\n    \
         selector: {{matchLabels: {{app: zk}}}}\n    template:\n      metadata: {{labels: {{app: zk}}}}\n      \
         spec: {{affinity: {ANTI_AFFINITY}, containers: [{{name: zk, image: \"zk:3.8\", resources: \
         {{requests: {{cpu: \"1\"}}}}}}]}}\n"
    );
    for k in 0..3 {
        let (node, phase) = match (k, pending) {
            (1, true) => (String::new(), "Pending"),
            _ => (format!("nodeName: n{}, ", k + 1), "Running"),
        };
        text.push_str(&format!(
            "- {{apiVersion: v1, kind: Pod, metadata: {{name: zk-{k}, namespace: shop, labels: {{app: zk}}, \
             ownerReferences: [{{apiVersion: apps/v1, kind: StatefulSet, name: zk, uid: u1, controller: true}}]}}, \
             spec: {{{node}affinity: {ANTI_AFFINITY}, containers: [{{name: zk, image: \"zk:3.8\", \
             resources: {{requests: {{cpu: \"1\"}}}}}}]}}, status: {{phase: {phase}}}}}\n"
        ));
    }
    text
}

/// The fixed StatefulSet: a new image, `name` and `strategy` as given.
fn zk(name: &str, strategy: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  \
         replicas: 3\n  serviceName: zk-hs\n{strategy}  selector: {{matchLabels: {{app: zk}}}}\n  template:\n    \
         metadata: {{labels: {{app: zk}}}}\n    spec: {{affinity: {ANTI_AFFINITY}, containers: [{{name: zk, \
         image: \"zk:3.9\", resources: {{requests: {{cpu: \"1\"}}}}}}]}}\n"
    )
}

/// The Deployment `web` with three pods of its ReplicaSet `web-old`, one CPU each, one per
/// node: no node has room for a fourth.
fn web_cluster() -> String {
    let template = "{metadata: {labels: {app: web, pod-template-hash: old}}, spec: {containers: \
                    [{name: c, image: \"web:1\", resources: {requests: {cpu: \"1\"}}}]}}";
    let mut text = format!(
        "apiVersion: v1\nkind: List\nitems:\n{NODES}\
         - {{apiVersion: apps/v1, kind: Deployment, metadata: {{name: web, namespace: shop}}, spec: {{replicas: 3, \
         selector: {{matchLabels: {{app: web}}}}, template: {{metadata: {{labels: {{app: web}}}}, spec: {{containers: \
         [{{name: c, image: \"web:1\", resources: {{requests: {{cpu: \"1\"}}}}}}]}}}}}}}}\n\
         - {{apiVersion: apps/v1, kind: ReplicaSet, metadata: {{name: web-old, namespace: shop, ownerReferences: \
         [{{apiVersion: apps/v1, kind: Deployment, name: web, uid: d1, controller: true}}]}}, spec: {{replicas: 3, \
         selector: {{matchLabels: {{app: web, pod-template-hash: old}}}}, template: {template}}}}}\n"
    );
    for (k, node) in ["a", "b", "c"].iter().zip(["n1", "n2", "n3"]) {
        text.push_str(&format!(
            "- {{apiVersion: v1, kind: Pod, metadata: {{name: web-old-{k}, namespace: shop, labels: {{app: web, \
             pod-template-hash: old}}, ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: web-old, \
             uid: r1, controller: true}}]}}, spec: {{nodeName: {node}, containers: [{{name: c, image: \"web:1\", \
             resources: {{requests: {{cpu: \"1\"}}}}}}]}}, status: {{phase: Running}}}}\n"
        ));
    }
    text
}

/// The Deployment with a new image (`image`) and `strategy`.
fn web(image: &str, strategy: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: shop}}\nspec:\n  replicas: 3\n\
         {strategy}  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    \
         spec: {{containers: [{{name: c, image: \"{image}\", resources: {{requests: {{cpu: \"1\"}}}}}}]}}\n"
    )
}

struct Files(tempfile::TempDir);

impl Files {
    fn new() -> Files {
        Files(tempfile::tempdir().expect("temp dir"))
    }

    fn write(&self, name: &str, text: &str) -> String {
        let path = self.0.path().join(name);
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    }
}

/// `whatif -f manifest --snapshot cluster` with `extra` flags: exit code, standard output
/// and error.
fn whatif(manifest: &str, cluster: &str, extra: &[&str]) -> (i32, String, String) {
    let files = Files::new();
    let (m, c) = (
        files.write("m.yaml", manifest),
        files.write("c.yaml", cluster),
    );
    let mut args = vec!["whatif", "-f", &m, "--snapshot", &c];
    args.extend(extra);
    let out = run(&args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(manifest: &str, cluster: &str) -> Value {
    let (code, out, err) = whatif(manifest, cluster, &["-o", "json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("json")
}

/// Each new pod as `name@node` (`Pending`, or `-` when not created).
fn pods(doc: &Value) -> Vec<String> {
    let w = &doc["workload"];
    (w["pods"].as_array().expect("pods").iter())
        .map(|p| {
            let node = match (p["node"].as_str(), p.get("notCreated")) {
                (Some(n), _) => n,
                (None, Some(_)) => "-",
                (None, None) => "Pending",
            };
            format!("{}@{node}", p["name"].as_str().expect("name"))
        })
        .collect()
}

/// Per new pod, the old pod it replaces (`surge` for none).
fn replaces(doc: &Value) -> Vec<String> {
    let u = &doc["workload"]["update"];
    (u["pods"].as_array().expect("update.pods").iter())
        .map(|p| p["replaces"].as_str().unwrap_or("surge").to_string())
        .collect()
}

fn notes(doc: &Value) -> String {
    doc["workload"]["notes"].to_string()
}

/// The fixed ZooKeeper StatefulSet applied over the one that runs: rolled from zk-2 down to
/// zk-0, each old server gone before its new one is scheduled, so all three are placed on
/// the nodes the old ones leave. As a second StatefulSet beside them (another name), the
/// first server finds every node taken and the others are not created.
#[test]
fn a_stateful_set_update_replaces_each_ordinal_in_turn() {
    let cluster = zk_cluster(false);
    let doc = json(&zk("zk", ""), &cluster);
    assert_eq!(pods(&doc), ["zk-2@n3", "zk-1@n2", "zk-0@n1"]);
    assert_eq!(replaces(&doc), ["zk-2", "zk-1", "zk-0"]);
    let update = &doc["workload"]["update"];
    assert_eq!(update["strategy"], "RollingUpdate");
    assert_eq!(
        update["oldPods"],
        serde_json::json!(["zk-0", "zk-1", "zk-2"])
    );
    assert!(
        notes(&doc).contains(
            "StatefulSet shop/zk exists (3 pod(s)): applied, it is an update, rolled out as the \
             StatefulSet controller does, RollingUpdate: from the highest ordinal down, one at a time"
        ),
        "{}",
        notes(&doc)
    );
    let beside = json(&zk("zk2", ""), &cluster);
    assert_eq!(pods(&beside), ["zk2-0@Pending", "zk2-1@-", "zk2-2@-"]);
    assert!(beside["workload"].get("update").is_none());
}

/// `partition: 2`: only zk-2 takes the new template; the note names those kept.
#[test]
fn a_partition_keeps_the_lower_ordinals() {
    let strategy = "  updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 2}}\n";
    let doc = json(&zk("zk", strategy), &zk_cluster(false));
    assert_eq!(pods(&doc), ["zk-2@n3"]);
    assert_eq!(doc["workload"]["update"]["partition"], 2);
    assert!(
        notes(&doc).contains("partition 2: zk-0, zk-1 keep the old revision"),
        "{}",
        notes(&doc)
    );
}

/// OnDelete: the controller replaces nothing, and says so.
#[test]
fn on_delete_replaces_nothing() {
    let doc = json(
        &zk("zk", "  updateStrategy: {type: OnDelete}\n"),
        &zk_cluster(false),
    );
    assert_eq!(pods(&doc), Vec::<String>::new());
    assert_eq!(doc["workload"]["update"]["strategy"], "OnDelete");
    assert!(
        notes(&doc).contains(
            "updateStrategy OnDelete: the controller replaces no pod, so none is created; pods are \
             updated when you delete them"
        ),
        "{}",
        notes(&doc)
    );
    // What deleting zk-2 would give.
    assert_eq!(doc["summary"]["selected"], serde_json::json!(["n3"]));
}

/// OrderedReady: an old server that does not run holds the controller before any update.
#[test]
fn ordered_ready_waits_for_an_old_pod_that_does_not_run() {
    let doc = json(&zk("zk", ""), &zk_cluster(true));
    assert_eq!(pods(&doc), ["zk-0@-", "zk-1@-", "zk-2@-"]);
    assert_eq!(doc["workload"]["pods"][0]["notCreated"]["waitsFor"], "zk-1");
    assert!(
        notes(&doc).contains("zk-1 does not run, and with podManagementPolicy OrderedReady"),
        "{}",
        notes(&doc)
    );
}

/// RollingUpdate with maxSurge 1 (maxUnavailable 0): the first new pod is created beside the
/// three old ones, finds no room, and holds the rollout. With maxSurge 0 (maxUnavailable 1)
/// an old pod goes first, and each new pod takes the room one left.
#[test]
fn a_deployment_update_surges_or_makes_room_first() {
    let cluster = web_cluster();
    let surge = json(
        &web(
            "web:2",
            "  strategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}\n",
        ),
        &cluster,
    );
    assert_eq!(
        pods(&surge),
        ["web-<pod-0>@Pending", "web-<pod-1>@-", "web-<pod-2>@-"]
    );
    let first = &surge["workload"]["pods"][0];
    assert!(
        first["failedSchedulingMessage"]
            .as_str()
            .expect("message")
            .starts_with("0/3 nodes are available: 3 Insufficient cpu."),
        "{first}"
    );
    assert_eq!(
        surge["workload"]["pods"][1]["notCreated"]["waitsFor"],
        "web-<pod-0>"
    );
    assert_eq!(surge["workload"]["update"]["pods"][0]["oldRunning"], 3);
    assert_eq!(replaces(&surge)[0], "surge");
    assert!(
        notes(&surge).contains("RollingUpdate: maxSurge 1, maxUnavailable 0 (of 3 replicas)"),
        "{}",
        notes(&surge)
    );
    let room = json(
        &web(
            "web:2",
            "  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}\n",
        ),
        &cluster,
    );
    assert_eq!(
        pods(&room),
        ["web-<pod-0>@n3", "web-<pod-1>@n2", "web-<pod-2>@n1"]
    );
    assert_eq!(replaces(&room), ["web-old-c", "web-old-b", "web-old-a"]);
    assert!(
        notes(&room).contains("RollingUpdate: maxSurge 0, maxUnavailable 1 (of 3 replicas)"),
        "{}",
        notes(&room)
    );
    // The table's column says the same.
    let files = Files::new();
    let m = files.write(
        "m.yaml",
        &web("web:2", "  strategy: {rollingUpdate: {maxSurge: 1}}\n"),
    );
    let c = files.write("c.yaml", &cluster);
    let out = run(&["whatif", "-f", &m, "--snapshot", &c]);
    let table = String::from_utf8_lossy(&out.stdout);
    let row = table
        .lines()
        .find(|l| l.contains("web-<pod-0>"))
        .expect("row");
    assert!(row.contains("surge") && row.contains("Pending"), "{table}");
    assert!(table.contains("REPLACES"), "{table}");
}

/// Recreate: the old pods go first, then the new ones are placed at once.
#[test]
fn recreate_removes_the_old_pods_first() {
    let doc = json(
        &web("web:2", "  strategy: {type: Recreate}\n"),
        &web_cluster(),
    );
    assert_eq!(
        pods(&doc),
        ["web-<pod-0>@n1", "web-<pod-1>@n2", "web-<pod-2>@n3"]
    );
    assert_eq!(doc["workload"]["update"]["pods"][0]["oldRunning"], 0);
    assert!(
        notes(&doc).contains("Recreate: every old pod is removed first"),
        "{}",
        notes(&doc)
    );
}

/// The template the pods run: no rollout, and nothing created; `--replicas 4` is scaled
/// beside the pods, from their ReplicaSet.
#[test]
fn an_unchanged_template_is_no_rollout() {
    let cluster = web_cluster();
    let doc = json(&web("web:1", ""), &cluster);
    assert_eq!(pods(&doc), Vec::<String>::new());
    assert!(
        notes(&doc).contains("no rollout; nothing is created"),
        "{}",
        notes(&doc)
    );
    let (code, out, err) = whatif(
        &web("web:1", ""),
        &cluster,
        &["--replicas", "4", "-o", "json"],
    );
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(pods(&doc), ["web-old-<pod-3>@Pending"]);
    assert!(
        notes(&doc).contains(
            "Deployment shop/web exists (3 pod(s)): applied, it is an update, but \
             its pod template is the one its pods run"
        ),
        "{}",
        notes(&doc)
    );
}

/// Both fenceposts 0 is refused as the API server refuses it, naming the field.
#[test]
fn a_rolling_update_that_cannot_progress_is_refused() {
    let (code, _, err) = whatif(
        &web(
            "web:2",
            "  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 0}}\n",
        ),
        &web_cluster(),
        &[],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("spec.strategy.rollingUpdate.maxUnavailable")
            && err.contains("may not be 0 when `maxSurge` is 0"),
        "{err}"
    );
}

/// The DaemonSet `exporter` runs a pod binding host port 9100 on n1 and n2 (n3 has none).
fn exporter_cluster() -> String {
    let mut text = format!("apiVersion: v1\nkind: List\nitems:\n{NODES}");
    for node in ["n1", "n2"] {
        text.push_str(&format!(
            "- {{apiVersion: v1, kind: Pod, metadata: {{name: exporter-{node}, namespace: shop, labels: \
             {{app: exporter}}, ownerReferences: [{{apiVersion: apps/v1, kind: DaemonSet, name: exporter, \
             uid: e1, controller: true}}]}}, spec: {{nodeName: {node}, containers: [{{name: c, image: \
             \"exporter:1\", ports: [{{containerPort: 9100, hostPort: 9100}}]}}]}}, status: {{phase: Running}}}}\n"
        ));
    }
    text
}

/// The DaemonSet `name` with a new image, binding the same host port, and `strategy`.
fn exporter(name: &str, strategy: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n{strategy}  \
         selector: {{matchLabels: {{app: exporter}}}}\n  template:\n    metadata: {{labels: {{app: exporter}}}}\n    \
         spec: {{containers: [{{name: c, image: \"exporter:2\", ports: [{{containerPort: 9100, hostPort: 9100}}]}}]}}\n"
    )
}

/// A DaemonSet that exists is updated node by node: with maxSurge 0 (the default) and with
/// OnDelete each node's old pod goes before the new one comes, so its host port is free;
/// with maxSurge 1 the new pod is created beside the old one and the port is taken, as it is
/// for another DaemonSet binding it.
#[test]
fn a_daemon_set_update_replaces_each_nodes_pod_or_surges_beside_it() {
    let cluster = exporter_cluster();
    let feasible = |manifest: &str| -> (Vec<String>, String) {
        let doc = json(manifest, &cluster);
        let nodes = doc["nodes"].as_array().expect("nodes");
        let names = nodes
            .iter()
            .filter(|n| n["feasible"] == true)
            .map(|n| n["name"].as_str().unwrap_or_default().to_string())
            .collect();
        (names, doc["notes"].to_string())
    };
    let all = ["n1", "n2", "n3"].map(String::from).to_vec();
    let (nodes, notes) = feasible(&exporter("exporter", ""));
    assert_eq!(nodes, all);
    assert!(
        notes.contains("DaemonSet shop/exporter exists (2 pod(s)): applied, it is an update, rolled out as the DaemonSet controller does, RollingUpdate with maxSurge 0: on each node the old pod is deleted before the new one is created"),
        "{notes}"
    );
    let (nodes, notes) = feasible(&exporter(
        "exporter",
        "  updateStrategy: {type: OnDelete}\n",
    ));
    assert_eq!(nodes, all);
    assert!(notes.contains("updateStrategy OnDelete: the controller replaces no pod; each node's pod is updated when you delete it"), "{notes}");
    let surge = "  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}\n";
    let (nodes, notes) = feasible(&exporter("exporter", surge));
    assert_eq!(nodes, ["n3"]);
    assert!(
        notes.contains(
            "RollingUpdate with maxSurge 1: on each node the new pod is created beside the old one"
        ),
        "{notes}"
    );
    // Another DaemonSet is no update: the old pods hold the port.
    let (nodes, notes) = feasible(&exporter("exporter-v2", ""));
    assert_eq!(nodes, ["n3"]);
    assert!(!notes.contains("is an update"), "{notes}");
}
