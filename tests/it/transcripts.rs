//! Transcripts of every output on the bundled demo: each example manifest through `whatif`,
//! and `explain` of a pending and a running pod, as the table (with drill-down), wide, JSON and
//! YAML. Each transcript is a snapshot (tests/snapshots/) holding the command line and its
//! exact output, so any change to what users see fails here and shows up in review. The
//! command lines run in this process as the binary runs them (`support::run`); those about
//! how the process ends run through the binary too.
//! After an intended change: `INSTA_UPDATE=always cargo test --test it transcripts`, then
//! read the diff of tests/snapshots/ before committing it.

use std::process::Output;

use crate::support::{assert_binary_agrees, run};

/// The transcript of a command line, run in this process as the binary runs it.
fn transcript(args: &[&str]) -> String {
    said(args, &run(args))
}

/// The transcript of a command line whose subject is how the process ends, through the binary
/// too, which must answer the same.
fn transcript_and_binary(args: &[&str]) -> String {
    let out = run(args);
    assert_binary_agrees(args, &out);
    said(args, &out)
}

/// The command line, what it wrote and how it ended.
fn said(args: &[&str], out: &Output) -> String {
    let mut text = format!("$ kubectl affinity {}\n", args.join(" "));
    text.push_str(&String::from_utf8_lossy(&out.stdout));
    if !out.stderr.is_empty() {
        text.push_str("--- stderr\n");
        text.push_str(&String::from_utf8_lossy(&out.stderr));
    }
    text.push_str(&format!("--- exit {}\n", out.status.code().unwrap_or(-1)));
    text
}

/// Checks a transcript against its snapshot, tests/snapshots/transcripts__NAME.snap: the name
/// and folder the snapshots had when this module was a test crate of its own.
fn assert_transcript(name: impl std::fmt::Display, text: String) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!(format!("transcripts__{name}"), text));
}

const SNAPSHOT: [&str; 2] = ["--snapshot", "examples/cluster.yaml"];

/// Every output format of one command; `drill` nodes get a drill-down in the table.
fn all_outputs(name: &str, command: &[&str], drill: &[&str]) {
    let mut base: Vec<&str> = command.to_vec();
    base.extend(SNAPSHOT);
    let mut table = base.clone();
    for n in drill {
        table.extend(["--node", n]);
    }
    assert_transcript(format!("{name}-table"), transcript(&table));
    let mut wide = base.clone();
    wide.extend(["-o", "wide"]);
    assert_transcript(format!("{name}-wide"), transcript(&wide));
    let mut json = base.clone();
    json.extend(["-o", "json"]);
    assert_transcript(format!("{name}-json"), transcript(&json));
    let mut yaml = base;
    yaml.extend(["-o", "yaml"]);
    assert_transcript(format!("{name}-yaml"), transcript(&yaml));
}

#[test]
fn whatif_every_example() {
    let examples: &[(&str, &[&str])] = &[
        ("nginx-nodeselector", &["worker-a-1"]),
        ("pod-with-node-affinity", &["worker-a-1", "worker-c-1"]),
        ("pod-with-affinity-preferred-weight", &["worker-b-1"]),
        ("pod-with-pod-affinity", &["worker-a-1", "worker-b-2"]),
        ("pod-with-toleration", &["gpu-c-1"]),
        ("redis-cache", &["worker-a-1"]),
        ("web-store", &["worker-a-1", "worker-b-2"]),
        ("fluentd-daemonset", &["gpu-c-1"]),
    ];
    for (example, drill) in examples {
        let file = format!("examples/{example}.yaml");
        all_outputs(
            &format!("whatif-{example}"),
            &["whatif", "-f", &file],
            drill,
        );
    }
}

#[test]
fn explain_pending_pods() {
    all_outputs(
        "explain-pending-gpu",
        &["explain", "pending-gpu", "-n", "default"],
        &["gpu-c-1", "worker-a-1"],
    );
    all_outputs(
        "explain-pending-spread",
        &["explain", "checkout-6b9d4c7f58-x2v9k", "-n", "shop"],
        &["worker-c-1", "worker-a-1"],
    );
    all_outputs(
        "explain-pending-batch",
        &["explain", "pod/feature-extract-kq7wz", "-n", "batch"],
        &["worker-b-2"],
    );
}

#[test]
fn explain_running_pod() {
    all_outputs(
        "explain-running-api",
        &["explain", "api-7d9c", "-n", "default"],
        &["worker-b-1"],
    );
}

#[test]
fn errors_and_exit_codes() {
    assert_transcript(
        "error-pod-not-found",
        transcript_and_binary(&[
            "explain",
            "nope",
            "-n",
            "default",
            "--snapshot",
            "examples/cluster.yaml",
        ]),
    );
    assert_transcript(
        "exit-code-no-feasible-node",
        transcript_and_binary(&[
            "explain",
            "pending-gpu",
            "--snapshot",
            "examples/cluster.yaml",
            "--exit-code",
            "--no-headers",
        ]),
    );
}
