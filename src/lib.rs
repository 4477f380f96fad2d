//! kubectl-affinity: why is my pod (not) running on that node?
//!
//! Data flow, one run per command (`pipeline`), which `app` maps the command line to:
//!
//! ```text
//! what to read:  scheduler::needs(&pod, &profile) -> state::Needs (plain data)
//! live:     kubeconfig flags -> cluster (paged lists of what is needed) --+
//! offline:  --snapshot FILE  -> state::read_snapshot (streamed) ----------+
//!             every wire format -> state::decode -> PodParts / NodeParts   |
//!             -> one build -> state::ClusterState (compact, indexed) <-----+
//!                                                       v
//!       edits to try applied (the cluster as read kept beside for --diff);
//!       whatif: the manifest's pod made and admitted as the API server would
//!                                                       v
//!       scheduler::evaluate(Input { pod, state }, &Profile) -> Evaluation
//!           per node, per plugin in upstream order: Filter verdict + typed details;
//!           per candidate node: raw, normalized, weighted scores
//!           (one pod; a workload's replicas in a row; every pod of an audit at once)
//!                                                       v
//!       report::Explanation (versioned) -> render::{table, json, yaml}
//! ```
//!
//! `scheduler` is pure (no client, terminal or clock), which is what lets the oracle corpus
//! (cases translated from upstream's own unit tests) drive it directly. Imports point down
//! only (app -> cli, pipeline, render -> cluster, report -> scheduler -> state; cluster
//! reads only state) and no file imports itself through others: `tests/it/layers.rs` checks
//! both. `pipeline` runs every step and renders nothing; `report` owns the output's schema
//! and its typed notes, and describes the results it is given; a plugin's explanation (its
//! detail type, cells, drill-down lines, suggestions) lives beside the plugin; `render` draws.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod app;
pub mod cli;
pub mod cluster;
pub mod complete;
pub mod error;
#[doc(hidden)]
pub mod fuzz_entry;
pub mod pipeline;
pub mod render;
pub mod report;
pub mod scheduler;
pub mod state;
