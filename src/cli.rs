//! The command line, as clap derive types. Doc comments are the help text.

use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use crate::cluster::KubeArgs;

/// Explain why a pod can or cannot run on each node, exactly as kube-scheduler decides:
/// node selectors and affinity, taints and tolerations, inter-pod affinity and anti-affinity,
/// with the per-node score.
#[derive(Debug, Parser)]
#[command(
    name = "kubectl-affinity",
    bin_name = "kubectl affinity",
    version,
    about
)]
#[command(propagate_version = true, max_term_width = 100)]
#[command(
    after_help = "Exit codes: 0 done; 1 runtime error (unreadable input, cluster unreachable, \
pod not found); 2 usage error; 3 no node can take the pod (only with --exit-code)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub global: GlobalArgs,
}

impl Cli {
    /// The command line of this process. `__complete` takes every word after it as it is:
    /// the words being completed may hold the global flags (`-n batch explain ...`), which
    /// clap would otherwise take for `__complete`'s own and drop from the words.
    pub fn from_env() -> Cli {
        Cli::from_args(std::env::args_os().collect())
    }

    /// As [`Cli::from_env`], for a given command line (program name first).
    pub fn from_args(args: Vec<std::ffi::OsString>) -> Cli {
        if args.get(1).is_some_and(|a| a == "__complete") {
            let mut cli = Cli::parse_from(&args[..2]);
            if let Command::Complete(c) = &mut cli.command {
                c.words = args[2..]
                    .iter()
                    .map(|w| w.to_string_lossy().into_owned())
                    .collect();
            }
            return cli;
        }
        Cli::try_parse_from(args).unwrap_or_else(|e| without_hidden(e).exit())
    }
}

/// clap's "requires a subcommand" error lists hidden subcommands too (clap-rs/clap#5471, open):
/// it would offer `__complete`, which only kubectl's completion calls. The same error, naming
/// only the subcommands `--help` shows.
fn without_hidden(e: clap::Error) -> clap::Error {
    if e.kind() != clap::error::ErrorKind::MissingSubcommand {
        return e;
    }
    let mut cmd = Cli::command();
    let names: Vec<&str> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| s.get_name())
        .collect();
    let bin = cmd.get_bin_name().unwrap_or(cmd.get_name());
    let message = format!("'{bin}' requires a subcommand: {}", names.join(", "));
    cmd.error(clap::error::ErrorKind::MissingSubcommand, message)
}

/// Flags taken before or after the subcommand, as kubectl takes its own: kubectl hands a
/// plugin every word after its name, so `kubectl affinity --context prod explain web` is as
/// natural to type as `kubectl affinity explain web --context prod`.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Namespace of the pod, for explain and whatif (default: the kubeconfig context's, else
    /// "default"; whatif: a manifest's own namespace, which -n must then match, as for
    /// kubectl apply). Not for snapshot, which saves every namespace.
    #[arg(short = 'n', long, global = true)]
    pub namespace: Option<String>,
    #[command(flatten)]
    pub kube: KubeArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Explain the placement of an existing pod: every node, every rule, the score.
    #[command(after_help = "Examples:\n  \
        # Why is this pending pod not scheduled?\n  \
        kubectl affinity explain web-7d9c -n shop\n\n  \
        # Every rule, expression and score part on two nodes\n  \
        kubectl affinity explain web-7d9c -n shop --node worker-a-1 --node worker-b-2\n\n  \
        # A running pod: would its node still be chosen today?\n  \
        kubectl affinity explain api-7d9c -o wide\n\n  \
        # Offline, against a saved cluster state\n  \
        kubectl affinity explain pod/web-7d9c -n shop --snapshot cluster.yaml -o json\n\n  \
        # Every pod of a Deployment, then its first Pending one explained\n  \
        kubectl affinity explain deploy/web -n shop\n\n  \
        # The pods a label selector picks\n  \
        kubectl affinity explain -l app=web -n shop")]
    Explain(ExplainArgs),
    /// Evaluate a pod manifest that is not created yet (a Pod or a workload's pod template).
    #[command(after_help = "Examples:\n  \
        # Where would each of this Deployment's pods go?\n  \
        kubectl affinity whatif -f deploy.yaml --snapshot cluster.yaml\n\n  \
        # Ten replicas, ties broken at random, replica 7 node by node\n  \
        kubectl affinity whatif -f deploy.yaml --replicas 10 --seed 42 --replica 7\n\n  \
        # Only NodeAffinity, with a custom profile, as JSON\n  \
        kubectl affinity whatif -f pod.yaml --snapshot cluster.yaml --scheduler-config sched.yaml -o json\n\n  \
        # A DaemonSet: on which nodes would its pods run?\n  \
        kubectl affinity whatif -f daemonset.yaml\n\n  \
        # From standard input\n  \
        kubectl get deploy web -o yaml | kubectl affinity whatif -f -\n\n  \
        # Where would two more pods of this running Deployment go?\n  \
        kubectl affinity whatif --scale deploy/web=5 -n shop")]
    Whatif(WhatifArgs),
    /// The cluster at once: Pending pods with the FailedScheduling message the scheduler would
    /// write now, and running pods whose node no longer satisfies their required rules.
    #[command(
        after_help = "Exit codes: as for explain, but with --exit-code, 3 when any pod is \
Pending or breaks its required rules.\n\nExamples:\n  \
        # Which pods are Pending in this namespace, and why?\n  \
        kubectl affinity audit -n shop --pending\n\n  \
        # Which running pods break their own rules since the nodes were relabelled?\n  \
        kubectl affinity audit -A --violating\n\n  \
        # Offline, as JSON, failing a CI step when anything is found\n  \
        kubectl affinity audit -A --snapshot cluster.yaml -o json --exit-code"
    )]
    Audit(AuditArgs),
    /// Save the cluster's nodes, pods and namespaces in the file format --snapshot reads, to
    /// analyse offline, share in a bug report, or replay in tests.
    ///
    /// Of pods and workloads only what scheduling reads is written (no environment, command,
    /// arguments or annotations; the file's header lists what is kept); --full writes every
    /// field. Every namespace is saved: -n does not apply. A list the API server refuses
    /// (403) is left out, said on standard error and at the end of the file; the exit status
    /// is then still 0, as the file is usable.
    #[command(after_help = "Examples:\n  \
        kubectl affinity snapshot -o cluster.yaml --context prod\n  \
        kubectl affinity explain web-7d9c -n shop --snapshot cluster.yaml")]
    Snapshot(SnapshotArgs),
    /// Print a shell completion script for kubectl-affinity (bash, zsh, fish or powershell).
    #[command(after_help = "Examples:\n  \
        # bash, for this shell\n  \
        source <(kubectl-affinity completion bash)\n\n  \
        # `kubectl affinity <TAB>` (kubectl 1.26+) needs the kubectl_complete-affinity\n  \
        # executable from the release archive on your PATH instead.")]
    Completion(CompletionArgs),
    /// Answers kubectl's plugin completion (cobra's __complete protocol); called by the
    /// kubectl_complete-affinity shim.
    #[command(name = "__complete", hide = true)]
    Complete(CompleteArgs),
}

#[derive(Debug, Args)]
pub struct CompletionArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct CompleteArgs {
    /// The words after `kubectl affinity`, the last being the one to complete.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    pub words: Vec<String>,
}

#[derive(Debug, Args)]
pub struct SnapshotArgs {
    /// The file to write ("-" or absent: standard output).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Write every field of every object (environment values, commands, annotations), not
    /// only what scheduling reads; check the file before sharing it.
    #[arg(long)]
    pub full: bool,
    /// Every namespace, as a snapshot always holds (accepted, as for kubectl get -A).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The pod: NAME or pod/NAME; or the pods a workload's controller owns: deploy/NAME,
    /// rs/NAME, sts/NAME, ds/NAME or job/NAME (a row each, then the first Pending one
    /// explained).
    #[arg(required_unless_present = "selector")]
    pub pod: Option<String>,
    /// The pods whose labels match, in kubectl's syntax (app=web,tier!=db, env in (a,b)): a
    /// row each, then the first Pending one explained.
    #[arg(short = 'l', long, value_name = "SELECTOR", conflicts_with = "pod")]
    pub selector: Option<String>,
    #[command(flatten)]
    pub common: CommonArgs,
}

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Every namespace (-n and the kubeconfig context's namespace are then not used, as for
    /// kubectl get -A).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Only the Pending pods (with --violating: both, as without either).
    #[arg(long)]
    pub pending: bool,
    /// Only the running pods whose node breaks their required rules: nodeSelector, required
    /// node affinity, NoSchedule/NoExecute taints, required pod (anti-)affinity.
    #[arg(long)]
    pub violating: bool,
    #[command(flatten)]
    pub common: CommonArgs,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["file", "scale"])))]
pub struct WhatifArgs {
    /// The manifests, as `kubectl apply -f` takes them: files ("-" reads standard input) or
    /// directories, repeated, each several YAML documents, a List or JSON. Their Pods and
    /// workloads (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob, PodTemplate)
    /// are scheduled in order; the objects scheduling reads (Namespaces, Services, PDBs,
    /// PriorityClasses, PVCs, StorageClasses, LimitRanges, RuntimeClasses...) join the
    /// cluster first; the rest are skipped, said in a note.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub file: Vec<PathBuf>,
    /// Read the directories of -f with their subdirectories.
    #[arg(short = 'R', long)]
    pub recursive: bool,
    /// A Deployment, StatefulSet or ReplicaSet that exists (deploy/NAME=N, sts/NAME=N,
    /// rs/NAME=N): schedule the pods scaling it to N would add, beside the pods it runs now
    /// (read from --snapshot, else got from the cluster). Scale-down is not simulated.
    #[arg(
        long,
        value_name = "KIND/NAME=N",
        conflicts_with_all = ["file", "replicas"],
        value_parser = clap::value_parser!(crate::state::scale::ScaleTarget)
    )]
    pub scale: Option<crate::state::scale::ScaleTarget>,
    /// Check the manifest's scheduling fields as the API server does: strict (or true) stops
    /// at a field the API server would reject (kubectl apply would fail); warn evaluates such a
    /// pod anyway, as the scheduler would read it, with a note per field; ignore (or false)
    /// evaluates it without those notes.
    #[arg(
        long,
        value_enum,
        value_name = "MODE",
        default_value_t = Validate::Strict,
        num_args = 0..=1,
        default_missing_value = "strict"
    )]
    pub validate: Validate,
    /// A workload (Deployment, ReplicaSet, ReplicationController, StatefulSet, Job, CronJob):
    /// schedule N pods instead of its replicas (a Job's parallelism).
    #[arg(long, value_name = "N")]
    pub replicas: Option<u32>,
    /// A workload: show the per-node table of replica K (0 is the first scheduled) instead of
    /// the first Pending one.
    #[arg(long, value_name = "K")]
    pub replica: Option<usize>,
    /// A workload: break ties between top-scored nodes at random with this seed, instead of
    /// taking the first by name.
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Ask the live API server: create the pod with dryRun=All (nothing is stored) and
    /// evaluate the pod it returns, with its defaulting, admission plugins and webhooks. The
    /// one request that is not a GET (needs create on pods); without it the tool only reads.
    #[arg(long)]
    pub server_dry_run: bool,
    /// Admission plugins to run besides kube-apiserver's defaults, as its flag of that name
    /// takes them (comma-separated): PodNodeSelector and PodTolerationRestriction apply their
    /// namespace annotations only when named here, as on the API server.
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub enable_admission_plugins: Vec<String>,
    /// Admission plugins to leave out, as kube-apiserver's flag of that name takes them
    /// (comma-separated): LimitRanger, DefaultTolerationSeconds, RuntimeClass.
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub disable_admission_plugins: Vec<String>,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// `--validate`, with kubectl's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Validate {
    #[value(alias = "true")]
    Strict,
    Warn,
    #[value(alias = "false")]
    Ignore,
}

#[derive(Debug, Args)]
pub struct CommonArgs {
    /// Read the cluster from a file instead of the live cluster: one written by
    /// `kubectl affinity snapshot`, which saves every kind the rules read. A
    /// `kubectl get nodes,pods,namespaces -A -o yaml` (or -o json) also reads; what it leaves
    /// out is said as not evaluated: add services,replicasets,replicationcontrollers,statefulsets
    /// for default spreading, persistentvolumeclaims,persistentvolumes,storageclasses,csinodes,csidrivers
    /// for volumes, deviceclasses,resourceslices,resourceclaims,resourceclaimtemplates for
    /// ResourceClaims, poddisruptionbudgets,priorityclasses for preemption and priorityClassName.
    #[arg(long, value_name = "FILE")]
    pub snapshot: Option<PathBuf>,
    /// A KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1); the profile whose
    /// schedulerName is the pod's is used. Default: kube-scheduler's default profile.
    #[arg(long, value_name = "FILE")]
    pub scheduler_config: Option<PathBuf>,
    /// Feature gates as kube-scheduler takes them, e.g. TaintTolerationComparisonOperators=true
    /// (repeatable; later settings win).
    #[arg(long, value_name = "NAME=BOOL,...")]
    pub feature_gates: Vec<String>,
    /// The kube-scheduler release to emulate (1.31 to 1.35): its reason texts, default
    /// plugins and feature gates. Default: the API server's version when live, the version a
    /// snapshot records, else 1.35.
    #[arg(long, value_name = "RELEASE", value_parser = parse_release)]
    pub kubernetes_version: Option<crate::scheduler::release::Release>,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = Output::Table)]
    pub output: Output,
    /// Exit with code 3 when no node can take the pod (a workload: when any replica stays
    /// Pending; a DaemonSet: when any of its pods would).
    #[arg(long)]
    pub exit_code: bool,
    /// Drill down into a node: every term and expression with the node's value, every taint,
    /// every pod term with its domain and pods, the score chain. A unique prefix of a name
    /// names that node. Repeatable.
    #[arg(long = "node", value_name = "NAME")]
    pub nodes: Vec<String>,
    /// Colour: auto (a terminal and NO_COLOR unset), always or never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Leave out the header lines and the column headers.
    #[arg(long)]
    pub no_headers: bool,
    /// List every node, also on clusters of more than 50 nodes (where the table otherwise
    /// shows the best candidates and groups the rest by reason).
    #[arg(long)]
    pub all_nodes: bool,
    #[command(flatten)]
    pub edits: EditArgs,
}

/// Edits to the cluster state, tried before they are made: the state read is changed in
/// memory, then evaluated; nothing is written to the cluster. Applied in this order: nodes
/// added, cordons, uncordons, labels, taints, pods removed (so a label may follow an added
/// node).
#[derive(Debug, Args)]
#[command(next_help_heading = "Edits to try (nothing is written to the cluster)")]
pub struct EditArgs {
    /// As after `kubectl cordon NODE` (with the taint the node controller then adds).
    #[arg(long, value_name = "NODE")]
    pub cordon: Vec<String>,
    /// As after `kubectl uncordon NODE`.
    #[arg(long, value_name = "NODE")]
    pub uncordon: Vec<String>,
    /// As after `kubectl label --overwrite node NODE key=value` (key- removes the label).
    #[arg(long, num_args = 2, value_names = ["NODE", "KEY=VALUE"])]
    pub label: Vec<String>,
    /// As after `kubectl taint --overwrite node NODE key=value:Effect` (key:Effect- or key-
    /// removes it).
    #[arg(long, num_args = 2, value_names = ["NODE", "KEY=VALUE:EFFECT"])]
    pub taint: Vec<String>,
    /// As after the pod is deleted (and not recreated).
    #[arg(long, value_name = "NAMESPACE/NAME")]
    pub remove_pod: Vec<String>,
    /// A new node like the one --like names: its labels (hostname renamed), taints,
    /// allocatable and images, no pods.
    #[arg(long, value_name = "NAME", requires = "like")]
    pub add_node: Vec<String>,
    /// The node each --add-node copies, in the same order.
    #[arg(long, value_name = "NODE", requires = "add_node")]
    pub like: Vec<String>,
    /// With edits: also evaluate the cluster as it is, and show what the edits change.
    #[arg(long)]
    pub diff: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// Fits 80 columns: a column per rule kind and the total score.
    Table,
    /// The table plus the score parts per plugin and the reason the scheduler records.
    Wide,
    Json,
    Yaml,
}

/// `--kubernetes-version`: `1.33`, `v1.33` or `v1.33.5`.
fn parse_release(s: &str) -> Result<crate::scheduler::release::Release, String> {
    crate::scheduler::release::Release::parse(s).ok_or_else(|| {
        format!(
            "{s:?} is not a release this version emulates; use one of {}",
            crate::scheduler::release::supported()
        )
    })
}
