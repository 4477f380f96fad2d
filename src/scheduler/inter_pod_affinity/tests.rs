//! InterPodAffinity against upstream's cases and against itself: the counts in both forms,
//! preemption's dry run against PreFilter without the removed pods, the report's tables.

use crate::scheduler::testing::{db_pod, evaluate_default, zone_node};
use serde_json::json;

/// Counts are kept as sorted domains when the pods are few against the domains, as a
/// vector over them otherwise: each node reads the same count either way.
#[test]
fn a_domains_count_is_the_same_whether_few_or_many_pods_were_counted() {
    for (zones, pods) in [(10, 1), (10, 2), (2, 1), (2, 6)] {
        let mut items: Vec<_> = (0..zones)
            .map(|z| zone_node(&format!("n{z}"), &format!("z{z}")))
            .collect();
        items.extend((0..pods).map(|p| db_pod(&format!("db-{p}"), &format!("n{}", p % 2))));
        let incoming = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "shy", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "x"}],
                     "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                         {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}]}}}});
        let eval = evaluate_default(json!(items), incoming);
        for n in &eval.nodes {
            let Some(crate::scheduler::FilterDetails::InterPodAffinity(d)) = n
                .filters
                .iter()
                .find(|f| *f.plugin == crate::scheduler::PluginId::InterPodAffinity)
                .and_then(|f| f.details)
            else {
                panic!("InterPodAffinity details on {}", n.name);
            };
            let z: usize = n.name[1..].parse().expect("node number");
            let expected = (0..pods).filter(|p| p % 2 == z).count();
            assert_eq!(
                d.anti_affinity[0].matching_pods,
                i64::try_from(expected).expect("count"),
                "{zones} zones, {pods} pods, node {}",
                n.name
            );
        }
    }
}

/// Preemption's dry run takes pods out of what PreFilter counted (`filter_without`): on
/// every node and for every set of its pods, the answer is the one PreFilter gives on a
/// state without those pods, through required affinity (two terms sharing a key, and the
/// first-pod exception once every match is gone), required anti-affinity and existing
/// pods' anti-affinity.
#[test]
fn taking_pods_out_agrees_with_prefiltering_without_them() {
    use super::InterPodAffinity;
    use crate::scheduler::Input;
    use crate::scheduler::config::InterPodAffinityArgs;
    use crate::scheduler::plugin::Plugin;
    use crate::state::{Pod, read_snapshot_str};
    let node = |name: &str, zone: &str| {
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels":
               {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}},
               "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
    };
    let pod = |name: &str, node: &str, app: &str, affinity: serde_json::Value| {
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": "default", "labels": {"app": app}},
               "spec": {"nodeName": node, "affinity": affinity,
                        "containers": [{"name": "c", "image": "x"}]},
               "status": {"phase": "Running"}})
    };
    let term = |app: &str, key: &str| json!({"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key});
    let avoid_me = json!({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
        [term("me", "topology.kubernetes.io/zone")]}});
    let items = json!([
        node("a", "z1"),
        node("b", "z1"),
        node("c", "z2"),
        pod("db-0", "a", "db", json!({})),
        pod("db-1", "a", "db", json!({})),
        pod("web-0", "a", "web", json!({})),
        pod("web-1", "c", "web", json!({})),
        pod("guard", "c", "web", avoid_me.clone()),
        pod("guard-2", "b", "other", avoid_me),
    ]);
    let state = read_snapshot_str(
        &json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
        "test",
    )
    .expect("snapshot");
    // As `me` the pod matches none of its own terms; as `db` it matches both affinity
    // terms, so the first-pod exception applies once no other pod matches them.
    let mut compared = 0;
    for app in ["me", "db"] {
        let incoming: k8s_openapi::api::core::v1::Pod = serde_json::from_value(json!({
        "metadata": {"name": "p", "namespace": "default", "labels": {"app": app}},
        "spec": {"containers": [{"name": "c", "image": "x"}], "affinity": {
            "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                term("db", "topology.kubernetes.io/zone"),
                {"labelSelector": {"matchExpressions": [
                    {"key": "app", "operator": "In", "values": ["db", "web"]}]},
                 "topologyKey": "topology.kubernetes.io/zone"}]},
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                term("web", "kubernetes.io/hostname")]}}}}))
        .expect("pod");
        let incoming = Pod::from_api(&incoming);
        let input = Input {
            pod: &incoming,
            state: &state,
            exclude: None,
            removed: &[],
        };
        fn built(input: Input<'_>) -> InterPodAffinity<'_> {
            let mut p = InterPodAffinity::new(input, InterPodAffinityArgs::default());
            p.pre_filter();
            p
        }
        let cycle = built(input);
        let answer = |status: Option<crate::scheduler::Status>,
                      d: Option<Box<super::FilterDetails>>| {
            let d = d.expect("details");
            format!(
                "{status:?} {:?} {:?} {:?} {}",
                d.affinity,
                d.anti_affinity,
                d.first_pod_exception,
                d.existing_anti_affinity.len()
            )
        };
        for n in 0..state.nodes().len() {
            let on: Vec<usize> = state.pods_on(n).to_vec();
            for mask in 0..(1u32 << on.len()) {
                let mut removed: Vec<usize> = (0..on.len())
                    .filter(|i| mask & (1 << i) != 0)
                    .map(|i| on[i])
                    .collect();
                removed.sort_unstable();
                let (status, details) = cycle.filter_without(n, &removed);
                let fresh = built(Input {
                    removed: &removed,
                    ..input
                });
                let (want_status, want_details) = fresh.filter(n);
                assert_eq!(
                    answer(status, details),
                    answer(want_status, want_details),
                    "node {n}, removed {removed:?}"
                );
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 2 * (8 + 2 + 4));
}

/// The pod being explained is left out of what its own preferred term counts, also when
/// the label index alone decides the term (one requirement, every namespace).
#[test]
fn the_explained_pod_is_left_out_of_a_term_the_index_decides() {
    use crate::scheduler::config::FeatureGates;
    use crate::scheduler::profile::Profile;
    use crate::scheduler::{Input, evaluate};
    use crate::state::{Pod, read_snapshot_str};
    let node = |name: &str| {
        json!({"apiVersion": "v1", "kind": "Node",
               "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
               "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
    };
    let preferred = json!({"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 50, "podAffinityTerm": {
            "labelSelector": {"matchLabels": {"tier": "db"}},
            "namespaceSelector": {}, "topologyKey": "kubernetes.io/hostname"}}]}});
    let pod = |name: &str, node: &str, affinity: &serde_json::Value| {
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": "default", "labels": {"tier": "db"}},
               "spec": {"nodeName": node, "affinity": affinity,
                        "containers": [{"name": "c", "image": "x"}]},
               "status": {"phase": "Running"}})
    };
    let me = pod("me", "n1", &preferred);
    let list = json!({"apiVersion": "v1", "kind": "List", "items": [
        node("n1"), node("n2"), me.clone(), pod("other", "n2", &json!({}))]});
    let state = read_snapshot_str(&list.to_string(), "test").expect("snapshot");
    // Evaluated as if unscheduled, as `explain` does.
    let mut me: k8s_openapi::api::core::v1::Pod = serde_json::from_value(me).expect("pod");
    if let Some(spec) = me.spec.as_mut() {
        spec.node_name = None;
    }
    let me = Pod::from_api(&me);
    let at = state.pods().iter().position(|p| &*p.id.name == "me");
    let profile = Profile::default_profile(FeatureGates::default());
    let raws = |exclude: Option<usize>| -> Vec<(String, Option<i64>)> {
        let input = Input {
            pod: &me,
            state: &state,
            exclude,
            removed: &[],
        };
        evaluate(input, &profile)
            .nodes
            .iter()
            .map(|n| {
                let raw = n
                    .scores
                    .iter()
                    .find(|s| *s.plugin == crate::scheduler::PluginId::InterPodAffinity);
                (n.name.to_string(), raw.and_then(|s| s.raw))
            })
            .collect()
    };
    let named = |a: i64, b: i64| vec![("n1".to_string(), Some(a)), ("n2".to_string(), Some(b))];
    // Counted in: its term finds itself on n1, and its copy's term finds it there.
    assert_eq!(raws(None), named(100, 50));
    assert_eq!(raws(at), named(0, 50));
}

/// filtering_test.go, TestRequiredAffinitySingleNode, "PodAffinity fails PreFilter with an
/// invalid affinity label syntax" (and its anti-affinity twin, whose second term is the
/// bad one): upstream's PreFilter message, verbatim; PreScore words it its own way.
#[test]
fn an_unparsable_term_fails_prefilter_with_upstreams_message() {
    let node = json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "node1", "labels": {"region": "r1", "node": "node1"}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
    let term = |key: &str, value: &str| {
        json!({"labelSelector": {"matchExpressions": [
                    {"key": "service", "operator": "In", "values": [value]}]},
               "topologyKey": key})
    };
    let bad = "{{.bad-value.}}";
    let expected = "parsing pod: requiredAffinityTerms: values[0][service]: Invalid value: \"{{.bad-value.}}\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
    for terms in [
        [term("region", bad), term("node", "antivirusscan")],
        [term("region", "foo"), term("node", bad)],
    ] {
        let pod = json!({"metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "x"}],
                "affinity": {"podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": terms}}}});
        let eval = evaluate_default(json!([node.clone()]), pod);
        let pre = eval
            .pre_filter
            .iter()
            .find(|p| p.plugin == crate::scheduler::PluginId::InterPodAffinity);
        let status = pre.and_then(|p| p.status.as_ref()).expect("rejected");
        assert_eq!(status.reasons, [std::borrow::Cow::Borrowed(expected)]);
    }
    // Only a preferred term broken: PreFilter fails too (upstream parses every list), with
    // the list's own name.
    let pod = json!({"metadata": {"name": "p", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "x"}],
            "affinity": {"podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 1, "podAffinityTerm": term("region", bad)}]}}}});
    let eval = evaluate_default(json!([node.clone()]), pod);
    let pre = eval
        .pre_filter
        .iter()
        .find(|p| p.plugin == crate::scheduler::PluginId::InterPodAffinity);
    let reasons = &pre
        .and_then(|p| p.status.as_ref())
        .expect("rejected")
        .reasons;
    assert!(
        reasons[0].starts_with("parsing pod: preferredAntiAffinityTerms: values[0][service]: "),
        "{reasons:?}"
    );
}

/// PreScore words the same parse error its own way ("failed to parse pod: "), seen when a
/// profile leaves InterPodAffinity's PreFilter out.
#[test]
fn an_unparsable_term_fails_prescore_with_upstreams_prefix() {
    use crate::scheduler::config::FeatureGates;
    use crate::scheduler::profile::Profile;
    use crate::scheduler::testing::evaluate_with;
    let cfg = json!({
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"plugins": {
            "preFilter": {"disabled": [{"name": "InterPodAffinity"}]},
            "filter": {"disabled": [{"name": "InterPodAffinity"}]}}}]
    });
    let profile = Profile::from_config(&cfg, "default-scheduler", FeatureGates::default(), "c")
        .expect("profile");
    let node = json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "node1", "labels": {"region": "r1"}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
    let pod = json!({"metadata": {"name": "p", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "x"}],
            "affinity": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 1, "podAffinityTerm": {
                    "labelSelector": {"matchLabels": {"service": "{{.bad-value.}}"}},
                    "topologyKey": "region"}}]}}}});
    let eval = evaluate_with(json!([node]), pod, &profile);
    let pre = eval
        .pre_score
        .iter()
        .find(|p| p.plugin == crate::scheduler::PluginId::InterPodAffinity);
    let error = pre
        .and_then(|p| p.error.as_deref())
        .expect("PreScore error");
    assert!(
        error.starts_with(
            "failed to parse pod: preferredAffinityTerms: values[0][service]: Invalid value: \"{{.bad-value.}}\": a valid label must be"
        ),
        "{error}"
    );
}

/// Without namespace objects, an existing pod's term whose namespaceSelector needs labels
/// leaves the plugin not evaluated when the term may match the pod (its label selector
/// does), even though the term names another namespace; a term that cannot match does not.
#[test]
fn an_existing_selector_term_without_namespaces_leaves_the_plugin_unevaluated() {
    let node = json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
    let existing = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "e", "namespace": "other", "labels": {"app": "e"}},
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "x"}],
            "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchLabels": {"app": "web"}},
                "namespaces": ["other"],
                "namespaceSelector": {"matchLabels": {"team": "a"}},
                "topologyKey": "kubernetes.io/hostname"}]}}}});
    let note = |app: &str| -> Option<String> {
        let pod = json!({"metadata": {"name": "p", "namespace": "default", "labels": {"app": app}},
            "spec": {"containers": [{"name": "c", "image": "x"}]}});
        let eval = evaluate_default(json!([node.clone(), existing.clone()]), pod);
        let n = eval.nodes.first().expect("a node");
        let f = n
            .filters
            .iter()
            .find(|f| *f.plugin == crate::scheduler::PluginId::InterPodAffinity);
        f.and_then(|f| f.not_evaluated.map(str::to_string))
    };
    let web = note("web").expect("not evaluated for a pod the term may match");
    assert!(
        web.contains("an existing pod's term that may match the pod has a namespaceSelector"),
        "{web}"
    );
    assert_eq!(note("db"), None);
}

/// The report's per-domain pod lists are ordered by domain value (not by the order nodes
/// come in), found by value, and serialized as an object, as a `BTreeMap` would be.
#[test]
fn term_domains_are_ordered_and_found_by_value() {
    let (node, pod) = (zone_node, db_pod);
    let items = json!([
        node("n1", "zone-c"),
        node("n2", "zone-a"),
        node("n3", "zone-b"),
        // Labelled, but without the term's key: its pods have no domain.
        json!({"apiVersion": "v1", "kind": "Node",
               "metadata": {"name": "n4", "labels": {"rack": "r1"}},
               "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}),
        // Without any label: upstream's PreScore skips its pods, so the report lists none.
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n5"},
               "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}),
        pod("p1", "n1"),
        pod("p2", "n2"),
        pod("p4", "n4"),
        pod("p5", "n5"),
        pod("p3", "n1"),
    ]);
    let eval = evaluate_default(
        items,
        json!({
            "metadata": {"name": "new", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "x"}],
                     "affinity": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                         {"weight": 5, "podAffinityTerm": {
                             "topologyKey": "zone",
                             "labelSelector": {"matchLabels": {"app": "db"}}}}]}}}
        }),
    );
    let tables = eval.pod_terms.expect("term tables");
    let domains = &tables.terms[0].domains;
    let keys: Vec<&str> = domains.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["zone-a", "zone-c"]);
    assert_eq!(
        serde_json::to_string(domains).expect("serialize"),
        r#"{"zone-a":[{"namespace":"default","name":"p2"}],"zone-c":[{"namespace":"default","name":"p1"},{"namespace":"default","name":"p3"}]}"#
    );
    let names = |v: &str| -> Vec<String> {
        domains
            .get(v)
            .map(|l| l.iter().map(ToString::to_string).collect())
            .unwrap_or_default()
    };
    assert_eq!(names("zone-c"), ["default/p1", "default/p3"]);
    assert_eq!(names("zone-a"), ["default/p2"]);
    assert!(domains.get("zone-b").is_none());
    let without: Vec<String> = tables.terms[0]
        .pods_without_domain
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(without, ["default/p4"]);
}
