//! NodeAffinity's explanation: the first requirement the node fails in the NODE-AFF column,
//! every requirement with the node's value in the drill-down, the label or expression as the
//! change, and the label most nodes lack.

use std::collections::BTreeSet;
use std::fmt;

use super::{Cause, Change};
use crate::scheduler::details::{
    Cause as AnyCause, Change as AnyChange, FilterDetails, ScoreDetails,
};
use crate::scheduler::explain::{
    Column, Explain, Mark, NodeEntries, Paint, Peers, Tables, node_has, requirement,
    selector_lines, short_key,
};
use crate::scheduler::plugin_id::PluginId;
use crate::scheduler::result::{FilterResult, ScoreResult};
use crate::state::Pod;
use crate::state::selector::SelectorCheck;

#[derive(Debug)]
pub struct Explainer;

impl Explain for Explainer {
    fn columns(&self) -> &'static [Column] {
        &[Column::NodeAffinity]
    }

    fn cell(&self, _: Column, node: NodeEntries<'_>, _: Tables<'_>) -> Option<Mark> {
        let f = node.filter(&PluginId::NodeAffinity)?;
        Some(match (f.pass, f.details) {
            (None, _) => Mark::Unknown,
            (Some(true), _) if f.skipped => Mark::Passes(Some("-".into())),
            (Some(true), _) => Mark::Passes(None),
            (Some(false), Some(FilterDetails::NodeAffinity(d))) => Mark::Fails(
                if let Some(a) = d.added_affinity.as_ref().filter(|a| !a.matched) {
                    format!("✗ enforced: {}", first_failing(a))
                } else if let Some(c) = d.node_selector.iter().find(|c| !c.matched) {
                    format!("✗ {}", node_has(short_key(&c.key), c.node_value.as_deref()))
                } else if let Some(r) = &d.required {
                    format!("✗ {}", first_failing(r))
                } else {
                    "✗".into()
                },
            ),
            (Some(false), _) => Mark::Fails("✗".into()),
        })
    }

    fn short_name(&self) -> Option<&'static str> {
        Some("nodeaff")
    }

    fn filter_lines(&self, f: FilterResult<'_>, _: Tables<'_>, p: &dyn Paint) -> Vec<String> {
        let Some(FilterDetails::NodeAffinity(d)) = f.details else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if let Some(a) = &d.added_affinity {
            out.push(format!(
                "      scheduler-enforced (addedAffinity): {}",
                p.mark(Some(a.matched))
            ));
            out.extend(selector_lines(a, p, "        "));
        }
        for c in &d.node_selector {
            out.push(format!(
                "      {} nodeSelector {}={}  {}",
                p.mark(Some(c.matched)),
                c.key,
                c.value,
                node_has(&c.key, c.node_value.as_deref())
            ));
        }
        if let Some(r) = &d.required {
            out.push(format!(
                "      {} required node affinity (terms ORed)",
                p.mark(Some(r.matched))
            ));
            out.extend(selector_lines(r, p, "        "));
        }
        out
    }

    fn score_lines(&self, s: ScoreResult<'_>, _: Tables<'_>, p: &dyn Paint) -> Vec<String> {
        let Some(ScoreDetails::NodeAffinity(d)) = s.details else {
            return Vec::new();
        };
        d.terms
            .iter()
            .map(|t| {
                format!(
                    "      {} weight {} ({})",
                    p.mark(Some(t.term.matched)),
                    t.weight,
                    t.source
                )
            })
            .collect()
    }

    fn suggestions(
        &self,
        f: FilterResult<'_>,
        _: &Pod,
        _: Tables<'_>,
        _: &Peers<'_>,
    ) -> Vec<AnyChange> {
        let Some(FilterDetails::NodeAffinity(d)) = f.details else {
            return Vec::new();
        };
        let mut out: Vec<AnyChange> = Vec::new();
        for c in d.node_selector.iter().filter(|c| !c.matched) {
            out.push(
                Change::Label {
                    key: c.key.clone(),
                    value: c.value.clone(),
                    node_value: c.node_value.clone(),
                }
                .into(),
            );
        }
        let selectors = d.added_affinity.as_deref().into_iter().chain(&d.required);
        for sel in selectors.filter(|s| !s.matched) {
            for (i, t) in sel.terms.iter().enumerate() {
                for r in t.match_expressions.iter().chain(&t.match_fields) {
                    if !r.matched {
                        out.push(
                            Change::Expression {
                                term: i,
                                key: r.written.key.clone(),
                                operator: r.written.operator.clone(),
                                values: r.written.values.clone(),
                                node_value: r.node_value.clone(),
                            }
                            .into(),
                        );
                    }
                }
            }
        }
        out
    }

    /// The label each node fails first (its node selector's, then its single required
    /// term's), when that is the same label on every node.
    fn cause(&self, all: &[&FilterDetails], _: &str, _: Tables<'_>) -> Option<AnyCause> {
        let mut key: Option<&str> = None;
        let mut values = BTreeSet::new();
        let mut missing = 0;
        for d in all {
            let FilterDetails::NodeAffinity(d) = d else {
                return None;
            };
            if d.added_affinity.as_ref().is_some_and(|a| !a.matched) {
                return None;
            }
            let (k, v) = if let Some(c) = d.node_selector.iter().find(|c| !c.matched) {
                (&*c.key, c.node_value.as_deref())
            } else {
                let r = d.required.as_ref()?;
                let [term] = r.terms.as_slice() else {
                    return None;
                };
                let r = term
                    .match_expressions
                    .iter()
                    .chain(&term.match_fields)
                    .find(|r| !r.matched)?;
                (&*r.written.key, r.node_value.as_deref())
            };
            if *key.get_or_insert(k) != k {
                return None;
            }
            match v {
                Some(v) => {
                    values.insert(v.to_string());
                }
                None => missing += 1,
            }
        }
        Some(
            Cause::NodeLabel {
                key: key?.to_string(),
                values: values.into_iter().collect(),
                missing,
            }
            .into(),
        )
    }

    fn broken(&self, d: &FilterDetails) -> String {
        let FilterDetails::NodeAffinity(d) = d else {
            return String::new();
        };
        let mut parts: Vec<String> = Vec::new();
        if let Some(a) = d.added_affinity.as_deref().filter(|a| !a.matched) {
            parts.push(format!("profile's addedAffinity: {}", failing_terms(a)));
        }
        parts.extend(d.node_selector.iter().filter(|c| !c.matched).map(|c| {
            format!(
                "nodeSelector {}={}: {}",
                c.key,
                c.value,
                node_has(&c.key, c.node_value.as_deref())
            )
        }));
        if let Some(r) = d.required.as_ref().filter(|r| !r.matched) {
            parts.push(failing_terms(r));
        }
        parts.join("; ")
    }
}

/// The first requirement of a selector's only term the node fails, in a cell's few words.
fn first_failing(sel: &SelectorCheck) -> String {
    let Some(t) = sel.terms.first() else {
        return "no terms: matches nothing".to_string();
    };
    if sel.terms.len() > 1 {
        return format!("none of {} terms", sel.terms.len());
    }
    if t.problem.is_some() {
        return "invalid term".to_string();
    }
    t.match_expressions
        .iter()
        .chain(&t.match_fields)
        .find(|r| !r.matched)
        .map(|r| node_has(short_key(&r.written.key), r.node_value.as_deref()))
        .unwrap_or_else(|| "term".to_string())
}

/// Each term of a required node selector with the requirements the node fails.
fn failing_terms(sel: &SelectorCheck) -> String {
    if sel.terms.is_empty() {
        return "no terms: matches nothing".to_string();
    }
    let terms: Vec<String> = sel
        .terms
        .iter()
        .enumerate()
        .map(|(i, t)| {
            if t.problem.is_some() {
                return format!("term[{i}] invalid, never matches");
            }
            let failing: Vec<String> = t
                .match_expressions
                .iter()
                .chain(&t.match_fields)
                .filter(|r| !r.matched)
                .map(|r| {
                    format!(
                        "{} ({})",
                        requirement(r),
                        node_has(&r.written.key, r.node_value.as_deref())
                    )
                })
                .collect();
            format!("term[{i}] {}", failing.join(", "))
        })
        .collect();
    format!("required node affinity {}", terms.join(" | "))
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::Label {
                key,
                value,
                node_value,
            } => match node_value {
                Some(v) => write!(
                    f,
                    "nodeSelector wants {key}={value}, the node has {key}={v}"
                ),
                None => write!(
                    f,
                    "nodeSelector wants {key}={value}, the node has no {key} label"
                ),
            },
            Change::Expression {
                term,
                key,
                operator,
                values,
                node_value,
            } => {
                let node = match node_value {
                    Some(v) => format!("the node has {key}={v}"),
                    None => format!("the node has no {key}"),
                };
                write!(
                    f,
                    "required term {term}: {key} {operator} [{}] fails: {node}",
                    values.join(",")
                )
            }
        }
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::NodeLabel {
                key,
                values,
                missing,
            } => {
                let mut parts = Vec::new();
                if !values.is_empty() {
                    parts.push(format!("nodes have {key}={}", values.join(" or ")));
                }
                if *missing > 0 {
                    parts.push(format!(
                        "{missing} node{} no {key}",
                        if *missing == 1 { " has" } else { "s have" }
                    ));
                }
                f.write_str(&parts.join("; "))
            }
        }
    }
}
