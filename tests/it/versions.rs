//! `--kubernetes-version`: for each release in `../shared/versions`, a case whose answer
//! differs from 1.35's, and the default taken from what a snapshot records (run in this
//! process as the binary runs it) or the API server says (through the binary).

// A panic here is a test's failure report.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::support;
use crate::support::fake_api::FakeApi;

/// A node tainted `dedicated=gpu:NoSchedule`, and a 2-CPU one.
const CLUSTER: &str = r#"apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: gpu}
  spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}
  status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: small}
  status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
"#;

/// Requests more CPU than `small` has.
const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: default}\n\
                   spec:\n  containers: [{name: app, image: nginx, resources: {requests: {cpu: \"4\"}}}]\n";

fn run(dir: &Path, cluster: &str, args: &[&str]) -> Output {
    let (snapshot, pod) = (dir.join("cluster.yaml"), dir.join("pod.yaml"));
    std::fs::write(&snapshot, cluster).unwrap();
    std::fs::write(&pod, POD).unwrap();
    let (snapshot, pod) = (snapshot.to_str().unwrap(), pod.to_str().unwrap());
    let mut line = vec!["whatif", "-f", pod, "--snapshot", snapshot, "-o", "json"];
    line.extend(args);
    support::run(&line)
}

fn message(dir: &Path, cluster: &str, args: &[&str]) -> (String, Value) {
    let out = run(dir, cluster, args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = doc["summary"]["failedSchedulingMessage"]
        .as_str()
        .unwrap()
        .to_string();
    (m, doc)
}

#[test]
fn each_release_before_1_34_names_the_taint_and_dry_runs_preemption() {
    let dir = tempfile::tempdir().unwrap();
    let (m, doc) = message(dir.path(), CLUSTER, &[]);
    assert_eq!(
        m,
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s). \
         no new claims to deallocate, preemption: 0/2 nodes are available: \
         2 Preemption is not helpful for scheduling."
    );
    assert_eq!(doc["scheduler"]["kubernetesVersion"], "1.35");
    for release in ["1.31", "1.32", "1.33"] {
        let (m, doc) = message(dir.path(), CLUSTER, &["--kubernetes-version", release]);
        // The taint named, NodeResourcesFit Unschedulable (so preemption dry-runs the node),
        // and no DynamicResources PostFilter before preemption's message.
        assert_eq!(
            m,
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint \
             {dedicated: gpu}. preemption: 0/2 nodes are available: 1 No preemption victims \
             found for incoming pod, 1 Preemption is not helpful for scheduling.",
            "{release}"
        );
        assert_eq!(doc["scheduler"]["kubernetesVersion"], release);
        let notes = doc["notes"].to_string();
        assert!(notes.contains(&format!("emulating kube-scheduler {release}")));
    }
}

#[test]
fn release_1_34_has_no_gate_of_1_35() {
    let dir = tempfile::tempdir().unwrap();
    let gate = ["--feature-gates", "TaintTolerationComparisonOperators=true"];
    assert!(run(dir.path(), CLUSTER, &gate).status.success());
    let mut args = gate.to_vec();
    args.extend(["--kubernetes-version", "1.34"]);
    let out = run(dir.path(), CLUSTER, &args);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(
        "unrecognized feature gate: TaintTolerationComparisonOperators (kube-scheduler 1.34 does not have it)"
    ));
    // Its messages are 1.35's: it said so in the report.
    let (m, doc) = message(dir.path(), CLUSTER, &["--kubernetes-version", "v1.34.7"]);
    assert!(m.contains("untolerated taint(s). no new claims to deallocate"));
    assert_eq!(doc["scheduler"]["kubernetesVersion"], "1.34");
}

#[test]
fn a_snapshot_recording_its_version_is_emulated_as_that_release() {
    let dir = tempfile::tempdir().unwrap();
    let recorded = format!("# kubernetesVersion: v1.33.5-eks.2\n{CLUSTER}");
    let (m, doc) = message(dir.path(), &recorded, &[]);
    assert_eq!(doc["scheduler"]["kubernetesVersion"], "1.33");
    assert!(m.contains("untolerated taint {dedicated: gpu}"));
    // The flag wins.
    let (_, doc) = message(dir.path(), &recorded, &["--kubernetes-version", "1.35"]);
    assert_eq!(doc["scheduler"]["kubernetesVersion"], "1.35");
    let out = run(dir.path(), CLUSTER, &["--kubernetes-version", "1.29"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("use one of 1.31, 1.32, 1.33, 1.34, 1.35")
    );
}

#[test]
fn live_the_api_servers_version_is_emulated() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cluster.yaml"), CLUSTER).unwrap();
    std::fs::write(dir.path().join("pod.yaml"), POD).unwrap();
    let fake = FakeApi::start(&dir.path().join("cluster.yaml"));
    fake.set_version("v1.32.9");
    let kubeconfig = fake.kubeconfig(dir.path(), None);
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-affinity"))
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .args(["whatif", "-f", "pod.yaml", "-o", "json", "--kubeconfig"])
        .arg(&kubeconfig)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["scheduler"]["kubernetesVersion"], "1.32");
    assert!(
        doc["summary"]["failedSchedulingMessage"]
            .as_str()
            .unwrap()
            .contains("untolerated taint {dedicated: gpu}")
    );
    assert!(fake.seen().iter().any(|s| s.path == "/version"));
}
