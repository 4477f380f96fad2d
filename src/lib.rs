//! kubectl-affinity: why is my pod (not) running on that node?
//!
//! Data flow:
//!
//! ```text
//! live:     kubeconfig flags -> cluster (paged lists) --+
//! offline:  --snapshot FILE  -> state::read_snapshot ---+
//!                                                       v
//!                                  state::ClusterState (compact, indexed)
//!                                                       v
//!       scheduler::evaluate(Input { pod, state }, &Profile) -> Evaluation
//!           per node, per plugin in upstream order: Filter verdict + typed details;
//!           per candidate node: raw, normalized, weighted scores
//!                                                       v
//!       report::Explanation (versioned) -> render::{table, json, yaml}
//! ```
//!
//! `scheduler` is pure (no client, terminal or clock), which is what lets the oracle corpus
//! (cases translated from upstream's own unit tests) drive it directly.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod app;
pub mod cli;
pub mod cluster;
pub mod complete;
pub mod error;
pub mod render;
pub mod report;
pub mod scheduler;
pub mod state;
