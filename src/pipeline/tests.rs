//! Each command's run from a small snapshot file, through the same functions the binary
//! calls, asserting the document (or the error) it ends with.

use std::io::Write;

use serde_json::{Value, json};

use super::audit::{Request as AuditRequest, audit};
use super::explain::{Explained, Several, explain, explain_several};
use super::whatif::{Ending, Request as WhatifRequest, Validate, whatif};
use super::{Diffed, Options};
use crate::cluster::KubeArgs;
use crate::error::Error;
use crate::report::Note;
use crate::scheduler::Verdict;
use crate::state::edits::Edit;

/// A file holding `value` as JSON (which the snapshot and manifest readers take as YAML).
fn file(value: &Value) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().expect("temp file");
    f.write_all(value.to_string().as_bytes()).expect("write");
    f
}

fn node(name: &str, zone: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node",
           "metadata": {"name": name, "labels": {"zone": zone, "kubernetes.io/hostname": name}},
           "status": {"allocatable": {"cpu": "2", "memory": "8Gi", "pods": "110"}}})
}

fn pod(name: &str, node: Option<&str>, cpu: &str) -> Value {
    let mut p = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": name}},
        "spec": {"containers": [{"name": "c", "image": "x",
            "resources": {"requests": {"cpu": cpu}}}]},
        "status": {"phase": "Pending"}});
    if let Some(n) = node {
        p["spec"]["nodeName"] = json!(n);
        p["status"]["phase"] = json!("Running");
    }
    p
}

/// Two nodes in two zones; `db-0` (a StatefulSet's) runs on worker-a, `big` waits for 4
/// cpus no node has, `pinned` runs on worker-b against its own nodeSelector.
fn cluster() -> tempfile::NamedTempFile {
    let mut db = pod("db-0", Some("worker-a"), "500m");
    db["metadata"]["ownerReferences"] = json!([{"apiVersion": "apps/v1",
        "kind": "StatefulSet", "name": "db", "uid": "u1", "controller": true}]);
    let mut pinned = pod("pinned", Some("worker-b"), "100m");
    pinned["spec"]["nodeSelector"] = json!({"zone": "z1"});
    let sts = json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "default", "uid": "u1"},
        "spec": {"replicas": 1, "serviceName": "db",
            "selector": {"matchLabels": {"app": "db-0"}},
            "template": {"metadata": {"labels": {"app": "db-0"}},
                "spec": {"containers": [{"name": "c", "image": "x",
                    "resources": {"requests": {"cpu": "500m"}}}]}}}});
    file(&json!({"apiVersion": "v1", "kind": "List", "items": [
        node("worker-a", "z1"), node("worker-b", "z2"),
        db, pod("big", None, "4"), pinned, sts,
    ]}))
}

fn options(snapshot: &tempfile::NamedTempFile) -> Options {
    #[derive(clap::Parser)]
    struct Only {
        #[command(flatten)]
        kube: KubeArgs,
    }
    let kube = <Only as clap::Parser>::parse_from(["t"]).kube;
    Options {
        snapshot: Some(snapshot.path().to_path_buf()),
        kube,
        namespace: Some("default".to_string()),
        scheduler_config: None,
        feature_gates: Vec::new(),
        kubernetes_version: None,
        edits: Vec::new(),
        diff: false,
        nodes: Vec::new(),
    }
}

/// `whatif` of `request`, with every explanation it gives out.
fn whatif_docs(options: &Options, request: &WhatifRequest) -> (Vec<Explained>, Ending) {
    let mut docs = Vec::new();
    let ran = whatif(options, request, &mut |d| {
        docs.push(d);
        Ok(())
    })
    .expect("whatif");
    (docs, ran.output)
}

fn request(file: Option<&tempfile::NamedTempFile>) -> WhatifRequest {
    WhatifRequest {
        files: file.map(|f| f.path().to_path_buf()).into_iter().collect(),
        recursive: false,
        validate: Validate::Strict,
        scale: None,
        replicas: None,
        replica: None,
        seed: None,
        server_dry_run: false,
        admission_plugins: Default::default(),
    }
}

#[test]
fn explain_says_why_no_node_takes_a_pending_pod() {
    let snapshot = cluster();
    let Diffed { doc, diff } = explain(&options(&snapshot), "pod/big")
        .expect("explain")
        .output;
    assert!(diff.is_none());
    assert_eq!(&*doc.pod.name, "big");
    assert_eq!(doc.summary.feasible, 0);
    assert_eq!(
        doc.summary.failed_scheduling_message.as_deref(),
        Some(
            "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, \
             preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
        )
    );
    let source = format!("snapshot {}", snapshot.path().display());
    assert_eq!(doc.source.as_deref(), Some(source.as_str()));
}

#[test]
fn a_pod_not_found_is_refused_with_the_nearest_name() {
    let snapshot = cluster();
    let err = explain(&options(&snapshot), "bigg").expect_err("no such pod");
    let Error::PodNotFound { name, hint, .. } = err else {
        panic!("{err:?}");
    };
    assert_eq!(name, "bigg");
    assert_eq!(hint.as_deref(), Some("did you mean \"big\"?"));
}

#[test]
fn a_node_drilled_into_must_be_in_the_cluster() {
    let snapshot = cluster();
    let mut options = options(&snapshot);
    options.nodes = vec!["worker-c".to_string()];
    let err = explain(&options, "big").expect_err("no such node");
    let Error::NodeNotFound { name, closest, .. } = err else {
        panic!("{err:?}");
    };
    assert_eq!(name, "worker-c");
    assert!(closest.is_some_and(|c| c.starts_with("worker-")));
}

/// `--diff`: the same pod on the cluster as read, and the node the cordon turns away.
#[test]
fn a_diff_names_the_node_an_edit_changes() {
    let snapshot = cluster();
    let mut options = options(&snapshot);
    options.edits = vec![Edit::Cordon("worker-b".to_string())];
    options.diff = true;
    let Diffed { doc, diff } = explain(&options, "pinned").expect("explain").output;
    let diff = diff.expect("a diff");
    assert_eq!(diff.edits, ["--cordon worker-b"]);
    let changed: Vec<(&str, Option<Verdict>, Verdict)> = diff
        .nodes
        .iter()
        .map(|n| (n.name.as_str(), n.before, n.after))
        .collect();
    assert_eq!(
        changed,
        [("worker-b", Some(Verdict::Infeasible), Verdict::Infeasible)],
        "the reason changes, not the verdict: {diff:?}"
    );
    assert_eq!(doc.summary.selected, ["worker-a"]);
}

#[test]
fn explain_several_explains_the_first_pending_pod_beside_a_row_each() {
    let snapshot = cluster();
    let selector = crate::state::parse_selector_flag("app in (big, pinned)").expect("selector");
    let several = Several::Selector {
        text: "app in (big, pinned)".to_string(),
        selector,
    };
    let doc = explain_several(&options(&snapshot), &several)
        .expect("explain")
        .output
        .doc;
    let rows: Vec<(&str, bool)> = doc
        .pods
        .iter()
        .map(|r| (r.name.as_str(), r.explained))
        .collect();
    assert_eq!(rows, [("big", true), ("pinned", false)]);
    assert_eq!(&*doc.pod.name, "big");
    let none = Several::Workload {
        kind: "Deployment",
        name: "web".to_string(),
    };
    let err = explain_several(&options(&snapshot), &none).expect_err("no pods");
    assert!(matches!(err, Error::WorkloadNotFound { .. }), "{err:?}");
}

/// A Deployment's replicas in a row: hostname anti-affinity lets one run per node (the
/// first on the node with the more room), and the third stays Pending, which is the one
/// explained.
#[test]
fn whatif_places_a_workload_s_replicas_in_a_row() {
    let snapshot = cluster();
    let manifest = file(&json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "x"}],
                    "affinity": {"podAntiAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": [{
                            "labelSelector": {"matchLabels": {"app": "web"}},
                            "topologyKey": "kubernetes.io/hostname"}]}}}}}}));
    let (docs, ending) = whatif_docs(&options(&snapshot), &request(Some(&manifest)));
    assert!(matches!(ending, Ending::Evaluated));
    let [Diffed { doc, diff: None }] = docs.as_slice() else {
        panic!("one document: {docs:?}");
    };
    let w = doc.workload.as_ref().expect("workload");
    assert_eq!((w.placed, w.pending, w.explained), (2, 1, 2));
    let nodes: Vec<Option<&str>> = w.pods.iter().map(|p| p.node.as_deref()).collect();
    assert_eq!(nodes, [Some("worker-b"), Some("worker-a"), None]);
}

/// Two manifests in one file: an explanation each, in the file's order.
#[test]
fn whatif_gives_out_an_explanation_per_manifest() {
    let snapshot = cluster();
    let small = |name: &str| {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
               "spec": {"containers": [{"name": "c", "image": "x"}]}})
    };
    let manifest = file(&json!({"apiVersion": "v1", "kind": "List",
        "items": [small("one"), small("two")]}));
    let (docs, _) = whatif_docs(&options(&snapshot), &request(Some(&manifest)));
    let names: Vec<&str> = docs.iter().map(|d| &*d.doc.pod.name).collect();
    assert_eq!(names, ["one", "two"]);
    assert!(docs.iter().all(|d| d.doc.summary.feasible == 2));
}

/// `--scale`: the pods a StatefulSet lacks are placed beside those it has; to no more pods
/// than it has, nothing is evaluated.
#[test]
fn scaling_places_the_missing_ordinals_or_says_there_are_none() {
    let snapshot = cluster();
    let scaled = |to: &str| WhatifRequest {
        scale: Some(to.parse().expect("target")),
        ..request(None)
    };
    let (docs, ending) = whatif_docs(&options(&snapshot), &scaled("sts/db=2"));
    assert!(matches!(ending, Ending::Evaluated));
    let w = docs[0].doc.workload.as_ref().expect("workload");
    let names: Vec<&str> = w.pods.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["db-1"]);
    assert!(
        matches!(w.notes.first(), Some(Note::ScaledBeside { current: 1, .. })),
        "{:?}",
        w.notes
    );
    let (docs, ending) = whatif_docs(&options(&snapshot), &scaled("sts/db=1"));
    assert!(docs.is_empty());
    let Ending::NothingToScale(nothing) = ending else {
        panic!("{ending:?}");
    };
    assert_eq!(
        (nothing.current, nothing.namespace.as_str()),
        (1, "default")
    );
}

#[test]
fn a_server_dry_run_needs_a_live_cluster() {
    let snapshot = cluster();
    let manifest = file(&pod("p", None, "100m"));
    let request = WhatifRequest {
        server_dry_run: true,
        ..request(Some(&manifest))
    };
    let err = whatif(&options(&snapshot), &request, &mut |_| Ok(())).expect_err("refused");
    assert!(matches!(err, Error::Usage(_)), "{err:?}");
}

/// The audit: the Pending pod with its message, the running pod its node's labels no
/// longer suit, each only when asked for.
#[test]
fn audit_finds_pending_pods_and_broken_rules() {
    let snapshot = cluster();
    let request = |pending, violating| AuditRequest {
        all_namespaces: false,
        pending,
        violating,
    };
    let doc = audit(&options(&snapshot), &request(false, false))
        .expect("audit")
        .output
        .doc;
    let pending: Vec<&str> = (doc.pending.iter().flatten())
        .flat_map(|g| g.pods.iter().map(|p| p.name.as_str()))
        .collect();
    assert_eq!(pending, ["big"]);
    let violating: Vec<&str> = (doc.violating.iter().flatten())
        .map(|v| v.pod.as_str())
        .collect();
    assert_eq!(violating, ["default/pinned"]);
    assert!(doc.anything_found());
    let only_pending = audit(&options(&snapshot), &request(true, false))
        .expect("audit")
        .output
        .doc;
    assert!(only_pending.violating.is_none());
    assert_eq!(only_pending.summary.pending, 1);
}
