//! `whatif -f` of a workload that exists: an update, rolled out as its controller rolls it,
//! each new pod evaluated at the step the controller creates it, beside the old pods still
//! running then.
//!
//! From pkg/controller: `deployment/rolling.go` (`reconcileNewReplicaSet`: the new
//! ReplicaSet grows while all pods stay within `replicas + maxSurge`; `reconcileOldReplicaSets`:
//! the old ones shrink while `replicas - maxUnavailable` stay available, the unhealthy first),
//! `deployment/recreate.go` (every old pod gone, then the new ReplicaSet scaled up),
//! `deployment/util/deployment_util.go` (`ResolveFenceposts`: maxSurge rounded up,
//! maxUnavailable down, both 0 make maxUnavailable 1), `replicaset/replica_set.go`
//! (`getPodsToDelete`: unscheduled first, then those sharing a node with more of the related
//! pods) and `statefulset/stateful_set_control.go` (`updateStatefulSet`: missing ordinals
//! created, condemned ones deleted, then the highest ordinal not at the update revision
//! deleted and recreated, one at a time, down to the partition; OnDelete stops before).

use std::sync::Arc;

use serde_json::Value;

use crate::report::workload::{
    NotCreated, ReplicaReport, UpdateReport, UpdatedPod, WorkloadReport,
};
use crate::report::{Explanation, Note, Subject, UpdateRule, failed_scheduling_message};
use crate::scheduler::profile::Profile;
use crate::scheduler::workload::{TieBreak, pick};
use crate::scheduler::{Input, evaluate};
use crate::state::{ClusterState, Pod};

/// How the controller replaces the pods, from the workload's strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// A Deployment's RollingUpdate, resolved against its replicas.
    Rolling {
        max_surge: u32,
        max_unavailable: u32,
    },
    Recreate,
    /// A StatefulSet's RollingUpdate: ordinals below `partition` are kept.
    Ordinals {
        partition: u32,
    },
    OnDelete,
}

impl Rule {
    /// The rule of a `kind` workload whose strategy is `strategy` (as written) and whose
    /// count is `replicas`; `Err((field, message))` where the API server would refuse it.
    pub fn of(
        kind: &str,
        strategy: Option<&Value>,
        replicas: u32,
    ) -> Result<Rule, (String, String)> {
        let kind_of = strategy
            .and_then(|s| s.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("RollingUpdate");
        let rolling = strategy.and_then(|s| s.get("rollingUpdate"));
        match (kind, kind_of) {
            ("Deployment", "Recreate") => Ok(Rule::Recreate),
            ("Deployment", "RollingUpdate") => {
                let field = |name: &str| rolling.and_then(|r| r.get(name)).filter(|v| !v.is_null());
                let path = |name: &str| format!("spec.strategy.rollingUpdate.{name}");
                let surge = int_or_percent(field("maxSurge"), &path("maxSurge"))?;
                let unavailable = int_or_percent(field("maxUnavailable"), &path("maxUnavailable"))?;
                if surge.is_zero() && unavailable.is_zero() {
                    return Err((
                        path("maxUnavailable"),
                        "Invalid value: may not be 0 when `maxSurge` is 0".to_string(),
                    ));
                }
                let max_surge = surge.scaled(replicas, true);
                let mut max_unavailable = unavailable.scaled(replicas, false);
                // `ResolveFenceposts`: both rounded to 0, surge might not work (quota).
                if max_surge == 0 && max_unavailable == 0 {
                    max_unavailable = 1;
                }
                Ok(Rule::Rolling {
                    max_surge,
                    max_unavailable,
                })
            }
            ("StatefulSet", "OnDelete") => Ok(Rule::OnDelete),
            ("StatefulSet", "RollingUpdate") => {
                let partition = rolling
                    .and_then(|r| r.get("partition"))
                    .and_then(Value::as_i64)
                    .unwrap_or(0);
                let partition = u32::try_from(partition).map_err(|_| {
                    (
                        "spec.updateStrategy.rollingUpdate.partition".to_string(),
                        format!("Invalid value: {partition}: must be greater than or equal to 0"),
                    )
                })?;
                Ok(Rule::Ordinals { partition })
            }
            (_, other) => {
                let field = match kind {
                    "Deployment" => "spec.strategy.type",
                    _ => "spec.updateStrategy.type",
                };
                let supported = match kind {
                    "Deployment" => "\"Recreate\", \"RollingUpdate\"",
                    _ => "\"OnDelete\", \"RollingUpdate\"",
                };
                Err((
                    field.to_string(),
                    format!("Unsupported value: {other:?}: supported values: {supported}"),
                ))
            }
        }
    }
}

/// An `IntOrString` of a rolling update: a count, or a percentage of the replicas.
#[derive(Debug, Clone, Copy)]
enum Amount {
    Count(u32),
    Percent(u32),
}

impl Amount {
    fn is_zero(self) -> bool {
        matches!(self, Amount::Count(0) | Amount::Percent(0))
    }

    /// `GetScaledValueFromIntOrPercent`: a percentage of `total`, rounded up or down.
    fn scaled(self, total: u32, round_up: bool) -> u32 {
        match self {
            Amount::Count(n) => n,
            Amount::Percent(p) => {
                let product = u64::from(p) * u64::from(total);
                let value = match round_up {
                    true => product.div_ceil(100),
                    false => product / 100,
                };
                u32::try_from(value).unwrap_or(u32::MAX)
            }
        }
    }
}

/// The API server's default for both fields is 25%.
fn int_or_percent(v: Option<&Value>, field: &str) -> Result<Amount, (String, String)> {
    let invalid =
        |v: &Value, what: &str| (field.to_string(), format!("Invalid value: {v}: {what}"));
    match v {
        None => Ok(Amount::Percent(25)),
        Some(Value::Number(n)) => n
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .map(Amount::Count)
            .ok_or_else(|| {
                invalid(
                    &Value::Number(n.clone()),
                    "must be greater than or equal to 0",
                )
            }),
        Some(Value::String(s)) => s
            .strip_suffix('%')
            .and_then(|p| p.parse::<u32>().ok())
            .map(Amount::Percent)
            .ok_or_else(|| {
                invalid(
                    &Value::String(s.clone()),
                    "a valid percent string must be a numeric string followed by an ending '%'",
                )
            }),
        Some(other) => Err(invalid(other, "must be an integer or a percentage")),
    }
}

/// A pod of the workload that runs the old template.
#[derive(Debug, Clone)]
pub struct Old {
    pub name: String,
    /// Its node; `None` while it waits for one.
    pub node: Option<String>,
}

/// An update to roll out.
#[derive(Debug, Clone)]
pub struct Rollout {
    /// e.g. `Deployment`.
    pub kind: String,
    pub name: String,
    pub namespace: String,
    pub rule: Rule,
    /// The old pods, as the cluster has them.
    pub old: Vec<Old>,
    /// The new pods, by replica index (a StatefulSet's: by ordinal from its first).
    pub replicas: Vec<Pod>,
    /// A StatefulSet's OrderedReady.
    pub ordered: bool,
    /// `--replica K`: the row explained node by node.
    pub explain: Option<usize>,
    pub tie: TieBreak,
    pub read: Vec<Note>,
    pub subject: Subject,
}

/// One new pod's row, as its cycles leave it.
struct Row {
    report: ReplicaReport,
    /// Its pod, unplaced, for a later cycle.
    pod: Pod,
    update: UpdatedPod,
}

/// The rollout as it goes: the cluster with the pods running at this step.
struct Steps<'a> {
    state: &'a mut ClusterState,
    profile: &'a Profile,
    run: &'a Rollout,
    tie: TieBreak,
    /// The old pods still running, in the order the controller deletes them last.
    old: Vec<Old>,
    rows: Vec<Row>,
    explained: Option<(usize, Explanation)>,
    explained_pending: bool,
    /// `--replica K` beyond the pods created: the one explained without it.
    fallback: Option<(usize, Explanation)>,
    /// Old pods removed since the last new pod was created, whose room the next ones take.
    freed: std::collections::VecDeque<String>,
    /// Old pods were removed since the Pending new pods were last tried.
    woken: bool,
}

impl<'a> Steps<'a> {
    /// The rollout of `run` on `state`, nothing done yet, `old` still running.
    fn new(
        state: &'a mut ClusterState,
        profile: &'a Profile,
        run: &'a Rollout,
        old: Vec<Old>,
    ) -> Self {
        Steps {
            state,
            profile,
            run,
            tie: run.tie.clone(),
            old,
            rows: Vec::new(),
            explained: None,
            explained_pending: false,
            fallback: None,
            freed: Default::default(),
            woken: false,
        }
    }
}

impl Steps<'_> {
    /// Removes the old pods named `names` from the cluster, as their deletion does.
    fn remove(&mut self, names: &[String]) {
        if names.is_empty() {
            return;
        }
        let ns = self.run.namespace.as_str();
        let gone = |p: &Pod| *p.id.namespace == *ns && names.iter().any(|n| *n == *p.id.name);
        let nodes = self.state.nodes().to_vec();
        let pods: Vec<Pod> = self
            .state
            .all_pods()
            .filter(|p| !gone(p))
            .cloned()
            .collect();
        let state = std::mem::take(self.state);
        *self.state = state.with_nodes_and_pods(nodes, pods);
        self.old.retain(|o| !names.contains(&o.name));
        self.freed.extend(names.iter().cloned());
        self.woken = true;
    }

    /// Creates new pod `k` (replacing `replaces`, else the next old pod removed before it)
    /// and runs its cycle; whether it was placed.
    fn create(&mut self, k: usize, replaces: Option<String>) -> bool {
        let pod = self.run.replicas[k].clone();
        let replaces = replaces.or_else(|| self.freed.pop_front());
        let index = self.rows.len();
        self.rows.push(Row {
            report: ReplicaReport {
                index,
                name: pod.id.name.to_string(),
                ..Default::default()
            },
            pod,
            update: UpdatedPod {
                index,
                replaces,
                old_running: self.old.len(),
            },
        });
        self.cycle(index)
    }

    /// Row `i`'s scheduling cycle on the cluster as it is now; its pod is assumed onto the
    /// node picked.
    fn cycle(&mut self, i: usize) -> bool {
        let pod = self.rows[i].pod.clone();
        let input = Input {
            pod: &pod,
            state: self.state,
            exclude: None,
            removed: &[],
        };
        let evaluation = evaluate(input, self.profile);
        let picked = pick(&evaluation, &mut self.tie);
        let node = picked.node.map(|n| self.state.nodes()[n].name.clone());
        let row = &mut self.rows[i].report;
        row.node.clone_from(&node);
        row.score = picked.score;
        // Named by three and counted, as a new workload's replicas are.
        row.tied_with = (picked.tied_with.iter().take(3))
            .map(|&n| self.state.nodes()[n].name.clone())
            .collect();
        row.tied_count = picked.tied_with.len();
        row.failed_scheduling_message = match node {
            Some(_) => None,
            None => failed_scheduling_message(&evaluation)
                .map(|(m, _)| m)
                .or_else(|| evaluation.errors.first().cloned()),
        };
        let pending = node.is_none();
        // Without `--replica`: the first, until a Pending one comes, then the first Pending
        // (and the same one again when it is tried again).
        let slot = match self.run.explain {
            None => &self.explained,
            Some(_) => &self.fallback,
        };
        let again = slot.as_ref().is_some_and(|(k, _)| *k == i);
        let by_default = again || slot.is_none() || (pending && !self.explained_pending);
        let asked = self.run.explain == Some(i);
        if asked || by_default {
            let input = Input {
                pod: &pod,
                state: self.state,
                exclude: None,
                removed: &[],
            };
            let context = super::context(
                input,
                self.profile,
                self.run.read.clone(),
                self.run.subject.clone(),
            );
            let mut explained = Explanation::new(evaluation, context);
            explained.suggest(&pod);
            match asked || self.run.explain.is_none() {
                true => self.explained = Some((i, explained)),
                false => self.fallback = Some((i, explained)),
            }
            if by_default {
                self.explained_pending = pending;
            }
        }
        if let Some(n) = node {
            let mut pod = pod;
            pod.node_name = Arc::from(n.as_str());
            self.state.add_pod(pod);
        }
        !pending
    }

    /// Rows for the new pods `ks` the controller does not create, waiting for `waits_for`.
    fn not_created(&mut self, ks: impl IntoIterator<Item = usize>, waits_for: &str) {
        for k in ks {
            let index = self.rows.len();
            let pod = self.run.replicas[k].clone();
            self.rows.push(Row {
                report: ReplicaReport {
                    index,
                    name: pod.id.name.to_string(),
                    not_created: Some(NotCreated {
                        waits_for: waits_for.to_string(),
                    }),
                    ..Default::default()
                },
                pod,
                update: UpdatedPod {
                    index,
                    replaces: None,
                    old_running: self.old.len(),
                },
            });
        }
    }

    fn pending(&self) -> impl Iterator<Item = usize> + '_ {
        (self.rows.iter().enumerate())
            .filter(|(_, r)| r.report.node.is_none() && r.report.not_created.is_none())
            .map(|(i, _)| i)
    }

    /// A Deployment's RollingUpdate: the new ReplicaSet scaled up within `replicas +
    /// max_surge`, the old ones down while `replicas - max_unavailable` stay available, in
    /// turn until neither moves; new pods left Pending are tried again once old pods left.
    fn rolling(&mut self, max_surge: u32, max_unavailable: u32) {
        let wanted = self.run.replicas.len();
        let max_total = wanted + to_usize(max_surge);
        let min_available = wanted.saturating_sub(to_usize(max_unavailable));
        let mut created = 0;
        loop {
            let mut moved = false;
            // A pod's deletion wakes the scheduler's Pending pods.
            if std::mem::take(&mut self.woken) {
                let pending: Vec<usize> = self.pending().collect();
                for i in pending {
                    self.rows[i].update.old_running = self.old.len();
                    moved |= self.cycle(i);
                }
            }
            let up = max_total
                .saturating_sub(self.old.len() + created)
                .min(wanted - created);
            for _ in 0..up {
                self.create(created, None);
                created += 1;
                moved = true;
            }
            let new_available = self.rows.iter().filter(|r| r.report.node.is_some()).count();
            let all = self.old.len() + created;
            // `reconcileOldReplicaSets`: at most this many go, the unhealthy first.
            let max_scaled_down = all
                .saturating_sub(min_available)
                .saturating_sub(created - new_available);
            let mut down: Vec<String> = (self.old.iter())
                .filter(|o| o.node.is_none())
                .map(|o| o.name.clone())
                .take(max_scaled_down)
                .collect();
            let old_available = self.old.iter().filter(|o| o.node.is_some()).count();
            let healthy_down = (old_available + new_available)
                .saturating_sub(min_available)
                .min(old_available)
                .min(max_scaled_down - down.len());
            down.extend(self.deletion_order().into_iter().take(healthy_down));
            if !down.is_empty() {
                self.remove(&down);
                moved = true;
            }
            if !moved {
                break;
            }
        }
        // The first new pod still Pending holds the rollout.
        if created < wanted {
            let waits = (self.pending().next())
                .map(|i| self.rows[i].report.name.clone())
                .unwrap_or_default();
            self.not_created(created..wanted, &waits);
        }
    }

    /// The old pods running on a node, in the order the ReplicaSet controller deletes them:
    /// those sharing their node with more of the workload's pods first, then by name (upstream
    /// then takes the newest, whose creation time the snapshot does not keep).
    fn deletion_order(&self) -> Vec<String> {
        let mut on_node = std::collections::BTreeMap::<&str, usize>::new();
        let nodes = (self.old.iter().filter_map(|o| o.node.as_deref()))
            .chain(self.rows.iter().filter_map(|r| r.report.node.as_deref()));
        for n in nodes {
            *on_node.entry(n).or_default() += 1;
        }
        let mut old: Vec<&Old> = self.old.iter().filter(|o| o.node.is_some()).collect();
        old.sort_by(|a, b| {
            let rank = |o: &Old| on_node.get(o.node.as_deref().unwrap_or("")).copied();
            rank(b).cmp(&rank(a)).then_with(|| b.name.cmp(&a.name))
        });
        old.into_iter().map(|o| o.name.clone()).collect()
    }

    /// A Deployment's Recreate: every old pod removed, then the new ones created at once.
    fn recreate(&mut self) {
        let all: Vec<String> = self.old.iter().map(|o| o.name.clone()).collect();
        self.remove(&all);
        for k in 0..self.run.replicas.len() {
            self.create(k, None);
        }
    }

    /// A StatefulSet's RollingUpdate: missing ordinals created, condemned ones deleted, then
    /// from the highest ordinal down to `partition` each old pod deleted and its new one
    /// created, the next only once it runs.
    fn ordinals(&mut self, partition: usize) {
        let count = self.run.replicas.len();
        let names: Vec<String> = (self.run.replicas.iter())
            .map(|p| p.id.name.to_string())
            .collect();
        let has_old: Vec<bool> = (names.iter())
            .map(|n| self.old.iter().any(|o| o.name == *n))
            .collect();
        for k in (0..count).filter(|&k| !has_old[k]) {
            if !self.create(k, None) && self.run.ordered {
                let missing = (k + 1..count).filter(|&j| !has_old[j]);
                let updated = (partition..count).rev().filter(|&j| has_old[j]);
                let rest: Vec<usize> = missing.chain(updated).collect();
                self.not_created(rest, &names[k]);
                return;
            }
        }
        let condemned: Vec<String> = (self.old.iter())
            .filter(|o| !names.contains(&o.name))
            .map(|o| o.name.clone())
            .collect();
        self.remove(&condemned);
        self.freed.clear();
        let targets: Vec<usize> = (partition..count).rev().filter(|&k| has_old[k]).collect();
        for (t, &k) in targets.iter().enumerate() {
            self.remove(std::slice::from_ref(&names[k]));
            self.freed.clear();
            if !self.create(k, Some(names[k].clone())) {
                self.not_created(targets[t + 1..].to_vec(), &names[k]);
                return;
            }
        }
    }
}

fn to_usize(n: u32) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// The note saying how the update is rolled out.
pub fn note(run: &Rollout) -> Note {
    let rule = match run.rule {
        Rule::Rolling {
            max_surge,
            max_unavailable,
        } => UpdateRule::RollingUpdate {
            max_surge,
            max_unavailable,
            replicas: u32::try_from(run.replicas.len()).unwrap_or(u32::MAX),
        },
        Rule::Recreate => UpdateRule::Recreate,
        Rule::Ordinals { partition } => UpdateRule::OrdinalRollingUpdate {
            partition,
            kept: (run.replicas.iter().take(to_usize(partition)))
                .map(|p| p.id.name.to_string())
                .collect(),
        },
        Rule::OnDelete => UpdateRule::OnDelete,
    };
    let waits_for = blocked_by(run);
    Note::Updated {
        workload: format!("{} {}/{}", run.kind, run.namespace, run.name),
        old: run.old.len(),
        rule,
        waits_for,
    }
}

/// With OrderedReady, an old pod in range that does not run stops the controller before
/// it updates (`processReplica` waits for it to be Running and Ready).
fn blocked_by(run: &Rollout) -> Option<String> {
    if !run.ordered || matches!(run.rule, Rule::OnDelete) {
        return None;
    }
    let names: Vec<String> = run.replicas.iter().map(|p| p.id.name.to_string()).collect();
    (run.old.iter())
        .find(|o| o.node.is_none() && names.contains(&o.name))
        .map(|o| o.name.clone())
}

/// Rolls `run` out on `state` (which keeps the new pods placed and loses the old ones
/// removed) and returns the explanation of one new pod with every new pod's placement
/// beside it; `None` when there is no new pod.
pub fn roll_out(run: &Rollout, state: &mut ClusterState, profile: &Profile) -> Option<Explanation> {
    let first = run.replicas.first()?.clone();
    let mut steps = Steps::new(state, profile, run, run.old.clone());
    let count = run.replicas.len();
    match (run.rule, blocked_by(run)) {
        (_, Some(waits)) => steps.not_created(0..count, &waits),
        (
            Rule::Rolling {
                max_surge,
                max_unavailable,
            },
            None,
        ) => steps.rolling(max_surge, max_unavailable),
        (Rule::Recreate, None) => steps.recreate(),
        (Rule::Ordinals { partition }, None) => steps.ordinals(to_usize(partition).min(count)),
        (Rule::OnDelete, None) => {}
    }
    let Steps {
        rows,
        explained,
        fallback,
        old,
        ..
    } = steps;
    let explained = explained.or(fallback);
    // Nothing evaluated (OnDelete, or blocked): the highest ordinal's new pod, were its old
    // one gone, on a copy of the cluster.
    let (explained, doc) = match explained {
        Some(e) => e,
        None => {
            let mut copy = state.clone();
            let last = run.replicas.last().unwrap_or(&first);
            let mut steps = Steps::new(&mut copy, profile, run, old.clone());
            steps.remove(&[last.id.name.to_string()]);
            let k = run.replicas.len() - 1;
            steps.create(k, None);
            let (_, doc) = steps.explained?;
            (usize::MAX, doc)
        }
    };
    let mut doc = doc;
    let placed = rows.iter().filter(|r| r.report.node.is_some()).count();
    let not_created = rows
        .iter()
        .filter(|r| r.report.not_created.is_some())
        .count();
    let (pods, updated): (Vec<ReplicaReport>, Vec<UpdatedPod>) =
        rows.into_iter().map(|r| (r.report, r.update)).unzip();
    let (max_surge, max_unavailable, partition) = match run.rule {
        Rule::Rolling {
            max_surge,
            max_unavailable,
        } => (Some(max_surge), Some(max_unavailable), None),
        Rule::Ordinals { partition } => (None, None, Some(partition)),
        _ => (None, None, None),
    };
    doc.workload = Some(WorkloadReport {
        kind: run.kind.clone(),
        name: run.name.clone(),
        namespace: run.namespace.clone(),
        replicas: pods.len(),
        placed,
        pending: pods.len() - placed - not_created,
        not_created,
        explained: explained.min(pods.len()),
        pods,
        notes: vec![note(run)],
        update: Some(UpdateReport {
            strategy: match run.rule {
                Rule::Recreate => "Recreate",
                Rule::OnDelete => "OnDelete",
                _ => "RollingUpdate",
            }
            .to_string(),
            max_surge,
            max_unavailable,
            partition,
            old_pods: run.old.iter().map(|o| o.name.clone()).collect(),
            pods: updated,
        }),
    });
    Some(doc)
}

/// Whether `file`'s pod template is the one `running` (the workload's, as the cluster keeps
/// it) is: the fields both have are equal, and a field only the cluster's has is one the API
/// server defaults, or empty. A field only the file has is taken as equal: a snapshot keeps
/// only what scheduling reads (no env, probes or commands).
pub fn same_template(file: &Value, running: &Value) -> bool {
    same(file, running)
}

/// The fields the API server fills in a pod template that a manifest leaves out.
const DEFAULTED: &[&str] = &[
    "creationTimestamp",
    "restartPolicy",
    "terminationGracePeriodSeconds",
    "dnsPolicy",
    "securityContext",
    "schedulerName",
    "enableServiceLinks",
    "imagePullPolicy",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "resources",
    "protocol",
    "defaultMode",
    "timeoutSeconds",
    "periodSeconds",
    "successThreshold",
    "failureThreshold",
    "scheme",
    "pod-template-hash",
];

fn same(file: &Value, running: &Value) -> bool {
    match (file, running) {
        (Value::Object(f), Value::Object(r)) => {
            f.iter().all(|(k, v)| r.get(k).is_none_or(|w| same(v, w)))
                && r.iter().all(|(k, w)| {
                    f.contains_key(k.as_str()) || DEFAULTED.contains(&k.as_str()) || empty(w)
                })
        }
        (Value::Array(f), Value::Array(r)) => {
            f.len() == r.len() && f.iter().zip(r).all(|(v, w)| same(v, w))
        }
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => file == running,
    }
}

fn empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::String(s) => s.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rolling_update_fenceposts_as_the_deployment_controller_resolves_them() {
        let rule = |s: Value, n| Rule::of("Deployment", Some(&s), n);
        // The defaults: 25% up and 25% down.
        assert_eq!(
            Rule::of("Deployment", None, 3),
            Ok(Rule::Rolling {
                max_surge: 1,
                max_unavailable: 0
            })
        );
        assert_eq!(
            rule(
                json!({"rollingUpdate": {"maxSurge": 0, "maxUnavailable": "50%"}}),
                3
            ),
            Ok(Rule::Rolling {
                max_surge: 0,
                max_unavailable: 1
            })
        );
        // 10% of 3 is 0 both ways: maxUnavailable becomes 1.
        assert_eq!(
            rule(
                json!({"rollingUpdate": {"maxSurge": "0%", "maxUnavailable": "10%"}}),
                3
            ),
            Ok(Rule::Rolling {
                max_surge: 0,
                max_unavailable: 1
            })
        );
        let (field, message) = rule(
            json!({"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}),
            3,
        )
        .unwrap_err();
        assert_eq!(field, "spec.strategy.rollingUpdate.maxUnavailable");
        assert!(
            message.contains("may not be 0 when `maxSurge` is 0"),
            "{message}"
        );
        assert_eq!(rule(json!({"type": "Recreate"}), 3), Ok(Rule::Recreate));
        let sts = |s: Value| Rule::of("StatefulSet", Some(&s), 3);
        assert_eq!(sts(json!({"type": "OnDelete"})), Ok(Rule::OnDelete));
        assert_eq!(
            sts(json!({"rollingUpdate": {"partition": 2}})),
            Ok(Rule::Ordinals { partition: 2 })
        );
    }

    #[test]
    fn a_template_is_the_same_but_for_what_the_api_server_defaults() {
        let file = json!({"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "x:1", "env": [{"name": "A", "value": "1"}]}]}});
        let running = json!({"metadata": {"creationTimestamp": null, "labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "x:1", "imagePullPolicy": "IfNotPresent",
                                      "resources": {}}],
                     "restartPolicy": "Always", "schedulerName": "default-scheduler"}});
        assert!(same_template(&file, &running));
        let changed = json!({"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "x:2"}]}});
        assert!(!same_template(&changed, &running));
        let selector_removed = json!({"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "x:1"}]}});
        let mut pinned = running.clone();
        pinned["spec"]["nodeSelector"] = json!({"zone": "a"});
        assert!(!same_template(&selector_removed, &pinned));
    }
}
