//! NodeAffinity (`pkg/scheduler/framework/plugins/nodeaffinity`): the pod's nodeSelector AND
//! its required node affinity, the profile's `addedAffinity`, and the preferred terms' score.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::Serialize;

use super::profile::NodeAffinityArgs;
use super::selector::{NodeSelector, ParsedTerm, PreferredTerms, SelectorCheck, TermCheck};
use super::{
    Code, FilterDetails as AnyFilterDetails, Input, Plugin, PreFilterOutcome, PreScoreOutcome,
    ScoreDetails as AnyScoreDetails, Status,
};
use crate::state::Domains;

pub const REASON_POD: &str = "node(s) didn't match Pod's node affinity/selector";
pub const REASON_ENFORCED: &str = "node(s) didn't match scheduler-enforced node affinity";
pub const REASON_CONFLICT: &str = "pod affinity terms conflict";

/// One `spec.nodeSelector` entry against the node.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelCheck {
    /// The entry as written, shared by every node's check.
    pub key: Arc<str>,
    pub value: Arc<str>,
    /// The node's value, shared with the topology index.
    pub node_value: Option<Arc<str>>,
    pub matched: bool,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FilterDetails {
    /// The profile's `addedAffinity.requiredDuringScheduling...`, checked first. Boxed: a
    /// profile rarely sets it, and this record is made and moved for every node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub added_affinity: Option<Box<SelectorCheck>>,
    pub node_selector: Vec<LabelCheck>,
    /// The pod's required node affinity; `None` when it has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<SelectorCheck>,
}

/// One preferred term and whether it matched this node.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreferredCheck {
    pub weight: i32,
    /// "pod" or "addedAffinity".
    pub source: &'static str,
    #[serde(flatten)]
    pub term: TermCheck,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreDetails {
    pub terms: Vec<PreferredCheck>,
}

#[derive(Debug)]
pub struct NodeAffinity<'a> {
    input: Input<'a>,
    args: &'a NodeAffinityArgs,
    required: Option<NodeSelector>,
    /// `Ok(None)` when the pod has no preferred list; `Err` when a preferred term is invalid.
    preferred: Result<Option<PreferredTerms>, String>,
    /// Per selector (added required, required, added preferred, pod preferred), per term, per
    /// expression: the domains of its key, so a node's value is an index, not a map lookup.
    domains: [Vec<Vec<Option<&'a Domains>>>; 4],
    /// `spec.nodeSelector`'s entries with the domains of their keys.
    node_selector: Vec<(Arc<str>, Arc<str>, Option<&'a Domains>)>,
}

/// The domains of every expression key of `terms`.
fn term_domains<'a, 't>(
    input: Input<'a>,
    terms: impl Iterator<Item = &'t ParsedTerm>,
) -> Vec<Vec<Option<&'a Domains>>> {
    terms
        .map(|t| {
            t.expression_keys()
                .map(|k| input.state.topology.domains(k))
                .collect()
        })
        .collect()
}

/// Node `node`'s value of expression `e` of term `t`, shared.
fn value_on(
    domains: &[Vec<Option<&Domains>>],
    node: usize,
    t: usize,
    e: usize,
) -> Option<Arc<str>> {
    let d = domains.get(t)?.get(e).copied().flatten()?;
    d.of(node).map(|i| d.values[i as usize].clone())
}

impl<'a> NodeAffinity<'a> {
    pub fn new(input: Input<'a>, args: &'a NodeAffinityArgs) -> Self {
        let na = input.pod.node_affinity.as_deref();
        let required = na
            .and_then(|a| {
                a.required_during_scheduling_ignored_during_execution
                    .as_ref()
            })
            .map(NodeSelector::parse);
        let preferred = match na.and_then(|a| {
            a.preferred_during_scheduling_ignored_during_execution
                .as_deref()
        }) {
            Some(terms) => PreferredTerms::parse(terms).map(Some),
            None => Ok(None),
        };
        let domains = [
            term_domains(input, args.added_required.iter().flat_map(|s| &s.terms)),
            term_domains(input, required.iter().flat_map(|s| &s.terms)),
            term_domains(
                input,
                args.added_preferred
                    .iter()
                    .flat_map(|p| p.terms.iter().map(|(_, t)| t)),
            ),
            term_domains(
                input,
                preferred
                    .iter()
                    .flatten()
                    .flat_map(|p| p.terms.iter().map(|(_, t)| t)),
            ),
        ];
        let node_selector = input
            .pod
            .node_selector
            .iter()
            .flatten()
            .map(|(k, v)| {
                let domains = input.state.topology.domains(k);
                (Arc::from(k.as_str()), Arc::from(v.as_str()), domains)
            })
            .collect();
        NodeAffinity {
            input,
            args,
            required,
            preferred,
            domains,
            node_selector,
        }
    }

    fn filter_details(&self, ni: usize, name: &str) -> FilterDetails {
        FilterDetails {
            added_affinity: self.args.added_required.as_ref().map(|s| {
                Box::new(s.explain_with(name, |t, e, _| value_on(&self.domains[0], ni, t, e)))
            }),
            node_selector: self
                .node_selector
                .iter()
                .map(|(key, value, domains)| {
                    let node_value =
                        domains.and_then(|d| d.of(ni).map(|i| d.values[i as usize].clone()));
                    LabelCheck {
                        key: key.clone(),
                        value: value.clone(),
                        matched: node_value.as_deref() == Some(&**value),
                        node_value,
                    }
                })
                .collect(),
            required: self
                .required
                .as_ref()
                .map(|s| s.explain_with(name, |t, e, _| value_on(&self.domains[1], ni, t, e))),
        }
    }
}

impl Plugin for NodeAffinity<'_> {
    fn pre_filter(&mut self) -> PreFilterOutcome {
        let pod = self.input.pod;
        if self.required.is_none()
            && self.args.added_required.is_none()
            && pod.node_selector.is_none()
        {
            return PreFilterOutcome::Skip;
        }
        let Some(required) = &self.required else {
            return PreFilterOutcome::Proceed(None);
        };
        if required.terms.is_empty() {
            return PreFilterOutcome::Proceed(None);
        }
        // Node-name narrowing from `metadata.name In` field requirements: intersected within a
        // term, united across terms; any term without one means no narrowing.
        let mut union: BTreeSet<String> = BTreeSet::new();
        for term in &required.terms {
            let mut names: Option<BTreeSet<String>> = None;
            for r in term.source().match_fields.iter().flatten() {
                if r.key == "metadata.name" && r.operator == "In" {
                    let set: BTreeSet<String> = r.values.iter().flatten().cloned().collect();
                    names = Some(match names {
                        Some(prev) => prev.intersection(&set).cloned().collect(),
                        None => set,
                    });
                }
            }
            match names {
                None => return PreFilterOutcome::Proceed(None),
                Some(n) => union.extend(n),
            }
        }
        if union.is_empty() {
            PreFilterOutcome::Reject(Status::new(
                Code::UnschedulableAndUnresolvable,
                REASON_CONFLICT,
            ))
        } else {
            PreFilterOutcome::Proceed(Some(union))
        }
    }

    fn filter(&self, ni: usize) -> (Option<Status>, Option<AnyFilterDetails>) {
        let node = self.input.node(ni);
        let details = self.filter_details(ni, &node.name);
        let status = if details.added_affinity.as_ref().is_some_and(|c| !c.matched) {
            Some(Status::new(
                Code::UnschedulableAndUnresolvable,
                REASON_ENFORCED,
            ))
        } else if details.node_selector.iter().any(|c| !c.matched)
            || details.required.as_ref().is_some_and(|c| !c.matched)
        {
            Some(Status::new(Code::UnschedulableAndUnresolvable, REASON_POD))
        } else {
            None
        };
        (
            status,
            Some(AnyFilterDetails::NodeAffinity(Box::new(details))),
        )
    }

    fn pre_score(&mut self, _candidates: &[usize]) -> PreScoreOutcome {
        match &self.preferred {
            Err(e) => PreScoreOutcome::Error(e.clone()),
            Ok(None) if self.args.added_preferred.is_none() => PreScoreOutcome::Skip,
            Ok(_) => PreScoreOutcome::Proceed,
        }
    }

    fn score(&self, ni: usize) -> Result<(i64, Option<AnyScoreDetails>), String> {
        let node = self.input.node(ni);
        let preferred = self.preferred.as_ref().map_err(|e| e.clone())?;
        // Sized once: a vector grown by push starts at four entries, on every candidate.
        let count = |p: Option<&PreferredTerms>| p.map_or(0, |p| p.terms.len());
        let mut terms = Vec::with_capacity(
            count(self.args.added_preferred.as_ref()) + count(preferred.as_ref()),
        );
        let mut raw = 0;
        let sources = [
            (
                "addedAffinity",
                self.args.added_preferred.as_ref(),
                &self.domains[2],
            ),
            ("pod", preferred.as_ref(), &self.domains[3]),
        ];
        for (source, list, domains) in sources {
            let Some(list) = list else { continue };
            // `PreferredTerms::score`, from the explanations: the weights of matching terms.
            for (t, (weight, term)) in list.terms.iter().enumerate() {
                let term = term.explain_with(&node.name, |e, _| value_on(domains, ni, t, e));
                if term.matched {
                    raw += i64::from(*weight);
                }
                terms.push(PreferredCheck {
                    weight: *weight,
                    source,
                    term,
                });
            }
        }
        Ok((
            raw,
            Some(AnyScoreDetails::NodeAffinity(ScoreDetails { terms })),
        ))
    }

    fn normalize(&self, scores: &mut [i64]) {
        super::default_normalize(scores, false);
    }
}
