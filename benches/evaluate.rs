//! Evaluation benchmarks (divan): one pending pod carrying every rule kind (required and
//! preferred node affinity, pod affinity and anti-affinity on zone and hostname, tolerations)
//! against generated clusters, producing the full per-node explanation.
//!
//! ```text
//! cargo bench --bench evaluate
//! ```
//!
//! The clusters come from `kubectl_affinity_testkit::cluster_gen`, built once per size in
//! memory.

use std::sync::OnceLock;

use kubectl_affinity::pipeline::controllers::Order;
use kubectl_affinity::pipeline::explain_pod;
use kubectl_affinity::pipeline::replicas::{WorkloadRun, simulate};
use kubectl_affinity::scheduler::config::FeatureGates;
use kubectl_affinity::scheduler::profile::Profile;
use kubectl_affinity::scheduler::workload::TieBreak;
use kubectl_affinity::scheduler::{Input, evaluate};
use kubectl_affinity::state::{ClusterState, Pod, read_snapshot_str};
use kubectl_affinity_testkit::cluster_gen::{self, Size};

/// How many replicas of the probe `place_replicas` schedules.
const REPLICAS: usize = 1_000;

/// The allocator the binary uses, so the figures are the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    divan::main();
}

const SIZES: &[(usize, usize)] = &[(500, 30), (5000, 30)];

/// The cluster and the probe pod, once per size.
fn setup(nodes: usize) -> &'static (ClusterState, Pod) {
    static SMALL: OnceLock<(ClusterState, Pod)> = OnceLock::new();
    static LARGE: OnceLock<(ClusterState, Pod)> = OnceLock::new();
    let cell = if nodes <= 500 { &SMALL } else { &LARGE };
    cell.get_or_init(|| {
        let size = Size {
            nodes,
            pods_per_node: SIZES.iter().find(|s| s.0 == nodes).map_or(30, |s| s.1),
        };
        let mut text = Vec::new();
        cluster_gen::write_list(size, &mut text).expect("generate");
        let text = String::from_utf8(text).expect("utf-8");
        let state = read_snapshot_str(&text, "generated").expect("read");
        let probe: k8s_openapi::api::core::v1::Pod =
            serde_json::from_value(cluster_gen::probe(size)).expect("probe");
        (state, Pod::from_api(&probe))
    })
}

/// `scheduler::evaluate`: every Filter on every node, every Score on the candidates.
#[divan::bench(args = [500, 5000], sample_count = 20)]
fn evaluate_probe(bencher: divan::Bencher, nodes: usize) {
    let (state, pod) = setup(nodes);
    let profile = Profile::default_profile(FeatureGates::default());
    bencher.bench(|| {
        evaluate(
            Input {
                pod,
                state,
                exclude: None,
                removed: &[],
            },
            &profile,
        )
    });
}

/// `scheduler::evaluate` of the probe at priority 1000 asking for 15 cpu, which no node has
/// free: every node fails, and DefaultPreemption's dry run looks for victims among the
/// priority-0 pods of every node that failed as Unschedulable.
#[divan::bench(args = [500, 5000], sample_count = 10)]
fn preempt_probe(bencher: divan::Bencher, nodes: usize) {
    let (state, _) = setup(nodes);
    let pod = preemptor(nodes);
    let profile = Profile::default_profile(FeatureGates::default());
    bencher.bench(|| {
        evaluate(
            Input {
                pod,
                state,
                exclude: None,
                removed: &[],
            },
            &profile,
        )
    });
}

/// The probe, made to preempt: priority 1000, 15 cpu.
fn preemptor(nodes: usize) -> &'static Pod {
    static SMALL: OnceLock<Pod> = OnceLock::new();
    static LARGE: OnceLock<Pod> = OnceLock::new();
    let cell = if nodes <= 500 { &SMALL } else { &LARGE };
    cell.get_or_init(|| {
        let size = Size {
            nodes,
            pods_per_node: 30,
        };
        let mut probe = cluster_gen::probe(size);
        probe["spec"]["priority"] = 1000.into();
        probe["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "15".into();
        let probe: k8s_openapi::api::core::v1::Pod = serde_json::from_value(probe).expect("probe");
        Pod::from_api(&probe)
    })
}

/// `pipeline::explain_pod`: the evaluation plus the explanation document every renderer reads.
#[divan::bench(args = [500, 5000], sample_count = 20)]
fn explain_probe(bencher: divan::Bencher, nodes: usize) {
    let (state, pod) = setup(nodes);
    let profile = Profile::default_profile(FeatureGates::default());
    bencher.bench(|| explain_pod(pod, state, None, &profile, Vec::new(), Default::default()));
}

/// `pipeline::replicas::simulate`: `REPLICAS` replicas of the probe (a Deployment's, say)
/// scheduled one after another, each assumed onto its node before the next cycle, with the
/// explanation of the one the output shows. The copy of the state each sample starts from,
/// and freeing it, are not timed.
#[divan::bench(args = [500, 5000], sample_count = 3, sample_size = 1)]
fn place_replicas(bencher: divan::Bencher, nodes: usize) {
    let (state, _) = setup(nodes);
    let profile = Profile::default_profile(FeatureGates::default());
    let size = Size {
        nodes,
        pods_per_node: 30,
    };
    let replicas: Vec<Pod> = (0..REPLICAS)
        .map(|i| {
            let mut probe: k8s_openapi::api::core::v1::Pod =
                serde_json::from_value(cluster_gen::probe(size)).expect("probe");
            probe.metadata.name = Some(format!("probe-<pod-{i}>"));
            Pod::from_api(&probe)
        })
        .collect();
    let run = |replicas: Vec<Pod>| WorkloadRun {
        kind: "Deployment".to_string(),
        name: "probe".to_string(),
        replicas,
        order: Order::AtOnce,
        explain: None,
        tie: TieBreak::FirstByName,
        seed: None,
        read: Vec::new(),
        subject: Default::default(),
    };
    // What the figure is of: how many replicas find a node (the probe's hostname
    // anti-affinity allows one per node, its zone affinity only some zones).
    let doc = simulate(run(replicas.clone()), &mut state.clone(), &profile).expect("doc");
    let w = doc.workload.expect("workload");
    eprintln!(
        "place_replicas at {nodes} nodes: {} placed, {} pending",
        w.placed, w.pending
    );
    bencher
        .with_inputs(|| (state.clone(), replicas.clone()))
        .bench_local_values(|(mut state, replicas)| {
            let doc = simulate(run(replicas), &mut state, &profile);
            (state, doc)
        });
}
