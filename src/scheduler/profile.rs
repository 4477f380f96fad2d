//! The scheduler profile: which plugins run at which extension point, in which order, with
//! which weights and arguments. Mirrors upstream's v1 defaulting (`default_plugins.go`
//! `mergePlugins`) and the framework's MultiPoint expansion (`runtime/framework.go`
//! `expandMultiPointPlugins`, `getScoreWeights`), because plugin order decides which failure
//! the scheduler reports and weights decide the winner.

use std::collections::{BTreeMap, HashSet};

use serde::Deserialize;

use super::config::{
    BalancedAllocationArgs, DefaultingType, FeatureGates, FitArgs, InterPodAffinityArgs,
    NodeAffinityArgs, PodTopologySpreadArgs, ProfileError, validate_pod_topology_spread_args,
};
use super::plugin_id::PluginId;
use crate::state::SpreadConstraint;
use crate::state::selector::{NodeSelector, PreferredTerms, aggregate};
use crate::state::spec;

/// The plugins of the upstream default profile, in order, with their MultiPoint weights
/// (kube-scheduler 1.35, `DynamicResourceAllocation` on as it is by default).
pub const DEFAULT_PLUGINS: &[(PluginId, i64)] = &[
    (PluginId::SchedulingGates, 0),
    (PluginId::PrioritySort, 0),
    (PluginId::NodeUnschedulable, 0),
    (PluginId::NodeName, 0),
    (PluginId::TaintToleration, 3),
    (PluginId::NodeAffinity, 2),
    (PluginId::NodePorts, 0),
    (PluginId::NodeResourcesFit, 1),
    (PluginId::VolumeRestrictions, 0),
    (PluginId::NodeVolumeLimits, 0),
    (PluginId::VolumeBinding, 0),
    (PluginId::VolumeZone, 0),
    (PluginId::PodTopologySpread, 2),
    (PluginId::InterPodAffinity, 2),
    (PluginId::DynamicResources, 2),
    (PluginId::DefaultPreemption, 0),
    (PluginId::NodeResourcesBalancedAllocation, 1),
    (PluginId::ImageLocality, 1),
    (PluginId::DefaultBinder, 0),
];

const PRE_FILTER: u8 = 1;
const FILTER: u8 = 2;
const PRE_SCORE: u8 = 4;
const SCORE: u8 = 8;
const POST_FILTER: u8 = 16;

/// The extension points each in-tree plugin implements (what MultiPoint expands it into).
fn extension_points(plugin: &PluginId) -> Option<u8> {
    use PluginId as P;
    Some(match plugin {
        P::NodeUnschedulable | P::NodeName => FILTER,
        P::TaintToleration => FILTER | PRE_SCORE | SCORE,
        P::NodeAffinity
        | P::InterPodAffinity
        | P::PodTopologySpread
        | P::NodeResourcesFit
        | P::VolumeBinding => PRE_FILTER | FILTER | PRE_SCORE | SCORE,
        P::DynamicResources => PRE_FILTER | FILTER | POST_FILTER | PRE_SCORE | SCORE,
        P::NodePorts
        | P::VolumeRestrictions
        | P::NodeVolumeLimits
        | P::VolumeZone
        | P::NodeDeclaredFeatures => PRE_FILTER | FILTER,
        P::NodeResourcesBalancedAllocation => PRE_SCORE | SCORE,
        P::ImageLocality => SCORE,
        P::DefaultPreemption => POST_FILTER,
        P::SchedulingGates | P::PrioritySort | P::DefaultBinder => 0,
        P::Other(_) => return None,
    })
}

/// Plugins whose decisions this version evaluates. Every other Filter/Score plugin is shown
/// as "not evaluated", never as passed.
pub fn is_implemented(plugin: &PluginId) -> bool {
    use PluginId as P;
    matches!(
        plugin,
        P::NodeUnschedulable
            | P::NodeName
            | P::TaintToleration
            | P::NodeAffinity
            | P::InterPodAffinity
            | P::PodTopologySpread
            | P::NodeResourcesFit
            | P::NodePorts
            | P::NodeResourcesBalancedAllocation
            | P::ImageLocality
            | P::VolumeRestrictions
            | P::NodeVolumeLimits
            | P::VolumeBinding
            | P::VolumeZone
            | P::NodeDeclaredFeatures
            | P::DynamicResources
    )
}

/// One scheduler profile, resolved.
#[derive(Debug, Clone)]
pub struct Profile {
    pub scheduler_name: String,
    pub pre_filter: Vec<PluginId>,
    pub filter: Vec<PluginId>,
    pub pre_score: Vec<PluginId>,
    /// Score plugins in order with their weights.
    pub score: Vec<(PluginId, i64)>,
    /// PostFilter plugins in order: they write the tail of the FailedScheduling message.
    pub post_filter: Vec<PluginId>,
    pub node_affinity: NodeAffinityArgs,
    pub inter_pod_affinity: InterPodAffinityArgs,
    pub pod_topology_spread: PodTopologySpreadArgs,
    pub node_resources_fit: FitArgs,
    pub balanced_allocation: BalancedAllocationArgs,
    /// Plugin args we keep but do not interpret yet.
    pub other_args: BTreeMap<PluginId, serde_json::Value>,
    pub percentage_of_nodes_to_score: Option<i32>,
    pub gates: FeatureGates,
    /// Where the profile came from: "default" or the config file.
    pub source: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PluginRef {
    name: PluginId,
    #[serde(default)]
    weight: Option<i64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PluginSet {
    #[serde(default)]
    enabled: Option<Vec<PluginRef>>,
    #[serde(default)]
    disabled: Option<Vec<PluginRef>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Plugins {
    #[serde(default)]
    multi_point: PluginSet,
    #[serde(default)]
    pre_filter: PluginSet,
    #[serde(default)]
    filter: PluginSet,
    #[serde(default)]
    pre_score: PluginSet,
    #[serde(default)]
    score: PluginSet,
    #[serde(default)]
    post_filter: PluginSet,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PluginConfig {
    name: PluginId,
    #[serde(default)]
    args: serde_json::Value,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProfileConfig {
    #[serde(default)]
    scheduler_name: Option<String>,
    #[serde(default)]
    percentage_of_nodes_to_score: Option<i32>,
    #[serde(default)]
    plugins: Option<Plugins>,
    #[serde(default)]
    plugin_config: Vec<PluginConfig>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SchedulerConfig {
    #[serde(default)]
    api_version: String,
    #[serde(default)]
    kind: String,
    #[serde(default)]
    percentage_of_nodes_to_score: Option<i32>,
    #[serde(default)]
    profiles: Vec<ProfileConfig>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct NodeAffinityArgsConfig {
    #[serde(default)]
    added_affinity: Option<spec::NodeAffinity>,
    // Accepted (and ignored) so that `deny_unknown_fields` takes typed args documents.
    #[serde(default, rename = "apiVersion")]
    _api_version: Option<String>,
    #[serde(default, rename = "kind")]
    _kind: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct InterPodAffinityArgsConfig {
    #[serde(default)]
    hard_pod_affinity_weight: Option<i32>,
    #[serde(default)]
    ignore_preferred_terms_of_existing_pods: Option<bool>,
    // Accepted (and ignored) so that `deny_unknown_fields` takes typed args documents.
    #[serde(default, rename = "apiVersion")]
    _api_version: Option<String>,
    #[serde(default, rename = "kind")]
    _kind: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PodTopologySpreadArgsConfig {
    #[serde(default)]
    default_constraints: Option<Vec<spec::TopologySpreadConstraint>>,
    #[serde(default)]
    defaulting_type: Option<String>,
    // Accepted (and ignored) so that `deny_unknown_fields` takes typed args documents.
    #[serde(default, rename = "apiVersion")]
    _api_version: Option<String>,
    #[serde(default, rename = "kind")]
    _kind: Option<String>,
}

/// `mergePluginSet`: defaults minus disabled (`*` drops them all), custom entries replacing a
/// default of the same name in place, the rest appended.
fn merge_plugin_set(
    defaults: &[PluginRef],
    custom: &PluginSet,
) -> (Vec<PluginRef>, HashSet<PluginId>) {
    let disabled: HashSet<PluginId> = custom
        .disabled
        .iter()
        .flatten()
        .map(|p| p.name.clone())
        .collect();
    let custom_enabled: Vec<PluginRef> = custom.enabled.clone().unwrap_or_default();
    let mut replaced = HashSet::new();
    let mut enabled = Vec::new();
    if !all_disabled(&disabled) {
        for d in defaults {
            if disabled.contains(&d.name) {
                continue;
            }
            match custom_enabled.iter().position(|c| c.name == d.name) {
                Some(i) => {
                    replaced.insert(i);
                    enabled.push(custom_enabled[i].clone());
                }
                None => enabled.push(d.clone()),
            }
        }
    }
    for (i, c) in custom_enabled.iter().enumerate() {
        if !replaced.contains(&i) {
            enabled.push(c.clone());
        }
    }
    (enabled, disabled)
}

/// Whether a disabled list holds `*`, which disables every default.
fn all_disabled(disabled: &HashSet<PluginId>) -> bool {
    disabled.iter().any(|p| p.as_str() == "*")
}

/// `expandMultiPointPlugins` for one extension point.
fn expand(
    point: u8,
    point_name: &str,
    multi_point: &[PluginRef],
    specific: &PluginSet,
) -> Result<Vec<PluginId>, ProfileError> {
    let (specific_enabled, disabled) = merge_plugin_set(&[], specific);
    let implements = |name: &PluginId| extension_points(name).is_none_or(|p| p & point != 0);
    for p in &specific_enabled {
        if !implements(&p.name) {
            return Err(ProfileError(format!(
                "plugins.{point_name}.enabled: plugin {:?} does not extend {point_name}; enable it under multiPoint or the extension points it implements",
                p.name
            )));
        }
    }
    let specific_names: Vec<PluginId> = specific_enabled.iter().map(|p| p.name.clone()).collect();
    if all_disabled(&disabled) {
        return Ok(specific_names);
    }
    let mut overrides = Vec::new();
    let mut from_multi: Vec<PluginId> = Vec::new();
    for p in multi_point {
        if !implements(&p.name) || disabled.contains(&p.name) {
            continue;
        }
        if specific_names.contains(&p.name) {
            overrides.push(p.name.clone());
            continue;
        }
        if from_multi.contains(&p.name) {
            return Err(ProfileError(format!(
                "plugins.multiPoint: plugin {:?} is enabled twice",
                p.name
            )));
        }
        from_multi.push(p.name.clone());
    }
    let mut out: Vec<PluginId> = specific_names
        .iter()
        .filter(|n| overrides.contains(n))
        .cloned()
        .collect();
    out.extend(from_multi);
    out.extend(
        specific_names
            .into_iter()
            .filter(|n| !overrides.contains(n)),
    );
    Ok(out)
}

impl Profile {
    /// Upstream's default profile.
    pub fn default_profile(gates: FeatureGates) -> Profile {
        Profile::build(
            "default-scheduler".to_string(),
            None,
            &[],
            None,
            gates,
            "the default profile".to_string(),
            0,
        )
        .expect("the built-in default profile is valid")
    }

    /// Selects the profile for `scheduler_name` from a `KubeSchedulerConfiguration` (already
    /// parsed from YAML/JSON); when no profile serves that name, the default scheduler's (the
    /// configuration's, else upstream's default profile).
    pub fn from_config(
        config: &serde_json::Value,
        scheduler_name: &str,
        gates: FeatureGates,
        source: &str,
    ) -> Result<Profile, ProfileError> {
        let cfg: SchedulerConfig = serde_path_to_error::deserialize(config)
            .map_err(|e| ProfileError(format!("{source}: field {}: {}", e.path(), e.inner())))?;
        if cfg.kind != "KubeSchedulerConfiguration" {
            return Err(ProfileError(format!(
                "{source}: kind is {:?}; expected KubeSchedulerConfiguration",
                cfg.kind
            )));
        }
        if cfg.api_version != "kubescheduler.config.k8s.io/v1" {
            return Err(ProfileError(format!(
                "{source}: apiVersion {:?} is not supported; use kubescheduler.config.k8s.io/v1 (v1beta3 and older were removed from kube-scheduler)",
                cfg.api_version
            )));
        }
        let profiles = if cfg.profiles.is_empty() {
            vec![ProfileConfig::default()]
        } else {
            cfg.profiles
        };
        let names: Vec<String> = profiles
            .iter()
            .map(|p| {
                p.scheduler_name
                    .clone()
                    .unwrap_or_else(|| "default-scheduler".to_string())
            })
            .collect();
        // kube-scheduler validates every profile at start-up (`ValidateKubeSchedulerConfiguration`,
        // pkg/scheduler/apis/config/validation/validation.go): one it refuses refuses the
        // configuration, whichever profile the pod uses.
        let mut built = profiles
            .iter()
            .enumerate()
            .map(|(i, p)| {
                Profile::build(
                    names[i].clone(),
                    p.plugins.as_ref(),
                    &p.plugin_config,
                    p.percentage_of_nodes_to_score
                        .or(cfg.percentage_of_nodes_to_score),
                    gates.clone(),
                    source.to_string(),
                    i,
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        // A pod no profile serves is never scheduled; it is evaluated with the default
        // scheduler's profile, the configuration's when it has one, and the report says so.
        let served = |name: &str| names.iter().position(|n| n == name);
        match served(scheduler_name).or_else(|| served("default-scheduler")) {
            Some(i) => Ok(built.swap_remove(i)),
            None => Ok(Profile::default_profile(gates)),
        }
    }

    fn build(
        scheduler_name: String,
        plugins: Option<&Plugins>,
        plugin_config: &[PluginConfig],
        percentage_of_nodes_to_score: Option<i32>,
        gates: FeatureGates,
        source: String,
        index: usize,
    ) -> Result<Profile, ProfileError> {
        // DynamicResources is a default plugin from 1.34 (DynamicResourceAllocation on), and
        // scores from 1.35 (default_plugins.go of each release).
        let facts = gates.release.facts();
        let dra = |n: &PluginId| *n == PluginId::DynamicResources;
        let mut defaults: Vec<PluginRef> = DEFAULT_PLUGINS
            .iter()
            .filter(|(n, _)| !dra(n) || facts.dynamic_resources_default)
            .map(|(n, w)| PluginRef {
                name: n.clone(),
                weight: (*w != 0 && (!dra(n) || facts.dynamic_resources_scores)).then_some(*w),
            })
            .collect();
        // From 1.36 the gate NodeDeclaredFeatures is on: `applyFeatureGates` appends the
        // plugin after DefaultBinder, so it is the last PreFilter and Filter plugin.
        if facts.node_declared_features {
            defaults.push(PluginRef {
                name: PluginId::NodeDeclaredFeatures,
                weight: None,
            });
        }
        let empty = Plugins::default();
        let plugins = plugins.unwrap_or(&empty);
        let (multi_point, _) = merge_plugin_set(&defaults, &plugins.multi_point);
        let pre_filter = expand(PRE_FILTER, "preFilter", &multi_point, &plugins.pre_filter)?;
        let filter = expand(FILTER, "filter", &multi_point, &plugins.filter)?;
        let scores = |name: &PluginId| !dra(name) || facts.dynamic_resources_scores;
        let mut pre_score = expand(PRE_SCORE, "preScore", &multi_point, &plugins.pre_score)?;
        pre_score.retain(scores);
        let mut score_names = expand(SCORE, "score", &multi_point, &plugins.score)?;
        score_names.retain(scores);
        let post_filter = expand(
            POST_FILTER,
            "postFilter",
            &multi_point,
            &plugins.post_filter,
        )?;
        // getScoreWeights: the Score extension point's weight wins over MultiPoint's; 0 => 1.
        let (score_enabled, _) = merge_plugin_set(&[], &plugins.score);
        let mut score = Vec::new();
        for name in score_names {
            let weight = score_enabled
                .iter()
                .chain(multi_point.iter())
                .find(|p| p.name == name)
                .and_then(|p| p.weight)
                .unwrap_or(0);
            if weight < 0 {
                return Err(ProfileError(format!(
                    "{source}: plugins: score plugin {name:?} has weight {weight}; weights must be positive"
                )));
            }
            score.push((name, if weight == 0 { 1 } else { weight }));
        }

        let mut profile = Profile {
            scheduler_name,
            pre_filter,
            filter,
            pre_score,
            score,
            post_filter,
            node_affinity: NodeAffinityArgs::default(),
            inter_pod_affinity: InterPodAffinityArgs::default(),
            pod_topology_spread: PodTopologySpreadArgs::default(),
            node_resources_fit: FitArgs::default(),
            balanced_allocation: BalancedAllocationArgs::default(),
            other_args: BTreeMap::new(),
            percentage_of_nodes_to_score,
            gates,
            source,
        };
        for (j, pc) in plugin_config.iter().enumerate() {
            let path = format!("profiles[{index}].pluginConfig[{j}].args");
            profile.apply_args(&path, &pc.name, &pc.args)?;
        }
        Ok(profile)
    }

    /// Applies one `pluginConfig` entry, validating as kube-scheduler does at start-up; `path`
    /// is where the args are (`profiles[0].pluginConfig[1].args`), which upstream's field
    /// errors start with.
    fn apply_args(
        &mut self,
        path: &str,
        plugin: &PluginId,
        args: &serde_json::Value,
    ) -> Result<(), ProfileError> {
        let source = self.source.clone();
        // Upstream's field errors, each from `path`, as one aggregate.
        let invalid = |errs: Vec<String>| {
            let errs: Vec<String> = errs.into_iter().map(|e| format!("{path}.{e}")).collect();
            ProfileError(format!("{source}: {}", aggregate(&errs)))
        };
        let field = |e: serde_path_to_error::Error<serde_json::Error>| {
            ProfileError(format!(
                "{source}: {path} ({plugin}): field {}: {}",
                e.path(),
                e.inner()
            ))
        };
        let args = if args.is_null() {
            &serde_json::Value::Object(Default::default())
        } else {
            args
        };
        match plugin {
            PluginId::NodeAffinity => {
                let a: NodeAffinityArgsConfig =
                    serde_path_to_error::deserialize(args).map_err(field)?;
                let added = a.added_affinity.unwrap_or_default();
                // As `ValidateNodeAffinityArgs`: every field error of both lists, each with
                // its own path, flattened into one aggregate.
                let mut errs = Vec::new();
                let required = added
                    .required_during_scheduling_ignored_during_execution
                    .as_ref()
                    .map(NodeSelector::parse);
                if let Some(s) = &required {
                    errs.extend(s.errors().into_iter().map(|e| {
                        format!("addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.{e}")
                    }));
                }
                let preferred = match added
                    .preferred_during_scheduling_ignored_during_execution
                    .as_deref()
                {
                    // Upstream only builds the added preferred terms when the list is non-empty.
                    Some(terms) if !terms.is_empty() => match PreferredTerms::parse(terms) {
                        Ok(p) => Some(p),
                        Err(e) => {
                            errs.extend(e.into_iter().map(|e| {
                                format!("addedAffinity.preferredDuringSchedulingIgnoredDuringExecution{e}")
                            }));
                            None
                        }
                    },
                    _ => None,
                };
                if !errs.is_empty() {
                    return Err(invalid(errs));
                }
                self.node_affinity = NodeAffinityArgs {
                    added_required: required,
                    added_preferred: preferred,
                };
            }
            PluginId::InterPodAffinity => {
                let a: InterPodAffinityArgsConfig =
                    serde_path_to_error::deserialize(args).map_err(field)?;
                let w = a.hard_pod_affinity_weight.unwrap_or(1);
                if !(0..=100).contains(&w) {
                    return Err(invalid(vec![format!(
                        "hardPodAffinityWeight: Invalid value: {w}: not in valid range [0, 100]"
                    )]));
                }
                self.inter_pod_affinity = InterPodAffinityArgs {
                    hard_pod_affinity_weight: w,
                    ignore_preferred_terms_of_existing_pods: a
                        .ignore_preferred_terms_of_existing_pods
                        .unwrap_or(false),
                };
            }
            PluginId::PodTopologySpread => {
                let a: PodTopologySpreadArgsConfig =
                    serde_path_to_error::deserialize(args).map_err(field)?;
                let constraints = a.default_constraints.unwrap_or_default();
                // v1 defaulting: an empty defaultingType is System.
                let kind = a
                    .defaulting_type
                    .filter(|t| !t.is_empty())
                    .unwrap_or_else(|| "System".to_string());
                validate_pod_topology_spread_args(&kind, &constraints).map_err(invalid)?;
                self.pod_topology_spread = if kind == "System" {
                    PodTopologySpreadArgs::default()
                } else {
                    PodTopologySpreadArgs {
                        defaulting_type: DefaultingType::List,
                        default_constraints: constraints
                            .iter()
                            .map(SpreadConstraint::from)
                            .collect(),
                    }
                };
            }
            PluginId::NodeResourcesFit => {
                self.node_resources_fit = FitArgs::parse(args, &format!("{source}: {path}"))?
            }
            PluginId::NodeResourcesBalancedAllocation => {
                self.balanced_allocation =
                    BalancedAllocationArgs::parse(args, &format!("{source}: {path}"))?
            }
            other => {
                self.other_args.insert(other.clone(), args.clone());
            }
        }
        Ok(())
    }

    pub fn weight(&self, plugin: &PluginId) -> Option<i64> {
        self.score
            .iter()
            .find(|(n, _)| n == plugin)
            .map(|(_, w)| *w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn profile(plugins: serde_json::Value) -> Result<Profile, ProfileError> {
        let cfg = json!({
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "default-scheduler", "plugins": plugins}]
        });
        Profile::from_config(
            &cfg,
            "default-scheduler",
            FeatureGates::default(),
            "cfg.yaml",
        )
    }

    /// The plugins' names, as a profile writes them.
    fn names(plugins: &[PluginId]) -> Vec<&str> {
        plugins.iter().map(PluginId::as_str).collect()
    }

    #[test]
    fn default_profile_order_and_weights() {
        let p = Profile::default_profile(FeatureGates::default());
        assert_eq!(
            names(&p.filter),
            [
                "NodeUnschedulable",
                "NodeName",
                "TaintToleration",
                "NodeAffinity",
                "NodePorts",
                "NodeResourcesFit",
                "VolumeRestrictions",
                "NodeVolumeLimits",
                "VolumeBinding",
                "VolumeZone",
                "PodTopologySpread",
                "InterPodAffinity",
                "DynamicResources"
            ]
        );
        let weights: Vec<(&str, i64)> = p.score.iter().map(|(n, w)| (n.as_str(), *w)).collect();
        assert_eq!(
            weights,
            [
                ("TaintToleration", 3),
                ("NodeAffinity", 2),
                ("NodeResourcesFit", 1),
                ("VolumeBinding", 1),
                ("PodTopologySpread", 2),
                ("InterPodAffinity", 2),
                ("DynamicResources", 2),
                ("NodeResourcesBalancedAllocation", 1),
                ("ImageLocality", 1)
            ]
        );
    }

    #[test]
    fn wildcard_disable_then_enable_one() {
        let p = profile(json!({"multiPoint": {"enabled": [{"name": "InterPodAffinity"}], "disabled": [{"name": "*"}]}})).unwrap();
        assert_eq!(names(&p.filter), ["InterPodAffinity"]);
        assert_eq!(names(&p.pre_filter), ["InterPodAffinity"]);
        assert_eq!(p.score, [(PluginId::InterPodAffinity, 1)]);
    }

    #[test]
    fn reconfigured_default_keeps_its_place_and_weight_overrides() {
        let p =
            profile(json!({"multiPoint": {"enabled": [{"name": "NodeAffinity", "weight": 7}]}}))
                .unwrap();
        assert_eq!(p.weight(&PluginId::NodeAffinity), Some(7));
        assert_eq!(p.filter[3], PluginId::NodeAffinity);
        // A Score-point weight wins over the MultiPoint one.
        let p = profile(json!({"score": {"enabled": [{"name": "TaintToleration", "weight": 9}]}}))
            .unwrap();
        assert_eq!(p.weight(&PluginId::TaintToleration), Some(9));
        assert_eq!(p.score[0].0, PluginId::TaintToleration);
    }

    #[test]
    fn disabling_one_point_keeps_the_others() {
        let p = profile(json!({"score": {"disabled": [{"name": "NodeAffinity"}]}})).unwrap();
        assert!(p.weight(&PluginId::NodeAffinity).is_none());
        assert!(p.filter.contains(&PluginId::NodeAffinity));
        let p = profile(json!({"filter": {"disabled": [{"name": "*"}]}})).unwrap();
        assert!(p.filter.is_empty());
        assert!(!p.score.is_empty());
    }

    #[test]
    fn specific_point_override_is_ordered_first() {
        let p = profile(json!({"filter": {"enabled": [{"name": "InterPodAffinity"}]}})).unwrap();
        assert_eq!(p.filter[0], PluginId::InterPodAffinity);
        assert_eq!(
            p.filter
                .iter()
                .filter(|n| **n == PluginId::InterPodAffinity)
                .count(),
            1
        );
    }

    #[test]
    fn plugin_args_are_validated() {
        let cfg = json!({
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{"pluginConfig": [{"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 101}}]}]
        });
        let err = Profile::from_config(&cfg, "default-scheduler", FeatureGates::default(), "c")
            .unwrap_err();
        assert_eq!(
            err.0,
            "c: profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"
        );
        // Every profile is validated, not only the pod's: kube-scheduler refuses to start.
        let cfg = json!({
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "default-scheduler"},
                         {"schedulerName": "other", "pluginConfig": [
                             {"name": "NodeResourcesFit", "args": {}},
                             {"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": -1}}]}]
        });
        let err = Profile::from_config(&cfg, "default-scheduler", FeatureGates::default(), "c")
            .unwrap_err();
        assert_eq!(
            err.0,
            "c: profiles[1].pluginConfig[1].args.hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]"
        );
        let cfg = json!({
            "apiVersion": "kubescheduler.config.k8s.io/v1beta3",
            "kind": "KubeSchedulerConfiguration",
        });
        assert!(
            Profile::from_config(&cfg, "default-scheduler", FeatureGates::default(), "c").is_err()
        );
    }

    /// A scheduler name no profile serves gets the default scheduler's profile: the
    /// configuration's when it has one, else upstream's default (the report says the pod is
    /// never taken).
    #[test]
    fn an_unserved_scheduler_name_gets_the_default_scheduler_s_profile() {
        let cfg = json!({
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "other"}]
        });
        let p = Profile::from_config(&cfg, "default-scheduler", FeatureGates::default(), "c")
            .expect("profile");
        assert_eq!(
            (p.scheduler_name.as_str(), p.source.as_str()),
            ("default-scheduler", "the default profile")
        );
        let cfg = json!({
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "other"},
                         {"schedulerName": "default-scheduler", "plugins": {
                             "score": {"disabled": [{"name": "ImageLocality"}]}}}]
        });
        let p = Profile::from_config(&cfg, "mine", FeatureGates::default(), "c").expect("profile");
        assert_eq!(
            (p.scheduler_name.as_str(), p.source.as_str()),
            ("default-scheduler", "c")
        );
        assert!(!p.score.iter().any(|(n, _)| *n == PluginId::ImageLocality));
    }

    /// `ValidateNodeAffinityArgs`: every field error of the added required and preferred
    /// terms, each with its own path, in one aggregate.
    #[test]
    fn added_affinity_errors_are_one_aggregate_with_a_path_each() {
        let cfg = json!({
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{"pluginConfig": [{"name": "NodeAffinity", "args": {"addedAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "a", "operator": "In"}]},
                    {"matchExpressions": [{"key": "b", "operator": "Bogus"}]}]},
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 1, "preference": {"matchExpressions": [
                        {"key": "c", "operator": "Exists", "values": ["x"]}]}}]}}}]}]
        });
        let err = Profile::from_config(&cfg, "default-scheduler", FeatureGates::default(), "c")
            .unwrap_err();
        assert_eq!(
            err.0,
            "c: [\
             profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty, \
             profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[1].matchExpressions[0].operator: Unsupported value: \"Bogus\": supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\", \
             profiles[0].pluginConfig[0].args.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchExpressions[0].values: Invalid value: []string{\"x\"}: values set must be empty for exists and does not exist]"
        );
    }

    #[test]
    fn pod_topology_spread_args_are_defaulted_and_validated() {
        let with = |args: serde_json::Value| {
            let cfg = json!({
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "profiles": [{"pluginConfig": [{"name": "PodTopologySpread", "args": args}]}]
            });
            Profile::from_config(&cfg, "default-scheduler", FeatureGates::default(), "c")
        };
        let p = with(json!({})).unwrap();
        assert_eq!(
            p.pod_topology_spread.defaulting_type,
            DefaultingType::System
        );
        assert_eq!(p.pod_topology_spread.default_constraints.len(), 2);
        let p = with(json!({"defaultingType": "List"})).unwrap();
        assert!(p.pod_topology_spread.default_constraints.is_empty());
        let c = |key: &str, when: &str| json!({"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": when});
        let cases = [
            (
                json!({"defaultingType": "Foo"}),
                "c: profiles[0].pluginConfig[0].args.defaultingType: Unsupported value: \"Foo\": supported values: \"System\", \"List\"",
            ),
            (
                json!({"defaultConstraints": [c("zone", "DoNotSchedule")]}),
                "c: profiles[0].pluginConfig[0].args.defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty",
            ),
            (
                json!({"defaultingType": "List", "defaultConstraints": [c("zone", "DoNotSchedule"), c("zone", "DoNotSchedule")]}),
                "c: profiles[0].pluginConfig[0].args.defaultConstraints[1]: Duplicate value: \"{zone, DoNotSchedule}\"",
            ),
            (
                json!({"defaultingType": "List", "defaultConstraints": [{"maxSkew": 0, "topologyKey": "", "whenUnsatisfiable": "Never"}]}),
                "c: [profiles[0].pluginConfig[0].args.defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf), profiles[0].pluginConfig[0].args.defaultConstraints[0].topologyKey: Required value: can not be empty, profiles[0].pluginConfig[0].args.defaultConstraints[0].whenUnsatisfiable: Unsupported value: \"Never\"",
            ),
            (
                json!({"defaultingType": "List", "defaultConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {}}]}),
                "c: profiles[0].pluginConfig[0].args.defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector",
            ),
        ];
        for (args, want) in cases {
            let err = with(args).unwrap_err();
            assert!(err.0.contains(want), "{err} does not contain {want}");
        }
    }

    #[test]
    fn spread_gates_default_on() {
        let g = FeatureGates::default();
        assert!(g.node_inclusion_policy_in_pod_topology_spread());
        assert!(g.match_label_keys_in_pod_topology_spread());
        let g = FeatureGates::parse("MatchLabelKeysInPodTopologySpread=false").unwrap();
        assert!(!g.match_label_keys_in_pod_topology_spread());
        assert!(g.unmodelled().is_empty());
    }

    #[test]
    fn feature_gates_parse() {
        let g = FeatureGates::parse("TaintTolerationComparisonOperators=true, Foo=false").unwrap();
        assert!(g.taint_toleration_comparison_operators);
        assert_eq!(g.unmodelled(), ["Foo"]);
        assert!(FeatureGates::parse("Foo").is_err());
        assert!(FeatureGates::parse("Foo=maybe").is_err());
    }
}
