//! The default output: a header, one row per node with a column per rule kind, and the
//! drill-down for `--node`. The layout, widths and colours are chosen here; each plugin's
//! cells and drill-down lines are its explanation's (`scheduler::explain`), read through the
//! registry without naming a plugin. Nothing is decided.

use std::io::Write;

use comfy_table::{ContentArrangement, Table, presets};
use owo_colors::OwoColorize;

use crate::report::{Explanation, NodeReport};
use crate::scheduler::explain::{self, Column, Mark, Paint as _, Section, Tables};
use crate::scheduler::{
    Code, PluginId, ReportedStatus, Scoring, Verdict, explain_of, explanations,
};

/// How the table is drawn.
#[derive(Debug, Clone, Default)]
pub struct TableOptions {
    pub color: bool,
    /// Nodes to drill into.
    pub nodes: Vec<String>,
    pub no_headers: bool,
    /// `-o wide`: score parts, rank and the scheduler's recorded reason as columns.
    pub wide: bool,
    /// List every node even on a big cluster.
    pub all_nodes: bool,
    /// Width to fit; `None` lets the table measure the terminal.
    pub width: Option<u16>,
}

struct Paint {
    on: bool,
}

impl explain::Paint for Paint {
    fn ok(&self, s: &str) -> String {
        if self.on {
            s.green().to_string()
        } else {
            s.to_string()
        }
    }
    fn bad(&self, s: &str) -> String {
        if self.on {
            s.red().to_string()
        } else {
            s.to_string()
        }
    }
    fn unknown(&self, s: &str) -> String {
        if self.on {
            s.yellow().to_string()
        } else {
            s.to_string()
        }
    }
}

impl Paint {
    fn bold(&self, s: &str) -> String {
        if self.on {
            s.bold().to_string()
        } else {
            s.to_string()
        }
    }
    fn verdict(&self, v: Verdict) -> String {
        let word = verdict_word(v);
        match v {
            Verdict::Feasible => self.ok(word),
            Verdict::Infeasible => self.bad(word),
            Verdict::Unknown => self.unknown(word),
        }
    }
}

/// A node's verdict in one word, the same in the table's FITS column and the drill-down.
fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Feasible => "✓ yes",
        Verdict::Infeasible => "✗ no",
        Verdict::Unknown => "? unknown",
    }
}

/// A table cell, coloured by its mark when colour is on: comfy-table styles it after the
/// layout, so escape codes never count as width.
fn styled(text: String, color: bool) -> comfy_table::Cell {
    let cell = comfy_table::Cell::new(&text);
    if !color {
        return cell;
    }
    match text.chars().next() {
        Some('✓') => cell.fg(comfy_table::Color::Green),
        Some('✗') => cell.fg(comfy_table::Color::Red),
        Some('?') => cell.fg(comfy_table::Color::Yellow),
        _ => cell,
    }
}

/// The rule columns, each filled by the plugins that declare it, with their headers.
const RULE_COLUMNS: [(Column, &str); 5] = [
    (Column::NodeAffinity, "NODE-AFF"),
    (Column::Taints, "TAINTS"),
    (Column::PodAffinity, "POD-AFF"),
    (Column::AntiAffinity, "ANTI"),
    (Column::Spread, "SPREAD"),
];

/// A rule column's cell: the parts of its plugins that fail or were not evaluated, joined;
/// when none does, the first part with words, else "✓"; "" when no plugin of the column
/// has an entry on the node.
fn rule_cell(column: Column, n: &NodeReport, tables: Tables<'_>) -> String {
    let node = n.entries();
    let parts: Vec<Mark> = explanations()
        .filter(|e| e.columns().contains(&column))
        .filter_map(|e| e.cell(column, node, tables))
        .collect();
    if parts.is_empty() {
        return String::new();
    }
    let against: Vec<&str> = parts
        .iter()
        .filter_map(|m| match m {
            Mark::Unknown => Some("?"),
            Mark::Fails(words) => Some(words.as_str()),
            Mark::Passes(_) => None,
        })
        .collect();
    if !against.is_empty() {
        return against.join(", ");
    }
    parts
        .iter()
        .find_map(|m| match m {
            Mark::Passes(Some(words)) => Some(words.clone()),
            _ => None,
        })
        .unwrap_or_else(|| "✓".into())
}

/// OTHER: every Filter without a column of its own that fails, in its few words, and how
/// many were not evaluated.
fn other_cell(n: &NodeReport) -> String {
    let mut parts = Vec::new();
    let mut unevaluated = 0;
    for f in &n.filters {
        let e = explain_of(f.plugin);
        if !e.columns().is_empty() {
            continue;
        }
        match f.pass {
            Some(false) => parts.push(e.failed(f)),
            None => unevaluated += 1,
            _ => {}
        }
    }
    if unevaluated > 0 {
        parts.push(format!("? {unevaluated} unchecked"));
    }
    if parts.is_empty() {
        "✓".into()
    } else {
        parts.join(", ")
    }
}

/// Above this many nodes the table shows the best candidates and groups the rest by reason
/// unless `--all-nodes` is given.
pub const GROUP_ABOVE: usize = 50;
/// How many candidates a grouped table lists.
const TOP: usize = 10;

/// A plugin's name in the score-parts column.
fn short_plugin(plugin: &PluginId) -> &str {
    explain_of(plugin)
        .short_name()
        .unwrap_or_else(|| plugin.as_str())
}

/// "taint 300 + nodeaff 200 + podaff ?" (weights applied; "?" not evaluated).
fn score_parts(n: &NodeReport) -> String {
    n.scores
        .iter()
        .filter(|s| !s.skipped)
        .map(|s| {
            let v = match (s.evaluated(), s.weighted()) {
                (true, Some(w)) => w.to_string(),
                _ => "?".to_string(),
            };
            format!("{} {v}", short_plugin(s.plugin))
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

fn header(out: &mut dyn Write, doc: &Explanation, p: &Paint) -> std::io::Result<()> {
    let s = &doc.summary;
    writeln!(out, "{} {}", p.bold("Pod"), doc.pod)?;
    for why in &s.not_scheduled {
        writeln!(out, "{}: {why}", p.bad("Not scheduled"))?;
    }
    if let Some(ds) = &doc.daemon_set {
        writeln!(
            out,
            "DaemonSet pods: would run on {} of {} nodes",
            ds.runs.len(),
            s.nodes
        )?;
        if !ds.pending.is_empty() {
            writeln!(
                out,
                "  created but Pending on: {}",
                p.bad(&ds.pending.join(", "))
            )?;
        }
        if !ds.not_created.is_empty() {
            writeln!(
                out,
                "  not created by the controller (node selector/affinity or taints): {}",
                ds.not_created.join(", ")
            )?;
        }
        if !ds.unknown.is_empty() {
            writeln!(
                out,
                "  unknown (a plugin was not evaluated): {}",
                p.unknown(&ds.unknown.join(", "))
            )?;
        }
    } else {
        let mut line = format!("Feasible: {} of {} nodes", s.feasible, s.nodes);
        if s.unknown > 0 {
            line.push_str(&format!(
                " ({} more pass every evaluated rule; see 'not evaluated' below)",
                s.unknown
            ));
        }
        writeln!(out, "{line}")?;
        if let Some(most) = &s.rejected_most {
            writeln!(out, "{most}")?;
        }
        let complete = doc
            .nodes
            .iter()
            .filter(|n| n.verdict != Verdict::Infeasible)
            .all(|n| n.score_complete && n.verdict == Verdict::Feasible);
        let best_parts = |name: &str| {
            doc.nodes
                .iter()
                .find(|n| &*n.name == name)
                .map(score_parts)
                .unwrap_or_default()
        };
        match s.selected.as_slice() {
            [] => {}
            [one] if s.scoring == Scoring::NotRun && s.feasible + s.unknown > 1 => writeln!(
                out,
                "Chosen: {one}, the pod's nominated node, tried first (the scheduler scores \
                 nothing)"
            )?,
            [one] if s.scoring == Scoring::NotRun => writeln!(
                out,
                "Chosen: {one}, the only feasible node (the scheduler scores nothing)"
            )?,
            [one] if !complete => writeln!(
                out,
                "Highest score so far: {one} ({}; some score plugins not evaluated)",
                best_parts(one)
            )?,
            [one] => writeln!(out, "Best node: {one} ({})", best_parts(one))?,
            many if !complete => writeln!(
                out,
                "Highest scores so far (tie; some score plugins not evaluated): {}",
                crate::scheduler::explain::few(many)
            )?,
            many => writeln!(
                out,
                "Best nodes (tie, the scheduler picks one at random): {}",
                crate::scheduler::explain::few(many)
            )?,
        }
    }
    if let Some(c) = &doc.current {
        let line = match (c.in_cluster, c.verdict) {
            (false, _) => format!(
                "Runs on: {} (not in the cluster state: the node is gone)",
                c.node
            ),
            (true, Some(Verdict::Infeasible)) => format!(
                "Runs on: {} (* below); {}: {} (rules are IgnoredDuringExecution, so it keeps running)",
                c.node,
                p.bad("would not be chosen today"),
                c.reasons.join("; ")
            ),
            (true, Some(Verdict::Unknown)) => format!(
                "Runs on: {} (* below); passes every evaluated rule today, rank {} of {}",
                c.node,
                c.rank.unwrap_or_default(),
                c.candidates
            ),
            (true, _) => format!(
                "Runs on: {} (* below); still satisfies every rule; rank {} of {} candidates{}",
                c.node,
                c.rank.unwrap_or_default(),
                c.candidates,
                if c.best { " (best)" } else { "" }
            ),
        };
        writeln!(out, "{line}")?;
    }
    if let Some(msg) = &s.failed_scheduling_message {
        let incomplete = s.failed_scheduling_message_complete == Some(false);
        writeln!(
            out,
            "FailedScheduling: {}{}",
            p.bad(msg),
            if incomplete {
                " [preemption part not evaluated, see notes]"
            } else {
                ""
            }
        )?;
    }
    for pf in &doc.post_filter {
        if let Some(pe) = &pf.preemption
            && let Some(node) = &pe.nominated_node
        {
            // A tie can span thousands of nodes: a few are named, the JSON has them all.
            const NAMED: usize = 5;
            let tie = match pe.tied_nodes.len() {
                0 => String::new(),
                n => {
                    let named: Vec<&str> = pe.tied_nodes.iter().take(NAMED).map(|n| &**n).collect();
                    let more = n.saturating_sub(NAMED);
                    let more = if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    };
                    format!(
                        "; tied with {}{more}, the scheduler picks one of them at random",
                        named.join(", ")
                    )
                }
            };
            writeln!(
                out,
                "Preemption: nominates {node}, evicting {} (picked by {} among {} candidate(s){tie})",
                pe.victims.join(", "),
                pe.picked_by.unwrap_or_default(),
                pe.candidates.len(),
            )?;
        }
        if let Some(note) = &pf.note {
            writeln!(out, "Note: {}: {note}", pf.plugin)?;
        }
    }
    if let Some(e) = &doc.scheduler_event {
        let verdict = if e.matches_computed {
            "same as computed"
        } else {
            "DIFFERS from computed, see note"
        };
        writeln!(out, "Scheduler's last event ({verdict}): {}", e.message)?;
    }
    for note in &doc.notes {
        writeln!(out, "Note: {note}")?;
    }
    for err in &doc.errors {
        writeln!(out, "Error: {}", p.bad(err))?;
    }
    writeln!(out)
}

/// Who recorded a node's status: its plugin, or for a node a PreFilter result left out (a
/// status with no plugin, whose reason names the PreFilter plugins) "PreFilter".
fn reporter(r: &ReportedStatus) -> &str {
    r.plugin.as_ref().map_or("PreFilter", PluginId::as_str)
}

/// The rows to list: every node, or on a big cluster the best candidates plus the nodes the
/// user asked about. Returns the indexes and whether some were left out.
fn rows_shown(doc: &Explanation, opts: &TableOptions) -> (Vec<usize>, bool) {
    if opts.all_nodes || doc.nodes.len() <= GROUP_ABOVE {
        return ((0..doc.nodes.len()).collect(), false);
    }
    let current = doc.current.as_ref().map(|c| c.node.as_str());
    let mut shown = Vec::new();
    let mut candidates = 0;
    for (i, n) in doc.nodes.iter().enumerate() {
        let candidate = n.verdict != Verdict::Infeasible;
        if candidate {
            candidates += 1;
        }
        if (candidate && candidates <= TOP)
            || opts.nodes.iter().any(|x| asked(doc, x) == Some(&*n.name))
            || Some(&*n.name) == current
        {
            shown.push(i);
        }
    }
    if candidates == 0 {
        // No node can take the pod: the closest ones (fewest failing rules) rather than an
        // empty table.
        let closest = doc
            .nodes
            .iter()
            .enumerate()
            .filter(|(i, n)| {
                !shown.contains(i) && doc.summary.closest.iter().any(|c| **c == *n.name)
            })
            .map(|(i, _)| i)
            .take(TOP)
            .collect::<Vec<_>>();
        shown.extend(closest);
        shown.sort_unstable();
    }
    (shown, true)
}

/// The node a `--node` names (its name or a unique prefix of it).
fn asked<'a>(doc: &'a Explanation, name: &str) -> Option<&'a str> {
    crate::report::node_named(doc.nodes.iter().map(|n| &*n.name), name).ok()
}

/// Nodes left out of a grouped table, counted by what decides them.
fn groups(doc: &Explanation, shown: &[usize], p: &Paint) -> Vec<String> {
    let mut lower = 0;
    let mut unknown = 0;
    let mut by_reason: std::collections::BTreeMap<String, usize> = Default::default();
    for (i, n) in doc.nodes.iter().enumerate() {
        if shown.contains(&i) {
            continue;
        }
        match n.verdict {
            Verdict::Feasible => lower += 1,
            Verdict::Unknown => unknown += 1,
            Verdict::Infeasible => {
                let reason = n
                    .reported
                    .as_ref()
                    .map(|r| r.reason.clone())
                    .unwrap_or_default();
                *by_reason.entry(reason.into_owned()).or_default() += 1;
            }
        }
    }
    let mut lines = Vec::new();
    if lower > 0 {
        lines.push(format!("{lower} {} with lower scores", p.ok("✓ feasible")));
    }
    if unknown > 0 {
        lines.push(format!("{unknown} {}", p.unknown("? unknown")));
    }
    let mut rejected: Vec<(String, usize)> = by_reason.into_iter().collect();
    rejected.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (reason, count) in rejected {
        lines.push(format!("{count} {} {reason}", p.bad("✗")));
    }
    lines
}

/// The narrowest the NODE column is made when the table does not fit its width with whole
/// names.
const NAME_WIDTH: usize = 28;

/// How the table's NODE column shows names: never split across lines (a name is what a user
/// copies); whole when the table fits the width with them, else shortened so that the rule
/// columns keep room: the domain every name ends in (`.eu-west-1.compute.internal`) left out
/// and said once below the table, then the middle of a still longer name elided, as little
/// as keeps every row's name distinct (GKE's and AKS's names differ only at their end).
struct NodeNames {
    /// The domain every long name ends in, left out of the column.
    suffix: Option<String>,
    /// The width names are elided to; `None`: whole.
    width: Option<usize>,
}

impl NodeNames {
    fn whole() -> NodeNames {
        NodeNames {
            suffix: None,
            width: None,
        }
    }

    /// Names shortened to `room` characters (at least [`NAME_WIDTH`]), or to as few more as
    /// keep them distinct.
    fn of<'a>(names: impl Iterator<Item = &'a str> + Clone, room: usize) -> NodeNames {
        let room = room.max(NAME_WIDTH);
        let longest = names.clone().map(|n| n.chars().count()).max().unwrap_or(0);
        if longest <= room {
            return NodeNames::whole();
        }
        // The longest `.`-led suffix all names share, leaving each name something before it.
        let mut all = names.clone();
        let first = all.next().unwrap_or_default();
        let mut suffix = first.find('.').map(|i| &first[i..]).unwrap_or_default();
        for name in all {
            let shared = |suffix: &str| name.ends_with(suffix) && name.len() > suffix.len();
            while !suffix.is_empty() && !shared(suffix) {
                suffix = suffix[1..]
                    .find('.')
                    .map(|i| &suffix[i + 1..])
                    .unwrap_or_default();
            }
        }
        let mut shown = NodeNames {
            suffix: (!suffix.is_empty() && first.len() > suffix.len()).then(|| suffix.to_string()),
            width: Some(room),
        };
        loop {
            let mut seen = std::collections::BTreeSet::new();
            let distinct = names.clone().all(|n| seen.insert(shown.shown(n)));
            match shown.width {
                Some(w) if !distinct && w < longest => shown.width = Some(w + 1),
                Some(_) if !distinct => return NodeNames::whole(),
                _ => return shown,
            }
        }
    }

    fn shown(&self, name: &str) -> String {
        let Some(width) = self.width else {
            return name.to_string();
        };
        let name = self
            .suffix
            .as_deref()
            .and_then(|s| name.strip_suffix(s))
            .unwrap_or(name);
        let chars: Vec<char> = name.chars().collect();
        if chars.len() <= width {
            return name.to_string();
        }
        // The start (the pool) and the end (what tells nodes apart), the middle marked.
        let tail = (width - 1) / 2;
        let head = width - 1 - tail;
        let start: String = chars[..head].iter().collect();
        let end: String = chars[chars.len() - tail..].iter().collect();
        format!("{start}…{end}")
    }
}

/// How many lines a cell takes in a column this wide (its padding included), words kept whole
/// as the table wraps them.
fn lines_at(cell: &str, width: usize) -> usize {
    let room = width.saturating_sub(2).max(1);
    let mut lines = 1;
    let mut used = 0;
    for word in cell.split_whitespace() {
        let n = word.chars().count();
        if used == 0 {
            used = n;
        } else if used + 1 + n <= room {
            used += 1 + n;
        } else {
            lines += 1;
            used = n;
        }
    }
    lines
}

/// The width of a table whose terminal reports none.
const FALLBACK_WIDTH: u16 = 80;

pub fn table(out: &mut dyn Write, doc: &Explanation, opts: &TableOptions) -> std::io::Result<()> {
    let p = Paint { on: opts.color };
    if let Some(w) = &doc.workload {
        let layout = super::workload::Layout {
            color: opts.color,
            no_headers: opts.no_headers,
            width: opts.width,
        };
        super::workload::table(out, w, layout)?;
    }
    if !doc.pods.is_empty() {
        super::pods::pod_rows(out, &doc.pods, opts.no_headers)?;
    }
    if !opts.no_headers {
        header(out, doc, &p)?;
    }
    let mut t = Table::new();
    t.load_preset(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Dynamic);
    match opts.width {
        Some(w) => {
            t.set_width(w);
        }
        // A terminal that reports no size (0x0: `script -qc`, some CI logs) would squeeze
        // every column to one character: give it the width of a classic terminal.
        None if t.width() == Some(0) => {
            t.set_width(FALLBACK_WIDTH);
        }
        None => {}
    }
    // A DaemonSet pod is pinned to its node: there is nothing to rank.
    let daemon = doc.daemon_set.is_some();
    let mut head: Vec<&str> = vec!["NODE", "FITS"];
    head.extend(RULE_COLUMNS.map(|(_, name)| name));
    let tables = doc.tables();
    // DEVICES only for a pod with ResourceClaims, whose nodes have such a cell.
    let devices = doc
        .nodes
        .iter()
        .any(|n| !rule_cell(Column::Devices, n, tables).is_empty());
    if devices {
        head.push("DEVICES");
    }
    head.push("OTHER");
    if !daemon {
        head.push("SCORE");
    }
    if opts.wide {
        if !daemon {
            head.extend(["SCORE PARTS (x weight)", "RANK"]);
        }
        head.push("REPORTED BY THE SCHEDULER");
    }
    let current = doc.current.as_ref().map(|c| c.node.as_str());
    // The pod's current node is marked.
    let node_cell = |name: &str, names: &NodeNames| {
        let shown = names.shown(name);
        match Some(name) == current {
            true => format!("{shown}*"),
            false => shown,
        }
    };
    let (shown, grouped) = rows_shown(doc, opts);
    let mut rows: Vec<Vec<String>> = Vec::with_capacity(shown.len());
    for &i in &shown {
        let n = &doc.nodes[i];
        let verdict = verdict_word(n.verdict);
        let mut row = vec![node_cell(&n.name, &NodeNames::whole()), verdict.to_string()];
        row.extend(RULE_COLUMNS.map(|(column, _)| rule_cell(column, n, tables)));
        if devices {
            row.push(rule_cell(Column::Devices, n, tables));
        }
        row.push(other_cell(n));
        if !daemon {
            row.push(n.score.map(|s| s.to_string()).unwrap_or_else(|| "-".into()));
        }
        if opts.wide {
            if !daemon {
                row.push(if n.score.is_some() {
                    score_parts(n)
                } else {
                    "-".into()
                });
                row.push(n.rank.map(|r| r.to_string()).unwrap_or_else(|| "-".into()));
            }
            row.push(
                n.reported
                    .as_ref()
                    .map(|r| format!("{}: {}", reporter(r), r.reason))
                    .unwrap_or_else(|| "-".into()),
            );
        }
        rows.push(row);
    }
    // In the narrow table, rule columns that do not apply to this pod on any node ("-"
    // everywhere) make room for the others; -o wide keeps them all.
    let mut dropped: Vec<&str> = Vec::new();
    if !opts.wide && !rows.is_empty() {
        for col in (2..2 + RULE_COLUMNS.len()).rev() {
            if rows.iter().all(|r| r[col] == "-") {
                dropped.push(head[col]);
                head.remove(col);
                for r in rows.iter_mut() {
                    r.remove(col);
                }
            }
        }
        dropped.reverse();
    }
    if !opts.no_headers {
        t.set_header(head.clone());
    }
    // Names, verdicts and scores never wrap; rule cells take the rest of the width, each at
    // least as wide as its header and its longest word, so that neither is split (a table
    // wider than the terminal reads better than `NODE-`/`AFF` or `shor`/`t:`).
    let score_col = head.iter().position(|h| *h == "SCORE");
    let width = usize::from(t.width().unwrap_or(u16::MAX));
    // Names whole when the table fits with them (its rule columns at their narrowest), and
    // always under --no-headers and -o wide, which scripts read.
    let names = if opts.wide || opts.no_headers {
        NodeNames::whole()
    } else {
        let cells = |i: usize| {
            rows.iter()
                .filter_map(move |r| r.get(i))
                .map(String::as_str)
        };
        let narrowest = |i: usize| {
            std::iter::once(head[i])
                .chain(cells(i))
                .flat_map(|c| match [0, 1].contains(&i) || Some(i) == score_col {
                    true => vec![c.chars().count()],
                    false => c.split_whitespace().map(|w| w.chars().count()).collect(),
                })
                .max()
                .unwrap_or(0)
                + 2
        };
        let others: usize = (1..head.len()).map(narrowest).sum();
        // The current node's mark.
        let room = width.saturating_sub(others + 2 + 1);
        NodeNames::of(shown.iter().map(|&i| &*doc.nodes[i].name), room)
    };
    for (row, &i) in rows.iter_mut().zip(&shown) {
        row[0] = node_cell(&doc.nodes[i].name, &names);
    }
    // The widest of `pieces` of column `i`'s header and cells, with the cell's padding.
    let widest = |i: usize, pieces: &dyn Fn(&str) -> Vec<usize>| {
        let cells = rows.iter().filter_map(|r| r.get(i)).map(String::as_str);
        std::iter::once(head[i])
            .chain(cells)
            .flat_map(pieces)
            .max()
            .unwrap_or(0)
            + 2
    };
    let whole = |cell: &str| vec![cell.chars().count()];
    let words = |cell: &str| cell.split_whitespace().map(|w| w.chars().count()).collect();
    let unwrapped = |i: usize| [Some(0), Some(1), score_col].contains(&Some(i));
    let whole: Vec<usize> = (0..head.len()).map(|i| widest(i, &whole)).collect();
    let mut bounds: Vec<usize> = (0..head.len())
        .map(|i| {
            if unwrapped(i) {
                whole[i]
            } else {
                widest(i, &words)
            }
        })
        .collect();
    // Then columns are kept on one line while the table fits, those that save most lines
    // (then need least width) first: a cell in three lines costs more than one in two.
    let mut room = width.saturating_sub(bounds.iter().sum());
    let saved = |i: usize| {
        rows.iter()
            .filter_map(|r| r.get(i))
            .map(|cell| lines_at(cell, bounds[i]) - 1)
            .sum::<usize>()
    };
    let mut by_need: Vec<(usize, usize)> = (0..head.len()).map(|i| (i, saved(i))).collect();
    by_need.sort_by_key(|&(i, saved)| (std::cmp::Reverse(saved), whole[i] - bounds[i]));
    for (i, _) in by_need {
        let need = whole[i] - bounds[i];
        if need <= room {
            room -= need;
            bounds[i] = whole[i];
        }
    }
    for row in rows {
        t.add_row(row.into_iter().map(|c| styled(c, opts.color)));
    }
    if opts.color {
        // Coloured as asked (`--color=always` into a pipe too), not only on a terminal.
        t.enforce_styling();
    }
    for (i, bound) in bounds.into_iter().enumerate() {
        let Some(c) = t.column_mut(i) else { continue };
        if unwrapped(i) {
            c.set_constraint(comfy_table::ColumnConstraint::ContentWidth);
        } else {
            let bound = u16::try_from(bound).unwrap_or(u16::MAX);
            c.set_constraint(comfy_table::ColumnConstraint::LowerBoundary(
                comfy_table::Width::Fixed(bound),
            ));
        }
    }
    writeln!(out, "{t}")?;
    if let Some(suffix) = &names.suffix {
        writeln!(out, "(node names above end in {suffix})")?;
    }
    if !dropped.is_empty() && !opts.no_headers {
        writeln!(
            out,
            "(no rules of the pod for {}; -o wide shows every column)",
            dropped.join(", ")
        )?;
    }
    let failing = |n: &NodeReport| n.filters.iter().filter(|f| f.pass == Some(false)).count();
    let message_shown = doc.summary.failed_scheduling_message.is_some();
    if !opts.no_headers && message_shown && doc.nodes.iter().any(|n| failing(n) > 1) {
        writeln!(
            out,
            "(FailedScheduling counts each node once, under the first Filter that rejects it, \
             as the scheduler stops there; the columns mark every rule that fails)"
        )?;
    }
    if grouped {
        writeln!(
            out,
            "\n{} more nodes (--all-nodes lists every one):",
            doc.nodes.len() - shown.len()
        )?;
        for line in groups(doc, &shown, &p) {
            writeln!(out, "  {line}")?;
        }
    }
    super::suggestions::closest(out, doc)?;
    let mut explained = false;
    for name in &opts.nodes {
        match asked(doc, name).and_then(|a| doc.nodes.iter().find(|n| *n.name == *a)) {
            Some(n) => drill_down(out, doc, n, &p, &mut explained)?,
            None => writeln!(out, "\nNode {name}: not in the cluster state")?,
        }
    }
    Ok(())
}

/// The drill-down sections below the entries, which several plugins may write to, with their
/// headers.
const SECTIONS: [(Section, &str); 3] = [
    (Section::TopologySpread, "  topology spread:"),
    (Section::Resources, "  resources:"),
    (Section::Volumes, "  volumes:"),
];

/// One node's drill-down; `explained`: whether a drill-down above explained the code
/// UnschedulableAndUnresolvable already (once per output is enough).
fn drill_down(
    out: &mut dyn Write,
    doc: &Explanation,
    n: &NodeReport,
    p: &Paint,
    explained: &mut bool,
) -> std::io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "{} {}: {}",
        p.bold("Node"),
        n.name,
        p.verdict(n.verdict)
    )?;
    if let Some(r) = &n.reported {
        writeln!(
            out,
            "  the scheduler reports: {} ({}: {:?}){}",
            r.reason,
            reporter(r),
            r.code,
            if r.uncertain {
                " (an earlier plugin was not evaluated)"
            } else {
                ""
            }
        )?;
        if r.code == Code::UnschedulableAndUnresolvable && !std::mem::replace(explained, true) {
            writeln!(
                out,
                "    (UnschedulableAndUnresolvable: removing pods would not help, so preemption \
                 does not try this node)"
            )?;
        }
    }
    if let Some(nominated) = &n.nominated_pods {
        writeln!(
            out,
            "  nominated here, of priority >= the pod's (the scheduler filters the node with them \
             counted, then without; both must pass): {}",
            nominated.pods.join(", ")
        )?;
        let mut failed = nominated.failed.iter().filter(|f| f.pass == Some(false));
        match failed.next() {
            None => writeln!(out, "    with them: every evaluated Filter passes")?,
            Some(first) => {
                for f in std::iter::once(first).chain(failed) {
                    writeln!(
                        out,
                        "    with them: {} {:<20} {}",
                        p.mark(f.pass),
                        f.plugin,
                        f.reason().unwrap_or_default()
                    )?;
                }
            }
        }
        writeln!(out, "  without them:")?;
    }
    let tables = doc.tables();
    let lines = |out: &mut dyn Write, lines: Vec<String>| -> std::io::Result<()> {
        lines.iter().try_for_each(|line| writeln!(out, "{line}"))
    };
    // Plugins whose PreFilter returned Skip say so in one line, after the others.
    let mut skipped: Vec<&str> = Vec::new();
    for f in &n.filters {
        if f.skipped && f.pass == Some(true) && f.details.is_none() {
            skipped.push(f.plugin.as_str());
            continue;
        }
        let reason = f.reason().unwrap_or_default();
        let note = f.note().unwrap_or_default();
        writeln!(
            out,
            "  {} {:<20} {}{}",
            p.mark(f.pass),
            f.plugin,
            reason,
            if reason.is_empty() { note } else { "" }
        )?;
        let e = explain_of(f.plugin);
        if e.section() == Section::Entry {
            lines(out, e.filter_lines(f, tables, p))?;
        }
    }
    if !skipped.is_empty() {
        writeln!(
            out,
            "  {} {}: PreFilter returned Skip, so the scheduler does not run their Filter for \
             the pod",
            p.mark(Some(true)),
            skipped.join(", ")
        )?;
    }
    for (section, header) in SECTIONS {
        let in_section = |plugin: &PluginId| explain_of(plugin).section() == section;
        let mut said: Vec<String> = Vec::new();
        for f in n.filters.iter().filter(|f| in_section(f.plugin)) {
            said.extend(explain_of(f.plugin).filter_lines(f, tables, p));
        }
        for s in n.scores.iter().filter(|s| in_section(s.plugin)) {
            said.extend(explain_of(s.plugin).score_lines(s, tables, p));
        }
        if !said.is_empty() {
            writeln!(out, "{header}")?;
            lines(out, said)?;
        }
    }
    if n.score.is_some() {
        writeln!(
            out,
            "  score {} = sum of (normalized 0-100 x weight):",
            n.score.unwrap_or_default()
        )?;
        for s in &n.scores {
            let line = match (s.raw, s.normalized, s.weighted()) {
                _ if !s.evaluated() => format!("not evaluated (x{})", s.weight),
                _ if s.skipped => format!("skipped by PreScore -> 0 x{} = 0", s.weight),
                (Some(r), Some(nm), Some(w)) => format!("raw {r} -> {nm} x{} = {w}", s.weight),
                _ => String::new(),
            };
            writeln!(out, "    {:<32} {line}", s.plugin)?;
            let e = explain_of(s.plugin);
            if e.section() == Section::Entry {
                lines(out, e.score_lines(s, tables, p))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GKE's names differ only at their end: shortened, each row keeps its own end.
    #[test]
    fn names_too_long_are_elided_in_the_middle_and_stay_distinct() {
        let names: Vec<String> = ["x7k9", "x7k8", "q2w3"]
            .iter()
            .map(|end| format!("gke-production-cluster-default-pool-3f1e8a2b-{end}"))
            .collect();
        let shown = NodeNames::of(names.iter().map(String::as_str), 0);
        let cells: Vec<String> = names.iter().map(|n| shown.shown(n)).collect();
        assert_eq!(
            cells,
            [
                "gke-production…3f1e8a2b-x7k9",
                "gke-production…3f1e8a2b-x7k8",
                "gke-production…3f1e8a2b-q2w3"
            ]
        );
        // Room for them whole: whole.
        let whole = NodeNames::of(names.iter().map(String::as_str), 60);
        assert_eq!(whole.shown(&names[0]), names[0]);
    }

    /// Names that share a long end keep as much more of it as tells them apart.
    #[test]
    fn elision_widens_until_the_names_differ() {
        let names = [
            "aks-nodepool1-12345678-vmss000000-with-a-long-tail",
            "aks-nodepool1-12345679-vmss000000-with-a-long-tail",
        ];
        let shown = NodeNames::of(names.into_iter(), 0);
        let (a, b) = (shown.shown(names[0]), shown.shown(names[1]));
        assert_ne!(a, b);
        assert!(a.contains('…') && a.chars().count() < names[0].len(), "{a}");
    }

    #[test]
    fn a_unique_prefix_names_its_node() {
        let names = [
            "ip-10-0-0-101.eu-west-1.compute.internal",
            "ip-10-0-0-102.x",
            "big",
        ];
        let named = |asked| crate::report::node_named(names.into_iter(), asked);
        assert_eq!(named("ip-10-0-0-101"), Ok(names[0]));
        assert_eq!(named("big"), Ok("big"));
        assert_eq!(
            named("ip-10-0-0-1"),
            Err(vec![names[0].to_string(), names[1].to_string()])
        );
        assert_eq!(named("small"), Err(Vec::new()));
    }

    #[test]
    fn lines_count_words_kept_whole() {
        // 6 characters of content in a column 8 wide, as the table wraps it: `✗ 1`, `pod`,
        // `here`.
        assert_eq!(lines_at("✗ 1 pod here", 8), 3);
        assert_eq!(lines_at("✗ 1 pod here", 10), 2);
        assert_eq!(lines_at("✗ 1 pod here", 14), 1);
        // A word longer than the column takes a line of its own.
        assert_eq!(lines_at("✗ control-plane", 8), 2);
        assert_eq!(lines_at("", 8), 1);
    }
}
