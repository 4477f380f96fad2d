//! What a new user tripped on, end to end through the binary: input read as kubectl reads it,
//! errors for input that cannot be meant, output that stays readable, a snapshot safe to share.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn bin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubectl-affinity"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        // Hermetic: no kubeconfig of the machine's user (its context namespace would apply).
        .env("KUBECONFIG", "/nonexistent/kubeconfig");
    cmd
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run binary")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn demo() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cluster.yaml"))
        .expect("demo")
}

fn write(dir: &tempfile::TempDir, name: &str, contents: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, contents).expect("write");
    path
}

/// Item 11: `kubectl get -o yaml` writes a label value `3e505426` unquoted (go-yaml reads it
/// back as a string); the snapshot reads, and the label selects as the string it is.
#[test]
fn a_label_that_looks_like_a_huge_float_reads_as_its_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let snapshot = demo().replacen(
        "      kubernetes.io/hostname: control-plane-1\n",
        "      kubernetes.io/hostname: control-plane-1\n      commit: 3e505426\n",
        1,
    );
    let snapshot = write(&dir, "cluster.yaml", &snapshot);
    let pod = write(
        &dir,
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  \
         nodeSelector: {commit: 3e505426}\n  tolerations: [{operator: Exists}]\n  \
         containers: [{name: c, image: nginx}]\n",
    );
    let out = run(&[
        "whatif",
        "-f",
        pod.to_str().expect("utf-8"),
        "--snapshot",
        snapshot.to_str().expect("utf-8"),
        "-o",
        "json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["summary"]["feasible"], 1, "{doc}");
    let feasible: Vec<_> = doc["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .filter(|n| n["verdict"] == "Feasible")
        .map(|n| n["name"].clone())
        .collect();
    assert_eq!(feasible, ["control-plane-1"]);
}

/// Item 3: pods saved without nodes (`kubectl get pods -o yaml`) is an input error naming the
/// file and what to do, not "Feasible: 0 of 0".
#[test]
fn a_snapshot_without_nodes_is_an_input_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pods_only = write(
        &dir,
        "pods.yaml",
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: \
         {name: p, namespace: default}\n  spec:\n    containers: [{name: c, image: nginx}]\n",
    );
    for format in ["table", "json"] {
        let out = run(&[
            "explain",
            "p",
            "-n",
            "default",
            "--snapshot",
            pods_only.to_str().expect("utf-8"),
            "-o",
            format,
        ]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
        assert!(err.contains("pods.yaml: no Node objects found"), "{err}");
        assert!(err.contains("kubectl affinity snapshot"), "{err}");
    }
}
