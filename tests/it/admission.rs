//! `whatif` pods as the API server's admission plugins admit them: LimitRanger, RuntimeClass,
//! Priority's global default, PodNodeSelector; from a snapshot (run in this process as the
//! binary runs it) and live (through the binary).

// A panic here is a test's failure report.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::support;
use crate::support::fake_api::FakeApi;
use crate::support::write;

/// Two 1-CPU nodes (`a`: pool blue; `b`: pool green, kata runtime), a full node `c` for
/// preemption, and the admission objects the tests read.
const CLUSTER: &str = r#"apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata: {name: default}
- apiVersion: v1
  kind: Namespace
  metadata: {name: limited}
- apiVersion: v1
  kind: Namespace
  metadata:
    name: blue-team
    annotations:
      scheduler.alpha.kubernetes.io/node-selector: pool=blue
      owner.example.com/secret-note: not-for-snapshots
- apiVersion: v1
  kind: LimitRange
  metadata: {name: defaults, namespace: limited}
  spec:
    limits:
    - type: Container
      defaultRequest: {cpu: 1500m}
      max: {cpu: "2"}
- apiVersion: node.k8s.io/v1
  kind: RuntimeClass
  metadata: {name: kata}
  handler: kata
  overhead: {podFixed: {memory: 64Mi}}
  scheduling:
    nodeSelector: {runtime: kata}
- apiVersion: v1
  kind: Node
  metadata: {name: a, labels: {pool: blue}}
  status: {allocatable: {cpu: "1", memory: 4Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: b, labels: {pool: green, runtime: kata}}
  status: {allocatable: {cpu: "1", memory: 4Gi, pods: "110"}}
"#;

fn bin(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kubectl-affinity"));
    c.current_dir(dir)
        .env("NO_COLOR", "1")
        .env("HOME", dir)
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .env_remove("KUBERNETES_SERVICE_HOST");
    c
}

fn pod(dir: &Path, namespace: &str, spec: &str) -> PathBuf {
    write(
        dir,
        "pod.yaml",
        &format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: web, namespace: {namespace}}}\nspec:\n{spec}"
        ),
    )
}

fn whatif(dir: &Path, cluster: &str, namespace: &str, spec: &str) -> Output {
    whatif_with(dir, cluster, namespace, spec, &[])
}

fn whatif_with(dir: &Path, cluster: &str, namespace: &str, spec: &str, extra: &[&str]) -> Output {
    let snapshot = write(dir, "cluster.yaml", cluster);
    let manifest = pod(dir, namespace, spec);
    let (manifest, snapshot) = (manifest.to_str().unwrap(), snapshot.to_str().unwrap());
    let mut args = vec![
        "whatif",
        "-f",
        manifest,
        "--snapshot",
        snapshot,
        "-o",
        "json",
    ];
    args.extend(extra);
    support::run(&args)
}

fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn feasible(doc: &Value) -> Vec<&str> {
    doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["feasible"] == true)
        .map(|n| n["name"].as_str().unwrap())
        .collect()
}

fn notes(doc: &Value) -> String {
    doc["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

const NO_RESOURCES: &str = "  containers: [{name: app, image: nginx}]\n";

#[test]
fn a_limit_range_default_request_makes_the_pod_not_fit() {
    let dir = tempfile::tempdir().unwrap();
    // In `default` the pod requests nothing and fits both nodes.
    let doc = json(&whatif(dir.path(), CLUSTER, "default", NO_RESOURCES));
    assert_eq!(feasible(&doc), ["a", "b"]);
    // In `limited` LimitRanger gives it 1.5 CPU: no 1-CPU node fits.
    let doc = json(&whatif(dir.path(), CLUSTER, "limited", NO_RESOURCES));
    assert!(feasible(&doc).is_empty());
    assert_eq!(
        doc["summary"]["failedSchedulingMessage"],
        "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: \
         0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    );
    let said = notes(&doc);
    assert!(
        said.contains(
            "LimitRanger (LimitRange defaults): container app: limits.cpu=2; LimitRanger \
             (LimitRange defaults): container app: requests.cpu=1500m"
        ),
        "{said}"
    );
    // A container's own limit is its request (defaulting runs before admission): 500m fits.
    let own = "  containers: [{name: app, image: nginx, resources: {limits: {cpu: 500m}}}]\n";
    let doc = json(&whatif(dir.path(), CLUSTER, "limited", own));
    assert_eq!(feasible(&doc), ["a", "b"]);
    // Over the max: refused in LimitRanger's words.
    let over = "  containers: [{name: app, image: nginx, resources: {limits: {cpu: \"3\"}}}]\n";
    let out = whatif(dir.path(), CLUSTER, "limited", over);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "pods \"web\" is forbidden: maximum cpu usage per Container is 2, but limit is 3."
        ) && err.contains("LimitRanger"),
        "{err}"
    ); // `--validate=warn` evaluates the admitted pod anyway and says who would refuse it.
    let snapshot = dir.path().join("cluster.yaml");
    let manifest = pod(dir.path(), "limited", over);
    let out = support::run(&[
        "whatif",
        "--validate=warn",
        "-o",
        "json",
        "-f",
        manifest.to_str().unwrap(),
        "--snapshot",
        snapshot.to_str().unwrap(),
    ]);
    let doc = json(&out);
    assert!(feasible(&doc).is_empty());
    assert!(notes(&doc).contains(
        "the API server's LimitRanger admission plugin would refuse this pod (pods \"web\" is \
         forbidden: maximum cpu usage per Container is 2, but limit is 3.); evaluated anyway"
    ));
}

#[test]
fn a_runtime_class_node_selector_narrows_the_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let spec = "  runtimeClassName: kata\n  containers: [{name: app, image: nginx}]\n";
    let doc = json(&whatif(dir.path(), CLUSTER, "default", spec));
    assert_eq!(feasible(&doc), ["b"]);
    let a = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "a")
        .unwrap();
    assert_eq!(a["verdict"], "Infeasible");
    let notes = notes(&doc);
    assert!(
        notes.contains("RuntimeClass kata: overhead memory=64Mi")
            && notes.contains("RuntimeClass kata: nodeSelector runtime=kata"),
        "{notes}"
    );
    // A class that does not exist, or a nodeSelector that contradicts the class: refused.
    let spec = "  runtimeClassName: gvisor\n  containers: [{name: app, image: nginx}]\n";
    let out = whatif(dir.path(), CLUSTER, "default", spec);
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("pods \"web\" is forbidden: pod rejected: RuntimeClass \"gvisor\" not found")
    );
    let spec = "  runtimeClassName: kata\n  nodeSelector: {runtime: runc}\n  containers: [{name: app, image: nginx}]\n";
    let out = whatif(dir.path(), CLUSTER, "default", spec);
    assert!(String::from_utf8_lossy(&out.stderr).contains(
        "conflict: runtimeClass.scheduling.nodeSelector[runtime] = kata; pod.spec.nodeSelector[runtime] = runc"
    ));
}

#[test]
fn the_global_default_priority_class_makes_preemption_possible() {
    let dir = tempfile::tempdir().unwrap();
    let full = |global_default: bool| {
        format!(
            r#"apiVersion: v1
kind: List
items:
- {{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {{name: standard}}, value: 1000, globalDefault: {global_default}}}
- {{apiVersion: v1, kind: Node, metadata: {{name: a}}, status: {{allocatable: {{cpu: "1", memory: 4Gi, pods: "110"}}}}}}
- apiVersion: v1
  kind: Pod
  metadata: {{name: batch, namespace: default}}
  spec: {{nodeName: a, priority: 0, containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]}}
  status: {{phase: Running}}
"#
        )
    };
    let spec = "  containers: [{name: app, image: nginx, resources: {requests: {cpu: 500m}}}]\n";
    let preemption = |doc: &Value| {
        doc["postFilter"]
            .as_array()
            .and_then(|l| l.iter().find(|p| p["plugin"] == "DefaultPreemption"))
            .map(|p| p["preemption"].clone())
            .unwrap()
    };
    // Without a default class the pod has priority 0, as the running one: no victim.
    let doc = json(&whatif(dir.path(), &full(false), "default", spec));
    assert!(preemption(&doc)["nominatedNode"].is_null());
    // The global default gives it 1000: preempting `batch` makes room on `a`.
    let doc = json(&whatif(dir.path(), &full(true), "default", spec));
    assert_eq!(preemption(&doc)["nominatedNode"], "a");
    assert_eq!(
        preemption(&doc)["victims"],
        serde_json::json!(["default/batch"])
    );
}

/// PodNodeSelector is off unless enabled, as on kube-apiserver: the namespace's annotation
/// is then said and not applied; enabled, it is merged (or refuses a conflicting pod).
#[test]
fn a_namespace_node_selector_annotation_applies_only_with_its_plugin_enabled() {
    let dir = tempfile::tempdir().unwrap();
    let doc = json(&whatif(dir.path(), CLUSTER, "blue-team", NO_RESOURCES));
    assert!(feasible(&doc).len() > 1, "{:?}", feasible(&doc));
    assert!(
        notes(&doc).contains(
            "PodNodeSelector: off, so the namespace's \
             scheduler.alpha.kubernetes.io/node-selector annotation is not applied \
             (kube-apiserver enables it only when --enable-admission-plugins names it: pass \
             --enable-admission-plugins=PodNodeSelector if this cluster's API server does)"
        ),
        "{}",
        notes(&doc)
    );
    let enabled = ["--enable-admission-plugins", "PodNodeSelector"];
    let doc = json(&whatif_with(
        dir.path(),
        CLUSTER,
        "blue-team",
        NO_RESOURCES,
        &enabled,
    ));
    assert_eq!(feasible(&doc), ["a"]);
    let notes = notes(&doc);
    assert!(
        notes.contains("PodNodeSelector: nodeSelector pool=blue (from the namespace's scheduler.alpha.kubernetes.io/node-selector annotation; --enable-admission-plugins names PodNodeSelector"),
        "{notes}"
    );
    let spec = "  nodeSelector: {pool: green}\n  containers: [{name: app, image: nginx}]\n";
    let out = whatif_with(dir.path(), CLUSTER, "blue-team", spec, &enabled);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(
        "pods \"web\" is forbidden: pod node label selector conflicts with its namespace node label selector"
    ));
    // Disabled, a default plugin does nothing; an unknown name is refused, naming it.
    let out = whatif_with(
        dir.path(),
        CLUSTER,
        "limited",
        NO_RESOURCES,
        &[
            "--disable-admission-plugins",
            "LimitRanger,DefaultTolerationSeconds",
        ],
    );
    let notes = self::notes(&json(&out));
    assert!(
        !notes.contains("LimitRanger") && !notes.contains("DefaultToleration"),
        "{notes}"
    );
    let out = whatif_with(
        dir.path(),
        CLUSTER,
        "blue-team",
        NO_RESOURCES,
        &["--enable-admission-plugins", "PodNodeSelektor"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("admission plugin \"PodNodeSelektor\" is not one of kube-apiserver's"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Live, the objects are read with GETs only, the LimitRanges of the pod's namespace alone;
/// and `snapshot` writes them for `--snapshot` to read.
#[test]
fn live_admission_reads_what_it_needs_and_snapshot_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = write(dir.path(), "cluster.yaml", CLUSTER);
    let fake = FakeApi::start(&cluster);
    let kubeconfig = fake.kubeconfig(dir.path(), None);
    let manifest = pod(
        dir.path(),
        "limited",
        "  runtimeClassName: kata\n  containers: [{name: app, image: nginx}]\n",
    );
    let out = bin(dir.path())
        .args(["whatif", "-f"])
        .arg(&manifest)
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .args(["-o", "json"])
        .output()
        .unwrap();
    let doc = json(&out);
    assert!(feasible(&doc).is_empty());
    assert!(notes(&doc).contains("requests.cpu=1500m"));
    let seen = fake.seen();
    assert!(seen.iter().all(|s| s.method == "GET"));
    let paths: Vec<&str> = seen.iter().map(|s| s.path.as_str()).collect();
    assert!(paths.contains(&"/api/v1/namespaces/limited/limitranges"));
    assert!(paths.contains(&"/apis/node.k8s.io/v1/runtimeclasses"));
    assert!(!paths.contains(&"/api/v1/limitranges"));

    let out = bin(dir.path())
        .arg("snapshot")
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(written.contains("kind: LimitRange") && written.contains("kind: RuntimeClass"));
    // Of the namespaces' annotations, only those admission reads.
    assert!(written.contains("scheduler.alpha.kubernetes.io/node-selector: pool=blue"));
    assert!(!written.contains("secret-note"), "{written}");
    let doc = json(&whatif(dir.path(), &written, "limited", NO_RESOURCES));
    assert!(feasible(&doc).is_empty());
    let enabled = ["--enable-admission-plugins=PodNodeSelector"];
    let doc = json(&whatif_with(
        dir.path(),
        &written,
        "blue-team",
        NO_RESOURCES,
        &enabled,
    ));
    assert_eq!(feasible(&doc), ["a"]);
}

/// `--server-dry-run` makes exactly one request that is not a GET, a dry-run create, and
/// evaluates the pod the API server returns (here a webhook's nodeSelector); without the flag
/// every request is a GET; with a snapshot there is no server to ask.
#[test]
fn server_dry_run_evaluates_the_pod_the_api_server_returns() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = write(dir.path(), "cluster.yaml", CLUSTER);
    let fake = FakeApi::start(&cluster);
    fake.mutate_dry_run(serde_json::json!({"nodeSelector": {"pool": "green"}}));
    let kubeconfig = fake.kubeconfig(dir.path(), None);
    let manifest = pod(dir.path(), "default", NO_RESOURCES);
    let whatif = |extra: &[&str]| {
        bin(dir.path())
            .args(["whatif", "-o", "json", "-f"])
            .arg(&manifest)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .args(extra)
            .output()
            .unwrap()
    };
    let doc = json(&whatif(&["--server-dry-run"]));
    assert_eq!(feasible(&doc), ["b"]);
    assert_eq!(doc["pod"]["name"], "web");
    assert!(notes(&doc).contains("dry-run create (--server-dry-run, dryRun=All"));
    let seen = fake.seen();
    let posts: Vec<_> = seen.iter().filter(|s| s.method != "GET").collect();
    assert_eq!(posts.len(), 1, "{posts:?}");
    assert_eq!(posts[0].method, "POST");
    assert_eq!(posts[0].path, "/api/v1/namespaces/default/pods");
    assert!(posts[0].query.contains("dryRun=All"), "{}", posts[0].query);
    // No admission objects are read: the API server admitted the pod.
    assert!(!seen.iter().any(|s| s.path.ends_with("/limitranges")));

    fake.clear_seen();
    let doc = json(&whatif(&[]));
    assert_eq!(feasible(&doc), ["a", "b"]);
    assert!(fake.seen().iter().all(|s| s.method == "GET"));

    let out = support::run(&[
        "whatif",
        "--server-dry-run",
        "-f",
        manifest.to_str().unwrap(),
        "--snapshot",
        cluster.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--server-dry-run asks the live API server")
    );
}
