//! NodePorts' explanation: "✗ host port" in OTHER; the wanted ports and the pods that bind
//! them in the drill-down's resources.

use crate::scheduler::details::FilterDetails;
use crate::scheduler::explain::{Explain, Paint, Section, Tables};
use crate::scheduler::result::FilterResult;

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
}
