//! Against a real kube-apiserver and etcd (`support::envtest`; `KUBEBUILDER_ASSETS`): every
//! command live answers what it answers from the plugin's own snapshot of the same cluster,
//! the requests are only reads with the plugin's User-Agent, and the server's refusals are
//! the ones the plugin emulates.

// Tests may unwrap: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::support::envtest::Envtest;
use crate::support::{self, envtest};

/// The binary as a user runs it against `env`, as `user`, with nothing of this machine's
/// kubeconfig.
fn bin(env: &Envtest, user: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kubectl-affinity"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("HOME", &env.dir)
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .arg("--kubeconfig")
        .arg(env.kubeconfig(user));
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The plugin's snapshot of the server, written once, as the README's role reads it.
fn snapshot(env: &Envtest) -> &'static Path {
    static SNAPSHOT: OnceLock<PathBuf> = OnceLock::new();
    SNAPSHOT.get_or_init(|| {
        let path = env.dir.join("snapshot.yaml");
        let out = bin(env, envtest::PLUGIN)
            .args(["snapshot", "-o"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "snapshot: {}", text(&out.stderr));
        path
    })
}

/// The command lines compared, without their output format.
fn lines() -> Vec<Vec<String>> {
    let mut lines: Vec<Vec<&str>> = vec![
        vec!["explain", "pending-gpu", "-n", "default"],
        vec!["explain", "api-7d9c", "-n", "default"],
        vec!["explain", "checkout-6b9d4c7f58-x2v9k", "-n", "shop"],
        vec!["explain", "feature-extract-kq7wz", "-n", "batch"],
        vec!["explain", "prometheus-k8s-0", "-n", "monitoring"],
        vec!["explain", "deploy/checkout", "-n", "shop"],
        vec!["explain", "rs/web-store-5b8c7f9d6f", "-n", "shop"],
        vec!["explain", "sts/prometheus-k8s", "-n", "monitoring"],
        vec!["explain", "ds/node-exporter", "-n", "monitoring"],
        vec!["explain", "job/feature-extract", "-n", "batch"],
        vec!["explain", "-l", "app=checkout", "-n", "shop"],
        vec!["explain", "-l", "tier=backend", "-n", "default"],
        vec!["whatif", "--scale", "deploy/checkout=6", "-n", "shop"],
        vec![
            "whatif",
            "--scale",
            "sts/prometheus-k8s=3",
            "-n",
            "monitoring",
        ],
        vec!["audit", "-n", "shop"],
        vec!["audit", "-A"],
        vec!["audit", "-A", "--violating"],
    ];
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut files: Vec<String> = std::fs::read_dir(examples)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".yaml") && f != "cluster.yaml")
        .map(|f| format!("examples/{f}"))
        .collect();
    files.sort();
    for f in &files {
        lines.push(vec!["whatif", "-f", f]);
    }
    lines
        .into_iter()
        .map(|l| l.into_iter().map(String::from).collect())
        .collect()
}

/// An answer with its source (`context NAME (URL)` or `snapshot FILE`) replaced.
fn answer(out: &Output, source: &str) -> (Option<i32>, String, String) {
    let strip = |b: &[u8]| text(b).replace(source, "<SOURCE>");
    (out.status.code(), strip(&out.stdout), strip(&out.stderr))
}

#[test]
fn every_command_live_answers_as_from_the_plugins_own_snapshot() {
    let Some(env) = envtest::shared("every_command_live_answers_as_from_the_plugins_own_snapshot")
    else {
        return;
    };
    let snapshot = snapshot(env);
    let live_source = format!("context envtest ({}/)", env.url);
    let offline_source = format!("snapshot {}", snapshot.display());
    let mut differ = Vec::new();
    let mut compared = 0;
    for line in lines() {
        for format in ["table", "wide", "json", "yaml"] {
            let live = bin(env, envtest::PLUGIN)
                .args(&line)
                .args(["-o", format])
                .output()
                .unwrap();
            let mut args = line.clone();
            args.extend(["-o".into(), format.into(), "--snapshot".into()]);
            args.push(snapshot.display().to_string());
            let offline = support::run(&args);
            let (live, offline) = (
                answer(&live, &live_source),
                answer(&offline, &offline_source),
            );
            compared += 1;
            if live != offline {
                differ.push(format!(
                    "`{} -o {format}`:\n--- live (exit {:?})\n{}{}\n--- snapshot (exit {:?})\n{}{}",
                    line.join(" "),
                    live.0,
                    live.2,
                    first_difference(&live.1, &offline.1),
                    offline.0,
                    offline.2,
                    first_difference(&offline.1, &live.1),
                ));
            }
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {compared} live answers differ from the snapshot's:\n{}",
        differ.len(),
        differ.join("\n")
    );
}

/// The lines of `a` around where it first differs from `b`.
fn first_difference(a: &str, b: &str) -> String {
    let (al, bl): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let at = al
        .iter()
        .zip(&bl)
        .position(|(x, y)| x != y)
        .unwrap_or(al.len().min(bl.len()));
    al[at.saturating_sub(2)..(at + 3).min(al.len())].join("\n")
}

/// What the plugin's requests say they come from.
const USER_AGENT: &str = concat!("kubectl-affinity/", env!("CARGO_PKG_VERSION"));

#[test]
fn the_server_sees_only_reads_and_the_opt_in_dry_run_with_the_plugins_user_agent() {
    let Some(env) = envtest::shared(
        "the_server_sees_only_reads_and_the_opt_in_dry_run_with_the_plugins_user_agent",
    ) else {
        return;
    };
    // Every command, as users with every right, some and none (refusals are requests too).
    let dir = tempfile::tempdir().unwrap();
    for user in [envtest::PLUGIN, envtest::READER, envtest::NOBODY] {
        for line in [
            &["explain", "pending-gpu", "-n", "default"][..],
            &["explain", "deploy/checkout", "-n", "shop"],
            &["whatif", "-f", "examples/web-store.yaml"],
            &["whatif", "--scale", "deploy/checkout=5", "-n", "shop"],
            &["audit", "-A"],
        ] {
            bin(env, user).args(line).output().unwrap();
        }
        bin(env, user)
            .args(["snapshot", "-o"])
            .arg(dir.path().join(user))
            .output()
            .unwrap();
    }
    let out = bin(env, envtest::PLUGIN_ADMIN)
        .args([
            "whatif",
            "-f",
            "examples/web-store.yaml",
            "--server-dry-run",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The log is written as each request completes: wait for the last one's line.
    let mut entries = Vec::new();
    for _ in 0..50 {
        entries = envtest::audit_entries(env)
            .into_iter()
            .filter(|e| {
                envtest::PLUGIN_USERS
                    .iter()
                    .any(|u| e["user"]["username"] == *u)
            })
            .collect();
        if entries.iter().any(|e| e["verb"] == "create") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    for user in envtest::PLUGIN_USERS {
        assert!(
            entries.iter().any(|e| e["user"]["username"] == user),
            "no request of {user} in the audit log"
        );
    }
    let mut creates = 0;
    for e in &entries {
        let (verb, uri) = (
            e["verb"].as_str().unwrap(),
            e["requestURI"].as_str().unwrap(),
        );
        assert_eq!(e["userAgent"], USER_AGENT, "{uri}");
        match verb {
            "get" | "list" => {}
            // `whatif --server-dry-run`, refused or not.
            "create"
                if uri.split('?').next().unwrap().ends_with("/pods")
                    && uri.contains("dryRun=All") =>
            {
                creates += 1
            }
            _ => panic!("{verb} {uri} by {}", e["user"]["username"]),
        }
    }
    assert!(creates >= 1, "the dry run's create is not in the audit log");
}

/// Each node's verdict in a `whatif -o json` answer, with the pod as admitted.
fn verdicts(out: &Output) -> (serde_json::Value, Vec<(String, String)>) {
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let nodes = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["name"].as_str().unwrap().to_string(),
                n["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (doc["pod"].clone(), nodes)
}

/// `whatif` of each manifest, emulating admission and with `--server-dry-run` (the server's
/// own admission and validation): the same verdicts on every node, or both refuse.
/// `plugins` are the emulation's admission switches, set as the server under test sets its
/// own.
fn assert_admission_agrees(env: &Envtest, cases: &[&str], plugins: &[&str]) {
    let mut disagree = Vec::new();
    for case in cases {
        let file = format!("tests/envtest/admission/{case}.yaml");
        let emulated = bin(env, envtest::PLUGIN)
            .args(["whatif", "-f", &file, "-o", "json"])
            .args(plugins)
            .output()
            .unwrap();
        let server = bin(env, envtest::PLUGIN_ADMIN)
            .args(["whatif", "-f", &file, "-o", "json", "--server-dry-run"])
            .output()
            .unwrap();
        match (emulated.status.success(), server.status.success()) {
            (true, true) => {
                let (e, s) = (verdicts(&emulated), verdicts(&server));
                if e.1 != s.1 {
                    disagree.push(format!(
                        "{case}: emulated {:?}\nserver {:?}\npods {}\n{}",
                        e.1, s.1, e.0, s.0
                    ));
                }
            }
            (false, false) => {
                let said = text(&server.stderr);
                // The server's refusal as it means it: never an RBAC problem (the user may
                // create pods), never a passing fault to retry.
                assert!(
                    !said.contains("RBAC") && !said.contains("retry"),
                    "{case}: {said}"
                );
            }
            _ => disagree.push(format!(
                "{case}: emulated exit {:?}: {}\nserver exit {:?}: {}",
                emulated.status.code(),
                text(&emulated.stderr),
                server.status.code(),
                text(&server.stderr)
            )),
        }
    }
    assert!(disagree.is_empty(), "{}", disagree.join("\n\n"));
}

#[test]
fn emulated_admission_agrees_with_the_servers_dry_run() {
    let Some(env) = envtest::shared("emulated_admission_agrees_with_the_servers_dry_run") else {
        return;
    };
    assert_admission_agrees(
        env,
        &[
            "limit-range-default",
            "limit-range-default-fits",
            "limit-range-max",
            "runtime-class",
            "runtime-class-missing",
            "priority-class",
            "priority-class-missing",
            "namespace-missing",
        ],
        &[],
    );
}

#[test]
fn emulated_admission_agrees_with_a_server_that_enables_pod_node_selector() {
    let Some(env) = envtest::with_admission(
        "emulated_admission_agrees_with_a_server_that_enables_pod_node_selector",
    ) else {
        return;
    };
    assert_admission_agrees(
        env,
        &["node-selector", "toleration-not-allowed"],
        &["--enable-admission-plugins=PodNodeSelector,PodTolerationRestriction"],
    );
}

#[test]
fn a_dry_run_refusal_is_classified_as_the_server_means_it() {
    let Some(env) = envtest::shared("a_dry_run_refusal_is_classified_as_the_server_means_it")
    else {
        return;
    };
    let dry_run = |user: &str, case: &str| {
        let out = bin(env, user)
            .args(["whatif", "--server-dry-run", "-f"])
            .arg(format!("tests/envtest/admission/{case}.yaml"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{case}: {}", text(&out.stdout));
        text(&out.stderr)
    };
    for (case, words) in [
        (
            "limit-range-max",
            &[
                "LimitRanger admission plugin refused the pod",
                "403 Forbidden",
                "maximum cpu usage per Container is 2, but limit is 4",
            ][..],
        ),
        (
            "runtime-class-missing",
            &[
                "RuntimeClass admission plugin refused the pod",
                "RuntimeClass \"kata\" not found",
            ],
        ),
        (
            "priority-class-missing",
            &[
                "Priority admission plugin refused the pod",
                "no PriorityClass with name ultra was found",
            ],
        ),
        (
            "limit-range-default",
            &[
                "invalid after admission",
                "422 Invalid",
                "spec.containers[0].resources.requests: Invalid value: \"1Gi\": must be less than or equal to memory limit of 512Mi",
            ],
        ),
        (
            "namespace-missing",
            &["404 NotFound", "namespace \"nowhere\" does not exist"],
        ),
    ] {
        let said = dry_run(envtest::PLUGIN_ADMIN, case);
        for w in words {
            assert!(said.contains(w), "{case}: {w:?} not in {said}");
        }
        assert!(
            !said.contains("retry") && !said.contains("RBAC"),
            "{case}: {said}"
        );
    }
    // A user who may not create pods: RBAC's refusal, named as one.
    let said = dry_run(envtest::PLUGIN, "runtime-class");
    assert!(
        said.contains("needs RBAC permission to create pods"),
        "{said}"
    );
}

#[test]
fn the_emulated_refusals_name_the_server_words() {
    let Some(env) = envtest::shared("the_emulated_refusals_name_the_server_words") else {
        return;
    };
    for (case, words) in [
        (
            "limit-range-default",
            "Pod \"big-request\" is invalid: spec.containers[0].resources.requests: Invalid value: \"1Gi\": must be less than or equal to memory limit of 512Mi",
        ),
        ("namespace-missing", "namespaces \"nowhere\" not found"),
        (
            "limit-range-max",
            "pods \"too-much-cpu\" is forbidden: maximum cpu usage per Container is 2, but limit is 4",
        ),
    ] {
        let out = bin(env, envtest::PLUGIN)
            .args(["whatif", "-f"])
            .arg(format!("tests/envtest/admission/{case}.yaml"))
            .output()
            .unwrap();
        assert!(!out.status.success(), "{case}");
        assert!(
            text(&out.stderr).contains(words),
            "{case}: {}",
            text(&out.stderr)
        );
    }
}
