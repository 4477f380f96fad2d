//! The DRA corpus (tests/oracle-diff/README.md): pods with ResourceClaims decided by
//! kube-scheduler v1.35.4's DynamicResources plugin and structured allocator, each case run
//! as a user would run it (with the case's `--feature-gates`) and compared as the default
//! corpus is, plus what its README adds: where the real cycle picked a node and allocated,
//! the project's allocation there has the same shape (per claim, the (request, driver) pairs
//! and their counts: which devices upstream picks depends on Go map order); and a Filter
//! error compares with the device it names left out, on any node (which node's Filter fails
//! first is a race upstream).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::oracle_diff::{Difference, args, compare, dra_archive, unpack_archive};
use crate::support::{assert_all_agree, assert_binary_agrees, differing_cases, run};

fn read_json(case: &Path, file: &str) -> Value {
    serde_json::from_slice(&std::fs::read(case.join(file)).expect("read a case file"))
        .expect("a case file is JSON")
}

/// The case's command line: the default corpus's, with its feature gates.
fn dra_args(case: &Path) -> Vec<String> {
    let mut a = args(case);
    if let Some(gates) = read_json(case, "meta.json")["featureGates"].as_str() {
        a.push("--feature-gates".to_string());
        a.push(gates.to_string());
    }
    a
}

/// `cannot add device D because`: the device named depends on upstream's pool order.
fn without_device(text: &str) -> String {
    match (text.find("cannot add device "), text.find(" because")) {
        (Some(start), Some(end)) if start < end => format!(
            "{}cannot add device <device>{}",
            &text[..start],
            &text[end..]
        ),
        _ => text.to_string(),
    }
}

/// Every string in `v` with the device of a Filter error left out.
fn normalized(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(without_device(s)),
        Value::Array(a) => Value::Array(a.iter().map(normalized).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, v)| (k.clone(), normalized(v))).collect())
        }
        other => other.clone(),
    }
}

/// A claim's name (without its namespace) and its (request, driver) pairs with their counts.
type Shape = (String, BTreeMap<(String, String), usize>);

/// Per claim, its [`Shape`].
fn shape(allocation: &Value) -> Vec<Shape> {
    let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
    allocation
        .as_array()
        .map(|claims| {
            claims
                .iter()
                .map(|c| {
                    let claim = s(&c["claim"]);
                    let name = claim.rsplit('/').next().unwrap_or_default().to_string();
                    let mut pairs = BTreeMap::new();
                    for d in c["devices"].as_array().into_iter().flatten() {
                        *pairs
                            .entry((s(&d["request"]), s(&d["driver"])))
                            .or_default() += 1;
                    }
                    (name, pairs)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The DRA comparison of one case's answer. DefaultPreemption's record (`preemption`) is
/// the preemption corpus's to compare, not this one's (its README compares the message).
fn compare_dra(expected: &Value, actual: &Value) -> Vec<Difference> {
    let (mut e, a) = (normalized(expected), normalized(actual));
    if let Some(o) = e.as_object_mut() {
        o.remove("preemption");
    }
    let error_case = !expected["schedulerError"].is_null();
    let mut diffs: Vec<Difference> = compare(&e, &a)
        .into_iter()
        // Which node's Filter errors first is a race: a node whose expected status is the
        // error may be another status here, when the cycle ends with the same error.
        .filter(|d| {
            !(error_case
                && d.class.starts_with("status:")
                && e["nodes"]
                    .as_object()
                    .is_some_and(|n| n.values().any(|n| n["code"] == "Error"))
                && d.detail.contains("Error"))
        })
        .collect();
    let real = &expected["real"];
    // Where the real cycle picked a node and allocated (claims all allocated before the
    // cycle leave nothing to allocate).
    let allocates = real["allocation"].as_array().is_some_and(|a| !a.is_empty());
    if let (Some(node), true) = (real["scheduledTo"].as_str(), allocates) {
        let got = actual["nodes"]
            .as_array()
            .and_then(|n| n.iter().find(|n| n["name"] == node))
            .map(|n| &n["dra"]["allocation"]);
        match got {
            Some(got) if got.as_array().is_some_and(|g| !g.is_empty()) => {
                if shape(got) != shape(&real["allocation"]) {
                    diffs.push(Difference {
                        class: "dra-allocation:shape".to_string(),
                        detail: format!(
                            "{node}: scheduler {:?}, project {:?}",
                            shape(&real["allocation"]),
                            shape(got)
                        ),
                    });
                }
            }
            _ => diffs.push(Difference {
                class: "dra-allocation:missing".to_string(),
                detail: format!("{node}: the project allocates nothing"),
            }),
        }
    }
    diffs
}

fn check(case: &Path) -> Vec<Difference> {
    let out = run(&dra_args(case));
    match serde_json::from_slice::<Value>(&out.stdout) {
        Ok(actual) => compare_dra(&read_json(case, "expected.json"), &actual),
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

#[test]
fn every_dra_case_agrees_with_the_scheduler() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases: Vec<PathBuf> = unpack_archive(&dra_archive(), dir.path());
    assert!(
        cases.len() >= 300,
        "the DRA corpus has {} cases",
        cases.len()
    );
    // A sample through the binary: the first case, one with feature gates, one that ends
    // with a Filter error.
    let sample = [
        cases.first(),
        cases
            .iter()
            .find(|c| read_json(c, "meta.json")["featureGates"].is_string()),
        cases
            .iter()
            .find(|c| read_json(c, "expected.json")["schedulerError"].is_string()),
    ];
    for case in sample.into_iter().flatten() {
        let args = dra_args(case);
        assert_binary_agrees(&args, &run(&args));
    }
    let bad = differing_cases(&cases, |c| check(c), |c| c.display().to_string());
    assert_all_agree(
        &bad,
        cases.len(),
        "DRA cases disagree with kube-scheduler",
        |d| &d.class,
        |d| d.detail.clone(),
    );
    eprintln!("{} DRA cases agree with kube-scheduler", cases.len());
}

/// The DRA comparison catches a different allocation shape, a missing allocation and a
/// different Filter error, and tolerates the device a Filter error names.
#[test]
fn the_dra_comparison_catches_allocations_and_tolerates_the_device() {
    let expected = json!({
        "nodes": {"a": {"feasible": true, "scores": {}, "total": 0}},
        "feasibleNodes": ["a"], "bestNodes": ["a"], "fitError": null,
        "errors": [], "schedulerError": null,
        "real": {"scheduledTo": "a", "allocation": [{"claim": "c", "devices": [
            {"request": "r", "driver": "gpu.example.com", "pool": "a", "device": "gpu-0"}]}]}
    });
    let actual = json!({
        "nodes": [{"name": "a", "feasible": true, "score": 0, "scores": [],
            "dra": {"allocation": [{"claim": "ns/c", "devices": [
                {"request": "r", "driver": "gpu.example.com", "pool": "fabric-0",
                 "device": "gpu-9"}]}]}}],
        "summary": {"selected": ["a"]}, "errors": []
    });
    assert!(compare_dra(&expected, &actual).is_empty());
    let classes = |edit: &dyn Fn(&mut Value)| {
        let mut changed = actual.clone();
        edit(&mut changed);
        compare_dra(&expected, &changed)
            .into_iter()
            .map(|d| d.class)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        classes(&|v| v["nodes"][0]["dra"]["allocation"][0]["devices"][0]["request"] = json!("x")),
        ["dra-allocation:shape"]
    );
    assert_eq!(
        classes(&|v| v["nodes"][0]["dra"] = Value::Null),
        ["dra-allocation:missing"]
    );
    let error = "running \"DynamicResources\" filter plugin: claim ns/c, request r: cannot add \
                 device gpu.example.com/a/gpu-1 because a claim constraint would not be satisfied";
    let mut failing = expected.clone();
    failing["real"] = json!({});
    failing["schedulerError"] = json!(error);
    failing["feasibleNodes"] = json!([]);
    failing["nodes"]["a"] = json!({"feasible": false, "plugin": "DynamicResources",
        "code": "Error", "message": error});
    let mut said = actual.clone();
    let other_device = error.replace("gpu-1", "gpu-3");
    said["errors"] = json!([other_device]);
    said["nodes"][0] = json!({"name": "a", "feasible": false, "reported": {
        "plugin": "DynamicResources", "code": "Error", "reason": other_device}});
    assert!(
        compare_dra(&failing, &said).is_empty(),
        "{:?}",
        compare_dra(&failing, &said)
    );
    said["errors"] = json!([error.replace("a claim constraint", "something")]);
    let found: Vec<String> = compare_dra(&failing, &said)
        .into_iter()
        .map(|d| d.class)
        .collect();
    assert_eq!(found, ["errors"]);
}

/// 1.35 against its neighbour 1.34: DynamicResources scores (weight 2) from 1.35 only. A case
/// where its score decides agrees as 1.35 and not as 1.34, whose scheduler never scores it.
#[test]
fn release_1_34_does_not_score_dynamic_resources() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases: Vec<PathBuf> = unpack_archive(&dra_archive(), dir.path());
    let case = cases
        .iter()
        .find(|c| c.ends_with("dra/case-00004"))
        .expect("the corpus has dra/case-00004");
    let expected = read_json(case, "expected.json");
    assert!(
        expected["nodes"]["node-2"]["scores"]["DynamicResources"]
            .as_i64()
            .is_some_and(|s| s > 0),
        "the case is one DynamicResources scores"
    );
    let own = check(case);
    assert!(own.is_empty(), "as 1.35: {own:?}");
    let mut as_1_34 = dra_args(case);
    as_1_34.extend(["--kubernetes-version".to_string(), "1.34".to_string()]);
    let actual: Value = serde_json::from_slice(&run(&as_1_34).stdout).expect("JSON as 1.34");
    let node = actual["nodes"]
        .as_array()
        .and_then(|n| n.iter().find(|n| n["name"] == "node-2"))
        .expect("node-2");
    assert!(
        node["scores"]
            .as_array()
            .is_some_and(|s| !s.is_empty() && s.iter().all(|s| s["plugin"] != "DynamicResources")),
        "1.34 scores no DynamicResources: {}",
        node["scores"]
    );
    assert!(
        !compare_dra(&expected, &actual).is_empty(),
        "1.34 decides as 1.35"
    );
}
