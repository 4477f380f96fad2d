//! What the evaluation says of each node: its verdict, recorded status, and its Filter and
//! Score entries, each a row of a table stored by plugin (a column per plugin that ran).

use std::sync::Arc;

use crate::state::PodRef;

use super::details::{FilterDetails, ScoreDetails};
use super::plugin_id::PluginId;
use super::status::{Code, ReportedStatus, Status, Verdict};

/// Said of a Filter whose PreFilter returned Skip.
pub const SKIPPED_FILTER_NOTE: &str =
    "PreFilter returned Skip: the scheduler does not run this Filter for the pod";
/// Said of a Score whose PreScore returned Skip.
pub const SKIPPED_SCORE_NOTE: &str =
    "PreScore returned Skip: the plugin adds nothing to any node's score";

/// One plugin's Filter verdict on one node, as read from the node's row: the plugin's part
/// (its name, and why it did not run) is kept once per column and the node's part (status,
/// details) once per row, so that 5,000 nodes do not each carry thirteen copies of the
/// former. The report writes these as they are read, so that the explanation of 5,000 nodes
/// is not copied to be shown.
#[derive(Debug, Clone, Copy)]
pub struct FilterResult<'a> {
    pub plugin: &'a PluginId,
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

/// One plugin's score for one candidate node, as read from the node's row (the plugin's
/// part kept once per column, as for [`FilterResult`]); listed by the report as it is.
#[derive(Debug, Clone, Copy)]
pub struct ScoreResult<'a> {
    pub plugin: &'a PluginId,
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

/// The entries of every node for one extension point (Filter or Score), stored by plugin:
/// each plugin has a head, the part of its entry that is the same on every node, and a
/// plugin that ran has a column with a cell per node. Nodes read their row through
/// [`Entries`]; nothing is copied per node: a list per node would be an allocation per node
/// and every entry written twice (columns, then rows), and whole entries in the columns would
/// each carry a copy of their head.
#[derive(Debug)]
pub struct EntryTable<C> {
    /// Profile order.
    heads: Vec<Head>,
    columns: Vec<Vec<C>>,
}

/// How a plugin took part in an extension point.
#[derive(Debug)]
pub(crate) enum Run<C> {
    /// It ran: a cell per node.
    Ran(Vec<C>),
    /// Its PreFilter or PreScore returned Skip.
    Skipped,
    /// It was not evaluated, for this reason.
    NotEvaluated(Arc<str>),
}

impl<C> EntryTable<C> {
    pub(crate) fn with_capacity(plugins: usize) -> Self {
        EntryTable {
            heads: Vec::with_capacity(plugins),
            columns: Vec::new(),
        }
    }

    /// The next plugin's entries, in profile order.
    pub(crate) fn push(&mut self, plugin: PluginId, weight: i64, run: Run<C>) {
        let mut head = Head {
            plugin,
            weight,
            skipped: false,
            not_evaluated: None,
            column: None,
        };
        match run {
            Run::Ran(column) => {
                head.column = Some(self.columns.len());
                self.columns.push(column);
            }
            Run::Skipped => head.skipped = true,
            Run::NotEvaluated(why) => head.not_evaluated = Some(why),
        }
        self.heads.push(head);
    }

    /// Each plugin's head, with its column when it ran, in profile order.
    pub(crate) fn plugins(&self) -> impl Iterator<Item = (&Head, Option<&[C]>)> {
        self.heads
            .iter()
            .map(|h| (h, h.column.map(|c| self.columns[c].as_slice())))
    }
}

/// The part of a plugin's entry that is the same on every node.
#[derive(Debug)]
pub struct Head {
    pub(crate) plugin: PluginId,
    /// Score plugins only; 0 for Filter.
    pub(crate) weight: i64,
    /// Its PreFilter or PreScore returned Skip.
    skipped: bool,
    /// Why the plugin was not evaluated, when it was not.
    pub(crate) not_evaluated: Option<Arc<str>>,
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
    pub(crate) fn row(table: &Arc<EntryTable<C>>, row: usize) -> Self {
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

/// Everything about one node.
#[derive(Debug, Clone)]
pub struct NodeResult {
    pub name: Arc<str>,
    /// The node's position among all nodes' names (`ClusterState::name_rank`), to order the
    /// report without comparing names.
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
    pub score_complete: bool,
    /// The pods nominated to this node that the pod must yield to, and the Filter pass with
    /// them (`None` when there are none, or a PreFilter result left the node out).
    pub nominated: Option<Box<Nominated>>,
}

/// The pods nominated to a node that the pod must yield to, and the Filter plugins' entries on
/// the node with them counted there.
#[derive(Debug, Clone)]
pub struct Nominated {
    /// Pending pods nominated to the node (by an earlier preemption) whose priority is at
    /// least the pod's, in the order read.
    pub pods: Vec<Arc<PodRef>>,
    /// Every Filter plugin's entry on the node with those pods counted as running there.
    pub filters: Entries<FilterCell>,
    /// The first failure with them, in profile order: what the scheduler records when it
    /// fails.
    pub reported: Option<ReportedStatus>,
}
