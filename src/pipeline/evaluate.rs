//! One pod evaluated and its document made: the step every command ends with, and the
//! library's entry point ([`explain_pod`]).

use crate::report::{Context, Explanation, Note, Subject, Unevaluated};
use crate::scheduler::inter_pod_affinity::namespaces_unknown;
use crate::scheduler::needs::{not_evaluated, storage_gaps};
use crate::scheduler::pod_topology_spread::defaults_without_workloads;
use crate::scheduler::profile::Profile;
use crate::scheduler::volume_binding::pod_claims;
use crate::scheduler::{Input, PluginId, evaluate};
use crate::state::volumes::Claim;
use crate::state::{ClusterState, Pod};

/// Evaluates `pod` against `state` (leaving out existing pod `exclude`) and builds the
/// versioned explanation document, with what would make each rejected node take the pod;
/// `read` is what reading the cluster left out, `subject` how the pod came to be evaluated.
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
    let mut doc = explanation(input, profile, read, subject);
    doc.suggest(pod);
    let lints = super::lints::lints(pod, state, &doc);
    doc.notes.extend(lints);
    doc
}

/// The explanation of evaluating `input` under `profile`, without suggestions (an audit
/// reads only its summary).
pub fn explanation(
    input: Input<'_>,
    profile: &Profile,
    read: Vec<Note>,
    subject: Subject,
) -> Explanation {
    let context = context(input, profile, read, subject);
    Explanation::new(evaluate(input, profile), context)
}

/// What the document says beside the evaluation of `input` under `profile`.
pub fn context(input: Input<'_>, profile: &Profile, read: Vec<Note>, subject: Subject) -> Context {
    Context::new(
        input.pod,
        profile,
        unevaluated(input, profile),
        read,
        subject,
    )
}

/// What the evaluation of `input` under `profile` leaves uncertain or does not model: each
/// plugin that runs says what it could not read.
pub fn unevaluated(input: Input<'_>, profile: &Profile) -> Unevaluated {
    let pod = input.pod;
    let spreads = enabled(
        profile.filter.iter().chain(&profile.pre_score),
        PluginId::PodTopologySpread,
    );
    let affinity = enabled(
        profile
            .filter
            .iter()
            .chain(profile.score.iter().map(|(n, _)| n)),
        PluginId::InterPodAffinity,
    );
    let fit_scores = enabled(
        profile.score.iter().map(|(n, _)| n),
        PluginId::NodeResourcesFit,
    );
    let claims = |pick: fn(&Claim) -> bool| -> Vec<String> {
        pod_claims(input)
            .filter(|c| pick(c))
            .map(|c| c.name.clone())
            .collect()
    };
    let binding = enabled(profile.filter.iter(), PluginId::VolumeBinding);
    Unevaluated {
        workloads_unread: spreads
            && defaults_without_workloads(pod, input.state, &profile.pod_topology_spread),
        namespaces_unread: affinity.then(|| namespaces_unknown(input)).flatten(),
        pod_level_fit_score: fit_scores && pod.template.resources.pod_level_requests,
        pod_level_ignored: pod.template.resources.pod_level_ignored,
        plugins: not_evaluated(pod, profile),
        storage: storage_gaps(input, profile),
        claims_from_templates: claims(|c| c.from_template),
        claims_not_bind_completed: if binding {
            claims(|c| !c.volume_name.is_empty() && !c.bind_completed)
        } else {
            Vec::new()
        },
    }
}

fn enabled<'a>(mut plugins: impl Iterator<Item = &'a PluginId>, id: PluginId) -> bool {
    plugins.any(|n| *n == id)
}
