//! NodeAffinity (`pkg/scheduler/framework/plugins/nodeaffinity`): the pod's nodeSelector AND
//! its required node affinity, the profile's `addedAffinity`, and the preferred terms' score.

pub mod explain;

mod cache;

use std::collections::BTreeSet;
use std::convert::Infallible;
use std::sync::Arc;

use serde::Serialize;

use self::cache::{Shared, required_of};
use super::config::NodeAffinityArgs;
use super::plugin::{Input, Plugin, default_normalize};
use super::status::{Code, PreFilterOutcome, PreScoreOutcome, Status};
use crate::state::Domains;
use crate::state::selector::{
    NodeSelector, ParsedTerm, PreferredTerms, SelectorCheck, TermCheck, aggregate,
};

pub use self::cache::LastRequired;

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

/// What would make a node whose labels fail the pod's node selection take the pod.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Change {
    /// A `nodeSelector` entry the node's label does not give.
    Label {
        key: Arc<str>,
        value: Arc<str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        node_value: Option<Arc<str>>,
    },
    /// A required node-affinity expression the node fails (every term fails: any one term
    /// satisfied would do).
    Expression {
        term: usize,
        key: String,
        operator: String,
        values: Vec<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        node_value: Option<Arc<str>>,
    },
}

/// What makes the plugin reject the nodes it rejects most.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all_fields = "camelCase")]
pub enum Cause {
    /// The label of the pod's node selector or affinity the nodes fail: their values, and how
    /// many lack it.
    NodeLabel {
        key: String,
        values: Vec<String>,
        missing: usize,
    },
}

#[derive(Debug)]
pub struct NodeAffinity<'a> {
    input: Input<'a>,
    args: &'a NodeAffinityArgs,
    required: Option<Arc<NodeSelector>>,
    /// `Ok(None)` when the pod has no preferred list; `Err` when a preferred term is invalid.
    preferred: Result<Option<PreferredTerms>, String>,
    /// Per selector (added required, required, added preferred, pod preferred), per term, per
    /// expression: the domains of its key, so a node's value is an index, not a map lookup.
    domains: [Vec<Vec<Option<&'a Domains>>>; 4],
    /// `spec.nodeSelector`'s entries with the domains of their keys.
    node_selector: Vec<(Arc<str>, Arc<str>, Option<&'a Domains>)>,
    /// Filter's details, shared by the nodes with equal values for every key it reads.
    filter_shared: Option<Shared<FilterDetails>>,
    /// Score's details on the candidates, likewise; made by PreScore.
    score_shared: Option<Shared<ScoreDetails>>,
}

fn reads_fields<'t>(mut terms: impl Iterator<Item = &'t ParsedTerm>) -> bool {
    terms.any(ParsedTerm::reads_fields)
}

/// The domains of every expression key of `terms`.
fn term_domains<'a, 't>(
    input: Input<'a>,
    terms: impl Iterator<Item = &'t ParsedTerm>,
) -> Vec<Vec<Option<&'a Domains>>> {
    terms
        .map(|t| {
            t.expression_keys()
                .map(|k| input.state.topology().domains(k))
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
        let required = required_of(input.pod);
        let mut plugin = Self::parse(input, args, required, true);
        let selectors = || {
            plugin
                .args
                .added_required
                .iter()
                .chain(plugin.required.as_deref())
        };
        let filters = !plugin.node_selector.is_empty() || selectors().next().is_some();
        if filters && !reads_fields(selectors().flat_map(|s| &s.terms)) {
            let p = &plugin;
            let selector = p.node_selector.iter().map(|(_, _, d)| *d);
            let terms = p.domains[0].iter().chain(&p.domains[1]).flatten().copied();
            let keys: Vec<_> = selector.chain(terms).collect();
            let nodes = input.state.nodes().len();
            plugin.filter_shared = Shared::new(nodes, 0..nodes, &keys, |ni| {
                p.filter_details(ni, &input.node(ni).name)
            });
        }
        plugin
    }

    /// The plugin for PreFilter and Filter on one node (the audit of a bound pod): Filter's
    /// details are made for that node alone, not shared out over every node first. The
    /// preferred terms are Score's: they are left unparsed, and the plugin scores nothing.
    /// `last` is the required node affinity of the pod checked before, parsed.
    pub fn alone(input: Input<'a>, args: &'a NodeAffinityArgs, last: &mut LastRequired) -> Self {
        let required = last.of(input.pod);
        Self::parse(input, args, required, false)
    }

    /// The plugin with the pod's required node affinity parsed, and its preferred terms when
    /// `preferred`; nothing made per node.
    fn parse(
        input: Input<'a>,
        args: &'a NodeAffinityArgs,
        required: Option<Arc<NodeSelector>>,
        preferred: bool,
    ) -> Self {
        let na = input.pod.template.node_affinity.as_deref();
        let preferred = match na.filter(|_| preferred).and_then(|a| {
            a.preferred_during_scheduling_ignored_during_execution
                .as_deref()
        }) {
            Some(terms) => PreferredTerms::parse(terms)
                .map(Some)
                .map_err(|e| aggregate(&e)),
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
            .template
            .node_selector
            .iter()
            .flat_map(|s| s.iter())
            .map(|(k, v)| {
                let domains = input.state.topology().domains(k);
                (Arc::from(k), Arc::from(v), domains)
            })
            .collect();
        NodeAffinity {
            input,
            args,
            required,
            preferred,
            domains,
            node_selector,
            filter_shared: None,
            score_shared: None,
        }
    }

    /// Every preferred term (the profile's, then the pod's) explained on node `ni`.
    fn score_details(&self, ni: usize) -> ScoreDetails {
        let name = &self.input.node(ni).name;
        let preferred = self.preferred.as_ref().ok().and_then(Option::as_ref);
        // Sized once: a vector grown by push starts at four entries, on every candidate.
        let count = |p: Option<&PreferredTerms>| p.map_or(0, |p| p.terms.len());
        let mut terms =
            Vec::with_capacity(count(self.args.added_preferred.as_ref()) + count(preferred));
        let sources = [
            (
                "addedAffinity",
                self.args.added_preferred.as_ref(),
                &self.domains[2],
            ),
            ("pod", preferred, &self.domains[3]),
        ];
        for (source, list, domains) in sources {
            let Some(list) = list else { continue };
            for (t, (weight, term)) in list.terms.iter().enumerate() {
                terms.push(PreferredCheck {
                    weight: *weight,
                    source,
                    term: term.explain_with(name, |e, _| value_on(domains, ni, t, e)),
                });
            }
        }
        ScoreDetails { terms }
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
    type FilterDetails = Arc<FilterDetails>;
    type ScoreDetails = Arc<ScoreDetails>;
    type Tables = Infallible;

    fn pre_filter(&mut self) -> PreFilterOutcome {
        let pod = self.input.pod;
        if self.required.is_none()
            && self.args.added_required.is_none()
            && pod.template.node_selector.is_none()
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

    fn filter(&self, ni: usize) -> (Option<Status>, Option<Self::FilterDetails>) {
        let details = match self.filter_shared.as_ref().and_then(|s| s.get(ni)) {
            Some(shared) => shared.clone(),
            None => Arc::new(self.filter_details(ni, &self.input.node(ni).name)),
        };
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
        (status, Some(details))
    }

    fn pre_score(&mut self, candidates: &[usize]) -> PreScoreOutcome {
        let preferred = match &self.preferred {
            Err(e) => return PreScoreOutcome::Error(e.clone()),
            Ok(None) if self.args.added_preferred.is_none() => return PreScoreOutcome::Skip,
            Ok(p) => p.as_ref(),
        };
        let lists = self.args.added_preferred.iter().chain(preferred);
        if !reads_fields(lists.flat_map(|p| p.terms.iter().map(|(_, t)| t))) {
            let keys: Vec<_> = self.domains[2]
                .iter()
                .chain(&self.domains[3])
                .flatten()
                .copied()
                .collect();
            let nodes = self.input.state.nodes().len();
            self.score_shared = Shared::new(nodes, candidates.iter().copied(), &keys, |ni| {
                self.score_details(ni)
            });
        }
        PreScoreOutcome::Proceed
    }

    fn score(&self, ni: usize) -> Result<(i64, Option<Self::ScoreDetails>), String> {
        self.preferred.as_ref().map_err(|e| e.clone())?;
        let details = match self.score_shared.as_ref().and_then(|s| s.get(ni)) {
            Some(shared) => shared.clone(),
            None => Arc::new(self.score_details(ni)),
        };
        // `PreferredTerms::score`, from the explanations: the weights of matching terms.
        let raw = details
            .terms
            .iter()
            .filter(|t| t.term.matched)
            .map(|t| i64::from(t.weight))
            .sum();
        Ok((raw, Some(details)))
    }

    fn normalize(&self, scores: &mut [i64]) {
        default_normalize(scores, false);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::{Value, json};

    use super::{FilterDetails, ScoreDetails};
    use crate::scheduler::testing::evaluate_default;
    use crate::scheduler::{Evaluation, FilterDetails as AnyFilter, ScoreDetails as AnyScore};

    fn node(name: &str, zone: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "Node",
               "metadata": {"name": name, "labels": {"zone": zone}},
               "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
    }

    fn pod(required: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
               "spec": {"containers": [{"name": "c", "image": "x"}],
                        "affinity": {"nodeAffinity": {
                            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [required]},
                            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "preference":
                                {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}}]}}}})
    }

    #[test]
    fn the_parse_of_the_last_pod_is_taken_only_for_the_same_terms() {
        use crate::scheduler::testing::pod_of;
        let zone = |z: &str| {
            pod(json!({"matchExpressions": [{"key": "zone", "operator": "In", "values": [z]}]}))
        };
        let a = pod_of(zone("a"));
        // A replica decoded from the same template bytes shares its terms.
        let replica = a.clone();
        let b = pod_of(zone("b"));
        let mut last = super::LastRequired::default();
        let parsed = last.of(&a).expect("parsed");
        assert!(Arc::ptr_eq(&parsed, &last.of(&replica).expect("parsed")));
        let values = |p: &super::NodeSelector| {
            p.terms[0]
                .source()
                .match_expressions
                .clone()
                .expect("expressions")[0]
                .values
                .clone()
        };
        assert_eq!(
            values(&last.of(&b).expect("parsed")),
            Some(vec!["b".to_string()])
        );
        assert_eq!(
            values(&last.of(&a).expect("parsed")),
            Some(vec!["a".to_string()])
        );
        let mut without = a.clone();
        std::sync::Arc::make_mut(&mut without.template).node_affinity = None;
        assert!(last.of(&without).is_none());
    }

    fn filter(eval: &Evaluation, node: &str) -> Arc<FilterDetails> {
        let n = eval.nodes.iter().find(|n| &*n.name == node).expect("node");
        match n
            .filters
            .iter()
            .find(|f| *f.plugin == crate::scheduler::PluginId::NodeAffinity)
        {
            Some(f) => match &f.details {
                Some(AnyFilter::NodeAffinity(d)) => d.clone(),
                other => panic!("NodeAffinity details on {node}: {other:?}"),
            },
            None => panic!("no NodeAffinity entry on {node}"),
        }
    }

    fn score(eval: &Evaluation, node: &str) -> (Option<i64>, Arc<ScoreDetails>) {
        let n = eval.nodes.iter().find(|n| &*n.name == node).expect("node");
        match n
            .scores
            .iter()
            .find(|s| *s.plugin == crate::scheduler::PluginId::NodeAffinity)
        {
            Some(s) => match &s.details {
                Some(AnyScore::NodeAffinity(d)) => (s.raw, d.clone()),
                other => panic!("NodeAffinity score details on {node}: {other:?}"),
            },
            None => panic!("no NodeAffinity score on {node}"),
        }
    }

    /// Nodes with equal values for every key a selector reads share one explanation; the
    /// others have their own, with their own values and verdicts. A term with matchFields
    /// reads the node's name, so its nodes are explained one by one.
    #[test]
    fn nodes_with_equal_values_share_an_explanation() {
        let nodes = || json!([node("n1", "a"), node("n2", "a"), node("n3", "b")]);
        let zone_in_a_or_b = json!({"matchExpressions": [
            {"key": "zone", "operator": "In", "values": ["a", "b"]}]});
        let eval = evaluate_default(nodes(), pod(zone_in_a_or_b));
        let (n1, n2, n3) = (
            filter(&eval, "n1"),
            filter(&eval, "n2"),
            filter(&eval, "n3"),
        );
        assert!(Arc::ptr_eq(&n1, &n2));
        assert!(!Arc::ptr_eq(&n1, &n3));
        let value = |d: &FilterDetails| {
            let r = d.required.as_ref().expect("required");
            let e = &r.terms[0].match_expressions[0];
            (e.node_value.as_deref().map(str::to_string), r.matched)
        };
        assert_eq!(value(&n1), (Some("a".to_string()), true));
        assert_eq!(value(&n3), (Some("b".to_string()), true));
        let ((r1, s1), (r2, s2), (r3, s3)) =
            (score(&eval, "n1"), score(&eval, "n2"), score(&eval, "n3"));
        assert!(Arc::ptr_eq(&s1, &s2) && !Arc::ptr_eq(&s1, &s3));
        assert_eq!((r1, r2, r3), (Some(0), Some(0), Some(10)));
        assert!(s3.terms[0].term.matched && !s1.terms[0].term.matched);

        let name_is_n1 = json!({"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["n1"]}]});
        let eval = evaluate_default(nodes(), pod(name_is_n1));
        let (n1, n2) = (filter(&eval, "n1"), filter(&eval, "n2"));
        assert!(!Arc::ptr_eq(&n1, &n2));
        let matched = |d: &FilterDetails| d.required.as_ref().is_some_and(|r| r.matched);
        assert!(matched(&n1) && !matched(&n2));
    }

    /// Too many combinations of values to number in 128 bits (81 keys of 2 values: 3^81):
    /// every node is explained alone, with the same verdicts.
    #[test]
    fn too_many_combinations_are_explained_node_by_node() {
        let labels = |v: &str| -> serde_json::Map<String, Value> {
            (0..81).map(|k| (format!("k{k}"), json!(v))).collect()
        };
        let node = |name: &str, v: &str| {
            json!({"apiVersion": "v1", "kind": "Node",
                   "metadata": {"name": name, "labels": labels(v)},
                   "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
        };
        let expressions: Vec<Value> = (0..81)
            .map(|k| json!({"key": format!("k{k}"), "operator": "In", "values": ["x"]}))
            .collect();
        let eval = evaluate_default(
            json!([node("n1", "x"), node("n2", "x"), node("n3", "y")]),
            pod(json!({"matchExpressions": expressions})),
        );
        let (n1, n2, n3) = (
            filter(&eval, "n1"),
            filter(&eval, "n2"),
            filter(&eval, "n3"),
        );
        assert!(!Arc::ptr_eq(&n1, &n2));
        let matched = |d: &FilterDetails| d.required.as_ref().is_some_and(|r| r.matched);
        assert!(matched(&n1) && matched(&n2) && !matched(&n3));
    }
}
