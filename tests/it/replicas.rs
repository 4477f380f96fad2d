//! The replica-sequence corpus (tests/replicas/README.md): kube-scheduler's own code placing a
//! workload's replicas one after another, each case run as a user would run it and compared
//! replica by replica: in this process, and a sample through the binary too, which must answer
//! the same.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::replicas::{Difference, args, compare, unpack};
use crate::support::{assert_all_agree, assert_binary_agrees, differing_cases, run};

fn expected(case: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(case.join("expected.json")).expect("read expected.json"))
        .expect("expected.json is JSON")
}

/// Runs a case and compares its replicas with the case's steps.
fn check(case: &Path) -> Vec<Difference> {
    let out = run(&args(case));
    // 3 is `--exit-code`'s; without it a Pending replica exits 0.
    match serde_json::from_slice::<Value>(&out.stdout) {
        Ok(actual) => compare(&expected(case), &actual),
        Err(_) => vec![Difference {
            replica: -1,
            class: "run",
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

fn name(case: &Path) -> String {
    case.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[test]
fn every_replica_sequence_agrees_with_the_scheduler() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = unpack(dir.path());
    // The archive is whole: a corpus lost in packing would pass by running nothing.
    assert!(cases.len() >= 300, "the corpus has {} cases", cases.len());
    // Each kind of workload the corpus holds, and each StatefulSet policy, through the binary.
    let mut sampled = BTreeMap::new();
    for case in &cases {
        let text = std::fs::read_to_string(case.join("workload.yaml")).expect("workload.yaml");
        let kind = ["Deployment", "ReplicaSet", "StatefulSet"]
            .into_iter()
            .find(|k| text.contains(&format!("kind: {k}")))
            .unwrap_or("other");
        let parallel = text.contains("podManagementPolicy: Parallel");
        sampled.entry((kind, parallel)).or_insert(case);
    }
    assert!(sampled.len() >= 4, "{sampled:?}");
    for case in sampled.values() {
        let args = args(case);
        assert_binary_agrees(&args, &run(&args));
    }

    let bad = disagreements(&cases);
    assert_all_agree(
        &bad,
        cases.len(),
        "replica sequences disagree with kube-scheduler",
        |d| d.class,
        |d| format!("[{} at replica {}] {}", d.class, d.replica, d.detail),
    );
    eprintln!(
        "{} replica sequences agree with kube-scheduler",
        cases.len()
    );
}

/// The comparison itself: each kind of difference, made in a copy of an agreeing answer, is
/// caught.
#[test]
fn the_comparison_catches_each_kind_of_difference() {
    let expected = json!({"steps": [
        {"index": 0, "feasibleNodes": ["a", "b"], "bestNodes": ["a", "b"], "boundTo": "a"},
        {"index": 1, "feasibleNodes": [], "bestNodes": [], "boundTo": null,
         "fitError": "0/2 nodes are available: 2 Insufficient cpu."},
        {"index": 2, "notCreated": true}
    ]});
    let actual = json!({"workload": {"pods": [
        {"index": 0, "node": "a"},
        {"index": 1, "node": null,
         "failedSchedulingMessage": "0/2 nodes are available: 2 Insufficient cpu."},
        {"index": 2, "node": null}
    ]}});
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
    let pods = |v: &mut Value| v["workload"]["pods"].as_array_mut().cloned();
    assert_eq!(
        classes(&|v| v["workload"]["pods"][0]["node"] = json!("b")),
        ["tie-rule"]
    );
    assert_eq!(
        classes(&|v| v["workload"]["pods"][0]["node"] = json!("c")),
        ["placed-infeasible"]
    );
    assert_eq!(
        classes(&|v| v["workload"]["pods"][1]["node"] = json!("a")),
        ["placed-but-pending"]
    );
    assert_eq!(
        classes(&|v| v["workload"]["pods"][1]["failedSchedulingMessage"] = json!("other")),
        ["message"]
    );
    assert_eq!(
        classes(&|v| v["workload"]["pods"][2]["node"] = json!("b")),
        ["not-created"]
    );
    assert_eq!(
        classes(&|v| v["workload"]["pods"][0]["node"] = Value::Null),
        ["pending-but-feasible"]
    );
    assert_eq!(
        classes(&|v| {
            let mut p = pods(v).unwrap_or_default();
            p.pop();
            v["workload"]["pods"] = Value::Array(p);
        }),
        ["replica-count"]
    );
    let mut narrower = expected.clone();
    narrower["steps"][0]["bestNodes"] = json!(["b"]);
    narrower["steps"][0]["boundTo"] = json!("b");
    let found: Vec<&str> = compare(&narrower, &actual)
        .iter()
        .map(|d| d.class)
        .collect();
    assert_eq!(found, ["not-best"]);
}
