//! The plugins this version models, by name (upstream's in-tree `Registry`), and the set a
//! profile instantiates for one pod. Each plugin is run through [`Registered`], which
//! converts what it tells in its own types into the evaluation's.

use std::borrow::Cow;
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
use super::pod_topology_spread::PodTopologySpread;
use super::profile::{DEFAULT_PLUGINS, Profile};
use super::result::{FilterCell, ScoreCell};
use super::status::{PluginName, PreFilterOutcome, PreScoreOutcome, Status};
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

/// The plugin named `name`, for this pod under this profile; `None` when this version does not
/// model it (DynamicResources is modelled only for a pod without ResourceClaims).
fn instantiate<'a>(
    name: &str,
    input: Input<'a>,
    profile: &'a Profile,
) -> Option<Box<dyn Registered + 'a>> {
    Some(match name {
        "NodeUnschedulable" => Box::new(NodeUnschedulable::new(input)),
        "NodeName" => Box::new(NodeName::new(input)),
        "TaintToleration" => Box::new(TaintToleration::new(input, &profile.gates)),
        "NodeAffinity" => Box::new(NodeAffinity::new(input, &profile.node_affinity)),
        "InterPodAffinity" => Box::new(InterPodAffinity::new(input, profile.inter_pod_affinity)),
        "NodeResourcesFit" => Box::new(NodeResourcesFit::new(
            input,
            &profile.node_resources_fit,
            &profile.gates,
        )),
        "NodePorts" => Box::new(NodePorts::new(input)),
        "NodeResourcesBalancedAllocation" => {
            Box::new(BalancedAllocation::new(input, &profile.balanced_allocation))
        }
        "ImageLocality" => Box::new(ImageLocality::new(input)),
        "PodTopologySpread" => Box::new(PodTopologySpread::new(
            input,
            &profile.pod_topology_spread,
            &profile.gates,
        )),
        "VolumeRestrictions" => Box::new(VolumeRestrictions::new(input, profile.gates.release)),
        "NodeVolumeLimits" => Box::new(NodeVolumeLimits::new(input)),
        "VolumeBinding" => Box::new(VolumeBinding::new(input, &profile.gates)),
        "VolumeZone" => Box::new(VolumeZone::new(input)),
        "DynamicResources"
            if storage::Kind::DynamicResources
                .relevant(input.pod)
                .is_none() =>
        {
            Box::new(storage::Skipped)
        }
        _ => return None,
    })
}

fn not_evaluated_reason(name: &str, pod: &Pod) -> String {
    match storage::Kind::from_name(name).and_then(|k| k.relevant(pod)) {
        Some(why) => format!(
            "{name} is not evaluated: {why}, and kubectl-affinity does not read the objects it checks"
        ),
        None => format!("{name} is not evaluated by this version of kubectl-affinity"),
    }
}

/// The name of `name` as shared by the entries: static when it is a plugin this version knows.
pub(crate) fn plugin_name(name: &str) -> PluginName {
    match DEFAULT_PLUGINS.iter().find(|(n, _)| *n == name) {
        Some((n, _)) => Cow::Borrowed(n),
        None => Cow::Owned(name.to_string()),
    }
}

/// Every plugin a profile names at PreFilter, Filter, PreScore or Score, instantiated once for
/// the pod, in the order first named; and why each of the others is not evaluated, worded
/// once for every node's entries.
pub(crate) struct Plugins<'a> {
    instances: Vec<(&'a str, Box<dyn Registered + 'a>)>,
    not_evaluated: BTreeMap<&'a str, Arc<str>>,
}

impl<'a> Plugins<'a> {
    pub(crate) fn new(input: Input<'a>, profile: &'a Profile) -> Self {
        Self::only(input, profile, |_| true)
    }

    /// The plugins of the profile that `keep` names.
    pub(crate) fn only(
        input: Input<'a>,
        profile: &'a Profile,
        keep: impl Fn(&str) -> bool,
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
        for name in named {
            if plugins.get(name).is_some() || plugins.not_evaluated.contains_key(name.as_str()) {
                continue;
            }
            let why = match instantiate(name, input, profile) {
                None => not_evaluated_reason(name, input.pod),
                Some(plugin) => match plugin.unavailable() {
                    Some(why) => why,
                    None => {
                        plugins.instances.push((name, plugin));
                        continue;
                    }
                },
            };
            plugins.not_evaluated.insert(name, why.into());
        }
        plugins
    }

    pub(crate) fn get(&self, name: &str) -> Option<&(dyn Registered + 'a)> {
        let (_, plugin) = self.instances.iter().find(|(n, _)| *n == name)?;
        Some(plugin.as_ref())
    }

    pub(crate) fn get_mut(&mut self, name: &str) -> Option<&mut (dyn Registered + 'a)> {
        let (_, plugin) = self.instances.iter_mut().find(|(n, _)| *n == name)?;
        Some(plugin.as_mut())
    }

    /// Every instance, with its name.
    pub(crate) fn iter_mut(
        &mut self,
    ) -> impl Iterator<Item = (&'a str, &mut (dyn Registered + 'a))> {
        self.instances.iter_mut().map(|(n, p)| (*n, p.as_mut()))
    }

    /// Why the plugin `name`, which has no instance, is not evaluated.
    pub(crate) fn not_evaluated(&self, name: &str) -> Arc<str> {
        self.not_evaluated.get(name).cloned().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::plugin_name;
    use std::borrow::Cow;

    /// Names of plugins this version knows are static; any other (an out-of-tree plugin in a
    /// profile) is kept as written.
    #[test]
    fn plugin_names_are_static_when_known() {
        assert!(matches!(
            plugin_name("NodeAffinity"),
            Cow::Borrowed("NodeAffinity")
        ));
        assert!(matches!(plugin_name("Coscheduling"), Cow::Owned(ref n) if n == "Coscheduling"));
    }
}
