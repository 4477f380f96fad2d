//! `audit`: every pod of the scope at once. Each Pending pod is evaluated once, as `explain`
//! evaluates it; each bound pod is checked against its own node only
//! (`scheduler::audit::check_bound`), so the audit of 150,000 pods costs one evaluation per
//! Pending pod and three Filter calls per bound one. The two run side by side, and the bound
//! pods' checks on every core.

use std::collections::BTreeMap;

use super::{Diffed, Options, Outcome, Run, explanation};
use crate::error::Error;
use crate::report::audit::{Audit, Category, Found, PendingPod, Scope};
use crate::report::diff::AuditDiff;
use crate::report::{Note, Subject};
use crate::scheduler::Input;
use crate::scheduler::audit::{Standing, check_bound};
use crate::scheduler::needs::needs_of_any_pod;
use crate::scheduler::node_affinity::LastRequired;
use crate::scheduler::profile::Profile;
use crate::state::needs::AnyPod;
use crate::state::{ClusterState, Pod, PodRef};

/// What `audit` looks at: the namespace (`None`: every one), and which pods.
#[derive(Debug, Clone)]
pub struct Request {
    pub all_namespaces: bool,
    /// `--pending`, `--violating`: neither or both mean both.
    pub pending: bool,
    pub violating: bool,
}

/// The audit document, and with `--diff` what the edits change.
pub type Audited = Diffed<Audit, AuditDiff>;

/// `audit`: the scope's Pending pods, each evaluated once, and its bound pods, each checked
/// against its own node; with the scheduler's own events beside the Pending ones, live.
pub fn audit(options: &Options, request: &Request) -> Result<Outcome<Audited>, Error> {
    let mut run = Run::open(options)?;
    run.emulate()?;
    let both = request.pending == request.violating;
    let scope = Scope {
        namespace: (!request.all_namespaces).then(|| run.namespace()),
        pending: both || request.pending,
        violating: both || request.violating,
    };
    // The pods are not known before they are read: what any pod of the scope may need.
    // PodDisruptionBudgets (preemption's part of the message) and the storage objects only
    // for Pending pods; a running pod's check reads no more than its node.
    let mut need = needs_of_any_pod(match &scope.namespace {
        Some(ns) => AnyPod::Namespace(ns.clone()),
        None => AnyPod::Cluster,
    });
    need.disruption_budgets = scope.pending;
    need.storage = scope.pending;
    need.dra = scope.pending;
    let (state, mut read) = run.read(&need)?;
    let clusters = run.edit(state)?;
    let mut profiles = BTreeMap::new();
    for pod in clusters.edited.all_pods() {
        let name = &pod.template.scheduler_name;
        if !profiles.contains_key(&**name) {
            profiles.insert(name.to_string(), run.profile(name)?);
        }
    }
    let events = match run.source.live() {
        Some(live) if scope.pending => match live.scheduling_events(scope.namespace.as_deref())? {
            Ok(events) => events,
            Err(refused) => {
                read.push(Note::EventsForbidden(refused.into()));
                Default::default()
            }
        },
        _ => Default::default(),
    };
    let before = (clusters.unedited.as_ref()).map(|o| cluster(o, &profiles, &scope, read.clone()));
    let mut doc = cluster(&clusters.edited, &profiles, &scope, read);
    let diff = before.map(|before| AuditDiff::new(run.edits(), &before, &doc));
    doc.source = Some(run.source.name());
    let pending: Vec<PodRef> = doc.pending_pods().collect();
    for pod in pending {
        let key = (pod.namespace.to_string(), pod.name.to_string());
        // Live, the events are listed; a snapshot holds those it was written with.
        let event = match run.source.live() {
            Some(_) => events.get(&key).cloned(),
            None => clusters.edited.scheduling_event(&key.0, &key.1).cloned(),
        };
        if let Some(e) = event {
            doc.set_scheduler_event(&pod, e.message, e.last_seen, e.count, e.reported_by);
        }
    }
    Ok(run.finish(clusters, Diffed { doc, diff }))
}

/// Audits `state` within `scope`; `profiles` holds the profile for each scheduler name the
/// pods give (a name no profile serves maps to the default scheduler's profile, whose name
/// then differs: those pods are not Pending for any scheduler here). `read` is what reading
/// the cluster left out.
pub fn cluster(
    state: &ClusterState,
    profiles: &BTreeMap<String, Profile>,
    scope: &Scope,
    read: Vec<Note>,
) -> Audit {
    let in_scope = |p: &Pod| {
        scope
            .namespace
            .as_deref()
            .is_none_or(|ns| *p.id.namespace == *ns)
    };
    let profile_of = |p: &Pod| {
        profiles
            .get(&*p.template.scheduler_name)
            .filter(|prof| prof.scheduler_name == p.template.scheduler_name)
    };
    let pending = || {
        scope.pending.then(|| {
            let mut pods = Vec::new();
            for pod in state.other_pods() {
                if pod.is_terminal() || !in_scope(pod) {
                    continue;
                }
                // Every Pending pod is listed, those the scheduler does not try by why.
                let category = if !pod.node_name.is_empty() {
                    // Bound to a node the state does not have: Pending until the pod garbage
                    // collector deletes it; a Running one is the kubelet's, gone with its node.
                    if !matches!(&*pod.template.phase, "" | "Pending") {
                        continue;
                    }
                    Some(Category::BoundToMissingNode)
                } else if profile_of(pod).is_none() {
                    Some(Category::OtherScheduler)
                } else if !pod.template.scheduling_gates.is_empty() {
                    Some(Category::Gated)
                } else {
                    None
                };
                let (Some(profile), None) = (profile_of(pod), category) else {
                    if let Some(category) = category {
                        pods.push((pod, PendingPod::not_tried(pod, category)));
                    }
                    continue;
                };
                let input = Input {
                    pod,
                    state,
                    exclude: None,
                    removed: &[],
                };
                let doc = explanation(input, profile, Vec::new(), Subject::default());
                pods.push((pod, PendingPod::of(doc)));
            }
            pods
        })
    };
    let mut on_cordoned: BTreeMap<&str, usize> = BTreeMap::new();
    let mut to_check = Vec::new();
    let mut static_pods = 0;
    for (i, pod) in state.pods().iter().enumerate() {
        if !in_scope(pod) {
            continue;
        }
        let node = &state.nodes()[state.pod_node(i)];
        if node.unschedulable {
            *on_cordoned.entry(&node.name).or_default() += 1;
        }
        if !scope.violating {
            continue;
        }
        // A static pod's mirror (its controller is the Node, set by the kubelet's
        // pkg/kubelet/pod/mirror_client.go) was never placed by the scheduler: the
        // kubelet runs it from a file whatever the node's labels and taints.
        if pod.controller.as_deref().is_some_and(|c| c.kind == "Node") {
            static_pods += 1;
            continue;
        }
        // A pod no profile serves was never placed by these rules' scheduler; the
        // default profile's rules are still the ones a user means.
        if let Some(profile) = profiles.get(&*pod.template.scheduler_name) {
            to_check.push((i, profile));
        }
    }
    // The Pending pods' cycles and the bound pods' checks are independent: side by side.
    let (pending, checked) = std::thread::scope(|s| {
        let pending = s.spawn(pending);
        let checked = check_all(state, &to_check);
        match pending.join() {
            Ok(pending) => (pending, checked),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    });
    let found = Found {
        pending,
        checked,
        static_pods,
        on_cordoned,
    };
    Audit::new(state, scope, found, read)
}

/// Checks every pod of `pods` (an index into `state.pods()` with the profile that placed it)
/// against its own node: the pods with something to say, in the order given. The pods are
/// independent of each other, and an audit of a whole cluster checks every bound pod, so the
/// cores take an equal share each.
pub fn check_all(state: &ClusterState, pods: &[(usize, &Profile)]) -> Vec<(usize, Standing)> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let share = pods.len().div_ceil(threads).max(1);
    let check = |part: &[(usize, &Profile)]| -> Vec<(usize, Standing)> {
        let mut last = LastRequired::default();
        part.iter()
            .map(|&(i, profile)| (i, check_bound(state, i, profile, &mut last)))
            .filter(|(_, s)| !s.broken.is_empty() || !s.not_evaluated.is_empty())
            .collect()
    };
    std::thread::scope(|scope| {
        let mut parts = pods.chunks(share);
        let first = parts.next().unwrap_or_default();
        let others: Vec<_> = parts.map(|part| scope.spawn(move || check(part))).collect();
        let mut found = check(first);
        for other in others {
            match other.join() {
                Ok(more) => found.extend(more),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        found
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::scheduler::config::FeatureGates;
    use crate::scheduler::testing::{db_pod, state_of, zone_node};

    #[test]
    fn checking_every_pod_at_once_says_what_each_check_says_in_order() {
        let mut items = vec![zone_node("a", "z1")];
        // Each pod's required node affinity differs from the one before it.
        for (i, zone) in ["z1", "z2", "z2", "z1", "z2", "z1", "z2"]
            .iter()
            .enumerate()
        {
            let mut pod = db_pod(&format!("p{i}"), "a");
            pod["spec"]["affinity"] = json!({"nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "zone", "operator": "In", "values": [zone]}]}]}}});
            items.push(pod);
        }
        let state = state_of(json!(items));
        let profile = Profile::default_profile(FeatureGates::default());
        let pods: Vec<(usize, &Profile)> = (0..state.pods().len()).map(|i| (i, &profile)).collect();
        let found = check_all(&state, &pods);
        let names: Vec<&str> = found
            .iter()
            .map(|(i, _)| &*state.pods()[*i].id.name)
            .collect();
        assert_eq!(names, ["p1", "p2", "p4", "p6"]);
        for (i, standing) in &found {
            let alone = check_bound(&state, *i, &profile, &mut LastRequired::default());
            assert_eq!(format!("{standing:?}"), format!("{alone:?}"));
        }
    }
}
