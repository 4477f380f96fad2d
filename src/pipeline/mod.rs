//! One run per command, built once: source -> state -> admission -> evaluate -> report.
//! What runs the scheduler more than once lives here: a workload's replicas in a row
//! (`replicas`), every pod of the cluster at once (`audit`).

pub mod audit;
pub mod replicas;
