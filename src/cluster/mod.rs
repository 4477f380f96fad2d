//! The only place that talks to an API server (and the only one that names `kube::Client`).
//!
//! Read-only by construction: every request here is a GET (`Api::get`, `Api::list`); nothing
//! creates, patches or deletes, and `tests/live.rs` checks that the fake API server never
//! sees another verb. Lists are read in pages and folded into the compact
//! [`ClusterState`](crate::state::ClusterState) page by page, so memory follows the compact
//! model, not the size of the API objects.

mod config;
mod error;
mod fetch;

pub use config::{KubeArgs, Timeout, context_namespace, parse_timeout};
pub use error::ClusterError;
pub use fetch::{EventLookup, Fetched, LastEvent, Live, NON_TERMINAL_PODS, Names};
