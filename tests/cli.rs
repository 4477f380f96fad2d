//! The binary as a user runs it on the bundled demo: outputs, exit codes, error messages.

use std::process::{Command, Output};

use serde_json::Value;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kubectl-affinity"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run binary")
}

fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["--snapshot", "examples/cluster.yaml", "-o", "json"]);
    let out = run(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

fn node<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["nodes"]
        .as_array()
        .and_then(|l| l.iter().find(|n| n["name"] == name))
        .unwrap_or_else(|| panic!("node {name} missing"))
}

fn filter<'a>(node: &'a Value, plugin: &str) -> &'a Value {
    node["filters"]
        .as_array()
        .and_then(|l| l.iter().find(|f| f["plugin"] == plugin))
        .unwrap_or_else(|| panic!("filter {plugin} missing"))
}

#[test]
fn whatif_web_store_matches_the_scheduler_message() {
    let doc = json(&["whatif", "-f", "examples/web-store.yaml"]);
    assert_eq!(doc["apiVersion"], "kubectl-affinity.dev/v1alpha1");
    assert_eq!(doc["kind"], "SchedulingExplanation");
    assert_eq!(doc["pod"]["namespace"], "shop");
    assert_eq!(doc["summary"]["nodes"], 7);
    assert_eq!(doc["summary"]["feasible"], 0);
    assert_eq!(
        doc["summary"]["failedSchedulingMessage"],
        "0/7 nodes are available: 1 node(s) didn't match pod affinity rules, 1 node(s) were unschedulable, \
         2 node(s) had untolerated taint(s), 3 node(s) didn't match pod anti-affinity rules."
    );
    let b2 = node(&doc, "worker-b-2");
    assert_eq!(
        filter(b2, "InterPodAffinity")["code"],
        "UnschedulableAndUnresolvable"
    );
    let a1 = node(&doc, "worker-a-1");
    let ipa = filter(a1, "InterPodAffinity");
    assert_eq!(
        ipa["reason"],
        "node(s) didn't match pod anti-affinity rules"
    );
    assert_eq!(ipa["details"]["antiAffinity"][0]["domain"], "worker-a-1");
    // The symmetric rejection by the existing web-store pod is recorded too.
    assert_eq!(
        ipa["details"]["existingAntiAffinity"]
            .as_array()
            .map(|a| a.len()),
        Some(1)
    );
}

#[test]
fn unevaluated_plugins_never_show_as_feasible() {
    let doc = json(&["whatif", "-f", "examples/nginx-nodeselector.yaml"]);
    assert_eq!(doc["summary"]["feasible"], 0);
    assert_eq!(doc["summary"]["unknown"], 2);
    let a1 = node(&doc, "worker-a-1");
    assert_eq!(a1["feasible"], false);
    assert_eq!(a1["verdict"], "Unknown");
    let fit = filter(a1, "NodeResourcesFit");
    assert_eq!(fit["pass"], Value::Null);
    assert_eq!(fit["evaluated"], false);
    assert_eq!(a1["scoreComplete"], false);
}

#[test]
fn explain_pending_pod_shows_the_taint_on_the_gpu_node() {
    let doc = json(&["explain", "pending-gpu", "-n", "default"]);
    let gpu = node(&doc, "gpu-c-1");
    let tt = filter(gpu, "TaintToleration");
    assert_eq!(tt["reason"], "node(s) had untolerated taint(s)");
    assert_eq!(tt["details"]["firstUntolerated"]["key"], "nvidia.com/gpu");
    assert_eq!(filter(gpu, "NodeAffinity")["pass"], true);
}

#[test]
fn explain_running_pod_leaves_itself_out() {
    let doc = json(&["explain", "pod/api-7d9c", "-n", "default"]);
    let notes = doc["notes"].to_string();
    assert!(notes.contains("evaluated as if unscheduled"), "{notes}");
    // NodeName does not pin the pod to its current node.
    let b1 = node(&doc, "worker-b-1");
    assert_eq!(filter(b1, "NodeName")["pass"], true);
    assert_eq!(filter(node(&doc, "worker-a-1"), "NodeName")["pass"], true);
}

#[test]
fn yaml_output_is_the_same_document() {
    let j = json(&["whatif", "-f", "examples/pod-with-pod-affinity.yaml"]);
    let out = run(&[
        "whatif",
        "-f",
        "examples/pod-with-pod-affinity.yaml",
        "--snapshot",
        "examples/cluster.yaml",
        "-o",
        "yaml",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf8");
    let docs = kubectl_affinity::state::parse_documents(&text, "out").expect("yaml parses");
    assert_eq!(docs[0], j);
}

#[test]
fn table_shows_verdicts_and_drill_down() {
    let out = run(&[
        "whatif",
        "-f",
        "examples/web-store.yaml",
        "--snapshot",
        "examples/cluster.yaml",
        "--node",
        "worker-a-1",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert!(text.contains("Feasible: 0 of 7 nodes"), "{text}");
    assert!(
        text.contains("FailedScheduling: 0/7 nodes are available:"),
        "{text}"
    );
    assert!(text.contains("anti-affinity term 0 (app in (web-store)) topologyKey kubernetes.io/hostname: domain worker-a-1"), "{text}");
    assert!(!text.contains('\u{1b}'), "NO_COLOR must disable colour");
}

#[test]
fn exit_code_three_when_no_node_fits() {
    let out = run(&[
        "whatif",
        "-f",
        "examples/web-store.yaml",
        "--snapshot",
        "examples/cluster.yaml",
        "--exit-code",
        "-o",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(3));
    let out = run(&[
        "whatif",
        "-f",
        "examples/web-store.yaml",
        "--snapshot",
        "examples/cluster.yaml",
        "-o",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn missing_pod_names_namespace_and_source() {
    let out = run(&[
        "explain",
        "nope",
        "-n",
        "shop",
        "--snapshot",
        "examples/cluster.yaml",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("pod shop/nope not found in snapshot examples/cluster.yaml"),
        "{err}"
    );
}

#[test]
fn missing_snapshot_file_is_named() {
    let out = run(&[
        "whatif",
        "-f",
        "examples/web-store.yaml",
        "--snapshot",
        "no-such.yaml",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot read no-such.yaml"), "{err}");
}

#[test]
fn no_cluster_source_names_the_ways_to_give_one() {
    // No --snapshot, no kubeconfig anywhere, not in a pod: live access has nothing to use.
    let home = tempfile::tempdir().expect("tmp");
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-affinity"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["whatif", "-f", "examples/web-store.yaml"])
        .env("HOME", home.path())
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .output()
        .expect("run binary");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no cluster configured"), "{err}");
    assert!(
        err.contains("--kubeconfig") && err.contains("--snapshot"),
        "{err}"
    );
}

#[test]
fn bad_feature_gate_and_bad_manifest_field_are_reported() {
    let out = run(&[
        "whatif",
        "-f",
        "examples/web-store.yaml",
        "--snapshot",
        "examples/cluster.yaml",
        "--feature-gates",
        "Foo=maybe",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid value \"maybe\" for Foo"));

    let dir = tempfile::tempdir().expect("tmp");
    let bad = dir.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers: [{name: c, image: i}]\n  tolerations: [{key: a, tolerationSeconds: soon}]\n",
    )
    .expect("write");
    let out = run(&[
        "whatif",
        "-f",
        bad.to_str().expect("utf8"),
        "--snapshot",
        "examples/cluster.yaml",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("document 1, Pod \"x\": field spec.tolerations[0].tolerationSeconds"),
        "{err}"
    );
}
