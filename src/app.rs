//! One function per subcommand: source -> state -> evaluate -> report -> render.

use std::io::Write;
use std::path::{Path, PathBuf};

use k8s_openapi::api::core::v1::{self as core, PersistentVolumeClaim};

use crate::cli::{
    AuditArgs, Cli, ColorChoice, Command, CommonArgs, GlobalArgs, Output, SnapshotArgs, Validate,
    WhatifArgs,
};
use crate::cluster::{
    Contents, EventLookup, KubeArgs, LastEvent, Live, Omission, Refused, context_namespace,
};
use crate::error::{EXIT_NO_FEASIBLE_NODE, Error};
use crate::pipeline::explain_pod;
use crate::pipeline::replicas::{WorkloadRun, simulate};
use crate::report::{DaemonTolerations, Explanation, Manifest, Note, Refusal, Subject};
use crate::scheduler::config::FeatureGates;
use crate::scheduler::needs::needs;
use crate::scheduler::profile::Profile;
use crate::scheduler::release::Release;
use crate::scheduler::workload::{SplitMix64, TieBreak};
use crate::state::needs::Needs;
use crate::state::scale::{Existing, Missing, ScaleTarget};
use crate::state::{
    ClusterState, FoundPod, ManifestPod, Pod, PodRef, SourceError, add_daemon_tolerations,
    merge_match_label_keys, read_objects, read_pod_manifests, read_snapshot, recorded_version,
    require_nodes,
};

/// Runs the command; returns the process exit code for successful runs.
/// The answer goes to `out`; `warn` (standard error) gets what a user must not miss while
/// `out` goes to a file or a pipe.
pub fn run(cli: Cli, out: &mut dyn Write, warn: &mut dyn Write) -> Result<u8, Error> {
    match cli.command {
        Command::Explain(args) => match explain_target(args.pod.as_deref(), args.selector)? {
            Target::Pod(name) => explain(&name, &args.common, &cli.global, out),
            Target::Several(several) => explain_several(&several, &args.common, &cli.global, out),
        },
        Command::Whatif(args) => whatif(&args, &cli.global, out, warn),
        Command::Completion(args) => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(args.shell, &mut cmd, "kubectl-affinity", out);
            Ok(0)
        }
        Command::Complete(args) => complete(&args.words, out),
        Command::Snapshot(args) => snapshot(&args, &cli.global, out, warn),
        Command::Audit(args) => audit(&args, &cli.global, out),
    }
}

/// Answers kubectl's plugin completion. Failing to read the cluster is not an error for the
/// user's shell: it gets the `Error` directive and no candidates.
fn complete(words: &[String], out: &mut dyn Write) -> Result<u8, Error> {
    use crate::complete::{Candidate, Want, answer, directive, plan};
    let plan = plan(&crate::complete::built(), words);
    let names = match &plan.want {
        Want::Fixed(c) => Some(c.clone()),
        Want::Files | Want::Nothing => Some(Vec::new()),
        Want::Nodes | Want::Namespaces | Want::Pods { .. } => {
            completion_names(&plan).ok().map(|names| {
                names
                    .into_iter()
                    .map(|value| Candidate {
                        value,
                        description: String::new(),
                    })
                    .collect()
            })
        }
    };
    let dir = match plan.want {
        Want::Files => directive::DEFAULT,
        _ => directive::NO_FILE_COMP,
    };
    let text = match names {
        Some(c) => answer(&plan, &c, dir),
        None => answer(&plan, &[], directive::ERROR),
    };
    out.write_all(text.as_bytes())?;
    Ok(0)
}

/// Names for completion, from the `--snapshot` on the line, else from the cluster the line's
/// kubeconfig flags name (only the one list needed, never the whole cluster).
fn completion_names(plan: &crate::complete::Plan) -> Result<Vec<String>, Error> {
    use crate::cluster::Names;
    use crate::complete::Want;
    if let Some(path) = &plan.snapshot {
        let state = read_snapshot(Path::new(path))?;
        let mut v: Vec<String> = match &plan.want {
            Want::Nodes => state.nodes().iter().map(|n| n.name.clone()).collect(),
            Want::Namespaces => match state.namespaces() {
                Some(ns) => ns.keys().cloned().collect(),
                None => state
                    .all_pods()
                    .map(|p| p.id.namespace.to_string())
                    .collect(),
            },
            Want::Pods { namespace } => {
                let ns = match namespace {
                    Some(ns) => ns.clone(),
                    None => context_namespace(&completion_kube_args(plan)?)
                        .unwrap_or_else(|| "default".to_string()),
                };
                state
                    .all_pods()
                    .filter(|p| *p.id.namespace == *ns)
                    .map(|p| p.id.name.to_string())
                    .collect()
            }
            _ => Vec::new(),
        };
        v.sort();
        v.dedup();
        return Ok(v);
    }
    let live = Live::connect(&completion_kube_args(plan)?)?;
    let names = match &plan.want {
        Want::Nodes => live.names(Names::Nodes)?,
        Want::Namespaces => live.names(Names::Namespaces)?,
        Want::Pods { namespace } => {
            let ns = namespace
                .clone()
                .unwrap_or_else(|| live.default_namespace.clone());
            live.names(Names::Pods(&ns))?
        }
        _ => Vec::new(),
    };
    Ok(names)
}

/// The kubeconfig flags typed on the line being completed (other flags left aside).
fn completion_kube_args(plan: &crate::complete::Plan) -> Result<crate::cluster::KubeArgs, Error> {
    #[derive(clap::Parser)]
    struct Only {
        #[command(flatten)]
        kube: crate::cluster::KubeArgs,
    }
    let known = <Only as clap::CommandFactory>::command();
    let mut argv = vec!["kubectl-affinity".to_string()];
    for (flag, value) in &plan.flags {
        if known.get_arguments().any(|a| a.get_long() == Some(flag)) {
            argv.push(format!("--{flag}={value}"));
        }
    }
    <Only as clap::Parser>::try_parse_from(&argv)
        .map(|o| o.kube)
        .map_err(|e| Error::Usage(e.to_string()))
}

/// Where the cluster comes from: a file, or the cluster the kubeconfig flags name.
#[derive(Debug)]
enum Source {
    Snapshot(PathBuf),
    Live(Box<Live>),
}

impl Source {
    fn open(common: &CommonArgs, kube: &KubeArgs) -> Result<Source, Error> {
        Ok(match &common.snapshot {
            Some(path) => Source::Snapshot(path.clone()),
            None => Source::Live(Box::new(Live::connect(kube)?)),
        })
    }

    /// `snapshot FILE` or `context NAME (SERVER)`, for the report.
    fn name(&self) -> String {
        match self {
            Source::Snapshot(path) => format!("snapshot {}", path.display()),
            Source::Live(live) => live.source(),
        }
    }

    /// The namespace when the manifest gives none: -n, else the kubeconfig context's (also
    /// offline, when a kubeconfig is readable), else "default", as kubectl does.
    fn namespace(&self, global: &GlobalArgs) -> String {
        if let Some(ns) = &global.namespace {
            return ns.clone();
        }
        match self {
            Source::Live(live) => live.default_namespace.clone(),
            Source::Snapshot(_) => {
                context_namespace(&global.kube).unwrap_or_else(|| "default".to_string())
            }
        }
    }
}

/// The cluster state from `source`, with notes on what could not be read. Live, what is read
/// besides nodes and pods is what `needs` says; a snapshot is read whole.
fn load_state(source: &Source, needs: &Needs) -> Result<(ClusterState, Vec<Note>), Error> {
    match source {
        Source::Snapshot(path) => {
            let state = read_snapshot(path)?;
            require_nodes(&state, path)?;
            Ok((state, Vec::new()))
        }
        Source::Live(live) => {
            let fetched = live.fetch_state(needs)?;
            let notes = fetched.omissions.into_iter().map(|o| match o {
                Omission::Namespaces(r) => Note::NamespacesForbidden(r.into()),
                Omission::Workloads(r) => Note::WorkloadsForbidden(r.into()),
                Omission::PreemptionObjects(r) => Note::PreemptionObjectsForbidden(r.into()),
                Omission::Storage(r) => Note::StorageForbidden(r.into()),
                Omission::Admission(r) => Note::AdmissionObjectsForbidden(r.into()),
            });
            Ok((fetched.state, notes.collect()))
        }
    }
}

impl From<Refused> for Refusal {
    fn from(r: Refused) -> Refusal {
        Refusal {
            user: r.user,
            context: r.context,
            verb: r.verb.to_string(),
            resource: r.resource.to_string(),
            namespace: r.namespace,
            name: r.name,
        }
    }
}

/// Refuses a `--node` that names no node of `state`, before anything is evaluated or
/// printed, as `kubectl get node` refuses an unknown name.
fn check_drill_down(
    common: &CommonArgs,
    state: &ClusterState,
    origin: String,
) -> Result<(), Error> {
    let Some(name) = common
        .nodes
        .iter()
        .find(|name| state.node_index(name).is_none())
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
        origin,
        closest,
    })
}

/// `kubectl affinity snapshot`: the live cluster, in the format `--snapshot` reads.
fn snapshot(
    args: &SnapshotArgs,
    global: &GlobalArgs,
    out: &mut dyn Write,
    warn: &mut dyn Write,
) -> Result<u8, Error> {
    // Flags are global (kubectl's way), but a snapshot is of every namespace: the rules read
    // pods of all of them. Ignoring -n would leave the user believing the file holds only
    // theirs.
    if let Some(ns) = &global.namespace {
        return Err(Error::Usage(format!(
            "snapshot saves every namespace (scheduling rules read pods of all of them), so \
             -n/--namespace {ns} does not apply; run it without -n"
        )));
    }
    let live = Live::connect(&global.kube)?;
    let contents = if args.full {
        crate::render::full_snapshot_warning(warn)?;
        Contents::Full
    } else {
        Contents::Scheduling
    };
    let notes = match args.output.as_deref().filter(|p| p.as_os_str() != "-") {
        None => write_snapshot(&live, out, contents)?,
        Some(path) => {
            let file = std::fs::File::create(path).map_err(|source| SourceError::Io {
                path: path.display().to_string(),
                source,
            })?;
            let mut w = std::io::BufWriter::new(file);
            let written = write_snapshot(&live, &mut w, contents)
                .and_then(|notes| w.flush().map(|()| notes).map_err(Error::from));
            match written {
                Ok(notes) => notes,
                Err(e) => {
                    // A partial snapshot would read as a smaller cluster: leave none.
                    drop(w);
                    let _ = std::fs::remove_file(path);
                    return Err(e);
                }
            }
        }
    };
    // The file says what it lacks at its end; a user (or script) reading the terminal learns
    // it here. Still a usable snapshot: exit 0, as the README says.
    crate::render::snapshot_warnings(warn, &notes)?;
    Ok(0)
}

/// The snapshot, then what it left out as comments; returns those notes.
fn write_snapshot(
    live: &Live,
    out: &mut dyn Write,
    contents: Contents,
) -> Result<Vec<Note>, Error> {
    let omitted = live.write_snapshot(out, contents)?;
    let notes: Vec<Note> = omitted
        .into_iter()
        .map(|o| match o {
            Omission::Namespaces(r) => Note::SnapshotWithoutNamespaces(r.into()),
            Omission::Workloads(r) => Note::SnapshotWithoutWorkloads(r.into()),
            Omission::PreemptionObjects(r) => Note::SnapshotWithoutPreemptionObjects(r.into()),
            Omission::Storage(r) => Note::SnapshotWithoutStorage(r.into()),
            Omission::Admission(r) => Note::SnapshotWithoutAdmissionObjects(r.into()),
        })
        .collect();
    crate::render::snapshot_notes(out, &notes)?;
    Ok(notes)
}

/// `--feature-gates` and `--scheduler-config`, read and checked before the cluster is: a typo
/// fails before any list, not after 150,000 pods. The profile is chosen once the pod's
/// scheduler is known.
struct SchedulerFlags {
    gates: FeatureGates,
    /// The `KubeSchedulerConfiguration` document and the file it came from.
    config: Option<(serde_json::Value, String)>,
}

impl SchedulerFlags {
    fn read(common: &CommonArgs) -> Result<SchedulerFlags, Error> {
        let gates = FeatureGates::parse(&common.feature_gates.join(","))?;
        let config = match &common.scheduler_config {
            None => None,
            Some(path) => {
                let source = path.display().to_string();
                let config = read_objects(path)?
                    .into_iter()
                    .find(|o| o.kind() == "KubeSchedulerConfiguration")
                    .ok_or_else(|| Error::Manifest {
                        path: source.clone(),
                        message: "no KubeSchedulerConfiguration document found (kind: KubeSchedulerConfiguration, apiVersion: kubescheduler.config.k8s.io/v1)".to_string(),
                    })?;
                Some((config.value, source))
            }
        };
        Ok(SchedulerFlags { gates, config })
    }

    /// Emulates `--kubernetes-version`, else the live API server's release (the closest one
    /// emulated), else the release a snapshot records, else 1.35.
    fn emulate(&mut self, common: &CommonArgs, source: &Source) -> Result<(), Error> {
        let release = match (common.kubernetes_version, source) {
            (Some(r), _) => r,
            // A server whose `/version` cannot be read is emulated as 1.35; the lists that
            // follow report what is wrong with the connection.
            (None, Source::Live(live)) => live
                .server_version()
                .map(|v| Release::closest(&v))
                .unwrap_or_default(),
            (None, Source::Snapshot(path)) => recorded_version(path)
                .map(|v| Release::closest(&v))
                .unwrap_or_default(),
        };
        self.gates = std::mem::take(&mut self.gates).for_release(release)?;
        Ok(())
    }

    /// The profile for the pod's scheduler: from `--scheduler-config`, else upstream's default.
    /// A pod whose scheduler no profile serves is evaluated with the default scheduler's
    /// profile, and the report says the scheduler would never take it.
    fn profile(&self, scheduler_name: &str) -> Result<Profile, Error> {
        let gates = self.gates.clone();
        match &self.config {
            None => Ok(Profile::default_profile(gates)),
            Some((config, source)) => {
                Ok(Profile::from_config(config, scheduler_name, gates, source)?)
            }
        }
    }
}

fn render(doc: &Explanation, common: &CommonArgs, out: &mut dyn Write) -> Result<u8, Error> {
    match common.output {
        Output::Json => crate::render::json(out, doc)?,
        Output::Yaml => crate::render::yaml(out, doc)?,
        Output::Table | Output::Wide => {
            use std::io::IsTerminal;
            let terminal = std::io::stdout().is_terminal();
            let color = match common.color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => {
                    terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                }
            };
            let opts = crate::render::TableOptions {
                color,
                nodes: common.nodes.clone(),
                no_headers: common.no_headers,
                wide: common.output == Output::Wide,
                all_nodes: common.all_nodes,
                width: match (terminal, common.output) {
                    (true, _) | (false, Output::Wide) => None,
                    (false, _) => Some(80),
                },
            };
            crate::render::table(out, doc, &opts)?
        }
    }
    Ok(exit_code(doc, common))
}

/// `--exit-code`: 3 when no node can take the pod, or a replica (or DaemonSet pod) stays
/// Pending.
fn exit_code(doc: &Explanation, common: &CommonArgs) -> u8 {
    let none_feasible = doc.summary.feasible == 0 && doc.summary.unknown == 0;
    let some_pending = doc.workload.as_ref().is_some_and(|w| w.pending > 0)
        || doc
            .daemon_set
            .as_ref()
            .is_some_and(|d| !d.pending.is_empty());
    if common.exit_code && (none_feasible || some_pending) {
        EXIT_NO_FEASIBLE_NODE as u8
    } else {
        0
    }
}

/// [`render`], with what the edits change after it (`--diff`).
fn render_diffed(
    doc: &Explanation,
    before: Option<&Explanation>,
    edits: &[crate::state::edits::Edit],
    common: &CommonArgs,
    out: &mut dyn Write,
) -> Result<u8, Error> {
    use crate::report::diff::{ExplanationDiff, WithDiff};
    let Some(before) = before else {
        return render(doc, common, out);
    };
    let diff = ExplanationDiff::new(edits.iter().map(|e| e.to_string()).collect(), before, doc);
    match common.output {
        Output::Json => crate::render::json_of(out, &WithDiff { doc, diff: &diff })?,
        Output::Yaml => crate::render::yaml_of(out, &WithDiff { doc, diff: &diff })?,
        Output::Table | Output::Wide => {
            let code = render(doc, common, out)?;
            crate::render::explanation_diff(out, &diff)?;
            return Ok(code);
        }
    }
    Ok(exit_code(doc, common))
}

/// The cluster as read, kept beside the edited one for `--diff`.
fn unedited(state: &ClusterState, common: &CommonArgs) -> Option<ClusterState> {
    common.edits.diff.then(|| state.clone())
}

/// A manifest's pod as the API server receives it, and the workload it is the first
/// replica of.
struct Admitted {
    pod: Pod,
    manifest: Manifest,
    api_pod: core::Pod,
    claims: Vec<PersistentVolumeClaim>,
    /// A workload's manifest and how many replicas to schedule.
    workload: Option<(ManifestPod, u32)>,
}

fn whatif(
    args: &WhatifArgs,
    global: &GlobalArgs,
    out: &mut dyn Write,
    warn: &mut dyn Write,
) -> Result<u8, Error> {
    let (validate, common) = (args.validate, &args.common);
    let edits = edits(&common.edits)?;
    let manifests = match &args.file {
        Some(file) => read_pod_manifests(file)?,
        None => Vec::new(),
    };
    if validate == Validate::Strict
        && let Some(e) = manifests.iter().find_map(|m| m.rejection())
    {
        return Err(e.into());
    }
    let flag_ns = global.namespace.as_deref();
    if let Some(e) = manifests.iter().find_map(|m| m.namespace_conflict(flag_ns)) {
        return Err(e.into());
    }
    if args.scale.is_none() {
        check_workload_flags(args, &manifests)?;
    }
    let mut scheduler = SchedulerFlags::read(common)?;
    let source = Source::open(common, &global.kube)?;
    let default_ns = source.namespace(global);
    // `--scale`: the workload's pod template stands for the manifest.
    let existing = match &args.scale {
        Some(target) => Some(existing_workload(target, &source, &default_ns)?),
        None => None,
    };
    let manifests = match &existing {
        Some(e) => vec![e.template.clone()],
        None => manifests,
    };
    let origin = match &args.file {
        Some(file) => file.clone(),
        None => PathBuf::from(source.name()),
    };
    let file = origin.as_path();
    let evaluated_anyway = validate == Validate::Warn;
    let dry_run = match &source {
        Source::Live(live) if args.server_dry_run => Some(live.as_ref()),
        Source::Snapshot(_) if args.server_dry_run => {
            return Err(Error::Usage(
                "--server-dry-run asks the live API server; it cannot be used with --snapshot"
                    .to_string(),
            ));
        }
        _ => None,
    };
    let pods: Vec<Admitted> = manifests
        .into_iter()
        .map(|m| {
            let count = m.replicas.map(|n| args.replicas.unwrap_or(n));
            let workload = count.map(|n| (m.clone(), n));
            let first = if workload.is_some() {
                m.as_replica(0)
            } else {
                m
            };
            let (pod, manifest, api_pod, claims) =
                admit(first, &default_ns, evaluated_anyway, dry_run)?;
            Ok(Admitted {
                pod,
                manifest,
                api_pod,
                claims,
                workload,
            })
        })
        .collect::<Result<_, Error>>()?;
    // The profiles are checked before any request, then built for the release emulated.
    let profiles = |scheduler: &SchedulerFlags| {
        pods.iter()
            .map(|a| scheduler.profile(&a.pod.template.scheduler_name))
            .collect::<Result<Vec<_>, _>>()
    };
    profiles(&scheduler)?;
    scheduler.emulate(common, &source)?;
    let profiles = profiles(&scheduler)?;
    let mut need = Needs::default();
    for (a, profile) in pods.iter().zip(&profiles) {
        need.add(needs(&a.pod, profile));
    }
    need.priority_classes = true;
    for a in pods.iter().filter(|_| dry_run.is_none()) {
        need.admission_namespaces
            .extend(a.api_pod.metadata.namespace.clone());
        need.runtime_classes |= a
            .api_pod
            .spec
            .as_ref()
            .is_some_and(|s| s.runtime_class_name.is_some());
    }
    let (mut state, read) = load_state(&source, &need)?;
    // A StatefulSet's claims that do not exist yet are evaluated as its controller would
    // create them (only beside the storage objects read: without them nothing is evaluated).
    if let Some(volumes) = state.volumes_mut() {
        for claim in pods.iter().flat_map(|a| &a.claims) {
            volumes.add_template_claim(claim);
        }
    }
    let original = unedited(&state, common);
    let mut state = crate::state::edits::apply(state, &edits)?;
    check_drill_down(common, &state, source.name())?;
    let admitting = Admitting {
        validate,
        file,
        source: &source,
        dry_run: dry_run.is_some(),
    };
    let mut code = 0;
    let last = pods.len().saturating_sub(1);
    for (i, (a, profile)) in pods.into_iter().zip(&profiles).enumerate() {
        let Admitted {
            pod,
            manifest,
            api_pod,
            workload,
            ..
        } = a;
        let (pod, manifest) = admitting.admit(pod, manifest, api_pod, &state)?;
        let subject = Subject::Manifest(manifest);
        let (before, mut doc) = match workload {
            None => {
                let before = original
                    .as_ref()
                    .map(|o| explain_pod(&pod, o, None, profile, read.clone(), subject.clone()));
                (
                    before,
                    explain_pod(&pod, &state, None, profile, read.clone(), subject),
                )
            }
            Some((m, count)) => {
                // Each manifest is evaluated against the cluster as read: replicas placed for
                // one are not there for the next.
                let mut scratch;
                let target = if i == last {
                    &mut state
                } else {
                    scratch = state.clone();
                    &mut scratch
                };
                let mut scaled = None;
                let indices: Vec<u32> = match &existing {
                    Some(e) => {
                        let missing = e.missing(target.pods().iter().chain(target.other_pods()));
                        if missing.indices.is_empty() {
                            return nothing_to_scale(e, &missing, &default_ns, common, out, warn);
                        }
                        check_scaled_replica(args.replica, &missing)?;
                        scaled = Some(Note::ScaledBeside {
                            current: missing.current,
                            pending: missing.pending,
                        });
                        missing.indices
                    }
                    None => (0..count).collect(),
                };
                let mut replicas = Vec::with_capacity(indices.len());
                let mut first = Some(pod);
                // Each replica is a pod of its own to the API server (with --server-dry-run,
                // one dry-run create each).
                for k in indices {
                    if k == 0
                        && let Some(p) = first.take()
                    {
                        replicas.push(p);
                        continue;
                    }
                    let (p, manifest, api_pod, claims) =
                        admit(m.as_replica(k), &default_ns, evaluated_anyway, dry_run)?;
                    let (p, _) = admitting.admit(p, manifest, api_pod, target)?;
                    if let Some(volumes) = target.volumes_mut() {
                        claims.iter().for_each(|c| volumes.add_template_claim(c));
                    }
                    replicas.push(p);
                }
                let (kind, name) = match &existing {
                    Some(e) => (e.target.kind.kind().to_string(), e.target.name.clone()),
                    None => (m.kind.clone(), m.workload_name().to_string()),
                };
                let run = WorkloadRun {
                    kind,
                    name,
                    replicas,
                    explain: args.replica,
                    tie: match args.seed {
                        Some(seed) => TieBreak::Seeded(SplitMix64::new(seed)),
                        None => TieBreak::FirstByName,
                    },
                    seed: args.seed,
                    read: read.clone(),
                    subject,
                };
                // `--diff`: the same replicas placed on the cluster as read.
                let mut before = original
                    .as_ref()
                    .and_then(|o| simulate(run.clone(), &mut o.clone(), profile));
                let mut doc = simulate(run, target, profile).ok_or_else(|| Error::Manifest {
                    path: file.display().to_string(),
                    message: format!(
                        "{} has no pod to schedule (replicas 0); pass --replicas N to see where N \
                         would go",
                        m.origin
                    ),
                })?;
                // `--scale`: first, what the new replicas are scheduled beside.
                for w in [&mut doc].into_iter().chain(before.as_mut()) {
                    if let (Some(note), Some(w)) = (&scaled, w.workload.as_mut()) {
                        w.notes.insert(0, note.clone());
                    }
                }
                (before, doc)
            }
        };
        doc.source = Some(source.name());
        code = code.max(render_diffed(&doc, before.as_ref(), &edits, common, out)?);
    }
    exit_without_freeing(state, source);
    Ok(code)
}

/// The API server's built-in admission plugins for whatif pods, run once the objects they
/// read are read.
struct Admitting<'a> {
    validate: Validate,
    file: &'a Path,
    source: &'a Source,
    /// The API server's dry run admitted the pods already.
    dry_run: bool,
}

impl Admitting<'_> {
    /// The pod as admitted: defaulted and built again from what the plugins admitted, with
    /// what they changed in its manifest.
    fn admit(
        &self,
        pod: Pod,
        mut manifest: Manifest,
        mut api_pod: core::Pod,
        state: &ClusterState,
    ) -> Result<(Pod, Manifest), Error> {
        if self.dry_run {
            return Ok((pod, manifest));
        }
        let refused = |r: &crate::state::admission::Refused| Error::Manifest {
            path: self.file.display().to_string(),
            message: format!(
                "{} (the API server's {} admission plugin would refuse it; what it reads is read from {})",
                r.words(&pod.id.name),
                r.plugin,
                self.source.name()
            ),
        };
        let admitted = crate::state::admission::admit(
            &mut api_pod,
            state.admission_objects(),
            state.priority_classes(),
        )
        .map_err(|r| refused(&r))?;
        // A validating plugin's refusal stops a strict run; `--validate=warn` evaluates the
        // admitted pod anyway, as it does for the API server's validation.
        if let Some(r) = &admitted.rejected
            && self.validate == Validate::Strict
        {
            return Err(refused(r));
        }
        let (mut admitted_pod, defaulted) = Pod::from_manifest(api_pod);
        admitted.priority.apply(&mut admitted_pod);
        manifest.defaulted = defaulted;
        manifest.admitted = admitted.changes;
        manifest.rejected = admitted
            .rejected
            .map(|r| (r.plugin, r.words(&admitted_pod.id.name)));
        Ok((admitted_pod, manifest))
    }
}

/// The workload `--scale` names, from the snapshot file or got from the cluster.
fn existing_workload(
    target: &ScaleTarget,
    source: &Source,
    namespace: &str,
) -> Result<Existing, Error> {
    let objects = match source {
        Source::Snapshot(path) => read_objects(path)?,
        Source::Live(live) => live.workload_objects(target.kind, namespace, &target.name)?,
    };
    Ok(crate::state::scale::existing(
        target,
        namespace,
        &objects,
        &source.name(),
    )?)
}

/// `--scale` to no more pods than the workload has: said plainly (on standard error when
/// the output is JSON or YAML, which then stays empty), exit 0.
fn nothing_to_scale(
    e: &Existing,
    missing: &Missing,
    namespace: &str,
    common: &CommonArgs,
    out: &mut dyn Write,
    warn: &mut dyn Write,
) -> Result<u8, Error> {
    let to: &mut dyn Write = match common.output {
        Output::Json | Output::Yaml => warn,
        Output::Table | Output::Wide => out,
    };
    writeln!(
        to,
        "{} in namespace {namespace} has {} pod(s); scaling it to {} adds none: nothing to \
         schedule (scale-down is not simulated)",
        e.target, missing.current, e.target.replicas
    )?;
    Ok(0)
}

/// `--replica K` with `--scale`: K numbers the pods scaling adds, from 0.
fn check_scaled_replica(replica: Option<usize>, missing: &Missing) -> Result<(), Error> {
    match replica {
        Some(k) if k >= missing.indices.len() => Err(Error::Usage(format!(
            "--replica {k}: scaling adds {} pod(s), numbered from 0; pass --replica {} at most",
            missing.indices.len(),
            missing.indices.len().saturating_sub(1)
        ))),
        _ => Ok(()),
    }
}

/// Refuses `--replicas`, `--replica` and `--seed` where they cannot apply: no workload in
/// the file, or a replica beyond the count.
fn check_workload_flags(args: &WhatifArgs, manifests: &[ManifestPod]) -> Result<(), Error> {
    let flag = [
        args.replicas.map(|_| "--replicas"),
        args.replica.map(|_| "--replica"),
        args.seed.map(|_| "--seed"),
    ]
    .into_iter()
    .flatten()
    .next();
    let counts: Vec<u32> = manifests
        .iter()
        .filter_map(|m| m.replicas.map(|n| args.replicas.unwrap_or(n)))
        .collect();
    if let Some(flag) = flag
        && counts.is_empty()
    {
        return Err(Error::Usage(format!(
            "{flag} applies to a workload with replicas (Deployment, ReplicaSet, \
             ReplicationController, StatefulSet, Job, CronJob); {} holds none",
            manifests.first().map_or("the file", |m| m.source.as_str())
        )));
    }
    if let Some(k) = args.replica
        && let Some(&n) = counts
            .iter()
            .find(|&&n| usize::try_from(n).is_ok_and(|n| k >= n))
    {
        return Err(Error::Usage(format!(
            "--replica {k}: the workload has {n} replica(s), numbered from 0; pass --replica \
             {} at most, or --replicas {} to schedule more",
            n.saturating_sub(1),
            k + 1
        )));
    }
    Ok(())
}

/// The pod a manifest would create, as the API server (namespace, defaults, matchLabelKeys) and a
/// DaemonSet's controller (daemon tolerations) would make it, and what was done to it; with
/// the API object, which admission changes once the objects it reads are read. With
/// `dry_run`, the API server makes it: the pod is the one its dry-run create returns.
fn admit(
    m: ManifestPod,
    default_ns: &str,
    evaluated_anyway: bool,
    dry_run: Option<&Live>,
) -> Result<(Pod, Manifest, core::Pod, Vec<PersistentVolumeClaim>), Error> {
    let mut api_pod = m.pod;
    if api_pod.metadata.namespace.is_none() {
        api_pod.metadata.namespace = Some(default_ns.to_string());
    }
    let mut claims = m.claims;
    for c in &mut claims {
        c.metadata.namespace.clone_from(&api_pod.metadata.namespace);
    }
    // The controller's tolerations are the pod's before the API server sees it.
    let daemon = (m.kind == "DaemonSet").then(|| DaemonTolerations {
        added: add_daemon_tolerations(&mut api_pod),
        host_network: api_pod.spec.as_ref().and_then(|s| s.host_network) == Some(true),
    });
    let merged = match dry_run {
        Some(live) => {
            api_pod = live.dry_run_pod(&api_pod)?;
            0
        }
        None => merge_match_label_keys(&mut api_pod),
    };
    let (pod, defaulted) = Pod::from_manifest(api_pod.clone());
    let manifest = Manifest {
        origin: m.origin,
        findings: m.findings,
        evaluated_anyway,
        defaulted,
        merged,
        daemon,
        admitted: Vec::new(),
        rejected: None,
        server_dry_run: dry_run.is_some(),
    };
    Ok((pod, manifest, api_pod, claims))
}

/// The command ends here and the process right after it: freeing a 150,000-pod state one
/// allocation at a time took ~10% of a large live run, for memory the OS takes back anyway.
/// The same holds, at the end of a live run at 5,000 nodes, for the explanation (its
/// per-node tables: about 1 ms) and the connection (its runtime joining its idle threads:
/// about 1 ms), both on the path from the last line printed to the exit.
fn exit_without_freeing(state: ClusterState, leftovers: impl Sized) {
    std::mem::forget(state);
    std::mem::forget(leftovers);
}

fn explain(
    name: &str,
    common: &CommonArgs,
    global: &GlobalArgs,
    out: &mut dyn Write,
) -> Result<u8, Error> {
    let name = name
        .strip_prefix("pod/")
        .or_else(|| name.strip_prefix("pods/"))
        .unwrap_or(name);
    let edits = edits(&common.edits)?;
    let mut scheduler = SchedulerFlags::read(common)?;
    let source = Source::open(common, &global.kube)?;
    let namespace = source.namespace(global);
    let not_found = |origin: String, hint: Option<String>| Error::PodNotFound {
        namespace: namespace.clone(),
        name: name.to_string(),
        origin,
        hint,
    };
    // Live, the pod is read first: a wrong name fails before the big lists, and the API
    // object is what the events are looked up for.
    let api_pod = match &source {
        Source::Live(live) => match live.get_pod(&namespace, name)? {
            Some(pod) => Some(pod),
            None => {
                // Two small lists on the way out: the namespace's pod names, and where a
                // pod of that name is.
                let same = live.names(crate::cluster::Names::Pods(&namespace))?;
                let elsewhere = live.namespaces_with_pod(name)?.unwrap_or_default();
                return Err(not_found(live.context(), pod_hint(name, &same, &elsewhere)));
            }
        },
        Source::Snapshot(_) => None,
    };
    let fetched = api_pod.as_ref().map(Pod::from_api);
    // Live, the profile is known from the pod got, before the lists: it says what they read.
    let profile = |scheduler: &SchedulerFlags| {
        fetched
            .as_ref()
            .map(|p| scheduler.profile(&p.template.scheduler_name))
            .transpose()
    };
    // Checked before any list, then built for the release emulated.
    profile(&scheduler)?;
    scheduler.emulate(common, &source)?;
    let profile = profile(&scheduler)?;
    let need = match (&fetched, &profile) {
        (Some(pod), Some(profile)) => needs(pod, profile),
        _ => Needs::default(),
    };
    // The pod is evaluated as listed. The nodes keep the images of the pod as got: one whose
    // images changed in between has ImageLocality shown as not evaluated, not the cluster
    // read twice.
    let (state, mut read) = load_state(&source, &need)?;
    let original = unedited(&state, common);
    let state = crate::state::edits::apply(state, &edits)?;
    let id = PodRef {
        namespace: std::sync::Arc::from(namespace.as_str()),
        name: name.into(),
    };
    let (mut pod, exclude) = match (state.find_pod(&id), fetched) {
        (Some(FoundPod::Existing(i)), _) => (state.pods()[i].clone(), Some(i)),
        (Some(FoundPod::Other(p)), _) => (p.clone(), None),
        // Live, a pod that went terminal is not in the (non-terminal) list.
        (None, Some(p)) => (p, None),
        (None, None) => {
            let same: Vec<String> = state
                .all_pods()
                .filter(|p| *p.id.namespace == *namespace)
                .map(|p| p.id.name.to_string())
                .collect();
            let mut elsewhere: Vec<String> = state
                .all_pods()
                .filter(|p| *p.id.name == *name)
                .map(|p| p.id.namespace.to_string())
                .collect();
            elsewhere.sort();
            elsewhere.dedup();
            return Err(not_found(source.name(), pod_hint(name, &same, &elsewhere)));
        }
    };
    check_drill_down(common, &state, source.name())?;
    let pending = pod.template.phase == "Pending";
    let unbound = pod.node_name.is_empty();
    let current_node = take_current_node(&mut pod);
    let event = match (&source, &api_pod) {
        (Source::Live(live), Some(p)) if pending && unbound => match live.scheduling_event(p)? {
            EventLookup::Found(e) => Some(e),
            EventLookup::NoEvent => None,
            EventLookup::Unavailable(refused) => {
                read.push(Note::EventsForbidden(refused.into()));
                None
            }
        },
        // A snapshot that holds the pod's FailedScheduling events shows the latest as live.
        (Source::Snapshot(_), _) if pending && unbound => state
            .scheduling_event(&pod.id.namespace, &pod.id.name)
            .map(|e| LastEvent {
                message: e.message.clone(),
                last_seen: e.last_seen.clone(),
                count: e.count,
                reported_by: e.reported_by.clone(),
            }),
        _ => None,
    };
    let profile = match profile {
        Some(profile) => profile,
        None => scheduler.profile(&pod.template.scheduler_name)?,
    };
    let subject = Subject::Cluster { current_node };
    let before = original
        .as_ref()
        .map(|o| explain_before(&pod, o, &profile, &read, &subject));
    let mut doc = explain_pod(&pod, &state, exclude, &profile, read, subject);
    doc.source = Some(source.name());
    if let Some(e) = event {
        doc.set_scheduler_event(e.message, e.last_seen, e.count, e.reported_by);
    }
    let code = render_diffed(&doc, before.as_ref(), &edits, common, out);
    exit_without_freeing(state, (doc, source));
    code
}

/// `kubectl affinity audit`: every Pending pod of the scope evaluated once, every bound pod
/// checked against its own node.
fn audit(args: &AuditArgs, global: &GlobalArgs, out: &mut dyn Write) -> Result<u8, Error> {
    use crate::pipeline::audit::cluster as audit_cluster;
    use crate::report::audit::Scope;
    let common = &args.common;
    if !common.nodes.is_empty() || common.all_nodes {
        return Err(Error::Usage(
            "--node and --all-nodes choose the nodes of one pod's explanation; audit lists \
             pods, not nodes: run explain POD --node NAME for a node's every rule"
                .to_string(),
        ));
    }
    let edits = edits(&common.edits)?;
    let mut scheduler = SchedulerFlags::read(common)?;
    let source = Source::open(common, &global.kube)?;
    scheduler.emulate(common, &source)?;
    let both = args.pending == args.violating;
    let scope = Scope {
        namespace: (!args.all_namespaces).then(|| source.namespace(global)),
        pending: both || args.pending,
        violating: both || args.violating,
    };
    // The pods are not known before they are read: namespace labels as their terms need
    // them; PodDisruptionBudgets for preemption's part of the message; the storage objects
    // for the volume plugins. Default spreading's workloads are left unread: its
    // constraints are ScheduleAnyway, so they change no FailedScheduling message.
    let need = Needs {
        namespace_labels: crate::state::needs::NamespaceLabels::ForExistingTerms,
        disruption_budgets: scope.pending,
        storage: scope.pending,
        ..Needs::default()
    };
    let (state, mut read) = load_state(&source, &need)?;
    let original = unedited(&state, common);
    let state = crate::state::edits::apply(state, &edits)?;
    let mut profiles = std::collections::BTreeMap::new();
    for pod in state.all_pods() {
        let name = &pod.template.scheduler_name;
        if !profiles.contains_key(&**name) {
            profiles.insert(name.to_string(), scheduler.profile(name)?);
        }
    }
    let events = match &source {
        Source::Live(live) if scope.pending => {
            match live.scheduling_events(scope.namespace.as_deref())? {
                Ok(events) => events,
                Err(refused) => {
                    read.push(Note::EventsForbidden(refused.into()));
                    Default::default()
                }
            }
        }
        _ => Default::default(),
    };
    let before = original.map(|o| audit_cluster(&o, &profiles, &scope, read.clone()));
    let mut doc = audit_cluster(&state, &profiles, &scope, read);
    let diff = before.map(|before| {
        let edits = edits.iter().map(|e| e.to_string()).collect();
        crate::report::diff::AuditDiff::new(edits, &before, &doc)
    });
    doc.source = Some(source.name());
    let pending: Vec<PodRef> = doc.pending_pods().collect();
    for pod in pending {
        let key = (pod.namespace.to_string(), pod.name.to_string());
        if let Some(e) = events.get(&key).cloned() {
            doc.set_scheduler_event(&pod, e.message, e.last_seen, e.count, e.reported_by);
        }
    }
    use crate::report::diff::WithDiff;
    match (common.output, &diff) {
        (Output::Json, Some(diff)) => crate::render::json_of(out, &WithDiff { doc: &doc, diff })?,
        (Output::Yaml, Some(diff)) => crate::render::yaml_of(out, &WithDiff { doc: &doc, diff })?,
        (Output::Json, None) => crate::render::audit_json(out, &doc)?,
        (Output::Yaml, None) => crate::render::audit_yaml(out, &doc)?,
        (Output::Table | Output::Wide, _) => {
            let opts = crate::render::AuditOptions {
                no_headers: common.no_headers,
                wide: common.output == Output::Wide,
            };
            crate::render::audit_table(out, &doc, opts)?;
            if let Some(diff) = &diff {
                crate::render::audit_diff(out, diff)?;
            }
        }
    }
    let code = if common.exit_code && doc.anything_found() {
        EXIT_NO_FEASIBLE_NODE as u8
    } else {
        0
    };
    exit_without_freeing(state, (doc, source));
    Ok(code)
}

/// A running pod is evaluated as if it were scheduled now; a terminal one runs nowhere (the
/// scheduler's cache leaves it out) and is evaluated as a new pod like it. A pending pod
/// bound to a node keeps its node: the scheduler never places it, and the report says
/// whether the node's filters would take it. Returns the node the pod runs on.
fn take_current_node(pod: &mut Pod) -> Option<String> {
    let pending = pod.template.phase == "Pending";
    (!pod.node_name.is_empty() && !pending)
        .then(|| std::mem::take(&mut pod.node_name).to_string())
        .filter(|_| !pod.is_terminal())
}

/// The hint of a pod not found: the nearest name in its namespace (a likely typo), else the
/// namespaces where a pod of that name is.
fn pod_hint(name: &str, same_namespace: &[String], elsewhere: &[String]) -> Option<String> {
    // The threshold of the project's other "did you mean" (fields, gates).
    if let Some(near) = crate::state::closest(name, same_namespace.iter().map(String::as_str), 0.8)
    {
        return Some(format!("did you mean {near:?}?"));
    }
    match elsewhere {
        [] => None,
        [ns] => Some(format!(
            "a pod of that name is in namespace {ns}: pass -n {ns}"
        )),
        many => Some(format!(
            "pods of that name are in namespaces {}",
            many.join(", ")
        )),
    }
}

/// What `explain` is asked about.
#[derive(Debug)]
enum Target {
    Pod(String),
    Several(Several),
}

/// Several pods at once: those a workload's controller owns, or those a selector picks.
#[derive(Debug)]
enum Several {
    /// `kind` as the pods' owner references name it; a Deployment's through its ReplicaSets.
    Workload { kind: &'static str, name: String },
    Selector {
        text: String,
        selector: crate::state::selector::LabelSelector,
    },
}

impl Several {
    fn describe(&self) -> String {
        match self {
            Several::Workload { kind, name } => format!("{kind} {name}"),
            Several::Selector { text, .. } => format!("selector {text:?}"),
        }
    }

    fn selects(&self, pod: &Pod) -> bool {
        match self {
            Several::Workload { kind, name } => {
                let owner = pod.controller.as_deref();
                owner.is_some_and(|o| o.kind == *kind && o.name == *name)
                    || (*kind == "Deployment"
                        && crate::report::audit::workload(pod).as_deref()
                            == Some(&format!("Deployment/{name}")))
            }
            Several::Selector { selector, .. } => selector.matches(&pod.labels),
        }
    }
}

/// `NAME`, `pod/NAME`, a workload (`deploy/NAME`, ...), or `-l SELECTOR`, with kubectl's
/// resource names and short names.
fn explain_target(pod: Option<&str>, selector: Option<String>) -> Result<Target, Error> {
    if let Some(text) = selector {
        let selector = crate::state::parse_selector_flag(&text)
            .map_err(|e| Error::Usage(format!("-l/--selector {text:?}: {e}")))?;
        return Ok(Target::Several(Several::Selector { text, selector }));
    }
    let target = pod.unwrap_or_default();
    let Some((resource, name)) = target.split_once('/') else {
        return Ok(Target::Pod(target.to_string()));
    };
    let kind = match resource {
        "pod" | "pods" | "po" => return Ok(Target::Pod(name.to_string())),
        "deploy" | "deployment" | "deployments" => "Deployment",
        "rs" | "replicaset" | "replicasets" => "ReplicaSet",
        "sts" | "statefulset" | "statefulsets" => "StatefulSet",
        "ds" | "daemonset" | "daemonsets" => "DaemonSet",
        "job" | "jobs" => "Job",
        other => {
            return Err(Error::Usage(format!(
                "explain takes a pod (NAME or pod/NAME) or a workload's pods (deploy/NAME, \
                 rs/NAME, sts/NAME, ds/NAME, job/NAME), not {other:?}; for another set of \
                 pods pass -l SELECTOR"
            )));
        }
    };
    Ok(Target::Several(Several::Workload {
        kind,
        name: name.to_string(),
    }))
}

/// `explain deploy/NAME`, `explain -l SELECTOR`: a row per pod of the namespace selected,
/// then the explanation of the first Pending one (by name), or of the first.
fn explain_several(
    several: &Several,
    common: &CommonArgs,
    global: &GlobalArgs,
    out: &mut dyn Write,
) -> Result<u8, Error> {
    let edits = edits(&common.edits)?;
    let mut scheduler = SchedulerFlags::read(common)?;
    let source = Source::open(common, &global.kube)?;
    scheduler.emulate(common, &source)?;
    let namespace = source.namespace(global);
    // The pods are known once read: what their evaluations may need is read with them.
    let need = Needs {
        namespace_labels: crate::state::needs::NamespaceLabels::ForExistingTerms,
        disruption_budgets: true,
        storage: true,
        ..Needs::default()
    };
    let (state, read) = load_state(&source, &need)?;
    let original = unedited(&state, common);
    let state = crate::state::edits::apply(state, &edits)?;
    check_drill_down(common, &state, source.name())?;
    let mut chosen: Vec<(Pod, Option<usize>)> = state
        .pods()
        .iter()
        .enumerate()
        .map(|(i, p)| (p, Some(i)))
        .chain(state.other_pods().iter().map(|p| (p, None)))
        .filter(|(p, _)| *p.id.namespace == *namespace && several.selects(p))
        .map(|(p, i)| (p.clone(), i))
        .collect();
    if chosen.is_empty() {
        return Err(Error::NoPods {
            what: several.describe(),
            namespace,
            origin: source.name(),
        });
    }
    chosen.sort_by(|a, b| a.0.id.name.cmp(&b.0.id.name));
    let waiting = |p: &Pod| p.template.phase == "Pending" && p.node_name.is_empty();
    let explained = chosen.iter().position(|(p, _)| waiting(p)).unwrap_or(0);
    let mut rows = Vec::with_capacity(chosen.len());
    let mut doc = None;
    let mut before = None;
    for (k, (mut pod, exclude)) in chosen.into_iter().enumerate() {
        let phase = pod.template.phase.to_string();
        let bound = (!pod.node_name.is_empty()).then(|| pod.node_name.to_string());
        let profile = scheduler.profile(&pod.template.scheduler_name)?;
        let current_node = take_current_node(&mut pod);
        let subject = Subject::Cluster { current_node };
        if k == explained {
            before = original
                .as_ref()
                .map(|o| explain_before(&pod, o, &profile, &read, &subject));
        }
        let d = explain_pod(&pod, &state, exclude, &profile, read.clone(), subject);
        let mut row = crate::report::audit::pod_row(&d, bound, &phase);
        row.explained = k == explained;
        rows.push(row);
        if k == explained {
            doc = Some(d);
        }
    }
    let Some(mut doc) = doc else {
        return Err(Error::Usage("no pod to explain".to_string()));
    };
    doc.source = Some(source.name());
    if let Source::Live(live) = &source
        && rows[explained].node.is_none()
        && rows[explained].phase == "Pending"
    {
        match live.scheduling_events(Some(&namespace))? {
            Ok(events) => {
                let key = (namespace.clone(), rows[explained].name.clone());
                if let Some(e) = events.get(&key).cloned() {
                    doc.set_scheduler_event(e.message, e.last_seen, e.count, e.reported_by);
                }
            }
            Err(refused) => doc.notes.push(Note::EventsForbidden(refused.into())),
        }
    }
    doc.pods = rows;
    let code = render_diffed(&doc, before.as_ref(), &edits, common, out);
    exit_without_freeing(state, (doc, source));
    code
}

/// The edits the flags ask for, in the order they are applied (see `EditArgs`).
fn edits(args: &crate::cli::EditArgs) -> Result<Vec<crate::state::edits::Edit>, Error> {
    use crate::state::edits::{Edit, parse_label, parse_pod, parse_taint};
    let usage = |e: crate::state::edits::EditError| Error::Usage(e.to_string());
    if args.add_node.len() != args.like.len() {
        return Err(Error::Usage(
            "each --add-node NAME needs its --like NODE (the node it copies)".to_string(),
        ));
    }
    let mut edits: Vec<Edit> = args
        .add_node
        .iter()
        .zip(&args.like)
        .map(|(name, like)| Edit::AddNode {
            name: name.clone(),
            like: like.clone(),
        })
        .collect();
    edits.extend(args.cordon.iter().cloned().map(Edit::Cordon));
    edits.extend(args.uncordon.iter().cloned().map(Edit::Uncordon));
    for pair in args.label.chunks(2) {
        if let [node, spec] = pair {
            edits.push(parse_label(node, spec).map_err(usage)?);
        }
    }
    for pair in args.taint.chunks(2) {
        if let [node, spec] = pair {
            edits.push(parse_taint(node, spec).map_err(usage)?);
        }
    }
    for pod in &args.remove_pod {
        edits.push(parse_pod(pod).map_err(usage)?);
    }
    if args.diff && edits.is_empty() {
        return Err(Error::Usage(
            "--diff shows what edits change: give --cordon, --uncordon, --label, --taint, \
             --remove-pod or --add-node"
                .to_string(),
        ));
    }
    Ok(edits)
}

/// The explanation of `pod` on the cluster as read (`--diff`): the pod left out of its
/// existing pods there, as on the edited one.
fn explain_before(
    pod: &Pod,
    original: &ClusterState,
    profile: &Profile,
    read: &[Note],
    subject: &Subject,
) -> Explanation {
    let exclude = match original.find_pod(&pod.id) {
        Some(FoundPod::Existing(i)) => Some(i),
        _ => None,
    };
    explain_pod(
        pod,
        original,
        exclude,
        profile,
        read.to_vec(),
        subject.clone(),
    )
}
