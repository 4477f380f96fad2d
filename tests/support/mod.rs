//! Support shared by the integration tests, each of which includes it as `mod support;`: the
//! oracle corpus, the fake API server, and the test kit's cluster generator and protobuf
//! encoder.

pub mod fake_api;
pub mod oracle;

// Each test uses a part of the support, and what it leaves unused would warn.
#[allow(unused_imports)]
pub use kubectl_affinity_testkit::{cluster_gen, pb_encode};
