//! `explain`: a pod of the cluster evaluated as the scheduler would evaluate it now, or
//! several (a workload's, a selector's) with a row each and the first Pending one explained.

use super::{Diffed, Options, Outcome, Run, Source, explain_pod};
use k8s_openapi::api::core::v1 as core;

use crate::cluster::{EventLookup, LastEvent, Live, Names};
use crate::error::Error;
use crate::report::diff::ExplanationDiff;
use crate::report::{Explanation, Note, Subject};
use crate::scheduler::needs::{needs, needs_of_any_pod};
use crate::scheduler::profile::Profile;
use crate::state::needs::{AnyPod, Needs};
use crate::state::selector::LabelSelector;
use crate::state::{ClusterState, FoundPod, Pod, PodRef};

/// An explanation, and with `--diff` what the edits change in it.
pub type Explained = Diffed<Explanation, ExplanationDiff>;

/// Several pods at once: those a workload's controller owns, or those a selector picks.
#[derive(Debug)]
pub enum Several {
    /// `kind` as the pods' owner references name it; a Deployment's through its ReplicaSets.
    Workload { kind: &'static str, name: String },
    Selector {
        text: String,
        selector: LabelSelector,
    },
}

impl Several {
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

/// A workload kind's resource as the API server names it in errors (`deployments.apps`).
fn resource_of(kind: &str) -> &'static str {
    match kind {
        "Deployment" => "deployments.apps",
        "ReplicaSet" => "replicasets.apps",
        "StatefulSet" => "statefulsets.apps",
        "DaemonSet" => "daemonsets.apps",
        "Job" => "jobs.batch",
        _ => "pods",
    }
}

/// `explain POD`: the pod (`NAME`, `pod/NAME` or `pods/NAME`) of the namespace, evaluated
/// with the other pods as they are; live, with the scheduler's own last FailedScheduling
/// event beside a Pending one.
pub fn explain(options: &Options, name: &str) -> Result<Outcome<Explained>, Error> {
    let name = name
        .strip_prefix("pod/")
        .or_else(|| name.strip_prefix("pods/"))
        .unwrap_or(name);
    let mut run = Run::open(options)?;
    let namespace = run.namespace();
    // Live, the pod is read first: a wrong name fails before the big lists, and the API
    // object is what the events are looked up for.
    let api_pod = match run.source.live() {
        Some(live) => Some(get_pod(live, &namespace, name)?),
        None => None,
    };
    let fetched = api_pod.as_ref().map(Pod::from_api);
    // Live, the profile is known from the pod got, before the lists: it says what they read.
    let profile = |run: &Run| {
        fetched
            .as_ref()
            .map(|p| run.profile(&p.template.scheduler_name))
            .transpose()
    };
    // Checked before any list, then built for the release emulated.
    profile(&run)?;
    run.emulate()?;
    let profile = profile(&run)?;
    let need = match (&fetched, &profile) {
        (Some(pod), Some(profile)) => needs(pod, profile),
        _ => Needs::default(),
    };
    // The pod is evaluated as listed. The nodes keep the images of the pod as got: one whose
    // images changed in between has ImageLocality shown as not evaluated, not the cluster
    // read twice.
    let (state, mut read) = run.read(&need)?;
    let clusters = run.edit(state)?;
    let state = &clusters.edited;
    let (mut pod, exclude) = find_pod(&run, state, &namespace, name, fetched)?;
    run.check_drill_down(state)?;
    let waiting = pod.template.phase == "Pending" && pod.node_name.is_empty();
    let current_node = take_current_node(&mut pod);
    let event = if waiting {
        scheduling_event(&run.source, api_pod.as_ref(), state, &pod, &mut read)?
    } else {
        None
    };
    let profile = match profile {
        Some(profile) => profile,
        None => run.profile(&pod.template.scheduler_name)?,
    };
    let subject = Subject::Cluster { current_node };
    let before =
        (clusters.unedited.as_ref()).map(|o| explain_before(&pod, o, &profile, &read, &subject));
    let mut doc = explain_pod(&pod, state, exclude, &profile, read, subject);
    doc.source = Some(run.source.name());
    if let Some(e) = event {
        doc.set_scheduler_event(e.message, e.last_seen, e.count, e.reported_by);
    }
    let doc = diffed(&run, doc, before);
    Ok(run.finish(clusters, doc))
}

/// The pod `name` of `namespace` got from the live cluster; when there is none, the error
/// says where a pod of that name is, or which name is near.
fn get_pod(live: &Live, namespace: &str, name: &str) -> Result<core::Pod, Error> {
    if let Some(pod) = live.get_pod(namespace, name)? {
        return Ok(pod);
    }
    // Two small lists on the way out: the namespace's pod names, and where a pod of that
    // name is.
    let same = live.names(Names::Pods(namespace))?;
    let elsewhere = live.namespaces_with_pod(name)?.unwrap_or_default();
    let hint = pod_hint(name, &same, &elsewhere);
    Err(not_found(namespace, name, live.context(), hint))
}

/// The pod `name` of `namespace` in `state`, with its index among the existing pods (to
/// leave it out of them); live, a pod that went terminal is not in the (non-terminal) list,
/// and the pod `fetched` is evaluated.
fn find_pod(
    run: &Run,
    state: &ClusterState,
    namespace: &str,
    name: &str,
    fetched: Option<Pod>,
) -> Result<(Pod, Option<usize>), Error> {
    let id = PodRef {
        namespace: std::sync::Arc::from(namespace),
        name: name.into(),
    };
    Ok(match (state.find_pod(&id), fetched) {
        (Some(FoundPod::Existing(i)), _) => (state.pods()[i].clone(), Some(i)),
        (Some(FoundPod::Other(p)), _) => (p.clone(), None),
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
            let hint = pod_hint(name, &same, &elsewhere);
            return Err(not_found(namespace, name, run.source.name(), hint));
        }
    })
}

fn not_found(namespace: &str, name: &str, origin: String, hint: Option<String>) -> Error {
    Error::PodNotFound {
        namespace: namespace.to_string(),
        name: name.to_string(),
        origin,
        hint,
    }
}

/// The scheduler's own last FailedScheduling event of a Pending pod: live, looked up for
/// the API object got (a note when the events may not be read); a snapshot that holds the
/// pod's events shows the latest as live.
fn scheduling_event(
    source: &Source,
    api_pod: Option<&core::Pod>,
    state: &ClusterState,
    pod: &Pod,
    read: &mut Vec<Note>,
) -> Result<Option<LastEvent>, Error> {
    Ok(match (source, api_pod) {
        (Source::Live(live), Some(p)) => match live.scheduling_event(p)? {
            EventLookup::Found(e) => Some(e),
            EventLookup::NoEvent => None,
            EventLookup::Unavailable(refused) => {
                read.push(Note::EventsForbidden(refused.into()));
                None
            }
        },
        (Source::Snapshot(_), _) => {
            state
                .scheduling_event(&pod.id.namespace, &pod.id.name)
                .map(|e| LastEvent {
                    message: e.message.clone(),
                    last_seen: e.last_seen.clone(),
                    count: e.count,
                    reported_by: e.reported_by.clone(),
                })
        }
        (Source::Live(_), None) => None,
    })
}

/// `explain deploy/NAME`, `explain -l SELECTOR`: a row per pod of the namespace selected,
/// then the explanation of the first Pending one (by name), or of the first.
pub fn explain_several(options: &Options, several: &Several) -> Result<Outcome<Explained>, Error> {
    let mut run = Run::open(options)?;
    run.emulate()?;
    let namespace = run.namespace();
    // The pods are known once read: what their evaluations may need is read with them.
    let need = needs_of_any_pod(AnyPod::Namespace(namespace.clone()));
    let (state, read) = run.read(&need)?;
    let clusters = run.edit(state)?;
    let state = &clusters.edited;
    run.check_drill_down(state)?;
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
        return Err(match several {
            Several::Selector { .. } => Error::NoPods { namespace },
            Several::Workload { kind, name } => Error::WorkloadNotFound {
                resource: resource_of(kind),
                name: name.clone(),
                namespace,
                origin: run.source.name(),
            },
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
        let profile = run.profile(&pod.template.scheduler_name)?;
        let current_node = take_current_node(&mut pod);
        let subject = Subject::Cluster { current_node };
        if k == explained {
            before = (clusters.unedited.as_ref())
                .map(|o| explain_before(&pod, o, &profile, &read, &subject));
        }
        let d = explain_pod(&pod, state, exclude, &profile, read.clone(), subject);
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
    doc.source = Some(run.source.name());
    if rows[explained].node.is_none() && rows[explained].phase == "Pending" {
        let key = (namespace.clone(), rows[explained].name.clone());
        // Live, the events are listed; a snapshot holds those it was written with.
        let event = match run.source.live() {
            Some(live) => match live.scheduling_events(Some(&namespace))? {
                Ok(events) => events.get(&key).cloned(),
                Err(refused) => {
                    doc.notes.push(Note::EventsForbidden(refused.into()));
                    None
                }
            },
            None => clusters.edited.scheduling_event(&key.0, &key.1).cloned(),
        };
        if let Some(e) = event {
            doc.set_scheduler_event(e.message, e.last_seen, e.count, e.reported_by);
        }
    }
    doc.pods = rows;
    let doc = diffed(&run, doc, before);
    Ok(run.finish(clusters, doc))
}

/// `doc`, with what the edits change set against `before`, the same pod's explanation on the
/// cluster as read (`--diff`).
pub(super) fn diffed(run: &Run, doc: Explanation, before: Option<Explanation>) -> Explained {
    let diff = before.map(|before| ExplanationDiff::new(run.edits(), &before, &doc));
    Diffed { doc, diff }
}

/// The explanation of `pod` on the cluster as read (`--diff`): the pod left out of its
/// existing pods there, as on the edited one.
fn explain_before(
    pod: &Pod,
    unedited: &ClusterState,
    profile: &Profile,
    read: &[Note],
    subject: &Subject,
) -> Explanation {
    let exclude = match unedited.find_pod(&pod.id) {
        Some(FoundPod::Existing(i)) => Some(i),
        _ => None,
    };
    explain_pod(
        pod,
        unedited,
        exclude,
        profile,
        read.to_vec(),
        subject.clone(),
    )
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
