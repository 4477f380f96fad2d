//! Decoding pod and node lists served as protobuf (`application/vnd.kubernetes.protobuf`), the
//! encoding kube-scheduler's own client asks for (nodes: `node`). A realistic pod is about 40% smaller than in JSON, and
//! every field carries its length, so the parts no plugin reads (`managedFields`, env, probes,
//! most of the status) are stepped over without being parsed: decoding and building a pod
//! takes about half the instructions it takes from JSON (BENCHMARKS.md).
//!
//! The messages below are the API's own (`k8s.io/api/core/v1/generated.proto`,
//! `k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto`), cut down to the fields the
//! [`PodParts`] hold, with upstream's field numbers; fields not declared here are skipped by
//! prost. Each decoded pod is moved into the same [`PodParts`] as a JSON one, so both build the
//! same compact [`Pod`] (the tests check this field by field against an independent encoder).
//!
//! Go writes a non-pointer field even when it holds its zero value, where JSON's `omitempty`
//! leaves it out: an empty string of such a field reads here as absent, as it does in JSON.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;
use prost::Message;
use prost::encoding::{DecodeContext, WireType, decode_key, decode_varint, skip_field};

use crate::state::Toleration;
use crate::state::parts::{self, Checked, Owner, PodParts};
use crate::state::resources::ImageNames;
use crate::state::{Node, Pod};

mod frames;
mod node;
mod shared;

use frames::Frames;

/// The four bytes every protobuf-encoded API object starts with (`k8s\0`).
const MAGIC: &[u8; 4] = b"k8s\x00";

/// The media type an API server answers protobuf with.
pub const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// Why a protobuf body could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ProtobufError {
    /// The body does not start with the 4-byte `k8s\0` prefix of the API's protobuf encoding.
    #[error("the body does not start with the protobuf prefix k8s\\0")]
    NoMagic,
    /// The envelope names another kind than the one asked for.
    #[error("the body holds a {found}, not a {expected}")]
    WrongKind {
        expected: &'static str,
        found: String,
    },
    /// The envelope holds no object at all.
    #[error("the body holds no object")]
    NoObject,
    /// The envelope says its object is compressed or otherwise encoded (API servers never do).
    #[error("the body's object is in content encoding {0:?}, which is not supported")]
    ContentEncoding(String),
    /// A field's length goes past the end of the body, as a cut connection leaves it.
    #[error("the protobuf body ends inside a field")]
    Truncated,
    /// The bytes end early or are not the message they should be.
    #[error("{0}")]
    Decode(#[from] prost::DecodeError),
}

impl ProtobufError {
    /// True when the bytes stop before the message does, as a cut connection leaves them.
    pub fn is_truncated(&self) -> bool {
        match self {
            ProtobufError::Truncated => true,
            // prost's own words when a message's bytes stop early.
            ProtobufError::Decode(e) => e.to_string().contains("buffer underflow"),
            _ => false,
        }
    }
}

/// `runtime.Unknown`, the envelope: the object's kind and its bytes.
fn unwrap_envelope<'a, B: AsRef<[u8]>>(
    body: &'a [B],
    expected: &'static str,
    scratch: &mut Vec<u8>,
) -> Result<Frames<'a, B>, ProtobufError> {
    let mut buf = Frames::new(body);
    let mut magic = [0u8; 4];
    if buf.read_exact(&mut magic) != Some(()) || &magic != MAGIC {
        return Err(ProtobufError::NoMagic);
    }
    let mut raw = None;
    let mut kind = String::new();
    let mut encoding = String::new();
    while !buf.is_empty() {
        let (tag, wire) = buf.key(scratch)?;
        match (tag, wire) {
            (1, WireType::LengthDelimited) => {
                let meta = TypeMeta::decode(buf.nested(scratch)?.contiguous(scratch))?;
                kind = meta.kind.unwrap_or_default();
            }
            (2, WireType::LengthDelimited) => raw = Some(buf.nested(scratch)?),
            (3, WireType::LengthDelimited) => {
                encoding =
                    String::from_utf8_lossy(buf.nested(scratch)?.contiguous(scratch)).into_owned();
            }
            _ => buf.skip(wire, tag, scratch)?,
        }
    }
    if !encoding.is_empty() {
        return Err(ProtobufError::ContentEncoding(encoding));
    }
    if kind != expected {
        return Err(ProtobufError::WrongKind {
            expected,
            found: if kind.is_empty() {
                "object without a kind".to_string()
            } else {
                kind
            },
        });
    }
    raw.ok_or(ProtobufError::NoObject)
}

/// What the first bytes of a protobuf list say of its continue token.
#[derive(Debug, PartialEq)]
pub enum ListStart {
    /// The list's metadata, read: its continue token (`None` on the last page).
    Continue(Option<String>),
    /// The bytes stop before the list's metadata does.
    NeedMore,
    /// Not a list of the kind asked for as API servers write one (another kind, fields in
    /// another order, bytes that do not decode): the whole decode says what it is.
    Unknown,
}

/// The continue token of a list of `kind` from the first bytes of its body, the rest still
/// downloading. API servers write the envelope's kind, then the list's metadata, then its
/// items, so the token is in the first few hundred bytes: reading it there lets the next
/// page be asked for while this one downloads, where waiting for the whole body left a
/// round trip per page on the critical path (a tenth of a live run at 150,000 pods, and most
/// of a paged list's time against a distant server). The page is still decoded whole,
/// token included, by [`pod_frames`] and its kin: a body that turns out to
/// be malformed is refused there, with the error the whole decode gives.
pub fn list_start(prefix: &[u8], kind: &str) -> ListStart {
    fn read(prefix: &[u8], kind: &str) -> Result<ListStart, ProtobufError> {
        let Some(mut buf) = prefix.strip_prefix(MAGIC.as_slice()) else {
            if MAGIC.starts_with(prefix) {
                return Ok(ListStart::NeedMore);
            }
            return Ok(ListStart::Unknown);
        };
        let mut kind_seen = false;
        while !buf.is_empty() {
            let (tag, wire) = key(&mut buf)?;
            match (tag, wire) {
                (1, WireType::LengthDelimited) => {
                    let meta = TypeMeta::decode(length_delimited(&mut buf)?)?;
                    if meta.kind.as_deref() != Some(kind) {
                        return Ok(ListStart::Unknown);
                    }
                    kind_seen = true;
                }
                (2, WireType::LengthDelimited) if kind_seen => {
                    let len = field_length(&mut buf)?;
                    let mut list = &buf[..len.min(buf.len())];
                    if list.is_empty() {
                        return Ok(ListStart::NeedMore);
                    }
                    return Ok(match key(&mut list)? {
                        (1, WireType::LengthDelimited) => {
                            let meta = ListMeta::decode(length_delimited(&mut list)?)?;
                            ListStart::Continue(meta.continue_.filter(|c| !c.is_empty()))
                        }
                        _ => ListStart::Unknown,
                    });
                }
                (1 | 2, _) => return Ok(ListStart::Unknown),
                _ => skip(wire, tag, &mut buf)?,
            }
        }
        Ok(ListStart::NeedMore)
    }
    match read(prefix, kind) {
        Ok(start) => start,
        Err(e) if e.is_truncated() => ListStart::NeedMore,
        Err(_) => ListStart::Unknown,
    }
}

/// A field's key, or `Truncated` when the body ends inside it.
#[inline]
fn key(buf: &mut &[u8]) -> Result<(u32, WireType), ProtobufError> {
    // A key of one or two bytes (fields 1 to 2047) is read here, the rest and every error
    // by prost.
    if let Some((k, rest)) = short_varint(buf)
        && k >= 8
        && let Ok(wire) = WireType::try_from(u64::from(k & 7))
    {
        *buf = rest;
        return Ok((k >> 3, wire));
    }
    if varint_cut(buf) {
        return Err(ProtobufError::Truncated);
    }
    Ok(decode_key(buf)?)
}

/// Steps over a field this decoder does not read.
#[inline]
fn skip(wire: WireType, tag: u32, buf: &mut &[u8]) -> Result<(), ProtobufError> {
    match wire {
        WireType::LengthDelimited => length_delimited(buf).map(drop),
        _ if varint_cut(buf) => Err(ProtobufError::Truncated),
        _ => Ok(skip_field(wire, tag, buf, DecodeContext::default())?),
    }
}

/// A varint of one or two bytes, and the bytes after it; `None` for any other, left to
/// prost. Keys and lengths are read this way: a pod has about 90 of each.
#[inline(always)]
fn short_varint(buf: &[u8]) -> Option<(u32, &[u8])> {
    match *buf {
        [b0, ref rest @ ..] if b0 < 0x80 => Some((u32::from(b0), rest)),
        [b0, b1, ref rest @ ..] if b1 < 0x80 => {
            Some((u32::from(b0 & 0x7f) | u32::from(b1) << 7, rest))
        }
        _ => None,
    }
}

/// The body ends before a varint does: every byte left says another follows.
#[inline]
fn varint_cut(buf: &[u8]) -> bool {
    buf.len() < 10 && buf.iter().all(|b| b & 0x80 != 0)
}

/// The bytes of one length-delimited field, the buffer moved past them.
#[inline]
fn length_delimited<'a>(buf: &mut &'a [u8]) -> Result<&'a [u8], ProtobufError> {
    let len = field_length(buf)?;
    if len > buf.len() {
        return Err(ProtobufError::Truncated);
    }
    let (field, rest) = buf.split_at(len);
    *buf = rest;
    Ok(field)
}

/// A length-delimited field's length, the buffer moved past it (the caller checks that the
/// field's bytes are there); `Truncated` when the body ends inside it.
#[inline]
fn field_length(buf: &mut &[u8]) -> Result<usize, ProtobufError> {
    // A length of one or two bytes (under 16 KiB: nearly every field), as for keys.
    let len = match short_varint(buf) {
        Some((len, rest)) => {
            *buf = rest;
            u64::from(len)
        }
        None if varint_cut(buf) => return Err(ProtobufError::Truncated),
        None => decode_varint(buf)?,
    };
    usize::try_from(len).map_err(|_| ProtobufError::Truncated)
}

/// One page of a pod list in protobuf, decoded into compact pods; `on_continue` as for
/// [`json::pod_page`](super::json::pod_page) (API servers write the list's metadata first).
pub fn pod_page(
    body: &[u8],
    on_continue: impl FnOnce(Option<String>),
) -> Result<Vec<Pod>, ProtobufError> {
    pod_frames(&[body], on_continue)
}

/// [`pod_page`] of a body in the frames it arrived in, read where they lie
/// (see `frames`): the same pods, or the same error, as from the frames joined.
pub fn pod_frames<B: AsRef<[u8]>>(
    body: &[B],
    on_continue: impl FnOnce(Option<String>),
) -> Result<Vec<Pod>, ProtobufError> {
    let mut parts = shared::SharedParts::new(KEPT.take());
    let pods = decode_list_frames(body, "PodList", on_continue, |bytes| {
        Ok(match parts.pod(bytes) {
            Some(pod) => pod,
            None => Pod::from_parts(PodParts::from(PbPod::decode(bytes)?)),
        })
    });
    KEPT.set(parts.into_kept());
    pods
}

thread_local! {
    /// The parts templates share, kept from page to page on each decoding thread: a page
    /// holds some fifty workloads, and the next pages mostly name the same request sets,
    /// images and tolerations again, and the same nodes.
    static KEPT: std::cell::Cell<shared::Kept> = std::cell::Cell::default();
}

/// One page of a node list in protobuf, in the frames it arrived in, each node built as
/// from JSON with the image names `images` keeps; `on_continue` as for pods.
pub fn node_frames<B: AsRef<[u8]>>(
    body: &[B],
    on_continue: impl FnOnce(Option<String>),
    images: &ImageNames,
) -> Result<Vec<Node>, ProtobufError> {
    decode_list_frames(body, "NodeList", on_continue, |bytes| {
        Ok(node::node(bytes, images)?)
    })
}

/// A list of `kind`: its continue token to `on_continue` as soon as the list's metadata is
/// read (API servers write it before the items), and each item's bytes to `item`.
fn decode_list_frames<B: AsRef<[u8]>, T>(
    body: &[B],
    kind: &'static str,
    on_continue: impl FnOnce(Option<String>),
    mut item: impl FnMut(&[u8]) -> Result<T, ProtobufError>,
) -> Result<Vec<T>, ProtobufError> {
    let mut scratch = Vec::new();
    let mut buf = unwrap_envelope(body, kind, &mut scratch)?;
    let mut on_continue = Some(on_continue);
    let mut items = Vec::new();
    while !buf.is_empty() {
        let (tag, wire) = buf.key(&mut scratch)?;
        match (tag, wire) {
            (1, WireType::LengthDelimited) => {
                let meta = ListMeta::decode(buf.nested(&mut scratch)?.contiguous(&mut scratch))?;
                if let Some(f) = on_continue.take() {
                    f(meta.continue_.filter(|c| !c.is_empty()));
                }
            }
            (2, WireType::LengthDelimited) => {
                let bytes = buf.nested(&mut scratch)?;
                items.push(item(bytes.contiguous(&mut scratch))?);
            }
            _ => buf.skip(wire, tag, &mut scratch)?,
        }
    }
    if let Some(f) = on_continue.take() {
        f(None);
    }
    Ok(items)
}

/// The fields of a `Status` (an error answer in protobuf) that error messages use.
#[derive(Debug, Default, PartialEq)]
pub struct StatusFields {
    pub code: u16,
    pub status: String,
    pub reason: String,
    pub message: String,
    pub retry_after_seconds: u32,
}

/// An error answer's `Status`, as API servers write it in protobuf when it was asked for.
pub fn status(body: &[u8]) -> Result<StatusFields, ProtobufError> {
    let (body, mut scratch) = ([body], Vec::new());
    let raw = unwrap_envelope(&body, "Status", &mut scratch)?;
    let s = PbStatus::decode(raw.contiguous(&mut scratch))?;
    Ok(StatusFields {
        code: s.code.and_then(|c| u16::try_from(c).ok()).unwrap_or(0),
        status: s.status.unwrap_or_default(),
        reason: s.reason.unwrap_or_default(),
        message: s.message.unwrap_or_default(),
        retry_after_seconds: s
            .details
            .and_then(|d| d.retry_after_seconds)
            .and_then(|r| u32::try_from(r).ok())
            .unwrap_or(0),
    })
}

/// An empty string of a non-pointer field is the field left out.
fn non_empty(s: Option<String>) -> Option<String> {
    s.filter(|s| !s.is_empty())
}

fn some_vec<T, U>(v: Vec<T>, f: impl FnMut(T) -> U) -> Option<Vec<U>> {
    (!v.is_empty()).then(|| v.into_iter().map(f).collect())
}

/// An entry of a `map<string, string>`. Maps are read as what a map is on the wire, a list
/// of such entries, and made a map at once by [`string_map`]: prost's own maps insert each
/// entry as it is read, which was an eighth of the instructions 5,000 nodes took to decode
/// (a dozen labels each).
#[derive(Clone, PartialEq, Message)]
struct PbStringEntry {
    #[prost(string, tag = "1")]
    key: String,
    #[prost(string, tag = "2")]
    value: String,
}

/// One `map<string, string>` entry read where it lies in its bytes: prost grows an empty
/// string for each (about 240 instructions a string before its UTF-8 check), and a label set
/// copies its keys and values once, into its own text. An entry without its key or value
/// has the empty one, and a key or value given twice keeps the last, as prost reads it;
/// `None` for anything an API server does not write (another wire type, text that is not
/// UTF-8, a length past the end), for prost to read.
fn string_entry(mut entry: &[u8]) -> Option<(&str, &str)> {
    let (mut key, mut value) = ("", "");
    while !entry.is_empty() {
        let (tag, wire, body) = shared::field(&mut entry)?;
        let slot = match tag {
            1 => &mut key,
            2 => &mut value,
            _ => continue,
        };
        (wire == shared::LD_BYTE).then_some(())?;
        *slot = std::str::from_utf8(body).ok()?;
    }
    Some((key, value))
}

/// An entry of a `map<string, Quantity>`, as [`PbStringEntry`].
#[derive(Clone, PartialEq, Message)]
struct PbQuantityEntry {
    #[prost(string, tag = "1")]
    key: String,
    #[prost(message, optional, tag = "2")]
    value: Option<PbQuantity>,
}

/// The map protobuf reads from `entries`: an entry without its key or value has the empty
/// one, and a key given again keeps its last value (as `BTreeMap`'s `FromIterator` keeps the
/// last of equal keys). `None` when empty, as the API's optional maps.
fn string_map(entries: Vec<PbStringEntry>) -> Option<BTreeMap<String, String>> {
    (!entries.is_empty()).then(|| entries.into_iter().map(|e| (e.key, e.value)).collect())
}

/// As [`string_map`], each value a quantity.
fn quantity_map(entries: Vec<PbQuantityEntry>) -> Option<BTreeMap<String, Quantity>> {
    (!entries.is_empty()).then(|| {
        entries
            .into_iter()
            .map(|e| {
                (
                    e.key,
                    Quantity(e.value.and_then(|q| q.string).unwrap_or_default()),
                )
            })
            .collect()
    })
}

fn some_strings(v: Vec<String>) -> Option<Vec<String>> {
    (!v.is_empty()).then_some(v)
}

#[derive(Clone, PartialEq, Message)]
struct TypeMeta {
    #[prost(string, optional, tag = "2")]
    kind: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct ListMeta {
    #[prost(string, optional, tag = "3")]
    continue_: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct PbStatus {
    #[prost(string, optional, tag = "2")]
    status: Option<String>,
    #[prost(string, optional, tag = "3")]
    message: Option<String>,
    #[prost(string, optional, tag = "4")]
    reason: Option<String>,
    #[prost(message, optional, tag = "5")]
    details: Option<PbStatusDetails>,
    #[prost(int32, optional, tag = "6")]
    code: Option<i32>,
}

#[derive(Clone, PartialEq, Message)]
struct PbStatusDetails {
    #[prost(int32, optional, tag = "5")]
    retry_after_seconds: Option<i32>,
}

#[derive(Clone, PartialEq, Message)]
struct PbPod {
    #[prost(message, optional, tag = "1")]
    metadata: Option<PbMeta>,
    #[prost(message, optional, tag = "2")]
    spec: Option<PbSpec>,
    #[prost(message, optional, tag = "3")]
    status: Option<PbPodStatus>,
}

/// A `Pod` without its metadata, which prost steps over by its length: a template's first
/// pod needs only its spec and status built (its name, labels and owners are each pod's own,
/// read apart; see `shared`).
#[derive(Clone, PartialEq, Message)]
struct PbPodBody {
    #[prost(message, optional, tag = "2")]
    spec: Option<PbSpec>,
    #[prost(message, optional, tag = "3")]
    status: Option<PbPodStatus>,
}

#[derive(Clone, PartialEq, Message)]
struct PbMeta {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(string, optional, tag = "3")]
    namespace: Option<String>,
    /// Only whether it is set is read.
    #[prost(message, optional, tag = "9")]
    deletion_timestamp: Option<PbTime>,
    #[prost(message, repeated, tag = "11")]
    labels: Vec<PbStringEntry>,
    #[prost(message, repeated, tag = "13")]
    owner_references: Vec<PbOwnerReference>,
}

#[derive(Clone, PartialEq, Message)]
struct PbTime {
    #[prost(int64, optional, tag = "1")]
    seconds: Option<i64>,
    #[prost(int32, optional, tag = "2")]
    nanos: Option<i32>,
}

#[derive(Clone, PartialEq, Message)]
struct PbOwnerReference {
    #[prost(string, optional, tag = "1")]
    kind: Option<String>,
    #[prost(string, optional, tag = "3")]
    name: Option<String>,
    #[prost(string, optional, tag = "4")]
    uid: Option<String>,
    #[prost(string, optional, tag = "5")]
    api_version: Option<String>,
    #[prost(bool, optional, tag = "6")]
    controller: Option<bool>,
    #[prost(bool, optional, tag = "7")]
    block_owner_deletion: Option<bool>,
}

#[derive(Clone, PartialEq, Message)]
struct PbSpec {
    #[prost(message, repeated, tag = "1")]
    volumes: Vec<PbVolume>,
    #[prost(message, repeated, tag = "2")]
    containers: Vec<PbContainer>,
    #[prost(message, repeated, tag = "7")]
    node_selector: Vec<PbStringEntry>,
    #[prost(string, optional, tag = "10")]
    node_name: Option<String>,
    #[prost(message, optional, tag = "18")]
    affinity: Option<PbAffinity>,
    #[prost(string, optional, tag = "19")]
    scheduler_name: Option<String>,
    #[prost(message, repeated, tag = "20")]
    init_containers: Vec<PbContainer>,
    #[prost(message, repeated, tag = "22")]
    tolerations: Vec<PbToleration>,
    #[prost(int32, optional, tag = "25")]
    priority: Option<i32>,
    #[prost(string, optional, tag = "31")]
    preemption_policy: Option<String>,
    #[prost(message, repeated, tag = "32")]
    overhead: Vec<PbQuantityEntry>,
    #[prost(message, repeated, tag = "33")]
    topology_spread_constraints: Vec<PbTopologySpreadConstraint>,
    #[prost(message, repeated, tag = "39")]
    resource_claims: Vec<PbPodResourceClaim>,
    #[prost(message, optional, tag = "40")]
    resources: Option<PbResourceRequirements>,
}

#[derive(Clone, PartialEq, Message)]
struct PbQuantity {
    #[prost(string, optional, tag = "1")]
    string: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct PbContainer {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(string, optional, tag = "2")]
    image: Option<String>,
    #[prost(message, repeated, tag = "6")]
    ports: Vec<PbContainerPort>,
    #[prost(message, optional, tag = "8")]
    resources: Option<PbResourceRequirements>,
    #[prost(string, optional, tag = "24")]
    restart_policy: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct PbContainerPort {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(int32, optional, tag = "2")]
    host_port: Option<i32>,
    #[prost(int32, optional, tag = "3")]
    container_port: Option<i32>,
    #[prost(string, optional, tag = "4")]
    protocol: Option<String>,
    #[prost(string, optional, tag = "5")]
    host_ip: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct PbResourceRequirements {
    #[prost(message, repeated, tag = "1")]
    limits: Vec<PbQuantityEntry>,
    #[prost(message, repeated, tag = "2")]
    requests: Vec<PbQuantityEntry>,
    #[prost(message, repeated, tag = "3")]
    claims: Vec<PbResourceClaim>,
}

#[derive(Clone, PartialEq, Message)]
struct PbResourceClaim {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(string, optional, tag = "2")]
    request: Option<String>,
}

/// A volume is `{name, volumeSource}` in protobuf; only which sources are set is read, so
/// each is an empty message here (its fields are skipped).
#[derive(Clone, PartialEq, Message)]
struct PbVolume {
    #[prost(message, optional, tag = "2")]
    source: Option<PbVolumeSource>,
}

#[derive(Clone, PartialEq, Message)]
struct Present {}

#[derive(Clone, PartialEq, Message)]
struct PbVolumeSource {
    #[prost(message, optional, tag = "3")]
    gce_persistent_disk: Option<Present>,
    #[prost(message, optional, tag = "4")]
    aws_elastic_block_store: Option<Present>,
    #[prost(message, optional, tag = "8")]
    iscsi: Option<Present>,
    #[prost(message, optional, tag = "10")]
    persistent_volume_claim: Option<Present>,
    #[prost(message, optional, tag = "11")]
    rbd: Option<Present>,
    #[prost(message, optional, tag = "13")]
    cinder: Option<Present>,
    #[prost(message, optional, tag = "18")]
    azure_file: Option<Present>,
    #[prost(message, optional, tag = "20")]
    vsphere_volume: Option<Present>,
    #[prost(message, optional, tag = "22")]
    azure_disk: Option<Present>,
    #[prost(message, optional, tag = "24")]
    portworx_volume: Option<Present>,
    #[prost(message, optional, tag = "29")]
    ephemeral: Option<Present>,
}

#[derive(Clone, PartialEq, Message)]
struct PbAffinity {
    #[prost(message, optional, tag = "1")]
    node_affinity: Option<PbNodeAffinity>,
    #[prost(message, optional, tag = "2")]
    pod_affinity: Option<PbPodAffinity>,
    #[prost(message, optional, tag = "3")]
    pod_anti_affinity: Option<PbPodAffinity>,
}

#[derive(Clone, PartialEq, Message)]
struct PbNodeAffinity {
    #[prost(message, optional, tag = "1")]
    required: Option<PbNodeSelector>,
    #[prost(message, repeated, tag = "2")]
    preferred: Vec<PbPreferredSchedulingTerm>,
}

#[derive(Clone, PartialEq, Message)]
struct PbNodeSelector {
    #[prost(message, repeated, tag = "1")]
    terms: Vec<PbNodeSelectorTerm>,
}

#[derive(Clone, PartialEq, Message)]
struct PbNodeSelectorTerm {
    #[prost(message, repeated, tag = "1")]
    match_expressions: Vec<PbRequirement>,
    #[prost(message, repeated, tag = "2")]
    match_fields: Vec<PbRequirement>,
}

/// A node selector requirement and a label selector requirement have the same fields.
#[derive(Clone, PartialEq, Message)]
struct PbRequirement {
    #[prost(string, optional, tag = "1")]
    key: Option<String>,
    #[prost(string, optional, tag = "2")]
    operator: Option<String>,
    #[prost(string, repeated, tag = "3")]
    values: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
struct PbPreferredSchedulingTerm {
    #[prost(int32, optional, tag = "1")]
    weight: Option<i32>,
    #[prost(message, optional, tag = "2")]
    preference: Option<PbNodeSelectorTerm>,
}

/// Pod affinity and pod anti-affinity have the same fields.
#[derive(Clone, PartialEq, Message)]
struct PbPodAffinity {
    #[prost(message, repeated, tag = "1")]
    required: Vec<PbPodAffinityTerm>,
    #[prost(message, repeated, tag = "2")]
    preferred: Vec<PbWeightedPodAffinityTerm>,
}

#[derive(Clone, PartialEq, Message)]
struct PbPodAffinityTerm {
    #[prost(message, optional, tag = "1")]
    label_selector: Option<PbLabelSelector>,
    #[prost(string, repeated, tag = "2")]
    namespaces: Vec<String>,
    #[prost(string, optional, tag = "3")]
    topology_key: Option<String>,
    #[prost(message, optional, tag = "4")]
    namespace_selector: Option<PbLabelSelector>,
    #[prost(string, repeated, tag = "5")]
    match_label_keys: Vec<String>,
    #[prost(string, repeated, tag = "6")]
    mismatch_label_keys: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
struct PbWeightedPodAffinityTerm {
    #[prost(int32, optional, tag = "1")]
    weight: Option<i32>,
    #[prost(message, optional, tag = "2")]
    term: Option<PbPodAffinityTerm>,
}

#[derive(Clone, PartialEq, Message)]
struct PbLabelSelector {
    #[prost(message, repeated, tag = "1")]
    match_labels: Vec<PbStringEntry>,
    #[prost(message, repeated, tag = "2")]
    match_expressions: Vec<PbRequirement>,
}

#[derive(Clone, PartialEq, Message)]
struct PbToleration {
    #[prost(string, optional, tag = "1")]
    key: Option<String>,
    #[prost(string, optional, tag = "2")]
    operator: Option<String>,
    #[prost(string, optional, tag = "3")]
    value: Option<String>,
    #[prost(string, optional, tag = "4")]
    effect: Option<String>,
    #[prost(int64, optional, tag = "5")]
    toleration_seconds: Option<i64>,
}

#[derive(Clone, PartialEq, Message)]
struct PbTopologySpreadConstraint {
    #[prost(int32, optional, tag = "1")]
    max_skew: Option<i32>,
    #[prost(string, optional, tag = "2")]
    topology_key: Option<String>,
    #[prost(string, optional, tag = "3")]
    when_unsatisfiable: Option<String>,
    #[prost(message, optional, tag = "4")]
    label_selector: Option<PbLabelSelector>,
    #[prost(int32, optional, tag = "5")]
    min_domains: Option<i32>,
    #[prost(string, optional, tag = "6")]
    node_affinity_policy: Option<String>,
    #[prost(string, optional, tag = "7")]
    node_taints_policy: Option<String>,
    #[prost(string, repeated, tag = "8")]
    match_label_keys: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
struct PbPodResourceClaim {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(string, optional, tag = "3")]
    resource_claim_name: Option<String>,
    #[prost(string, optional, tag = "4")]
    resource_claim_template_name: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct PbPodStatus {
    #[prost(string, optional, tag = "1")]
    phase: Option<String>,
    #[prost(message, repeated, tag = "2")]
    conditions: Vec<PbCondition>,
    #[prost(message, repeated, tag = "8")]
    container_statuses: Vec<PbContainerStatus>,
    #[prost(message, repeated, tag = "10")]
    init_container_statuses: Vec<PbContainerStatus>,
}

#[derive(Clone, PartialEq, Message)]
struct PbCondition {
    #[prost(string, optional, tag = "1")]
    type_: Option<String>,
    #[prost(string, optional, tag = "5")]
    reason: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct PbContainerStatus {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(message, repeated, tag = "10")]
    allocated_resources: Vec<PbQuantityEntry>,
    #[prost(message, optional, tag = "11")]
    resources: Option<PbResourceRequirements>,
}

impl From<PbPod> for PodParts {
    fn from(p: PbPod) -> PodParts {
        PodParts {
            metadata: p.metadata.map(|m| parts::Meta {
                name: non_empty(m.name),
                namespace: non_empty(m.namespace),
                labels: string_map(m.labels),
                deletion_timestamp: m.deletion_timestamp.map(|_| Checked::SET),
                owner_references: some_vec(m.owner_references, owner_reference),
            }),
            spec: p.spec.map(spec),
            status: p.status.map(|s| parts::Status {
                phase: non_empty(s.phase),
                conditions: some_vec(s.conditions, |c| parts::Condition {
                    type_: c.type_.unwrap_or_default(),
                    reason: non_empty(c.reason),
                }),
                container_statuses: some_vec(s.container_statuses, container_status),
                init_container_statuses: some_vec(s.init_container_statuses, container_status),
            }),
        }
    }
}

fn owner_reference(o: PbOwnerReference) -> Owner {
    Owner {
        api_version: o.api_version.unwrap_or_default(),
        kind: o.kind.unwrap_or_default(),
        name: o.name.unwrap_or_default(),
        controller: o.controller == Some(true),
    }
}

fn spec(s: PbSpec) -> parts::Spec {
    parts::Spec {
        affinity: s.affinity.map(affinity),
        containers: some_vec(s.containers, container),
        init_containers: some_vec(s.init_containers, container),
        node_name: non_empty(s.node_name),
        node_selector: string_map(s.node_selector),
        overhead: quantity_map(s.overhead),
        preemption_policy: s.preemption_policy,
        priority: s.priority,
        resource_claims: some_vec(s.resource_claims, |_| Checked::SET),
        resources: s.resources.map(requirements),
        scheduler_name: non_empty(s.scheduler_name),
        tolerations: some_vec(s.tolerations, |t| Toleration {
            key: t.key.unwrap_or_default(),
            operator: t.operator.unwrap_or_default(),
            value: t.value.unwrap_or_default(),
            effect: t.effect.unwrap_or_default(),
        }),
        topology_spread_constraints: some_vec(s.topology_spread_constraints, |c| {
            core::TopologySpreadConstraint {
                label_selector: c.label_selector.map(label_selector),
                match_label_keys: some_strings(c.match_label_keys),
                max_skew: c.max_skew.unwrap_or_default(),
                min_domains: c.min_domains,
                node_affinity_policy: c.node_affinity_policy,
                node_taints_policy: c.node_taints_policy,
                topology_key: c.topology_key.unwrap_or_default(),
                when_unsatisfiable: c.when_unsatisfiable.unwrap_or_default(),
            }
        }),
        volumes: some_vec(s.volumes, |v| {
            let v = v.source.unwrap_or_default();
            parts::Volume {
                persistent_volume_claim: set(v.persistent_volume_claim),
                ephemeral: set(v.ephemeral),
                gce_persistent_disk: set(v.gce_persistent_disk),
                aws_elastic_block_store: set(v.aws_elastic_block_store),
                rbd: set(v.rbd),
                iscsi: set(v.iscsi),
                azure_disk: set(v.azure_disk),
                azure_file: set(v.azure_file),
                cinder: set(v.cinder),
                vsphere_volume: set(v.vsphere_volume),
                portworx_volume: set(v.portworx_volume),
            }
        }),
    }
}

/// A volume source's presence (only presence is read).
fn set<T>(p: Option<Present>) -> Option<Checked<T>> {
    p.map(|_| Checked::SET)
}

fn container(c: PbContainer) -> parts::Container {
    parts::Container {
        name: Some(c.name.unwrap_or_default()),
        image: non_empty(c.image),
        ports: some_vec(c.ports, |p| core::ContainerPort {
            container_port: p.container_port.unwrap_or_default(),
            host_ip: non_empty(p.host_ip),
            host_port: p.host_port.filter(|p| *p != 0),
            name: non_empty(p.name),
            protocol: non_empty(p.protocol),
        }),
        resources: c.resources.map(requirements),
        restart_policy: c.restart_policy,
    }
}

fn container_status(c: PbContainerStatus) -> parts::ContainerStatus {
    parts::ContainerStatus {
        name: c.name.unwrap_or_default(),
        allocated_resources: quantity_map(c.allocated_resources),
        resources: c.resources.map(requirements),
    }
}

fn requirements(r: PbResourceRequirements) -> core::ResourceRequirements {
    core::ResourceRequirements {
        claims: some_vec(r.claims, |c| core::ResourceClaim {
            name: c.name.unwrap_or_default(),
            request: non_empty(c.request),
        }),
        limits: quantity_map(r.limits),
        requests: quantity_map(r.requests),
    }
}

fn affinity(a: PbAffinity) -> core::Affinity {
    core::Affinity {
        node_affinity: a.node_affinity.map(|n| core::NodeAffinity {
            required_during_scheduling_ignored_during_execution: n.required.map(|s| {
                core::NodeSelector {
                    node_selector_terms: s.terms.into_iter().map(node_selector_term).collect(),
                }
            }),
            preferred_during_scheduling_ignored_during_execution: some_vec(n.preferred, |p| {
                core::PreferredSchedulingTerm {
                    preference: node_selector_term(p.preference.unwrap_or_default()),
                    weight: p.weight.unwrap_or_default(),
                }
            }),
        }),
        pod_affinity: a.pod_affinity.map(|p| {
            let (required, preferred) = pod_affinity(p);
            core::PodAffinity {
                required_during_scheduling_ignored_during_execution: required,
                preferred_during_scheduling_ignored_during_execution: preferred,
            }
        }),
        pod_anti_affinity: a.pod_anti_affinity.map(|p| {
            let (required, preferred) = pod_affinity(p);
            core::PodAntiAffinity {
                required_during_scheduling_ignored_during_execution: required,
                preferred_during_scheduling_ignored_during_execution: preferred,
            }
        }),
    }
}

type PodAffinityTerms = (
    Option<Vec<core::PodAffinityTerm>>,
    Option<Vec<core::WeightedPodAffinityTerm>>,
);

fn pod_affinity(p: PbPodAffinity) -> PodAffinityTerms {
    (
        some_vec(p.required, pod_affinity_term),
        some_vec(p.preferred, |w| core::WeightedPodAffinityTerm {
            pod_affinity_term: pod_affinity_term(w.term.unwrap_or_default()),
            weight: w.weight.unwrap_or_default(),
        }),
    )
}

fn pod_affinity_term(t: PbPodAffinityTerm) -> core::PodAffinityTerm {
    core::PodAffinityTerm {
        label_selector: t.label_selector.map(label_selector),
        match_label_keys: some_strings(t.match_label_keys),
        mismatch_label_keys: some_strings(t.mismatch_label_keys),
        namespace_selector: t.namespace_selector.map(label_selector),
        namespaces: some_strings(t.namespaces),
        topology_key: t.topology_key.unwrap_or_default(),
    }
}

fn node_selector_term(t: PbNodeSelectorTerm) -> core::NodeSelectorTerm {
    let requirement = |r: PbRequirement| core::NodeSelectorRequirement {
        key: r.key.unwrap_or_default(),
        operator: r.operator.unwrap_or_default(),
        values: some_strings(r.values),
    };
    core::NodeSelectorTerm {
        match_expressions: some_vec(t.match_expressions, requirement),
        match_fields: some_vec(t.match_fields, requirement),
    }
}

fn label_selector(s: PbLabelSelector) -> meta::LabelSelector {
    meta::LabelSelector {
        match_expressions: some_vec(s.match_expressions, |r| meta::LabelSelectorRequirement {
            key: r.key.unwrap_or_default(),
            operator: r.operator.unwrap_or_default(),
            values: some_strings(r.values),
        }),
        match_labels: string_map(s.match_labels),
    }
}
