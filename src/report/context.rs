//! What the document says beside the evaluation: who the pod is, which profile ran, how the
//! pod came to be evaluated, and which notes the reader needs to read the result right.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::scheduler::PluginId;
use crate::scheduler::inter_pod_affinity::NamespacesUnread;
use crate::scheduler::profile::Profile;
use crate::scheduler::release::Release;
use crate::scheduler::storage::Gap;
use crate::state::validate::Finding;
use crate::state::{Defaulted, Pod, PodRef};

use super::notes::{DaemonTolerations, Note, Unplaced};

/// The kube-scheduler release whose behaviour (plugins, reasons, defaults) is reproduced.
pub const KUBERNETES_VERSION: &str = "1.35";

/// Which scheduler and profile the pod was evaluated with.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SchedulerInfo {
    pub kubernetes_version: &'static str,
    pub scheduler_name: String,
    pub profile_source: String,
    pub feature_gates: BTreeMap<String, bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub percentage_of_nodes_to_score: Option<i32>,
}

/// How the pod came to be evaluated.
#[derive(Debug, Clone)]
pub enum Subject {
    /// `explain`: a pod of the cluster, and the node it runs on when it is bound.
    Cluster { current_node: Option<String> },
    /// `whatif`: the pod a manifest would create.
    Manifest(Manifest),
}

impl Default for Subject {
    fn default() -> Subject {
        Subject::Cluster { current_node: None }
    }
}

/// What `whatif` did to a manifest's pod before evaluating it, as the API server and the
/// workload's controller would have.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// e.g. `Deployment/web-store`.
    pub origin: String,
    /// What the API server's validation says about the pod's scheduling fields.
    pub findings: Vec<Finding>,
    /// `--validate=warn`: the pod is evaluated although the API server would reject it, and
    /// the findings it would reject it for are shown too.
    pub evaluated_anyway: bool,
    /// What the API server's defaulting set on the pod.
    pub defaulted: Vec<Defaulted>,
    /// matchLabelKeys/mismatchLabelKeys requirements merged into label selectors.
    pub merged: usize,
    /// A DaemonSet's pod: what its controller adds.
    pub daemon: Option<DaemonTolerations>,
    /// What the API server's admission plugins changed.
    pub admitted: Vec<crate::state::admission::Change>,
    /// The validating admission plugin that would refuse the pod, and its words.
    pub rejected: Option<(&'static str, String)>,
    /// The pod is the one the API server returned for a dry-run create.
    pub server_dry_run: bool,
}

/// What the evaluation of a pod leaves uncertain or does not model, found beside it by the
/// pipeline (`pipeline::unevaluated`): each is a note of the document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Unevaluated {
    /// PodTopologySpread's default constraints apply, but no Service or controller was read
    /// to derive their selector.
    pub workloads_unread: bool,
    /// Why InterPodAffinity's namespace selectors could not be resolved.
    pub namespaces_unread: Option<NamespacesUnread>,
    /// NodeResourcesFit scores the pod, and its score ignores the pod's pod-level requests.
    pub pod_level_fit_score: bool,
    /// The pod sets pod-level requests the emulated release ignores (PodLevelResources off).
    pub pod_level_ignored: bool,
    /// The Filter and Score plugins of the profile this version does not model.
    pub plugins: Vec<PluginId>,
    /// Each storage plugin not evaluated for the pod, and why.
    pub storage: Vec<(PluginId, Gap)>,
    /// The pod's claims its workload's templates would create.
    pub claims_from_templates: Vec<String>,
    /// The pod's claims bound to a volume but not bind-completed, where VolumeBinding filters.
    pub claims_not_bind_completed: Vec<String>,
}

/// Context the evaluation does not know: who the pod is and which profile ran.
#[derive(Debug, Clone)]
pub struct Context {
    pub pod: PodRef,
    pub scheduler: SchedulerInfo,
    pub notes: Vec<Note>,
    /// The node a running pod is bound to.
    pub current_node: Option<String>,
    /// The pod is a DaemonSet's template.
    pub daemon_set: bool,
    /// Why the scheduler would not place the pod at all, said before the evaluation.
    pub not_scheduled: Vec<Unplaced>,
}

impl Context {
    /// The context of evaluating `pod` under `profile`: `unevaluated` is what the evaluation
    /// leaves uncertain, `read` what reading the cluster left out, `subject` how the pod came
    /// to be evaluated.
    pub fn new(
        pod: &Pod,
        profile: &Profile,
        unevaluated: Unevaluated,
        read: Vec<Note>,
        subject: Subject,
    ) -> Context {
        let mut notes = Vec::new();
        if let Subject::Manifest(m) = &subject {
            notes.push(Note::WhatIf {
                pod: (*pod.id).clone(),
                origin: m.origin.clone(),
            });
        }
        notes.extend(read);
        let (current_node, daemon_set) = match subject {
            Subject::Cluster { current_node } => {
                notes.extend(current_node.clone().map(Note::RunsOn));
                (current_node, false)
            }
            Subject::Manifest(m) => {
                let shown = |f: &Finding| m.evaluated_anyway || !f.rejected;
                notes.extend(m.findings.into_iter().filter(shown).map(Note::Finding));
                if m.server_dry_run {
                    notes.push(Note::ServerDryRun);
                }
                if !m.defaulted.is_empty() {
                    notes.push(Note::Defaulted(m.defaulted));
                }
                if !m.admitted.is_empty() {
                    notes.push(Note::Admitted(m.admitted));
                }
                if m.evaluated_anyway
                    && let Some((plugin, message)) = m.rejected
                {
                    notes.push(Note::AdmissionRejected { plugin, message });
                }
                if m.merged > 0 {
                    notes.push(Note::LabelKeysMerged(m.merged));
                }
                notes.extend(m.daemon.map(Note::DaemonSet));
                (None, m.daemon.is_some())
            }
        };
        let mut evaluated = evaluation_notes(pod, profile, unevaluated);
        // A refused request already says why default spreading has no selector, naming the
        // request; "none were read, include them in the snapshot" would be wrong live.
        if notes
            .iter()
            .any(|n| matches!(n, Note::WorkloadsForbidden(_)))
        {
            evaluated.retain(|n| !matches!(n, Note::WorkloadsUnread));
        }
        notes.extend(evaluated);
        Context {
            not_scheduled: not_scheduled(pod, profile),
            pod: (*pod.id).clone(),
            scheduler: SchedulerInfo {
                kubernetes_version: profile.gates.release.name(),
                scheduler_name: profile.scheduler_name.clone(),
                profile_source: profile.source.clone(),
                feature_gates: profile.gates.given.clone(),
                percentage_of_nodes_to_score: profile.percentage_of_nodes_to_score,
            },
            notes,
            current_node,
            daemon_set,
        }
    }
}

/// Why the scheduler would not place `pod`, evaluated under `profile`: it is done, it is bound,
/// it waits at PreEnqueue (the SchedulingGates plugin), or it names a scheduler the profile
/// is not (the caller fell back to the default profile for want of one that serves it).
fn not_scheduled(pod: &Pod, profile: &Profile) -> Vec<Unplaced> {
    let mut why = Vec::new();
    if pod.is_terminal() {
        why.push(Unplaced::Terminal {
            phase: pod.template.phase.to_string(),
        });
    }
    if !pod.node_name.is_empty() {
        why.push(Unplaced::Bound {
            node: pod.node_name.to_string(),
        });
    }
    if !pod.template.scheduling_gates.is_empty() {
        why.push(Unplaced::SchedulingGated {
            gates: pod.template.scheduling_gates.clone(),
        });
    }
    if pod.template.scheduler_name != profile.scheduler_name {
        why.push(Unplaced::NoProfile {
            scheduler_name: pod.template.scheduler_name.to_string(),
        });
    }
    why
}

/// What the evaluation leaves uncertain or does not model, for this pod and profile.
fn evaluation_notes(pod: &Pod, profile: &Profile, unevaluated: Unevaluated) -> Vec<Note> {
    let Unevaluated {
        workloads_unread,
        namespaces_unread,
        pod_level_fit_score,
        pod_level_ignored,
        plugins,
        storage,
        claims_from_templates,
        claims_not_bind_completed,
    } = unevaluated;
    let mut notes = Vec::new();
    let release = profile.gates.release;
    if let Some(seen) = &profile.gates.newer_than_emulated {
        notes.push(Note::NewerThanEmulated {
            seen: seen.clone(),
            release: release.name(),
        });
    }
    if release != Release::default() {
        notes.push(Note::Emulated {
            release: release.name(),
            unmodelled: release.unmodelled(),
        });
    }
    if workloads_unread {
        notes.push(Note::WorkloadsUnread);
    }
    notes.extend(namespaces_unread.map(Note::NamespacesUnread));
    if pod_level_fit_score {
        notes.push(Note::PodLevelFitScore {
            release: release.name(),
        });
    }
    if pod_level_ignored {
        notes.push(Note::PodLevelIgnored {
            release: release.name(),
        });
    }
    if !plugins.is_empty() {
        notes.push(Note::NotEvaluated(plugins));
    }
    // One note per reason, naming every plugin it leaves out.
    let mut gaps: Vec<(Vec<PluginId>, Gap)> = Vec::new();
    for (plugin, gap) in storage {
        match gaps.iter_mut().find(|(_, g)| *g == gap) {
            Some((plugins, _)) => plugins.push(plugin),
            None => gaps.push((vec![plugin], gap)),
        }
    }
    notes.extend(
        gaps.into_iter()
            .map(|(plugins, gap)| Note::StorageNotEvaluated { plugins, gap }),
    );
    if !claims_from_templates.is_empty() {
        notes.push(Note::ClaimsFromTemplates(claims_from_templates));
    }
    if !claims_not_bind_completed.is_empty() {
        notes.push(Note::ClaimsNotBindCompleted(claims_not_bind_completed));
    }
    notes.extend(
        profile
            .gates
            .unmodelled()
            .into_iter()
            .map(Note::GateNotModelled),
    );
    if profile.gates.given.get("GangScheduling") == Some(&true)
        && let Some(texts) = release.facts().gang
    {
        notes.push(Note::GangSchedulingNotEvaluated(texts));
    }
    if let Some(a) = pod
        .template
        .pod_affinity
        .as_deref()
        .filter(|a| !a.errors.is_empty())
    {
        notes.push(Note::InvalidAffinitySelectors(a.errors.clone()));
    }
    notes
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Manifest, Subject};
    use crate::pipeline::context;
    use crate::report::{DaemonTolerations, Note, Refusal, Unplaced};
    use crate::scheduler::config::FeatureGates;
    use crate::scheduler::profile::Profile;
    use crate::scheduler::{Input, PluginId};
    use crate::state::validate::Finding;
    use crate::state::{ClusterState, ContainerName, Defaulted, Pod, read_snapshot_str};

    fn empty_state() -> ClusterState {
        read_snapshot_str(r#"{"apiVersion": "v1", "kind": "List", "items": []}"#, "t")
            .expect("snapshot")
    }

    /// Pod `shop/p` with `spec`.
    fn pod(spec: serde_json::Value) -> Pod {
        let api: k8s_openapi::api::core::v1::Pod = serde_json::from_value(
            json!({"metadata": {"name": "p", "namespace": "shop"}, "spec": spec}),
        )
        .expect("pod");
        Pod::from_api(&api)
    }

    fn finding(field: &str, rejected: bool) -> Finding {
        Finding {
            field: field.to_string(),
            message: "Invalid value".to_string(),
            rejected,
            reading: None,
        }
    }

    /// A manifest's notes come in the order the output has always listed them: the what-if,
    /// what the read left out, the findings shown, then what was done to the pod.
    #[test]
    fn a_manifest_s_notes_in_order() {
        let state = empty_state();
        let pod = pod(json!({"nodeName": "n1", "containers": [{"name": "c", "image": "x"}]}));
        let input = Input {
            pod: &pod,
            state: &state,
            exclude: None,
            removed: &[],
        };
        let mut gates = FeatureGates::default();
        gates.set("SomeGate", true);
        let profile = Profile::default_profile(gates);
        let daemon = DaemonTolerations {
            added: 6,
            host_network: false,
        };
        let defaulted = Defaulted::HostPort {
            container: ContainerName {
                init: false,
                name: "c".to_string(),
            },
            port: 80,
        };
        let subject = Subject::Manifest(Manifest {
            admitted: Vec::new(),
            rejected: None,
            server_dry_run: false,
            origin: "DaemonSet/p".to_string(),
            findings: vec![finding("a", true), finding("b", false)],
            evaluated_anyway: false,
            defaulted: vec![defaulted.clone()],
            merged: 2,
            daemon: Some(daemon),
        });
        let refused = Refusal {
            user: "u".to_string(),
            context: "c".to_string(),
            verb: "list".to_string(),
            resource: "namespaces".to_string(),
            namespace: None,
            name: None,
        };
        let read = vec![Note::NamespacesForbidden(refused.clone())];
        let ctx = context(input, &profile, read, subject);
        assert!(ctx.daemon_set);
        assert_eq!(
            ctx.not_scheduled,
            [Unplaced::Bound {
                node: "n1".to_string()
            }]
        );
        assert_eq!(
            ctx.notes,
            [
                Note::WhatIf {
                    pod: (*pod.id).clone(),
                    origin: "DaemonSet/p".to_string()
                },
                Note::NamespacesForbidden(refused),
                Note::Finding(finding("b", false)),
                Note::Defaulted(vec![defaulted]),
                Note::LabelKeysMerged(2),
                Note::DaemonSet(daemon),
                // No workloads in the snapshot: default spreading derives no selector.
                Note::WorkloadsUnread,
                Note::GateNotModelled("SomeGate".to_string()),
            ]
        );
    }

    /// A running pod's notes name its node first.
    #[test]
    fn a_running_pod_s_notes() {
        let state = empty_state();
        let pod = pod(json!({"containers": [{"name": "c", "image": "x"}]}));
        let input = Input {
            pod: &pod,
            state: &state,
            exclude: None,
            removed: &[],
        };
        let profile = Profile::default_profile(FeatureGates::default());
        let subject = Subject::Cluster {
            current_node: Some("n1".to_string()),
        };
        let ctx = context(input, &profile, Vec::new(), subject);
        assert_eq!(ctx.current_node.as_deref(), Some("n1"));
        assert_eq!(
            ctx.notes,
            [Note::RunsOn("n1".to_string()), Note::WorkloadsUnread]
        );
    }

    /// Live, a refused `get` of the pod's ReplicaSet is the note; the snapshot's "none were
    /// read, include them" is not added beside it (Services were read).
    #[test]
    fn a_refused_workload_request_is_the_only_spreading_note() {
        let state = empty_state();
        let pod = pod(json!({"containers": [{"name": "c", "image": "x"}]}));
        let input = Input {
            pod: &pod,
            state: &state,
            exclude: None,
            removed: &[],
        };
        let profile = Profile::default_profile(FeatureGates::default());
        let refused = Note::WorkloadsForbidden(Refusal {
            user: "u".to_string(),
            context: "c".to_string(),
            verb: "get".to_string(),
            resource: "replicasets".to_string(),
            namespace: Some("shop".to_string()),
            name: Some("web-1".to_string()),
        });
        let ctx = context(input, &profile, vec![refused.clone()], Subject::default());
        assert_eq!(ctx.notes, [refused]);
    }

    /// Default spreading is only noted when PodTopologySpread runs at Filter or PreScore.
    #[test]
    fn no_spreading_note_without_the_plugin() {
        let state = empty_state();
        let pod = pod(json!({"containers": [{"name": "c", "image": "x"}]}));
        let input = Input {
            pod: &pod,
            state: &state,
            exclude: None,
            removed: &[],
        };
        let cfg = json!({
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{"plugins": {
                "filter": {"disabled": [{"name": PluginId::PodTopologySpread}]},
                "preScore": {"disabled": [{"name": PluginId::PodTopologySpread}]}}}]
        });
        let profile = Profile::from_config(&cfg, "default-scheduler", FeatureGates::default(), "c")
            .expect("profile");
        let ctx = context(input, &profile, Vec::new(), Subject::default());
        assert_eq!(ctx.notes, []);
    }

    /// Pod-level requests are noted when NodeResourcesFit scores (its score ignores them),
    /// and not when the profile does not score with it.
    #[test]
    fn pod_level_requests_are_noted_where_the_fit_score_ignores_them() {
        let state = empty_state();
        let pod = pod(json!({"resources": {"requests": {"memory": "1Gi"}},
                             "containers": [{"name": "c", "image": "x"}]}));
        let input = Input {
            pod: &pod,
            state: &state,
            exclude: None,
            removed: &[],
        };
        let profile = Profile::default_profile(FeatureGates::default());
        let ctx = context(input, &profile, Vec::new(), Subject::default());
        assert!(
            ctx.notes
                .contains(&Note::PodLevelFitScore { release: "1.35" }),
            "{:?}",
            ctx.notes
        );
        let cfg = json!({
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{"plugins": {"score": {"disabled": [{"name": PluginId::NodeResourcesFit}]}}}]
        });
        let profile = Profile::from_config(&cfg, "default-scheduler", FeatureGates::default(), "c")
            .expect("profile");
        let ctx = context(input, &profile, Vec::new(), Subject::default());
        assert!(
            !ctx.notes
                .contains(&Note::PodLevelFitScore { release: "1.35" }),
            "{:?}",
            ctx.notes
        );
    }

    /// Why the scheduler would not place a pod comes before the evaluation, each reason that
    /// holds: done, bound, gated, and a scheduler the profile is not.
    #[test]
    fn reasons_the_scheduler_would_not_place_the_pod() {
        let state = empty_state();
        let profile = Profile::default_profile(FeatureGates::default());
        let why = |spec: serde_json::Value, phase: &str| {
            let api: k8s_openapi::api::core::v1::Pod = serde_json::from_value(json!({
                "metadata": {"name": "p", "namespace": "shop"}, "spec": spec,
                "status": {"phase": phase}}))
            .expect("pod");
            let pod = Pod::from_api(&api);
            let input = Input {
                pod: &pod,
                state: &state,
                exclude: None,
                removed: &[],
            };
            context(input, &profile, Vec::new(), Subject::default()).not_scheduled
        };
        let c = json!([{"name": "c", "image": "x"}]);
        assert_eq!(why(json!({"containers": c}), "Pending"), []);
        assert_eq!(
            why(
                json!({"containers": c, "nodeName": "n1", "schedulingGates": [{"name": "g"}],
                       "schedulerName": "mine"}),
                "Succeeded"
            ),
            [
                Unplaced::Terminal {
                    phase: "Succeeded".to_string()
                },
                Unplaced::Bound {
                    node: "n1".to_string()
                },
                Unplaced::SchedulingGated {
                    gates: vec!["g".to_string()]
                },
                Unplaced::NoProfile {
                    scheduler_name: "mine".to_string()
                },
            ]
        );
    }
}
