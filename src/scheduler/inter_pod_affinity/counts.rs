//! The counts InterPodAffinity keeps per topology domain, where upstream keeps maps of
//! `(topologyKey, value)`: pods are counted as domain numbers (the topology index numbers
//! each key's values), in forms chosen for the cluster's size. Each form is checked against
//! the plain map it stands for.

use std::sync::Arc;

use crate::state::Domains;

/// How many pods are counted in each domain of one key. Pods are counted as their domains,
/// and once counting is done the counts are kept in the smaller of two forms: a vector over
/// the key's domains when the pods are many (a zone term over tens of thousands of pods: no
/// sort, one read per node), the sorted domains when they are few against the domains (a
/// hostname term over one workload's replicas, in each of the audit's checks: a vector would
/// be as long as the cluster has nodes).
#[derive(Debug, Default)]
pub(super) struct DomainCounts {
    counted: Vec<u32>,
    /// Per domain, once counting is done and `counted` was the larger form.
    dense: Vec<i64>,
}

impl DomainCounts {
    pub(super) fn add(&mut self, domain: u32) {
        self.counted.push(domain);
    }

    /// Ends counting over a key of `domains` domains: [`DomainCounts::get`] reads the counts
    /// from here on.
    pub(super) fn finish(&mut self, domains: usize) {
        if self.counted.is_empty() || self.counted.len() * 8 < domains {
            self.counted.sort_unstable();
            return;
        }
        self.dense = vec![0; domains];
        for d in std::mem::take(&mut self.counted) {
            self.dense[d as usize] += 1;
        }
    }

    /// The count in `domain`.
    pub(super) fn get(&self, domain: u32) -> i64 {
        match self.dense.get(domain as usize) {
            Some(&n) => n,
            None => i64::try_from(run_of(&self.counted, domain, |&c| c).len()).unwrap_or(i64::MAX),
        }
    }
}

/// `(topologyKey, value) -> count` for one key: [`DomainCounts`] over the key's domains.
#[derive(Debug)]
pub(super) struct KeyCounts<'a> {
    pub(super) key: Arc<str>,
    domains: Option<&'a Domains>,
    counts: DomainCounts,
}

impl<'a> KeyCounts<'a> {
    pub(super) fn new(key: &str, domains: Option<&'a Domains>) -> Self {
        KeyCounts {
            key: key.into(),
            domains,
            counts: DomainCounts::default(),
        }
    }

    /// Counts a pod on `node`; its domain, `None` when the node lacks the key.
    pub(super) fn add(&mut self, node: usize) -> Option<u32> {
        let d = self.domains?.of(node)?;
        self.counts.add(d);
        Some(d)
    }

    /// Ends counting: [`KeyCounts::on`] reads the counts from here on.
    pub(super) fn finish(&mut self) {
        self.counts
            .finish(self.domains.map_or(0, |d| d.values.len()));
    }

    /// The node's domain value and the count there.
    pub(super) fn on(&self, node: usize) -> (Option<&'a Arc<str>>, i64) {
        let Some((d, i)) = self.domains.and_then(|d| d.of(node).map(|i| (d, i))) else {
            return (None, 0);
        };
        (Some(&d.values[i as usize]), self.counts.get(i))
    }
}

/// Items tagged by domain, each domain's found without a map: sorted by domain once all are
/// in (upstream's `existingAntiAffinityCounts` counts them in a map per value; here each
/// keeps which existing pod's term it is, for the report and for preemption's dry run).
#[derive(Debug)]
pub(super) struct DomainHits<T> {
    hits: Vec<(u32, T)>,
}

impl<T: Ord + Copy> DomainHits<T> {
    pub(super) fn new() -> Self {
        DomainHits { hits: Vec::new() }
    }

    pub(super) fn push(&mut self, domain: u32, hit: T) {
        self.hits.push((domain, hit));
    }

    /// Ends adding: [`DomainHits::in_domain`] reads from here on.
    pub(super) fn finish(&mut self) {
        self.hits.sort_unstable();
    }

    /// The hits in `domain`, in order.
    pub(super) fn in_domain(&self, domain: u32) -> impl Iterator<Item = T> + '_ {
        run_of(&self.hits, domain, |h| h.0).iter().map(|h| h.1)
    }
}

/// PreScore's `topologyScore` for one key, by domain and by where each score comes from (the
/// pod's preferred terms, existing pods' terms): how many pods added to it and the summed
/// score. A source is present in a domain once a pod was added there.
#[derive(Debug)]
pub(super) struct DomainScores {
    sources: usize,
    /// `domains x sources`, row-major by domain.
    cells: Vec<(i64, i64)>,
}

impl DomainScores {
    pub(super) fn new(domains: usize, sources: usize) -> Self {
        DomainScores {
            sources,
            cells: vec![(0, 0); domains * sources],
        }
    }

    /// Adds one pod's `delta` to `source` in `domain`.
    pub(super) fn add(&mut self, domain: u32, source: usize, delta: i64) {
        let cell = &mut self.cells[domain as usize * self.sources + source];
        cell.0 += 1;
        cell.1 += delta;
    }

    /// Per source, `(pods, score)` in `domain`.
    pub(super) fn row(&self, domain: u32) -> &[(i64, i64)] {
        let from = domain as usize * self.sources;
        &self.cells[from..from + self.sources]
    }
}

/// The part of `sorted` (ascending by `domain`) in domain `d`.
fn run_of<T>(sorted: &[T], d: u32, domain: impl Fn(&T) -> u32) -> &[T] {
    let from = sorted.partition_point(|x| domain(x) < d);
    let len = sorted[from..].partition_point(|x| domain(x) == d);
    &sorted[from..from + len]
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Either form reads the count a plain map of the domains counts, few pods or many.
        #[test]
        fn domain_counts_read_as_a_map(domains in 1u32..40, pods in prop::collection::vec(0u32..40, 0..200)) {
            let pods: Vec<u32> = pods.into_iter().map(|d| d % domains).collect();
            let mut counts = DomainCounts::default();
            let mut plain: HashMap<u32, i64> = HashMap::new();
            for &d in &pods {
                counts.add(d);
                *plain.entry(d).or_default() += 1;
            }
            counts.finish(domains as usize);
            for d in 0..domains {
                prop_assert_eq!(counts.get(d), plain.get(&d).copied().unwrap_or(0));
            }
        }

        /// A domain's hits are those pushed in it, in order.
        #[test]
        fn domain_hits_read_as_a_filter(hits in prop::collection::vec((0u32..12, 0usize..50), 0..100)) {
            let mut sorted = DomainHits::new();
            for &(d, h) in &hits {
                sorted.push(d, h);
            }
            sorted.finish();
            for d in 0..12 {
                let mut plain: Vec<usize> = hits.iter().filter(|x| x.0 == d).map(|x| x.1).collect();
                plain.sort_unstable();
                prop_assert_eq!(sorted.in_domain(d).collect::<Vec<_>>(), plain);
            }
        }

        /// A domain's row holds, per source, the pods added there and their summed score.
        #[test]
        fn domain_scores_read_as_a_map(
            sources in 1usize..5,
            adds in prop::collection::vec((0u32..8, 0usize..5, -100i64..100), 0..60),
        ) {
            let mut scores = DomainScores::new(8, sources);
            let mut plain: HashMap<(u32, usize), (i64, i64)> = HashMap::new();
            for &(d, s, delta) in adds.iter().filter(|a| a.1 < sources) {
                scores.add(d, s, delta);
                let cell = plain.entry((d, s)).or_default();
                cell.0 += 1;
                cell.1 += delta;
            }
            for d in 0..8 {
                let row: Vec<(i64, i64)> = (0..sources)
                    .map(|s| plain.get(&(d, s)).copied().unwrap_or_default())
                    .collect();
                prop_assert_eq!(scores.row(d), row.as_slice());
            }
        }
    }
}
