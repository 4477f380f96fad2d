//! One function per subcommand: source -> state -> evaluate -> report -> render.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::{
    Cli, ColorChoice, Command, CommonArgs, GlobalArgs, Output, SnapshotArgs, Validate,
};
use crate::cluster::{EventLookup, KubeArgs, Live, context_namespace};
use crate::error::{EXIT_NO_FEASIBLE_NODE, Error};
use crate::report::{Context, Explanation, SchedulerEvent, SchedulerInfo, same_failure};
use crate::scheduler::config::FeatureGates;
use crate::scheduler::needs::{needs, not_evaluated};
use crate::scheduler::profile::Profile;
use crate::scheduler::{Input, evaluate};
use crate::state::needs::Needs;
use crate::state::{
    ClusterState, FoundPod, Pod, PodRef, SourceError, add_daemon_tolerations,
    merge_match_label_keys, read_objects, read_pod_manifests, read_snapshot,
};

/// Runs the command; returns the process exit code for successful runs.
pub fn run(cli: Cli, out: &mut dyn Write) -> Result<u8, Error> {
    match cli.command {
        Command::Explain(args) => explain(&args.pod, &args.common, &cli.global, out),
        Command::Whatif(args) => whatif(&args.file, args.validate, &args.common, &cli.global, out),
        Command::Completion(args) => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(args.shell, &mut cmd, "kubectl-affinity", out);
            Ok(0)
        }
        Command::Complete(args) => complete(&args.words, out),
        Command::Snapshot(args) => snapshot(&args, &cli.global, out),
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
fn load_state(source: &Source, needs: &Needs) -> Result<(ClusterState, Vec<String>), Error> {
    match source {
        Source::Snapshot(path) => Ok((read_snapshot(path)?, Vec::new())),
        Source::Live(live) => {
            let fetched = live.fetch_state(needs)?;
            Ok((fetched.state, fetched.notes))
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
fn snapshot(args: &SnapshotArgs, global: &GlobalArgs, out: &mut dyn Write) -> Result<u8, Error> {
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
    match args.output.as_deref().filter(|p| p.as_os_str() != "-") {
        None => {
            live.write_snapshot(out)?;
        }
        Some(path) => {
            let file = std::fs::File::create(path).map_err(|source| SourceError::Io {
                path: path.display().to_string(),
                source,
            })?;
            let mut w = std::io::BufWriter::new(file);
            let written = live
                .write_snapshot(&mut w)
                .map_err(Error::from)
                .and_then(|_| w.flush().map_err(Error::from));
            if let Err(e) = written {
                // A partial snapshot would read as a smaller cluster: leave none.
                drop(w);
                let _ = std::fs::remove_file(path);
                return Err(e);
            }
        }
    }
    Ok(0)
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
    fn profile(&self, scheduler_name: &str) -> Result<Profile, Error> {
        let gates = self.gates.clone();
        match &self.config {
            None => {
                let p = Profile::default_profile(gates);
                if scheduler_name != p.scheduler_name {
                    return Err(Error::Usage(format!(
                        "the pod asks for scheduler {scheduler_name:?} (spec.schedulerName), not default-scheduler; \
                         pass that scheduler's configuration with --scheduler-config FILE"
                    )));
                }
                Ok(p)
            }
            Some((config, source)) => {
                Ok(Profile::from_config(config, scheduler_name, gates, source)?)
            }
        }
    }
}

fn notes_for(profile: &Profile, pod: &Pod) -> Vec<String> {
    let mut notes = Vec::new();
    let missing = not_evaluated(pod, profile);
    if !missing.is_empty() {
        notes.push(format!(
            "not evaluated (shown as unknown, never as passed): {}",
            missing.join(", ")
        ));
    }
    for gate in profile.gates.unmodelled() {
        notes.push(format!(
            "feature gate {gate} does not change any plugin this version evaluates"
        ));
    }
    if let Some(a) = pod
        .template
        .pod_affinity
        .as_deref()
        .filter(|a| !a.errors.is_empty())
    {
        notes.push(format!(
            "the pod's affinity has invalid label selectors (the API server would reject it): {}",
            a.errors.join("; ")
        ));
    }
    notes
}

fn context(pod: &Pod, profile: &Profile, mut notes: Vec<String>, placement: Placement) -> Context {
    notes.extend(notes_for(profile, pod));
    Context {
        current_node: placement.current_node,
        daemon_set: placement.daemon_set,
        pod: (*pod.id).clone(),
        scheduler: SchedulerInfo {
            kubernetes_version: crate::report::KUBERNETES_VERSION,
            scheduler_name: profile.scheduler_name.clone(),
            profile_source: profile.source.clone(),
            feature_gates: profile.gates.given.clone(),
            percentage_of_nodes_to_score: profile.percentage_of_nodes_to_score,
        },
        notes,
    }
}

/// What the pod is beyond its spec: where it runs, whether a DaemonSet controller places it.
#[derive(Debug, Clone, Default)]
pub struct Placement {
    pub current_node: Option<String>,
    pub daemon_set: bool,
}

/// Evaluates `pod` against `state` (leaving out existing pod `exclude`) and builds the
/// versioned explanation document.
pub fn explain_pod(
    pod: &Pod,
    state: &ClusterState,
    exclude: Option<usize>,
    profile: &Profile,
    mut notes: Vec<String>,
    placement: Placement,
) -> Explanation {
    let spread_enabled = profile
        .filter
        .iter()
        .chain(&profile.pre_score)
        .any(|n| n == "PodTopologySpread");
    if spread_enabled
        && let Some(note) = crate::scheduler::pod_topology_spread::missing_workloads_note(
            pod,
            state,
            &profile.pod_topology_spread,
        )
    {
        notes.push(note);
    }
    let input = Input {
        pod,
        state,
        exclude,
    };
    let mut notes = notes;
    let uses_ipa = profile
        .filter
        .iter()
        .chain(profile.score.iter().map(|(n, _)| n))
        .any(|n| n == "InterPodAffinity");
    if uses_ipa && let Some(why) = crate::scheduler::inter_pod_affinity::namespaces_unknown(input) {
        notes.push(format!(
            "{why}; its verdicts show as unknown, never as passed"
        ));
    }
    let eval = evaluate(input, profile);
    Explanation::new(eval, context(pod, profile, notes, placement))
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
    let mut pods = Vec::new();
    for m in manifests {
        let validation = m.validation_notes(validate == Validate::Warn);
        let mut api_pod = m.pod;
        if api_pod.metadata.namespace.is_none() {
            api_pod.metadata.namespace = Some(default_ns.clone());
        }
        let merged = merge_match_label_keys(&mut api_pod);
        let daemon_set = m.kind == "DaemonSet";
        let daemon = daemon_set.then(|| {
            let added = add_daemon_tolerations(&mut api_pod);
            let host_network = api_pod.spec.as_ref().and_then(|s| s.host_network) == Some(true);
            (added, host_network)
        });
        pods.push((
            Pod::from_owned(api_pod),
            merged,
            m.origin,
            daemon,
            validation,
        ));
    }
    let profiles = pods
        .iter()
        .map(|(pod, ..)| scheduler.profile(&pod.template.scheduler_name))
        .collect::<Result<Vec<_>, _>>()?;
    let mut need = Needs::default();
    for ((pod, ..), profile) in pods.iter().zip(&profiles) {
        need.add(needs(pod, profile));
    }
    let (state, load_notes) = load_state(&source, &need)?;
    check_drill_down(common, &state, source.name())?;
    let mut code = 0;
    for ((pod, merged, origin, daemon, validation), profile) in pods.iter().zip(&profiles) {
        let mut notes = vec![format!("what-if for {} ({})", pod.id, origin)];
        notes.extend(load_notes.iter().cloned());
        notes.extend(validation.iter().cloned());
        if *merged > 0 {
            notes.push(format!(
                "matchLabelKeys/mismatchLabelKeys merged into {merged} label selector requirement(s), as the API server does at pod creation"
            ));
        }
        if let Some((added, host_network)) = daemon {
            notes.push(format!(
                "DaemonSet: its controller creates one pod per node, pinned to the node; {added} daemon toleration(s) added as the controller does (not-ready, unreachable, disk/memory/pid-pressure, unschedulable{})",
                if *host_network { ", network-unavailable" } else { "" }
            ));
        }
        if !pod.node_name.is_empty() {
            notes.push(format!(
                "spec.nodeName is set to {:?}: the API server binds such a pod directly and the scheduler never sees it; evaluated as the scheduler would if it did",
                pod.node_name
            ));
        }
        let mut doc = explain_pod(
            pod,
            &state,
            None,
            profile,
            notes,
            Placement {
                current_node: None,
                daemon_set: daemon.is_some(),
            },
        );
        doc.source = Some(source.name());
        code = code.max(render(&doc, common, out)?);
    }
    exit_without_freeing(state, source);
    Ok(code)
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
    let (state, mut notes) = load_state(&source, &need)?;
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
    let pending = pod.node_name.is_empty() && pod.template.phase == "Pending";
    let mut current_node = None;
    if !pod.node_name.is_empty() {
        notes.push(format!(
            "the pod runs on {}; evaluated as if it were scheduled now, itself left out of the existing pods (scheduling rules are IgnoredDuringExecution: it keeps running even where they no longer hold)",
            pod.node_name
        ));
        current_node = Some(std::mem::take(&mut pod.node_name).to_string());
    }
    let event = match (&source, &api_pod) {
        (Source::Live(live), Some(p)) if pending => match live.scheduling_event(p)? {
            EventLookup::Found(e) => Some(e),
            EventLookup::NoEvent => None,
            EventLookup::Unavailable(note) => {
                notes.push(note);
                None
            }
        },
        _ => None,
    };
    let profile = match profile {
        Some(profile) => profile,
        None => scheduler.profile(&pod.template.scheduler_name)?,
    };
    let mut doc = explain_pod(
        &pod,
        &state,
        exclude,
        &profile,
        notes,
        Placement {
            current_node,
            daemon_set: false,
        },
    );
    doc.source = Some(source.name());
    if let Some(e) = event {
        let matches_computed = same_failure(
            &e.message,
            doc.summary.failed_scheduling_message.as_deref(),
            doc.summary.failed_scheduling_message_complete != Some(false),
        );
        if !matches_computed {
            doc.notes.push(format!(
                "the scheduler's last FailedScheduling event{} differs from the computed message; \
                 possible causes: another scheduler or a custom profile (pass --scheduler-config), \
                 a scheduler version other than {}, plugins this version does not evaluate, or the \
                 cluster changed since the event",
                e.last_seen
                    .as_deref()
                    .map(|t| format!(" ({t})"))
                    .unwrap_or_default(),
                crate::report::KUBERNETES_VERSION
            ));
        }
        doc.scheduler_event = Some(SchedulerEvent {
            message: e.message,
            last_seen: e.last_seen,
            count: e.count,
            reported_by: e.reported_by,
            matches_computed,
        });
    }
    let code = render(&doc, common, out);
    exit_without_freeing(state, (doc, source));
    code
}
