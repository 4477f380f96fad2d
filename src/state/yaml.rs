//! The one place that names the YAML crate.
//!
//! serde-saphyr is used because it is what kube 5 itself depends on (one YAML stack in the
//! binary), it is maintained, and it enforces a parsing budget against alias bombs; serde_yaml
//! is archived and only published as `+deprecated`.
//!
//! The budget is explicit and scales with the input: a YAML stream may hold at most as many
//! nodes as it has bytes, and produce at most twice as many parser events (aliases included)
//! and twice as many scalar bytes as it has bytes, so memory stays proportional to the input
//! (itself capped by `read::input_limit`) however the aliases nest. A 6,000-pod
//! `kubectl get -o yaml` needs about 1.5 million nodes, far above the crate's fixed defaults
//! (250,000 nodes, 1,024 documents), which would refuse it.

use serde::Serialize;
use serde_saphyr::budget::BudgetBreach;

/// Deepest nesting read in YAML (serde_json's own recursion limit, for JSON, is 128).
/// Kubernetes objects nest about 20 levels deep at most (managedFields included); deeper
/// YAML would only risk the stack of the recursive deserializer (a test thread's 2 MiB holds
/// 64 levels in a debug build, not 128).
pub const MAX_DEPTH: usize = 64;

/// The parsing budget for an input of `len` bytes.
fn budget(len: usize) -> serde_saphyr::Budget {
    let mut b = serde_saphyr::Budget::default();
    b.max_nodes = len.max(b.max_nodes);
    b.max_events = len.saturating_mul(2).max(b.max_events);
    b.max_total_scalar_bytes = len.saturating_mul(2).max(b.max_total_scalar_bytes);
    // `---\n` is four bytes.
    b.max_documents = (len / 4).max(b.max_documents);
    b.max_depth = MAX_DEPTH;
    b.flow_nesting_limit = MAX_DEPTH;
    b
}

/// Parses every YAML document of `text` into generic JSON values.
pub(super) fn documents(text: &str) -> Result<Vec<serde_json::Value>, String> {
    let options = serde_saphyr::options! { budget: Some(budget(text.len())) };
    serde_saphyr::from_multiple_with_options::<serde_json::Value>(text, options)
        .map_err(|e| describe(&e))
}

/// A one-line message: where, and what was exceeded in words a user can act on.
fn describe(e: &serde_saphyr::Error) -> String {
    let mut inner = e.without_snippet();
    while let serde_saphyr::Error::AliasError { error, .. } = inner {
        inner = error.without_snippet();
    }
    let at = e
        .location()
        .or_else(|| inner.location())
        .filter(|l| l.line() > 0)
        .map(|l| format!("line {} column {}: ", l.line(), l.column()))
        .unwrap_or_default();
    let serde_saphyr::Error::Budget { breach, .. } = inner else {
        return inner.to_string();
    };
    let expands = "YAML aliases (*name) expand it far beyond its size (an alias bomb?); \
                   kubectl never writes aliases";
    match breach {
        BudgetBreach::Depth { .. } => format!(
            "{at}nested more than {MAX_DEPTH} levels deep, deeper than any Kubernetes object"
        ),
        BudgetBreach::Documents { documents } => {
            format!("{at}more than {} documents", documents.saturating_sub(1))
        }
        BudgetBreach::Aliases { .. }
        | BudgetBreach::Anchors { .. }
        | BudgetBreach::AliasAnchorRatio { .. }
        | BudgetBreach::Nodes { .. }
        | BudgetBreach::Events { .. }
        | BudgetBreach::ScalarBytes { .. } => format!("{at}{expands}"),
        other => format!("{at}parsing limit exceeded ({other:?})"),
    }
}

/// Serializes any value as a YAML document (used by the yaml renderer).
pub fn to_yaml_string<T: Serialize>(value: &T) -> Result<String, String> {
    serde_saphyr::to_string(value).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_alias_bomb_is_refused_in_words() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        let err = documents(&text).expect_err("refused");
        assert!(err.contains("alias bomb"), "{err}");
        assert!(err.starts_with("line "), "{err}");
    }

    #[test]
    fn deep_nesting_is_refused_in_words() {
        let text: String = (0..100).map(|i| format!("{}- \n", " ".repeat(i))).collect();
        let err = documents(&text).expect_err("refused");
        assert!(err.contains("nested more than 64 levels deep"), "{err}");
        // 60 levels are fine.
        let text: String = (0..60).map(|i| format!("{}- \n", " ".repeat(i))).collect();
        documents(&text).expect("60 levels");
    }

    #[test]
    fn large_streams_are_not_held_to_the_crate_defaults() {
        // 2,000 documents of 200 nodes each: over the crate's 1,024 documents and 250,000
        // nodes, proportionate to the input.
        let doc: String = (0..100).map(|i| format!("k{i}: v\n")).collect();
        let text = vec![doc; 2000].join("---\n");
        assert_eq!(documents(&text).expect("parsed").len(), 2000);
    }
}
