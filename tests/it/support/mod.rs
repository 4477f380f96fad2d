//! Support shared by the integration tests, each of which includes it as `mod support;`: the
//! oracle corpus, the differential corpus, and the test kit's fake API server, cluster
//! generator and protobuf encoder.

pub mod oracle;
pub mod oracle_diff;

// Each test uses a part of the support, and what it leaves unused would warn.
#[allow(unused_imports)]
pub use kubectl_affinity_testkit::{cluster_gen, fake_api, pb_encode};

/// The binary, hermetic: run from the package's root, without colour, with no kubeconfig of
/// the machine's user (its context namespace would apply) and not as if inside a cluster.
#[allow(dead_code)]
pub fn kubectl_affinity() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-affinity"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .env_remove("KUBERNETES_SERVICE_HOST");
    cmd
}
