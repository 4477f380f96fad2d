//! Indexes over the existing pods and the nodes' labels, kept up to date as pods are added.
//!
//! In a large cluster, walking every pod and matching string maps for each term of each pod
//! would dominate each evaluation. Upstream's scheduler avoids the same walk
//! with data its cache keeps (`NodeInfo.PodsWithAffinity`, `PodsWithRequiredAntiAffinity`);
//! here the existing pods are indexed by label, pods sharing one set of (anti-)affinity terms
//! (the replicas of a workload) are grouped so each distinct term is matched once, and every
//! node label gets a small integer per value so topology domains are counted in vectors.
//! The indexes only narrow the search: every pod they return is still matched in full.

use std::sync::Arc;

use foldhash::HashMap as FastMap;
use serde::Serialize;

use super::interned::Hashed;
use super::labels::Labels;
use super::node::Node;
use super::pod::{PodAffinity, PodRef};
use super::selector::{LabelSelector, Op};

/// Existing pods by label value and by their pod (anti-)affinity terms.
#[derive(Debug, Clone, Default)]
pub struct PodIndex {
    /// Label key -> value -> the list (in `label_lists`) of existing pods carrying that
    /// label, ascending.
    by_label: FastMap<String, FastMap<String, u32>>,
    label_lists: Vec<Vec<u32>>,
    /// The last label set indexed and its lists, and the last term set and its group:
    /// replicas decoded from one page hold the same copies, and are then indexed without
    /// looking each label and term up again.
    last_labels: Option<(Arc<Labels>, Vec<u32>)>,
    last_terms: Option<(Arc<PodAffinity>, usize)>,
    /// Each existing pod's namespace, numbered: a namespace check then reads this compact
    /// vector instead of the pod itself, which in a large cluster is a cache miss each.
    pod_namespace: Vec<u32>,
    namespaces: FastMap<String, u32>,
    /// The last namespace numbered: a template's replicas share one copy of it.
    last_namespace: Option<(Arc<str>, u32)>,
    /// Each existing pod's `namespace/name`, shared with the report (see [`PodList`]).
    ids: Arc<Vec<Arc<PodRef>>>,
    groups: Vec<AffinityGroup>,
    /// The groups by their terms, each kept with its hash so that the map never hashes a
    /// set of terms (its selectors and namespaces) again as it grows.
    group_of: FastMap<Hashed<PodAffinity>, usize>,
    /// Namespace -> the groups (ascending) with a term naming it in `namespaces`.
    groups_naming: FastMap<String, Vec<u32>>,
    /// The groups (ascending) with a term that has a namespaceSelector.
    groups_selecting: Vec<u32>,
}

/// One distinct set of pod (anti-)affinity terms and the existing pods that carry it.
#[derive(Debug, Clone)]
pub struct AffinityGroup {
    pub terms: Arc<PodAffinity>,
    /// Indexes into `ClusterState::pods`, ascending.
    pub pods: Vec<u32>,
}

/// Which existing pods may match a selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Candidates<'a> {
    /// The selector names no value to look up (`{}`, or only `notin`/`!`/`exists`
    /// requirements): every existing pod has to be checked, as upstream always does.
    All,
    /// A superset of the matching pods, ascending; `exact` when it is precisely the pods
    /// the selector matches (its only requirement is the `=`/`in` looked up).
    Some {
        pods: std::borrow::Cow<'a, [u32]>,
        exact: bool,
    },
}

impl PodIndex {
    /// Room for `pods` existing pods in the vectors with one entry a pod, as
    /// `ClusterState::new` makes room in its own: grown by doubling, each copy wrote pages
    /// afresh (page faults), and only the pages written are ever
    /// resident.
    pub(super) fn reserve(&mut self, pods: usize) {
        self.pod_namespace.reserve(pods);
        Arc::make_mut(&mut self.ids).reserve(pods);
    }

    /// Indexes existing pod `index`; its terms are grouped with the pods carrying an equal
    /// set (given the group's copy by [`PodIndex::share_terms`] first, they are found by
    /// pointer).
    pub(super) fn add(
        &mut self,
        index: usize,
        id: &Arc<PodRef>,
        labels: &Arc<Labels>,
        terms: Option<&Arc<PodAffinity>>,
    ) {
        let i = u32::try_from(index).unwrap_or(u32::MAX);
        let ns = match &self.last_namespace {
            Some((last, ns)) if Arc::ptr_eq(last, &id.namespace) => *ns,
            _ => {
                let ns = match self.namespaces.get(&*id.namespace) {
                    Some(&ns) => ns,
                    None => {
                        let ns = u32::try_from(self.namespaces.len()).unwrap_or(u32::MAX);
                        self.namespaces.insert(id.namespace.to_string(), ns);
                        ns
                    }
                };
                self.last_namespace = Some((id.namespace.clone(), ns));
                ns
            }
        };
        self.pod_namespace.push(ns);
        Arc::make_mut(&mut self.ids).push(id.clone());
        match &self.last_labels {
            Some((last, lists)) if Arc::ptr_eq(last, labels) => {
                for &l in lists {
                    self.label_lists[l as usize].push(i);
                }
            }
            _ => {
                let mut lists = Vec::with_capacity(labels.len());
                for (k, v) in labels.iter() {
                    let by_value = match self.by_label.get_mut(k) {
                        Some(m) => m,
                        None => self.by_label.entry(k.to_string()).or_default(),
                    };
                    let l = match by_value.get(v) {
                        Some(&l) => l,
                        None => {
                            let l = u32::try_from(self.label_lists.len()).unwrap_or(u32::MAX);
                            self.label_lists.push(Vec::new());
                            by_value.insert(v.to_string(), l);
                            l
                        }
                    };
                    self.label_lists[l as usize].push(i);
                    lists.push(l);
                }
                self.last_labels = Some((labels.clone(), lists));
            }
        }
        let Some(terms) = terms else {
            return;
        };
        if let Some((last, g)) = &self.last_terms
            && Arc::ptr_eq(last, terms)
        {
            self.groups[*g].pods.push(i);
            return;
        }
        let key = self.key(terms);
        let g = match self.group_of.get(&key) {
            Some(&g) => {
                self.groups[g].pods.push(i);
                g
            }
            None => {
                let g = self.groups.len();
                self.group_of.insert(key, g);
                self.index_namespaces(g, terms);
                self.groups.push(AffinityGroup {
                    terms: terms.clone(),
                    pods: vec![i],
                });
                g
            }
        };
        self.last_terms = Some((terms.clone(), g));
    }

    /// Replaces `terms` by the copy of the group of existing pods carrying an equal set, if
    /// there is one, so that pods with equal terms hold one copy between them. The group is
    /// then the last one found, and the pod is added to it without hashing its terms again.
    pub(super) fn share_terms(&mut self, terms: &mut Arc<PodAffinity>) {
        if let Some(&g) = self.group_of.get(&self.key(terms)) {
            *terms = self.groups[g].terms.clone();
            self.last_terms = Some((terms.clone(), g));
        }
    }

    /// `terms` as `group_of` keys them: with their hash, made by the map's own hasher.
    fn key(&self, terms: &Arc<PodAffinity>) -> Hashed<PodAffinity> {
        use std::hash::BuildHasher;
        Hashed(self.group_of.hasher().hash_one(&**terms), terms.clone())
    }

    /// Every distinct set of terms carried by existing pods, in order of first appearance.
    pub fn affinity_groups(&self) -> &[AffinityGroup] {
        &self.groups
    }

    /// The groups with a term that may select a pod of `namespace`, in the order of
    /// [`affinity_groups`](Self::affinity_groups). A term selects a namespace it names or,
    /// with a namespaceSelector, one whose labels match; every other group's terms cannot
    /// match the pod, whatever its labels. At 5,000 groups, most of them on their own
    /// namespace, matching each group's terms was a cache miss per group.
    pub fn affinity_groups_for(&self, namespace: &str) -> impl Iterator<Item = &AffinityGroup> {
        let naming = self
            .groups_naming
            .get(namespace)
            .map_or(&[][..], Vec::as_slice);
        // One of the two lists is usually empty: then the other is the answer as it is (the
        // audit asks once per bound pod).
        let ids: std::borrow::Cow<'_, [u32]> = match (naming, &self.groups_selecting[..]) {
            (ids, []) | ([], ids) => ids.into(),
            (naming, selecting) => {
                let mut ids = [naming, selecting].concat();
                ids.sort_unstable();
                ids.dedup();
                ids.into()
            }
        };
        (0..ids.len()).map(move |i| &self.groups[ids[i] as usize])
    }

    /// The groups with a term that has a namespaceSelector (such a term may select any
    /// namespace), in the order of [`affinity_groups`](Self::affinity_groups).
    pub fn affinity_groups_selecting(&self) -> impl Iterator<Item = &AffinityGroup> {
        self.groups_selecting
            .iter()
            .map(|&g| &self.groups[g as usize])
    }

    fn index_namespaces(&mut self, g: usize, terms: &PodAffinity) {
        let g = u32::try_from(g).unwrap_or(u32::MAX);
        let push = |list: &mut Vec<u32>| {
            if list.last() != Some(&g) {
                list.push(g);
            }
        };
        for t in terms.all() {
            if !matches!(t.namespace_selector, LabelSelector::Nothing) {
                push(&mut self.groups_selecting);
            }
            for n in &t.namespaces {
                match self.groups_naming.get_mut(n.as_str()) {
                    Some(list) => push(list),
                    None => {
                        self.groups_naming.insert(n.clone(), vec![g]);
                    }
                }
            }
        }
    }

    /// The number of existing pod `pod`'s namespace.
    pub fn namespace_of(&self, pod: u32) -> u32 {
        self.pod_namespace[pod as usize]
    }

    /// The number of namespace `name`, if any existing pod is in it.
    pub fn namespace_id(&self, name: &str) -> Option<u32> {
        self.namespaces.get(name).copied()
    }

    /// Existing pods named by index, for the report.
    pub fn pod_list(&self, members: Vec<u32>) -> PodList {
        let end = u32::try_from(members.len()).unwrap_or(u32::MAX);
        PodList {
            ids: self.ids.clone(),
            members: Arc::new(members),
            range: 0..end,
        }
    }

    /// Consecutive parts of one buffer as pod lists (`bounds` are their ends, ascending):
    /// a term over `kubernetes.io/hostname` has a list per node, 5,000 of them, which then
    /// cost one allocation instead of one each.
    pub fn pod_lists(
        &self,
        members: Vec<u32>,
        bounds: impl IntoIterator<Item = u32>,
    ) -> Vec<PodList> {
        let members = Arc::new(members);
        let mut start = 0;
        bounds
            .into_iter()
            .map(|end| {
                let list = PodList {
                    ids: self.ids.clone(),
                    members: members.clone(),
                    range: start..end,
                };
                start = end;
                list
            })
            .collect()
    }

    fn with_label(&self, key: &str, value: &str) -> &[u32] {
        self.by_label
            .get(key)
            .and_then(|m| m.get(value))
            .map_or(&[], |&l| &self.label_lists[l as usize])
    }

    /// The existing pods that may match `selector`, from its most selective `=` or `in`
    /// requirement. A nil selector matches nothing.
    pub fn candidates(&self, selector: &LabelSelector) -> Candidates<'_> {
        let none = Candidates::Some {
            pods: std::borrow::Cow::Borrowed(&[]),
            exact: true,
        };
        let LabelSelector::Requirements(reqs) = selector else {
            return none;
        };
        let mut best: Option<(usize, &str, &[String])> = None;
        for r in reqs {
            let values: &[String] = match &r.op {
                Op::Equals(v) => std::slice::from_ref(v),
                Op::In(vs) => vs,
                _ => continue,
            };
            let size = values
                .iter()
                .map(|v| self.with_label(&r.key, v).len())
                .sum();
            if best.is_none_or(|(s, _, _)| size < s) {
                best = Some((size, &r.key, values));
            }
        }
        let Some((_, key, values)) = best else {
            return Candidates::All;
        };
        let lists: Vec<&[u32]> = values
            .iter()
            .map(|v| self.with_label(key, v))
            .filter(|l| !l.is_empty())
            .collect();
        let exact = reqs.len() == 1;
        match lists.as_slice() {
            [] => none,
            [one] => Candidates::Some {
                pods: std::borrow::Cow::Borrowed(one),
                exact,
            },
            many => {
                let mut all: Vec<u32> = many.iter().flat_map(|l| l.iter().copied()).collect();
                all.sort_unstable();
                all.dedup();
                Candidates::Some {
                    pods: std::borrow::Cow::Owned(all),
                    exact,
                }
            }
        }
    }
}

/// Existing pods named by their indexes into the state's shared id table: a term matching
/// 50,000 pods costs the report 50,000 integers, not 50,000 reference counts on pods spread
/// over the heap. Serialized as the list of `namespace/name` refs.
#[derive(Debug, Clone, Default)]
pub struct PodList {
    ids: Arc<Vec<Arc<PodRef>>>,
    /// Possibly shared with the other lists of the same term (see [`PodIndex::pod_lists`]).
    /// An `Arc<Vec>`, not an `Arc<[u32]>`, so that the buffer is kept, not copied: a term
    /// can select 50,000 pods.
    members: Arc<Vec<u32>>,
    range: std::ops::Range<u32>,
}

impl PodList {
    fn members(&self) -> &[u32] {
        self.members
            .get(self.range.start as usize..self.range.end as usize)
            .unwrap_or_default()
    }

    pub fn len(&self) -> usize {
        self.members().len()
    }

    pub fn is_empty(&self) -> bool {
        self.members().is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &PodRef> {
        self.members().iter().map(|&m| &*self.ids[m as usize])
    }
}

impl Serialize for PodList {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// Node label values as small integers, per label key: a topology domain is then an index
/// into a vector instead of a string looked up in each node's label map.
#[derive(Debug, Clone, Default)]
pub struct Topology {
    keys: FastMap<String, Domains>,
}

/// The domains of one label key.
#[derive(Debug, Clone, Default)]
pub struct Domains {
    /// Distinct values, in order of first appearance; shared with per-node report entries.
    pub values: Vec<Arc<str>>,
    /// Indexes into `values`, ordered by value: the report lists domains in that order,
    /// without comparing 5,000 hostnames per term to build each list.
    pub sorted: Vec<u32>,
    /// Per node, the index of its value in `values`, or [`Domains::NONE`] without the label.
    of_node: Vec<u32>,
}

impl Domains {
    pub const NONE: u32 = u32::MAX;

    /// The domain of node `node`, if it has the label.
    pub fn of(&self, node: usize) -> Option<u32> {
        self.of_node
            .get(node)
            .copied()
            .filter(|&d| d != Domains::NONE)
    }
}

impl Topology {
    pub(super) fn new(nodes: &[Node]) -> Topology {
        let mut keys: FastMap<String, Domains> = FastMap::default();
        let mut ids: FastMap<(&str, &str), u32> = FastMap::default();
        for (n, node) in nodes.iter().enumerate() {
            for (k, v) in &node.labels {
                let d = match keys.get_mut(k) {
                    Some(d) => d,
                    None => keys.entry(k.to_string()).or_insert_with(|| Domains {
                        values: Vec::new(),
                        sorted: Vec::new(),
                        of_node: vec![Domains::NONE; nodes.len()],
                    }),
                };
                let id = *ids.entry((k, v)).or_insert_with(|| {
                    d.values.push(Arc::from(v));
                    u32::try_from(d.values.len() - 1).unwrap_or(Domains::NONE)
                });
                d.of_node[n] = id;
            }
        }
        for d in keys.values_mut() {
            let mut sorted: Vec<u32> = (0..d.values.len())
                .map(|i| u32::try_from(i).unwrap_or(Domains::NONE))
                .collect();
            sorted.sort_by(|&a, &b| d.values[a as usize].cmp(&d.values[b as usize]));
            d.sorted = sorted;
        }
        Topology { keys }
    }

    /// The domains of `key`; `None` when no node has the label.
    pub fn domains(&self, key: &str) -> Option<&Domains> {
        self.keys.get(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::AffinityTerm;
    use crate::state::selector::Requirement;
    use crate::state::selector::tests::labels;

    fn req(key: &str, op: Op) -> Requirement {
        Requirement {
            key: key.to_string(),
            op,
        }
    }

    fn id(ns: &str, name: &str) -> Arc<PodRef> {
        Arc::new(PodRef {
            namespace: Arc::from(ns),
            name: name.into(),
        })
    }

    fn some(pods: &[u32], exact: bool) -> Candidates<'static> {
        Candidates::Some {
            pods: std::borrow::Cow::Owned(pods.to_vec()),
            exact,
        }
    }

    #[test]
    fn candidates_come_from_the_most_selective_value_requirement() {
        let mut ix = PodIndex::default();
        ix.add(
            0,
            &id("a", "p0"),
            &Arc::new(labels(&[("app", "a"), ("tier", "web")])),
            None,
        );
        ix.add(
            1,
            &id("b", "p1"),
            &Arc::new(labels(&[("app", "b"), ("tier", "web")])),
            None,
        );
        ix.add(
            2,
            &id("a", "p2"),
            &Arc::new(labels(&[("app", "c"), ("tier", "db")])),
            None,
        );
        // tier=web has 2 pods, app in (b,c) has 2: the first smallest wins; a superset only.
        let sel = LabelSelector::Requirements(vec![
            req("tier", Op::Equals("web".into())),
            req("app", Op::In(vec!["b".into(), "c".into()])),
        ]);
        assert_eq!(ix.candidates(&sel), some(&[0, 1], false));
        let sel =
            LabelSelector::Requirements(vec![req("app", Op::In(vec!["c".into(), "a".into()]))]);
        assert_eq!(ix.candidates(&sel), some(&[0, 2], true));
        let sel = LabelSelector::Requirements(vec![req("app", Op::Equals("zzz".into()))]);
        assert_eq!(ix.candidates(&sel), some(&[], true));
        let sel = LabelSelector::Requirements(vec![req("app", Op::NotIn(vec!["a".into()]))]);
        assert_eq!(ix.candidates(&sel), Candidates::All);
        assert_eq!(ix.candidates(&LabelSelector::EVERYTHING), Candidates::All);
        assert_eq!(ix.candidates(&LabelSelector::Nothing), some(&[], true));
        // Namespaces are numbered in order of appearance; lists name pods by index.
        assert_eq!(
            (ix.namespace_of(0), ix.namespace_of(1), ix.namespace_of(2)),
            (0, 1, 0)
        );
        assert_eq!(ix.namespace_id("b"), Some(1));
        assert_eq!(ix.namespace_id("zzz"), None);
        let list = ix.pod_list(vec![2, 0]);
        let names: Vec<String> = list.iter().map(ToString::to_string).collect();
        assert_eq!(names, ["a/p2", "a/p0"]);
        assert_eq!(
            serde_json::to_string(&list).expect("json"),
            r#"[{"namespace":"a","name":"p2"},{"namespace":"a","name":"p0"}]"#
        );
        // Parts of one buffer, each ending where the next starts.
        let lists = ix.pod_lists(vec![1, 2, 0], [1, 1, 3]);
        let parts: Vec<Vec<String>> = lists
            .iter()
            .map(|l| l.iter().map(ToString::to_string).collect())
            .collect();
        assert_eq!(parts, [vec!["b/p1"], vec![], vec!["a/p2", "a/p0"]]);
        assert_eq!(
            lists.iter().map(PodList::len).collect::<Vec<_>>(),
            [1, 0, 2]
        );
        assert!(lists[1].is_empty());
    }

    #[test]
    fn equal_term_sets_are_shared_and_grouped() {
        let terms = Arc::new(PodAffinity::default());
        let mut again = Arc::new(PodAffinity::default());
        let mut ix = PodIndex::default();
        ix.share_terms(&mut again);
        assert!(!Arc::ptr_eq(&again, &terms), "no group yet: kept as given");
        ix.add(0, &id("a", "p0"), &Arc::default(), Some(&terms));
        ix.share_terms(&mut again);
        assert!(Arc::ptr_eq(&again, &terms), "the group's copy");
        ix.add(3, &id("a", "p3"), &Arc::default(), Some(&again));
        assert_eq!(ix.affinity_groups().len(), 1);
        assert_eq!(ix.affinity_groups()[0].pods, vec![0, 3]);
    }

    /// Groups are found by their terms' hash whichever way a pod comes: after
    /// `share_terms` gave it the group's copy, with an equal copy of its own, or with other
    /// terms; they stay in order of first appearance.
    #[test]
    fn term_sets_find_their_group_by_hash_in_any_order() {
        let a = Arc::new(PodAffinity::default());
        let b = Arc::new(PodAffinity {
            errors: vec!["b".to_string()],
            ..PodAffinity::default()
        });
        let mut ix = PodIndex::default();
        ix.add(0, &id("a", "p0"), &Arc::default(), Some(&a));
        ix.add(1, &id("a", "p1"), &Arc::default(), Some(&b));
        let mut a_copy = Arc::new((*a).clone());
        ix.share_terms(&mut a_copy);
        assert!(Arc::ptr_eq(&a_copy, &a), "the group's copy");
        ix.add(2, &id("a", "p2"), &Arc::default(), Some(&a_copy));
        // Given the first group's copy, but added with other terms (the pod given it went
        // elsewhere): its own group, by hash.
        let mut shared = Arc::new((*a).clone());
        ix.share_terms(&mut shared);
        ix.add(
            3,
            &id("a", "p3"),
            &Arc::default(),
            Some(&Arc::new((*b).clone())),
        );
        // An equal copy never shared: found by hash too.
        ix.add(
            4,
            &id("a", "p4"),
            &Arc::default(),
            Some(&Arc::new((*a).clone())),
        );
        let groups = ix.affinity_groups();
        assert_eq!(groups.len(), 2);
        assert!(Arc::ptr_eq(&groups[0].terms, &a));
        assert!(Arc::ptr_eq(&groups[1].terms, &b));
        assert_eq!(groups[0].pods, vec![0, 2, 4]);
        assert_eq!(groups[1].pods, vec![1, 3]);
    }

    #[test]
    fn a_namespace_reaches_the_groups_naming_or_selecting_it_in_group_order() {
        let term = |namespaces: &[&str], namespace_selector: LabelSelector| AffinityTerm {
            selector: LabelSelector::EVERYTHING,
            namespaces: namespaces.iter().map(ToString::to_string).collect(),
            namespace_selector,
            topology_key: "zone".into(),
            weight: 0,
        };
        let groups = [
            // 0: names "a" twice (in two lists): listed once.
            PodAffinity {
                required_affinity: vec![term(&["a"], LabelSelector::Nothing)],
                preferred_anti_affinity: vec![term(&["b", "a"], LabelSelector::Nothing)],
                ..PodAffinity::default()
            },
            // 1: a namespaceSelector: any namespace may match its labels.
            PodAffinity {
                required_anti_affinity: vec![term(&[], LabelSelector::EVERYTHING)],
                ..PodAffinity::default()
            },
            // 2: names "b" only.
            PodAffinity {
                preferred_affinity: vec![term(&["b"], LabelSelector::Nothing)],
                ..PodAffinity::default()
            },
            // 3: names "a" and has a selector.
            PodAffinity {
                required_affinity: vec![term(&["a"], LabelSelector::EVERYTHING)],
                ..PodAffinity::default()
            },
        ];
        let mut ix = PodIndex::default();
        for (i, g) in groups.into_iter().enumerate() {
            ix.add(
                i,
                &id("x", &format!("p{i}")),
                &Arc::default(),
                Some(&Arc::new(g)),
            );
        }
        fn positions<'a>(
            ix: &PodIndex,
            groups: impl Iterator<Item = &'a AffinityGroup>,
        ) -> Vec<usize> {
            groups
                .map(|g| {
                    ix.affinity_groups()
                        .iter()
                        .position(|h| std::ptr::eq(g, h))
                        .expect("a group of the index")
                })
                .collect()
        }
        let reached = |ns: &str| positions(&ix, ix.affinity_groups_for(ns));
        assert_eq!(reached("a"), [0, 1, 3]);
        assert_eq!(reached("b"), [0, 1, 2, 3]);
        assert_eq!(reached("c"), [1, 3]);
        assert_eq!(positions(&ix, ix.affinity_groups_selecting()), [1, 3]);
        // Without a namespaceSelector anywhere, a namespace reaches the groups naming it.
        let mut naming = PodIndex::default();
        for (i, ns) in [["a", "b"], ["b", "c"], ["a", "a"]].into_iter().enumerate() {
            let g = PodAffinity {
                required_affinity: vec![term(&ns, LabelSelector::Nothing)],
                ..PodAffinity::default()
            };
            naming.add(
                i,
                &id("x", &format!("p{i}")),
                &Arc::default(),
                Some(&Arc::new(g)),
            );
        }
        let reached = |ns: &str| positions(&naming, naming.affinity_groups_for(ns));
        assert_eq!(reached("a"), [0, 2]);
        assert_eq!(reached("b"), [0, 1]);
        assert_eq!(reached("c"), [1]);
        assert!(reached("d").is_empty());
        assert_eq!(naming.affinity_groups_selecting().count(), 0);
    }

    use proptest::prelude::*;

    /// Small label alphabets, so selectors and pods meet often.
    fn arb_labels() -> impl Strategy<Value = Labels> {
        proptest::collection::btree_map("[ab]", "[xyz]", 0..3).prop_map(Labels::from)
    }

    fn arb_requirement() -> impl Strategy<Value = Requirement> {
        let values = proptest::collection::vec("[xyzw]", 1..3);
        let op = prop_oneof![
            "[xyzw]".prop_map(Op::Equals),
            values.clone().prop_map(Op::In),
            values.prop_map(Op::NotIn),
            Just(Op::Exists),
            Just(Op::DoesNotExist),
        ];
        ("[abc]", op).prop_map(|(key, op)| Requirement { key, op })
    }

    proptest! {
        /// The index never loses a matching pod, and when it says `exact` it adds none.
        #[test]
        fn candidates_are_a_superset_and_exact_when_said(
            pods in proptest::collection::vec(arb_labels(), 0..12),
            reqs in proptest::collection::vec(arb_requirement(), 0..3),
        ) {
            let mut ix = PodIndex::default();
            // A label set equal to the previous pod's is the same copy, as replicas of a
            // page are: the index then reuses the previous pod's lookups.
            let mut last: Option<Arc<Labels>> = None;
            for (i, labels) in pods.iter().enumerate() {
                let labels = match last.take() {
                    Some(l) if *l == *labels => l,
                    _ => Arc::new(labels.clone()),
                };
                ix.add(i, &id("ns", &format!("p{i}")), &labels, None);
                last = Some(labels);
            }
            let sel = LabelSelector::Requirements(reqs);
            let matching: Vec<u32> = (0..pods.len() as u32)
                .filter(|&p| sel.matches(&pods[p as usize]))
                .collect();
            match ix.candidates(&sel) {
                Candidates::All => {}
                Candidates::Some { pods: c, exact } => {
                    prop_assert!(c.windows(2).all(|w| w[0] < w[1]), "ascending, no repeats");
                    prop_assert!(matching.iter().all(|p| c.contains(p)), "lost a match");
                    if exact {
                        prop_assert_eq!(c.as_ref(), matching.as_slice());
                    }
                }
            }
        }
    }

    #[test]
    fn topology_numbers_values_per_key() {
        let node = |name: &str, zone: Option<&str>| Node {
            name: name.to_string(),
            labels: zone.map(|z| labels(&[("zone", z)])).unwrap_or_default(),
            taints: Vec::new(),
            unschedulable: false,
            resources: Default::default(),
        };
        let t = Topology::new(&[
            node("a", Some("z1")),
            node("b", None),
            node("c", Some("z1")),
            node("d", Some("z2")),
        ]);
        let d = t.domains("zone").expect("zone");
        assert_eq!(d.values, vec![Arc::from("z1"), Arc::from("z2")]);
        assert_eq!(
            (d.of(0), d.of(1), d.of(2), d.of(3)),
            (Some(0), None, Some(0), Some(1))
        );
        assert!(t.domains("region").is_none());
    }

    #[test]
    fn topology_orders_values_by_string() {
        let node = |name: &str, zone: &str| Node {
            name: name.to_string(),
            labels: labels(&[("zone", zone)]),
            taints: Vec::new(),
            unschedulable: false,
            resources: Default::default(),
        };
        let t = Topology::new(&[
            node("a", "zone-b"),
            node("b", "zone-10"),
            node("c", "zone-a"),
            node("d", "zone-2"),
        ]);
        let d = t.domains("zone").expect("zone");
        let sorted: Vec<&str> = d.sorted.iter().map(|&i| &*d.values[i as usize]).collect();
        assert_eq!(sorted, ["zone-10", "zone-2", "zone-a", "zone-b"]);
    }
}
