//! The oracle corpus (cases translated from kube-scheduler's own unit tests) run through the
//! library and end to end through the command line's JSON (in this process; the first case
//! of each folder through the binary too, which must answer the same). Every case of every folder listed in
//! `EVALUATED` must pass; the folders of plugins not implemented yet are listed in
//! `NOT_YET` and the test fails if a folder is in neither list. The project's own translations
//! of further rows of the same upstream test functions (`tests/oracle/extra/`) run with them.

use kubectl_affinity::scheduler::config::FeatureGates;
use kubectl_affinity::scheduler::profile::Profile;
use kubectl_affinity::state::{ClusterState, Pod};

use crate::support::oracle::{
    Case, check, extra_dir, load_cases, load_extra_cases, oracle_dir, write_inputs,
};
use crate::support::{assert_binary_agrees, run};

const EVALUATED: &[&str] = &[
    "NodeAffinity",
    "InterPodAffinity",
    "TaintToleration",
    "NodeName",
    "NodeUnschedulable",
    "NodeResourcesFit",
    "PodTopologySpread",
];
const NOT_YET: &[&str] = &[];
/// Plugins the shared corpus has no folder for, checked by the project's own translations of
/// their upstream unit tests (`tests/oracle/extra/`) alone.
const EXTRA_ONLY: &[&str] = &["BalancedAllocation", "ImageLocality", "NodePorts"];

fn cases() -> Vec<Case> {
    let mut all = Vec::new();
    for folder in EVALUATED {
        let c = load_cases(folder);
        assert!(!c.is_empty(), "no cases in {folder}");
        all.extend(c);
        all.extend(load_extra_cases(folder));
    }
    for folder in EXTRA_ONLY {
        let c = load_extra_cases(folder);
        assert!(!c.is_empty(), "no extra cases in {folder}");
        all.extend(c);
    }
    all
}

#[test]
fn every_case_folder_is_accounted_for() {
    let extra = std::fs::read_dir(extra_dir())
        .expect("extra dir")
        .filter(|e| e.as_ref().is_ok_and(|e| e.path().is_dir()));
    for entry in std::fs::read_dir(oracle_dir())
        .expect("oracle dir")
        .chain(extra)
    {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .to_string();
        assert!(
            EVALUATED.contains(&name.as_str())
                || NOT_YET.contains(&name.as_str())
                || EXTRA_ONLY.contains(&name.as_str()),
            "oracle folder {name} is neither evaluated nor listed as not yet implemented"
        );
    }
}

fn evaluate_in_library(case: &Case) -> serde_json::Value {
    let snap = case.snapshot();
    let text = serde_json::to_string(&snap).expect("json");
    let state: ClusterState = kubectl_affinity::state::read_snapshot_str(&text, &case.name())
        .unwrap_or_else(|e| panic!("{}: {e}", case.name()));
    let api_pod: k8s_openapi::api::core::v1::Pod =
        serde_json::from_value(case.doc["pod"].clone()).expect("pod");
    let pod = Pod::from_api(&api_pod);
    let gates = match case.feature_gates() {
        Some(g) => FeatureGates::parse(&g).expect("gates"),
        None => FeatureGates::default(),
    };
    let profile = Profile::from_config(
        &case.scheduler_config(),
        &pod.template.scheduler_name,
        gates,
        "case",
    )
    .unwrap_or_else(|e| panic!("{}: {e}", case.name()));
    let doc = kubectl_affinity::pipeline::explain_pod(
        &pod,
        &state,
        None,
        &profile,
        Vec::new(),
        Default::default(),
    );
    serde_json::to_value(&doc).expect("serialize")
}

#[test]
fn oracle_cases_pass_through_the_library() {
    let cases = cases();
    let mut failures = Vec::new();
    for case in &cases {
        let doc = evaluate_in_library(case);
        for f in check(case, &doc) {
            failures.push(format!("{}: {f}", case.name()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    eprintln!("{} oracle cases passed through the library", cases.len());
}

#[test]
fn oracle_cases_pass_end_to_end_through_the_command_line() {
    let cases = cases();
    let mut failures = Vec::new();
    let mut folders_seen = Vec::new();
    for case in &cases {
        let dir = tempfile::tempdir().expect("tempdir");
        let args = write_inputs(case, dir.path());
        let out = run(&args);
        let folder = case.path.parent().expect("a case's folder").to_path_buf();
        if !folders_seen.contains(&folder) {
            assert_binary_agrees(&args, &out);
            folders_seen.push(folder);
        }
        if !out.status.success() {
            failures.push(format!(
                "{}: exit {:?}: {}",
                case.name(),
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            ));
            continue;
        }
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json output");
        for f in check(case, &doc) {
            failures.push(format!("{}: {f}", case.name()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures over {} cases:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
