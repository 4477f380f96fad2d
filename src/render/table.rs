//! The default output: a header and one row per node.

use std::io::Write;

use comfy_table::{ContentArrangement, Table, presets};

use crate::report::Explanation;

pub fn table(out: &mut dyn Write, doc: &Explanation) -> std::io::Result<()> {
    let s = &doc.summary;
    writeln!(
        out,
        "Pod {}: {}/{} nodes feasible",
        doc.pod, s.feasible, s.nodes
    )?;
    if let Some(msg) = &s.failed_scheduling_message {
        writeln!(out, "FailedScheduling: {msg}")?;
    }
    let mut t = Table::new();
    t.load_preset(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(["NODE", "VERDICT", "REASON", "SCORE"]);
    for n in &doc.nodes {
        t.add_row([
            n.name.clone(),
            format!("{:?}", n.verdict),
            n.reported
                .as_ref()
                .map(|r| r.reason.clone())
                .unwrap_or_default(),
            n.score.map(|s| s.to_string()).unwrap_or_default(),
        ]);
    }
    writeln!(out, "{t}")
}
