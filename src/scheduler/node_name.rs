//! NodeName (`pkg/scheduler/framework/plugins/nodename`): a pod naming a node in
//! `spec.nodeName` fits only that node.

pub mod explain;

use std::convert::Infallible;
use std::sync::Arc;

use serde::Serialize;

use super::plugin::{Input, Plugin};
use super::status::{Code, Status};

pub const REASON_NODE_NAME: &str = "node(s) didn't match the requested node name";

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Details {
    /// The pod's `spec.nodeName`, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested: Option<Arc<str>>,
}

#[derive(Debug)]
pub struct NodeName<'a> {
    input: Input<'a>,
    /// The pod's `spec.nodeName`, copied once for every node's entry.
    requested: Option<Arc<str>>,
}

impl<'a> NodeName<'a> {
    pub fn new(input: Input<'a>) -> Self {
        let wanted = &input.pod.node_name;
        NodeName {
            input,
            requested: (!wanted.is_empty()).then(|| wanted.clone()),
        }
    }
}

impl Plugin for NodeName<'_> {
    type FilterDetails = Details;
    type ScoreDetails = Infallible;
    type Tables = Infallible;

    fn filter(&self, node: usize) -> (Option<Status>, Option<Self::FilterDetails>) {
        let wanted = &self.input.pod.node_name;
        let fits = wanted.is_empty() || **wanted == *self.input.node(node).name;
        (
            (!fits).then(|| Status::new(Code::UnschedulableAndUnresolvable, REASON_NODE_NAME)),
            Some(Details {
                requested: self.requested.clone(),
            }),
        )
    }
}
