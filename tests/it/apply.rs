//! `whatif -f` as `kubectl apply -f`: several documents, files, directories and standard
//! input; the objects scheduling reads join the cluster (a Service changes default spreading),
//! the rest are skipped and counted in one note; the manifests are scheduled in input order,
//! each seeing the pods placed before it.

use std::io::Write;
use std::process::Stdio;

use serde_json::Value;

use crate::support::{kubectl_affinity, run};

/// Four untainted nodes; two pods labelled `app: web` on n1 and two others on each other
/// node, none with requests: every node is equal for resources, only spreading by the
/// `app: web` pods tells them apart.
const CLUSTER: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: shop}}
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n3, labels: {kubernetes.io/hostname: n3}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: web-a, namespace: shop, labels: {app: web}}, spec: {nodeName: n1, containers: [{name: c, image: x}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: web-b, namespace: shop, labels: {app: web}}, spec: {nodeName: n1, containers: [{name: c, image: x}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: o-2a, namespace: shop, labels: {app: o}}, spec: {nodeName: n2, containers: [{name: c, image: x}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: o-2b, namespace: shop, labels: {app: o}}, spec: {nodeName: n2, containers: [{name: c, image: x}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: o-3a, namespace: shop, labels: {app: o}}, spec: {nodeName: n3, containers: [{name: c, image: x}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: o-3b, namespace: shop, labels: {app: o}}, spec: {nodeName: n3, containers: [{name: c, image: x}]}, status: {phase: Running}}
"#;

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: web-new, namespace: shop, labels: {app: web}}\n\
                   spec: {containers: [{name: c, image: x}]}\n";

const SERVICE: &str = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n\
                       spec: {selector: {app: web}, ports: [{port: 80}]}\n";

struct Files(tempfile::TempDir);

impl Files {
    fn new() -> Files {
        Files(tempfile::tempdir().expect("temp dir"))
    }

    fn write(&self, name: &str, text: &str) -> String {
        let path = self.0.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    }
}

fn json_of(args: &[&str]) -> Vec<Value> {
    let out = run(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::Deserializer::from_slice(&out.stdout)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .expect("JSON documents")
}

fn selected(doc: &Value) -> Vec<&str> {
    doc["summary"]["selected"]
        .as_array()
        .expect("selected")
        .iter()
        .filter_map(Value::as_str)
        .collect()
}

fn notes(doc: &Value) -> String {
    doc["notes"].to_string()
}

/// A Service in the same file selects the pod: default spreading counts the two `app: web`
/// pods on n1 against it, so n1 is no longer among the best; without it every node ties.
#[test]
fn a_service_in_the_file_changes_default_spreading() {
    let files = Files::new();
    let cluster = files.write("cluster.yaml", CLUSTER);
    let alone = files.write("pod.yaml", POD);
    let both = files.write("both.yaml", &format!("{SERVICE}---\n{POD}"));
    let without = json_of(&[
        "whatif",
        "-f",
        &alone,
        "--snapshot",
        &cluster,
        "-n",
        "shop",
        "-o",
        "json",
    ]);
    assert_eq!(selected(&without[0]), ["n1", "n2", "n3"]);
    let with = json_of(&[
        "whatif",
        "-f",
        &both,
        "--snapshot",
        &cluster,
        "-n",
        "shop",
        "-o",
        "json",
    ]);
    assert_eq!(with.len(), 1, "the Service is not a pod to explain");
    assert_eq!(selected(&with[0]), ["n2", "n3"]);
    assert_eq!(
        with[0]["topologySpread"]["constraints"][0]["selector"],
        "app=web"
    );
    assert!(
        notes(&with[0]).contains(
            "applied as `kubectl apply -f` would: 1 Service joined the cluster before the pods \
             were created"
        ),
        "{}",
        notes(&with[0])
    );
}

/// `helm template`'s output on standard input: comments naming each template, a
/// ServiceAccount and a ConfigMap (skipped, counted), a Service (joins, its selector in the
/// default constraints), a Deployment whose replicas come from its ReplicaSet.
#[test]
fn helm_template_output_on_standard_input() {
    let files = Files::new();
    let cluster = files.write("cluster.yaml", CLUSTER);
    let chart = "---\n# Source: web/templates/serviceaccount.yaml\napiVersion: v1\nkind: ServiceAccount\n\
                 metadata: {name: web, namespace: shop}\n---\n# Source: web/templates/configmap.yaml\n\
                 apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: shop}\ndata: {a: b}\n---\n\
                 # Source: web/templates/service.yaml\napiVersion: v1\nkind: Service\n\
                 metadata: {name: web, namespace: shop}\nspec: {selector: {app: web}, ports: [{port: 80}]}\n---\n\
                 # Source: web/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\n\
                 metadata: {name: web, namespace: shop}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  \
                 template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: x}]}\n";
    let mut child = kubectl_affinity()
        .args(["whatif", "-f", "-", "--snapshot", &cluster, "-o", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the binary");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(chart.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    let w = &doc["workload"];
    assert_eq!(
        (w["kind"].as_str(), w["placed"].as_u64()),
        (Some("Deployment"), Some(2))
    );
    let nodes: Vec<&str> = w["pods"]
        .as_array()
        .expect("pods")
        .iter()
        .filter_map(|p| p["node"].as_str())
        .collect();
    // The Service's selector and the ReplicaSet's (pod-template-hash) both select: the two
    // `app: web` pods on n1 are not the ReplicaSet's, so the replicas spread from one another
    // only, from n1 (first by name).
    assert_eq!(nodes, ["n1", "n2"]);
    let selector = doc["topologySpread"]["constraints"][0]["selector"]
        .as_str()
        .expect("a selector");
    assert!(
        selector.starts_with("app=web,app=web,pod-template-hash="),
        "{selector}"
    );
    assert!(
        notes(&doc).contains(
            "1 Service joined the cluster before the pods were created; 1 ConfigMap, 1 \
             ServiceAccount skipped (the scheduler reads nothing of them)"
        ),
        "{}",
        notes(&doc)
    );
}

/// A Deployment with and without a Service that exists: the Service's selector joins its
/// ReplicaSet's in the default constraints, and the replicas avoid the Service's pods.
#[test]
fn a_deployment_with_and_without_an_existing_service() {
    let files = Files::new();
    let deployment = files.write(
        "web.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  \
         replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: \
         {app: web}}\n    spec: {containers: [{name: c, image: x}]}\n",
    );
    let placements = |cluster: &str| {
        let cluster = files.write("c.yaml", cluster);
        let doc = json_of(&[
            "whatif",
            "-f",
            &deployment,
            "--snapshot",
            &cluster,
            "-o",
            "json",
        ])
        .remove(0);
        let nodes: Vec<String> = doc["workload"]["pods"]
            .as_array()
            .expect("pods")
            .iter()
            .map(|p| p["node"].as_str().unwrap_or("Pending").to_string())
            .collect();
        let selector = doc["topologySpread"]["constraints"][0]["selector"].clone();
        (nodes, selector)
    };
    // Without the Service, only the ReplicaSet selects: its pod-template-hash matches none of
    // the existing pods, the replicas spread from one another only (n1 first by name, then n2).
    let (nodes, selector) = placements(CLUSTER);
    assert_eq!(nodes, ["n1", "n2"]);
    let selector = selector.as_str().expect("a selector").to_string();
    assert!(
        selector.starts_with("app=web,pod-template-hash="),
        "{selector}"
    );
    // With it, its selector is merged in; the replicas still count only their own (the hash).
    let with_service = format!(
        "{CLUSTER}- {{apiVersion: v1, kind: Service, metadata: {{name: web, namespace: shop}}, \
         spec: {{selector: {{app: web}}}}}}\n"
    );
    let (nodes, with) = placements(&with_service);
    assert_eq!(nodes, ["n1", "n2"]);
    assert_eq!(with, format!("app=web,{selector}"));
}

/// The manifests of several files, a directory's in name order (its subdirectories' with
/// -R), are scheduled in input order, each seeing the pods placed before it: a second pod
/// that may not share a node with the first goes elsewhere.
#[test]
fn several_files_and_directories_in_input_order() {
    let files = Files::new();
    let cluster = files.write("cluster.yaml", CLUSTER);
    let pod = |name: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: shop, labels: {{app: x}}}}\n\
             spec:\n  containers: [{{name: c, image: x}}]\n  affinity:\n    podAntiAffinity:\n      \
             requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {{matchLabels: {{app: x}}}}\n        \
             topologyKey: kubernetes.io/hostname\n"
        )
    };
    let a = files.write("in/a.yaml", &pod("a"));
    files.write("in/b.json", &json_of_yaml(&pod("b")).to_string());
    files.write("in/notes.txt", "not a manifest");
    files.write("in/sub/c.yaml", &pod("c"));
    let picks = |docs: Vec<Value>| -> Vec<(String, Vec<String>)> {
        docs.iter()
            .map(|d| {
                (
                    d["pod"]["name"].as_str().unwrap_or("").to_string(),
                    selected(d).iter().map(|s| s.to_string()).collect(),
                )
            })
            .collect()
    };
    let dir = files.0.path().join("in").display().to_string();
    let docs = json_of(&["whatif", "-f", &dir, "--snapshot", &cluster, "-o", "json"]);
    let got = picks(docs);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].0, "a");
    assert_eq!(got[0].1, ["n1", "n2", "n3"]);
    // a is on n1 (first by name): b may not join it.
    assert_eq!(got[1].0, "b");
    assert_eq!(got[1].1, ["n2", "n3"]);
    let docs = json_of(&[
        "whatif",
        "-f",
        &dir,
        "-R",
        "-f",
        &a,
        "--snapshot",
        &cluster,
        "-o",
        "json",
    ]);
    let got = picks(docs);
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a", "b", "c", "a"]);
    assert_eq!(got[2].1, ["n3"]);
    assert!(
        got[3].1.is_empty(),
        "no node is left for the fourth: {got:?}"
    );
}

/// A pod's YAML as JSON (the library's reader, then k8s-openapi's writer), for the
/// directory's `.json` file.
fn json_of_yaml(text: &str) -> Value {
    let objects = kubectl_affinity::state::read_pod_manifests_str(text, "t.yaml").expect("pod");
    serde_json::to_value(&objects[0].pod).expect("pod as JSON")
}

/// Two GPU replicas that each need preemption: the first is nominated to node a and its
/// victim deleted; the second counts the first there (the scheduler's
/// `RunFilterPluginsWithNominatedPods`, in preemption's dry run too), so it preempts on b.
/// The table's PREEMPTS column, the note and the JSON say where and whom. The PriorityClass
/// comes in the same file and admits the replicas at 1000.
#[test]
fn two_replicas_that_each_preempt() {
    let files = Files::new();
    let node = |name: &str| {
        format!(
            "- {{apiVersion: v1, kind: Node, metadata: {{name: {name}, labels: \
             {{kubernetes.io/hostname: {name}}}}}, status: {{allocatable: {{cpu: \"8\", \
             memory: 8Gi, pods: \"110\", nvidia.com/gpu: \"1\"}}}}}}\n"
        )
    };
    let low = |name: &str, node: &str| {
        format!(
            "- {{apiVersion: v1, kind: Pod, metadata: {{name: {name}, namespace: shop}}, spec: \
             {{nodeName: {node}, priority: 0, containers: [{{name: c, image: x, resources: \
             {{limits: {{nvidia.com/gpu: \"1\"}}}}}}]}}, status: {{phase: Running}}}}\n"
        )
    };
    let cluster = files.write(
        "cluster.yaml",
        &format!(
            "apiVersion: v1\nkind: List\nitems:\n- {{apiVersion: v1, kind: Namespace, \
             metadata: {{name: shop}}}}\n{}{}{}{}",
            node("a"),
            node("b"),
            low("low-a", "a"),
            low("low-b", "b"),
        ),
    );
    let manifest = files.write(
        "gpu.yaml",
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n---\n\
         apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: train, namespace: shop}\nspec:\n  replicas: 2\n  \
         selector: {matchLabels: {app: train}}\n  template:\n    metadata: {labels: {app: train}}\n    spec:\n      \
         priorityClassName: high\n      containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: \"1\"}}}]\n",
    );
    let doc = json_of(&[
        "whatif",
        "-f",
        &manifest,
        "--snapshot",
        &cluster,
        "-o",
        "json",
    ])
    .remove(0);
    let w = &doc["workload"];
    for p in w["pods"].as_array().expect("pods") {
        assert!(
            p["node"].is_null(),
            "a preempting replica stays Pending: {p}"
        );
    }
    assert_eq!(
        w["pods"][0]["preemption"],
        serde_json::json!({"nominatedNode": "a", "victims": ["shop/low-a"]}),
        "{w}"
    );
    assert_eq!(
        w["pods"][1]["preemption"],
        serde_json::json!({"nominatedNode": "b", "victims": ["shop/low-b"]}),
        "the first is counted on a: {w}"
    );
    // A preemption that nominates ends its cycle without a PostFilter message; on a, the
    // second replica is rejected with the first counted there.
    for i in 0..2 {
        assert_eq!(
            w["pods"][i]["failedSchedulingMessage"],
            "0/2 nodes are available: 2 Insufficient nvidia.com/gpu.",
            "{w}"
        );
    }
    // The table: the column, and the note on each nomination.
    let out = run(&["whatif", "-f", &manifest, "--snapshot", &cluster]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("PREEMPTS"), "{text}");
    assert!(
        text.contains("on a: 1 victim") && text.contains("on b: 1 victim"),
        "{text}"
    );
    for (replica, node) in [(0, "a"), (1, "b")] {
        let note = format!(
            "replica {replica}: preemption would nominate node {node} and evict its victims; \
             the replica stays Pending, nominated to {node}, and its victims are deleted"
        );
        assert!(text.replace('\n', " ").contains(&note), "{text}");
    }
}
