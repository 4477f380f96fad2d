//! RuntimeClasses (node.k8s.io/v1), the fields the API server's RuntimeClass admission plugin
//! reads when a pod names one (`plugin/pkg/admission/runtimeclass/admission.go`): the pod's
//! overhead, and the nodeSelector and tolerations its scheduling adds.
//!
//! Read from the whole API object (`k8s-openapi`'s); admission applies it to the pod as written.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::node::v1 as node;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;

/// A RuntimeClass: its name, `overhead.podFixed`, and `scheduling`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RuntimeClass {
    pub name: String,
    pub overhead: Option<BTreeMap<String, ApiQuantity>>,
    pub node_selector: BTreeMap<String, String>,
    pub tolerations: Vec<core::Toleration>,
}

impl RuntimeClass {
    pub fn from_api(c: &node::RuntimeClass) -> RuntimeClass {
        let scheduling = c.scheduling.as_ref();
        RuntimeClass {
            name: c.metadata.name.clone().unwrap_or_default(),
            overhead: c.overhead.as_ref().and_then(|o| o.pod_fixed.clone()),
            node_selector: scheduling
                .and_then(|s| s.node_selector.clone())
                .unwrap_or_default(),
            tolerations: scheduling
                .and_then(|s| s.tolerations.clone())
                .unwrap_or_default(),
        }
    }
}
