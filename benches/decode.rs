//! Decoding benchmarks (divan): the pod pages of a live `explain`, decoded into the compact
//! model and added to the state, one page after another on one core, next to serde_json
//! skipping the same bytes without building anything (the floor of any JSON decoder built on
//! it).
//!
//! ```text
//! cargo bench --bench decode
//! ```
//!
//! The live run at 150,000 pods is CPU-bound (see BENCHMARKS.md), so its time moves with
//! these per-pod costs. The pages are those `examples/bench_apiserver.rs` serves for the
//! 500-node cluster of `examples/support/cluster_gen.rs` (15,000 pods, 500 a page), built
//! once in memory.

#[path = "../examples/support/cluster_gen.rs"]
mod cluster_gen;

use std::sync::OnceLock;

use cluster_gen::Size;
use k8s_openapi::api::core::v1 as core;
use kubectl_affinity::state::{ClusterState, Node, decode_pod_page};

/// The allocator the binary uses, so the figures are the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    divan::main();
}

const SIZE: Size = Size {
    nodes: 500,
    pods_per_node: 30,
};
const PAGE: usize = 500;

/// The nodes, and the pod pages as `examples/bench_apiserver.rs` writes them.
fn setup() -> &'static (Vec<Node>, Vec<String>) {
    static DATA: OnceLock<(Vec<Node>, Vec<String>)> = OnceLock::new();
    DATA.get_or_init(|| {
        let mut nodes = Vec::new();
        let mut pods = Vec::new();
        cluster_gen::objects(SIZE, |plural, v| {
            match plural {
                "nodes" => {
                    let n: core::Node = serde_json::from_value(v).map_err(std::io::Error::other)?;
                    nodes.push(Node::from(&n));
                }
                "pods" => pods.push(cluster_gen::ListItem::new(v)?),
                _ => {}
            }
            Ok(())
        })
        .expect("generate");
        cluster_gen::sort_as_listed(&mut pods);
        let pods: Vec<&cluster_gen::ListItem> = pods.iter().collect();
        let pages = pods
            .chunks(PAGE)
            .enumerate()
            .map(|(i, page)| {
                let end = i * PAGE + page.len();
                let page = cluster_gen::list_page("Pod", "v1", page, end, pods.len());
                String::from_utf8(page).expect("utf-8")
            })
            .collect();
        (nodes, pages)
    })
}

/// Every pod page decoded into compact pods and added to the state, as the live run does.
#[divan::bench(sample_count = 10)]
fn decode_and_add(bencher: divan::Bencher) {
    let (nodes, pages) = setup();
    bencher.bench(|| {
        let mut state = ClusterState::new(nodes.clone(), Vec::new(), None);
        for page in pages {
            for pod in decode_pod_page(page, |_| {}).expect("decode") {
                state.add_pod(pod);
            }
        }
        state
    });
}

/// serde_json reading the same pages without keeping anything: the floor.
#[divan::bench(sample_count = 10)]
fn skip_only(bencher: divan::Bencher) {
    let (_, pages) = setup();
    bencher.bench(|| {
        for page in pages {
            let skipped: serde::de::IgnoredAny = serde_json::from_str(page).expect("skip");
            divan::black_box(skipped);
        }
    });
}
