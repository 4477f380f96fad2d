//! NodePorts (`pkg/scheduler/framework/plugins/nodeports`): Filter rejects a node where a
//! host port the pod wants (containers and sidecars) is already bound by a pod on it.

pub mod explain;

use std::convert::Infallible;

use serde::Serialize;

use super::plugin::{Input, Plugin};
use super::status::{Code, PreFilterOutcome, Status};
use crate::state::PodRef;
use crate::state::resources::HostPort;

/// Upstream's `ErrReason`.
pub const REASON: &str = "node(s) didn't have free ports for the requested pod ports";

/// A wanted port and the existing pod that already binds it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PortConflict {
    pub wanted: HostPort,
    pub used: HostPort,
    pub pod: PodRef,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FilterDetails {
    pub wanted: Vec<HostPort>,
    pub conflicts: Vec<PortConflict>,
}

/// What would make the node take the pod: the port free.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Change {
    /// The existing pod that holds a host port the pod wants: that pod gone (or moved), or
    /// another hostPort for this one.
    FreePort { port: HostPort, holder: PodRef },
}

#[derive(Debug)]
pub struct NodePorts<'a> {
    input: Input<'a>,
}

impl<'a> NodePorts<'a> {
    pub fn new(input: Input<'a>) -> Self {
        NodePorts { input }
    }
}

impl Plugin for NodePorts<'_> {
    type FilterDetails = Box<FilterDetails>;
    type ScoreDetails = Infallible;
    type Tables = Infallible;

    fn pre_filter(&mut self) -> PreFilterOutcome {
        if self.input.pod.template.resources.host_ports.is_empty() {
            PreFilterOutcome::Skip
        } else {
            PreFilterOutcome::Proceed(None)
        }
    }

    fn filter(&self, ni: usize) -> (Option<Status>, Option<Self::FilterDetails>) {
        let usage = self.input.node_usage(ni);
        let wanted = &self.input.pod.template.resources.host_ports;
        let mut conflicts = Vec::new();
        for w in wanted {
            for (used, pod) in &usage.host_ports {
                if w.conflicts_with(used) {
                    conflicts.push(PortConflict {
                        wanted: w.clone(),
                        used: used.clone(),
                        pod: (*self.input.state.pods()[*pod].id).clone(),
                    });
                }
            }
        }
        let status = (!conflicts.is_empty()).then(|| Status::new(Code::Unschedulable, REASON));
        (
            status,
            Some(Box::new(FilterDetails {
                wanted: wanted.clone(),
                conflicts,
            })),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hp(ip: &str, proto: &str, port: i32) -> HostPort {
        HostPort {
            host_ip: ip.to_string(),
            protocol: proto.to_string(),
            port,
        }
    }

    #[test]
    fn conflicts_follow_host_port_info() {
        // node_ports_test.go cases: (wanted, used, conflict)
        let cases = [
            (
                hp("127.0.0.1", "UDP", 8080),
                hp("127.0.0.1", "UDP", 9090),
                false,
            ),
            (
                hp("127.0.0.1", "UDP", 8080),
                hp("127.0.0.1", "UDP", 8080),
                true,
            ),
            (
                hp("127.0.0.2", "UDP", 8080),
                hp("127.0.0.1", "UDP", 8080),
                false,
            ),
            (
                hp("127.0.0.1", "TCP", 8080),
                hp("127.0.0.1", "UDP", 8080),
                false,
            ),
            (
                hp("0.0.0.0", "TCP", 8001),
                hp("127.0.0.1", "TCP", 8001),
                true,
            ),
            (
                hp("127.0.0.1", "TCP", 8001),
                hp("0.0.0.0", "TCP", 8001),
                true,
            ),
            (
                hp("0.0.0.0", "UDP", 8001),
                hp("127.0.0.1", "TCP", 8001),
                false,
            ),
            (
                hp("10.0.10.10", "TCP", 8001),
                hp("10.0.10.10", "TCP", 8001),
                true,
            ),
        ];
        for (w, u, want) in cases {
            assert_eq!(w.conflicts_with(&u), want, "{w:?} vs {u:?}");
        }
    }

    /// The details in the order and names the schema has always had (no transcript shows a
    /// conflict).
    #[test]
    fn details_keep_their_shape() {
        let port = HostPort {
            host_ip: "0.0.0.0".to_string(),
            protocol: "TCP".to_string(),
            port: 80,
        };
        let details = crate::scheduler::FilterDetails::NodePorts(Box::new(FilterDetails {
            wanted: vec![port.clone()],
            conflicts: vec![PortConflict {
                wanted: port.clone(),
                used: port,
                pod: PodRef {
                    namespace: "shop".into(),
                    name: "web".into(),
                },
            }],
        }));
        let port = r#"{"hostIp":"0.0.0.0","protocol":"TCP","port":80}"#;
        assert_eq!(
            serde_json::to_string(&details).expect("serialize"),
            format!(
                r#"{{"wanted":[{port}],"conflicts":[{{"wanted":{port},"used":{port},"pod":{{"namespace":"shop","name":"web"}}}}]}}"#
            )
        );
    }
}
