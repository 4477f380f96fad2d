//! What a pod asks for and what a node offers, folded once into integers the way the
//! scheduler's `framework.Resource` holds them (milli-cpu, bytes, counts), so an evaluation
//! never re-parses a quantity.
//!
//! The pod side follows `component-helpers/resource.PodRequests`: regular containers summed,
//! restartable init containers (sidecars) added to that sum and accumulated in front of every
//! later init container, the largest init-container phase wins, pod-level requests replace
//! the container aggregate for cpu/memory/hugepages, and `spec.overhead` is added last. All
//! sums are exact (nano precision) before the single round-up to integers, as upstream adds
//! `Quantity` values before calling `Value()` / `MilliValue()`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;
use smallvec::SmallVec;

pub use super::parts::NodeImage;
use super::parts::{self, PodParts};
use super::quantity::Quantity;
use super::spec::Quantity as ApiQuantity;

pub const CPU: &str = "cpu";
pub const MEMORY: &str = "memory";
pub const EPHEMERAL_STORAGE: &str = "ephemeral-storage";
pub const PODS: &str = "pods";

/// `schedutil.DefaultMilliCPURequest`: what scoring assumes for a container without a cpu
/// request, so request-less pods do not all pile onto one node.
pub const DEFAULT_MILLI_CPU_REQUEST: i64 = 100;
/// `schedutil.DefaultMemoryRequest` (200 MiB).
pub const DEFAULT_MEMORY_REQUEST: i64 = 200 * 1024 * 1024;

/// `v1helper.IsPrefixedNativeResource`.
pub fn is_prefixed_native(name: &str) -> bool {
    name.contains("kubernetes.io/")
}

/// `v1helper.IsNativeResource`: unprefixed or in the `kubernetes.io` namespace.
pub fn is_native(name: &str) -> bool {
    !name.contains('/') || is_prefixed_native(name)
}

pub fn is_hugepages(name: &str) -> bool {
    name.starts_with("hugepages-")
}

pub fn is_attachable_volumes(name: &str) -> bool {
    name.starts_with("attachable-volumes-")
}

/// `v1helper.IsExtendedResourceName`: not native, not `requests.`-prefixed, and
/// `requests.<name>` is a qualified name (what ResourceQuota would need).
pub fn is_extended(name: &str) -> bool {
    if is_native(name) || name.starts_with("requests.") {
        return false;
    }
    is_qualified_name(&format!("requests.{name}"))
}

/// `schedutil.IsScalarResourceName`: the resources kept in `ScalarResources`.
pub fn is_scalar(name: &str) -> bool {
    is_extended(name)
        || is_hugepages(name)
        || is_prefixed_native(name)
        || is_attachable_volumes(name)
}

fn is_dns1123_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// `validation.IsDNS1123Subdomain`.
pub fn is_dns1123_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(is_dns1123_label)
}

/// `validation.IsQualifiedName`: `[prefix/]name`, prefix a DNS subdomain, name at most 63
/// alphanumerics with `-_.` inside.
pub fn is_qualified_name(value: &str) -> bool {
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() || !is_dns1123_subdomain(prefix) {
                return false;
            }
            *name
        }
        _ => return false,
    };
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// Resources as `framework.Resource` holds them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Resources {
    pub milli_cpu: i64,
    pub memory: i64,
    pub ephemeral_storage: i64,
    /// Scalar resources (extended, hugepages, prefixed native, attachable volumes), by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scalars: Vec<(String, i64)>,
}

impl Resources {
    pub fn scalar(&self, name: &str) -> Option<i64> {
        self.scalars
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()
            .map(|i| self.scalars[i].1)
    }

    /// The amount of any resource, in the unit the scheduler compares (milli for cpu).
    pub fn get(&self, name: &str) -> i64 {
        match name {
            CPU => self.milli_cpu,
            MEMORY => self.memory,
            EPHEMERAL_STORAGE => self.ephemeral_storage,
            _ => self.scalar(name).unwrap_or(0),
        }
    }

    fn set_scalar(&mut self, name: &str, value: i64) {
        match self.scalars.binary_search_by(|(n, _)| n.as_str().cmp(name)) {
            Ok(i) => self.scalars[i].1 = value,
            Err(i) => self.scalars.insert(i, (name.to_string(), value)),
        }
    }

    /// `sign` × other added in; used to build node totals and to take a pod back out.
    pub fn accumulate(&mut self, other: &Resources, sign: i64) {
        self.milli_cpu = self
            .milli_cpu
            .saturating_add(other.milli_cpu.saturating_mul(sign));
        self.memory = self
            .memory
            .saturating_add(other.memory.saturating_mul(sign));
        self.ephemeral_storage = self
            .ephemeral_storage
            .saturating_add(other.ephemeral_storage.saturating_mul(sign));
        for (name, v) in &other.scalars {
            let cur = self.scalar(name).unwrap_or(0);
            self.set_scalar(name, cur.saturating_add(v.saturating_mul(sign)));
        }
    }

    /// `Resource.Add(ResourceList)`: each known resource converted on its own.
    fn from_list(list: &ResourceList) -> Resources {
        let mut r = Resources::default();
        for (name, q) in list.iter() {
            match name.as_ref() {
                CPU => r.milli_cpu = q.milli_value(),
                MEMORY => r.memory = q.value(),
                EPHEMERAL_STORAGE => r.ephemeral_storage = q.value(),
                PODS => {}
                n if is_scalar(n) => r.set_scalar(n, q.value()),
                _ => {}
            }
        }
        r
    }

    /// `Resource.SetMaxResource(ResourceList)` on a zero value: like `from_list`, but
    /// negative amounts read as 0 (what NodeResourcesFit's PreFilter computes).
    fn max_from_list(list: &ResourceList) -> Resources {
        let mut r = Resources::from_list(list);
        r.milli_cpu = r.milli_cpu.max(0);
        r.memory = r.memory.max(0);
        r.ephemeral_storage = r.ephemeral_storage.max(0);
        for (_, v) in r.scalars.iter_mut() {
            *v = (*v).max(0);
        }
        r
    }
}

/// `normalizedImageName`: an image without a tag gets `:latest`.
pub fn normalized_image_name(name: &str) -> String {
    let colon = name.rfind(':').map_or(-1, |i| i as i64);
    let slash = name.rfind('/').map_or(-1, |i| i as i64);
    if colon <= slash {
        format!("{name}:latest")
    } else {
        name.to_string()
    }
}

/// A host port a container binds, with upstream's defaults filled in (`0.0.0.0`, `TCP`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostPort {
    pub host_ip: String,
    pub protocol: String,
    pub port: i32,
}

impl HostPort {
    /// `HostPortInfo.CheckConflict` against one used port: same protocol and port, and the
    /// same IP unless either side binds every address.
    pub fn conflicts_with(&self, used: &HostPort) -> bool {
        const ALL: &str = "0.0.0.0";
        self.port == used.port
            && self.protocol == used.protocol
            && (self.host_ip == ALL || used.host_ip == ALL || self.host_ip == used.host_ip)
    }
}

/// Which of the names in nodes' `status.images` a live read keeps. ImageLocality looks up
/// only the incoming pods' images (normalized), while a node lists dozens of images, each
/// under a tag and a digest: keeping every name was much of a live run's memory and most of
/// the work of building the nodes.
#[derive(Debug, Clone, Default)]
pub enum ImageNames {
    /// Every name (a snapshot is read whole).
    #[default]
    All,
    /// Only these names; an image with none of them is left out.
    Only(foldhash::HashSet<String>),
}

impl ImageNames {
    pub fn keeps(&self, name: &str) -> bool {
        match self {
            ImageNames::All => true,
            ImageNames::Only(names) => names.contains(name),
        }
    }
}

/// An invalid quantity: which field, and upstream's parse error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuantityProblem {
    pub field: String,
    pub message: String,
}

/// A resource's name in a request list: the four names every pod has are borrowed, so the
/// lists copied while requests are aggregated (three times per pod) copy no string for them.
type Name = Cow<'static, str>;

fn name_of(name: &str) -> Name {
    match name {
        CPU => Cow::Borrowed(CPU),
        MEMORY => Cow::Borrowed(MEMORY),
        EPHEMERAL_STORAGE => Cow::Borrowed(EPHEMERAL_STORAGE),
        PODS => Cow::Borrowed(PODS),
        _ => Cow::Owned(name.to_string()),
    }
}

/// `v1.ResourceList` as the request helpers build it: entries kept sorted by name, so that
/// every walk sees them in the order a map sorted by name gives. A pod names two or three
/// resources, and a template's requests build a dozen or more such lists: inline, in name
/// order, they take no allocation, where a `BTreeMap` allocated a node for each.
#[derive(Debug, Clone, Default)]
struct ResourceList(SmallVec<[(Name, Quantity); 3]>);

impl ResourceList {
    fn new() -> ResourceList {
        ResourceList::default()
    }

    fn find(&self, name: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(n, _)| n.as_ref().cmp(name))
    }

    fn get(&self, name: &str) -> Option<&Quantity> {
        self.find(name).ok().map(|i| &self.0[i].1)
    }

    fn contains_key(&self, name: &str) -> bool {
        self.find(name).is_ok()
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn keys(&self) -> impl Iterator<Item = &Name> {
        self.0.iter().map(|(n, _)| n)
    }

    fn iter(&self) -> impl Iterator<Item = (&Name, &Quantity)> {
        self.0.iter().map(|(n, q)| (n, q))
    }

    /// The entry for `name`, made with `value` when there is none (`map[name]` of Go's
    /// maps with a default).
    fn entry_or(&mut self, name: &Name, value: Quantity) -> &mut Quantity {
        let i = match self.find(name) {
            Ok(i) => i,
            Err(i) => {
                self.0.insert(i, (name.clone(), value));
                i
            }
        };
        &mut self.0[i].1
    }

    fn insert(&mut self, name: Name, value: Quantity) {
        match self.find(&name) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (name, value)),
        }
    }
}

/// Which part of the pod a list is in: only the spec's quantities must be non-negative.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Spec,
    Status,
}

/// `field` names the list in a problem; it is formatted only when there is one (nearly every
/// pod's lists parse without).
fn parse_list(
    map: Option<&BTreeMap<String, ApiQuantity>>,
    side: Side,
    field: impl Fn() -> String,
    problems: &mut Vec<QuantityProblem>,
) -> ResourceList {
    let mut out = ResourceList::new();
    for (name, q) in map.into_iter().flatten() {
        match Quantity::parse(&q.0) {
            // Pod quantities (requests, limits, overhead) must be non-negative: the API
            // server rejects a pod otherwise, so upstream never meets one.
            Ok(v) if side == Side::Spec && v < Quantity::default() => {
                problems.push(QuantityProblem {
                    field: format!("{}[{name}]", field()),
                    message: format!(
                        "{:?} must be greater than or equal to 0 (the API server rejects negative quantities)",
                        q.0
                    ),
                })
            }
            Ok(v) => {
                out.insert(name_of(name), v);
            }
            Err(e) => problems.push(QuantityProblem {
                field: format!("{}[{name}]", field()),
                message: format!("invalid quantity {:?}: {e}", q.0),
            }),
        }
    }
    out
}

fn add_into(list: &mut ResourceList, other: &ResourceList) {
    for (name, q) in other.iter() {
        let e = list.entry_or(name, Quantity::default());
        *e = e.saturating_add(*q);
    }
}

fn max_into(list: &mut ResourceList, other: &ResourceList) {
    for (name, q) in other.iter() {
        let cur = list.entry_or(name, *q);
        if *cur < *q {
            *cur = *q;
        }
    }
}

/// One container's request lists: from the spec, and (for running pods) what the kubelet
/// allocated and actuated after an in-place resize.
#[derive(Debug, Clone, Default)]
struct ContainerRequests {
    restartable: bool,
    spec: ResourceList,
    allocated: Option<ResourceList>,
    actuated: Option<ResourceList>,
}

#[derive(Clone, Copy)]
enum Source {
    Spec,
    Allocated,
    Actuated,
}

impl ContainerRequests {
    /// `containerSpecRequests` / `containerAllocatedRequests` / `containerActuatedRequests`.
    fn list(&self, source: Source, resize_infeasible: bool) -> ResourceList {
        let fallback = || {
            if resize_infeasible {
                ResourceList::new()
            } else {
                self.spec.clone()
            }
        };
        match source {
            Source::Spec => self.spec.clone(),
            Source::Allocated => self.allocated.clone().unwrap_or_else(fallback),
            Source::Actuated => self
                .actuated
                .clone()
                .or_else(|| self.allocated.clone())
                .unwrap_or_else(fallback),
        }
    }
}

/// The parts of a pod spec (and status) that resource requests are computed from.
#[derive(Debug, Clone, Default)]
struct PodSpecRequests {
    containers: Vec<ContainerRequests>,
    init_containers: Vec<ContainerRequests>,
    pod_level: ResourceList,
    /// The pod's own `status.resources.requests` and `status.allocatedResources` after an
    /// in-place resize of its pod-level resources.
    pod_level_actuated: Option<ResourceList>,
    pod_level_allocated: Option<ResourceList>,
    overhead: ResourceList,
    resize_infeasible: bool,
    has_status: bool,
}

/// How one computation of [`PodSpecRequests::requests`] counts.
#[derive(Debug, Clone, Copy, Default)]
struct How {
    /// The containers' resize status (`UseStatusResources`).
    use_status: bool,
    /// Pod-level requests replace the containers' (the opposite of `SkipPodLevelResources`).
    pod_level: bool,
    /// Pod-level requests take the pod's resize status too.
    pod_level_status: bool,
    /// Restartable init containers count as init containers (1.31's non-zero requests).
    sidecars_as_init: bool,
}

/// How a release's kube-scheduler folds a pod's spec and status into what it counts, where
/// releases differ (the release table, `scheduler::release`, says which release counts how;
/// the default is 1.35's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceRules {
    /// PodLevelResources: `spec.resources.requests` replace the containers' sum (from 1.34).
    pub pod_level: bool,
    /// InPlacePodVerticalScaling: existing pods' containers count their resize status
    /// (from 1.33).
    pub container_status: bool,
    /// InPlacePodLevelResourcesVerticalScaling: existing pods' pod-level requests count the
    /// pod's resize status (from 1.36).
    pub pod_level_status: bool,
    /// The nodes' non-zero requests count a restartable init container as an init container
    /// (1.31's `calculateResource`: containers summed, init containers maxed).
    pub sidecar_non_zero_as_init: bool,
    /// NodePorts counts restartable init containers' host ports (from 1.34).
    pub sidecar_host_ports: bool,
    /// ImageLocality counts image volumes (from 1.36).
    pub image_volumes: bool,
}

impl Default for ResourceRules {
    fn default() -> Self {
        ResourceRules {
            pod_level: true,
            container_status: true,
            pod_level_status: false,
            sidecar_non_zero_as_init: false,
            sidecar_host_ports: true,
            image_volumes: false,
        }
    }
}

/// `IsSupportedPodLevelResource`.
fn pod_level_supported(name: &str) -> bool {
    name == CPU || name == MEMORY || is_hugepages(name)
}

impl PodSpecRequests {
    fn parse(p: &PodParts, problems: &mut Vec<QuantityProblem>) -> PodSpecRequests {
        let Some(spec) = p.spec.as_ref() else {
            return PodSpecRequests::default();
        };
        let status = p.status.as_ref();
        let statuses: Vec<&parts::ContainerStatus> = status
            .into_iter()
            .flat_map(|s| {
                s.container_statuses
                    .iter()
                    .flatten()
                    .chain(s.init_container_statuses.iter().flatten())
            })
            .collect();
        let mut has_status = false;
        let mut one = |c: &parts::Container,
                       field: &dyn Fn() -> String,
                       problems: &mut Vec<QuantityProblem>| {
            let name = c.name.as_deref().unwrap_or_default();
            let cs = statuses.iter().find(|s| s.name == name);
            let allocated = cs.and_then(|s| s.allocated_resources.as_ref()).map(|m| {
                parse_list(
                    Some(m),
                    Side::Status,
                    || format!("status.containerStatuses[{name}].allocatedResources"),
                    problems,
                )
            });
            let actuated = cs
                .and_then(|s| s.resources.as_ref())
                .and_then(|r| r.requests.as_ref())
                .map(|m| {
                    parse_list(
                        Some(m),
                        Side::Status,
                        || format!("status.containerStatuses[{name}].resources.requests"),
                        problems,
                    )
                });
            has_status |= allocated.is_some() || actuated.is_some();
            ContainerRequests {
                restartable: c.restart_policy.as_deref() == Some("Always"),
                spec: parse_list(
                    c.resources.as_ref().and_then(|r| r.requests.as_ref()),
                    Side::Spec,
                    || format!("{}.resources.requests", field()),
                    problems,
                ),
                allocated,
                actuated,
            }
        };
        let containers = spec
            .containers
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, c)| one(c, &|| format!("spec.containers[{i}]"), problems))
            .collect();
        let init_containers = spec
            .init_containers
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, c)| one(c, &|| format!("spec.initContainers[{i}]"), problems))
            .collect();
        let resize_infeasible = status
            .and_then(|s| s.conditions.as_ref())
            .and_then(|cs| cs.iter().find(|c| c.type_ == "PodResizePending"))
            .is_some_and(|c| c.reason.as_deref() == Some("Infeasible"));
        let pod_list = |list: Option<&BTreeMap<String, ApiQuantity>>,
                        field: &'static str,
                        problems: &mut Vec<QuantityProblem>| {
            list.map(|m| parse_list(Some(m), Side::Status, || field.to_string(), problems))
        };
        let pod_level_actuated = pod_list(
            status
                .and_then(|s| s.resources.as_ref())
                .and_then(|r| r.requests.as_ref()),
            "status.resources.requests",
            problems,
        );
        let pod_level_allocated = pod_list(
            status.and_then(|s| s.allocated_resources.as_ref()),
            "status.allocatedResources",
            problems,
        );
        PodSpecRequests {
            containers,
            init_containers,
            pod_level_actuated,
            pod_level_allocated,
            pod_level: parse_list(
                spec.resources.as_ref().and_then(|r| r.requests.as_ref()),
                Side::Spec,
                || "spec.resources.requests".to_string(),
                problems,
            ),
            overhead: parse_list(
                spec.overhead.as_ref(),
                Side::Spec,
                || "spec.overhead".to_string(),
                problems,
            ),
            resize_infeasible,
            has_status,
        }
    }

    /// `IsPodLevelRequestsSet`.
    fn pod_level_set(&self) -> bool {
        self.pod_level.keys().any(|k| pod_level_supported(k))
    }

    /// The pod's own resize status is there.
    fn has_pod_level_status(&self) -> bool {
        self.pod_level_actuated.is_some() || self.pod_level_allocated.is_some()
    }

    /// `aggregateContainerResourcesByFn`; with `sidecars_as_init`, 1.31's non-zero sum.
    fn aggregate(
        &self,
        source: Source,
        non_missing: &ResourceList,
        sidecars_as_init: bool,
    ) -> ResourceList {
        let get = |c: &ContainerRequests| {
            let mut l = c.list(source, self.resize_infeasible);
            for (name, q) in non_missing.iter() {
                l.entry_or(name, *q);
            }
            l
        };
        let mut result = ResourceList::new();
        for c in &self.containers {
            add_into(&mut result, &get(c));
        }
        let mut sidecars = ResourceList::new();
        let mut init_peak = ResourceList::new();
        for c in &self.init_containers {
            let l = get(c);
            let phase = if c.restartable && !sidecars_as_init {
                add_into(&mut result, &l);
                add_into(&mut sidecars, &l);
                sidecars.clone()
            } else {
                let mut combined = l;
                add_into(&mut combined, &sidecars);
                combined
            };
            max_into(&mut init_peak, &phase);
        }
        max_into(&mut result, &init_peak);
        result
    }

    /// `PodRequests` counted as `how` says.
    fn requests(&self, how: How, non_missing: &ResourceList) -> ResourceList {
        let aggregate = |source| self.aggregate(source, non_missing, how.sidecars_as_init);
        let mut reqs = if how.use_status && self.has_status {
            let spec = aggregate(Source::Spec);
            let allocated = aggregate(Source::Allocated);
            let actuated = aggregate(Source::Actuated);
            let mut out = if self.resize_infeasible {
                ResourceList::new()
            } else {
                spec
            };
            max_into(&mut out, &actuated);
            max_into(&mut out, &allocated);
            out
        } else {
            aggregate(Source::Spec)
        };
        if how.pod_level && self.pod_level_set() {
            // `determineEffectiveRequests` (1.36): the larger of spec and resize status,
            // the status alone once a resize is infeasible.
            let mut pod_level =
                if how.use_status && how.pod_level_status && self.has_pod_level_status() {
                    let mut out = if self.resize_infeasible {
                        ResourceList::new()
                    } else {
                        self.pod_level.clone()
                    };
                    for status in [&self.pod_level_actuated, &self.pod_level_allocated]
                        .into_iter()
                        .flatten()
                    {
                        max_into(&mut out, status);
                    }
                    out
                } else {
                    self.pod_level.clone()
                };
            pod_level.0.retain(|(name, _)| pod_level_supported(name));
            for (name, q) in pod_level.iter() {
                reqs.insert(name.clone(), *q);
            }
        }
        add_into(&mut reqs, &self.overhead);
        reqs
    }
}

/// `AggregateContainerRequests` without options: the containers' effective requests from
/// the spec (what the API server's defaulting of pod-level requests reads). Quantities that
/// do not parse are left out; building the pod reports them.
pub(crate) fn aggregate_container_requests(p: &PodParts) -> Vec<(Name, Quantity)> {
    PodSpecRequests::parse(p, &mut Vec::new())
        .aggregate(Source::Spec, &ResourceList::new(), false)
        .0
        .into_vec()
}

/// Pod resources already computed for earlier templates, by what they are computed from.
/// A page's templates are its workloads, each with its own containers' names, but they name
/// few request sets and images between them (real workloads repeat theirs, as the bench
/// cluster's do), and computing them is much of building a template.
#[derive(Default)]
pub(crate) struct ResourcesMemo {
    computed: foldhash::HashMap<Box<[u8]>, Arc<PodResources>>,
    key: Vec<u8>,
}

impl ResourcesMemo {
    const KEPT: usize = 1024;

    /// The pod's resources: an earlier template's when it has the same inputs.
    pub(crate) fn resources(&mut self, p: &PodParts) -> Arc<PodResources> {
        if !self.key_of(p) {
            return Arc::new(PodResources::from_parts(p));
        }
        if let Some(r) = self.computed.get(&self.key[..]) {
            return r.clone();
        }
        let r = Arc::new(PodResources::from_parts(p));
        // Kept from page to page, so bounded: a cluster whose every workload asks for other
        // requests keeps a thousand at a time.
        if self.computed.len() >= ResourcesMemo::KEPT {
            self.computed.clear();
        }
        // A problem names its field: computed again for each pod that has one.
        if r.problems.is_empty() {
            self.computed.insert(self.key[..].into(), r.clone());
        }
        r
    }

    /// Writes into `key` everything [`PodResources::from_parts`] reads of the pod, each value
    /// as it is read; `false` when the pod's containers have status resources (an in-place
    /// resize), whose lists are matched to containers by name, for the pod to be computed
    /// apart. Without them the names read nothing.
    fn key_of(&mut self, p: &PodParts) -> bool {
        fn put(key: &mut Vec<u8>, s: &str) {
            put_len(key, s.len());
            key.extend_from_slice(s.as_bytes());
        }
        fn put_len(key: &mut Vec<u8>, n: usize) {
            key.extend_from_slice(&u64::try_from(n).unwrap_or(u64::MAX).to_le_bytes());
        }
        fn put_list(key: &mut Vec<u8>, list: Option<&BTreeMap<String, ApiQuantity>>) {
            put_len(key, list.map_or(0, BTreeMap::len));
            for (name, q) in list.into_iter().flatten() {
                put(key, name);
                put(key, &q.0);
            }
        }
        let resized = p.status.iter().any(|s| {
            s.resources.is_some()
                || s.allocated_resources.is_some()
                || s.container_statuses
                    .iter()
                    .flatten()
                    .chain(s.init_container_statuses.iter().flatten())
                    .any(|c| c.allocated_resources.is_some() || c.resources.is_some())
        });
        if resized {
            return false;
        }
        let key = &mut self.key;
        key.clear();
        let Some(spec) = p.spec.as_ref() else {
            return true;
        };
        for list in [&spec.init_containers, &spec.containers] {
            let list = list.as_deref().unwrap_or_default();
            put_len(key, list.len());
            for c in list {
                key.push(u8::from(c.restart_policy.as_deref() == Some("Always")));
                put(key, c.image.as_deref().unwrap_or_default());
                put_list(key, c.resources.as_ref().and_then(|r| r.requests.as_ref()));
                let ports = c.ports.as_deref().unwrap_or_default();
                put_len(key, ports.len());
                for port in ports {
                    key.extend_from_slice(&port.host_port.unwrap_or(0).to_le_bytes());
                    // None and "" read alike (the defaults).
                    put(key, port.host_ip.as_deref().unwrap_or_default());
                    put(key, port.protocol.as_deref().unwrap_or_default());
                }
            }
        }
        put_list(
            key,
            spec.resources.as_ref().and_then(|r| r.requests.as_ref()),
        );
        put_list(key, spec.overhead.as_ref());
        for v in spec.volumes.iter().flatten() {
            if let Some(reference) = v.image.as_ref().and_then(|i| i.reference.as_deref()) {
                put(key, reference);
            }
        }
        true
    }
}

/// Everything the resource plugins need from one pod, computed once.
#[derive(Debug, Clone, Default)]
pub struct PodResources {
    /// NodeResourcesFit's PreFilter request (spec only: a pending pod has no status).
    pub requests: Resources,
    /// What the pod holds on its node (`NodeInfo.Requested`): the larger of spec and the
    /// allocated/actuated resources of an in-place resize.
    pub usage: Resources,
    /// `NodeInfo.NonZeroRequested` share: containers without a cpu/memory request count as
    /// 100m / 200 MiB.
    pub non_zero_milli_cpu: i64,
    pub non_zero_memory: i64,
    /// `spec.resources` sets a supported pod-level request (`IsPodLevelRequestsSet`).
    pub pod_level_requests: bool,
    /// `spec.resources` sets a supported pod-level request that the release ignores
    /// (PodLevelResources off): every plugin counts the containers'.
    pub pod_level_ignored: bool,
    /// What NodeResourcesFit's scorer counts for the pod, computed only where it can differ
    /// from what the other plugins count (pod-level requests, or status resources after an
    /// in-place resize): see [`PodResources::fit_score_request`].
    pub fit_scorer: Option<Box<Resources>>,
    /// Host ports of containers and sidecars (`GetHostPorts`).
    pub host_ports: Vec<HostPort>,
    /// Images of init containers, then containers, then (from 1.36) image volumes: what
    /// ImageLocality looks up.
    pub images: Vec<String>,
    /// How many of `images` are image volumes' (at the end).
    pub volume_images: usize,
    /// An init container with `restartPolicy: Always`.
    pub has_restartable_init: bool,
    /// Quantities that failed to parse (API validation rejects them; hand-written files
    /// may not).
    pub problems: Vec<QuantityProblem>,
    /// Kept only for a pod another release may count differently.
    inputs: Option<Arc<Inputs>>,
}

/// What a pod's resources are computed from, kept beside them for the pods a release other
/// than 1.35 may count differently (see [`PodResources::under`]).
#[derive(Debug, Clone, Default)]
struct Inputs {
    parsed: PodSpecRequests,
    /// Sidecars' host ports, then the containers'.
    host_ports: Vec<HostPort>,
    sidecar_ports: usize,
    /// Images of init containers, then containers.
    images: Vec<String>,
    /// `spec.volumes[].image.reference`.
    volume_images: Vec<String>,
    has_restartable_init: bool,
}

impl Inputs {
    /// Whether any rule of [`ResourceRules`] can count this pod otherwise than 1.35 does.
    fn may_differ(&self) -> bool {
        self.parsed.pod_level_set()
            || self.parsed.has_status
            || self.parsed.has_pod_level_status()
            || self.has_restartable_init
            || !self.volume_images.is_empty()
    }

    fn compute(&self, rules: ResourceRules) -> PodResources {
        let parsed = &self.parsed;
        let none = ResourceList::new();
        let how = How {
            use_status: false,
            pod_level: rules.pod_level,
            pod_level_status: rules.pod_level_status,
            sidecars_as_init: false,
        };
        let status = How {
            use_status: rules.container_status,
            ..how
        };
        let spec_requests = parsed.requests(how, &none);
        let resized = (rules.container_status && parsed.has_status)
            || (rules.pod_level_status && parsed.has_pod_level_status());
        // Without status resources (every pod not resized in place) the usage is the spec's.
        let usage_owned;
        let usage_list = if resized {
            usage_owned = parsed.requests(status, &none);
            &usage_owned
        } else {
            &spec_requests
        };
        // getNonMissingContainerRequests: without pod-level requests both defaults apply;
        // with them, only for a resource neither level sets.
        let mut non_missing = ResourceList::new();
        let pod_level = rules.pod_level && parsed.pod_level_set();
        if !pod_level || !usage_list.contains_key(CPU) {
            non_missing.insert(
                Cow::Borrowed(CPU),
                Quantity::from_milli(DEFAULT_MILLI_CPU_REQUEST),
            );
        }
        if !pod_level || !usage_list.contains_key(MEMORY) {
            non_missing.insert(
                Cow::Borrowed(MEMORY),
                Quantity::from_units(DEFAULT_MEMORY_REQUEST),
            );
        }
        let sidecars_as_init = rules.sidecar_non_zero_as_init && self.has_restartable_init;
        let non_zero = if non_missing.is_empty() && !sidecars_as_init {
            usage_list.clone()
        } else {
            parsed.requests(
                How {
                    sidecars_as_init,
                    ..status
                },
                &non_missing,
            )
        };
        // NodeResourcesFit's scorer is built by its strategy (`nodeResourceStrategyTypeMap`
        // in pkg/scheduler/framework/plugins/noderesources/fit.go) without the feature flags
        // `NewFit` is given, so `calculatePodResourceRequest` (resource_allocation.go) runs
        // with `SkipPodLevelResources` and without `UseStatusResources`: the spec's container
        // requests with the 100m / 200 MiB defaults, plus overhead, whatever `spec.resources`
        // says. Filter, BalancedAllocation and the nodes' totals use the pod-level requests.
        // In 1.31 it counts sidecars as later releases do, where the nodes' non-zero sums
        // do not.
        let fit_scorer = (pod_level || resized || sidecars_as_init).then(|| {
            let mut defaults = ResourceList::new();
            defaults.insert(
                Cow::Borrowed(CPU),
                Quantity::from_milli(DEFAULT_MILLI_CPU_REQUEST),
            );
            defaults.insert(
                Cow::Borrowed(MEMORY),
                Quantity::from_units(DEFAULT_MEMORY_REQUEST),
            );
            Box::new(Resources::from_list(
                &parsed.requests(How::default(), &defaults),
            ))
        });
        let host_ports = if rules.sidecar_host_ports {
            self.host_ports.clone()
        } else {
            self.host_ports[self.sidecar_ports..].to_vec()
        };
        let mut images = self.images.clone();
        let mut volume_images = 0;
        if rules.image_volumes {
            images.extend(self.volume_images.iter().cloned());
            volume_images = self.volume_images.len();
        }
        PodResources {
            requests: Resources::max_from_list(&spec_requests),
            usage: Resources::from_list(usage_list),
            non_zero_milli_cpu: non_zero.get(CPU).map_or(0, |q| q.milli_value()),
            non_zero_memory: non_zero.get(MEMORY).map_or(0, |q| q.value()),
            pod_level_requests: pod_level,
            pod_level_ignored: !rules.pod_level && parsed.pod_level_set(),
            fit_scorer,
            host_ports,
            images,
            volume_images,
            has_restartable_init: self.has_restartable_init,
            problems: Vec::new(),
            inputs: None,
        }
    }
}

impl PodResources {
    pub(crate) fn from_parts(p: &PodParts) -> PodResources {
        let mut problems = Vec::new();
        let parsed = PodSpecRequests::parse(p, &mut problems);
        let spec = p.spec.as_ref();
        let mut inputs = Inputs {
            parsed,
            ..Inputs::default()
        };
        let mut container_ports = Vec::new();
        if let Some(spec) = spec {
            for c in spec.init_containers.iter().flatten() {
                inputs.images.push(c.image.clone().unwrap_or_default());
                if c.restart_policy.as_deref() == Some("Always") {
                    inputs.has_restartable_init = true;
                    inputs.host_ports.extend(host_ports_of(c));
                }
            }
            inputs.sidecar_ports = inputs.host_ports.len();
            for c in spec.containers.iter().flatten() {
                inputs.images.push(c.image.clone().unwrap_or_default());
                container_ports.extend(host_ports_of(c));
            }
            inputs.volume_images = spec
                .volumes
                .iter()
                .flatten()
                .filter_map(|v| v.image.as_ref()?.reference.clone())
                .collect();
        }
        inputs.host_ports.extend(container_ports);
        let mut r = inputs.compute(ResourceRules::default());
        r.problems = problems;
        if inputs.may_differ() {
            r.inputs = Some(Arc::new(inputs));
        }
        r
    }

    /// The pod's resources as a release counting by `rules` has them; `None` when they are
    /// the same as these (1.35's).
    pub fn under(&self, rules: ResourceRules) -> Option<PodResources> {
        if rules == ResourceRules::default() {
            return None;
        }
        let inputs = self.inputs.as_ref()?;
        let mut r = inputs.compute(rules);
        r.problems.clone_from(&self.problems);
        r.inputs = Some(inputs.clone());
        Some(r)
    }

    /// The pod's own request for one resource as NodeResourcesFit's scorer computes it
    /// (`calculatePodResourceRequest` without `useRequested`): cpu and memory with the
    /// 100m / 200 MiB defaults, and, in 1.35, from the containers' spec requests even when
    /// the pod sets pod-level requests (see `fit_scorer`).
    pub fn fit_score_request(&self, name: &str) -> i64 {
        match (&self.fit_scorer, name) {
            (Some(r), _) => r.get(name),
            (None, CPU) => self.non_zero_milli_cpu,
            (None, MEMORY) => self.non_zero_memory,
            (None, _) => self.usage.get(name),
        }
    }

    /// The pod's own request for one resource as BalancedAllocation's scorer computes it
    /// (`useRequested`, pod-level and status resources on): what it holds on a node.
    pub fn balanced_request(&self, name: &str) -> i64 {
        self.usage.get(name)
    }
}

fn host_ports_of(c: &parts::Container) -> impl Iterator<Item = HostPort> + '_ {
    c.ports
        .iter()
        .flatten()
        .filter(|p| p.host_port.unwrap_or(0) > 0)
        .map(|p| HostPort {
            host_ip: p
                .host_ip
                .clone()
                .filter(|ip| !ip.is_empty())
                .unwrap_or_else(|| "0.0.0.0".to_string()),
            protocol: p
                .protocol
                .clone()
                .filter(|x| !x.is_empty())
                .unwrap_or_else(|| "TCP".to_string()),
            port: p.host_port.unwrap_or(0),
        })
}

/// What a node offers, from `status.allocatable` (never `capacity`) and `status.images`.
#[derive(Debug, Clone, Default)]
pub struct NodeResources {
    pub allocatable: Resources,
    /// `allocatable.pods`; 0 when missing, as upstream reads it.
    pub allowed_pods: i64,
    pub images: Vec<NodeImage>,
    pub problems: Vec<QuantityProblem>,
}

impl NodeResources {
    /// From the node's `status.allocatable` and `status.images`.
    pub(crate) fn from_parts(
        allocatable: Option<&BTreeMap<String, ApiQuantity>>,
        images: Vec<NodeImage>,
    ) -> NodeResources {
        let mut problems = Vec::new();
        let list = parse_list(
            allocatable,
            Side::Status,
            || "status.allocatable".to_string(),
            &mut problems,
        );
        NodeResources {
            allocatable: Resources::from_list(&list),
            allowed_pods: list.get(PODS).map_or(0, |q| q.value()),
            images,
            problems,
        }
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1 as core;
    use serde_json::json;

    use super::*;

    fn pod(spec: serde_json::Value) -> PodResources {
        let p: core::Pod = serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec
        }))
        .expect("pod");
        PodResources::from_api(&p)
    }

    fn c(name: &str, req: serde_json::Value) -> serde_json::Value {
        json!({"name": name, "image": "i", "resources": {"requests": req}})
    }

    #[test]
    fn resource_names() {
        assert!(is_extended("example.com/aaa"));
        assert!(is_extended("nvidia.com/gpu"));
        assert!(!is_extended("kubernetes.io/something"));
        assert!(!is_extended("cpu"));
        assert!(!is_extended("requests.example.com/x"));
        assert!(!is_extended("Example.com/x"));
        assert!(is_scalar("hugepages-2Mi"));
        assert!(is_scalar("kubernetes.io/batch-cpu"));
        assert!(is_scalar("attachable-volumes-aws-ebs"));
        assert!(!is_scalar("pods"));
        assert!(!is_scalar("storage"));
        assert!(is_qualified_name("example.com/a_b.c"));
        assert!(!is_qualified_name("example.com/"));
        assert!(!is_qualified_name("a/b/c"));
    }

    #[test]
    fn pod_requests_follow_upstream() {
        // (what, spec, milli-cpu, memory, non-zero milli-cpu, non-zero memory)
        let cases: Vec<(&str, serde_json::Value, i64, i64, i64, i64)> = vec![
            (
                "containers are summed",
                json!({"containers": [c("a", json!({"cpu": "1", "memory": "1Gi"})), c("b", json!({"cpu": "500m"}))]}),
                1500,
                1 << 30,
                1500,
                (1 << 30) + DEFAULT_MEMORY_REQUEST,
            ),
            (
                "init containers take the max, not the sum (upstream doc example)",
                json!({
                    "initContainers": [c("i1", json!({"cpu": "2", "memory": "1G"})), c("i2", json!({"cpu": "2", "memory": "3G"}))],
                    "containers": [c("c1", json!({"cpu": "2", "memory": "1G"})), c("c2", json!({"cpu": "1", "memory": "1G"}))]
                }),
                3000,
                3_000_000_000,
                3000,
                3_000_000_000,
            ),
            (
                "sidecars add to the sum and to every later init container",
                json!({
                    "initContainers": [
                        {"name": "s", "image": "i", "restartPolicy": "Always", "resources": {"requests": {"cpu": "2m"}}},
                        c("i", json!({"cpu": "5m"}))
                    ],
                    "containers": [c("c", json!({"cpu": "1m"}))]
                }),
                7,
                0,
                7,
                // c, s and i lack memory: 200Mi each; peak = max(c+s, s+i) = 400Mi.
                2 * DEFAULT_MEMORY_REQUEST,
            ),
            (
                "explicit zero stays zero for scoring",
                json!({"containers": [c("a", json!({"cpu": "0", "memory": "0"}))]}),
                0,
                0,
                0,
                0,
            ),
            (
                "no requests at all",
                json!({"containers": [{"name": "a", "image": "i"}]}),
                0,
                0,
                DEFAULT_MILLI_CPU_REQUEST,
                DEFAULT_MEMORY_REQUEST,
            ),
            (
                "overhead is added",
                json!({"overhead": {"cpu": "250m", "memory": "120Mi"}, "containers": [c("a", json!({"cpu": "1"}))]}),
                1250,
                120 << 20,
                1250,
                DEFAULT_MEMORY_REQUEST + (120 << 20),
            ),
            (
                "pod-level requests replace cpu/memory; defaults only where neither level sets it",
                json!({"resources": {"requests": {"cpu": "3"}}, "containers": [c("a", json!({"cpu": "1", "ephemeral-storage": "1"}))]}),
                3000,
                0,
                3000,
                DEFAULT_MEMORY_REQUEST,
            ),
        ];
        for (what, spec, cpu, mem, nz_cpu, nz_mem) in cases {
            let r = pod(spec);
            assert!(r.problems.is_empty(), "{what}: {:?}", r.problems);
            assert_eq!(
                (r.requests.milli_cpu, r.requests.memory),
                (cpu, mem),
                "{what}"
            );
            assert_eq!(
                (r.non_zero_milli_cpu, r.non_zero_memory),
                (nz_cpu, nz_mem),
                "{what}: non-zero"
            );
        }
    }

    /// NodeResourcesFit's scorer reads the containers' spec requests with the non-zero
    /// defaults, plus overhead, even when the pod sets pod-level requests (1.35's scorer is
    /// built without the PodLevelResources flag); BalancedAllocation and the node totals
    /// read the pod-level requests.
    #[test]
    fn the_fit_scorer_skips_pod_level_requests() {
        let r = pod(json!({
            "resources": {"requests": {"memory": "3Gi", "hugepages-2Mi": "2Mi"}},
            "overhead": {"memory": "10Mi"},
            "containers": [c("a", json!({"cpu": "1"})), {"name": "b", "image": "i"}]
        }));
        assert!(r.pod_level_requests);
        assert_eq!(
            (
                r.fit_score_request(CPU),
                r.fit_score_request(MEMORY),
                r.fit_score_request("hugepages-2Mi")
            ),
            (1100, 2 * DEFAULT_MEMORY_REQUEST + (10 << 20), 0)
        );
        assert_eq!(
            (
                r.balanced_request(CPU),
                r.balanced_request(MEMORY),
                r.balanced_request("hugepages-2Mi")
            ),
            (1000, (3 << 30) + (10 << 20), 2 << 20)
        );
        assert_eq!(r.non_zero_memory, (3 << 30) + (10 << 20));

        // Without pod-level requests both read the same requests.
        let r = pod(json!({"containers": [c("a", json!({"cpu": "1"}))]}));
        assert!(!r.pod_level_requests && r.fit_scorer.is_none());
        assert_eq!(
            (r.fit_score_request(CPU), r.fit_score_request(MEMORY)),
            (1000, DEFAULT_MEMORY_REQUEST)
        );
    }

    #[test]
    fn in_place_resize_counts_the_larger_value() {
        let p: core::Pod = serde_json::from_value(json!({
            "metadata": {"name": "p"},
            "spec": {"containers": [c("a", json!({"cpu": "1"}))]},
            "status": {"containerStatuses": [{
                "name": "a", "image": "i", "imageID": "", "ready": true, "restartCount": 0,
                "allocatedResources": {"cpu": "2"}
            }]}
        }))
        .expect("pod");
        let r = PodResources::from_api(&p);
        assert_eq!(r.requests.milli_cpu, 1000);
        assert_eq!(r.usage.milli_cpu, 2000);
        // NodeResourcesFit's scorer is built without `UseStatusResources`: the spec's.
        assert_eq!(
            (r.fit_score_request(CPU), r.balanced_request(CPU)),
            (1000, 2000)
        );
    }

    /// Templates that differ only in their containers' names take one computed copy; a
    /// resized pod's status lists are found by name, so it is computed apart, and what the
    /// memo holds for a pod with an invalid quantity is not handed to another.
    #[test]
    fn the_resources_memo_shares_what_the_names_do_not_change() {
        fn parts(v: serde_json::Value) -> PodParts {
            let p: core::Pod = serde_json::from_value(v).expect("pod");
            PodParts::from(p)
        }
        fn with(name: &str, cpu: &str, status: serde_json::Value) -> PodParts {
            parts(json!({
                "metadata": {"name": "p"},
                "spec": {"containers": [c(name, json!({"cpu": cpu}))]},
                "status": status,
            }))
        }
        let mut memo = ResourcesMemo::default();
        let a = memo.resources(&with("a", "1", json!({})));
        let b = memo.resources(&with("b", "1", json!({})));
        assert!(Arc::ptr_eq(&a, &b), "same requests and image, other names");
        let other = memo.resources(&with("b", "2", json!({})));
        assert_eq!((a.usage.milli_cpu, other.usage.milli_cpu), (1000, 2000));

        // The same spec as `a`, with an allocation for container "a": only "a" takes it.
        let status = json!({"containerStatuses": [{
            "name": "a", "image": "i", "imageID": "", "ready": true, "restartCount": 0,
            "allocatedResources": {"cpu": "3"}
        }]});
        let resized = memo.resources(&with("a", "1", status.clone()));
        let not_matched = memo.resources(&with("b", "1", status));
        assert_eq!(
            (resized.usage.milli_cpu, not_matched.usage.milli_cpu),
            (3000, 1000)
        );
        assert!(!Arc::ptr_eq(&resized, &a) && !Arc::ptr_eq(&not_matched, &a));

        let bad = memo.resources(&with("a", "x", json!({})));
        let again = memo.resources(&with("b", "x", json!({})));
        assert_eq!(bad.problems.len(), 1);
        assert!(again.problems[0].field.contains("containers[0]"));
        assert!(!Arc::ptr_eq(&bad, &again));
    }

    /// The memo is bounded: past `KEPT` distinct request sets the kept ones are dropped,
    /// and every pod still gets its own requests.
    #[test]
    fn the_resources_memo_stays_bounded_and_right() {
        let mut memo = ResourcesMemo::default();
        for m in 1..=ResourcesMemo::KEPT as i64 + 1 {
            let p = PodParts::from(
                serde_json::from_value::<core::Pod>(json!({
                    "metadata": {"name": "p"},
                    "spec": {"containers": [c("a", json!({"cpu": format!("{m}m")}))]},
                }))
                .expect("pod"),
            );
            assert_eq!(memo.resources(&p).usage.milli_cpu, m, "pod {m}");
            assert!(memo.computed.len() <= ResourcesMemo::KEPT, "after pod {m}");
        }
    }

    #[test]
    fn bad_quantities_name_the_field() {
        let r = pod(json!({"containers": [c("a", json!({"cpu": "lots"}))]}));
        assert_eq!(r.problems.len(), 1);
        assert_eq!(
            r.problems[0].field,
            "spec.containers[0].resources.requests[cpu]"
        );
        assert!(r.problems[0].message.contains("\"lots\""));

        // Every list is named (the names are made only for a problem); a negative amount is
        // one in the spec and not in the status.
        let p: core::Pod = serde_json::from_value(json!({
            "metadata": {"name": "p"},
            "spec": {
                "initContainers": [c("ok", json!({"cpu": "1"})), c("i", json!({"memory": "-1"}))],
                "containers": [c("a", json!({"cpu": "1"}))],
                "resources": {"requests": {"cpu": "x"}},
                "overhead": {"memory": "y"}
            },
            "status": {"containerStatuses": [{
                "name": "a", "image": "i", "imageID": "", "ready": true, "restartCount": 0,
                "allocatedResources": {"cpu": "-2", "memory": "z"},
                "resources": {"requests": {"cpu": "w"}}
            }]}
        }))
        .expect("pod");
        let fields: Vec<String> = PodResources::from_api(&p)
            .problems
            .into_iter()
            .map(|p| p.field)
            .collect();
        assert_eq!(
            fields,
            [
                "status.containerStatuses[a].allocatedResources[memory]",
                "status.containerStatuses[a].resources.requests[cpu]",
                "spec.initContainers[1].resources.requests[memory]",
                "spec.resources.requests[cpu]",
                "spec.overhead[memory]",
            ]
        );
    }

    #[test]
    fn host_ports_and_images() {
        let r = pod(json!({
            "initContainers": [
                {"name": "s", "image": "side:1", "restartPolicy": "Always", "ports": [{"containerPort": 1, "hostPort": 9000}]},
                {"name": "i", "image": "init", "ports": [{"containerPort": 1, "hostPort": 9001}]}
            ],
            "containers": [{"name": "a", "image": "app", "ports": [
                {"containerPort": 80, "hostPort": 8080, "protocol": "UDP", "hostIP": "10.0.0.1"},
                {"containerPort": 81}
            ]}]
        }));
        assert_eq!(r.images, ["side:1", "init", "app"]);
        let ports: Vec<(&str, &str, i32)> = r
            .host_ports
            .iter()
            .map(|p| (p.host_ip.as_str(), p.protocol.as_str(), p.port))
            .collect();
        assert_eq!(ports, [("0.0.0.0", "TCP", 9000), ("10.0.0.1", "UDP", 8080)]);
        assert!(r.has_restartable_init);
    }
}
