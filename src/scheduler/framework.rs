//! The scheduling cycle of one pod, as upstream's framework runs it
//! (`pkg/scheduler/framework/runtime/framework.go`): PreFilter, Filter, PreScore, Score with
//! NormalizeScore, and PostFilter when no node is left.
//!
//! Unlike the scheduler, every Filter plugin runs on every node, so a user sees all the
//! reasons a node is rejected; the result still marks the one status the scheduler itself
//! would record.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Serialize;

use crate::state::{ClusterState, Pod};

use super::default_preemption::{self, PostFilterReport};
use super::details::Tables;
use super::inter_pod_affinity::TermTables;
use super::plugin::Input;
use super::plugin_id::PluginId;
use super::pod_topology_spread::SpreadTables;
use super::preemption::DryRunFilter;
use super::profile::Profile;
use super::registry::{Plugins, Registered};
use super::result::{
    Cell, Entries, EntryTable, FilterCell, Head, NodeResult, Nominated, Run, ScoreCell,
};
use super::status::{Code, PreFilterOutcome, PreScoreOutcome, ReportedStatus, Status, Verdict};

/// The plugins' names, space-separated, as upstream lists them.
fn joined(plugins: &[PluginId]) -> String {
    let names: Vec<&str> = plugins.iter().map(PluginId::as_str).collect();
    names.join(" ")
}

/// A plugin's PreFilter outcome, for the report.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreFilterReport {
    pub plugin: PluginId,
    /// "Success", "Skip", "Rejected" or "NotEvaluated".
    pub result: &'static str,
    /// Node names the plugin restricted the candidates to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_names: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
}

/// A plugin's PreScore outcome, for the report.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreScoreReport {
    pub plugin: PluginId,
    /// "Success", "Skip", "Error" or "NotEvaluated".
    pub result: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Whether the scheduler itself runs PreScore and Score in the cycle (`schedulePod` and
/// `prioritizeNodes`, pkg/scheduler/schedule_one.go). The evaluation scores the candidates
/// either way, so a reader sees how they compare; when the scheduler does not score, those
/// scores are for reference only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Scoring {
    /// Two or more nodes are feasible: PreScore and Score run, a node with the top total is
    /// picked.
    Ran,
    /// Fewer than two nodes are feasible: the scheduler takes the one node (or fails)
    /// without running PreScore or Score.
    NotRun,
    /// A PreScore plugin failed: the cycle ends with its error and Score does not run.
    StoppedAtPreScore,
}

/// The result of evaluating one pod.
#[derive(Debug, Clone)]
pub struct Evaluation {
    pub pre_filter: Vec<PreFilterReport>,
    pub pre_score: Vec<PreScoreReport>,
    pub nodes: Vec<NodeResult>,
    /// Whether the scheduler runs PreScore and Score in this cycle.
    pub scoring: Scoring,
    /// The pod's own nominated node (`status.nominatedNodeName`) when it passes every
    /// Filter: the scheduler tries it first and takes it, unscored.
    pub nominated_node: Option<Arc<str>>,
    /// The errors the scheduling cycle ends with (a PreScore or Score plugin's), in
    /// upstream's words; none from a PreScore or Score the scheduler does not run.
    pub errors: Vec<String>,
    /// Pod (anti-)affinity terms with their matching pods per topology domain.
    pub pod_terms: Option<TermTables>,
    /// PostFilter outcomes (only when no node can take the pod).
    pub post_filter: Vec<PostFilterReport>,
    /// Topology spread constraints with their per-domain counts.
    pub topology_spread: Option<SpreadTables>,
}

/// Runs the scheduling cycle for `input.pod` under `profile`.
pub fn evaluate(input: Input<'_>, profile: &Profile) -> Evaluation {
    let mut plugins = Plugins::new(input, profile);
    let pre_filter = run_pre_filter(&mut plugins, &profile.pre_filter);
    let mut nodes = run_filter(&plugins, &profile.filter, &pre_filter, input.state);
    with_nominated_pods(input, profile, &pre_filter, &mut nodes);
    // PreScore and Score run over the candidates: the nodes no evaluated plugin rejected.
    let candidates: Vec<usize> = (0..nodes.len())
        .filter(|&n| nodes[n].verdict != Verdict::Infeasible)
        .collect();
    let pre_score = run_pre_score(&mut plugins, &profile.pre_score, &candidates);
    let skipped = &pre_score.skipped;
    let score_errors = run_score(&plugins, &profile.score, skipped, &candidates, &mut nodes);
    // `findNodesThatFitPod`: a pod nominated to a node by its own earlier preemption has
    // that node filtered first, and when it passes it is the only feasible node.
    let nominated_node = input
        .pod
        .template
        .nominated_node_name
        .as_deref()
        .and_then(|n| input.state.node_index(n))
        .filter(|&n| nodes[n].verdict == Verdict::Feasible)
        .map(|n| nodes[n].name.clone());
    // `schedulePod`: with one feasible node the scheduler takes it, with none it fails;
    // `prioritizeNodes` returns at the first PreScore error (`RunPreScorePlugins` stops
    // there), so Score never runs after one.
    // `findNodesThatPassFilters`: a Filter error ends the cycle with that error (the first
    // node's here; upstream's, of whichever node's Filter failed first in parallel), and
    // neither Score nor PostFilter runs.
    let filter_error = nodes.iter().find_map(|n| {
        n.reported
            .as_ref()
            .filter(|r| r.code == Code::Error)
            .map(|r| r.reason.to_string())
    });
    let (scoring, errors) = if let Some(e) = filter_error.clone() {
        (Scoring::NotRun, vec![e])
    } else if candidates.len() < 2 || nominated_node.is_some() {
        (Scoring::NotRun, Vec::new())
    } else if let Some(first) = pre_score.errors.into_iter().next() {
        (Scoring::StoppedAtPreScore, vec![first])
    } else {
        (Scoring::Ran, score_errors)
    };
    let (pod_terms, topology_spread) = tables(&mut plugins);
    let post_filter = if filter_error.is_some() {
        Vec::new()
    } else {
        run_post_filter(input, profile, &plugins, &pre_filter, &nodes)
    };
    Evaluation {
        pre_filter: pre_filter.reports,
        pre_score: pre_score.reports,
        nodes,
        scoring,
        nominated_node,
        errors,
        pod_terms,
        post_filter,
        topology_spread,
    }
}

/// What PreFilter decided for the cycle (upstream's PreFilterResult, status and skipped
/// plugins), with each plugin's outcome for the report.
#[derive(Default)]
struct PreFilterResult {
    reports: Vec<PreFilterReport>,
    /// The plugins whose PreFilter returned Skip: their Filter does not run.
    skipped: BTreeSet<PluginId>,
    /// The status that rejects the pod before any Filter runs, and the plugin that gave it
    /// (none when the framework made it: the plugins' node names left no node).
    rejection: Option<(Option<PluginId>, Status)>,
    /// The only nodes worth filtering: those every PreFilter that named nodes named.
    node_names: Option<BTreeSet<String>>,
    /// The plugins that named nodes, sorted.
    narrowed_by: Vec<PluginId>,
}

impl PreFilterResult {
    /// A rejection is kept unless an earlier one was UnschedulableAndUnresolvable.
    fn reject(&mut self, plugin: &PluginId, status: &Status) {
        if self
            .rejection
            .as_ref()
            .is_none_or(|(_, s)| s.code == Code::Unschedulable)
        {
            self.rejection = Some((Some(plugin.clone()), status.clone()));
        }
    }

    /// Merges a plugin's node names into the others' (`PreFilterResult.Merge`); when no node
    /// is left, the pod is rejected in upstream's words.
    fn narrow(&mut self, plugin: &PluginId, names: &BTreeSet<String>) {
        self.narrowed_by.push(plugin.clone());
        let merged: BTreeSet<String> = match self.node_names.take() {
            Some(prev) => prev.intersection(names).cloned().collect(),
            None => names.clone(),
        };
        if merged.is_empty() && self.rejection.is_none() {
            let mut by = self.narrowed_by.clone();
            by.sort();
            let msg = if by.len() == 1 {
                format!("node(s) didn't satisfy plugin {}", by[0])
            } else {
                format!(
                    "node(s) didn't satisfy plugin(s) [{}] simultaneously",
                    joined(&by)
                )
            };
            self.rejection = Some((None, Status::new(Code::UnschedulableAndUnresolvable, msg)));
        }
        self.node_names = Some(merged);
    }

    /// What the framework records for a node when PreFilter already decided its fate. A
    /// plugin's rejection names the plugin; the statuses the framework makes itself (the
    /// merged node names left nothing, or left this node out) name none
    /// (`RunPreFilterPlugins`, `findNodesThatFitPod` in pkg/scheduler/schedule_one.go).
    fn reported(&self, node: &str) -> Option<ReportedStatus> {
        if let Some((plugin, status)) = &self.rejection {
            return Some(ReportedStatus {
                plugin: plugin.clone(),
                code: status.code,
                reason: status.message(),
                uncertain: false,
            });
        }
        let allowed = self.node_names.as_ref()?;
        (!allowed.contains(node)).then(|| ReportedStatus {
            plugin: None,
            code: Code::UnschedulableAndUnresolvable,
            reason: format!(
                "node(s) didn't satisfy plugin(s) [{}]",
                joined(&self.narrowed_by)
            )
            .into(),
            uncertain: false,
        })
    }
}

/// `RunPreFilterPlugins`: each PreFilter in profile order. An UnschedulableAndUnresolvable
/// rejection ends PreFilter (and the cycle); an Unschedulable one lets the rest run.
fn run_pre_filter(plugins: &mut Plugins<'_>, names: &[PluginId]) -> PreFilterResult {
    let mut result = PreFilterResult::default();
    for name in names {
        if matches!(&result.rejection, Some((_, s)) if s.code != Code::Unschedulable) {
            break;
        }
        let report = |outcome: &'static str, node_names, status| PreFilterReport {
            plugin: name.clone(),
            result: outcome,
            node_names,
            status,
        };
        let Some(plugin) = plugins.get_mut(name) else {
            result.reports.push(report("NotEvaluated", None, None));
            continue;
        };
        let entry = match plugin.pre_filter() {
            PreFilterOutcome::Skip => {
                result.skipped.insert(name.clone());
                report("Skip", None, None)
            }
            PreFilterOutcome::Proceed(None) => report("Success", None, None),
            PreFilterOutcome::Proceed(Some(set)) => {
                result.narrow(name, &set);
                report("Success", Some(set.into_iter().collect()), None)
            }
            PreFilterOutcome::Reject(status) => {
                result.reject(name, &status);
                report("Rejected", None, Some(status))
            }
        };
        result.reports.push(entry);
    }
    result.narrowed_by.sort();
    for (name, plugin) in plugins.iter_mut() {
        if !names.iter().any(|n| n == name) {
            plugin.pre_filter_disabled();
        }
    }
    result
}

/// `RunFilterPlugins` on every node, with every plugin rather than up to the first failure.
/// What does not depend on the node is decided once: each plugin's head (its name, whether
/// it was skipped or not evaluated); each plugin that runs fills a column, a cell per node.
fn run_filter(
    plugins: &Plugins<'_>,
    names: &[PluginId],
    pre_filter: &PreFilterResult,
    state: &ClusterState,
) -> Vec<NodeResult> {
    let node_count = state.nodes().len();
    let mut table = EntryTable::with_capacity(names.len());
    for name in names {
        let run = match plugins.get(name) {
            None => Run::NotEvaluated(plugins.not_evaluated(name)),
            Some(_) if pre_filter.skipped.contains(name) => Run::Skipped,
            Some(plugin) => Run::Ran(plugin.filter_all(node_count)),
        };
        table.push(name.clone(), 0, run);
    }
    let table = Arc::new(table);
    let first_failure = FirstFailure::new(&table);
    let any_unevaluated = table.plugins().any(|(h, _)| h.not_evaluated.is_some());
    let nodes = state.nodes().iter().enumerate().map(|(ni, node)| {
        let reported = pre_filter
            .reported(&node.name)
            .or_else(|| first_failure.on(ni));
        let verdict = if reported.is_some() {
            Verdict::Infeasible
        } else if any_unevaluated {
            Verdict::Unknown
        } else {
            Verdict::Feasible
        };
        NodeResult {
            name: state.node_name(ni).clone(),
            name_rank: state.name_rank(ni),
            verdict,
            reported,
            filters: Entries::row(&table, ni),
            scores: Entries::default(),
            total: None,
            score_complete: true,
            nominated: None,
        }
    });
    nodes.collect()
}

/// The nodes that have pods nominated to them that the pod must yield to, with those pods
/// (`addGENominatedPods` in pkg/scheduler/framework/runtime/framework.go): pending and not
/// bound, nominated to a node of the state, of priority at least the pod's, and not the pod
/// itself. Terminal pods are not in the scheduler's queue, so they nominate nothing.
fn nominated_pods<'s>(input: Input<'s>) -> BTreeMap<usize, Vec<&'s Pod>> {
    let mut by_node: BTreeMap<usize, Vec<&Pod>> = BTreeMap::new();
    for pod in input.state.other_pods() {
        let node = pod
            .template
            .nominated_node_name
            .as_deref()
            .and_then(|n| input.state.node_index(n));
        if let Some(node) = node
            && pod.node_name.is_empty()
            && !pod.is_terminal()
            && pod.template.priority >= input.pod.template.priority
            && pod.id != input.pod.id
        {
            by_node.entry(node).or_default().push(pod);
        }
    }
    by_node
}

/// `RunFilterPluginsWithNominatedPods` for the nodes that have nominated pods: the Filter
/// plugins run first with those pods counted on the node, then without; the node passes
/// only when both pass, and a failure of the first pass is the one recorded. Nodes a
/// PreFilter result left out are never filtered.
fn with_nominated_pods(
    input: Input<'_>,
    profile: &Profile,
    pre_filter: &PreFilterResult,
    nodes: &mut [NodeResult],
) {
    for (node, pods) in nominated_pods(input) {
        let result = &mut nodes[node];
        if pre_filter.reported(&result.name).is_some() {
            continue;
        }
        let nominated = nominated_pass(input, profile, &pre_filter.skipped, node, &pods);
        if let Some(r) = &nominated.reported {
            result.reported = Some(r.clone());
            result.verdict = Verdict::Infeasible;
        }
        result.nominated = Some(Box::new(nominated));
    }
}

/// The Filter plugins on `node` with `pods` counted as running there. Upstream adds them to
/// a copy of the node and of the cycle state (each PreFilter plugin's `AddPod`); here the
/// PreFilter plugins run over a copy of the state with the pods bound to the node, which
/// gives the same state, and the Filter plugins PreFilter skipped in the cycle stay skipped.
fn nominated_pass(
    input: Input<'_>,
    profile: &Profile,
    skipped: &BTreeSet<PluginId>,
    node: usize,
    pods: &[&Pod],
) -> Nominated {
    let mut state = input.state.clone();
    for pod in pods {
        let mut pod = (*pod).clone();
        pod.node_name = input.state.node_name(node).clone();
        state.add_pod(pod);
    }
    let input = Input {
        state: &state,
        ..input
    };
    let mut plugins = Plugins::new(input, profile);
    run_pre_filter(&mut plugins, &profile.pre_filter);
    let table = node_table(&plugins, &profile.filter, skipped, node);
    Nominated {
        pods: pods.iter().map(|p| p.id.clone()).collect(),
        reported: FirstFailure::new(&table).on(0),
        filters: Entries::row(&table, 0),
    }
}

/// The Filter plugins' entries on one node: a table of one row.
fn node_table(
    plugins: &Plugins<'_>,
    names: &[PluginId],
    skipped: &BTreeSet<PluginId>,
    node: usize,
) -> Arc<EntryTable<FilterCell>> {
    let mut table = EntryTable::with_capacity(names.len());
    for name in names {
        let run = match plugins.get(name) {
            None => Run::NotEvaluated(plugins.not_evaluated(name)),
            Some(_) if skipped.contains(name) => Run::Skipped,
            Some(plugin) => Run::Ran(vec![plugin.filter_one(node)]),
        };
        table.push(name.clone(), 0, run);
    }
    Arc::new(table)
}

/// Whether `node` can take `input.pod` as the scheduler's Filter stage decides it
/// (`RunFilterPluginsWithNominatedPods`, after PreFilter): the status it records for the
/// node, `None` when every Filter plugin passes, with the pods nominated to the node and
/// without them. For callers that filter one node of a changed state (preemption's dry run
/// on a node with its victims removed).
pub fn filter_with_nominated_pods(
    input: Input<'_>,
    profile: &Profile,
    node: usize,
) -> Option<ReportedStatus> {
    let mut plugins = Plugins::new(input, profile);
    let pre_filter = run_pre_filter(&mut plugins, &profile.pre_filter);
    if let Some(r) = pre_filter.reported(input.state.node_name(node)) {
        return Some(r);
    }
    if let Some(pods) = nominated_pods(input).get(&node) {
        let nominated = nominated_pass(input, profile, &pre_filter.skipped, node, pods);
        if nominated.reported.is_some() {
            return nominated.reported;
        }
    }
    let table = node_table(&plugins, &profile.filter, &pre_filter.skipped, node);
    FirstFailure::new(&table).on(0)
}

/// The status the scheduler records for a node: its first failure in profile order,
/// uncertain when a plugin before it was not evaluated. Which plugins those are is the same
/// on every node, so it is worked out once.
struct FirstFailure<'t> {
    /// The plugins that ran, in profile order: head, column, and whether a plugin before
    /// it was not evaluated.
    ran: Vec<(&'t Head, &'t [FilterCell], bool)>,
}

impl<'t> FirstFailure<'t> {
    fn new(table: &'t EntryTable<FilterCell>) -> Self {
        let mut unevaluated_before = false;
        let ran = table
            .plugins()
            .filter_map(|(head, column)| {
                unevaluated_before |= head.not_evaluated.is_some();
                Some((head, column?, unevaluated_before))
            })
            .collect();
        FirstFailure { ran }
    }

    fn on(&self, node: usize) -> Option<ReportedStatus> {
        self.ran.iter().find_map(|&(head, column, uncertain)| {
            let s = column[node].status.as_deref()?;
            Some(ReportedStatus {
                plugin: Some(head.plugin.clone()),
                code: s.code,
                reason: s.message(),
                uncertain,
            })
        })
    }
}

/// What PreScore decided, with each plugin's outcome for the report.
#[derive(Default)]
struct PreScoreResult {
    reports: Vec<PreScoreReport>,
    /// The plugins whose PreScore returned Skip: they add nothing to any score.
    skipped: BTreeSet<PluginId>,
    /// The pod's errors, in upstream's words.
    errors: Vec<String>,
}

/// `RunPreScorePlugins` over the candidates.
fn run_pre_score(
    plugins: &mut Plugins<'_>,
    names: &[PluginId],
    candidates: &[usize],
) -> PreScoreResult {
    let mut result = PreScoreResult::default();
    for name in names {
        let report = |outcome: &'static str, error| PreScoreReport {
            plugin: name.clone(),
            result: outcome,
            error,
        };
        let Some(plugin) = plugins.get_mut(name) else {
            result.reports.push(report("NotEvaluated", None));
            continue;
        };
        let entry = match plugin.pre_score(candidates) {
            PreScoreOutcome::Skip => {
                result.skipped.insert(name.clone());
                report("Skip", None)
            }
            PreScoreOutcome::Proceed => report("Success", None),
            PreScoreOutcome::Error(e) => {
                let error = format!("running PreScore plugin {name:?}: {e}");
                result.errors.push(error);
                report("Error", Some(e))
            }
        };
        result.reports.push(entry);
    }
    for (name, plugin) in plugins.iter_mut() {
        if !names.iter().any(|n| n == name) {
            plugin.pre_score_disabled();
        }
    }
    result
}

/// `RunScorePlugins`: each plugin scores every candidate into a column, a cell per
/// candidate, normalized by its NormalizeScore; a plugin not evaluated, skipped or failed has
/// its head alone, the same entry on every candidate. Each candidate gets its row of the
/// scores and its total, the weighted scores summed. Returns the pod's errors, in upstream's
/// words.
fn run_score(
    plugins: &Plugins<'_>,
    names: &[(PluginId, i64)],
    skipped: &BTreeSet<PluginId>,
    candidates: &[usize],
    nodes: &mut [NodeResult],
) -> Vec<String> {
    let mut errors = Vec::new();
    let mut table = EntryTable::with_capacity(names.len());
    for (name, weight) in names {
        let run = match plugins.get(name) {
            None => Run::NotEvaluated(plugins.not_evaluated(name)),
            Some(_) if skipped.contains(name) => Run::Skipped,
            Some(plugin) => match score_column(plugin, candidates) {
                Ok(column) => Run::Ran(column),
                Err(e) => {
                    // `RunScorePlugins`' words for a plugin's Score error.
                    errors.push(format!(
                        "running Score plugins: plugin {name:?} failed with: {e}"
                    ));
                    Run::NotEvaluated(e.into())
                }
            },
        };
        table.push(name.clone(), *weight, run);
    }
    let (totals, complete) = totals(&table, candidates.len());
    let table = Arc::new(table);
    for (row, (&c, total)) in candidates.iter().zip(totals).enumerate() {
        nodes[c].total = Some(total);
        nodes[c].scores = Entries::row(&table, row);
        nodes[c].score_complete = complete;
    }
    errors
}

/// Each candidate's total, the weighted scores summed, and whether every plugin was
/// evaluated: a plugin not evaluated makes every candidate's score incomplete, and the
/// weighted scores of plugins without a column (0 when skipped) count in every total.
fn totals(table: &EntryTable<ScoreCell>, candidates: usize) -> (Vec<i64>, bool) {
    let alone = || {
        table
            .plugins()
            .filter(|(_, column)| column.is_none())
            .map(|(head, _)| ScoreCell::view(head, None))
    };
    let complete = alone().all(|e| e.evaluated());
    let mut totals = vec![alone().filter_map(|e| e.weighted()).sum::<i64>(); candidates];
    for (head, column) in table.plugins().filter_map(|(h, c)| Some((h, c?))) {
        for (total, cell) in totals.iter_mut().zip(column) {
            *total += cell.normalized * head.weight;
        }
    }
    (totals, complete)
}

/// One plugin's Score on every candidate, then its NormalizeScore.
fn score_column(plugin: &dyn Registered, candidates: &[usize]) -> Result<Vec<ScoreCell>, String> {
    let mut column = plugin.score_all(candidates)?;
    let mut scores: Vec<i64> = column.iter().map(|c| c.raw).collect();
    plugin.normalize(&mut scores);
    for (cell, normalized) in column.iter_mut().zip(scores) {
        cell.normalized = normalized;
    }
    Ok(column)
}

/// The tables the plugins add beside the nodes' entries: pod-affinity terms and topology
/// spread domains.
fn tables(plugins: &mut Plugins<'_>) -> (Option<TermTables>, Option<SpreadTables>) {
    let (mut pod_terms, mut topology_spread) = (None, None);
    for (_, plugin) in plugins.iter_mut() {
        match plugin.tables() {
            Some(Tables::PodTerms(t)) => pod_terms = Some(t),
            Some(Tables::TopologySpread(t)) => topology_spread = Some(t),
            None => {}
        }
    }
    (pod_terms, topology_spread)
}

/// `RunPostFilterPlugins`, when no node can take the pod. Preemption's dry run filters
/// through [`filter_removing`], or [`filter_node`] on a node with nominated pods.
fn run_post_filter(
    input: Input<'_>,
    profile: &Profile,
    cycle: &Plugins<'_>,
    pre_filter: &PreFilterResult,
    nodes: &[NodeResult],
) -> Vec<PostFilterReport> {
    if nodes.iter().any(|n| n.verdict != Verdict::Infeasible) {
        return Vec::new();
    }
    let ran: Vec<&PluginId> = pre_filter.reports.iter().map(|p| &p.plugin).collect();
    let nominated = nominated_pods(input);
    let dry_run = |dry: Input<'_>, node: usize| {
        if nominated.contains_key(&node) {
            filter_node(dry, profile, node)
        } else {
            filter_removing(cycle, &pre_filter.skipped, dry, profile, node)
        }
    };
    let reported: Vec<Option<&ReportedStatus>> =
        nodes.iter().map(|n| n.reported.as_ref()).collect();
    let dra = cycle
        .get(&PluginId::DynamicResources)
        .and_then(|p| p.post_filter(&reported));
    default_preemption::post_filter(input, &profile.post_filter, &ran, nodes, &dry_run, dra)
}

/// Filter on one node with `dry.removed` (pods of that node) taken out, for preemption's
/// dry run (`SelectVictimsOnNode`): the first failure in profile order. Upstream clones the
/// cycle's state and updates it through each plugin's `RemovePod` extension; here the
/// cycle's plugins that keep other nodes' pods from PreFilter take the pods out themselves
/// ([`Plugin::filter_removing`](super::plugin::Plugin::filter_removing)), and the others,
/// whose PreFilter reads only the pod and the node, are built and PreFiltered again on the
/// input without those pods. The plugins the cycle's PreFilter skipped stay skipped.
fn filter_removing(
    cycle: &Plugins<'_>,
    skipped: &BTreeSet<PluginId>,
    dry: Input<'_>,
    profile: &Profile,
    node: usize,
) -> DryRunFilter {
    let names: Vec<&PluginId> = profile
        .filter
        .iter()
        .filter(|n| !skipped.contains(*n))
        .collect();
    let mut answered: BTreeMap<&PluginId, Option<Status>> = BTreeMap::new();
    for name in &names {
        let Some(plugin) = cycle.get(name) else {
            return DryRunFilter::NotEvaluated((*name).clone());
        };
        if let Some(status) = plugin.filter_removing(node, dry.removed) {
            answered.insert(name, status);
        }
    }
    // Only the Filter plugins that run and cannot take pods out are built again: the ones
    // PreFilter skipped, and Score's, have nothing to say here.
    let rebuilt = (answered.len() < names.len()).then(|| {
        let mut plugins = Plugins::only(dry, profile, |n| {
            !answered.contains_key(n) && names.contains(&n)
        });
        run_pre_filter(&mut plugins, &profile.pre_filter);
        plugins
    });
    for name in names {
        let status = match answered.get(name) {
            Some(status) => status.clone(),
            None => match rebuilt.as_ref().and_then(|p| p.get(name)) {
                Some(plugin) => plugin.filter_node(node),
                None => return DryRunFilter::NotEvaluated(name.clone()),
            },
        };
        if let Some(status) = status {
            return DryRunFilter::Fails(name.clone(), status);
        }
    }
    DryRunFilter::Fits
}

/// Filter on one node with `input.removed` taken out, for preemption's dry run
/// (`SelectVictimsOnNode` runs `RunFilterPluginsWithNominatedPods` on a copy of the node
/// without its victims): the first failure in profile order. PreFilter runs again on the
/// input without those pods, which leaves each plugin the state upstream's `RemovePod` and
/// `AddPod` extensions update the cycle's to; what PreFilter decides for the pod itself
/// (a rejection, the nodes it names) was settled by the cycle, before any node was examined.
pub(crate) fn filter_node(input: Input<'_>, profile: &Profile, node: usize) -> DryRunFilter {
    let mut plugins = Plugins::new(input, profile);
    let pre_filter = run_pre_filter(&mut plugins, &profile.pre_filter);
    // SelectVictimsOnNode filters through RunFilterPluginsWithNominatedPods too: the pods
    // nominated to the node count first.
    if let Some(pods) = nominated_pods(input).get(&node) {
        let nominated = nominated_pass(input, profile, &pre_filter.skipped, node, pods);
        if let Some(ReportedStatus {
            plugin: Some(plugin),
            code,
            reason,
            ..
        }) = nominated.reported
        {
            let reasons = reason
                .split(", ")
                .map(|r| std::borrow::Cow::Owned(r.to_string()))
                .collect();
            return DryRunFilter::Fails(plugin, Status { code, reasons });
        }
    }
    for name in &profile.filter {
        if pre_filter.skipped.contains(name) {
            continue;
        }
        let Some(plugin) = plugins.get(name) else {
            return DryRunFilter::NotEvaluated(name.clone());
        };
        if let Some(status) = plugin.filter_node(node) {
            return DryRunFilter::Fails(name.clone(), status);
        }
    }
    DryRunFilter::Fits
}

#[cfg(test)]
mod tests {
    use crate::scheduler::config::FeatureGates;
    use crate::scheduler::profile::Profile;
    use crate::scheduler::testing::evaluate_with;
    use crate::scheduler::{
        Code, FilterDetails, FilterResult, PluginId, ScoreDetails, ScoreResult, Scoring, Verdict,
    };
    use serde_json::json;

    /// A node with `cpu` allocatable (8Gi memory, 110 pods) and no labels.
    fn cpu_node(name: &str, cpu: &str) -> serde_json::Value {
        serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
               "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}})
    }

    /// A pod requesting one cpu.
    fn one_cpu_pod() -> serde_json::Value {
        serde_json::json!({"metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "x",
                "resources": {"requests": {"cpu": "1"}}}]}})
    }

    /// Each node reads its own row of the entry tables, in profile order, with the shared
    /// entries (skipped, not evaluated) in their places; a candidate's score row is its place
    /// among the candidates, not among the nodes.
    #[test]
    fn entries_are_each_nodes_own_row_in_profile_order() {
        let items = json!([
            cpu_node("a", "4"),
            cpu_node("b", "100m"),
            cpu_node("c", "8")
        ]);
        let pod = one_cpu_pod();
        let mut profile = Profile::default_profile(FeatureGates::default());
        profile.filter.insert(2, PluginId::named("Coscheduling"));
        let eval = evaluate_with(items, pod, &profile);
        let fit_cpu = |f: FilterResult| match f.details {
            Some(FilterDetails::NodeResourcesFit(d)) => Some(d.resources[0].allocatable),
            _ => None,
        };
        let score_cpu = |s: ScoreResult| match s.details {
            Some(ScoreDetails::NodeResourcesFit(d)) => Some(d.resources[0].allocatable),
            _ => None,
        };
        let mut seen = Vec::new();
        for n in &eval.nodes {
            let names: Vec<PluginId> = n.filters.iter().map(|f| f.plugin.clone()).collect();
            assert_eq!(names, profile.filter, "{}", n.name);
            assert_eq!(n.filters.len(), profile.filter.len());
            let cosched = n.filters.iter().nth(2).expect("third entry");
            assert!(
                !cosched.evaluated() && cosched.pass.is_none(),
                "{cosched:?}"
            );
            let volume = n
                .filters
                .iter()
                .find(|f| *f.plugin == PluginId::VolumeBinding);
            assert!(volume.is_some_and(|f| f.skipped), "{volume:?}");
            let cpu = n.filters.iter().find_map(fit_cpu);
            let scores: Vec<&PluginId> = n.scores.iter().map(|s| s.plugin).collect();
            let score = n.scores.iter().find_map(score_cpu);
            seen.push((n.name.to_string(), cpu, scores.len(), score));
        }
        let all = profile.score.len();
        assert_eq!(
            seen,
            vec![
                ("a".to_string(), Some(4000), all, Some(4000)),
                ("b".to_string(), Some(100), 0, None),
                ("c".to_string(), Some(8000), all, Some(8000)),
            ]
        );
    }

    /// A Score plugin that fails has one shared entry, not evaluated, with upstream's error,
    /// in its place among each candidate's own rows; it adds nothing to the totals.
    #[test]
    fn a_failed_score_column_is_one_shared_entry() {
        let items = json!([cpu_node("a", "4"), cpu_node("c", "8")]);
        let pod = one_cpu_pod();
        let mut profile = Profile::default_profile(FeatureGates::default());
        profile.node_resources_fit.resources.clear();
        let eval = evaluate_with(items, pod, &profile);
        assert_eq!(
            eval.errors,
            ["running Score plugins: plugin \"NodeResourcesFit\" failed with: resources not found"]
        );
        for n in &eval.nodes {
            let names: Vec<&PluginId> = n.scores.iter().map(|s| s.plugin).collect();
            let wanted: Vec<&PluginId> = profile.score.iter().map(|(p, _)| p).collect();
            assert_eq!(names, wanted, "{}", n.name);
            let fit = n
                .scores
                .iter()
                .find(|s| *s.plugin == PluginId::NodeResourcesFit);
            assert!(
                fit.is_some_and(|s| s.note() == Some("resources not found") && s.raw.is_none()),
                "{fit:?}"
            );
            let sum: i64 = n.scores.iter().filter_map(ScoreResult::weighted).sum();
            assert_eq!(n.total, Some(sum), "{}", n.name);
            assert!(!n.score_complete, "{}", n.name);
        }
    }

    /// The status the scheduler records for a node is its first failure in profile order,
    /// uncertain when a plugin that runs before it was not evaluated; each failing plugin
    /// still has its own entry.
    #[test]
    fn the_reported_status_is_the_first_failure_in_profile_order() {
        let mut cordoned = cpu_node("small-cordoned", "100m");
        cordoned["spec"] = serde_json::json!({"unschedulable": true});
        let items = serde_json::json!([cordoned, cpu_node("small", "100m")]);
        let reported = |unknown_at: usize| {
            let mut profile = Profile::default_profile(FeatureGates::default());
            profile
                .filter
                .insert(unknown_at, PluginId::named("Coscheduling"));
            let eval = evaluate_with(items.clone(), one_cpu_pod(), &profile);
            eval.nodes
                .iter()
                .map(|n| {
                    let failed: Vec<String> = n
                        .filters
                        .iter()
                        .filter(|f| f.pass == Some(false))
                        .map(|f| f.plugin.to_string())
                        .collect();
                    let r = n.reported.as_ref().expect("rejected");
                    let plugin = format!(
                        "{} {:?}",
                        r.plugin.as_ref().map_or("", PluginId::as_str),
                        r.code
                    );
                    (n.name.to_string(), plugin, r.uncertain, failed)
                })
                .collect::<Vec<_>>()
        };
        let cordon_at = Profile::default_profile(FeatureGates::default())
            .filter
            .iter()
            .position(|p| *p == PluginId::NodeUnschedulable)
            .expect("in the default profile");
        let both = ["NodeUnschedulable", "NodeResourcesFit"];
        let fit = ["NodeResourcesFit"];
        // Both unresolvable: cordoned, and a request above the node's allocatable.
        let unresolvable = format!("NodeUnschedulable {:?}", Code::UnschedulableAndUnresolvable);
        let too_small = format!("NodeResourcesFit {:?}", Code::UnschedulableAndUnresolvable);
        let row = |name: &str, plugin: &str, uncertain: bool, failed: &[&str]| {
            let failed = failed.iter().map(|f| f.to_string()).collect::<Vec<_>>();
            (name.to_string(), plugin.to_string(), uncertain, failed)
        };
        // Not evaluated before every plugin: whatever fails first is uncertain.
        assert_eq!(
            reported(0),
            [
                row("small-cordoned", &unresolvable, true, &both),
                row("small", &too_small, true, &fit)
            ]
        );
        // Not evaluated after NodeUnschedulable, before NodeResourcesFit.
        assert_eq!(
            reported(cordon_at + 1),
            [
                row("small-cordoned", &unresolvable, false, &both),
                row("small", &too_small, true, &fit)
            ]
        );
    }

    /// A score plugin that is not evaluated leaves every candidate's score incomplete; a
    /// rejected node has no score to be incomplete.
    #[test]
    fn score_completeness_per_node() {
        let items = json!([cpu_node("big", "4"), cpu_node("small", "100m")]);
        let pod = one_cpu_pod();
        let complete = |profile: &Profile| -> Vec<(String, Verdict, bool)> {
            evaluate_with(items.clone(), pod.clone(), profile)
                .nodes
                .iter()
                .map(|n| (n.name.to_string(), n.verdict, n.score_complete))
                .collect()
        };
        let mut profile = Profile::default_profile(FeatureGates::default());
        let expected = |big: bool| {
            vec![
                ("big".to_string(), Verdict::Feasible, big),
                ("small".to_string(), Verdict::Infeasible, true),
            ]
        };
        assert_eq!(complete(&profile), expected(true));
        profile.score.push((PluginId::named("Coscheduling"), 1));
        assert_eq!(complete(&profile), expected(false));
    }

    /// A pod whose preferred node-affinity term fails NodeAffinity's PreScore (a Gt value
    /// that is not a valid label value), requesting one cpu.
    fn prescore_error_pod() -> serde_json::Value {
        json!({"metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "x",
                "resources": {"requests": {"cpu": "1"}}}],
                "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 1, "preference": {"matchExpressions": [
                        {"key": "tier", "operator": "Gt", "values": ["-1"]}]}}]}}}})
    }

    /// `schedulePod`: with one feasible node PreScore and Score do not run, so their errors
    /// are not the cycle's; the scores are still computed, for reference.
    #[test]
    fn one_feasible_node_is_not_scored() {
        let items = json!([cpu_node("big", "4"), cpu_node("small", "100m")]);
        let eval = evaluate_with(
            items,
            prescore_error_pod(),
            &Profile::default_profile(FeatureGates::default()),
        );
        assert_eq!(eval.scoring, Scoring::NotRun);
        assert_eq!(eval.errors, Vec::<String>::new());
        let big = eval.nodes.iter().find(|n| &*n.name == "big").expect("big");
        assert!(big.total.is_some(), "scores kept for reference");
        let affinity = eval
            .pre_score
            .iter()
            .find(|p| p.plugin == PluginId::NodeAffinity);
        assert!(
            affinity.is_some_and(|p| p.result == "Error"),
            "{affinity:?}"
        );
    }

    /// With two feasible nodes the first PreScore error ends the cycle: Score does not run,
    /// so no Score error follows it.
    #[test]
    fn a_prescore_error_ends_the_cycle_before_score() {
        let items = json!([cpu_node("a", "4"), cpu_node("b", "4")]);
        let mut profile = Profile::default_profile(FeatureGates::default());
        // A Score error too, were Score to run.
        profile.node_resources_fit.resources.clear();
        let eval = evaluate_with(items, prescore_error_pod(), &profile);
        assert_eq!(eval.scoring, Scoring::StoppedAtPreScore);
        assert_eq!(eval.errors.len(), 1, "{:?}", eval.errors);
        assert!(
            eval.errors[0].starts_with("running PreScore plugin \"NodeAffinity\": "),
            "{:?}",
            eval.errors
        );
    }

    /// A node a PreFilter result left out has the status the framework makes, with no
    /// plugin: `node(s) didn't satisfy plugin(s) [NodeAffinity]`.
    #[test]
    fn a_node_left_out_by_prefilter_has_no_plugin() {
        let items = json!([cpu_node("a", "4"), cpu_node("b", "4")]);
        let pod = json!({"metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "x"}],
                "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchFields": [
                        {"key": "metadata.name", "operator": "In", "values": ["a"]}]}]}}}}});
        let eval = evaluate_with(
            items,
            pod,
            &Profile::default_profile(FeatureGates::default()),
        );
        let b = eval.nodes.iter().find(|n| &*n.name == "b").expect("b");
        let r = b.reported.as_ref().expect("left out");
        assert_eq!(
            (r.plugin.as_ref(), r.code, &*r.reason),
            (
                None,
                Code::UnschedulableAndUnresolvable,
                "node(s) didn't satisfy plugin(s) [NodeAffinity]"
            )
        );
        let a = eval.nodes.iter().find(|n| &*n.name == "a").expect("a");
        assert_eq!(a.verdict, Verdict::Feasible);
    }

    /// A pending pod nominated to `node` with `priority`, requesting `cpu`, labelled `app`.
    fn nominated(name: &str, node: &str, priority: i32, cpu: &str) -> serde_json::Value {
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": {"app": name}},
            "spec": {"priority": priority, "containers": [{"name": "c", "image": "x",
                "resources": {"requests": {"cpu": cpu}}}]},
            "status": {"phase": "Pending", "nominatedNodeName": node}})
    }

    /// `RunFilterPluginsWithNominatedPods`: a pod of equal or higher priority nominated to a
    /// node counts there in a first Filter pass, whose failure is recorded; one of lower
    /// priority, or a terminal one, does not count.
    #[test]
    fn nominated_pods_of_equal_or_higher_priority_occupy_their_node() {
        let mut done = nominated("done", "b", 10, "3");
        done["status"]["phase"] = json!("Failed");
        let items = json!([
            cpu_node("a", "4"),
            cpu_node("b", "4"),
            cpu_node("c", "4"),
            nominated("preemptor", "a", 0, "3"),
            done,
            nominated("lower", "c", -1, "3"),
        ]);
        let mut pod = one_cpu_pod();
        pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = json!("2");
        let profile = Profile::default_profile(FeatureGates::default());
        let eval = evaluate_with(items, pod, &profile);
        let node = |name: &str| eval.nodes.iter().find(|n| &*n.name == name).expect(name);
        let a = node("a");
        let r = a
            .reported
            .as_ref()
            .expect("rejected with the nominated pod");
        assert_eq!(
            (r.plugin.as_ref(), r.code, &*r.reason),
            (
                Some(&PluginId::NodeResourcesFit),
                Code::Unschedulable,
                "Insufficient cpu"
            )
        );
        let with = a.nominated.as_ref().expect("nominated pods on a");
        let pods: Vec<String> = with.pods.iter().map(|p| p.to_string()).collect();
        assert_eq!(pods, ["default/preemptor"]);
        // Without them the node passes every Filter.
        assert!(a.filters.iter().all(|f| f.pass != Some(false)));
        for name in ["b", "c"] {
            assert_eq!(node(name).verdict, Verdict::Feasible, "{name}");
            assert!(node(name).nominated.is_none(), "{name}");
        }
        // The one-node function says the same.
        let state = crate::state::read_snapshot_str(
            &json!({"apiVersion": "v1", "kind": "List", "items": [
                cpu_node("a", "4"), nominated("preemptor", "a", 0, "3")]})
            .to_string(),
            "t",
        )
        .expect("snapshot");
        let filter = |cpu: &str| {
            let mut pod = one_cpu_pod();
            pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = json!(cpu);
            let api: k8s_openapi::api::core::v1::Pod = serde_json::from_value(pod).expect("pod");
            let pod = crate::state::Pod::from_api(&api);
            let input = crate::scheduler::Input {
                pod: &pod,
                state: &state,
                exclude: None,
                removed: &[],
            };
            super::filter_with_nominated_pods(input, &profile, 0).map(|r| r.reason.to_string())
        };
        assert_eq!(filter("1"), None);
        assert_eq!(filter("2").as_deref(), Some("Insufficient cpu"));
    }

    /// The second pass, without the nominated pods, must pass too: a pod whose required
    /// affinity only the nominated pod satisfies is rejected (upstream's conservative
    /// decision), with the entries of the first pass kept.
    #[test]
    fn both_passes_must_pass() {
        let mut a = cpu_node("a", "4");
        a["metadata"]["labels"] = json!({"kubernetes.io/hostname": "a"});
        let items = json!([a, nominated("db", "a", 0, "1")]);
        let mut pod = one_cpu_pod();
        pod["spec"]["affinity"] = json!({"podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchLabels": {"app": "db"}},
                "topologyKey": "kubernetes.io/hostname"}]}});
        let eval = evaluate_with(
            items,
            pod,
            &Profile::default_profile(FeatureGates::default()),
        );
        let a = &eval.nodes[0];
        let with = a.nominated.as_ref().expect("nominated pods on a");
        assert!(with.reported.is_none(), "{:?}", with.reported);
        let r = a.reported.as_ref().expect("rejected without them");
        assert_eq!(r.plugin, Some(PluginId::InterPodAffinity));
        assert_eq!(a.verdict, Verdict::Infeasible);
    }

    /// `findNodesThatFitPod`: a pod's own nominated node that passes every Filter is taken
    /// unscored, though other nodes would pass too; one that fails leaves the cycle as usual.
    #[test]
    fn the_pod_s_own_nominated_node_is_tried_first() {
        let items = json!([
            cpu_node("a", "4"),
            cpu_node("b", "4"),
            cpu_node("c", "100m")
        ]);
        let profile = Profile::default_profile(FeatureGates::default());
        let with = |node: &str| {
            let mut pod = one_cpu_pod();
            pod["status"] = json!({"phase": "Pending", "nominatedNodeName": node});
            evaluate_with(items.clone(), pod, &profile)
        };
        let eval = with("b");
        assert_eq!(eval.scoring, Scoring::NotRun);
        assert_eq!(eval.nominated_node.as_deref(), Some("b"));
        let eval = with("c");
        assert_eq!(eval.scoring, Scoring::Ran);
        assert_eq!(eval.nominated_node, None);
    }
}
