//! The resource.k8s.io/v1 objects the allocator reads, as plain values: what the model fills
//! from DeviceClasses, ResourceSlices and ResourceClaims, keeping only the fields allocation
//! depends on. Optional API fields stay optional where upstream tells "unset" from "false"
//! (`adminAccess`), and fields of features this code does not model (counters, binding
//! conditions) are kept as the bare fact upstream's checks need.

use std::collections::BTreeMap;

use crate::state::quantity::Quantity;
use crate::state::spec;

/// `spec.devices.requests[].exactly.allocationMode` (and a subrequest's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllocationMode {
    ExactCount,
    All,
    /// A mode this release does not know: upstream refuses the claim.
    Other(String),
}

impl AllocationMode {
    pub fn as_str(&self) -> &str {
        match self {
            AllocationMode::ExactCount => "ExactCount",
            AllocationMode::All => "All",
            AllocationMode::Other(s) => s,
        }
    }
}

/// A DeviceClass: its name and selectors (its config does not affect allocation).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceClass {
    pub name: String,
    pub selectors: Vec<DeviceSelector>,
}

/// One `selectors[]` entry; `cel` is `None` for a selector of a kind this release does not
/// know (upstream refuses it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceSelector {
    pub cel: Option<String>,
}

impl DeviceSelector {
    pub fn cel(expression: impl Into<String>) -> DeviceSelector {
        DeviceSelector {
            cel: Some(expression.into()),
        }
    }
}

/// One attribute value: exactly one of the API's four fields, or none of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttributeValue {
    Int(i64),
    Bool(bool),
    String(String),
    /// A semantic version, as written (parsed when read).
    Version(String),
    /// No value set: upstream's CEL refuses the device ("unsupported attribute value").
    Unsupported,
}

impl std::fmt::Display for AttributeValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AttributeValue::Int(i) => write!(f, "{i}"),
            AttributeValue::Bool(b) => write!(f, "{b}"),
            AttributeValue::String(s) => write!(f, "{s:?}"),
            AttributeValue::Version(v) => write!(f, "{v}"),
            AttributeValue::Unsupported => f.write_str("(no value)"),
        }
    }
}

/// A device taint (`spec.devices[].taints[]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceTaint {
    pub key: String,
    pub value: String,
    /// `NoSchedule`, `NoExecute`, `None`, or a future one.
    pub effect: String,
}

/// A request's toleration of device taints.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceToleration {
    pub key: String,
    /// `Equal` (the API server's default) or `Exists`.
    pub operator: String,
    pub value: String,
    /// Empty matches every effect.
    pub effect: String,
}

/// Where a device (or a whole slice) can be used: exactly one of these is set upstream.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeSelection {
    pub node_name: Option<String>,
    pub node_selector: Option<spec::NodeSelector>,
    pub all_nodes: bool,
}

/// One device of a slice.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Device {
    pub name: String,
    /// By qualified name as written: `model` (in the driver's domain) or `domain/model`.
    pub attributes: BTreeMap<String, AttributeValue>,
    pub capacity: BTreeMap<String, Quantity>,
    pub taints: Vec<DeviceTaint>,
    /// `allowMultipleAllocations` (consumable capacity; only visible to CEL behind its gate).
    pub allow_multiple_allocations: Option<bool>,
    /// The device has `bindingConditions` (unusable unless DRADeviceBindingConditions is on).
    pub has_binding_conditions: bool,
    /// The device has `consumesCounters` (unusable unless DRAPartitionableDevices is on).
    pub consumes_counters: bool,
    /// Per-device node selection, read when the slice sets `perDeviceNodeSelection`.
    pub node_selection: NodeSelection,
}

/// `spec.pool`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pool {
    pub name: String,
    pub generation: i64,
    pub resource_slice_count: i64,
}

/// A ResourceSlice.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceSlice {
    pub name: String,
    pub driver: String,
    pub pool: Pool,
    /// The slice's own node selection (`nodeName`, `nodeSelector`, `allNodes`).
    pub node_selection: NodeSelection,
    /// `perDeviceNodeSelection: true`.
    pub per_device_node_selection: bool,
    /// The slice has `sharedCounters` (a partitionable-devices slice).
    pub has_shared_counters: bool,
    pub devices: Vec<Device>,
}

/// The fields a request and a subrequest share.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestSpec {
    pub device_class_name: String,
    pub selectors: Vec<DeviceSelector>,
    pub allocation_mode: AllocationMode,
    pub count: i64,
    pub tolerations: Vec<DeviceToleration>,
}

impl RequestSpec {
    /// `count` devices of `class` (ExactCount), no selectors or tolerations.
    pub fn exactly(class: impl Into<String>, count: i64) -> RequestSpec {
        RequestSpec {
            device_class_name: class.into(),
            selectors: Vec::new(),
            allocation_mode: AllocationMode::ExactCount,
            count,
            tolerations: Vec::new(),
        }
    }
}

/// `requests[].exactly`.
#[derive(Debug, Clone, PartialEq)]
pub struct ExactRequest {
    pub spec: RequestSpec,
    /// `adminAccess`: `None` when unset (upstream tells unset from false).
    pub admin_access: Option<bool>,
}

/// `requests[].firstAvailable[]`.
#[derive(Debug, Clone, PartialEq)]
pub struct SubRequest {
    pub name: String,
    pub spec: RequestSpec,
}

/// What a request asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum RequestKind {
    Exactly(ExactRequest),
    FirstAvailable(Vec<SubRequest>),
    /// Neither set: a request type this release does not know.
    Unknown,
}

/// `spec.devices.requests[]`.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceRequest {
    pub name: String,
    pub kind: RequestKind,
}

/// `spec.devices.constraints[]`: `matchAttribute` is the only kind upstream knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceConstraint {
    /// Empty: every request of the claim.
    pub requests: Vec<String>,
    pub match_attribute: Option<String>,
}

/// One device of an allocation result.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AllocatedDevice {
    /// `<request>` or `<request>/<subrequest>`.
    pub request: String,
    pub driver: String,
    pub pool: String,
    pub device: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_access: Option<bool>,
}

/// `status.allocation` (the devices and where they are available).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AllocationResult {
    pub devices: Vec<AllocatedDevice>,
    pub node_selector: Option<spec::NodeSelector>,
}

/// A ResourceClaim.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceClaim {
    pub namespace: String,
    pub name: String,
    pub requests: Vec<DeviceRequest>,
    pub constraints: Vec<DeviceConstraint>,
    pub allocation: Option<AllocationResult>,
    /// `status.reservedFor`: the consumers holding the claim.
    pub reserved_for: Vec<ConsumerRef>,
    /// The controlling owner reference (a template's claim names its pod).
    pub owner: Option<ClaimOwner>,
    /// `metadata.deletionTimestamp` is set.
    pub deleting: bool,
    /// `metadata.uid`, when the source has it.
    pub uid: Option<String>,
}

/// One `status.reservedFor` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConsumerRef {
    /// `pods` for a pod.
    pub resource: String,
    pub name: String,
    pub uid: String,
}

/// A claim's controller owner reference.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClaimOwner {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub uid: String,
}

/// A ResourceClaimTemplate: what the resourceclaim controller copies into each claim it makes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceClaimTemplate {
    pub namespace: String,
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    pub requests: Vec<DeviceRequest>,
    pub constraints: Vec<DeviceConstraint>,
}

/// The DRA objects a source held: DeviceClasses, ResourceSlices, ResourceClaims and
/// ResourceClaimTemplates, in the order read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DraObjects {
    pub classes: Vec<DeviceClass>,
    pub slices: Vec<ResourceSlice>,
    pub claims: Vec<ResourceClaim>,
    pub templates: Vec<ResourceClaimTemplate>,
}

impl DraObjects {
    /// The claim `namespace/name`.
    pub fn claim(&self, namespace: &str, name: &str) -> Option<&ResourceClaim> {
        self.claims
            .iter()
            .find(|c| c.namespace == namespace && c.name == name)
    }

    /// The template `namespace/name`.
    pub fn template(&self, namespace: &str, name: &str) -> Option<&ResourceClaimTemplate> {
        self.templates
            .iter()
            .find(|t| t.namespace == namespace && t.name == name)
    }

    pub fn class(&self, name: &str) -> Option<&DeviceClass> {
        self.classes.iter().find(|c| c.name == name)
    }

    /// Adds a claim, replacing one of the same name (a claim the controller made again).
    pub fn put_claim(&mut self, claim: ResourceClaim) {
        match self
            .claims
            .iter_mut()
            .find(|c| c.namespace == claim.namespace && c.name == claim.name)
        {
            Some(c) => *c = claim,
            None => self.claims.push(claim),
        }
    }
}

impl ResourceClaim {
    /// `namespace/name`, as klog.KObj prints it in upstream's messages.
    pub fn key(&self) -> String {
        if self.namespace.is_empty() {
            self.name.clone()
        } else {
            format!("{}/{}", self.namespace, self.name)
        }
    }
}

/// A device's identity across the cluster.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct DeviceId {
    pub driver: String,
    pub pool: String,
    pub device: String,
}

impl DeviceId {
    pub fn new(driver: &str, pool: &str, device: &str) -> DeviceId {
        DeviceId {
            driver: driver.to_owned(),
            pool: pool.to_owned(),
            device: device.to_owned(),
        }
    }
}

impl std::fmt::Display for DeviceId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}/{}", self.driver, self.pool, self.device)
    }
}

/// The API's objects, as the model keeps them.
pub(crate) mod from_api {
    use std::collections::BTreeMap;

    use k8s_openapi::api::resource::v1 as api;

    use super::*;

    fn selectors(s: Option<&Vec<api::DeviceSelector>>) -> Vec<DeviceSelector> {
        s.into_iter()
            .flatten()
            .map(|s| DeviceSelector {
                cel: s.cel.as_ref().map(|c| c.expression.clone()),
            })
            .collect()
    }

    fn tolerations(t: Option<&Vec<api::DeviceToleration>>) -> Vec<DeviceToleration> {
        t.into_iter()
            .flatten()
            .map(|t| DeviceToleration {
                key: t.key.clone().unwrap_or_default(),
                // The API server's default.
                operator: t.operator.clone().unwrap_or_else(|| "Equal".into()),
                value: t.value.clone().unwrap_or_default(),
                effect: t.effect.clone().unwrap_or_default(),
            })
            .collect()
    }

    fn mode(m: Option<&String>) -> AllocationMode {
        match m.map(String::as_str) {
            None | Some("ExactCount") => AllocationMode::ExactCount,
            Some("All") => AllocationMode::All,
            Some(other) => AllocationMode::Other(other.to_owned()),
        }
    }

    fn request_spec(
        class: &str,
        sel: Option<&Vec<api::DeviceSelector>>,
        allocation_mode: Option<&String>,
        count: Option<i64>,
        tol: Option<&Vec<api::DeviceToleration>>,
    ) -> RequestSpec {
        let allocation_mode = mode(allocation_mode);
        RequestSpec {
            device_class_name: class.to_owned(),
            selectors: selectors(sel),
            // The API server defaults `count` to 1 for ExactCount.
            count: count.unwrap_or(match allocation_mode {
                AllocationMode::ExactCount => 1,
                _ => 0,
            }),
            allocation_mode,
            tolerations: tolerations(tol),
        }
    }

    /// A claim's (or template's) `spec.devices`: its requests and constraints.
    pub(crate) fn devices(
        spec: Option<&api::ResourceClaimSpec>,
    ) -> (Vec<DeviceRequest>, Vec<DeviceConstraint>) {
        let Some(devices) = spec.and_then(|s| s.devices.as_ref()) else {
            return (Vec::new(), Vec::new());
        };
        let requests = devices
            .requests
            .iter()
            .flatten()
            .map(|r| DeviceRequest {
                name: r.name.clone(),
                kind: match (&r.exactly, &r.first_available) {
                    (Some(e), _) => RequestKind::Exactly(ExactRequest {
                        spec: request_spec(
                            &e.device_class_name,
                            e.selectors.as_ref(),
                            e.allocation_mode.as_ref(),
                            e.count,
                            e.tolerations.as_ref(),
                        ),
                        admin_access: e.admin_access,
                    }),
                    (None, Some(subs)) if !subs.is_empty() => RequestKind::FirstAvailable(
                        subs.iter()
                            .map(|s| SubRequest {
                                name: s.name.clone(),
                                spec: request_spec(
                                    &s.device_class_name,
                                    s.selectors.as_ref(),
                                    s.allocation_mode.as_ref(),
                                    s.count,
                                    s.tolerations.as_ref(),
                                ),
                            })
                            .collect(),
                    ),
                    _ => RequestKind::Unknown,
                },
            })
            .collect();
        let constraints = devices
            .constraints
            .iter()
            .flatten()
            .map(|c| DeviceConstraint {
                requests: c.requests.clone().unwrap_or_default(),
                match_attribute: c.match_attribute.clone(),
            })
            .collect();
        (requests, constraints)
    }

    pub(crate) fn device_class(c: &api::DeviceClass) -> DeviceClass {
        DeviceClass {
            name: c.metadata.name.clone().unwrap_or_default(),
            selectors: selectors(c.spec.as_ref().and_then(|s| s.selectors.as_ref())),
        }
    }

    fn attribute(a: &api::DeviceAttribute) -> AttributeValue {
        if let Some(i) = a.int {
            AttributeValue::Int(i)
        } else if let Some(b) = a.bool {
            AttributeValue::Bool(b)
        } else if let Some(s) = &a.string {
            AttributeValue::String(s.clone())
        } else if let Some(v) = &a.version {
            AttributeValue::Version(v.clone())
        } else {
            AttributeValue::Unsupported
        }
    }

    pub(crate) fn resource_slice(s: &api::ResourceSlice) -> ResourceSlice {
        let spec = &s.spec;
        ResourceSlice {
            name: s.metadata.name.clone().unwrap_or_default(),
            driver: spec.driver.clone(),
            pool: Pool {
                name: spec.pool.name.clone(),
                generation: spec.pool.generation,
                resource_slice_count: spec.pool.resource_slice_count,
            },
            node_selection: NodeSelection {
                node_name: spec.node_name.clone().filter(|n| !n.is_empty()),
                node_selector: spec.node_selector.clone().map(Into::into),
                all_nodes: spec.all_nodes.unwrap_or(false),
            },
            per_device_node_selection: spec.per_device_node_selection.unwrap_or(false),
            has_shared_counters: spec.shared_counters.as_ref().is_some_and(|c| !c.is_empty()),
            devices: spec
                .devices
                .iter()
                .flatten()
                .map(|d| Device {
                    name: d.name.clone(),
                    attributes: d
                        .attributes
                        .iter()
                        .flatten()
                        .map(|(k, v)| (k.clone(), attribute(v)))
                        .collect(),
                    capacity: d
                        .capacity
                        .iter()
                        .flatten()
                        .map(|(k, v)| (k.clone(), Quantity::parse(&v.value.0).unwrap_or_default()))
                        .collect::<BTreeMap<_, _>>(),
                    taints: d
                        .taints
                        .iter()
                        .flatten()
                        .map(|t| DeviceTaint {
                            key: t.key.clone(),
                            value: t.value.clone().unwrap_or_default(),
                            effect: t.effect.clone(),
                        })
                        .collect(),
                    allow_multiple_allocations: d.allow_multiple_allocations,
                    has_binding_conditions: d
                        .binding_conditions
                        .as_ref()
                        .is_some_and(|c| !c.is_empty()),
                    consumes_counters: d.consumes_counters.as_ref().is_some_and(|c| !c.is_empty()),
                    node_selection: NodeSelection {
                        node_name: d.node_name.clone().filter(|n| !n.is_empty()),
                        node_selector: d.node_selector.clone().map(Into::into),
                        all_nodes: d.all_nodes.unwrap_or(false),
                    },
                })
                .collect(),
        }
    }

    pub(crate) fn resource_claim(c: &api::ResourceClaim) -> ResourceClaim {
        let (requests, constraints) = devices(c.spec.as_ref());
        let status = c.status.as_ref();
        let m = &c.metadata;
        ResourceClaim {
            namespace: m.namespace.clone().unwrap_or_else(|| "default".into()),
            name: m.name.clone().unwrap_or_default(),
            requests,
            constraints,
            allocation: status
                .and_then(|s| s.allocation.as_ref())
                .map(|a| AllocationResult {
                    devices: a
                        .devices
                        .iter()
                        .flat_map(|d| d.results.iter().flatten())
                        .map(|r| AllocatedDevice {
                            request: r.request.clone(),
                            driver: r.driver.clone(),
                            pool: r.pool.clone(),
                            device: r.device.clone(),
                            admin_access: r.admin_access,
                        })
                        .collect(),
                    node_selector: a.node_selector.clone().map(Into::into),
                }),
            reserved_for: status
                .and_then(|s| s.reserved_for.as_ref())
                .into_iter()
                .flatten()
                .map(|r| ConsumerRef {
                    resource: r.resource.clone(),
                    name: r.name.clone(),
                    uid: r.uid.clone(),
                })
                .collect(),
            owner: m
                .owner_references
                .iter()
                .flatten()
                .find(|o| o.controller == Some(true))
                .map(|o| ClaimOwner {
                    api_version: o.api_version.clone(),
                    kind: o.kind.clone(),
                    name: o.name.clone(),
                    uid: o.uid.clone(),
                }),
            deleting: m.deletion_timestamp.is_some(),
            uid: m.uid.clone(),
        }
    }

    pub(crate) fn resource_claim_template(t: &api::ResourceClaimTemplate) -> ResourceClaimTemplate {
        let spec = t.spec.as_ref();
        let (requests, constraints) = devices(spec.and_then(|s| s.spec.as_ref()));
        let meta = spec.and_then(|s| s.metadata.as_ref());
        ResourceClaimTemplate {
            namespace: t
                .metadata
                .namespace
                .clone()
                .unwrap_or_else(|| "default".into()),
            name: t.metadata.name.clone().unwrap_or_default(),
            labels: meta.and_then(|m| m.labels.clone()).unwrap_or_default(),
            annotations: meta.and_then(|m| m.annotations.clone()).unwrap_or_default(),
            requests,
            constraints,
        }
    }
}
