//! What a plugin says of its own results, in words and as data: its cell(s) in the node
//! table, its lines in a node's drill-down, what would make a rejected node take the pod, and
//! what makes most nodes reject it. Each plugin implements [`Explain`] in its own `explain`
//! module, registered beside the plugin in the registry; `render/` and `report/` reach it
//! through [`explain_of`](super::explain_of) and name no plugin.
//!
//! Every method reads the entries the document writes (the same values `-o json` shows), so
//! the table and the JSON cannot disagree. Colours are render/'s: a plugin says which words
//! are good or bad news through [`Paint`].

use std::cell::RefCell;
use std::collections::HashMap;

use super::details::{Cause, Change, FilterDetails};
pub use super::few::Few;
use super::inter_pod_affinity::TermTables;
use super::plugin_id::PluginId;
use super::pod_topology_spread::SpreadTables;
use super::result::{Entries, FilterCell, FilterResult, ScoreCell, ScoreResult};
use crate::state::Pod;
use crate::state::selector::{RequirementCheck, SelectorCheck, TermProblem, aggregate};

/// A column of the node table that plugins fill with cells of their own; a plugin that
/// names none is summed up in OTHER.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    NodeAffinity,
    /// The node's cordon and taints.
    Taints,
    PodAffinity,
    AntiAffinity,
    Spread,
    /// The devices allocated for the pod's ResourceClaims (shown only for such a pod).
    Devices,
}

/// A plugin's part of a cell. A column's cell joins the parts of its plugins that fail or
/// were not evaluated; when none does, it shows the first part with words, else "✓".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mark {
    /// Not evaluated: "?".
    Unknown,
    /// Rejects the node, in these words ("✗ ...").
    Fails(String),
    /// Lets the node through, with words to add ("-", "✓ skew 1≤1") or none ("✓").
    Passes(Option<String>),
}

/// Where a plugin's drill-down lines go: under its own entry, or in a section it shares with
/// other plugins, below every entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Entry,
    TopologySpread,
    Resources,
    Volumes,
}

/// How words are coloured: the plugin says what is good or bad news, the renderer how that
/// looks.
pub trait Paint {
    fn ok(&self, s: &str) -> String;
    fn bad(&self, s: &str) -> String;
    fn unknown(&self, s: &str) -> String;

    /// "✓" unpainted, "✗" as bad news: where passing is the usual case (volumes).
    fn check(&self, ok: bool) -> String {
        if ok {
            "✓".to_string()
        } else {
            self.bad("✗")
        }
    }

    /// "✓", "✗" or "?" for a pass, a failure, or not evaluated.
    fn mark(&self, pass: Option<bool>) -> String {
        match pass {
            Some(true) => self.ok("✓"),
            Some(false) => self.bad("✗"),
            None => self.unknown("?"),
        }
    }
}

/// The tables the plugins add beside the nodes' entries, for the explanations that refer to
/// them by index.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tables<'a> {
    pub pod_terms: Option<&'a TermTables>,
    pub topology_spread: Option<&'a SpreadTables>,
}

/// One node's entries.
#[derive(Debug, Clone, Copy)]
pub struct NodeEntries<'a> {
    pub filters: &'a Entries<FilterCell>,
    pub scores: &'a Entries<ScoreCell>,
}

impl<'a> NodeEntries<'a> {
    /// The Filter entry of `plugin`, when the profile runs it at Filter.
    pub fn filter(&self, plugin: &PluginId) -> Option<FilterResult<'a>> {
        self.filters.iter().find(|f| f.plugin == plugin)
    }

    /// The Score entry of `plugin`, when the node is scored and the profile scores with it.
    pub fn score(&self, plugin: &PluginId) -> Option<ScoreResult<'a>> {
        self.scores.iter().find(|s| s.plugin == plugin)
    }
}

/// Every node's name and Filter entries, as a suggestion reads the other nodes. What it works
/// out over all of them is kept once per key ([`Peers::few_once`]): a suggestion is made for
/// every rejected node, and scanning every node again for each would be quadratic.
#[derive(Debug)]
pub struct Peers<'a> {
    nodes: Vec<(&'a str, &'a Entries<FilterCell>)>,
    memo: RefCell<HashMap<String, Few>>,
}

impl<'a> Peers<'a> {
    pub fn new(nodes: Vec<(&'a str, &'a Entries<FilterCell>)>) -> Self {
        Peers {
            nodes,
            memo: RefCell::default(),
        }
    }

    /// Each node's name and its Filter entry of `plugin` (nodes without one left out).
    pub fn filters<'s>(
        &'s self,
        plugin: &'s PluginId,
    ) -> impl Iterator<Item = (&'a str, FilterResult<'a>)> + 's {
        self.nodes
            .iter()
            .filter_map(move |&(name, f)| Some((name, f.iter().find(|f| f.plugin == plugin)?)))
    }

    /// Each node's name and all its Filter entries.
    pub fn nodes(&self) -> impl Iterator<Item = (&'a str, &'a Entries<FilterCell>)> + '_ {
        self.nodes.iter().copied()
    }

    /// The names `make` picks, worked out once for `key`.
    pub fn few_once(&self, key: &str, make: impl FnOnce() -> Vec<String>) -> Few {
        if let Some(f) = self.memo.borrow().get(key) {
            return f.clone();
        }
        let f = Few::of(make());
        self.memo.borrow_mut().insert(key.to_string(), f.clone());
        f
    }
}

/// A plugin's explanation of its results. Every method has a default that says nothing, which
/// is all a plugin this version does not model says.
pub trait Explain: Sync {
    /// The table columns its verdicts show in; none: OTHER sums it up.
    fn columns(&self) -> &'static [Column] {
        &[]
    }

    /// Its part of the cell in `column` on one node; `None` when it has no entry there.
    fn cell(&self, _column: Column, _node: NodeEntries<'_>, _tables: Tables<'_>) -> Option<Mark> {
        None
    }

    /// A failing Filter in OTHER's few words: its reason, unless it has shorter ones.
    fn failed(&self, f: FilterResult<'_>) -> String {
        format!("✗ {}", f.reason().unwrap_or_default())
    }

    /// Its name among the score parts of `-o wide`, when shorter than the plugin's.
    fn short_name(&self) -> Option<&'static str> {
        None
    }

    /// Where its drill-down lines go.
    fn section(&self) -> Section {
        Section::Entry
    }

    /// The drill-down lines of its Filter entry on one node.
    fn filter_lines(
        &self,
        _f: FilterResult<'_>,
        _tables: Tables<'_>,
        _p: &dyn Paint,
    ) -> Vec<String> {
        Vec::new()
    }

    /// The drill-down lines of its Score entry on one node.
    fn score_lines(&self, _s: ScoreResult<'_>, _tables: Tables<'_>, _p: &dyn Paint) -> Vec<String> {
        Vec::new()
    }

    /// What would make the node pass its failing Filter (`f`), read from the details; `peers`
    /// are every node's entries, for a change that names other nodes (those big enough, a
    /// domain's nodes that refuse the pod).
    fn suggestions(
        &self,
        _f: FilterResult<'_>,
        _pod: &Pod,
        _tables: Tables<'_>,
        _peers: &Peers<'_>,
    ) -> Vec<Change> {
        Vec::new()
    }

    /// What makes it reject the nodes it rejects most, when the details of all of them (one
    /// each, every one this plugin's) say the same; `reason` is the status they all record.
    fn cause(&self, _all: &[&FilterDetails], _reason: &str, _tables: Tables<'_>) -> Option<Cause> {
        None
    }

    /// What on a node breaks a running pod's rule, in the rule's own terms (the audit).
    fn broken(&self, _details: &FilterDetails) -> String {
        String::new()
    }

    /// A field of its own in the node's JSON (its name and value), read from its Filter entry.
    fn node_fields(&self, _f: FilterResult<'_>) -> Option<(&'static str, serde_json::Value)> {
        None
    }
}

/// The explanation of a plugin that says nothing of its own.
#[derive(Debug)]
pub struct Silent;

impl Explain for Silent {}

/// A label key as a table cell shows it: well-known prefixes dropped.
pub fn short_key(key: &str) -> &str {
    key.rsplit_once('/').map(|(_, k)| k).unwrap_or(key)
}

/// "node has zone=eu-west-1c", "node has no gpu" (no such label): how a node's own value is
/// said wherever one is shown, so that it never reads as the requirement it is compared with.
pub fn node_has(key: &str, value: Option<&str>) -> String {
    match value {
        Some(v) => format!("node has {key}={v}"),
        None => format!("node has no {key}"),
    }
}

/// A topology domain on this node: "here" when the key is the hostname, else
/// "in zone=eu-west-1a".
pub fn short_domain(key: &str, value: Option<&str>) -> String {
    if key == "kubernetes.io/hostname" {
        "here".to_string()
    } else {
        format!("in {}={}", short_key(key), value.unwrap_or_default())
    }
}

/// `a, b, c and 4 more`: a few names, the count of the rest (the JSON has them all).
pub fn few(names: &[String]) -> String {
    const SHOWN: usize = 3;
    let shown = names[..names.len().min(SHOWN)].join(", ");
    match names.len().saturating_sub(SHOWN) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

/// A resource amount in the units people write: cpu in cores or milli-cores, memory-like
/// resources in the largest binary unit they reach (whole when exact, else one decimal, as
/// `8.6Gi of 30.8Gi` reads where `8776Mi of 32306072Ki` did not), counts as plain numbers.
pub fn amount(resource: &str, v: i64) -> String {
    if resource == "cpu" {
        return if v % 1000 == 0 {
            (v / 1000).to_string()
        } else {
            format!("{v}m")
        };
    }
    let bytes_like = resource == "memory"
        || resource == "ephemeral-storage"
        || resource.starts_with("hugepages-");
    if bytes_like && v != 0 {
        for (suffix, shift) in [("Ti", 40), ("Gi", 30), ("Mi", 20), ("Ki", 10)] {
            let unit = 1i64 << shift;
            if v % unit == 0 {
                return format!("{}{suffix}", v / unit);
            }
            if v.abs() >= unit && shift >= 20 {
                return format!("{:.1}{suffix}", v as f64 / unit as f64);
            }
        }
    }
    v.to_string()
}

/// A requirement as written: `zone In [a,b]`, `gpu Exists`.
pub fn requirement(r: &RequirementCheck) -> String {
    match r.written.operator.as_str() {
        "Exists" | "DoesNotExist" => format!("{} {}", r.written.key, r.written.operator),
        _ => format!(
            "{} {} [{}]",
            r.written.key,
            r.written.operator,
            r.written.values.join(",")
        ),
    }
}

/// A node selector's terms, one line each, then each requirement with the node's value.
pub fn selector_lines(sel: &SelectorCheck, p: &dyn Paint, indent: &str) -> Vec<String> {
    let mut out = Vec::new();
    if sel.terms.is_empty() {
        out.push(format!("{indent}no terms: matches no node"));
    }
    for (i, t) in sel.terms.iter().enumerate() {
        let problem = match &t.problem {
            Some(TermProblem::Empty) => " (empty term: never matches)".to_string(),
            Some(TermProblem::Invalid { errors }) => format!(
                " (invalid, so it never matches, as upstream: {})",
                aggregate(errors)
            ),
            None => String::new(),
        };
        out.push(format!(
            "{indent}{} term {i}{problem}",
            p.mark(Some(t.matched))
        ));
        for r in t.match_expressions.iter() {
            out.push(format!(
                "{indent}  {} {}  {}",
                p.mark(Some(r.matched)),
                requirement(r),
                node_has(&r.written.key, r.node_value.as_deref())
            ));
        }
        for r in t.match_fields.iter() {
            out.push(format!(
                "{indent}  {} field {}  {}",
                p.mark(Some(r.matched)),
                requirement(r),
                node_has(&r.written.key, r.node_value.as_deref())
            ));
        }
    }
    out
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

    #[test]
    fn amounts_read_like_manifests() {
        assert_eq!(amount("cpu", 6000), "6");
        assert_eq!(amount("cpu", 250), "250m");
        assert_eq!(amount("memory", 24 << 30), "24Gi");
        assert_eq!(amount("memory", 7826964 * 1024), "7.5Gi");
        assert_eq!(amount("memory", 8776 << 20), "8.6Gi");
        assert_eq!(amount("memory", 32306072 << 10), "30.8Gi");
        assert_eq!(amount("memory", 704 << 20), "704Mi");
        assert_eq!(amount("memory", 1000 << 10), "1000Ki");
        assert_eq!(amount("memory", 1500), "1500");
        assert_eq!(amount("memory", (1 << 30) + 1), "1.0Gi");
        assert_eq!(amount("nvidia.com/gpu", 2), "2");
        assert_eq!(amount("memory", 0), "0");
    }
}
