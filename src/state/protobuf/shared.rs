//! A page's pods built from the parts they share, without decoding each pod.
//!
//! A workload's replicas differ in their name, node, status times and the generated names of
//! their token volumes; the fields the compact pod is built from are otherwise equal. So each
//! pod is split, in place, into the fields that are its own (name, node, whether it is being
//! deleted, its labels and owner references) and a template key: the bytes of every other
//! field the build reads (its namespace, its spec but `nodeName`, the read parts of its
//! containers, volumes and status), copied as they are written. Equal bytes decode to equal
//! values, so the first pod of a page with a given key is decoded and built whole, and every
//! later pod with the same key takes its built parts and its own fields; label sets and
//! owner lists are decoded once per page the same way.
//!
//! Nothing here decides a value: every part is decoded by the same messages and built by the
//! same [`Pod::from_slim`] as a whole pod, and anything not in the shape an API server writes
//! (a part given twice, a field of another wire type, text that is not UTF-8) is left to the
//! whole decode, which then says what is wrong. A generated pod (ten replicas per app) then
//! takes about 15 k instructions to decode and build, against 46 k decoded whole
//! (BENCHMARKS.md).

use std::sync::Arc;

use foldhash::HashMap as FastMap;
use prost::Message;
use prost::encoding::{WireType, encode_key, encode_varint};

use super::{PbMeta, PbPod, PbTime, key, length_delimited, owner_reference, short_varint, skip};
use crate::scheduler::selector::Labels;
use crate::state::slim::SlimPod;
use crate::state::{ControllerRef, Pod, PodRef, controller_of};

/// What a template keeps of one field.
enum Keep {
    /// The field as it is.
    Whole,
    /// Not kept: per-pod values the build never reads.
    Drop,
    /// Not kept: the pod's own value (its node), read while the key is made.
    Own,
    /// The field with its content left out: only whether it is set is read.
    Empty,
    /// Only some of the field's own fields.
    Only(&'static Projection),
}

/// What a template keeps of a message: its listed fields as said, the others as `others`.
struct Projection {
    listed: &'static [(u32, Keep)],
    others: Keep,
    /// Bit `t` set when field `t` (under 64) is listed: most fields read are not.
    mask: u64,
}

impl Projection {
    const fn new(listed: &'static [(u32, Keep)], others: Keep) -> Projection {
        let mut mask = 0u64;
        let mut i = 0;
        while i < listed.len() {
            if listed[i].0 < 64 {
                mask |= 1 << listed[i].0;
            }
            i += 1;
        }
        Projection {
            listed,
            others,
            mask,
        }
    }

    /// What is kept of field `tag`: at most six fields of a message are listed.
    #[inline(always)]
    fn keep(&self, tag: u32) -> &Keep {
        if tag < 64 && self.mask & (1 << tag) == 0 {
            return &self.others;
        }
        for (t, k) in self.listed {
            if *t == tag {
                return k;
            }
        }
        &self.others
    }
}

/// `PodSpec`: every field but the node (the pod's own, read apart), the StatefulSet names (per pod, not
/// read), and of volumes and containers only the read parts.
const SPEC: Projection = Projection::new(
    &[
        (1, Keep::Only(&VOLUME)),
        (2, Keep::Only(&CONTAINER)),
        (10, Keep::Own),
        (16, Keep::Drop),
        (17, Keep::Drop),
        (20, Keep::Only(&CONTAINER)),
    ],
    Keep::Whole,
);

/// `Volume`: which sources are set (its name is generated per pod for the token volume).
const VOLUME: Projection = Projection::new(
    &[(2, Keep::Only(&Projection::new(&[], Keep::Empty)))],
    Keep::Drop,
);

/// `Container`: the fields `PbContainer` reads (name, image, ports, resources,
/// restartPolicy); env and mounts name per-pod objects.
const CONTAINER: Projection = Projection::new(
    &[
        (1, Keep::Whole),
        (2, Keep::Whole),
        (6, Keep::Whole),
        (8, Keep::Whole),
        (24, Keep::Whole),
    ],
    Keep::Drop,
);

/// `OwnerReference`: what [`controller_of`] reads (kind, name, apiVersion, controller); the
/// uid is left out.
const OWNER: Projection = Projection::new(
    &[
        (1, Keep::Whole),
        (3, Keep::Whole),
        (5, Keep::Whole),
        (6, Keep::Whole),
    ],
    Keep::Drop,
);

/// `PodStatus`: the fields `PbPodStatus` reads (phase, conditions, container statuses).
const STATUS: Projection = Projection::new(
    &[
        (1, Keep::Whole),
        (2, Keep::Only(&CONDITION)),
        (8, Keep::Only(&CONTAINER_STATUS)),
        (10, Keep::Only(&CONTAINER_STATUS)),
    ],
    Keep::Drop,
);

/// `PodCondition`: type and reason (`PbCondition`), not its times.
const CONDITION: Projection = Projection::new(&[(1, Keep::Whole), (5, Keep::Whole)], Keep::Drop);

/// `ContainerStatus`: name, allocatedResources, resources (`PbContainerStatus`).
const CONTAINER_STATUS: Projection = Projection::new(
    &[(1, Keep::Whole), (10, Keep::Whole), (11, Keep::Whole)],
    Keep::Drop,
);

/// The parts of the pods of one page, by the bytes they were built from. Held for one page:
/// replicas are listed next to each other (by namespace and name), and the state shares
/// equal label sets across pages anyway.
#[derive(Default)]
pub(super) struct SharedParts {
    /// Template key -> index in `built`: one lookup per pod, whether it is the first.
    templates: FastMap<Box<[u8]>, usize>,
    built: Vec<Pod>,
    labels: FastMap<Box<[u8]>, Arc<Labels>>,
    controllers: FastMap<Box<[u8]>, Option<Arc<ControllerRef>>>,
    template_key: Vec<u8>,
    labels_key: Vec<u8>,
    /// The owner references as written, and as projected to what is read.
    owners: Vec<u8>,
    owners_key: Vec<u8>,
}

impl SharedParts {
    /// The compact pod of one `Pod` message; `None` when the bytes are not as an API server
    /// writes them, for the caller to decode the pod whole.
    pub(super) fn pod(&mut self, bytes: &[u8]) -> Option<Pod> {
        let (mut metadata, mut spec, mut status) = (None, None, None);
        let mut buf = bytes;
        while !buf.is_empty() {
            let (tag, wire, body) = field(&mut buf)?;
            let slot = match (tag, wire) {
                (1, LD_BYTE) => &mut metadata,
                (2, LD_BYTE) => &mut spec,
                (3, LD_BYTE) => &mut status,
                (1..=3, _) => return None,
                _ => continue,
            };
            // A part given twice is merged by protobuf's rules: left to the whole decode.
            if slot.is_some() {
                return None;
            }
            *slot = Some(body);
        }
        let own = self.metadata(metadata.unwrap_or_default())?;
        let labels = self.labels()?;
        let controller = self.controller()?;
        let (template, node_name) = self.template(bytes, &own, spec, status)?;
        let t = &self.built[template];
        // Built field by field rather than cloned and overwritten: a field added to `Pod`
        // does not compile here until it is said to be the pod's own or the template's.
        Some(Pod {
            id: Arc::new(PodRef {
                namespace: t.id.namespace.clone(),
                name: own.name.to_string(),
            }),
            labels,
            node_name: node_name.to_string(),
            phase: t.phase.clone(),
            scheduler_name: t.scheduler_name.clone(),
            terminating: own.terminating,
            node_selector: t.node_selector.clone(),
            node_affinity: t.node_affinity.clone(),
            tolerations: t.tolerations.clone(),
            pod_affinity: t.pod_affinity.clone(),
            affinity_errors: t.affinity_errors.clone(),
            priority: t.priority,
            preempt_never: t.preempt_never,
            has_resource_claims: t.has_resource_claims,
            volumes: t.volumes,
            topology_spread: t.topology_spread.clone(),
            controller,
            resources: t.resources.clone(),
        })
    }

    /// Reads the pod's own metadata fields; its labels and owner references are gathered,
    /// as they are written, into their keys.
    fn metadata<'a>(&mut self, mut m: &'a [u8]) -> Option<Own<'a>> {
        let mut own = Own {
            name: "",
            namespace: None,
            terminating: false,
        };
        self.labels_key.clear();
        self.owners.clear();
        self.owners_key.clear();
        while !m.is_empty() {
            let start = m;
            let (tag, wire, body) = field(&mut m)?;
            if matches!(tag, 1 | 3 | 9 | 11 | 13) && wire != LD_BYTE {
                return None;
            }
            match tag {
                1 => own.name = std::str::from_utf8(body).ok()?,
                3 => {
                    std::str::from_utf8(body).ok()?;
                    own.namespace = Some(&start[..start.len() - m.len()]);
                }
                9 => {
                    PbTime::decode(body).ok()?;
                    own.terminating = true;
                }
                11 => self
                    .labels_key
                    .extend_from_slice(&start[..start.len() - m.len()]),
                13 => {
                    self.owners
                        .extend_from_slice(&start[..start.len() - m.len()]);
                    encode_key(13, WireType::StartGroup, &mut self.owners_key);
                    project(&mut self.owners_key, body, &OWNER, &mut None)?;
                    encode_key(13, WireType::EndGroup, &mut self.owners_key);
                }
                _ => {}
            }
        }
        Some(own)
    }

    /// The index of the pod built whole from the page's first pod with the same template
    /// key (the caller replaces its own fields), and the pod's node.
    fn template<'a>(
        &mut self,
        bytes: &[u8],
        own: &Own<'_>,
        spec: Option<&'a [u8]>,
        status: Option<&[u8]>,
    ) -> Option<(usize, &'a str)> {
        let key = &mut self.template_key;
        key.clear();
        if let Some(ns) = own.namespace {
            key.extend_from_slice(ns);
        }
        let mut node = None;
        if let Some(spec) = spec {
            encode_key(2, WireType::StartGroup, key);
            project(key, spec, &SPEC, &mut node)?;
            encode_key(2, WireType::EndGroup, key);
        }
        if let Some(status) = status {
            encode_key(3, WireType::StartGroup, key);
            project(key, status, &STATUS, &mut None)?;
            encode_key(3, WireType::EndGroup, key);
        }
        let node = match node {
            Some(n) => std::str::from_utf8(n).ok()?,
            None => "",
        };
        if let Some(&i) = self.templates.get(&key[..]) {
            return Some((i, node));
        }
        let pod = SlimPod::from(PbPod::decode(bytes).ok()?).into_pod();
        self.built.push(pod);
        self.templates.insert(key[..].into(), self.built.len() - 1);
        Some((self.built.len() - 1, node))
    }

    fn labels(&mut self) -> Option<Arc<Labels>> {
        if let Some(l) = self.labels.get(&self.labels_key[..]) {
            return Some(l.clone());
        }
        let labels = Arc::new(PbMeta::decode(&self.labels_key[..]).ok()?.labels);
        self.labels
            .insert(self.labels_key[..].into(), labels.clone());
        Some(labels)
    }

    fn controller(&mut self) -> Option<Option<Arc<ControllerRef>>> {
        if let Some(c) = self.controllers.get(&self.owners_key[..]) {
            return Some(c.clone());
        }
        let owners = PbMeta::decode(&self.owners[..]).ok()?.owner_references;
        let c = controller_of(owners.into_iter().map(owner_reference));
        self.controllers
            .insert(self.owners_key[..].into(), c.clone());
        Some(c)
    }
}

/// The fields of a pod's metadata that are its own.
struct Own<'a> {
    name: &'a str,
    /// The whole `namespace` field, key included: it goes into the template (pod affinity
    /// terms without namespaces mean the pod's own).
    namespace: Option<&'a [u8]>,
    terminating: bool,
}

/// Appends to `out` the fields of message `msg` that `p` keeps, each projected field framed
/// by group markers so that different projections never give equal bytes; an `Own` field's
/// value goes to `own` (the last one, as protobuf keeps it). `None` when a field `Only`,
/// `Empty` or `Own` reads is not length-delimited, or a field is not as [`field`] reads it:
/// the whole decode says what is wrong. Runs of kept fields are copied at once.
fn project<'a>(
    out: &mut Vec<u8>,
    mut msg: &'a [u8],
    p: &Projection,
    own: &mut Option<&'a [u8]>,
) -> Option<()> {
    // Where the kept fields not yet copied start; they end where the current field starts.
    let mut run = msg;
    while !msg.is_empty() {
        let start = msg;
        let (tag, wire, body) = field(&mut msg)?;
        let keep = p.keep(tag);
        if matches!(keep, Keep::Whole) {
            continue;
        }
        // Dropped fields often follow one another: no copy of an empty run.
        if run.len() > start.len() {
            out.extend_from_slice(&run[..run.len() - start.len()]);
        }
        run = msg;
        match (keep, wire) {
            (Keep::Only(inner), LD_BYTE) => {
                encode_key(tag, WireType::StartGroup, out);
                project(out, body, inner, own)?;
                encode_key(tag, WireType::EndGroup, out);
            }
            (Keep::Empty, LD_BYTE) => {
                skip_all(body)?;
                encode_key(tag, WireType::LengthDelimited, out);
                encode_varint(0, out);
            }
            (Keep::Own, LD_BYTE) => *own = Some(body),
            (Keep::Only(_) | Keep::Empty | Keep::Own, _) => return None,
            (Keep::Drop | Keep::Whole, _) => {}
        }
    }
    out.extend_from_slice(run);
    Some(())
}

/// Steps over every field of a message, as decoding a message with no fields does (a
/// volume source is read for whether it is set, but its bytes must still be a message).
fn skip_all(mut msg: &[u8]) -> Option<()> {
    while !msg.is_empty() {
        field(&mut msg)?;
    }
    Some(())
}

const LD_BYTE: u8 = WireType::LengthDelimited as u8;

/// One field: its number, its wire type and, when length-delimited, its bytes; the buffer
/// moved past it. About 90 fields of a generated pod are read or stepped over here, so keys
/// and lengths of one or two bytes (fields 1 to 2047, values under 16 KiB: nearly all) are
/// read inline, the rest by prost. `None` for anything an API server does not write (groups,
/// a key or length that goes past the end) as for anything malformed: the caller then
/// decodes the pod whole, and prost either reads it or says what is wrong.
#[inline(always)]
fn field<'a>(buf: &mut &'a [u8]) -> Option<(u32, u8, &'a [u8])> {
    let Some((k, rest)) = short_varint(buf) else {
        return field_slow(buf);
    };
    let (tag, wire) = (k >> 3, (k & 7) as u8);
    if tag == 0 {
        return None;
    }
    match wire {
        LD_BYTE => match short_varint(rest) {
            Some((len, rest)) if len as usize <= rest.len() => {
                let (body, rest) = rest.split_at(len as usize);
                *buf = rest;
                Some((tag, wire, body))
            }
            _ => field_slow(buf),
        },
        0 => {
            // A varint: up to nine bytes here; ten (negative numbers) are checked by prost.
            match rest.iter().take(9).position(|b| b & 0x80 == 0) {
                Some(end) => {
                    *buf = &rest[end + 1..];
                    Some((tag, wire, &[]))
                }
                None => field_slow(buf),
            }
        }
        1 if rest.len() >= 8 => {
            *buf = &rest[8..];
            Some((tag, wire, &[]))
        }
        5 if rest.len() >= 4 => {
            *buf = &rest[4..];
            Some((tag, wire, &[]))
        }
        _ => None,
    }
}

/// [`field`] for multi-byte keys and lengths.
#[cold]
#[inline(never)]
fn field_slow<'a>(buf: &mut &'a [u8]) -> Option<(u32, u8, &'a [u8])> {
    let (tag, wire) = key(buf).ok()?;
    match wire {
        WireType::LengthDelimited => {
            let body = length_delimited(buf).ok()?;
            Some((tag, LD_BYTE, body))
        }
        WireType::Varint | WireType::SixtyFourBit | WireType::ThirtyTwoBit => {
            skip(wire, tag, buf).ok()?;
            Some((tag, wire as u8, &[]))
        }
        WireType::StartGroup | WireType::EndGroup => None,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::super::{
        PbCondition, PbContainer, PbContainerStatus, PbOwnerReference, PbPodStatus, PbSpec,
        PbVolume,
    };
    use super::*;

    /// The top-level fields of an encoded message that `p` does not keep.
    fn dropped(encoded: &[u8], p: &Projection) -> Vec<u32> {
        let mut buf = encoded;
        let mut out = Vec::new();
        while !buf.is_empty() {
            let (tag, wire) = key(&mut buf).expect("key");
            skip(wire, tag, &mut buf).expect("field");
            let keep = p
                .listed
                .iter()
                .find(|(t, _)| *t == tag)
                .map_or(&p.others, |(_, k)| k);
            if matches!(keep, Keep::Drop | Keep::Own) {
                out.push(tag);
            }
        }
        out
    }

    /// The field reader agrees with prost wherever it reads a field, and reads every field
    /// an API server writes: keys and lengths of one to three bytes, every wire type but
    /// groups. Anything else it leaves to prost (the whole decode), never reading it
    /// differently.
    #[test]
    fn fields_are_read_as_prost_reads_them() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};

        // prost's reading of one field, and prost's alone (nothing of this module's):
        // number, wire type, body (length-delimited), rest.
        fn prost_field(mut buf: &[u8]) -> Option<(u32, u8, Vec<u8>, Vec<u8>)> {
            use prost::encoding::{DecodeContext, decode_key, decode_varint, skip_field};
            let (tag, wire) = decode_key(&mut buf).ok()?;
            let body = match wire {
                WireType::LengthDelimited => {
                    let len = usize::try_from(decode_varint(&mut buf).ok()?).ok()?;
                    let (body, rest) = buf.split_at_checked(len)?;
                    buf = rest;
                    body.to_vec()
                }
                WireType::StartGroup | WireType::EndGroup => return None,
                _ => {
                    skip_field(wire, tag, &mut buf, DecodeContext::default()).ok()?;
                    Vec::new()
                }
            };
            Some((tag, wire as u8, body, buf.to_vec()))
        }
        fn ours(mut buf: &[u8]) -> Option<(u32, u8, Vec<u8>, Vec<u8>)> {
            let (tag, wire, body) = field(&mut buf)?;
            Some((tag, wire, body.to_vec(), buf.to_vec()))
        }
        // Well-formed fields of every wire type, tags and lengths of every key size.
        let written = (1u32..70_000, 0u8..6, 0usize..20_000, any::<u64>()).prop_map(
            |(tag, wire, len, value)| {
                let mut out = Vec::new();
                let wire = match wire {
                    0 => WireType::Varint,
                    1 => WireType::SixtyFourBit,
                    5 => WireType::ThirtyTwoBit,
                    _ => WireType::LengthDelimited,
                };
                encode_key(tag, wire, &mut out);
                match wire {
                    WireType::Varint => encode_varint(value, &mut out),
                    WireType::SixtyFourBit => out.extend_from_slice(&value.to_le_bytes()),
                    WireType::ThirtyTwoBit => out.extend_from_slice(&value.to_le_bytes()[..4]),
                    _ => {
                        encode_varint(len as u64, &mut out);
                        out.extend((0..len).map(|i| i as u8));
                    }
                }
                out.extend_from_slice(b"\x08\x01");
                out
            },
        );
        let mut runner = TestRunner::new(Config {
            cases: 2_000,
            failure_persistence: None,
            ..Config::default()
        });
        runner
            .run(&written, |bytes| {
                prop_assert_eq!(ours(&bytes), prost_field(&bytes));
                prop_assert!(ours(&bytes).is_some());
                // Cut anywhere inside the field, as a cut connection leaves it.
                let field_len = bytes.len() - 2;
                for cut in (0..field_len).rev().take(12).chain(0..field_len.min(4)) {
                    prop_assert_eq!(ours(&bytes[..cut]), None);
                    prop_assert_eq!(prost_field(&bytes[..cut]), None);
                }
                Ok(())
            })
            .unwrap();
        // Any bytes at all, cut anywhere: read as prost reads them, or left to it.
        runner
            .run(&proptest::collection::vec(any::<u8>(), 0..40), |bytes| {
                if let Some(f) = ours(&bytes) {
                    prop_assert_eq!(Some(f), prost_field(&bytes));
                }
                Ok(())
            })
            .unwrap();
        // Left to the whole decode: a group, a varint or a length past the end, field 0.
        for bytes in [
            &[0x0b, 0x0c][..],
            &[0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
            &[0x0a, 0x05, 1, 2],
            &[0x02, 0x00],
        ] {
            assert_eq!(ours(bytes), None, "{bytes:?}");
        }
    }

    fn s() -> Option<String> {
        Some("x".to_string())
    }

    /// Every field the messages read is in its template, so pods that differ in one never
    /// share a built part. The messages are written out whole (no `..Default::default()`):
    /// a field added to one does not compile here until it is set, and then fails this test
    /// until its projection keeps it.
    #[test]
    fn templates_keep_every_field_the_messages_read() {
        let quantity =
            || BTreeMap::from([("cpu".to_string(), super::super::PbQuantity { string: s() })]);
        let container = PbContainer {
            name: s(),
            image: s(),
            ports: vec![Default::default()],
            resources: Some(Default::default()),
            restart_policy: s(),
        };
        assert_eq!(
            dropped(&container.encode_to_vec(), &CONTAINER),
            [] as [u32; 0]
        );
        let status = PbContainerStatus {
            name: s(),
            allocated_resources: quantity(),
            resources: Some(Default::default()),
        };
        assert_eq!(
            dropped(&status.encode_to_vec(), &CONTAINER_STATUS),
            [] as [u32; 0]
        );
        let condition = PbCondition {
            type_: s(),
            reason: s(),
        };
        assert_eq!(
            dropped(&condition.encode_to_vec(), &CONDITION),
            [] as [u32; 0]
        );
        let pod_status = PbPodStatus {
            phase: s(),
            conditions: vec![condition],
            container_statuses: vec![status.clone()],
            init_container_statuses: vec![status],
        };
        assert_eq!(
            dropped(&pod_status.encode_to_vec(), &STATUS),
            [] as [u32; 0]
        );
        let volume = PbVolume {
            source: Some(Default::default()),
        };
        assert_eq!(dropped(&volume.encode_to_vec(), &VOLUME), [] as [u32; 0]);
        // The uid and blockOwnerDeletion are decoded for the slim form but not read by
        // `controller_of`.
        let owner = PbOwnerReference {
            kind: s(),
            name: s(),
            uid: s(),
            api_version: s(),
            controller: Some(true),
            block_owner_deletion: Some(true),
        };
        assert_eq!(dropped(&owner.encode_to_vec(), &OWNER), [4, 7]);
        let spec = PbSpec {
            volumes: vec![volume],
            containers: vec![container.clone()],
            node_selector: BTreeMap::from([("k".to_string(), "v".to_string())]),
            node_name: s(),
            affinity: Some(Default::default()),
            scheduler_name: s(),
            init_containers: vec![container],
            tolerations: vec![Default::default()],
            priority: Some(1),
            preemption_policy: s(),
            overhead: quantity(),
            topology_spread_constraints: vec![Default::default()],
            resource_claims: vec![Default::default()],
            resources: Some(Default::default()),
        };
        // The node is the pod's own, read apart from the template.
        assert_eq!(dropped(&spec.encode_to_vec(), &SPEC), [10]);
    }
}
