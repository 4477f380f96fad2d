//! Decoding benchmarks (divan): the pod pages of a live `explain`, in protobuf (what the tool
//! asks for) and in JSON (what servers that do not speak protobuf answer), decoded into the
//! compact model and added to the state, one page after another on one core; next to them,
//! serde_json skipping the JSON bytes without building anything (the floor of any JSON
//! decoder built on it).
//!
//! ```text
//! cargo bench --bench decode
//! ```
//!
//! The live run at 150,000 pods is CPU-bound (see BENCHMARKS.md), so its time moves with
//! these per-pod costs. The pages are those `examples/bench_apiserver.rs` serves for the
//! 500-node cluster of `kubectl_affinity_testkit::cluster_gen` (15,000 pods, 500 a page), built
//! once in memory.

use std::sync::OnceLock;

use k8s_openapi::api::core::v1 as core;
use kubectl_affinity::state::decode::{json, protobuf};
use kubectl_affinity::state::{ClusterState, Node, Objects, Pod};
use kubectl_affinity_testkit::cluster_gen::{self, Size};
use kubectl_affinity_testkit::pb_encode;

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

/// The nodes, the pod pages as `examples/bench_apiserver.rs` writes them in JSON, and the
/// same pages in protobuf.
type Data = (Vec<Node>, Vec<String>, Vec<Vec<u8>>);

fn setup() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| {
        let mut nodes = Vec::new();
        let mut pods = Vec::new();
        cluster_gen::objects(SIZE, |plural, v| {
            match plural {
                "nodes" => {
                    let n: core::Node = serde_json::from_value(v).map_err(std::io::Error::other)?;
                    nodes.push(Node::from(n));
                }
                "pods" => pods.push(cluster_gen::ListItem::new(v)?),
                _ => {}
            }
            Ok(())
        })
        .expect("generate");
        cluster_gen::sort_as_listed(&mut pods);
        let pods: Vec<&cluster_gen::ListItem> = pods.iter().collect();
        let encoded: Vec<Vec<u8>> = pods
            .iter()
            .map(|p| {
                let pod: core::Pod = serde_json::from_slice(&p.json).expect("pod");
                pb_encode::pod_bytes(&pod)
            })
            .collect();
        let protobuf = encoded
            .chunks(PAGE)
            .enumerate()
            .map(|(i, page)| {
                let end = i * PAGE + page.len();
                let items: Vec<&[u8]> = page.iter().map(Vec::as_slice).collect();
                let token = format!("c-{end}");
                let more = end < encoded.len();
                pb_encode::pod_list_body(
                    &items,
                    "1000",
                    more.then_some(token.as_str()),
                    more.then(|| (encoded.len() - end) as i64),
                )
            })
            .collect();
        let pages = pods
            .chunks(PAGE)
            .enumerate()
            .map(|(i, page)| {
                let end = i * PAGE + page.len();
                let page = cluster_gen::list_page("Pod", "v1", page, end, pods.len());
                String::from_utf8(page).expect("utf-8")
            })
            .collect();
        (nodes, pages, protobuf)
    })
}

/// Pages decoded into compact pods and added to the state, page after page, as the live run
/// does.
fn decode_and_add_all<P>(
    bencher: divan::Bencher,
    nodes: &[Node],
    pages: &[P],
    decode: impl Fn(&P) -> Vec<Pod> + Sync,
) where
    P: Sync,
{
    bencher.bench(|| {
        let mut state = ClusterState::new(nodes.to_vec(), Vec::new(), Objects::default());
        for page in pages {
            for pod in decode(page) {
                state.add_pod(pod);
            }
        }
        state
    });
}

/// Every protobuf pod page, as an API server answers explain.
#[divan::bench(sample_count = 10)]
fn protobuf_decode_and_add(bencher: divan::Bencher) {
    let (nodes, _, pages) = setup();
    decode_and_add_all(bencher, nodes, pages, |page| {
        protobuf::pod_page(page, |_| {}).expect("decode")
    });
}

/// The same pages decoded into compact pods, without adding them to the state.
#[divan::bench(sample_count = 10)]
fn protobuf_decode_only(bencher: divan::Bencher) {
    let (_, _, pages) = setup();
    bencher.bench(|| {
        for page in pages {
            divan::black_box(protobuf::pod_page(page, |_| {}).expect("decode"));
        }
    });
}

/// The same pages decoded whole by `k8s-pb`'s generated messages (every field of every pod,
/// nothing built): the floor of a design that decodes the API's full protobuf types and
/// converts them into the model's parts, to weigh against the replicas' path above.
#[divan::bench(sample_count = 10)]
fn protobuf_k8s_pb_decode_only(bencher: divan::Bencher) {
    use k8s_pb::api::core::v1::PodList;
    use k8s_pb::apimachinery::pkg::runtime::Unknown;
    use prost::Message;

    let (_, _, pages) = setup();
    bencher.bench(|| {
        for page in pages {
            let envelope = Unknown::decode(&page[4..]).expect("envelope");
            let list = PodList::decode(envelope.raw.as_deref().expect("raw")).expect("decode");
            divan::black_box(list);
        }
    });
}

/// Every JSON pod page, as a server that only speaks JSON answers explain.
#[divan::bench(sample_count = 10)]
fn decode_and_add(bencher: divan::Bencher) {
    let (nodes, pages, _) = setup();
    decode_and_add_all(bencher, nodes, pages, |page| {
        json::pod_page(page, |_| {}).expect("decode")
    });
}

/// serde_json reading the same pages without keeping anything: the floor.
#[divan::bench(sample_count = 10)]
fn skip_only(bencher: divan::Bencher) {
    let (_, pages, _) = setup();
    bencher.bench(|| {
        for page in pages {
            let skipped: serde::de::IgnoredAny = serde_json::from_str(page).expect("skip");
            divan::black_box(skipped);
        }
    });
}
