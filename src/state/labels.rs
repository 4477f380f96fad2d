//! A label set as the model keeps it: every key and value in one string, in key order.
//!
//! A large cluster's state holds tens of thousands of distinct label sets. As
//! `BTreeMap<String, String>` each would be a B-tree leaf (room for eleven entries) plus two
//! allocations per label, several times the text it holds, and every page of memory first
//! touched costs a page fault. Here a set is two allocations: its text and where each key and
//! value ends. Label sets are read, never changed, once built, so a sorted list
//! is all a map needs to be; `get` is a binary search, iteration a walk along one string.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Labels (of a node, a pod, a namespace, or a selector's `matchLabels`), in key order, each
/// key once, as a `BTreeMap` of them would hold them.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Labels {
    /// Key, value, key, value, ..., in key order, one after the other.
    text: Box<str>,
    /// Where each key and value of `text` ends: `ends[2 * i]` is key `i`'s end,
    /// `ends[2 * i + 1]` its value's.
    ends: Box<[u32]>,
}

impl Labels {
    /// No labels (allocates nothing).
    pub fn new() -> Labels {
        Labels::default()
    }

    pub fn len(&self) -> usize {
        self.ends.len() / 2
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Label `i` (in key order).
    fn entry(&self, i: usize) -> (&str, &str) {
        let start = if i == 0 {
            0
        } else {
            self.ends[2 * i - 1] as usize
        };
        let key_end = self.ends[2 * i] as usize;
        let end = self.ends[2 * i + 1] as usize;
        // The ends are where whole strings were joined, so these are always there (and
        // `get` checks no more than indexing would, without a way to panic).
        (
            self.text.get(start..key_end).unwrap_or_default(),
            self.text.get(key_end..end).unwrap_or_default(),
        )
    }

    /// Where `key` is, by binary search.
    fn position(&self, key: &str) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.entry(mid).0.cmp(key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.position(key).map(|i| self.entry(i).1)
    }

    /// The key as the set holds it, and its value.
    pub fn get_key_value(&self, key: &str) -> Option<(&str, &str)> {
        let i = self.position(key)?;
        Some(self.entry(i))
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Key and value of every label, in key order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            labels: self,
            at: 0..self.len(),
        }
    }

    /// The set of `entries` already in strictly increasing key order (each key once).
    fn from_sorted<'a>(entries: impl Iterator<Item = (&'a str, &'a str)> + Clone) -> Labels {
        let (mut len, mut count) = (0, 0);
        for (k, v) in entries.clone() {
            len += k.len() + v.len();
            count += 1;
        }
        let mut text = String::with_capacity(len);
        let mut ends = Vec::with_capacity(2 * count);
        for (k, v) in entries {
            text.push_str(k);
            ends.push(offset(text.len()));
            text.push_str(v);
            ends.push(offset(text.len()));
        }
        Labels {
            text: text.into_boxed_str(),
            ends: ends.into_boxed_slice(),
        }
    }
}

/// An offset into a set's text. A label set of 4 GiB is not one an API server stores (its
/// objects are limited to 1.5 MB), so this never saturates in practice.
fn offset(at: usize) -> u32 {
    u32::try_from(at).unwrap_or(u32::MAX)
}

/// The labels of a set, in key order: see [`Labels::iter`].
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    labels: &'a Labels,
    at: std::ops::Range<usize>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<(&'a str, &'a str)> {
        self.at.next().map(|i| self.labels.entry(i))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.at.size_hint()
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Labels {
    type Item = (&'a str, &'a str);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// As `BTreeMap`'s: a key given twice keeps its last value.
impl<K: AsRef<str>, V: AsRef<str>> FromIterator<(K, V)> for Labels {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Labels {
        let mut entries: Vec<(K, V)> = iter.into_iter().collect();
        // Stable: equal keys stay in the order given, and the last of each run is kept.
        entries.sort_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()));
        let last_of_key = |i: &usize| {
            entries
                .get(i + 1)
                .is_none_or(|next| next.0.as_ref() != entries[*i].0.as_ref())
        };
        let kept = (0..entries.len()).filter(last_of_key);
        Labels::from_sorted(kept.map(|i| (entries[i].0.as_ref(), entries[i].1.as_ref())))
    }
}

impl<K: AsRef<str>, V: AsRef<str>, const N: usize> From<[(K, V); N]> for Labels {
    fn from(entries: [(K, V); N]) -> Labels {
        entries.into_iter().collect()
    }
}

impl From<std::collections::BTreeMap<String, String>> for Labels {
    fn from(map: std::collections::BTreeMap<String, String>) -> Labels {
        Labels::from_sorted(map.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }
}

/// As a map, like the `BTreeMap` it stands for.
impl fmt::Debug for Labels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// As a map, in key order.
impl Serialize for Labels {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

/// From a map, as a `BTreeMap<String, String>` reads one (a key given twice keeps its last
/// value).
impl<'de> Deserialize<'de> for Labels {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Labels, D::Error> {
        std::collections::BTreeMap::<String, String>::deserialize(d).map(Labels::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[test]
    fn a_key_given_twice_keeps_its_last_value_as_in_a_btreemap() {
        let given = [("b", "1"), ("a", "2"), ("b", "3"), ("c", ""), ("a", "4")];
        let labels: Labels = given.into_iter().collect();
        assert_eq!(
            labels.iter().collect::<Vec<_>>(),
            [("a", "4"), ("b", "3"), ("c", "")]
        );
        assert_eq!(labels.get("b"), Some("3"));
        assert_eq!(labels.get("c"), Some(""));
        assert_eq!(labels.get("d"), None);
        assert_eq!(labels.len(), 3);
    }

    #[test]
    fn no_labels_is_empty_and_serializes_as_an_empty_map() {
        let labels = Labels::new();
        assert!(labels.is_empty());
        assert_eq!(labels.get(""), None);
        assert_eq!(serde_json::to_string(&labels).unwrap(), "{}");
        assert_eq!(format!("{labels:?}"), "{}");
    }

    proptest! {
        /// Whatever the entries, the set reads, iterates, serializes and compares as the
        /// `BTreeMap` built from them.
        #[test]
        fn reads_as_the_btreemap_of_its_entries(
            entries in prop::collection::vec(("[a-c./]{0,3}", "[x-z]{0,2}"), 0..12),
            probe in "[a-c./]{0,3}",
        ) {
            let map: BTreeMap<String, String> = entries.iter().cloned().collect();
            let labels: Labels = entries.iter().cloned().collect();
            let from_map = Labels::from(map.clone());
            prop_assert_eq!(&labels, &from_map);
            prop_assert_eq!(labels.len(), map.len());
            prop_assert!(labels.iter().eq(map.iter().map(|(k, v)| (k.as_str(), v.as_str()))));
            prop_assert_eq!(labels.get(&probe), map.get(&probe).map(String::as_str));
            prop_assert_eq!(labels.contains_key(&probe), map.contains_key(&probe));
            prop_assert_eq!(
                serde_json::to_string(&labels).unwrap(),
                serde_json::to_string(&map).unwrap()
            );
            prop_assert_eq!(format!("{labels:?}"), format!("{map:?}"));
            let json = serde_json::to_string(&map).unwrap();
            prop_assert_eq!(serde_json::from_str::<Labels>(&json).unwrap(), labels);
        }
    }
}
