//! The API server's defaulting (`pkg/apis/core/v1/defaults.go`), for the defaults a scheduler
//! plugin reads. The scheduler only ever sees pods as the API server stores them: a manifest
//! `whatif` reads, or a snapshot written by hand or by a generator, lacks them, so they are
//! applied to those pods before they are built. Pods read from a live API server come
//! defaulted already and skip this (defaulting is idempotent: a `kubectl get -o yaml`
//! snapshot is left as it is).
//!
//! What is applied, all from `SetDefaults_Pod`:
//! - a container's (and init container's) requests default to its limits, resource by
//!   resource (NodeResourcesFit and BalancedAllocation read the requests);
//! - pod-level requests (`spec.resources`, PodLevelResources: beta and on in 1.35) when
//!   pod-level limits are set: cpu/memory from the containers' aggregate requests, then any
//!   supported resource still missing from its pod-level limit (`defaultPodRequests`);
//! - with `hostNetwork`, each container port's `hostPort` is its `containerPort`
//!   (`defaultHostNetworkPorts`; NodePorts reads host ports).
//!
//! Left out because no plugin can tell: `defaultPodLimits` and `defaultHugePagePodLimits` set
//! only limits (a hugepage pod limit becomes a request that equals the containers' aggregate,
//! which the scheduler counts anyway: validation makes hugepage requests equal limits).
//! Defaults the model applies where it reads the field: a port's protocol (`TCP`), the
//! scheduler name (`default-scheduler`), and a node's allocatable from its capacity
//! (`SetDefaults_NodeStatus`, in the node's decode).

use std::collections::BTreeMap;

use super::parts::{Container, PodParts};
use super::quantity::Quantity;
use super::resources::{CPU, MEMORY, aggregate_container_requests, is_hugepages};
use super::spec::Quantity as ApiQuantity;

/// A container of the pod, as the output names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerName {
    /// An init container (sidecars included).
    pub init: bool,
    pub name: String,
}

/// Where a defaulted pod-level request comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PodRequestFrom {
    /// The containers' aggregate requests (`AggregateContainerRequests`).
    Containers,
    /// The pod-level limit of the resource.
    Limit,
}

/// One value the defaulting set on the pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Defaulted {
    /// A container's request for `resource`, copied from its limit.
    RequestFromLimit {
        container: ContainerName,
        resource: String,
        value: String,
    },
    /// A pod-level request (`spec.resources.requests`).
    PodRequest {
        resource: String,
        value: String,
        from: PodRequestFrom,
    },
    /// A container port's `hostPort`, set to its `containerPort` (hostNetwork).
    HostPort { container: ContainerName, port: i32 },
}

/// Applies the defaults to the pod's parts, in `SetDefaults_Pod`'s order (container requests
/// first: the pod-level ones are computed from them), and says what each one set.
pub(crate) fn apply(p: &mut PodParts) -> Vec<Defaulted> {
    let mut changed = Vec::new();
    let Some(spec) = p.spec.as_mut() else {
        return changed;
    };
    for (init, list) in [
        (false, spec.containers.as_deref_mut()),
        (true, spec.init_containers.as_deref_mut()),
    ] {
        for c in list.into_iter().flatten() {
            requests_from_limits(c, init, &mut changed);
        }
    }
    if spec.host_network == Some(true) {
        for (init, list) in [
            (false, spec.containers.as_deref_mut()),
            (true, spec.init_containers.as_deref_mut()),
        ] {
            for c in list.into_iter().flatten() {
                host_network_ports(c, init, &mut changed);
            }
        }
    }
    pod_requests(p, &mut changed);
    changed
}

fn name_of(c: &Container, init: bool) -> ContainerName {
    ContainerName {
        init,
        name: c.name.clone().unwrap_or_default(),
    }
}

/// `SetDefaults_Pod`: with limits set, each limit without a request becomes the request.
fn requests_from_limits(c: &mut Container, init: bool, changed: &mut Vec<Defaulted>) {
    let Some(resources) = c.resources.as_mut() else {
        return;
    };
    let Some(limits) = resources.limits.as_ref() else {
        return;
    };
    let requests = resources.requests.get_or_insert_with(BTreeMap::new);
    for (name, limit) in limits {
        if !requests.contains_key(name) {
            requests.insert(name.clone(), limit.clone());
            changed.push(Defaulted::RequestFromLimit {
                container: ContainerName {
                    init,
                    name: c.name.clone().unwrap_or_default(),
                },
                resource: name.clone(),
                value: limit.0.clone(),
            });
        }
    }
}

/// `defaultHostNetworkPorts`: a port without a host port binds its container port on the
/// host.
fn host_network_ports(c: &mut Container, init: bool, changed: &mut Vec<Defaulted>) {
    let mut set = Vec::new();
    for port in c.ports.iter_mut().flatten() {
        if port.host_port.unwrap_or(0) == 0 {
            port.host_port = Some(port.container_port);
            set.push(port.container_port);
        }
    }
    changed.extend(set.into_iter().map(|port| Defaulted::HostPort {
        container: name_of(c, init),
        port,
    }));
}

/// `defaultPodRequests`: only when pod-level limits are set. cpu and memory (the supported
/// resources that may be overcommitted) missing from the pod-level requests take the
/// containers' aggregate requests; then every supported resource still missing takes its
/// pod-level limit.
fn pod_requests(p: &mut PodParts, changed: &mut Vec<Defaulted>) {
    let has_limits = p
        .spec
        .as_ref()
        .and_then(|s| s.resources.as_ref())
        .and_then(|r| r.limits.as_ref())
        .is_some_and(|l| !l.is_empty());
    if !has_limits {
        return;
    }
    let aggregate = aggregate_container_requests(p);
    let Some(resources) = p.spec.as_mut().and_then(|s| s.resources.as_mut()) else {
        return;
    };
    let mut requests = resources.requests.take().unwrap_or_default();
    for (name, total) in aggregate {
        if (name == CPU || name == MEMORY) && !requests.contains_key(name.as_ref()) {
            let value = written(&name, total);
            requests.insert(name.to_string(), ApiQuantity(value.clone()));
            changed.push(Defaulted::PodRequest {
                resource: name.to_string(),
                value,
                from: PodRequestFrom::Containers,
            });
        }
    }
    for (name, limit) in resources.limits.iter().flatten() {
        let supported = name == CPU || name == MEMORY || is_hugepages(name);
        if supported && !requests.contains_key(name) {
            requests.insert(name.clone(), limit.clone());
            changed.push(Defaulted::PodRequest {
                resource: name.clone(),
                value: limit.0.clone(),
                from: PodRequestFrom::Limit,
            });
        }
    }
    if !requests.is_empty() {
        resources.requests = Some(requests);
    }
}

/// A quantity as a string that parses back to it exactly: whole units (in binary units for
/// anything but cpu, when they divide it), else milli-units, else nano-units.
fn written(resource: &str, q: Quantity) -> String {
    const NANO: i128 = 1_000_000_000;
    let n = q.nanos();
    if n % NANO == 0 {
        let units = n / NANO;
        if resource != CPU && units != 0 {
            for (suffix, shift) in [("Ti", 40), ("Gi", 30), ("Mi", 20), ("Ki", 10)] {
                if units % (1i128 << shift) == 0 {
                    return format!("{}{suffix}", units >> shift);
                }
            }
        }
        return units.to_string();
    }
    if n % 1_000_000 == 0 {
        return format!("{}m", n / 1_000_000);
    }
    format!("{n}n")
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1 as core;
    use serde_json::json;

    use super::*;
    use crate::state::Pod;

    fn parts(spec: serde_json::Value) -> PodParts {
        let p: core::Pod =
            serde_json::from_value(json!({"metadata": {"name": "p"}, "spec": spec})).expect("pod");
        PodParts::from(p)
    }

    fn container(init: bool, name: &str) -> ContainerName {
        ContainerName {
            init,
            name: name.to_string(),
        }
    }

    /// Limits without requests become the requests, per resource, in containers and init
    /// containers; a request that is set stays.
    #[test]
    fn requests_default_to_limits() {
        let mut p = parts(json!({
            "initContainers": [{"name": "i", "resources": {"limits": {"memory": "1Gi"}}}],
            "containers": [{"name": "c", "resources": {
                "limits": {"cpu": "3", "memory": "2Gi"},
                "requests": {"memory": "1Gi"}
            }}]
        }));
        let changed = apply(&mut p);
        assert_eq!(
            changed,
            [
                Defaulted::RequestFromLimit {
                    container: container(false, "c"),
                    resource: "cpu".to_string(),
                    value: "3".to_string(),
                },
                Defaulted::RequestFromLimit {
                    container: container(true, "i"),
                    resource: "memory".to_string(),
                    value: "1Gi".to_string(),
                },
            ]
        );
        let r = Pod::from_parts(p).template.resources.clone();
        assert_eq!((r.requests.milli_cpu, r.requests.memory), (3000, 1 << 30));
        assert_eq!(r.non_zero_milli_cpu, 3000);
    }

    /// With hostNetwork every port binds its container port on the host, init containers'
    /// too; a host port that is set stays, and without hostNetwork nothing changes.
    #[test]
    fn host_network_ports_default_to_container_ports() {
        let spec = |host_network: bool| {
            json!({
                "hostNetwork": host_network,
                "initContainers": [{"name": "s", "restartPolicy": "Always",
                    "ports": [{"containerPort": 9000}]}],
                "containers": [{"name": "c", "ports": [
                    {"containerPort": 8080},
                    {"containerPort": 53, "hostPort": 5353, "protocol": "UDP"}
                ]}]
            })
        };
        let mut p = parts(spec(true));
        assert_eq!(
            apply(&mut p),
            [
                Defaulted::HostPort {
                    container: container(false, "c"),
                    port: 8080
                },
                Defaulted::HostPort {
                    container: container(true, "s"),
                    port: 9000
                },
            ]
        );
        let pod = Pod::from_parts(p);
        let ports: Vec<(i32, &str)> = pod
            .template
            .resources
            .host_ports
            .iter()
            .map(|h| (h.port, h.protocol.as_str()))
            .collect();
        assert_eq!(ports, [(9000, "TCP"), (8080, "TCP"), (5353, "UDP")]);

        let mut p = parts(spec(false));
        assert!(apply(&mut p).is_empty());
        assert_eq!(Pod::from_parts(p).template.resources.host_ports.len(), 1);
    }

    /// Pod-level limits default the pod-level requests: cpu/memory from the containers'
    /// aggregate when they request it, else from the limit; hugepages from the limit.
    #[test]
    fn pod_level_requests_default_from_containers_then_limits() {
        let mut p = parts(json!({
            "resources": {"limits": {"cpu": "4", "memory": "8Gi", "hugepages-2Mi": "4Mi"}},
            "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "3"}}}],
            "containers": [
                {"name": "a", "resources": {"requests": {"cpu": "500m"}}},
                {"name": "b", "resources": {"limits": {"cpu": "1"}}}
            ]
        }));
        let changed = apply(&mut p);
        assert_eq!(
            changed[1..],
            [
                // max(0.5 + 1, 3): the init container's phase is the larger.
                Defaulted::PodRequest {
                    resource: "cpu".to_string(),
                    value: "3".to_string(),
                    from: PodRequestFrom::Containers,
                },
                Defaulted::PodRequest {
                    resource: "hugepages-2Mi".to_string(),
                    value: "4Mi".to_string(),
                    from: PodRequestFrom::Limit,
                },
                Defaulted::PodRequest {
                    resource: "memory".to_string(),
                    value: "8Gi".to_string(),
                    from: PodRequestFrom::Limit,
                },
            ]
        );
        let r = Pod::from_parts(p).template.resources.clone();
        assert_eq!(
            (
                r.requests.milli_cpu,
                r.requests.memory,
                r.requests.get("hugepages-2Mi")
            ),
            (3000, 8 << 30, 4 << 20)
        );

        // Without pod-level limits nothing is defaulted at the pod level.
        let mut p = parts(json!({
            "resources": {"requests": {"memory": "1Gi"}},
            "containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}]
        }));
        assert!(apply(&mut p).is_empty());
    }

    /// Applying the defaults twice changes nothing the second time (what the API server
    /// stores is already defaulted).
    #[test]
    fn defaulting_is_idempotent() {
        let mut p = parts(json!({
            "hostNetwork": true,
            "resources": {"limits": {"cpu": "2"}},
            "containers": [{"name": "c", "ports": [{"containerPort": 80}],
                "resources": {"limits": {"memory": "1Gi"}}}]
        }));
        // The container's memory request, the host port, pod-level memory (from the
        // container) and cpu (from the limit).
        assert_eq!(apply(&mut p).len(), 4);
        assert!(apply(&mut p).is_empty());
    }

    #[test]
    fn quantities_are_written_to_parse_back() {
        for (resource, text, written_as) in [
            ("cpu", "1500m", "1500m"),
            ("cpu", "2048", "2048"),
            ("memory", "3Gi", "3Gi"),
            ("memory", "1536Mi", "1536Mi"),
            ("memory", "1000", "1000"),
            ("memory", "0.5", "500m"),
            ("cpu", "1n", "1n"),
            ("memory", "0", "0"),
        ] {
            let q = Quantity::parse(text).expect("quantity");
            let w = written(resource, q);
            assert_eq!(w, written_as, "{text}");
            assert_eq!(Quantity::parse(&w), Ok(q), "{text}");
        }
    }
}
