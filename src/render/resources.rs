//! The `--node` drill-down section for resources: what the pod requests against what the node
//! has left, conflicting host ports, and the inputs of the resource and image scores. Words
//! and units are chosen here; every number comes from the typed details.

use std::io::Write;

use owo_colors::OwoColorize;

use crate::report::NodeReport;
use crate::scheduler::{
    FilterDetails, ScoreDetails, balanced_allocation, image_locality, node_resources_fit,
};

fn paint_bad(color: bool, s: &str) -> String {
    if color {
        s.red().to_string()
    } else {
        s.to_string()
    }
}

/// A resource amount in the units people write: cpu in cores or milli-cores, memory-like
/// resources in the largest binary unit they reach (whole when exact, else one decimal, as
/// `8.6Gi of 30.8Gi` reads where `8776Mi of 32306072Ki` did not), counts as plain numbers.
pub fn amount(resource: &str, v: i64) -> String {
    if resource == "cpu" {
        return if v % 1000 == 0 {
            (v / 1000).to_string()
        } else {
            format!("{v}m")
        };
    }
    let bytes_like = resource == "memory"
        || resource == "ephemeral-storage"
        || resource.starts_with("hugepages-");
    if bytes_like && v != 0 {
        for (suffix, shift) in [("Ti", 40), ("Gi", 30), ("Mi", 20), ("Ki", 10)] {
            let unit = 1i64 << shift;
            if v % unit == 0 {
                return format!("{}{suffix}", v / unit);
            }
            if v.abs() >= unit && shift >= 20 {
                return format!("{:.1}{suffix}", v as f64 / unit as f64);
            }
        }
    }
    v.to_string()
}

fn fit_lines(
    out: &mut dyn Write,
    d: &node_resources_fit::FilterDetails,
    color: bool,
) -> std::io::Result<()> {
    let pods = if d.pods.fits {
        "fits".to_string()
    } else {
        paint_bad(color, "no room (Too many pods)")
    };
    writeln!(
        out,
        "      pods: {} existing + 1 of {} allowed: {pods}",
        d.pods.existing, d.pods.allowed
    )?;
    if d.resources.is_empty() {
        writeln!(out, "      the pod requests no resources")?;
        return Ok(());
    }
    writeln!(
        out,
        "      {:<24} {:>10} {:>10} {:>12} {:>10}",
        "resource", "requested", "used", "allocatable", "free"
    )?;
    for r in &d.resources {
        let free = r.allocatable.saturating_sub(r.used);
        let verdict = if let Some(by) = &r.ignored {
            format!("ignored ({by})")
        } else if r.fits {
            "fits".to_string()
        } else if r.unresolvable {
            paint_bad(
                color,
                "insufficient: more than the node's whole allocatable",
            )
        } else {
            paint_bad(color, "insufficient")
        };
        writeln!(
            out,
            "      {:<24} {:>10} {:>10} {:>12} {:>10}  {verdict}",
            r.resource,
            amount(&r.resource, r.requested),
            amount(&r.resource, r.used),
            amount(&r.resource, r.allocatable),
            amount(&r.resource, free),
        )?;
    }
    Ok(())
}

fn fit_score_lines(
    out: &mut dyn Write,
    d: &node_resources_fit::ScoreDetails,
) -> std::io::Result<()> {
    writeln!(
        out,
        "      {:?}; cpu/memory count 100m / 200Mi for containers without a request",
        d.strategy
    )?;
    for r in &d.resources {
        match r.score {
            Some(s) => writeln!(
                out,
                "      {}: {} of {} with the pod -> {s} (weight {})",
                r.resource,
                amount(&r.resource, r.requested),
                amount(&r.resource, r.allocatable),
                r.weight
            )?,
            None => writeln!(
                out,
                "      {}: left out (none allocatable, or not requested)",
                r.resource
            )?,
        }
    }
    Ok(())
}

fn balanced_lines(
    out: &mut dyn Write,
    d: &balanced_allocation::ScoreDetails,
) -> std::io::Result<()> {
    let parts: Vec<String> = d
        .fractions
        .iter()
        .map(|f| match f.fraction {
            Some(x) => format!(
                "{} {}/{} = {:.0}%",
                f.resource,
                amount(&f.resource, f.requested),
                amount(&f.resource, f.allocatable),
                x * 100.0
            ),
            None => format!("{} left out", f.resource),
        })
        .collect();
    writeln!(
        out,
        "      utilisation with the pod: {}; spread (std dev) {:.3}",
        parts.join(", "),
        d.std_dev
    )
}

fn image_lines(out: &mut dyn Write, d: &image_locality::ScoreDetails) -> std::io::Result<()> {
    for i in &d.images {
        match (i.present, i.size_bytes, i.nodes_with_image) {
            (true, Some(size), Some(nodes)) => writeln!(
                out,
                "      {} present ({}, on {nodes} of {} nodes -> {})",
                i.normalized,
                amount("memory", size),
                d.total_nodes,
                amount("memory", i.scaled_score)
            )?,
            _ => writeln!(out, "      {} not on this node", i.normalized)?,
        }
    }
    Ok(())
}

/// Prints the resource-related details of node `n` (nothing when there are none).
pub fn drill_down(out: &mut dyn Write, n: &NodeReport, color: bool) -> std::io::Result<()> {
    let mut header = false;
    let mut head = |out: &mut dyn Write| -> std::io::Result<()> {
        if !header {
            writeln!(out, "  resources:")?;
            header = true;
        }
        Ok(())
    };
    for f in &n.filters {
        match f.details {
            Some(FilterDetails::NodeResourcesFit(d)) => {
                head(out)?;
                writeln!(out, "    NodeResourcesFit (cpu in cores, m = milli-cores)")?;
                fit_lines(out, d, color)?;
            }
            Some(FilterDetails::NodePorts(d)) => {
                head(out)?;
                let wanted: Vec<String> = d
                    .wanted
                    .iter()
                    .map(|p| format!("{}:{}/{}", p.host_ip, p.port, p.protocol))
                    .collect();
                writeln!(
                    out,
                    "    NodePorts: host ports wanted {}",
                    wanted.join(", ")
                )?;
                for c in &d.conflicts {
                    writeln!(
                        out,
                        "      {} {}:{}/{} is bound by {} ({}:{})",
                        paint_bad(color, "✗"),
                        c.wanted.host_ip,
                        c.wanted.port,
                        c.wanted.protocol,
                        c.pod,
                        c.used.host_ip,
                        c.used.port
                    )?;
                }
            }
            _ => {}
        }
    }
    for s in &n.scores {
        let (Some(details), Some(raw)) = (s.details, s.raw) else {
            continue;
        };
        match details {
            ScoreDetails::NodeResourcesFit(d) => {
                head(out)?;
                writeln!(out, "    NodeResourcesFit score {raw}:")?;
                fit_score_lines(out, d)?;
            }
            ScoreDetails::BalancedAllocation(d) => {
                head(out)?;
                writeln!(out, "    NodeResourcesBalancedAllocation score {raw}:")?;
                balanced_lines(out, d)?;
            }
            ScoreDetails::ImageLocality(d) => {
                head(out)?;
                writeln!(out, "    ImageLocality score {raw}:")?;
                image_lines(out, d)?;
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::amount;

    #[test]
    fn amounts_read_like_manifests() {
        assert_eq!(amount("cpu", 6000), "6");
        assert_eq!(amount("cpu", 250), "250m");
        assert_eq!(amount("memory", 24 << 30), "24Gi");
        assert_eq!(amount("memory", 7826964 * 1024), "7.5Gi");
        assert_eq!(amount("memory", 8776 << 20), "8.6Gi");
        assert_eq!(amount("memory", 32306072 << 10), "30.8Gi");
        assert_eq!(amount("memory", 704 << 20), "704Mi");
        assert_eq!(amount("memory", 1000 << 10), "1000Ki");
        assert_eq!(amount("memory", 1500), "1500");
        assert_eq!(amount("memory", (1 << 30) + 1), "1.0Gi");
        assert_eq!(amount("nvidia.com/gpu", 2), "2");
        assert_eq!(amount("memory", 0), "0");
    }
}
