//! A fast local API server for whole-process benchmarks (`scripts/bench.sh`): the test kit's
//! fake API server serving the cluster `kubectl_affinity_testkit::cluster_gen` generates,
//! every object serialized once, so that the server costs as little as possible next to the
//! clients being measured (kubectl, kubectl-affinity, curl).
//!
//! ```text
//! cargo run --release --example bench_apiserver -- NODES PODS_PER_NODE PORT
//! ```
//!
//! Serves discovery, `get` and `list` of nodes, pods, namespaces, events (none), services,
//! replicationcontrollers (none), replicasets and statefulsets (none), without authentication.
//! Pod and node lists come in protobuf when the request accepts
//! `application/vnd.kubernetes.protobuf`, in JSON otherwise. Continue tokens are `c-OFFSET`,
//! the same in both encodings. Selectors are ignored: every generated pod is Running or
//! Pending. Prints `ready ADDRESS` on stdout once listening.

use kubectl_affinity_testkit::cluster_gen::Size;
use kubectl_affinity_testkit::fake_api::FakeApi;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [nodes, per_node, port] = args.as_slice() else {
        eprintln!("usage: bench_apiserver NODES PODS_PER_NODE PORT");
        std::process::exit(2);
    };
    let size = Size {
        nodes: nodes.parse().map_err(std::io::Error::other)?,
        pods_per_node: per_node.parse().map_err(std::io::Error::other)?,
    };
    let fake = FakeApi::generated(size, port.parse().unwrap_or(0))?;
    println!("ready {}", fake.addr);
    // The server runs on its own threads until the process is killed.
    loop {
        std::thread::park();
    }
}
