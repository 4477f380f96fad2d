//! What a new user tripped on, end to end: input read as kubectl reads it, errors for input
//! that cannot be meant, output that stays readable, a snapshot safe to share. Offline runs
//! in this process as the binary runs them; live ones, a pipe, a terminal and the
//! environment through the binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::support::fake_api::FakeApi;
use crate::support::{self, run};

/// A test input written to the test's directory.
fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    support::write(dir.path(), name, text)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn demo() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cluster.yaml"))
        .expect("demo")
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

/// A fake API server serving the demo, and a kubeconfig for it.
fn live() -> (FakeApi, tempfile::TempDir, PathBuf) {
    let fake = FakeApi::start(&Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cluster.yaml"));
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = fake.kubeconfig(dir.path(), None);
    (fake, dir, kubeconfig)
}

/// Item 4: `snapshot | head -3`: the reader goes away, and the tool ends quietly with 0, as
/// other Unix tools do.
#[test]
fn a_snapshot_to_a_closed_pipe_ends_quietly() {
    let (_fake, _dir, kubeconfig) = live();
    let mut child = support::kubectl_affinity()
        .args(["snapshot", "--kubeconfig"])
        .arg(&kubeconfig)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // The reader closes before the first byte is written.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
}

/// Items 5 and 6: a refused list leaves a usable snapshot (exit 0), said on standard error as
/// well as at the end of the file, naming exactly the list refused.
#[test]
fn a_refused_list_is_said_on_standard_error() {
    let (fake, dir, kubeconfig) = live();
    fake.forbid("replicasets");
    let file = dir.path().join("saved.yaml");
    let out = support::kubectl_affinity()
        .args(["snapshot", "-o"])
        .arg(&file)
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .output()
        .expect("run");
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        [
            "warning: replicasets left out: list replicasets is forbidden for user tester in \
          context fake; PodTopologySpread's default constraints will derive no selector"
        ],
    );
    let saved = std::fs::read_to_string(&file).expect("saved");
    assert!(saved.contains("\n# replicasets left out"), "{saved}");
}

/// Item 12: the default snapshot holds what scheduling reads and nothing of a pod's
/// environment, command or annotations, says so in its header, and gives exactly the answers
/// `--full` gives (which warns on standard error).
#[test]
fn a_snapshot_keeps_what_scheduling_reads_and_answers_as_the_full_one() {
    let (fake, dir, kubeconfig) = live();
    fake.add(
        "pods",
        serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {
                "name": "db-0", "namespace": "shop", "labels": {"app": "db"},
                "annotations": {
                    "kubectl.kubernetes.io/last-applied-configuration": "{\"DB_PASSWORD\":\"hunter2\"}"
                }
            },
            "spec": {
                "nodeName": "worker-a-1",
                "containers": [{
                    "name": "db", "image": "postgres:16",
                    "command": ["postgres", "--secret-flag=hunter2"],
                    "env": [{"name": "DB_PASSWORD", "value": "hunter2"}],
                    "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}},
                    "ports": [{"containerPort": 5432, "hostPort": 5432}]
                }]
            },
            "status": {"phase": "Running"}
        }),
    );
    let save = |name: &str, extra: &[&str]| {
        let file = dir.path().join(name);
        let out = support::kubectl_affinity()
            .arg("snapshot")
            .args(extra)
            .arg("-o")
            .arg(&file)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        (file, text(&out.stderr))
    };
    let (trimmed, warned) = save("trimmed.yaml", &[]);
    assert_eq!(warned, "");
    let (full, warned) = save("full.yaml", &["--full"]);
    assert!(
        warned.starts_with("warning: --full writes every field"),
        "{warned}"
    );
    let trimmed_text = std::fs::read_to_string(&trimmed).expect("trimmed");
    let full_text = std::fs::read_to_string(&full).expect("full");
    for secret in [
        "hunter2",
        "DB_PASSWORD",
        "last-applied-configuration",
        "command:",
    ] {
        assert!(!trimmed_text.contains(secret), "{secret} in the snapshot");
        assert!(
            full_text.contains(secret),
            "{secret} not in the --full snapshot"
        );
    }
    // The release comes first (`--kubernetes-version` reads it), then the header.
    assert!(
        trimmed_text.starts_with("# kubernetesVersion: "),
        "{trimmed_text}"
    );
    assert!(trimmed_text.contains(
        "\napiVersion: v1\nitems:\n# Written by `kubectl affinity snapshot`: only what scheduling reads."
    ));
    assert!(full_text.contains("\n# Written by `kubectl affinity snapshot --full`"));
    assert!(
        trimmed_text.len() < full_text.len() * 3 / 4,
        "{} of {}",
        trimmed_text.len(),
        full_text.len()
    );
    let questions: &[&[&str]] = &[
        &["explain", "pending-gpu", "-n", "default"],
        &["explain", "api-7d9c", "-n", "default"],
        &["explain", "checkout-6b9d4c7f58-x2v9k", "-n", "shop"],
        &["explain", "db-0", "-n", "shop"],
        &["whatif", "-f", "examples/web-store.yaml"],
        &["whatif", "-f", "examples/fluentd-daemonset.yaml"],
        &["whatif", "-f", "examples/redis-cache.yaml"],
        &["whatif", "-f", "examples/pod-with-pod-affinity.yaml"],
    ];
    for question in questions {
        let answer = |snapshot: &Path| {
            let mut line = question.to_vec();
            line.extend([
                "-o",
                "json",
                "--snapshot",
                snapshot.to_str().expect("UTF-8"),
            ]);
            let out = run(&line);
            assert!(out.status.success(), "{question:?}: {}", text(&out.stderr));
            let mut doc: Value = serde_json::from_slice(&out.stdout).expect("json");
            doc.as_object_mut().expect("object").remove("source");
            doc
        };
        assert_eq!(answer(&trimmed), answer(&full), "{question:?}");
    }
}

/// Items 7 and 5: `snapshot --help` does not offer -n as the pod's namespace, and says what
/// the file holds and the exit status when a list is refused.
#[test]
fn snapshot_help_says_what_applies_to_it() {
    let out = run(&["snapshot", "--help"]);
    assert!(out.status.success());
    let help = text(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        help.contains("Not for snapshot, which saves every namespace"),
        "{help}"
    );
    assert!(help.contains("-n does not apply"), "{help}");
    assert!(help.contains("the exit status is then still 0"), "{help}");
    assert!(help.contains("--full Write every field"), "{help}");
}

/// 60 nodes with 40-character EKS-style names, a third in each zone, some tainted, some small.
fn eks_cluster(dir: &tempfile::TempDir) -> (PathBuf, PathBuf) {
    let nodes: Vec<Value> = (0..60)
        .map(|i| {
            let name = format!("ip-10-0-{}-{}.eu-west-1.compute.internal", i / 10, 100 + i);
            let zone = format!("eu-west-1{}", ["a", "b", "c"][i % 3]);
            let taints = if i % 5 == 0 {
                serde_json::json!([{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}])
            } else {
                serde_json::json!([])
            };
            serde_json::json!({
                "apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": {
                    "kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}},
                "spec": {"taints": taints},
                "status": {"allocatable": {
                    "cpu": if i % 4 == 0 { "1" } else { "8" }, "memory": "32Gi", "pods": "110"}}
            })
        })
        .collect();
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": nodes});
    let snapshot = write(dir, "eks.json", &list.to_string());
    let pod = write(
        dir,
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  \
         affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        \
         nodeSelectorTerms:\n        - matchExpressions: [{key: topology.kubernetes.io/zone, \
         operator: In, values: [eu-west-1a, eu-west-1b]}]\n  \
         containers: [{name: c, image: nginx, resources: {requests: {cpu: '2'}}}]\n",
    );
    (snapshot, pod)
}

/// The table's lines: no header split mid-word, no cell word split across lines, node names
/// never split.
fn assert_readable(table: &str, headers: &[&str], words: &[&str]) {
    let head = table
        .lines()
        .find(|l| l.trim_start().starts_with("NODE "))
        .unwrap_or_else(|| panic!("no header line:\n{table}"));
    for h in headers {
        assert!(
            head.split_whitespace().any(|w| w == *h),
            "{h} split in:\n{table}"
        );
    }
    let body: Vec<&str> = table.lines().filter(|l| l.starts_with(' ')).collect();
    for w in words {
        let prefix = &w[..w.len() / 2];
        for line in &body {
            if line.contains(prefix) {
                assert!(line.contains(w), "{w} split in {line:?}:\n{table}");
            }
        }
    }
}

/// Item 2: long node names at 80 columns are shortened with a marker, never split, and the
/// rule columns keep their headers and words whole, also with --all-nodes.
#[test]
fn long_node_names_keep_the_table_readable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (snapshot, pod) = eks_cluster(&dir);
    for extra in [&[][..], &["--all-nodes"][..]] {
        let mut line = vec!["whatif", "-f", pod.to_str().expect("UTF-8")];
        line.extend(["--snapshot", snapshot.to_str().expect("UTF-8")]);
        line.extend(extra);
        let out = run(&line);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let table = text(&out.stdout);
        assert_readable(
            &table,
            &["NODE", "FITS", "NODE-AFF", "TAINTS", "OTHER", "SCORE"],
            &["dedicated", "zone=eu-west-1c", "short:"],
        );
        assert!(table.contains("\n ip-10-0-0-101  "), "{table}");
        assert!(table.contains("(node names above end in .eu-west-1.compute.internal)"));
        let rows: Vec<&str> = table
            .lines()
            .filter(|l| l.starts_with(" ip-10-0-"))
            .collect();
        assert_eq!(
            rows.len(),
            if extra.is_empty() { 10 } else { 60 },
            "{table}"
        );
        for row in rows {
            assert!(row.chars().count() <= 80, "{row:?}");
        }
    }
}

/// Names whole where nothing cuts them: under --no-headers and -o wide (which scripts read),
/// and `--node` takes the shortened name the table shows.
#[test]
fn node_names_are_whole_for_scripts_and_a_prefix_names_a_node() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (snapshot, pod) = eks_cluster(&dir);
    let base = ["whatif", "-f", pod.to_str().expect("UTF-8")];
    let snap = ["--snapshot", snapshot.to_str().expect("UTF-8")];
    for extra in [&["--no-headers"][..], &["-o", "wide"][..]] {
        let mut line = base.to_vec();
        line.extend(snap);
        line.extend(extra);
        let out = run(&line);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let table = text(&out.stdout);
        assert!(
            table.contains("ip-10-0-0-101.eu-west-1.compute.internal "),
            "{extra:?}:\n{table}"
        );
        assert!(!table.contains('…'), "{table}");
    }
    let mut line = base.to_vec();
    line.extend(snap);
    line.extend(["--node", "ip-10-0-0-101"]);
    let out = run(&line);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("\nNode ip-10-0-0-101.eu-west-1.compute.internal"),
        "{}",
        text(&out.stdout)
    );
    // A replica table's ties: three named, the rest counted, on every line that says them.
    let mut line = vec!["whatif", "-f", "examples/redis-cache.yaml"];
    line.extend(snap);
    let out = run(&line);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    for line in [
        " 0        redis-cache-<pod-0>  ip-10-0-0-101.eu-west-1.compute.internal  697    35    \
         top score, tied with",
        "Best nodes (tie, the scheduler picks one at random): \
         ip-10-0-0-101.eu-west-1.compute.internal, ip-10-0-0-102.eu-west-1.compute.internal, \
         ip-10-0-0-103.eu-west-1.compute.internal and 33 more",
    ] {
        assert!(
            table.lines().any(|l| l.trim_end() == line),
            "{line:?} in\n{table}"
        );
    }
    assert!(table.lines().any(|l| l.trim() == "and 32 more"), "{table}");
    assert!(table.lines().count() < 60, "{table}");
    let mut line = base.to_vec();
    line.extend(snap);
    line.extend(["--node", "ip-10-0-0-10"]);
    let out = run(&line);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("node \"ip-10-0-0-10\" (--node) names no node of snapshot"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stderr).contains(
            "starts several: ip-10-0-0-100.eu-west-1.compute.internal, \
             ip-10-0-0-101.eu-west-1.compute.internal, ip-10-0-0-102.eu-west-1.compute.internal \
             and 7 more; give more of the name"
        ),
        "{}",
        text(&out.stderr)
    );
}

/// Item 1: a terminal that reports 0x0 (`script -qc`) gets an 80-column table, not
/// one-character columns.
#[test]
fn a_terminal_without_a_size_gets_80_columns() {
    let root = env!("CARGO_MANIFEST_DIR");
    let command = format!(
        "'{}' whatif -f '{root}/examples/web-store.yaml' --snapshot '{root}/examples/cluster.yaml'",
        env!("CARGO_BIN_EXE_kubectl-affinity")
    );
    // `script` runs the command on a new pseudo-terminal, which reports 0 rows and columns.
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("NO_COLOR", "1")
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .stdin(Stdio::null())
        .output()
        .expect("script (util-linux) runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout).replace('\r', "");
    assert_readable(
        &table,
        &["NODE", "FITS", "TAINTS", "POD-AFF", "ANTI", "SCORE"],
        &[],
    );
    for line in table
        .lines()
        .filter(|l| l.starts_with(" worker-") || l.starts_with(" NODE"))
    {
        assert!(line.chars().count() <= 80, "{line:?}");
    }
}

/// Item 8: FailedScheduling events saved in the snapshot (`kubectl get events -A -o yaml`) are
/// shown as live shows them: the latest, marked when it differs from the computed message.
#[test]
fn failed_scheduling_events_in_a_snapshot_are_shown() {
    let dir = tempfile::tempdir().expect("tempdir");
    let event = |message: &str, last: &str| {
        format!(
            "- apiVersion: v1\n  kind: Event\n  metadata: {{name: pending-gpu.{last}, namespace: default}}\n  \
             involvedObject: {{kind: Pod, name: pending-gpu, namespace: default}}\n  \
             reason: FailedScheduling\n  type: Warning\n  message: {}\n  \
             lastTimestamp: '{last}'\n  count: 4\n  source: {{component: default-scheduler}}\n",
            serde_json::to_string(message).expect("json string")
        )
    };
    let demo = demo();
    let with_events = |message: &str| {
        demo.replacen(
            "items:\n",
            &format!(
                "items:\n{}{}",
                event(
                    "0/7 nodes are available: an older message.",
                    "2025-01-01T00:00:00Z"
                ),
                event(message, "2025-01-02T00:00:00Z")
            ),
            1,
        )
    };
    let computed: Value = {
        let out = run(&[
            "explain",
            "pending-gpu",
            "-n",
            "default",
            "--snapshot",
            "examples/cluster.yaml",
            "-o",
            "json",
        ]);
        serde_json::from_slice(&out.stdout).expect("json")
    };
    assert!(
        computed.get("schedulerEvent").is_none_or(Value::is_null),
        "{computed}"
    );
    let message = computed["summary"]["failedSchedulingMessage"]
        .as_str()
        .expect("message")
        .to_string();
    for (scheduler_said, same) in [
        (message.as_str(), true),
        ("0/7 nodes are available: 7 Too many pods.", false),
    ] {
        let snapshot = write(&dir, "with-events.yaml", &with_events(scheduler_said));
        let snapshot = snapshot.to_str().expect("utf-8");
        let out = run(&[
            "explain",
            "pending-gpu",
            "-n",
            "default",
            "--snapshot",
            snapshot,
            "-o",
            "json",
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(doc["schedulerEvent"]["message"], scheduler_said, "{doc}");
        assert_eq!(doc["schedulerEvent"]["count"], 4);
        assert_eq!(doc["schedulerEvent"]["matchesComputed"], same);
        let out = run(&[
            "explain",
            "pending-gpu",
            "-n",
            "default",
            "--snapshot",
            snapshot,
        ]);
        let table = text(&out.stdout);
        let verdict = if same {
            "same as computed"
        } else {
            "DIFFERS from computed, see note"
        };
        assert!(
            table.contains(&format!(
                "Scheduler's last event ({verdict}): {scheduler_said}"
            )),
            "{table}"
        );
    }
    // The same snapshot in JSON (`kubectl get -o json`) shows the same event.
    let said = "0/7 nodes are available: 7 Too many pods.";
    let list: Value = serde_saphyr::from_str(&with_events(said)).expect("YAML");
    let snapshot = write(
        &dir,
        "with-events.json",
        &serde_json::to_string(&list).expect("JSON"),
    );
    let out = run(&[
        "explain",
        "pending-gpu",
        "-n",
        "default",
        "--snapshot",
        snapshot.to_str().expect("utf-8"),
        "-o",
        "json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["schedulerEvent"]["message"], said, "{doc}");
    assert_eq!(doc["schedulerEvent"]["matchesComputed"], false);
}

/// Item 9: the drill-down says "PreFilter returned Skip" once per node, explains
/// UnschedulableAndUnresolvable once, gives memory in human units and the table's word for a
/// node that fits; with colour on, the table's cells are coloured too.
#[test]
fn the_drill_down_and_the_cells_read_plainly() {
    let out = run(&[
        "explain",
        "pending-gpu",
        "-n",
        "default",
        "--snapshot",
        "examples/cluster.yaml",
        "--node",
        "gpu-c-1",
        "--node",
        "control-plane-1",
        "--node",
        "worker-a-1",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = text(&out.stdout);
    assert_eq!(page.matches("PreFilter returned Skip").count(), 3, "{page}");
    assert_eq!(
        page.matches("(UnschedulableAndUnresolvable: ").count(),
        1,
        "{page}"
    );
    assert!(page.contains("15.3Gi     15.1Gi  fits"), "{page}");
    assert!(!page.contains("Ki "), "{page}");
    let out = run(&[
        "whatif",
        "-f",
        "examples/pod-with-node-affinity.yaml",
        "--snapshot",
        "examples/cluster.yaml",
        "--node",
        "worker-a-1",
    ]);
    let page = text(&out.stdout);
    assert!(page.contains("Node worker-a-1: ✓ yes"), "{page}");
    assert!(!page.contains("✓ fits"), "{page}");
    let out = support::kubectl_affinity()
        .env_remove("NO_COLOR")
        .args([
            "whatif",
            "-f",
            "examples/web-store.yaml",
            "--snapshot",
            "examples/cluster.yaml",
            "--color",
            "always",
        ])
        .output()
        .expect("run");
    let table = text(&out.stdout);
    let row = table
        .lines()
        .find(|l| l.contains("worker-a-1"))
        .unwrap_or_else(|| panic!("{table}"));
    // Red marks in the row's cells, not only in the headline.
    assert!(row.contains("\u{1b}[38;5;9m ✗ no "), "{row:?}");
    assert!(row.contains("\u{1b}[38;5;9m ✗ 1 pod here "), "{row:?}");
}

/// Item 9: a PreferNoSchedule taint the pod does not tolerate shows what it costs, and the
/// table says why the FailedScheduling counts differ from its ✗ marks.
#[test]
fn the_table_says_what_a_soft_taint_costs_and_how_failures_are_counted() {
    let out = run(&[
        "explain",
        "api-7d9c",
        "-n",
        "default",
        "--snapshot",
        "examples/cluster.yaml",
    ]);
    let table = text(&out.stdout);
    let row = table
        .lines()
        .find(|l| l.starts_with(" worker-b-2 "))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(row.contains("✓ costs 300:"), "{table}");
    let out = run(&[
        "whatif",
        "-f",
        "examples/web-store.yaml",
        "--snapshot",
        "examples/cluster.yaml",
    ]);
    let table = text(&out.stdout);
    assert!(
        table.contains(
            "(FailedScheduling counts each node once, under the first Filter that rejects it"
        ),
        "{table}"
    );
}

/// Issue 61, item 5: the help names the command that saves every kind a snapshot needs.
#[test]
fn the_snapshot_flag_names_the_snapshot_command() {
    let out = run(&["explain", "--help"]);
    assert!(out.status.success());
    let help = text(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        help.contains(
            "one written by `kubectl affinity snapshot`, which saves every kind the rules read"
        ),
        "{help}"
    );
    assert!(
        help.contains("poddisruptionbudgets,priorityclasses for preemption"),
        "{help}"
    );
}

/// Issue 61, item 5: a PriorityClass a snapshot does not hold is said as not read, with what
/// to do, not refused in the API server's words.
#[test]
fn a_priority_class_not_in_the_snapshot_is_said_as_not_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pod = write(
        &dir,
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  \
         priorityClassName: high\n  containers: [{name: c, image: nginx}]\n",
    );
    let out = run(&[
        "whatif",
        "-f",
        pod.to_str().expect("utf-8"),
        "--snapshot",
        "examples/cluster.yaml",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "priorityClassName \"high\": no PriorityClass is in snapshot examples/cluster.yaml \
             (the kind was not read), so the pod's priority cannot be resolved; add \
             priorityclasses to it (`kubectl affinity snapshot` saves them), or leave \
             priorityClassName out"
        ),
        "{err}"
    );
    assert!(!err.contains("was found"), "{err}");
}

/// Issue 61, item 5: pod-level requests under 1.33 (PodLevelResources off) are said to be
/// ignored; under 1.34 the note names 1.34, not 1.35.
#[test]
fn the_pod_level_note_says_what_the_release_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pod = write(
        &dir,
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  \
         resources: {requests: {cpu: '1', memory: 1Gi}}\n  \
         containers: [{name: c, image: nginx}]\n",
    );
    let notes = |version: &str| -> Vec<String> {
        let out = run(&[
            "whatif",
            "-f",
            pod.to_str().expect("utf-8"),
            "--snapshot",
            "examples/cluster.yaml",
            "--kubernetes-version",
            version,
            "-o",
            "json",
        ]);
        let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
        doc["notes"]
            .as_array()
            .expect("notes")
            .iter()
            .filter_map(|n| n.as_str())
            .filter(|n| n.contains("pod-level requests (spec.resources)"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        notes("1.33"),
        [
            "the pod sets pod-level requests (spec.resources), which kube-scheduler 1.33 ignores \
          (PodLevelResources is off before 1.34): every plugin counts the containers' requests"
        ]
    );
    let n = notes("1.34");
    assert_eq!(n.len(), 1, "{n:?}");
    assert!(
        n[0].contains("as kube-scheduler 1.34 builds that scorer"),
        "{n:?}"
    );
}

/// Issue 61, item 5: a selector that selects nothing is kubectl's "No resources found" on
/// standard error and exit 0; a workload with no pod is kubectl's NotFound, exit 1.
#[test]
fn explain_of_nothing_answers_as_kubectl() {
    let out = run(&[
        "explain",
        "-l",
        "app=nosuch",
        "-n",
        "default",
        "--snapshot",
        "examples/cluster.yaml",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        "No resources found in default namespace.\n"
    );
    assert!(out.stdout.is_empty());
    let out = run(&[
        "explain",
        "deploy/nosuch",
        "-n",
        "default",
        "--snapshot",
        "examples/cluster.yaml",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).starts_with(
            "error: Error from server (NotFound): deployments.apps \"nosuch\" not found: no pod \
             of namespace default in snapshot examples/cluster.yaml belongs to it"
        ),
        "{}",
        text(&out.stderr)
    );
}

/// Issue 61, item 5: `--scale` schedules the replicas added, and the header says so.
#[test]
fn the_scale_header_counts_the_replicas_added() {
    let out = run(&[
        "whatif",
        "--scale",
        "deploy/web=5",
        "-n",
        "shop",
        "--snapshot",
        "tests/scale/deployment.yaml",
    ]);
    assert!(
        text(&out.stdout)
            .starts_with("Deployment shop/web: 2 replicas added, 1 placed, 1 Pending\n"),
        "{}",
        text(&out.stdout)
    );
}
