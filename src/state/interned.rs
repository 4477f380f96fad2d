//! One shared copy of equal values (label sets, tolerations, controllers) across the state.

use std::sync::Arc;

use foldhash::HashSet as FastSet;

/// One copy of each distinct value, and the last copy given and what it was replaced by:
/// replicas decoded from one page hold the same copy already (see
/// `decode::protobuf::shared`), and are then shared without hashing and comparing their
/// values again. Each copy is kept with its hash, so that the set grows without hashing its
/// values again.
#[derive(Debug)]
pub(crate) struct Shared<T: ?Sized> {
    set: FastSet<Hashed<T>>,
    last: Option<(Arc<T>, Arc<T>)>,
}

/// A kept copy and its hash (by the hasher of the set or map that keeps it).
#[derive(Debug)]
pub(crate) struct Hashed<T: ?Sized>(pub(crate) u64, pub(crate) Arc<T>);

impl<T: ?Sized> Clone for Hashed<T> {
    fn clone(&self) -> Self {
        Hashed(self.0, self.1.clone())
    }
}

impl<T: ?Sized> std::hash::Hash for Hashed<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.0);
    }
}

impl<T: Eq + ?Sized> PartialEq for Hashed<T> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0 && *self.1 == *other.1
    }
}

impl<T: Eq + ?Sized> Eq for Hashed<T> {}

impl<T: ?Sized> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared {
            set: self.set.clone(),
            last: self.last.clone(),
        }
    }
}

impl<T: ?Sized> Default for Shared<T> {
    fn default() -> Self {
        Shared {
            set: FastSet::default(),
            last: None,
        }
    }
}

impl<T: std::hash::Hash + Eq + ?Sized> Shared<T> {
    /// Replaces `value` by the equal copy kept, or keeps it as the copy.
    pub(crate) fn share(&mut self, value: &mut Arc<T>) {
        use std::hash::BuildHasher;
        if let Some((given, kept)) = &self.last
            && Arc::ptr_eq(given, value)
        {
            // A copy kept as given needs no swap (nor the given one's count touched).
            if !Arc::ptr_eq(given, kept) {
                *value = kept.clone();
            }
            return;
        }
        let given = value.clone();
        let hashed = Hashed(self.set.hasher().hash_one(&**value), value.clone());
        match self.set.get(&hashed) {
            Some(kept) => *value = kept.1.clone(),
            None => {
                self.set.insert(hashed);
            }
        }
        self.last = Some((given, value.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::labels::Labels;

    /// The same copy given twice in a row is replaced without a lookup, by what it was
    /// replaced with the first time; equal copies still meet in one, others stay apart.
    #[test]
    fn shared_copies_given_again_take_the_kept_copy() {
        let mut shared: Shared<Labels> = Shared::default();
        let labels = |v: &str| Arc::new(Labels::from([("app".to_string(), v.to_string())]));
        let mut first = labels("x");
        shared.share(&mut first);
        let page = labels("x");
        let (mut a, mut b) = (page.clone(), page.clone());
        shared.share(&mut a);
        shared.share(&mut b);
        assert!(Arc::ptr_eq(&a, &first) && Arc::ptr_eq(&b, &first));
        let mut other = labels("y");
        shared.share(&mut other);
        assert_eq!(other.get("app"), Some("y"));
        let mut again = page.clone();
        shared.share(&mut again);
        assert!(Arc::ptr_eq(&again, &first));
        assert_eq!(shared.set.len(), 2);
    }
}
