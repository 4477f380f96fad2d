//! Support shared by the integration tests, each of which includes it as `mod support;`: the
//! oracle corpus, the differential corpus, and the test kit's fake API server, cluster
//! generator and protobuf encoder.

pub mod oracle;
pub mod oracle_diff;

// Each test uses a part of the support, and what it leaves unused would warn.
#[allow(unused_imports)]
pub use kubectl_affinity_testkit::{cluster_gen, fake_api, pb_encode};
