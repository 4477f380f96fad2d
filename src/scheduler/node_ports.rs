//! NodePorts (`pkg/scheduler/framework/plugins/nodeports`): Filter rejects a node where a
//! host port the pod wants (containers and sidecars) is already bound by a pod on it.

use std::convert::Infallible;

use super::plugin::{Input, Plugin};
use super::status::{Code, PreFilterOutcome, Status};
use crate::state::PodRef;
use crate::state::resources::HostPort;

/// Upstream's `ErrReason`.
pub const REASON: &str = "node(s) didn't have free ports for the requested pod ports";

/// A wanted port and the existing pod that already binds it.
#[derive(Debug, Clone)]
pub struct PortConflict {
    pub wanted: HostPort,
    pub used: HostPort,
    pub pod: PodRef,
}

#[derive(Debug, Clone)]
pub struct FilterDetails {
    pub wanted: Vec<HostPort>,
    pub conflicts: Vec<PortConflict>,
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
}
