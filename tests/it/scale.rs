//! `whatif --scale KIND/NAME=N` as a user runs it: a workload that exists, read from a
//! snapshot (run in this process as the binary runs it) or got from the (fake) API server
//! (through the binary), gains the pods its controller would create, scheduled beside the
//! pods it runs now.

// Tests may unwrap: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::fake_api::FakeApi;
use crate::support::{self, run};

const DEPLOYMENT: &str = "tests/scale/deployment.yaml";
const STATEFUL_SET: &str = "tests/scale/statefulset.yaml";
/// The web Deployment of namespace shop scaled to 5.
const SCALE_WEB: [&str; 5] = ["whatif", "--scale", "deploy/web=5", "-n", "shop"];

/// The scheduler's message for the Pending replica of the Deployment: every untainted node
/// holds a pod of `app: web`, the fifth is tainted.
const ANTI_AFFINITY_MESSAGE: &str = "0/5 nodes are available: 1 node(s) had untolerated \
    taint(s), 4 node(s) didn't match pod anti-affinity rules. no new claims to deallocate, \
    preemption: 0/5 nodes are available: 1 Preemption is not helpful for scheduling, 4 No \
    preemption victims found for incoming pod.";

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json(out: &Output) -> Value {
    assert!(out.status.success(), "{}", stderr(out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Each new pod's name and node ("Pending" for none).
fn placements(doc: &Value) -> Vec<(String, String)> {
    doc["workload"]["pods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["node"].as_str().unwrap_or("Pending").to_string(),
            )
        })
        .collect()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// Three pods run on n1, n2 and n4 (a fourth terminates, and is not counted); scaling to 5
/// adds two through the current ReplicaSet: the first takes n3, the only node without a
/// pod of `app: web` (a fresh simulation would have taken n1), the second stays Pending with
/// the scheduler's message, and `--exit-code` exits 3.
#[test]
fn a_deployment_scales_beside_its_running_pods() {
    let args = [&SCALE_WEB[..], &["--snapshot", DEPLOYMENT]].concat();
    let doc = json(&run(&[&args[..], &["-o", "json"]].concat()));
    let w = &doc["workload"];
    assert_eq!(w["kind"], "Deployment");
    assert_eq!(w["name"], "web");
    assert_eq!(w["namespace"], "shop");
    assert_eq!(
        (w["replicas"].as_u64(), w["placed"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(w["pending"], 1);
    assert_eq!(
        placements(&doc),
        pairs(&[
            ("web-7c9d5-<pod-3>", "n3"),
            ("web-7c9d5-<pod-4>", "Pending")
        ])
    );
    assert_eq!(w["pods"][0]["failedSchedulingMessage"], Value::Null);
    assert_eq!(
        w["notes"][0],
        "scaled beside the 3 pod(s) the workload has, which stay where they are"
    );
    assert_eq!(
        w["pods"][1]["failedSchedulingMessage"],
        ANTI_AFFINITY_MESSAGE
    );
    // The explained replica is the Pending one, with the current ReplicaSet's hash label.
    assert_eq!(w["explained"], 1);
    assert_eq!(doc["pod"]["name"], "web-7c9d5-<pod-4>");

    let out = run(&[&args[..], &["--exit-code"]].concat());
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let table = stdout(&out);
    assert!(
        table.contains("web-7c9d5-<pod-3>  n3") && table.contains("web-7c9d5-<pod-4>  Pending"),
        "{table}"
    );
    // The running pods block their nodes by name.
    assert!(
        table.contains("n1: InterPodAffinity: blocked by shop/web-7c9d5-aaaaa"),
        "{table}"
    );
    let out = run(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "without --exit-code: {}",
        stderr(&out)
    );
}

/// A snapshot on standard input is read once: the workload and the state come from the
/// same text, as from a file.
#[test]
fn a_snapshot_on_standard_input_scales_as_the_file_does() {
    use std::io::Write;
    let args = [&SCALE_WEB[..], &["-o", "json"]].concat();
    let from_file = run(&[&args[..], &["--snapshot", DEPLOYMENT]].concat());
    let mut child = support::kubectl_affinity()
        .args(args)
        .args(["--snapshot", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let text = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(DEPLOYMENT)).unwrap();
    child.stdin.take().unwrap().write_all(&text).unwrap();
    let from_stdin = child.wait_with_output().unwrap();
    let (file, stdin) = (json(&from_file), json(&from_stdin));
    assert_eq!(placements(&stdin), placements(&file));
    assert_eq!(
        stdin["workload"]["pods"][1]["failedSchedulingMessage"],
        ANTI_AFFINITY_MESSAGE
    );
}

/// db-0 and db-1 run on a1 and b1; scaling to 4 adds the missing ordinals 2 and 3 in order,
/// each with its own claim: data-db-2 exists, bound to a volume in zone b, so db-2 goes to b2
/// (a1 and b1 hold a db pod); data-db-3 does not exist and is provisioned where db-3 goes, the
/// only node left (a2).
#[test]
fn a_stateful_set_adds_its_missing_ordinals_with_their_claims() {
    let out = run(&[
        "whatif",
        "--scale",
        "sts/db=4",
        "-n",
        "shop",
        "--snapshot",
        STATEFUL_SET,
        "-o",
        "json",
    ]);
    let doc = json(&out);
    assert_eq!(doc["workload"]["kind"], "StatefulSet");
    assert_eq!(placements(&doc), pairs(&[("db-2", "b2"), ("db-3", "a2")]));
    // Replica 0 (db-2) is explained: a2 is refused by its own claim's volume.
    assert_eq!(doc["workload"]["explained"], 0);
    let a2 = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "a2")
        .unwrap();
    assert_eq!(a2["feasible"], false, "{a2}");
    assert_eq!(a2["reported"]["plugin"], "VolumeBinding", "{a2}");
    assert_eq!(
        a2["reported"]["reason"], "node(s) didn't match PersistentVolume's node affinity",
        "{a2}"
    );
    let binding = a2["filters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["plugin"] == "VolumeBinding")
        .unwrap();
    assert_eq!(
        binding["details"]["claims"][0]["claim"], "data-db-2",
        "{binding}"
    );
    // Replica 1 (db-3) has its own claim, which does not exist yet: provisioned where it goes.
    let out = run(&[
        "whatif",
        "--scale",
        "sts/db=4",
        "-n",
        "shop",
        "--snapshot",
        STATEFUL_SET,
        "--replica",
        "1",
        "-o",
        "json",
    ]);
    let doc = json(&out);
    assert_eq!(doc["pod"]["name"], "db-3");
    let a2 = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "a2")
        .unwrap();
    let binding = a2["filters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["plugin"] == "VolumeBinding")
        .unwrap();
    assert_eq!(binding["pass"], true, "{binding}");
    assert_eq!(
        binding["details"]["claims"][0]["claim"], "data-db-3",
        "{binding}"
    );
}

/// No more pods than the workload has: said plainly, nothing scheduled, exit 0 (also with
/// --exit-code); with -o json the message goes to standard error and nothing to standard
/// output.
#[test]
fn scaling_to_no_more_pods_schedules_none() {
    for n in ["3", "1"] {
        let target = format!("deploy/web={n}");
        let out = run(&[
            "whatif",
            "--scale",
            &target,
            "-n",
            "shop",
            "--snapshot",
            DEPLOYMENT,
            "--exit-code",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(
            stdout(&out),
            format!(
                "Deployment web in namespace shop has 3 pod(s); scaling it to {n} adds none: \
                 nothing to schedule (scale-down is not simulated)\n"
            )
        );
    }
    let out = run(&[
        "whatif",
        "--scale",
        "sts/db=2",
        "-n",
        "shop",
        "--snapshot",
        STATEFUL_SET,
        "-o",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    assert!(stderr(&out).contains("StatefulSet db in namespace shop has 2 pod(s)"));
}

/// A workload that is not there, a kind that cannot be scaled, and flags that do not go
/// with --scale.
#[test]
fn not_found_and_unsupported_kinds_are_said() {
    let out = run(&[
        "whatif",
        "--scale",
        "deploy/api=3",
        "-n",
        "shop",
        "--snapshot",
        DEPLOYMENT,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).lines().next().unwrap_or_default(),
        format!(
            "error: deployment api not found in namespace shop (snapshot {DEPLOYMENT}); check the \
             name and namespace (-n), or list them with `kubectl get deployments -n shop`"
        )
    );
    let out = run(&[
        "whatif",
        "--scale",
        "deploy/web=3",
        "-n",
        "default",
        "--snapshot",
        DEPLOYMENT,
    ]);
    assert!(
        stderr(&out).contains("deployment web not found in namespace default"),
        "{}",
        stderr(&out)
    );
    // A Deployment's ReplicaSet would be scaled back by the Deployment's controller.
    let out = run(&[
        "whatif",
        "--scale",
        "rs/web-7c9d5=5",
        "-n",
        "shop",
        "--snapshot",
        DEPLOYMENT,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(
            "ReplicaSet web-7c9d5 is managed by Deployment web, whose controller would scale it \
             back to the Deployment's replicas; pass --scale deploy/web=N"
        ),
        "{}",
        stderr(&out)
    );
    for (target, said) in [
        (
            "ds/agent=3",
            "a DaemonSet has no replica count (one pod per node)",
        ),
        (
            "job/batch=3",
            "--scale of a job is not supported (it takes deploy/NAME, sts/NAME or rs/NAME)",
        ),
        ("rc/old=3", "--scale of a rc is not supported"),
        ("web=3", "no kind"),
    ] {
        let out = run(&["whatif", "--scale", target, "--snapshot", DEPLOYMENT]);
        assert_eq!(out.status.code(), Some(2), "{target}");
        assert!(stderr(&out).contains(said), "{target}: {}", stderr(&out));
    }
    let out = run(&[
        "whatif",
        "--scale",
        "deploy/web=5",
        "--replicas",
        "2",
        "--snapshot",
        DEPLOYMENT,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot be used with"),
        "{}",
        stderr(&out)
    );
    let out = run(&[
        "whatif",
        "--scale",
        "deploy/web=5",
        "-n",
        "shop",
        "--replica",
        "2",
        "--snapshot",
        DEPLOYMENT,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--replica 2: scaling adds 2 pod(s), numbered from 0"),
        "{}",
        stderr(&out)
    );
}

/// Live, through the fake API server: the same answer as from the snapshot, from GETs only:
/// the Deployment by name and its namespace's ReplicaSets besides what every whatif reads.
/// A missing one is a 404 said as not found; a refused GET names the permission.
#[test]
fn live_scale_gets_the_workload_by_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fake = FakeApi::start(&root.join(DEPLOYMENT));
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = fake.kubeconfig(dir.path(), Some("shop"));
    let live = |target: &str| {
        Command::new(env!("CARGO_BIN_EXE_kubectl-affinity"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["whatif", "--scale", target, "-o", "json", "--kubeconfig"])
            .arg(&kubeconfig)
            .env("NO_COLOR", "1")
            .env("HOME", dir.path())
            .env_remove("KUBECONFIG")
            .env_remove("KUBERNETES_SERVICE_HOST")
            .output()
            .unwrap()
    };
    let doc = json(&live("deploy/web=5"));
    let offline = json(&run(&[
        "whatif",
        "--scale",
        "deploy/web=5",
        "-n",
        "shop",
        "--snapshot",
        DEPLOYMENT,
        "-o",
        "json",
    ]));
    assert_eq!(doc["workload"], offline["workload"]);
    let seen = fake.seen();
    assert!(seen.iter().all(|s| s.method == "GET"), "{seen:?}");
    let mut paths: Vec<&str> = seen.iter().map(|s| s.path.as_str()).collect();
    let workload = "/apis/apps/v1/namespaces/shop/deployments/web";
    assert_eq!(
        paths.iter().filter(|p| **p == workload).count(),
        1,
        "{paths:?}"
    );
    paths.sort();
    paths.dedup();
    assert_eq!(
        paths,
        [
            // The new pods' admission: their namespace and its LimitRanges.
            "/api/v1/namespaces/shop",
            "/api/v1/namespaces/shop/limitranges",
            // Default spreading: the namespace's Services and the pods' ReplicaSet.
            "/api/v1/namespaces/shop/services",
            "/api/v1/nodes",
            "/api/v1/pods",
            // The Deployment, and its namespace's ReplicaSets to find the one it scales.
            workload,
            "/apis/apps/v1/namespaces/shop/replicasets",
            "/apis/apps/v1/namespaces/shop/replicasets/web-7c9d5",
            // Preemption for the Pending replica, and Priority admission.
            "/apis/policy/v1/poddisruptionbudgets",
            "/apis/scheduling.k8s.io/v1/priorityclasses",
            "/version",
        ]
    );

    // `snapshot` writes the Deployment and its ReplicaSets with their pod templates, trimmed
    // as pods are (no environment, no annotations), and `--scale` reads them back.
    let written = dir.path().join("written.yaml");
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-affinity"))
        .args(["snapshot", "-o"])
        .arg(&written)
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .env("HOME", dir.path())
        .env_remove("KUBECONFIG")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&written).unwrap();
    assert!(text.contains("kind: Deployment"), "{text}");
    assert!(
        !text.contains("not-for-snapshots") && !text.contains("storefront"),
        "{text}"
    );
    let again = json(&run(&[
        "whatif",
        "--scale",
        "deploy/web=5",
        "-n",
        "shop",
        "--snapshot",
        written.to_str().unwrap(),
        "-o",
        "json",
    ]));
    assert_eq!(again["workload"], offline["workload"]);

    fake.clear_seen();
    let out = live("sts/web=2");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("statefulset web not found in namespace shop (context fake"),
        "{}",
        stderr(&out)
    );

    fake.forbid("deployments");
    let out = live("deploy/web=5");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("needs RBAC permission to get deployments.apps (in namespace shop)")
            && err.contains("kubectl auth can-i get deployments.apps -n shop"),
        "{err}"
    );
}
