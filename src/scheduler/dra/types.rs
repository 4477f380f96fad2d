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
