//! The replica-sequence corpus (tests/replicas/README.md): workloads scheduled by
//! kube-scheduler's own code one replica after another, unpacked from one archive, and the
//! comparison of the command's `workload.pods` with a case's `expected.json` steps, replica by
//! replica as the reference's `compare_replicas_static.py` defines it.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The archive holding every case folder (`cases/case-NNNNN/`: cluster.yaml, workload.yaml,
/// expected.json).
pub fn archive() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/replicas/corpus.tar.zst")
}

/// Unpacks the archive into `dir` and returns every case folder under it, sorted.
pub fn unpack(dir: &Path) -> Vec<PathBuf> {
    let file = std::fs::File::open(archive()).expect("open the replica corpus archive");
    let zstd = ruzstd::decoding::StreamingDecoder::new(std::io::BufReader::new(file))
        .expect("the replica corpus archive is zstd");
    tar::Archive::new(zstd)
        .unpack(dir)
        .expect("unpack the replica corpus archive");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir.join("cases"))
        .expect("read the unpacked cases")
        .map(|e| e.expect("dir entry").path())
        .filter(|c| c.join("expected.json").is_file())
        .collect();
    cases.sort();
    cases
}

/// The command line of a case: `whatif` of workload.yaml on cluster.yaml, as JSON. The
/// reference creates its pods through the API server's validation, which accepts them all;
/// `--validate=warn` is the reference script's, kept so that both run the same line.
pub fn args(case: &Path) -> Vec<String> {
    vec![
        "whatif".to_string(),
        "-f".to_string(),
        case.join("workload.yaml").display().to_string(),
        "--snapshot".to_string(),
        case.join("cluster.yaml").display().to_string(),
        "-o".to_string(),
        "json".to_string(),
        "--validate=warn".to_string(),
    ]
}

/// One replica where the project and the scheduler part: its index (-1 for the whole run),
/// the kind of difference and the words that show it.
#[derive(Debug, Clone)]
pub struct Difference {
    pub replica: i64,
    pub class: &'static str,
    pub detail: String,
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Compares the project's `workload.pods` (`actual`, the command's JSON) with the scheduler's
/// steps (`expected`). Per replica: placed on a best node (or the only feasible one) and on
/// the node the reference bound it to; Pending only where no node is feasible, with the same
/// FailedScheduling message; not placed where the controller does not create it. After the
/// first replica the two place differently, the paths part and nothing later is compared.
pub fn compare(expected: &Value, actual: &Value) -> Vec<Difference> {
    let mut diffs = Vec::new();
    let mut differ = |replica: i64, class: &'static str, detail: String| {
        diffs.push(Difference {
            replica,
            class,
            detail,
        });
    };
    let pods: Vec<&Value> = actual["workload"]["pods"]
        .as_array()
        .map(|p| p.iter().collect())
        .unwrap_or_default();
    let steps = expected["steps"].as_array().cloned().unwrap_or_default();
    if pods.len() != steps.len() {
        differ(
            -1,
            "replica-count",
            format!(
                "project {} replicas, scheduler {} steps",
                pods.len(),
                steps.len()
            ),
        );
    }
    for s in &steps {
        let i = s["index"].as_i64().unwrap_or(-1);
        let Some(p) = pods.iter().find(|p| p["index"].as_i64() == Some(i)) else {
            continue;
        };
        let node = p["node"].as_str();
        if s["notCreated"].as_bool() == Some(true) {
            if let Some(node) = node {
                differ(
                    i,
                    "not-created",
                    format!("replica {i}: never created; project {node}"),
                );
            }
            continue;
        }
        let feasible = strings(&s["feasibleNodes"]);
        let best = strings(&s["bestNodes"]);
        if let Some(e) = s["schedulerError"].as_str() {
            if let Some(node) = node {
                differ(
                    i,
                    "scheduler-error",
                    format!("replica {i}: {e}; project {node}"),
                );
            }
            continue;
        }
        match node {
            Some(node) if feasible.is_empty() => differ(
                i,
                "placed-but-pending",
                format!("replica {i}: project {node}, scheduler: {}", s["fitError"]),
            ),
            Some(node) if !feasible.contains(&node) => differ(
                i,
                "placed-infeasible",
                format!("replica {i}: project {node}, scheduler rejects it; best {best:?}"),
            ),
            Some(node) if !best.contains(&node) && feasible != [node] => differ(
                i,
                "not-best",
                format!("replica {i}: project {node}, scheduler best {best:?}"),
            ),
            Some(node) => {
                if let Some(bound) = s["boundTo"].as_str()
                    && bound != node
                {
                    differ(
                        i,
                        "tie-rule",
                        format!(
                            "replica {i}: project {node}, reference (first best by name) {bound}"
                        ),
                    );
                    break;
                }
            }
            None if !feasible.is_empty() => differ(
                i,
                "pending-but-feasible",
                format!(
                    "replica {i}: project Pending ({}), scheduler feasible {feasible:?}",
                    p["failedSchedulingMessage"]
                ),
            ),
            None => {
                if s["fitError"] != p["failedSchedulingMessage"] {
                    differ(
                        i,
                        "message",
                        format!(
                            "replica {i} FailedScheduling:\n        scheduler: {}\n        project:   {}",
                            s["fitError"], p["failedSchedulingMessage"]
                        ),
                    );
                }
            }
        }
    }
    diffs
}
