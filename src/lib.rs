//! kubectl-affinity: why is my pod (not) running on that node?
//!
//! Data flow:
//!
//! ```text
//! what to read:  scheduler::needs(&pod, &profile) -> state::Needs (plain data)
//! live:     kubeconfig flags -> cluster (paged lists of what is needed) --+
//! offline:  --snapshot FILE  -> state::read_snapshot (streamed) ----------+
//!             every wire format -> state::decode -> PodParts / NodeParts   |
//!             -> one build -> state::ClusterState (compact, indexed) <-----+
//!                                                       v
//!       scheduler::evaluate(Input { pod, state }, &Profile) -> Evaluation
//!           per node, per plugin in upstream order: Filter verdict + typed details;
//!           per candidate node: raw, normalized, weighted scores
//!                                                       v
//!       report::Explanation (versioned) -> render::{table, json, yaml}
//! ```
//!
//! `scheduler` is pure (no client, terminal or clock), which is what lets the oracle corpus
//! (cases translated from upstream's own unit tests) drive it directly. Imports point down
//! only (app -> cluster, render -> report -> scheduler -> state; cluster reads only state)
//! and no file imports itself through others: `tests/it/layers.rs` checks both. `report` owns
//! the output's schema and its typed notes; `render` chooses every word.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod app;
pub mod cli;
pub mod cluster;
pub mod complete;
pub mod error;
#[doc(hidden)]
pub mod fuzz_entry;
pub mod render;
pub mod report;
pub mod scheduler;
pub mod state;
