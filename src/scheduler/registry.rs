//! The plugins this version models (upstream's in-tree `Registry`), each registered once with
//! its explanation, and the set a profile instantiates for one pod. Each plugin is run
//! through [`Registered`], which converts what it tells in its own types into the
//! evaluation's.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::state::Pod;

use super::balanced_allocation::{self, BalancedAllocation};
use super::details::{FilterDetails, ScoreDetails, Tables};
use super::dynamic_resources::{self, DynamicResources};
use super::explain::{Explain, Silent};
use super::image_locality::{self, ImageLocality};
use super::inter_pod_affinity::{self, InterPodAffinity};
use super::node_affinity::{self, NodeAffinity};
use super::node_declared_features::{self, NodeDeclaredFeatures};
use super::node_name::{self, NodeName};
use super::node_ports::{self, NodePorts};
use super::node_resources_fit::{self, NodeResourcesFit};
use super::node_unschedulable::{self, NodeUnschedulable};
use super::node_volume_limits::{self, NodeVolumeLimits};
use super::plugin::{Input, Plugin};
use super::plugin_id::PluginId;
use super::pod_topology_spread::{self, PodTopologySpread};
use super::profile::Profile;
use super::result::{FilterCell, ScoreCell};
use super::status::{PreFilterOutcome, PreScoreOutcome, ReportedStatus, Status};
use super::storage;
use super::taint_toleration::{self, TaintToleration};
use super::volume_binding::{self, VolumeBinding};
use super::volume_restrictions::{self, VolumeRestrictions};
use super::volume_zone::{self, VolumeZone};

/// A plugin as the framework runs it: [`Plugin`] with its own types converted.
pub(crate) trait Registered {
    fn unavailable(&self) -> Option<String>;
    fn pre_filter(&mut self) -> PreFilterOutcome;
    fn pre_filter_disabled(&mut self);
    /// Filter on nodes `0..nodes`, a cell each. The loop is here, not in the caller, so that
    /// each plugin has its own copy with `filter` called directly and its result written in
    /// place: called through the trait object per node, each result would go through the
    /// stack, and reading it back stalls.
    fn filter_all(&self, nodes: usize) -> Vec<FilterCell>;
    /// Filter on one node: its failure, if any (preemption's dry run).
    fn filter_node(&self, node: usize) -> Option<Status>;
    /// Filter on one node.
    fn filter_one(&self, node: usize) -> FilterCell;
    /// [`Plugin::filter_removing`].
    fn filter_removing(&self, node: usize, removed: &[usize]) -> Option<Option<Status>>;
    fn pre_score(&mut self, candidates: &[usize]) -> PreScoreOutcome;
    fn pre_score_disabled(&mut self);
    /// Score on every candidate, a cell each (normalized left 0), as `filter_all` does; stops
    /// at the first error, which upstream returns for the plugin.
    fn score_all(&self, candidates: &[usize]) -> Result<Vec<ScoreCell>, String>;
    fn normalize(&self, scores: &mut [i64]);
    fn post_filter(&self, reported: &[Option<&ReportedStatus>]) -> Option<Result<String, String>>;
    fn tables(&mut self) -> Option<Tables>;
}

impl<P> Registered for P
where
    P: Plugin,
    P::FilterDetails: Into<FilterDetails>,
    P::ScoreDetails: Into<ScoreDetails>,
    P::Tables: Into<Tables>,
{
    fn unavailable(&self) -> Option<String> {
        Plugin::unavailable(self)
    }

    fn pre_filter(&mut self) -> PreFilterOutcome {
        Plugin::pre_filter(self)
    }

    fn pre_filter_disabled(&mut self) {
        Plugin::pre_filter_disabled(self);
    }

    fn filter_all(&self, nodes: usize) -> Vec<FilterCell> {
        (0..nodes).map(|node| self.filter_one(node)).collect()
    }

    fn filter_one(&self, node: usize) -> FilterCell {
        let (status, details) = self.filter(node);
        FilterCell {
            status: status.map(Box::new),
            details: details.map(Into::into),
        }
    }

    fn filter_node(&self, node: usize) -> Option<Status> {
        self.filter(node).0
    }

    fn filter_removing(&self, node: usize, removed: &[usize]) -> Option<Option<Status>> {
        Plugin::filter_removing(self, node, removed)
    }

    fn pre_score(&mut self, candidates: &[usize]) -> PreScoreOutcome {
        Plugin::pre_score(self, candidates)
    }

    fn pre_score_disabled(&mut self) {
        Plugin::pre_score_disabled(self);
    }

    fn score_all(&self, candidates: &[usize]) -> Result<Vec<ScoreCell>, String> {
        let mut column = Vec::with_capacity(candidates.len());
        for &node in candidates {
            let (raw, details) = self.score(node)?;
            column.push(ScoreCell {
                raw,
                normalized: 0,
                details: details.map(Into::into),
            });
        }
        Ok(column)
    }

    fn normalize(&self, scores: &mut [i64]) {
        Plugin::normalize(self, scores);
    }

    fn post_filter(&self, reported: &[Option<&ReportedStatus>]) -> Option<Result<String, String>> {
        Plugin::post_filter(self, reported)
    }

    fn tables(&mut self) -> Option<Tables> {
        Plugin::tables(self).map(Into::into)
    }
}

/// A plugin this version models: how it is made for a pod under a profile (`None` when it is
/// not modelled for that pod), and how it explains its results.
struct Registration {
    id: PluginId,
    make: for<'a> fn(Input<'a>, &'a Profile) -> Option<Box<dyn Registered + 'a>>,
    explain: &'static dyn Explain,
}

fn made<'a>(plugin: impl Registered + 'a) -> Option<Box<dyn Registered + 'a>> {
    Some(Box::new(plugin))
}

/// The in-tree plugins this version models, a registration each. Where several explain one
/// table column (the cordon and the taints), they fill it in this order.
#[rustfmt::skip]
static REGISTRY: [Registration; 16] = [
    Registration { id: PluginId::NodeUnschedulable, make: |i, _| made(NodeUnschedulable::new(i)), explain: &node_unschedulable::explain::Explainer },
    Registration { id: PluginId::NodeName, make: |i, _| made(NodeName::new(i)), explain: &node_name::explain::Explainer },
    Registration { id: PluginId::TaintToleration, make: |i, p| made(TaintToleration::new(i, &p.gates)), explain: &taint_toleration::explain::Explainer },
    Registration { id: PluginId::NodeAffinity, make: |i, p| made(NodeAffinity::new(i, &p.node_affinity)), explain: &node_affinity::explain::Explainer },
    Registration { id: PluginId::InterPodAffinity, make: |i, p| made(InterPodAffinity::new(i, p.inter_pod_affinity)), explain: &inter_pod_affinity::explain::Explainer },
    Registration { id: PluginId::NodeResourcesFit, make: |i, p| made(NodeResourcesFit::new(i, &p.node_resources_fit, &p.gates)), explain: &node_resources_fit::explain::Explainer },
    Registration { id: PluginId::NodePorts, make: |i, _| made(NodePorts::new(i)), explain: &node_ports::explain::Explainer },
    Registration { id: PluginId::NodeResourcesBalancedAllocation, make: |i, p| made(BalancedAllocation::new(i, &p.balanced_allocation, p.gates.release)), explain: &balanced_allocation::explain::Explainer },
    Registration { id: PluginId::ImageLocality, make: |i, _| made(ImageLocality::new(i)), explain: &image_locality::explain::Explainer },
    Registration { id: PluginId::PodTopologySpread, make: |i, p| made(PodTopologySpread::new(i, &p.pod_topology_spread, &p.gates)), explain: &pod_topology_spread::explain::Explainer },
    Registration { id: PluginId::VolumeRestrictions, make: |i, p| made(VolumeRestrictions::new(i, p.gates.release)), explain: &volume_restrictions::explain::Explainer },
    Registration { id: PluginId::NodeVolumeLimits, make: |i, _| made(NodeVolumeLimits::new(i)), explain: &node_volume_limits::explain::Explainer },
    Registration { id: PluginId::VolumeBinding, make: |i, p| made(VolumeBinding::new(i, &p.gates)), explain: &volume_binding::explain::Explainer },
    Registration { id: PluginId::VolumeZone, make: |i, _| made(VolumeZone::new(i)), explain: &volume_zone::explain::Explainer },
    Registration { id: PluginId::NodeDeclaredFeatures, make: |i, _| made(NodeDeclaredFeatures::new(i)), explain: &node_declared_features::explain::Explainer },
    Registration { id: PluginId::DynamicResources, make: |i, p| if i.pod.template.has_resource_claims { made(DynamicResources::new(i, &p.gates)) } else { made(storage::Skipped) }, explain: &dynamic_resources::explain::Explainer },
];

/// The plugin `id`, for this pod under this profile; `None` when this version does not model
/// it for the pod.
fn instantiate<'a>(
    id: &PluginId,
    input: Input<'a>,
    profile: &'a Profile,
) -> Option<Box<dyn Registered + 'a>> {
    let r = REGISTRY.iter().find(|r| r.id == *id)?;
    (r.make)(input, profile)
}

/// How the plugin `id` explains its results; a plugin this version does not model says
/// nothing of its own.
pub fn explain_of(id: &PluginId) -> &'static dyn Explain {
    REGISTRY
        .iter()
        .find(|r| r.id == *id)
        .map_or(&Silent, |r| r.explain)
}

/// Every plugin's explanation, in the registry's order.
pub fn explanations() -> impl Iterator<Item = &'static dyn Explain> {
    REGISTRY.iter().map(|r| r.explain)
}

fn not_evaluated_reason(id: &PluginId, pod: &Pod) -> String {
    match storage::Kind::of(id).and_then(|k| k.relevant(pod)) {
        Some(why) => format!(
            "{id} is not evaluated: {why}, and kubectl-affinity does not read the objects it checks"
        ),
        None => format!("{id} is not evaluated by this version of kubectl-affinity"),
    }
}

/// Every plugin a profile names at PreFilter, Filter, PreScore or Score, instantiated once for
/// the pod, in the order first named; and why each of the others is not evaluated, worded
/// once for every node's entries.
pub(crate) struct Plugins<'a> {
    instances: Vec<(&'a PluginId, Box<dyn Registered + 'a>)>,
    not_evaluated: BTreeMap<&'a PluginId, Arc<str>>,
}

impl<'a> Plugins<'a> {
    pub(crate) fn new(input: Input<'a>, profile: &'a Profile) -> Self {
        Self::only(input, profile, |_| true)
    }

    /// The plugins of the profile that `keep` names.
    pub(crate) fn only(
        input: Input<'a>,
        profile: &'a Profile,
        keep: impl Fn(&PluginId) -> bool,
    ) -> Self {
        let mut plugins = Plugins {
            instances: Vec::new(),
            not_evaluated: BTreeMap::new(),
        };
        let named = profile
            .pre_filter
            .iter()
            .chain(&profile.filter)
            .chain(&profile.pre_score)
            .chain(profile.score.iter().map(|(n, _)| n))
            .filter(|n| keep(n));
        for id in named {
            if plugins.get(id).is_some() || plugins.not_evaluated.contains_key(id) {
                continue;
            }
            let why = match instantiate(id, input, profile) {
                None => not_evaluated_reason(id, input.pod),
                Some(plugin) => match plugin.unavailable() {
                    Some(why) => why,
                    None => {
                        plugins.instances.push((id, plugin));
                        continue;
                    }
                },
            };
            plugins.not_evaluated.insert(id, why.into());
        }
        plugins
    }

    pub(crate) fn get(&self, id: &PluginId) -> Option<&(dyn Registered + 'a)> {
        let (_, plugin) = self.instances.iter().find(|(n, _)| *n == id)?;
        Some(plugin.as_ref())
    }

    pub(crate) fn get_mut(&mut self, id: &PluginId) -> Option<&mut (dyn Registered + 'a)> {
        let (_, plugin) = self.instances.iter_mut().find(|(n, _)| *n == id)?;
        Some(plugin.as_mut())
    }

    /// Every instance, with its plugin.
    pub(crate) fn iter_mut(
        &mut self,
    ) -> impl Iterator<Item = (&'a PluginId, &mut (dyn Registered + 'a))> {
        self.instances.iter_mut().map(|(n, p)| (*n, p.as_mut()))
    }

    /// Why the plugin `id`, which has no instance, is not evaluated.
    pub(crate) fn not_evaluated(&self, id: &PluginId) -> Arc<str> {
        self.not_evaluated.get(id).cloned().unwrap_or_default()
    }
}
