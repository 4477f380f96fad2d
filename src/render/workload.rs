//! The table of a workload's replicas: a row per replica (its node or Pending, the score,
//! how many nodes tied with its pick, why), printed before the per-node table of the replica
//! the document explains.

use std::io::Write;

use comfy_table::{Cell, Color, ColumnConstraint, ContentArrangement, Table, presets};
use owo_colors::OwoColorize;

use crate::report::workload::{ReplicaReport, WorkloadReport};
use crate::scheduler::explain::Few;

fn colored(text: &str, color: Color, on: bool) -> Cell {
    match on {
        true => Cell::new(text).fg(color),
        false => Cell::new(text),
    }
}

/// How the table is drawn: in colour, without headers, to a width (`None`: the terminal's).
#[derive(Debug, Clone, Copy)]
pub(super) struct Layout {
    pub color: bool,
    pub no_headers: bool,
    pub width: Option<u16>,
}

pub(super) fn table(out: &mut dyn Write, w: &WorkloadReport, opts: Layout) -> std::io::Result<()> {
    let paint = |s: &str, placed: bool| match (opts.color, placed) {
        (false, _) => s.to_string(),
        (true, true) => s.green().to_string(),
        (true, false) => s.red().to_string(),
    };
    if !opts.no_headers {
        let pending = match w.pending {
            0 => String::new(),
            n => format!(", {}", paint(&format!("{n} Pending"), false)),
        };
        let pending = match w.not_created {
            0 => pending,
            n => format!("{pending}, {n} not created"),
        };
        // `--scale`: the replicas scheduled are those added beside the workload's pods.
        let scaled = w
            .notes
            .iter()
            .any(|n| matches!(n, crate::report::Note::ScaledBeside { .. }));
        writeln!(
            out,
            "{} {}/{}: {} replica{}{}, {} placed{pending}",
            w.kind,
            w.namespace,
            w.name,
            w.replicas,
            if w.replicas == 1 { "" } else { "s" },
            if scaled { " added" } else { "" },
            w.placed,
        )?;
    }
    let mut t = Table::new();
    t.load_preset(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Dynamic);
    if let Some(width) = opts.width {
        t.set_width(width);
    }
    // The column of preemption only when a replica preempts; the reason stays last, the
    // one column that wraps.
    let preempts = w.pods.iter().any(|r| r.preemption.is_some());
    // An update: which old pod each new one replaces.
    let replaces = |i: usize| {
        let u = w.update.as_ref()?;
        let p = u.pods.iter().find(|p| p.index == i);
        let created = w.pods.get(i).is_some_and(|r| r.not_created.is_none());
        Some(match p.and_then(|p| p.replaces.as_deref()) {
            Some(old) => old.to_string(),
            None if created && p.is_some_and(|p| p.old_running > 0) => "surge".to_string(),
            None => "-".to_string(),
        })
    };
    if !opts.no_headers {
        let mut header = vec!["REPLICA", "POD"];
        if w.update.is_some() {
            header.push("REPLACES");
        }
        header.extend(["NODE", "SCORE", "TIED"]);
        if preempts {
            header.push("PREEMPTS");
        }
        header.push("REASON");
        t.set_header(header);
    }
    // Each distinct FailedScheduling message once, below the table: in a column it would
    // wrap over a dozen lines per Pending replica.
    let mut messages: Vec<&str> = Vec::new();
    let mut longest_word = 0;
    for r in &w.pods {
        // Coloured by the table, after the layout: escape codes never count as width.
        let node = match (&r.node, &r.not_created) {
            (Some(n), _) => colored(n, Color::Green, opts.color),
            (None, Some(_)) => Cell::new("-"),
            (None, None) => colored("Pending", Color::Red, opts.color),
        };
        let score = r.score.map_or_else(|| "-".to_string(), |s| s.to_string());
        let tied = match r.tied_count {
            0 => "-".to_string(),
            n => n.to_string(),
        };
        let mut row = vec![
            Cell::new(r.index),
            Cell::new(&r.name),
            node,
            Cell::new(score),
            Cell::new(tied),
        ];
        if let Some(old) = replaces(r.index) {
            row.insert(2, Cell::new(old));
        }
        if preempts {
            row.push(Cell::new(match &r.preemption {
                Some(p) => format!(
                    "on {}: {} victim{}",
                    p.nominated_node,
                    p.victims.len(),
                    if p.victims.len() == 1 { "" } else { "s" }
                ),
                None => "-".to_string(),
            }));
        }
        row.push(Cell::new({
            let reason = reason(r, &mut messages);
            let words = reason.split_whitespace().map(|w| w.chars().count());
            longest_word = words.fold(longest_word, usize::max);
            reason
        }));
        t.add_row(row);
    }
    if opts.color {
        t.enforce_styling();
    }
    // Names are copied whole: only the reason wraps, between words.
    let reason_column = 5 + usize::from(preempts) + usize::from(w.update.is_some());
    for i in 0..reason_column {
        if let Some(c) = t.column_mut(i) {
            c.set_constraint(ColumnConstraint::ContentWidth);
        }
    }
    if let Some(c) = t.column_mut(reason_column) {
        let word = longest_word.clamp("REASON".len(), usize::from(u16::MAX - 2));
        let bound = u16::try_from(word + 2).unwrap_or(u16::MAX);
        c.set_constraint(ColumnConstraint::LowerBoundary(comfy_table::Width::Fixed(
            bound,
        )));
    }
    writeln!(out, "{t}")?;
    for (i, message) in messages.iter().enumerate() {
        writeln!(out, "FailedScheduling #{}: {message}", i + 1)?;
    }
    for note in &w.notes {
        writeln!(out, "Note: {note}")?;
    }
    if let Some(r) = w.pods.get(w.explained) {
        writeln!(out, "\nReplica {} ({}), node by node:", r.index, r.name)?;
    }
    Ok(())
}

/// Why the replica went where it did; a Pending replica points at its FailedScheduling
/// message, numbered in `messages` in the order first seen.
fn reason<'a>(r: &'a ReplicaReport, messages: &mut Vec<&'a str>) -> String {
    if let Some(n) = &r.not_created {
        return format!("not created: waits for {}", n.waits_for);
    }
    match (&r.node, &r.failed_scheduling_message) {
        (Some(_), _) if !r.tied_with.is_empty() => {
            let tied = Few {
                names: r.tied_with.clone(),
                count: r.tied_count,
            };
            format!("top score, tied with {tied}")
        }
        (Some(_), _) if r.score.is_some() => "top score".to_string(),
        (Some(_), _) => "only feasible node".to_string(),
        (None, None) => "not scheduled (see below)".to_string(),
        (None, Some(message)) => {
            let n = match messages.iter().position(|m| m == message) {
                Some(i) => i + 1,
                None => {
                    messages.push(message);
                    messages.len()
                }
            };
            format!("FailedScheduling #{n}")
        }
    }
}
