//! The command line as a user runs it on the bundled demo: outputs, exit codes, error
//! messages. Run in this process as the binary runs it (`support::run`), but where the
//! process itself is the subject: its exit code, standard input, a closed pipe, the
//! environment.

use std::process::{Command, Output};

use serde_json::Value;

use crate::support::{kubectl_affinity, node, run};

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
         2 node(s) had untolerated taint(s), 3 node(s) didn't match pod anti-affinity rules. \
         no new claims to deallocate, preemption: 0/7 nodes are available: \
         3 No preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling."
    );
    assert_eq!(doc["summary"]["failedSchedulingMessageComplete"], true);
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
    // The docs' nginx pod uses no storage: every plugin is decided, the pod fits.
    let doc = json(&["whatif", "-f", "examples/nginx-nodeselector.yaml"]);
    let a1 = node(&doc, "worker-a-1");
    assert_eq!(a1["verdict"], "Feasible");
    assert_eq!(a1["scoreComplete"], true);
    assert_eq!(filter(a1, "VolumeBinding")["skipped"], true);
    // Resource fit is evaluated: the pod fits, with its requests shown against the node.
    let fit = filter(a1, "NodeResourcesFit");
    assert_eq!(fit["pass"], true);
    assert!(fit["details"]["pods"]["allowed"].as_i64().is_some());

    // The same pod with a PersistentVolumeClaim: the volume plugins cannot be decided from
    // the state we read, so no node is shown as feasible.
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("pvc-pod.yaml");
    std::fs::write(
        &manifest,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: data, namespace: default}\n\
         spec:\n  nodeSelector: {disktype: ssd}\n  containers: [{name: c, image: nginx}]\n\
         \x20 volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]\n",
    )
    .unwrap();
    let doc = json(&["whatif", "-f", manifest.to_str().unwrap()]);
    assert_eq!(doc["summary"]["feasible"], 0);
    assert!(doc["summary"]["unknown"].as_i64().unwrap() > 0);
    let a1 = node(&doc, "worker-a-1");
    assert_eq!(a1["verdict"], "Unknown");
    assert_eq!(a1["feasible"], false);
    let vb = filter(a1, "VolumeBinding");
    assert_eq!(vb["pass"], Value::Null);
    assert_eq!(vb["evaluated"], false);
    assert!(
        vb["note"]
            .as_str()
            .unwrap()
            .contains("PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSINodes and CSIDrivers were not read"),
        "{vb}"
    );
    assert_eq!(a1["scoreComplete"], false);
    assert!(doc["notes"].to_string().contains("VolumeBinding"));
}

#[test]
fn explain_pod_short_of_resources_on_its_dedicated_node() {
    let doc = json(&["explain", "feature-extract-kq7wz", "-n", "batch"]);
    assert_eq!(doc["summary"]["feasible"], 0);
    let msg = doc["summary"]["failedSchedulingMessage"]
        .as_str()
        .unwrap_or_default();
    assert!(
        msg.starts_with("0/7 nodes are available: 1 Insufficient cpu, 1 Insufficient memory,"),
        "{msg}"
    );
    let b2 = node(&doc, "worker-b-2");
    assert_eq!(b2["reported"]["plugin"], "NodeResourcesFit");
    let fit = filter(b2, "NodeResourcesFit");
    assert_eq!(fit["reason"], "Insufficient cpu, Insufficient memory");
    // Preemption could help: the node is big enough, only its pods are in the way.
    assert_eq!(fit["code"], "Unschedulable");
    let cpu = &fit["details"]["resources"][0];
    assert_eq!(cpu["resource"], "cpu");
    assert_eq!(cpu["requested"], 6000);
    assert_eq!(cpu["allocatable"], 8000);

    let out = run(&[
        "explain",
        "feature-extract-kq7wz",
        "-n",
        "batch",
        "--snapshot",
        "examples/cluster.yaml",
        "--node",
        "worker-b-2",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert!(
        text.contains("the scheduler reports: Insufficient cpu, Insufficient memory (NodeResourcesFit: Unschedulable)"),
        "{text}"
    );
    assert!(text.contains("      cpu                               6      2100m            8      5900m  insufficient"), "{text}");
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
    assert!(
        notes.contains("evaluated as if it were scheduled now"),
        "{notes}"
    );
    assert_eq!(doc["current"]["node"], "worker-b-1");
    assert_eq!(doc["current"]["inCluster"], true);
    assert_eq!(doc["current"]["rank"], node(&doc, "worker-b-1")["rank"]);
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
    let run = |args: &[&str]| kubectl_affinity().args(args).output().expect("run binary");
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
fn kubectl_flags_are_taken_before_the_subcommand_too() {
    // kubectl hands the plugin every word after its name: `kubectl affinity -n batch
    // explain ...` must read as `kubectl affinity explain ... -n batch`.
    let after = json(&["explain", "feature-extract-kq7wz", "-n", "batch"]);
    let before = json(&["-n", "batch", "explain", "feature-extract-kq7wz"]);
    assert_eq!(before["pod"]["namespace"], "batch");
    assert_eq!(before, after);

    // The cluster flags too: this kubeconfig is the one read, not $KUBECONFIG.
    let out = run(&["--kubeconfig", "/nonexistent/early.yaml", "explain", "x"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("kubeconfig /nonexistent/early.yaml"), "{err}");

    // A snapshot is of every namespace: -n is refused, not ignored.
    let out = run(&["-n", "shop", "snapshot"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("snapshot saves every namespace") && err.contains("--namespace shop"),
        "{err}"
    );
}

#[test]
fn a_missing_subcommand_names_only_the_visible_ones() {
    // Flags but no subcommand: clap's own error would offer the hidden `__complete`.
    let out = run(&["-n", "shop"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("requires a subcommand: explain, whatif, audit, snapshot, completion"),
        "{err}"
    );
    assert!(!err.contains("__complete"), "{err}");
}

#[test]
fn whatif_refuses_a_namespace_flag_the_manifest_contradicts() {
    // web-store.yaml is a Deployment of namespace shop: `kubectl apply -n default -f` it
    // fails, so the what-if neither takes -n nor ignores it.
    let out = run(&[
        "whatif",
        "-f",
        "examples/web-store.yaml",
        "-n",
        "default",
        "--snapshot",
        "examples/cluster.yaml",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("examples/web-store.yaml: document 1, Deployment \"web-store\": field metadata.namespace")
            && err.contains("\"shop\" does not match -n/--namespace \"default\"")
            && err.contains("pass -n shop"),
        "{err}"
    );
    // The same namespace given by -n is no conflict; a manifest without one takes -n's.
    let same = json(&["whatif", "-f", "examples/web-store.yaml", "-n", "shop"]);
    assert_eq!(same["pod"]["namespace"], "shop");
    let unset = json(&[
        "whatif",
        "-f",
        "examples/nginx-nodeselector.yaml",
        "-n",
        "shop",
    ]);
    assert_eq!(unset["pod"]["namespace"], "shop");
}

/// `kubectl apply` validates strictly: a misspelt field, an operator or effect outside the
/// API's enumeration, is refused, not dropped; `--validate=warn` evaluates the pod anyway.
#[test]
fn whatif_refuses_what_the_api_server_refuses_strictly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let manifest = dir.path().join("pod.yaml");
    std::fs::write(
        &manifest,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  \
         nodeSelecter: {disktype: ssd}\n  containers: [{name: c, image: nginx}]\n  \
         tolerations: [{key: dedicated, operator: Exist, effect: NoSchedule}]\n",
    )
    .expect("write");
    let path = manifest.to_str().expect("utf-8 path");
    let out = run(&["whatif", "-f", path, "--snapshot", "examples/cluster.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "field spec.nodeSelecter: unknown field \"nodeSelecter\"; did you mean \"nodeSelector\"?"
        ) && err.contains("(and 1 more invalid field)")
            && err.contains("--validate=warn"),
        "{err}"
    );

    // Evaluated anyway, the misspelt selector is dropped (so control-plane's taint aside,
    // nodes fit that `nodeSelector: {disktype: ssd}` would exclude) and both are noted.
    let doc = json(&["whatif", "-f", path, "--validate=warn"]);
    let notes = doc["notes"].to_string();
    assert!(
        notes.contains("spec.nodeSelecter: unknown field")
            && notes.contains(
                "spec.tolerations[0].operator: Unsupported value: \\\"Exist\\\": supported values: \\\"Equal\\\", \\\"Exists\\\""
            ),
        "{notes}"
    );
    assert!(
        doc["summary"]["feasible"].as_u64() > Some(0),
        "{}",
        doc["summary"]
    );

    let out = run(&[
        "whatif",
        "-f",
        "examples/nginx-nodeselector.yaml",
        "--snapshot",
        "examples/cluster.yaml",
        "--feature-gates",
        "PodLevelResource=true",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "unrecognized feature gate: PodLevelResource (did you mean PodLevelResources?)"
        ),
        "{err}"
    );
}

#[test]
fn an_unknown_drill_down_node_is_an_error_with_the_likely_name() {
    // A typo in --node used to print the table with a line at its end, exit 0, and nothing
    // at all in JSON: now it fails before any output, as `kubectl get node` does.
    for (output, node, hint) in [
        ("table", "worker-a1", Some("did you mean \"worker-a-1\"?")),
        ("json", "zzz", None),
    ] {
        let out = run(&[
            "explain",
            "pending-gpu",
            "--snapshot",
            "examples/cluster.yaml",
            "--node",
            "gpu-c-1",
            "--node",
            node,
            "-o",
            output,
        ]);
        assert_eq!(out.status.code(), Some(1), "{output}");
        assert!(
            out.stdout.is_empty(),
            "{output}: no output before the error"
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "node \"{node}\" (--node) not found in snapshot examples/cluster.yaml"
            )) && err.contains("kubectl get nodes"),
            "{err}"
        );
        assert_eq!(err.contains("did you mean"), hint.is_some(), "{err}");
        if let Some(hint) = hint {
            assert!(err.contains(hint), "{err}");
        }
    }
    // whatif checks the same flag; a known node still drills down.
    let out = run(&[
        "whatif",
        "-f",
        "examples/web-store.yaml",
        "--snapshot",
        "examples/cluster.yaml",
        "--node",
        "worker-z-9",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let ok = run(&[
        "explain",
        "pending-gpu",
        "--snapshot",
        "examples/cluster.yaml",
        "--node",
        "gpu-c-1",
    ]);
    assert_eq!(ok.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&ok.stdout).contains("\nNode gpu-c-1: "));
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

#[test]
fn whatif_daemonset_places_one_pod_per_node() {
    let doc = json(&["whatif", "-f", "examples/fluentd-daemonset.yaml"]);
    let ds = &doc["daemonSet"];
    // The GPU node's taint is not tolerated: the controller creates no pod there.
    assert_eq!(ds["notCreated"], serde_json::json!(["gpu-c-1"]));
    // The cordoned node is tolerated by the daemon tolerations the controller adds.
    let c2 = node(&doc, "worker-c-2");
    assert_eq!(filter(c2, "NodeUnschedulable")["pass"], true);
    // The control-plane taint is tolerated by the manifest itself.
    assert_eq!(
        filter(node(&doc, "control-plane-1"), "TaintToleration")["pass"],
        true
    );
    // No single "best node" for pods pinned one per node.
    assert_eq!(doc["summary"]["selected"], serde_json::json!([]));
    assert!(doc["summary"]["failedSchedulingMessage"].is_null());
}

#[test]
fn explain_checkout_pod_is_blocked_by_zone_spread_only() {
    let doc = json(&["explain", "checkout-6b9d4c7f58-x2v9k", "-n", "shop"]);
    // The pod's status in the snapshot carries the same text.
    assert_eq!(
        doc["summary"]["failedSchedulingMessage"],
        "0/7 nodes are available: 1 node(s) were unschedulable, 2 node(s) had untolerated taint(s), \
         4 node(s) didn't match pod topology spread constraints. no new claims to deallocate, \
         preemption: 0/7 nodes are available: 3 Preemption is not helpful for scheduling, \
         4 No preemption victims found for incoming pod."
    );
    let c1 = node(&doc, "worker-c-1");
    let pts = filter(c1, "PodTopologySpread");
    assert_eq!(pts["code"], "Unschedulable");
    let c = &pts["details"]["constraints"][0];
    assert_eq!(c["domain"], "eu-west-1c");
    assert_eq!(c["matchingPods"], 1);
    assert_eq!(c["skew"], 2);
    // Three zones against minDomains 4: the global minimum counts as 0.
    assert_eq!(c["minDomainsForcedZero"], true);
    assert_eq!(
        doc["topologySpread"]["constraints"][0]["selector"],
        "app=checkout,pod-template-hash=6b9d4c7f58"
    );
}

#[test]
fn explain_running_pod_whose_node_no_longer_satisfies_its_rules() {
    // The pod was placed by its nodeSelector; the node's label changed since. It keeps
    // running (IgnoredDuringExecution), but the scheduler would not pick that node today.
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("cluster.yaml");
    std::fs::write(
        &snapshot,
        r#"apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: old, labels: {kubernetes.io/hostname: old, disktype: hdd}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: new, labels: {kubernetes.io/hostname: new, disktype: ssd}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: db, namespace: default}
  spec:
    nodeName: old
    nodeSelector: {disktype: ssd}
    containers: [{name: c, image: postgres, resources: {requests: {cpu: "1"}}}]
  status: {phase: Running}
"#,
    )
    .unwrap();
    let out = run(&[
        "explain",
        "db",
        "-n",
        "default",
        "--snapshot",
        snapshot.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let current = &doc["current"];
    assert_eq!(current["node"], "old");
    assert_eq!(current["verdict"], "Infeasible");
    assert_eq!(
        current["reasons"],
        serde_json::json!(["node(s) didn't match Pod's node affinity/selector"])
    );
    assert!(current["rank"].is_null());
    assert_eq!(doc["summary"]["selected"], serde_json::json!(["new"]));
    // Its own request is not counted on its node.
    let fit = filter(node(&doc, "old"), "NodeResourcesFit");
    let cpu = fit["details"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["resource"] == "cpu")
        .unwrap();
    assert_eq!(cpu["used"], 0);

    let table = run(&[
        "explain",
        "db",
        "-n",
        "default",
        "--snapshot",
        snapshot.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("Runs on: old (* below); would not be chosen today: node(s) didn't match Pod's node affinity/selector (rules are IgnoredDuringExecution, so it keeps running)"),
        "{text}"
    );
    assert!(text.contains(" old* "), "{text}");
}

#[test]
fn big_clusters_list_the_best_nodes_and_group_the_rest_by_reason() {
    // 60 nodes: 40 fit (scores differ by free cpu), 20 carry an untolerated taint.
    let mut items = Vec::new();
    for i in 0..60 {
        let mut node = serde_json::json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": format!("n{i:02}"), "labels": {"kubernetes.io/hostname": format!("n{i:02}")}},
            "spec": {},
            "status": {"allocatable": {"cpu": format!("{}", 2 + i), "memory": "16Gi", "pods": "110"}},
        });
        if i >= 40 {
            node["spec"]["taints"] =
                serde_json::json!([{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]);
        }
        items.push(node);
    }
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("big.json");
    std::fs::write(
        &snapshot,
        serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
    )
    .unwrap();
    let snapshot = snapshot.to_str().unwrap();
    let pod = dir.path().join("pod.yaml");
    std::fs::write(
        &pod,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: default}\n\
         spec:\n  containers: [{name: c, image: nginx, resources: {requests: {cpu: \"1\"}}}]\n",
    )
    .unwrap();
    let pod = pod.to_str().unwrap();
    let out = run(&["whatif", "-f", pod, "--snapshot", snapshot, "--node", "n45"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" ✓ yes ") || l.contains(" ✗ no "))
        .collect();
    // The 10 best candidates plus the node asked about.
    assert_eq!(rows.len(), 11, "{text}");
    assert!(
        text.contains("49 more nodes (--all-nodes lists every one):"),
        "{text}"
    );
    assert!(text.contains("30 ✓ feasible with lower scores"), "{text}");
    assert!(
        text.contains("19 ✗ node(s) had untolerated taint(s)"),
        "{text}"
    );
    assert!(text.contains("\nNode n45: ✗ no"), "{text}");

    let all = run(&["whatif", "-f", pod, "--snapshot", snapshot, "--all-nodes"]);
    let text = String::from_utf8_lossy(&all.stdout);
    assert!(!text.contains("more nodes"), "{text}");
    let listed = text
        .lines()
        .filter(|l| l.contains(" ✓ yes ") || l.contains(" ✗ no "))
        .count();
    assert_eq!(listed, 60, "{text}");
}

#[test]
fn whatif_reads_several_documents_from_stdin() {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-affinity"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "whatif",
            "-f",
            "-",
            "--snapshot",
            "examples/cluster.yaml",
            "-o",
            "yaml",
        ])
        .env("NO_COLOR", "1")
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut manifests = std::fs::read_to_string("examples/pod-with-node-affinity.yaml").unwrap();
    manifests.push_str("\n---\n");
    manifests.push_str(&std::fs::read_to_string("examples/redis-cache.yaml").unwrap());
    child
        .stdin
        .take()
        .unwrap()
        .write_all(manifests.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.matches("kind: SchedulingExplanation").count(),
        2,
        "{text}"
    );
    assert!(text.contains("name: with-node-affinity"), "{text}");
    assert!(text.contains("Deployment/redis-cache"), "{text}");
}

#[test]
fn a_filter_without_its_prefilter_fails_as_upstream() {
    // InterPodAffinity's PreFilter disabled while its Filter runs: upstream's Filter finds no
    // cycle state and errors on every node.
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("sched.yaml");
    std::fs::write(
        &cfg,
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n\
         profiles:\n- schedulerName: default-scheduler\n  plugins:\n    preFilter:\n      \
         disabled: [{name: InterPodAffinity}]\n",
    )
    .unwrap();
    let doc = json(&[
        "whatif",
        "-f",
        "examples/web-store.yaml",
        "--scheduler-config",
        cfg.to_str().unwrap(),
    ]);
    for n in doc["nodes"].as_array().unwrap() {
        let f = filter(n, "InterPodAffinity");
        assert_eq!(f["code"], "Error", "{f}");
        assert_eq!(
            f["reason"],
            "reading \"PreFilterInterPodAffinity\" from cycleState: not found \
             (InterPodAffinity's PreFilter is disabled in the profile)"
        );
    }
}

#[test]
fn a_closed_pipe_ends_quietly() {
    // `kubectl affinity ... | head -1`: the reader leaves early; no error message, exit 0.
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-affinity"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "explain",
            "pending-gpu",
            "-n",
            "default",
            "--snapshot",
            "examples/cluster.yaml",
            "-o",
            "yaml",
            "--node",
            "worker-a-1",
        ])
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert!(out.status.success());
}

/// A whatif pod naming a PriorityClass gets its priority from it (Priority admission), and
/// where no node fits DefaultPreemption's dry run nominates a node: the FailedScheduling
/// message then has no PostFilter part, and the table says whom preemption would evict.
#[test]
fn whatif_preemption_nominates_a_node_and_names_the_victims() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = dir.path().join("cluster.yaml");
    std::fs::write(
        &cluster,
        r#"apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: polite}, value: 1000, preemptionPolicy: Never}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: low}, value: -10}
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: db, namespace: default}
  spec: {selector: {matchLabels: {app: db}}, maxUnavailable: 0}
  status: {disruptionsAllowed: 0}
- {apiVersion: v1, kind: Node, metadata: {name: a}, status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: b}, status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: c}, status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: db-0, namespace: default, labels: {app: db}}
  spec: {nodeName: a, priorityClassName: low, priority: -10, containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]}
  status: {phase: Running, startTime: "2026-01-01T00:00:00Z"}
- apiVersion: v1
  kind: Pod
  metadata: {name: batch-0, namespace: default, labels: {app: batch}}
  spec: {nodeName: b, priorityClassName: low, priority: -10, containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]}
  status: {phase: Running, startTime: "2026-01-02T00:00:00Z"}
- apiVersion: v1
  kind: Pod
  metadata: {name: batch-1, namespace: default, labels: {app: batch}}
  spec: {nodeName: c, priorityClassName: low, priority: -10, containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]}
  status: {phase: Running, startTime: "2026-01-02T00:00:00Z"}
"#,
    )
    .unwrap();
    let manifest = |class: &str| {
        let path = dir.path().join(format!("{class}.yaml"));
        std::fs::write(
            &path,
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: web, namespace: default}}\n\
                 spec:\n  priorityClassName: {class}\n\
                 \x20 containers: [{{name: c, image: x, resources: {{requests: {{cpu: \"1\"}}}}}}]\n"
            ),
        )
        .unwrap();
        path
    };
    let cluster = cluster.to_str().unwrap();
    let whatif = |class: &str, output: &str| {
        let path = manifest(class);
        run(&[
            "whatif",
            "-f",
            path.to_str().unwrap(),
            "--snapshot",
            cluster,
            "-o",
            output,
        ])
    };
    let out = whatif("high", "json");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["summary"]["failedSchedulingMessage"],
        "0/3 nodes are available: 3 Insufficient cpu."
    );
    let preemption = doc["postFilter"]
        .as_array()
        .and_then(|l| l.iter().find(|p| p["plugin"] == "DefaultPreemption"))
        .map(|p| &p["preemption"])
        .expect("DefaultPreemption's outcome");
    // Evicting db-0 would violate its budget; b and c, alike in every other criterion,
    // are tied, and the scheduler picks one at random.
    assert_eq!(preemption["pickedBy"], "tied after all five criteria");
    assert_eq!(preemption["tiedNodes"], serde_json::json!(["b", "c"]));
    assert_eq!(preemption["nominatedNode"], "b");
    assert_eq!(
        preemption["victims"],
        serde_json::json!(["default/batch-0"])
    );
    // Candidates without a violation come first, as upstream's dry run lists them.
    let nodes: Vec<(&str, i64)> = preemption["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["node"].as_str().unwrap(),
                c["pdbViolations"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(nodes, [("b", 0), ("c", 0), ("a", 1)]);
    let table = whatif("high", "table");
    assert!(
        String::from_utf8_lossy(&table.stdout).contains(
            "Preemption: nominates b, evicting default/batch-0 (picked by tied after all five criteria among 3 candidate(s); tied with b, c, the scheduler picks one of them at random)"
        ),
        "{}",
        String::from_utf8_lossy(&table.stdout)
    );
    // The class says Never: the pod waits instead.
    let doc: Value = serde_json::from_slice(&whatif("polite", "json").stdout).unwrap();
    assert_eq!(
        doc["summary"]["failedSchedulingMessage"],
        "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never."
    );
    // A class that does not exist is refused, as the API server refuses the pod.
    let refused = whatif("gold", "json");
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("pods \"web\" is forbidden: no PriorityClass with name gold was found"),
        "{err}"
    );
}

#[test]
fn whatif_defaults_requests_from_limits_and_says_so() {
    // The API server sets the requests of a container with only limits to those limits:
    // 3 cpu does not fit a 2-cpu node at all, and the output says where the 3 came from.
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("cluster.yaml");
    let manifest = dir.path().join("pod.yaml");
    std::fs::write(
        &snapshot,
        r#"apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: small, labels: {kubernetes.io/hostname: small}}
  status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: big, labels: {kubernetes.io/hostname: big}}
  status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
"#,
    )
    .unwrap();
    std::fs::write(
        &manifest,
        r#"apiVersion: v1
kind: Pod
metadata: {name: worker, namespace: default}
spec:
  containers:
  - name: c
    image: busybox
    resources:
      limits: {cpu: "3", memory: 1Gi}
"#,
    )
    .unwrap();
    let out = run(&[
        "whatif",
        "-f",
        manifest.to_str().unwrap(),
        "--snapshot",
        snapshot.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    let small = node(&doc, "small");
    assert_eq!(small["reported"]["plugin"], "NodeResourcesFit");
    assert_eq!(small["reported"]["code"], "UnschedulableAndUnresolvable");
    assert_eq!(small["reported"]["reason"], "Insufficient cpu");
    assert_eq!(node(&doc, "big")["verdict"], "Feasible");
    let notes: Vec<&str> = doc["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        notes.contains(
            &"defaulted as the API server does at pod creation: container c: requests.cpu=3 \
              (from its limit); container c: requests.memory=1Gi (from its limit); the \
              scheduler evaluates the pod so"
        ),
        "{notes:?}"
    );
}

/// A cluster of two 4-cpu nodes with pods the scheduler would not place (gated, bound while
/// Pending, done, another scheduler's) and a preemptor nominated to node-a; returns the
/// directory holding `cluster.yaml`.
fn unplaced_cluster() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(
        dir.path().join("cluster.yaml"),
        r#"apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a}},
   status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: node-b, labels: {kubernetes.io/hostname: node-b}},
   status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: gated, namespace: default}
  spec:
    schedulingGates: [{name: example.com/quota}]
    containers: [{name: c, image: nginx}]
  status: {phase: Pending}
- apiVersion: v1
  kind: Pod
  metadata: {name: bound, namespace: default}
  spec:
    nodeName: node-b
    containers: [{name: c, image: nginx, resources: {requests: {cpu: "5"}}}]
  status: {phase: Pending}
- apiVersion: v1
  kind: Pod
  metadata: {name: done, namespace: default}
  spec:
    nodeName: node-a
    containers: [{name: c, image: nginx, resources: {requests: {cpu: "3"}}}]
  status: {phase: Succeeded}
- apiVersion: v1
  kind: Pod
  metadata: {name: preemptor, namespace: default}
  spec:
    priority: 1000
    containers: [{name: c, image: nginx, resources: {requests: {cpu: "3"}}}]
  status: {phase: Pending, nominatedNodeName: node-a}
"#,
    )
    .expect("write");
    dir
}

fn run_in(dir: &tempfile::TempDir, args: &[&str]) -> Output {
    let cluster = dir.path().join("cluster.yaml");
    let mut all = args.to_vec();
    all.extend(["--snapshot", cluster.to_str().expect("utf-8")]);
    run(&all)
}

fn json_in(dir: &tempfile::TempDir, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    let out = run_in(dir, &all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

/// The second line of the table: what is said first after the pod's name.
fn said_first(out: &Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().nth(1).unwrap_or_default().to_string()
}

#[test]
fn a_gated_pod_waits_at_preenqueue_and_is_still_evaluated() {
    let dir = unplaced_cluster();
    let doc = json_in(&dir, &["explain", "gated"]);
    assert_eq!(
        doc["summary"]["notScheduled"],
        serde_json::json!([{"reason": "SchedulingGated", "gates": ["example.com/quota"]}])
    );
    // Evaluated as if the gate were removed: node-b is taken by the bound pod's 5 cpu.
    assert_eq!(node(&doc, "node-a")["verdict"], "Feasible");
    let out = run_in(&dir, &["explain", "gated"]);
    assert_eq!(
        said_first(&out),
        "Not scheduled: the pod has scheduling gates (example.com/quota): it waits at \
         PreEnqueue (SchedulingGated) and the scheduler does not try to place it until every \
         gate is removed; evaluated as if they were removed"
    );
}

#[test]
fn a_pending_pod_with_a_node_name_is_bound_not_scheduled() {
    let dir = unplaced_cluster();
    let doc = json_in(&dir, &["explain", "bound"]);
    assert_eq!(
        doc["summary"]["notScheduled"],
        serde_json::json!([{"reason": "Bound", "node": "node-b"}])
    );
    // Not "running on" its node, and its node's filters say what its kubelet meets.
    assert!(doc["current"].is_null());
    let b = node(&doc, "node-b");
    assert_eq!(b["reported"]["plugin"], "NodeResourcesFit");
    assert_eq!(b["reported"]["reason"], "Insufficient cpu");
    let out = run_in(&dir, &["explain", "bound"]);
    assert_eq!(
        said_first(&out),
        "Not scheduled: spec.nodeName is \"node-b\": the pod is bound, so the scheduler never \
         places it; the kubelet on node-b admits or rejects it; evaluated as the scheduler would \
         if it placed the pod"
    );
}

#[test]
fn a_terminal_pod_runs_nowhere_and_holds_nothing() {
    let dir = unplaced_cluster();
    let doc = json_in(&dir, &["explain", "done"]);
    assert_eq!(
        doc["summary"]["notScheduled"],
        serde_json::json!([{"reason": "Terminal", "phase": "Succeeded"}])
    );
    assert!(doc["current"].is_null(), "{}", doc["current"]);
    let out = run_in(&dir, &["explain", "done"]);
    assert_eq!(
        said_first(&out),
        "Not scheduled: the pod is Succeeded: it is done and runs on no node, and the \
         scheduler's cache leaves it out; evaluated as a new pod like it would be"
    );
    // Its 3 cpu are not counted on node-a: the preemptor's 3 fit there (its own nomination
    // is not counted against itself).
    let preemptor = json_in(&dir, &["explain", "preemptor"]);
    let a = node(&preemptor, "node-a");
    assert_eq!(a["verdict"], "Feasible");
    assert!(a["nominatedPods"].is_null());
}

#[test]
fn another_scheduler_s_pod_is_evaluated_with_the_default_profile() {
    let dir = unplaced_cluster();
    std::fs::write(
        dir.path().join("pod.yaml"),
        "apiVersion: v1\nkind: Pod\nmetadata: {name: mine}\nspec:\n  schedulerName: my-scheduler\n  \
         containers: [{name: c, image: nginx}]\n",
    )
    .expect("write");
    let pod = dir.path().join("pod.yaml");
    let pod = pod.to_str().expect("utf-8");
    let out = run_in(&dir, &["whatif", "-f", pod]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        said_first(&out),
        "Not scheduled: spec.schedulerName is \"my-scheduler\", which no profile serves: this \
         scheduler never takes the pod; evaluated with the default-scheduler profile (pass that \
         scheduler's configuration with --scheduler-config FILE)"
    );
    let doc = json_in(&dir, &["whatif", "-f", pod]);
    assert_eq!(
        doc["summary"]["notScheduled"],
        serde_json::json!([{"reason": "NoProfile", "schedulerName": "my-scheduler"}])
    );
    assert_eq!(doc["scheduler"]["schedulerName"], "default-scheduler");
}

#[test]
fn a_nominated_pod_occupies_its_node_and_the_drill_down_names_it() {
    let dir = unplaced_cluster();
    std::fs::write(
        dir.path().join("pod.yaml"),
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: c, \
         image: nginx, resources: {requests: {cpu: \"2\"}}}]\n",
    )
    .expect("write");
    let pod = dir.path().join("pod.yaml");
    let pod = pod.to_str().expect("utf-8");
    let doc = json_in(&dir, &["whatif", "-f", pod]);
    let a = node(&doc, "node-a");
    assert_eq!(a["verdict"], "Infeasible");
    assert_eq!(a["reported"]["plugin"], "NodeResourcesFit");
    assert_eq!(a["reported"]["reason"], "Insufficient cpu");
    assert_eq!(
        a["nominatedPods"]["pods"],
        serde_json::json!(["default/preemptor"])
    );
    assert_eq!(
        a["nominatedPods"]["failed"][0]["plugin"],
        "NodeResourcesFit"
    );
    // Without the preemptor node-a has room: its own entry passes.
    assert_eq!(filter(a, "NodeResourcesFit")["pass"], true);
    let message = doc["summary"]["failedSchedulingMessage"].as_str();
    assert!(
        message.is_some_and(|m| m.starts_with("0/2 nodes are available: 2 Insufficient cpu.")),
        "{message:?}"
    );
    let out = run_in(&dir, &["whatif", "-f", pod, "--node", "node-a"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "  nominated here, of priority >= the pod's (the scheduler filters the node with \
             them counted, then without; both must pass): default/preemptor\n    with them: ✗ \
             NodeResourcesFit     Insufficient cpu\n"
        ),
        "{text}"
    );
}

#[test]
fn one_feasible_node_is_taken_unscored_and_a_prescore_error_selects_nothing() {
    let dir = unplaced_cluster();
    std::fs::write(
        dir.path().join("pod.yaml"),
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: c, \
         image: nginx}]\n  affinity:\n    nodeAffinity:\n      \
         preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 1\n        \
         preference: {matchExpressions: [{key: tier, operator: Gt, values: [\"-1\"]}]}\n",
    )
    .expect("write");
    let pod = dir.path().join("pod.yaml");
    let pod = pod.to_str().expect("utf-8");
    // node-b holds the bound pod's 5 cpu, but this pod asks for none: both nodes fit, and
    // NodeAffinity's PreScore fails on the Gt value.
    let doc = json_in(&dir, &["whatif", "-f", pod]);
    assert_eq!(doc["summary"]["scoring"], "StoppedAtPreScore");
    assert_eq!(doc["summary"]["selected"], serde_json::json!([]));
    let errors = doc["errors"].as_array().expect("errors");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0]
            .as_str()
            .is_some_and(|e| e.starts_with("running PreScore plugin \"NodeAffinity\": ")),
        "{errors:?}"
    );
    // Pinned to node-a by nodeName's cousin, a metadata.name term: one feasible node, no
    // PreScore, no error; node-b is left out by NodeAffinity's PreFilter with no plugin.
    std::fs::write(
        dir.path().join("pod.yaml"),
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: c, \
         image: nginx}]\n  affinity:\n    nodeAffinity:\n      \
         requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        \
         - matchFields: [{key: metadata.name, operator: In, values: [node-a]}]\n      \
         preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 1\n        \
         preference: {matchExpressions: [{key: tier, operator: Gt, values: [\"-1\"]}]}\n",
    )
    .expect("write");
    let doc = json_in(&dir, &["whatif", "-f", pod]);
    assert_eq!(doc["summary"]["scoring"], "NotRun");
    assert_eq!(doc["summary"]["selected"], serde_json::json!(["node-a"]));
    assert_eq!(doc["errors"], serde_json::json!([]));
    let b = node(&doc, "node-b");
    assert!(b["reported"]["plugin"].is_null(), "{}", b["reported"]);
    assert_eq!(
        b["reported"]["reason"],
        "node(s) didn't satisfy plugin(s) [NodeAffinity]"
    );
    let out = run_in(&dir, &["whatif", "-f", pod]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Chosen: node-a, the only feasible node (the scheduler scores nothing)"),
        "{text}"
    );
    assert!(
        text.contains(
            "Note: only one node is feasible: the scheduler takes it without running PreScore \
             or Score; the scores shown are computed for reference"
        ),
        "{text}"
    );
}

#[test]
fn an_added_affinity_value_kube_scheduler_refuses_is_refused_in_its_words() {
    let dir = unplaced_cluster();
    std::fs::write(
        dir.path().join("config.yaml"),
        r#"apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: InterPodAffinity
    args: {hardPodAffinityWeight: 1}
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - {key: tier, operator: Lt, values: ['-1']}
"#,
    )
    .expect("write");
    let config = dir.path().join("config.yaml");
    let out = run_in(
        &dir,
        &[
            "explain",
            "gated",
            "--scheduler-config",
            config.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    // kube-scheduler v1.35's own message (ValidateNodeAffinityArgs at start-up).
    assert!(
        err.contains(
            "profiles[0].pluginConfig[1].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.\
             nodeSelectorTerms[0].matchExpressions[0].values[0][tier]: Invalid value: \"-1\": a valid \
             label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', \
             and must start and end with an alphanumeric character"
        ),
        "{err}"
    );
}

#[test]
fn a_pod_s_own_nominated_node_is_taken_first_when_it_passes() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(
        dir.path().join("cluster.yaml"),
        r#"apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: node-a},
   status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: node-b},
   status: {allocatable: {cpu: "1", memory: 8Gi, pods: "110"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: waiting, namespace: default}
  spec:
    containers: [{name: c, image: nginx, resources: {requests: {cpu: "1"}}}]
  status: {phase: Pending, nominatedNodeName: node-b}
"#,
    )
    .expect("write");
    // node-a would score higher (more room); the scheduler takes node-b, tried first.
    let doc = json_in(&dir, &["explain", "waiting"]);
    assert_eq!(doc["summary"]["feasible"], 2);
    assert_eq!(doc["summary"]["scoring"], "NotRun");
    assert_eq!(doc["summary"]["selected"], serde_json::json!(["node-b"]));
    let out = run_in(&dir, &["explain", "waiting"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "Chosen: node-b, the pod's nominated node, tried first (the scheduler scores nothing)"
        ),
        "{text}"
    );
}

/// The volume plugins' answers for a pod using `claim`, on the zonal snapshot in
/// tests/volumes: per node, its verdict and the reasons of its failed filters.
fn volume_whatif(manifest: &str) -> Value {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("pod.yaml");
    std::fs::write(&path, manifest).expect("manifest written");
    let out = run(&[
        "whatif",
        "-f",
        path.to_str().expect("UTF-8 path"),
        "--snapshot",
        "tests/volumes/cluster.yaml",
        "-o",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

fn claim_pod(claim: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: default}}\n\
         spec:\n  containers: [{{name: c, image: busybox}}]\n\
         \x20 volumes: [{{name: d, persistentVolumeClaim: {{claimName: {claim}}}}}]\n"
    )
}

/// Each node's failed filters: (plugin, reason).
fn failures(doc: &Value, name: &str) -> Vec<(String, String)> {
    node(doc, name)["filters"]
        .as_array()
        .expect("filters")
        .iter()
        .filter(|f| f["pass"] == false)
        .map(|f| {
            (
                f["plugin"].as_str().expect("plugin").to_string(),
                f["reason"].as_str().expect("reason").to_string(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn a_bound_zonal_volume_keeps_the_pod_in_its_zone() {
    let doc = volume_whatif(&claim_pod("data-db-0"));
    assert_eq!(node(&doc, "zone-a-1")["verdict"], "Feasible");
    let b = node(&doc, "zone-b-1");
    assert_eq!(b["verdict"], "Infeasible");
    assert_eq!(
        failures(&doc, "zone-b-1"),
        pairs(&[
            (
                "VolumeBinding",
                "node(s) didn't match PersistentVolume's node affinity"
            ),
            ("VolumeZone", "node(s) had no available volume zone"),
        ])
    );
    assert_eq!(b["reported"]["plugin"], "VolumeBinding");
    // The drill-down: the claim, its volume, the term with the node's value.
    let claim = &filter(b, "VolumeBinding")["details"]["claims"][0];
    assert_eq!(claim["check"], "bound");
    assert_eq!(claim["volume"], "pv-db");
    let req = &claim["nodeAffinity"]["terms"][0]["matchExpressions"][0];
    assert_eq!(req["key"], "topology.kubernetes.io/zone");
    assert_eq!(req["nodeValue"], "b");
    assert_eq!(req["matched"], false);
    let zone = &filter(b, "VolumeZone")["details"]["checks"][0];
    assert_eq!(zone["values"], serde_json::json!(["a"]));
    assert_eq!(zone["nodeValue"], "b");
}

#[test]
fn wait_for_first_consumer_binds_a_static_volume_where_one_fits() {
    let doc = volume_whatif(&claim_pod("static-small"));
    assert_eq!(node(&doc, "zone-b-1")["verdict"], "Feasible");
    assert_eq!(
        failures(&doc, "zone-a-1"),
        pairs(&[(
            "VolumeBinding",
            "node(s) didn't find available persistent volumes to bind"
        )])
    );
    let claim = &filter(node(&doc, "zone-b-1"), "VolumeBinding")["details"]["claims"][0];
    assert_eq!(claim["check"], "staticVolume");
    assert_eq!(claim["volume"], "pv-local-b");

    // No static volume is large enough, and the class provisions none.
    let doc = volume_whatif(&claim_pod("static-big"));
    assert_eq!(doc["summary"]["feasible"], 0);
    assert_eq!(
        doc["summary"]["failedSchedulingMessage"],
        "0/2 nodes are available: 2 node(s) didn't find available persistent volumes to bind. \
         no new claims to deallocate, preemption: 0/2 nodes are available: \
         2 Preemption is not helpful for scheduling."
    );
}

#[test]
fn an_unbound_immediate_claim_rejects_the_pod_before_any_node() {
    let doc = volume_whatif(&claim_pod("waiting"));
    assert_eq!(doc["summary"]["feasible"], 0);
    assert!(
        doc["summary"]["failedSchedulingMessage"]
            .as_str()
            .unwrap()
            .starts_with(
                "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims."
            ),
        "{}",
        doc["summary"]
    );
    // So is a claim that names its volume before the bind-completed annotation, which the
    // output points out.
    let doc = volume_whatif(&claim_pod("half-bound"));
    assert!(
        doc["summary"]["failedSchedulingMessage"]
            .as_str()
            .expect("message")
            .starts_with(
                "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims."
            ),
        "{}",
        doc["summary"]
    );
    assert!(
        doc["notes"]
            .to_string()
            .contains("claim(s) half-bound name a volume but lack the pv.kubernetes.io/bind-completed annotation"),
        "{}",
        doc["notes"]
    );
    // A missing claim is rejected by the first plugin that reads it, VolumeRestrictions.
    let doc = volume_whatif(&claim_pod("nowhere"));
    assert!(
        doc["summary"]["failedSchedulingMessage"]
            .as_str()
            .unwrap()
            .starts_with("0/2 nodes are available: persistentvolumeclaim \"nowhere\" not found."),
        "{}",
        doc["summary"]
    );
}

#[test]
fn a_read_write_once_pod_claim_in_use_fails_every_node() {
    let doc = volume_whatif(&claim_pod("solo"));
    let reason = "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod \
                  access mode already in-use by another pod";
    for name in ["zone-a-1", "zone-b-1"] {
        let vr = filter(node(&doc, name), "VolumeRestrictions");
        assert_eq!(vr["reason"], reason);
        assert_eq!(vr["code"], "Unschedulable");
        assert_eq!(
            vr["details"]["claimsInUse"][0]["pods"][0],
            serde_json::json!({"namespace": "default", "name": "solo-user"})
        );
    }
    assert_eq!(
        doc["summary"]["failedSchedulingMessage"],
        format!(
            "0/2 nodes are available: 2 {reason}. no new claims to deallocate, preemption: \
             0/2 nodes are available: 2 No preemption victims found for incoming pod."
        )
    );
}

#[test]
fn a_node_at_its_csi_attach_limit_takes_no_new_volume() {
    let doc = volume_whatif(&claim_pod("fresh"));
    assert_eq!(node(&doc, "zone-b-1")["verdict"], "Feasible");
    assert_eq!(
        failures(&doc, "zone-a-1"),
        pairs(&[("NodeVolumeLimits", "node(s) exceed max volume count")])
    );
    let counts = &filter(node(&doc, "zone-a-1"), "NodeVolumeLimits")["details"]["counts"];
    assert_eq!(
        counts[0],
        serde_json::json!({"driver": "ebs.csi.aws.com", "limit": 1, "attached": 1, "new": 1,
                           "exceeded": true})
    );
    // The table's drill-down says the same in words.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pod.yaml");
    std::fs::write(&path, claim_pod("fresh")).unwrap();
    let out = run(&[
        "whatif",
        "-f",
        path.to_str().unwrap(),
        "--snapshot",
        "tests/volumes/cluster.yaml",
        "--node",
        "zone-a-1",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("✗ ebs.csi.aws.com: 1 attached + 1 new, limit 1"),
        "{text}"
    );
}

#[test]
fn a_stateful_sets_claim_templates_become_its_first_replicas_claims() {
    let out = run(&[
        "whatif",
        "-f",
        "tests/volumes/statefulsets.yaml",
        "--snapshot",
        "tests/volumes/cluster.yaml",
        "-o",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let docs: Vec<Value> = serde_json::Deserializer::from_slice(&out.stdout)
        .into_iter()
        .collect::<Result<_, _>>()
        .expect("json documents");
    // db-0's claim exists, bound to a volume in zone a: it pins the replica there.
    let db = &docs[0];
    assert_eq!(db["pod"]["name"], "db-0");
    assert_eq!(node(db, "zone-a-1")["verdict"], "Feasible");
    assert_eq!(
        filter(node(db, "zone-b-1"), "VolumeBinding")["reason"],
        "node(s) didn't match PersistentVolume's node affinity"
    );
    assert!(!db["notes"].to_string().contains("do not exist yet"));
    // cache-0's claim would be created, unbound, in the default class: provisioned by EBS,
    // whose one slot on zone-a-1 is taken.
    let cache = &docs[1];
    assert_eq!(cache["pod"]["name"], "cache-0");
    assert_eq!(node(cache, "zone-b-1")["verdict"], "Feasible");
    assert_eq!(
        failures(cache, "zone-a-1"),
        pairs(&[("NodeVolumeLimits", "node(s) exceed max volume count")])
    );
    let claim = &filter(node(cache, "zone-b-1"), "VolumeBinding")["details"]["claims"][0];
    assert_eq!(claim["claim"], "data-cache-0");
    assert_eq!(claim["storageClass"], "gp3");
    assert!(
        cache["notes"]
            .to_string()
            .contains("claim(s) data-cache-0 do not exist yet"),
        "{}",
        cache["notes"]
    );
}
