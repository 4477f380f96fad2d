//! NodePorts' explanation: "✗ host port" in OTHER; the wanted ports and the pods that bind
//! them in the drill-down's resources.

use std::fmt;

use super::Change;
use crate::scheduler::details::{Change as AnyChange, FilterDetails};
use crate::scheduler::explain::{Explain, Paint, Peers, Section, Tables};
use crate::scheduler::result::FilterResult;
use crate::state::Pod;

#[derive(Debug)]
pub struct Explainer;

impl Explain for Explainer {
    fn failed(&self, _: FilterResult<'_>) -> String {
        "✗ host port".to_string()
    }

    fn section(&self) -> Section {
        Section::Resources
    }

    fn filter_lines(&self, f: FilterResult<'_>, _: Tables<'_>, p: &dyn Paint) -> Vec<String> {
        let Some(FilterDetails::NodePorts(d)) = f.details else {
            return Vec::new();
        };
        let wanted: Vec<String> = d
            .wanted
            .iter()
            .map(|p| format!("{}:{}/{}", p.host_ip, p.port, p.protocol))
            .collect();
        let mut out = vec![format!(
            "    {}: host ports wanted {}",
            f.plugin,
            wanted.join(", ")
        )];
        out.extend(d.conflicts.iter().map(|c| {
            format!(
                "      {} {}:{}/{} is bound by {} ({}:{})",
                p.bad("✗"),
                c.wanted.host_ip,
                c.wanted.port,
                c.wanted.protocol,
                c.pod,
                c.used.host_ip,
                c.used.port
            )
        }));
        out
    }

    /// Each conflicting port with the pod that holds it.
    fn suggestions(
        &self,
        f: FilterResult<'_>,
        _: &Pod,
        _: Tables<'_>,
        _: &Peers<'_>,
    ) -> Vec<AnyChange> {
        let Some(FilterDetails::NodePorts(d)) = f.details else {
            return Vec::new();
        };
        d.conflicts
            .iter()
            .map(|c| {
                Change::FreePort {
                    port: c.wanted.clone(),
                    holder: c.pod.clone(),
                }
                .into()
            })
            .collect()
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::FreePort { port, holder } => write!(
                f,
                "host port {}:{}/{} is held by pod {holder} on the node: another hostPort, or that pod elsewhere",
                port.host_ip, port.port, port.protocol
            ),
        }
    }
}
