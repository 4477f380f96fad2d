//! The structured allocator (k8s.io/dynamic-resource-allocation/structured, v0.35, the
//! "incubating" implementation that kube-scheduler 1.35 runs with its default gates; the
//! "stable" one it picks with every optional feature off finds the same first solution, it
//! only prunes less when a claim would exceed 32 devices).
//!
//! For one node it gathers the pools whose slices reach the node, then searches, claim by
//! claim, request by request and device by device, for the first combination of devices
//! that passes the class and request selectors, is not in use, tolerates the device's
//! taints and keeps every `matchAttribute` constraint, backtracking over all orders exactly
//! as upstream does, so the same first solution comes out (upstream visits pools in Go map
//! order, which is random; here they come in the order their first slice is listed).
//!
//! Upstream bounds the search by wall time (`DRASchedulerFilterTimeout`, 10 s); this code
//! has no clock, so it bounds the number of `allocateOne` calls (the unit upstream's own
//! statistics count) with a [`Budget`] and reports [`Outcome::TimedOut`] past it.
//!
//! When no allocation exists, [`Allocator::diagnose`] says why, request by request: each
//! candidate device with the reason it was refused (the selector that rejected it with the
//! values it read, the claims that hold it, its taint), and whether the requests only fail
//! together (competing for the same devices, or kept apart by a constraint).

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use super::cel::{Cache, DeviceInput, DevicePath};
use super::types::{
    AllocatedDevice, AllocationMode, AttributeValue, DeviceClass, DeviceId, DeviceSelector,
    DeviceTaint, DeviceToleration, NodeSelection, RequestKind, RequestSpec, ResourceClaim,
    ResourceSlice,
};
use crate::state::labels::Labels;
use crate::state::selector::{NodeSelector, aggregate};
use crate::state::spec;

/// `resourceapi.AllocationResultsMaxSize`.
pub const ALLOCATION_RESULTS_MAX_SIZE: usize = 32;

/// The allocator's optional features (`structured.Features`), set from feature gates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Features {
    /// DRAAdminAccess.
    pub admin_access: bool,
    /// DRAPrioritizedList: `firstAvailable`.
    pub prioritized_list: bool,
    /// DRAPartitionableDevices: shared counters and per-device node selection.
    pub partitionable_devices: bool,
    /// DRADeviceTaints.
    pub device_taints: bool,
    /// DRADeviceBindingConditions and DRAResourceClaimDeviceStatus together.
    pub device_binding_and_status: bool,
    /// DRAConsumableCapacity.
    pub consumable_capacity: bool,
}

impl Features {
    /// What kube-scheduler 1.35 runs with by default.
    pub const V1_35_DEFAULTS: Features = Features {
        admin_access: true,
        prioritized_list: true,
        partitionable_devices: false,
        device_taints: false,
        device_binding_and_status: false,
        consumable_capacity: false,
    };

    /// The enabled features whose allocation rules this code does not implement (counters,
    /// binding conditions, consumable capacity): with one of them on, a result would not be
    /// upstream's, so the caller should say the rule was not evaluated.
    pub fn unsupported(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.partitionable_devices {
            out.push("DRAPartitionableDevices");
        }
        if self.device_binding_and_status {
            out.push("DRADeviceBindingConditions");
        }
        if self.consumable_capacity {
            out.push("DRAConsumableCapacity");
        }
        out
    }
}

/// The bound on one search: upstream stops after 10 s of wall time; this stops after
/// `max_steps` calls of `allocateOne`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub max_steps: u64,
}

impl Budget {
    /// Ten million steps, about upstream's 10 s Filter timeout if an `allocateOne` call
    /// costs upstream about a microsecond (an estimate, not a measurement of Go). This code
    /// makes about 0.6 µs a call in a release build, so the bound also keeps one node's
    /// search to seconds; a search the budget cuts short is reported as timed out, the
    /// outcome upstream reaches for a search of that size.
    pub const UPSTREAM_FILTER_TIMEOUT: Budget = Budget {
        max_steps: 10_000_000,
    };
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::UPSTREAM_FILTER_TIMEOUT
    }
}

/// Devices already allocated (`status.allocation`) and the claims that hold them; devices
/// allocated with admin access are not in use (upstream's `foreachAllocatedDevice`).
#[derive(Debug, Clone, Default)]
pub struct AllocatedDevices {
    by_device: HashMap<DeviceId, Vec<String>>,
}

impl AllocatedDevices {
    /// From every claim with an allocation.
    pub fn from_claims<'a>(claims: impl IntoIterator<Item = &'a ResourceClaim>) -> Self {
        let mut out = AllocatedDevices::default();
        for claim in claims {
            let Some(allocation) = &claim.allocation else {
                continue;
            };
            for d in &allocation.devices {
                if d.admin_access == Some(true) {
                    continue;
                }
                out.insert(DeviceId::new(&d.driver, &d.pool, &d.device), claim.key());
            }
        }
        out
    }

    /// Marks `device` allocated to `claim` (`namespace/name`).
    pub fn insert(&mut self, device: DeviceId, claim: String) {
        let holders = self.by_device.entry(device).or_default();
        if !holders.contains(&claim) {
            holders.push(claim);
        }
    }

    pub fn contains(&self, device: &DeviceId) -> bool {
        self.by_device.contains_key(device)
    }

    /// The claims holding `device`.
    pub fn holders(&self, device: &DeviceId) -> &[String] {
        self.by_device.get(device).map_or(&[], Vec::as_slice)
    }

    pub fn len(&self) -> usize {
        self.by_device.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_device.is_empty()
    }
}

/// The node being checked.
#[derive(Debug, Clone, Copy)]
pub struct NodeRef<'a> {
    pub name: &'a str,
    pub labels: &'a Labels,
}

/// One claim's allocation.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimAllocation {
    /// `namespace/name`.
    pub claim: String,
    pub devices: Vec<AllocatedDevice>,
    /// Where the allocation is usable (upstream's `createNodeSelector`); `None`: everywhere.
    #[serde(skip)]
    pub node_selector: Option<spec::NodeSelector>,
}

/// What `Allocate` decided for one node.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// One allocation per claim, in the claims' order.
    Allocated(Vec<ClaimAllocation>),
    /// No combination fits (upstream: no result, no error; the plugin says "cannot allocate
    /// all claims"). [`Allocator::diagnose`] explains it.
    Unsatisfiable,
    /// Not a fatal error, only this node: the plugin reports it as Unschedulable with this
    /// text (`ErrFailedAllocationOnNode`).
    FailedOnNode(String),
    /// A fatal error (bad claim, class or selector): the plugin returns it as a Filter Error,
    /// verbatim.
    Error(String),
    /// The search went past its [`Budget`] (upstream: its context deadline).
    TimedOut { steps: u64 },
}

/// Why a candidate device was not usable for a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "camelCase")]
pub enum Refusal {
    /// Allocated to other claims.
    InUse { claims: Vec<String> },
    /// A selector of the request's DeviceClass is false for it.
    #[serde(rename_all = "camelCase")]
    ClassSelector {
        class: String,
        index: usize,
        expression: String,
        /// What the selector reads of the device and the device's value (`None`: unset).
        values: Vec<(String, Option<String>)>,
    },
    /// A selector of the request itself is false for it.
    #[serde(rename_all = "camelCase")]
    RequestSelector {
        index: usize,
        expression: String,
        values: Vec<(String, Option<String>)>,
    },
    /// A NoSchedule or NoExecute taint the request does not tolerate (DRADeviceTaints).
    Tainted {
        key: String,
        value: String,
        effect: String,
    },
    /// The device has binding conditions, and DRADeviceBindingConditions is off.
    BindingConditions,
    /// The device consumes counters, and DRAPartitionableDevices is off.
    ConsumesCounters,
    /// Per-device node selection excludes this node.
    NotOnNode,
}

/// A device the request could have used, and why it did not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    pub device: DeviceId,
    /// `None`: usable on its own.
    pub refusal: Option<Refusal>,
}

/// One request (or subrequest) of a claim that cannot be allocated, on its own terms.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestDiagnosis {
    /// `<request>` or `<request>/<subrequest>`.
    pub request: String,
    pub class: String,
    /// Devices wanted; for allocation mode All, the number the node has that match.
    pub wanted: usize,
    pub all: bool,
    /// Every device of a pool reaching the node, with its verdict.
    pub candidates: Vec<Candidate>,
}

impl RequestDiagnosis {
    pub fn usable(&self) -> usize {
        self.candidates
            .iter()
            .filter(|c| c.refusal.is_none())
            .count()
    }

    /// Not enough usable devices, whatever the other requests take.
    pub fn short(&self) -> bool {
        if self.all {
            self.wanted == 0 || self.usable() < self.wanted
        } else {
            self.usable() < self.wanted
        }
    }
}

/// Why the claims cannot be allocated on a node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Diagnosis {
    /// Some requests lack usable devices on their own (for a firstAvailable request, every
    /// subrequest does): those requests, with every candidate's verdict.
    #[serde(rename_all = "camelCase")]
    RequestsShort {
        claim: String,
        requests: Vec<RequestDiagnosis>,
    },
    /// Every request has enough devices on its own, but the claims' `matchAttribute`
    /// constraints leave no combination: the constraints whose removal alone would let the
    /// claims fit (empty when only dropping several would).
    #[serde(rename_all = "camelCase")]
    Constraint {
        /// (claim, constraint index, attribute).
        constraints: Vec<(String, usize, String)>,
    },
    /// Every request has enough devices on its own, but not all at once: they compete for
    /// the same devices.
    Contention,
    /// The diagnosis itself went past its budget.
    Undetermined,
}

/// The allocator for one set of classes, slices and allocated devices, usable for many nodes
/// (upstream's `NewAllocator` result).
#[derive(Debug)]
pub struct Allocator<'a> {
    features: Features,
    allocated: &'a AllocatedDevices,
    classes: HashMap<&'a str, &'a DeviceClass>,
    slices: &'a [ResourceSlice],
    cel: &'a Cache,
}

/// A pool reaching the node.
#[derive(Debug)]
struct Pool<'a> {
    driver: &'a str,
    name: &'a str,
    incomplete: bool,
    invalid: bool,
    slices: Vec<&'a ResourceSlice>,
}

impl Pool<'_> {
    fn id(&self) -> String {
        format!("{}/{}", self.driver, self.name)
    }
}

/// A device of a gathered pool: (pool, slice within the pool, device within the slice).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct At {
    pool: usize,
    slice: usize,
    device: usize,
}

#[derive(Debug)]
struct RequestData<'a> {
    /// The request's (or subrequest's) own name.
    name: &'a str,
    /// The parent request's name, for a subrequest.
    parent: Option<&'a str>,
    spec: &'a RequestSpec,
    admin_access: bool,
    class: &'a DeviceClass,
    num_devices: usize,
    /// For allocation mode All: the devices, fixed up front.
    all_devices: Option<Vec<At>>,
}

impl RequestData<'_> {
    fn full_name(&self) -> String {
        match self.parent {
            Some(p) => format!("{p}/{}", self.name),
            None => self.name.to_owned(),
        }
    }
}

/// One request: plain, or a list of subrequests of which one is picked.
#[derive(Debug)]
enum Request<'a> {
    Plain(RequestData<'a>),
    Subrequests {
        subs: Vec<RequestData<'a>>,
        selected: usize,
    },
}

impl<'a> Request<'a> {
    fn data(&self, sub: usize) -> &RequestData<'a> {
        match self {
            Request::Plain(d) => d,
            Request::Subrequests { subs, .. } => &subs[sub],
        }
    }
}

#[derive(Debug)]
struct MatchAttribute<'a> {
    requests: BTreeSet<&'a str>,
    attribute: &'a str,
    value: Option<AttributeValue>,
    num_devices: usize,
}

impl MatchAttribute<'_> {
    fn applies(&self, request: &str, sub: Option<&str>) -> bool {
        if self.requests.is_empty() {
            return true;
        }
        match sub {
            None => self.requests.contains(request),
            Some(sub) => {
                self.requests.contains(request)
                    || self.requests.contains(format!("{request}/{sub}").as_str())
            }
        }
    }

    fn add(
        &mut self,
        request: &str,
        sub: Option<&str>,
        device: &super::types::Device,
        driver: &str,
    ) -> bool {
        if !self.applies(request, sub) {
            return true;
        }
        let Some(value) = lookup_attribute(device, driver, self.attribute) else {
            return false;
        };
        if self.num_devices == 0 {
            self.value = Some(value.clone());
            self.num_devices = 1;
            return true;
        }
        let same = match (&self.value, value) {
            (Some(AttributeValue::String(a)), AttributeValue::String(b)) => a == b,
            (Some(AttributeValue::Int(a)), AttributeValue::Int(b)) => a == b,
            (Some(AttributeValue::Bool(a)), AttributeValue::Bool(b)) => a == b,
            (Some(AttributeValue::Version(a)), AttributeValue::Version(b)) => a == b,
            _ => false,
        };
        if same {
            self.num_devices += 1;
        }
        same
    }

    fn remove(&mut self, request: &str, sub: Option<&str>) {
        if self.applies(request, sub) {
            self.num_devices -= 1;
        }
    }
}

/// `lookupAttribute`: the fully qualified name, or, in the driver's domain, the bare name.
fn lookup_attribute<'d>(
    device: &'d super::types::Device,
    driver: &str,
    qualified: &str,
) -> Option<&'d AttributeValue> {
    if let Some(v) = device.attributes.get(qualified) {
        return Some(v);
    }
    let (domain, id) = qualified.split_once('/')?;
    if domain != driver {
        return None;
    }
    device.attributes.get(id)
}

/// `resourceclaim.ToleratesTaint`.
fn tolerates(toleration: &DeviceToleration, taint: &DeviceTaint) -> bool {
    if !toleration.effect.is_empty() && toleration.effect != taint.effect {
        return false;
    }
    if !toleration.key.is_empty() && toleration.key != taint.key {
        return false;
    }
    match toleration.operator.as_str() {
        "" | "Equal" => toleration.value == taint.value,
        "Exists" => true,
        _ => false,
    }
}

/// The first taint that prevents allocation (only NoSchedule and NoExecute do).
fn blocking_taint<'d>(
    device: &'d super::types::Device,
    spec: &RequestSpec,
) -> Option<&'d DeviceTaint> {
    device.taints.iter().find(|taint| {
        matches!(taint.effect.as_str(), "NoSchedule" | "NoExecute")
            && !spec.tolerations.iter().any(|t| tolerates(t, taint))
    })
}

/// `NodeMatches`.
fn node_matches(node: NodeRef<'_>, selection: &NodeSelection) -> Result<bool, String> {
    if let Some(name) = selection.node_name.as_deref().filter(|n| !n.is_empty()) {
        return Ok(node.name == name);
    }
    if selection.all_nodes {
        return Ok(true);
    }
    if let Some(selector) = &selection.node_selector {
        let parsed = NodeSelector::parse(selector);
        let errors = parsed.errors();
        if !errors.is_empty() {
            return Err(format!(
                "failed to parse node selector {}: {}",
                describe_selector(selector),
                aggregate(&errors)
            ));
        }
        return Ok(parsed.matches(node.name, node.labels));
    }
    Ok(false)
}

fn describe_selector(selector: &spec::NodeSelector) -> String {
    format!("{selector:?}")
}

/// Why the search stopped early.
enum Stop {
    Fatal(String),
    MaxSizeExceeded,
    Budget,
}

/// The state of one `Allocate` call.
struct Search<'s, 'a> {
    allocator: &'s Allocator<'a>,
    node: NodeRef<'s>,
    claims: &'s [&'a ResourceClaim],
    pools: Vec<Pool<'a>>,
    requests: Vec<Vec<Request<'a>>>,
    constraints: Vec<Vec<MatchAttribute<'a>>>,
    /// Where each slice's devices start in the dense numbering below.
    offsets: Vec<Vec<usize>>,
    /// Every device of the gathered pools, densely numbered.
    ids: Vec<DeviceId>,
    /// Allocated before this search (by dense number).
    allocated: Vec<bool>,
    /// The claims (by index) each device is being allocated for in this search.
    allocating: Vec<Vec<usize>>,
    match_cache: foldhash::HashMap<(usize, usize, usize, usize), bool>,
    /// Per claim: the device, its request and subrequest, and whether with admin access.
    result: Vec<Vec<(At, usize, usize, bool)>>,
    steps: u64,
    budget: Budget,
    /// Constraints left out, for the diagnosis.
    ignore_constraints: Option<Option<(usize, usize)>>,
}

impl<'a> Allocator<'a> {
    pub fn new(
        features: Features,
        allocated: &'a AllocatedDevices,
        classes: &'a [DeviceClass],
        slices: &'a [ResourceSlice],
        cel: &'a Cache,
    ) -> Allocator<'a> {
        Allocator {
            features,
            allocated,
            classes: classes.iter().map(|c| (c.name.as_str(), c)).collect(),
            slices,
            cel,
        }
    }

    /// `Allocate`: the allocation of every claim on `node`, or why not.
    pub fn allocate(
        &self,
        node: NodeRef<'_>,
        claims: &[&'a ResourceClaim],
        budget: Budget,
    ) -> Outcome {
        self.allocate_counted(node, claims, budget).0
    }

    /// [`allocate`](Self::allocate), and the number of `allocateOne` calls it made (what
    /// upstream's `GetStats` reports).
    pub fn allocate_counted(
        &self,
        node: NodeRef<'_>,
        claims: &[&'a ResourceClaim],
        budget: Budget,
    ) -> (Outcome, u64) {
        let mut search = match self.prepare(node, claims, budget, None) {
            Ok(s) => s,
            Err(e) => return (Outcome::Error(e), 0),
        };
        let outcome = search.run();
        (outcome, search.steps)
    }

    /// Why `allocate` found nothing for `claims` on `node` (call it after
    /// [`Outcome::Unsatisfiable`]); it searches again, so it takes a budget of its own.
    pub fn diagnose(
        &self,
        node: NodeRef<'_>,
        claims: &[&'a ResourceClaim],
        budget: Budget,
    ) -> Diagnosis {
        let Ok(mut search) = self.prepare(node, claims, budget, None) else {
            return Diagnosis::Undetermined;
        };
        let mut short = Vec::new();
        for (c, requests) in search.requests.iter().enumerate() {
            let mut claim_short = Vec::new();
            for request in requests {
                let datas: Vec<&RequestData<'a>> = match request {
                    Request::Plain(d) => vec![d],
                    Request::Subrequests { subs, .. } => subs.iter().collect(),
                };
                let diagnoses: Vec<RequestDiagnosis> = datas
                    .iter()
                    .map(|d| search.request_diagnosis(c, d))
                    .collect();
                if diagnoses.iter().all(RequestDiagnosis::short) {
                    claim_short.extend(diagnoses);
                }
            }
            if !claim_short.is_empty() {
                short.push((claims[c].key(), claim_short));
            }
        }
        if let Some((claim, requests)) = short.into_iter().next() {
            return Diagnosis::RequestsShort { claim, requests };
        }
        let has_constraints = claims.iter().any(|c| !c.constraints.is_empty());
        if has_constraints {
            search.reset(Some(None));
            match search.allocate_one(Indices::default(), false) {
                Ok(true) => {
                    let mut culprits = Vec::new();
                    for (c, claim) in claims.iter().enumerate() {
                        for (i, constraint) in claim.constraints.iter().enumerate() {
                            search.reset(Some(Some((c, i))));
                            if let Ok(true) = search.allocate_one(Indices::default(), false) {
                                culprits.push((
                                    claim.key(),
                                    i,
                                    constraint.match_attribute.clone().unwrap_or_default(),
                                ));
                            }
                        }
                    }
                    return Diagnosis::Constraint {
                        constraints: culprits,
                    };
                }
                Err(Stop::Budget) => return Diagnosis::Undetermined,
                _ => {}
            }
        }
        Diagnosis::Contention
    }

    /// Everything before the search: pools, request data, constraints, and upstream's
    /// up-front refusals.
    fn prepare<'s>(
        &'s self,
        node: NodeRef<'s>,
        claims: &'s [&'a ResourceClaim],
        budget: Budget,
        ignore_constraints: Option<Option<(usize, usize)>>,
    ) -> Result<Search<'s, 'a>, String> {
        let pools = self
            .gather_pools(node)
            .map_err(|e| format!("gather pool information: {e}"))?;
        let mut search = Search {
            allocator: self,
            node,
            claims,
            pools,
            requests: Vec::with_capacity(claims.len()),
            constraints: Vec::with_capacity(claims.len()),
            offsets: Vec::new(),
            ids: Vec::new(),
            allocated: Vec::new(),
            allocating: Vec::new(),
            match_cache: foldhash::HashMap::default(),
            result: vec![Vec::new(); claims.len()],
            steps: 0,
            budget,
            ignore_constraints,
        };
        search.index_devices();
        for (c, claim) in claims.iter().enumerate() {
            let key = claim.key();
            let mut min_devices = 0usize;
            let mut requests = Vec::with_capacity(claim.requests.len());
            for (r, request) in claim.requests.iter().enumerate() {
                match &request.kind {
                    RequestKind::FirstAvailable(subs) => {
                        if !self.features.prioritized_list {
                            return Err(format!(
                                "claim {key}, request {}: has subrequests, but the DRAPrioritizedList feature is disabled",
                                request.name
                            ));
                        }
                        let mut datas = Vec::with_capacity(subs.len());
                        // Go's math.MaxInt: what an empty list (refused by validation) adds.
                        let mut min = i64::MAX as usize;
                        for (s, sub) in subs.iter().enumerate() {
                            let data = search.validate(
                                c,
                                (r, s),
                                &sub.name,
                                Some(&request.name),
                                Some(&sub.spec),
                                None,
                            )?;
                            min = min.min(data.num_devices);
                            datas.push(data);
                        }
                        min_devices = min_devices.saturating_add(min);
                        requests.push(Request::Subrequests {
                            subs: datas,
                            selected: 0,
                        });
                    }
                    RequestKind::Exactly(exact) => {
                        let data = search.validate(
                            c,
                            (r, 0),
                            &request.name,
                            None,
                            Some(&exact.spec),
                            exact.admin_access,
                        )?;
                        min_devices = min_devices.saturating_add(data.num_devices);
                        requests.push(Request::Plain(data));
                    }
                    RequestKind::Unknown => {
                        search.validate(c, (r, 0), &request.name, None, None, None)?;
                    }
                }
                // Request data is read by `validate` of later requests only through
                // `search.requests[c]`, which is pushed below; nothing reads it earlier.
            }
            if min_devices > ALLOCATION_RESULTS_MAX_SIZE {
                return Err(format!(
                    "claim {key}: number of requested devices {min_devices} exceeds the claim limit of {ALLOCATION_RESULTS_MAX_SIZE}"
                ));
            }
            let mut constraints = Vec::with_capacity(claim.constraints.len());
            for (i, constraint) in claim.constraints.iter().enumerate() {
                let Some(attribute) = &constraint.match_attribute else {
                    return Err(format!(
                        "claim {key}, constraint #{i}: empty constraint (unsupported constraint type?)"
                    ));
                };
                constraints.push(MatchAttribute {
                    requests: constraint.requests.iter().map(String::as_str).collect(),
                    attribute,
                    value: None,
                    num_devices: 0,
                });
            }
            search.requests.push(requests);
            search.constraints.push(constraints);
        }
        Ok(search)
    }

    /// `GatherPools`, with pools in the order their first slice is listed.
    fn gather_pools(&self, node: NodeRef<'_>) -> Result<Vec<Pool<'a>>, String> {
        let mut order: Vec<(&'a str, &'a str)> = Vec::new();
        let mut pools: HashMap<(&'a str, &'a str), Vec<&'a ResourceSlice>> = HashMap::new();
        for slice in self.slices {
            if !self.features.partitionable_devices
                && (slice.per_device_node_selection || slice.has_shared_counters)
            {
                continue;
            }
            let reaches = if slice.has_shared_counters {
                true
            } else if slice
                .node_selection
                .node_name
                .as_deref()
                .is_some_and(|n| !n.is_empty())
                || slice.node_selection.all_nodes
                || slice.node_selection.node_selector.is_some()
            {
                node_matches(node, &slice.node_selection).map_err(|e| {
                    format!(
                        "failed to perform node selection for slice {}: {e}",
                        slice.name
                    )
                })?
            } else if slice.per_device_node_selection {
                let mut any = false;
                for device in &slice.devices {
                    if node_matches(node, &device.node_selection).map_err(|e| {
                        format!(
                            "failed to perform node selection for device {} in slice {}: {e}",
                            device.name, slice.name
                        )
                    })? {
                        any = true;
                        break;
                    }
                }
                any
            } else {
                false
            };
            if !reaches {
                continue;
            }
            let id = (slice.driver.as_str(), slice.pool.name.as_str());
            match pools.get_mut(&id) {
                None => {
                    order.push(id);
                    pools.insert(id, vec![slice]);
                }
                Some(existing) => {
                    let generation = existing[0].pool.generation;
                    if slice.pool.generation < generation {
                        continue;
                    }
                    if slice.pool.generation > generation {
                        existing.clear();
                    }
                    existing.push(slice);
                }
            }
        }
        let mut result = Vec::with_capacity(order.len());
        for id in order {
            let Some(slices) = pools.remove(&id) else {
                continue;
            };
            let first = slices[0];
            let mut complete = slices.len() as i64 == first.pool.resource_slice_count;
            if !complete {
                // Slices left out above (not for this node) still count towards the pool;
                // a newer generation anywhere makes this one obsolete.
                let mut same_generation = 0i64;
                let mut obsolete = false;
                for s in self.slices {
                    if s.driver != id.0 || s.pool.name != id.1 {
                        continue;
                    }
                    match s.pool.generation.cmp(&first.pool.generation) {
                        std::cmp::Ordering::Equal => same_generation += 1,
                        std::cmp::Ordering::Greater => obsolete = true,
                        std::cmp::Ordering::Less => {}
                    }
                }
                if obsolete {
                    continue;
                }
                complete = same_generation == first.pool.resource_slice_count;
                if !complete {
                    result.push(Pool {
                        driver: id.0,
                        name: id.1,
                        incomplete: true,
                        invalid: false,
                        slices: Vec::new(),
                    });
                    continue;
                }
            }
            let device_slices: Vec<&ResourceSlice> = slices
                .into_iter()
                .filter(|s| !(self.features.partitionable_devices && s.has_shared_counters))
                .collect();
            let mut names = BTreeSet::new();
            let invalid = device_slices
                .iter()
                .flat_map(|s| &s.devices)
                .any(|d| !names.insert(d.name.as_str()));
            result.push(Pool {
                driver: id.0,
                name: id.1,
                incomplete: false,
                invalid,
                slices: if invalid { Vec::new() } else { device_slices },
            });
        }
        Ok(result)
    }
}

/// Where the search stands: claim, request, subrequest, device.
#[derive(Debug, Clone, Copy, Default)]
struct Indices {
    claim: usize,
    request: usize,
    sub: usize,
    device: usize,
}

impl<'s, 'a> Search<'s, 'a> {
    /// The search from the start, and what it amounts to.
    fn run(&mut self) -> Outcome {
        match self.allocate_one(Indices::default(), false) {
            Err(Stop::Fatal(e)) => Outcome::Error(e),
            Err(Stop::Budget) => Outcome::TimedOut { steps: self.steps },
            Err(Stop::MaxSizeExceeded) | Ok(false) => {
                // Invalid pools only matter when nothing else fits (upstream checks them
                // after the search).
                if self.pools.iter().any(|p| p.invalid) {
                    return Outcome::FailedOnNode("invalid resource pools were encountered".into());
                }
                Outcome::Unsatisfiable
            }
            Ok(true) => match self.results() {
                Ok(r) => Outcome::Allocated(r),
                Err(e) => Outcome::Error(e),
            },
        }
    }

    fn reset(&mut self, ignore_constraints: Option<Option<(usize, usize)>>) {
        self.ignore_constraints = ignore_constraints;
        for claims in &mut self.allocating {
            claims.clear();
        }
        for r in &mut self.result {
            r.clear();
        }
        for cs in &mut self.constraints {
            for c in cs {
                c.value = None;
                c.num_devices = 0;
            }
        }
        self.steps = 0;
    }

    fn claim_key(&self, c: usize) -> String {
        self.claims[c].key()
    }

    fn device(&self, at: At) -> (&'a ResourceSlice, &'a super::types::Device) {
        let slice = self.pools[at.pool].slices[at.slice];
        (slice, &slice.devices[at.device])
    }

    /// Numbers the devices of the gathered pools, so the search tracks them by index.
    fn index_devices(&mut self) {
        let mut next = 0;
        self.offsets = self
            .pools
            .iter()
            .map(|pool| {
                pool.slices
                    .iter()
                    .map(|slice| {
                        let start = next;
                        next += slice.devices.len();
                        start
                    })
                    .collect()
            })
            .collect();
        self.ids = Vec::with_capacity(next);
        for pool in &self.pools {
            for slice in &pool.slices {
                for device in &slice.devices {
                    self.ids
                        .push(DeviceId::new(&slice.driver, &slice.pool.name, &device.name));
                }
            }
        }
        self.allocated = self
            .ids
            .iter()
            .map(|id| self.allocator.allocated.contains(id))
            .collect();
        self.allocating = vec![Vec::new(); next];
    }

    fn dense(&self, at: At) -> usize {
        self.offsets[at.pool][at.slice] + at.device
    }

    fn id(&self, at: At) -> &DeviceId {
        &self.ids[self.dense(at)]
    }

    /// `validateDeviceRequest`.
    fn validate(
        &mut self,
        c: usize,
        (r, s): (usize, usize),
        name: &'a str,
        parent: Option<&'a str>,
        spec: Option<&'a RequestSpec>,
        admin_access: Option<bool>,
    ) -> Result<RequestData<'a>, String> {
        let claim = self.claim_key(c);
        let Some(spec) = spec else {
            return Err(format!(
                "claim {claim}, request {name}: missing device class name (unsupported request type?)"
            ));
        };
        for (i, selector) in spec.selectors.iter().enumerate() {
            if selector.cel.is_none() {
                return Err(format!(
                    "claim {claim}, request {name}, selector #{i}: CEL expression empty (unsupported selector type?)"
                ));
            }
        }
        let allocator = self.allocator;
        if !allocator.features.admin_access && admin_access.is_some() {
            return Err(format!(
                "claim {claim}, request {name}: admin access is requested, but the feature is disabled"
            ));
        }
        if spec.device_class_name.is_empty() {
            return Err(format!(
                "claim {claim}, request {name}: missing device class name (unsupported request type?)"
            ));
        }
        let Some(class) = allocator
            .classes
            .get(spec.device_class_name.as_str())
            .copied()
        else {
            return Err(format!(
                "claim {claim}, request {name}: could not retrieve device class {0}: deviceclass.resource.k8s.io \"{0}\" not found",
                spec.device_class_name
            ));
        };
        let mut data = RequestData {
            name,
            parent,
            spec,
            admin_access: admin_access.unwrap_or(false),
            class,
            num_devices: 0,
            all_devices: None,
        };
        match &spec.allocation_mode {
            AllocationMode::ExactCount => {
                data.num_devices = usize::try_from(spec.count).unwrap_or(0);
            }
            AllocationMode::All => {
                let mut all = Vec::new();
                for p in 0..self.pools.len() {
                    let pool = &self.pools[p];
                    if pool.incomplete {
                        return Err(format!(
                            "claim {claim}, request {name}: asks for all devices, but resource pool {} is currently being updated",
                            pool.id()
                        ));
                    }
                    if pool.invalid {
                        return Err(format!(
                            "claim {claim}, request {name}: asks for all devices, but resource pool {} is currently invalid",
                            pool.id()
                        ));
                    }
                    let sizes: Vec<usize> = pool.slices.iter().map(|s| s.devices.len()).collect();
                    for (si, size) in sizes.into_iter().enumerate() {
                        for d in 0..size {
                            let at = At {
                                pool: p,
                                slice: si,
                                device: d,
                            };
                            if self.is_selectable(c, (r, s), class, spec, at)? {
                                all.push(at);
                            }
                        }
                    }
                }
                data.num_devices = all.len();
                data.all_devices = Some(all);
            }
            AllocationMode::Other(mode) => {
                return Err(format!(
                    "claim {claim}, request {name}: unsupported count mode {mode}"
                ));
            }
        }
        Ok(data)
    }

    /// `isSelectable`: the class's and the request's selectors, and per-device node
    /// selection; cached per device and request.
    fn is_selectable(
        &mut self,
        c: usize,
        (r, s): (usize, usize),
        class: &'a DeviceClass,
        spec: &'a RequestSpec,
        at: At,
    ) -> Result<bool, String> {
        let (_, device) = self.device(at);
        if !self.allocator.features.device_binding_and_status && device.has_binding_conditions {
            return Ok(false);
        }
        let key = (self.dense(at), c, r, s);
        if let Some(m) = self.match_cache.get(&key) {
            return Ok(*m);
        }
        let matches = self.refusal(c, class, spec, at)?.is_none();
        self.match_cache.insert(key, matches);
        Ok(matches)
    }

    /// The selector (or per-device node selection) that refuses the device, if any.
    fn refusal(
        &self,
        c: usize,
        class: &DeviceClass,
        spec: &RequestSpec,
        at: At,
    ) -> Result<Option<Refusal>, String> {
        let (slice, device) = self.device(at);
        if let Some(refusal) =
            self.selectors_refuse(c, Some(class), &class.selectors, slice, device)?
        {
            return Ok(Some(refusal));
        }
        if let Some(refusal) = self.selectors_refuse(c, None, &spec.selectors, slice, device)? {
            return Ok(Some(refusal));
        }
        if slice.per_device_node_selection && !node_matches(self.node, &device.node_selection)? {
            return Ok(Some(Refusal::NotOnNode));
        }
        Ok(None)
    }

    /// `selectorsMatch`, returning the first selector that is false.
    fn selectors_refuse(
        &self,
        c: usize,
        class: Option<&DeviceClass>,
        selectors: &[DeviceSelector],
        slice: &ResourceSlice,
        device: &super::types::Device,
    ) -> Result<Option<Refusal>, String> {
        let env = self.allocator.cel.environment();
        let input = DeviceInput {
            driver: &slice.driver,
            attributes: &device.attributes,
            capacity: &device.capacity,
            allow_multiple_allocations: device.allow_multiple_allocations,
        };
        for (i, selector) in selectors.iter().enumerate() {
            let Some(expression) = &selector.cel else {
                continue;
            };
            let compiled = self.allocator.cel.get_or_compile(expression);
            let owner = match class {
                Some(class) => format!("class {}", class.name),
                None => format!("claim {}", self.claim_key(c)),
            };
            if let Some(e) = compiled.error() {
                return Err(format!("{owner}: selector #{i}: CEL compile error: {e}"));
            }
            let matches = env
                .device_matches(&compiled, &input)
                .map_err(|e| format!("{owner}: selector #{i}: CEL runtime error: {e}"))?;
            if !matches {
                let values = compiled
                    .paths()
                    .iter()
                    .map(|p: &DevicePath| (p.to_string(), input.value_at(p)))
                    .collect();
                return Ok(Some(match class {
                    Some(class) => Refusal::ClassSelector {
                        class: class.name.clone(),
                        index: i,
                        expression: expression.clone(),
                        values,
                    },
                    None => Refusal::RequestSelector {
                        index: i,
                        expression: expression.clone(),
                        values,
                    },
                }));
            }
        }
        Ok(None)
    }

    fn in_use(&self, dense: usize) -> bool {
        self.allocated[dense] || !self.allocating[dense].is_empty()
    }

    fn allocating_for_claim(&self, dense: usize, c: usize) -> bool {
        self.allocating[dense].contains(&c)
    }

    fn constraint_active(&self, c: usize, i: usize) -> bool {
        match self.ignore_constraints {
            None => true,
            Some(None) => false,
            Some(Some(skip)) => skip != (c, i),
        }
    }

    /// `allocateOne`.
    fn allocate_one(&mut self, r: Indices, allocate_sub_request: bool) -> Result<bool, Stop> {
        self.steps += 1;
        if self.steps > self.budget.max_steps {
            return Err(Stop::Budget);
        }
        if r.claim >= self.claims.len() {
            return Ok(true);
        }
        if r.request >= self.requests[r.claim].len() {
            return match self.allocate_one(
                Indices {
                    claim: r.claim + 1,
                    ..Indices::default()
                },
                false,
            ) {
                Err(Stop::MaxSizeExceeded) => Ok(false),
                other => other,
            };
        }
        if !allocate_sub_request
            && let Request::Subrequests { subs, .. } = &self.requests[r.claim][r.request]
        {
            let count = subs.len();
            let mut all_exceeded = true;
            for sub in 0..count {
                let attempt = self.allocate_one(Indices { sub, ..r }, true);
                match attempt {
                    Err(Stop::MaxSizeExceeded) => continue,
                    Err(e) => return Err(e),
                    Ok(false) => all_exceeded = false,
                    Ok(true) => {
                        if let Request::Subrequests { selected, .. } =
                            &mut self.requests[r.claim][r.request]
                        {
                            *selected = sub;
                        }
                        return Ok(true);
                    }
                }
            }
            return if all_exceeded {
                Err(Stop::MaxSizeExceeded)
            } else {
                Ok(false)
            };
        }

        let data = self.requests[r.claim][r.request].data(r.sub);
        let num_devices = data.num_devices;
        let all_devices = data.all_devices.clone();
        let admin_access = data.admin_access;
        let (class, spec) = (data.class, data.spec);
        if all_devices.as_ref().is_some_and(Vec::is_empty) {
            return Ok(false);
        }
        if r.device >= num_devices {
            return self.allocate_one(
                Indices {
                    claim: r.claim,
                    request: r.request + 1,
                    ..Indices::default()
                },
                false,
            );
        }
        if self.result[r.claim].len() + num_devices - r.device > ALLOCATION_RESULTS_MAX_SIZE {
            return Err(Stop::MaxSizeExceeded);
        }
        let next = Indices {
            device: r.device + 1,
            ..r
        };
        if let Some(all) = all_devices {
            let at = all[r.device];
            let Some(undo) = self.allocate_device(r, at, true)? else {
                return Ok(false);
            };
            let done = self.allocate_one(next, allocate_sub_request);
            if !matches!(done, Ok(true)) {
                self.deallocate(r, undo);
            }
            return done;
        }
        for p in 0..self.pools.len() {
            if self.pools[p].incomplete || self.pools[p].invalid {
                continue;
            }
            for si in 0..self.pools[p].slices.len() {
                for d in 0..self.pools[p].slices[si].devices.len() {
                    let at = At {
                        pool: p,
                        slice: si,
                        device: d,
                    };
                    let dense = self.dense(at);
                    if admin_access && self.allocating_for_claim(dense, r.claim) {
                        continue;
                    }
                    if !admin_access && self.in_use(dense) {
                        continue;
                    }
                    if !self
                        .is_selectable(r.claim, (r.request, r.sub), class, spec, at)
                        .map_err(Stop::Fatal)?
                    {
                        continue;
                    }
                    let Some(undo) = self.allocate_device(r, at, false)? else {
                        continue;
                    };
                    match self.allocate_one(next, allocate_sub_request) {
                        Ok(true) => return Ok(true),
                        other => {
                            self.deallocate(r, undo);
                            other?;
                        }
                    }
                }
            }
        }
        Ok(false)
    }

    /// `allocateDevice`: availability, taints and constraints; on success the device is
    /// recorded and the returned value undoes it.
    fn allocate_device(&mut self, r: Indices, at: At, must: bool) -> Result<Option<usize>, Stop> {
        let dense = self.dense(at);
        let (slice, device) = self.device(at);
        let data = self.requests[r.claim][r.request].data(r.sub);
        let admin_access = data.admin_access;
        if admin_access && self.allocating_for_claim(dense, r.claim) {
            return Ok(None);
        }
        if !admin_access && self.in_use(dense) {
            return Ok(None);
        }
        let features = self.allocator.features;
        if !features.partitionable_devices && device.consumes_counters {
            return Ok(None);
        }
        let (base, sub) = match data.parent {
            None => (data.name, None),
            Some(parent) => (parent, Some(data.name)),
        };
        if features.device_taints && blocking_taint(device, data.spec).is_some() {
            return Ok(None);
        }
        let request_name = data.name;
        for i in 0..self.constraints[r.claim].len() {
            if !self.constraint_active(r.claim, i) {
                continue;
            }
            if !self.constraints[r.claim][i].add(base, sub, device, &slice.driver) {
                if must {
                    return Err(Stop::Fatal(format!(
                        "claim {}, request {request_name}: cannot add device {} because a claim constraint would not be satisfied",
                        self.claim_key(r.claim),
                        self.ids[dense]
                    )));
                }
                for e in 0..i {
                    if self.constraint_active(r.claim, e) {
                        self.constraints[r.claim][e].remove(base, sub);
                    }
                }
                return Ok(None);
            }
        }
        self.allocating[dense].push(r.claim);
        self.result[r.claim].push((at, r.request, r.sub, admin_access));
        Ok(Some(dense))
    }

    fn deallocate(&mut self, r: Indices, dense: usize) {
        let data = self.requests[r.claim][r.request].data(r.sub);
        let (base, sub) = match data.parent {
            None => (data.name, None),
            Some(parent) => (parent, Some(data.name)),
        };
        for i in 0..self.constraints[r.claim].len() {
            if self.constraint_active(r.claim, i) {
                self.constraints[r.claim][i].remove(base, sub);
            }
        }
        let claims = &mut self.allocating[dense];
        if let Some(i) = claims.iter().rposition(|c| *c == r.claim) {
            claims.swap_remove(i);
        }
        self.result[r.claim].pop();
    }

    /// The allocation results, with their node selectors.
    fn results(&self) -> Result<Vec<ClaimAllocation>, String> {
        let mut out = Vec::with_capacity(self.claims.len());
        for (c, devices) in self.result.iter().enumerate() {
            let mut allocation = ClaimAllocation {
                claim: self.claim_key(c),
                devices: Vec::with_capacity(devices.len()),
                node_selector: None,
            };
            for &(at, request, sub, admin_access) in devices {
                let id = self.id(at).clone();
                allocation.devices.push(AllocatedDevice {
                    request: self.requests[c][request].data(sub).full_name(),
                    driver: id.driver,
                    pool: id.pool,
                    device: id.device,
                    admin_access: admin_access.then_some(true),
                });
            }
            allocation.node_selector = self
                .node_selector(devices.iter().map(|(at, ..)| *at))
                .map_err(|e| {
                    format!("create NodeSelector for claim {}: {e}", self.claims[c].name)
                })?;
            out.push(allocation);
        }
        Ok(out)
    }

    /// `createNodeSelector`.
    fn node_selector(
        &self,
        devices: impl Iterator<Item = At>,
    ) -> Result<Option<spec::NodeSelector>, String> {
        let mut fields: Vec<spec::NodeSelectorRequirement> = Vec::new();
        let mut expressions: Vec<spec::NodeSelectorRequirement> = Vec::new();
        for at in devices {
            let (slice, device) = self.device(at);
            let selection = if slice.per_device_node_selection {
                &device.node_selection
            } else {
                &slice.node_selection
            };
            if let Some(name) = &selection.node_name {
                return Ok(Some(spec::NodeSelector {
                    node_selector_terms: vec![spec::NodeSelectorTerm {
                        match_expressions: None,
                        match_fields: Some(vec![spec::NodeSelectorRequirement {
                            key: "metadata.name".into(),
                            operator: "In".into(),
                            values: Some(vec![name.clone()]),
                        }]),
                    }],
                }));
            }
            if let Some(selector) = &selection.node_selector {
                match selector.node_selector_terms.as_slice() {
                    [] => {}
                    [term] => {
                        add_requirements(term.match_fields.as_deref(), &mut fields);
                        add_requirements(term.match_expressions.as_deref(), &mut expressions);
                    }
                    terms => {
                        return Err(format!(
                            "unsupported ResourceSlice.NodeSelector with {} terms",
                            terms.len()
                        ));
                    }
                }
            }
        }
        if fields.is_empty() && expressions.is_empty() {
            return Ok(None);
        }
        Ok(Some(spec::NodeSelector {
            node_selector_terms: vec![spec::NodeSelectorTerm {
                match_expressions: (!expressions.is_empty()).then_some(expressions),
                match_fields: (!fields.is_empty()).then_some(fields),
            }],
        }))
    }

    /// Every device of the gathered pools, judged for one request on its own.
    fn request_diagnosis(&self, c: usize, data: &RequestData<'a>) -> RequestDiagnosis {
        let features = self.allocator.features;
        let mut candidates = Vec::new();
        for (p, pool) in self.pools.iter().enumerate() {
            for (si, slice) in pool.slices.iter().enumerate() {
                for d in 0..slice.devices.len() {
                    let at = At {
                        pool: p,
                        slice: si,
                        device: d,
                    };
                    let id = self.id(at).clone();
                    let (_, device) = self.device(at);
                    let refusal = if !features.device_binding_and_status
                        && device.has_binding_conditions
                    {
                        Some(Refusal::BindingConditions)
                    } else {
                        match self.refusal(c, data.class, data.spec, at) {
                            Ok(Some(r)) => Some(r),
                            // An error would have ended the search; it cannot be reached here.
                            Err(_) => continue,
                            Ok(None) => {
                                if !data.admin_access && self.allocator.allocated.contains(&id) {
                                    Some(Refusal::InUse {
                                        claims: self.allocator.allocated.holders(&id).to_vec(),
                                    })
                                } else if !features.partitionable_devices
                                    && device.consumes_counters
                                {
                                    Some(Refusal::ConsumesCounters)
                                } else {
                                    features
                                        .device_taints
                                        .then(|| blocking_taint(device, data.spec))
                                        .flatten()
                                        .map(|taint| Refusal::Tainted {
                                            key: taint.key.clone(),
                                            value: taint.value.clone(),
                                            effect: taint.effect.clone(),
                                        })
                                }
                            }
                        }
                    };
                    candidates.push(Candidate {
                        device: id,
                        refusal,
                    });
                }
            }
        }
        RequestDiagnosis {
            request: data.full_name(),
            class: data.class.name.clone(),
            wanted: data.num_devices,
            all: data.all_devices.is_some(),
            candidates,
        }
    }
}

/// `addNewNodeSelectorRequirements`: each requirement once (same key, operator and set of
/// values).
fn add_requirements(
    from: Option<&[spec::NodeSelectorRequirement]>,
    to: &mut Vec<spec::NodeSelectorRequirement>,
) {
    for requirement in from.unwrap_or_default() {
        let values: BTreeSet<&String> = requirement.values.iter().flatten().collect();
        let present = to.iter().any(|existing| {
            existing.key == requirement.key
                && existing.operator == requirement.operator
                && existing.values.iter().flatten().collect::<BTreeSet<_>>() == values
        });
        if !present {
            to.push(requirement.clone());
        }
    }
}

#[cfg(test)]
mod tests;
