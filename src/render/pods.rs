//! `explain` of several pods: the rows above the explanation of one of them.

use std::io::Write;

use crate::report::pods::PodRow;

/// `explain` of several pods: a row each (where it is, what the scheduler would say now), then
/// which one the explanation below is of.
pub(super) fn pod_rows(
    out: &mut dyn Write,
    rows: &[PodRow],
    no_headers: bool,
) -> std::io::Result<()> {
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(0).max(3);
    let node_width = rows
        .iter()
        .map(|r| r.node.as_deref().map_or("Pending".len(), str::len))
        .max()
        .unwrap_or(0)
        .max(4);
    if !no_headers {
        writeln!(out, "{:width$}  {:node_width$}  NOW", "POD", "NODE")?;
    }
    for r in rows {
        let now = match (&r.node, &r.current_reasons) {
            (Some(_), Some(reasons)) if reasons.is_empty() => {
                "its node still passes every filter".to_string()
            }
            (Some(_), Some(reasons)) => {
                format!("its node would be rejected today: {}", reasons.join("; "))
            }
            (Some(_), None) => format!("{}, bound: the kubelet admits or rejects it", r.phase),
            (None, _) => match (&r.failed_scheduling_message, r.selected.as_slice()) {
                (Some(m), _) => m.clone(),
                (None, []) => "a node could take it now".to_string(),
                (None, [one]) => format!("the scheduler would place it on {one} now"),
                (None, many) => format!(
                    "the scheduler would place it on one of {} now",
                    crate::scheduler::explain::few(many)
                ),
            },
        };
        let node = r.node.as_deref().unwrap_or("Pending");
        writeln!(out, "{:width$}  {node:node_width$}  {now}", r.name)?;
    }
    if let Some(r) = rows.iter().find(|r| r.explained) {
        writeln!(out, "\nExplained below: {}", r.name)?;
    }
    writeln!(out)
}
