//! A YAML `List` (`kubectl get -o yaml`, `kubectl affinity snapshot`) read as the JSON one is:
//! each item decoded as soon as it is parsed, a pod straight into its parts, any other kind
//! the general path reads through its JSON value, and added to the snapshot in input order.
//! Nothing is kept of an item once it is added, so the whole list never exists as a tree.
//!
//! Anything this reading does not take (another shape, an error, a quantity that does not
//! parse, a float that is not finite) ends it: the caller reads the input the general way,
//! which gives its message.

use serde::Deserializer;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

use super::{Decoded, SnapshotBuilder};
use crate::state::objects::Object;
use crate::state::parts::{Meta, PodParts, Spec, Status};
use crate::state::pod::Pod;
use crate::state::source::Located;
use crate::state::yaml::{self, ItemSink, Source};

/// Reads a YAML `List` into `b`, item by item; `false` when the input is not one, or any
/// item is not read (`b` is then of no use).
pub(super) fn read(source: Source<'_>, path: &str, b: &mut SnapshotBuilder) -> bool {
    let mut sink = Items { path, builder: b };
    let Some(list) = yaml::list_items(source, &mut sink) else {
        return false;
    };
    // `kubectl get -o yaml` on an empty cluster prints a List without items: the general path
    // tells an empty snapshot from a wrong file.
    list.kind.is_some_and(|k| k.ends_with("List")) && list.items > 0
}

struct Items<'a> {
    path: &'a str,
    builder: &'a mut SnapshotBuilder,
}

impl ItemSink for Items<'_> {
    fn item<'de, D: Deserializer<'de>>(&mut self, item: D) -> Result<(), D::Error> {
        let decoded = item.deserialize_map(Item { path: self.path })?;
        self.builder.apply(decoded);
        Ok(())
    }
}

/// One item: its `kind` first (as kubectl writes it), then a pod's parts decoded into the
/// parts, another kind's fields gathered into the JSON value the general path decodes.
struct Item<'p> {
    path: &'p str,
}

/// A pod's parts; `Some(None)` is a part given as null.
#[derive(Default)]
struct PodSlots {
    metadata: Option<Option<Meta>>,
    spec: Option<Option<Spec>>,
    status: Option<Option<Status>>,
}

/// How the fields after `kind` are read.
enum Reading {
    Pod(Box<PodSlots>),
    Value(serde_json::Map<String, Value>),
    Skip,
}

fn refused<E: de::Error>(what: impl std::fmt::Display) -> E {
    E::custom(what)
}

/// Fills a pod's part once: a part given twice is refused, as the derived decoder does.
fn once<T, E: de::Error>(
    slot: &mut Option<Option<T>>,
    value: impl FnOnce() -> Result<Option<T>, E>,
) -> Result<(), E> {
    if slot.is_some() {
        return Err(refused("a part given twice"));
    }
    *slot = Some(value()?);
    Ok(())
}

impl Reading {
    /// What an item of `kind` is read as, given the fields met before it.
    fn of<E: de::Error>(kind: &str, early: Vec<(String, Value)>) -> Result<Reading, E> {
        if kind.ends_with("List") {
            return Err(refused("a list in the list"));
        }
        if kind == "Pod" {
            let mut r = Reading::Pod(Box::default());
            for (key, value) in early {
                r.pod_part(&key, || Ok(value))?;
            }
            return Ok(r);
        }
        if kind == "Node" || Object::KINDS.contains(&kind) {
            let mut map: serde_json::Map<String, Value> = early.into_iter().collect();
            map.insert("kind".to_string(), Value::String(kind.to_string()));
            return Ok(Reading::Value(map));
        }
        Ok(Reading::Skip)
    }

    /// A pod's field: `metadata`, `spec` and `status` into the parts, the rest skipped.
    fn pod_part<E: de::Error>(
        &mut self,
        key: &str,
        value: impl FnOnce() -> Result<Value, E>,
    ) -> Result<(), E> {
        use serde::Deserialize as _;
        let Reading::Pod(slots) = self else {
            return Ok(());
        };
        let PodSlots {
            metadata,
            spec,
            status,
        } = &mut **slots;
        fn part<T: serde::de::DeserializeOwned, E: de::Error>(v: Value) -> Result<Option<T>, E> {
            Option::deserialize(v).map_err(refused)
        }
        match key {
            "metadata" => once(metadata, || value().and_then(part)),
            "spec" => once(spec, || value().and_then(part)),
            "status" => once(status, || value().and_then(part)),
            _ => Ok(()),
        }
    }
}

impl<'de> Visitor<'de> for Item<'_> {
    type Value = Decoded;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Decoded, A::Error> {
        let mut early: Vec<(String, Value)> = Vec::new();
        let mut reading: Option<Reading> = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "kind" {
                if reading.is_some() {
                    return Err(refused("kind given twice"));
                }
                let kind: String = map.next_value()?;
                reading = Some(Reading::of(&kind, std::mem::take(&mut early))?);
                continue;
            }
            match &mut reading {
                None => early.push((key, map.next_value()?)),
                Some(Reading::Pod(slots)) => match key.as_str() {
                    "metadata" => once(&mut slots.metadata, || map.next_value())?,
                    "spec" => once(&mut slots.spec, || map.next_value())?,
                    "status" => once(&mut slots.status, || map.next_value())?,
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                },
                Some(Reading::Value(fields)) => {
                    fields.insert(key, map.next_value()?);
                }
                Some(Reading::Skip) => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let located = |fields: serde_json::Map<String, Value>| Located {
            document: 1,
            value: Value::Object(fields),
        };
        match reading {
            Some(Reading::Pod(slots)) => {
                let PodSlots {
                    metadata,
                    spec,
                    status,
                } = *slots;
                let pod = Pod::from_snapshot(PodParts {
                    metadata: metadata.flatten(),
                    spec: spec.flatten(),
                    status: status.flatten(),
                });
                if !pod.template.resources.problems.is_empty() {
                    return Err(refused("a quantity that does not parse"));
                }
                Ok(Decoded::Pod(Box::new(pod)))
            }
            Some(Reading::Value(fields)) => {
                Decoded::of(&located(fields), self.path).map_err(refused)
            }
            Some(Reading::Skip) => Ok(Decoded::Skip),
            // No kind: what the general path makes of it.
            None => Decoded::of(&located(early.into_iter().collect()), self.path).map_err(refused),
        }
    }
}
