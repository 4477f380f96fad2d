//! What would make the closest nodes take the pod, when no node can: each change in its
//! plugin's words.

use std::io::Write;

use crate::report::Explanation;

/// When no node can take the pod: the closest nodes, each with what would make it fit.
pub(super) fn closest(out: &mut dyn Write, doc: &Explanation) -> std::io::Result<()> {
    if doc.summary.closest.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "\nClosest (fewest failing rules), and what would make them fit:"
    )?;
    for name in doc.summary.closest.iter().take(10) {
        let Some(n) = doc.nodes.iter().find(|n| *n.name == **name) else {
            continue;
        };
        let changes: Vec<String> = n
            .suggestions
            .iter()
            .map(|s| format!("{}: {}", s.rule, s.change))
            .collect();
        // A rule with no change to name (a volume, a port): its reason.
        let said = match (changes.is_empty(), &n.reported) {
            (true, Some(r)) => r.reason.to_string(),
            _ => changes.join("; "),
        };
        writeln!(out, "  {name}: {said}")?;
    }
    if doc.summary.closest.len() > 10 {
        writeln!(out, "  ... and {} more", doc.summary.closest.len() - 10)?;
    }
    Ok(())
}
