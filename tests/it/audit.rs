//! `kubectl affinity audit`, run as a user runs it: on a snapshot of a cluster after changes
//! (a relabelled node, a new NoSchedule taint, an anti-affinity pair placed together by hand,
//! a cordoned node, two Pending replicas), and live against the fake API server. On a snapshot
//! it runs in this process as the binary runs it, but for the exit code; live through the
//! binary.

// Tests may unwrap: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

use crate::support::fake_api::FakeApi;
use crate::support::{kubectl_affinity, run};

const CLUSTER: &str = "tests/audit/cluster.yaml";

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn audit_json(args: &[&str]) -> Value {
    let mut all = vec!["audit", "--snapshot", CLUSTER, "-o", "json"];
    all.extend(args);
    let out = run(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

const MESSAGE: &str = "0/4 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) \
were unschedulable, 2 node(s) didn't match Pod's node affinity/selector. no new claims to \
deallocate, preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.";

fn pending_pod(name: &str) -> Value {
    json!({"name": name, "category": "unschedulable", "failedSchedulingMessage": MESSAGE,
           "failedSchedulingMessageComplete": true, "feasible": 0, "unknown": 0})
}

/// The whole document: each kind of broken rule with the node's side of it, both pods of the
/// anti-affinity pair naming each other, the cordoned node said and not counted, the two
/// Pending replicas under their Deployment, the gated pod said gated and not evaluated, the
/// other namespace left out.
#[test]
fn the_audit_of_a_changed_cluster_is_exact() {
    let doc = audit_json(&["-n", "shop"]);
    let untolerated = json!({"key": "maintenance", "value": "true", "effect": "NoSchedule"});
    let expected = json!({
        "apiVersion": "kubectl-affinity.dev/v1alpha1",
        "kind": "SchedulingAudit",
        "source": "snapshot tests/audit/cluster.yaml",
        "namespace": "shop",
        "summary": {"pending": 3, "placeable": 0, "unschedulable": 2, "gated": 1,
                    "violating": 5, "staticPodsNotChecked": 0, "cordonedNodes": 1},
        "pending": [{"namespace": "shop", "count": 1, "pods": [
                        {"name": "gated", "category": "gated",
                         "schedulingGates": ["example.com/wait"]}]},
                    {"namespace": "shop", "workload": "Deployment/web", "count": 2,
                     "pods": [pending_pod("web-5d8f-a"), pending_pod("web-5d8f-b")]}],
        "violating": [
            {"pod": "shop/api-0", "node": "n-tainted", "rules": [{
                "plugin": "TaintToleration", "reason": "node(s) had untolerated taint(s)",
                "code": "UnschedulableAndUnresolvable",
                "untoleratedTaints": [untolerated],
                "details": {"taints": [{"key": "maintenance", "value": "true",
                                        "effect": "NoSchedule", "considered": true,
                                        "toleratedBy": null}],
                            "firstUntolerated": untolerated}}]},
            {"pod": "shop/batch-0", "node": "n-shared", "rules": [{
                "plugin": "InterPodAffinity",
                "reason": "node(s) didn't satisfy existing pods anti-affinity rules",
                "code": "Unschedulable",
                "pods": [{"namespace": "shop", "name": "cache-0"}],
                "details": {"affinity": [], "antiAffinity": [], "existingAntiAffinity": [0]}}]},
            {"pod": "shop/cache-0", "node": "n-shared", "rules": [{
                "plugin": "InterPodAffinity",
                "reason": "node(s) didn't match pod anti-affinity rules",
                "code": "Unschedulable",
                "pods": [{"namespace": "shop", "name": "batch-0"}],
                "details": {"affinity": [], "antiAffinity": [{
                    "index": 0, "topologyKey": "kubernetes.io/hostname", "domain": "n-shared",
                    "matchingPods": 1, "satisfied": false}], "existingAntiAffinity": []}}]},
            {"pod": "shop/db-0", "node": "n-hdd", "rules": [{
                "plugin": "NodeAffinity",
                "reason": "node(s) didn't match Pod's node affinity/selector",
                "code": "UnschedulableAndUnresolvable",
                "details": {"nodeSelector": [{"key": "disktype", "value": "ssd",
                                              "nodeValue": "hdd", "matched": false}]}}]},
            {"pod": "shop/db-1", "node": "n-hdd", "rules": [{
                "plugin": "NodeAffinity",
                "reason": "node(s) didn't match Pod's node affinity/selector",
                "code": "UnschedulableAndUnresolvable",
                "details": {"nodeSelector": [], "required": {"matched": false, "terms": [{
                    "matched": false,
                    "matchExpressions": [{"key": "disktype", "operator": "In",
                                          "values": ["ssd", "nvme"], "nodeValue": "hdd",
                                          "matched": false}],
                    "matchFields": []}]}}}]}
        ],
        "cordoned": [{"node": "n-cordoned", "pods": 1}],
        "notes": []
    });
    assert_eq!(
        doc,
        expected,
        "{}",
        serde_json::to_string_pretty(&doc).unwrap()
    );
}

#[test]
fn the_table_says_each_rule_with_the_nodes_side() {
    let out = run(&["audit", "-n", "shop", "--snapshot", CLUSTER]);
    assert!(out.status.success());
    let text = stdout(&out);
    for line in [
        "Audit of namespace shop (snapshot tests/audit/cluster.yaml): 3 Pending (2 \
         unschedulable, 1 gated), 5 breaking their required rules, 1 cordoned node(s)",
        "  gated: gated: waits for its scheduling gate(s) example.com/wait; not evaluated",
        "shop/Deployment/web: 2 Pending",
        &format!("  web-5d8f-a: {MESSAGE}"),
        "shop/api-0 on n-tainted",
        "  TaintToleration: node(s) had untolerated taint(s): untolerated maintenance=true:NoSchedule",
        "  InterPodAffinity: node(s) didn't satisfy existing pods anti-affinity rules: pods shop/cache-0",
        "  InterPodAffinity: node(s) didn't match pod anti-affinity rules: pods shop/batch-0",
        "  NodeAffinity: node(s) didn't match Pod's node affinity/selector: nodeSelector \
         disktype=ssd: node has disktype=hdd",
        "  NodeAffinity: node(s) didn't match Pod's node affinity/selector: required node \
         affinity term[0] disktype In [ssd,nvme] (node has disktype=hdd)",
        "Cordoned: n-cordoned (1 pod(s)).",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(line)),
            "{line:?} not in\n{text}"
        );
    }
    assert!(!text.contains("web-0"), "{text}");
}

#[test]
fn all_namespaces_and_the_parts_asked_for() {
    let doc = audit_json(&["-A"]);
    assert!(doc.get("namespace").is_none());
    let pods: Vec<&str> = doc["violating"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["pod"].as_str().unwrap())
        .collect();
    assert_eq!(
        pods,
        [
            "other/elsewhere",
            "shop/api-0",
            "shop/batch-0",
            "shop/cache-0",
            "shop/db-0",
            "shop/db-1"
        ]
    );
    let doc = audit_json(&["-A", "--pending"]);
    assert!(doc.get("violating").is_none());
    assert_eq!(doc["summary"]["pending"], 3);
    let doc = audit_json(&["-n", "other", "--violating"]);
    assert!(doc.get("pending").is_none());
    assert_eq!(doc["violating"].as_array().unwrap().len(), 1);
    assert_eq!(doc["cordoned"], json!([]));
    let yaml = run(&["audit", "-A", "--snapshot", CLUSTER, "-o", "yaml"]);
    assert!(
        stdout(&yaml)
            .starts_with("apiVersion: kubectl-affinity.dev/v1alpha1\nkind: SchedulingAudit\n")
    );
}

/// Every Pending pod is in the audit, in one category, and the header counts what is listed:
/// a pod whose claims were not read is "not evaluated", never "yes".
#[test]
fn every_pending_pod_is_listed_by_category() {
    let categories = "tests/audit/categories.yaml";
    let out = run(&["audit", "-A", "--snapshot", categories]);
    assert!(out.status.success());
    let text = stdout(&out);
    let read = "PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSINodes and \
                CSIDrivers were not read (a snapshot without them: `kubectl affinity snapshot` \
                writes them)";
    let expected = [
        format!(
            "Audit of all namespaces (snapshot {categories}): 6 Pending (1 schedulable now, 1 \
             unschedulable, 1 not evaluated, 1 gated, 1 for another scheduler, 1 bound to a \
             missing node), 0 breaking their required rules, 0 cordoned node(s)"
        ),
        "  fits: yes: on n1".to_string(),
        "  gang-0: for scheduler volcano, which no profile here serves; not evaluated".to_string(),
        "  orphan: bound to node n-gone, which is not in the cluster; not evaluated".to_string(),
        "  queued: gated: waits for its scheduling gate(s) kueue.x-k8s.io/admission; not \
         evaluated"
            .to_string(),
        format!(
            "  with-claim: not evaluated: 1 node(s) pass every evaluated filter; \
             VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone not evaluated: {read}"
        ),
    ];
    for line in &expected {
        assert!(text.lines().any(|l| l == line), "{line:?} not in\n{text}");
    }
    assert!(!text.contains("with-claim: yes"), "{text}");
    let doc: Value = serde_json::from_slice(
        &run(&["audit", "-A", "--snapshot", categories, "-o", "json"]).stdout,
    )
    .unwrap();
    let listed: Vec<(&str, &str)> = doc["pending"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["pods"].as_array().unwrap())
        .map(|p| (p["name"].as_str().unwrap(), p["category"].as_str().unwrap()))
        .collect();
    assert_eq!(
        listed,
        [
            ("fits", "schedulableNow"),
            ("gang-0", "otherScheduler"),
            ("orphan", "boundToMissingNode"),
            ("queued", "gated"),
            ("too-big", "unschedulable"),
            ("with-claim", "notEvaluated"),
        ]
    );
    assert_eq!(
        doc["summary"],
        json!({"pending": 6, "placeable": 1, "unschedulable": 1, "notEvaluated": 1, "gated": 1,
               "otherScheduler": 1, "boundToMissingNode": 1, "violating": 0,
               "staticPodsNotChecked": 0, "cordonedNodes": 0})
    );
    // Nothing is said of a pod not evaluated but why.
    let with_claim = &doc["pending"][0]["pods"][5];
    assert!(with_claim.get("selected").is_none(), "{with_claim}");
    assert_eq!(with_claim["feasible"], 0);
    assert!(doc["pending"][0]["pods"][3].get("feasible").is_none());
}

#[test]
fn exit_code_three_when_anything_is_pending_or_breaks_its_rules() {
    let run = |args: &[&str]| kubectl_affinity().args(args).output().unwrap();
    let out = run(&["audit", "-n", "shop", "--snapshot", CLUSTER, "--exit-code"]);
    assert_eq!(out.status.code(), Some(3));
    let out = run(&["audit", "-n", "shop", "--snapshot", CLUSTER]);
    assert_eq!(out.status.code(), Some(0));
    // Nothing in a namespace without pods: 0 even with --exit-code.
    let out = run(&["audit", "-n", "empty", "--snapshot", CLUSTER, "--exit-code"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("No Pending pod."));
    assert!(stdout(&out).contains("No running pod breaks its required rules."));
}

#[test]
fn node_drill_down_flags_are_refused() {
    let out = run(&["audit", "-A", "--snapshot", CLUSTER, "--node", "n-hdd"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("explain POD --node NAME"));
}

/// Live: the same document as from the snapshot (the source aside), the scheduler's events
/// listed once for the namespace and set beside each Pending pod, only GET requests.
#[test]
fn live_audit_is_the_snapshots_with_the_schedulers_events() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fake = FakeApi::start(&root.join(CLUSTER));
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = fake.kubeconfig(dir.path(), Some("shop"));
    fake.add(
        "events",
        json!({"apiVersion": "v1", "kind": "Event",
               "metadata": {"name": "web-5d8f-a.1", "namespace": "shop",
                            "creationTimestamp": "2025-01-02T00:00:00Z"},
               "involvedObject": {"kind": "Pod", "name": "web-5d8f-a", "namespace": "shop"},
               "reason": "FailedScheduling", "type": "Warning", "message": MESSAGE,
               "reportingComponent": "default-scheduler", "count": 4,
               "lastTimestamp": "2025-01-02T00:00:00Z"}),
    );
    let live = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_kubectl-affinity"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(args)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .env("NO_COLOR", "1")
            .env("HOME", dir.path())
            .env_remove("KUBECONFIG")
            .env_remove("KUBERNETES_SERVICE_HOST")
            .output()
            .unwrap()
    };
    let out = live(&["audit", "-o", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let event = doc["pending"][1]["pods"][0]
        .as_object_mut()
        .unwrap()
        .remove("schedulerEvent")
        .unwrap();
    assert_eq!(
        event,
        json!({"message": MESSAGE, "lastSeen": "2025-01-02T00:00:00Z", "count": 4,
               "reportedBy": "default-scheduler", "matchesComputed": true})
    );
    assert!(doc["pending"][1]["pods"][1].get("schedulerEvent").is_none());
    let mut offline = audit_json(&["-n", "shop"]);
    offline["source"] = doc["source"].clone();
    assert_eq!(doc, offline);
    let events: Vec<_> = fake
        .seen()
        .into_iter()
        .filter(|s| s.path.ends_with("/events"))
        .collect();
    assert_eq!(events.len(), 1, "one list of the namespace's events");
    assert_eq!(events[0].path, "/api/v1/namespaces/shop/events");
    let wide = stdout(&live(&["audit", "-o", "wide"]));
    assert!(
        wide.contains("    the scheduler's last event (2025-01-02T00:00:00Z), the same: 0/4 nodes"),
        "{wide}"
    );
    // Refused events are a note, not an error.
    fake.forbid("events");
    let out = live(&["audit", "-o", "json"]);
    assert!(out.status.success());
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        doc["notes"]
            .to_string()
            .contains("cannot list events in namespace shop"),
        "{doc}"
    );
    for s in fake.seen() {
        assert_eq!(s.method, "GET", "{} {}", s.method, s.path);
    }
}

/// `explain deploy/NAME`: a row per pod the Deployment owns (through its ReplicaSet), then the
/// first Pending one explained in full; the same from the ReplicaSet and from a selector.
#[test]
fn explain_of_a_deployment_rows_its_pods_then_explains_the_first_pending() {
    let json = |target: &[&str]| {
        let mut args = vec!["explain"];
        args.extend(target);
        args.extend(["-n", "shop", "--snapshot", CLUSTER, "-o", "json"]);
        let out = run(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let doc = json(&["deploy/web"]);
    assert_eq!(doc["kind"], "SchedulingExplanation");
    assert_eq!(
        doc["pod"],
        json!({"namespace": "shop", "name": "web-5d8f-a"})
    );
    assert_eq!(doc["summary"]["failedSchedulingMessage"], MESSAGE);
    assert_eq!(
        doc["pods"],
        json!([
            {"name": "web-5d8f-a", "phase": "Pending", "failedSchedulingMessage": MESSAGE,
             "explained": true},
            {"name": "web-5d8f-b", "phase": "Pending", "failedSchedulingMessage": MESSAGE,
             "explained": false}
        ])
    );
    assert_eq!(json(&["rs/web-5d8f"])["pods"], doc["pods"]);
    assert_eq!(
        json(&["-l", "app=web,pod-template-hash"])["pods"],
        doc["pods"]
    );
    // Running pods: the row says whether their node still passes; the first is explained.
    let db = json(&["-l", "app in (db)"]);
    assert_eq!(db["pod"]["name"], "db-0");
    assert_eq!(
        db["pods"][1],
        json!({"name": "db-1", "node": "n-hdd", "phase": "Running",
               "failedSchedulingMessage": db["pods"][1]["failedSchedulingMessage"],
               "currentReasons": ["node(s) didn't match Pod's node affinity/selector"],
               "explained": false})
    );
    let table = stdout(&run(&[
        "explain",
        "deploy/web",
        "-n",
        "shop",
        "--snapshot",
        CLUSTER,
    ]));
    assert!(
        table.starts_with("POD         NODE     NOW\nweb-5d8f-a  Pending  0/4 nodes"),
        "{table}"
    );
    assert!(
        table.contains("\nExplained below: web-5d8f-a\n\nPod shop/web-5d8f-a\n"),
        "{table}"
    );
}

#[test]
fn explain_targets_that_select_nothing_or_nothing_known_are_errors() {
    let err = |args: &[&str]| {
        let out = run(args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, e) = err(&["explain", "deploy/api", "-n", "shop", "--snapshot", CLUSTER]);
    assert_eq!(code, Some(1));
    assert!(
        e.contains(
            "Error from server (NotFound): deployments.apps \"api\" not found: no pod of \
             namespace shop in snapshot tests/audit/cluster.yaml belongs to it"
        ),
        "{e}"
    );
    let (code, e) = err(&["explain", "svc/web", "-n", "shop", "--snapshot", CLUSTER]);
    assert_eq!(code, Some(2));
    assert!(e.contains("not \"svc\""), "{e}");
    let (code, e) = err(&[
        "explain",
        "-l",
        "app in web",
        "-n",
        "shop",
        "--snapshot",
        CLUSTER,
    ]);
    assert_eq!(code, Some(2));
    assert!(
        e.contains("unable to parse requirement \"app in web\""),
        "{e}"
    );
    // A typo: the nearest name of the namespace; a pod of another namespace: that namespace.
    let (code, e) = err(&["explain", "wbe-5d8f-a", "-n", "shop", "--snapshot", CLUSTER]);
    assert_eq!(code, Some(1));
    assert!(e.contains("(did you mean \"web-5d8f-a\"?)"), "{e}");
    let (_, e) = err(&["explain", "elsewhere", "-n", "shop", "--snapshot", CLUSTER]);
    assert!(
        e.contains("(a pod of that name is in namespace other: pass -n other)"),
        "{e}"
    );
    let (_, e) = err(&["explain", "zzz", "-n", "shop", "--snapshot", CLUSTER]);
    assert!(
        e.contains("not found in snapshot tests/audit/cluster.yaml; check"),
        "{e}"
    );
}

/// Live, a pod not found gets the same hints, from two small lists (never the big ones).
#[test]
fn live_pod_not_found_hints_from_small_lists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fake = FakeApi::start(&root.join(CLUSTER));
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = fake.kubeconfig(dir.path(), Some("shop"));
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-affinity"))
        .args(["explain", "elsewhere", "--kubeconfig"])
        .arg(&kubeconfig)
        .env("HOME", dir.path())
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("(a pod of that name is in namespace other: pass -n other)"),
        "{e}"
    );
    let seen = fake.seen();
    let all_pods = seen.iter().find(|s| s.path == "/api/v1/pods").unwrap();
    assert!(
        all_pods
            .query
            .contains("fieldSelector=metadata.name%3Delsewhere"),
        "{}",
        all_pods.query
    );
    assert!(
        seen.iter()
            .all(|s| s.path != "/api/v1/nodes" && s.method == "GET")
    );
}

/// `explain`/`audit` with edits to try: the JSON document of the edited cluster, with `diff`.
fn edited(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["-n", "shop", "--snapshot", CLUSTER, "-o", "json", "--diff"]);
    let out = run(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn change<'a>(doc: &'a Value, node: &str) -> &'a Value {
    doc["diff"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == node)
        .unwrap_or_else(|| panic!("no change on {node}: {}", doc["diff"]))
}

#[test]
fn a_label_a_taint_removed_and_an_uncordon_each_change_a_verdict() {
    // The Pending replica wants gpu=true: label a node with it.
    let doc = edited(&["explain", "web-5d8f-a", "--label", "n-shared", "gpu=true"]);
    assert_eq!(doc["summary"]["feasible"], 1);
    assert_eq!(doc["summary"]["selected"], json!(["n-shared"]));
    assert_eq!(doc["diff"]["edits"], json!(["--label n-shared gpu=true"]));
    assert_eq!(doc["diff"]["before"]["feasible"], 0);
    assert_eq!(doc["diff"]["before"]["failedSchedulingMessage"], MESSAGE);
    assert_eq!(
        change(&doc, "n-shared"),
        &json!({"name": "n-shared", "before": "Infeasible",
                "beforeReason": "node(s) didn't match Pod's node affinity/selector",
                "after": "Feasible"})
    );
    assert_eq!(doc["diff"]["nodes"].as_array().unwrap().len(), 1);
    // On the cordoned node the label is not enough (the scheduler records the cordon, before
    // and after); uncordoning it too is.
    let doc = edited(&["explain", "web-5d8f-a", "--label", "n-cordoned", "gpu=true"]);
    assert_eq!(doc["summary"]["feasible"], 0);
    assert_eq!(doc["diff"]["nodes"], json!([]));
    let doc = edited(&[
        "explain",
        "web-5d8f-a",
        "--label",
        "n-cordoned",
        "gpu=true",
        "--uncordon",
        "n-cordoned",
    ]);
    assert_eq!(change(&doc, "n-cordoned")["after"], "Feasible");
    // The new taint taken away: api-0's node takes it again.
    let doc = edited(&[
        "explain",
        "api-0",
        "--taint",
        "n-tainted",
        "maintenance:NoSchedule-",
    ]);
    assert_eq!(
        change(&doc, "n-tainted"),
        &json!({"name": "n-tainted", "before": "Infeasible",
                "beforeReason": "node(s) had untolerated taint(s)", "after": "Feasible"})
    );
    assert_eq!(doc["current"]["reasons"], json!([]));
}

#[test]
fn a_cordon_a_taint_a_removed_pod_and_an_added_node_change_the_audit() {
    let doc = edited(&[
        "audit",
        "--cordon",
        "n-shared",
        "--taint",
        "n-hdd",
        "dedicated=db:NoExecute",
        "--remove-pod",
        "shop/batch-0",
    ]);
    let diff = &doc["diff"];
    assert_eq!(
        diff["edits"],
        json!([
            "--cordon n-shared",
            "--taint n-hdd dedicated=db:NoExecute",
            "--remove-pod shop/batch-0"
        ])
    );
    assert_eq!(diff["before"]["cordonedNodes"], 1);
    assert_eq!(doc["summary"]["cordonedNodes"], 2);
    // batch-0 is gone, so cache-0's anti-affinity holds again; the db pods break one more rule.
    assert_eq!(
        diff["noLongerViolating"],
        json!(["shop/batch-0", "shop/cache-0"])
    );
    assert_eq!(diff["nowViolating"], json!([]));
    let db0 = doc["violating"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["pod"] == "shop/db-0")
        .unwrap();
    let plugins: Vec<&str> = db0["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["plugin"].as_str().unwrap())
        .collect();
    assert_eq!(plugins, ["TaintToleration", "NodeAffinity"]);
    // A new GPU node like n-shared: the Pending replicas would go there.
    let doc = edited(&[
        "audit",
        "--add-node",
        "n-gpu",
        "--like",
        "n-shared",
        "--label",
        "n-gpu",
        "gpu=true",
    ]);
    assert_eq!(doc["summary"]["placeable"], 2);
    assert_eq!(doc["pending"][1]["pods"][0]["selected"], json!(["n-gpu"]));
    let text = stdout(&run(&[
        "audit",
        "-n",
        "shop",
        "--snapshot",
        CLUSTER,
        "--diff",
        "--remove-pod",
        "shop/batch-0",
    ]));
    assert!(
        text.contains(
            "\nWhat the edits change (--remove-pod shop/batch-0):\n  before: 3 Pending, 5 breaking \
             their required rules, 1 cordoned node(s)\n  no longer breaking their rules: \
             shop/batch-0, shop/cache-0\n"
        ),
        "{text}"
    );
    // An added node shows in explain's diff with no verdict before.
    let doc = edited(&[
        "explain",
        "web-5d8f-b",
        "--add-node",
        "n-gpu",
        "--like",
        "n-shared",
        "--label",
        "n-gpu",
        "gpu=true",
    ]);
    assert_eq!(
        change(&doc, "n-gpu"),
        &json!({"name": "n-gpu", "after": "Feasible"})
    );
}

#[test]
fn edits_that_name_nothing_there_or_break_kubectls_syntax_are_errors() {
    let err = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["-n", "shop", "--snapshot", CLUSTER]);
        let out = run(&all);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, e) = err(&["audit", "--cordon", "n-nope"]);
    assert_eq!(code, Some(1));
    assert!(
        e.contains("--cordon n-nope: node \"n-nope\" not found in the cluster state"),
        "{e}"
    );
    let (code, e) = err(&["audit", "--remove-pod", "shop/nope"]);
    assert_eq!(code, Some(1));
    assert!(e.contains("pod shop/nope not found"), "{e}");
    let (code, e) = err(&["audit", "--taint", "n-hdd", "k=v:Sometimes"]);
    assert_eq!(code, Some(2));
    assert!(
        e.contains("invalid taint effect: Sometimes, unsupported taint effect"),
        "{e}"
    );
    let (code, e) = err(&["audit", "--diff"]);
    assert_eq!(code, Some(2));
    assert!(e.contains("--diff shows what edits change"), "{e}");
    let (code, _) = err(&["explain", "db-0", "--add-node", "x"]);
    assert_eq!(code, Some(2), "--add-node needs --like");
}

/// `whatif` of a pod whose toleration almost matches a taint: the toleration to add, with the
/// near miss named, in JSON and in the table's closest nodes.
#[test]
fn a_near_miss_toleration_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let pod = dir.path().join("pod.yaml");
    std::fs::write(
        &pod,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: fix, namespace: shop}\nspec:\n  \
         nodeSelector: {kubernetes.io/hostname: n-tainted}\n  tolerations:\n  - {key: \
         maintenance, operator: Equal, value: \"yes\", effect: NoSchedule}\n  containers: \
         [{name: c, image: x}]\n",
    )
    .unwrap();
    let pod = pod.to_str().unwrap();
    let out = run(&["whatif", "-f", pod, "--snapshot", CLUSTER, "-o", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let node = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "n-tainted")
        .unwrap();
    assert_eq!(
        node["suggestions"],
        json!([{"rule": "TaintToleration", "change": {"addToleration": {
            "toleration": {"key": "maintenance", "operator": "Equal", "value": "true",
                           "effect": "NoSchedule"},
            "nearMiss": {"key": "maintenance", "operator": "Equal", "value": "yes",
                         "effect": "NoSchedule"}}}}])
    );
    assert_eq!(
        doc["summary"]["closest"],
        json!(["n-hdd", "n-shared", "n-tainted"])
    );
    let text = stdout(&run(&["whatif", "-f", pod, "--snapshot", CLUSTER]));
    assert!(
        text.contains(
            "  n-tainted: TaintToleration: add the toleration {key: maintenance, operator: \
             Equal, value: true, effect: NoSchedule}; near miss: the pod tolerates {key: \
             maintenance, operator: Equal, value: yes, effect: NoSchedule}, which does not match\n"
        ),
        "{text}"
    );
}

/// Over 50 nodes with none feasible, the table lists the closest nodes, not a bare header.
#[test]
fn a_big_cluster_with_no_room_lists_the_closest_nodes() {
    let mut items = Vec::new();
    for i in 0..60 {
        let mut node = json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": format!("n{i:02}"), "labels": {"zone": "z1"}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
        if i != 42 {
            node["spec"] = json!({"taints": [{"key": "x", "effect": "NoSchedule"}]});
        }
        items.push(node);
    }
    items.push(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"nodeSelector": {"zone": "z2"}, "containers": [{"name": "c", "image": "x"}]}}));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.json");
    std::fs::write(
        &file,
        json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
    )
    .unwrap();
    let out = run(&[
        "explain",
        "p",
        "-n",
        "default",
        "--snapshot",
        file.to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert!(
        text.lines().any(|l| l.trim_start().starts_with("n42 ")),
        "{text}"
    );
    assert!(
        text.contains("  n42: NodeAffinity: nodeSelector wants zone=z2, the node has zone=z1\n"),
        "{text}"
    );
}

/// The summary counts the cluster's cordoned nodes, also those that run no audited pod (the
/// demo's worker-c-2 runs none of shop's, nor gpu-c-1 once cordoned).
#[test]
fn every_cordoned_node_is_counted() {
    let out = crate::support::run(&[
        "audit",
        "-n",
        "shop",
        "--snapshot",
        "examples/cluster.yaml",
        "--cordon",
        "gpu-c-1",
        "-o",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["summary"]["cordonedNodes"], 2, "{}", doc["summary"]);
}
