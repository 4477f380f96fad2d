//! Decoding pod and node lists served as protobuf (`application/vnd.kubernetes.protobuf`), the
//! encoding kube-scheduler's own client asks for (nodes: `node`). A pod is smaller than in
//! JSON, and every field carries its length, so the parts no plugin reads (`managedFields`,
//! env, probes, most of the status) are stepped over without being parsed.
//!
//! The messages below are the API's own (`k8s.io/api/core/v1/generated.proto`,
//! `k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto`), cut down to the fields the
//! [`PodParts`] hold, with upstream's field numbers; fields not declared here are skipped by
//! prost. Each decoded pod is moved into the same [`PodParts`] as a JSON one, so both build the
//! same compact [`Pod`] (the tests check this field by field against an independent encoder).
//!
//! Go writes a non-pointer field even when it holds its zero value, where JSON's `omitempty`
//! leaves it out: an empty string of such a field reads here as absent, as it does in JSON.

use prost::Message;
use prost::encoding::WireType;

use crate::state::node::Node;
use crate::state::parts::PodParts;
use crate::state::pod::Pod;
use crate::state::resources::ImageNames;

mod frames;
mod messages;
mod node;
mod shared;
mod wire;

use frames::Frames;
use messages::{ListMeta, PbPod, PbStatus, TypeMeta};
pub use wire::ProtobufError;
use wire::{field_length, key, length_delimited, skip};

/// The four bytes every protobuf-encoded API object starts with (`k8s\0`).
const MAGIC: &[u8; 4] = b"k8s\x00";

/// The media type an API server answers protobuf with.
pub const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

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
            (2, WireType::LengthDelimited) if raw.is_some() => {
                return Err(ProtobufError::SeveralObjects);
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
/// round trip per page on the critical path (most of a paged list's time against a distant
/// server). The page is still decoded whole,
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
