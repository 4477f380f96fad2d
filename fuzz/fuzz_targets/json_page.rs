//! A page of a pod or node list as an API server sends it in JSON, through the decoders the
//! live read uses when a server answers JSON (`src/state/decode/json.rs`,
//! `src/cluster/fetch.rs`). The pager refuses a body that is not UTF-8 before decoding it.

#![no_main]

use kubectl_affinity::fuzz_entry;
use kubectl_affinity::state::decode::json;
use kubectl_affinity::state::resources::ImageNames;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = json::pod_page(text, |_| {});
    let _ = fuzz_entry::json_node_page(text, |_| {}, &ImageNames::All);
    let only = ImageNames::Only(
        ["registry.k8s.io/pause:3.10".to_string()]
            .into_iter()
            .collect(),
    );
    let _ = fuzz_entry::json_node_page(text, |_| {}, &only);
});
