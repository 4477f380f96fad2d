//! A bounded fuzz run over parsing and evaluation, seeded from the oracle corpus (proptest:
//! the machine's stable toolchain cannot build cargo-fuzz targets). Each case takes an oracle
//! case, mutates its objects (values swapped for hostile ones: wrong types, empty strings,
//! invalid operators, out-of-range weights, huge numbers, deep nesting) or its raw text
//! (truncation, inserted bytes), and runs the whole path: snapshot and manifest parsing,
//! profile, evaluation, the report and every renderer. Errors are fine; a panic is a finding.
//! Findings become named regression tests below.
//!
//! A third property splices YAML constructs kubectl never writes (anchors, aliases, merge keys,
//! tags, deep flow nesting, directives) into the cases as YAML. `FUZZ_CASES` (default 1,500
//! per property, a third of it for the YAML one; about ten seconds each) sets the run length;
//! `.ci/run` uses the default.

use kubectl_affinity::pipeline::explain_pod;
use kubectl_affinity::render::{TableOptions, json, table, yaml};
use kubectl_affinity::scheduler::config::FeatureGates;
use kubectl_affinity::scheduler::profile::Profile;
use kubectl_affinity::state::{Pod, read_pod_manifests_str, read_snapshot_str};
use proptest::prelude::*;
use serde_json::{Value, json as j};

use crate::support::oracle;

/// The corpus, read once for the whole run.
fn corpus() -> &'static [oracle::Case] {
    static CORPUS: std::sync::OnceLock<Vec<oracle::Case>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(read_corpus)
}

fn read_corpus() -> Vec<oracle::Case> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(oracle::oracle_dir()).expect("oracle dir") {
        let entry = entry.expect("entry");
        if entry.path().is_dir() {
            all.extend(oracle::load_cases(&entry.file_name().to_string_lossy()));
        }
    }
    all.sort_by_key(|c| c.name());
    all
}

/// Values that have broken parsers before, or could.
fn hostile() -> Vec<Value> {
    let mut deep = j!("x");
    for _ in 0..64 {
        deep = j!([deep]);
    }
    vec![
        Value::Null,
        j!(""),
        j!("In"),
        j!("Gt"),
        j!("NotAnOperator"),
        j!("-1"),
        j!("1e400"),
        j!("99999999999999999999999Ki"),
        j!("1.5Gi"),
        j!("0.001m"),
        j!("a/b/c"),
        j!("kubernetes.io/hostname"),
        j!("ünïcødé/ключ"),
        j!(-1),
        j!(0),
        j!(101),
        j!(i64::MAX),
        j!(i64::MIN),
        j!(1e308),
        j!(true),
        j!([]),
        j!({}),
        j!([""]),
        j!(["1", "2"]),
        j!({"matchExpressions": [{"key": "", "operator": "Gt", "values": ["x"]}]}),
        deep,
    ]
}

/// Replaces the `target`-th node (pre-order) of `v` with `with`; returns the nodes visited.
fn replace_nth(v: &mut Value, target: usize, with: &Value, seen: &mut usize) -> bool {
    if *seen == target {
        *v = with.clone();
        return true;
    }
    *seen += 1;
    match v {
        Value::Array(items) => items.iter_mut().any(|x| replace_nth(x, target, with, seen)),
        Value::Object(map) => map.values_mut().any(|x| replace_nth(x, target, with, seen)),
        _ => false,
    }
}

fn count(v: &Value) -> usize {
    1 + match v {
        Value::Array(items) => items.iter().map(count).sum(),
        Value::Object(map) => map.values().map(count).sum(),
        _ => 0,
    }
}

/// Runs everything a user's command runs; panics are the only failure.
fn run_all(snapshot: &str, pod: &str, config: &Value, gates: Option<&str>) {
    let Ok(state) = read_snapshot_str(snapshot, "fuzz-snapshot.json") else {
        return;
    };
    let Ok(manifests) = read_pod_manifests_str(pod, "fuzz-pod.json") else {
        return;
    };
    let gates = gates
        .and_then(|g| FeatureGates::parse(g).ok())
        .unwrap_or_default();
    for m in manifests {
        // The API-server validation `whatif` runs on every manifest.
        let _ = m.rejection();
        let pod = Pod::from_api(&m.pod);
        let Ok(profile) =
            Profile::from_config(config, &pod.template.scheduler_name, gates.clone(), "fuzz")
        else {
            continue;
        };
        let doc = explain_pod(&pod, &state, None, &profile, Vec::new(), Default::default());
        let mut sink = Vec::new();
        json(&mut sink, &doc).expect("json");
        yaml(&mut sink, &doc).expect("yaml");
        let opts = TableOptions {
            nodes: doc.nodes.iter().map(|n| n.name.to_string()).collect(),
            ..Default::default()
        };
        table(&mut sink, &doc, &opts).expect("table");
    }
}

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_objects_never_panic(
        case in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), any::<bool>()), 1..4),
    ) {
        let case = case.get(corpus());
        let mut snapshot = case.snapshot();
        let mut pod = case.doc["pod"].clone();
        let mut config = case.scheduler_config();
        let values = hostile();
        for (at, with, in_pod) in edits {
            let with = with.get(&values);
            let target = if in_pod { &mut pod } else { &mut snapshot };
            let n = count(target);
            replace_nth(target, at.index(n), with, &mut 0);
        }
        // Now and then, the profile too.
        if count(&pod).is_multiple_of(7) {
            let n = count(&config);
            replace_nth(&mut config, n / 2, &j!("NotAnOperator"), &mut 0);
        }
        run_all(&snapshot.to_string(), &pod.to_string(), &config, case.feature_gates().as_deref());
    }

    #[test]
    fn mutated_text_never_panics(
        case in any::<prop::sample::Index>(),
        cut in any::<prop::sample::Index>(),
        insert in prop::collection::vec(any::<u8>(), 0..8),
    ) {
        let case = case.get(corpus());
        let text = std::fs::read(&case.path).expect("case text");
        let at = cut.index(text.len() + 1);
        let mut bytes = text[..at].to_vec();
        bytes.extend(insert);
        bytes.extend(&text[at..]);
        let text = String::from_utf8_lossy(&bytes);
        // The case file itself, read as a snapshot and as a manifest.
        run_all(&text, &text, &case.scheduler_config(), None);
        // And as YAML snapshot text of the case's objects, truncated.
        let snap = serde_json::to_string_pretty(&case.snapshot()).expect("json");
        let cut_at = cut.index(snap.len() + 1);
        let snap: String = snap.chars().take(cut_at).collect();
        run_all(&snap, &case.doc["pod"].to_string(), &case.scheduler_config(), None);
    }
}

/// YAML constructs kubectl never writes but a hand-written or hostile file may hold.
const YAML_SNIPPETS: &[&str] = &[
    "x: &a {k: v}\ny: *a\n",
    "x: *undefined\n",
    "<<: {k: v}\n",
    "x: !!binary aGVsbG8=\n",
    "x: !custom {a: 1}\n",
    "? [a, b]\n: c\n",
    "x: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n",
    "x: 0x1F\ny: .inf\nz: ~\n",
    "--- !!str\n",
    "...\n",
    "%YAML 1.2\n---\n",
    "x: 'unterminated\n",
    "\t- tab\n",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: cases() / 3, failure_persistence: None, ..ProptestConfig::default() })]

    /// The case's pod and snapshot as YAML, with a hostile construct spliced in at a line.
    #[test]
    fn yaml_constructs_spliced_in_never_panic(
        case in any::<prop::sample::Index>(),
        line in any::<prop::sample::Index>(),
        snippet in any::<prop::sample::Index>(),
        indent in 0usize..6,
        in_pod in any::<bool>(),
    ) {
        let case = case.get(corpus());
        let pod = kubectl_affinity::state::to_yaml_string(&case.doc["pod"]).expect("yaml");
        let snap = kubectl_affinity::state::to_yaml_string(&case.snapshot()).expect("yaml");
        let target = if in_pod { &pod } else { &snap };
        let lines: Vec<&str> = target.lines().collect();
        let at = line.index(lines.len() + 1);
        let pad = " ".repeat(indent);
        let spliced: String = snippet
            .get(YAML_SNIPPETS)
            .lines()
            .map(|l| format!("{pad}{l}\n"))
            .collect();
        let text = format!("{}\n{spliced}{}", lines[..at].join("\n"), lines[at..].join("\n"));
        if in_pod {
            run_all(&snap, &text, &case.scheduler_config(), None);
        } else {
            run_all(&text, &pod, &case.scheduler_config(), None);
        }
    }
}

/// Found by `mutated_objects_never_panic`: a negative request subtracted from a huge
/// allocatable overflowed LeastAllocated's i64 arithmetic. Negative pod quantities are now
/// refused at reading, as the API server refuses them, with the field named.
#[test]
fn regression_negative_request_overflowed_least_allocated() {
    let pod = r#"{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "x",
            "resources": {"requests": {"cpu": "-9000000000000000"}}}]}}"#;
    let err = read_pod_manifests_str(pod, "pod.json")
        .expect_err("a negative request is refused")
        .to_string();
    assert!(
        err.contains("pod.json")
            && err.contains("spec.containers[0].resources.requests[cpu]")
            && err.contains("greater than or equal to 0"),
        "{err}"
    );
}
