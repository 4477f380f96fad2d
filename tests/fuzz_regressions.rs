//! Inputs the cargo-fuzz targets in `fuzz/` found wrong handling for (`scripts/fuzz.sh`),
//! each kept as the smallest body that shows it, through the same entry points.

use kubectl_affinity::state::decode::protobuf::{self, ListStart, ProtobufError};
use kubectl_affinity_testkit::pb_encode;

/// A pod list page with a continue token, then a second object in the envelope (field 2
/// again): an empty list without metadata. Go's decoder keeps the last object, the continue
/// token read from the first bytes is the first one's: the page read whole said "last page"
/// while the next page was already asked for with the early token. Found by
/// `protobuf_page`.
#[test]
fn protobuf_envelope_with_two_objects_is_refused() {
    let mut body = pb_encode::pod_list_body(&[], "1234", Some("next"), Some(5));
    // Envelope field 2 (raw), 2 bytes: list field 4, empty.
    body.extend_from_slice(&[0x12, 0x02, 0x22, 0x00]);
    assert_eq!(
        protobuf::list_start(&body, "PodList"),
        ListStart::Continue(Some("next".to_string()))
    );
    let decoded = protobuf::pod_frames(&[&body[..]], |_| {});
    assert!(
        matches!(decoded, Err(ProtobufError::SeveralObjects)),
        "{decoded:?}"
    );
    // The same body in frames of 7 bytes, as it may arrive.
    let frames: Vec<&[u8]> = body.chunks(7).collect();
    assert!(matches!(
        protobuf::pod_frames(&frames, |_| {}),
        Err(ProtobufError::SeveralObjects)
    ));
    // The node list reads its envelope the same way.
    let mut nodes = pb_encode::list_body("NodeList", &[], "1", Some("next"), None);
    nodes.extend_from_slice(&[0x12, 0x02, 0x22, 0x00]);
    assert!(matches!(
        protobuf::node_frames(&[&nodes[..]], |_| {}, &Default::default()),
        Err(ProtobufError::SeveralObjects)
    ));
    // One object, as API servers write it, still reads.
    let one = pb_encode::pod_list_body(&[], "1234", Some("next"), Some(5));
    let mut token = None;
    assert!(protobuf::pod_page(&one, |t| token = Some(t)).is_ok());
    assert_eq!(token, Some(Some("next".to_string())));
}
