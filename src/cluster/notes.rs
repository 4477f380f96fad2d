//! What a live read had to do without, as data: the request the API server refused and for
//! whom. What the refusal costs the answer, and how that is worded, is the caller's to say.

use super::config::Target;
use super::requests::Request;

/// A request the API server refused (403 Forbidden), which the read did without.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The kubeconfig user and context the request was made as.
    pub user: String,
    pub context: String,
    pub verb: &'static str,
    pub resource: &'static str,
    /// `None`: cluster-scoped, or all namespaces.
    pub namespace: Option<String>,
    /// `None`: a list.
    pub name: Option<String>,
}

impl Refused {
    pub(super) fn new(request: &Request, target: &Target) -> Refused {
        Refused {
            user: target.user.clone(),
            context: target.context.clone(),
            verb: request.verb,
            resource: request.resource,
            namespace: request.namespace.clone(),
            name: request.name.clone(),
        }
    }
}

/// What a read of the cluster's state left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Omission {
    /// Namespaces, whose labels namespaceSelector terms read.
    Namespaces(Refused),
    /// The Services and controllers PodTopologySpread's default constraints select by.
    Workloads(Refused),
    /// PodDisruptionBudgets (preemption's victims) or PriorityClasses (a new pod's priority).
    PreemptionObjects(Refused),
    /// The storage objects the volume plugins read.
    Storage(Refused),
    /// The DRA objects DynamicResources reads.
    Dra(Refused),
    /// LimitRanges, RuntimeClasses or a namespace, read for admission.
    Admission(Refused),
    /// The scheduler's FailedScheduling events.
    Events(Refused),
}
