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
        String::from_utf8_lossy(&out.stderr)
            .contains("use one of 1.31, 1.32, 1.33, 1.34, 1.35, 1.36")
    );
}

/// An empty 32-CPU / 64Gi node and a 16-CPU one: a pod asking only for memory is scored by
/// BalancedAllocation as the balance it leaves (1.35) or the change it makes (1.36).
const TWO_NODES: &str = r#"apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: big}
  status: {allocatable: {cpu: "32", memory: 64Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: mid}
  status: {allocatable: {cpu: "16", memory: 64Gi, pods: "110"}}
"#;

/// The pod's weighted BalancedAllocation score on `big`.
fn balanced_on_big(doc: &Value) -> i64 {
    let node = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "big")
        .unwrap();
    node["scores"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["plugin"] == "NodeResourcesBalancedAllocation")
        .unwrap()["weighted"]
        .as_i64()
        .unwrap()
}

fn scored(dir: &Path, cluster: &str, args: &[&str]) -> Value {
    let (snapshot, pod) = (dir.join("cluster.yaml"), dir.join("pod.yaml"));
    std::fs::write(&snapshot, cluster).unwrap();
    std::fs::write(
        &pod,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: m, namespace: default}\nspec:\n  \
         containers: [{name: app, image: nginx, resources: {requests: {memory: 2Gi}}}]\n",
    )
    .unwrap();
    let (snapshot, pod) = (snapshot.to_str().unwrap(), pod.to_str().unwrap());
    let mut line = vec!["whatif", "-f", pod, "--snapshot", snapshot, "-o", "json"];
    line.extend(args);
    let out = support::run(&line);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_snapshot_recording_1_36_is_emulated_as_1_36_and_1_37_as_1_36_said() {
    let dir = tempfile::tempdir().unwrap();
    // 1.35: B(with pod) = 98; 1.36: 50 + (50 + 98 - 100) / 2 = 74.
    let doc = scored(dir.path(), TWO_NODES, &[]);
    assert_eq!(balanced_on_big(&doc), 98);
    let doc = scored(
        dir.path(),
        &format!("# kubernetesVersion: v1.36.2\n{TWO_NODES}"),
        &[],
    );
    assert_eq!(doc["scheduler"]["kubernetesVersion"], "1.36");
    assert_eq!(balanced_on_big(&doc), 74);
    let notes = doc["notes"].to_string();
    assert!(notes.contains("emulating kube-scheduler 1.36"), "{notes}");
    assert!(!notes.contains("newer than the newest"), "{notes}");

    let doc = scored(
        dir.path(),
        &format!("# kubernetesVersion: v1.37.1\n{TWO_NODES}"),
        &[],
    );
    assert_eq!(doc["scheduler"]["kubernetesVersion"], "1.36");
    assert_eq!(balanced_on_big(&doc), 74);
    let notes = doc["notes"].to_string();
    assert!(
        notes.contains("the cluster runs v1.37.1, newer than the newest release this version emulates: evaluated as kube-scheduler 1.36"),
        "{notes}"
    );
}

#[test]
fn a_snapshot_older_than_1_31_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        dir.path(),
        &format!("# kubernetesVersion: v1.30.14\n{CLUSTER}"),
        &[],
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "kube-scheduler v1.30.14 is older than the oldest release this version emulates (1.31)"
        ) && stderr.contains("--kubernetes-version"),
        "{stderr}"
    );
    // The flag still chooses.
    let out = run(
        dir.path(),
        &format!("# kubernetesVersion: v1.30.14\n{CLUSTER}"),
        &["--kubernetes-version", "1.31"],
    );
    assert!(out.status.success());
}

#[test]
fn a_snapshot_on_standard_input_is_emulated_as_the_release_it_records() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pod.yaml"), POD).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-affinity"))
        .current_dir(dir.path())
        .args(["whatif", "-f", "pod.yaml", "--snapshot", "-", "-o", "json"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("# kubernetesVersion: v1.33.5\n{CLUSTER}").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["scheduler"]["kubernetesVersion"], "1.33");
    assert!(
        doc["summary"]["failedSchedulingMessage"]
            .as_str()
            .unwrap()
            .contains("untolerated taint {dedicated: gpu}")
    );
}

/// The live API server's `/version` of 1.36 and of 1.37 (newer than the newest emulated).
#[test]
fn live_servers_of_1_36_and_1_37_are_emulated_as_1_36() {
    for (version, note) in [("v1.36.2", false), ("v1.37.1", true)] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("cluster.yaml"), TWO_NODES).unwrap();
        std::fs::write(
            dir.path().join("pod.yaml"),
            "apiVersion: v1\nkind: Pod\nmetadata: {name: m, namespace: default}\nspec:\n  \
             containers: [{name: app, image: nginx, resources: {requests: {memory: 2Gi}}}]\n",
        )
        .unwrap();
        let fake = FakeApi::start(&dir.path().join("cluster.yaml"));
        fake.set_version(version);
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
        assert_eq!(doc["scheduler"]["kubernetesVersion"], "1.36", "{version}");
        assert_eq!(balanced_on_big(&doc), 74, "{version}");
        let notes = doc["notes"].to_string();
        assert_eq!(
            notes.contains(&format!(
                "the cluster runs {version}, newer than the newest"
            )),
            note,
            "{notes}"
        );
        assert!(fake.seen().iter().any(|s| s.path == "/version"));
    }
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

/// A container's `restartPolicyRules` action `RestartAllContainers`: the 1.35 API server
/// refuses the pod (RestartAllContainersOnContainerExits is Alpha, off), 1.36's admits it and
/// its scheduler (NodeDeclaredFeatures) takes it only to a node declaring the feature.
#[test]
fn a_pod_restarting_all_containers_is_refused_by_1_35_and_placed_by_1_36() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = r#"apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: old}
  status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: new}
  status:
    allocatable: {cpu: "8", memory: 8Gi, pods: "110"}
    declaredFeatures: [RestartAllContainersOnContainerExits]
"#;
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: job, namespace: default}\nspec:\n  \
               containers:\n  - name: app\n    image: busybox\n    restartPolicy: Never\n    \
               restartPolicyRules:\n    - action: RestartAllContainers\n      \
               exitCodes: {operator: In, values: [42]}\n";
    let (snapshot, file) = (dir.path().join("cluster.yaml"), dir.path().join("pod.yaml"));
    std::fs::write(&snapshot, cluster).unwrap();
    std::fs::write(&file, pod).unwrap();
    let (snapshot, file) = (snapshot.to_str().unwrap(), file.to_str().unwrap());
    let run = |release: &str| {
        support::run(&[
            "whatif",
            "-f",
            file,
            "--snapshot",
            snapshot,
            "-o",
            "json",
            "--kubernetes-version",
            release,
        ])
    };
    let out = run("1.35");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "spec.containers[0].restartPolicyRules[0].action: Unsupported value: \
             \"RestartAllContainers\": supported values: \"Restart\""
        ),
        "{stderr}"
    );
    let out = run("1.36");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["summary"]["selected"], serde_json::json!(["new"]));
    let old = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "old")
        .unwrap();
    assert_eq!(
        old["reported"]["reason"],
        "node(s) didn't match Pod's required features"
    );
}

/// GangScheduling on: its plugin is not evaluated, and the note gives what it would say in
/// the release's own words (1.35 names the workload, 1.36 the pod group).
#[test]
fn gang_scheduling_is_said_not_evaluated_in_its_releases_words() {
    let dir = tempfile::tempdir().unwrap();
    let gate = ["--feature-gates", "GangScheduling=true"];
    for (release, field, queue, permit) in [
        (
            "1.35",
            "spec.workloadRef",
            "waiting for pods's workload %q to appear in scheduling queue",
            "waiting for minCount pods from a gang to be waiting on permit",
        ),
        (
            "1.36",
            "spec.schedulingGroup",
            "waiting for pods's pod group %q to appear in scheduling queue",
            "waiting for minCount pods from a gang to be scheduled",
        ),
    ] {
        let mut args = gate.to_vec();
        args.extend(["--kubernetes-version", release]);
        let (_, doc) = message(dir.path(), CLUSTER, &args);
        let notes = doc["notes"].as_array().unwrap();
        let note = notes
            .iter()
            .filter_map(Value::as_str)
            .find(|n| n.starts_with("feature gate GangScheduling"))
            .unwrap_or_else(|| panic!("{release}: no GangScheduling note in {notes:?}"));
        assert!(
            note.contains(&format!("in {field} waits at PreEnqueue (\"{queue}\")"))
                && note.contains(&format!("at Permit (\"{permit}\")"))
                && note.contains("does not evaluate"),
            "{release}: {note}"
        );
        assert!(
            !doc["notes"]
                .to_string()
                .contains("GangScheduling does not change"),
            "{release}"
        );
    }
}
