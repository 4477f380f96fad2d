//! `whatif`: the pods a manifest would create (a Pod, or a workload's replicas in a row), or
//! those scaling a workload that exists would add, each made and admitted as the API server
//! would, then evaluated against the cluster.

use std::path::PathBuf;

use super::admission::{Admission, Created};
use super::controllers::{Controller, Order};
use super::explain::{Explained, diffed};
use super::replicas::{WorkloadRun, simulate};
use super::resource_claims;
use super::updates::{self, Old, Rollout, Rule};
use super::{Clusters, Options, Outcome, Run, Source, explain_pod};
use crate::cluster::Live;
use crate::error::Error;
use crate::report::{Explanation, Note, Subject};
use crate::scheduler::needs::needs;
use crate::scheduler::profile::Profile;
use crate::scheduler::release::Release;
use crate::scheduler::workload::{SplitMix64, TieBreak};
use crate::state::Located;
use crate::state::needs::Needs;
use crate::state::scale::{Existing, Missing, ScaleKind, ScaleTarget};
use crate::state::{Applied, ClusterState, ManifestPod, Pod, read_applied, read_objects};

pub use super::admission::Validate;

/// What `whatif` is asked.
#[derive(Debug, Clone)]
pub struct Request {
    /// `-f`: the files and directories of manifests, in order.
    pub files: Vec<PathBuf>,
    /// `-R`: the directories' subdirectories too.
    pub recursive: bool,
    pub validate: Validate,
    /// `--scale KIND/NAME=N`: the pods scaling a workload that exists would add.
    pub scale: Option<ScaleTarget>,
    /// `--replicas N`: a workload's count instead of its own.
    pub replicas: Option<u32>,
    /// `--replica K`: the replica explained node by node.
    pub replica: Option<usize>,
    /// `--seed S`: ties broken at random with this seed, not by name.
    pub seed: Option<u64>,
    pub server_dry_run: bool,
    /// Which built-in admission plugins run (kube-apiserver's defaults, else the flags').
    pub admission_plugins: crate::state::admission::Plugins,
}

/// How a `whatif` run ends, once every explanation is given out.
#[derive(Debug)]
pub enum Ending {
    Evaluated,
    /// `--scale` to no more pods than the workload has: nothing was evaluated.
    NothingToScale(NothingToScale),
}

/// A workload `--scale` would add no pod to.
#[derive(Debug)]
pub struct NothingToScale {
    pub target: ScaleTarget,
    pub namespace: String,
    /// The pods it has.
    pub current: u32,
}

/// `whatif`: the explanation of each manifest's pod (a workload's: one replica's, with every
/// replica's placement) is given to `emit` in the file's order, each made before the next
/// manifest's pod is admitted.
pub fn whatif(
    options: &Options,
    request: &Request,
    emit: &mut dyn FnMut(Explained) -> Result<(), Error>,
) -> Result<Outcome<Ending>, Error> {
    let (manifests, applied) = read_manifests(options, request)?;
    let mut run = Run::open(options)?;
    let namespace = run.namespace();
    // `--scale`: the workload's pod template stands for the manifest.
    let existing = match &request.scale {
        Some(target) => Some(existing_workload(target, &run.source, &namespace)?),
        None => None,
    };
    let manifests = match &existing {
        Some(e) => vec![e.template.clone()],
        None => manifests,
    };
    let mut admission = Admission {
        release: Release::default(),
        validate: request.validate,
        file: (request.files.first().cloned()).unwrap_or_else(|| PathBuf::from(run.source.name())),
        source: run.source.name(),
        namespace: namespace.clone(),
        dry_run: dry_run(&run.source, request)?,
        plugins: request.admission_plugins.clone(),
    };
    let mut pods = plan(manifests, request, &admission)?;
    // The profiles are checked before any request, then built for the release emulated.
    let profiles = |run: &Run, pods: &[Planned]| {
        pods.iter()
            .map(|a| run.profile(&a.created.pod.template.scheduler_name))
            .collect::<Result<Vec<_>, _>>()
    };
    profiles(&run, &pods)?;
    // `Run::emulate` would borrow the whole run, whose source the admission holds.
    (run.scheduler).emulate(options.kubernetes_version, &run.source)?;
    admission.release = run.scheduler.release();
    let profiles = profiles(&run, &pods)?;
    let dry_run = admission.dry_run.is_some();
    let (mut state, mut read) = run.read(&needs_of(&pods, &profiles, dry_run))?;
    // A workload of the file that exists is an update (looked up once the cluster answered).
    if existing.is_none() {
        updated(&mut pods, request, &run.source, &admission)?;
    }
    // The file's other objects scheduling reads join the cluster before its pods are created.
    state
        .objects_mut()
        .extend(applied.state_objects(&namespace)?);
    let counted = |kinds: std::collections::BTreeMap<String, usize>| {
        kinds
            .into_iter()
            .map(|(kind, n)| format!("{n} {kind}"))
            .collect::<Vec<_>>()
    };
    if !applied.objects.is_empty() || !applied.skipped.is_empty() {
        read.push(Note::Applied {
            joined: counted(applied.joined()),
            skipped: counted(applied.skipped.clone()),
        });
    }
    // A StatefulSet's claims that do not exist yet are evaluated as its controller would
    // create them (only beside the storage objects read: without them nothing is evaluated).
    if let Some(volumes) = state.volumes_mut() {
        for claim in pods.iter().flat_map(|a| &a.created.claims) {
            volumes.add_template_claim(claim);
        }
    }
    // The objects owning the new workloads' pods exist once the file is applied. Where the
    // Services could not be read live, default spreading's selector is not derived from the
    // owner alone (upstream merges both), and the note on the refusal stands.
    let owners_known = state.workloads().is_some() || matches!(run.source, Source::Snapshot(_));
    let owners = pods
        .iter()
        .filter_map(|a| a.workload.as_ref()?.controller.as_ref());
    for owner in owners
        .filter(|_| owners_known)
        .filter_map(Controller::owner)
    {
        state.objects_mut().add(owner);
    }
    let mut clusters = run.edit(state)?;
    run.check_drill_down(&clusters.edited)?;
    let workloads = Workloads {
        request,
        admission: &admission,
        existing: existing.as_ref(),
        read: &read,
    };
    for (planned, profile) in pods.into_iter().zip(&profiles) {
        let (mut pod, manifest) = admission.admit(planned.created, &clusters.edited)?;
        let states = std::iter::once(&mut clusters.edited).chain(clusters.unedited.as_mut());
        resource_claims::create_claims(&mut pod, states);
        let first = Replica {
            pod,
            subject: Subject::Manifest(manifest),
            profile,
        };
        // The manifests are applied in input order: each pod placed is assumed onto its node
        // before the next manifest's pods are scheduled.
        let (before, mut doc) = match planned.workload {
            None => {
                let pod = first.pod.clone();
                let states =
                    std::iter::once(&mut clusters.edited).chain(clusters.unedited.as_mut());
                let updated = planned.daemon_set.as_ref().and_then(|d| d.update(states));
                let (before, mut doc) = first.explain(&clusters, &read);
                doc.notes.extend(updated);
                assume(&mut clusters.edited, &pod, &doc);
                if let (Some(unedited), Some(before)) = (clusters.unedited.as_mut(), &before) {
                    assume(unedited, &pod, before);
                }
                (before, doc)
            }
            Some(w) if matches!(w.update, Update::Rollout { .. }) => {
                let unedited = clusters.unedited.as_mut();
                workloads.update(&w, first, &mut clusters.edited, unedited)?
            }
            Some(w) => {
                let unedited = clusters.unedited.as_mut();
                match workloads.place(&w, first, &mut clusters.edited, unedited)? {
                    Placed::Docs(docs) => *docs,
                    Placed::NothingToScale(nothing) => {
                        return Ok(run.finish(clusters, Ending::NothingToScale(nothing)));
                    }
                }
            }
        };
        doc.source = Some(run.source.name());
        emit(diffed(&run, doc, before))?;
    }
    Ok(run.finish(clusters, Ending::Evaluated))
}

/// Puts `pod` on the node its explanation picks (the first by name among the tied), as the
/// scheduler's assume does; a pod no node takes is not placed.
fn assume(state: &mut ClusterState, pod: &Pod, doc: &Explanation) {
    if let Some(node) = doc.summary.selected.iter().min() {
        let mut pod = pod.clone();
        pod.node_name = std::sync::Arc::from(node.as_str());
        state.add_pod(pod);
    }
}

/// A manifest's first pod as created, and the workload it is the first replica of.
struct Planned {
    created: Created,
    workload: Option<PlannedWorkload>,
    /// A DaemonSet's: which one, and how its controller replaces the pods of one that exists.
    daemon_set: Option<DaemonSetApplied>,
}

/// A DaemonSet of the file.
struct DaemonSetApplied {
    namespace: String,
    name: String,
    /// `spec.updateStrategy` as written.
    strategy: Option<serde_json::Value>,
}

impl DaemonSetApplied {
    /// Applied over a DaemonSet that runs pods, it is an update (`pkg/controller/daemon/
    /// update.go`): its old pods leave `states` where the controller deletes each before
    /// creating the node's new one (RollingUpdate with maxSurge 0, the default; OnDelete,
    /// once you delete them), and stay where the new one is created beside (maxSurge above
    /// 0). `None` when no pod of it runs.
    fn update<'s>(&self, states: impl Iterator<Item = &'s mut ClusterState>) -> Option<Note> {
        let strategy = self.strategy.as_ref();
        let on_delete = strategy.and_then(|s| s["type"].as_str()) == Some("OnDelete");
        let max_surge = match strategy.map(|s| &s["rollingUpdate"]["maxSurge"]) {
            Some(serde_json::Value::Number(n)) => n.to_string(),
            Some(serde_json::Value::String(p)) => p.clone(),
            _ => "0".to_string(),
        };
        let surges = !on_delete && !matches!(max_surge.as_str(), "0" | "0%");
        let mut old = 0;
        for state in states {
            let pods: Vec<std::sync::Arc<crate::state::PodRef>> = (state.all_pods())
                .filter(|p| {
                    *p.id.namespace == *self.namespace
                        && p.controller
                            .as_ref()
                            .is_some_and(|c| c.kind == "DaemonSet" && c.name == self.name)
                })
                .map(|p| p.id.clone())
                .collect();
            old = old.max(pods.len());
            if !surges {
                super::replicas::evict(state, &pods);
            }
        }
        (old > 0).then(|| Note::Updated {
            workload: format!("DaemonSet {}/{}", self.namespace, self.name),
            old,
            rule: if on_delete {
                crate::report::UpdateRule::DaemonSetOnDelete
            } else {
                crate::report::UpdateRule::DaemonSetRollingUpdate { max_surge }
            },
            waits_for: None,
        })
    }
}

/// A workload's replicas to schedule.
struct PlannedWorkload {
    manifest: ManifestPod,
    /// How many (`--replicas`, else its own).
    count: u32,
    /// A new workload's controller; `None` with `--scale` (the pods' owner exists) and for
    /// the kinds default spreading does not read.
    controller: Option<Controller>,
    /// Whether the workload exists, and then how it is updated.
    update: Update,
}

/// What applying a workload does to the one of that name, if any.
enum Update {
    New,
    /// Its template is the one it runs: no rollout, scaled as `--scale` scales it.
    Unchanged(Box<Existing>),
    /// A rollout by `rule` of the pods `existing` owns.
    Rollout {
        existing: Box<Existing>,
        rule: Rule,
    },
    /// Whether it exists could not be read: evaluated as new, and said.
    NotRead(Note),
}

/// A workload of the file found in the cluster (or not read).
enum Found {
    Exists {
        existing: Box<Existing>,
        /// The pod template it runs, as the cluster keeps it.
        running: serde_json::Value,
    },
    NotRead(Note),
}

impl Found {
    /// How applying `m` (`count` replicas) updates the workload found.
    fn plan(self, m: &ManifestPod, count: u32) -> Result<Update, Error> {
        let (existing, running) = match self {
            Found::NotRead(note) => return Ok(Update::NotRead(note)),
            Found::Exists { existing, running } => (existing, running),
        };
        let spec = m.workload.as_ref();
        let template = spec
            .map(|s| &s.template)
            .unwrap_or(&serde_json::Value::Null);
        if updates::same_template(template, &running) {
            return Ok(Update::Unchanged(existing));
        }
        let strategy = spec.and_then(|s| s.strategy.as_ref());
        let rule = Rule::of(&m.kind, strategy, count)
            .map_err(|(field, message)| m.problem(field, message))?;
        Ok(Update::Rollout { existing, rule })
    }
}

impl PlannedWorkload {
    /// Replica `index`'s pod, as its controller creates it.
    fn replica(&self, index: u32) -> ManifestPod {
        match &self.controller {
            Some(c) => c.replica(&self.manifest, index),
            None => self.manifest.as_replica(index),
        }
    }
}

/// `--server-dry-run`: the live cluster that creates the pods; refused with a snapshot.
fn dry_run<'a>(source: &'a Source, request: &Request) -> Result<Option<&'a Live>, Error> {
    match source {
        Source::Live(live) if request.server_dry_run => Ok(Some(live)),
        Source::Snapshot(_) if request.server_dry_run => Err(Error::Usage(
            "--server-dry-run asks the live API server; it cannot be used with --snapshot"
                .to_string(),
        )),
        _ => Ok(None),
    }
}

/// Each manifest's first pod, created; a workload's with its replicas' count (`--replicas`,
/// else its own).
fn plan(
    manifests: Vec<ManifestPod>,
    request: &Request,
    admission: &Admission<'_>,
) -> Result<Vec<Planned>, Error> {
    manifests
        .into_iter()
        .map(|m| {
            let count = m.replicas.map(|n| request.replicas.unwrap_or(n));
            let controller = match request.scale {
                Some(_) => None,
                None => Controller::of(&m, &admission.namespace),
            };
            let workload = count.map(|count| PlannedWorkload {
                manifest: m.clone(),
                count,
                controller,
                update: Update::New,
            });
            let first = match &workload {
                Some(w) => w.replica(0),
                None => m,
            };
            let daemon_set = (first.kind == "DaemonSet").then(|| DaemonSetApplied {
                namespace: (first.pod.metadata.namespace.clone())
                    .unwrap_or_else(|| admission.namespace.clone()),
                name: first.origin.trim_start_matches("DaemonSet/").to_string(),
                strategy: first.workload.as_ref().and_then(|w| w.strategy.clone()),
            });
            let created = admission.create(first)?;
            Ok(Planned {
                created,
                workload,
                daemon_set,
            })
        })
        .collect()
}

/// The manifests of `-f`, refused before anything is read when the API server would reject
/// them (`--validate=strict`), when their namespace is not `-n`'s, or when the workload flags
/// do not apply to them.
fn read_manifests(
    options: &Options,
    request: &Request,
) -> Result<(Vec<ManifestPod>, Applied), Error> {
    let mut applied = match request.files.is_empty() {
        true => Applied::default(),
        false => read_applied(&request.files, request.recursive)?,
    };
    let manifests = std::mem::take(&mut applied.pods);
    if request.validate == Validate::Strict
        && let Some(e) = manifests.iter().find_map(|m| m.rejection())
    {
        return Err(e.into());
    }
    let flag_ns = options.namespace.as_deref();
    if let Some(e) = manifests.iter().find_map(|m| m.namespace_conflict(flag_ns)) {
        return Err(e.into());
    }
    if request.scale.is_none() {
        check_workload_flags(request, &manifests)?;
    }
    Ok((manifests, applied))
}

/// What evaluating the pods under their profiles reads, with the objects the admission
/// plugins read (the API server's dry run admitted them already).
fn needs_of(pods: &[Planned], profiles: &[Profile], dry_run: bool) -> Needs {
    let mut need = Needs::default();
    for (a, profile) in pods.iter().zip(profiles) {
        need.add(needs(&a.created.pod, profile));
    }
    // The owners the apply creates are not read: they do not exist yet.
    let created: Vec<(String, String)> = pods
        .iter()
        .filter_map(|a| a.workload.as_ref()?.controller.as_ref())
        .map(Controller::owner_key)
        .collect();
    need.controllers
        .retain(|c| !created.contains(&(c.namespace.clone(), c.name.clone())));
    need.priority_classes = true;
    for a in pods.iter().filter(|_| !dry_run) {
        let api_pod = &a.created.api_pod;
        need.admission_namespaces
            .extend(api_pod.metadata.namespace.clone());
        need.runtime_classes |= api_pod
            .spec
            .as_ref()
            .is_some_and(|s| s.runtime_class_name.is_some());
    }
    need
}

/// A manifest's pod (a workload's first replica), admitted.
struct Replica<'a> {
    pod: Pod,
    subject: Subject,
    profile: &'a Profile,
}

impl Replica<'_> {
    /// The pod, alone, on the edited cluster and with `--diff` on the cluster as read.
    fn explain(self, clusters: &Clusters, read: &[Note]) -> (Option<Explanation>, Explanation) {
        let Replica {
            pod,
            subject,
            profile,
        } = self;
        let before = (clusters.unedited.as_ref())
            .map(|o| explain_pod(&pod, o, None, profile, read.to_vec(), subject.clone()));
        let doc = explain_pod(
            &pod,
            &clusters.edited,
            None,
            profile,
            read.to_vec(),
            subject,
        );
        (before, doc)
    }
}

/// What a workload's replicas are placed with.
struct Workloads<'a> {
    request: &'a Request,
    admission: &'a Admission<'a>,
    /// `--scale`: the workload that exists.
    existing: Option<&'a Existing>,
    read: &'a [Note],
}

enum Placed {
    /// With `--diff`, the placements on the cluster as read; then on the edited one.
    Docs(Box<(Option<Explanation>, Explanation)>),
    NothingToScale(NothingToScale),
}

impl Workloads<'_> {
    /// The `count` replicas of `m` (with `--scale`, those it lacks) placed in a row on
    /// `target`, which keeps them, and with `--diff` on a copy of `unedited`.
    fn place(
        &self,
        w: &PlannedWorkload,
        first: Replica<'_>,
        target: &mut ClusterState,
        unedited: Option<&mut ClusterState>,
    ) -> Result<Placed, Error> {
        let mut scaled = None;
        let existing = match &w.update {
            Update::Unchanged(e) => Some(&**e),
            _ => self.existing,
        };
        let mut current = 0;
        let indices: Vec<u32> = match existing {
            Some(e) => {
                let missing = e.missing(target.pods().iter().chain(target.other_pods()));
                current = missing.current;
                if missing.indices.is_empty()
                    && let Update::Unchanged(e) = &w.update
                {
                    return Ok(Placed::Docs(Box::new(self.unchanged(
                        e,
                        current,
                        first,
                        target,
                        unedited.as_deref(),
                    ))));
                }
                if missing.indices.is_empty() {
                    return Ok(Placed::NothingToScale(NothingToScale {
                        target: e.target.clone(),
                        namespace: self.admission.namespace.clone(),
                        current: missing.current,
                    }));
                }
                check_scaled_replica(self.request.replica, &missing)?;
                scaled = Some(Note::ScaledBeside {
                    current: missing.current,
                    pending: missing.pending,
                });
                missing.indices
            }
            None => (0..w.count).collect(),
        };
        let m = &w.manifest;
        let mut replicas = Vec::with_capacity(indices.len());
        let mut first_pod = Some(first.pod);
        // Each replica is a pod of its own to the API server (with --server-dry-run, one
        // dry-run create each).
        let replicas_count = indices.len();
        for k in indices {
            if k == 0
                && let Some(p) = first_pod.take()
            {
                replicas.push(p);
                continue;
            }
            replicas.push(self.replica(w, k, target)?);
        }
        let (kind, name) = match existing {
            Some(e) => (e.target.kind.kind().to_string(), e.target.name.clone()),
            None => (m.kind.clone(), m.workload_name().to_string()),
        };
        let run = WorkloadRun {
            kind,
            name,
            replicas,
            order: w.controller.as_ref().map_or(Order::AtOnce, |c| c.order),
            explain: self.request.replica,
            tie: match self.request.seed {
                Some(seed) => TieBreak::Seeded(SplitMix64::new(seed)),
                None => TieBreak::FirstByName,
            },
            seed: self.request.seed,
            read: self.read.to_vec(),
            subject: first.subject,
        };
        // `--diff`: the same replicas placed on the cluster as read.
        let mut before = unedited.and_then(|o| simulate(run.clone(), o, first.profile));
        let mut doc = simulate(run, target, first.profile)
            .ok_or_else(|| self.no_pod_to_schedule(&m.origin))?;
        // `--scale`: first, what the new replicas are scheduled beside; a new workload's:
        // how its controller creates them.
        let first_note = scaled.or_else(|| w.controller.as_ref().map(Controller::note));
        let update_note = match &w.update {
            Update::Unchanged(e) => Some(Note::Updated {
                workload: format!(
                    "{} {}/{}",
                    e.target.kind.kind(),
                    (e.template.pod.metadata.namespace.as_deref())
                        .unwrap_or(&self.admission.namespace),
                    e.target.name
                ),
                old: usize::try_from(current).unwrap_or(usize::MAX),
                rule: crate::report::UpdateRule::Unchanged {
                    created: u32::try_from(replicas_count).unwrap_or(u32::MAX),
                },
                waits_for: None,
            }),
            Update::NotRead(note) => Some(note.clone()),
            _ => None,
        };
        for d in [&mut doc].into_iter().chain(before.as_mut()) {
            if let (Some(note), Some(report)) = (&first_note, d.workload.as_mut()) {
                report.notes.insert(0, note.clone());
            }
            if let (Some(note), Some(report)) = (&update_note, d.workload.as_mut()) {
                report.notes.insert(0, note.clone());
            }
        }
        Ok(Placed::Docs(Box::new((before, doc))))
    }
}

impl Workloads<'_> {
    /// A workload of the file that makes no pod (`origin`: which).
    fn no_pod_to_schedule(&self, origin: &str) -> Error {
        Error::Manifest {
            path: self.admission.file.display().to_string(),
            message: format!(
                "{origin} has no pod to schedule (replicas 0); pass --replicas N to see where N \
                 would go"
            ),
        }
    }

    /// Replica `k` of `w` as the API server creates and admits it, with its claims (from
    /// ResourceClaimTemplates, a StatefulSet's volumeClaimTemplates) made in `target`.
    fn replica(
        &self,
        w: &PlannedWorkload,
        k: u32,
        target: &mut ClusterState,
    ) -> Result<Pod, Error> {
        let mut created = self.admission.create(w.replica(k))?;
        let claims = std::mem::take(&mut created.claims);
        let (mut p, _) = self.admission.admit(created, target)?;
        resource_claims::create_claims(&mut p, [&mut *target]);
        if let Some(volumes) = target.volumes_mut() {
            claims.iter().for_each(|c| volumes.add_template_claim(c));
        }
        Ok(p)
    }

    /// A workload that exists applied with the template it runs and no more replicas: no
    /// pod is created. Explained is one more pod of its template, were one created.
    fn unchanged(
        &self,
        e: &Existing,
        current: u32,
        first: Replica<'_>,
        target: &ClusterState,
        unedited: Option<&ClusterState>,
    ) -> (Option<Explanation>, Explanation) {
        let namespace = (e.template.pod.metadata.namespace.clone())
            .unwrap_or_else(|| self.admission.namespace.clone());
        let report = crate::report::workload::WorkloadReport {
            kind: e.target.kind.kind().to_string(),
            name: e.target.name.clone(),
            namespace: namespace.clone(),
            replicas: 0,
            placed: 0,
            pending: 0,
            not_created: 0,
            pods: Vec::new(),
            explained: 0,
            notes: vec![Note::Updated {
                workload: format!("{} {namespace}/{}", e.target.kind.kind(), e.target.name),
                old: usize::try_from(current).unwrap_or(usize::MAX),
                rule: crate::report::UpdateRule::Unchanged { created: 0 },
                waits_for: None,
            }],
            update: None,
        };
        let explain = |state: &ClusterState| {
            let read = self.read.to_vec();
            let subject = first.subject.clone();
            let mut doc = explain_pod(&first.pod, state, None, first.profile, read, subject);
            doc.workload = Some(report.clone());
            doc
        };
        (unedited.map(explain), explain(target))
    }

    /// The replicas of `w`, a workload that exists, rolled out on `target` (which keeps the
    /// new pods placed and loses the old ones removed), and with `--diff` on a copy of
    /// `unedited`.
    fn update(
        &self,
        w: &PlannedWorkload,
        first: Replica<'_>,
        target: &mut ClusterState,
        unedited: Option<&mut ClusterState>,
    ) -> Result<(Option<Explanation>, Explanation), Error> {
        let Update::Rollout { existing, rule } = &w.update else {
            unreachable!("update() is called for rollouts")
        };
        let old = |state: &ClusterState| -> Vec<Old> {
            let mut old: Vec<Old> = existing
                .owned(state.pods().iter().chain(state.other_pods()))
                .into_iter()
                .map(|p| Old {
                    name: p.id.name.to_string(),
                    node: (!p.node_name.is_empty()).then(|| p.node_name.to_string()),
                })
                .collect();
            old.sort_by(|a, b| a.name.cmp(&b.name));
            old
        };
        let mut replicas = Vec::with_capacity(usize::try_from(w.count).unwrap_or(0));
        let mut first_pod = Some(first.pod);
        for k in 0..w.count {
            if let Some(p) = first_pod.take() {
                replicas.push(p);
                continue;
            }
            replicas.push(self.replica(w, k, target)?);
        }
        let m = &w.manifest;
        let rollout = |state: &ClusterState| Rollout {
            kind: m.kind.clone(),
            name: m.workload_name().to_string(),
            namespace: (m.pod.metadata.namespace.clone())
                .unwrap_or_else(|| self.admission.namespace.clone()),
            rule: *rule,
            old: old(state),
            replicas: replicas.clone(),
            ordered: w
                .controller
                .as_ref()
                .is_some_and(|c| c.order == Order::OrderedReady),
            explain: self.request.replica,
            tie: match self.request.seed {
                Some(seed) => TieBreak::Seeded(SplitMix64::new(seed)),
                None => TieBreak::FirstByName,
            },
            read: self.read.to_vec(),
            subject: first.subject.clone(),
        };
        let before = unedited.and_then(|o| updates::roll_out(&rollout(o), o, first.profile));
        let run = rollout(target);
        let doc = updates::roll_out(&run, target, first.profile)
            .ok_or_else(|| self.no_pod_to_schedule(&m.origin))?;
        Ok((before, doc))
    }
}

/// The planned workloads that exist in the cluster (Deployments and StatefulSets of that
/// namespace and name), made updates: applying the manifest updates them. One whose template
/// is unchanged is no rollout: its first pod is made again from the template it runs.
fn updated(
    pods: &mut [Planned],
    request: &Request,
    source: &Source,
    admission: &Admission<'_>,
) -> Result<(), Error> {
    let mut snapshot: Option<Vec<Located>> = None;
    for planned in pods.iter_mut() {
        let Some(w) = planned.workload.as_mut() else {
            continue;
        };
        let found = find(
            &w.manifest,
            request,
            source,
            &admission.namespace,
            &mut snapshot,
        )?;
        let Some(found) = found else {
            continue;
        };
        w.update = found.plan(&w.manifest, w.count)?;
        if let Update::Unchanged(e) = &w.update {
            // The pods come from the template the workload runs, as `--scale` makes them.
            w.manifest = e.template.clone();
            w.controller = None;
            planned.created = admission.create(w.replica(0))?;
        }
    }
    Ok(())
}

/// The workload of `m`'s kind, namespace and name the cluster has, if any (a snapshot's
/// objects read once into `snapshot`).
fn find(
    m: &ManifestPod,
    request: &Request,
    source: &Source,
    namespace: &str,
    snapshot: &mut Option<Vec<Located>>,
) -> Result<Option<Found>, Error> {
    let kind = match m.kind.as_str() {
        "Deployment" => ScaleKind::Deployment,
        "StatefulSet" => ScaleKind::StatefulSet,
        _ => return Ok(None),
    };
    let ns = (m.pod.metadata.namespace.clone()).unwrap_or_else(|| namespace.to_string());
    let name = m.workload_name().to_string();
    let got;
    let objects: &[Located] = match source {
        Source::Snapshot(path) => {
            if snapshot.is_none() {
                *snapshot = Some(read_objects(path)?);
            }
            snapshot.as_deref().unwrap_or_default()
        }
        Source::Live(live) => match live.workload_objects(kind, &ns, &name) {
            Ok(objects) => {
                got = objects;
                &got
            }
            Err(crate::cluster::ClusterError::Forbidden(e)) => {
                return Ok(Some(Found::NotRead(Note::UpdateNotRead {
                    workload: format!("{} {ns}/{name}", m.kind),
                    error: e.to_string(),
                })));
            }
            Err(e) => return Err(e.into()),
        },
    };
    let is_it = |o: &&Located| {
        o.kind() == m.kind
            && o.name() == name
            && o.value
                .pointer("/metadata/namespace")
                .and_then(|v| v.as_str())
                == Some(ns.as_str())
    };
    let Some(running) = objects.iter().find(is_it) else {
        return Ok(None);
    };
    let running = running
        .value
        .pointer("/spec/template")
        .cloned()
        .unwrap_or_default();
    let target = ScaleTarget {
        kind,
        name,
        replicas: m.replicas.map_or(1, |n| request.replicas.unwrap_or(n)),
    };
    let existing = crate::state::scale::existing(&target, &ns, objects, &source.name())?;
    Ok(Some(Found::Exists {
        existing: Box::new(existing),
        running,
    }))
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
fn check_workload_flags(request: &Request, manifests: &[ManifestPod]) -> Result<(), Error> {
    let flag = [
        request.replicas.map(|_| "--replicas"),
        request.replica.map(|_| "--replica"),
        request.seed.map(|_| "--seed"),
    ]
    .into_iter()
    .flatten()
    .next();
    let counts: Vec<u32> = manifests
        .iter()
        .filter_map(|m| m.replicas.map(|n| request.replicas.unwrap_or(n)))
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
    if let Some(k) = request.replica
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
