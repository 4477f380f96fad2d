//! Writes a deterministic, realistic cluster for benchmarks (see
//! `kubectl_affinity_testkit::cluster_gen`).
//!
//! ```text
//! cargo run --release --example gen_cluster -- NODES PODS_PER_NODE OUT_DIR
//! ```
//!
//! writes `OUT_DIR/cluster.json` (a `v1 List`: namespaces, nodes, pods, Services,
//! ReplicaSets) and `OUT_DIR/probe.json` (the pending pod `bench/probe` alone, for `whatif`).

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use kubectl_affinity_testkit::cluster_gen::{self, Size};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [nodes, per_node, dir] = args.as_slice() else {
        eprintln!("usage: gen_cluster NODES PODS_PER_NODE OUT_DIR");
        std::process::exit(2);
    };
    let size = Size {
        nodes: nodes.parse().map_err(std::io::Error::other)?,
        pods_per_node: per_node.parse().map_err(std::io::Error::other)?,
    };
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir)?;
    let mut out =
        BufWriter::with_capacity(1 << 20, std::fs::File::create(dir.join("cluster.json"))?);
    cluster_gen::write_list(size, &mut out)?;
    out.flush()?;
    std::fs::write(
        dir.join("probe.json"),
        serde_json::to_vec_pretty(&cluster_gen::probe(size)).map_err(std::io::Error::other)?,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use kubectl_affinity_testkit::cluster_gen::{Size, write_list};

    #[test]
    fn the_generator_is_deterministic_and_readable() {
        let size = Size {
            nodes: 6,
            pods_per_node: 3,
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        write_list(size, &mut a).unwrap();
        write_list(size, &mut b).unwrap();
        assert_eq!(a, b);
        let text = String::from_utf8(a).unwrap();
        let state = kubectl_affinity::state::read_snapshot_str(&text, "gen").unwrap();
        assert_eq!(state.nodes().len(), 6);
        assert_eq!(state.pods().len(), 18);
        assert!(state.workloads().is_some());
    }
}
