//! `whatif --scale`: the workload to scale, got by name, and a Deployment's ReplicaSets.

use k8s_openapi::api::apps::v1 as apps;
use kube::api::Api;
use serde_json::Value;

use super::client::Live;
use super::error::ClusterError;
use super::requests::Request;
use crate::state::Located;
use crate::state::scale::ScaleKind;

impl Live {
    /// The workload `kind`/`name` of `namespace` (one GET; none when it does not exist) and,
    /// for a Deployment, the namespace's ReplicaSets (one list): the objects
    /// [`crate::state::scale::existing`] reads.
    pub fn workload_objects(
        &self,
        kind: ScaleKind,
        namespace: &str,
        name: &str,
    ) -> Result<Vec<Located>, ClusterError> {
        let client = self.server.client.clone();
        let (resource, url) = match kind {
            ScaleKind::Deployment => (
                "deployments.apps",
                Api::<apps::Deployment>::namespaced(client.clone(), namespace)
                    .resource_url()
                    .to_string(),
            ),
            ScaleKind::ReplicaSet => (
                "replicasets.apps",
                Api::<apps::ReplicaSet>::namespaced(client.clone(), namespace)
                    .resource_url()
                    .to_string(),
            ),
            ScaleKind::StatefulSet => (
                "statefulsets.apps",
                Api::<apps::StatefulSet>::namespaced(client.clone(), namespace)
                    .resource_url()
                    .to_string(),
            ),
        };
        let req = Request::new("get", resource, true)
            .namespace(namespace)
            .name(name);
        let Some(workload) = self
            .rt
            .block_on(self.server.get_slim::<Value>(&url, name, &req))?
        else {
            return Ok(Vec::new());
        };
        let mut objects = vec![Located {
            document: 1,
            value: workload,
        }];
        if kind == ScaleKind::Deployment {
            let api = Api::<apps::ReplicaSet>::namespaced(client, namespace);
            let req = Request::new("list", "replicasets.apps", true).namespace(namespace);
            let items =
                self.rt
                    .block_on(self.server.collect(api.resource_url(), req, Some::<Value>))?;
            // List items come without their kind and apiVersion.
            objects.extend(items.into_iter().enumerate().map(|(i, mut value)| {
                if let Some(o) = value.as_object_mut() {
                    o.insert("kind".to_string(), Value::from("ReplicaSet"));
                    o.insert("apiVersion".to_string(), Value::from("apps/v1"));
                }
                Located {
                    document: i + 2,
                    value,
                }
            }));
        }
        Ok(objects)
    }
}
