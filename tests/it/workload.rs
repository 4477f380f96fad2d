//! `whatif` of a workload, run in this process as the binary runs it: every replica scheduled
//! in turn with the earlier ones assumed, ties said, the Pending ones with the scheduler's
//! message, the exit code, and the flags that choose the count, the replica shown and the
//! tie-break.

use std::io::Write;

use serde_json::Value;

use crate::support::run;

/// Four usable nodes in zones z1 and z2, and a tainted one alone in zone z3.
const NODES: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1, zone: z1}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {kubernetes.io/hostname: n2, zone: z1}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n3, labels: {kubernetes.io/hostname: n3, zone: z2}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n4, labels: {kubernetes.io/hostname: n4, zone: z2}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: t1, labels: {kubernetes.io/hostname: t1, zone: z3}}, spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
"#;

/// Five replicas that may not share a node.
const ANTI_AFFINITY: &str = r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 5
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: web}}
            topologyKey: kubernetes.io/hostname
"#;

/// Four replicas spread over zones with maxSkew 1.
const SPREAD: &str = r#"
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  replicas: 4
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, image: postgres, resources: {requests: {cpu: 100m}}}]
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: db}}}
"#;

/// A file in a directory that lives as long as the test.
struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn new() -> Files {
        Files {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    fn write(&self, name: &str, text: &str) -> String {
        let path = self.dir.path().join(name);
        let mut f = std::fs::File::create(&path).expect("create");
        f.write_all(text.as_bytes()).expect("write");
        path.display().to_string()
    }
}

/// `whatif -f manifest --snapshot nodes -o json` with `extra` flags.
fn whatif_json(manifest: &str, nodes: &str, extra: &[&str]) -> Value {
    let files = Files::new();
    let (m, n) = (
        files.write("m.yaml", manifest),
        files.write("n.yaml", nodes),
    );
    let mut args = vec!["whatif", "-f", &m, "--snapshot", &n, "-o", "json"];
    args.extend(extra);
    let out = run(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

/// Each replica's node, "Pending" for none.
fn nodes(doc: &Value) -> Vec<String> {
    doc["workload"]["pods"]
        .as_array()
        .expect("pods")
        .iter()
        .map(|p| p["node"].as_str().unwrap_or("Pending").to_string())
        .collect()
}

fn tied(doc: &Value, replica: usize) -> Vec<String> {
    doc["workload"]["pods"][replica]["tiedWith"]
        .as_array()
        .expect("tiedWith")
        .iter()
        .map(|n| n.as_str().expect("name").to_string())
        .collect()
}

const ANTI_AFFINITY_MESSAGE: &str = "0/5 nodes are available: 1 node(s) had untolerated \
    taint(s), 4 node(s) didn't match pod anti-affinity rules. no new claims to deallocate, \
    preemption: 0/5 nodes are available: 1 Preemption is not helpful for scheduling, 4 No \
    preemption victims found for incoming pod.";

/// Five replicas with required hostname anti-affinity on four untainted nodes, one removed
/// from the candidates with `--node`-free means: cordoned. Three are placed, two stay
/// Pending with the scheduler's message, and `--exit-code` exits 3.
#[test]
fn anti_affinity_places_one_replica_per_feasible_node() {
    // Three feasible nodes: n4 cordoned.
    let nodes_text = NODES.replace(
        "{apiVersion: v1, kind: Node, metadata: {name: n4,",
        "{apiVersion: v1, kind: Node, spec: {unschedulable: true}, metadata: {name: n4,",
    );
    let doc = whatif_json(ANTI_AFFINITY, &nodes_text, &[]);
    let w = &doc["workload"];
    assert_eq!(w["kind"], "Deployment");
    assert_eq!(
        (w["name"].as_str(), w["namespace"].as_str()),
        (Some("web"), Some("shop"))
    );
    assert_eq!(
        (
            w["replicas"].as_u64(),
            w["placed"].as_u64(),
            w["pending"].as_u64()
        ),
        (Some(5), Some(3), Some(2))
    );
    assert_eq!(nodes(&doc), ["n1", "n2", "n3", "Pending", "Pending"]);
    let names: Vec<&str> = w["pods"]
        .as_array()
        .expect("pods")
        .iter()
        .map(|p| p["name"].as_str().expect("name"))
        .collect();
    assert_eq!(
        names,
        [
            "web-<pod-0>",
            "web-<pod-1>",
            "web-<pod-2>",
            "web-<pod-3>",
            "web-<pod-4>"
        ]
    );
    let message = "0/5 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were \
        unschedulable, 3 node(s) didn't match pod anti-affinity rules. no new claims to \
        deallocate, preemption: 0/5 nodes are available: 2 Preemption is not helpful for \
        scheduling, 3 No preemption victims found for incoming pod.";
    for i in [3, 4] {
        assert_eq!(w["pods"][i]["failedSchedulingMessage"], message);
        assert!(w["pods"][i]["node"].is_null());
    }
    assert!(w["pods"][0]["failedSchedulingMessage"].is_null());
    // The explanation beside it is the first Pending replica's.
    assert_eq!(w["explained"], 3);
    assert_eq!(doc["pod"]["name"], "web-<pod-3>");
    assert_eq!(doc["summary"]["failedSchedulingMessage"], message);

    let files = Files::new();
    let (m, n) = (
        files.write("m.yaml", ANTI_AFFINITY),
        files.write("n.yaml", &nodes_text),
    );
    let out = run(&["whatif", "-f", &m, "--snapshot", &n, "--exit-code"]);
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("Deployment shop/web: 5 replicas, 3 placed, 2 Pending\n"),
        "{text}"
    );
    assert!(
        text.contains(&format!("FailedScheduling #1: {message}\n")),
        "{text}"
    );
    assert!(
        text.contains("\nReplica 3 (web-<pod-3>), node by node:\n"),
        "{text}"
    );
    // Without --exit-code, and with every replica placed, the exit is 0.
    assert_eq!(
        run(&["whatif", "-f", &m, "--snapshot", &n]).status.code(),
        Some(0)
    );
    let placed = run(&[
        "whatif",
        "-f",
        &m,
        "--snapshot",
        &n,
        "--exit-code",
        "--replicas",
        "3",
    ]);
    assert_eq!(placed.status.code(), Some(0));
}

/// A StatefulSet spread over zones with maxSkew 1, beside a zone whose only node is tainted:
/// that zone still counts as a domain with no pod (nodeTaintsPolicy Ignore), so once each
/// usable zone holds one replica no zone can take another.
#[test]
fn zone_spread_is_held_back_by_an_unusable_zone() {
    let doc = whatif_json(SPREAD, NODES, &[]);
    assert_eq!(nodes(&doc), ["n1", "n3", "Pending", "Pending"]);
    let names: Vec<&str> = doc["workload"]["pods"]
        .as_array()
        .expect("pods")
        .iter()
        .map(|p| p["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["db-0", "db-1", "db-2", "db-3"]);
    let message = "0/5 nodes are available: 1 node(s) had untolerated taint(s), 4 node(s) \
        didn't match pod topology spread constraints. no new claims to deallocate, preemption: \
        0/5 nodes are available: 1 Preemption is not helpful for scheduling, 4 No preemption \
        victims found for incoming pod.";
    assert_eq!(
        doc["workload"]["pods"][2]["failedSchedulingMessage"],
        message
    );
    // OrderedReady: db-3 is not created while db-2 is Pending.
    let last = &doc["workload"]["pods"][3];
    assert!(last["failedSchedulingMessage"].is_null() && last["node"].is_null());
    assert_eq!(last["notCreated"]["waitsFor"], "db-2");
    assert_eq!(
        (
            doc["workload"]["pending"].as_u64(),
            doc["workload"]["notCreated"].as_u64()
        ),
        (Some(1), Some(1))
    );
    // db-1 avoids zone z1 (n2 would make it 2 against z3's 0).
    assert_eq!(tied(&doc, 1), ["n4"]);
    // Ordinals from spec.ordinals.start.
    let shifted = SPREAD.replace(
        "  serviceName: db\n",
        "  serviceName: db\n  ordinals: {start: 5}\n",
    );
    let doc = whatif_json(&shifted, NODES, &["--replicas", "2"]);
    assert_eq!(doc["workload"]["pods"][1]["name"], "db-6");
    assert_eq!(doc["workload"]["replicas"], 2);
}

/// A tie at the top score lists the other nodes, the first by name is taken, and the note
/// says a tie could change what follows; a seed picks at random, the same way each time.
#[test]
fn ties_are_reported_and_seeded() {
    let doc = whatif_json(ANTI_AFFINITY, NODES, &["--replicas", "2"]);
    assert_eq!(nodes(&doc), ["n1", "n2"]);
    assert_eq!(tied(&doc, 0), ["n2", "n3", "n4"]);
    assert_eq!(tied(&doc, 1), ["n3", "n4"]);
    assert_eq!(
        doc["workload"]["pods"][0]["score"],
        doc["workload"]["pods"][1]["score"]
    );
    assert_eq!(
        doc["workload"]["notes"][1],
        "replica 0 tied between 4 nodes at its top score: n1 was picked, the first by name \
         (--seed S picks at random); kube-scheduler 1.35 takes an arbitrary one of them, \
         earlier releases a random one (2 replicas had a tie), so the replicas after it may \
         land elsewhere"
    );
    // All placed: the explanation is the first replica's.
    assert_eq!(doc["workload"]["explained"], 0);
    let seeded = |seed: &str| {
        nodes(&whatif_json(
            ANTI_AFFINITY,
            NODES,
            &["--replicas", "4", "--seed", seed],
        ))
    };
    let a = seeded("42");
    assert_eq!(a, seeded("42"), "the same seed, the same picks");
    let mut sorted = a.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        ["n1", "n2", "n3", "n4"],
        "one per node whatever the order"
    );
    let picks: std::collections::BTreeSet<Vec<String>> = ["1", "2", "3", "4", "5"]
        .iter()
        .map(|s| seeded(s))
        .collect();
    assert!(picks.len() > 1, "seeds pick differently: {picks:?}");
}

/// `--replica K` shows replica K node by node; the flags are refused where they cannot apply.
#[test]
fn replica_drill_down_and_flag_errors() {
    let doc = whatif_json(ANTI_AFFINITY, NODES, &["--replica", "1"]);
    assert_eq!(doc["workload"]["explained"], 1);
    assert_eq!(doc["pod"]["name"], "web-<pod-1>");
    // Replica 1 ran with replica 0 on n1: n1 rejects it.
    let n1 = doc["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .find(|n| n["name"] == "n1")
        .expect("n1");
    assert_eq!(n1["verdict"], "Infeasible");
    assert_eq!(
        doc["workload"]["pods"][4]["failedSchedulingMessage"],
        ANTI_AFFINITY_MESSAGE
    );

    let files = Files::new();
    let n = files.write("n.yaml", NODES);
    let m = files.write("m.yaml", ANTI_AFFINITY);
    let out = run(&["whatif", "-f", &m, "--snapshot", &n, "--replica", "5"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "error: --replica 5: the workload has 5 replica(s), numbered from 0; pass --replica 4 \
         at most, or --replicas 6 to schedule more"
    );
    let pod = files.write(
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: x}]}\n",
    );
    let out = run(&["whatif", "-f", &pod, "--snapshot", &n, "--replicas", "3"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "--replicas applies to a workload with replicas (Deployment, ReplicaSet, \
             ReplicationController, StatefulSet, Job, CronJob)"
        ),
        "{stderr}"
    );
    let none = files.write(
        "zero.yaml",
        &ANTI_AFFINITY.replace("replicas: 5", "replicas: 0"),
    );
    let out = run(&["whatif", "-f", &none, "--snapshot", &n]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Deployment/web has no pod to schedule (replicas 0)"),
        "{stderr}"
    );
}

/// A Job runs `parallelism` pods, no more than its `completions`; a CronJob its job's.
#[test]
fn jobs_run_their_parallelism() {
    const TEMPLATE: &str = "{metadata: {labels: {app: web}}, spec: {restartPolicy: Never, \
        containers: [{name: c, image: x}], affinity: {podAntiAffinity: \
        {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: \
        {app: web}}, topologyKey: kubernetes.io/hostname}]}}}}";
    let job = |spec: &str| {
        format!(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: j}}\nspec: {{{spec} template: {TEMPLATE}}}\n"
        )
    };
    let count = |doc: &Value| doc["workload"]["replicas"].as_u64();
    assert_eq!(count(&whatif_json(&job(""), NODES, &[])), Some(1));
    assert_eq!(
        count(&whatif_json(&job("parallelism: 3,"), NODES, &[])),
        Some(3)
    );
    let doc = whatif_json(&job("parallelism: 3, completions: 2,"), NODES, &[]);
    assert_eq!(count(&doc), Some(2));
    assert_eq!(doc["workload"]["kind"], "Job");
    let cron = format!(
        "apiVersion: batch/v1\nkind: CronJob\nmetadata: {{name: j}}\nspec: {{schedule: '* * * * *', \
         jobTemplate: {{spec: {{parallelism: 6, template: {TEMPLATE}}}}}}}\n"
    );
    let doc = whatif_json(&cron, NODES, &[]);
    assert_eq!(count(&doc), Some(6));
    assert_eq!(nodes(&doc), ["n1", "n2", "n3", "n4", "Pending", "Pending"]);
}

/// `--exit-code` exits 3 when a DaemonSet pod would stay Pending on a node its controller
/// creates it for, though other nodes take theirs.
#[test]
fn daemon_set_pods_left_pending_exit_3() {
    let busy = NODES.to_string()
        + "- {apiVersion: v1, kind: Pod, metadata: {name: big, namespace: shop}, spec: {nodeName: n1, \
           containers: [{name: c, image: x, resources: {requests: {cpu: 3500m}}}]}, \
           status: {phase: Running}}\n";
    let ds = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: shop}\n\
              spec: {selector: {matchLabels: {app: agent}}, template: {metadata: {labels: {app: agent}}, \
              spec: {containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]}}}\n";
    let doc = whatif_json(ds, &busy, &[]);
    assert_eq!(doc["daemonSet"]["pending"], serde_json::json!(["n1"]));
    assert_eq!(
        doc["daemonSet"]["runs"],
        serde_json::json!(["n2", "n3", "n4"])
    );
    let files = Files::new();
    let (m, n) = (files.write("ds.yaml", ds), files.write("n.yaml", &busy));
    let out = run(&["whatif", "-f", &m, "--snapshot", &n, "--exit-code"]);
    assert_eq!(out.status.code(), Some(3));
    let out = run(&["whatif", "-f", &m, "--snapshot", &n]);
    assert_eq!(out.status.code(), Some(0));
}

/// A new Deployment's replicas are its ReplicaSet's, as its controller creates them: the
/// note says so, and the old note on default spreading without a controller is gone.
#[test]
fn a_new_deployments_replicas_are_its_replica_sets() {
    let doc = whatif_json(ANTI_AFFINITY, NODES, &["--replicas", "2"]);
    let notes = doc["workload"]["notes"].as_array().expect("notes");
    let first = notes[0].as_str().expect("a note");
    assert!(
        first.starts_with(
            "the replicas are created as the Deployment controller creates them: owned by \
             ReplicaSet/web-"
        ) && first.contains("labelled pod-template-hash=")
            && first.ends_with("; all at once"),
        "{first}"
    );
    assert!(
        !notes
            .iter()
            .any(|n| n.to_string().contains("without a controller")),
        "{notes:?}"
    );
}

/// Over 100 nodes kube-scheduler stops filtering once it has found
/// `numFeasibleNodesToFind` feasible nodes: at 120 nodes, 100 (50% of 120 is below the
/// floor of 100); the note says how many replicas had more feasible nodes than that.
#[test]
fn sampling_over_100_nodes_is_said() {
    let mut nodes = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for i in 0..120 {
        nodes.push_str(&format!(
            "- {{apiVersion: v1, kind: Node, metadata: {{name: n{i:03}, labels: \
             {{kubernetes.io/hostname: n{i:03}}}}}, status: {{allocatable: {{cpu: '4', \
             memory: 8Gi, pods: '110'}}}}}}\n"
        ));
    }
    // 22 replicas, one a node: replica K sees 120 - K feasible nodes, over 100 for the
    // first 20.
    let doc = whatif_json(ANTI_AFFINITY, &nodes, &["--replicas", "22"]);
    assert_eq!(doc["workload"]["placed"], 22);
    let notes = doc["workload"]["notes"].as_array().expect("notes");
    assert!(
        notes.contains(&Value::from(
            "on 120 nodes kube-scheduler stops filtering once it has found 100 feasible nodes \
             (percentageOfNodesToScore; numFeasibleNodesToFind), starting where the previous \
             cycle stopped: 20 replica(s) had more feasible nodes and would land on the best of \
             such a subset, not necessarily the node shown"
        )),
        "{notes:?}"
    );
    // Under 101 nodes, no such note.
    let doc = whatif_json(ANTI_AFFINITY, NODES, &[]);
    let notes = doc["workload"]["notes"].to_string();
    assert!(!notes.contains("stops filtering"), "{notes}");
}

/// `--diff` with an edit keeps the exit code's rule: with `-o json` too, a replica left
/// Pending exits 3, also when the replica shown (`--replica 0`) has nodes that fit, and the
/// document carries the placements before and after.
#[test]
fn a_diffed_workload_with_pending_replicas_exits_3() {
    let files = Files::new();
    let (m, n) = (
        files.write("m.yaml", ANTI_AFFINITY),
        files.write("n.yaml", NODES),
    );
    for output in ["json", "table"] {
        let out = run(&[
            "whatif",
            "-f",
            &m,
            "--snapshot",
            &n,
            "--cordon",
            "n1",
            "--diff",
            "--exit-code",
            "--replica",
            "0",
            "-o",
            output,
        ]);
        assert_eq!(
            out.status.code(),
            Some(3),
            "-o {output}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = run(&[
        "whatif",
        "-f",
        &m,
        "--snapshot",
        &n,
        "--cordon",
        "n1",
        "--diff",
        "-o",
        "json",
    ]);
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    // Three usable nodes after the cordon: three placed, two Pending.
    assert_eq!(doc["workload"]["placed"], 3, "{}", doc["workload"]);
    assert!(doc.get("diff").is_some(), "{doc}");
}

/// OrderedReady against Parallel: the same StatefulSet, Parallel, creates db-3 beside the
/// Pending db-2, and db-3 runs its own cycle and stays Pending with the scheduler's message;
/// OrderedReady (the default) does not create it and says whom it waits for.
#[test]
fn parallel_creates_every_ordinal_ordered_ready_waits() {
    let message = "0/5 nodes are available: 1 node(s) had untolerated taint(s), 4 node(s) \
        didn't match pod topology spread constraints. no new claims to deallocate, preemption: \
        0/5 nodes are available: 1 Preemption is not helpful for scheduling, 4 No preemption \
        victims found for incoming pod.";
    let parallel = SPREAD.replace(
        "  serviceName: db\n",
        "  serviceName: db\n  podManagementPolicy: Parallel\n",
    );
    let doc = whatif_json(&parallel, NODES, &[]);
    let w = &doc["workload"];
    assert_eq!(nodes(&doc), ["n1", "n3", "Pending", "Pending"]);
    for i in [2, 3] {
        assert_eq!(w["pods"][i]["failedSchedulingMessage"], message);
        assert!(w["pods"][i].get("notCreated").is_none());
    }
    assert_eq!(w["pending"], 2);
    assert!(w.get("notCreated").is_none());
    assert!(
        w["notes"][0].as_str().is_some_and(|n| n.starts_with(
            "the replicas are created as the StatefulSet controller creates them: owned by \
             StatefulSet/db"
        ) && n.ends_with("; all at once")),
        "{}",
        w["notes"]
    );
    let ordered = whatif_json(SPREAD, NODES, &[]);
    let w = &ordered["workload"];
    assert_eq!(w["pods"][3]["notCreated"]["waitsFor"], "db-2");
    assert!(
        w["notes"][0]
            .as_str()
            .is_some_and(|n| n.ends_with("so none after a Pending one")),
        "{}",
        w["notes"]
    );
    // The table says it too.
    let files = Files::new();
    let (m, n) = (files.write("m.yaml", SPREAD), files.write("n.yaml", NODES));
    let out = run(&["whatif", "-f", &m, "--snapshot", &n]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("StatefulSet shop/db: 4 replicas, 2 placed, 1 Pending, 1 not created\n"),
        "{text}"
    );
    assert!(text.contains("not created: waits for db-2"), "{text}");
}

/// Two nodes with one GPU each, a DeviceClass, and a claim template for one GPU.
const ONE_GPU_A_NODE: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: gpu}, spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}}
- {apiVersion: resource.k8s.io/v1, kind: ResourceSlice, metadata: {name: n1-gpus}, spec: {driver: gpu.example.com, nodeName: n1, pool: {name: n1, generation: 1, resourceSliceCount: 1}, devices: [{name: gpu-0}]}}
- {apiVersion: resource.k8s.io/v1, kind: ResourceSlice, metadata: {name: n2-gpus}, spec: {driver: gpu.example.com, nodeName: n2, pool: {name: n2, generation: 1, resourceSliceCount: 1}, devices: [{name: gpu-0}]}}
- {apiVersion: resource.k8s.io/v1, kind: ResourceClaimTemplate, metadata: {name: one-gpu, namespace: shop}, spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}}}
"#;

/// DRA: each replica's claim is allocated where the replica is placed (DynamicResources'
/// Reserve), so the next replica's allocator finds that GPU in use: three pods of a Job (no
/// default spreading to part them) each claiming one GPU take n1, then n2, and the third
/// finds none, with the scheduler's message.
#[test]
fn each_replica_sees_the_devices_allocated_to_the_ones_before() {
    let job = r#"
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: shop}
spec:
  parallelism: 3
  template:
    spec:
      restartPolicy: Never
      resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
      containers: [{name: c, image: trainer, resources: {claims: [{name: gpu}]}}]
"#;
    let doc = whatif_json(job, ONE_GPU_A_NODE, &[]);
    assert_eq!(nodes(&doc), ["n1", "n2", "Pending"]);
    assert_eq!(
        doc["workload"]["pods"][2]["failedSchedulingMessage"],
        "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, \
         preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    );
    // The third replica is explained: on n1, the GPU is the first replica's claim's.
    assert_eq!(doc["workload"]["explained"], 2);
    let n1 = (doc["nodes"].as_array().expect("nodes").iter())
        .find(|n| n["name"] == "n1")
        .expect("n1");
    let reasons = n1["dra"].to_string();
    assert!(reasons.contains("shop/train-<pod-0>-gpu-"), "{reasons}");
}

/// A Job's pods carry the labels the API server gives a Job's template (`job-name`...), so a
/// rule that selects them by those labels counts the earlier pods; a CronJob's pods are its
/// Job's. The notes say how the controller made them and which names are stand-ins.
#[test]
fn job_and_cron_job_pods_carry_their_jobs_labels() {
    const TEMPLATE: &str = "{spec: {restartPolicy: Never, containers: [{name: c, image: x}], \
        affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: \
        [{labelSelector: {matchExpressions: [{key: batch.kubernetes.io/controller-uid, \
        operator: Exists}]}, matchLabelKeys: [batch.kubernetes.io/job-name], \
        topologyKey: kubernetes.io/hostname}]}}}}";
    let job = format!(
        "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: train, namespace: shop}}\nspec: \
         {{parallelism: 5, completions: 8, template: {TEMPLATE}}}\n"
    );
    let doc = whatif_json(&job, NODES, &[]);
    assert_eq!(nodes(&doc), ["n1", "n2", "n3", "n4", "Pending"]);
    let w = &doc["workload"];
    assert_eq!(
        w["pods"][4]["failedSchedulingMessage"],
        "0/5 nodes are available: 1 node(s) had untolerated taint(s), 4 node(s) didn't match \
         pod anti-affinity rules. no new claims to deallocate, preemption: 0/5 nodes are \
         available: 1 Preemption is not \
         helpful for scheduling, 4 No preemption victims found for incoming pod."
    );
    let note = w["notes"][0].as_str().expect("the controller's note");
    assert!(
        note.starts_with(
            "the replicas are created as the Job controller creates them: owned by Job/train \
             (their controller, which default spreading does not read), labelled \
             batch.kubernetes.io/controller-uid="
        ) && note.contains("job-name=train")
            && note.contains(
                "5 pods at once (the Job controller's parallelism, at most its completions)"
            ),
        "{note}"
    );
    let cron = format!(
        "apiVersion: batch/v1\nkind: CronJob\nmetadata: {{name: nightly, namespace: shop}}\n\
         spec: {{schedule: '0 1 * * *', jobTemplate: {{spec: {{parallelism: 2, template: \
         {TEMPLATE}}}}}}}\n"
    );
    let doc = whatif_json(&cron, NODES, &[]);
    assert_eq!(nodes(&doc), ["n1", "n2"]);
    let note = doc["workload"]["notes"][0].as_str().expect("note");
    assert!(
        note.contains("owned by Job/nightly-00000000")
            && note.contains("job-name=nightly-00000000")
            && note.contains("the CronJob's Job is named nightly-00000000: 00000000 stands in"),
        "{note}"
    );
}
