//! Broken and hostile input as a user meets it: every bad manifest or snapshot ends with one
//! error naming the file, the document, the object and the field, and the next step (exit 1);
//! what the API server accepts and the scheduler reads specially is evaluated as upstream,
//! with a note (exit 0); oversized, endless, deep and self-expanding input ends with an error
//! in bounded time and memory. Files run in this process as the binary runs them; standard
//! input and the memory bound through the binary. Inputs are generated here: no large file
//! is committed.

// Tests may unwrap: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{kubectl_affinity, run, write};

const SNAPSHOT: &str = "examples/cluster.yaml";

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs and expects the error exit code 1 with every fragment in stderr; returns stderr.
fn fails(args: &[&str], fragments: &[&str]) -> String {
    let out = run(args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}: output on error");
    assert!(err.starts_with("error: "), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    for f in fragments {
        assert!(err.contains(f), "{args:?}: missing {f:?} in: {err}");
    }
    err
}

/// `whatif` arguments reading `file` as the manifest, then as the snapshot: every hostile
/// file is tried in both places.
fn as_manifest_and_as_snapshot(file: &str) -> [[&str; 5]; 2] {
    [
        ["whatif", "-f", file, "--snapshot", SNAPSHOT],
        [
            "whatif",
            "-f",
            "examples/web-store.yaml",
            "--snapshot",
            file,
        ],
    ]
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A Deployment whose pod spec is `spec`, as YAML (JSON is YAML).
fn deployment(spec: Value) -> String {
    let mut spec = spec;
    spec["containers"] = json!([{"name": "c", "image": "nginx"}]);
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "web", "namespace": "shop"},
           "spec": {"selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}}, "spec": spec}}})
    .to_string()
}

/// `whatif -f file --snapshot SNAPSHOT -o json --validate=<validate>`, which must succeed;
/// `what` names the case in a failure.
fn whatif_json(file: &Path, validate: &str, what: &str) -> Value {
    let out = run(&[
        "whatif",
        "-f",
        s(file),
        "--snapshot",
        SNAPSHOT,
        "-o",
        "json",
        &format!("--validate={validate}"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn node_expr(expr: Value) -> Value {
    json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
        {"nodeSelectorTerms": [{"matchExpressions": [expr]}]}}}})
}

const NODE_EXPR: &str = "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]";
const REJECTED: &str = "the API server would reject this pod (`kubectl apply` would fail): fix the field, or pass --validate=warn";

#[test]
fn malformed_yaml_and_json_name_the_position_and_the_next_step() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = write(
        dir.path(),
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: [x\n",
    );
    fails(
        &["whatif", "-f", s(&yaml), "--snapshot", SNAPSHOT],
        &[
            &format!("{}: not valid YAML or JSON:", yaml.display()),
            "line 3",
            "fix the text at that position",
        ],
    );
    let json = write(dir.path(), "snap.json", "{\"kind\": \"List\", \"items\": [");
    fails(
        &[
            "whatif",
            "-f",
            "examples/web-store.yaml",
            "--snapshot",
            s(&json),
        ],
        &[
            &format!(
                "{}: not valid YAML or JSON: EOF while parsing a list",
                json.display()
            ),
            "line 1 column 27",
            "kubectl get ... -o yaml",
        ],
    );
}

#[test]
fn empty_input_says_what_to_give() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.yaml", "\n---\n# nothing\n");
    fails(
        &["whatif", "-f", s(&empty), "--snapshot", SNAPSHOT],
        &[
            &format!("{}: no objects found", empty.display()),
            "give a Pod or a workload manifest",
        ],
    );
    fails(
        &[
            "whatif",
            "-f",
            "examples/web-store.yaml",
            "--snapshot",
            s(&empty),
        ],
        &[
            &format!(
                "{}: no Node, Pod or Namespace objects found",
                empty.display()
            ),
            "kubectl affinity snapshot",
        ],
    );
    // Standard input is named as such.
    let out = kubectl_affinity()
        .args(["whatif", "-f", "-", "--snapshot", SNAPSHOT])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("error: standard input: no objects found"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn kinds_and_api_versions_we_cannot_take_are_named() {
    let dir = tempfile::tempdir().unwrap();
    // Applied beside a Pod, a Service joins the cluster; alone, nothing is scheduled.
    let svc = write(
        dir.path(),
        "svc.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
    );
    fails(
        &["whatif", "-f", s(&svc), "--snapshot", SNAPSHOT],
        &[
            &format!(
                "{}: no Pod or workload to schedule among its 2 object(s)",
                svc.display()
            ),
            "give a Pod, Deployment",
        ],
    );
    let old = write(
        dir.path(),
        "old.yaml",
        &deployment(json!({})).replace("apps/v1", "extensions/v1beta1"),
    );
    fails(
        &["whatif", "-f", s(&old), "--snapshot", SNAPSHOT],
        &[
            &format!(
                "{}: document 1, Deployment \"web\": field apiVersion:",
                old.display()
            ),
            "\"extensions/v1beta1\" is not served by Kubernetes 1.35 for Deployment; use `apiVersion: apps/v1`",
        ],
    );
    let none = write(dir.path(), "none.yaml", "kind: Pod\nmetadata: {name: p}\n");
    fails(
        &["whatif", "-f", s(&none), "--snapshot", SNAPSHOT],
        &["document 1, Pod \"p\": field apiVersion: missing; a Pod is `apiVersion: v1`"],
    );
    let kindless = write(
        dir.path(),
        "kindless.yaml",
        "apiVersion: v1\nmetadata: {name: p}\n",
    );
    fails(
        &["whatif", "-f", s(&kindless), "--snapshot", SNAPSHOT],
        &["document 1: an object without kind; give a Pod or a workload manifest"],
    );
}

/// Every scheduling field the API server rejects: one error with file, document, object,
/// the field's path from the object's root and the next step; `--validate=warn` evaluates it
/// anyway, noting the field (exit 0).
#[test]
fn fields_the_api_server_rejects_stop_whatif_with_their_path() {
    let anti = |term: Value| json!({"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}});
    let preferred_node = |weight: i64| {
        json!({"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": weight, "preference": {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}}]}}})
    };
    let cases: Vec<(&str, Value, String, &str)> = vec![
        (
            "invalid operator",
            node_expr(json!({"key": "zone", "operator": "Equals", "values": ["a"]})),
            format!("{NODE_EXPR}.operator"),
            "Invalid value: \"Equals\": not a valid selector operator",
        ),
        (
            "Gt with two values",
            node_expr(json!({"key": "cpus", "operator": "Gt", "values": ["1", "2"]})),
            format!("{NODE_EXPR}.values"),
            "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
        ),
        (
            "In without values",
            node_expr(json!({"key": "zone", "operator": "In", "values": []})),
            format!("{NODE_EXPR}.values"),
            "Required value: must be specified when `operator` is 'In' or 'NotIn'",
        ),
        (
            "Exists with values",
            node_expr(json!({"key": "zone", "operator": "Exists", "values": ["a"]})),
            format!("{NODE_EXPR}.values"),
            "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        ),
        (
            "invalid label key",
            node_expr(json!({"key": "-zone", "operator": "Exists"})),
            format!("{NODE_EXPR}.key"),
            "Invalid value: \"-zone\": name part must consist of alphanumeric characters",
        ),
        (
            "weight 0",
            preferred_node(0),
            "spec.template.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight".to_string(),
            "Invalid value: 0: must be in the range 1-100",
        ),
        (
            "weight 101",
            preferred_node(101),
            "spec.template.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight".to_string(),
            "Invalid value: 101: must be in the range 1-100",
        ),
        (
            "empty topologyKey",
            anti(json!({"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": ""})),
            "spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey".to_string(),
            "Required value: can not be empty",
        ),
        (
            "missing topologyKey",
            anti(json!({"labelSelector": {"matchLabels": {"app": "web"}}})),
            "spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey".to_string(),
            "Required value: can not be empty",
        ),
        (
            "selector syntax: Gt in a label selector",
            anti(json!({"labelSelector": {"matchExpressions": [{"key": "rank", "operator": "Gt", "values": ["1"]}]},
                        "topologyKey": "kubernetes.io/hostname"})),
            "spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].operator".to_string(),
            "Invalid value: \"Gt\": not a valid selector operator",
        ),
        (
            "invalid key in matchLabels",
            anti(json!({"labelSelector": {"matchLabels": {"app web": "x"}}, "topologyKey": "zone"})),
            "spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchLabels".to_string(),
            "Invalid value: \"app web\"",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (what, spec, field, message) in cases {
        let file = write(dir.path(), "deploy.yaml", &deployment(spec));
        let err = fails(
            &["whatif", "-f", s(&file), "--snapshot", SNAPSHOT],
            &[
                &format!(
                    "error: {}: document 1, Deployment \"web\": field {field}: {message}",
                    file.display()
                ),
                REJECTED,
            ],
        );
        assert!(!err.contains("more invalid"), "{what}: {err}");

        // Evaluated anyway on request, with the field in the notes.
        let doc = whatif_json(&file, "warn", what);
        let notes = doc["notes"].to_string();
        assert!(
            notes.contains(&field) && notes.contains("the API server would reject this pod"),
            "{what}: {notes}"
        );
        // ... and without the notes with --validate=false (kubectl's spelling).
        let doc = whatif_json(&file, "false", what);
        assert!(!doc["notes"].to_string().contains(&field), "{what}");
    }
}

/// A pod (anti-)affinity selector that does not parse, evaluated on request: the note gives
/// every bad selector with its path in the pod, and the FailedScheduling message is
/// upstream's own (`parsing pod: <list>: <error>`).
#[test]
fn an_unparsable_affinity_selector_is_noted_with_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let spec = json!({"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "{{bad}}"}}, "topologyKey": "kubernetes.io/hostname"}]}}});
    let file = write(dir.path(), "d.yaml", &deployment(spec));
    let doc = whatif_json(&file, "warn", "unparsable selector");
    let notes = doc["notes"].to_string();
    assert!(
        notes.contains("the pod's affinity has invalid label selectors (the API server would reject it): podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector: values[0][app]: Invalid value: \\\"{{bad}}\\\""),
        "{notes}"
    );
    let message = doc["summary"]["failedSchedulingMessage"].as_str().unwrap();
    assert!(
        message.contains("parsing pod: requiredAntiAffinityTerms: values[0][app]: Invalid value: \"{{bad}}\": a valid label must be"),
        "{message}"
    );
}

#[test]
fn several_rejected_fields_are_counted_in_the_one_error() {
    let dir = tempfile::tempdir().unwrap();
    let spec = json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
        {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "a", "operator": "In"}, {"key": "b", "operator": "Nope"}, {"key": "c", "operator": "Exists", "values": ["x"]}]}]}}}});
    let file = write(dir.path(), "d.yaml", &deployment(spec));
    fails(
        &["whatif", "-f", s(&file), "--snapshot", SNAPSHOT],
        &[
            &format!("{NODE_EXPR}.values: Required value"),
            "(and 2 more invalid fields)",
        ],
    );
}

/// What the API server accepts but the scheduler reads in a special way is evaluated exactly
/// as upstream, and the output says so.
#[test]
fn what_only_the_scheduler_refuses_is_evaluated_as_upstream_and_noted() {
    let dir = tempfile::tempdir().unwrap();
    // A Gt bound that is no integer: the API server never checks; the required term can never
    // match, so no node passes NodeAffinity.
    let gt = write(
        dir.path(),
        "gt.yaml",
        &deployment(node_expr(
            json!({"key": "cpus", "operator": "Gt", "values": ["four"]}),
        )),
    );
    let out = run(&["whatif", "-f", s(&gt), "--snapshot", SNAPSHOT, "-o", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let notes = doc["notes"].to_string();
    assert!(
        notes.contains(&format!("{NODE_EXPR}.values[0]: Invalid value: \\\"four\\\": for 'Gt', 'Lt' operators, the value must be an integer: the API server accepts this, but the scheduler cannot parse it; the scheduler reads it so: this required node-affinity term never matches any node")),
        "{notes}"
    );
    for node in doc["nodes"].as_array().unwrap() {
        let na = node["filters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["plugin"] == "NodeAffinity");
        if let Some(na) = na {
            assert_eq!(na["pass"], false, "{node}");
        }
    }
    assert_eq!(doc["summary"]["feasible"], 0);

    // A preferred term with a value that is no label value: accepted by the API server, it
    // fails the scheduling attempt upstream (NodeAffinity's PreScore error).
    let pref = write(
        dir.path(),
        "pref.yaml",
        &deployment(
            json!({"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 5, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["not a label value"]}]}}]}}}),
        ),
    );
    let out = run(&[
        "whatif",
        "-f",
        s(&pref),
        "--snapshot",
        SNAPSHOT,
        "-o",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let notes = doc["notes"].to_string();
    assert!(
        notes.contains("preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].values[0]")
            && notes.contains("fails the scheduling attempt"),
        "{notes}"
    );
    assert!(doc.to_string().contains("PreScore"), "{doc}");
}

#[test]
fn wrong_field_types_name_the_object_and_the_path_from_its_root() {
    let dir = tempfile::tempdir().unwrap();
    let mut d: Value = serde_json::from_str(&deployment(json!({}))).unwrap();
    d["spec"]["template"]["spec"]["tolerations"] =
        json!([{"key": "a", "tolerationSeconds": "soon"}]);
    let file = write(dir.path(), "d.json", &d.to_string());
    fails(
        &["whatif", "-f", s(&file), "--snapshot", SNAPSHOT],
        &[
            &format!(
                "{}: document 1, Deployment \"web\": field spec.template.spec.tolerations[0].tolerationSeconds: invalid type",
                file.display()
            ),
            "`kubectl explain deployment.spec.template.spec.tolerations.tolerationSeconds` describes it",
        ],
    );
    let snap = write(
        dir.path(),
        "snap.yaml",
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: [a]}\n",
    );
    fails(
        &[
            "whatif",
            "-f",
            "examples/web-store.yaml",
            "--snapshot",
            s(&snap),
        ],
        &[
            &format!(
                "{}: document 1, Node \"n1\": field metadata.labels:",
                snap.display()
            ),
            "write the snapshot again with `kubectl affinity snapshot`",
        ],
    );
}

/// A self-expanding YAML document: eleven levels of ten aliases each, 10^11 nodes.
fn alias_bomb() -> String {
    let mut text = String::from(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: bomb}\nspec:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n",
    );
    for i in 1..12 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        text.push_str(&format!("  a{i}: &a{i} [{refs}]\n"));
    }
    text
}

/// The binary under a 2 GiB address-space limit: an input that made it allocate without
/// bound would be killed instead of ending with its message.
fn bounded(args: &[&str]) -> Output {
    let start = Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 2097152 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_kubectl-affinity"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .output()
        .unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{args:?} took {:?}",
        start.elapsed()
    );
    out
}

#[test]
fn an_alias_bomb_ends_with_a_message_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let bomb = write(dir.path(), "bomb.yaml", &alias_bomb());
    for args in as_manifest_and_as_snapshot(s(&bomb)) {
        let out = bounded(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.starts_with(&format!(
                "error: {}: not valid YAML or JSON: line ",
                bomb.display()
            )),
            "{err}"
        );
        assert!(
            err.contains("YAML aliases (*name) expand it far beyond its size (an alias bomb?)")
                && err.contains("give the YAML or JSON that kubectl prints"),
            "{err}"
        );
    }
}

#[test]
fn deep_nesting_ends_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let deep_json = write(
        dir.path(),
        "deep.json",
        &format!(
            "{{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"spec\": {}{}}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        ),
    );
    let deep_yaml = write(
        dir.path(),
        "deep.yaml",
        &(0..5000)
            .map(|i| format!("{}- \n", " ".repeat(i)))
            .collect::<String>(),
    );
    for (file, what) in [
        (&deep_json, "recursion limit exceeded"),
        (&deep_yaml, "nested more than 64 levels deep"),
    ] {
        let out = bounded(&["whatif", "-f", s(file), "--snapshot", SNAPSHOT]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&format!("{}: not valid YAML or JSON:", file.display()))
                && err.contains(what)
                && err.contains("check that this is the file you meant"),
            "{err}"
        );
    }
}

/// Nesting just under serde_json's limit parses on a 2 MiB test thread (the library is
/// called from threads too) and fails later, on the field, without a stack overflow.
#[test]
fn nesting_under_the_limits_does_not_overflow_a_thread_stack() {
    let deep = format!(
        "{{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {{\"name\": \"p\"}}, \"spec\": {{\"x\": {}{}}}}}",
        "[".repeat(120),
        "]".repeat(120)
    );
    kubectl_affinity::state::read_pod_manifests_str(&deep, "deep.json").unwrap();
    let yaml: String = (0..60).map(|i| format!("{}- \n", " ".repeat(i))).collect();
    let yaml = format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  x:\n{}",
        yaml.lines()
            .map(|l| format!("    {l}\n"))
            .collect::<String>()
    );
    kubectl_affinity::state::read_pod_manifests_str(&yaml, "deep.yaml").unwrap();
}

#[test]
fn a_multi_gigabyte_file_is_refused_from_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let huge = dir.path().join("huge.yaml");
    // Sparse: no disk space, no reading.
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    for args in as_manifest_and_as_snapshot(s(&huge)) {
        let out = bounded(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert_eq!(
            err.trim_end(),
            format!(
                "error: {}: 2 GiB on disk, more than the input limit of 1 GiB; give a file with only \
                 what is needed (`kubectl get nodes,pods,namespaces -A -o yaml`), or raise the limit \
                 with KUBECTL_AFFINITY_MAX_INPUT_BYTES=BYTES",
                huge.display()
            )
        );
    }
}

#[test]
fn endless_stdin_stops_at_the_input_limit() {
    for args in [
        ["whatif", "-f", "-", "--snapshot", SNAPSHOT],
        ["whatif", "-f", "examples/web-store.yaml", "--snapshot", "-"],
    ] {
        let start = Instant::now();
        let mut child = kubectl_affinity()
            .args(args)
            .env("KUBECTL_AFFINITY_MAX_INPUT_BYTES", "4000000")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // Endless: writes until the reader goes away (then the write fails).
        let writer = std::thread::spawn(move || {
            let chunk = "# an endless comment line, as from a runaway pipe\n".repeat(1000);
            while stdin.write_all(chunk.as_bytes()).is_ok() {}
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert_eq!(
            err.trim_end(),
            "error: standard input: reading stopped at the input limit of 3.8 MiB; give a file \
             with only what is needed (`kubectl get nodes,pods,namespaces -A -o yaml`), or raise \
             the limit with KUBECTL_AFFINITY_MAX_INPUT_BYTES=BYTES"
        );
        assert!(start.elapsed() < Duration::from_secs(30));
    }
}

#[test]
fn binary_files_and_directories_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let bin_file = dir.path().join("image.png");
    std::fs::write(&bin_file, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff\xfe").unwrap();
    fails(
        &["whatif", "-f", s(&bin_file), "--snapshot", SNAPSHOT],
        &[&format!(
            "{}: not UTF-8 text (invalid byte at offset 0); give the YAML or JSON that kubectl prints",
            bin_file.display()
        )],
    );
    fails(
        &[
            "whatif",
            "-f",
            "examples/web-store.yaml",
            "--snapshot",
            s(dir.path()),
        ],
        &[&format!(
            "{}: is a directory; give a YAML or JSON file",
            dir.path().display()
        )],
    );
}
