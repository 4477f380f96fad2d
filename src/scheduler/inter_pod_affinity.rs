//! InterPodAffinity (`pkg/scheduler/framework/plugins/interpodaffinity`): required affinity,
//! required anti-affinity in both directions, and the preferred/symmetric score.
//!
//! Like upstream's PreFilter/PreScore, existing pods are walked once to build
//! `(topologyKey, value) -> count` maps; Filter and Score are then lookups per node. The maps
//! also remember which pods produced each count, so a user can see who matched or blocked.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::profile::InterPodAffinityArgs;
use super::selector::{LabelSelector, Labels};
use super::{
    Code, FilterDetails as AnyFilterDetails, Input, MAX_NODE_SCORE, Plugin, PreFilterOutcome,
    PreScoreOutcome, ScoreDetails as AnyScoreDetails, Status,
};
use crate::state::{AffinityTerm, PodAffinity, PodRef};

pub const REASON_AFFINITY: &str = "node(s) didn't match pod affinity rules";
pub const REASON_ANTI_AFFINITY: &str = "node(s) didn't match pod anti-affinity rules";
pub const REASON_EXISTING_ANTI_AFFINITY: &str =
    "node(s) didn't satisfy existing pods anti-affinity rules";

type Pair = (String, String);

/// `topologyScore`: key -> value -> contribution source -> (pods, score).
type TopologyScore = HashMap<String, HashMap<String, BTreeMap<String, (i64, i64)>>>;

/// Which list of which pod a term comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum TermKind {
    RequiredAffinity,
    RequiredAntiAffinity,
    PreferredAffinity,
    PreferredAntiAffinity,
}

/// An incoming-pod term and, per topology domain, the existing pods that match it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TermTable {
    pub kind: TermKind,
    pub index: usize,
    pub topology_key: String,
    #[serde(skip_serializing_if = "is_zero")]
    pub weight: i32,
    pub selector: String,
    pub namespaces: Vec<String>,
    /// True when `namespaceSelector: {}` selects every namespace.
    pub all_namespaces: bool,
    /// Domain value -> matching pods on nodes of that domain. For required affinity a pod is
    /// listed only when it matches every required affinity term, as upstream counts it.
    pub domains: BTreeMap<String, Vec<PodRef>>,
    /// Matching pods on nodes that lack the topology key: they count for nothing.
    pub pods_without_domain: Vec<PodRef>,
    /// Whether the incoming pod matches this term itself (the first-pod exception).
    pub incoming_pod_matches: bool,
}

fn is_zero(w: &i32) -> bool {
    *w == 0
}

/// An existing pod's term that matches the incoming pod.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExistingTermHit {
    pub pod: PodRef,
    pub node: String,
    pub kind: TermKind,
    pub index: usize,
    pub topology_key: String,
    /// The existing pod's node's value for the key; `None` when the node lacks it.
    pub domain: Option<String>,
    /// Score contribution (weight, or hardPodAffinityWeight, signed); 0 for Filter hits.
    #[serde(skip_serializing_if = "is_zero_i64")]
    pub score: i64,
}

fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}

/// Cluster-wide tables for the report; nodes refer to them by domain.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TermTables {
    pub terms: Vec<TermTable>,
    /// Existing pods' required anti-affinity terms that match the incoming pod (symmetry).
    pub existing_anti_affinity: Vec<ExistingTermHit>,
    /// Existing pods' terms that add to or subtract from scores.
    pub existing_scoring_terms: Vec<ExistingTermHit>,
    /// Set when the incoming pod's namespaceSelector could not be resolved.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// One incoming required term on one node.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TermOnNode {
    pub index: usize,
    pub topology_key: String,
    /// The node's value for the key; `None` when the node lacks it.
    pub domain: Option<String>,
    /// Matching pods counted in that domain.
    pub matching_pods: i64,
    pub satisfied: bool,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FilterDetails {
    pub affinity: Vec<TermOnNode>,
    /// `Some(true)` when the node passes only by the first-pod-of-a-self-affine-group
    /// exception; `Some(false)` when the exception was considered and did not apply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_pod_exception: Option<bool>,
    pub anti_affinity: Vec<TermOnNode>,
    /// Existing pods whose required anti-affinity rejects the incoming pod on this node
    /// (indexes into `podTerms.existingAntiAffinity`).
    pub existing_anti_affinity: Vec<usize>,
}

/// One `(topologyKey, value)` contribution to a node's raw score.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Contribution {
    pub topology_key: String,
    pub domain: String,
    /// e.g. `preferredAffinity[0]` of the incoming pod, or `existing:requiredAffinity`.
    pub source: String,
    pub pods: i64,
    pub score: i64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreDetails {
    pub contributions: Vec<Contribution>,
}

/// An incoming term with its namespace selector resolved into names, as PreFilter/PreScore's
/// `mergeAffinityTermNamespacesIfNotEmpty` does once per cycle.
#[derive(Debug, Clone)]
struct Resolved {
    term: AffinityTerm,
}

impl Resolved {
    fn matches(&self, namespace: &str, labels: &Labels) -> bool {
        self.term.matches(namespace, labels, &Labels::new())
    }
}

#[derive(Debug, Default)]
struct Counts {
    counts: HashMap<Pair, i64>,
}

impl Counts {
    fn add(&mut self, labels: &Labels, key: &str) -> Option<String> {
        let value = labels.get(key)?;
        *self
            .counts
            .entry((key.to_string(), value.clone()))
            .or_insert(0) += 1;
        Some(value.clone())
    }
    fn get(&self, key: &str, value: &str) -> i64 {
        self.counts
            .get(&(key.to_string(), value.to_string()))
            .copied()
            .unwrap_or(0)
    }
}

/// Why the plugin cannot be evaluated honestly, if it cannot: a term with a namespaceSelector
/// needs namespace labels, and namespaces were not read. Without them such a term would select
/// nothing (or match nothing), and the verdict would look certain while it is not.
pub fn namespaces_unknown(input: Input<'_>) -> Option<String> {
    if input.state.namespaces.is_some() {
        return None;
    }
    let pod = input.pod;
    let incoming = pod.affinity_terms().any(|t| t.needs_namespace_labels());
    let existing = input.existing_pods().any(|(_, p, _)| {
        p.affinity_terms().any(|t| {
            t.needs_namespace_labels()
                && !t.namespaces.contains(&pod.id.namespace)
                && t.selector.matches(&pod.labels)
        })
    });
    (incoming || existing).then(|| {
        format!(
            "InterPodAffinity is not evaluated: {} a namespaceSelector, which needs namespace labels, \
             and namespaces were not read (a snapshot without Namespace objects, or list namespaces \
             forbidden)",
            if incoming {
                "a term of the pod has"
            } else {
                "an existing pod's term that may match the pod has"
            }
        )
    })
}

#[derive(Debug)]
pub struct InterPodAffinity<'a> {
    input: Input<'a>,
    args: InterPodAffinityArgs,
    terms: Option<&'a PodAffinity>,
    ns_labels: Labels,
    required_affinity: Vec<Resolved>,
    required_anti_affinity: Vec<Resolved>,
    preferred_affinity: Vec<Resolved>,
    preferred_anti_affinity: Vec<Resolved>,
    pre_filtered: bool,
    pre_scored: bool,
    affinity_counts: Counts,
    anti_affinity_counts: Vec<Counts>,
    existing_anti: HashMap<Pair, Vec<usize>>,
    topology_score: TopologyScore,
    tables: TermTables,
}

impl<'a> InterPodAffinity<'a> {
    pub fn new(input: Input<'a>, args: InterPodAffinityArgs) -> Self {
        let terms = input.pod.pod_affinity.as_deref();
        let ns_labels = input.state.namespace_labels(&input.pod.id.namespace);
        let mut warnings = Vec::new();
        let mut resolve = |list: Option<&Vec<AffinityTerm>>| -> Vec<Resolved> {
            list.into_iter()
                .flatten()
                .map(|t| {
                    let mut term = t.clone();
                    if !term.namespace_selector.is_everything() {
                        if !matches!(term.namespace_selector, LabelSelector::Nothing) {
                            match &input.state.namespaces {
                                Some(all) => {
                                    for (name, labels) in all {
                                        if term.namespace_selector.matches(labels) && !term.namespaces.contains(name) {
                                            term.namespaces.push(name.clone());
                                        }
                                    }
                                }
                                None => warnings.push(
                                    "namespaces were not read, so namespaceSelector terms of the incoming pod select no namespace; the result may be wrong".to_string(),
                                ),
                            }
                        }
                        term.namespace_selector = LabelSelector::Nothing;
                    }
                    term.namespaces.sort();
                    Resolved { term }
                })
                .collect()
        };
        let required_affinity = resolve(terms.map(|t| &t.required_affinity));
        let required_anti_affinity = resolve(terms.map(|t| &t.required_anti_affinity));
        let preferred_affinity = resolve(terms.map(|t| &t.preferred_affinity));
        let preferred_anti_affinity = resolve(terms.map(|t| &t.preferred_anti_affinity));
        warnings.dedup();
        let anti_affinity_counts = required_anti_affinity
            .iter()
            .map(|_| Counts::default())
            .collect();
        let mut tables = TermTables {
            warnings,
            ..Default::default()
        };
        let pod = input.pod;
        for (kind, list) in [
            (TermKind::RequiredAffinity, &required_affinity),
            (TermKind::RequiredAntiAffinity, &required_anti_affinity),
            (TermKind::PreferredAffinity, &preferred_affinity),
            (TermKind::PreferredAntiAffinity, &preferred_anti_affinity),
        ] {
            for (index, r) in list.iter().enumerate() {
                tables.terms.push(TermTable {
                    kind,
                    index,
                    topology_key: r.term.topology_key.clone(),
                    weight: r.term.weight,
                    selector: r.term.selector.to_string(),
                    namespaces: r.term.namespaces.clone(),
                    all_namespaces: r.term.namespace_selector.is_everything(),
                    domains: BTreeMap::new(),
                    pods_without_domain: Vec::new(),
                    incoming_pod_matches: r.matches(&pod.id.namespace, &pod.labels),
                });
            }
        }
        InterPodAffinity {
            input,
            args,
            terms,
            ns_labels,
            required_affinity,
            required_anti_affinity,
            preferred_affinity,
            preferred_anti_affinity,
            pre_filtered: false,
            pre_scored: false,
            affinity_counts: Counts::default(),
            anti_affinity_counts,
            existing_anti: HashMap::new(),
            topology_score: HashMap::new(),
            tables,
        }
    }

    /// Remembers a matching pod in its term's table (the tables hold every incoming term).
    fn record(&mut self, kind: TermKind, index: usize, domain: Option<String>, pod: &PodRef) {
        let Some(t) = self
            .tables
            .terms
            .iter_mut()
            .find(|t| t.kind == kind && t.index == index)
        else {
            return;
        };
        match domain {
            Some(d) => t.domains.entry(d).or_default().push(pod.clone()),
            None => t.pods_without_domain.push(pod.clone()),
        }
    }

    fn parse_error(&self) -> Option<String> {
        let errs = &self.input.pod.affinity_errors;
        (!errs.is_empty()).then(|| format!("parsing pod: {}", errs.join("; ")))
    }

    /// Adds one pod's contribution to `(key, node's value) -> source`. Allocates only for a
    /// key, value or source not seen before: on large clusters most pods land in a few
    /// domains, and this runs once per matching pod.
    fn add_score(
        &mut self,
        labels: &Labels,
        key: &str,
        source: &str,
        delta: i64,
    ) -> Option<String> {
        let value = labels.get(key)?;
        let by_value = match self.topology_score.get_mut(key) {
            Some(m) => m,
            None => self.topology_score.entry(key.to_string()).or_default(),
        };
        let by_source = match by_value.get_mut(value.as_str()) {
            Some(m) => m,
            None => by_value.entry(value.clone()).or_default(),
        };
        let e = match by_source.get_mut(source) {
            Some(e) => e,
            None => by_source.entry(source.to_string()).or_insert((0, 0)),
        };
        e.0 += 1;
        e.1 += delta;
        Some(value.clone())
    }
}

impl Plugin for InterPodAffinity<'_> {
    fn unavailable(&self) -> Option<String> {
        namespaces_unknown(self.input)
    }

    fn pre_filter(&mut self) -> PreFilterOutcome {
        self.pre_filtered = true;
        if let Some(e) = self.parse_error() {
            return PreFilterOutcome::Reject(Status::new(Code::UnschedulableAndUnresolvable, e));
        }
        let input = self.input;
        let incoming = input.pod;
        // Existing pods' required anti-affinity against the incoming pod (symmetry).
        for (_, pod, n) in input.existing_pods() {
            let Some(pa) = pod.pod_affinity.as_deref() else {
                continue;
            };
            let node = input.node(n);
            for (ti, t) in pa.required_anti_affinity.iter().enumerate() {
                if t.matches(&incoming.id.namespace, &incoming.labels, &self.ns_labels) {
                    let domain = node.labels.get(&t.topology_key).cloned();
                    let hit = self.tables.existing_anti_affinity.len();
                    if let Some(d) = &domain {
                        self.existing_anti
                            .entry((t.topology_key.clone(), d.clone()))
                            .or_default()
                            .push(hit);
                    }
                    self.tables.existing_anti_affinity.push(ExistingTermHit {
                        pod: pod.id.clone(),
                        node: node.name.clone(),
                        kind: TermKind::RequiredAntiAffinity,
                        index: ti,
                        topology_key: t.topology_key.clone(),
                        domain,
                        score: 0,
                    });
                }
            }
        }
        // The incoming pod's required terms against every existing pod.
        if !self.required_affinity.is_empty() || !self.required_anti_affinity.is_empty() {
            for (_, pod, n) in input.existing_pods() {
                let labels = &input.node(n).labels;
                if !self.required_affinity.is_empty()
                    && self
                        .required_affinity
                        .iter()
                        .all(|r| r.matches(&pod.id.namespace, &pod.labels))
                {
                    for i in 0..self.required_affinity.len() {
                        let key = self.required_affinity[i].term.topology_key.clone();
                        let d = self.affinity_counts.add(labels, &key);
                        self.record(TermKind::RequiredAffinity, i, d, &pod.id);
                    }
                }
                for i in 0..self.required_anti_affinity.len() {
                    if self.required_anti_affinity[i].matches(&pod.id.namespace, &pod.labels) {
                        let key = self.required_anti_affinity[i].term.topology_key.clone();
                        let d = self.anti_affinity_counts[i].add(labels, &key);
                        self.record(TermKind::RequiredAntiAffinity, i, d, &pod.id);
                    }
                }
            }
        }
        if self.existing_anti.is_empty()
            && self.required_affinity.is_empty()
            && self.required_anti_affinity.is_empty()
        {
            return PreFilterOutcome::Skip;
        }
        PreFilterOutcome::Proceed(None)
    }

    fn filter(&self, node: usize) -> (Option<Status>, Option<AnyFilterDetails>) {
        if !self.pre_filtered {
            return (
                Some(Status::new(
                    Code::Error,
                    super::missing_cycle_state("PreFilter", "InterPodAffinity"),
                )),
                None,
            );
        }
        let labels = &self.input.node(node).labels;
        let on_node = |r: &Resolved, counts: &Counts, index: usize| {
            let domain = labels.get(&r.term.topology_key).cloned();
            let matching = domain
                .as_ref()
                .map(|d| counts.get(&r.term.topology_key, d))
                .unwrap_or(0);
            TermOnNode {
                index,
                topology_key: r.term.topology_key.clone(),
                satisfied: domain.is_some() && matching > 0,
                domain,
                matching_pods: matching,
            }
        };
        // 1. Required affinity: every key on the node, every pair counted, or the first-pod
        //    exception (no matching pod anywhere and the pod matches its own terms).
        let affinity: Vec<TermOnNode> = self
            .required_affinity
            .iter()
            .enumerate()
            .map(|(i, r)| on_node(r, &self.affinity_counts, i))
            .collect();
        let all_keys = affinity.iter().all(|t| t.domain.is_some());
        let all_counted = affinity.iter().all(|t| t.satisfied);
        let mut first_pod_exception = None;
        let affinity_ok = if !all_keys {
            false
        } else if all_counted {
            true
        } else {
            let pod = self.input.pod;
            let applies = self.affinity_counts.counts.is_empty()
                && self
                    .required_affinity
                    .iter()
                    .all(|r| r.matches(&pod.id.namespace, &pod.labels));
            first_pod_exception = Some(applies);
            applies
        };
        // 2. The incoming pod's anti-affinity: any term whose domain on this node has a match.
        let anti_affinity: Vec<TermOnNode> = self
            .required_anti_affinity
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut t = on_node(r, &self.anti_affinity_counts[i], i);
                // For anti-affinity "satisfied" means no matching pod in the domain.
                t.satisfied = t.matching_pods == 0;
                t
            })
            .collect();
        let anti_ok = anti_affinity.iter().all(|t| t.satisfied);
        // 3. Existing pods' anti-affinity: any (key, value) label of the node with a count.
        let mut existing: Vec<usize> = labels
            .iter()
            .filter_map(|(k, v)| self.existing_anti.get(&(k.clone(), v.clone())))
            .flatten()
            .copied()
            .collect();
        existing.sort_unstable();
        let status = if !affinity_ok {
            Some(Status::new(
                Code::UnschedulableAndUnresolvable,
                REASON_AFFINITY,
            ))
        } else if !anti_ok {
            Some(Status::new(Code::Unschedulable, REASON_ANTI_AFFINITY))
        } else if !existing.is_empty() {
            Some(Status::new(
                Code::Unschedulable,
                REASON_EXISTING_ANTI_AFFINITY,
            ))
        } else {
            None
        };
        (
            status,
            Some(AnyFilterDetails::InterPodAffinity(Box::new(
                FilterDetails {
                    affinity,
                    first_pod_exception,
                    anti_affinity,
                    existing_anti_affinity: existing,
                },
            ))),
        )
    }

    fn pre_score(&mut self, candidates: &[usize]) -> PreScoreOutcome {
        self.pre_scored = true;
        if candidates.is_empty() {
            return PreScoreOutcome::Skip;
        }
        let has_constraints = self.terms.is_some_and(|t| {
            !t.preferred_affinity.is_empty() || !t.preferred_anti_affinity.is_empty()
        });
        if self.args.ignore_preferred_terms_of_existing_pods && !has_constraints {
            return PreScoreOutcome::Skip;
        }
        if let Some(e) = self.parse_error() {
            return PreScoreOutcome::Error(e);
        }
        let input = self.input;
        let incoming = input.pod;
        let hard = i64::from(self.args.hard_pod_affinity_weight);
        // Score sources of the incoming pod's preferred terms, named once.
        let sources: [Vec<String>; 2] = [
            (0..self.preferred_affinity.len())
                .map(|i| format!("{}[{i}]", kind_name(TermKind::PreferredAffinity)))
                .collect(),
            (0..self.preferred_anti_affinity.len())
                .map(|i| format!("{}[{i}]", kind_name(TermKind::PreferredAntiAffinity)))
                .collect(),
        ];
        for (_, pod, n) in input.existing_pods() {
            if !has_constraints && pod.pod_affinity.is_none() {
                continue;
            }
            let node = input.node(n);
            if node.labels.is_empty() {
                continue;
            }
            for (kind, sign) in [
                (TermKind::PreferredAffinity, 1),
                (TermKind::PreferredAntiAffinity, -1),
            ] {
                let list = if sign > 0 {
                    &self.preferred_affinity
                } else {
                    &self.preferred_anti_affinity
                };
                let hits: Vec<(usize, String, i64)> = list
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| r.matches(&pod.id.namespace, &pod.labels))
                    .map(|(i, r)| {
                        (
                            i,
                            r.term.topology_key.clone(),
                            i64::from(r.term.weight) * sign,
                        )
                    })
                    .collect();
                for (i, key, delta) in hits {
                    let source = &sources[usize::from(sign < 0)][i];
                    let d = self.add_score(&node.labels, &key, source, delta);
                    self.record(kind, i, d, &pod.id);
                }
            }
            let Some(pa) = pod.pod_affinity.as_deref() else {
                continue;
            };
            let mut existing_terms: Vec<(TermKind, usize, &AffinityTerm, i64)> = Vec::new();
            if hard > 0 {
                existing_terms.extend(
                    pa.required_affinity
                        .iter()
                        .enumerate()
                        .map(|(i, t)| (TermKind::RequiredAffinity, i, t, hard)),
                );
            }
            existing_terms.extend(
                pa.preferred_affinity
                    .iter()
                    .enumerate()
                    .map(|(i, t)| (TermKind::PreferredAffinity, i, t, i64::from(t.weight))),
            );
            existing_terms.extend(
                pa.preferred_anti_affinity
                    .iter()
                    .enumerate()
                    .map(|(i, t)| (TermKind::PreferredAntiAffinity, i, t, -i64::from(t.weight))),
            );
            for (kind, i, t, delta) in existing_terms {
                if !t.matches(&incoming.id.namespace, &incoming.labels, &self.ns_labels) {
                    continue;
                }
                let source = format!("existing:{}", kind_name(kind));
                let domain = self.add_score(&node.labels, &t.topology_key, &source, delta);
                self.tables.existing_scoring_terms.push(ExistingTermHit {
                    pod: pod.id.clone(),
                    node: node.name.clone(),
                    kind,
                    index: i,
                    topology_key: t.topology_key.clone(),
                    domain,
                    score: delta,
                });
            }
        }
        if self.topology_score.is_empty() {
            return PreScoreOutcome::Skip;
        }
        PreScoreOutcome::Proceed
    }

    fn score(&self, node: usize) -> Result<(i64, Option<AnyScoreDetails>), String> {
        if !self.pre_scored {
            return Err(super::missing_cycle_state("PreScore", "InterPodAffinity"));
        }
        let labels = &self.input.node(node).labels;
        let mut raw = 0;
        let mut contributions = Vec::new();
        let mut keys: Vec<&String> = self.topology_score.keys().collect();
        keys.sort();
        for key in keys {
            let Some(value) = labels.get(key) else {
                continue;
            };
            let Some(sources) = self.topology_score[key].get(value) else {
                continue;
            };
            for (source, (pods, score)) in sources {
                raw += score;
                contributions.push(Contribution {
                    topology_key: key.clone(),
                    domain: value.clone(),
                    source: source.clone(),
                    pods: *pods,
                    score: *score,
                });
            }
        }
        Ok((
            raw,
            Some(AnyScoreDetails::InterPodAffinity(ScoreDetails {
                contributions,
            })),
        ))
    }

    fn normalize(&self, scores: &mut [i64]) {
        if self.topology_score.is_empty() {
            return;
        }
        let (Some(&min), Some(&max)) = (scores.iter().min(), scores.iter().max()) else {
            return;
        };
        let diff = max - min;
        for s in scores.iter_mut() {
            // Upstream computes in float64 and truncates.
            let f = if diff > 0 {
                MAX_NODE_SCORE as f64 * ((*s - min) as f64 / diff as f64)
            } else {
                0.0
            };
            *s = f as i64;
        }
    }

    fn term_tables(&self) -> Option<TermTables> {
        let t = &self.tables;
        let empty = t.terms.is_empty()
            && t.existing_anti_affinity.is_empty()
            && t.existing_scoring_terms.is_empty();
        (!empty).then(|| t.clone())
    }
}

fn kind_name(kind: TermKind) -> &'static str {
    match kind {
        TermKind::RequiredAffinity => "requiredAffinity",
        TermKind::RequiredAntiAffinity => "requiredAntiAffinity",
        TermKind::PreferredAffinity => "preferredAffinity",
        TermKind::PreferredAntiAffinity => "preferredAntiAffinity",
    }
}
