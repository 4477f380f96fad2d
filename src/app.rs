//! One function per subcommand: source -> state -> evaluate -> report -> render.

use std::io::Write;
use std::path::Path;

use crate::cli::{Cli, ColorChoice, Command, CommonArgs, Output};
use crate::error::{EXIT_NO_FEASIBLE_NODE, Error};
use crate::report::{Context, Explanation, SchedulerInfo};
use crate::scheduler::profile::{FeatureGates, Profile, is_implemented};
use crate::scheduler::{Input, evaluate};
use crate::state::{
    ClusterState, FoundPod, Pod, PodRef, merge_match_label_keys, read_objects, read_pod_manifests,
    read_snapshot,
};

/// Runs the command; returns the process exit code for successful runs.
pub fn run(cli: Cli, out: &mut dyn Write) -> Result<u8, Error> {
    match cli.command {
        Command::Explain(args) => explain(&args.pod, &args.common, out),
        Command::Whatif(args) => whatif(&args.file, &args.common, out),
    }
}

fn load_state(common: &CommonArgs) -> Result<(ClusterState, String), Error> {
    match &common.snapshot {
        Some(path) => Ok((read_snapshot(path)?, format!("snapshot {}", path.display()))),
        None => Err(Error::Usage(
            "no cluster source: live cluster access is not available in this build yet; pass --snapshot FILE \
             (write one with `kubectl get nodes,pods,namespaces -A -o yaml > cluster.yaml`)"
                .to_string(),
        )),
    }
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
    mut notes: Vec<String>,
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
    let eval = evaluate(
        Input {
            pod,
            state,
            exclude,
        },
        profile,
    );
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
    let (state, _source) = load_state(common)?;
    let mut code = 0;
    for m in manifests {
        let mut api_pod = m.pod;
        if let Some(ns) = &common.namespace
            && api_pod.metadata.namespace.is_none()
        {
            api_pod.metadata.namespace = Some(ns.clone());
        }
        let merged = merge_match_label_keys(&mut api_pod);
        let pod = Pod::from_api(&api_pod);
        let profile = load_profile(common, &pod.scheduler_name)?;
        let mut notes = vec![format!("what-if for {} ({})", pod.id, m.origin)];
        if merged > 0 {
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
        let doc = explain_pod(&pod, &state, None, &profile, notes);
        code = code.max(render(&doc, common, out)?);
    }
    Ok(code)
}

fn explain(name: &str, common: &CommonArgs, out: &mut dyn Write) -> Result<u8, Error> {
    let name = name
        .strip_prefix("pod/")
        .or_else(|| name.strip_prefix("pods/"))
        .unwrap_or(name);
    let namespace = common
        .namespace
        .clone()
        .unwrap_or_else(|| "default".to_string());
    let (state, source) = load_state(common)?;
    let id = PodRef {
        namespace: namespace.clone(),
        name: name.to_string(),
    };
    let (mut pod, exclude) = match state.find_pod(&id) {
        Some(FoundPod::Existing(i)) => (state.pods[i].clone(), Some(i)),
        Some(FoundPod::Other(p)) => (p.clone(), None),
        None => {
            return Err(Error::PodNotFound {
                namespace,
                name: name.to_string(),
                origin: source,
            });
        }
    };
    let mut notes = Vec::new();
    if !pod.node_name.is_empty() {
        notes.push(format!(
            "the pod runs on {}; evaluated as if unscheduled (itself left out of the existing pods)",
            pod.node_name
        ));
        pod.node_name.clear();
    }
    let profile = load_profile(common, &pod.scheduler_name)?;
    let doc = explain_pod(&pod, &state, exclude, &profile, notes);
    render(&doc, common, out)
}
