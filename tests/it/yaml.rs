//! YAML as kubectl reads it: anchors, aliases and `<<` merge keys expanded (sigs.k8s.io/yaml
//! expands them with go-yaml), an alias bomb refused by what it expands to, and a YAML
//! snapshot read to the same answers as the same content in JSON.

use serde_json::Value;

use crate::support::{node, run};

/// A test input written to `dir`, as a command-line word.
fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    crate::support::write(dir, name, text).display().to_string()
}

/// Three nodes: `small` (2 CPUs) and `big` (4 CPUs) in pool `big`, `other` (8 CPUs) in pool
/// `other`; their labels shared through an anchor, as PyYAML writes a value met twice.
const SNAPSHOT: &str = r#"apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata: {name: default}
- apiVersion: v1
  kind: Node
  metadata:
    name: small
    labels: &big-pool
      pool: big
      topology.kubernetes.io/zone: a
  status:
    allocatable: &two {cpu: "2", memory: 8Gi, pods: "110"}
    capacity: *two
- apiVersion: v1
  kind: Node
  metadata:
    name: big
    labels: *big-pool
  status:
    allocatable: &four {cpu: "4", memory: 8Gi, pods: "110"}
    capacity: *four
- apiVersion: v1
  kind: Node
  metadata:
    name: other
    labels: {pool: other, topology.kubernetes.io/zone: a}
  status:
    allocatable: &eight {cpu: "8", memory: 8Gi, pods: "110"}
    capacity: *eight
"#;

/// A Deployment whose two containers share `resources: *res` (1500m each: 3 CPUs in all, more
/// than `small` has, where one container alone would fit) and whose pod's labels and node
/// selector come through `<<` merge keys.
const DEPLOYMENT: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
  labels: &labels {app: web, tier: frontend}
spec:
  replicas: 1
  selector:
    matchLabels: *labels
  template:
    metadata:
      labels:
        <<: *labels
        track: stable
    spec:
      nodeSelector:
        <<: {pool: big}
      containers:
      - name: app
        image: nginx
        resources: &res
          requests: {cpu: 1500m, memory: 1Gi}
      - name: sidecar
        image: envoy
        resources: *res
"#;

fn json_of(args: &[&str]) -> Value {
    let out = run(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn anchors_aliases_and_merge_keys_are_expanded_as_kubectl_expands_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let snapshot = write(dir.path(), "cluster.yaml", SNAPSHOT);
    let manifest = write(dir.path(), "web.yaml", DEPLOYMENT);
    let doc = json_of(&[
        "whatif",
        "-f",
        &manifest,
        "--snapshot",
        &snapshot,
        "-o",
        "json",
    ]);
    // The aliased node labels and allocatable were read: three nodes, two in pool `big`.
    assert_eq!(doc["summary"]["nodes"], 3);
    let feasible: Vec<&str> = doc["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .filter(|n| n["feasible"] == true)
        .filter_map(|n| n["name"].as_str())
        .collect();
    assert_eq!(feasible, ["big"]);
    // Both containers' requests counted: 3 CPUs do not fit in 2.
    let small = node(&doc, "small").to_string();
    assert!(small.contains("Insufficient cpu"), "{small}");
    // The merged node selector applied.
    let other = node(&doc, "other").to_string();
    assert!(
        other.contains("didn't match Pod's node affinity/selector"),
        "{other}"
    );
    assert!(!other.contains("Insufficient cpu"), "{other}");
}

/// PyYAML writes an anchor for an object it meets twice, and an alias at every other use:
/// hundreds of aliases of a few anchors are ordinary, not a bomb.
#[test]
fn many_aliases_of_one_anchor_are_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut text = SNAPSHOT.to_string();
    for i in 0..300 {
        text.push_str(&format!(
            "- {{apiVersion: v1, kind: Node, metadata: {{name: n{i}, labels: *big-pool}}, \
             status: {{allocatable: *four, capacity: *four}}}}\n"
        ));
    }
    let snapshot = write(dir.path(), "cluster.yaml", &text);
    let manifest = write(dir.path(), "web.yaml", DEPLOYMENT);
    let doc = json_of(&[
        "whatif",
        "-f",
        &manifest,
        "--snapshot",
        &snapshot,
        "-o",
        "json",
    ]);
    assert_eq!(doc["summary"]["nodes"], 303);
    assert_eq!(doc["summary"]["feasible"], 301);
}

/// A self-expanding document (ten levels of ten aliases each) is refused, naming the file and
/// what it is, as a manifest and as a snapshot.
#[test]
fn a_billion_laughs_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut text = String::from(
        "apiVersion: v1\nkind: List\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
    );
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    text.push_str("items: []\n");
    let bomb = write(dir.path(), "laughs.yaml", &text);
    let snapshot = write(dir.path(), "cluster.yaml", SNAPSHOT);
    for args in [
        vec!["whatif", "-f", &bomb, "--snapshot", &snapshot],
        vec![
            "whatif",
            "-f",
            "examples/web-store.yaml",
            "--snapshot",
            &bomb,
        ],
    ] {
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.starts_with(&format!("error: {bomb}: not valid YAML or JSON: line ")),
            "{err}"
        );
        assert!(
            err.contains("YAML aliases (*name) expand it far beyond its size (an alias bomb?)"),
            "{err}"
        );
    }
}

/// The same cluster as a YAML `List` and as a JSON one gives the same answer, and so does
/// the YAML list written as `kubectl affinity snapshot` writes it (`kind` after `items`).
#[test]
fn a_yaml_snapshot_answers_as_the_same_json_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    let size = kubectl_affinity_testkit::cluster_gen::Size {
        nodes: 20,
        pods_per_node: 10,
    };
    let mut json = Vec::new();
    kubectl_affinity_testkit::cluster_gen::write_list(size, &mut json).expect("generate");
    let list: Value = serde_json::from_slice(&json).expect("JSON");
    let as_json = write(
        dir.path(),
        "cluster.json",
        &String::from_utf8(json).expect("UTF-8"),
    );
    let yaml = serde_saphyr::to_string(&list).expect("YAML");
    let as_yaml = write(dir.path(), "cluster.yaml", &yaml);
    // `items` first, `kind` last.
    let mut reordered = serde_json::Map::new();
    reordered.insert("items".to_string(), list["items"].clone());
    reordered.insert("kind".to_string(), list["kind"].clone());
    let kind_last = serde_saphyr::to_string(&Value::Object(reordered)).expect("YAML");
    assert!(kind_last.starts_with("items:"), "{}", &kind_last[..20]);
    let as_snapshot = write(dir.path(), "snapshot.yaml", &kind_last);
    let manifest = write(dir.path(), "web.yaml", DEPLOYMENT);
    let answer = |snapshot: &str| {
        let out = run(&[
            "whatif",
            "-f",
            &manifest,
            "--snapshot",
            snapshot,
            "-o",
            "json",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .expect("UTF-8")
            .replace(snapshot, "SNAPSHOT")
    };
    let from_json = answer(&as_json);
    assert!(from_json.contains("\"nodes\": 20") || from_json.contains("\"nodes\":20"));
    assert_eq!(answer(&as_yaml), from_json);
    assert_eq!(answer(&as_snapshot), from_json);
}
