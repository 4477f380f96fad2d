//! InterPodAffinity (`pkg/scheduler/framework/plugins/interpodaffinity`): required affinity,
//! required anti-affinity in both directions, and the preferred/symmetric score.
//!
//! Like upstream's PreFilter/PreScore, existing pods are walked once to build
//! `(topologyKey, value) -> count` maps; Filter and Score are then lookups per node. The maps
//! also remember which pods produced each count, so a user can see who matched or blocked.

pub mod explain;

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use super::config::InterPodAffinityArgs;
use super::plugin::{Input, MAX_NODE_SCORE, Plugin, missing_cycle_state};
use super::plugin_id::PluginId;
use super::status::{Code, PreFilterOutcome, PreScoreOutcome, Status};
use crate::state::labels::Labels;
use crate::state::selector::LabelSelector;
use crate::state::{AffinityTerm, Candidates, Domains, PodAffinity, PodList, PodRef};

pub const REASON_AFFINITY: &str = "node(s) didn't match pod affinity rules";
pub const REASON_ANTI_AFFINITY: &str = "node(s) didn't match pod anti-affinity rules";
pub const REASON_EXISTING_ANTI_AFFINITY: &str =
    "node(s) didn't satisfy existing pods anti-affinity rules";

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
    #[serde(skip_serializing_if = "is_zero_i32")]
    pub weight: i32,
    pub selector: String,
    pub namespaces: Vec<String>,
    /// True when `namespaceSelector: {}` selects every namespace.
    pub all_namespaces: bool,
    /// Domain value -> matching pods on nodes of that domain. For required affinity a pod is
    /// listed only when it matches every required affinity term, as upstream counts it.
    pub domains: DomainPods,
    /// Matching pods on nodes that lack the topology key: they count for nothing.
    pub pods_without_domain: PodList,
    /// Whether the incoming pod matches this term itself (the first-pod exception).
    pub incoming_pod_matches: bool,
}

/// Domain value -> the matching pods on nodes of that domain, ordered by value (as the
/// `BTreeMap` it replaces, and serialized the same way, as an object), made from the
/// topology's sorted values without comparing strings.
#[derive(Debug, Clone, Default)]
pub struct DomainPods(Vec<(Arc<str>, PodList)>);

/// An object of each domain's pods, in the domains' order.
impl Serialize for DomainPods {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

fn is_zero_i32(v: &i32) -> bool {
    *v == 0
}

fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}

impl DomainPods {
    pub fn get(&self, value: &str) -> Option<&PodList> {
        self.0
            .binary_search_by(|(v, _)| (**v).cmp(value))
            .ok()
            .map(|i| &self.0[i].1)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &PodList)> {
        self.0.iter().map(|(v, p)| (&**v, p))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// An existing pod's term that matches the incoming pod.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExistingTermHit {
    pub pod: Arc<PodRef>,
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

/// Matching pods of one incoming term, per domain of its key, as pod indexes until the report
/// is built: a term like `tier in (data)` over all namespaces matches tens of thousands of pods.
#[derive(Debug, Default)]
struct TermPods<'a> {
    domains: Option<&'a Domains>,
    /// `(domain or Domains::NONE, pod)` in the order pods were matched; [`UNLABELLED`] marks
    /// a pod left out.
    hits: Vec<(u32, u32)>,
}

/// A pod on a node without any label: upstream's PreScore skips it, and so does the report.
const UNLABELLED: u32 = Domains::NONE - 1;

impl TermPods<'_> {
    fn push(&mut self, domain: Option<u32>, pod: u32) {
        self.hits.push((domain.unwrap_or(Domains::NONE), pod));
    }

    /// The pods grouped by domain, domains in value order, each in matching order (one
    /// buffer, bucketed in two passes); the end of each non-empty domain's part with that
    /// domain; and the pods without a domain.
    fn grouped(self) -> (Vec<u32>, Vec<(u32, u32)>, Vec<u32>) {
        let Some(domains) = self.domains else {
            return (
                Vec::new(),
                Vec::new(),
                self.hits
                    .into_iter()
                    .filter(|h| h.0 != UNLABELLED)
                    .map(|h| h.1)
                    .collect(),
            );
        };
        let n = domains.values.len();
        let mut place = vec![0u32; n];
        for (r, &d) in domains.sorted.iter().enumerate() {
            place[d as usize] = u32::try_from(r).unwrap_or(u32::MAX);
        }
        let mut ends = vec![0u32; n];
        for &(d, _) in &self.hits {
            if let Some(&r) = place.get(d as usize) {
                ends[r as usize] += 1;
            }
        }
        let mut next = Vec::with_capacity(n);
        let mut sum = 0;
        for e in &mut ends {
            next.push(sum);
            sum += *e;
            *e = sum;
        }
        let mut grouped = vec![0u32; sum as usize];
        let mut without = Vec::new();
        for (d, p) in self.hits {
            match place.get(d as usize) {
                Some(&r) => {
                    let at = &mut next[r as usize];
                    grouped[*at as usize] = p;
                    *at += 1;
                }
                None if d == UNLABELLED => {}
                None => without.push(p),
            }
        }
        let mut start = 0;
        let parts = ends
            .iter()
            .enumerate()
            .filter_map(|(r, &end)| {
                let part = (end > start).then_some((domains.sorted[r], end));
                start = end;
                part
            })
            .collect();
        (grouped, parts, without)
    }
}

/// `(topologyKey, value) -> count` for one key. Pods are counted as their domains, and once
/// counting is done the counts are kept in the smaller of two forms: a vector over the key's
/// domains when the pods are many (a zone term over tens of thousands of pods: no sort, one
/// read per node), the sorted domains when they are few against the domains (a hostname term
/// over one workload's replicas, in each of the audit's checks: a vector would be as long as
/// the cluster has nodes).
#[derive(Debug)]
struct KeyCounts<'a> {
    key: Arc<str>,
    domains: Option<&'a Domains>,
    counted: Vec<u32>,
    /// Per domain, once counting is done and `counted` was the larger form.
    dense: Vec<i64>,
}

impl<'a> KeyCounts<'a> {
    fn new(input: Input<'a>, key: &str) -> Self {
        KeyCounts {
            key: key.into(),
            domains: input.state.topology().domains(key),
            counted: Vec::new(),
            dense: Vec::new(),
        }
    }

    /// Counts a pod on `node`; its domain, `None` when the node lacks the key.
    fn add(&mut self, node: usize) -> Option<u32> {
        let d = self.domains?.of(node)?;
        self.counted.push(d);
        Some(d)
    }

    /// Ends counting: [`KeyCounts::on`] reads the counts from here on.
    fn finish(&mut self) {
        let domains = self.domains.map_or(0, |d| d.values.len());
        if self.counted.is_empty() || self.counted.len() * 8 < domains {
            self.counted.sort_unstable();
            return;
        }
        self.dense = vec![0; domains];
        for d in std::mem::take(&mut self.counted) {
            self.dense[d as usize] += 1;
        }
    }

    /// The node's domain value and the count there.
    fn on(&self, node: usize) -> (Option<&'a Arc<str>>, i64) {
        let Some((d, i)) = self.domains.and_then(|d| d.of(node).map(|i| (d, i))) else {
            return (None, 0);
        };
        let n = match self.dense.get(i as usize) {
            Some(&n) => n,
            None => i64::try_from(run_of(&self.counted, i, |&c| c).len()).unwrap_or(i64::MAX),
        };
        (Some(&d.values[i as usize]), n)
    }
}

/// The part of `sorted` (ascending by `domain`) in domain `d`.
fn run_of<T>(sorted: &[T], d: u32, domain: impl Fn(&T) -> u32) -> &[T] {
    let from = sorted.partition_point(|x| domain(x) < d);
    let len = sorted[from..].partition_point(|x| domain(x) == d);
    &sorted[from..from + len]
}

/// PreScore's `topologyScore` for one key: per domain and contribution source, the number of
/// pods and the summed score. A source is present in a domain once a pod was added there.
#[derive(Debug)]
struct KeyScores<'a> {
    key: Arc<str>,
    domains: &'a Domains,
    /// `domains.values.len() x sources`, row-major by domain.
    cells: Vec<(i64, i64)>,
}

impl KeyScores<'_> {
    /// Adds one pod on `node` to `source` (of `sources`) in the node's domain; the domain,
    /// `None` when the node lacks the key.
    fn add(&mut self, node: usize, sources: usize, source: usize, delta: i64) -> Option<u32> {
        let d = self.domains.of(node)?;
        let cell = &mut self.cells[d as usize * sources + source];
        cell.0 += 1;
        cell.1 += delta;
        Some(d)
    }
}

/// An existing pod whose required anti-affinity term `index` selects the incoming pod, and
/// the value of the term's key on the pod's node.
#[derive(Debug)]
struct ExistingAnti<'a> {
    pod: usize,
    index: usize,
    term: &'a AffinityTerm,
    domain: Option<&'a Arc<str>>,
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
    pre_filtered: bool,
    pre_scored: bool,
    /// One shared count per distinct key of the required affinity terms (upstream's
    /// `affinityCounts` is one map over all terms).
    affinity_counts: Vec<KeyCounts<'a>>,
    /// Index into `affinity_counts` of each required affinity term.
    affinity_key_of: Vec<usize>,
    /// How many times pods were counted for required affinity, over every key and domain
    /// (upstream: `len(affinityCounts)` is zero when this is).
    affinity_total: i64,
    /// The first-pod exception's second half: the pod matches all its required terms.
    incoming_matches_required: bool,
    anti_affinity_counts: Vec<KeyCounts<'a>>,
    /// Existing pods' anti-affinity hits per key: `(domain, index into the table)`, sorted
    /// (a vector per domain would be one per node for a hostname key, for every audited pod).
    existing_anti: Vec<(&'a Domains, Vec<(u32, usize)>)>,
    /// Every hit, as `existing_anti` indexes them; the report's table of them is made when
    /// asked for.
    existing_anti_hits: Vec<ExistingAnti<'a>>,
    tables_made: bool,
    /// Names of the score sources and their order by name, as the report lists them; named
    /// by PreScore.
    source_names: Vec<Arc<str>>,
    source_order: Vec<usize>,
    topology_score: Vec<KeyScores<'a>>,
    /// `topology_score` in key order, as each node's contributions are listed; sorted once
    /// when PreScore is done.
    score_order: Vec<usize>,
    any_score: bool,
    term_pods: Vec<TermPods<'a>>,
    tables: TermTables,
}

/// Offsets of each kind's terms in the term tables (they are listed kind by kind).
fn table_offset(kind: TermKind, lens: [usize; 4]) -> usize {
    match kind {
        TermKind::RequiredAffinity => 0,
        TermKind::RequiredAntiAffinity => lens[0],
        TermKind::PreferredAffinity => lens[0] + lens[1],
        TermKind::PreferredAntiAffinity => lens[0] + lens[1] + lens[2],
    }
}

impl<'a> InterPodAffinity<'a> {
    pub fn new(input: Input<'a>, args: InterPodAffinityArgs) -> Self {
        let terms = input.pod.template.pod_affinity.as_deref();
        let ns_labels = input.state.namespace_labels(&input.pod.id.namespace);
        let mut warnings = Vec::new();
        let mut resolve = |list: Option<&'a Vec<AffinityTerm>>| -> Vec<Resolved<'a>> {
            list.into_iter()
                .flatten()
                .map(|t| {
                    // Most terms name their namespaces (or their pod's) in order: they are
                    // borrowed, not copied, for every pod the audit checks.
                    let resolved = matches!(t.namespace_selector, LabelSelector::Nothing)
                        || t.namespace_selector.is_everything();
                    let mut term = Cow::Borrowed(t);
                    if !resolved {
                        let term = term.to_mut();
                        match input.state.namespaces() {
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
                    Resolved { term, namespace_ids }
                })
                .collect()
        };
        let required_affinity = resolve(terms.map(|t| &t.required_affinity));
        let required_anti_affinity = resolve(terms.map(|t| &t.required_anti_affinity));
        let preferred_affinity = resolve(terms.map(|t| &t.preferred_affinity));
        let preferred_anti_affinity = resolve(terms.map(|t| &t.preferred_anti_affinity));
        warnings.dedup();
        let tables = TermTables {
            warnings,
            ..Default::default()
        };
        let term_pods = [
            &required_affinity,
            &required_anti_affinity,
            &preferred_affinity,
            &preferred_anti_affinity,
        ]
        .into_iter()
        .flatten()
        .map(|r| TermPods {
            domains: input.state.topology().domains(&r.term.topology_key),
            ..Default::default()
        })
        .collect();
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
            affinity_counts: Vec::new(),
            affinity_key_of: Vec::new(),
            affinity_total: 0,
            incoming_matches_required: false,
            anti_affinity_counts: Vec::new(),
            existing_anti: Vec::new(),
            existing_anti_hits: Vec::new(),
            tables_made: false,
            source_names: Vec::new(),
            source_order: Vec::new(),
            topology_score: Vec::new(),
            score_order: Vec::new(),
            any_score: false,
            term_pods,
            tables,
        }
    }

    fn lens(&self) -> [usize; 4] {
        [
            self.required_affinity.len(),
            self.required_anti_affinity.len(),
            self.preferred_affinity.len(),
            self.preferred_anti_affinity.len(),
        ]
    }

    /// Remembers a matching pod in its term's table.
    fn record(&mut self, kind: TermKind, index: usize, domain: Option<u32>, pod: u32) {
        let at = table_offset(kind, self.lens()) + index;
        if let Some(t) = self.term_pods.get_mut(at) {
            t.push(domain, pod);
        }
    }

    /// Turns the recorded pod indexes into the report's per-domain pod lists.
    /// Made only when asked for: the audit checks every bound pod and reads the tables of
    /// the few that break a rule.
    fn finish_tables(&mut self) {
        let input = self.input;
        let state = input.state;
        for hit in &self.existing_anti_hits {
            let n = state.pod_node(hit.pod);
            self.tables.existing_anti_affinity.push(ExistingTermHit {
                pod: state.pods()[hit.pod].id.clone(),
                node: input.node(n).name.clone(),
                kind: TermKind::RequiredAntiAffinity,
                index: hit.index,
                topology_key: hit.term.topology_key.clone(),
                domain: hit.domain.map(|v| v.to_string()),
                score: 0,
            });
        }
        let index = state.index();
        let pod = input.pod;
        let terms = [
            (TermKind::RequiredAffinity, &self.required_affinity),
            (TermKind::RequiredAntiAffinity, &self.required_anti_affinity),
            (TermKind::PreferredAffinity, &self.preferred_affinity),
            (
                TermKind::PreferredAntiAffinity,
                &self.preferred_anti_affinity,
            ),
        ]
        .into_iter()
        .flat_map(|(kind, list)| list.iter().enumerate().map(move |(i, r)| (kind, i, r)));
        for ((kind, index_in_kind, r), rec) in terms.zip(std::mem::take(&mut self.term_pods)) {
            let domains = rec.domains;
            let (grouped, parts, without_domain) = rec.grouped();
            let domains = match domains {
                Some(domains) => {
                    let lists = index.pod_lists(grouped, parts.iter().map(|p| p.1));
                    DomainPods(
                        parts
                            .iter()
                            .zip(lists)
                            .map(|(&(d, _), list)| (domains.values[d as usize].clone(), list))
                            .collect(),
                    )
                }
                None => DomainPods::default(),
            };
            self.tables.terms.push(TermTable {
                kind,
                index: index_in_kind,
                topology_key: r.term.topology_key.clone(),
                weight: r.term.weight,
                selector: r.term.selector.to_string(),
                namespaces: r.term.namespaces.clone(),
                all_namespaces: r.term.namespace_selector.is_everything(),
                domains,
                pods_without_domain: index.pod_list(without_domain),
                incoming_pod_matches: r.matches(&pod.id.namespace, &pod.labels),
            });
        }
    }

    /// Names of the score sources (incoming preferred terms, then the three existing kinds)
    /// and their order by name.
    fn name_sources(&mut self) {
        let mut names: Vec<Arc<str>> = Vec::new();
        for (kind, list) in [
            (TermKind::PreferredAffinity, &self.preferred_affinity),
            (
                TermKind::PreferredAntiAffinity,
                &self.preferred_anti_affinity,
            ),
        ] {
            names.extend((0..list.len()).map(|i| Arc::from(format!("{}[{i}]", kind_name(kind)))));
        }
        for kind in [
            TermKind::RequiredAffinity,
            TermKind::PreferredAffinity,
            TermKind::PreferredAntiAffinity,
        ] {
            names.push(Arc::from(format!("existing:{}", kind_name(kind))));
        }
        let mut order: Vec<usize> = (0..names.len()).collect();
        order.sort_by(|&a, &b| names[a].cmp(&names[b]));
        self.source_names = names;
        self.source_order = order;
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
                std::borrow::Cow::Owned(
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
        // Sized for every candidate: a term like `tier in (data)` selects 50,000 pods, and
        // growing to that doubled the list 17 times.
        let mut out = Vec::with_capacity(pods.len());
        out.extend(pods.iter().copied().filter(|&p| {
            !input.is_excluded(p as usize)
                && in_namespace(p)
                && (exact || r.term.selector.matches(&state.pods()[p as usize].labels))
        }));
        out
    }

    /// The score table of `key`, made on first use; `None` when no node has the key (then
    /// no pod adds anything for it).
    fn score_key(&mut self, key: &str) -> Option<usize> {
        if let Some(k) = self.topology_score.iter().position(|k| &*k.key == key) {
            return Some(k);
        }
        let domains = self.input.state.topology().domains(key)?;
        self.topology_score.push(KeyScores {
            key: key.into(),
            domains,
            cells: vec![(0, 0); domains.values.len() * self.source_names.len()],
        });
        Some(self.topology_score.len() - 1)
    }

    /// Adds one pod's contribution to `(key, node's value) -> source`; the domain, `None`
    /// when the node lacks the key.
    fn add_score(&mut self, key: &str, node: usize, source: usize, delta: i64) -> Option<u32> {
        let k = self.score_key(key)?;
        let d = self.topology_score[k].add(node, self.source_names.len(), source, delta)?;
        self.any_score = true;
        Some(d)
    }

    /// The node's value for `key`, as the report names domains.
    fn domain_value(&self, key: &str, domain: Option<u32>) -> Option<String> {
        let d = domain?;
        let domains = self.input.state.topology().domains(key)?;
        Some(domains.values[d as usize].to_string())
    }
}

impl InterPodAffinity<'_> {
    /// Filter on `node` with the existing pods `removed` (ascending, all on `node`) taken out
    /// of what PreFilter counted: upstream's `RemovePod` (`updateWithPod` with -1) followed by
    /// Filter, for preemption's dry run. Their contributions all fall in the node's own
    /// domains, so the counts there and the hits of their terms are all that change.
    fn filter_without(
        &self,
        node: usize,
        removed: &[usize],
    ) -> (Option<Status>, Option<Box<FilterDetails>>) {
        if !self.pre_filtered {
            return (
                Some(Status::new(
                    Code::Error,
                    missing_cycle_state("PreFilter", PluginId::InterPodAffinity),
                )),
                None,
            );
        }
        let pods = self.input.state.pods();
        let removed_matching = |terms: &[&Resolved<'_>]| -> i64 {
            let n = removed
                .iter()
                .filter(|&&p| {
                    terms
                        .iter()
                        .all(|r| r.matches(&pods[p].id.namespace, &pods[p].labels))
                })
                .count();
            i64::try_from(n).unwrap_or(i64::MAX)
        };
        // A removed pod matching every required affinity term was counted once per term, in
        // the node's domain of each term's key.
        let affinity_removed = if removed.is_empty() || self.required_affinity.is_empty() {
            0
        } else {
            removed_matching(&self.required_affinity.iter().collect::<Vec<_>>())
        };
        let terms_of_key = |k: usize| {
            let n = self.affinity_key_of.iter().filter(|&&x| x == k).count();
            i64::try_from(n).unwrap_or(i64::MAX)
        };
        let on_node = |counts: &KeyCounts<'_>, index: usize, less: i64| {
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
        };
        // 1. Required affinity: every key on the node, every pair counted, or the first-pod
        //    exception (no matching pod anywhere and the pod matches its own terms).
        let affinity: TermsOnNode = self
            .affinity_key_of
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                on_node(
                    &self.affinity_counts[k],
                    i,
                    affinity_removed * terms_of_key(k),
                )
            })
            .collect();
        let uncounted: i64 = self
            .affinity_counts
            .iter()
            .enumerate()
            .filter(|(_, c)| c.on(node).0.is_some())
            .map(|(k, _)| affinity_removed * terms_of_key(k))
            .sum();
        let affinity_counted = self.affinity_total - uncounted > 0;
        let all_keys = affinity.iter().all(|t| t.domain.is_some());
        let all_counted = affinity.iter().all(|t| t.satisfied);
        let mut first_pod_exception = None;
        let affinity_ok = if !all_keys {
            false
        } else if all_counted {
            true
        } else {
            let applies = !affinity_counted && self.incoming_matches_required;
            first_pod_exception = Some(applies);
            applies
        };
        // 2. The incoming pod's anti-affinity: any term whose domain on this node has a match.
        let anti_affinity: TermsOnNode = self
            .anti_affinity_counts
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let less = if removed.is_empty() {
                    0
                } else {
                    removed_matching(&[&self.required_anti_affinity[i]])
                };
                let mut t = on_node(c, i, less);
                // For anti-affinity "satisfied" means no matching pod in the domain.
                t.satisfied = t.matching_pods == 0;
                t
            })
            .collect();
        let anti_ok = anti_affinity.iter().all(|t| t.satisfied);
        // 3. Existing pods' anti-affinity: the node's domain of any key with a hit.
        let mut existing: Vec<usize> = Vec::new();
        for (domains, hits) in &self.existing_anti {
            if let Some(d) = domains.of(node) {
                existing.extend(run_of(hits, d, |h| h.0).iter().map(|h| h.1).filter(|&hit| {
                    removed
                        .binary_search(&self.existing_anti_hits[hit].pod)
                        .is_err()
                }));
            }
        }
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
            Some(Box::new(FilterDetails {
                affinity,
                first_pod_exception,
                anti_affinity,
                existing_anti_affinity: existing,
            })),
        )
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
        self.pre_filtered = true;
        if let Some(e) = self.parse_error() {
            return PreFilterOutcome::Reject(Status::new(
                Code::UnschedulableAndUnresolvable,
                format!("parsing pod: {e}"),
            ));
        }
        let input = self.input;
        let state = input.state;
        let incoming = input.pod;
        // Existing pods' required anti-affinity against the incoming pod (symmetry): each
        // distinct term is matched once, then every pod carrying it is a hit.
        let mut hits: Vec<(u32, usize, &'a AffinityTerm)> = Vec::new();
        for g in state.index().affinity_groups_for(&incoming.id.namespace) {
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
            let n = state.pod_node(p as usize);
            let domains = state.topology().domains(&t.topology_key);
            let d = domains.and_then(|ds| ds.of(n).map(|d| (ds, d)));
            let hit = self.existing_anti_hits.len();
            if let Some((ds, d)) = d {
                let k = match self
                    .existing_anti
                    .iter()
                    .position(|(e, _)| std::ptr::eq(*e, ds))
                {
                    Some(k) => k,
                    None => {
                        self.existing_anti.push((ds, Vec::new()));
                        self.existing_anti.len() - 1
                    }
                };
                self.existing_anti[k].1.push((d, hit));
            }
            self.existing_anti_hits.push(ExistingAnti {
                pod: p as usize,
                index: ti,
                term: t,
                domain: d.map(|(ds, d)| &ds.values[d as usize]),
            });
        }
        // The incoming pod's required affinity: a pod counts when it matches every term.
        if !self.required_affinity.is_empty() {
            for r in &self.required_affinity {
                let key = r.term.topology_key.as_str();
                let at = match self.affinity_counts.iter().position(|c| &*c.key == key) {
                    Some(at) => at,
                    None => {
                        let c = KeyCounts::new(input, key);
                        self.affinity_counts.push(c);
                        self.affinity_counts.len() - 1
                    }
                };
                self.affinity_key_of.push(at);
            }
            self.incoming_matches_required = self
                .required_affinity
                .iter()
                .all(|r| r.matches(&incoming.id.namespace, &incoming.labels));
            let lists: Vec<Vec<u32>> = self
                .required_affinity
                .iter()
                .map(|r| self.matching(r))
                .collect();
            let smallest: &[u32] = lists
                .iter()
                .min_by_key(|l| l.len())
                .map_or(&[], Vec::as_slice);
            for &p in smallest {
                if !lists.iter().all(|l| l.binary_search(&p).is_ok()) {
                    continue;
                }
                let n = state.pod_node(p as usize);
                for i in 0..self.required_affinity.len() {
                    let d = self.affinity_counts[self.affinity_key_of[i]].add(n);
                    self.affinity_total += i64::from(d.is_some());
                    self.record(TermKind::RequiredAffinity, i, d, p);
                }
            }
        }
        // The incoming pod's required anti-affinity, term by term.
        for i in 0..self.required_anti_affinity.len() {
            let mut counts =
                KeyCounts::new(input, &self.required_anti_affinity[i].term.topology_key);
            let found: Vec<(u32, Option<u32>)> = self
                .matching(&self.required_anti_affinity[i])
                .into_iter()
                .map(|p| (p, counts.add(state.pod_node(p as usize))))
                .collect();
            for (p, d) in found {
                self.record(TermKind::RequiredAntiAffinity, i, d, p);
            }
            self.anti_affinity_counts.push(counts);
        }
        for (_, hits) in &mut self.existing_anti {
            hits.sort_unstable();
        }
        for c in self
            .affinity_counts
            .iter_mut()
            .chain(&mut self.anti_affinity_counts)
        {
            c.finish();
        }
        if self.existing_anti.is_empty()
            && self.required_affinity.is_empty()
            && self.required_anti_affinity.is_empty()
        {
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
        self.pre_scored = true;
        self.name_sources();
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
        let input = self.input;
        let state = input.state;
        let incoming = input.pod;
        let hard = i64::from(self.args.hard_pod_affinity_weight);
        // Pods on nodes without any label contribute nothing (upstream skips them).
        let node_labelled: Vec<bool> = state.nodes().iter().map(|n| !n.labels.is_empty()).collect();
        let labelled = |p: u32| node_labelled[state.pod_node(p as usize)];
        // The incoming pod's preferred terms against the pods they select.
        let n_aff = self.preferred_affinity.len();
        for (kind, sign) in [
            (TermKind::PreferredAffinity, 1),
            (TermKind::PreferredAntiAffinity, -1),
        ] {
            let len = if sign > 0 {
                n_aff
            } else {
                self.preferred_anti_affinity.len()
            };
            for i in 0..len {
                let r = if sign > 0 {
                    &self.preferred_affinity[i]
                } else {
                    &self.preferred_anti_affinity[i]
                };
                let key = r.term.topology_key.clone();
                let delta = i64::from(r.term.weight) * sign;
                let matching = self.matching(r);
                let source = if sign > 0 { i } else { n_aff + i };
                let k = self.score_key(&key);
                // A term like `tier in (data)` matches a third of the cluster's pods. Each is
                // recorded with its domain in one pass that makes the list at its size, then
                // added to its domain's cell; the loops hold no branch that grows a vector.
                let sources = self.source_names.len();
                let domains = k.map(|k| self.topology_score[k].domains);
                let node_domain: Vec<u32> = node_labelled
                    .iter()
                    .enumerate()
                    .map(|(node, &labelled)| match domains {
                        _ if !labelled => UNLABELLED,
                        Some(ds) => ds.of(node).unwrap_or(Domains::NONE),
                        None => Domains::NONE,
                    })
                    .collect();
                let hits: Vec<(u32, u32)> = matching
                    .iter()
                    .map(|&p| {
                        let node = state.pod_nodes().get(p as usize).copied();
                        let d = node.and_then(|n| node_domain.get(n).copied());
                        (d.unwrap_or(UNLABELLED), p)
                    })
                    .collect();
                let mut added = false;
                if let Some(ks) = k.map(|k| &mut self.topology_score[k]) {
                    let domain_count = ks.domains.values.len();
                    for &(d, _) in &hits {
                        if (d as usize) < domain_count {
                            let cell = &mut ks.cells[d as usize * sources + source];
                            cell.0 += 1;
                            cell.1 += delta;
                            added = true;
                        }
                    }
                }
                self.any_score |= added;
                let at = table_offset(kind, self.lens()) + i;
                if let Some(t) = self.term_pods.get_mut(at) {
                    if t.hits.is_empty() {
                        t.hits = hits;
                    } else {
                        t.hits.extend(hits);
                    }
                }
            }
        }
        // Existing pods' terms against the incoming pod: each distinct term matched once.
        let existing_source = self.preferred_affinity.len() + self.preferred_anti_affinity.len();
        let mut hits: Vec<(u32, usize, usize, TermKind, &'a AffinityTerm, i64)> = Vec::new();
        for g in state.index().affinity_groups_for(&incoming.id.namespace) {
            let pa: &'a PodAffinity = &g.terms;
            let mut matched: Vec<(usize, TermKind, usize, &'a AffinityTerm, i64)> = Vec::new();
            let lists: [(TermKind, &'a [AffinityTerm], i64, usize); 3] = [
                (
                    TermKind::RequiredAffinity,
                    if hard > 0 { &pa.required_affinity } else { &[] },
                    0,
                    0,
                ),
                (TermKind::PreferredAffinity, &pa.preferred_affinity, 1, 1),
                (
                    TermKind::PreferredAntiAffinity,
                    &pa.preferred_anti_affinity,
                    -1,
                    2,
                ),
            ];
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
            if matched.is_empty() {
                continue;
            }
            for &p in &g.pods {
                if input.is_excluded(p as usize) || !labelled(p) {
                    continue;
                }
                for &(source, kind, i, t, delta) in &matched {
                    hits.push((p, source, i, kind, t, delta));
                }
            }
        }
        // In pod order, then in the order of the pod's lists (source) and terms, as a walk
        // over pods gives.
        hits.sort_by_key(|h| (h.0, h.1, h.2));
        for (p, source, i, kind, t, delta) in hits {
            let source = existing_source + source;
            let n = state.pod_node(p as usize);
            let d = self.add_score(&t.topology_key, n, source, delta);
            let domain = self.domain_value(&t.topology_key, d);
            self.tables.existing_scoring_terms.push(ExistingTermHit {
                pod: state.pods()[p as usize].id.clone(),
                node: input.node(n).name.clone(),
                kind,
                index: i,
                topology_key: t.topology_key.clone(),
                domain,
                score: delta,
            });
        }
        if !self.any_score {
            return PreScoreOutcome::Skip;
        }
        let mut order: Vec<usize> = (0..self.topology_score.len()).collect();
        order.sort_by(|&a, &b| self.topology_score[a].key.cmp(&self.topology_score[b].key));
        self.score_order = order;
        PreScoreOutcome::Proceed
    }

    fn score(&self, node: usize) -> Result<(i64, Option<Self::ScoreDetails>), String> {
        if !self.pre_scored {
            return Err(missing_cycle_state("PreScore", PluginId::InterPodAffinity));
        }
        let mut raw = 0;
        let sources = self.source_names.len();
        let rows = || {
            self.score_order.iter().filter_map(move |&k| {
                let ks = &self.topology_score[k];
                let d = ks.domains.of(node)?;
                Some((
                    ks,
                    d,
                    &ks.cells[d as usize * sources..(d as usize + 1) * sources],
                ))
            })
        };
        // Counted first, so that each candidate's list is allocated once at its size.
        let count = rows()
            .map(|(_, _, row)| row.iter().filter(|c| c.0 != 0).count())
            .sum();
        let mut contributions = Vec::with_capacity(count);
        for (ks, d, row) in rows() {
            for &s in &self.source_order {
                let (pods, score) = row[s];
                if pods == 0 {
                    continue;
                }
                raw += score;
                contributions.push(Contribution {
                    topology_key: ks.key.clone(),
                    domain: ks.domains.values[d as usize].clone(),
                    source: self.source_names[s].clone(),
                    pods,
                    score,
                });
            }
        }
        Ok((raw, Some(ScoreDetails { contributions })))
    }

    fn normalize(&self, scores: &mut [i64]) {
        if !self.any_score {
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
        if std::mem::replace(&mut self.tables_made, true) {
            return None;
        }
        self.finish_tables();
        let t = &self.tables;
        let empty = t.terms.is_empty()
            && t.existing_anti_affinity.is_empty()
            && t.existing_scoring_terms.is_empty();
        (!empty).then(|| std::mem::take(&mut self.tables))
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

#[cfg(test)]
mod tests {
    use crate::scheduler::testing::{db_pod, evaluate_default, zone_node};
    use serde_json::json;

    /// Counts are kept as sorted domains when the pods are few against the domains, as a
    /// vector over them otherwise: each node reads the same count either way.
    #[test]
    fn a_domains_count_is_the_same_whether_few_or_many_pods_were_counted() {
        for (zones, pods) in [(10, 1), (10, 2), (2, 1), (2, 6)] {
            let mut items: Vec<_> = (0..zones)
                .map(|z| zone_node(&format!("n{z}"), &format!("z{z}")))
                .collect();
            items.extend((0..pods).map(|p| db_pod(&format!("db-{p}"), &format!("n{}", p % 2))));
            let incoming = json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "shy", "namespace": "default"},
                "spec": {"containers": [{"name": "c", "image": "x"}],
                         "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                             {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}]}}}});
            let eval = evaluate_default(json!(items), incoming);
            for n in &eval.nodes {
                let Some(crate::scheduler::FilterDetails::InterPodAffinity(d)) = n
                    .filters
                    .iter()
                    .find(|f| *f.plugin == crate::scheduler::PluginId::InterPodAffinity)
                    .and_then(|f| f.details)
                else {
                    panic!("InterPodAffinity details on {}", n.name);
                };
                let z: usize = n.name[1..].parse().expect("node number");
                let expected = (0..pods).filter(|p| p % 2 == z).count();
                assert_eq!(
                    d.anti_affinity[0].matching_pods,
                    i64::try_from(expected).expect("count"),
                    "{zones} zones, {pods} pods, node {}",
                    n.name
                );
            }
        }
    }

    /// Preemption's dry run takes pods out of what PreFilter counted (`filter_without`): on
    /// every node and for every set of its pods, the answer is the one PreFilter gives on a
    /// state without those pods, through required affinity (two terms sharing a key, and the
    /// first-pod exception once every match is gone), required anti-affinity and existing
    /// pods' anti-affinity.
    #[test]
    fn taking_pods_out_agrees_with_prefiltering_without_them() {
        use super::InterPodAffinity;
        use crate::scheduler::Input;
        use crate::scheduler::config::InterPodAffinityArgs;
        use crate::scheduler::plugin::Plugin;
        use crate::state::{Pod, read_snapshot_str};
        let node = |name: &str, zone: &str| {
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels":
                   {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}},
                   "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
        };
        let pod = |name: &str, node: &str, app: &str, affinity: serde_json::Value| {
            json!({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": name, "namespace": "default", "labels": {"app": app}},
                   "spec": {"nodeName": node, "affinity": affinity,
                            "containers": [{"name": "c", "image": "x"}]},
                   "status": {"phase": "Running"}})
        };
        let term = |app: &str, key: &str| json!({"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key});
        let avoid_me = json!({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
            [term("me", "topology.kubernetes.io/zone")]}});
        let items = json!([
            node("a", "z1"),
            node("b", "z1"),
            node("c", "z2"),
            pod("db-0", "a", "db", json!({})),
            pod("db-1", "a", "db", json!({})),
            pod("web-0", "a", "web", json!({})),
            pod("web-1", "c", "web", json!({})),
            pod("guard", "c", "web", avoid_me.clone()),
            pod("guard-2", "b", "other", avoid_me),
        ]);
        let state = read_snapshot_str(
            &json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
            "test",
        )
        .expect("snapshot");
        // As `me` the pod matches none of its own terms; as `db` it matches both affinity
        // terms, so the first-pod exception applies once no other pod matches them.
        let mut compared = 0;
        for app in ["me", "db"] {
            let incoming: k8s_openapi::api::core::v1::Pod = serde_json::from_value(json!({
            "metadata": {"name": "p", "namespace": "default", "labels": {"app": app}},
            "spec": {"containers": [{"name": "c", "image": "x"}], "affinity": {
                "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    term("db", "topology.kubernetes.io/zone"),
                    {"labelSelector": {"matchExpressions": [
                        {"key": "app", "operator": "In", "values": ["db", "web"]}]},
                     "topologyKey": "topology.kubernetes.io/zone"}]},
                "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    term("web", "kubernetes.io/hostname")]}}}}))
            .expect("pod");
            let incoming = Pod::from_api(&incoming);
            let input = Input {
                pod: &incoming,
                state: &state,
                exclude: None,
                removed: &[],
            };
            fn built(input: Input<'_>) -> InterPodAffinity<'_> {
                let mut p = InterPodAffinity::new(input, InterPodAffinityArgs::default());
                p.pre_filter();
                p
            }
            let cycle = built(input);
            let answer = |status: Option<crate::scheduler::Status>,
                          d: Option<Box<super::FilterDetails>>| {
                let d = d.expect("details");
                format!(
                    "{status:?} {:?} {:?} {:?} {}",
                    d.affinity,
                    d.anti_affinity,
                    d.first_pod_exception,
                    d.existing_anti_affinity.len()
                )
            };
            for n in 0..state.nodes().len() {
                let on: Vec<usize> = state.pods_on(n).to_vec();
                for mask in 0..(1u32 << on.len()) {
                    let mut removed: Vec<usize> = (0..on.len())
                        .filter(|i| mask & (1 << i) != 0)
                        .map(|i| on[i])
                        .collect();
                    removed.sort_unstable();
                    let (status, details) = cycle.filter_without(n, &removed);
                    let fresh = built(Input {
                        removed: &removed,
                        ..input
                    });
                    let (want_status, want_details) = fresh.filter(n);
                    assert_eq!(
                        answer(status, details),
                        answer(want_status, want_details),
                        "node {n}, removed {removed:?}"
                    );
                    compared += 1;
                }
            }
        }
        assert_eq!(compared, 2 * (8 + 2 + 4));
    }

    /// The pod being explained is left out of what its own preferred term counts, also when
    /// the label index alone decides the term (one requirement, every namespace).
    #[test]
    fn the_explained_pod_is_left_out_of_a_term_the_index_decides() {
        use crate::scheduler::config::FeatureGates;
        use crate::scheduler::profile::Profile;
        use crate::scheduler::{Input, evaluate};
        use crate::state::{Pod, read_snapshot_str};
        let node = |name: &str| {
            json!({"apiVersion": "v1", "kind": "Node",
                   "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
                   "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
        };
        let preferred = json!({"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 50, "podAffinityTerm": {
                "labelSelector": {"matchLabels": {"tier": "db"}},
                "namespaceSelector": {}, "topologyKey": "kubernetes.io/hostname"}}]}});
        let pod = |name: &str, node: &str, affinity: &serde_json::Value| {
            json!({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": name, "namespace": "default", "labels": {"tier": "db"}},
                   "spec": {"nodeName": node, "affinity": affinity,
                            "containers": [{"name": "c", "image": "x"}]},
                   "status": {"phase": "Running"}})
        };
        let me = pod("me", "n1", &preferred);
        let list = json!({"apiVersion": "v1", "kind": "List", "items": [
            node("n1"), node("n2"), me.clone(), pod("other", "n2", &json!({}))]});
        let state = read_snapshot_str(&list.to_string(), "test").expect("snapshot");
        // Evaluated as if unscheduled, as `explain` does.
        let mut me: k8s_openapi::api::core::v1::Pod = serde_json::from_value(me).expect("pod");
        if let Some(spec) = me.spec.as_mut() {
            spec.node_name = None;
        }
        let me = Pod::from_api(&me);
        let at = state.pods().iter().position(|p| &*p.id.name == "me");
        let profile = Profile::default_profile(FeatureGates::default());
        let raws = |exclude: Option<usize>| -> Vec<(String, Option<i64>)> {
            let input = Input {
                pod: &me,
                state: &state,
                exclude,
                removed: &[],
            };
            evaluate(input, &profile)
                .nodes
                .iter()
                .map(|n| {
                    let raw = n
                        .scores
                        .iter()
                        .find(|s| *s.plugin == crate::scheduler::PluginId::InterPodAffinity);
                    (n.name.to_string(), raw.and_then(|s| s.raw))
                })
                .collect()
        };
        let named = |a: i64, b: i64| vec![("n1".to_string(), Some(a)), ("n2".to_string(), Some(b))];
        // Counted in: its term finds itself on n1, and its copy's term finds it there.
        assert_eq!(raws(None), named(100, 50));
        assert_eq!(raws(at), named(0, 50));
    }

    /// filtering_test.go, TestRequiredAffinitySingleNode, "PodAffinity fails PreFilter with an
    /// invalid affinity label syntax" (and its anti-affinity twin, whose second term is the
    /// bad one): upstream's PreFilter message, verbatim; PreScore words it its own way.
    #[test]
    fn an_unparsable_term_fails_prefilter_with_upstreams_message() {
        let node = json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "node1", "labels": {"region": "r1", "node": "node1"}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
        let term = |key: &str, value: &str| {
            json!({"labelSelector": {"matchExpressions": [
                        {"key": "service", "operator": "In", "values": [value]}]},
                   "topologyKey": key})
        };
        let bad = "{{.bad-value.}}";
        let expected = "parsing pod: requiredAffinityTerms: values[0][service]: Invalid value: \"{{.bad-value.}}\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
        for terms in [
            [term("region", bad), term("node", "antivirusscan")],
            [term("region", "foo"), term("node", bad)],
        ] {
            let pod = json!({"metadata": {"name": "p", "namespace": "default"},
                "spec": {"containers": [{"name": "c", "image": "x"}],
                    "affinity": {"podAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": terms}}}});
            let eval = evaluate_default(json!([node.clone()]), pod);
            let pre = eval
                .pre_filter
                .iter()
                .find(|p| p.plugin == crate::scheduler::PluginId::InterPodAffinity);
            let status = pre.and_then(|p| p.status.as_ref()).expect("rejected");
            assert_eq!(status.reasons, [std::borrow::Cow::Borrowed(expected)]);
        }
        // Only a preferred term broken: PreFilter fails too (upstream parses every list), with
        // the list's own name.
        let pod = json!({"metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "x"}],
                "affinity": {"podAntiAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 1, "podAffinityTerm": term("region", bad)}]}}}});
        let eval = evaluate_default(json!([node.clone()]), pod);
        let pre = eval
            .pre_filter
            .iter()
            .find(|p| p.plugin == crate::scheduler::PluginId::InterPodAffinity);
        let reasons = &pre
            .and_then(|p| p.status.as_ref())
            .expect("rejected")
            .reasons;
        assert!(
            reasons[0].starts_with("parsing pod: preferredAntiAffinityTerms: values[0][service]: "),
            "{reasons:?}"
        );
    }

    /// PreScore words the same parse error its own way ("failed to parse pod: "), seen when a
    /// profile leaves InterPodAffinity's PreFilter out.
    #[test]
    fn an_unparsable_term_fails_prescore_with_upstreams_prefix() {
        use crate::scheduler::config::FeatureGates;
        use crate::scheduler::profile::Profile;
        use crate::scheduler::testing::evaluate_with;
        let cfg = json!({
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{"plugins": {
                "preFilter": {"disabled": [{"name": "InterPodAffinity"}]},
                "filter": {"disabled": [{"name": "InterPodAffinity"}]}}}]
        });
        let profile = Profile::from_config(&cfg, "default-scheduler", FeatureGates::default(), "c")
            .expect("profile");
        let node = json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "node1", "labels": {"region": "r1"}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
        let pod = json!({"metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "x"}],
                "affinity": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 1, "podAffinityTerm": {
                        "labelSelector": {"matchLabels": {"service": "{{.bad-value.}}"}},
                        "topologyKey": "region"}}]}}}});
        let eval = evaluate_with(json!([node]), pod, &profile);
        let pre = eval
            .pre_score
            .iter()
            .find(|p| p.plugin == crate::scheduler::PluginId::InterPodAffinity);
        let error = pre
            .and_then(|p| p.error.as_deref())
            .expect("PreScore error");
        assert!(
            error.starts_with(
                "failed to parse pod: preferredAffinityTerms: values[0][service]: Invalid value: \"{{.bad-value.}}\": a valid label must be"
            ),
            "{error}"
        );
    }

    /// Without namespace objects, an existing pod's term whose namespaceSelector needs labels
    /// leaves the plugin not evaluated when the term may match the pod (its label selector
    /// does), even though the term names another namespace; a term that cannot match does not.
    #[test]
    fn an_existing_selector_term_without_namespaces_leaves_the_plugin_unevaluated() {
        let node = json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
        let existing = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "e", "namespace": "other", "labels": {"app": "e"}},
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "x"}],
                "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                    "labelSelector": {"matchLabels": {"app": "web"}},
                    "namespaces": ["other"],
                    "namespaceSelector": {"matchLabels": {"team": "a"}},
                    "topologyKey": "kubernetes.io/hostname"}]}}}});
        let note = |app: &str| -> Option<String> {
            let pod = json!({"metadata": {"name": "p", "namespace": "default", "labels": {"app": app}},
                "spec": {"containers": [{"name": "c", "image": "x"}]}});
            let eval = evaluate_default(json!([node.clone(), existing.clone()]), pod);
            let n = eval.nodes.first().expect("a node");
            let f = n
                .filters
                .iter()
                .find(|f| *f.plugin == crate::scheduler::PluginId::InterPodAffinity);
            f.and_then(|f| f.not_evaluated.map(str::to_string))
        };
        let web = note("web").expect("not evaluated for a pod the term may match");
        assert!(
            web.contains("an existing pod's term that may match the pod has a namespaceSelector"),
            "{web}"
        );
        assert_eq!(note("db"), None);
    }

    /// The report's per-domain pod lists are ordered by domain value (not by the order nodes
    /// come in), found by value, and serialized as an object, as a `BTreeMap` would be.
    #[test]
    fn term_domains_are_ordered_and_found_by_value() {
        let (node, pod) = (zone_node, db_pod);
        let items = json!([
            node("n1", "zone-c"),
            node("n2", "zone-a"),
            node("n3", "zone-b"),
            // Labelled, but without the term's key: its pods have no domain.
            json!({"apiVersion": "v1", "kind": "Node",
                   "metadata": {"name": "n4", "labels": {"rack": "r1"}},
                   "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}),
            // Without any label: upstream's PreScore skips its pods, so the report lists none.
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n5"},
                   "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}),
            pod("p1", "n1"),
            pod("p2", "n2"),
            pod("p4", "n4"),
            pod("p5", "n5"),
            pod("p3", "n1"),
        ]);
        let eval = evaluate_default(
            items,
            json!({
                "metadata": {"name": "new", "namespace": "default"},
                "spec": {"containers": [{"name": "c", "image": "x"}],
                         "affinity": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                             {"weight": 5, "podAffinityTerm": {
                                 "topologyKey": "zone",
                                 "labelSelector": {"matchLabels": {"app": "db"}}}}]}}}
            }),
        );
        let tables = eval.pod_terms.expect("term tables");
        let domains = &tables.terms[0].domains;
        let keys: Vec<&str> = domains.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["zone-a", "zone-c"]);
        assert_eq!(
            serde_json::to_string(domains).expect("serialize"),
            r#"{"zone-a":[{"namespace":"default","name":"p2"}],"zone-c":[{"namespace":"default","name":"p1"},{"namespace":"default","name":"p3"}]}"#
        );
        let names = |v: &str| -> Vec<String> {
            domains
                .get(v)
                .map(|l| l.iter().map(ToString::to_string).collect())
                .unwrap_or_default()
        };
        assert_eq!(names("zone-c"), ["default/p1", "default/p3"]);
        assert_eq!(names("zone-a"), ["default/p2"]);
        assert!(domains.get("zone-b").is_none());
        let without: Vec<String> = tables.terms[0]
            .pods_without_domain
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(without, ["default/p4"]);
    }
}
