//! The plugins this version models (upstream's in-tree `Registry`), and the set a
//! profile instantiates for one pod. Each plugin is run through [`Registered`], which
//! converts what it tells in its own types into the evaluation's.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::state::Pod;

use super::balanced_allocation::BalancedAllocation;
use super::details::{FilterDetails, ScoreDetails, Tables};
use super::image_locality::ImageLocality;
use super::inter_pod_affinity::InterPodAffinity;
use super::node_affinity::NodeAffinity;
use super::node_name::NodeName;
use super::node_ports::NodePorts;
use super::node_resources_fit::NodeResourcesFit;
use super::node_unschedulable::NodeUnschedulable;
use super::node_volume_limits::NodeVolumeLimits;
use super::plugin::{Input, Plugin};
use super::plugin_id::PluginId;
use super::pod_topology_spread::PodTopologySpread;
use super::profile::Profile;
use super::result::{FilterCell, ScoreCell};
use super::status::{PreFilterOutcome, PreScoreOutcome, Status};
use super::storage;
use super::taint_toleration::TaintToleration;
use super::volume_binding::VolumeBinding;
use super::volume_restrictions::VolumeRestrictions;
use super::volume_zone::VolumeZone;

/// A plugin as the framework runs it: [`Plugin`] with its own types converted.
pub(crate) trait Registered {
    fn unavailable(&self) -> Option<String>;
    fn pre_filter(&mut self) -> PreFilterOutcome;
    fn pre_filter_disabled(&mut self);
    /// Filter on nodes `0..nodes`, a cell each. The loop is here, not in the caller, so that
    /// each plugin has its own copy with `filter` called directly and its result written in
    /// place: called through the trait object per node, each result went through the stack,
    /// and reading it back stalled, a large share of `evaluate`'s own time at thousands of
    /// nodes.
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

    fn tables(&mut self) -> Option<Tables> {
        Plugin::tables(self).map(Into::into)
    }
}

/// The plugin `id`, for this pod under this profile; `None` when this version does not model
/// it (DynamicResources is modelled only for a pod without ResourceClaims).
fn instantiate<'a>(
    id: &PluginId,
    input: Input<'a>,
    profile: &'a Profile,
) -> Option<Box<dyn Registered + 'a>> {
    Some(match id {
        PluginId::NodeUnschedulable => Box::new(NodeUnschedulable::new(input)),
        PluginId::NodeName => Box::new(NodeName::new(input)),
        PluginId::TaintToleration => Box::new(TaintToleration::new(input, &profile.gates)),
        PluginId::NodeAffinity => Box::new(NodeAffinity::new(input, &profile.node_affinity)),
        PluginId::InterPodAffinity => {
            Box::new(InterPodAffinity::new(input, profile.inter_pod_affinity))
        }
        PluginId::NodeResourcesFit => Box::new(NodeResourcesFit::new(
            input,
            &profile.node_resources_fit,
            &profile.gates,
        )),
        PluginId::NodePorts => Box::new(NodePorts::new(input)),
        PluginId::NodeResourcesBalancedAllocation => {
            Box::new(BalancedAllocation::new(input, &profile.balanced_allocation))
        }
        PluginId::ImageLocality => Box::new(ImageLocality::new(input)),
        PluginId::PodTopologySpread => Box::new(PodTopologySpread::new(
            input,
            &profile.pod_topology_spread,
            &profile.gates,
        )),
        PluginId::VolumeRestrictions => {
            Box::new(VolumeRestrictions::new(input, profile.gates.release))
        }
        PluginId::NodeVolumeLimits => Box::new(NodeVolumeLimits::new(input)),
        PluginId::VolumeBinding => Box::new(VolumeBinding::new(input, &profile.gates)),
        PluginId::VolumeZone => Box::new(VolumeZone::new(input)),
        PluginId::DynamicResources
            if storage::Kind::DynamicResources
                .relevant(input.pod)
                .is_none() =>
        {
            Box::new(storage::Skipped)
        }
        _ => return None,
    })
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
