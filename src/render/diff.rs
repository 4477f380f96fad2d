//! What edits to try change (`--diff`), after the document of the edited cluster. Words are
//! chosen here; nothing is decided.

use std::io::Write;

use serde::Serialize;

use crate::report::diff::{AuditDiff, ExplanationDiff};
use crate::scheduler::Verdict;

/// `-o json` of any document.
pub fn json_of<T: Serialize>(out: &mut dyn Write, doc: &T) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, doc)?;
    writeln!(out)
}

/// `-o yaml` of any document.
pub fn yaml_of<T: Serialize>(out: &mut dyn Write, doc: &T) -> std::io::Result<()> {
    let text = crate::state::to_yaml_string(doc).map_err(std::io::Error::other)?;
    out.write_all(text.as_bytes())
}

fn verdict(v: Option<Verdict>) -> &'static str {
    match v {
        None => "(no such node)",
        Some(Verdict::Feasible) => "✓ fits",
        Some(Verdict::Infeasible) => "✗ rejected",
        Some(Verdict::Unknown) => "? unknown",
    }
}

/// The explanation's diff: the summary before, then each node that changes.
pub fn explanation_diff(out: &mut dyn Write, d: &ExplanationDiff) -> std::io::Result<()> {
    writeln!(out, "\nWhat the edits change ({}):", d.edits.join(" "))?;
    let b = &d.before;
    let selected = if b.selected.is_empty() {
        "none".to_string()
    } else {
        b.selected.join(", ")
    };
    writeln!(
        out,
        "  before: feasible {} of {} nodes, selected: {selected}",
        b.feasible, b.nodes
    )?;
    if let Some(m) = &b.failed_scheduling_message {
        writeln!(out, "  before: FailedScheduling: {m}")?;
    }
    if d.nodes.is_empty() {
        writeln!(out, "  no node's verdict changes")?;
    }
    for n in &d.nodes {
        let reason = |r: &Option<String>| r.as_ref().map(|r| format!(" ({r})")).unwrap_or_default();
        writeln!(
            out,
            "  {}: {}{} -> {}{}",
            n.name,
            verdict(n.before),
            reason(&n.before_reason),
            verdict(Some(n.after)),
            reason(&n.after_reason)
        )?;
    }
    Ok(())
}

/// The audit's diff: the summary before, then the pods that start or stop being listed.
pub fn audit_diff(out: &mut dyn Write, d: &AuditDiff) -> std::io::Result<()> {
    writeln!(out, "\nWhat the edits change ({}):", d.edits.join(" "))?;
    writeln!(
        out,
        "  before: {} Pending, {} breaking their required rules, {} cordoned node(s)",
        d.before.pending, d.before.violating, d.before.cordoned_nodes
    )?;
    for (what, pods) in [
        ("now Pending", &d.now_pending),
        ("no longer Pending", &d.no_longer_pending),
        ("now breaking their rules", &d.now_violating),
        ("no longer breaking their rules", &d.no_longer_violating),
    ] {
        if !pods.is_empty() {
            writeln!(out, "  {what}: {}", pods.join(", "))?;
        }
    }
    Ok(())
}
