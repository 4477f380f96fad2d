//! How a node's own value is said, wherever one is shown: as the node's, so that it never
//! reads as the requirement it is compared with.

/// A label key as a table cell shows it: well-known prefixes dropped.
pub(super) fn short_key(key: &str) -> &str {
    key.rsplit_once('/').map(|(_, k)| k).unwrap_or(key)
}

/// "node has zone=eu-west-1c", "node has no gpu" (no such label): the one form for the
/// table's cells (short keys), the drill-down, the audit and the notes.
pub(super) fn node_has(key: &str, value: Option<&str>) -> String {
    match value {
        Some(v) => format!("node has {key}={v}"),
        None => format!("node has no {key}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nodes_value_reads_as_the_nodes() {
        assert_eq!(
            node_has("zone", Some("eu-west-1c")),
            "node has zone=eu-west-1c"
        );
        assert_eq!(node_has("gpu", None), "node has no gpu");
        assert_eq!(short_key("topology.kubernetes.io/zone"), "zone");
    }
}
