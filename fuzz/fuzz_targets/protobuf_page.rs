//! A page of a pod or node list as an API server sends it in protobuf
//! (`application/vnd.kubernetes.protobuf`), through the calls the live read makes on it
//! (`src/cluster/pager.rs`, `src/cluster/fetch.rs`): the continue token read from the first
//! frames, the whole page decoded from its frames, and an error answer's `Status`.
//!
//! The first byte of the input cuts the body into frames of that many bytes (0: one frame),
//! as hyper hands a body over in pieces. Besides "no panic, no hang", two things the pager
//! relies on are checked: the pods decoded from frames are those decoded from the joined
//! body, and a continue token read early is the one the whole decode reads.

#![no_main]

use kubectl_affinity::state::decode::protobuf::{self, ListStart};
use kubectl_affinity::state::resources::ImageNames;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&cut, body)) = data.split_first() else {
        return;
    };
    let frames: Vec<&[u8]> = if cut == 0 {
        vec![body]
    } else {
        body.chunks(usize::from(cut)).collect()
    };
    for kind in ["PodList", "NodeList"] {
        let early = early_token(&frames, kind);
        let mut token = None;
        let decoded = if kind == "PodList" {
            let framed = protobuf::pod_frames(&frames, |t| token = Some(t));
            let joined = protobuf::pod_page(body, |_| {});
            assert_eq!(
                format!("{framed:?}"),
                format!("{joined:?}"),
                "pods from frames of {cut} bytes differ from those of the whole body"
            );
            framed.is_ok()
        } else {
            let only = ImageNames::Only(
                ["registry.k8s.io/pause:3.10".to_string()]
                    .into_iter()
                    .collect(),
            );
            let _ = protobuf::node_frames(&frames, |_| {}, &only);
            protobuf::node_frames(&frames, |t| token = Some(t), &ImageNames::All).is_ok()
        };
        if let (true, Some(early)) = (decoded, early) {
            assert_eq!(
                token,
                Some(early),
                "the continue token read early is not the one the whole {kind} says"
            );
        }
    }
    let _ = protobuf::status(body);
});

/// As the pager's `early_token`: the list's start read again after each frame arrives, until
/// it says the token or that the body is not a list of `kind`.
fn early_token(frames: &[&[u8]], kind: &str) -> Option<Option<String>> {
    let mut prefix = Vec::new();
    for frame in frames {
        prefix.extend_from_slice(frame);
        match protobuf::list_start(&prefix, kind) {
            ListStart::Continue(token) => return Some(token),
            ListStart::NeedMore => {}
            ListStart::Unknown => return None,
        }
    }
    None
}
