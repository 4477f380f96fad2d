//! InterPodAffinity (`pkg/scheduler/framework/plugins/interpodaffinity`): required affinity,
//! required anti-affinity in both directions, and the preferred/symmetric score.
//!
//! As upstream's PreFilter and PreScore, existing pods are walked once to count them per
//! `(topologyKey, value)`; Filter and Score are then lookups per node. The counts are kept
//! per topology domain in the small types of `counts`; what the report shows besides (which
//! pods each term matched, where each score comes from) is recorded apart, in `tables`.

pub mod explain;

mod counts;
mod tables;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use self::counts::{DomainHits, DomainScores, KeyCounts};
use self::tables::{Book, ExistingAnti, Sources, UNLABELLED};
use super::config::InterPodAffinityArgs;
use super::plugin::{Input, MAX_NODE_SCORE, Plugin, missing_cycle_state};
use super::plugin_id::PluginId;
use super::status::{Code, PreFilterOutcome, PreScoreOutcome, Status};
use crate::state::labels::Labels;
use crate::state::selector::LabelSelector;
use crate::state::{AffinityTerm, Candidates, Domains, PodAffinity};

pub use self::tables::{DomainPods, ExistingTermHit, TermKind, TermTable, TermTables};

pub const REASON_AFFINITY: &str = "node(s) didn't match pod affinity rules";
pub const REASON_ANTI_AFFINITY: &str = "node(s) didn't match pod anti-affinity rules";
pub const REASON_EXISTING_ANTI_AFFINITY: &str =
    "node(s) didn't satisfy existing pods anti-affinity rules";

/// One incoming required term on one node.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TermOnNode {
    pub index: usize,
    pub topology_key: Arc<str>,
    /// The node's value for the key; `None` when the node lacks it.
    pub domain: Option<Arc<str>>,
    /// Matching pods counted in that domain.
    pub matching_pods: i64,
    pub satisfied: bool,
}

pub type TermsOnNode = smallvec::SmallVec<[TermOnNode; 1]>;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FilterDetails {
    /// Inline for a pod's usual single term, here and in `anti_affinity`: two allocations
    /// per node fewer.
    pub affinity: TermsOnNode,
    /// `Some(true)` when the node passes only by the first-pod-of-a-self-affine-group
    /// exception; `Some(false)` when the exception was considered and did not apply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_pod_exception: Option<bool>,
    pub anti_affinity: TermsOnNode,
    /// Existing pods whose required anti-affinity rejects the incoming pod on this node
    /// (indexes into `podTerms.existingAntiAffinity`).
    pub existing_anti_affinity: Vec<usize>,
}

/// One `(topologyKey, value)` contribution to a node's raw score.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Contribution {
    pub topology_key: Arc<str>,
    pub domain: Arc<str>,
    /// e.g. `preferredAffinity[0]` of the incoming pod, or `existing:requiredAffinity`.
    pub source: Arc<str>,
    pub pods: i64,
    pub score: i64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreDetails {
    pub contributions: Vec<Contribution>,
}

/// What would make a node that fails the pod (anti-)affinity take the pod.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Change {
    /// Pods whose presence breaks required anti-affinity (the pod's or theirs).
    BlockingPods { pods: Vec<String> },
    /// Required affinity finds no matching pod in the node's domain.
    NoAffinityPod {
        topology_key: Arc<str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        domain: Option<Arc<str>>,
    },
}

/// What makes the plugin reject the nodes it rejects most.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all_fields = "camelCase")]
pub enum Cause {
    /// Pods that match the pod's required anti-affinity run in the nodes' domains of this key.
    AntiAffinityPods {
        topology_key: String,
        pods: Vec<String>,
    },
    /// Existing pods whose required anti-affinity matches the pod run in the nodes' domains.
    RepelledBy { pods: Vec<String> },
    /// No pod matching the pod's required affinity runs in the nodes' domains of this key.
    NoAffinityPod { topology_key: String },
}

/// An incoming term with its namespace selector resolved into names, as PreFilter/PreScore's
/// `mergeAffinityTermNamespacesIfNotEmpty` does once per cycle.
#[derive(Debug, Clone)]
struct Resolved<'a> {
    term: Cow<'a, AffinityTerm>,
    /// The namespaces as the state numbers them; `None` for every namespace.
    namespace_ids: Option<Vec<u32>>,
}

impl Resolved<'_> {
    fn matches(&self, namespace: &str, labels: &Labels) -> bool {
        self.term.matches(namespace, labels, &Labels::new())
    }
}

/// The terms of a list, as resolved.
fn terms_of<'t>(list: &'t [Resolved<'_>]) -> Vec<&'t AffinityTerm> {
    list.iter().map(|r| &*r.term).collect()
}

/// The pod's terms of one list with their namespace selectors resolved, noting in `warnings`
/// a selector that cannot be (namespaces not read).
fn resolve<'a>(
    input: Input<'a>,
    list: Option<&'a Vec<AffinityTerm>>,
    warnings: &mut Vec<String>,
) -> Vec<Resolved<'a>> {
    let resolve_one = |t: &'a AffinityTerm, warnings: &mut Vec<String>| {
        // Most terms name their namespaces (or their pod's) in order: they are borrowed, not
        // copied, for every pod the audit checks.
        let resolved = matches!(t.namespace_selector, LabelSelector::Nothing)
            || t.namespace_selector.is_everything();
        let mut term = Cow::Borrowed(t);
        if !resolved {
            let term = term.to_mut();
            match input.state.namespaces() {
                Some(all) => {
                    for (name, labels) in all {
                        if term.namespace_selector.matches(labels)
                            && !term.namespaces.contains(name)
                        {
                            term.namespaces.push(name.clone());
                        }
                    }
                }
                None => warnings.push(
                    "namespaces were not read, so namespaceSelector terms of the incoming pod select no namespace; the result may be wrong".to_string(),
                ),
            }
            term.namespace_selector = LabelSelector::Nothing;
        }
        if !term.namespaces.is_sorted() {
            term.to_mut().namespaces.sort();
        }
        let namespace_ids = (!term.namespace_selector.is_everything()).then(|| {
            term.namespaces
                .iter()
                .filter_map(|n| input.state.index().namespace_id(n))
                .collect()
        });
        Resolved {
            term,
            namespace_ids,
        }
    };
    list.into_iter()
        .flatten()
        .map(|t| resolve_one(t, warnings))
        .collect()
}

/// Whose term with a namespaceSelector leaves the plugin unevaluated, namespaces not being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamespacesUnread {
    /// A term of the incoming pod.
    PodTerm,
    /// An existing pod's term that may match the incoming pod.
    ExistingTerm,
}

/// The plugin's not-evaluated reason, as its cells show it.
impl fmt::Display for NamespacesUnread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is not evaluated: {} a namespaceSelector, which needs namespace labels, \
             and namespaces were not read (a snapshot without Namespace objects, or list namespaces \
             forbidden)",
            PluginId::InterPodAffinity,
            match self {
                NamespacesUnread::PodTerm => "a term of the pod has",
                NamespacesUnread::ExistingTerm =>
                    "an existing pod's term that may match the pod has",
            }
        )
    }
}

/// Why the plugin cannot be evaluated honestly, if it cannot: a term with a namespaceSelector
/// needs namespace labels, and namespaces were not read. Without them such a term would select
/// nothing (or match nothing), and the verdict would look certain while it is not.
pub fn namespaces_unknown(input: Input<'_>) -> Option<NamespacesUnread> {
    if input.state.namespaces().is_some() {
        return None;
    }
    let pod = input.pod;
    if pod.affinity_terms().any(|t| t.needs_namespace_labels()) {
        return Some(NamespacesUnread::PodTerm);
    }
    // A term that needs namespace labels has a namespaceSelector: only those groups can.
    let mut groups = input.state.index().affinity_groups_selecting();
    let existing = groups.any(|g| {
        g.pods.iter().any(|&p| !input.is_excluded(p as usize))
            && g.terms.all().any(|t| {
                t.needs_namespace_labels()
                    && !t.namespaces.iter().any(|n| **n == *pod.id.namespace)
                    && t.selector.matches(&pod.labels)
            })
    });
    existing.then_some(NamespacesUnread::ExistingTerm)
}

/// What PreFilter counts for Filter (upstream's `preFilterState`).
#[derive(Debug, Default)]
struct PreFilterState<'a> {
    /// `existingAntiAffinityCounts`: the existing pods' required anti-affinity terms that
    /// match the pod, by the domain of their node (an index into `existing_hits`), per key.
    existing_anti: Vec<(&'a Domains, DomainHits<usize>)>,
    existing_hits: Vec<ExistingAnti<'a>>,
    /// `affinityCounts`: a count per distinct key of the required affinity terms, of the
    /// pods that match them all.
    affinity: Vec<KeyCounts<'a>>,
    /// Which count of `affinity` each required affinity term reads.
    affinity_key_of: Vec<usize>,
    /// How many times pods were counted for required affinity, over every key and domain
    /// (upstream: `len(affinityCounts)` is zero when this is).
    affinity_total: i64,
    /// `antiAffinityCounts`: a count per required anti-affinity term.
    anti_affinity: Vec<KeyCounts<'a>>,
    /// The first-pod exception's second half: the pod matches all its required terms.
    pod_matches_affinity: bool,
}

/// What PreScore sums for Score (upstream's `preScoreState`): per key, the score each domain
/// adds, by where it comes from.
#[derive(Debug, Default)]
struct PreScoreState<'a> {
    topology_score: Vec<(Arc<str>, &'a Domains, DomainScores)>,
    /// `topology_score` in key order, as each node's contributions are listed.
    by_key: Vec<usize>,
    any: bool,
    sources: Sources,
}

#[derive(Debug)]
pub struct InterPodAffinity<'a> {
    input: Input<'a>,
    args: InterPodAffinityArgs,
    terms: Option<&'a PodAffinity>,
    ns_labels: Labels,
    required_affinity: Vec<Resolved<'a>>,
    required_anti_affinity: Vec<Resolved<'a>>,
    preferred_affinity: Vec<Resolved<'a>>,
    preferred_anti_affinity: Vec<Resolved<'a>>,
    pre_filter: Option<PreFilterState<'a>>,
    pre_score: Option<PreScoreState<'a>>,
    book: Book<'a>,
}

impl<'a> InterPodAffinity<'a> {
    pub fn new(input: Input<'a>, args: InterPodAffinityArgs) -> Self {
        let terms = input.pod.template.pod_affinity.as_deref();
        let mut warnings = Vec::new();
        let required_affinity = resolve(input, terms.map(|t| &t.required_affinity), &mut warnings);
        let required_anti_affinity = resolve(
            input,
            terms.map(|t| &t.required_anti_affinity),
            &mut warnings,
        );
        let preferred_affinity =
            resolve(input, terms.map(|t| &t.preferred_affinity), &mut warnings);
        let preferred_anti_affinity = resolve(
            input,
            terms.map(|t| &t.preferred_anti_affinity),
            &mut warnings,
        );
        warnings.dedup();
        let book = Book::new(
            input,
            [
                terms_of(&required_affinity),
                terms_of(&required_anti_affinity),
                terms_of(&preferred_affinity),
                terms_of(&preferred_anti_affinity),
            ],
            warnings,
        );
        InterPodAffinity {
            input,
            args,
            terms,
            ns_labels: input.state.namespace_labels(&input.pod.id.namespace),
            required_affinity,
            required_anti_affinity,
            preferred_affinity,
            preferred_anti_affinity,
            pre_filter: None,
            pre_score: None,
            book,
        }
    }

    /// Why the incoming pod's terms do not parse, as upstream's `PodInfo` says it (PreFilter
    /// prefixes "parsing pod: ", PreScore "failed to parse pod: ").
    fn parse_error(&self) -> Option<&str> {
        self.input
            .pod
            .template
            .pod_affinity
            .as_ref()?
            .parse_error
            .as_deref()
    }

    /// The existing pods an incoming term matches (`Resolved::matches`), ascending, the
    /// pods left out. Pods are read only when the label index cannot decide alone.
    fn matching(&self, r: &Resolved<'_>) -> Vec<u32> {
        let input = self.input;
        let state = input.state;
        let leaves_out = input.exclude.is_some() || !input.removed.is_empty();
        let index = state.index();
        let in_namespace = |p: u32| {
            r.namespace_ids
                .as_ref()
                .is_none_or(|ids| ids.contains(&index.namespace_of(p)))
        };
        let (pods, exact) = match index.candidates(&r.term.selector) {
            Candidates::All => (
                Cow::Owned(
                    (0..state.pods().len())
                        .map(|p| u32::try_from(p).unwrap_or(u32::MAX))
                        .collect(),
                ),
                false,
            ),
            Candidates::Some { pods, exact } => (pods, exact),
        };
        // The index alone decides for a one-requirement selector over every namespace (the
        // usual preferred term): a copy of its list, minus the pods left out.
        if exact && r.namespace_ids.is_none() {
            let mut out = pods.into_owned();
            if leaves_out {
                out.retain(|&p| !input.is_excluded(p as usize));
            }
            return out;
        }
        // Sized for every candidate: a term like `tier in (data)` selects a large share of a
        // big cluster's pods, which a growing list would copy again at each doubling.
        let mut out = Vec::with_capacity(pods.len());
        out.extend(pods.iter().copied().filter(|&p| {
            !input.is_excluded(p as usize)
                && in_namespace(p)
                && (exact || r.term.selector.matches(&state.pods()[p as usize].labels))
        }));
        out
    }

    /// `getExistingAntiAffinityCounts`: the existing pods whose required anti-affinity terms
    /// match the incoming pod, by the domain of their node. Each distinct term is matched once,
    /// then every pod carrying it is a hit.
    fn existing_anti_affinity_counts(&self, state: &mut PreFilterState<'a>) {
        let input = self.input;
        let incoming = input.pod;
        let mut hits: Vec<(u32, usize, &'a AffinityTerm)> = Vec::new();
        for g in input
            .state
            .index()
            .affinity_groups_for(&incoming.id.namespace)
        {
            for (ti, t) in g.terms.required_anti_affinity.iter().enumerate() {
                if t.matches(&incoming.id.namespace, &incoming.labels, &self.ns_labels) {
                    hits.extend(
                        g.pods
                            .iter()
                            .filter(|&&p| !input.is_excluded(p as usize))
                            .map(|&p| (p, ti, t)),
                    );
                }
            }
        }
        // The group's copy of the terms is the one its pods carry.
        hits.sort_unstable_by_key(|&(p, ti, _)| (p, ti));
        for (p, ti, t) in hits {
            let n = input.state.pod_node(p as usize);
            let domains = input.state.topology().domains(&t.topology_key);
            let d = domains.and_then(|ds| ds.of(n).map(|d| (ds, d)));
            if let Some((ds, d)) = d {
                let at = match state
                    .existing_anti
                    .iter()
                    .position(|(e, _)| std::ptr::eq(*e, ds))
                {
                    Some(at) => at,
                    None => {
                        state.existing_anti.push((ds, DomainHits::new()));
                        state.existing_anti.len() - 1
                    }
                };
                state.existing_anti[at].1.push(d, state.existing_hits.len());
            }
            state.existing_hits.push(ExistingAnti {
                pod: p as usize,
                index: ti,
                term: t,
                domain: d.map(|(ds, d)| &ds.values[d as usize]),
            });
        }
        for (_, hits) in &mut state.existing_anti {
            hits.finish();
        }
    }

    /// `getIncomingAffinityAntiAffinityCounts`: the existing pods that match all the incoming
    /// pod's required affinity terms, per key; and those that match each of its required
    /// anti-affinity terms.
    fn incoming_affinity_anti_affinity_counts(&mut self, state: &mut PreFilterState<'a>) {
        let input = self.input;
        let topology = input.state.topology();
        for r in &self.required_affinity {
            let key = r.term.topology_key.as_str();
            let at = match state.affinity.iter().position(|c| &*c.key == key) {
                Some(at) => at,
                None => {
                    state
                        .affinity
                        .push(KeyCounts::new(key, topology.domains(key)));
                    state.affinity.len() - 1
                }
            };
            state.affinity_key_of.push(at);
        }
        if !self.required_affinity.is_empty() {
            let lists: Vec<Vec<u32>> = self
                .required_affinity
                .iter()
                .map(|r| self.matching(r))
                .collect();
            let smallest = lists
                .iter()
                .min_by_key(|l| l.len())
                .map_or(&[][..], Vec::as_slice);
            for &p in smallest {
                if !lists.iter().all(|l| l.binary_search(&p).is_ok()) {
                    continue;
                }
                let n = input.state.pod_node(p as usize);
                for (i, &at) in state.affinity_key_of.iter().enumerate() {
                    let d = state.affinity[at].add(n);
                    state.affinity_total += i64::from(d.is_some());
                    self.book.matched(TermKind::RequiredAffinity, i, d, p);
                }
            }
        }
        for (i, r) in self.required_anti_affinity.iter().enumerate() {
            let key = &r.term.topology_key;
            let mut counts = KeyCounts::new(key, topology.domains(key));
            for p in self.matching(r) {
                let d = counts.add(input.state.pod_node(p as usize));
                self.book.matched(TermKind::RequiredAntiAffinity, i, d, p);
            }
            state.anti_affinity.push(counts);
        }
        for c in state.affinity.iter_mut().chain(&mut state.anti_affinity) {
            c.finish();
        }
        let pod = input.pod;
        state.pod_matches_affinity = self
            .required_affinity
            .iter()
            .all(|r| r.matches(&pod.id.namespace, &pod.labels));
    }

    /// Filter on `node` with the existing pods `removed` (ascending, all on `node`) taken out
    /// of what PreFilter counted: upstream's `RemovePod` (`updateWithPod` with -1) followed by
    /// Filter, for preemption's dry run. Their contributions all fall in the node's own
    /// domains, so the counts there and the hits of their terms are all that change.
    fn filter_without(
        &self,
        node: usize,
        removed: &[usize],
    ) -> (Option<Status>, Option<Box<FilterDetails>>) {
        let Some(state) = &self.pre_filter else {
            let missing = missing_cycle_state("PreFilter", PluginId::InterPodAffinity);
            return (Some(Status::new(Code::Error, missing)), None);
        };
        let (affinity, first_pod_exception, affinity_ok) =
            self.satisfy_pod_affinity(state, node, removed);
        let anti_affinity = self.satisfy_pod_anti_affinity(state, node, removed);
        let existing = self.satisfy_existing_pods_anti_affinity(state, node, removed);
        let status = if !affinity_ok {
            Some(Status::new(
                Code::UnschedulableAndUnresolvable,
                REASON_AFFINITY,
            ))
        } else if !anti_affinity.iter().all(|t| t.satisfied) {
            Some(Status::new(Code::Unschedulable, REASON_ANTI_AFFINITY))
        } else if !existing.is_empty() {
            Some(Status::new(
                Code::Unschedulable,
                REASON_EXISTING_ANTI_AFFINITY,
            ))
        } else {
            None
        };
        let details = FilterDetails {
            affinity,
            first_pod_exception,
            anti_affinity,
            existing_anti_affinity: existing,
        };
        (status, Some(Box::new(details)))
    }

    /// How many of `removed` match every term of `terms`.
    fn removed_matching(&self, removed: &[usize], terms: &[&Resolved<'_>]) -> i64 {
        let pods = self.input.state.pods();
        let n = removed
            .iter()
            .filter(|&&p| {
                terms
                    .iter()
                    .all(|r| r.matches(&pods[p].id.namespace, &pods[p].labels))
            })
            .count();
        i64::try_from(n).unwrap_or(i64::MAX)
    }

    /// `satisfyPodAffinity`: every required affinity term finds a matching pod in the node's
    /// domain, or no pod anywhere matches them and the pod matches them itself (the first-pod
    /// exception, returned when it was considered). Each term on the node, with its count.
    fn satisfy_pod_affinity(
        &self,
        state: &PreFilterState<'_>,
        node: usize,
        removed: &[usize],
    ) -> (TermsOnNode, Option<bool>, bool) {
        // A removed pod matching every term was counted once per term, in the node's domain
        // of each term's key.
        let removed_matching = if removed.is_empty() || self.required_affinity.is_empty() {
            0
        } else {
            let all: Vec<&Resolved<'_>> = self.required_affinity.iter().collect();
            self.removed_matching(removed, &all)
        };
        let terms_of_key = |k: usize| {
            let n = state.affinity_key_of.iter().filter(|&&x| x == k).count();
            i64::try_from(n).unwrap_or(i64::MAX)
        };
        let affinity: TermsOnNode = state
            .affinity_key_of
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                let less = removed_matching * terms_of_key(k);
                term_on_node(&state.affinity[k], node, i, less)
            })
            .collect();
        let uncounted: i64 = (0..state.affinity.len())
            .filter(|&k| state.affinity[k].on(node).0.is_some())
            .map(|k| removed_matching * terms_of_key(k))
            .sum();
        let any_counted = state.affinity_total - uncounted > 0;
        if !affinity.iter().all(|t| t.domain.is_some()) {
            return (affinity, None, false);
        }
        if affinity.iter().all(|t| t.satisfied) {
            return (affinity, None, true);
        }
        let applies = !any_counted && state.pod_matches_affinity;
        (affinity, Some(applies), applies)
    }

    /// `satisfyPodAntiAffinity`: no required anti-affinity term finds a matching pod in the
    /// node's domain. Each term on the node, satisfied when it finds none.
    fn satisfy_pod_anti_affinity(
        &self,
        state: &PreFilterState<'_>,
        node: usize,
        removed: &[usize],
    ) -> TermsOnNode {
        state
            .anti_affinity
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let less = if removed.is_empty() {
                    0
                } else {
                    self.removed_matching(removed, &[&self.required_anti_affinity[i]])
                };
                let mut t = term_on_node(c, node, i, less);
                t.satisfied = t.matching_pods == 0;
                t
            })
            .collect()
    }

    /// `satisfyExistingPodsAntiAffinity`: no existing pod's required anti-affinity term that
    /// matches the pod has its pod in the node's domain of the term's key. The hits that do,
    /// ascending.
    fn satisfy_existing_pods_anti_affinity(
        &self,
        state: &PreFilterState<'_>,
        node: usize,
        removed: &[usize],
    ) -> Vec<usize> {
        let mut existing: Vec<usize> = Vec::new();
        for (domains, hits) in &state.existing_anti {
            if let Some(d) = domains.of(node) {
                existing.extend(hits.in_domain(d).filter(|&hit| {
                    removed
                        .binary_search(&state.existing_hits[hit].pod)
                        .is_err()
                }));
            }
        }
        existing.sort_unstable();
        existing
    }

    /// The score of `key`'s domains in PreScore's state, made on first use; `None` when no
    /// node has the key (then no pod adds anything for it).
    fn score_key(&self, state: &mut PreScoreState<'a>, key: &str) -> Option<usize> {
        if let Some(k) = state.topology_score.iter().position(|k| &*k.0 == key) {
            return Some(k);
        }
        let domains = self.input.state.topology().domains(key)?;
        let scores = DomainScores::new(domains.values.len(), state.sources.names.len());
        state.topology_score.push((key.into(), domains, scores));
        Some(state.topology_score.len() - 1)
    }

    /// `processTerms` for the incoming pod's preferred terms: each adds its weight (signed)
    /// in the domains of the pods it matches. Pods on nodes without any label add nothing
    /// (upstream skips them).
    fn process_incoming_terms(&mut self, state: &mut PreScoreState<'a>, labelled: &[bool]) {
        let nodes = self.input.state.pod_nodes();
        let lists = [
            (TermKind::PreferredAffinity, 1, 0),
            (
                TermKind::PreferredAntiAffinity,
                -1,
                self.preferred_affinity.len(),
            ),
        ];
        for (kind, sign, first_source) in lists {
            let len = match kind {
                TermKind::PreferredAffinity => self.preferred_affinity.len(),
                _ => self.preferred_anti_affinity.len(),
            };
            for i in 0..len {
                let r = match kind {
                    TermKind::PreferredAffinity => &self.preferred_affinity[i],
                    _ => &self.preferred_anti_affinity[i],
                };
                let delta = i64::from(r.term.weight) * sign;
                let matching = self.matching(r);
                let k = self.score_key(state, &r.term.topology_key);
                let domains = k.map(|k| state.topology_score[k].1);
                // Each pod with its domain, in one pass that makes the list at its size: a
                // term like `tier in (data)` matches a third of the cluster's pods.
                let domain_of = |node: usize| match domains {
                    _ if !labelled[node] => UNLABELLED,
                    Some(ds) => ds.of(node).unwrap_or(Domains::NONE),
                    None => Domains::NONE,
                };
                let hits: Vec<(u32, u32)> = matching
                    .iter()
                    .map(|&p| {
                        let node = nodes.get(p as usize).copied();
                        (node.map_or(UNLABELLED, domain_of), p)
                    })
                    .collect();
                if let Some(k) = k {
                    let scores = &mut state.topology_score[k].2;
                    let known = domains.map_or(0, |ds| ds.values.len());
                    for &(d, _) in hits.iter().filter(|h| (h.0 as usize) < known) {
                        scores.add(d, first_source + i, delta);
                        state.any = true;
                    }
                }
                self.book.matched_all(kind, i, hits);
            }
        }
    }

    /// `processExistingPod` for every existing pod: its terms that match the incoming pod
    /// (required affinity weighed by hardPodAffinityWeight, preferred affinity and
    /// anti-affinity by their weights) add in the domains of its node. Each distinct term is
    /// matched once, then every pod carrying it adds.
    fn process_existing_pods(&mut self, state: &mut PreScoreState<'a>, labelled: &[bool]) {
        let input = self.input;
        let incoming = input.pod;
        let hard = i64::from(self.args.hard_pod_affinity_weight);
        let first_source = self.preferred_affinity.len() + self.preferred_anti_affinity.len();
        let mut hits: Vec<(u32, usize, usize, TermKind, &'a AffinityTerm, i64)> = Vec::new();
        for g in input
            .state
            .index()
            .affinity_groups_for(&incoming.id.namespace)
        {
            let pa: &'a PodAffinity = &g.terms;
            let required: &'a [AffinityTerm] = if hard > 0 { &pa.required_affinity } else { &[] };
            let lists = [
                (TermKind::RequiredAffinity, required, 0, 0),
                (
                    TermKind::PreferredAffinity,
                    &pa.preferred_affinity[..],
                    1,
                    1,
                ),
                (
                    TermKind::PreferredAntiAffinity,
                    &pa.preferred_anti_affinity[..],
                    -1,
                    2,
                ),
            ];
            let mut matched = Vec::new();
            for (kind, list, sign, source) in lists {
                for (i, t) in list.iter().enumerate() {
                    if t.matches(&incoming.id.namespace, &incoming.labels, &self.ns_labels) {
                        let delta = if sign == 0 {
                            hard
                        } else {
                            i64::from(t.weight) * sign
                        };
                        matched.push((source, kind, i, t, delta));
                    }
                }
            }
            let pods = g.pods.iter().filter(|&&p| {
                !input.is_excluded(p as usize) && labelled[input.state.pod_node(p as usize)]
            });
            for &p in pods {
                for &(source, kind, i, t, delta) in &matched {
                    hits.push((p, source, i, kind, t, delta));
                }
            }
        }
        // In pod order, then in the order of the pod's lists (source) and terms, as a walk
        // over pods gives.
        hits.sort_by_key(|h| (h.0, h.1, h.2));
        for (p, source, i, kind, t, delta) in hits {
            let n = input.state.pod_node(p as usize);
            let d = self.score_key(state, &t.topology_key).and_then(|k| {
                let (_, domains, scores) = &mut state.topology_score[k];
                let d = domains.of(n)?;
                scores.add(d, first_source + source, delta);
                Some(d)
            });
            state.any |= d.is_some();
            self.book.scored_by(p, (kind, i, t), d, delta);
        }
    }
}

/// A count's term on `node`, with `less` pods taken out of the node's domain: satisfied when
/// the node has the key and some pod is counted there.
fn term_on_node(counts: &KeyCounts<'_>, node: usize, index: usize, less: i64) -> TermOnNode {
    let (domain, matching) = counts.on(node);
    let matching = if domain.is_some() {
        matching - less
    } else {
        matching
    };
    TermOnNode {
        index,
        topology_key: counts.key.clone(),
        satisfied: domain.is_some() && matching > 0,
        domain: domain.cloned(),
        matching_pods: matching,
    }
}

impl<'a> Plugin for InterPodAffinity<'a> {
    type FilterDetails = Box<FilterDetails>;
    type ScoreDetails = ScoreDetails;
    type Tables = TermTables;

    fn unavailable(&self) -> Option<String> {
        namespaces_unknown(self.input).map(|why| why.to_string())
    }

    fn pre_filter(&mut self) -> PreFilterOutcome {
        let mut state = PreFilterState::default();
        if let Some(e) = self.parse_error() {
            let status = Status::new(
                Code::UnschedulableAndUnresolvable,
                format!("parsing pod: {e}"),
            );
            self.pre_filter = Some(state);
            return PreFilterOutcome::Reject(status);
        }
        self.existing_anti_affinity_counts(&mut state);
        self.incoming_affinity_anti_affinity_counts(&mut state);
        let skip = state.existing_anti.is_empty()
            && self.required_affinity.is_empty()
            && self.required_anti_affinity.is_empty();
        self.pre_filter = Some(state);
        if skip {
            return PreFilterOutcome::Skip;
        }
        PreFilterOutcome::Proceed(None)
    }

    fn filter(&self, node: usize) -> (Option<Status>, Option<Self::FilterDetails>) {
        self.filter_without(node, &[])
    }

    fn filter_removing(&self, node: usize, removed: &[usize]) -> Option<Option<Status>> {
        Some(self.filter_without(node, removed).0)
    }

    fn pre_score(&mut self, candidates: &[usize]) -> PreScoreOutcome {
        let mut state = PreScoreState {
            sources: Sources::new(
                self.preferred_affinity.len(),
                self.preferred_anti_affinity.len(),
            ),
            ..PreScoreState::default()
        };
        let outcome = self.pre_score_into(&mut state, candidates);
        self.pre_score = Some(state);
        outcome
    }

    fn score(&self, node: usize) -> Result<(i64, Option<Self::ScoreDetails>), String> {
        let Some(state) = &self.pre_score else {
            return Err(missing_cycle_state("PreScore", PluginId::InterPodAffinity));
        };
        let rows = || {
            state.by_key.iter().filter_map(move |&k| {
                let (key, domains, scores) = &state.topology_score[k];
                let d = domains.of(node)?;
                Some((key, &domains.values[d as usize], scores.row(d)))
            })
        };
        // Counted first, so that each candidate's list is allocated once at its size.
        let count = rows()
            .map(|(_, _, row)| row.iter().filter(|c| c.0 != 0).count())
            .sum();
        let mut contributions = Vec::with_capacity(count);
        let mut raw = 0;
        for (key, domain, row) in rows() {
            for &s in &state.sources.by_name {
                let (pods, score) = row[s];
                if pods == 0 {
                    continue;
                }
                raw += score;
                contributions.push(Contribution {
                    topology_key: key.clone(),
                    domain: domain.clone(),
                    source: state.sources.names[s].clone(),
                    pods,
                    score,
                });
            }
        }
        Ok((raw, Some(ScoreDetails { contributions })))
    }

    fn normalize(&self, scores: &mut [i64]) {
        if !self.pre_score.as_ref().is_some_and(|s| s.any) {
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

    fn tables(&mut self) -> Option<TermTables> {
        let hits = self
            .pre_filter
            .as_ref()
            .map_or(&[][..], |s| &s.existing_hits);
        let terms = [
            terms_of(&self.required_affinity),
            terms_of(&self.required_anti_affinity),
            terms_of(&self.preferred_affinity),
            terms_of(&self.preferred_anti_affinity),
        ];
        self.book.make(hits, terms)
    }
}

impl<'a> InterPodAffinity<'a> {
    /// PreScore into `state`: upstream's `PreScore` after the state is made.
    fn pre_score_into(
        &mut self,
        state: &mut PreScoreState<'a>,
        candidates: &[usize],
    ) -> PreScoreOutcome {
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
            return PreScoreOutcome::Error(format!("failed to parse pod: {e}"));
        }
        let nodes = self.input.state.nodes();
        let labelled: Vec<bool> = nodes.iter().map(|n| !n.labels.is_empty()).collect();
        self.process_incoming_terms(state, &labelled);
        self.process_existing_pods(state, &labelled);
        if !state.any {
            return PreScoreOutcome::Skip;
        }
        let mut by_key: Vec<usize> = (0..state.topology_score.len()).collect();
        by_key.sort_by(|&a, &b| state.topology_score[a].0.cmp(&state.topology_score[b].0));
        state.by_key = by_key;
        PreScoreOutcome::Proceed
    }
}
