//! One function per subcommand: source -> state -> evaluate -> report -> render.

use std::io::Write;
use std::path::{Path, PathBuf};

use k8s_openapi::api::core::v1::PersistentVolumeClaim;

use crate::cli::{
    Cli, ColorChoice, Command, CommonArgs, GlobalArgs, Output, SnapshotArgs, Validate,
};
use crate::cluster::{
    Contents, EventLookup, KubeArgs, LastEvent, Live, Omission, Refused, context_namespace,
};
use crate::error::{EXIT_NO_FEASIBLE_NODE, Error};
use crate::report::{Context, DaemonTolerations, Explanation, Manifest, Note, Refusal, Subject};
use crate::scheduler::config::FeatureGates;
use crate::scheduler::needs::needs;
use crate::scheduler::profile::Profile;
use crate::scheduler::{Input, evaluate};
use crate::state::needs::Needs;
use crate::state::{
    ClusterState, FoundPod, ManifestPod, Pod, PodRef, PriorityRequest, SourceError,
    add_daemon_tolerations, merge_match_label_keys, read_objects, read_pod_manifests,
    read_snapshot, require_nodes,
};

/// Runs the command; returns the process exit code for successful runs.
/// The answer goes to `out`; `warn` (standard error) gets what a user must not miss while
/// `out` goes to a file or a pipe.
pub fn run(cli: Cli, out: &mut dyn Write, warn: &mut dyn Write) -> Result<u8, Error> {
    match cli.command {
        Command::Explain(args) => explain(&args.pod, &args.common, &cli.global, out),
        Command::Whatif(args) => whatif(&args.file, args.validate, &args.common, &cli.global, out),
        Command::Completion(args) => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(args.shell, &mut cmd, "kubectl-affinity", out);
            Ok(0)
        }
        Command::Complete(args) => complete(&args.words, out),
        Command::Snapshot(args) => snapshot(&args, &cli.global, out, warn),
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

/// Evaluates `pod` against `state` (leaving out existing pod `exclude`) and builds the
/// versioned explanation document; `read` is what reading the cluster left out.
pub fn explain_pod(
    pod: &Pod,
    state: &ClusterState,
    exclude: Option<usize>,
    profile: &Profile,
    read: Vec<Note>,
    subject: Subject,
) -> Explanation {
    let input = Input {
        pod,
        state,
        exclude,
        removed: &[],
    };
    let context = Context::new(input, profile, read, subject);
    Explanation::new(evaluate(input, profile), context)
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
    let none_feasible = doc.summary.feasible == 0 && doc.summary.unknown == 0;
    Ok(if common.exit_code && none_feasible {
        EXIT_NO_FEASIBLE_NODE as u8
    } else {
        0
    })
}

fn whatif(
    file: &Path,
    validate: Validate,
    common: &CommonArgs,
    global: &GlobalArgs,
    out: &mut dyn Write,
) -> Result<u8, Error> {
    let manifests = read_pod_manifests(file)?;
    if validate == Validate::Strict
        && let Some(e) = manifests.iter().find_map(|m| m.rejection())
    {
        return Err(e.into());
    }
    let flag_ns = global.namespace.as_deref();
    if let Some(e) = manifests.iter().find_map(|m| m.namespace_conflict(flag_ns)) {
        return Err(e.into());
    }
    let scheduler = SchedulerFlags::read(common)?;
    let source = Source::open(common, &global.kube)?;
    let default_ns = source.namespace(global);
    let evaluated_anyway = validate == Validate::Warn;
    let pods: Vec<(Pod, Manifest, PriorityRequest, Vec<PersistentVolumeClaim>)> = manifests
        .into_iter()
        .map(|m| admit(m, &default_ns, evaluated_anyway))
        .collect();
    let profiles = pods
        .iter()
        .map(|(pod, ..)| scheduler.profile(&pod.template.scheduler_name))
        .collect::<Result<Vec<_>, _>>()?;
    let mut need = Needs::default();
    for ((pod, ..), profile) in pods.iter().zip(&profiles) {
        need.add(needs(pod, profile));
    }
    need.priority_classes = true;
    let (mut state, read) = load_state(&source, &need)?;
    // A StatefulSet's claims that do not exist yet are evaluated as its controller would
    // create them (only beside the storage objects read: without them nothing is evaluated).
    if let Some(volumes) = state.volumes_mut() {
        for claim in pods.iter().flat_map(|(.., claims)| claims) {
            volumes.add_template_claim(claim);
        }
    }
    check_drill_down(common, &state, source.name())?;
    let mut code = 0;
    for ((mut pod, manifest, priority, _), profile) in pods.into_iter().zip(&profiles) {
        // The API server's Priority admission, once the classes are read.
        if let Err(e) = priority.admit(&mut pod, state.priority_classes()) {
            return Err(Error::Manifest {
                path: file.display().to_string(),
                message: format!(
                    "pods \"{}\" is forbidden: {e} (the API server's Priority admission would refuse it; PriorityClasses are read from {})",
                    pod.id.name,
                    source.name()
                ),
            });
        }
        let subject = Subject::Manifest(manifest);
        let mut doc = explain_pod(&pod, &state, None, profile, read.clone(), subject);
        doc.source = Some(source.name());
        code = code.max(render(&doc, common, out)?);
    }
    exit_without_freeing(state, source);
    Ok(code)
}

/// The pod a manifest would create, as the API server (namespace, defaults, matchLabelKeys) and a
/// DaemonSet's controller (daemon tolerations) would make it, and what was done to it.
fn admit(
    m: ManifestPod,
    default_ns: &str,
    evaluated_anyway: bool,
) -> (Pod, Manifest, PriorityRequest, Vec<PersistentVolumeClaim>) {
    let mut api_pod = m.pod;
    if api_pod.metadata.namespace.is_none() {
        api_pod.metadata.namespace = Some(default_ns.to_string());
    }
    let mut claims = m.claims;
    for c in &mut claims {
        c.metadata.namespace.clone_from(&api_pod.metadata.namespace);
    }
    let merged = merge_match_label_keys(&mut api_pod);
    let daemon = (m.kind == "DaemonSet").then(|| DaemonTolerations {
        added: add_daemon_tolerations(&mut api_pod),
        host_network: api_pod.spec.as_ref().and_then(|s| s.host_network) == Some(true),
    });
    let priority = PriorityRequest::of(&api_pod);
    let (pod, defaulted) = Pod::from_manifest(api_pod);
    let manifest = Manifest {
        origin: m.origin,
        findings: m.findings,
        evaluated_anyway,
        defaulted,
        merged,
        daemon,
    };
    (pod, manifest, priority, claims)
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
    let scheduler = SchedulerFlags::read(common)?;
    let source = Source::open(common, &global.kube)?;
    let namespace = source.namespace(global);
    let not_found = |origin: String| Error::PodNotFound {
        namespace: namespace.clone(),
        name: name.to_string(),
        origin,
    };
    // Live, the pod is read first: a wrong name fails before the big lists, and the API
    // object is what the events are looked up for.
    let api_pod = match &source {
        Source::Live(live) => Some(
            live.get_pod(&namespace, name)?
                .ok_or_else(|| not_found(live.context()))?,
        ),
        Source::Snapshot(_) => None,
    };
    let fetched = api_pod.as_ref().map(Pod::from_api);
    // Live, the profile is known from the pod got, before the lists: it says what they read.
    let profile = fetched
        .as_ref()
        .map(|p| scheduler.profile(&p.template.scheduler_name))
        .transpose()?;
    let need = match (&fetched, &profile) {
        (Some(pod), Some(profile)) => needs(pod, profile),
        _ => Needs::default(),
    };
    // The pod is evaluated as listed. The nodes keep the images of the pod as got: one whose
    // images changed in between has ImageLocality shown as not evaluated, not the cluster
    // read twice.
    let (state, mut read) = load_state(&source, &need)?;
    let id = PodRef {
        namespace: std::sync::Arc::from(namespace.as_str()),
        name: name.into(),
    };
    let (mut pod, exclude) = match (state.find_pod(&id), fetched) {
        (Some(FoundPod::Existing(i)), _) => (state.pods()[i].clone(), Some(i)),
        (Some(FoundPod::Other(p)), _) => (p.clone(), None),
        // Live, a pod that went terminal is not in the (non-terminal) list.
        (None, Some(p)) => (p, None),
        (None, None) => return Err(not_found(source.name())),
    };
    check_drill_down(common, &state, source.name())?;
    let pending = pod.template.phase == "Pending";
    let unbound = pod.node_name.is_empty();
    // A running pod is evaluated as if it were scheduled now; a terminal one runs nowhere
    // (the scheduler's cache leaves it out) and is evaluated as a new pod like it. A pending
    // pod bound to a node keeps its node: the scheduler never places it, and the report says
    // whether the node's filters would take it.
    let current_node = (!pod.node_name.is_empty() && !pending)
        .then(|| std::mem::take(&mut pod.node_name).to_string())
        .filter(|_| !pod.is_terminal());
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
    let mut doc = explain_pod(&pod, &state, exclude, &profile, read, subject);
    doc.source = Some(source.name());
    if let Some(e) = event {
        doc.set_scheduler_event(e.message, e.last_seen, e.count, e.reported_by);
    }
    let code = render(&doc, common, out);
    exit_without_freeing(state, (doc, source));
    code
}
