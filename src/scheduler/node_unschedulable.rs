//! NodeUnschedulable (`pkg/scheduler/framework/plugins/nodeunschedulable`): a cordoned node
//! takes only pods that tolerate the `node.kubernetes.io/unschedulable:NoSchedule` taint.

pub mod explain;

use std::convert::Infallible;

use serde::Serialize;

use super::config::FeatureGates;
use super::plugin::{Input, Plugin};
use super::status::{Code, Status};
use super::taint_toleration::tolerated_by;
use crate::state::Taint;

pub const REASON_UNSCHEDULABLE: &str = "node(s) were unschedulable";
pub const TAINT_UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Details {
    /// `spec.unschedulable` of the node.
    pub unschedulable: bool,
    /// Index of the toleration that tolerates the synthetic unschedulable taint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerated_by: Option<u32>,
}

/// What would make a cordoned node take the pod.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Change {
    /// The node is cordoned: uncordon it.
    Uncordon,
}

#[derive(Debug)]
pub struct NodeUnschedulable<'a> {
    input: Input<'a>,
}

impl<'a> NodeUnschedulable<'a> {
    pub fn new(input: Input<'a>) -> Self {
        NodeUnschedulable { input }
    }
}

impl Plugin for NodeUnschedulable<'_> {
    type FilterDetails = Details;
    type ScoreDetails = Infallible;
    type Tables = Infallible;

    fn filter(&self, node: usize) -> (Option<Status>, Option<Self::FilterDetails>) {
        let node = self.input.node(node);
        if !node.unschedulable {
            return (
                None,
                Some(Details {
                    unschedulable: false,
                    tolerated_by: None,
                }),
            );
        }
        let taint = Taint {
            key: TAINT_UNSCHEDULABLE.to_string(),
            value: String::new(),
            effect: "NoSchedule".to_string(),
        };
        // The comparison-operator gate cannot matter for a taint with an empty value.
        let by = tolerated_by(
            &self.input.pod.template.tolerations,
            &taint,
            &FeatureGates::default(),
        );
        let status = by
            .is_none()
            .then(|| Status::new(Code::UnschedulableAndUnresolvable, REASON_UNSCHEDULABLE));
        (
            status,
            Some(Details {
                unschedulable: true,
                tolerated_by: by.and_then(|i| u32::try_from(i).ok()),
            }),
        )
    }
}
