//! What the API server's admission plugins read for a `whatif` pod, read live: the
//! LimitRanges of the pods' namespaces, the RuntimeClasses when a pod names one, and the
//! admission annotations of the pods' namespaces (each got by name; only those annotations
//! are kept).

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::node::v1 as node;
use kube::api::Api;

use super::client::Live;
use super::error::ClusterError;
use super::requests::Request;
use crate::state::admission::{AdmissionObjects, NamespaceAnnotations};
use crate::state::limit_range::LimitRange;
use crate::state::needs::Needs;
use crate::state::runtime_class::RuntimeClass;

impl Live {
    /// The objects `needs` asks admission to read; `Err(request)` when one is forbidden.
    pub(super) async fn admission_objects(
        &self,
        needs: &Needs,
    ) -> Result<Result<AdmissionObjects, Request>, ClusterError> {
        let client = &self.server.client;
        let forbidden = |e: &ClusterError| matches!(e, ClusterError::Forbidden(_));
        let mut objects = AdmissionObjects::default();
        for ns in &needs.admission_namespaces {
            let req = Request::new("list", "limitranges", true).namespace(ns);
            let api: Api<core::LimitRange> = Api::namespaced(client.clone(), ns);
            match self
                .server
                .collect(api.resource_url(), req.clone(), |o: core::LimitRange| {
                    Some(LimitRange::from_api(&o))
                })
                .await
            {
                Ok(l) => objects.limit_ranges.extend(l),
                Err(e) if forbidden(&e) => return Ok(Err(req)),
                Err(e) => return Err(e),
            }
            let req = Request::new("get", "namespaces", false).name(ns);
            let api: Api<core::Namespace> = Api::all(client.clone());
            match self
                .server
                .get_slim::<core::Namespace>(api.resource_url(), ns, &req)
                .await
            {
                Ok(got) => {
                    let found =
                        got.and_then(|n| NamespaceAnnotations::of(n.metadata.annotations.as_ref()));
                    objects.namespaces.extend(found.map(|a| (ns.clone(), a)));
                }
                Err(e) if forbidden(&e) => return Ok(Err(req)),
                Err(e) => return Err(e),
            }
        }
        if needs.runtime_classes {
            let req = Request::new("list", "runtimeclasses", false);
            let api: Api<node::RuntimeClass> = Api::all(client.clone());
            match self
                .server
                .collect(api.resource_url(), req.clone(), |o: node::RuntimeClass| {
                    Some(RuntimeClass::from_api(&o))
                })
                .await
            {
                Ok(c) => objects.runtime_classes = c,
                Err(e) if forbidden(&e) => return Ok(Err(req)),
                Err(e) => return Err(e),
            }
        }
        Ok(Ok(objects))
    }
}
