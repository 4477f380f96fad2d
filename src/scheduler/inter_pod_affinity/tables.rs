//! What InterPodAffinity's report shows beside the nodes: each of the pod's terms with the
//! pods it matches per domain, the existing pods' terms that match the pod, and the names of
//! the score's sources. Kept apart from the counts Filter and Score read: while counting, the
//! plugin records what it meets here as indexes, and the tables are made from that only when
//! asked for (the audit checks every bound pod and reads the tables of the few that break a
//! rule).

use std::sync::Arc;

use serde::Serialize;

use crate::scheduler::plugin::Input;
use crate::state::labels::Labels;
use crate::state::{AffinityTerm, Domains, PodList, PodRef};

/// Which list of which pod a term comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum TermKind {
    RequiredAffinity,
    RequiredAntiAffinity,
    PreferredAffinity,
    PreferredAntiAffinity,
}

impl TermKind {
    /// As the report names the list.
    pub(super) fn name(self) -> &'static str {
        match self {
            TermKind::RequiredAffinity => "requiredAffinity",
            TermKind::RequiredAntiAffinity => "requiredAntiAffinity",
            TermKind::PreferredAffinity => "preferredAffinity",
            TermKind::PreferredAntiAffinity => "preferredAntiAffinity",
        }
    }
}

/// An existing pod whose required anti-affinity term `index` selects the incoming pod, and
/// the value of the term's key on the pod's node.
#[derive(Debug)]
pub(super) struct ExistingAnti<'a> {
    pub(super) pod: usize,
    pub(super) index: usize,
    pub(super) term: &'a AffinityTerm,
    pub(super) domain: Option<&'a Arc<str>>,
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

/// The name of each source of a score (the pod's preferred terms, then the three kinds of
/// existing pods' terms) and their order by name, as each node's contributions list them.
#[derive(Debug, Default)]
pub(super) struct Sources {
    pub(super) names: Vec<Arc<str>>,
    pub(super) by_name: Vec<usize>,
}

impl Sources {
    /// The sources of a pod with `affinity` preferred affinity and `anti` preferred
    /// anti-affinity terms.
    pub(super) fn new(affinity: usize, anti: usize) -> Self {
        let mut names: Vec<Arc<str>> = Vec::new();
        for (kind, len) in [
            (TermKind::PreferredAffinity, affinity),
            (TermKind::PreferredAntiAffinity, anti),
        ] {
            names.extend((0..len).map(|i| Arc::from(format!("{}[{i}]", kind.name()))));
        }
        for kind in [
            TermKind::RequiredAffinity,
            TermKind::PreferredAffinity,
            TermKind::PreferredAntiAffinity,
        ] {
            names.push(Arc::from(format!("existing:{}", kind.name())));
        }
        let mut by_name: Vec<usize> = (0..names.len()).collect();
        by_name.sort_by(|&a, &b| names[a].cmp(&names[b]));
        Sources { names, by_name }
    }
}

/// An existing pod's term that scores the pod, as PreScore met it.
#[derive(Debug)]
struct ExistingScoring<'a> {
    pod: u32,
    kind: TermKind,
    index: usize,
    term: &'a AffinityTerm,
    domain: Option<u32>,
    delta: i64,
}

/// What the plugin records for its tables while it counts: per term of the pod (kind by
/// kind), the pods it matches with their domains, and the existing pods' scoring terms.
#[derive(Debug)]
pub(super) struct Book<'a> {
    input: Input<'a>,
    /// How many terms of each kind the pod has.
    lens: [usize; 4],
    term_pods: Vec<TermPods<'a>>,
    existing_scoring: Vec<ExistingScoring<'a>>,
    warnings: Vec<String>,
    made: bool,
}

impl<'a> Book<'a> {
    /// A book for the pod's terms, kind by kind in [`TermKind`]'s order.
    pub(super) fn new(
        input: Input<'a>,
        terms: [Vec<&AffinityTerm>; 4],
        warnings: Vec<String>,
    ) -> Self {
        let term_pods = terms
            .iter()
            .flatten()
            .map(|t| TermPods {
                domains: input.state.topology().domains(&t.topology_key),
                hits: Vec::new(),
            })
            .collect();
        Book {
            input,
            lens: terms.map(|list| list.len()),
            term_pods,
            existing_scoring: Vec::new(),
            warnings,
            made: false,
        }
    }

    fn term(&mut self, kind: TermKind, index: usize) -> Option<&mut TermPods<'a>> {
        let [affinity, anti, preferred, _] = self.lens;
        let offset = match kind {
            TermKind::RequiredAffinity => 0,
            TermKind::RequiredAntiAffinity => affinity,
            TermKind::PreferredAffinity => affinity + anti,
            TermKind::PreferredAntiAffinity => affinity + anti + preferred,
        };
        self.term_pods.get_mut(offset + index)
    }

    /// Remembers that term `index` of `kind` matches `pod`, counted in `domain`.
    pub(super) fn matched(&mut self, kind: TermKind, index: usize, domain: Option<u32>, pod: u32) {
        if let Some(t) = self.term(kind, index) {
            t.hits.push((domain.unwrap_or(Domains::NONE), pod));
        }
    }

    /// Remembers the pods a preferred term matches, each with its domain or [`UNLABELLED`],
    /// in the order matched.
    pub(super) fn matched_all(&mut self, kind: TermKind, index: usize, hits: Vec<(u32, u32)>) {
        if let Some(t) = self.term(kind, index) {
            if t.hits.is_empty() {
                t.hits = hits;
            } else {
                t.hits.extend(hits);
            }
        }
    }

    /// Remembers that term `index` of `kind` of existing pod `pod` adds `delta` to the nodes of
    /// its `domain`.
    pub(super) fn scored_by(
        &mut self,
        pod: u32,
        (kind, index, term): (TermKind, usize, &'a AffinityTerm),
        domain: Option<u32>,
        delta: i64,
    ) {
        self.existing_scoring.push(ExistingScoring {
            pod,
            kind,
            index,
            term,
            domain,
            delta,
        });
    }

    /// The tables, once (`None` after the first time, or when there is nothing to show): the
    /// existing pods' anti-affinity `hits`, and the pod's `terms` kind by kind.
    pub(super) fn make(
        &mut self,
        hits: &[ExistingAnti<'a>],
        terms: [Vec<&AffinityTerm>; 4],
    ) -> Option<TermTables> {
        if std::mem::replace(&mut self.made, true) {
            return None;
        }
        let tables = TermTables {
            terms: self.term_tables(terms),
            existing_anti_affinity: hits.iter().map(|h| self.anti_hit(h)).collect(),
            existing_scoring_terms: self
                .existing_scoring
                .iter()
                .map(|s| self.scoring_hit(s))
                .collect(),
            warnings: std::mem::take(&mut self.warnings),
        };
        let empty = tables.terms.is_empty()
            && tables.existing_anti_affinity.is_empty()
            && tables.existing_scoring_terms.is_empty();
        (!empty).then_some(tables)
    }

    fn anti_hit(&self, hit: &ExistingAnti<'_>) -> ExistingTermHit {
        let state = self.input.state;
        ExistingTermHit {
            pod: state.pods()[hit.pod].id.clone(),
            node: self.input.node(state.pod_node(hit.pod)).name.clone(),
            kind: TermKind::RequiredAntiAffinity,
            index: hit.index,
            topology_key: hit.term.topology_key.clone(),
            domain: hit.domain.map(|v| v.to_string()),
            score: 0,
        }
    }

    fn scoring_hit(&self, s: &ExistingScoring<'_>) -> ExistingTermHit {
        let state = self.input.state;
        let key = &s.term.topology_key;
        let domain = s
            .domain
            .zip(state.topology().domains(key))
            .map(|(d, domains)| domains.values[d as usize].to_string());
        ExistingTermHit {
            pod: state.pods()[s.pod as usize].id.clone(),
            node: self.input.node(state.pod_node(s.pod as usize)).name.clone(),
            kind: s.kind,
            index: s.index,
            topology_key: key.clone(),
            domain,
            score: s.delta,
        }
    }

    /// Each term of the pod with the pods it matched per domain.
    fn term_tables(&mut self, terms: [Vec<&AffinityTerm>; 4]) -> Vec<TermTable> {
        let index = self.input.state.index();
        let pod = self.input.pod;
        let kinds = [
            TermKind::RequiredAffinity,
            TermKind::RequiredAntiAffinity,
            TermKind::PreferredAffinity,
            TermKind::PreferredAntiAffinity,
        ];
        let terms = kinds
            .into_iter()
            .zip(terms)
            .flat_map(|(kind, list)| list.into_iter().enumerate().map(move |(i, t)| (kind, i, t)));
        let mut out = Vec::new();
        for ((kind, index_in_kind, t), rec) in terms.zip(std::mem::take(&mut self.term_pods)) {
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
            out.push(TermTable {
                kind,
                index: index_in_kind,
                topology_key: t.topology_key.clone(),
                weight: t.weight,
                selector: t.selector.to_string(),
                namespaces: t.namespaces.clone(),
                all_namespaces: t.namespace_selector.is_everything(),
                domains,
                pods_without_domain: index.pod_list(without_domain),
                incoming_pod_matches: t.matches(&pod.id.namespace, &pod.labels, &Labels::new()),
            });
        }
        out
    }
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
pub(super) const UNLABELLED: u32 = Domains::NONE - 1;

impl TermPods<'_> {
    /// The pods grouped by domain, domains in value order, each in matching order; the end of
    /// each non-empty domain's part with that domain; and the pods without a domain.
    fn grouped(self) -> (Vec<u32>, Vec<(u32, u32)>, Vec<u32>) {
        match self.domains {
            Some(domains) => bucketed(self.hits, &domains.sorted),
            None => (
                Vec::new(),
                Vec::new(),
                self.hits
                    .into_iter()
                    .filter(|h| h.0 != UNLABELLED)
                    .map(|h| h.1)
                    .collect(),
            ),
        }
    }
}

/// `hits` grouped by domain, the domains in the order of `sorted` (every domain of the key
/// once), each in the order of `hits`, in one buffer bucketed in two passes; the end of each
/// non-empty domain's part with that domain; and the pods of hits without a domain
/// ([`UNLABELLED`] ones left out).
fn bucketed(hits: Vec<(u32, u32)>, sorted: &[u32]) -> (Vec<u32>, Vec<(u32, u32)>, Vec<u32>) {
    let n = sorted.len();
    let mut place = vec![0u32; n];
    for (r, &d) in sorted.iter().enumerate() {
        place[d as usize] = u32::try_from(r).unwrap_or(u32::MAX);
    }
    let mut ends = vec![0u32; n];
    for &(d, _) in &hits {
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
    for (d, p) in hits {
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
            let part = (end > start).then_some((sorted[r], end));
            start = end;
            part
        })
        .collect();
    (grouped, parts, without)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{UNLABELLED, bucketed};
    use crate::state::Domains;

    proptest! {
        /// Bucketing gives what a stable sort by the domains' order gives: each domain's pods
        /// in the order met, the domains in their sorted order, the pods without one apart.
        #[test]
        fn bucketing_is_a_stable_sort_by_domain(
            order in Just((0u32..10).collect::<Vec<u32>>()).prop_shuffle(),
            hits in prop::collection::vec((0u32..13, 0u32..1000), 0..80),
        ) {
            // 10 and 11 stand for no domain and an unlabelled node, 12 for no domain too.
            let hits: Vec<(u32, u32)> = hits
                .into_iter()
                .map(|(d, p)| match d {
                    10 | 12 => (Domains::NONE, p),
                    11 => (UNLABELLED, p),
                    d => (d, p),
                })
                .collect();
            let (grouped, parts, without) = bucketed(hits.clone(), &order);
            let rank = |d: u32| order.iter().position(|&x| x == d);
            let mut plain: Vec<(usize, u32, u32)> = hits
                .iter()
                .filter_map(|&(d, p)| rank(d).map(|r| (r, d, p)))
                .collect();
            plain.sort_by_key(|&(r, _, _)| r);
            prop_assert_eq!(&grouped, &plain.iter().map(|x| x.2).collect::<Vec<_>>());
            let mut ends: Vec<(u32, u32)> = Vec::new();
            for (i, &(_, d, _)) in plain.iter().enumerate() {
                let end = u32::try_from(i + 1).expect("small");
                match ends.last_mut() {
                    Some(last) if last.0 == d => last.1 = end,
                    _ => ends.push((d, end)),
                }
            }
            prop_assert_eq!(parts, ends);
            let plain_without: Vec<u32> =
                hits.iter().filter(|h| h.0 == Domains::NONE).map(|h| h.1).collect();
            prop_assert_eq!(without, plain_without);
        }
    }
}
