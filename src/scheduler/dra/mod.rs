//! Dynamic Resource Allocation's libraries, as upstream keeps them apart from the
//! DynamicResources plugin: the CEL environment of device selectors
//! (k8s.io/dynamic-resource-allocation/cel) and the structured allocator
//! (k8s.io/dynamic-resource-allocation/structured), over plain copies of the
//! resource.k8s.io/v1 objects, which the model keeps ([`types`], `state::dra`).

pub mod allocator;
pub mod cel;
pub mod semver;

pub use crate::state::dra as types;
