//! What NodeAffinity keeps so as not to explain or parse the same thing twice: the
//! explanations shared by nodes with equal values for the keys read, and the last pod's parse
//! of its required terms. Each is checked against making the thing again.

use std::sync::Arc;

use crate::state::selector::NodeSelector;
use crate::state::{Domains, Pod, spec};

/// Explanations shared by the nodes that have the same value (or none) for every label key a
/// selector reads. Explaining the terms is the costly part of this plugin, and thousands of
/// nodes hold a few dozen combinations of os, zone and instance type. Each node's entry is
/// the same as made for it alone; it is only not made again. Not used when a term has
/// matchFields, which read the node's name.
#[derive(Debug)]
pub(super) struct Shared<T> {
    /// Index into `made` per node; `u32::MAX` for a node it was not made for.
    of_node: Vec<u32>,
    made: Vec<Arc<T>>,
}

impl<T> Shared<T> {
    /// `domains` are the label keys read; `make(node)` explains a node. `None` when the
    /// combinations of values are too many to number (then each node is explained alone).
    pub(super) fn new(
        node_count: usize,
        nodes: impl Iterator<Item = usize>,
        domains: &[Option<&Domains>],
        mut make: impl FnMut(usize) -> T,
    ) -> Option<Shared<T>> {
        // A node's values as one mixed-radix number: each key's digit is its value's index
        // plus one, 0 without the label. Hashing one integer per node, not a list.
        let mut radix = Vec::with_capacity(domains.len());
        let mut stride: u128 = 1;
        for d in domains.iter().flatten() {
            radix.push((d, stride));
            stride = stride.checked_mul(d.values.len() as u128 + 1)?;
        }
        let key = |node: usize| -> u128 {
            radix
                .iter()
                .map(|(d, stride)| d.of(node).map_or(0, |v| u128::from(v) + 1) * stride)
                .sum()
        };
        let mut of_node = vec![u32::MAX; node_count];
        let mut seen: foldhash::HashMap<u128, u32> = Default::default();
        let mut made = Vec::new();
        for ni in nodes {
            let at = *seen.entry(key(ni)).or_insert_with(|| {
                made.push(Arc::new(make(ni)));
                u32::try_from(made.len() - 1).unwrap_or(u32::MAX)
            });
            if let Some(slot) = of_node.get_mut(ni) {
                *slot = at;
            }
        }
        Some(Shared { of_node, made })
    }

    pub(super) fn get(&self, node: usize) -> Option<&Arc<T>> {
        self.of_node
            .get(node)
            .and_then(|&at| self.made.get(at as usize))
    }
}

/// The pod's required node affinity, parsed.
pub(super) fn required_of(pod: &Pod) -> Option<Arc<NodeSelector>> {
    let na = pod.template.node_affinity.as_deref()?;
    let required = na
        .required_during_scheduling_ignored_during_execution
        .as_ref()?;
    Some(Arc::new(NodeSelector::parse(required)))
}

/// The required node affinity of the pod checked last, parsed. The audit checks every bound
/// pod; the replicas of a workload share one copy of their terms and are listed one after the
/// other, so their terms are parsed once rather than once per pod.
#[derive(Debug, Default)]
pub struct LastRequired(Option<(Arc<spec::NodeAffinity>, Option<Arc<NodeSelector>>)>);

impl LastRequired {
    pub(super) fn of(&mut self, pod: &Pod) -> Option<Arc<NodeSelector>> {
        let na = pod.template.node_affinity.as_ref()?;
        if let Some((last, parsed)) = &self.0
            && Arc::ptr_eq(last, na)
        {
            return parsed.clone();
        }
        let parsed = required_of(pod);
        self.0 = Some((na.clone(), parsed.clone()));
        parsed
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::Shared;
    use crate::scheduler::testing::state_of;

    proptest! {
        /// Every node reads the explanation made for it alone, whichever node with its values
        /// it was made for.
        #[test]
        fn a_shared_explanation_is_the_one_made_alone(
            labels in prop::collection::vec((0u8..4, 0u8..3), 1..12),
        ) {
            let nodes: Vec<_> = labels
                .iter()
                .enumerate()
                .map(|(i, &(zone, os))| {
                    let mut l = serde_json::Map::new();
                    if zone > 0 {
                        l.insert("zone".into(), json!(format!("z{zone}")));
                    }
                    if os > 0 {
                        l.insert("os".into(), json!(format!("o{os}")));
                    }
                    json!({"apiVersion": "v1", "kind": "Node",
                           "metadata": {"name": format!("n{i}"), "labels": l}})
                })
                .collect();
            let state = state_of(json!(nodes));
            let keys = [state.topology().domains("zone"), state.topology().domains("os")];
            let alone = |node: usize| {
                let labels = &state.nodes()[node].labels;
                (labels.get("zone").map(str::to_string), labels.get("os").map(str::to_string))
            };
            let count = state.nodes().len();
            let shared = Shared::new(count, 0..count, &keys, alone).expect("few combinations");
            for node in 0..count {
                prop_assert_eq!(shared.get(node).map(|s| (**s).clone()), Some(alone(node)));
            }
        }
    }
}
