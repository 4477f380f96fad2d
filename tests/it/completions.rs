//! Completion scripts and kubectl integration: the committed scripts match the CLI, kubectl
//! finds the plugin on PATH, and `kubectl __complete affinity ...` answers through the
//! `kubectl_complete-affinity` shim. kubectl (1.26+) must be installed: these tests prove the
//! integration with the real kubectl, so they fail rather than skip without it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-affinity");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn bin(args: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(ROOT)
        .args(args)
        .output()
        .expect("run binary")
}

/// PATH with the built binary and the completion shim first, as a user installs them.
fn plugin_path() -> String {
    let bin_dir = Path::new(BIN).parent().expect("binary dir");
    let shim_dir = Path::new(ROOT).join("completions/kubectl");
    let rest = std::env::var("PATH").unwrap_or_default();
    format!("{}:{}:{rest}", bin_dir.display(), shim_dir.display())
}

fn kubectl(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().expect("tempdir");
    Command::new("kubectl")
        .current_dir(ROOT)
        .args(args)
        .env("PATH", plugin_path())
        // No cluster: plugins and completion must not need one.
        .env("KUBECONFIG", dir.path().join("absent"))
        .env("HOME", dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap_or_else(|e| {
            panic!("kubectl could not be run ({e}); install kubectl v1.26 or newer on PATH")
        })
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn committed_completion_scripts_are_current() {
    let files: &[(&str, &str)] = &[
        ("bash", "kubectl-affinity.bash"),
        ("zsh", "_kubectl-affinity"),
        ("fish", "kubectl-affinity.fish"),
        ("powershell", "_kubectl-affinity.ps1"),
    ];
    for (shell, file) in files {
        let out = bin(&["completion", shell]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let path: PathBuf = Path::new(ROOT).join("completions").join(file);
        let committed = std::fs::read_to_string(&path).expect("completion script");
        assert!(
            committed == text(&out.stdout),
            "{} is stale: regenerate it with `cargo run -- completion {shell} > completions/{file}`",
            path.display()
        );
    }
}

#[test]
fn kubectl_finds_the_plugin_and_runs_it() {
    let args = [
        "whatif",
        "-f",
        "examples/pod-with-node-affinity.yaml",
        "--snapshot",
        "examples/cluster.yaml",
        "-o",
        "json",
    ];
    let direct = bin(&args);
    assert!(direct.status.success(), "{}", text(&direct.stderr));
    let mut through = vec!["affinity"];
    through.extend(args);
    let via = kubectl(&through);
    assert!(
        via.status.success(),
        "kubectl affinity: {}",
        text(&via.stderr)
    );
    assert_eq!(text(&via.stdout), text(&direct.stdout));
    assert!(text(&via.stdout).contains("\"kind\": \"SchedulingExplanation\""));

    let list = kubectl(&["plugin", "list", "--name-only"]);
    assert!(
        text(&list.stdout)
            .lines()
            .any(|l| l.trim() == "kubectl-affinity"),
        "kubectl plugin list: {}",
        text(&list.stdout)
    );
}

/// The candidate lines (without descriptions) and the directive of a `__complete` answer.
fn candidates(out: &Output) -> (Vec<String>, String) {
    let stdout = text(&out.stdout);
    let mut lines: Vec<&str> = stdout.lines().collect();
    let directive = lines.pop().unwrap_or_default().to_string();
    (
        lines
            .iter()
            .map(|l| l.split('\t').next().unwrap_or_default().to_string())
            .collect(),
        directive,
    )
}

#[test]
fn kubectl_completes_through_the_shim() {
    let (c, d) = candidates(&kubectl(&["__complete", "affinity", ""]));
    assert_eq!(c, ["explain", "whatif", "audit", "snapshot", "completion"]);
    assert_eq!(d, ":4");

    let (c, _) = candidates(&kubectl(&["__complete", "affinity", "explain", "-o", ""]));
    assert_eq!(c, ["table", "wide", "json", "yaml"]);

    let (c, _) = candidates(&kubectl(&[
        "__complete",
        "affinity",
        "explain",
        "--snapshot",
        "examples/cluster.yaml",
        "-n",
        "batch",
        "",
    ]));
    assert!(c.iter().any(|p| p == "feature-extract-kq7wz"), "{c:?}");
    assert!(c.iter().all(|p| !p.is_empty()));

    // Flags before the subcommand count as after it: pods of namespace batch.
    let (c, _) = candidates(&kubectl(&[
        "__complete",
        "affinity",
        "-n",
        "batch",
        "explain",
        "--snapshot",
        "examples/cluster.yaml",
        "",
    ]));
    assert!(c.iter().any(|p| p == "feature-extract-kq7wz"), "{c:?}");
    let (c, _) = candidates(&kubectl(&["__complete", "affinity", "--cont"]));
    assert_eq!(c, ["--context"]);
    let (c, _) = candidates(&kubectl(&["__complete", "affinity", "explain", "--cont"]));
    assert_eq!(c, ["--context"]);

    let (c, _) = candidates(&kubectl(&[
        "__complete",
        "affinity",
        "whatif",
        "--snapshot",
        "examples/cluster.yaml",
        "-n",
        "",
    ]));
    assert!(c.contains(&"batch".to_string()) && c.contains(&"shop".to_string()));

    let (c, d) = candidates(&kubectl(&["__complete", "affinity", "whatif", "--f"]));
    assert_eq!(c, ["--filename", "--feature-gates"]);
    assert_eq!(d, ":4");

    // A file argument: the shell completes file names (directive 0).
    let (c, d) = candidates(&kubectl(&["__complete", "affinity", "whatif", "-f", ""]));
    assert!(c.is_empty());
    assert_eq!(d, ":0");
}

#[test]
fn completion_of_names_from_an_unreadable_snapshot_is_an_error_directive() {
    let out = bin(&[
        "__complete",
        "explain",
        "--snapshot",
        "does-not-exist.yaml",
        "",
    ]);
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), ":1\n");
}
