//! A file given with `--snapshot`, `--file` (pod manifests) or as a scheduler configuration,
//! read as the binary reads it (`src/state/read.rs`, `src/state/manifest.rs`): from a file,
//! so that the streamed JSON list, the whole-text parse, the version comment and the checks
//! after the read all run. Bytes that are not UTF-8 are part of the input.

#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use kubectl_affinity::state::{
    read_objects, read_pod_manifests, read_snapshot, recorded_version, require_nodes,
};
use libfuzzer_sys::fuzz_target;

/// One file per fuzzing process, written again for each input.
fn input_file() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        std::env::temp_dir().join(format!("kubectl-affinity-fuzz-{}.yaml", std::process::id()))
    })
}

fuzz_target!(|data: &[u8]| {
    let path = input_file();
    std::fs::write(path, data).expect("writing the fuzz input to a temporary file");
    if let Ok(state) = read_snapshot(path) {
        let _ = require_nodes(&state, path);
    }
    let _ = recorded_version(path);
    if let Ok(manifests) = read_pod_manifests(path) {
        for m in &manifests {
            let _ = m.rejection();
            let _ = m.namespace_conflict(Some("default"));
            let _ = m.workload_name();
            let _ = m.as_replica(1);
        }
    }
    let _ = read_objects(path);
});
