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

/// A kubeconfig file that starts with a UTF-16 byte-order mark and has an odd number of
/// bytes: kube's reader panicked on it (it indexes past the last, short pair of bytes). It is
/// refused, naming the file. Found by `kubeconfig`.
#[test]
fn kubeconfig_in_utf16_with_an_odd_byte_count_is_refused() {
    use kubectl_affinity::cluster::{ClusterError, KubeArgs, Live, Timeout, context_namespace};
    let dir = tempfile::tempdir().expect("temporary directory");
    for bom in [[0xFE, 0xFF], [0xFF, 0xFE]] {
        let path = dir.path().join("kubeconfig");
        let mut bytes = bom.to_vec();
        bytes.extend_from_slice(b"{\"kind\":\"Config\"}");
        std::fs::write(&path, &bytes).expect("write kubeconfig");
        let args = KubeArgs {
            kubeconfig: Some(path.clone()),
            context: None,
            cluster: None,
            user: None,
            as_user: None,
            as_group: Vec::new(),
            request_timeout: Timeout {
                text: "0".to_string(),
                duration: None,
            },
            insecure_skip_tls_verify: false,
            tls_server_name: None,
            chunk_size: 500,
        };
        assert_eq!(context_namespace(&args), None);
        match Live::connect(&args) {
            Err(ClusterError::Kubeconfig { origin, message }) => {
                assert_eq!(origin, path.display().to_string());
                assert_eq!(
                    message,
                    "not a valid kubeconfig (UTF-16 text with an odd number of bytes)"
                );
            }
            other => panic!("{other:?}"),
        }
    }
}
