//! The errors a run can end with. Every message names what failed and what to do next.

use crate::cluster::ClusterError;
use crate::scheduler::config::ProfileError;
use crate::state::SourceError;

/// Exit code for a runtime error.
pub const EXIT_ERROR: i32 = 1;
/// Exit code for a usage error (bad flags or arguments), as clap uses.
pub const EXIT_USAGE: i32 = 2;
/// Exit code with `--exit-code` when no node can take the pod.
pub const EXIT_NO_FEASIBLE_NODE: i32 = 3;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An input file (manifest, snapshot, scheduler config) is unreadable or malformed.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// The scheduler configuration or feature gates are invalid.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// The manifest holds nothing we can turn into a pod.
    #[error("{path}: {message}")]
    Manifest { path: String, message: String },
    /// The live cluster could not be configured or read (unreachable, TLS, timeout, 401, a
    /// missing permission...).
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    /// The pod to explain is not in the cluster state (`origin`: the snapshot file, or the
    /// kubeconfig context).
    #[error(
        "pod {namespace}/{name} not found in {origin}{}; check the name and namespace (-n), or list pods with `kubectl get pods -n {namespace}`",
        hint.as_ref().map(|h| format!(" ({h})")).unwrap_or_default()
    )]
    PodNotFound {
        namespace: String,
        name: String,
        origin: String,
        /// `did you mean "web-1"?` (the nearest name in the namespace), or the namespaces
        /// where a pod of that name is; only from the source read.
        hint: Option<String>,
    },
    /// `explain -l SELECTOR` found no pod: kubectl's words, on standard error, and a
    /// successful exit, as `kubectl get pods -l` (the command answers it, never `main`).
    #[error("No resources found in {namespace} namespace.")]
    NoPods { namespace: String },
    /// `explain deploy/NAME` found no pod of the workload, in kubectl's words for a workload
    /// that does not exist (`resource`: `deployments.apps`); the pods are all that is read of
    /// it, so one scaled to 0 reads the same, and the message says so.
    #[error(
        "Error from server (NotFound): {resource} \"{name}\" not found: no pod of namespace {namespace} in {origin} belongs to it (one scaled to 0 reads the same); check the name and namespace (-n), or list them with `kubectl get {plural} -n {namespace}`",
        plural = resource.split('.').next().unwrap_or_default()
    )]
    WorkloadNotFound {
        resource: &'static str,
        name: String,
        namespace: String,
        origin: String,
    },
    /// A node named with `--node` is not in the cluster state: a typo would otherwise leave
    /// the drill-down out with only a line at the end of the table (and nothing at all with
    /// `-o json`), and a script would not notice.
    #[error(
        "node {name:?} (--node) not found in {origin}{}; check the name, or list nodes with `kubectl get nodes`",
        closest.as_ref().map(|c| format!(" (did you mean {c:?}?)")).unwrap_or_default()
    )]
    NodeNotFound {
        name: String,
        origin: String,
        /// The most similar node name, when one is close enough to be a likely typo.
        closest: Option<String>,
    },
    /// A `--node` prefix several node names start with.
    #[error(
        "node {name:?} (--node) names no node of {origin} and starts several: {matches}; give more of the name"
    )]
    NodeAmbiguous {
        name: String,
        origin: String,
        matches: String,
    },
    /// An edit to try names a node or pod the cluster state does not have.
    #[error("{0}; check the name, or list them with `kubectl get nodes` / `kubectl get pods -A`")]
    Edit(#[from] crate::state::edits::EditError),
    /// A command needs an input it was not given.
    #[error("{0}")]
    Usage(String),
    /// `whatif --scale`: the workload is not there, or not in a state to scale.
    #[error(transparent)]
    Scale(#[from] crate::state::scale::ScaleError),
    /// Writing the output failed (e.g. a closed pipe).
    #[error("writing output: {0}")]
    Output(#[from] std::io::Error),
}

impl Error {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) => EXIT_USAGE,
            _ => EXIT_ERROR,
        }
    }
}
