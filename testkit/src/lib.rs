//! Test and benchmark support for kubectl-affinity, shared by its unit tests, integration
//! tests, examples and benches: a deterministic generator of realistic clusters
//! ([`cluster_gen`]), an encoder of pods and nodes into the protobuf a kube-apiserver serves
//! ([`pb_encode`]), and a fake API server ([`fake_api`]).
//!
//! It does not depend on the kubectl-affinity library, so what it produces is independent of
//! the code under test.

pub mod cluster_gen;
pub mod fake_api;
pub mod pb_encode;
