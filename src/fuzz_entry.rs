//! Entry points for the cargo-fuzz targets in `fuzz/`, not an API. Each forwards to a
//! function the binary itself calls that is private to its module, so that the fuzzers run
//! the binary's own paths; nothing here decides anything. The entry points that are public
//! anyway (the protobuf and JSON pod pages, the snapshot and manifest readers) are called
//! by the targets directly.

use crate::cluster::{ClusterError, KubeArgs};
use crate::state::Node;
use crate::state::resources::ImageNames;

/// A node page served as JSON, as the live read decodes it.
pub fn json_node_page(
    text: &str,
    on_continue: impl FnOnce(Option<String>),
    images: &ImageNames,
) -> Result<Vec<Node>, serde_json::Error> {
    crate::cluster::json_node_page(text, on_continue, images)
}

/// The client configuration [`crate::cluster::Live::connect`] builds from the kubeconfig
/// `args` name, before its HTTP client.
pub async fn kubeconfig(args: &KubeArgs) -> Result<kube::Config, ClusterError> {
    crate::cluster::load(args).await.map(|(config, _)| config)
}

/// The HTTP client [`crate::cluster::Live::connect`] builds from `config` (inside a Tokio
/// runtime). It runs the credential programs `config` names (exec plugins, the `gcp` auth
/// provider's command).
pub fn client(config: kube::Config) -> Result<kube::Client, kube::Error> {
    crate::cluster::client(config)
}
