//! The differential corpus: kube-scheduler's own whole decisions (tests/oracle-diff/README.md),
//! each case run as a user would run it and compared field by field: in this process, and
//! the first case of each group and those whose configuration kube-scheduler refuses through
//! the binary too, which must answer the same.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::oracle_diff::{
    Difference, args, comparable_reasons, compare, releases_archive, unpack, unpack_archive,
};
use crate::support::{assert_all_agree, assert_binary_agrees, differing_cases, run};

/// The case's expected.json.
fn expected(case: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(case.join("expected.json")).expect("read expected.json"))
        .expect("expected.json is JSON")
}

/// Runs a case and compares its JSON with the case's expected.json.
fn check(case: &Path) -> Vec<Difference> {
    let expected = expected(case);
    let out = run(&args(case));
    // A configuration kube-scheduler refuses at start-up: the command must refuse it too, in
    // kube-scheduler's words.
    if let Some(refusal) = expected["configInvalid"].as_str() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.success() || !stderr.contains(refusal) {
            return vec![Difference {
                class: "config".to_string(),
                detail: format!(
                    "kube-scheduler refuses the configuration: {refusal}\n      project: exit {:?}: {}",
                    out.status.code(),
                    stderr.trim()
                ),
            }];
        }
        return Vec::new();
    }
    match serde_json::from_slice::<Value>(&out.stdout) {
        Ok(actual) => compare(&expected, &actual),
        Err(_) => vec![Difference {
            class: "run".to_string(),
            detail: format!(
                "exit {:?}: {}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        }],
    }
}

/// Every case, on all cores; the differences of each case that has any.
fn disagreements(cases: &[PathBuf]) -> Vec<(String, Vec<Difference>)> {
    differing_cases(cases, |c| check(c), |c| name(c))
}

/// `group/case`, as the corpus names it.
fn name(case: &Path) -> String {
    let part = |p: Option<&Path>| {
        p.and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    format!("{}/{}", part(case.parent()), part(Some(case)))
}

#[test]
fn every_case_agrees_with_the_scheduler() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = unpack(dir.path());
    let mut groups: BTreeMap<String, usize> = BTreeMap::new();
    for case in &cases {
        *groups
            .entry(name(case).split('/').next().unwrap_or("").to_string())
            .or_default() += 1;
    }
    // The archive is whole: a case group lost in packing would pass by running nothing.
    for group in ["cases", "cases-profiles", "cases-preemption", "minimal"] {
        assert!(
            groups.get(group).copied().unwrap_or(0) > 0,
            "the corpus has no {group}/: {groups:?}"
        );
    }

    let mut sampled = BTreeSet::new();
    for case in &cases {
        let group = case.parent().expect("a case's group");
        if sampled.insert(group) || !expected(case)["configInvalid"].is_null() {
            let args = args(case);
            assert_binary_agrees(&args, &run(&args));
        }
    }

    let bad = disagreements(&cases);
    assert_all_agree(
        &bad,
        cases.len(),
        "cases disagree with kube-scheduler",
        |d| &d.class,
        |d| d.detail.clone(),
    );
    eprintln!(
        "{} cases agree with kube-scheduler ({groups:?})",
        cases.len()
    );
}

/// The other releases (1.31 to 1.34, 1.36): each case run with `--kubernetes-version` set to
/// the release whose scheduler decided it, compared as above; the first case of each group
/// through the binary too.
#[test]
fn every_release_case_agrees_with_its_release() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = unpack_archive(&releases_archive(), dir.path());
    let mut groups: BTreeMap<String, usize> = BTreeMap::new();
    for case in &cases {
        *groups
            .entry(name(case).split('/').next().unwrap_or("").to_string())
            .or_default() += 1;
    }
    // The archive is whole: a release lost in packing would pass by running nothing.
    for release in ["1.31", "1.32", "1.33", "1.34", "1.36"] {
        assert!(
            groups
                .get(&format!("release-{release}"))
                .copied()
                .unwrap_or(0)
                > 0,
            "the corpus has no release-{release}/: {groups:?}"
        );
    }
    for release in ["1.31", "1.32", "1.33", "1.36"] {
        assert!(
            groups
                .get(&format!("minimal-{release}"))
                .copied()
                .unwrap_or(0)
                > 0,
            "the corpus has no minimal-{release}/: {groups:?}"
        );
    }

    let bad = disagreements(&cases);
    let mut disagreeing: BTreeMap<String, usize> = BTreeMap::new();
    for (case, _) in &bad {
        *disagreeing
            .entry(case.split('/').next().unwrap_or("").to_string())
            .or_default() += 1;
    }
    let agreement: Vec<String> = groups
        .iter()
        .map(|(g, n)| format!("{g} {}/{n}", n - disagreeing.get(g).copied().unwrap_or(0)))
        .collect();
    eprintln!(
        "agree with their release's kube-scheduler: {}",
        agreement.join(", ")
    );
    let mut sampled = BTreeSet::new();
    for case in &cases {
        if sampled.insert(case.parent().expect("a case's group")) {
            let args = args(case);
            assert_binary_agrees(&args, &run(&args));
        }
    }
    assert_all_agree(
        &bad,
        cases.len(),
        &format!(
            "cases disagree with their release's kube-scheduler ({})",
            agreement.join(", ")
        ),
        |d| &d.class,
        |d| d.detail.clone(),
    );
}

/// The comparison itself: each field it compares, changed in a copy of an agreeing answer,
/// is caught.
#[test]
fn the_comparison_catches_each_kind_of_difference() {
    let expected = json!({
        "nodes": {
            "a": {"feasible": false, "plugin": "NodeResourcesFit", "code": "Unschedulable",
                  "message": "Insufficient cpu, Insufficient b.io/x, Insufficient a.io/y"},
            "b": {"feasible": true, "scores": {"TaintToleration": 300, "ImageLocality": 0},
                  "total": 300},
            "c": {"feasible": true, "scores": {"TaintToleration": 300}, "total": 300}
        },
        "feasibleNodes": ["b", "c"],
        "bestNodes": ["b", "c"],
        "fitError": null,
        "errors": [],
        "schedulerError": null
    });
    let actual = json!({
        "nodes": [
            {"name": "a", "feasible": false, "reported": {"plugin": "NodeResourcesFit",
             "code": "Unschedulable",
             "reason": "Insufficient cpu, Insufficient a.io/y, Insufficient b.io/x"}},
            {"name": "b", "feasible": true, "score": 300,
             "scores": [{"plugin": "TaintToleration", "weighted": 300}]},
            {"name": "c", "feasible": true, "score": 300,
             "scores": [{"plugin": "TaintToleration", "weighted": 300}]}
        ],
        "summary": {"selected": ["c", "b"]},
        "errors": []
    });
    assert!(
        compare(&expected, &actual).is_empty(),
        "{:?}",
        compare(&expected, &actual)
    );

    let classes = |edit: &dyn Fn(&mut Value)| {
        let mut changed = actual.clone();
        edit(&mut changed);
        compare(&expected, &changed)
            .into_iter()
            .map(|d| d.class)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        classes(&|v| v["nodes"][0]["feasible"] = json!(true)),
        ["feasibility:NodeResourcesFit"]
    );
    assert_eq!(
        classes(&|v| v["nodes"][0]["reported"]["code"] = json!("UnschedulableAndUnresolvable")),
        ["status:NodeResourcesFit"]
    );
    assert_eq!(
        classes(&|v| v["nodes"][0]["reported"]["reason"] = json!("Insufficient cpu")),
        ["status:NodeResourcesFit"]
    );
    assert_eq!(
        classes(&|v| v["nodes"][1]["scores"][0]["weighted"] = json!(200)),
        ["score:TaintToleration"]
    );
    assert_eq!(classes(&|v| v["nodes"][2]["score"] = json!(301)), ["total"]);
    assert_eq!(
        classes(&|v| v["summary"]["selected"] = json!(["b"])),
        ["best"]
    );
    assert_eq!(
        classes(&|v| v["errors"] = json!(["running Score plugin \"X\": boom"])),
        ["errors"]
    );
    assert_eq!(
        classes(&|v| {
            v["nodes"].as_array_mut().map(|n| n.pop());
        }),
        ["nodes", "nodes"]
    );

    let mut none_feasible = expected.clone();
    none_feasible["feasibleNodes"] = json!([]);
    none_feasible["fitError"] = json!("0/3 nodes are available: 3 Insufficient cpu.");
    let mut said = actual.clone();
    said["summary"]["failedSchedulingMessage"] =
        json!("0/3 nodes are available: 3 Insufficient cpu.");
    assert!(compare(&none_feasible, &said).is_empty());
    said["summary"]["failedSchedulingMessage"] =
        json!("0/3 nodes are available: 2 Insufficient cpu.");
    let found: Vec<String> = compare(&none_feasible, &said)
        .into_iter()
        .map(|d| d.class)
        .collect();
    assert_eq!(found, ["message"]);
}

/// DefaultPreemption's outcome: each compared field, changed, is caught; a random pick among
/// tied nodes agrees with any of them.
#[test]
fn the_comparison_catches_each_preemption_difference() {
    let preemption = json!({
        "eligible": true,
        "nominatedNode": "b",
        "victims": ["default/low-1", "default/low-0"],
        "pickedBy": "fewest PDB violations",
        "candidates": [
            {"node": "a", "victims": ["default/db-0"], "pdbViolations": 1},
            {"node": "b", "victims": ["default/low-0", "default/low-1"], "pdbViolations": 0}
        ]
    });
    let mut expected = json!({"nodes": {}, "feasibleNodes": [], "fitError": null,
                              "errors": [], "schedulerError": null});
    expected["preemption"] = preemption.clone();
    let mut actual = json!({"nodes": [], "summary": {"failedSchedulingMessage": null},
                            "errors": []});
    actual["postFilter"] = json!([{"plugin": "DefaultPreemption"}]);
    actual["postFilter"][0]["preemption"] = preemption.clone();
    assert!(
        compare(&expected, &actual).is_empty(),
        "{:?}",
        compare(&expected, &actual)
    );
    let classes = |edit: &dyn Fn(&mut Value)| {
        let mut changed = actual.clone();
        edit(&mut changed["postFilter"][0]["preemption"]);
        compare(&expected, &changed)
            .into_iter()
            .map(|d| d.class)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        classes(&|p| p["eligible"] = json!(false)),
        ["preemption:eligible"]
    );
    assert_eq!(
        classes(&|p| p["nominatedNode"] = json!("a")),
        ["preemption:nominated"]
    );
    assert_eq!(
        classes(&|p| p["victims"] = json!(["default/low-0"])),
        ["preemption:victims"]
    );
    assert_eq!(
        classes(&|p| p["candidates"][0]["pdbViolations"] = json!(0)),
        ["preemption:candidates"]
    );
    assert_eq!(
        classes(&|p| p["pickedBy"] = json!("fewest victims")),
        ["preemption:pickedBy"]
    );
    assert_eq!(classes(&|p| *p = Value::Null), ["preemption:ran"]);
    // Tied after all five criteria: upstream picks at random, so any tied node agrees when
    // the victims named are that node's.
    let mut tied = expected.clone();
    tied["preemption"]["tiedNodes"] = json!(["a", "b"]);
    tied["preemption"]["pickedBy"] = json!("tied after all five criteria");
    let mut picked_a = actual.clone();
    let p = &mut picked_a["postFilter"][0]["preemption"];
    p["pickedBy"] = json!("tied after all five criteria");
    p["nominatedNode"] = json!("a");
    p["victims"] = json!(["default/db-0"]);
    assert!(compare(&tied, &picked_a).is_empty());
    picked_a["postFilter"][0]["preemption"]["victims"] = json!(["default/low-0"]);
    let found: Vec<String> = compare(&tied, &picked_a)
        .into_iter()
        .map(|d| d.class)
        .collect();
    assert_eq!(found, ["preemption:victims"]);
}

#[test]
fn only_extended_resources_compare_in_any_order() {
    assert_eq!(
        comparable_reasons(
            "Too many pods, Insufficient cpu, Insufficient b.io/x, Insufficient a.io/y"
        ),
        comparable_reasons(
            "Too many pods, Insufficient cpu, Insufficient a.io/y, Insufficient b.io/x"
        ),
    );
    assert_ne!(
        comparable_reasons("Insufficient cpu, Insufficient memory"),
        comparable_reasons("Insufficient memory, Insufficient cpu"),
    );
}

/// For each release, the smallest case where its scheduler decides otherwise than its
/// neighbour's: run as its release the command agrees with that scheduler, run as the
/// neighbour it does not. (1.35 against 1.34: `oracle_diff_dra.rs`, DynamicResources scores.)
#[test]
fn each_release_decides_otherwise_than_its_neighbour() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = unpack_archive(&releases_archive(), dir.path());
    for (case, neighbour) in [
        ("minimal-1.31/sidecar-requests", "1.32"),
        ("minimal-1.32/balanced-allocation-best-effort-skip", "1.33"),
        ("minimal-1.33/pod-level-resources-gate-off", "1.34"),
        ("minimal-1.36/score-NodeResourcesBalancedAllocation", "1.35"),
        ("minimal-1.36/feasibility-NodeDeclaredFeatures", "1.35"),
        ("minimal-1.36/score-ImageLocality", "1.35"),
        ("minimal-1.36/feasibility-NodeResourcesFit", "1.35"),
    ] {
        let path = cases
            .iter()
            .find(|c| name(c) == case)
            .unwrap_or_else(|| panic!("the corpus has no {case}"));
        let expected = expected(path);
        let own = args(path);
        let doc = |args: &[String]| -> Value {
            let out = run(args);
            serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|_| panic!("{case}: {}", String::from_utf8_lossy(&out.stderr)))
        };
        let diffs = compare(&expected, &doc(&own));
        assert!(diffs.is_empty(), "{case} as its release: {diffs:?}");
        let at = own
            .iter()
            .position(|a| a == "--kubernetes-version")
            .expect("a release case names its release");
        let mut other = own.clone();
        other[at + 1] = neighbour.to_string();
        assert!(
            !compare(&expected, &doc(&other)).is_empty(),
            "{case} decides the same as {neighbour}"
        );
    }
}
