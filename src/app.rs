//! One function per subcommand: source -> state -> evaluate -> report -> render.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::{Cli, ColorChoice, Command, CommonArgs, Output, SnapshotArgs};
use crate::cluster::{EventLookup, Live, context_namespace};
use crate::error::{EXIT_NO_FEASIBLE_NODE, Error};
use crate::report::{Context, Explanation, SchedulerEvent, SchedulerInfo, same_failure};
use crate::scheduler::profile::{FeatureGates, Profile, is_implemented};
use crate::scheduler::{Input, evaluate};
use crate::state::{
    ClusterState, FoundPod, Pod, PodRef, SourceError, merge_match_label_keys, read_objects,
    read_pod_manifests, read_snapshot,
};

/// Runs the command; returns the process exit code for successful runs.
pub fn run(cli: Cli, out: &mut dyn Write) -> Result<u8, Error> {
    match cli.command {
        Command::Explain(args) => explain(&args.pod, &args.common, out),
        Command::Whatif(args) => whatif(&args.file, &args.common, out),
        Command::Snapshot(args) => snapshot(&args, out),
    }
}

/// Where the cluster comes from: a file, or the cluster the kubeconfig flags name.
#[derive(Debug)]
enum Source {
    Snapshot(PathBuf),
    Live(Box<Live>),
}

impl Source {
    fn open(common: &CommonArgs) -> Result<Source, Error> {
        Ok(match &common.snapshot {
            Some(path) => Source::Snapshot(path.clone()),
            None => Source::Live(Box::new(Live::connect(&common.kube)?)),
        })
    }

    /// `snapshot FILE` or `context NAME (SERVER)`, for the report.
    fn name(&self) -> String {
        match self {
            Source::Snapshot(path) => format!("snapshot {}", path.display()),
            Source::Live(live) => live.source(),
        }
    }

    /// The namespace when neither -n nor the manifest gives one: the kubeconfig context's
    /// (also offline, when a kubeconfig is readable), else "default", as kubectl does.
    fn default_namespace(&self, common: &CommonArgs) -> String {
        match self {
            Source::Live(live) => live.default_namespace.clone(),
            Source::Snapshot(_) => {
                context_namespace(&common.kube).unwrap_or_else(|| "default".to_string())
            }
        }
    }
}

/// The cluster state from `source`, with notes on what could not be read. Live, namespaces
/// are read only when a term of `incoming` or of an existing pod needs their labels.
fn load_state(source: &Source, incoming: &[&Pod]) -> Result<(ClusterState, Vec<String>), Error> {
    match source {
        Source::Snapshot(path) => Ok((read_snapshot(path)?, Vec::new())),
        Source::Live(live) => {
            let fetched = live.fetch_state(incoming)?;
            Ok((fetched.state, fetched.notes))
        }
    }
}

/// `kubectl affinity snapshot`: the live cluster, in the format `--snapshot` reads.
fn snapshot(args: &SnapshotArgs, out: &mut dyn Write) -> Result<u8, Error> {
    let live = Live::connect(&args.kube)?;
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

/// The profile for the pod's scheduler: from `--scheduler-config`, else upstream's default.
pub fn load_profile(common: &CommonArgs, scheduler_name: &str) -> Result<Profile, Error> {
    let gates = FeatureGates::parse(&common.feature_gates.join(","))?;
    match &common.scheduler_config {
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
        Some(path) => {
            let objects = read_objects(path)?;
            let source = path.display().to_string();
            let config = objects
                .iter()
                .find(|o| o.kind() == "KubeSchedulerConfiguration")
                .ok_or_else(|| Error::Manifest {
                    path: source.clone(),
                    message: "no KubeSchedulerConfiguration document found (kind: KubeSchedulerConfiguration, apiVersion: kubescheduler.config.k8s.io/v1)".to_string(),
                })?;
            Ok(Profile::from_config(
                &config.value,
                scheduler_name,
                gates,
                &source,
            )?)
        }
    }
}

fn notes_for(profile: &Profile, pod: &Pod) -> Vec<String> {
    let mut notes = Vec::new();
    let mut missing: Vec<&str> = profile
        .filter
        .iter()
        .chain(profile.score.iter().map(|(n, _)| n))
        .map(String::as_str)
        .filter(|n| !is_implemented(n))
        .collect();
    missing.sort();
    missing.dedup();
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
    if !pod.affinity_errors.is_empty() {
        notes.push(format!(
            "the pod's affinity has invalid label selectors (the API server would reject it): {}",
            pod.affinity_errors.join("; ")
        ));
    }
    notes
}

fn context(pod: &Pod, profile: &Profile, mut notes: Vec<String>) -> Context {
    notes.extend(notes_for(profile, pod));
    Context {
        pod: pod.id.clone(),
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

/// Evaluates `pod` against `state` (leaving out existing pod `exclude`) and builds the
/// versioned explanation document.
pub fn explain_pod(
    pod: &Pod,
    state: &ClusterState,
    exclude: Option<usize>,
    profile: &Profile,
    notes: Vec<String>,
) -> Explanation {
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
    Explanation::new(eval, context(pod, profile, notes))
}

fn render(doc: &Explanation, common: &CommonArgs, out: &mut dyn Write) -> Result<u8, Error> {
    match common.output {
        Output::Json => crate::render::json(out, doc)?,
        Output::Yaml => crate::render::yaml(out, doc)?,
        Output::Table => {
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
                width: if terminal { None } else { Some(80) },
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

fn whatif(file: &Path, common: &CommonArgs, out: &mut dyn Write) -> Result<u8, Error> {
    let manifests = read_pod_manifests(file)?;
    let source = Source::open(common)?;
    let default_ns = common
        .namespace
        .clone()
        .unwrap_or_else(|| source.default_namespace(common));
    let mut pods = Vec::new();
    for m in manifests {
        let mut api_pod = m.pod;
        if api_pod.metadata.namespace.is_none() {
            api_pod.metadata.namespace = Some(default_ns.clone());
        }
        let merged = merge_match_label_keys(&mut api_pod);
        pods.push((Pod::from_api(&api_pod), merged, m.origin));
    }
    let incoming: Vec<&Pod> = pods.iter().map(|(p, _, _)| p).collect();
    let (state, load_notes) = load_state(&source, &incoming)?;
    let mut code = 0;
    for (pod, merged, origin) in &pods {
        let profile = load_profile(common, &pod.scheduler_name)?;
        let mut notes = vec![format!("what-if for {} ({})", pod.id, origin)];
        notes.extend(load_notes.iter().cloned());
        if *merged > 0 {
            notes.push(format!(
                "matchLabelKeys/mismatchLabelKeys merged into {merged} label selector requirement(s), as the API server does at pod creation"
            ));
        }
        if !pod.node_name.is_empty() {
            notes.push(format!(
                "spec.nodeName is set to {:?}: the API server binds such a pod directly and the scheduler never sees it; evaluated as the scheduler would if it did",
                pod.node_name
            ));
        }
        let mut doc = explain_pod(pod, &state, None, &profile, notes);
        doc.source = Some(source.name());
        code = code.max(render(&doc, common, out)?);
    }
    Ok(code)
}

fn explain(name: &str, common: &CommonArgs, out: &mut dyn Write) -> Result<u8, Error> {
    let name = name
        .strip_prefix("pod/")
        .or_else(|| name.strip_prefix("pods/"))
        .unwrap_or(name);
    let source = Source::open(common)?;
    let namespace = common
        .namespace
        .clone()
        .unwrap_or_else(|| source.default_namespace(common));
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
    let (state, mut notes) = load_state(&source, &fetched.iter().collect::<Vec<_>>())?;
    let id = PodRef {
        namespace: namespace.clone(),
        name: name.to_string(),
    };
    let (mut pod, exclude) = match (state.find_pod(&id), fetched) {
        (Some(FoundPod::Existing(i)), _) => (state.pods[i].clone(), Some(i)),
        (Some(FoundPod::Other(p)), _) => (p.clone(), None),
        // Live, a pod that went terminal is not in the (non-terminal) list.
        (None, Some(p)) => (p, None),
        (None, None) => return Err(not_found(source.name())),
    };
    let pending = pod.node_name.is_empty() && pod.phase == "Pending";
    if !pod.node_name.is_empty() {
        notes.push(format!(
            "the pod runs on {}; evaluated as if unscheduled (itself left out of the existing pods)",
            pod.node_name
        ));
        pod.node_name.clear();
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
    let profile = load_profile(common, &pod.scheduler_name)?;
    let mut doc = explain_pod(&pod, &state, exclude, &profile, notes);
    doc.source = Some(source.name());
    if let Some(e) = event {
        let matches_computed =
            same_failure(&e.message, doc.summary.failed_scheduling_message.as_deref());
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
    render(&doc, common, out)
}
