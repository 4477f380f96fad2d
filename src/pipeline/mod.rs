//! One run per command, built once: source -> state -> admission -> evaluate -> report.
//! What runs the scheduler more than once lives here: a workload's replicas in a row
//! (`replicas`), every pod of the cluster at once (`audit`); and one pod's evaluation with
//! its document, the library's entry point (`explain_pod`).

pub mod audit;
mod evaluate;
pub mod replicas;

pub use evaluate::{context, explain_pod, explanation, unevaluated};
