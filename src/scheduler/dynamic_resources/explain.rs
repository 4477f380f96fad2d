//! DynamicResources' explanation: the devices a node would give each claim, or why it
//! cannot (each request's candidate devices with the selector that rejects them and the
//! device's value, the claims holding them, the constraint no combination meets), in a
//! DEVICES cell, the drill-down, and the node's `dra` in JSON.

use serde_json::{Value, json};

use super::FilterDetails as Details;
use crate::scheduler::details::FilterDetails;
use crate::scheduler::dra::allocator::{Diagnosis, Refusal, RequestDiagnosis};
use crate::scheduler::explain::{Column, Explain, Mark, NodeEntries, Paint, Tables};
use crate::scheduler::plugin_id::PluginId;
use crate::scheduler::result::FilterResult;

#[derive(Debug)]
pub struct Explainer;

fn details<'a>(f: &FilterResult<'a>) -> Option<&'a Details> {
    match f.details {
        Some(FilterDetails::DynamicResources(d)) => Some(d),
        _ => None,
    }
}

/// `driver/pool/device` for each device of a node's allocation.
fn devices(d: &Details) -> Vec<String> {
    d.allocation
        .iter()
        .flat_map(|c| &c.devices)
        .map(|d| format!("{}/{}", d.pool, d.device))
        .collect()
}

impl Explain for Explainer {
    fn short_name(&self) -> Option<&'static str> {
        Some("dra")
    }

    fn columns(&self) -> &'static [Column] {
        &[Column::Devices]
    }

    fn cell(&self, column: Column, node: NodeEntries<'_>, _: Tables<'_>) -> Option<Mark> {
        if column != Column::Devices {
            return None;
        }
        let f = node.filter(&PluginId::DynamicResources)?;
        if f.skipped {
            return None;
        }
        Some(match f.pass {
            None => Mark::Unknown,
            Some(false) => Mark::Fails(self.failed(f)),
            // Passed without looking at claims: the pod has none, or an earlier PreFilter
            // rejected it before this one ran.
            Some(true) => {
                let names = devices(details(&f)?);
                Mark::Passes(
                    (!names.is_empty())
                        .then(|| format!("✓ {}", crate::scheduler::explain::few(&names))),
                )
            }
        })
    }

    fn failed(&self, f: FilterResult<'_>) -> String {
        match f.reason().as_deref() {
            Some(super::CANNOT_ALLOCATE) => "✗ no devices".to_string(),
            Some(super::NOT_AVAILABLE) => "✗ claim elsewhere".to_string(),
            other => format!("✗ {}", other.unwrap_or_default()),
        }
    }

    fn filter_lines(&self, f: FilterResult<'_>, _: Tables<'_>, p: &dyn Paint) -> Vec<String> {
        let Some(d) = details(&f) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for c in &d.allocation {
            for dev in &c.devices {
                out.push(format!(
                    "      {} claim {} request {}: {}/{}/{}",
                    p.ok("✓"),
                    c.claim,
                    dev.request,
                    dev.driver,
                    dev.pool,
                    dev.device
                ));
            }
        }
        for c in &d.unavailable_claims {
            out.push(format!(
                "      {} claim {c} is allocated on devices this node cannot reach",
                p.bad("✗")
            ));
        }
        if let Some(diagnosis) = &d.diagnosis {
            diagnosis_lines(&mut out, diagnosis, p);
        }
        out
    }

    fn node_fields(&self, f: FilterResult<'_>) -> Option<(&'static str, Value)> {
        let d = details(&f)?;
        let mut v = json!({ "allocation": d.allocation });
        if !d.unavailable_claims.is_empty() {
            v["unavailableClaims"] = json!(d.unavailable_claims);
        }
        if let Some(diagnosis) = &d.diagnosis {
            v["reasons"] = serde_json::to_value(diagnosis).unwrap_or(Value::Null);
        }
        Some(("dra", v))
    }
}

fn diagnosis_lines(out: &mut Vec<String>, d: &Diagnosis, p: &dyn Paint) {
    match d {
        Diagnosis::RequestsShort { claim, requests } => {
            for r in requests {
                request_lines(out, claim, r, p);
            }
        }
        Diagnosis::Constraint { constraints } => {
            if constraints.is_empty() {
                out.push(format!(
                    "      {} the claims' matchAttribute constraints leave no combination of devices",
                    p.bad("✗")
                ));
            }
            for (claim, _, attribute) in constraints {
                out.push(format!(
                    "      {} claim {claim}: no combination of devices has the same {attribute}",
                    p.bad("✗")
                ));
            }
        }
        Diagnosis::Contention => out.push(format!(
            "      {} each request has devices, but not all at once: they compete for the same devices",
            p.bad("✗")
        )),
        Diagnosis::Undetermined => out.push(format!(
            "      {} why no devices fit was not determined (the search was too long)",
            p.unknown("?")
        )),
    }
}

fn request_lines(out: &mut Vec<String>, claim: &str, r: &RequestDiagnosis, p: &dyn Paint) {
    let wanted = if r.all {
        "all devices".to_string()
    } else {
        format!("{} device(s)", r.wanted)
    };
    out.push(format!(
        "      {} claim {claim} request {} wants {wanted} of class {}: {} usable here",
        p.bad("✗"),
        r.request,
        r.class,
        r.usable()
    ));
    if r.candidates.is_empty() {
        out.push("        no device of a pool on this node".to_string());
    }
    for c in &r.candidates {
        let why = match &c.refusal {
            None => p.ok("usable"),
            Some(Refusal::InUse { claims }) => format!("in use by {}", claims.join(", ")),
            Some(Refusal::ClassSelector {
                class,
                expression,
                values,
                ..
            }) => format!("class {class}: {expression} is false{}", read(values)),
            Some(Refusal::RequestSelector {
                expression, values, ..
            }) => format!("selector {expression} is false{}", read(values)),
            Some(Refusal::Tainted { key, value, effect }) => {
                format!("taint {key}={value}:{effect} not tolerated")
            }
            Some(Refusal::BindingConditions) => "has binding conditions".to_string(),
            Some(Refusal::ConsumesCounters) => "consumes counters".to_string(),
            Some(Refusal::NotOnNode) => "not on this node".to_string(),
        };
        out.push(format!("        {}: {why}", c.device));
    }
}

/// " (device has model=\"t4\")": the values a selector read.
fn read(values: &[(String, Option<String>)]) -> String {
    if values.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = values
        .iter()
        .map(|(k, v)| match v {
            Some(v) => format!("{k}={v}"),
            None => format!("no {k}"),
        })
        .collect();
    format!(" (device has {})", parts.join(", "))
}
