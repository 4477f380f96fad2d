//! The wire front-ends: each reads one format into the parts the model is built from
//! ([`crate::state::parts`]), and hands them to the one build.
//!
//! - `json`: API pages and snapshot items, by the parts' serde derives;
//! - `protobuf`: API pages in `application/vnd.kubernetes.protobuf`, with the replicas of a
//!   page matched by bytes behind the same entry point;
//! - `api`: full `k8s-openapi` objects (manifests, the pod `explain` fetched), converted into
//!   the model's own types once, here;
//! - `checked`: the one field the parts type-check with a `k8s-openapi` type and then drop.

pub(crate) mod api;
pub(crate) mod checked;
pub mod json;
pub mod protobuf;
