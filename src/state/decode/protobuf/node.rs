//! Nodes in protobuf: the fields [`NodeParts`] hold (name, labels, taints, unschedulable,
//! allocatable, images, declared features), with upstream's field numbers (`k8s.io/api/core/v1/generated.proto`).
//!
//! A node is read into its parts and built by the same [`Node::from_parts`] as a JSON one.
//! In JSON, a node's conditions, node info and addresses are parsed only to be dropped; here
//! every field not declared is stepped over by its length. Images are read apart, by
//! [`images`], so that the names the state does not keep are never copied out of the page,
//! and labels by [`labels`], each string copied once; both leave anything not written as a
//! server writes it to prost.

use prost::Message;
use prost::encoding::{WireType, decode_varint};

use super::messages::{PbQuantityEntry, PbStringEntry, quantity_map};
use super::wire::{LD_BYTE, field, key, length_delimited, skip, string_entry};
use crate::state::labels::Labels;
use crate::state::node::Node;
use crate::state::parts::{NodeImage, NodeParts};
use crate::state::resources::ImageNames;
use crate::state::taints::Taint;

#[derive(Clone, PartialEq, Message)]
pub(super) struct PbNode {
    #[prost(message, optional, tag = "1")]
    metadata: Option<PbNodeMeta>,
    #[prost(message, optional, tag = "2")]
    spec: Option<PbNodeSpec>,
    #[prost(message, optional, tag = "3")]
    status: Option<PbNodeStatus>,
}

/// `ObjectMeta` without its labels (field 11), which [`labels`] reads.
#[derive(Clone, PartialEq, Message)]
struct PbNodeMeta {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
}

/// The labels of a node: `metadata.labels` alone, as prost reads them when [`labels`] does
/// not.
#[derive(Clone, PartialEq, Message)]
struct PbNodeLabels {
    #[prost(message, optional, tag = "1")]
    metadata: Option<PbMetaLabels>,
}

#[derive(Clone, PartialEq, Message)]
struct PbMetaLabels {
    #[prost(message, repeated, tag = "11")]
    labels: Vec<PbStringEntry>,
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
    #[prost(message, repeated, tag = "2")]
    allocatable: Vec<PbQuantityEntry>,
    #[prost(string, repeated, tag = "14")]
    declared_features: Vec<String>,
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
            status
                .images
                .into_iter()
                .filter_map(|i| {
                    let mut names = i.names;
                    names.retain(|n| keep.keeps(n));
                    kept(names, i.size_bytes, keep)
                })
                .collect()
        }
    };
    // Made a set as every protobuf map is made a map: a key given twice keeps its last value.
    let labels: Labels = match labels(bytes) {
        Some(labels) => labels.into_iter().collect(),
        None => {
            let entries = PbNodeLabels::decode(bytes)?
                .metadata
                .unwrap_or_default()
                .labels;
            entries.iter().map(|e| (&e.key, &e.value)).collect()
        }
    };
    Ok(Node::from_parts(
        PbNode::decode(bytes)?.into_parts(labels, images),
    ))
}

/// The node's labels (`Node` field 1, `ObjectMeta` field 11), each entry read by
/// [`string_entry`] (fewer instructions than prost's), in the order written, as entries of
/// every metadata message (protobuf merges a message given twice and appends the entries of
/// a map). `None` where [`string_entry`] leaves the node to prost.
fn labels(node: &[u8]) -> Option<Vec<(&str, &str)>> {
    let mut labels = Vec::new();
    each_nested(node, 1, 11, |entry| {
        labels.push(string_entry(entry)?);
        Some(())
    })?;
    Some(labels)
}

/// Gives `each` the body of every field `inner` of every message `outer` of the node, in the
/// order written: protobuf merges a message given twice and appends its repeated fields.
/// `None` when either field is not length-delimited, or anything else is not as an API
/// server writes it ([`field`]), or `each` says so.
fn each_nested<'a>(
    mut node: &'a [u8],
    outer: u32,
    inner: u32,
    mut each: impl FnMut(&'a [u8]) -> Option<()>,
) -> Option<()> {
    while !node.is_empty() {
        let (tag, wire, mut message) = field(&mut node)?;
        if tag != outer {
            continue;
        }
        (wire == LD_BYTE).then_some(())?;
        while !message.is_empty() {
            let (tag, wire, body) = field(&mut message)?;
            if tag != inner {
                continue;
            }
            (wire == LD_BYTE).then_some(())?;
            each(body)?;
        }
    }
    Some(())
}

/// The node's `status.images` (`Node` field 3, `NodeStatus` field 8), each with the names
/// `keep` keeps, and without the images it keeps no name of: the other names are never
/// copied out of the page. `None` for anything an API server does not write (another wire
/// type, a name that is not UTF-8, a length past the end), for prost to read.
fn images(node: &[u8], keep: &ImageNames) -> Option<Vec<NodeImage>> {
    let mut images = Vec::new();
    each_nested(node, 3, 8, |body| {
        images.extend(image(body, keep)?);
        Some(())
    })?;
    Some(images)
}

/// One `ContainerImage` with the names `keep` keeps; `Some(None)` when it keeps none of them
/// (with every name kept, an image is kept as the node lists it, names or none).
fn image(mut image: &[u8], keep: &ImageNames) -> Option<Option<NodeImage>> {
    let (mut names, mut size_bytes) = (Vec::new(), None);
    while !image.is_empty() {
        let (tag, wire) = key(&mut image).ok()?;
        match (tag, wire) {
            (1, WireType::LengthDelimited) => {
                let name = std::str::from_utf8(length_delimited(&mut image).ok()?).ok()?;
                if keep.keeps(name) {
                    names.push(name.to_string());
                }
            }
            // As prost reads an int64: the varint's low 64 bits.
            (2, WireType::Varint) => size_bytes = Some(decode_varint(&mut image).ok()? as i64),
            (1 | 2, _) => return None,
            _ => skip(wire, tag, &mut image).ok()?,
        }
    }
    Some(kept(names, size_bytes, keep))
}

/// An image with the names kept, or none when it has none left and `keep` keeps only some
/// (with every name kept, an image is kept as the node lists it, names or none).
fn kept(names: Vec<String>, size_bytes: Option<i64>, keep: &ImageNames) -> Option<NodeImage> {
    (!names.is_empty() || matches!(keep, ImageNames::All)).then(|| NodeImage {
        names,
        size_bytes: size_bytes.unwrap_or(0),
    })
}

impl PbNode {
    /// The node's parts, with its labels and its images as [`images`] keeps them.
    fn into_parts(self, labels: Labels, images: Vec<NodeImage>) -> NodeParts {
        let (meta, spec, status) = (
            self.metadata.unwrap_or_default(),
            self.spec.unwrap_or_default(),
            self.status.unwrap_or_default(),
        );
        NodeParts {
            name: meta.name.unwrap_or_default(),
            labels,
            taints: spec
                .taints
                .into_iter()
                .map(|t| Taint {
                    key: t.key.unwrap_or_default(),
                    value: t.value.unwrap_or_default(),
                    effect: t.effect.unwrap_or_default(),
                })
                .collect(),
            unschedulable: spec.unschedulable.unwrap_or(false),
            declared_features: status.declared_features,
            allocatable: quantity_map(status.allocatable),
            images,
        }
    }
}
