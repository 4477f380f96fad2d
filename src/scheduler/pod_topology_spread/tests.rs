//! PodTopologySpread against upstream's cases (filtering_test.go, scoring_test.go, common's
//! default selector) and against itself: preemption's dry run against PreFilter without the
//! removed pods.

use super::*;
use crate::scheduler::FilterDetails as AnyFilterDetails;
use crate::scheduler::profile::Profile;
use crate::scheduler::{Evaluation, evaluate};
use crate::state::labels::Labels;
use crate::state::selector::{LabelSelector, Op, Requirement};
use crate::state::{Pod, WorkloadSelectors, read_snapshot_str};
use serde_json::{Value, json};

fn node(name: &str, labels: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}})
}

fn existing(name: &str, ns: &str, labels: Value, node: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": ns, "labels": labels},
           "spec": {"nodeName": node, "containers": [{"name": "c", "image": "x"}]}})
}

fn incoming(labels: Value, spec: Value) -> Pod {
    let mut spec = spec;
    spec["containers"] = json!([{"name": "c", "image": "x"}]);
    let p: k8s_openapi::api::core::v1::Pod = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default", "labels": labels,
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                          "name": "rs1", "uid": "u", "controller": true}]},
        "spec": spec
    }))
    .expect("pod");
    Pod::from_api(&p)
}

/// Preemption's dry run takes pods out of what PreFilter counted (`filter_without`): on
/// every node and for every set of its pods, the answer is the one PreFilter gives on a
/// state without those pods, for a zone constraint whose minimum moves, a hostname one,
/// and minDomains above the domains there are.
#[test]
fn taking_pods_out_agrees_with_prefiltering_without_them() {
    use crate::scheduler::config::{FeatureGates, PodTopologySpreadArgs};
    let zone = |name: &str, z: &str| {
        node(
            name,
            json!({"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": z,
                   "pool": "x"}),
        )
    };
    let web = |name: &str, node: &str| existing(name, "default", json!({"app": "web"}), node);
    let items = vec![
        zone("a", "z1"),
        zone("b", "z1"),
        zone("c", "z2"),
        node("d", json!({"kubernetes.io/hostname": "d"})),
        // Outside the first pod's nodeSelector: its zone is not counted.
        node(
            "e",
            json!({"kubernetes.io/hostname": "e", "topology.kubernetes.io/zone": "z3"}),
        ),
        web("w0", "a"),
        web("w1", "a"),
        existing("other-ns", "prod", json!({"app": "web"}), "a"),
        existing("db", "default", json!({"app": "db"}), "a"),
        web("w2", "c"),
        web("w3", "b"),
        web("w4", "d"),
    ];
    let state = read_snapshot_str(
        &json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
        "test",
    )
    .expect("snapshot");
    let gates = FeatureGates::default();
    let args = PodTopologySpreadArgs::default();
    let spread = |key: &str, max_skew: i32, min_domains: Option<i32>| {
        let mut c = json!({"maxSkew": max_skew, "topologyKey": key,
                           "whenUnsatisfiable": "DoNotSchedule",
                           "labelSelector": {"matchLabels": {"app": "web"}}});
        if let Some(m) = min_domains {
            c["minDomains"] = json!(m);
        }
        c
    };
    let pods = [
        incoming(
            json!({"app": "web"}),
            json!({"nodeSelector": {"pool": "x"}, "topologySpreadConstraints": [
                spread("topology.kubernetes.io/zone", 1, None),
                spread("kubernetes.io/hostname", 2, None)]}),
        ),
        incoming(
            json!({"app": "web"}),
            json!({"topologySpreadConstraints": [
                spread("topology.kubernetes.io/zone", 1, Some(3))]}),
        ),
    ];
    let mut compared = 0;
    for pod in &pods {
        let input = Input {
            pod,
            state: &state,
            exclude: None,
            removed: &[],
        };
        let mut cycle = PodTopologySpread::new(input, &args, &gates);
        cycle.pre_filter();
        for n in 0..state.nodes().len() {
            let on = state.pods_on(n);
            for mask in 0..(1u32 << on.len()) {
                let mut removed: Vec<usize> = (0..on.len())
                    .filter(|i| mask & (1 << i) != 0)
                    .map(|i| on[i])
                    .collect();
                removed.sort_unstable();
                let mut fresh = PodTopologySpread::new(
                    Input {
                        removed: &removed,
                        ..input
                    },
                    &args,
                    &gates,
                );
                fresh.pre_filter();
                let show = |(status, details): (Option<Status>, Option<Box<FilterDetails>>)| {
                    format!("{status:?} {:?}", details.expect("details").constraints)
                };
                assert_eq!(
                    show(cycle.filter_without(n, &removed)),
                    show(fresh.filter(n)),
                    "node {n}, removed {removed:?}"
                );
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 2 * (16 + 2 + 2 + 2 + 1));
    // A node whose zone is not counted (e) is measured against the counted minimum (z2's
    // one pod), never against its own empty count.
    let input = Input {
        pod: &pods[0],
        state: &state,
        exclude: None,
        removed: &[],
    };
    let mut plugin = PodTopologySpread::new(input, &args, &gates);
    plugin.pre_filter();
    let e = state.node_index("e").expect("node e");
    let (status, details) = plugin.filter(e);
    let zone = &details.expect("details").constraints[0];
    assert_eq!(
        (zone.matching_pods, zone.global_min, zone.skew),
        (0, 1, Some(0))
    );
    assert!(status.is_none());
}

fn run(pod: &Pod, items: Vec<Value>, args: Value, gates: &str) -> Evaluation {
    let state = read_snapshot_str(
        &json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
        "test",
    )
    .expect("snapshot");
    let cfg = json!({
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{
            "plugins": {"multiPoint": {"enabled": [{"name": "PodTopologySpread"}],
                                       "disabled": [{"name": "*"}]}},
            "pluginConfig": [{"name": "PodTopologySpread", "args": args}],
        }]
    });
    let profile = Profile::from_config(
        &cfg,
        "default-scheduler",
        FeatureGates::parse(gates).expect("gates"),
        "t",
    )
    .expect("profile");
    evaluate(
        Input {
            pod,
            state: &state,
            exclude: None,
            removed: &[],
        },
        &profile,
    )
}

/// Per node: "ok", "skew" (Unschedulable) or "label" (UnschedulableAndUnresolvable).
fn verdicts(e: &Evaluation) -> Vec<(String, &'static str)> {
    e.nodes
        .iter()
        .map(|n| {
            let s = n.filters.first().and_then(|f| f.status);
            let v = match s.map(|s| (s.code, s.message())) {
                None => "ok",
                Some((Code::Unschedulable, m)) if m == REASON_CONSTRAINTS_NOT_MATCH => "skew",
                Some((Code::UnschedulableAndUnresolvable, m))
                    if m == REASON_NODE_LABEL_NOT_MATCH =>
                {
                    "label"
                }
                Some(_) => "other",
            };
            (n.name.to_string(), v)
        })
        .collect()
}

fn zones() -> Vec<Value> {
    vec![
        node("a", json!({"zone": "z1"})),
        node("b", json!({"zone": "z2"})),
        node("c", json!({"zone": "z3"})),
    ]
}

#[test]
fn filter_table() {
    let hard = |extra: Value| {
        let mut c = json!({"maxSkew": 1, "topologyKey": "zone",
                           "whenUnsatisfiable": "DoNotSchedule",
                           "labelSelector": {"matchLabels": {"app": "web"}}});
        if let (Some(c), Some(e)) = (c.as_object_mut(), extra.as_object()) {
            c.extend(e.clone());
        }
        json!({"topologySpreadConstraints": [c]})
    };
    let web = json!({"app": "web"});
    let two_in_a = || {
        let mut v = zones();
        v.push(existing("w1", "default", json!({"app": "web"}), "a"));
        v.push(existing("w2", "default", json!({"app": "web"}), "a"));
        v.push(existing("w3", "default", json!({"app": "web"}), "b"));
        v
    };
    let list = json!({"defaultingType": "List"});
    // (name, incoming pod, cluster objects, feature gates, verdict per node a/b/c)
    type Case<'a> = (&'a str, Pod, Vec<Value>, &'a str, [&'a str; 3]);
    let cases: Vec<Case> = vec![
        (
            "counts 2/1/0: only the empty zone fits",
            incoming(web.clone(), hard(json!({}))),
            two_in_a(),
            "",
            ["skew", "skew", "ok"],
        ),
        (
            "maxSkew 2 lets the middle zone in",
            incoming(web.clone(), hard(json!({"maxSkew": 2}))),
            two_in_a(),
            "",
            ["skew", "ok", "ok"],
        ),
        (
            "pod not matching its own selector adds nothing",
            incoming(json!({"app": "other"}), hard(json!({}))),
            two_in_a(),
            "",
            ["skew", "ok", "ok"],
        ),
        (
            "{} selector counts no existing pod, but self-matches",
            incoming(web.clone(), hard(json!({"labelSelector": {}}))),
            two_in_a(),
            "",
            ["ok", "ok", "ok"],
        ),
        (
            "null selector matches nothing, not even the pod",
            incoming(web.clone(), hard(json!({"labelSelector": null}))),
            two_in_a(),
            "",
            ["ok", "ok", "ok"],
        ),
        (
            "terminating and other-namespace pods do not count",
            incoming(web.clone(), hard(json!({}))),
            {
                let mut v = zones();
                let mut t = existing("t", "default", json!({"app": "web"}), "a");
                t["metadata"]["deletionTimestamp"] = json!("2024-01-01T00:00:00Z");
                v.push(t);
                v.push(existing("o", "other", json!({"app": "web"}), "b"));
                v
            },
            "",
            ["ok", "ok", "ok"],
        ),
        (
            "a node without the key: unresolvable, and not a domain",
            incoming(web.clone(), hard(json!({}))),
            {
                let mut v = two_in_a();
                v[2] = node("c", json!({}));
                v
            },
            "",
            ["skew", "ok", "label"],
        ),
        (
            "minDomains above the domain count forces the minimum to 0",
            incoming(web.clone(), hard(json!({"minDomains": 4, "maxSkew": 2}))),
            two_in_a(),
            "",
            ["skew", "ok", "ok"],
        ),
        (
            "nodeTaintsPolicy Honor drops the tainted empty zone from the minimum",
            incoming(web.clone(), hard(json!({"nodeTaintsPolicy": "Honor"}))),
            {
                let mut v = two_in_a();
                v[2]["spec"] = json!({"taints": [{"key": "k", "effect": "NoSchedule"}]});
                v
            },
            "",
            ["skew", "ok", "ok"],
        ),
        (
            "with the gate off nodeTaintsPolicy is ignored",
            incoming(web.clone(), hard(json!({"nodeTaintsPolicy": "Honor"}))),
            {
                let mut v = two_in_a();
                v[2]["spec"] = json!({"taints": [{"key": "k", "effect": "NoSchedule"}]});
                v
            },
            "NodeInclusionPolicyInPodTopologySpread=false",
            ["skew", "skew", "ok"],
        ),
        (
            "nodeAffinityPolicy Honor (default) drops nodes outside the nodeSelector",
            incoming(
                web.clone(),
                json!({"nodeSelector": {"pool": "x"},
                       "topologySpreadConstraints": hard(json!({}))["topologySpreadConstraints"]}),
            ),
            {
                let mut v = two_in_a();
                v[0] = node("a", json!({"zone": "z1", "pool": "x"}));
                v[1] = node("b", json!({"zone": "z2", "pool": "x"}));
                v
            },
            "",
            ["skew", "ok", "ok"],
        ),
        (
            "matchLabelKeys narrows the selector to the pod's revision",
            incoming(
                json!({"app": "web", "rev": "2"}),
                hard(json!({"matchLabelKeys": ["rev"]})),
            ),
            two_in_a(),
            "",
            ["ok", "ok", "ok"],
        ),
        (
            "matchLabelKeys is ignored with its gate off",
            incoming(
                json!({"app": "web", "rev": "2"}),
                hard(json!({"matchLabelKeys": ["rev"]})),
            ),
            two_in_a(),
            "MatchLabelKeysInPodTopologySpread=false",
            ["skew", "skew", "ok"],
        ),
    ];
    for (name, pod, items, gates, want) in cases {
        let e = run(&pod, items, list.clone(), gates);
        let got = verdicts(&e);
        let got: Vec<&str> = got.iter().map(|(_, v)| *v).collect();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn first_failing_constraint_decides_the_status() {
    let pod = incoming(
        json!({"app": "web"}),
        json!({"topologySpreadConstraints": [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": "web"}}},
            {"maxSkew": 1, "topologyKey": "rack", "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": "web"}}}]}),
    );
    let items = vec![
        node("a", json!({"zone": "z1", "rack": "r1"})),
        node("b", json!({"zone": "z2", "rack": "r2"})),
        node("c", json!({"zone": "z1"})),
        existing("w1", "default", json!({"app": "web"}), "a"),
        existing("w2", "default", json!({"app": "web"}), "a"),
    ];
    let e = run(&pod, items, json!({"defaultingType": "List"}), "");
    let v = verdicts(&e);
    // node-c fails the zone skew first, so it is Unschedulable, not unresolvable.
    assert_eq!(v[2], ("c".to_string(), "skew"));
    assert_eq!(v[1], ("b".to_string(), "ok"));
    let Some(AnyFilterDetails::PodTopologySpread(d)) =
        e.nodes[2].filters.first().and_then(|f| f.details)
    else {
        panic!("details");
    };
    assert_eq!(d.constraints[0].skew, Some(3));
    assert_eq!(d.constraints[1].domain, None);
    // c lacks rack, so its pods count for neither constraint.
    assert!(!d.constraints[0].node_counted);
}

fn scores(e: &Evaluation) -> Vec<i64> {
    e.nodes
        .iter()
        .filter_map(|n| n.scores.first().and_then(|s| s.normalized))
        .collect()
}

#[test]
fn score_normalization_table() {
    let soft = |key: &str| {
        json!({"topologySpreadConstraints": [
            {"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "ScheduleAnyway",
             "labelSelector": {"matchLabels": {"app": "web"}}}]})
    };
    let host = |n: &str| node(n, json!({"kubernetes.io/hostname": n, "zone": "z"}));
    let pods = |counts: &[(&str, usize)]| {
        let mut v = Vec::new();
        for (n, c) in counts {
            for i in 0..*c {
                v.push(existing(
                    &format!("{n}{i}"),
                    "default",
                    json!({"app": "web"}),
                    n,
                ));
            }
        }
        v
    };
    let mut spec_example = vec![host("a"), host("b"), host("c"), host("d")];
    spec_example.extend(pods(&[("a", 2), ("b", 1), ("d", 3)]));
    let mut with_ignored = vec![
        host("a"),
        host("b"),
        node("x", json!({"kubernetes.io/hostname": "x"})),
    ];
    with_ignored.extend(pods(&[("a", 2), ("x", 5)]));
    let cases: Vec<(&str, Pod, Vec<Value>, Vec<i64>)> = vec![
        (
            // ln 6 weights; raw 4, 2, 0, 5 -> 100*(5+0-raw)/5.
            "hostname counts 2/1/0/3",
            incoming(json!({"app": "web"}), soft("kubernetes.io/hostname")),
            spec_example,
            vec![20, 60, 100, 0],
        ),
        (
            "a candidate without the zone key is ignored: 0, out of min/max",
            incoming(json!({"app": "web"}), soft("zone")),
            with_ignored,
            vec![100, 100, 0],
        ),
    ];
    for (name, pod, items, want) in cases {
        let e = run(&pod, items, json!({"defaultingType": "List"}), "");
        assert_eq!(scores(&e), want, "{name}");
    }
}

#[test]
fn default_constraints_need_an_owner_selector() {
    let nodes = || {
        vec![
            node("a", json!({"kubernetes.io/hostname": "a"})),
            node("b", json!({"kubernetes.io/hostname": "b"})),
            existing("w1", "default", json!({"app": "web"}), "a"),
        ]
    };
    let bare = incoming(json!({"app": "web"}), json!({}));
    // No Service/ReplicaSet: system defaults do nothing at all.
    let e = run(&bare, nodes(), json!({}), "");
    assert_eq!(e.pre_score[0].result, "Skip");
    // The owning ReplicaSet provides the selector; zone is optional under System.
    let mut items = nodes();
    items.push(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                      "metadata": {"name": "rs1", "namespace": "default"},
                      "spec": {"selector": {"matchLabels": {"app": "web"}}}}));
    let e = run(&bare, items.clone(), json!({}), "");
    assert_eq!(e.pre_score[0].result, "Success");
    // raw: a = 1*ln4 + 2 = 3.39 -> 3, b = 2; 100*(3+2-raw)/3.
    assert_eq!(scores(&e), vec![66, 100]);
    // A pod with its own (hard-only) constraints never gets defaults.
    let own = incoming(
        json!({"app": "web"}),
        json!({"topologySpreadConstraints": [
            {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
             "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {}}]}),
    );
    let e = run(&own, items, json!({}), "");
    assert_eq!(e.pre_score[0].result, "Skip");
}

#[test]
fn default_selector_table() {
    let labels: Labels = [("app", "web"), ("tier", "fe")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut w = WorkloadSelectors::default();
    w.services.insert(
        "default".into(),
        vec![
            [("app".to_string(), "web".to_string())].into(),
            [("app".to_string(), "db".to_string())].into(),
        ],
    );
    w.replication_controllers.insert(
        ("default".into(), "rc1".into()),
        [("tier".to_string(), "fe".to_string())].into(),
    );
    w.replica_sets.insert(
        ("default".into(), "rs1".into()),
        vec![Requirement {
            key: "tier".into(),
            op: Op::Exists,
        }],
    );
    let owned = |api: &str, kind: &str, name: &str| {
        let mut p = incoming(json!({"app": "web", "tier": "fe"}), json!({}));
        p.labels = std::sync::Arc::new(labels.clone());
        p.controller = Some(std::sync::Arc::new(crate::state::ControllerRef {
            api_version: api.into(),
            kind: kind.into(),
            name: name.into(),
        }));
        p
    };
    let cases: Vec<(&str, Pod, &str)> = vec![
        (
            "service + ReplicaSet",
            owned("apps/v1", "ReplicaSet", "rs1"),
            "app=web,tier",
        ),
        (
            "service + RC",
            owned("v1", "ReplicationController", "rc1"),
            "app=web,tier=fe",
        ),
        (
            "old API group is not recognised",
            owned("extensions/v1beta1", "ReplicaSet", "rs1"),
            "app=web",
        ),
        (
            "Deployment owners add nothing",
            owned("apps/v1", "Deployment", "rs1"),
            "app=web",
        ),
        (
            "unknown ReplicaSet adds nothing",
            owned("apps/v1", "ReplicaSet", "gone"),
            "app=web",
        ),
    ];
    for (name, pod, want) in cases {
        let sel = LabelSelector::Requirements(default_selector(&pod, Some(&w)));
        assert_eq!(sel.to_string(), want, "{name}");
    }
}

#[test]
fn prefilter_error_for_an_invalid_selector() {
    let pod = incoming(
        json!({}),
        json!({"topologySpreadConstraints": [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}}]}),
    );
    let e = run(&pod, zones(), json!({"defaultingType": "List"}), "");
    let s = e.pre_filter[0].status.as_ref().expect("rejected");
    assert_eq!(s.code, Code::Error);
    assert!(
        s.message().starts_with(
            "get constraints from pod: obtaining pod's hard topology spread constraints:"
        ),
        "{}",
        s.message()
    );
}
