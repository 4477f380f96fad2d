//! Lints as notes (issue 61, item 6): what the scheduler accepts but will not do what it
//! seems to, through the command line (`whatif -o json`, run in this process); each test
//! asserts the note's exact words, and that a rule that works gets none.

// Tests may unwrap: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::advice::{node, pod, running, whatif};

/// The notes that are lints.
fn lints(doc: &Value) -> Vec<String> {
    doc["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n.as_str())
        .filter(|n| n.starts_with("lint: "))
        .map(str::to_string)
        .collect()
}

fn zk_term(selector: Value) -> Value {
    json!([{"labelSelector": {"matchLabels": selector},
        "topologyKey": "kubernetes.io/hostname"}])
}

/// The website's ZooKeeper example: the term selects `app=zk`, the pods carry
/// `app.kubernetes.io/name=zk`, so the replicas never keep apart; an affinity term like it
/// can never be met. A term that selects the pods gets no note.
#[test]
fn a_required_term_that_selects_no_pod_is_a_lint() {
    let zk = json!({"app.kubernetes.io/name": "zk"});
    let cluster = [
        node("n1", "z1", json!({})),
        node("n2", "z2", json!({})),
        running("zk-0", "n1", zk.clone(), json!({})),
    ];
    let anti = json!({"affinity": {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": zk_term(json!({"app": "zk"}))}}});
    let (_, doc) = whatif(&cluster, &pod(zk.clone(), anti));
    assert_eq!(
        lints(&doc),
        [
            "lint: the required term podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0] \
          (app=zk, topologyKey kubernetes.io/hostname) selects no pod in namespace default, not \
          even this pod (check its labels against the pods'): this anti-affinity never keeps \
          anything apart"
        ]
    );
    let affinity = json!({"affinity": {"podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": zk_term(json!({"app": "zk"}))}}});
    let (_, doc) = whatif(&cluster, &pod(zk.clone(), affinity));
    assert_eq!(
        lints(&doc),
        [
            "lint: the required term podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0] \
          (app=zk, topologyKey kubernetes.io/hostname) selects no pod in namespace default, not \
          even this pod (check its labels against the pods'): this affinity can never be met \
          (the first-pod rule lets a pod through only when it matches its own term)"
        ]
    );
    let right = json!({"affinity": {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": zk_term(zk.clone())}}});
    let (_, doc) = whatif(&cluster, &pod(zk.clone(), right));
    assert_eq!(lints(&doc), Vec::<String>::new());
    // The first replica of a new workload matches its own term: nothing to say.
    let (_, doc) = whatif(
        &cluster[..2],
        &pod(
            zk.clone(),
            json!({"affinity": {"podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": zk_term(zk.clone())}}}),
        ),
    );
    assert_eq!(lints(&doc), Vec::<String>::new());

    // A spread constraint's selector alike.
    let spread = json!({"topologySpreadConstraints": [{"maxSkew": 1,
        "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway",
        "labelSelector": {"matchLabels": {"app": "zk"}}}]});
    let (_, doc) = whatif(&cluster, &pod(zk, spread));
    assert_eq!(
        lints(&doc),
        [
            "lint: topologySpreadConstraints[0] (app=zk, topologyKey topology.kubernetes.io/zone) \
          selects no pod in namespace default, not even this pod (check its labels against the \
          pods'): every domain counts 0, so it spreads nothing"
        ]
    );
}

/// Nodes without the zone label are in no zone: a DoNotSchedule constraint rejects them, and
/// default spreading sends pods to them.
#[test]
fn nodes_without_a_constraints_topology_key_are_a_lint() {
    let mut bare = node("bare-1", "z1", json!({}));
    bare["metadata"]["labels"]
        .as_object_mut()
        .unwrap()
        .remove("topology.kubernetes.io/zone");
    let web = json!({"app": "web"});
    let cluster = [
        node("n1", "z1", json!({})),
        node("n2", "z2", json!({})),
        bare,
        running("web-1", "n1", web.clone(), json!({})),
        json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"selector": {"app": "web"}}}),
    ];
    let spread = json!({"topologySpreadConstraints": [{"maxSkew": 1,
        "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "web"}}}]});
    let (_, doc) = whatif(&cluster, &pod(web.clone(), spread));
    assert_eq!(
        lints(&doc),
        [
            "lint: 1 of 3 node(s) have no topology.kubernetes.io/zone label, which \
          topologySpreadConstraints[0] spreads over (bare-1): they are in no domain, and they \
          reject the pod (missing required label)"
        ]
    );
    let (_, doc) = whatif(&cluster, &pod(web, json!({})));
    assert_eq!(
        lints(&doc),
        [
            "lint: 1 of 3 node(s) have no topology.kubernetes.io/zone label, which default \
          spreading [1] spreads over (bare-1): they are in no domain, and scoring as if they \
          held none of the pods, they attract them"
        ]
    );
}

/// A ReadWriteOnce claim a running pod uses: the scheduler does not check it (ReadWriteOncePod
/// only), the kubelet's Multi-Attach error does.
#[test]
fn a_read_write_once_claim_in_use_is_a_lint() {
    let claim = |modes: Value| {
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": "data", "namespace": "default",
                "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
            "spec": {"accessModes": modes, "volumeName": "pv-a", "storageClassName": "",
                "resources": {"requests": {"storage": "10Gi"}}},
            "status": {"phase": "Bound"}})
    };
    let pv = json!({"apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": "pv-a"},
        "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
            "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"},
            "claimRef": {"namespace": "default", "name": "data"}},
        "status": {"phase": "Bound"}});
    let uses = json!({"volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]});
    let cluster = |modes: Value| {
        [
            node("n1", "z1", json!({})),
            node("n2", "z2", json!({})),
            pv.clone(),
            claim(modes),
            running("writer", "n1", json!({}), uses.clone()),
        ]
    };
    let (_, doc) = whatif(
        &cluster(json!(["ReadWriteOnce"])),
        &pod(json!({}), uses.clone()),
    );
    assert_eq!(
        lints(&doc),
        [
            "lint: claim default/data is ReadWriteOnce and in use by default/writer on n1: on any \
          other node the kubelet cannot attach it (Multi-Attach error) though the scheduler \
          places the pod there (it checks ReadWriteOncePod only)"
        ]
    );
    let (_, doc) = whatif(&cluster(json!(["ReadWriteMany"])), &pod(json!({}), uses));
    assert_eq!(lints(&doc), Vec::<String>::new());
}
