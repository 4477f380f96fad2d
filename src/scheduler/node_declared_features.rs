//! NodeDeclaredFeatures (`pkg/scheduler/framework/plugins/nodedeclaredfeatures`, in the
//! default profile from 1.36): a pod that needs a node feature fits only nodes whose
//! `status.declaredFeatures` declare it. At 1.36 the one need a pod can have at scheduling
//! time is `RestartAllContainersOnContainerExits`, from a container's `restartPolicyRules`
//! entry with action `RestartAllContainers`
//! (`staging/src/k8s.io/component-helpers/nodedeclaredfeatures/features`); PreFilter skips
//! every other pod. Names the scheduler does not know are dropped from the node's list
//! (`TryMap`), which cannot change whether it declares a known one.

pub mod explain;

use std::convert::Infallible;

use serde::Serialize;

use super::plugin::{Input, Plugin};
use super::status::{Code, PreFilterOutcome, Status};

/// Upstream's reason.
pub const REASON: &str = "node(s) didn't match Pod's required features";

/// The feature a pod restarting all its containers needs.
pub const RESTART_ALL_CONTAINERS_ON_CONTAINER_EXITS: &str = "RestartAllContainersOnContainerExits";

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FilterDetails {
    /// The features the pod needs.
    pub required: Vec<&'static str>,
    /// Those the node does not declare.
    pub missing: Vec<&'static str>,
}

#[derive(Debug)]
pub struct NodeDeclaredFeatures<'a> {
    input: Input<'a>,
    required: Vec<&'static str>,
}

impl<'a> NodeDeclaredFeatures<'a> {
    pub fn new(input: Input<'a>) -> Self {
        let required = if input.pod.template.restarts_all_containers {
            vec![RESTART_ALL_CONTAINERS_ON_CONTAINER_EXITS]
        } else {
            Vec::new()
        };
        NodeDeclaredFeatures { input, required }
    }
}

impl Plugin for NodeDeclaredFeatures<'_> {
    type FilterDetails = FilterDetails;
    type ScoreDetails = Infallible;
    type Tables = Infallible;

    fn pre_filter(&mut self) -> PreFilterOutcome {
        if self.required.is_empty() {
            PreFilterOutcome::Skip
        } else {
            PreFilterOutcome::Proceed(None)
        }
    }

    fn filter(&self, ni: usize) -> (Option<Status>, Option<Self::FilterDetails>) {
        let declared = &self.input.node(ni).declared_features;
        let missing: Vec<&'static str> = self
            .required
            .iter()
            .copied()
            .filter(|f| !declared.iter().any(|d| d == f))
            .collect();
        let status =
            (!missing.is_empty()).then(|| Status::new(Code::UnschedulableAndUnresolvable, REASON));
        (
            status,
            Some(FilterDetails {
                required: self.required.clone(),
                missing,
            }),
        )
    }
}
