//! A page's pods built from the parts they share, without decoding each pod.
//!
//! A workload's replicas differ in their name, node, status times and the generated names of
//! their token volumes; the fields the compact pod is built from are otherwise equal. So each
//! pod is split, in place, into the fields that are its own (name, node, whether it is being
//! deleted, its labels and owner references) and its template key: the bytes of every other
//! field the build reads (its namespace, its spec but `nodeName`, the read parts of its
//! containers, volumes and status), as they are written. Equal bytes decode to equal values,
//! so pods with equal keys take one built template and their own fields; label sets and
//! owner lists are decoded once per page the same way.
//!
//! Replicas are listed one after the other, so each pod is matched against the last pod whose
//! template was built (a [`Pattern`]): where a pod's bytes are that pod's but for the fields
//! the key leaves out, its key is that pod's too. Only the fields where the bytes part are
//! read; the key itself is never made. A pod that does not match becomes the pattern, and
//! its template is built. Its label
//! fields and owner references are likewise compared with the last pod's, and when they are
//! the same bytes that pod's label set and controller are taken without a lookup.
//!
//! A new template is split the same way: its containers (but their names), tolerations and
//! status are what most of its decoding was, and workloads repeat them (few request sets and
//! images between them, and nearly all the same default tolerations). So a template whose
//! resources bytes an earlier template had, and whose tolerations bytes an earlier one had,
//! takes their built parts and decodes only its other fields, with its status's phase.
//!
//! Nothing here decides a value: every part is decoded by the same messages and built by the
//! same [`Pod::build`] as a whole pod, and anything not in the shape an API server writes
//! (a part given twice, a field of another wire type, text that is not UTF-8) is left to the
//! whole decode, which then says what is wrong. A template's first pod is decoded without its
//! metadata: its name, labels and owners would be dropped for each pod's own.
//!
//! The path sits behind one entry point, [`super::pod_frames`], and is checked against the
//! whole decode by a property test (`replicas_read_as_the_whole_decode`) on generated pages
//! with bytes changed: it reads each pod as the whole decode does, or leaves it to it.

use std::sync::Arc;

use foldhash::HashMap as FastMap;
use prost::Message;
use prost::encoding::{WireType, encode_key, encode_varint};

use super::messages::{PbMeta, PbPod, PbPodBody, PbPodStatus, PbSpec, PbTime, owner_reference};
use super::wire::{LD_BYTE, field, string_entry};
use crate::state::build::{Derived, TemplateParts, controller_of};
use crate::state::labels::Labels;
use crate::state::parts::PodParts;
use crate::state::pod::{ControllerRef, Pod, PodRef};
use crate::state::resources::PodResources;
use crate::state::spec::Time;
use crate::state::taints::Toleration;
use crate::state::volumes::PodVolume;

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
    /// Not kept, but length-delimited as the message reads it (its bytes are any): a
    /// per-pod value only some templates read, whose pods are then decoded whole.
    Framed,
    /// Only some of the field's own fields.
    Only(&'static Projection),
}

/// What a template keeps of a message: its listed fields as said, the others as `others`.
struct Projection {
    listed: &'static [(u32, Keep)],
    others: Keep,
    /// Bit `t` set when field `t` (under 64) is listed: most fields read are not.
    mask: u64,
    /// A field of the message, or of a message in it, is `Own`.
    own: bool,
}

impl Projection {
    const fn new(listed: &'static [(u32, Keep)], others: Keep) -> Projection {
        const fn own(k: &Keep) -> bool {
            match k {
                Keep::Own => true,
                Keep::Only(p) => p.own,
                Keep::Whole | Keep::Drop | Keep::Empty | Keep::Framed => false,
            }
        }
        let mut mask = 0u64;
        let mut holds_own = own(&others);
        let mut i = 0;
        while i < listed.len() {
            if listed[i].0 < 64 {
                mask |= 1 << listed[i].0;
            }
            holds_own |= own(&listed[i].1);
            i += 1;
        }
        Projection {
            listed,
            others,
            mask,
            own: holds_own,
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

/// `Volume`: which sources are set, and the fields the storage plugins compare of a claim's
/// and a disk's (GCE PD 3, EBS 4, iSCSI 8, PVC 10, RBD 11), and an image volume's (30). Its name is left out: it is
/// generated per pod for the token volume; a pod whose claim is named after a volume (a
/// generic ephemeral volume) is decoded whole instead (see [`SharedParts::pod`]).
const VOLUME: Projection = Projection::new(
    &[
        (1, Keep::Framed),
        (
            2,
            Keep::Only(&Projection::new(
                &[
                    (3, Keep::Whole),
                    (4, Keep::Whole),
                    (8, Keep::Whole),
                    (10, Keep::Whole),
                    (11, Keep::Whole),
                    (30, Keep::Whole),
                ],
                Keep::Empty,
            )),
        ),
    ],
    Keep::Drop,
);

/// `Container`: the fields `PbContainer` reads (name, image, ports, resources,
/// restartPolicy, restartPolicyRules); env and mounts name per-pod objects.
const CONTAINER: Projection = Projection::new(
    &[
        (1, Keep::Whole),
        (2, Keep::Whole),
        (6, Keep::Whole),
        (8, Keep::Whole),
        (24, Keep::Whole),
        (25, Keep::Whole),
    ],
    Keep::Drop,
);

/// `Container`, as a pod's resources read it: [`CONTAINER`] but the name, which is read
/// only for status resources (an in-place resize), matched to containers by name.
const CONTAINER_RESOURCES: Projection = Projection::new(
    &[
        (2, Keep::Whole),
        (6, Keep::Whole),
        (8, Keep::Whole),
        (24, Keep::Whole),
        (25, Keep::Whole),
    ],
    Keep::Drop,
);

/// `OwnerReference`: every field `PbOwnerReference` declares, though [`controller_of`] reads
/// only the kind, name, apiVersion and controller.
const OWNER: Projection = Projection::new(
    &[
        (1, Keep::Whole),
        (3, Keep::Whole),
        // The uid and blockOwnerDeletion are not read, but prost checks them (UTF-8, wire
        // type): a controller found by a key without them would take a pod prost refuses.
        // A workload's replicas name one owner, uid and all, so keeping them shares as much.
        (4, Keep::Whole),
        (5, Keep::Whole),
        (6, Keep::Whole),
        (7, Keep::Whole),
    ],
    Keep::Drop,
);

/// `PodStatus`: the fields `PbPodStatus` reads (phase, conditions, container statuses,
/// nominated node, claim statuses, pod-level resize status).
const STATUS: Projection = Projection::new(
    &[
        (1, Keep::Whole),
        (2, Keep::Only(&CONDITION)),
        (8, Keep::Only(&CONTAINER_STATUS)),
        (10, Keep::Only(&CONTAINER_STATUS)),
        (11, Keep::Whole),
        (15, Keep::Whole),
        (19, Keep::Whole),
        (20, Keep::Whole),
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

// Only the spec holds an own value (its node), at its top level: the messages inside a
// pattern's fields can then all be laid out lazily (`Msg::NOT_LAID`). A projection that put
// an own field inside one would still be right (it is laid out at once), but slower.
const _: () = assert!(
    SPEC.own
        && !VOLUME.own
        && !CONTAINER.own
        && !CONTAINER_RESOURCES.own
        && !OWNER.own
        && !STATUS.own
        && !CONDITION.own
        && !CONTAINER_STATUS.own
);

/// The parts of the pods of one page, by the bytes they were built from. Held for one page:
/// replicas are listed next to each other (by namespace and name), and the state shares
/// equal label sets across pages anyway.
#[derive(Default)]
pub(super) struct SharedParts {
    /// What is kept across pages: the parts templates share (their resources, their
    /// tolerations) and the node names read.
    kept: Kept,
    labels: FastMap<Box<[u8]>, Arc<Labels>>,
    controllers: FastMap<Box<[u8]>, Option<Arc<ControllerRef>>>,
    /// A new template's parts as [`SharedParts::split`] writes them.
    resources_key: Vec<u8>,
    tolerations_key: Vec<u8>,
    spec_rest: Vec<u8>,
    /// Templates built from parts kept from earlier ones (tests).
    #[cfg(test)]
    from_parts: usize,
    /// The last pod whose template was built, for the next ones to be matched against.
    last: Pattern,
    /// Pods matched to the last pod's pattern instead of having their key made.
    #[cfg(test)]
    matched: usize,
    labels_key: Vec<u8>,
    /// The owner references as written, and as projected to what is read.
    owners: Vec<u8>,
    owners_key: Vec<u8>,
    /// The last pod's label fields and owner references, and what they gave.
    last_labels: Last<Arc<Labels>>,
    last_owners: Last<Option<Arc<ControllerRef>>>,
    /// Pods whose label fields, and whose owner references, were the last pod's (tests).
    #[cfg(test)]
    same_metadata: (usize, usize),
}

impl SharedParts {
    /// Parts for a page, with what earlier pages kept.
    pub(super) fn new(kept: Kept) -> SharedParts {
        SharedParts {
            kept,
            ..SharedParts::default()
        }
    }

    /// What is kept for the next page.
    pub(super) fn into_kept(self) -> Kept {
        self.kept
    }

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
        let start_time = start_time(status)?;
        let node = self.template(bytes, &own, spec, status)?;
        let node_name = self.kept.node_names.get(node)?;
        let template = self.last.template.as_ref()?;
        // Its claim is `<pod>-<volume>`, and the key leaves the volume's name out.
        if template
            .template
            .storage
            .iter()
            .any(|v| matches!(v, PodVolume::Ephemeral { .. }))
        {
            return None;
        }
        Some(replica(
            template,
            Own { start_time, ..own },
            node_name,
            labels,
            controller,
        ))
    }

    /// Reads the pod's own metadata fields; its labels and owner references are gathered,
    /// as they are written, into their keys.
    fn metadata<'a>(&mut self, mut m: &'a [u8]) -> Option<Own<'a>> {
        let mut own = Own {
            name: "",
            namespace: None,
            namespace_value: None,
            terminating: false,
            start_time: None,
        };
        self.labels_key.clear();
        self.owners.clear();
        while !m.is_empty() {
            let start = m;
            let (tag, wire, body) = field(&mut m)?;
            if matches!(tag, 1 | 3 | 9 | 11 | 13) && wire != LD_BYTE {
                return None;
            }
            match tag {
                1 => own.name = std::str::from_utf8(body).ok()?,
                3 => {
                    own.namespace_value = Some(body);
                    own.namespace = Some(&start[..start.len() - m.len()]);
                }
                9 => {
                    PbTime::decode(body).ok()?;
                    own.terminating = true;
                }
                11 => self
                    .labels_key
                    .extend_from_slice(&start[..start.len() - m.len()]),
                13 => self
                    .owners
                    .extend_from_slice(&start[..start.len() - m.len()]),
                _ => {}
            }
        }
        Some(own)
    }

    /// The pod's node, its template (the pod built whole but for its own fields, which the
    /// caller replaces) left in the last pattern: the last pod's when the pod matches it,
    /// else built from this pod, which becomes the pattern.
    ///
    /// A template is not looked up among the page's earlier ones: replicas are listed one
    /// after the other, so a pod that does not match the last pattern nearly always starts
    /// a workload, and making, hashing and keeping its key for a look-up was a twentieth of
    /// decoding a page. A workload listed in two runs (names that interleave)
    /// has its template built twice, from the parts kept; equal templates read alike.
    fn template<'a>(
        &mut self,
        bytes: &[u8],
        own: &Own<'_>,
        spec: Option<&'a [u8]>,
        status: Option<&[u8]>,
    ) -> Option<&'a [u8]> {
        if let Some(node) = self.same_as_last(own, spec, status) {
            return Some(node);
        }
        // Another template: this pod becomes the pattern.
        let node = match self.last.lay_out(own, spec, status)? {
            Some((start, end)) => spec?.get(start..end)?,
            None => &[],
        };
        // Read as text here only: a pod matched to a template has that template's namespace
        // bytes, read when it was built.
        let namespace = match own.namespace_value {
            Some(ns) => Some(std::str::from_utf8(ns).ok()?.to_string()),
            None => None,
        };
        let mut metadata = Some(PbMeta {
            namespace,
            ..PbMeta::default()
        });
        let split = self.split(spec, status);
        let pod = match split.and_then(|phase| self.built_from_parts(&mut metadata, phase)) {
            Some(pod) => pod,
            None => {
                // Only what the pods take from their template is built: the metadata's name,
                // labels and owners would be dropped for each pod's own.
                let body = PbPodBody::decode(bytes).ok()?;
                let pod = Pod::build(
                    PodParts::from(PbPod {
                        metadata,
                        spec: body.spec,
                        status: body.status,
                    }),
                    Derived::Kept(&mut self.kept.parts),
                );
                if split.is_some() {
                    self.keep_parts(&pod);
                }
                pod
            }
        };
        self.last.template = Some(pod);
        Some(node)
    }

    /// Splits a new template's spec into what its resources are computed from (into
    /// `resources_key`: its containers but their names, its pod-level resources and
    /// overhead), its tolerations as written (`tolerations_key`) and its other fields
    /// (`spec_rest`), and reads its phase. The fields left out of `spec_rest` that are not
    /// in a key, and the status's, are checked as prost checks them (each one's wire type,
    /// text as UTF-8): the pod then builds as it decodes whole, or the whole decode says
    /// what is wrong. `None` when a container was resized in place (its status resources
    /// are matched to containers by name, which the key leaves out) or a field is not as an
    /// API server writes it; the template is then decoded whole, and its parts not kept.
    fn split<'s>(
        &mut self,
        spec: Option<&[u8]>,
        status: Option<&'s [u8]>,
    ) -> Option<Option<&'s str>> {
        fn text(wire: u8, body: &[u8]) -> Option<&str> {
            (wire == LD_BYTE).then_some(())?;
            std::str::from_utf8(body).ok()
        }
        self.resources_key.clear();
        self.tolerations_key.clear();
        self.spec_rest.clear();
        let mut spec = spec.unwrap_or_default();
        while !spec.is_empty() {
            let start = spec;
            let (tag, wire, body) = field(&mut spec)?;
            let whole = &start[..start.len() - spec.len()];
            match tag {
                2 | 20 => {
                    (wire == LD_BYTE).then_some(())?;
                    encode_key(tag, WireType::StartGroup, &mut self.resources_key);
                    let mut c = body;
                    while !c.is_empty() {
                        let start = c;
                        let (tag, wire, body) = field(&mut c)?;
                        match (tag, CONTAINER_RESOURCES.keep(tag)) {
                            (_, Keep::Whole) => self
                                .resources_key
                                .extend_from_slice(&start[..start.len() - c.len()]),
                            (1, _) => _ = text(wire, body)?,
                            _ => {}
                        }
                    }
                    encode_key(tag, WireType::EndGroup, &mut self.resources_key);
                }
                32 | 40 => self.resources_key.extend_from_slice(whole),
                22 => self.tolerations_key.extend_from_slice(whole),
                _ => self.spec_rest.extend_from_slice(whole),
            }
        }
        let mut phase = None;
        let mut status = status.unwrap_or_default();
        while !status.is_empty() {
            let (tag, wire, body) = field(&mut status)?;
            match tag {
                1 => phase = Some(text(wire, body)?),
                2 | 8 | 10 => {
                    (wire == LD_BYTE).then_some(())?;
                    let mut m = body;
                    while !m.is_empty() {
                        let (inner, wire, body) = field(&mut m)?;
                        match (tag, inner) {
                            // A condition's type and reason; a container status's name.
                            (2, 1 | 5) | (8 | 10, 1) => _ = text(wire, body)?,
                            // Resources in a container status: resized in place.
                            (8 | 10, 10 | 11) => return None,
                            _ => {}
                        }
                    }
                }
                // A pod nominated to a node (rare: preemption's) is decoded whole.
                11 => return None,
                _ => {}
            }
        }
        Some(phase)
    }

    /// A template built from what [`SharedParts::split`] left in `spec_rest` and `phase`,
    /// with the resources and tolerations an earlier template built from the same bytes;
    /// `None`, and `metadata` left, when no earlier one did.
    fn built_from_parts(
        &mut self,
        metadata: &mut Option<PbMeta>,
        phase: Option<&str>,
    ) -> Option<Pod> {
        let resources = self.kept.resources.get(&self.resources_key[..])?.clone();
        let tolerations = self
            .kept
            .tolerations
            .get(&self.tolerations_key[..])?
            .clone();
        let spec = PbSpec::decode(&self.spec_rest[..]).ok()?;
        let status = PbPodStatus {
            phase: phase.map(str::to_string),
            ..PbPodStatus::default()
        };
        #[cfg(test)]
        {
            self.from_parts += 1;
        }
        Some(Pod::build(
            PodParts::from(PbPod {
                metadata: metadata.take(),
                spec: Some(spec),
                status: Some(status),
            }),
            Derived::Given(resources, tolerations),
        ))
    }

    /// Keeps the resources and tolerations of a template built whole for the next
    /// templates split into the same bytes.
    fn keep_parts(&mut self, pod: &Pod) {
        let t = &pod.template;
        // A problem names its field: computed again for each template that has one.
        if t.resources.problems.is_empty() {
            // Kept from page to page, so bounded, as the resources memo is.
            if self.kept.resources.len() >= Kept::RESOURCES {
                self.kept.resources.clear();
            }
            self.kept
                .resources
                .insert(self.resources_key[..].into(), t.resources.clone());
        }
        if !self
            .kept
            .tolerations
            .contains_key(&self.tolerations_key[..])
        {
            if self.kept.tolerations.len() >= Kept::TOLERATIONS {
                self.kept.tolerations.clear();
            }
            self.kept
                .tolerations
                .insert(self.tolerations_key[..].into(), t.tolerations.clone());
        }
    }

    /// The pod's node, when the pod matches the last pattern: then its key is the last
    /// pod's (see [`Pattern`]), and so is its template.
    fn same_as_last<'a>(
        &mut self,
        own: &Own<'_>,
        spec: Option<&'a [u8]>,
        status: Option<&[u8]>,
    ) -> Option<&'a [u8]> {
        let last = &mut self.last;
        last.template.as_ref()?;
        if last.namespace.as_deref() != own.namespace {
            return None;
        }
        let mut node = None;
        let (spec_m, status_m) = (last.spec, last.status);
        if !(last.matches(spec_m, spec, &mut node) && last.matches(status_m, status, &mut None)) {
            return None;
        }
        let node = node.unwrap_or_default();
        #[cfg(test)]
        {
            self.matched += 1;
        }
        Some(node)
    }

    /// The pod's label set: the last pod's when its label fields are the same bytes (equal
    /// bytes decode to equal labels), else the page's copy for these bytes.
    fn labels(&mut self) -> Option<Arc<Labels>> {
        if let Some(labels) = self.last_labels.of(&self.labels_key) {
            #[cfg(test)]
            {
                self.same_metadata.0 += 1;
            }
            return Some(labels);
        }
        let labels = match self.labels.get(&self.labels_key[..]) {
            Some(l) => l.clone(),
            None => {
                // Read by [`string_entry`] (prost when it would not), as a node's labels.
                let prost = || PbMeta::decode(&self.labels_key[..]).ok().map(|m| m.labels);
                let labels: Arc<Labels> = Arc::new(match label_entries(&self.labels_key) {
                    Some(entries) => entries.into_iter().collect(),
                    None => prost()?.iter().map(|e| (&e.key, &e.value)).collect(),
                });
                self.labels
                    .insert(self.labels_key[..].into(), labels.clone());
                labels
            }
        };
        self.last_labels.keep(&mut self.labels_key, labels.clone());
        Some(labels)
    }

    /// The pod's controller: the last pod's when its owner references are the same bytes,
    /// else the page's for the references projected to the fields read (replicas that differ
    /// only in what is not read share it).
    fn controller(&mut self) -> Option<Option<Arc<ControllerRef>>> {
        if let Some(c) = self.last_owners.of(&self.owners) {
            #[cfg(test)]
            {
                self.same_metadata.1 += 1;
            }
            return Some(c);
        }
        let c = self.projected_controller()?;
        self.last_owners.keep(&mut self.owners, c.clone());
        Some(c)
    }

    /// The controller of the owner references in `owners`, looked up by their projection.
    fn projected_controller(&mut self) -> Option<Option<Arc<ControllerRef>>> {
        self.owners_key.clear();
        let mut owners = &self.owners[..];
        while !owners.is_empty() {
            let (_, _, body) = field(&mut owners)?;
            encode_key(13, WireType::StartGroup, &mut self.owners_key);
            project(&mut self.owners_key, body, &OWNER, &mut None)?;
            encode_key(13, WireType::EndGroup, &mut self.owners_key);
        }
        if let Some(c) = self.controllers.get(&self.owners_key[..]) {
            return Some(c.clone());
        }
        // Read by [`owners_controller`] (prost when it would not), as labels are.
        let prost = || {
            let owners = PbMeta::decode(&self.owners[..]).ok()?.owner_references;
            Some(controller_of(owners.into_iter().map(owner_reference)))
        };
        let c = match owners_controller(&self.owners) {
            Some(c) => c,
            None => prost()?,
        };
        self.controllers
            .insert(self.owners_key[..].into(), c.clone());
        Some(c)
    }
}

/// The entries of a pod's label fields (`ObjectMeta` field 11, as [`SharedParts::metadata`]
/// gathers them), in the order written; `None` for anything [`string_entry`] leaves to prost.
fn label_entries(mut fields: &[u8]) -> Option<Vec<(&str, &str)>> {
    let mut entries = Vec::new();
    while !fields.is_empty() {
        let (_, _, body) = field(&mut fields)?;
        entries.push(string_entry(body)?);
    }
    Some(entries)
}

/// The controller of a pod's owner references (`ObjectMeta` field 13, as
/// [`SharedParts::metadata`] gathers them), as [`controller_of`] finds it in the references
/// prost decodes: the first whose `controller` is true, with its kind, name and API version.
/// Each reference's strings are checked as prost checks them (the uid too), and only the
/// controller's are copied: prost made four strings of each reference, much of what the
/// first pod of a workload took beyond its template. `None` for anything [`field`] leaves to
/// prost, and for text that is not UTF-8, for prost to say what is wrong.
fn owners_controller(mut fields: &[u8]) -> Option<Option<Arc<ControllerRef>>> {
    let mut controller = None;
    while !fields.is_empty() {
        let (_, _, body) = field(&mut fields)?;
        let owner = owner_fields(body)?;
        if controller.is_none() && owner.controller {
            controller = Some(owner);
        }
    }
    Some(controller.map(|o| {
        Arc::new(ControllerRef {
            api_version: o.api_version.to_string(),
            kind: o.kind.to_string(),
            name: o.name.to_string(),
        })
    }))
}

/// What [`owners_controller`] reads of one `OwnerReference`.
struct OwnerFields<'a> {
    api_version: &'a str,
    kind: &'a str,
    name: &'a str,
    controller: bool,
}

/// The fields of one `OwnerReference` that `PbOwnerReference` declares, read as prost reads
/// them: the last value of a field given twice, a bool true when its varint is not 0.
fn owner_fields(mut m: &[u8]) -> Option<OwnerFields<'_>> {
    let mut owner = OwnerFields {
        api_version: "",
        kind: "",
        name: "",
        controller: false,
    };
    while !m.is_empty() {
        let start = m;
        let (tag, wire, body) = field(&mut m)?;
        let text = || std::str::from_utf8(body).ok();
        match (tag, wire) {
            (1, LD_BYTE) => owner.kind = text()?,
            (3, LD_BYTE) => owner.name = text()?,
            (4, LD_BYTE) => _ = text()?,
            (5, LD_BYTE) => owner.api_version = text()?,
            (6 | 7, 0) => {
                // The varint follows the key (one byte, unless written long).
                let key = start.iter().position(|b| b & 0x80 == 0)? + 1;
                let mut value = start.get(key..start.len() - m.len())?;
                let set = prost::encoding::decode_varint(&mut value).ok()? != 0;
                if tag == 6 {
                    owner.controller = set;
                }
            }
            (1 | 3..=7, _) => return None,
            _ => {}
        }
    }
    Some(owner)
}

/// One part of the last pod, as written, and what it gave. Replicas nearly always repeat
/// their label fields and owner references byte for byte, which a comparison tells without
/// projecting, hashing and looking them up.
struct Last<T>(Option<(Vec<u8>, T)>);

impl<T> Default for Last<T> {
    fn default() -> Self {
        Last(None)
    }
}

impl<T: Clone> Last<T> {
    /// What the last pod's part gave, when `bytes` are its bytes.
    fn of(&self, bytes: &[u8]) -> Option<T> {
        let (last, value) = self.0.as_ref()?;
        (last[..] == *bytes).then(|| value.clone())
    }

    /// Remembers what `bytes` gave; they are taken, and `bytes` is left with the bytes
    /// before them (cleared by the next pod).
    fn keep(&mut self, bytes: &mut Vec<u8>, value: T) {
        let mut kept = self.0.take().map(|(b, _)| b).unwrap_or_default();
        std::mem::swap(&mut kept, bytes);
        self.0 = Some((kept, value));
    }
}

/// The spec and status of the last pod whose template was built, laid out as fields, for
/// the pods after it to be matched against instead of having their keys made and looked
/// up. Replicas are listed one after the other and differ in few bytes, and making a key
/// reads some 90 fields a pod one by one, much of decoding a replica.
///
/// A pod matches when its bytes are the pattern's but inside the fields the key leaves out
/// (`Drop`, `Own`) and the bodies of `Empty` fields: then its key is the pattern's, since
/// the key is made of the other bytes. Equal stretches are found by comparing whole runs of
/// bytes: the pattern's fields wholly inside a stretch equal to the pod's are the pod's,
/// field for field and byte for byte (equal bytes read the same from the same place), so
/// only the fields where the bytes part are read one by one: a pod's IP, a condition's time,
/// a token volume's generated name. A pod that reads differently anywhere else (a field
/// more, less or of another number or wire type; a kept field with other bytes) does not
/// match, and becomes the pattern.
#[derive(Default, Clone)]
struct Pattern {
    /// The template built from the pattern; `None` before the first.
    template: Option<Pod>,
    /// The `namespace` field as written (it is in the key).
    namespace: Option<Vec<u8>>,
    /// The pod's spec, then its status, as written.
    bytes: Vec<u8>,
    /// The fields of every message laid out, each message's fields one after the other.
    fields: Vec<Laid>,
    spec: Option<Msg>,
    status: Option<Msg>,
}

/// A message in [`Pattern::bytes`] and its fields in [`Pattern::fields`], or
/// [`Msg::NOT_LAID`] until they are laid out.
#[derive(Clone, Copy)]
struct Msg {
    start: u32,
    end: u32,
    fields: (u32, u32),
}

impl Msg {
    /// The fields of a message inside a pattern's field, laid out only when a pod's bytes
    /// part inside it: replicas are mostly equal there (conditions, containers), and laying
    /// out every message of a new pattern showed in the decoding of a page.
    const NOT_LAID: (u32, u32) = (u32::MAX, u32::MAX);

    fn is_laid(&self) -> bool {
        self.fields != Msg::NOT_LAID
    }
}

/// One field of a laid-out message: where it lies (key, length and body), and what the key
/// keeps of it.
#[derive(Clone, Copy)]
struct Laid {
    tag: u32,
    wire: u8,
    start: u32,
    end: u32,
    how: How,
    /// The field is or holds the pod's own value: it is read even where the bytes are equal.
    own: bool,
}

/// [`Keep`], laid out: what a pod's field must be where its bytes are not the pattern's.
#[derive(Clone, Copy)]
enum How {
    /// Kept whole: the pod does not match.
    Whole,
    /// Anything: not read.
    Drop,
    /// The pod's own value, read.
    Own,
    /// Any message: only its presence is kept.
    Empty,
    /// Matched field by field against the laid-out message (its projection, until then).
    Only(&'static Projection, Msg),
}

impl Pattern {
    /// Lays out a pod as the pattern (its template to be set by the caller): where its node
    /// lies in its spec, if it has one; `None`, and no pattern, for a pod [`project`] would
    /// not read either (as far as its messages are laid out: a message laid out later that
    /// does not read matches no pod).
    fn lay_out(
        &mut self,
        own: &Own<'_>,
        spec: Option<&[u8]>,
        status: Option<&[u8]>,
    ) -> Option<Option<(usize, usize)>> {
        self.template = None;
        self.bytes.clear();
        self.fields.clear();
        let mut node = None;
        if let Some(spec) = spec {
            self.bytes.extend_from_slice(spec);
            let end = self.bytes.len();
            self.spec = Some(lay_out(&self.bytes, 0, end, &SPEC, &mut self.fields, &mut node)?.0);
        } else {
            self.spec = None;
        }
        if let Some(status) = status {
            let start = self.bytes.len();
            self.bytes.extend_from_slice(status);
            let end = self.bytes.len();
            let laid = lay_out(
                &self.bytes,
                start,
                end,
                &STATUS,
                &mut self.fields,
                &mut None,
            )?;
            self.status = Some(laid.0);
        } else {
            self.status = None;
        }
        self.namespace = own.namespace.map(<[u8]>::to_vec);
        Some(node)
    }

    /// The message in field `i`, its fields laid out if they were not yet (see
    /// [`Msg::NOT_LAID`]); `None` when they do not read as [`project`] reads them (the pod
    /// then does not match: it would have no key).
    fn lay_out_field(&mut self, i: usize) -> Option<Msg> {
        let How::Only(p, inner) = self.fields[i].how else {
            return None;
        };
        if inner.is_laid() {
            return Some(inner);
        }
        let (start, end) = (inner.start as usize, inner.end as usize);
        // Messages holding an own field are laid out at once (see `lay_out`).
        let (laid, _) = lay_out(&self.bytes, start, end, p, &mut self.fields, &mut None)?;
        self.fields[i].how = How::Only(p, laid);
        Some(laid)
    }

    /// Whether `pod` (a message, or its absence) matches the pattern's message `m`; the
    /// pod's own value goes to `own`.
    fn matches<'a>(
        &mut self,
        m: Option<Msg>,
        pod: Option<&'a [u8]>,
        own: &mut Option<&'a [u8]>,
    ) -> bool {
        match (m, pod) {
            (None, None) => true,
            (Some(m), Some(pod)) => self.message(m, pod, own),
            _ => false,
        }
    }

    fn message<'a>(&mut self, m: Msg, mut pod: &'a [u8], own: &mut Option<&'a [u8]>) -> bool {
        let (mut i, end) = (m.fields.0 as usize, m.fields.1 as usize);
        // Where field `i` starts in the pattern; the pod is read from the same place on.
        let mut at = m.start as usize;
        loop {
            let equal = at + common_prefix(&self.bytes[at..m.end as usize], pod);
            while i < end && self.fields[i].end as usize <= equal && !self.fields[i].own {
                i += 1;
            }
            let next = if i < end { self.fields[i].start } else { m.end };
            pod = &pod[next as usize - at..];
            if i == end {
                return pod.is_empty();
            }
            let f = self.fields[i];
            let Some((tag, wire, body)) = field(&mut pod) else {
                return false;
            };
            if (tag, wire) != (f.tag, f.wire) {
                return false;
            }
            let read = match f.how {
                // The bytes part inside the field (an own field may also be equal).
                How::Whole => false,
                How::Drop => true,
                How::Own => {
                    *own = Some(body);
                    true
                }
                How::Empty => skip_all(body).is_some(),
                How::Only(..) => match self.lay_out_field(i) {
                    Some(inner) => self.message(inner, body, own),
                    None => false,
                },
            };
            if !read {
                return false;
            }
            i += 1;
            at = f.end as usize;
        }
    }
}

/// Lays out the fields of the message `bytes[start..end]` as `p` projects it (the same
/// checks as [`project`]): the message, and whether it holds an own value, whose place (the
/// last one's, as protobuf keeps it) goes to `node`. The messages in its fields are laid
/// out when a pod first needs them ([`Msg::NOT_LAID`]), but for those holding an own value.
fn lay_out(
    bytes: &[u8],
    start: usize,
    end: usize,
    p: &'static Projection,
    fields: &mut Vec<Laid>,
    node: &mut Option<(usize, usize)>,
) -> Option<(Msg, bool)> {
    let first = fields.len();
    let mut buf = &bytes[start..end];
    let offset = |s: &[u8]| u32::try_from(end - s.len()).ok();
    while !buf.is_empty() {
        let field_start = offset(buf)?;
        let (tag, wire, body) = field(&mut buf)?;
        let body_end = offset(buf)?;
        let body_start = body_end - u32::try_from(body.len()).ok()?;
        let inner = Msg {
            start: body_start,
            end: body_end,
            fields: Msg::NOT_LAID,
        };
        let (how, own) = match (p.keep(tag), wire) {
            (Keep::Whole, _) => (How::Whole, false),
            (Keep::Drop, _) | (Keep::Framed, LD_BYTE) => (How::Drop, false),
            (Keep::Own, LD_BYTE) => {
                *node = Some((body_start as usize, body_end as usize));
                (How::Own, true)
            }
            (Keep::Empty, LD_BYTE) => {
                skip_all(body)?;
                (How::Empty, false)
            }
            (Keep::Only(inner_p), LD_BYTE) => (How::Only(inner_p, inner), false),
            (Keep::Own | Keep::Empty | Keep::Only(_) | Keep::Framed, _) => return None,
        };
        fields.push(Laid {
            tag,
            wire,
            start: field_start,
            end: body_end,
            how,
            own,
        });
    }
    let last = fields.len();
    let mut holds_own = false;
    for i in first..last {
        // A message holding an own field is laid out now: the own value is read from every
        // pod, where the bytes are equal too.
        if let How::Only(inner_p, inner) = fields[i].how
            && inner_p.own
        {
            let (laid, own) = lay_out(
                bytes,
                inner.start as usize,
                inner.end as usize,
                inner_p,
                fields,
                node,
            )?;
            fields[i].how = How::Only(inner_p, laid);
            fields[i].own = own;
        }
        holds_own |= fields[i].own;
    }
    let msg = Msg {
        start: u32::try_from(start).ok()?,
        end: u32::try_from(end).ok()?,
        fields: (u32::try_from(first).ok()?, u32::try_from(last).ok()?),
    };
    Some((msg, holds_own))
}

/// How many bytes `a` and `b` have equal from their start, 16 at a time, then 8, then one
/// at a time.
#[inline]
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut i = 0;
    while i + 16 <= n {
        let x = u128::from_le_bytes(a[i..i + 16].try_into().expect("16 bytes"))
            ^ u128::from_le_bytes(b[i..i + 16].try_into().expect("16 bytes"));
        if x != 0 {
            return i + (x.trailing_zeros() / 8) as usize;
        }
        i += 16;
    }
    if i + 8 <= n {
        let x = u64::from_le_bytes(a[i..i + 8].try_into().expect("8 bytes"))
            ^ u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        if x != 0 {
            return i + (x.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// What a decoding thread keeps from page to page.
#[derive(Default)]
pub(super) struct Kept {
    parts: TemplateParts,
    node_names: NodeNames,
    /// Templates' resources by the bytes they are computed from, and their tolerations by
    /// the bytes as written (see [`SharedParts::split`]). Every toleration set read, not
    /// only the last: workloads with and without a toleration of their own alternate, and
    /// one copy a set per thread, held here for the run, is what the state keeps as given
    /// (see `ClusterState::share_template`), where a copy per switch made the fold copy
    /// nearly every template to swap its set for the state's own.
    resources: FastMap<Box<[u8]>, Arc<PodResources>>,
    tolerations: FastMap<Box<[u8]>, Arc<[Toleration]>>,
}

impl Kept {
    /// Resources kept at most: a cluster whose every workload asks for other requests or
    /// images reads them again past it.
    const RESOURCES: usize = 1024;
    /// Toleration sets kept at most, likewise.
    const TOLERATIONS: usize = 1024;
}

/// The node names pods are bound to, each read as text once and then shared by every pod
/// that names it: a cluster has far fewer nodes than pods, and checking and copying each
/// pod's node name showed in the decoding of a page.
#[derive(Default)]
struct NodeNames(FastMap<Box<[u8]>, Arc<str>>);

impl NodeNames {
    /// More names than any cluster has nodes: past it the names are read again.
    const MAX: usize = 1 << 16;

    /// The name for `bytes`; `None` when they are not UTF-8 (prost then says so).
    fn get(&mut self, bytes: &[u8]) -> Option<Arc<str>> {
        if let Some(name) = self.0.get(bytes) {
            return Some(name.clone());
        }
        let name: Arc<str> = Arc::from(std::str::from_utf8(bytes).ok()?);
        if self.0.len() >= Self::MAX {
            self.0.clear();
        }
        self.0.insert(bytes.into(), name.clone());
        Some(name)
    }
}

/// The fields of a pod's metadata that are its own.
struct Own<'a> {
    name: &'a str,
    /// The whole `namespace` field, key included: it goes into the template (pod affinity
    /// terms without namespaces mean the pod's own).
    namespace: Option<&'a [u8]>,
    /// Its value, as written (see [`SharedParts::template`]).
    namespace_value: Option<&'a [u8]>,
    terminating: bool,
    /// `status.startTime` (which the template leaves out with the status's other times).
    start_time: Option<i64>,
}

/// The pod's `status.startTime` (field 7), read from its status as written; `None` when a
/// field is not as an API server writes it (the whole decode then says what is wrong).
fn start_time(status: Option<&[u8]>) -> Option<Option<i64>> {
    let mut status = status.unwrap_or_default();
    let mut time = None;
    while !status.is_empty() {
        let (tag, wire, body) = field(&mut status)?;
        if tag == 7 {
            (wire == LD_BYTE).then_some(())?;
            time = Some(PbTime::decode(body).ok()?.to_time()?);
        }
    }
    Some(time.as_ref().map(Time::unix_nanos))
}

/// A pod of template `t` with its own name, node, deletion, start, labels and controller.
fn replica(
    t: &Pod,
    own: Own<'_>,
    node_name: Arc<str>,
    labels: Arc<Labels>,
    controller: Option<Arc<ControllerRef>>,
) -> Pod {
    // Built field by field rather than cloned and overwritten: a field added to `Pod` does
    // not compile here until it is said to be the pod's own or the template's.
    Pod {
        id: Arc::new(PodRef {
            namespace: t.id.namespace.clone(),
            name: own.name.into(),
        }),
        labels,
        node_name,
        terminating: own.terminating,
        start_time: own.start_time,
        controller,
        template: t.template.clone(),
    }
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
            (Keep::Framed, LD_BYTE) => {}
            (Keep::Only(_) | Keep::Empty | Keep::Own | Keep::Framed, _) => return None,
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

#[cfg(test)]
mod tests {
    use super::super::messages::{
        PbCondition, PbContainer, PbContainerStatus, PbOwnerReference, PbPodStatus, PbSpec,
        PbVolume,
    };
    use super::*;
    use crate::state::decode::protobuf::wire::{key, skip};

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
            if matches!(keep, Keep::Drop | Keep::Own | Keep::Framed) {
                out.push(tag);
            }
        }
        out
    }

    #[test]
    fn common_prefix_finds_the_first_differing_byte() {
        for len in 0..50 {
            let a: Vec<u8> = (0..len).map(|i| i as u8).collect();
            assert_eq!(common_prefix(&a, &a), len, "equal, {len} bytes");
            for at in 0..len {
                let mut b = a.clone();
                b[at] ^= 0x80;
                assert_eq!(common_prefix(&a, &b), at, "{len} bytes, differing at {at}");
                assert_eq!(common_prefix(&a[..at], &b), at, "one a prefix of the other");
            }
        }
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

    /// `M` with every field it declares set, none of them named: each field number is
    /// written once in the first wire type `M` takes and keeps (an empty length-delimited
    /// value, else a varint), and what `M` reads of them is `M`. A field a message gains is
    /// set here as soon as it is declared.
    fn every_field<M: Message + Default>() -> M {
        let mut bytes = Vec::new();
        for tag in 1..64 {
            let mut empty = Vec::new();
            encode_key(tag, WireType::LengthDelimited, &mut empty);
            encode_varint(0, &mut empty);
            let mut one = Vec::new();
            encode_key(tag, WireType::Varint, &mut one);
            encode_varint(1, &mut one);
            let kept = [empty, one]
                .into_iter()
                .find(|field| M::decode(&field[..]).is_ok_and(|m| !m.encode_to_vec().is_empty()));
            bytes.extend(kept.into_iter().flatten());
        }
        M::decode(&bytes[..]).expect("every field")
    }

    /// Every field the messages read is in its template, so pods that differ in one never
    /// share a built part: a field added to a message is set by [`every_field`], and fails
    /// this test until its projection keeps it.
    #[test]
    fn templates_keep_every_field_the_messages_read() {
        let none = [] as [u32; 0];
        let container = every_field::<PbContainer>().encode_to_vec();
        assert_eq!(dropped(&container, &CONTAINER), none);
        assert_eq!(dropped(&container, &CONTAINER_RESOURCES), [1]);
        let status = every_field::<PbContainerStatus>().encode_to_vec();
        assert_eq!(dropped(&status, &CONTAINER_STATUS), none);
        let condition = every_field::<PbCondition>().encode_to_vec();
        assert_eq!(dropped(&condition, &CONDITION), none);
        // The start time is the pod's own, read apart from the template (`start_time`).
        let pod_status = every_field::<PbPodStatus>().encode_to_vec();
        assert_eq!(dropped(&pod_status, &STATUS), [7]);
        // The name is left out of the key (a generic ephemeral volume's pod is decoded whole).
        let volume = every_field::<PbVolume>().encode_to_vec();
        assert_eq!(dropped(&volume, &VOLUME), [1]);
        // Every field prost checks is kept, the uid and blockOwnerDeletion too, though
        // `controller_of` reads neither.
        let owner = every_field::<PbOwnerReference>().encode_to_vec();
        assert_eq!(dropped(&owner, &OWNER), none);
        // The node is the pod's own, read apart from the template.
        let spec = every_field::<PbSpec>().encode_to_vec();
        assert_eq!(dropped(&spec, &SPEC), [10]);
        // The fields are set, of every wire type (priority, 25, is a varint).
        let tags = |mut buf: &[u8]| {
            let mut tags = Vec::new();
            while !buf.is_empty() {
                let (tag, wire) = key(&mut buf).expect("key");
                skip(wire, tag, &mut buf).expect("field");
                tags.push(tag);
            }
            tags
        };
        let (spec, container) = (tags(&spec), tags(&container));
        for tag in [1, 2, 7, 10, 18, 22, 25, 31, 40] {
            assert!(spec.contains(&tag), "{tag} in {spec:?}");
        }
        assert!([1, 2, 6, 8, 24].iter().all(|t| container.contains(t)));
    }

    // An own field is seen through `Only`, however deep (`Projection::own`).
    const _: () = {
        const INNER: Projection = Projection::new(&[(3, Keep::Own)], Keep::Drop);
        const OUTER: Projection = Projection::new(&[(1, Keep::Only(&INNER))], Keep::Whole);
        assert!(INNER.own && OUTER.own && !VOLUME.own);
    };

    /// A pod as an API server writes it, with its own values and one read value (`cpu`).
    fn replica(name: &str, node: &str, ip: &str, restarts: i32, cpu: &str) -> Vec<u8> {
        use k8s_pb::api::core::v1 as pb;
        use k8s_pb::apimachinery::pkg::api::resource::Quantity;
        use k8s_pb::apimachinery::pkg::apis::meta::v1 as pbmeta;
        let token = format!("kube-api-access-{name}");
        let time = |seconds| pbmeta::Time {
            seconds: Some(seconds),
            nanos: Some(0),
        };
        pb::Pod {
            metadata: Some(pbmeta::ObjectMeta {
                name: Some(name.to_string()),
                namespace: Some("shop".to_string()),
                uid: Some(format!("uid-{name}")),
                labels: [("app".to_string(), "web".to_string())].into(),
                ..Default::default()
            }),
            spec: Some(pb::PodSpec {
                volumes: vec![pb::Volume {
                    name: Some(token.clone()),
                    volume_source: Some(pb::VolumeSource {
                        projected: Some(pb::ProjectedVolumeSource {
                            default_mode: Some(420),
                            ..Default::default()
                        }),
                        ..Default::default()
                    }),
                }],
                containers: vec![pb::Container {
                    name: Some("web".to_string()),
                    image: Some("nginx:1".to_string()),
                    volume_mounts: vec![pb::VolumeMount {
                        name: Some(token),
                        mount_path: Some("/var/run/secrets".to_string()),
                        ..Default::default()
                    }],
                    resources: Some(pb::ResourceRequirements {
                        requests: [(
                            "cpu".to_string(),
                            Quantity {
                                string: Some(cpu.to_string()),
                            },
                        )]
                        .into(),
                        ..Default::default()
                    }),
                    ..Default::default()
                }],
                node_name: Some(node.to_string()),
                scheduler_name: Some("default-scheduler".to_string()),
                ..Default::default()
            }),
            status: Some(pb::PodStatus {
                phase: Some("Running".to_string()),
                conditions: vec![pb::PodCondition {
                    r#type: Some("Ready".to_string()),
                    status: Some("True".to_string()),
                    last_transition_time: Some(time(1_700_000_000 + i64::from(restarts))),
                    ..Default::default()
                }],
                pod_ip: Some(ip.to_string()),
                container_statuses: vec![pb::ContainerStatus {
                    name: Some("web".to_string()),
                    restart_count: Some(restarts),
                    container_id: Some(format!("containerd://{name}")),
                    ..Default::default()
                }],
                ..Default::default()
            }),
        }
        .encode_to_vec()
    }

    /// Replicas are matched to the last pattern however their own values differ (in length
    /// too); a pod that differs in a read field, or has a field more, becomes the pattern.
    /// Each pod is built as it is decoded whole.
    #[test]
    fn replicas_are_matched_to_the_last_pattern_and_others_laid_out() {
        let pods = [
            (replica("web-a", "n1", "10.0.0.1", 0, "100m"), false),
            // Another node, IP, token name, time, container id and restart count: matched.
            (
                replica("web-bb", "node-22", "10.0.100.200", 3, "100m"),
                true,
            ),
            // Matched to the pattern (web-a's) as well: it is replaced only by a pod not matched.
            (replica("web-cc", "node-22", "10.0.0.3", 200, "100m"), true),
            // A read field differs: the pattern, a template of its own.
            (replica("web-d", "n1", "10.0.0.4", 0, "200m"), false),
            // The same node as the pattern's (now web-d's): read where the bytes are equal.
            (replica("web-e", "n1", "10.0.0.5", 0, "200m"), true),
            // Back to the first template: not matched, its template built again.
            (replica("web-f", "n1", "10.0.0.6", 0, "100m"), false),
        ];
        let mut parts = SharedParts::default();
        let mut matched = 0;
        let mut built = Vec::new();
        for (i, (bytes, is_match)) in pods.iter().enumerate() {
            let pod = parts.pod(bytes).expect("read");
            let alone = Pod::from_parts(PodParts::from(PbPod::decode(&bytes[..]).expect("pod")));
            assert_eq!(format!("{pod:?}"), format!("{alone:?}"), "pod {i}");
            matched += usize::from(*is_match);
            assert_eq!(parts.matched, matched, "pod {i}");
            built.push(pod);
        }
        // Replicas matched share the template; a pod not matched has its own.
        assert!(Arc::ptr_eq(&built[2].template, &built[0].template));
        assert!(Arc::ptr_eq(&built[4].template, &built[3].template));
        assert!(!Arc::ptr_eq(&built[5].template, &built[0].template));
        let template = |i: usize| format!("{:?}", built[i].template);
        assert_eq!(template(5), template(0));
        assert_ne!(template(3), template(0));
        // A dropped status field more (message): not matched, an equal template.
        let with_extra =
            insert_status_field(&replica("web-g", "n1", "10.0.0.7", 0, "100m"), 3, b"n9");
        let pod = parts.pod(&with_extra).expect("read");
        assert_eq!(parts.matched, matched, "a field more is not matched");
        assert_eq!(format!("{:?}", pod.template), template(0));
        // A nominated node (read): not matched, the pod built as it decodes whole.
        let nominated =
            insert_status_field(&replica("web-n", "n1", "10.0.0.9", 0, "100m"), 11, b"n9");
        let pod = parts.pod(&nominated).expect("read");
        let alone = Pod::from_parts(PodParts::from(PbPod::decode(&nominated[..]).expect("pod")));
        assert_eq!(format!("{pod:?}"), format!("{alone:?}"));
        assert_eq!(pod.template.nominated_node_name.as_deref(), Some("n9"));
        assert_eq!(parts.matched, matched, "a nominated pod is not matched");
        parts.pod(&with_extra).expect("read");
        // The token volume's projected source, of which only the presence is kept: other
        // contents match; contents that are not a message match nothing, and the pod
        // builds as it decodes whole (which steps over a projected source unread).
        let plain = replica("web-h", "n1", "10.0.0.8", 0, "100m");
        let mode = [0x10, 0xa4, 0x03]; // defaultMode (field 2) 420
        let other_mode = patched(&plain, &mode, &[0x10, 0x80, 0x03]);
        parts.pod(&plain).expect("read");
        assert_eq!(
            parts.matched, matched,
            "without web-g's field more: not matched"
        );
        let pod = parts.pod(&other_mode).expect("read");
        let alone = Pod::from_parts(PodParts::from(PbPod::decode(&other_mode[..]).expect("pod")));
        assert_eq!(format!("{pod:?}"), format!("{alone:?}"));
        assert_eq!(
            parts.matched,
            matched + 1,
            "other contents of a kept presence"
        );
        let broken = patched(&plain, &mode, &[0x17, 0x00, 0x00]); // wire type 7
        let pod = parts.pod(&broken).expect("read");
        let alone = Pod::from_parts(PodParts::from(
            PbPod::decode(&broken[..]).expect("read whole"),
        ));
        assert_eq!(format!("{pod:?}"), format!("{alone:?}"));
        assert_eq!(
            parts.matched,
            matched + 1,
            "contents that are not a message"
        );
        // It is the pattern now: its replica matches it where the bytes are equal, and one
        // whose broken source differs does not (its source cannot be laid out).
        parts.pod(&broken).expect("read");
        assert_eq!(parts.matched, matched + 2, "the same bytes");
        let broken_other = patched(&plain, &mode, &[0x17, 0x01, 0x00]);
        let pod = parts.pod(&broken_other).expect("read");
        let alone = Pod::from_parts(PodParts::from(
            PbPod::decode(&broken_other[..]).expect("whole"),
        ));
        assert_eq!(format!("{pod:?}"), format!("{alone:?}"));
        assert_eq!(parts.matched, matched + 2, "other broken contents");
    }

    /// A workload's first pod, its own container name and label, the image, cpu request
    /// and toleration given; `resized` gives its container status allocated resources.
    fn workload(
        app: &str,
        image: &str,
        cpu: &str,
        toleration: Option<&str>,
        resized: bool,
    ) -> Vec<u8> {
        use k8s_pb::api::core::v1 as pb;
        use k8s_pb::apimachinery::pkg::api::resource::Quantity;
        use k8s_pb::apimachinery::pkg::apis::meta::v1 as pbmeta;
        let cpu = || {
            [(
                "cpu".to_string(),
                Quantity {
                    string: Some(cpu.to_string()),
                },
            )]
            .into()
        };
        pb::Pod {
            metadata: Some(pbmeta::ObjectMeta {
                name: Some(format!("{app}-0")),
                namespace: Some("shop".to_string()),
                labels: [("app".to_string(), app.to_string())].into(),
                ..Default::default()
            }),
            spec: Some(pb::PodSpec {
                containers: vec![pb::Container {
                    name: Some(app.to_string()),
                    image: Some(image.to_string()),
                    resources: Some(pb::ResourceRequirements {
                        requests: cpu(),
                        ..Default::default()
                    }),
                    ..Default::default()
                }],
                node_name: Some("n1".to_string()),
                scheduler_name: Some("default-scheduler".to_string()),
                priority: Some(7),
                tolerations: toleration
                    .map(|key| pb::Toleration {
                        key: Some(key.to_string()),
                        operator: Some("Exists".to_string()),
                        ..Default::default()
                    })
                    .into_iter()
                    .collect(),
                ..Default::default()
            }),
            status: Some(pb::PodStatus {
                phase: Some("Pending".to_string()),
                conditions: vec![pb::PodCondition {
                    r#type: Some("PodScheduled".to_string()),
                    reason: Some("Unschedulable".to_string()),
                    ..Default::default()
                }],
                container_statuses: vec![pb::ContainerStatus {
                    name: Some(app.to_string()),
                    allocated_resources: if resized { cpu() } else { Default::default() },
                    ..Default::default()
                }],
                ..Default::default()
            }),
        }
        .encode_to_vec()
    }

    /// A template whose containers (but their names), pod-level resources and overhead are
    /// an earlier template's bytes, and whose tolerations are an earlier template's, takes
    /// their built resources and tolerations and decodes only its other fields; each pod is
    /// built as it is decoded whole. Containers resized in place are not shared, and a field
    /// left unread that prost would refuse is left to the whole decode.
    #[test]
    fn templates_take_the_resources_and_tolerations_built_from_the_same_bytes() {
        let pods = [
            // Nothing kept yet: built whole.
            (workload("a", "nginx:1", "100m", None, false), 0),
            // Another container name, the same image and requests.
            (workload("b", "nginx:1", "100m", None, false), 1),
            // Another image: built whole.
            (workload("c", "nginx:2", "100m", None, false), 1),
            // Tolerations no template had: built whole.
            (workload("d", "nginx:1", "100m", Some("t"), false), 1),
            // a's resources (kept past c's), d's tolerations.
            (workload("e", "nginx:1", "100m", Some("t"), false), 2),
            // Resized in place: built whole, whatever was kept.
            (workload("f", "nginx:1", "100m", Some("t"), true), 2),
            (workload("g", "nginx:1", "100m", Some("t"), false), 3),
            // Other requests.
            (workload("h", "nginx:1", "200m", Some("t"), false), 3),
        ];
        let mut parts = SharedParts::default();
        let mut built = Vec::new();
        for (i, (bytes, from_parts)) in pods.iter().enumerate() {
            let pod = parts.pod(bytes).expect("read");
            let alone = Pod::from_parts(PodParts::from(PbPod::decode(&bytes[..]).expect("pod")));
            assert_eq!(format!("{pod:?}"), format!("{alone:?}"), "pod {i}");
            assert_eq!(parts.from_parts, *from_parts, "pod {i}");
            built.push(pod);
        }
        let resources = |i: usize| &built[i].template.resources;
        let tolerations = |i: usize| &built[i].template.tolerations;
        assert!(Arc::ptr_eq(resources(1), resources(0)));
        assert!(Arc::ptr_eq(resources(4), resources(0)));
        assert!(Arc::ptr_eq(tolerations(4), tolerations(3)));
        assert!(Arc::ptr_eq(tolerations(6), tolerations(3)));
        assert_eq!(resources(2).images, ["nginx:2"]);
        assert_eq!(resources(7).requests.milli_cpu, 200);
        // A condition's type is read by prost, which refuses text that is not UTF-8.
        let good = workload("i", "nginx:1", "100m", Some("t"), false);
        let broken = patched(&good, b"PodScheduled", b"PodSchedul\xff\xfe");
        assert!(parts.pod(&broken).is_none(), "left to the whole decode");
        assert!(PbPod::decode(&broken[..]).is_err());
        assert_eq!(parts.from_parts, 3);
        parts.pod(&good).expect("read");
        assert_eq!(parts.from_parts, 4);
        // Back to a's tolerations after five templates with others: every set read is kept,
        // not only the last.
        let back = parts
            .pod(&workload("j", "nginx:1", "100m", None, false))
            .expect("read");
        assert_eq!(parts.from_parts, 5);
        assert!(Arc::ptr_eq(&back.template.tolerations, tolerations(0)));
    }

    /// The resources kept by their bytes are bounded, and a template whose entry was
    /// cleared is built whole again, right.
    #[test]
    fn resources_kept_by_bytes_stay_bounded_and_right() {
        let mut parts = SharedParts::default();
        for i in 0..Kept::RESOURCES + 10 {
            let image = format!("nginx:{i}");
            let bytes = workload(&format!("w{i}"), &image, "100m", None, false);
            let pod = parts.pod(&bytes).expect("read");
            assert_eq!(pod.template.resources.images, [image]);
            assert!(parts.kept.resources.len() <= Kept::RESOURCES);
        }
        assert_eq!(parts.from_parts, 0, "every image another");
        let again = workload("again", "nginx:0", "100m", None, false);
        let pod = parts.pod(&again).expect("read");
        let alone = Pod::from_parts(PodParts::from(PbPod::decode(&again[..]).expect("pod")));
        assert_eq!(format!("{pod:?}"), format!("{alone:?}"));
        assert_eq!(parts.from_parts, 0, "cleared: built whole");
        let last = workload(
            "last",
            &format!("nginx:{}", Kept::RESOURCES + 9),
            "100m",
            None,
            false,
        );
        parts.pod(&last).expect("read");
        assert_eq!(parts.from_parts, 1, "kept since the clearing");
    }

    /// Replicas repeat their label fields and owner references byte for byte: those are
    /// the last pod's, taken without a lookup. Other bytes are looked up: an owner that
    /// differs only in its uid (not read) finds the same controller, and labels seen earlier
    /// in the page the same label set. Each pod is built as it is decoded whole.
    #[test]
    fn replicas_take_the_last_pods_labels_and_owners() {
        use k8s_pb::apimachinery::pkg::apis::meta::v1 as pbmeta;
        fn with_meta(name: &str, app: &str, owner: &str, uid: &str) -> Vec<u8> {
            let bytes = replica(name, "n1", "10.0.0.1", 0, "100m");
            let mut pod = k8s_pb::api::core::v1::Pod::decode(&bytes[..]).expect("pod");
            let meta = pod.metadata.as_mut().expect("metadata");
            meta.labels = [
                ("app".to_string(), app.to_string()),
                ("pod-template-hash".to_string(), "5d8f".to_string()),
            ]
            .into();
            meta.owner_references = vec![pbmeta::OwnerReference {
                api_version: Some("apps/v1".to_string()),
                kind: Some("ReplicaSet".to_string()),
                name: Some(owner.to_string()),
                uid: Some(uid.to_string()),
                controller: Some(true),
                block_owner_deletion: Some(true),
            }];
            pod.encode_to_vec()
        }
        // Each pod, and how many so far had the last pod's (labels, owners).
        let pods = [
            (with_meta("web-a", "web", "web-5d8f", "u1"), (0, 0)),
            (with_meta("web-b", "web", "web-5d8f", "u1"), (1, 1)),
            (with_meta("web-c", "web", "web-5d8f", "u2"), (2, 1)),
            (with_meta("web-d", "web", "web-5d8f", "u2"), (3, 2)),
            (with_meta("api-a", "api", "api-7c9b", "u3"), (3, 2)),
            (with_meta("web-e", "web", "web-5d8f", "u1"), (3, 2)),
        ];
        let mut parts = SharedParts::default();
        let mut built = Vec::new();
        for (i, (bytes, same)) in pods.iter().enumerate() {
            let pod = parts.pod(bytes).expect("read");
            let alone = Pod::from_parts(PodParts::from(PbPod::decode(&bytes[..]).expect("pod")));
            assert_eq!(format!("{pod:?}"), format!("{alone:?}"), "pod {i}");
            assert_eq!(parts.same_metadata, *same, "pod {i}");
            built.push(pod);
        }
        let controller = |i: usize| built[i].controller.clone().expect("a controller");
        for i in [1, 2, 3, 5] {
            assert!(Arc::ptr_eq(&built[i].labels, &built[0].labels), "pod {i}");
        }
        // One copy per owner as written: another uid (the workload made again under its
        // name) is another key, with an equal controller.
        for i in [1, 5] {
            assert!(Arc::ptr_eq(&controller(i), &controller(0)), "pod {i}");
        }
        assert!(Arc::ptr_eq(&controller(3), &controller(2)));
        assert_eq!(controller(2), controller(0));
        assert_eq!(controller(0).name, "web-5d8f");
        assert_eq!(controller(4).name, "api-7c9b");
        assert_ne!(built[4].labels, built[0].labels);
    }

    /// The node names are bounded: past `MAX` distinct names the kept ones are dropped, and
    /// every name handed out, before and after, is the one its bytes say; the same bytes
    /// give the same copy while it is kept.
    #[test]
    fn node_names_stay_bounded_and_right() {
        let mut names = NodeNames::default();
        let first = names.get(b"node-0").expect("text");
        assert!(Arc::ptr_eq(&first, &names.get(b"node-0").expect("text")));
        for i in 0..=NodeNames::MAX {
            let bytes = format!("node-{i}");
            let name = names.get(bytes.as_bytes()).expect("text");
            assert_eq!(&*name, bytes, "name {i}");
            assert!(names.0.len() <= NodeNames::MAX, "after name {i}");
        }
        assert_eq!(&*names.get(b"node-0").expect("text"), "node-0");
        assert_eq!(names.get(&[0xff]), None, "not UTF-8");
    }

    /// The owner references' controller is read as prost and `controller_of` read it: the
    /// first reference marked controller, the last value of a field given twice, any
    /// non-zero varint true, a key written long; and text that is not UTF-8 (in the uid
    /// too) or a field of another wire type is left to prost, which refuses it.
    #[test]
    fn owners_controller_reads_as_prost_reads() {
        use prost::encoding::encode_varint;
        fn string(tag: u32, s: &[u8], out: &mut Vec<u8>) {
            encode_key(tag, WireType::LengthDelimited, out);
            encode_varint(s.len() as u64, out);
            out.extend_from_slice(s);
        }
        fn owner(fields: &[u8]) -> Vec<u8> {
            let mut out = Vec::new();
            string(13, fields, &mut out);
            out
        }
        fn reference(kind: &str, name: &str, controller: Option<u64>) -> Vec<u8> {
            let mut f = Vec::new();
            string(5, b"apps/v1", &mut f);
            string(1, kind.as_bytes(), &mut f);
            string(3, name.as_bytes(), &mut f);
            string(4, b"0000-uid", &mut f);
            if let Some(v) = controller {
                encode_key(6, WireType::Varint, &mut f);
                encode_varint(v, &mut f);
            }
            f
        }
        let prost = |bytes: &[u8]| {
            let owners = PbMeta::decode(bytes).ok()?.owner_references;
            Some(controller_of(owners.into_iter().map(owner_reference)))
        };
        let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
        let mut two = owner(&reference("Job", "first", Some(0)));
        two.extend(owner(&reference("ReplicaSet", "second", Some(2))));
        two.extend(owner(&reference("StatefulSet", "third", Some(1))));
        cases.push(("the first marked controller", two));
        cases.push(("none marked", owner(&reference("ReplicaSet", "rs", None))));
        let mut again = reference("ReplicaSet", "old", Some(1));
        string(3, b"new", &mut again);
        encode_key(6, WireType::Varint, &mut again);
        encode_varint(0, &mut again);
        encode_key(6, WireType::Varint, &mut again);
        encode_varint(300, &mut again);
        cases.push(("fields given twice", owner(&again)));
        let mut long_key = reference("ReplicaSet", "long", None);
        long_key.extend([0xb0, 0x00, 0x01]);
        cases.push(("a key written in two bytes", owner(&long_key)));
        let mut unknown = reference("ReplicaSet", "rs", Some(1));
        encode_key(2, WireType::Varint, &mut unknown);
        encode_varint(7, &mut unknown);
        cases.push(("a field it does not declare", owner(&unknown)));
        for (what, bytes) in &cases {
            let read = owners_controller(bytes);
            assert!(read.is_some(), "{what}: read");
            assert_eq!(read, prost(bytes), "{what}");
        }
        assert_eq!(
            owners_controller(&cases[0].1)
                .flatten()
                .map(|c| (c.kind.clone(), c.name.clone())),
            Some(("ReplicaSet".to_string(), "second".to_string()))
        );
        let mut bad_uid = reference("ReplicaSet", "rs", Some(1));
        string(4, &[0xff, 0xfe], &mut bad_uid);
        let mut bad_wire = reference("ReplicaSet", "rs", Some(1));
        encode_key(6, WireType::LengthDelimited, &mut bad_wire);
        encode_varint(0, &mut bad_wire);
        for (what, fields) in [("a uid not UTF-8", bad_uid), ("a bool as bytes", bad_wire)] {
            let bytes = owner(&fields);
            assert_eq!(owners_controller(&bytes), None, "{what}: left to prost");
            assert_eq!(prost(&bytes), None, "{what}: prost refuses it");
        }
    }

    /// `pod` with the only occurrence of `from` replaced by `to`, of the same length.
    fn patched(pod: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
        let at: Vec<usize> = (0..=pod.len() - from.len())
            .filter(|&i| pod[i..].starts_with(from))
            .collect();
        assert_eq!(at.len(), 1, "{from:?} once in the pod");
        let mut out = pod.to_vec();
        out[at[0]..at[0] + to.len()].copy_from_slice(to);
        out
    }

    /// `pod` with a string field `tag` added at the end of its status.
    fn insert_status_field(pod: &[u8], tag: u32, value: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut buf = pod;
        while !buf.is_empty() {
            let (t, wire, body) = field(&mut buf).expect("field");
            if t == 3 {
                let mut status = body.to_vec();
                encode_key(tag, WireType::LengthDelimited, &mut status);
                encode_varint(value.len() as u64, &mut status);
                status.extend_from_slice(value);
                encode_key(3, WireType::LengthDelimited, &mut out);
                encode_varint(status.len() as u64, &mut out);
                out.extend(status);
            } else {
                assert_eq!(wire, LD_BYTE);
                encode_key(t, WireType::LengthDelimited, &mut out);
                encode_varint(body.len() as u64, &mut out);
                out.extend_from_slice(body);
            }
        }
        out
    }

    /// One generated pod: a replica of workload `app` with its own values (name, node, IP,
    /// restarts, token volume, deletion), and read values some replicas change (requests,
    /// tolerations, a host port, a claim, an in-place resize, the phase, a label, the owner).
    #[derive(Debug, Clone)]
    struct Generated {
        app: u8,
        name: u16,
        node: u8,
        restarts: i32,
        cpu: u8,
        toleration: Option<u8>,
        host_port: bool,
        claim: bool,
        resized: bool,
        phase: u8,
        extra_label: Option<u8>,
        controller: bool,
        deleting: bool,
        anti_affinity: bool,
        /// 0: none; 1: a claim of the pod's own (a StatefulSet's); 2: a claim the app's
        /// pods share; 3: a generic ephemeral volume (its claim named after the pod).
        storage: u8,
    }

    fn generated() -> impl proptest::strategy::Strategy<Value = Generated> {
        use proptest::prelude::*;
        (
            (
                0u8..3,
                any::<u16>(),
                0u8..4,
                0i32..300,
                0u8..2,
                proptest::option::of(0u8..2),
            ),
            (
                any::<bool>(),
                any::<bool>(),
                proptest::bool::weighted(0.1),
                0u8..3,
            ),
            (
                proptest::option::of(0u8..2),
                any::<bool>(),
                proptest::bool::weighted(0.1),
                0u8..4,
            ),
            proptest::bool::weighted(0.3),
        )
            .prop_map(
                |(
                    (app, name, node, restarts, cpu, toleration),
                    (host_port, claim, resized, phase),
                    (extra_label, controller, deleting, storage),
                    anti_affinity,
                )| Generated {
                    app,
                    name,
                    node,
                    restarts,
                    cpu,
                    toleration,
                    host_port,
                    claim,
                    resized,
                    phase,
                    extra_label,
                    controller,
                    deleting,
                    anti_affinity,
                    storage,
                },
            )
    }

    impl Generated {
        fn storage_volume(&self, pod: &str) -> Option<k8s_pb::api::core::v1::Volume> {
            use k8s_pb::api::core::v1 as pb;
            let claim = |name: String| pb::VolumeSource {
                persistent_volume_claim: Some(pb::PersistentVolumeClaimVolumeSource {
                    claim_name: Some(name),
                    read_only: None,
                }),
                ..Default::default()
            };
            let source = match self.storage {
                1 => claim(format!("data-{pod}")),
                2 => claim(format!("shared-{}", self.app)),
                3 => pb::VolumeSource {
                    ephemeral: Some(pb::EphemeralVolumeSource::default()),
                    ..Default::default()
                },
                _ => return None,
            };
            Some(pb::Volume {
                name: Some("data".to_string()),
                volume_source: Some(source),
            })
        }

        fn encode(&self) -> Vec<u8> {
            use k8s_pb::api::core::v1 as pb;
            use k8s_pb::apimachinery::pkg::api::resource::Quantity;
            use k8s_pb::apimachinery::pkg::apis::meta::v1 as pbmeta;
            let app = format!("app-{}", self.app);
            let name = format!("{app}-{:x}", self.name);
            let token = format!("kube-api-access-{name}");
            let cpu = || {
                let q = ["100m", "250m"][usize::from(self.cpu)];
                [(
                    "cpu".to_string(),
                    Quantity {
                        string: Some(q.to_string()),
                    },
                )]
                .into()
            };
            let mut labels: std::collections::BTreeMap<String, String> =
                [("app".to_string(), app.clone())].into();
            if let Some(v) = self.extra_label {
                labels.insert("tier".to_string(), format!("t{v}"));
            }
            let selector = pbmeta::LabelSelector {
                match_labels: [("app".to_string(), app.clone())].into(),
                ..Default::default()
            };
            pb::Pod {
                metadata: Some(pbmeta::ObjectMeta {
                    name: Some(name.clone()),
                    namespace: Some("shop".to_string()),
                    uid: Some(format!("uid-{name}")),
                    labels,
                    owner_references: vec![pbmeta::OwnerReference {
                        api_version: Some("apps/v1".to_string()),
                        kind: Some("ReplicaSet".to_string()),
                        name: Some(format!("{app}-rs")),
                        uid: Some("u".to_string()),
                        controller: Some(self.controller),
                        ..Default::default()
                    }],
                    deletion_timestamp: self.deleting.then_some(pbmeta::Time {
                        seconds: Some(1_700_000_000),
                        nanos: Some(0),
                    }),
                    ..Default::default()
                }),
                spec: Some(pb::PodSpec {
                    volumes: std::iter::once(pb::Volume {
                        name: Some(token.clone()),
                        volume_source: Some(pb::VolumeSource {
                            projected: Some(pb::ProjectedVolumeSource {
                                default_mode: Some(420),
                                ..Default::default()
                            }),
                            ..Default::default()
                        }),
                    })
                    .chain(self.storage_volume(&name))
                    .collect(),
                    containers: vec![pb::Container {
                        name: Some(app.clone()),
                        image: Some(format!("reg/{app}:1")),
                        ports: if self.host_port {
                            vec![pb::ContainerPort {
                                container_port: Some(80),
                                host_port: Some(8080),
                                protocol: Some("TCP".to_string()),
                                ..Default::default()
                            }]
                        } else {
                            Vec::new()
                        },
                        resources: Some(pb::ResourceRequirements {
                            requests: cpu(),
                            ..Default::default()
                        }),
                        volume_mounts: vec![pb::VolumeMount {
                            name: Some(token),
                            mount_path: Some("/var/run/secrets".to_string()),
                            ..Default::default()
                        }],
                        ..Default::default()
                    }],
                    node_name: Some(format!("node-{}", self.node)),
                    scheduler_name: Some("default-scheduler".to_string()),
                    priority: Some(i32::from(self.app)),
                    tolerations: self
                        .toleration
                        .map(|t| pb::Toleration {
                            key: Some(format!("taint-{t}")),
                            operator: Some("Exists".to_string()),
                            ..Default::default()
                        })
                        .into_iter()
                        .collect(),
                    affinity: self.anti_affinity.then(|| pb::Affinity {
                        pod_anti_affinity: Some(pb::PodAntiAffinity {
                            required_during_scheduling_ignored_during_execution: vec![
                                pb::PodAffinityTerm {
                                    label_selector: Some(selector),
                                    topology_key: Some("zone".to_string()),
                                    ..Default::default()
                                },
                            ],
                            ..Default::default()
                        }),
                        ..Default::default()
                    }),
                    resource_claims: if self.claim {
                        vec![pb::PodResourceClaim {
                            name: Some("gpu".to_string()),
                            resource_claim_name: Some("gpu-claim".to_string()),
                            ..Default::default()
                        }]
                    } else {
                        Vec::new()
                    },
                    ..Default::default()
                }),
                status: Some(pb::PodStatus {
                    phase: Some(
                        ["Running", "Pending", "Succeeded"][usize::from(self.phase)].to_string(),
                    ),
                    pod_ip: Some(format!("10.0.{}.{}", self.node, self.name % 250)),
                    container_statuses: vec![pb::ContainerStatus {
                        name: Some(app),
                        restart_count: Some(self.restarts),
                        allocated_resources: if self.resized {
                            cpu()
                        } else {
                            Default::default()
                        },
                        ..Default::default()
                    }],
                    ..Default::default()
                }),
            }
            .encode_to_vec()
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(256))]

        /// The replicas' path against the whole decode, on pages of generated pods (runs of
        /// replicas, workloads interleaved) with bytes of some pods changed: every pod the
        /// path reads is the pod the whole decode builds, and a pod the whole decode refuses
        /// is left to it. This is what verifies the path: nothing in it checks itself.
        #[test]
        fn replicas_read_as_the_whole_decode(
            page in proptest::collection::vec(
                (generated(), 1usize..6),
                1..12,
            ),
            changes in proptest::collection::vec(
                (
                    proptest::prelude::any::<proptest::sample::Index>(),
                    proptest::prelude::any::<proptest::sample::Index>(),
                    proptest::prelude::any::<u8>(),
                ),
                0..4,
            ),
        ) {
            let mut pods: Vec<Vec<u8>> = Vec::new();
            for (pod, replicas) in &page {
                for r in 0..*replicas {
                    let mut replica = pod.clone();
                    replica.name = replica.name.wrapping_add(u16::try_from(r).unwrap_or(0));
                    replica.node = (replica.node + u8::try_from(r).unwrap_or(0)) % 4;
                    replica.restarts += i32::try_from(r).unwrap_or(0);
                    pods.push(replica.encode());
                }
            }
            let count = pods.len();
            for (pod, at, byte) in &changes {
                let pod = &mut pods[pod.index(count)];
                let at = at.index(pod.len());
                pod[at] = *byte;
            }
            let mut parts = SharedParts::default();
            for (i, bytes) in pods.iter().enumerate() {
                let whole = PbPod::decode(&bytes[..]).map(|p| Pod::from_parts(PodParts::from(p)));
                if let Some(pod) = parts.pod(bytes) {
                    proptest::prop_assert!(whole.is_ok(), "pod {} read, refused whole: {:?}", i, whole);
                    let whole = whole.map(|p| format!("{p:?}")).unwrap_or_default();
                    proptest::prop_assert_eq!(format!("{pod:?}"), whole, "pod {}", i);
                }
            }
        }
    }
}
