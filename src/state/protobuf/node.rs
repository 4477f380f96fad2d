//! Nodes in protobuf: the fields [`Node::from`] reads (name, labels, taints, unschedulable,
//! allocatable, images), with upstream's field numbers (`k8s.io/api/core/v1/generated.proto`).
//!
//! A node is moved into a `k8s-openapi` node holding just those fields and built by the same
//! [`Node::from`] as a JSON one. In JSON, 5,000 nodes took about 100 ms of a live run to
//! decode (conditions, node info and addresses parsed only to be dropped); here every field
//! not declared is stepped over by its length. Images are read apart, by [`images`], so that
//! the names the state does not keep are never copied out of the page.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;
use prost::Message;
use prost::encoding::{DecodeContext, WireType, decode_key, decode_varint, skip_field};

use super::{PbQuantity, non_empty, quantities, some_map, some_strings, some_vec};
use crate::state::Node;
use crate::state::resources::ImageNames;

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbNode {
    #[prost(message, optional, tag = "1")]
    metadata: Option<PbNodeMeta>,
    #[prost(message, optional, tag = "2")]
    spec: Option<PbNodeSpec>,
    #[prost(message, optional, tag = "3")]
    status: Option<PbNodeStatus>,
}

#[derive(Clone, PartialEq, Message)]
struct PbNodeMeta {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(btree_map = "string, string", tag = "11")]
    labels: BTreeMap<String, String>,
}

#[derive(Clone, PartialEq, Message)]
struct PbNodeSpec {
    #[prost(bool, optional, tag = "4")]
    unschedulable: Option<bool>,
    #[prost(message, repeated, tag = "5")]
    taints: Vec<PbTaint>,
}

#[derive(Clone, PartialEq, Message)]
struct PbTaint {
    #[prost(string, optional, tag = "1")]
    key: Option<String>,
    #[prost(string, optional, tag = "2")]
    value: Option<String>,
    #[prost(string, optional, tag = "3")]
    effect: Option<String>,
}

/// `NodeStatus` without its images (field 8), which [`images`] reads.
#[derive(Clone, PartialEq, Message)]
struct PbNodeStatus {
    #[prost(btree_map = "string, message", tag = "2")]
    allocatable: BTreeMap<String, PbQuantity>,
}

/// The images of a node: `status.images` alone, as prost reads them when [`images`] does not.
#[derive(Clone, PartialEq, Message)]
struct PbNodeImages {
    #[prost(message, optional, tag = "3")]
    status: Option<PbStatusImages>,
}

#[derive(Clone, PartialEq, Message)]
struct PbStatusImages {
    #[prost(message, repeated, tag = "8")]
    images: Vec<PbImage>,
}

#[derive(Clone, PartialEq, Message)]
struct PbImage {
    #[prost(string, repeated, tag = "1")]
    names: Vec<String>,
    #[prost(int64, optional, tag = "2")]
    size_bytes: Option<i64>,
}

/// A node from its bytes, with the images `keep` keeps.
pub(super) fn node(bytes: &[u8], keep: &ImageNames) -> Result<Node, prost::DecodeError> {
    let images = match images(bytes, keep) {
        Some(images) => images,
        // Not as an API server writes it: read by prost, which says what is wrong (or reads
        // what this reader does not), then filtered.
        None => {
            let status = PbNodeImages::decode(bytes)?.status.unwrap_or_default();
            let mut images = some_vec(status.images, |i| core::ContainerImage {
                names: some_strings(i.names),
                size_bytes: i.size_bytes,
            });
            keep.retain(&mut images);
            images
        }
    };
    Ok(PbNode::decode(bytes)?.into_node(images))
}

/// The node's `status.images` (`Node` field 3, `NodeStatus` field 8), each with the names
/// `keep` keeps, and without the images it keeps no name of: the other names are never
/// copied out of the page. `None` for anything an API server does not write (another wire
/// type, a name that is not UTF-8, a length past the end), for prost to read.
fn images(mut node: &[u8], keep: &ImageNames) -> Option<Option<Vec<core::ContainerImage>>> {
    let mut images: Option<Vec<core::ContainerImage>> = None;
    // Every status field's images, in order: protobuf merges a message given twice, and
    // appends the repeated fields.
    each_field(&mut node, |tag, wire, status| {
        if tag != 3 {
            return Some(());
        }
        (wire == WireType::LengthDelimited).then_some(())?;
        each_field(status, |tag, wire, image| {
            if tag != 8 {
                return Some(());
            }
            (wire == WireType::LengthDelimited).then_some(())?;
            let (mut names, mut size_bytes) = (Vec::new(), None);
            while !image.is_empty() {
                let (tag, wire) = decode_key(image).ok()?;
                match (tag, wire) {
                    (1, WireType::LengthDelimited) => {
                        let name = std::str::from_utf8(length_delimited(image)?).ok()?;
                        if keep.keeps(name) {
                            names.push(name.to_string());
                        }
                    }
                    // As prost reads an int64: the varint's low 64 bits.
                    (2, WireType::Varint) => size_bytes = Some(decode_varint(image).ok()? as i64),
                    (1 | 2, _) => return None,
                    _ => skip_field(wire, tag, image, DecodeContext::default()).ok()?,
                }
            }
            // With every name kept, an image is kept as the node lists it, names or none.
            if !names.is_empty() || matches!(keep, ImageNames::All) {
                images.get_or_insert_default().push(core::ContainerImage {
                    names: (!names.is_empty()).then_some(names),
                    size_bytes,
                });
            }
            Some(())
        })
    })?;
    Some(images)
}

/// Calls `f` with each field of `buf`: its tag, its wire type, and its body when it is
/// length-delimited (other fields are stepped over, and given an empty body).
fn each_field<'a>(
    buf: &mut &'a [u8],
    mut f: impl FnMut(u32, WireType, &mut &'a [u8]) -> Option<()>,
) -> Option<()> {
    while !buf.is_empty() {
        let (tag, wire) = decode_key(buf).ok()?;
        let mut body: &[u8] = &[];
        if wire == WireType::LengthDelimited {
            body = length_delimited(buf)?;
        } else {
            skip_field(wire, tag, buf, DecodeContext::default()).ok()?;
        }
        f(tag, wire, &mut body)?;
    }
    Some(())
}

/// The body of a length-delimited field whose key was read.
fn length_delimited<'a>(buf: &mut &'a [u8]) -> Option<&'a [u8]> {
    let len = usize::try_from(decode_varint(buf).ok()?).ok()?;
    let body = buf.get(..len)?;
    *buf = &buf[len..];
    Some(body)
}

impl PbNode {
    fn into_node(self, images: Option<Vec<core::ContainerImage>>) -> Node {
        let n = self;
        let (meta, spec, status) = (
            n.metadata.unwrap_or_default(),
            n.spec.unwrap_or_default(),
            n.status.unwrap_or_default(),
        );
        let node = core::Node {
            metadata: meta::ObjectMeta {
                name: non_empty(meta.name),
                labels: some_map(meta.labels),
                ..Default::default()
            },
            spec: Some(core::NodeSpec {
                unschedulable: spec.unschedulable,
                taints: some_vec(spec.taints, |t| core::Taint {
                    key: t.key.unwrap_or_default(),
                    value: non_empty(t.value),
                    effect: t.effect.unwrap_or_default(),
                    time_added: None,
                }),
                ..Default::default()
            }),
            status: Some(core::NodeStatus {
                allocatable: quantities(status.allocatable),
                images,
                ..Default::default()
            }),
        };
        Node::from(node)
    }
}
