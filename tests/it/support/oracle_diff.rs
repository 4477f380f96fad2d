//! The differential corpus (tests/oracle-diff/README.md): whole scheduling decisions of
//! kube-scheduler's own code, unpacked from one archive, and the comparison of the command's
//! JSON explanation with a case's `expected.json`, field by field as the corpus's README
//! defines it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The archive holding every case folder (`cases/`, `cases-profiles/`, `cases-preemption/`,
/// `minimal/`), each with cluster.yaml, pod.yaml, expected.json and, for custom profiles,
/// config.yaml.
pub fn archive() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle-diff/corpus.tar.zst")
}

/// The archive of the other releases' cases (`release-1.3x/`, `minimal-1.3x/`), each decided
/// by that release's own scheduler code: the release is the folder name's suffix.
pub fn releases_archive() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle-diff/releases.tar.zst")
}

/// The DRA corpus's archive: `dra/` with cluster.yaml, pod.yaml, meta.json and
/// expected.json per case (tests/oracle-diff/README.md).
pub fn dra_archive() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle-diff/dra.tar.zst")
}

/// Unpacks the archive into `dir` and returns every case folder under it, sorted.
pub fn unpack(dir: &Path) -> Vec<PathBuf> {
    unpack_archive(&archive(), dir)
}

/// Unpacks `archive` into `dir` and returns every case folder under it, sorted.
pub fn unpack_archive(archive: &Path, dir: &Path) -> Vec<PathBuf> {
    let file = std::fs::File::open(archive).expect("open the corpus archive");
    let zstd = ruzstd::decoding::StreamingDecoder::new(std::io::BufReader::new(file))
        .expect("the corpus archive is zstd");
    tar::Archive::new(zstd)
        .unpack(dir)
        .expect("unpack the corpus archive");
    let mut cases = Vec::new();
    for group in std::fs::read_dir(dir).expect("read the unpacked corpus") {
        let group = group.expect("dir entry").path();
        for case in std::fs::read_dir(&group).expect("read a case group") {
            let case = case.expect("dir entry").path();
            if case.join("expected.json").is_file() {
                cases.push(case);
            }
        }
    }
    cases.sort();
    cases
}

/// The command line of a case: `whatif` of pod.yaml on cluster.yaml, as JSON, with the
/// case's scheduler configuration when it has one. The corpus hands its pods to the scheduler
/// without an API server, so some (`spec.overhead` without a RuntimeClass) are pods the
/// API server's admission would refuse: `--validate=warn` evaluates them anyway, as
/// `tests/it/oracle.rs` does for upstream's unit-test pods.
pub fn args(case: &Path) -> Vec<String> {
    let mut args = vec![
        "whatif".to_string(),
        "--validate=warn".to_string(),
        "-f".to_string(),
        case.join("pod.yaml").display().to_string(),
        "--snapshot".to_string(),
        case.join("cluster.yaml").display().to_string(),
        "-o".to_string(),
        "json".to_string(),
    ];
    // `release-1.33/`, `minimal-1.33/`: the release that decided the case.
    let group = case
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Some((_, release)) = group.split_once('-').filter(|(_, r)| r.starts_with("1.")) {
        args.push("--kubernetes-version".to_string());
        args.push(release.to_string());
    }
    let config = case.join("config.yaml");
    if config.is_file() {
        args.push("--scheduler-config".to_string());
        args.push(config.display().to_string());
    }
    args
}

/// One difference between the scheduler's decision and the project's: its class (what kind
/// of field differs, and for which plugin) and the words that show it.
#[derive(Debug, Clone)]
pub struct Difference {
    pub class: String,
    pub detail: String,
}

fn differ(class: impl Into<String>, detail: impl Into<String>) -> Difference {
    Difference {
        class: class.into(),
        detail: detail.into(),
    }
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// A node's reasons in a comparable order. NodeResourcesFit lists the insufficient extended
/// resources in Go map order, which is random; everything else keeps its order.
pub fn comparable_reasons(message: &str) -> Vec<String> {
    let mut reasons: Vec<String> = message.split(", ").map(str::to_string).collect();
    let fixed = ["cpu", "memory", "ephemeral-storage", "pods"];
    let extended: Vec<usize> = reasons
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            r.strip_prefix("Insufficient ")
                .is_some_and(|name| !fixed.contains(&name))
        })
        .map(|(i, _)| i)
        .collect();
    let mut sorted: Vec<String> = extended.iter().map(|&i| reasons[i].clone()).collect();
    sorted.sort();
    for (slot, reason) in extended.into_iter().zip(sorted) {
        reasons[slot] = reason;
    }
    reasons
}

/// Compares the project's explanation (`actual`, the binary's JSON) with the scheduler's
/// decision (`expected`, the case's expected.json).
pub fn compare(expected: &Value, actual: &Value) -> Vec<Difference> {
    let mut diffs = Vec::new();
    let actual_nodes: BTreeMap<&str, &Value> = actual["nodes"]
        .as_array()
        .map(|nodes| nodes.iter().map(|n| (str_of(n, "name"), n)).collect())
        .unwrap_or_default();
    let expected_nodes = expected["nodes"].as_object().cloned().unwrap_or_default();
    if actual_nodes.len() != expected_nodes.len() {
        diffs.push(differ(
            "nodes",
            format!(
                "scheduler has {} nodes, project {}",
                expected_nodes.len(),
                actual_nodes.len()
            ),
        ));
    }
    for (name, e) in &expected_nodes {
        let Some(a) = actual_nodes.get(name.as_str()) else {
            diffs.push(differ("nodes", format!("{name}: missing from the project")));
            continue;
        };
        compare_node(name, e, a, &mut diffs);
    }

    let summary = &actual["summary"];
    let feasible = expected["feasibleNodes"]
        .as_array()
        .map_or(0, |nodes| nodes.len());
    let names = |v: &Value| -> BTreeSet<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    if feasible > 1 && names(&expected["bestNodes"]) != names(&summary["selected"]) {
        diffs.push(differ(
            "best",
            format!(
                "best: scheduler {}, project {}",
                expected["bestNodes"], summary["selected"]
            ),
        ));
    }
    if feasible == 0 && expected["fitError"] != summary["failedSchedulingMessage"] {
        diffs.push(differ(
            "message",
            format!(
                "FailedScheduling:\n      scheduler: {}\n      project:   {}",
                expected["fitError"], summary["failedSchedulingMessage"]
            ),
        ));
    }
    let mut expected_errors = names(&expected["errors"]);
    if let Some(e) = expected["schedulerError"].as_str() {
        expected_errors.insert(e.to_string());
    }
    let actual_errors = names(&actual["errors"]);
    if expected_errors != actual_errors {
        diffs.push(differ(
            "errors",
            format!("errors: scheduler {expected_errors:?}, project {actual_errors:?}"),
        ));
    }
    // Only cases-preemption records DefaultPreemption's outcome (null: PostFilter did not run).
    if let Some(preemption) = expected.get("preemption") {
        compare_preemption(preemption, actual, &mut diffs);
    }
    diffs
}

/// DefaultPreemption's outcome (cases-preemption): whether it ran and the pod was eligible,
/// the nominated node (any of the tied ones when the pick is random) and, as a set, the
/// victims on it; per candidate node its victims and PodDisruptionBudget violations; the
/// criterion that decided.
fn compare_preemption(expected: &Value, actual: &Value, diffs: &mut Vec<Difference>) {
    let a = actual["postFilter"]
        .as_array()
        .and_then(|l| l.iter().find(|p| p["plugin"] == "DefaultPreemption"))
        .map_or(&Value::Null, |p| &p["preemption"]);
    // The other releases' harness records the PostFilter status here even when another
    // plugin's error ended PostFilter before DefaultPreemption (DynamicResources' `not
    // found`): DefaultPreemption did not run, which the FailedScheduling message shows.
    let ended_by_another = expected["status"]["code"] == "Error"
        && expected["status"]["plugin"]
            .as_str()
            .is_some_and(|p| !p.is_empty() && p != "DefaultPreemption");
    let expected = if ended_by_another {
        &Value::Null
    } else {
        expected
    };
    if expected.is_null() || a.is_null() {
        if expected.is_null() != a.is_null() {
            diffs.push(differ(
                "preemption:ran",
                format!("preemption: scheduler {expected}, project {a}"),
            ));
        }
        return;
    }
    let set = |v: &Value| -> BTreeSet<String> {
        v.as_array()
            .map(|l| {
                l.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    if expected["eligible"] != a["eligible"] {
        diffs.push(differ(
            "preemption:eligible",
            format!(
                "eligible: scheduler {}, project {}",
                expected["eligible"], a["eligible"]
            ),
        ));
    }
    let tied = set(&expected["tiedNodes"]);
    let nominated_agrees = if tied.is_empty() {
        expected["nominatedNode"] == a["nominatedNode"]
    } else {
        a["nominatedNode"]
            .as_str()
            .is_some_and(|n| tied.contains(n))
    };
    if !nominated_agrees {
        diffs.push(differ(
            "preemption:nominated",
            format!(
                "nominated node: scheduler {} (tied {tied:?}), project {}",
                expected["nominatedNode"], a["nominatedNode"]
            ),
        ));
    }
    // The victims are those of the nominated node: where the pick is random, the project's
    // own pick is the one whose victims it names.
    let candidates = |v: &Value| -> BTreeMap<String, (BTreeSet<String>, i64)> {
        v.as_array()
            .map(|l| {
                l.iter()
                    .map(|c| {
                        (
                            str_of(c, "node").to_string(),
                            (
                                set(&c["victims"]),
                                c["pdbViolations"].as_i64().unwrap_or(-1),
                            ),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (expected_candidates, actual_candidates) = (
        candidates(&expected["candidates"]),
        candidates(&a["candidates"]),
    );
    let expected_victims = if tied.is_empty() {
        set(&expected["victims"])
    } else {
        a["nominatedNode"]
            .as_str()
            .and_then(|n| expected_candidates.get(n))
            .map(|(v, _)| v.clone())
            .unwrap_or_default()
    };
    if expected_victims != set(&a["victims"]) {
        diffs.push(differ(
            "preemption:victims",
            format!(
                "victims: scheduler {expected_victims:?}, project {:?}",
                set(&a["victims"])
            ),
        ));
    }
    if expected_candidates != actual_candidates {
        diffs.push(differ(
            "preemption:candidates",
            format!(
                "candidates (node: victims, PDB violations): scheduler {expected_candidates:?}, \
                 project {actual_candidates:?}"
            ),
        ));
    }
    if expected.get("pickedBy").is_some() && expected["pickedBy"] != a["pickedBy"] {
        diffs.push(differ(
            "preemption:pickedBy",
            format!(
                "picked by: scheduler {}, project {}",
                expected["pickedBy"], a["pickedBy"]
            ),
        ));
    }
}

fn compare_node(name: &str, e: &Value, a: &Value, diffs: &mut Vec<Difference>) {
    let feasible = e["feasible"].as_bool().unwrap_or(false);
    let reported = &a["reported"];
    if Some(feasible) != a["feasible"].as_bool() {
        let plugin = if feasible {
            str_of(reported, "plugin")
        } else {
            str_of(e, "plugin")
        };
        diffs.push(differ(
            format!("feasibility:{plugin}"),
            format!(
                "{name}: scheduler {}, project {} {}",
                if feasible {
                    "feasible".to_string()
                } else {
                    format!(
                        "rejects [{} {}: {}]",
                        str_of(e, "plugin"),
                        str_of(e, "code"),
                        str_of(e, "message")
                    )
                },
                str_of(a, "verdict"),
                reported
            ),
        ));
        return;
    }
    if !feasible {
        let same = str_of(reported, "plugin") == str_of(e, "plugin")
            && str_of(reported, "code") == str_of(e, "code")
            && comparable_reasons(str_of(reported, "reason"))
                == comparable_reasons(str_of(e, "message"));
        if !same {
            diffs.push(differ(
                format!("status:{}", str_of(e, "plugin")),
                format!(
                    "{name}: scheduler [{} {}: {}], project [{} {}: {}]",
                    str_of(e, "plugin"),
                    str_of(e, "code"),
                    str_of(e, "message"),
                    str_of(reported, "plugin"),
                    str_of(reported, "code"),
                    str_of(reported, "reason")
                ),
            ));
        }
        return;
    }
    let scores: BTreeMap<&str, i64> = a["scores"]
        .as_array()
        .map(|s| {
            s.iter()
                .map(|s| (str_of(s, "plugin"), s["weighted"].as_i64().unwrap_or(0)))
                .collect()
        })
        .unwrap_or_default();
    if let Some(expected_scores) = e["scores"].as_object() {
        for (plugin, weighted) in expected_scores {
            let project = scores.get(plugin.as_str()).copied().unwrap_or(0);
            if weighted.as_i64() != Some(project) {
                diffs.push(differ(
                    format!("score:{plugin}"),
                    format!("{name}: {plugin} scheduler {weighted}, project {project}"),
                ));
            }
        }
    }
    if let Some(total) = e["total"].as_i64()
        && a["score"].as_i64() != Some(total)
    {
        diffs.push(differ(
            "total",
            format!("{name}: total scheduler {total}, project {}", a["score"]),
        ));
    }
}
