//! One run per command, built once: source -> state -> admission -> evaluate -> report.
//!
//! ```text
//! Options (flags as plain data) -> Run::open: scheduler flags read, source opened
//!   -> the release emulated, the profiles known -> what they need (scheduler::needs)
//!   -> Run::read: the state from the snapshot or the live cluster
//!   -> Run::edit: the edits to try applied (the cluster as read kept for --diff)
//!   -> admission: a manifest's pod as the API server would admit it (whatif)
//!   -> evaluate: one pod (explain, whatif), the replicas of a workload in a row
//!      (replicas), or every pod of the cluster at once (audit)
//!   -> the document (report), and with --diff the same run on the cluster as read beside it
//! ```
//!
//! Each command is a function here (`explain`, `whatif`, `audit`) that the command line
//! calls with its flags; rendering is the caller's.

use std::path::PathBuf;

use crate::cluster::KubeArgs;
use crate::error::Error;
use crate::report::Note;
use crate::scheduler::profile::Profile;
use crate::scheduler::release::Release;
use crate::state::ClusterState;
use crate::state::edits::Edit;
use crate::state::needs::Needs;

mod admission;
pub mod audit;
pub mod controllers;
mod evaluate;
pub mod explain;
mod lints;
pub mod replicas;
pub mod resource_claims;
mod source;
#[cfg(test)]
mod tests;
pub mod updates;
pub mod whatif;

pub use evaluate::{context, explain_pod, explanation, unevaluated};
use source::Source;

/// What every run is given: where the cluster comes from, how the scheduler is configured,
/// and the edits to try.
#[derive(Debug, Clone)]
pub struct Options {
    /// `--snapshot FILE`; `None` reads the cluster `kube` names.
    pub snapshot: Option<PathBuf>,
    pub kube: KubeArgs,
    /// `-n`.
    pub namespace: Option<String>,
    pub scheduler_config: Option<PathBuf>,
    pub feature_gates: Vec<String>,
    pub kubernetes_version: Option<Release>,
    /// In the order they are applied.
    pub edits: Vec<Edit>,
    /// `--diff`: the run on the cluster as read too, and what the edits change.
    pub diff: bool,
    /// `--node`: the nodes drilled into, which the cluster must have.
    pub nodes: Vec<String>,
}

/// A document and, with `--diff`, what the edits change in it.
#[derive(Debug)]
pub struct Diffed<T, D> {
    pub doc: T,
    pub diff: Option<D>,
}

/// A command's result with the cluster and the connection it came from, which are not freed
/// (see [`Outcome::exit_without_freeing`]).
#[derive(Debug)]
pub struct Outcome<T> {
    pub output: T,
    /// Held only to be left to the OS with the output.
    _made_from: (Clusters, Source),
}

impl<T> Outcome<T> {
    /// The command ends here and the process right after it: the state, the document (its
    /// per-node tables) and the connection (its runtime joins its idle threads) are left to
    /// the OS, which takes the memory back at once, rather than freed one allocation at a
    /// time on the path from the last line printed to the exit.
    pub fn exit_without_freeing(self) {
        std::mem::forget(self);
    }
}

/// The cluster a run evaluates, and with `--diff` the cluster as read.
#[derive(Debug)]
struct Clusters {
    /// As read, with the edits applied.
    edited: ClusterState,
    unedited: Option<ClusterState>,
}

/// One command's run: its options, its source and its scheduler flags.
#[derive(Debug)]
struct Run<'a> {
    options: &'a Options,
    source: Source,
    scheduler: source::SchedulerFlags,
}

impl<'a> Run<'a> {
    /// The scheduler flags read and checked, then the source opened.
    fn open(options: &'a Options) -> Result<Run<'a>, Error> {
        let scheduler = source::SchedulerFlags::read(
            &options.feature_gates,
            options.scheduler_config.as_deref(),
        )?;
        let source = Source::open(options.snapshot.as_deref(), &options.kube)?;
        Ok(Run {
            options,
            source,
            scheduler,
        })
    }

    /// The namespace of the pods named and of manifests without one.
    fn namespace(&self) -> String {
        (self.source).namespace(self.options.namespace.as_deref(), &self.options.kube)
    }

    /// Emulates `--kubernetes-version`, else the source's release.
    fn emulate(&mut self) -> Result<(), Error> {
        let version = self.options.kubernetes_version;
        self.scheduler.emulate(version, &self.source)
    }

    fn profile(&self, scheduler_name: &str) -> Result<Profile, Error> {
        self.scheduler.profile(scheduler_name)
    }

    /// The cluster state with what `needs` says, and notes on what could not be read.
    fn read(&self, needs: &Needs) -> Result<(ClusterState, Vec<Note>), Error> {
        self.source.load(needs)
    }

    /// The edits applied to `state`; with `--diff`, the state as read kept beside it. Both as
    /// the release emulated counts the pods' resources.
    fn edit(&self, state: ClusterState) -> Result<Clusters, Error> {
        let rules = self.scheduler.release().resource_rules();
        let unedited = self.options.diff.then(|| state.clone().under(rules));
        let edited = crate::state::edits::apply(state, &self.options.edits)?.under(rules);
        Ok(Clusters { edited, unedited })
    }

    /// The edits as the flags gave them, for the diff.
    fn edits(&self) -> Vec<String> {
        self.options.edits.iter().map(|e| e.to_string()).collect()
    }

    /// Refuses a `--node` that names no node of `state`, before anything is evaluated or
    /// printed, as `kubectl get node` refuses an unknown name. A unique prefix of a name (what
    /// a shortened table shows) names that node; one several names start with is refused
    /// with them.
    fn check_drill_down(&self, state: &ClusterState) -> Result<(), Error> {
        let names = state.nodes().iter().map(|n| n.name.as_str());
        for name in &self.options.nodes {
            if let Err(matches) = crate::report::node_named(names.clone(), name)
                && !matches.is_empty()
            {
                return Err(Error::NodeAmbiguous {
                    name: name.clone(),
                    origin: self.source.name(),
                    matches: crate::scheduler::explain::few(&matches),
                });
            }
        }
        let Some(name) = (self.options.nodes.iter())
            .find(|name| crate::report::node_named(names.clone(), name).is_err())
        else {
            return Ok(());
        };
        // clap's threshold for its own "a similar argument exists" suggestions.
        let closest = state
            .nodes()
            .iter()
            .map(|n| (strsim::jaro(name, &n.name), &n.name))
            .filter(|(score, _)| *score > 0.7)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, n)| n.to_string());
        Err(Error::NodeNotFound {
            name: name.clone(),
            origin: self.source.name(),
            closest,
        })
    }

    fn finish<T>(self, clusters: Clusters, output: T) -> Outcome<T> {
        Outcome {
            output,
            _made_from: (clusters, self.source),
        }
    }
}
