//! Test and benchmark support for kubectl-affinity, shared by its unit tests, integration
//! tests, examples and benches: a deterministic generator of realistic clusters
//! ([`cluster_gen`]) and an encoder of pods and nodes into the protobuf a kube-apiserver
//! serves ([`pb_encode`]).
//!
//! It does not depend on the kubectl-affinity library, so what it produces is independent of
//! the code under test.

pub mod cluster_gen;
pub mod pb_encode;
