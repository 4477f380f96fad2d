//! Every note a live read adds to its answer, worded here and nowhere else: what could not be
//! read, for whom, and what that leaves out.

use super::config::Target;
use super::requests::Request;

/// What a read had to do without.
pub(super) enum Note<'a> {
    /// Listing namespaces is forbidden, so namespaceSelector terms cannot be evaluated.
    NamespacesForbidden,
    /// A read for default spreading's selector is forbidden.
    WorkloadsForbidden(&'a Request),
    /// Listing the pod's events is forbidden.
    EventsForbidden { namespace: &'a str },
    /// A snapshot without namespaces: listing them is forbidden.
    SnapshotWithoutNamespaces,
    /// A snapshot without one of the kinds default spreading selects by.
    SnapshotWithout { resource: &'static str },
}

impl Note<'_> {
    /// The note's words, for `target`'s user and context.
    pub(super) fn text(self, target: &Target) -> String {
        let (user, context) = (&target.user, &target.context);
        match self {
            Note::NamespacesForbidden => format!(
                "cannot list namespaces (403 Forbidden for user {user} in context {context}): terms \
                 with a namespaceSelector cannot be evaluated, so InterPodAffinity is shown as not \
                 evaluated; grant list on namespaces (cluster scope) to evaluate them"
            ),
            Note::WorkloadsForbidden(refused) => format!(
                "cannot {refused} (403 Forbidden for user {user} in context {context}): \
                 PodTopologySpread's default constraints cannot derive the pod's selector \
                 and are left out; grant {} on {} in namespace {} to evaluate them",
                refused.verb,
                refused.resource,
                refused.namespace.as_deref().unwrap_or_default(),
            ),
            Note::EventsForbidden { namespace } => format!(
                "cannot list events in namespace {namespace} (403 Forbidden for user {user} in \
                 context {context}): the scheduler's own FailedScheduling message is not shown; \
                 grant list on events to see it"
            ),
            Note::SnapshotWithoutNamespaces => format!(
                "namespaces left out: list namespaces is forbidden for user {user} in context \
                 {context}; namespaceSelector terms will show as not evaluated"
            ),
            Note::SnapshotWithout { resource } => format!(
                "{resource} left out: list {resource} is forbidden for user {user} in context \
                 {context}; PodTopologySpread's default constraints will derive no selector"
            ),
        }
    }
}
