//! The live path end to end: the binary, run as a user runs it, reaches the in-process fake API
//! server (`kubectl_affinity_testkit::fake_api`) through a kubeconfig file in a temporary
//! directory. The offline answers it is compared with run in this process as the binary runs
//! them.

// Tests may unwrap: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

use crate::support;
use crate::support::fake_api::{self, FakeApi, TOKEN, user_token, write_kubeconfig};

struct Env {
    fake: FakeApi,
    dir: tempfile::TempDir,
    kubeconfig: PathBuf,
}

fn setup() -> Env {
    setup_ns(None)
}

fn setup_ns(namespace: Option<&str>) -> Env {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fake = FakeApi::start(&root.join("examples/cluster.yaml"));
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = fake.kubeconfig(dir.path(), namespace);
    Env {
        fake,
        dir,
        kubeconfig,
    }
}

/// The binary with a clean environment: no kubeconfig but the one given, no in-cluster set-up.
fn bin(home: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kubectl-affinity"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("HOME", home)
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST");
    c
}

impl Env {
    fn run(&self, args: &[&str]) -> Output {
        self.run_with(&self.kubeconfig, args)
    }

    fn run_with(&self, kubeconfig: &Path, args: &[&str]) -> Output {
        bin(self.dir.path())
            .args(args)
            .arg("--kubeconfig")
            .arg(kubeconfig)
            .output()
            .unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.extend(["-o", "json"]);
        let out = self.run(&all);
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// How many lists of `path` were started: its requests without a continue token.
    fn lists_started(&self, path: &str) -> usize {
        self.fake
            .seen()
            .iter()
            .filter(|s| s.path == path && !s.query.contains("continue="))
            .count()
    }

    /// Every request so far was a GET.
    fn assert_read_only(&self) {
        let seen = self.fake.seen();
        assert!(!seen.is_empty());
        for s in &seen {
            assert_eq!(s.method, "GET", "{} {}?{}", s.method, s.path, s.query);
        }
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs with `--snapshot examples/cluster.yaml` (no cluster at all), in this process as the
/// binary runs it.
fn offline_json(args: &[&str]) -> Value {
    let mut line = args.to_vec();
    line.extend(["--snapshot", "examples/cluster.yaml", "-o", "json"]);
    let out = support::run(&line);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Parses one or more concatenated JSON documents (whatif prints one per manifest).
fn documents(bytes: &[u8]) -> Vec<Value> {
    serde_json::Deserializer::from_slice(bytes)
        .into_iter::<Value>()
        .map(|d| d.unwrap())
        .collect()
}

fn without_source(mut v: Value) -> Value {
    v.as_object_mut().unwrap().remove("source");
    v
}

fn examples() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".yaml") && f != "cluster.yaml")
        .collect();
    files.sort();
    files
}

#[test]
fn live_answers_equal_the_snapshot_answers() {
    let env = setup();
    // Small pages so that every list goes through continue tokens.
    let paging = ["--chunk-size", "4"];
    for example in examples() {
        let file = format!("examples/{example}");
        let mut args = vec!["whatif", "-f", file.as_str(), "-o", "json"];
        args.extend(paging);
        let out = env.run(&args);
        assert!(out.status.success(), "{example}: {}", stderr(&out));
        let live = documents(&out.stdout);
        let out = support::run(&[
            "whatif",
            "-f",
            &file,
            "-o",
            "json",
            "--snapshot",
            "examples/cluster.yaml",
        ]);
        assert!(out.status.success(), "{example}: {}", stderr(&out));
        let offline = documents(&out.stdout);
        assert_eq!(live.len(), offline.len(), "{example}");
        for (l, o) in live.into_iter().zip(offline) {
            assert!(
                l["source"]
                    .as_str()
                    .unwrap()
                    .starts_with("context fake (http://127.0.0.1:"),
                "{}",
                l["source"]
            );
            assert_eq!(o["source"], "snapshot examples/cluster.yaml");
            assert_eq!(without_source(l), without_source(o), "{example}");
        }
    }
    for pod in ["pending-gpu", "api-7d9c"] {
        let mut args = vec!["explain", pod, "-n", "default"];
        args.extend(paging);
        let live = env.json(&args);
        let offline = offline_json(&["explain", pod, "-n", "default"]);
        assert_eq!(
            without_source(live),
            without_source(offline),
            "explain {pod}"
        );
    }
    env.assert_read_only();
    let seen = env.fake.seen();
    // Paged, with the scheduler's own pod filter, and no namespaces list (no term needs it).
    assert!(
        seen.iter()
            .any(|s| s.query.contains("continue=fake-continue-"))
    );
    assert!(seen.iter().filter(|s| s.path == "/api/v1/pods").all(|s| {
        s.query.contains("limit=4")
            && s.query
                .contains("fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed")
    }));
    assert!(!seen.iter().any(|s| s.path == "/api/v1/namespaces"));
}

/// A live read keeps the node images of the pod as got before the lists, and the pod is
/// evaluated as listed: when its image changes in between, the cluster is still read once,
/// ImageLocality is shown as not evaluated (never scored against images the nodes were not
/// read for), and every filter is the one for the pod as listed, running or pending.
#[test]
fn a_pod_whose_image_changes_between_get_and_list_is_read_once() {
    // On 2 of the 7 nodes, so ImageLocality would score the feasible nodes apart.
    let image = "registry.k8s.io/coredns/coredns:v1.11.3";
    // A running pod (an existing pod of the lists) and a pending one (not an existing pod).
    for (namespace, name, scored) in [
        ("default", "auth-5c8f9d7b6-m2xkq", true),
        ("shop", "checkout-6b9d4c7f58-x2v9k", false),
    ] {
        let env = setup();
        let text = std::fs::read_to_string("examples/cluster.yaml").unwrap();
        let mut docs = kubectl_affinity::state::parse_documents(&text, "cluster.yaml").unwrap();
        let mut changed = None;
        for item in docs
            .iter_mut()
            .flat_map(|d| d["items"].as_array_mut().into_iter().flatten())
        {
            if item["metadata"]["name"] == name {
                item["spec"]["containers"][0]["image"] = json!(image);
                changed = Some(item.clone());
            }
        }
        let changed = changed.expect(name);
        env.fake.change_after_get("pods", namespace, name, changed);
        let live = env.json(&["explain", name, "-n", namespace]);
        let listed = env.dir.path().join("listed.json");
        std::fs::write(&listed, serde_json::to_vec(&docs).unwrap()).unwrap();
        let listed = listed.to_str().unwrap();
        let out = support::run(&[
            "explain",
            name,
            "-n",
            namespace,
            "-o",
            "json",
            "--snapshot",
            listed,
        ]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let offline: Value = serde_json::from_slice(&out.stdout).unwrap();
        let filters = |doc: &Value| -> Vec<(Value, Value)> {
            let mut v: Vec<(Value, Value)> = doc["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| (n["name"].clone(), n["filters"].clone()))
                .collect();
            v.sort_by_key(|(n, _)| n.to_string());
            v
        };
        assert_eq!(filters(&live), filters(&offline), "{name}");
        let image_scores: Vec<&Value> = live["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|n| n["scores"].as_array().into_iter().flatten())
            .filter(|s| s["plugin"] == "ImageLocality")
            .collect();
        assert_eq!(!image_scores.is_empty(), scored, "{name}: {image_scores:?}");
        for s in image_scores {
            assert_eq!(s["evaluated"], false, "{name}: {s}");
            assert!(
                s["note"].as_str().unwrap().contains("images changed"),
                "{name}: {s}"
            );
        }
        for list in ["/api/v1/nodes", "/api/v1/pods"] {
            assert_eq!(env.lists_started(list), 1, "{name}: {list} read once");
        }
        env.assert_read_only();
    }
}

/// Every list of a run is started once: the pod's own GET, then one pass over the cluster.
#[test]
fn each_list_is_requested_once() {
    let env = setup();
    let runs: [&[&str]; 3] = [
        &["explain", "api-7d9c", "-n", "default"],
        &["explain", "pending-gpu", "-n", "default"],
        &["whatif", "-f", "examples/web-store.yaml"],
    ];
    for args in runs {
        env.fake.clear_seen();
        env.json(args);
        let seen = env.fake.seen();
        let mut started: Vec<&str> = seen
            .iter()
            .filter(|s| !s.query.contains("continue="))
            .map(|s| s.path.as_str())
            .collect();
        assert!(started.contains(&"/api/v1/nodes"), "{args:?}: {started:?}");
        started.sort();
        let before = started.len();
        started.dedup();
        assert_eq!(before, started.len(), "{args:?}: a request was repeated");
    }
}

/// The inputs are checked before the cluster is read: a bad `--scheduler-config` or
/// `--feature-gates` fails with no list made (explain gets its pod first, to know which
/// scheduler's profile applies; whatif reads nothing at all).
#[test]
fn bad_scheduler_inputs_fail_before_any_list() {
    let env = setup();
    let cfg = env.dir.path().join("sched.yaml");
    std::fs::write(
        &cfg,
        "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
    )
    .unwrap();
    let cfg = cfg.to_str().unwrap();
    let runs: [(&[&str], &str); 4] = [
        (
            &[
                "whatif",
                "-f",
                "examples/web-store.yaml",
                "--scheduler-config",
                cfg,
            ],
            "is not supported",
        ),
        (
            &[
                "explain",
                "api-7d9c",
                "-n",
                "default",
                "--scheduler-config",
                cfg,
            ],
            "is not supported",
        ),
        (
            &[
                "whatif",
                "-f",
                "examples/web-store.yaml",
                "--feature-gates",
                "Foo=maybe",
            ],
            "invalid value \"maybe\" for Foo",
        ),
        (
            &[
                "explain",
                "api-7d9c",
                "-n",
                "default",
                "--scheduler-config",
                "missing.yaml",
            ],
            "missing.yaml",
        ),
    ];
    for (args, message) in runs {
        env.fake.clear_seen();
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        let seen = env.fake.seen();
        let lists: Vec<&str> = seen
            .iter()
            .filter(|s| s.path != "/api/v1/namespaces/default/pods/api-7d9c")
            .map(|s| s.path.as_str())
            .collect();
        assert!(lists.is_empty(), "{args:?}: {lists:?}");
        if args[0] == "whatif" {
            assert!(seen.is_empty(), "{args:?}: {seen:?}");
        }
    }
}

/// kubectl reads the fake as it reads an API server. Without kubectl the test fails, as
/// tests/it/completions.rs does: a skip would pass unseen.
#[test]
fn kubectl_itself_reads_the_fake() {
    let version = Command::new("kubectl")
        .args(["version", "--client"])
        .output()
        .unwrap_or_else(|e| {
            panic!("kubectl could not be run ({e}); install kubectl v1.26 or newer on PATH")
        });
    assert!(version.status.success());
    let env = setup();
    // client-go does not send a bearer token to a plain-HTTP server.
    env.fake.allow_anonymous();
    let kubectl = |args: &[&str]| {
        let out = Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(&env.kubeconfig)
            .args(args)
            .env("HOME", env.dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "kubectl {args:?}: {}", stderr(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let nodes = kubectl(&["get", "nodes"]);
    assert!(
        nodes.contains("NAME") && nodes.contains("worker-a-1"),
        "{nodes}"
    );
    assert!(nodes.contains("SchedulingDisabled"), "{nodes}");
    let pods = kubectl(&["get", "pods", "-A", "--chunk-size", "5"]);
    assert!(
        pods.contains("NAMESPACE") && pods.contains("kube-system"),
        "{pods}"
    );
    assert!(
        pods.contains("pending-gpu") && pods.contains("prometheus-k8s-0"),
        "{pods}"
    );
    let one = kubectl(&["get", "pod", "api-7d9c", "-n", "default", "-o", "json"]);
    let one: Value = serde_json::from_str(&one).unwrap();
    assert_eq!(one["spec"]["nodeName"], "worker-b-1");
    let selected = kubectl(&[
        "get",
        "pods",
        "-A",
        "-l",
        "app.kubernetes.io/name in (node-exporter)",
        "--field-selector",
        "spec.nodeName=worker-a-1",
        "-o",
        "name",
    ]);
    assert_eq!(selected.trim(), "pod/node-exporter-6rdzv", "{selected}");
    env.assert_read_only();
}

#[test]
fn snapshot_writes_what_snapshot_mode_reads() {
    let env = setup();
    let file = env.dir.path().join("saved.yaml");
    let out = env.run(&[
        "snapshot",
        "-o",
        file.to_str().unwrap(),
        "--chunk-size",
        "7",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.starts_with("# kubernetesVersion: v1.35.0\napiVersion: v1\nitems:\n"),
        "{}",
        &text[..80]
    );
    assert!(!text.contains("managedFields"));
    // Standard output when -o is absent.
    let out = env.run(&["snapshot"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), text);
    // The saved file gives the same answer as the cluster it came from.
    let live = env.json(&["whatif", "-f", "examples/web-store.yaml"]);
    let out = support::run(&[
        "whatif",
        "-f",
        "examples/web-store.yaml",
        "-o",
        "json",
        "--snapshot",
        file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let saved: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(without_source(live), without_source(saved));
    env.assert_read_only();
}

/// `explain` of the example's pending pod, in pages of 5 pods.
const PAGED_EXPLAIN: [&str; 6] = [
    "explain",
    "pending-gpu",
    "-n",
    "default",
    "--chunk-size",
    "5",
];

/// The live answer read in pages of 5 pods equals the snapshot's.
fn assert_paged_answer_is_the_snapshots(env: &Env) {
    let live = env.json(&PAGED_EXPLAIN);
    let offline = offline_json(&["explain", "pending-gpu", "-n", "default"]);
    assert_eq!(without_source(live), without_source(offline));
}

#[test]
fn an_expired_continue_token_restarts_the_list() {
    let env = setup();
    env.fake.expire_continue("pods", 2);
    assert_paged_answer_is_the_snapshots(&env);
    assert_eq!(env.lists_started("/api/v1/pods"), 3, "two restarts");

    env.fake.expire_continue("pods", 100);
    let out = env.run(&PAGED_EXPLAIN);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("list pods in all namespaces"), "{err}");
    assert!(
        err.contains("continue token expired 4 times, 410 Gone"),
        "{err}"
    );
    assert!(err.contains("--chunk-size"), "{err}");
}

/// Nodes, pods and workloads are listed at once: pod pages that arrive before the nodes
/// wait for them, and a pod list that restarts before then drops what it gathered.
#[test]
fn pod_pages_that_arrive_before_the_nodes_wait_for_them() {
    let env = setup();
    env.fake.fail("nodes", fake_api::SLOW, 1);
    env.fake.expire_continue("pods", 1);
    assert_paged_answer_is_the_snapshots(&env);
    let seen = env.fake.seen();
    let nodes = seen
        .iter()
        .find(|s| s.path == "/api/v1/nodes")
        .expect("nodes listed");
    let pod_pages: Vec<_> = seen.iter().filter(|s| s.path == "/api/v1/pods").collect();
    // The first list, its restart, and the pages after it.
    assert!(pod_pages.len() > 3, "{} pod pages", pod_pages.len());
    for p in pod_pages {
        assert!(
            p.at < nodes.at + fake_api::SLOW_BY,
            "a pod page asked for after the nodes answered: {}",
            p.query
        );
    }
}

/// A page's continue token is read from its first bytes: the next page is asked for while
/// the rest of this one downloads, not once it has all come (against a distant server, a
/// round trip per page saved).
#[test]
fn the_next_page_is_asked_for_while_a_page_downloads() {
    let env = setup();
    env.fake.fail_pages("pods", fake_api::STALLED_BODY, 1);
    assert_paged_answer_is_the_snapshots(&env);
    let seen = env.fake.seen();
    let pages: Vec<_> = seen.iter().filter(|s| s.path == "/api/v1/pods").collect();
    assert!(pages.len() > 2, "{} pod pages", pages.len());
    // The second page's body trickles in after its first half; the third is asked for
    // meanwhile.
    assert!(
        pages[2].at < pages[1].at + fake_api::SLOW_BY,
        "the third page asked for {:?} after the second",
        pages[2].at - pages[1].at
    );
}

/// `--request-timeout` bounds a whole answer, its body included, in protobuf (read past its
/// continue token while the next page is asked for) as in JSON: a body that keeps trickling
/// in, each piece well within the timeout, still stops at it.
#[test]
fn a_body_that_stalls_past_the_request_timeout_is_named() {
    for json_only in [false, true] {
        let env = setup();
        if json_only {
            env.fake.json_only();
        }
        env.fake.fail_pages("pods", fake_api::STALLED_BODY, 1);
        let mut args = PAGED_EXPLAIN.to_vec();
        args.extend(["--request-timeout", "500ms"]);
        let start = std::time::Instant::now();
        let out = env.run(&args);
        assert!(
            start.elapsed() < fake_api::SLOW_BY,
            "json only: {json_only}"
        );
        live_error(
            &out,
            &[
                &format!(
                    "error: list pods in all namespaces: no answer from {}/ within 500ms \
                     (--request-timeout)",
                    env.fake.url()
                ),
                "retry with a longer --request-timeout",
            ],
        );
    }
}

#[test]
fn transient_errors_are_retried() {
    let env = setup();
    env.fake.fail("nodes", 429, 1);
    env.fake.fail("pods", 500, 1);
    env.fake.fail("pods", 503, 1);
    let live = env.json(&["explain", "api-7d9c", "-n", "default"]);
    let offline = offline_json(&["explain", "api-7d9c", "-n", "default"]);
    assert_eq!(without_source(live), without_source(offline));

    // Not forever: a server that keeps failing is reported with its answer.
    env.fake.fail("nodes", 500, 100);
    let out = env.run(&["explain", "api-7d9c", "-n", "default"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("list nodes: the API server answered 500 InternalError"),
        "{err}"
    );
    assert!(err.contains("retry later"), "{err}");
}

#[test]
fn forbidden_nodes_or_pods_is_an_error_naming_the_permission() {
    let env = setup();
    env.fake.forbid("nodes");
    let out = env.run(&["whatif", "-f", "examples/web-store.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with("error: list nodes: forbidden for user tester in context fake"),
        "{err}"
    );
    assert!(
        err.contains("RBAC permission to list nodes (cluster scope)"),
        "{err}"
    );
    assert!(
        err.contains("kubectl auth can-i list nodes --context fake"),
        "{err}"
    );
    assert!(!err.contains(TOKEN));

    let env = setup();
    env.fake.forbid("pods");
    let out = env.run(&["whatif", "-f", "examples/web-store.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("list pods in all namespaces: forbidden"),
        "{err}"
    );
    assert!(err.contains("kubectl auth can-i list pods -A"), "{err}");

    // explain gets the pod first: a forbidden get says so, in the pod's namespace.
    let out = env.run(&["explain", "api-7d9c", "-n", "default"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("get pods default/api-7d9c: forbidden"),
        "{err}"
    );
    assert!(
        err.contains("kubectl auth can-i get pods -n default"),
        "{err}"
    );
}

/// A pod whose anti-affinity selects namespaces by label: it needs the namespaces list.
fn namespace_selector_pod(dir: &Path) -> PathBuf {
    let pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "spread-from-monitoring", "namespace": "default", "labels": {"app": "x"}},
        "spec": {
            "containers": [{"name": "c", "image": "pause"}],
            "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchLabels": {"app.kubernetes.io/name": "prometheus"}},
                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}},
                "topologyKey": "kubernetes.io/hostname"
            }]}}
        }
    });
    let path = dir.join("nssel.json");
    std::fs::write(&path, pod.to_string()).unwrap();
    path
}

fn filter<'a>(doc: &'a Value, node: &str, plugin: &str) -> &'a Value {
    doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == node)
        .and_then(|n| n["filters"].as_array())
        .and_then(|f| f.iter().find(|f| f["plugin"] == plugin))
        .unwrap()
}

/// An existing pod's term with a namespaceSelector needs the namespaces' labels as much as
/// the incoming pod's does (symmetry): they are read for it too, and only for it.
#[test]
fn namespaces_are_read_for_an_existing_pods_term_that_needs_them() {
    let env = setup();
    env.json(&["explain", "api-7d9c", "-n", "default"]);
    let listed = |env: &Env| {
        env.fake
            .seen()
            .iter()
            .any(|s| s.path == "/api/v1/namespaces")
    };
    assert!(!listed(&env), "no term needs them yet");
    env.fake.add(
        "pods",
        json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "guard", "namespace": "batch", "labels": {"app": "guard"}},
            "spec": {
                "nodeName": "worker-c-1",
                "containers": [{"name": "c", "image": "guard:1"}],
                "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                    "labelSelector": {"matchLabels": {"app": "api"}},
                    "namespaceSelector": {"matchLabels": {"team": "shop"}},
                    "topologyKey": "kubernetes.io/hostname"
                }]}}
            },
            "status": {"phase": "Running"}
        }),
    );
    env.fake.clear_seen();
    env.json(&["explain", "api-7d9c", "-n", "default"]);
    assert!(listed(&env), "the existing pod's term needs them");
    env.assert_read_only();
}

#[test]
fn namespaces_are_read_only_when_a_term_needs_them_and_unknown_when_forbidden() {
    let env = setup();
    let pod = namespace_selector_pod(env.dir.path());
    let pod = pod.to_str().unwrap();
    let live = env.json(&["whatif", "-f", pod]);
    let offline = offline_json(&["whatif", "-f", pod]);
    assert_eq!(without_source(live.clone()), without_source(offline));
    assert!(
        env.fake
            .seen()
            .iter()
            .any(|s| s.path == "/api/v1/namespaces")
    );
    // prometheus-k8s-0 (monitoring) runs on worker-b-1: the anti-affinity rejects that node.
    assert_eq!(
        filter(&live, "worker-b-1", "InterPodAffinity")["pass"],
        false
    );

    env.fake.forbid("namespaces");
    let doc = env.json(&["whatif", "-f", pod]);
    let notes = doc["notes"].to_string();
    assert!(
        notes.contains("cannot list namespaces (403 Forbidden"),
        "{notes}"
    );
    assert!(notes.contains("never as passed"), "{notes}");
    for node in ["worker-b-1", "worker-a-1"] {
        let f = filter(&doc, node, "InterPodAffinity");
        assert_eq!(f["pass"], Value::Null, "{node}: {f}");
        assert_eq!(f["evaluated"], false);
    }
    assert_eq!(doc["summary"]["feasible"], 0);
    assert!(
        doc["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["verdict"] != "Feasible")
    );
}

#[test]
fn a_missing_pod_names_the_context() {
    let env = setup();
    let out = env.run(&["explain", "nope", "-n", "shop"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with("error: pod shop/nope not found in context fake;"),
        "{err}"
    );
}

#[test]
fn the_default_namespace_comes_from_the_context() {
    let env = setup_ns(Some("batch"));
    let doc = env.json(&["whatif", "-f", "examples/pod-with-node-affinity.yaml"]);
    assert_eq!(doc["pod"]["namespace"], "batch");
    // -n still wins, and explain looks the pod up there.
    let doc = env.json(&["explain", "pending-gpu", "-n", "default"]);
    assert_eq!(doc["pod"]["name"], "pending-gpu");
    // Offline too, when a kubeconfig is readable.
    let out = bin(env.dir.path())
        .args([
            "whatif",
            "-f",
            "examples/pod-with-node-affinity.yaml",
            "-o",
            "json",
        ])
        .args(["--snapshot", "examples/cluster.yaml"])
        .env("KUBECONFIG", &env.kubeconfig)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["pod"]["namespace"], "batch");
}

#[test]
fn kubeconfig_env_is_a_merged_list_and_missing_files_are_skipped() {
    let env = setup_ns(Some("shop"));
    let other = env.dir.path().join("second");
    std::fs::write(
        &other,
        "apiVersion: v1\nkind: Config\ncurrent-context: elsewhere\ncontexts: []\nclusters: []\nusers: []\n",
    )
    .unwrap();
    let list = std::env::join_paths([
        env.dir.path().join("does-not-exist"),
        env.kubeconfig.clone(),
        other,
    ])
    .unwrap();
    let out = bin(env.dir.path())
        .args([
            "whatif",
            "-f",
            "examples/pod-with-node-affinity.yaml",
            "-o",
            "json",
        ])
        .env("KUBECONFIG", list)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["pod"]["namespace"], "shop");
    assert!(doc["source"].as_str().unwrap().starts_with("context fake"));
}

#[test]
fn impersonation_flags_are_sent() {
    let env = setup();
    env.json(&[
        "whatif",
        "-f",
        "examples/web-store.yaml",
        "--as",
        "jane",
        "--as-group",
        "devs",
    ]);
    let seen = env.fake.seen();
    assert!(
        seen.iter()
            .all(|s| s.headers.get("impersonate-user").map(String::as_str) == Some("jane"))
    );
    assert!(
        seen.iter()
            .all(|s| s.headers.get("impersonate-group").map(String::as_str) == Some("devs"))
    );
}

#[test]
fn bad_credentials_are_a_401_message_without_the_token() {
    let env = setup();
    let wrong = write_kubeconfig(
        env.dir.path(),
        "wrong",
        &env.fake.url(),
        None,
        &user_token("not-the-token-SECRET2"),
    );
    let out = env.run_with(&wrong, &["whatif", "-f", "examples/web-store.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("rejected the credentials of user tester in context fake"),
        "{err}"
    );
    assert!(err.contains("401 Unauthorized"), "{err}");
    assert!(!err.contains("SECRET"), "{err}");
}

#[test]
fn a_failing_credential_plugin_is_named_without_its_output() {
    let env = setup();
    let user = "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: sh\n      \
                args: [\"-c\", \"echo TOKEN-SECRET-OUT; echo TOKEN-SECRET-ERR >&2; exit 3\"]\n      \
                interactiveMode: Never\n";
    let kc = write_kubeconfig(env.dir.path(), "exec", &env.fake.url(), None, user);
    let out = env.run_with(&kc, &["whatif", "-f", "examples/web-store.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("getting credentials for user tester in context fake failed"),
        "{err}"
    );
    assert!(
        err.contains("credential plugin \"sh\" exited with"),
        "{err}"
    );
    assert!(!err.contains("SECRET"), "{err}");
}

#[test]
fn an_unreachable_server_is_named() {
    let env = setup();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // The listener is dropped: nothing listens on the port any more.
    let kc = write_kubeconfig(
        env.dir.path(),
        "closed",
        &format!("http://127.0.0.1:{port}"),
        None,
        &user_token(TOKEN),
    );
    let out = env.run_with(&kc, &["whatif", "-f", "examples/web-store.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!(
            "error: cannot reach the API server http://127.0.0.1:{port}/ of context fake"
        )),
        "{err}"
    );
    assert!(err.contains("kubectl cluster-info --context fake"), "{err}");
    assert!(!err.contains(TOKEN));
}

/// An `http` server is never verified, so no trust store is read for one: on a machine
/// without a CA store kube-client refused such a kubeconfig ("No CA certificates were
/// loaded from the system"), and elsewhere it read every file of the store first.
#[test]
fn a_plain_http_server_needs_no_trust_store() {
    let env = setup();
    let empty = env.dir.path().join("no-certs");
    std::fs::create_dir(&empty).unwrap();
    let out = bin(env.dir.path())
        .args(["explain", "api-7d9c", "-n", "default", "--kubeconfig"])
        .arg(&env.kubeconfig)
        .env("SSL_CERT_DIR", &empty)
        .env("SSL_CERT_FILE", empty.join("none.pem"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("default/api-7d9c"));
}

#[test]
fn a_tls_failure_is_named() {
    let env = setup();
    // The fake speaks plain HTTP: a TLS client gets no handshake from it.
    let kc = write_kubeconfig(
        env.dir.path(),
        "tls",
        &format!("https://{}", env.fake.addr),
        None,
        &user_token(TOKEN),
    );
    let out = env.run_with(&kc, &["whatif", "-f", "examples/web-store.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with("error: TLS handshake with https://127.0.0.1:"),
        "{err}"
    );
    assert!(err.contains("certificate-authority"), "{err}");
    assert!(!err.contains(TOKEN));
}

#[test]
fn a_request_timeout_is_named() {
    let env = setup();
    env.fake.fail("nodes", 0, 1);
    let start = std::time::Instant::now();
    let out = env.run(&[
        "whatif",
        "-f",
        "examples/web-store.yaml",
        "--request-timeout",
        "300ms",
    ]);
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with("error: list nodes: no answer from http://127.0.0.1:"),
        "{err}"
    );
    assert!(err.contains("within 300ms (--request-timeout)"), "{err}");

    let out = env.run(&["whatif", "-f", "x.yaml", "--request-timeout", "soon"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is not a duration"));
}

fn failed_scheduling(message: &str, uid: &str, time: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("pending-gpu.{time}"), "namespace": "default",
                     "creationTimestamp": time},
        "involvedObject": {"kind": "Pod", "name": "pending-gpu", "namespace": "default", "uid": uid},
        "reason": "FailedScheduling", "type": "Warning", "message": message,
        "reportingComponent": "default-scheduler", "count": 3,
        "lastTimestamp": time,
    })
}

#[test]
fn the_scheduler_event_is_shown_beside_the_computed_message() {
    let env = setup();
    let computed = offline_json(&["explain", "pending-gpu", "-n", "default"])["summary"]
        ["failedSchedulingMessage"]
        .as_str()
        .unwrap()
        .to_string();
    let uid = env.json(&["explain", "pending-gpu", "-n", "default"]);
    assert!(uid.get("schedulerEvent").is_none());
    // An older, different message, then the latest one, which matches ours to the end (the
    // PostFilter tail included); an event of another pod of the same name (other uid) is
    // ignored.
    env.fake.add(
        "events",
        failed_scheduling(
            "0/7 nodes are available: old news.",
            "",
            "2025-01-01T00:00:00Z",
        ),
    );
    env.fake.add(
        "events",
        failed_scheduling(&computed, "", "2025-01-02T00:00:00Z"),
    );
    env.fake.add(
        "events",
        failed_scheduling(
            "0/7 nodes are available: a namesake.",
            "other-uid",
            "2025-01-03T00:00:00Z",
        ),
    );
    let doc = env.json(&["explain", "pending-gpu", "-n", "default"]);
    let ev = &doc["schedulerEvent"];
    assert!(
        ev["message"].as_str().unwrap().contains("preemption:"),
        "{ev}"
    );
    assert_eq!(ev["matchesComputed"], true, "{ev}");
    assert_eq!(ev["reportedBy"], "default-scheduler");
    assert_eq!(ev["lastSeen"], "2025-01-02T00:00:00Z");
    let seen = env.fake.seen();
    let q = seen
        .iter()
        .find(|s| s.path == "/api/v1/namespaces/default/events")
        .unwrap();
    assert!(
        q.query.contains(
            "fieldSelector=involvedObject.name%3Dpending-gpu%2CinvolvedObject.kind%3DPod%2Creason%3DFailedScheduling"
        ),
        "{}",
        q.query
    );

    env.fake.add(
        "events",
        failed_scheduling(
            "0/7 nodes are available: 7 Insufficient nvidia.com/gpu.",
            "",
            "2025-02-01T00:00:00Z",
        ),
    );
    let doc = env.json(&["explain", "pending-gpu", "-n", "default"]);
    assert_eq!(doc["schedulerEvent"]["matchesComputed"], false);
    assert!(
        doc["notes"]
            .to_string()
            .contains("differs from the computed message")
    );
    let out = env.run(&["explain", "pending-gpu", "-n", "default"]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("Scheduler's last event (DIFFERS from computed, see note): 0/7 nodes are available: 7 Insufficient"),
        "{table}"
    );

    env.fake.forbid("events");
    let doc = env.json(&["explain", "pending-gpu", "-n", "default"]);
    assert!(doc.get("schedulerEvent").is_none());
    assert!(
        doc["notes"]
            .to_string()
            .contains("cannot list events in namespace default")
    );
    env.assert_read_only();
}

/// Default topology spreading selects by the Services and controllers that select the pod:
/// the Services of the pod's namespace are listed live (and nothing of other namespaces)
/// and change the spread score exactly as the snapshot's copies do; without permission the
/// default constraints are left out, said in a note naming the request, never an error.
#[test]
fn workloads_for_default_spreading_are_listed_and_a_refusal_is_a_note() {
    let env = setup();
    let args = ["whatif", "-f", "examples/web-store.yaml"];
    let live = env.json(&args);
    assert_eq!(
        without_source(live.clone()),
        without_source(offline_json(&args))
    );
    let paths: Vec<String> = env.fake.seen().iter().map(|s| s.path.clone()).collect();
    assert!(
        paths
            .iter()
            .any(|x| x == "/api/v1/namespaces/shop/services"),
        "the pod's namespace's Services not listed: {paths:?}"
    );
    // The what-if pod has no controller yet: no controller is read, and no workload of
    // all namespaces is listed.
    for p in &paths {
        assert!(
            ![
                "services",
                "replicationcontrollers",
                "replicasets",
                "statefulsets"
            ]
            .iter()
            .any(|r| p.ends_with(&format!("/v1/{r}")) || p.contains(&format!("/{r}/"))),
            "{p} read: {paths:?}"
        );
    }
    env.assert_read_only();
    // The web-store Service selects the what-if pod: default spreading has a selector, so
    // no note says it was left out.
    assert!(!live["notes"].to_string().contains("default constraints"));

    env.fake.forbid("services");
    let doc = env.json(&args);
    let notes = doc["notes"].to_string();
    assert!(
        notes.contains("cannot list services in namespace shop (403 Forbidden")
            && notes.contains("grant list on services in namespace shop"),
        "{notes}"
    );
    // The evaluation goes on without default spreading's selector.
    assert_eq!(
        doc["topologySpread"]["constraints"][0]["selector"],
        Value::Null
    );
}

/// The controllers' selectors are read live, each got by name (only its selector is
/// decoded): a pod no Service selects gets its default spreading selector from
/// its controller, as `helper.DefaultSelector` finds it by the pod's owner reference: a
/// ReplicationController's label map, a ReplicaSet's matchLabels, a StatefulSet's
/// matchExpressions.
#[test]
fn default_spreading_selector_comes_from_live_controllers() {
    let env = setup();
    let whatif_doc = |api_version: &str, kind: &str, owner: &str| {
        let pod = json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "lone-0", "namespace": "shop",
                         "labels": {"app": "lone", "tier": "db", "track": "stable"},
                         "ownerReferences": [{"apiVersion": api_version, "kind": kind,
                                              "name": owner, "uid": owner, "controller": true}]},
            "spec": {"containers": [{"name": "c", "image": "pause"}]}
        });
        let path = env.dir.path().join("lone.json");
        std::fs::write(&path, pod.to_string()).unwrap();
        env.json(&["whatif", "-f", path.to_str().unwrap()])
    };
    let whatif = |api_version: &str, kind: &str, owner: &str| {
        whatif_doc(api_version, kind, owner)["topologySpread"]["constraints"][0]["selector"].clone()
    };

    // The owner does not exist yet (404): nothing selects the pod, default spreading does nothing.
    assert_eq!(whatif("apps/v1", "ReplicaSet", "lone-rs"), Value::Null);

    let meta = |name: &str| json!({"name": name, "namespace": "shop", "uid": name});
    env.fake.add(
        "replicationcontrollers",
        json!({"apiVersion": "v1", "kind": "ReplicationController", "metadata": meta("lone-rc"),
               "spec": {"selector": {"track": "stable"}}}),
    );
    env.fake.add(
        "replicasets",
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta("lone-rs"),
               "spec": {"selector": {"matchLabels": {"app": "lone"}}}}),
    );
    env.fake.add(
        "statefulsets",
        json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta("lone-ss"),
               "spec": {"selector": {"matchExpressions": [
                   {"key": "tier", "operator": "In", "values": ["db"]}]}}}),
    );
    for (api_version, kind, owner, expected, path) in [
        (
            "v1",
            "ReplicationController",
            "lone-rc",
            "track=stable",
            "/api/v1/namespaces/shop/replicationcontrollers/lone-rc",
        ),
        (
            "apps/v1",
            "ReplicaSet",
            "lone-rs",
            "app=lone",
            "/apis/apps/v1/namespaces/shop/replicasets/lone-rs",
        ),
        (
            "apps/v1",
            "StatefulSet",
            "lone-ss",
            "tier in (db)",
            "/apis/apps/v1/namespaces/shop/statefulsets/lone-ss",
        ),
    ] {
        let before = env.fake.seen().len();
        assert_eq!(whatif(api_version, kind, owner), json!(expected), "{kind}");
        // The one controller the pod names is got by name; no controller is listed.
        let read: Vec<String> = env.fake.seen()[before..]
            .iter()
            .map(|s| s.path.clone())
            .filter(|p| {
                ["replicationcontrollers", "replicasets", "statefulsets"]
                    .iter()
                    .any(|r| p.contains(r))
            })
            .collect();
        assert_eq!(read, [path], "{kind}");
    }
    // An owner default spreading does not read (another group or version) is not got.
    let before = env.fake.seen().len();
    assert_eq!(whatif("apps/v1beta2", "ReplicaSet", "lone-rs"), Value::Null);
    assert!(
        !env.fake.seen()[before..]
            .iter()
            .any(|s| s.path.contains("replicasets")),
        "an apps/v1beta2 owner was read"
    );
    env.assert_read_only();

    // Without permission to get the controller, the note names the request.
    env.fake.forbid("replicasets");
    let doc = whatif_doc("apps/v1", "ReplicaSet", "lone-rs");
    assert_eq!(
        doc["topologySpread"]["constraints"][0]["selector"],
        Value::Null
    );
    let notes = doc["notes"].to_string();
    assert!(
        notes.contains("cannot get replicasets shop/lone-rs (403 Forbidden")
            && notes.contains("grant get on replicasets in namespace shop"),
        "{notes}"
    );
}

/// `kubectl affinity explain <TAB>` against a live cluster: names come from the cluster the
/// line's kubeconfig flags name, with one small list per completion.
#[test]
fn completion_names_come_from_the_live_cluster() {
    let env = setup();
    let kubeconfig = env.kubeconfig.to_str().unwrap();
    let complete = |words: &[&str]| -> Vec<String> {
        let out = bin(env.dir.path())
            .arg("__complete")
            .args(words)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(String::from)
            .collect()
    };
    let pods = complete(&["explain", "--kubeconfig", kubeconfig, "-n", "shop", "check"]);
    assert_eq!(pods.last().map(String::as_str), Some(":4"));
    assert!(
        pods.iter().any(|p| p == "checkout-6b9d4c7f58-x2v9k"),
        "{pods:?}"
    );
    assert!(
        pods[..pods.len() - 1]
            .iter()
            .all(|p| p.starts_with("check"))
    );
    let namespaces = complete(&["whatif", "--kubeconfig", kubeconfig, "-n", ""]);
    assert!(
        namespaces.iter().any(|n| n == "monitoring"),
        "{namespaces:?}"
    );
    let nodes = complete(&["whatif", "--kubeconfig", kubeconfig, "--node", "gpu"]);
    assert_eq!(nodes, ["gpu-c-1", ":4"]);
    let seen = env.fake.seen();
    assert!(
        seen.iter()
            .any(|s| s.path == "/api/v1/namespaces/shop/pods")
    );
    // Only the lists asked for: never all pods of the cluster.
    assert!(!seen.iter().any(|s| s.path == "/api/v1/pods"));
    env.assert_read_only();
}

/// Asserts a failed run: exit 1, every fragment in stderr, no credential.
fn live_error(out: &Output, fragments: &[&str]) -> String {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(out.stdout.is_empty(), "output on error: {err}");
    for f in fragments {
        assert!(err.contains(f), "missing {f:?} in: {err}");
    }
    assert!(!err.contains(TOKEN) && !err.contains("SECRET"), "{err}");
    err
}

#[test]
fn a_server_that_keeps_answering_503_is_retried_a_bounded_number_of_times() {
    let env = setup();
    env.fake.fail("nodes", 503, 100);
    let start = std::time::Instant::now();
    let out = env.run(&["whatif", "-f", "examples/web-store.yaml"]);
    live_error(
        &out,
        &[
            "error: list nodes: the API server answered 503 ServiceUnavailable: the server is currently unable to handle the request",
            "retry later, or check the API server's health",
        ],
    );
    let tries = env
        .fake
        .seen()
        .iter()
        .filter(|s| s.path == "/api/v1/nodes")
        .count();
    assert_eq!(tries, 5, "one request and four retries");
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn a_404_on_a_list_is_named() {
    let env = setup();
    env.fake.fail("nodes", 404, 100);
    let out = env.run(&["whatif", "-f", "examples/web-store.yaml"]);
    live_error(
        &out,
        &[
            &format!(
                "error: list nodes: the API server answered 404 NotFound (the server could not find \
                 the requested resource): {}/ does not serve this resource; check that the \
                 kubeconfig's server URL is the API server itself",
                env.fake.url()
            ),
            "kubectl api-resources --context fake",
        ],
    );
}

#[test]
fn a_truncated_body_is_named() {
    // In protobuf (what the tool asks for) and in JSON (from a server that only speaks JSON).
    for (json_only, detail) in [
        (false, "(the protobuf body ends inside a field)"),
        (true, "(EOF while parsing"),
    ] {
        let env = setup();
        if json_only {
            env.fake.json_only();
        }
        env.fake
            .fail("pods", support::fake_api::TRUNCATED_BODY, 100);
        let out = env.run(&["whatif", "-f", "examples/web-store.yaml"]);
        live_error(
            &out,
            &[
                &format!(
                    "error: list pods in all namespaces: the answer from {}/ ended early {detail}",
                    env.fake.url()
                ),
                "the connection or a proxy cut it; retry",
            ],
        );
    }
}

/// Pod lists are asked for in protobuf, as kube-scheduler's client asks for them, and give
/// the same answer as from a server that only speaks JSON; other lists stay JSON.
#[test]
fn pod_and_node_lists_in_protobuf_read_the_same_as_in_json() {
    let args = [
        "whatif",
        "-f",
        "examples/web-store.yaml",
        "-o",
        "json",
        "--chunk-size",
        "4",
    ];
    let env = setup();
    let out = env.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let seen = env.fake.seen();
    let accept = |path: &str| {
        seen.iter()
            .filter(|s| s.path == path)
            .map(|s| s.headers.get("accept").cloned().unwrap_or_default())
            .collect::<Vec<_>>()
    };
    // Pods and nodes in protobuf, as kube-scheduler reads them; the rest in JSON.
    for path in ["/api/v1/pods", "/api/v1/nodes"] {
        let seen = accept(path);
        assert!(seen.len() > 1, "{path} paged: {seen:?}");
        for a in &seen {
            assert_eq!(a, "application/vnd.kubernetes.protobuf, application/json");
        }
    }
    let services = accept("/api/v1/namespaces/shop/services");
    assert!(
        !services.is_empty() && services.iter().all(|a| !a.contains("protobuf")),
        "{services:?}"
    );

    let json_env = setup();
    json_env.fake.json_only();
    let json_out = json_env.run(&args);
    assert!(json_out.status.success(), "{}", stderr(&json_out));
    let strip = |bytes: &[u8]| {
        documents(bytes)
            .into_iter()
            .map(without_source)
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&out.stdout), strip(&json_out.stdout));
}

#[test]
fn an_invalid_protobuf_body_is_named_without_its_content() {
    let env = setup();
    env.fake
        .fail("pods", support::fake_api::INVALID_PROTOBUF_BODY, 100);
    let out = env.run(&["whatif", "-f", "examples/web-store.yaml"]);
    let err = live_error(
        &out,
        &[&format!(
            "error: list pods in all namespaces: unexpected answer from {}/: the body is not \
             the expected protobuf list: the body holds a NodeList, not a PodList; check that the \
             kubeconfig points at a Kubernetes API server",
            env.fake.url()
        )],
    );
    assert!(!err.contains("token="), "{err}");
}

#[test]
fn an_invalid_json_body_is_named_without_its_content() {
    let env = setup();
    env.fake
        .fail("nodes", support::fake_api::INVALID_JSON_BODY, 100);
    let out = env.run(&["whatif", "-f", "examples/web-store.yaml"]);
    live_error(
        &out,
        &[&format!(
            "error: list nodes: unexpected answer from {}/: the body is not the expected JSON \
                 object: expected value at line 1 column 1; check that the kubeconfig points at a \
                 Kubernetes API server",
            env.fake.url()
        )],
    );
    // Not retried: the same request once.
    let tries = env
        .fake
        .seen()
        .iter()
        .filter(|s| s.path == "/api/v1/nodes")
        .count();
    assert_eq!(tries, 1);
}

#[test]
fn a_server_that_accepts_and_never_answers_times_out() {
    let env = setup();
    // Accepts connections, reads nothing, answers nothing.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for s in listener.incoming() {
            held.push(s);
        }
    });
    let kc = write_kubeconfig(
        env.dir.path(),
        "silent",
        &format!("http://127.0.0.1:{port}"),
        None,
        &user_token(TOKEN),
    );
    let start = std::time::Instant::now();
    let out = env.run_with(
        &kc,
        &[
            "whatif",
            "-f",
            "examples/web-store.yaml",
            "--request-timeout",
            "500ms",
        ],
    );
    assert!(start.elapsed() < std::time::Duration::from_secs(15));
    live_error(
        &out,
        &[
            &format!(
                "error: list nodes: no answer from http://127.0.0.1:{port}/ within 500ms (--request-timeout)"
            ),
            "retry with a longer --request-timeout",
        ],
    );
}

#[test]
fn client_key_data_is_never_printed() {
    let env = setup();
    // Key material that is not a key: the client cannot be built from it.
    let user = "    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tClNFQ1JFVENFUlRTRUNSRVRDRVJUU0VDUkVUQ0VSVAotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg==\n    \
                client-key-data: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tClNFQ1JFVEtFWURBVEFTRUNSRVRLRVlEQVRBU0VDUkVUS0VZCi0tLS0tRU5EIFBSSVZBVEUgS0VZLS0tLS0K\n";
    let kc = write_kubeconfig(
        env.dir.path(),
        "certs",
        &format!("https://{}", env.fake.addr),
        None,
        user,
    );
    let out = env.run_with(&kc, &["whatif", "-f", "examples/web-store.yaml"]);
    let err = live_error(
        &out,
        &[
            "error: cannot set up a client for context fake: ",
            "check the context's cluster and user entries",
            "`kubectl config view --context fake`",
        ],
    );
    for secret in ["LS0tLS1", "SECRETKEYDATA", "SECRETCERT", "PRIVATE KEY"] {
        assert!(!err.contains(secret), "{err}");
    }
}

#[test]
fn credential_plugin_output_is_never_printed() {
    let env = setup();
    // Exits 0 but prints no ExecCredential: its stdout (a token, maybe) must not be echoed.
    let user = "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: sh\n      \
                args: [\"-c\", \"echo token=TOKEN-SECRET-OUT; echo TOKEN-SECRET-ERR >&2\"]\n      \
                interactiveMode: Never\n";
    let kc = write_kubeconfig(env.dir.path(), "exec-garbage", &env.fake.url(), None, user);
    let out = env.run_with(&kc, &["whatif", "-f", "examples/web-store.yaml"]);
    live_error(
        &out,
        &[
            "error: getting credentials for user tester in context fake failed: credential plugin \
             \"sh\" did not print a valid ExecCredential",
            "its output is not shown here: it may hold secrets",
        ],
    );
    // And a plugin whose token is rejected: the 401 names the user, not the token.
    let user = "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: sh\n      \
                args: [\"-c\", \"echo '{\\\"apiVersion\\\":\\\"client.authentication.k8s.io/v1\\\",\\\"kind\\\":\\\"ExecCredential\\\",\\\"status\\\":{\\\"token\\\":\\\"PLUGIN-SECRET\\\"}}'\"]\n      \
                interactiveMode: Never\n";
    let kc = write_kubeconfig(env.dir.path(), "exec-wrong", &env.fake.url(), None, user);
    let out = env.run_with(&kc, &["whatif", "-f", "examples/web-store.yaml"]);
    live_error(
        &out,
        &[
            "error: list nodes: the API server rejected the credentials of user tester in context fake (401 Unauthorized",
        ],
    );
}

/// PriorityClasses and PodDisruptionBudgets are read live as `snapshot` writes them: a whatif
/// pod naming a class is admitted with its priority and preemption decides alike from both
/// sources; a refused list is said in a note.
#[test]
fn preemption_objects_are_read_live_and_written_by_snapshot() {
    let env = setup();
    env.fake.add(
        "priorityclasses",
        json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
               "metadata": {"name": "urgent"}, "value": 1000000}),
    );
    env.fake.add(
        "poddisruptionbudgets",
        json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
               "metadata": {"name": "everything", "namespace": "default"},
               "spec": {"selector": {"matchExpressions": [{"key": "app", "operator": "Exists"}]}},
               "status": {"disruptionsAllowed": 0}}),
    );
    let manifest = env.dir.path().join("urgent.yaml");
    std::fs::write(
        &manifest,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: urgent, namespace: default}\n\
         spec:\n  priorityClassName: urgent\n\
         \x20 containers: [{name: c, image: x, resources: {requests: {cpu: \"7\"}}}]\n",
    )
    .unwrap();
    let manifest = manifest.to_str().unwrap();
    let live = env.json(&["whatif", "-f", manifest]);
    let preemption = |doc: &Value| {
        doc["postFilter"]
            .as_array()
            .and_then(|l| l.iter().find(|p| p["plugin"] == "DefaultPreemption"))
            .map(|p| p["preemption"].clone())
            .unwrap_or(Value::Null)
    };
    // Only worker-b-2 could hold it, once lower-priority pods are gone.
    assert_eq!(preemption(&live)["nominatedNode"], "worker-b-2", "{live}");
    let file = env.dir.path().join("saved.yaml");
    let out = env.run(&["snapshot", "-o", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("kind: PriorityClass") && text.contains("kind: PodDisruptionBudget"));
    let out = support::run(&[
        "whatif",
        "-f",
        manifest,
        "-o",
        "json",
        "--snapshot",
        file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let saved: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(without_source(live), without_source(saved));
    // Without PodDisruptionBudgets the answer says what that costs.
    env.fake.forbid("poddisruptionbudgets");
    let doc = env.json(&["whatif", "-f", manifest]);
    assert!(
        doc["notes"]
            .to_string()
            .contains("cannot list poddisruptionbudgets (403 Forbidden"),
        "{}",
        doc["notes"]
    );
    env.assert_read_only();
}

/// A pod with claims read live: the storage objects are listed (read-only), and the answer
/// is the snapshot's; a pod without volumes lists none of them.
#[test]
fn storage_objects_are_listed_for_pods_with_claims_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fake = FakeApi::start(&root.join("tests/volumes/cluster.yaml"));
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = fake.kubeconfig(dir.path(), None);
    let env = Env {
        fake,
        dir,
        kubeconfig,
    };
    let storage = [
        "/api/v1/persistentvolumeclaims",
        "/api/v1/persistentvolumes",
        "/apis/storage.k8s.io/v1/storageclasses",
        "/apis/storage.k8s.io/v1/csinodes",
        "/apis/storage.k8s.io/v1/csidrivers",
    ];
    env.json(&["whatif", "-f", "examples/nginx-nodeselector.yaml"]);
    for path in storage {
        assert_eq!(env.lists_started(path), 0, "{path}");
    }
    let args = [
        "whatif",
        "-f",
        "tests/volumes/statefulsets.yaml",
        "-o",
        "json",
        "--chunk-size",
        "2",
    ];
    let out = env.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let live = documents(&out.stdout);
    for path in storage {
        assert_eq!(env.lists_started(path), 1, "{path}");
    }
    let out = support::run(&[
        "whatif",
        "-f",
        "tests/volumes/statefulsets.yaml",
        "-o",
        "json",
        "--snapshot",
        "tests/volumes/cluster.yaml",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let offline = documents(&out.stdout);
    assert_eq!(live.len(), 2);
    for (l, o) in live.into_iter().zip(offline) {
        assert_eq!(without_source(l), without_source(o));
    }
    env.assert_read_only();
}
