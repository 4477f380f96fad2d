//! Renderers: each writes an [`Explanation`] to a sink and decides
//! nothing about its content.

use std::io::Write;

use crate::report::Explanation;

/// `-o json`: the versioned document, pretty-printed.
pub fn json(out: &mut dyn Write, doc: &Explanation) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, doc)?;
    writeln!(out)
}

/// `-o yaml`: the same document as YAML.
pub fn yaml(out: &mut dyn Write, doc: &Explanation) -> std::io::Result<()> {
    let text = crate::state::to_yaml_string(doc).map_err(std::io::Error::other)?;
    out.write_all(text.as_bytes())
}

mod audit;
mod diff;
mod notes;
mod pods;
mod suggestions;
mod table;
mod workload;
pub use audit::{AuditOptions, audit_json, audit_table, audit_yaml};
pub use diff::{audit_diff, explanation_diff, json_of, yaml_of};
pub use notes::{full_snapshot_warning, snapshot_notes, snapshot_warnings};
pub use table::{TableOptions, table};
