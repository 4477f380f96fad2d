//! The scheduler's configuration types, as upstream's `pkg/scheduler/apis/config`: each
//! plugin's arguments after v1 defaulting and validation, the feature gates that change what
//! the modelled plugins decide, and the error an invalid configuration gives. Plugins and the
//! profile read these; nothing here depends on a plugin.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::release::Release;
use crate::state::SpreadConstraint;
use crate::state::resources::{CPU, MEMORY};
use crate::state::selector::{NodeSelector, PreferredTerms, label_key_errors};
use crate::state::spec;

/// `NodeAffinityArgs`, parsed. `addedAffinity` must be valid (upstream refuses to start).
#[derive(Debug, Clone, Default)]
pub struct NodeAffinityArgs {
    pub added_required: Option<NodeSelector>,
    pub added_preferred: Option<PreferredTerms>,
}

/// `InterPodAffinityArgs` with v1 defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InterPodAffinityArgs {
    pub hard_pod_affinity_weight: i32,
    pub ignore_preferred_terms_of_existing_pods: bool,
}

impl Default for InterPodAffinityArgs {
    fn default() -> Self {
        InterPodAffinityArgs {
            hard_pod_affinity_weight: 1,
            ignore_preferred_terms_of_existing_pods: false,
        }
    }
}

/// `PodTopologySpreadArgs.defaultingType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultingType {
    /// Upstream's built-in soft constraints (hostname maxSkew 3, zone maxSkew 5).
    System,
    /// The profile's `defaultConstraints`.
    List,
}

/// `PodTopologySpreadArgs` after v1 defaulting (`defaultingType` empty means System) and
/// validation.
#[derive(Debug, Clone)]
pub struct PodTopologySpreadArgs {
    pub defaulting_type: DefaultingType,
    /// The constraints a pod without any of its own gets (before the selector is derived
    /// from its Services and controller): the built-in ones for System, the listed ones for
    /// List.
    pub default_constraints: Vec<SpreadConstraint>,
}

impl Default for PodTopologySpreadArgs {
    fn default() -> Self {
        PodTopologySpreadArgs {
            defaulting_type: DefaultingType::System,
            default_constraints: system_default_constraints(),
        }
    }
}

/// `systemDefaultConstraints` in plugin.go.
fn system_default_constraints() -> Vec<SpreadConstraint> {
    [
        ("kubernetes.io/hostname", 3),
        ("topology.kubernetes.io/zone", 5),
    ]
    .into_iter()
    .map(|(key, max_skew)| SpreadConstraint {
        max_skew,
        topology_key: key.to_string(),
        when_unsatisfiable: "ScheduleAnyway".to_string(),
        selector: Ok(crate::state::selector::LabelSelector::Nothing),
        match_label_keys: Vec::new(),
        min_domains: None,
        node_affinity_policy: None,
        node_taints_policy: None,
    })
    .collect()
}

/// `ValidatePodTopologySpreadArgs`, with upstream's field-error wording: every field error,
/// each from the args' root.
pub(crate) fn validate_pod_topology_spread_args(
    defaulting_type: &str,
    constraints: &[spec::TopologySpreadConstraint],
) -> Result<(), Vec<String>> {
    let mut errs = Vec::new();
    if defaulting_type != "System" && defaulting_type != "List" {
        errs.push(format!(
            "defaultingType: Unsupported value: {defaulting_type:?}: supported values: \"System\", \"List\""
        ));
    } else if defaulting_type == "System" && !constraints.is_empty() {
        errs.push(
            "defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty"
                .to_string(),
        );
    }
    for (i, c) in constraints.iter().enumerate() {
        let p = format!("defaultConstraints[{i}]");
        if c.max_skew <= 0 {
            errs.push(format!(
                "{p}.maxSkew: Invalid value: {}: not in valid range (0, inf)",
                c.max_skew
            ));
        }
        if c.topology_key.is_empty() {
            errs.push(format!("{p}.topologyKey: Required value: can not be empty"));
        } else {
            // `ValidateLabelName`: one error per problem.
            for e in label_key_errors(&c.topology_key) {
                errs.push(format!(
                    "{p}.topologyKey: Invalid value: {:?}: {e}",
                    c.topology_key
                ));
            }
        }
        match c.when_unsatisfiable.as_str() {
            "" => errs.push(format!(
                "{p}.whenUnsatisfiable: Required value: can not be empty"
            )),
            "DoNotSchedule" | "ScheduleAnyway" => {}
            other => errs.push(format!(
                "{p}.whenUnsatisfiable: Unsupported value: {other:?}: supported values: \"DoNotSchedule\", \"ScheduleAnyway\""
            )),
        }
        if c.label_selector.is_some() {
            errs.push(format!(
                "{p}.labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod"
            ));
        }
        if constraints[..i].iter().any(|o| {
            o.topology_key == c.topology_key && o.when_unsatisfiable == c.when_unsatisfiable
        }) {
            errs.push(format!(
                "{p}: Duplicate value: \"{{{}, {}}}\"",
                c.topology_key, c.when_unsatisfiable
            ));
        }
    }
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}

/// The gates kube-scheduler 1.35's own code reads (pkg/features/kube_features.go, as read
/// from pkg/scheduler). kube-scheduler knows every Kubernetes gate and refuses any other name
/// ("unrecognized feature gate"); we know only these, so a name that is none of them but
/// close to one is refused as the typo it must be, and any other is accepted and said to
/// change nothing evaluated.
const SCHEDULER_GATES: &[&str] = &[
    "CSIMigrationPortworx",
    "DRAAdminAccess",
    "DRAConsumableCapacity",
    "DRADeviceBindingConditions",
    "DRADeviceTaintRules",
    "DRADeviceTaints",
    "DRAExtendedResource",
    "DRAListTypeAttributes",
    "DRANodeAllocatableResources",
    "DRAPartitionableDevices",
    "DRAPrioritizedList",
    "DRAResourceClaimDeviceStatus",
    "DRASchedulerFilterTimeout",
    "DRAWorkloadResourceClaims",
    "DynamicResourceAllocation",
    "GangScheduling",
    "GenericWorkload",
    "InPlacePodLevelResourcesVerticalScaling",
    "InPlacePodVerticalScaling",
    "MatchLabelKeysInPodTopologySpread",
    "NodeDeclaredFeatures",
    "NodeInclusionPolicyInPodTopologySpread",
    "NominatedNodeNameForExpectation",
    "OpportunisticBatching",
    "PodLevelResources",
    "SchedulerAsyncAPICalls",
    "SchedulerAsyncPreemption",
    "SchedulerPopFromBackoffQ",
    "SchedulerQueueingHints",
    "SidecarContainers",
    "StorageCapacityScoring",
    "TaintTolerationComparisonOperators",
    "TopologyAwareWorkloadScheduling",
    "VolumeAttributesClass",
    "VolumeLimitScaling",
];

/// The scheduler's gate that `name` misspells, if it is not one itself.
fn misspelt_gate(name: &str) -> Option<&'static str> {
    if SCHEDULER_GATES.contains(&name) {
        return None;
    }
    crate::state::closest(name, SCHEDULER_GATES.iter().copied(), 0.9)
}

/// Feature gates that change the decisions of the modelled plugins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeatureGates {
    /// Alpha in 1.35, off by default: Gt/Lt tolerations.
    pub taint_toleration_comparison_operators: bool,
    /// `SidecarContainers=false` (only releases before its GA allow it): NodeResourcesFit
    /// rejects pods with restartable init containers in PreFilter.
    pub sidecar_containers_disabled: bool,
    /// Every gate as given, for the report.
    pub given: BTreeMap<String, bool>,
    /// The release emulated: the facts that differ from 1.35 (`release.rs`).
    pub release: Release,
    /// The version a server or snapshot says, when newer than the newest release emulated
    /// (which `release` then is), for the report to name both.
    pub newer_than_emulated: Option<String>,
}

impl FeatureGates {
    /// Parses kube-scheduler's `--feature-gates` syntax: `Name=true,Other=false`.
    pub fn parse(spec: &str) -> Result<FeatureGates, ProfileError> {
        let mut gates = FeatureGates::default();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, value) = part.split_once('=').ok_or_else(|| {
                ProfileError(format!(
                    "--feature-gates: {part:?} is not Name=true or Name=false"
                ))
            })?;
            let value = match value.trim() {
                "true" | "True" | "TRUE" | "1" | "t" | "T" => true,
                "false" | "False" | "FALSE" | "0" | "f" | "F" => false,
                other => {
                    return Err(ProfileError(format!(
                        "--feature-gates: invalid value {other:?} for {name}: use true or false"
                    )));
                }
            };
            let name = name.trim();
            if let Some(known) = misspelt_gate(name) {
                return Err(ProfileError(format!(
                    "--feature-gates: unrecognized feature gate: {name} (did you mean {known}?)"
                )));
            }
            gates.set(name, value);
        }
        Ok(gates)
    }

    /// The gates for `release`: a gate given that the release does not have is refused, as
    /// that kube-scheduler refuses it.
    pub fn for_release(mut self, release: Release) -> Result<FeatureGates, ProfileError> {
        if let Some(name) = self.given.keys().find(|g| !release.has_gate(g)) {
            return Err(ProfileError(format!(
                "--feature-gates: unrecognized feature gate: {name} (kube-scheduler {release} does not have it)"
            )));
        }
        self.release = release;
        Ok(self)
    }

    /// GA and on by default: `nodeAffinityPolicy` / `nodeTaintsPolicy` are honoured. Off, the
    /// pod's node affinity filters every constraint's nodes and taints never do.
    pub fn node_inclusion_policy_in_pod_topology_spread(&self) -> bool {
        self.given
            .get(GATE_NODE_INCLUSION_POLICY)
            .copied()
            .unwrap_or(true)
    }

    /// On by default: `matchLabelKeys` of a spread constraint narrow its selector.
    pub fn match_label_keys_in_pod_topology_spread(&self) -> bool {
        self.given
            .get(GATE_MATCH_LABEL_KEYS)
            .copied()
            .unwrap_or(true)
    }

    pub fn set(&mut self, name: &str, value: bool) {
        if name == "TaintTolerationComparisonOperators" {
            self.taint_toleration_comparison_operators = value;
        }
        if name == "SidecarContainers" {
            self.sidecar_containers_disabled = !value;
        }
        self.given.insert(name.to_string(), value);
    }

    /// The structured allocator's features (`AllocatorFeatures`), from the DRA gates as
    /// given, else the emulated release's defaults (`Facts::dra_gates_on`).
    pub fn dra_features(&self) -> super::dra::allocator::Features {
        let defaults = self.release.facts().dra_gates_on;
        let on = |name: &str| {
            self.given
                .get(name)
                .copied()
                .unwrap_or_else(|| defaults.contains(&name))
        };
        super::dra::allocator::Features {
            admin_access: on("DRAAdminAccess"),
            prioritized_list: on("DRAPrioritizedList"),
            partitionable_devices: on("DRAPartitionableDevices"),
            device_taints: on("DRADeviceTaints"),
            device_binding_and_status: on("DRADeviceBindingConditions")
                && on("DRAResourceClaimDeviceStatus"),
            consumable_capacity: on("DRAConsumableCapacity"),
        }
    }

    /// DynamicResourcesArgs' `bindingTimeout` default in seconds: set (600) only when
    /// DRADeviceBindingConditions and DRAResourceClaimDeviceStatus are both on
    /// (`pkg/scheduler/apis/config/v1/defaults.go`), as by default from 1.36.
    pub fn dra_binding_timeout_seconds(&self) -> Option<u32> {
        self.dra_features().device_binding_and_status.then_some(600)
    }

    /// Gates we were given that change nothing we evaluate, so the user can be told.
    pub fn unmodelled(&self) -> Vec<String> {
        self.given
            .keys()
            .filter(|k| {
                !matches!(
                    k.as_str(),
                    "TaintTolerationComparisonOperators"
                        | "SidecarContainers"
                        | GATE_NODE_INCLUSION_POLICY
                        | GATE_MATCH_LABEL_KEYS
                        | "DRAAdminAccess"
                        | "DRAPrioritizedList"
                        | "DRAPartitionableDevices"
                        | "DRADeviceTaints"
                        | "DRADeviceBindingConditions"
                        | "DRAResourceClaimDeviceStatus"
                        | "DRAConsumableCapacity"
                        // Said by its own note: it adds a plugin not evaluated.
                        | "GangScheduling"
                )
            })
            .cloned()
            .collect()
    }
}

const GATE_NODE_INCLUSION_POLICY: &str = "NodeInclusionPolicyInPodTopologySpread";
const GATE_MATCH_LABEL_KEYS: &str = "MatchLabelKeysInPodTopologySpread";

/// An invalid scheduler configuration; the message names the field and the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ProfileError(pub String);

/// `config.MaxCustomPriorityScore`: shape scores are 0..10, scaled to 0..100.
pub const MAX_CUSTOM_PRIORITY_SCORE: i64 = 10;

/// The scoring strategy, by its name in the scheduler's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum StrategyType {
    LeastAllocated,
    MostAllocated,
    RequestedToCapacityRatio,
}

/// A `ResourceSpec` of a scoring strategy.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceSpec {
    /// Shared with every node's score details.
    pub name: Arc<str>,
    #[serde(default)]
    pub weight: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShapePoint {
    pub utilization: i64,
    pub score: i64,
}

/// `NodeResourcesFitArgs` after v1 defaulting, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FitArgs {
    pub ignored_resources: Vec<String>,
    pub ignored_resource_groups: Vec<String>,
    pub strategy: StrategyType,
    pub resources: Vec<ResourceSpec>,
    /// RequestedToCapacityRatio only.
    pub shape: Vec<ShapePoint>,
}

/// The default `cpu: 1, memory: 1` resource list of both resource-scoring plugins.
pub fn default_resources() -> Vec<ResourceSpec> {
    vec![
        ResourceSpec {
            name: CPU.into(),
            weight: 1,
        },
        ResourceSpec {
            name: MEMORY.into(),
            weight: 1,
        },
    ]
}

impl Default for FitArgs {
    fn default() -> Self {
        FitArgs {
            ignored_resources: Vec::new(),
            ignored_resource_groups: Vec::new(),
            strategy: StrategyType::LeastAllocated,
            resources: default_resources(),
            shape: Vec::new(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ShapeConfig {
    #[serde(default)]
    shape: Vec<ShapePoint>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StrategyConfig {
    #[serde(default, rename = "type")]
    type_: String,
    #[serde(default)]
    resources: Vec<ResourceSpec>,
    #[serde(default)]
    requested_to_capacity_ratio: Option<ShapeConfig>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FitArgsConfig {
    #[serde(default)]
    ignored_resources: Vec<String>,
    #[serde(default)]
    ignored_resource_groups: Vec<String>,
    #[serde(default)]
    scoring_strategy: Option<StrategyConfig>,
    #[serde(default, rename = "apiVersion")]
    _api_version: Option<String>,
    #[serde(default, rename = "kind")]
    _kind: Option<String>,
}

/// `validateResources`: weights in (0, 100].
pub(crate) fn validate_weights(resources: &[ResourceSpec], path: &str, errors: &mut Vec<String>) {
    for (i, r) in resources.iter().enumerate() {
        if r.weight <= 0 || r.weight > 100 {
            errors.push(format!(
                "{path}[{i}].weight: Invalid value: {}: resource weight of {} not in valid range (0, 100]",
                r.weight, r.name
            ));
        }
    }
}

impl FitArgs {
    /// Decodes, defaults (`SetDefaults_NodeResourcesFitArgs`) and validates
    /// (`ValidateNodeResourcesFitArgs`) the args, as kube-scheduler does at start-up.
    pub fn parse(args: &serde_json::Value, source: &str) -> Result<FitArgs, ProfileError> {
        let prefix = format!("{source}: pluginConfig NodeResourcesFit args");
        let a: FitArgsConfig = serde_path_to_error::deserialize(args)
            .map_err(|e| ProfileError(format!("{prefix}: field {}: {}", e.path(), e.inner())))?;
        let mut errors = Vec::new();
        for (i, r) in a.ignored_resources.iter().enumerate() {
            if !crate::state::resources::is_qualified_name(r) {
                errors.push(format!(
                    "ignoredResources[{i}]: Invalid value: {r:?}: must be a qualified name"
                ));
            }
        }
        for (i, g) in a.ignored_resource_groups.iter().enumerate() {
            if g.contains('/') {
                errors.push(format!(
                    "ignoredResourceGroups[{i}]: Invalid value: {g:?}: resource group name can't contain '/'"
                ));
            } else if !crate::state::resources::is_qualified_name(g) {
                errors.push(format!(
                    "ignoredResourceGroups[{i}]: Invalid value: {g:?}: must be a qualified name"
                ));
            }
        }
        let mut out = FitArgs {
            ignored_resources: a.ignored_resources,
            ignored_resource_groups: a.ignored_resource_groups,
            ..FitArgs::default()
        };
        if let Some(s) = a.scoring_strategy {
            out.strategy = match s.type_.as_str() {
                "LeastAllocated" => StrategyType::LeastAllocated,
                "MostAllocated" => StrategyType::MostAllocated,
                "RequestedToCapacityRatio" => StrategyType::RequestedToCapacityRatio,
                other => {
                    errors.push(format!(
                        "scoringStrategy.type: Unsupported value: {other:?}: supported values: \"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\""
                    ));
                    StrategyType::LeastAllocated
                }
            };
            if !s.resources.is_empty() {
                out.resources = weights_defaulted(s.resources);
            }
            validate_weights(&out.resources, "scoringStrategy.resources", &mut errors);
            match s.requested_to_capacity_ratio {
                Some(shape) => {
                    validate_shape(&shape.shape, &mut errors);
                    out.shape = shape.shape;
                }
                None if out.strategy == StrategyType::RequestedToCapacityRatio => errors.push(
                    "scoringStrategy.requestedToCapacityRatio: Required value: the RequestedToCapacityRatio strategy needs a shape".to_string(),
                ),
                None => {}
            }
        }
        if errors.is_empty() {
            Ok(out)
        } else {
            Err(ProfileError(format!("{prefix}: {}", errors.join("; "))))
        }
    }
}

/// A resource weight left at 0 is 1 (v1 defaulting of both plugins' `resources`).
fn weights_defaulted(resources: Vec<ResourceSpec>) -> Vec<ResourceSpec> {
    resources
        .into_iter()
        .map(|r| ResourceSpec {
            weight: if r.weight == 0 { 1 } else { r.weight },
            ..r
        })
        .collect()
}

/// `validateFunctionShape`.
fn validate_shape(shape: &[ShapePoint], errors: &mut Vec<String>) {
    let path = "scoringStrategy.shape";
    if shape.is_empty() {
        errors.push(format!(
            "{path}: Required value: at least one point must be specified"
        ));
        return;
    }
    for i in 1..shape.len() {
        if shape[i - 1].utilization >= shape[i].utilization {
            errors.push(format!(
                "{path}[{i}].utilization: Invalid value: {}: values must be sorted in increasing order",
                shape[i].utilization
            ));
            break;
        }
    }
    for (i, p) in shape.iter().enumerate() {
        if !(0..=100).contains(&p.utilization) {
            errors.push(format!(
                "{path}[{i}].utilization: Invalid value: {}: not in valid range [0, 100]",
                p.utilization
            ));
        }
        if !(0..=MAX_CUSTOM_PRIORITY_SCORE).contains(&p.score) {
            errors.push(format!(
                "{path}[{i}].score: Invalid value: {}: not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]",
                p.score
            ));
        }
    }
}

/// `NodeResourcesBalancedAllocationArgs` after defaulting, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalancedAllocationArgs {
    pub resources: Vec<ResourceSpec>,
}

impl Default for BalancedAllocationArgs {
    fn default() -> Self {
        BalancedAllocationArgs {
            resources: default_resources(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ArgsConfig {
    #[serde(default)]
    resources: Vec<ResourceSpec>,
    #[serde(default, rename = "apiVersion")]
    _api_version: Option<String>,
    #[serde(default, rename = "kind")]
    _kind: Option<String>,
}

impl BalancedAllocationArgs {
    /// Decodes, defaults and validates (`ValidateNodeResourcesBalancedAllocationArgs`: no
    /// duplicates, every weight 1).
    pub fn parse(
        args: &serde_json::Value,
        source: &str,
    ) -> Result<BalancedAllocationArgs, ProfileError> {
        let prefix = format!("{source}: pluginConfig NodeResourcesBalancedAllocation args");
        let a: ArgsConfig = serde_path_to_error::deserialize(args)
            .map_err(|e| ProfileError(format!("{prefix}: field {}: {}", e.path(), e.inner())))?;
        if a.resources.is_empty() {
            return Ok(BalancedAllocationArgs::default());
        }
        let mut errors = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        let resources = weights_defaulted(a.resources);
        for (i, r) in resources.iter().enumerate() {
            if seen.contains(&&*r.name) {
                errors.push(format!(
                    "resources[{i}].name: Duplicate value: {:?}",
                    r.name
                ));
            } else {
                seen.push(&r.name);
            }
            if r.weight != 1 {
                errors.push(format!(
                    "resources[{i}].weight: Invalid value: {}: must be 1",
                    r.weight
                ));
            }
        }
        if errors.is_empty() {
            Ok(BalancedAllocationArgs { resources })
        } else {
            Err(ProfileError(format!("{prefix}: {}", errors.join("; "))))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_misspelt_gate_is_refused_and_other_gates_are_kept() {
        let err = FeatureGates::parse("PodLevelResource=false").expect_err("a typo");
        assert_eq!(
            err.0,
            "--feature-gates: unrecognized feature gate: PodLevelResource (did you mean \
             PodLevelResources?)"
        );
        assert!(FeatureGates::parse("taintTolerationComparisonOperators=true").is_err());
        let gates = FeatureGates::parse("SchedulerPopFromBackoffQ=false,SomeKubeletGate=true")
            .expect("a scheduler gate and one we do not know");
        assert_eq!(gates.given.get("SchedulerPopFromBackoffQ"), Some(&false));
        assert_eq!(
            gates.unmodelled(),
            ["SchedulerPopFromBackoffQ", "SomeKubeletGate"]
        );
    }

    /// A resource given without a weight weighs 1 for both plugins, as v1 defaulting makes it.
    #[test]
    fn resources_without_a_weight_weigh_one() {
        let fit = FitArgs::parse(
            &json!({"scoringStrategy": {"type": "MostAllocated",
                    "resources": [{"name": "cpu"}, {"name": "memory", "weight": 3}]}}),
            "c",
        )
        .expect("valid");
        let weights: Vec<i64> = fit.resources.iter().map(|r| r.weight).collect();
        assert_eq!(weights, [1, 3]);
        let balanced = BalancedAllocationArgs::parse(&json!({"resources": [{"name": "cpu"}]}), "c")
            .expect("valid");
        assert_eq!(balanced.resources[0].weight, 1);
    }
}
