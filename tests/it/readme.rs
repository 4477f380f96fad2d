//! Every example of the README runs as written: each command line of its `sh` blocks that
//! runs the tool (`kubectl affinity ...`, `kubectl-affinity ...`, `cargo run --release -- ...`),
//! with `\` continuations joined, succeeds. Live examples reach the in-process fake API server
//! through a kubeconfig whose current context (and a second one, `prod`) has the namespace
//! `kube-system`, so an example that relies on the `default` namespace without saying so fails.

// Tests may unwrap: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

use crate::support::fake_api::{FakeApi, TOKEN};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The tool's command lines in the README's `sh` blocks, as argument lists.
fn examples(readme: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in readme.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let code = line.split(" #").next().unwrap_or("").trim();
        if code.starts_with('#') || (code.is_empty() && pending.is_empty()) {
            continue;
        }
        pending.push_str(code.trim_end_matches('\\'));
        pending.push(' ');
        if code.ends_with('\\') {
            continue;
        }
        let whole = std::mem::take(&mut pending);
        let words: Vec<String> = whole.split_whitespace().map(str::to_string).collect();
        let args = match words.as_slice() {
            [k, a, rest @ ..] if k == "kubectl" && a == "affinity" => rest.to_vec(),
            [b, rest @ ..] if b == "kubectl-affinity" => rest.to_vec(),
            [c, r, rel, dashes, rest @ ..]
                if c == "cargo" && r == "run" && rel == "--release" && dashes == "--" =>
            {
                rest.to_vec()
            }
            _ => continue,
        };
        out.push((whole.trim().to_string(), args));
    }
    out
}

#[test]
fn every_readme_example_runs_as_written() {
    let readme = std::fs::read_to_string(format!("{ROOT}/README.md")).unwrap();
    let examples = examples(&readme);
    assert!(examples.len() >= 10, "{examples:?}");
    let fake = FakeApi::start(&Path::new(ROOT).join("examples/cluster.yaml"));
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("config");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: {}\n\
             contexts:\n- name: fake\n  context: {{cluster: fake, user: tester, namespace: kube-system}}\n\
             - name: prod\n  context: {{cluster: fake, user: tester, namespace: kube-system}}\n\
             current-context: fake\nusers:\n- name: tester\n  user:\n    token: {TOKEN}\n",
            fake.url()
        ),
    )
    .unwrap();
    // The examples name files under examples/ and write beside them: a scratch directory
    // that sees the repository's examples.
    let work = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(format!("{ROOT}/examples"), work.path().join("examples")).unwrap();
    // And the test fixtures some examples read (tests/audit/cluster.yaml), as from the
    // repository's root.
    std::os::unix::fs::symlink(format!("{ROOT}/tests"), work.path().join("tests")).unwrap();
    for (line, args) in examples {
        let out = Command::new(env!("CARGO_BIN_EXE_kubectl-affinity"))
            .current_dir(work.path())
            .args(&args)
            .env("KUBECONFIG", &kubeconfig)
            .env("HOME", dir.path())
            .env("NO_COLOR", "1")
            .env_remove("KUBERNETES_SERVICE_HOST")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "`{line}` failed ({:?}): {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
