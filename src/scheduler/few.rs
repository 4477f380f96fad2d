//! Names by three and a count: how a suggestion names nodes, of which a cluster has
//! thousands. A leaf, so that plugins' own types can hold one without importing the
//! explanations that read them.

use serde::Serialize;

/// Names by three and the count of them all, as a suggestion names nodes: a cluster's nodes
/// can be thousands.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Few {
    /// The first three, sorted.
    pub names: Vec<String>,
    pub count: usize,
}

impl Few {
    pub fn of(mut names: Vec<String>) -> Few {
        names.sort();
        let count = names.len();
        names.truncate(3);
        Few { names, count }
    }
}

impl std::fmt::Display for Few {
    /// "a, b, c and 4 more".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.names.join(", "))?;
        match self.count.saturating_sub(self.names.len()) {
            0 => Ok(()),
            more => write!(f, " and {more} more"),
        }
    }
}
