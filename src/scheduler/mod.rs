//! Pure evaluation: the scheduling cycle of one pod against a cluster state, mirroring
//! kube-scheduler's framework (PreFilter, Filter, PreScore, Score, NormalizeScore), one file
//! per upstream plugin.
//!
//! Unlike the scheduler, every Filter plugin runs on every node, so a user sees all the
//! reasons a node is rejected; the result still marks the one status the scheduler itself
//! would record. Nothing here touches a client, a terminal or a clock.

pub mod balanced_allocation;
pub mod config;
pub mod default_preemption;
pub mod image_locality;
pub mod inter_pod_affinity;
pub mod needs;
pub mod node_affinity;
pub mod node_name;
pub mod node_ports;
pub mod node_resources_fit;
pub mod node_unschedulable;
pub mod pod_topology_spread;
pub mod profile;
pub mod storage;
pub mod taint_toleration;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Serialize;

use crate::state::{ClusterState, Node, Pod};
use profile::Profile;

/// Upstream's `MaxNodeScore`.
pub const MAX_NODE_SCORE: i64 = 100;

/// A framework status code, as kube-scheduler names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Code {
    /// Preemption might help.
    Unschedulable,
    /// Preemption cannot help.
    UnschedulableAndUnresolvable,
    /// The plugin failed; the scheduling attempt ends with an error.
    Error,
}

/// A non-success status: its code and upstream's reason strings, verbatim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Status {
    pub code: Code,
    /// Mostly upstream's constant reasons, which every rejected node then names without a
    /// copy of its own.
    pub reasons: Vec<Cow<'static, str>>,
}

impl Status {
    pub fn new(code: Code, reason: impl Into<Cow<'static, str>>) -> Status {
        Status {
            code,
            reasons: vec![reason.into()],
        }
    }

    /// The reasons joined the way the oracle and `kubectl describe` show them (a constant
    /// reason stays borrowed).
    pub fn message(&self) -> Cow<'static, str> {
        match self.reasons.as_slice() {
            [one] => one.clone(),
            many => Cow::Owned(many.join(", ")),
        }
    }
}

/// What a plugin's PreFilter decided for the pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreFilterOutcome {
    /// The plugin is irrelevant for this pod: its Filter does not run, every node passes it.
    Skip,
    /// Proceed; `Some(names)` restricts the candidate nodes (a PreFilterResult).
    Proceed(Option<BTreeSet<String>>),
    /// The pod is rejected before any Filter runs.
    Reject(Status),
}

/// What a plugin's PreScore decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreScoreOutcome {
    Skip,
    Proceed,
    /// The scheduling attempt fails with this error.
    Error(String),
}

/// The pod being placed and the cluster it meets.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    pub pod: &'a Pod,
    pub state: &'a ClusterState,
    /// An existing pod to leave out (the pod being explained, evaluated as if unscheduled).
    pub exclude: Option<usize>,
}

impl<'a> Input<'a> {
    /// The existing pods (index, pod, node index), minus the excluded one.
    pub fn existing_pods(&self) -> impl Iterator<Item = (usize, &'a Pod, usize)> + 'a {
        let exclude = self.exclude;
        let state = self.state;
        state
            .pods
            .iter()
            .enumerate()
            .filter(move |(i, _)| Some(*i) != exclude)
            .map(move |(i, p)| (i, p, state.pod_node[i]))
    }

    pub fn node(&self, i: usize) -> &'a Node {
        &self.state.nodes[i]
    }

    /// What the existing pods of node `i` hold, without the excluded pod.
    pub fn node_usage(&self, i: usize) -> std::borrow::Cow<'a, crate::state::NodeUsage> {
        let state = self.state;
        let usage = &state.node_usage[i];
        match self.exclude {
            Some(x) if state.pod_node.get(x) == Some(&i) => {
                let mut u = usage.clone();
                u.apply(&state.pods[x].template.resources, x, -1);
                std::borrow::Cow::Owned(u)
            }
            _ => std::borrow::Cow::Borrowed(usage),
        }
    }
}

/// A plugin's name on every node's entries. The plugins this version knows are named by
/// static strings, so that naming 5,000 nodes' twenty entries copies a pointer instead of
/// counting references (an atomic instruction each, half of the evaluate loop's own time).
pub type PluginName = Cow<'static, str>;

/// The name of `name` as shared by the entries: static when it is a plugin this version knows.
pub fn plugin_name(name: &str) -> PluginName {
    match profile::DEFAULT_PLUGINS.iter().find(|(n, _)| *n == name) {
        Some((n, _)) => Cow::Borrowed(n),
        None => Cow::Owned(name.to_string()),
    }
}

/// Said of a Filter whose PreFilter returned Skip.
pub const SKIPPED_FILTER_NOTE: &str =
    "PreFilter returned Skip: the scheduler does not run this Filter for the pod";
/// Said of a Score whose PreScore returned Skip.
pub const SKIPPED_SCORE_NOTE: &str =
    "PreScore returned Skip: the plugin adds nothing to any node's score";

/// One plugin's Filter verdict on one node, as read from the node's row: the plugin's part
/// (its name, and why it did not run) is kept once per column and the node's part (status,
/// details) once per row, so that 5,000 nodes do not each carry thirteen copies of the
/// former. The report lists these as they are (serialized with the reason joined and whether
/// it was evaluated), so that the explanation of 5,000 nodes is not copied to be shown.
#[derive(Debug, Clone, Copy)]
pub struct FilterResult<'a> {
    pub plugin: &'a str,
    /// `None` when the plugin was not evaluated.
    pub pass: Option<bool>,
    /// The plugin's own Filter status on this node (what upstream's Filter returns).
    pub status: Option<&'a Status>,
    /// PreFilter returned Skip: upstream never runs this Filter for the pod.
    pub skipped: bool,
    /// Why the plugin was not evaluated, when it was not.
    pub not_evaluated: Option<&'a str>,
    pub details: Option<&'a FilterDetails>,
}

impl<'a> FilterResult<'a> {
    /// The status's reasons joined as `kubectl describe` shows them; `None` when it passed.
    pub fn reason(self) -> Option<String> {
        self.status.map(|s| s.message().into_owned())
    }

    pub fn code(self) -> Option<Code> {
        self.status.map(|s| s.code)
    }

    pub fn evaluated(self) -> bool {
        self.not_evaluated.is_none()
    }

    /// Why it was not evaluated, or that its PreFilter skipped it.
    pub fn note(self) -> Option<&'a str> {
        self.not_evaluated
            .or(self.skipped.then_some(SKIPPED_FILTER_NOTE))
    }
}

/// A node's own part of a Filter entry, one per node in the column of a plugin that ran:
/// it passed when there is no status. Boxed status because most entries pass.
#[derive(Debug, Clone)]
pub struct FilterCell {
    pub status: Option<Box<Status>>,
    pub details: Option<FilterDetails>,
}

impl Cell for FilterCell {
    type View<'a> = FilterResult<'a>;

    fn view<'a>(head: &'a Head, cell: Option<&'a FilterCell>) -> FilterResult<'a> {
        FilterResult {
            plugin: &head.plugin,
            pass: match cell {
                Some(c) => Some(c.status.is_none()),
                None => head.not_evaluated.is_none().then_some(true),
            },
            status: cell.and_then(|c| c.status.as_deref()),
            skipped: head.skipped,
            not_evaluated: head.not_evaluated.as_deref(),
            details: cell.and_then(|c| c.details.as_ref()),
        }
    }
}

/// How the report writes a [`FilterResult`]: the status as its joined reason and code, and
/// whether the plugin was evaluated, with a note when it was not or was skipped.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FilterEntry<'a> {
    plugin: &'a str,
    /// `None` (null) when the plugin was not evaluated.
    pass: Option<bool>,
    reason: Option<Cow<'static, str>>,
    code: Option<Code>,
    skipped: bool,
    evaluated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<&'a FilterDetails>,
}

impl Serialize for FilterResult<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        FilterEntry {
            plugin: self.plugin,
            pass: self.pass,
            reason: self.status.map(Status::message),
            code: self.code(),
            skipped: self.skipped,
            evaluated: self.evaluated(),
            note: self.note(),
            details: self.details,
        }
        .serialize(s)
    }
}

/// Per-plugin typed details of a Filter verdict.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum FilterDetails {
    NodeUnschedulable(node_unschedulable::Details),
    NodeName(node_name::Details),
    TaintToleration(taint_toleration::FilterDetails),
    /// Shared by the nodes with equal values for the keys it reads.
    NodeAffinity(Arc<node_affinity::FilterDetails>),
    InterPodAffinity(Box<inter_pod_affinity::FilterDetails>),
    PodTopologySpread(Box<pod_topology_spread::FilterDetails>),
    NodeResourcesFit(Box<node_resources_fit::FilterDetails>),
    NodePorts(Box<node_ports::FilterDetails>),
}

/// Per-plugin typed details of a score.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum ScoreDetails {
    TaintToleration(taint_toleration::ScoreDetails),
    /// Shared by the candidates with equal values for the keys it reads.
    NodeAffinity(Arc<node_affinity::ScoreDetails>),
    InterPodAffinity(inter_pod_affinity::ScoreDetails),
    PodTopologySpread(pod_topology_spread::ScoreDetails),
    NodeResourcesFit(node_resources_fit::ScoreDetails),
    BalancedAllocation(balanced_allocation::ScoreDetails),
    /// Shared by the candidates that have the same of the pod's images.
    ImageLocality(Arc<image_locality::ScoreDetails>),
}

/// One plugin's score for one candidate node, as read from the node's row (the plugin's
/// part kept once per column, as for [`FilterResult`]); listed by the report as it is.
#[derive(Debug, Clone, Copy)]
pub struct ScoreResult<'a> {
    pub plugin: &'a str,
    pub weight: i64,
    /// `None` when not evaluated or skipped.
    pub raw: Option<i64>,
    /// After NormalizeScore (0..=100); 0 when PreScore skipped.
    pub normalized: Option<i64>,
    pub skipped: bool,
    pub not_evaluated: Option<&'a str>,
    pub details: Option<&'a ScoreDetails>,
}

impl<'a> ScoreResult<'a> {
    /// The normalized score times the weight (0 when PreScore skipped).
    pub fn weighted(self) -> Option<i64> {
        self.normalized.map(|n| n * self.weight)
    }

    pub fn evaluated(self) -> bool {
        self.not_evaluated.is_none()
    }

    /// Why it was not evaluated, or that its PreScore skipped it.
    pub fn note(self) -> Option<&'a str> {
        self.not_evaluated
            .or(self.skipped.then_some(SKIPPED_SCORE_NOTE))
    }
}

/// A candidate's own part of a Score entry, one per candidate in the column of a plugin
/// that scored them all.
#[derive(Debug, Clone)]
pub struct ScoreCell {
    pub raw: i64,
    /// After NormalizeScore (0..=100).
    pub normalized: i64,
    pub details: Option<ScoreDetails>,
}

impl Cell for ScoreCell {
    type View<'a> = ScoreResult<'a>;

    fn view<'a>(head: &'a Head, cell: Option<&'a ScoreCell>) -> ScoreResult<'a> {
        ScoreResult {
            plugin: &head.plugin,
            weight: head.weight,
            raw: cell.map(|c| c.raw),
            normalized: match cell {
                Some(c) => Some(c.normalized),
                None => head.skipped.then_some(0),
            },
            skipped: head.skipped,
            not_evaluated: head.not_evaluated.as_deref(),
            details: cell.and_then(|c| c.details.as_ref()),
        }
    }
}

/// How the report writes a [`ScoreResult`]: with whether it was evaluated, and a note when
/// it was not or was skipped.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ScoreEntry<'a> {
    plugin: &'a str,
    raw: Option<i64>,
    normalized: Option<i64>,
    weight: i64,
    weighted: Option<i64>,
    skipped: bool,
    evaluated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<&'a ScoreDetails>,
}

impl Serialize for ScoreResult<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ScoreEntry {
            plugin: self.plugin,
            raw: self.raw,
            normalized: self.normalized,
            weight: self.weight,
            weighted: self.weighted(),
            skipped: self.skipped,
            evaluated: self.evaluated(),
            note: self.note(),
            details: self.details,
        }
        .serialize(s)
    }
}

/// A plugin's PreFilter outcome, for the report.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreFilterReport {
    pub plugin: String,
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
    pub plugin: String,
    /// "Success", "Skip", "Error" or "NotEvaluated".
    pub result: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Whether a node can take the pod, as far as the evaluated plugins tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// Every enabled Filter plugin was evaluated and passed.
    Feasible,
    /// Rejected (by PreFilter or a Filter plugin).
    Infeasible,
    /// Every evaluated plugin passed, but some enabled Filter plugin was not evaluated.
    Unknown,
}

/// The status the scheduler itself records for a node: the first failure in profile order.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportedStatus {
    pub plugin: PluginName,
    pub code: Code,
    pub reason: Cow<'static, str>,
    /// True when an enabled plugin that runs before this one was not evaluated, so the
    /// scheduler might report that plugin instead.
    pub uncertain: bool,
}

/// The entries of every node for one extension point (Filter or Score), stored by plugin:
/// each plugin has a head, the part of its entry that is the same on every node, and a
/// plugin that ran has a column with a cell per node. Nodes read their row through
/// [`Entries`]; nothing is copied per node. At 5,000 nodes a list per node was 8,700
/// allocations and 5.7 MB written twice (columns, then rows); whole entries in the columns
/// were 80 bytes (Filter) and 128 (Score) where a cell is 32 and 56, the rest the head's copy.
#[derive(Debug)]
pub struct EntryTable<C> {
    /// Profile order.
    heads: Vec<Head>,
    columns: Vec<Vec<C>>,
}

/// The part of a plugin's entry that is the same on every node.
#[derive(Debug)]
pub struct Head {
    plugin: PluginName,
    /// Score plugins only; 0 for Filter.
    weight: i64,
    /// Its PreFilter or PreScore returned Skip.
    skipped: bool,
    /// Why the plugin was not evaluated, when it was not.
    not_evaluated: Option<Arc<str>>,
    /// The plugin's column, when it ran.
    column: Option<usize>,
}

/// A node's own part of an entry, and how it reads as a whole entry with its plugin's head.
pub trait Cell: Sized {
    type View<'a>
    where
        Self: 'a;

    /// The entry of the plugin with this head: `cell` is the node's, `None` when the plugin
    /// did not run.
    fn view<'a>(head: &'a Head, cell: Option<&'a Self>) -> Self::View<'a>;
}

/// One node's entries for an extension point, in profile order: its row of an
/// [`EntryTable`] (none for the scores of a node that is not a candidate).
#[derive(Debug)]
pub struct Entries<C> {
    table: Option<Arc<EntryTable<C>>>,
    row: usize,
}

impl<C> Clone for Entries<C> {
    fn clone(&self) -> Self {
        Entries {
            table: self.table.clone(),
            row: self.row,
        }
    }
}

impl<C> Default for Entries<C> {
    fn default() -> Self {
        Entries {
            table: None,
            row: 0,
        }
    }
}

impl<C: Cell> Entries<C> {
    fn row(table: &Arc<EntryTable<C>>, row: usize) -> Self {
        Entries {
            table: Some(table.clone()),
            row,
        }
    }

    /// Every entry, in profile order.
    pub fn iter(&self) -> EntriesIter<'_, C> {
        EntriesIter {
            table: self.table.as_deref(),
            heads: self.table.as_ref().map_or(&[][..], |t| &t.heads).iter(),
            row: self.row,
        }
    }

    pub fn len(&self) -> usize {
        self.table.as_ref().map_or(0, |t| t.heads.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn first(&self) -> Option<C::View<'_>> {
        self.iter().next()
    }
}

/// The entries of one node in profile order: [`Entries::iter`].
#[derive(Debug)]
pub struct EntriesIter<'a, C> {
    table: Option<&'a EntryTable<C>>,
    heads: std::slice::Iter<'a, Head>,
    row: usize,
}

impl<'a, C: Cell> Iterator for EntriesIter<'a, C> {
    type Item = C::View<'a>;

    fn next(&mut self) -> Option<C::View<'a>> {
        let head = self.heads.next()?;
        let cell = head
            .column
            .and_then(|c| Some(&self.table?.columns[c][self.row]));
        Some(C::view(head, cell))
    }
}

impl<'a, C: Cell> IntoIterator for &'a Entries<C> {
    type Item = C::View<'a>;
    type IntoIter = EntriesIter<'a, C>;

    fn into_iter(self) -> EntriesIter<'a, C> {
        self.iter()
    }
}

/// Written as the list of every entry, as when each node held all its entries.
impl<C: Cell> Serialize for Entries<C>
where
    for<'a> C::View<'a>: Serialize,
{
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// Everything about one node.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeResult {
    pub name: Arc<str>,
    /// The node's position among all nodes' names (`ClusterState::name_rank`), to order the
    /// report without comparing names.
    #[serde(skip)]
    pub name_rank: u32,
    pub verdict: Verdict,
    /// `None` when the node passed every Filter (or none that failed was evaluated).
    pub reported: Option<ReportedStatus>,
    pub filters: Entries<FilterCell>,
    pub scores: Entries<ScoreCell>,
    /// Sum of weighted scores of the evaluated plugins; `None` for nodes that are not
    /// candidates.
    pub total: Option<i64>,
    /// Every score plugin was evaluated on this node (true for nodes that are not
    /// candidates). Kept here so that ranking 5,000 nodes does not walk their scores again.
    #[serde(skip)]
    pub score_complete: bool,
}

/// The result of evaluating one pod.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluation {
    pub pre_filter: Vec<PreFilterReport>,
    pub pre_score: Vec<PreScoreReport>,
    pub nodes: Vec<NodeResult>,
    /// Pod-level problems (a PreScore error, an invalid term) in upstream's words.
    pub errors: Vec<String>,
    /// Pod (anti-)affinity terms with their matching pods per topology domain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_terms: Option<inter_pod_affinity::TermTables>,
    /// PostFilter outcomes (only when no node can take the pod).
    pub post_filter: Vec<default_preemption::PostFilterReport>,
    /// Topology spread constraints with their per-domain counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topology_spread: Option<pod_topology_spread::SpreadTables>,
}

/// The scheduler-side interface every modelled plugin implements. Defaults describe a plugin
/// without that extension point.
pub(crate) trait Plugin {
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
    fn filter(&self, node: usize) -> (Option<Status>, Option<FilterDetails>);
    /// `filter` on nodes `0..nodes`, a cell each, appended to `out`. The loop is here, not in
    /// the caller, so that each plugin has its own copy with `filter` called directly and
    /// its result written in place: called through the trait object per node, each result
    /// went through the stack, and reading it back stalled (over a quarter of `evaluate`'s
    /// own time in the profile at 5,000 nodes).
    fn filter_all(&self, nodes: usize, out: &mut Vec<FilterCell>) {
        out.extend((0..nodes).map(|node| {
            let (status, details) = self.filter(node);
            FilterCell {
                status: status.map(Box::new),
                details,
            }
        }));
    }
    fn pre_score(&mut self, _candidates: &[usize]) -> PreScoreOutcome {
        PreScoreOutcome::Proceed
    }
    fn pre_score_disabled(&mut self) {}
    fn score(&self, _node: usize) -> Result<(i64, Option<ScoreDetails>), String> {
        Ok((0, None))
    }
    /// `score` on every candidate, a cell each (normalized left 0) appended to `out`, as
    /// `filter_all` does; stops at the first error, which upstream returns for the plugin.
    fn score_all(&self, candidates: &[usize], out: &mut Vec<ScoreCell>) -> Result<(), String> {
        for &node in candidates {
            let (raw, details) = self.score(node)?;
            out.push(ScoreCell {
                raw,
                normalized: 0,
                details,
            });
        }
        Ok(())
    }
    fn normalize(&self, _scores: &mut [i64]) {}
    /// Extra tables for the report (pod-affinity domains).
    fn term_tables(&mut self) -> Option<inter_pod_affinity::TermTables> {
        None
    }
    /// Extra tables for the report (topology spread domains).
    fn spread_tables(&self) -> Option<pod_topology_spread::SpreadTables> {
        None
    }
}

fn instantiate<'a>(
    name: &str,
    input: Input<'a>,
    profile: &'a Profile,
) -> Option<Box<dyn Plugin + 'a>> {
    Some(match name {
        "NodeUnschedulable" => Box::new(node_unschedulable::NodeUnschedulable::new(input)),
        "NodeName" => Box::new(node_name::NodeName::new(input)),
        "TaintToleration" => Box::new(taint_toleration::TaintToleration::new(
            input,
            &profile.gates,
        )),
        "NodeAffinity" => Box::new(node_affinity::NodeAffinity::new(
            input,
            &profile.node_affinity,
        )),
        "InterPodAffinity" => Box::new(inter_pod_affinity::InterPodAffinity::new(
            input,
            profile.inter_pod_affinity,
        )),
        "NodeResourcesFit" => Box::new(node_resources_fit::NodeResourcesFit::new(
            input,
            &profile.node_resources_fit,
            &profile.gates,
        )),
        "NodePorts" => Box::new(node_ports::NodePorts::new(input)),
        "NodeResourcesBalancedAllocation" => Box::new(
            balanced_allocation::BalancedAllocation::new(input, &profile.balanced_allocation),
        ),
        "ImageLocality" => Box::new(image_locality::ImageLocality::new(input)),
        "PodTopologySpread" => Box::new(pod_topology_spread::PodTopologySpread::new(
            input,
            &profile.pod_topology_spread,
            &profile.gates,
        )),
        other => match storage::Kind::from_name(other) {
            Some(kind) if kind.relevant(input.pod).is_none() => Box::new(storage::Skipped),
            _ => return None,
        },
    })
}

/// Upstream's error when a Filter or Score finds no state from its own PreFilter or PreScore
/// (that extension point disabled in the profile while the later one runs).
pub(crate) fn missing_cycle_state(point: &str, plugin: &str) -> String {
    format!(
        "reading \"{point}{plugin}\" from cycleState: not found ({plugin}'s {point} is disabled in the profile)"
    )
}

fn not_evaluated_reason(name: &str, pod: &Pod) -> String {
    match storage::Kind::from_name(name).and_then(|k| k.relevant(pod)) {
        Some(why) => format!(
            "{name} is not evaluated: {why}, and kubectl-affinity does not read the objects it checks"
        ),
        None => format!("{name} is not evaluated by this version of kubectl-affinity"),
    }
}

/// Runs the scheduling cycle for `input.pod` under `profile`.
pub fn evaluate(input: Input<'_>, profile: &Profile) -> Evaluation {
    let mut names: Vec<&str> = Vec::new();
    for n in profile
        .pre_filter
        .iter()
        .chain(&profile.filter)
        .chain(&profile.pre_score)
        .chain(profile.score.iter().map(|(n, _)| n))
    {
        if !names.contains(&n.as_str()) {
            names.push(n);
        }
    }
    // Not-evaluated reasons are shared by every node's entries.
    let mut unavailable: std::collections::BTreeMap<String, Arc<str>> = Default::default();
    let mut plugins: Vec<(&str, Box<dyn Plugin + '_>)> = names
        .iter()
        .filter_map(|n| instantiate(n, input, profile).map(|p| (*n, p)))
        .filter(|(n, p)| match p.unavailable() {
            Some(why) => {
                unavailable.insert(n.to_string(), why.into());
                false
            }
            None => true,
        })
        .collect();
    // Why each plugin without an instance is not evaluated, worded once, not once per node.
    for n in &names {
        if !plugins.iter().any(|(p, _)| p == n) && !unavailable.contains_key(*n) {
            unavailable.insert(n.to_string(), not_evaluated_reason(n, input.pod).into());
        }
    }
    let why_not_evaluated = |name: &str| unavailable.get(name).cloned().unwrap_or_default();
    let plugin = |plugins: &[(&str, Box<dyn Plugin + '_>)], name: &str| {
        plugins.iter().position(|(n, _)| *n == name)
    };

    // PreFilter, in profile order. An UnschedulableAndUnresolvable rejection ends PreFilter
    // (and the cycle); an Unschedulable one lets the rest run, as RunPreFilterPlugins does.
    let mut pre_filter = Vec::new();
    let mut skipped: BTreeSet<String> = BTreeSet::new();
    let mut rejection: Option<(String, Status)> = None;
    let mut narrowed: Option<BTreeSet<String>> = None;
    let mut narrowed_by: Vec<String> = Vec::new();
    for name in &profile.pre_filter {
        if matches!(&rejection, Some((_, s)) if s.code != Code::Unschedulable) {
            break;
        }
        let Some(i) = plugin(&plugins, name) else {
            pre_filter.push(PreFilterReport {
                plugin: name.clone(),
                result: "NotEvaluated",
                node_names: None,
                status: None,
            });
            continue;
        };
        let outcome = plugins[i].1.pre_filter();
        let (result, node_names, status) = match outcome {
            PreFilterOutcome::Skip => {
                skipped.insert(name.clone());
                ("Skip", None, None)
            }
            PreFilterOutcome::Proceed(None) => ("Success", None, None),
            PreFilterOutcome::Proceed(Some(set)) => {
                narrowed_by.push(name.clone());
                let merged: BTreeSet<String> = match narrowed.take() {
                    Some(prev) => prev.intersection(&set).cloned().collect(),
                    None => set.clone(),
                };
                if merged.is_empty() && rejection.is_none() {
                    let mut by = narrowed_by.clone();
                    by.sort();
                    let msg = if by.len() == 1 {
                        format!("node(s) didn't satisfy plugin {}", by[0])
                    } else {
                        format!(
                            "node(s) didn't satisfy plugin(s) [{}] simultaneously",
                            by.join(" ")
                        )
                    };
                    rejection = Some((
                        name.clone(),
                        Status::new(Code::UnschedulableAndUnresolvable, msg),
                    ));
                }
                narrowed = Some(merged);
                ("Success", Some(set.into_iter().collect()), None)
            }
            PreFilterOutcome::Reject(status) => {
                if rejection
                    .as_ref()
                    .is_none_or(|(_, s)| s.code == Code::Unschedulable)
                {
                    rejection = Some((name.clone(), status.clone()));
                }
                ("Rejected", None, Some(status))
            }
        };
        pre_filter.push(PreFilterReport {
            plugin: name.clone(),
            result,
            node_names,
            status,
        });
    }
    for (name, p) in plugins.iter_mut() {
        if !profile.pre_filter.iter().any(|n| n == name) {
            p.pre_filter_disabled();
        }
    }

    // Filter: every plugin on every node. What does not depend on the node is decided once:
    // each plugin's head (its name, whether it was skipped or not evaluated) is made once;
    // each plugin that runs fills a column, a cell per node.
    let mut heads: Vec<Head> = Vec::with_capacity(profile.filter.len());
    // The plugin that fills each column.
    let mut column_plugin: Vec<usize> = Vec::new();
    for name in &profile.filter {
        let (skipped, not_evaluated, column) = match plugin(&plugins, name) {
            None => (false, Some(why_not_evaluated(name)), None),
            Some(_) if skipped.contains(name) => (true, None, None),
            Some(plugin) => {
                column_plugin.push(plugin);
                (false, None, Some(column_plugin.len() - 1))
            }
        };
        heads.push(Head {
            plugin: plugin_name(name),
            weight: 0,
            skipped,
            not_evaluated,
            column,
        });
    }
    let node_count = input.state.nodes.len();
    let columns: Vec<Vec<FilterCell>> = column_plugin
        .iter()
        .map(|&p| {
            let mut column = Vec::with_capacity(node_count);
            plugins[p].1.filter_all(node_count, &mut column);
            column
        })
        .collect();
    // A node's recorded status is its first failure in profile order, uncertain when a
    // plugin before it was not evaluated; which plugins those are is the same on every node.
    let mut unevaluated_before = false;
    let ran: Vec<(&Head, &[FilterCell], bool)> = heads
        .iter()
        .filter_map(|h| {
            unevaluated_before |= h.not_evaluated.is_some();
            Some((h, columns[h.column?].as_slice(), unevaluated_before))
        })
        .collect();
    let any_unevaluated = heads.iter().any(|h| h.not_evaluated.is_some());
    let mut nodes: Vec<NodeResult> = Vec::with_capacity(node_count);
    for (ni, node) in input.state.nodes.iter().enumerate() {
        let mut reported = ran.iter().find_map(|&(head, column, uncertain)| {
            let s = column[ni].status.as_deref()?;
            Some(ReportedStatus {
                plugin: head.plugin.clone(),
                code: s.code,
                reason: s.message(),
                uncertain,
            })
        });
        // What the framework records when PreFilter already decided.
        if let Some((plugin, status)) = &rejection {
            reported = Some(ReportedStatus {
                plugin: plugin_name(plugin),
                code: status.code,
                reason: status.message(),
                uncertain: false,
            });
        } else if let Some(set) = &narrowed
            && !set.contains(&node.name)
        {
            let mut by = narrowed_by.clone();
            by.sort();
            reported = Some(ReportedStatus {
                plugin: Cow::Owned(by.join(",")),
                code: Code::UnschedulableAndUnresolvable,
                reason: format!("node(s) didn't satisfy plugin(s) [{}]", by.join(" ")).into(),
                uncertain: false,
            });
        }
        let verdict = if reported.is_some() {
            Verdict::Infeasible
        } else if any_unevaluated {
            Verdict::Unknown
        } else {
            Verdict::Feasible
        };
        nodes.push(NodeResult {
            name: input
                .state
                .node_names
                .get(ni)
                .cloned()
                .unwrap_or_else(|| Arc::from(node.name.as_str())),
            name_rank: input.state.name_rank.get(ni).copied().unwrap_or(u32::MAX),
            verdict,
            reported,
            filters: Entries::default(),
            scores: Entries::default(),
            total: None,
            score_complete: true,
        });
    }
    let filters = Arc::new(EntryTable { heads, columns });
    for (row, n) in nodes.iter_mut().enumerate() {
        n.filters = Entries::row(&filters, row);
    }

    // PreScore and Score over the candidates (nodes no evaluated plugin rejected).
    let candidates: Vec<usize> = nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.verdict != Verdict::Infeasible)
        .map(|(i, _)| i)
        .collect();
    let mut pre_score = Vec::new();
    let mut errors = Vec::new();
    let mut score_skipped: BTreeSet<String> = BTreeSet::new();
    for name in &profile.pre_score {
        let Some(i) = plugin(&plugins, name) else {
            pre_score.push(PreScoreReport {
                plugin: name.clone(),
                result: "NotEvaluated",
                error: None,
            });
            continue;
        };
        let (result, error) = match plugins[i].1.pre_score(&candidates) {
            PreScoreOutcome::Skip => {
                score_skipped.insert(name.clone());
                ("Skip", None)
            }
            PreScoreOutcome::Proceed => ("Success", None),
            PreScoreOutcome::Error(e) => {
                errors.push(format!("running PreScore plugin {name:?}: {e}"));
                ("Error", Some(e))
            }
        };
        pre_score.push(PreScoreReport {
            plugin: name.clone(),
            result,
            error,
        });
    }
    for (name, p) in plugins.iter_mut() {
        if !profile.pre_score.iter().any(|n| n == name) {
            p.pre_score_disabled();
        }
    }

    // Each plugin scores every candidate into a column, a cell per candidate; a plugin not
    // evaluated, skipped or failed has its head alone, the same entry on every candidate.
    let mut heads: Vec<Head> = Vec::with_capacity(profile.score.len());
    let mut columns: Vec<Vec<ScoreCell>> = Vec::new();
    for (name, weight) in &profile.score {
        let head = |not_evaluated: Option<Arc<str>>, skipped: bool, column: Option<usize>| Head {
            plugin: plugin_name(name),
            weight: *weight,
            skipped,
            not_evaluated,
            column,
        };
        let head = match plugin(&plugins, name) {
            None => head(Some(why_not_evaluated(name)), false, None),
            Some(_) if score_skipped.contains(name) => head(None, true, None),
            Some(pi) => {
                let mut column = Vec::with_capacity(candidates.len());
                match plugins[pi].1.score_all(&candidates, &mut column) {
                    Err(e) => {
                        errors.push(format!("running Score plugin {name:?}: {e}"));
                        head(Some(e.into()), false, None)
                    }
                    Ok(()) => {
                        let mut raws: Vec<i64> = column.iter().map(|c| c.raw).collect();
                        plugins[pi].1.normalize(&mut raws);
                        for (cell, normalized) in column.iter_mut().zip(raws) {
                            cell.normalized = normalized;
                        }
                        columns.push(column);
                        head(None, false, Some(columns.len() - 1))
                    }
                }
            }
        };
        heads.push(head);
    }
    // A head not evaluated makes every candidate's score incomplete; the weighted scores of
    // heads without a column (0 when skipped) count in every total.
    let alone = || {
        heads
            .iter()
            .filter(|h| h.column.is_none())
            .map(|h| ScoreCell::view(h, None))
    };
    let score_complete = alone().all(|e| e.evaluated());
    let mut totals = vec![alone().filter_map(|e| e.weighted()).sum::<i64>(); candidates.len()];
    for (head, column) in heads.iter().filter_map(|h| Some((h, &columns[h.column?]))) {
        for (total, cell) in totals.iter_mut().zip(column) {
            *total += cell.normalized * head.weight;
        }
    }
    let scores = Arc::new(EntryTable { heads, columns });
    for (row, (&c, total)) in candidates.iter().zip(totals).enumerate() {
        nodes[c].total = Some(total);
        nodes[c].scores = Entries::row(&scores, row);
        nodes[c].score_complete = score_complete;
    }
    let pod_terms = plugins.iter_mut().find_map(|(_, p)| p.term_tables());
    let post_filter = if nodes.iter().all(|n| n.verdict == Verdict::Infeasible) {
        default_preemption::post_filter(input, &profile.post_filter, &nodes)
    } else {
        Vec::new()
    };
    let topology_spread = plugins.iter().find_map(|(_, p)| p.spread_tables());
    Evaluation {
        pre_filter,
        pre_score,
        nodes,
        errors,
        pod_terms,
        post_filter,
        topology_spread,
    }
}

/// `FitError.Error()`'s first part: "0/N nodes are available: " then the PreFilter message, or
/// the histogram of reasons ("2 node(s) ..., 1 ..."; each reason of a multi-reason status
/// counted on its own; sorted as strings, so "10 x" sorts before "2 y" as upstream's does),
/// ending with ".". The PostFilter tail is appended by the caller.
pub fn fit_error_message<'a>(
    num_nodes: usize,
    pre_filter: Option<&str>,
    reasons: impl Iterator<Item = &'a str>,
) -> String {
    let mut msg = format!("0/{num_nodes} nodes are available:");
    if let Some(m) = pre_filter {
        msg.push_str(&format!(" {m}."));
        return msg;
    }
    let mut histogram: BTreeMap<&str, usize> = BTreeMap::new();
    for r in reasons {
        *histogram.entry(r).or_default() += 1;
    }
    let mut parts: Vec<String> = histogram
        .into_iter()
        .map(|(reason, count)| format!("{count} {reason}"))
        .collect();
    parts.sort();
    if !parts.is_empty() {
        msg.push_str(&format!(" {}.", parts.join(", ")));
    }
    msg
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

/// What plugin tests share: a whole evaluation from JSON objects.
#[cfg(test)]
pub(crate) mod testing {
    use super::{Evaluation, Input, evaluate};
    use crate::scheduler::config::FeatureGates;
    use crate::scheduler::profile::Profile;
    use crate::state::{Pod, read_snapshot_str};
    use serde_json::{Value, json};

    /// Evaluates `pod` (a Pod object) against the List of `items` under the default profile.
    pub(crate) fn evaluate_default(items: Value, pod: Value) -> Evaluation {
        evaluate_with(
            items,
            pod,
            &Profile::default_profile(FeatureGates::default()),
        )
    }

    /// The same under `profile`.
    pub(crate) fn evaluate_with(items: Value, pod: Value, profile: &Profile) -> Evaluation {
        let state = read_snapshot_str(
            &json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
            "test",
        )
        .expect("snapshot");
        let pod: k8s_openapi::api::core::v1::Pod = serde_json::from_value(pod).expect("pod");
        let pod = Pod::from_api(&pod);
        evaluate(
            Input {
                pod: &pod,
                state: &state,
                exclude: None,
            },
            profile,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{FilterResult, ScoreResult, default_normalize, plugin_name};
    use std::borrow::Cow;

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

    /// Each node reads its own row of the entry tables, in profile order, with the shared
    /// entries (skipped, not evaluated) in their places; a candidate's score row is its place
    /// among the candidates, not among the nodes.
    #[test]
    fn entries_are_each_nodes_own_row_in_profile_order() {
        use super::config::FeatureGates;
        use super::profile::Profile;
        use super::testing::evaluate_with;
        use super::{FilterDetails, ScoreDetails};
        use serde_json::json;
        let items = json!([
            cpu_node("a", "4"),
            cpu_node("b", "100m"),
            cpu_node("c", "8")
        ]);
        let pod = one_cpu_pod();
        let mut profile = Profile::default_profile(FeatureGates::default());
        profile.filter.insert(2, "Coscheduling".to_string());
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
            let names: Vec<&str> = n.filters.iter().map(|f| f.plugin).collect();
            assert_eq!(names, profile.filter, "{}", n.name);
            assert_eq!(n.filters.len(), profile.filter.len());
            let cosched = n.filters.iter().nth(2).expect("third entry");
            assert!(
                !cosched.evaluated() && cosched.pass.is_none(),
                "{cosched:?}"
            );
            let volume = n.filters.iter().find(|f| f.plugin == "VolumeBinding");
            assert!(volume.is_some_and(|f| f.skipped), "{volume:?}");
            let cpu = n.filters.iter().find_map(fit_cpu);
            let scores: Vec<&str> = n.scores.iter().map(|s| s.plugin).collect();
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
        use super::config::FeatureGates;
        use super::profile::Profile;
        use super::testing::evaluate_with;
        use serde_json::json;
        let items = json!([cpu_node("a", "4"), cpu_node("c", "8")]);
        let pod = one_cpu_pod();
        let mut profile = Profile::default_profile(FeatureGates::default());
        profile.node_resources_fit.resources.clear();
        let eval = evaluate_with(items, pod, &profile);
        assert_eq!(
            eval.errors,
            ["running Score plugin \"NodeResourcesFit\": resources not found"]
        );
        for n in &eval.nodes {
            let names: Vec<&str> = n.scores.iter().map(|s| s.plugin).collect();
            let wanted: Vec<&str> = profile.score.iter().map(|(p, _)| p.as_str()).collect();
            assert_eq!(names, wanted, "{}", n.name);
            let fit = n.scores.iter().find(|s| s.plugin == "NodeResourcesFit");
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
        use super::Code;
        use super::config::FeatureGates;
        use super::profile::Profile;
        use super::testing::evaluate_with;
        let mut cordoned = cpu_node("small-cordoned", "100m");
        cordoned["spec"] = serde_json::json!({"unschedulable": true});
        let items = serde_json::json!([cordoned, cpu_node("small", "100m")]);
        let reported = |unknown_at: usize| {
            let mut profile = Profile::default_profile(FeatureGates::default());
            profile
                .filter
                .insert(unknown_at, "Coscheduling".to_string());
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
                    let plugin = format!("{} {:?}", r.plugin, r.code);
                    (n.name.to_string(), plugin, r.uncertain, failed)
                })
                .collect::<Vec<_>>()
        };
        let cordon_at = Profile::default_profile(FeatureGates::default())
            .filter
            .iter()
            .position(|p| p == "NodeUnschedulable")
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
        use super::Verdict;
        use super::config::FeatureGates;
        use super::profile::Profile;
        use super::testing::evaluate_with;
        use serde_json::json;
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
        profile.score.push(("Coscheduling".to_string(), 1));
        assert_eq!(complete(&profile), expected(false));
    }

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
