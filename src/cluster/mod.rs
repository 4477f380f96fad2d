//! The only place that talks to an API server (and the only one that names `kube::Client`).
//!
//! Read-only by construction: every request here is a GET (`Api::get`, `Api::list`); nothing
//! patches or deletes, and `tests/it/live.rs` checks that the fake API server never sees another
//! verb. The one exception is opt-in: `whatif --server-dry-run` creates its pod with
//! `dryRun=All` (`dry_run`), which the API server never stores. Lists are read in pages and folded into the compact
//! [`ClusterState`](crate::state::ClusterState) page by page, so memory follows the compact
//! model, not the size of the API objects. What is read besides nodes and pods is what the
//! caller's [`Needs`](crate::state::needs::Needs) say, and nothing more.
//!
//! - `client`: the connection ([`Live`]), one pod by name, names for completion;
//! - `config`: the kubeconfig, as kubectl reads it, and the HTTP client built from it;
//! - `requests`: one request, its retries, and its failure as a [`ClusterError`];
//! - `pager`: lists read in pages, in protobuf or JSON;
//! - `fetch`: the cluster's state; `events`: the scheduler's last event for a pod;
//! - `workload`: the workload `whatif --scale` scales, by name;
//! - `snapshot`: the snapshot writer; `notes`: what a read had to do without, as data (the
//!   report words it).

mod admission;
mod client;
mod config;
mod dry_run;
mod error;
mod events;
mod fetch;
mod notes;
mod pager;
mod requests;
mod snapshot;
mod workload;

pub use client::{Live, Names};
pub use config::{KubeArgs, Timeout, context_namespace, parse_timeout};
pub use error::ClusterError;
pub use events::{EventLookup, LastEvent, PodEvents};
pub use fetch::Fetched;
pub use notes::{Omission, Refused};
pub use snapshot::Contents;
// For `crate::fuzz_entry`, which hands the binary's own paths to the fuzz targets.
pub(crate) use config::{client, load};
pub(crate) use fetch::json_node_page;
