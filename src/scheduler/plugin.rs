//! What a plugin sees and implements: the pod and cluster it meets, and the extension points
//! of upstream's framework (`PreFilterPlugin`, `FilterPlugin`, `PreScorePlugin`,
//! `ScorePlugin` with its `ScoreExtensions`) as one trait whose defaults describe a plugin
//! without that extension point.

use std::borrow::Cow;

use crate::state::{ClusterState, Node, NodeUsage, Pod};

use super::plugin_id::PluginId;
use super::status::{PreFilterOutcome, PreScoreOutcome, ReportedStatus, Status};

/// Upstream's `MaxNodeScore`.
pub const MAX_NODE_SCORE: i64 = 100;

/// The pod being placed and the cluster it meets.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    pub pod: &'a Pod,
    pub state: &'a ClusterState,
    /// An existing pod to leave out (the pod being explained, evaluated as if unscheduled).
    pub exclude: Option<usize>,
    /// Existing pods taken out by preemption's dry run (its victims), ascending. Upstream
    /// removes them from a copy of the node and updates the PreFilter state through each
    /// plugin's `RemovePod` (`preemption.go`, `SelectVictimsOnNode`); every plugin here
    /// reads the cluster through this input, so leaving them out gives the same state.
    pub removed: &'a [usize],
}

impl<'a> Input<'a> {
    /// Whether existing pod `p` is left out: the excluded pod or one taken out by
    /// preemption's dry run.
    pub fn is_excluded(&self, p: usize) -> bool {
        Some(p) == self.exclude || self.removed.binary_search(&p).is_ok()
    }

    /// The existing pods (index, pod, node index), minus those left out.
    pub fn existing_pods(&self) -> impl Iterator<Item = (usize, &'a Pod, usize)> + 'a {
        let input = *self;
        let state = self.state;
        state
            .pods()
            .iter()
            .enumerate()
            .filter(move |(i, _)| !input.is_excluded(*i))
            .map(move |(i, p)| (i, p, state.pod_node(i)))
    }

    pub fn node(&self, i: usize) -> &'a Node {
        &self.state.nodes()[i]
    }

    /// What the existing pods of node `i` hold, without those left out.
    pub fn node_usage(&self, i: usize) -> Cow<'a, NodeUsage> {
        let state = self.state;
        let usage = state.node_usage(i);
        let mut left_out = self
            .exclude
            .into_iter()
            .chain(self.removed.iter().copied())
            .filter(|&x| state.pod_nodes().get(x) == Some(&i))
            .peekable();
        if left_out.peek().is_none() {
            return Cow::Borrowed(usage);
        }
        let mut u = usage.clone();
        for x in left_out {
            let resources = &state.pods()[x].template.resources;
            u.apply(resources, x, -1);
            if self.removed.binary_search(&x).is_ok() {
                // Upstream quirk: `HostPortInfo` is a set, so `NodeInfo.RemovePod` in
                // preemption's dry run frees a victim's port even where another pod on the
                // node still binds the same one, and the preemptor then fits.
                u.host_ports
                    .retain(|(port, _)| !resources.host_ports.contains(port));
            }
        }
        Cow::Owned(u)
    }
}

/// The extension points every modelled plugin implements. A plugin tells more than a status
/// or a score in its own types, named here without naming the plugin: what the framework
/// keeps of them is converted by the registry (`Infallible` where a plugin tells nothing).
pub(crate) trait Plugin {
    /// What its Filter tells of a node beside the status.
    type FilterDetails;
    /// What its Score tells of a candidate beside the score.
    type ScoreDetails;
    /// Tables it adds to the evaluation beside the nodes' entries.
    type Tables;

    /// `Some(why)` when the plugin cannot be evaluated on this input (missing data): it is then
    /// reported as not evaluated, never as passed.
    fn unavailable(&self) -> Option<String> {
        None
    }
    fn pre_filter(&mut self) -> PreFilterOutcome {
        PreFilterOutcome::Proceed(None)
    }
    /// Called instead of `pre_filter` when the profile does not enable this plugin's
    /// PreFilter, so plugins that depend on it can behave as upstream does.
    fn pre_filter_disabled(&mut self) {}
    fn filter(&self, node: usize) -> (Option<Status>, Option<Self::FilterDetails>);
    /// Filter on `node` with the existing pods `removed` (ascending, all on `node`) taken
    /// out of what PreFilter computed: upstream's `RemovePod` PreFilter extension, then
    /// Filter, for preemption's dry run. `None` (the default) for a plugin whose PreFilter
    /// keeps nothing of other nodes' pods: the dry run builds it again on the input without
    /// them, which gives the same state at the cost of a PreFilter per try.
    fn filter_removing(&self, _node: usize, _removed: &[usize]) -> Option<Option<Status>> {
        None
    }
    fn pre_score(&mut self, _candidates: &[usize]) -> PreScoreOutcome {
        PreScoreOutcome::Proceed
    }
    fn pre_score_disabled(&mut self) {}
    fn score(&self, _node: usize) -> Result<(i64, Option<Self::ScoreDetails>), String> {
        Ok((0, None))
    }
    fn normalize(&self, _scores: &mut [i64]) {}
    /// PostFilter, for a plugin with one besides DefaultPreemption: `Ok(message)` for an
    /// Unschedulable status (the next PostFilter plugin runs), `Err(message)` for one that
    /// ends PostFilter. `None`: nothing of its own to say (the framework then says it).
    /// `reported` is each node's recorded Filter status.
    fn post_filter(&self, _reported: &[Option<&ReportedStatus>]) -> Option<Result<String, String>> {
        None
    }
    /// Called once, after Score.
    fn tables(&mut self) -> Option<Self::Tables> {
        None
    }
}

/// Upstream's error when a Filter or Score finds no state from its own PreFilter or PreScore
/// (that extension point disabled in the profile while the later one runs).
pub(crate) fn missing_cycle_state(point: &str, plugin: PluginId) -> String {
    format!(
        "reading \"{point}{plugin}\" from cycleState: not found ({plugin}'s {point} is disabled in the profile)"
    )
}

/// `helper.DefaultNormalizeScore`: scale to 0..=100 by the maximum (integer division);
/// reversed, subtract from 100. All-zero stays 0 (or becomes 100 when reversed).
pub fn default_normalize(scores: &mut [i64], reverse: bool) {
    let max = scores.iter().copied().max().unwrap_or(0);
    if max == 0 {
        if reverse {
            scores.iter_mut().for_each(|s| *s = MAX_NODE_SCORE);
        }
        return;
    }
    for s in scores.iter_mut() {
        *s = MAX_NODE_SCORE * *s / max;
        if reverse {
            *s = MAX_NODE_SCORE - *s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::default_normalize;

    #[test]
    fn default_normalize_matches_upstream_examples() {
        let cases: &[(&[i64], bool, &[i64])] = &[
            (&[1, 2, 3, 4], false, &[25, 50, 75, 100]),
            (&[1, 2, 3, 4], true, &[75, 50, 25, 0]),
            (&[1000, 10, 20, 30], false, &[100, 1, 2, 3]),
            (&[1000, 10, 20, 30], true, &[0, 99, 98, 97]),
            (&[0, 0, 0, 0], false, &[0, 0, 0, 0]),
            (&[0, 0, 0, 0], true, &[100, 100, 100, 100]),
            (&[2, 11, 4], false, &[18, 100, 36]),
        ];
        for (input, reverse, want) in cases {
            let mut s = input.to_vec();
            default_normalize(&mut s, *reverse);
            assert_eq!(&s, want, "{input:?} reverse={reverse}");
        }
    }
}
