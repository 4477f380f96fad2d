//! What the API server's admission plugins read for a `whatif` pod, read live: the
//! LimitRanges of the pods' namespaces, the RuntimeClasses when a pod names one, and the
//! admission annotations of the pods' namespaces (each got by name; only those annotations
//! are kept).

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::node::v1 as node;
use kube::api::Api;

use super::client::Live;
use super::error::{ClusterError, unless_forbidden};
use super::requests::Request;
use crate::state::Object;
use crate::state::admission::NamespaceAnnotations;
use crate::state::limit_range::LimitRange;
use crate::state::needs::Needs;
use crate::state::runtime_class::RuntimeClass;

impl Live {
    /// The objects `needs` asks admission to read; `Err(request)` when one is forbidden.
    pub(super) async fn admission_objects(
        &self,
        needs: &Needs,
    ) -> Result<Result<Vec<Object>, Request>, ClusterError> {
        let client = &self.server.client;
        let mut objects = Vec::new();
        for ns in &needs.admission_namespaces {
            let req = Request::new("list", "limitranges", true).namespace(ns);
            let api: Api<core::LimitRange> = Api::namespaced(client.clone(), ns);
            let listed = self
                .server
                .collect(api.resource_url(), req.clone(), |o: core::LimitRange| {
                    Some(Object::LimitRange(LimitRange::from_api(&o)))
                })
                .await;
            match unless_forbidden(listed, req)? {
                Ok(l) => objects.extend(l),
                Err(req) => return Ok(Err(req)),
            }
            let req = Request::new("get", "namespaces", false).name(ns);
            let api: Api<core::Namespace> = Api::all(client.clone());
            let got = self
                .server
                .get_slim::<core::Namespace>(api.resource_url(), ns, &req)
                .await;
            match unless_forbidden(got, req)? {
                Ok(got) => objects.push(Object::Namespace {
                    name: ns.clone(),
                    labels: None,
                    annotations: got
                        .and_then(|n| NamespaceAnnotations::of(n.metadata.annotations.as_ref())),
                }),
                Err(req) => return Ok(Err(req)),
            }
        }
        if needs.runtime_classes {
            let req = Request::new("list", "runtimeclasses", false);
            let api: Api<node::RuntimeClass> = Api::all(client.clone());
            let listed = self
                .server
                .collect(api.resource_url(), req.clone(), |o: node::RuntimeClass| {
                    Some(Object::RuntimeClass(RuntimeClass::from_api(&o)))
                })
                .await;
            match unless_forbidden(listed, req)? {
                Ok(c) => objects.extend(c),
                Err(req) => return Ok(Err(req)),
            }
        }
        Ok(Ok(objects))
    }
}
