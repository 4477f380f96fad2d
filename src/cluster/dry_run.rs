//! `whatif --server-dry-run`: the one request that is not a GET, and only with that flag. The
//! pod is created with `dryRun=All`: the API server defaults it and runs every admission
//! plugin and webhook on it, stores nothing, and returns the pod it would have stored, which
//! is then the pod evaluated.

use k8s_openapi::api::core::v1 as core;
use kube::api::{Api, PostParams};

use super::client::Live;
use super::error::ClusterError;
use super::requests::Request;
use crate::state::resources::is_dns1123_subdomain;

impl Live {
    /// The pod as the API server would create it (`POST .../pods?dryRun=All`). A name that is
    /// no valid object name (a workload template's pod has none of its own) is sent as
    /// `generateName`; the pod returned keeps the name the report knows it by.
    pub fn dry_run_pod(&self, pod: &core::Pod) -> Result<core::Pod, ClusterError> {
        let ns = pod.metadata.namespace.clone().unwrap_or_default();
        let api: Api<core::Pod> = Api::namespaced(self.server.client.clone(), &ns);
        let req = Request::new("create", "pods", true).namespace(&ns);
        let params = PostParams {
            dry_run: true,
            field_manager: None,
        };
        let mut sent = pod.clone();
        let name = sent.metadata.name.clone();
        if !name.as_deref().is_some_and(is_dns1123_subdomain) {
            sent.metadata.name = None;
            sent.metadata.generate_name = Some("kubectl-affinity-whatif-".to_string());
        }
        let mut got = self
            .rt
            .block_on(self.server.call(&req, || api.create(&params, &sent)))
            .map_err(|f| self.server.fail(&req, f))?;
        got.metadata.name = name;
        Ok(got)
    }
}
