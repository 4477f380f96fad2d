//! The integration tests, one crate: the library is linked once, and one build serves every
//! test. A module per subject; `support` holds what they share.

mod support;

mod admission;
mod advice;
mod apply;
mod audit;
mod cli;
mod completions;
mod dra;
mod fuzz;
mod fuzz_regressions;
mod hostile;
mod krew;
mod layers;
mod layout;
mod lints;
mod live;
mod newuser;
mod oracle;
mod oracle_diff;
mod oracle_diff_dra;
mod protobuf;
mod readme;
mod real_server;
mod replicas;
mod scale;
mod table;
mod transcripts;
mod updates;
mod versions;
mod workload;
mod yaml;
