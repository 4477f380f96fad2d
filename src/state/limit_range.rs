//! LimitRanges (core/v1) and what the API server's LimitRanger admission plugin does with them
//! when a pod is created (`plugin/pkg/admission/limitranger/admission.go`): containers get the
//! namespace's default limits and requests (`PodMutateLimitFunc`), and the pod is refused when
//! a container or the pod as a whole is outside a min, max or limit/request ratio
//! (`PodValidateLimitFunc`), in the plugin's words.
//!
//! LimitRanges are whole API objects, and LimitRanger changes the pod as written (`k8s-openapi`'s
//! Pod) before it becomes the model's parts: why this module names the API's types.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;

use super::quantity::Quantity;

/// One LimitRange: its namespace, name and items, defaulted as the API server stores them.
#[derive(Debug, Clone, PartialEq)]
pub struct LimitRange {
    pub namespace: String,
    pub name: String,
    pub limits: Vec<LimitRangeItem>,
}

/// A `spec.limits` item. Quantities are kept as written: the refusals quote them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LimitRangeItem {
    /// `Container`, `Pod` or `PersistentVolumeClaim`.
    pub kind: String,
    pub default: BTreeMap<String, ApiQuantity>,
    pub default_request: BTreeMap<String, ApiQuantity>,
    pub min: BTreeMap<String, ApiQuantity>,
    pub max: BTreeMap<String, ApiQuantity>,
    pub max_limit_request_ratio: BTreeMap<String, ApiQuantity>,
}

impl LimitRange {
    /// The LimitRange as the API server stores it: a Container item's missing default limit
    /// is its max, its missing default request its default limit, else its min
    /// (`SetDefaults_LimitRangeItem`, `pkg/apis/core/v1/defaults.go`). A LimitRange read from
    /// an API server has them already; one written by hand in a snapshot may not.
    pub fn from_api(lr: &core::LimitRange) -> LimitRange {
        let limits = lr
            .spec
            .as_ref()
            .map(|s| s.limits.iter().map(LimitRangeItem::from_api).collect())
            .unwrap_or_default();
        LimitRange {
            namespace: lr.metadata.namespace.clone().unwrap_or_default(),
            name: lr.metadata.name.clone().unwrap_or_default(),
            limits,
        }
    }
}

impl LimitRangeItem {
    fn from_api(i: &core::LimitRangeItem) -> LimitRangeItem {
        let list = |l: &Option<BTreeMap<String, ApiQuantity>>| l.clone().unwrap_or_default();
        let mut item = LimitRangeItem {
            kind: i.type_.clone(),
            default: list(&i.default),
            default_request: list(&i.default_request),
            min: list(&i.min),
            max: list(&i.max),
            max_limit_request_ratio: list(&i.max_limit_request_ratio),
        };
        if item.kind == "Container" {
            for (k, v) in &item.max {
                item.default.entry(k.clone()).or_insert_with(|| v.clone());
            }
            for (k, v) in &item.default {
                item.default_request
                    .entry(k.clone())
                    .or_insert_with(|| v.clone());
            }
            for (k, v) in &item.min {
                item.default_request
                    .entry(k.clone())
                    .or_insert_with(|| v.clone());
            }
        }
        item
    }
}

/// A default LimitRanger set on a container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitDefault {
    /// The LimitRange it comes from.
    pub limit_range: String,
    /// An init container.
    pub init: bool,
    pub container: String,
    /// `requests` (`false`: `limits`).
    pub request: bool,
    pub resource: String,
    pub value: String,
}

/// `PodMutateLimitFunc` for every LimitRange of the pod's namespace, in name order (the
/// plugin walks its informer's index, whose order is unspecified; defaults of two
/// LimitRanges for one resource are a misconfiguration upstream warns against).
///
/// A request counts as present when the container has a limit for the resource: the API
/// server's defaulting, which runs before admission, has copied that limit into the request
/// (`SetDefaults_Pod`); here the defaulting runs after admission (`Pod::from_manifest`), so
/// the limits the manifest wrote stand for those requests.
pub fn mutate(pod: &mut core::Pod, ranges: &[&LimitRange]) -> Vec<LimitDefault> {
    let mut set = Vec::new();
    let Some(spec) = pod.spec.as_mut() else {
        return set;
    };
    let written: Vec<Vec<String>> = spec
        .containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
        .map(|c| {
            c.resources
                .as_ref()
                .and_then(|r| r.limits.as_ref())
                .map(|l| l.keys().cloned().collect())
                .unwrap_or_default()
        })
        .collect();
    for lr in ranges {
        // `defaultContainerResourceRequirements`: the Container items, a later one winning.
        let (mut limits, mut requests) = (BTreeMap::new(), BTreeMap::new());
        for item in lr.limits.iter().filter(|i| i.kind == "Container") {
            limits.extend(item.default.clone());
            requests.extend(item.default_request.clone());
        }
        let containers = spec
            .containers
            .iter_mut()
            .map(|c| (false, c))
            .chain(spec.init_containers.iter_mut().flatten().map(|c| (true, c)));
        for ((init, c), written) in containers.zip(&written) {
            let resources = c.resources.get_or_insert_with(Default::default);
            for (request, defaults) in [(false, &limits), (true, &requests)] {
                let list = if request {
                    &mut resources.requests
                } else {
                    &mut resources.limits
                };
                let list = list.get_or_insert_with(BTreeMap::new);
                for (k, v) in defaults {
                    if list.contains_key(k) || (request && written.contains(k)) {
                        continue;
                    }
                    list.insert(k.clone(), v.clone());
                    set.push(LimitDefault {
                        limit_range: lr.name.clone(),
                        init,
                        container: c.name.clone(),
                        request,
                        resource: k.clone(),
                        value: v.0.clone(),
                    });
                }
            }
        }
    }
    set
}

/// `PodValidateLimitFunc` for each LimitRange on create: the refusals of the first one that
/// refuses, joined as `utilerrors.NewAggregate` prints them (one alone, several as `[a, b]`).
/// The pod is the admitted one, whose missing requests the defaulting takes from its limits.
pub fn validate(pod: &core::Pod, ranges: &[&LimitRange]) -> Result<(), String> {
    let Some(spec) = pod.spec.as_ref() else {
        return Ok(());
    };
    for lr in ranges {
        let mut errs = Vec::new();
        for item in &lr.limits {
            match item.kind.as_str() {
                "Container" => {
                    for c in spec
                        .containers
                        .iter()
                        .chain(spec.init_containers.iter().flatten())
                    {
                        let (requests, limits) = container_lists(c);
                        check(item, &requests, &limits, &mut errs);
                    }
                }
                "Pod" => {
                    let (requests, limits) = pod_lists(spec);
                    check(item, &requests, &limits, &mut errs);
                }
                _ => {}
            }
        }
        match errs.len() {
            0 => {}
            1 => return Err(errs.remove(0)),
            _ => return Err(format!("[{}]", errs.join(", "))),
        }
    }
    Ok(())
}

/// A request or limit: its value, and the text the refusals quote.
#[derive(Debug, Clone)]
struct Amount {
    value: Quantity,
    text: String,
}

type Lists = (BTreeMap<String, Amount>, BTreeMap<String, Amount>);

fn amount(q: &ApiQuantity) -> Amount {
    Amount {
        value: Quantity::parse(&q.0).unwrap_or_default(),
        text: q.0.clone(),
    }
}

/// A container's requests (a missing one is its limit, as the defaulting sets it) and limits.
fn container_lists(c: &core::Container) -> Lists {
    let r = c.resources.as_ref();
    let limits: BTreeMap<String, Amount> = r
        .and_then(|r| r.limits.as_ref())
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), amount(v)))
        .collect();
    let mut requests: BTreeMap<String, Amount> = r
        .and_then(|r| r.requests.as_ref())
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), amount(v)))
        .collect();
    for (k, v) in &limits {
        requests.entry(k.clone()).or_insert_with(|| v.clone());
    }
    (requests, limits)
}

/// The pod's requests and limits as the plugin's `podRequests` / `podLimits` add them up:
/// pod-level values when `spec.resources` sets them (PodLevelResources, on in 1.35), else
/// the containers' sum, sidecars added, at least each init container's (with the sidecars
/// started before it).
fn pod_lists(spec: &core::PodSpec) -> Lists {
    let lists: Vec<(bool, Lists)> = spec
        .containers
        .iter()
        .map(|c| (false, container_lists(c)))
        .collect();
    let inits: Vec<(bool, Lists)> = spec
        .init_containers
        .iter()
        .flatten()
        .map(|c| {
            (
                c.restart_policy.as_deref() == Some("Always"),
                container_lists(c),
            )
        })
        .collect();
    let aggregate = |pick: fn(&Lists) -> &BTreeMap<String, Amount>| {
        let mut sum: BTreeMap<String, Quantity> = BTreeMap::new();
        for (_, l) in &lists {
            add(&mut sum, pick(l));
        }
        let mut sidecars: BTreeMap<String, Quantity> = BTreeMap::new();
        let mut init_max: BTreeMap<String, Quantity> = BTreeMap::new();
        for (sidecar, l) in &inits {
            let this = if *sidecar {
                add(&mut sum, pick(l));
                add(&mut sidecars, pick(l));
                sidecars.clone()
            } else {
                let mut t = sidecars.clone();
                add(&mut t, pick(l));
                t
            };
            for (k, v) in this {
                let e = init_max.entry(k).or_default();
                *e = (*e).max(v);
            }
        }
        for (k, v) in init_max {
            let e = sum.entry(k).or_default();
            *e = (*e).max(v);
        }
        sum.into_iter()
            .map(|(k, v)| {
                let text = canonical(v, &k);
                (k, Amount { value: v, text })
            })
            .collect::<BTreeMap<_, _>>()
    };
    let mut requests = aggregate(|l| &l.0);
    let mut limits = aggregate(|l| &l.1);
    if let Some(r) = &spec.resources {
        for (list, given) in [(&mut requests, &r.requests), (&mut limits, &r.limits)] {
            for (k, v) in given.iter().flatten() {
                list.insert(k.clone(), amount(v));
            }
        }
    }
    (requests, limits)
}

fn add(sum: &mut BTreeMap<String, Quantity>, list: &BTreeMap<String, Amount>) {
    for (k, v) in list {
        let e = sum.entry(k.clone()).or_default();
        *e = e.saturating_add(v.value);
    }
}

/// A sum as `Quantity.String()` prints it: binary suffixes for memory-like resources, else
/// the largest decimal suffix that keeps the number whole (`k`, `M`, `G`, ..., or `m`).
fn canonical(q: Quantity, resource: &str) -> String {
    let nanos = q.nanos();
    let binary = resource != "cpu" && nanos % 1_000_000_000 == 0 && {
        let units = nanos / 1_000_000_000;
        units.abs() >= 1024 && units % 1024 == 0
    };
    if binary {
        let mut units = nanos / 1_000_000_000;
        let mut i = 0;
        let suffixes = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
        while units % 1024 == 0 && units != 0 && i + 1 < suffixes.len() {
            units /= 1024;
            i += 1;
        }
        return format!("{units}{}", suffixes[i]);
    }
    let suffixes = [
        (1_000_000_000_000_000_000_000_000_000i128, "E"),
        (1_000_000_000_000_000_000_000_000, "P"),
        (1_000_000_000_000_000_000_000, "T"),
        (1_000_000_000_000_000_000, "G"),
        (1_000_000_000_000_000, "M"),
        (1_000_000_000_000, "k"),
        (1_000_000_000, ""),
        (1_000_000, "m"),
        (1_000, "u"),
        (1, "n"),
    ];
    if nanos == 0 {
        return "0".to_string();
    }
    for (unit, suffix) in suffixes {
        if nanos % unit == 0 {
            return format!("{}{suffix}", nanos / unit);
        }
    }
    format!("{nanos}n")
}

/// `minConstraint`, `maxConstraint` and `limitRequestRatioConstraint` for every resource the
/// item names, in the item's (sorted) order.
fn check(
    item: &LimitRangeItem,
    requests: &BTreeMap<String, Amount>,
    limits: &BTreeMap<String, Amount>,
    errs: &mut Vec<String>,
) {
    let kind = &item.kind;
    // `requestLimitEnforcedValues`: milli-units where they fit, else units.
    let compared = |a: Option<&Amount>, enforced: &Amount| {
        let milli = |q: Quantity| q.milli_value();
        (a.map_or(0, |a| milli(a.value)), milli(enforced.value))
    };
    for (k, v) in &item.min {
        let enforced = amount(v);
        let (req, lim) = (requests.get(k), limits.get(k));
        let (r, e) = compared(req, &enforced);
        let (l, _) = compared(lim, &enforced);
        match (req, lim) {
            (None, _) => errs.push(format!(
                "minimum {k} usage per {kind} is {}.  No request is specified.",
                enforced.text
            )),
            (Some(req), _) if r < e => errs.push(format!(
                "minimum {k} usage per {kind} is {}, but request is {}.",
                enforced.text, req.text
            )),
            (_, Some(lim)) if l < e => errs.push(format!(
                "minimum {k} usage per {kind} is {}, but limit is {}.",
                enforced.text, lim.text
            )),
            _ => {}
        }
    }
    for (k, v) in &item.max {
        let enforced = amount(v);
        let (req, lim) = (requests.get(k), limits.get(k));
        let (r, e) = compared(req, &enforced);
        let (l, _) = compared(lim, &enforced);
        match (lim, req) {
            (None, _) => errs.push(format!(
                "maximum {k} usage per {kind} is {}.  No limit is specified.",
                enforced.text
            )),
            (Some(lim), _) if l > e => errs.push(format!(
                "maximum {k} usage per {kind} is {}, but limit is {}.",
                enforced.text, lim.text
            )),
            (_, Some(req)) if r > e => errs.push(format!(
                "maximum {k} usage per {kind} is {}, but request is {}.",
                enforced.text, req.text
            )),
            _ => {}
        }
    }
    for (k, v) in &item.max_limit_request_ratio {
        let enforced = amount(v);
        let (r, _) = compared(requests.get(k), &enforced);
        let (l, _) = compared(limits.get(k), &enforced);
        if r == 0 {
            errs.push(format!(
                "{k} max limit to request ratio per {kind} is {}, but no request is specified or request is 0.",
                enforced.text
            ));
        } else if l == 0 {
            errs.push(format!(
                "{k} max limit to request ratio per {kind} is {}, but no limit is specified or limit is 0.",
                enforced.text
            ));
        } else {
            let observed = l as f64 / r as f64;
            if observed * 1000.0 > enforced.value.milli_value() as f64 {
                // Go's `%f`: six decimals.
                errs.push(format!(
                    "{k} max limit to request ratio per {kind} is {}, but provided ratio is {observed:.6}.",
                    enforced.text
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> ApiQuantity {
        ApiQuantity(s.to_string())
    }

    fn range(kind: &str, default_request: &[(&str, &str)], max: &[(&str, &str)]) -> LimitRange {
        let list = |l: &[(&str, &str)]| {
            Some(
                l.iter()
                    .map(|(k, v)| (k.to_string(), q(v)))
                    .collect::<BTreeMap<_, _>>(),
            )
        };
        LimitRange::from_api(&core::LimitRange {
            metadata: Default::default(),
            spec: Some(core::LimitRangeSpec {
                limits: vec![core::LimitRangeItem {
                    type_: kind.to_string(),
                    default_request: list(default_request),
                    max: list(max),
                    ..Default::default()
                }],
            }),
        })
    }

    fn pod(requests: &[(&str, &str)], limits: &[(&str, &str)]) -> core::Pod {
        let list = |l: &[(&str, &str)]| {
            (!l.is_empty()).then(|| {
                l.iter()
                    .map(|(k, v)| (k.to_string(), q(v)))
                    .collect::<BTreeMap<_, _>>()
            })
        };
        core::Pod {
            spec: Some(core::PodSpec {
                containers: vec![core::Container {
                    name: "app".to_string(),
                    resources: Some(core::ResourceRequirements {
                        requests: list(requests),
                        limits: list(limits),
                        ..Default::default()
                    }),
                    ..Default::default()
                }],
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn defaults_fill_what_the_container_lacks() {
        // max cpu 2 defaults the limit to 2 and the request to it; memory's request is given.
        let lr = range("Container", &[("memory", "64Mi")], &[("cpu", "2")]);
        let mut p = pod(&[], &[]);
        let set = mutate(&mut p, &[&lr]);
        let shown: Vec<_> = set
            .iter()
            .map(|d| (d.request, d.resource.as_str(), d.value.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                (false, "cpu", "2"),
                (true, "cpu", "2"),
                (true, "memory", "64Mi")
            ]
        );
        // A container's own limit stands for its request: no default request for it.
        let mut p = pod(&[], &[("cpu", "500m")]);
        let set = mutate(&mut p, &[&lr]);
        assert!(set.iter().all(|d| d.resource != "cpu"));
        assert_eq!(validate(&p, &[&lr]), Ok(()));
    }

    #[test]
    fn violations_are_refused_in_the_plugins_words() {
        let lr = range("Container", &[], &[("cpu", "1")]);
        let p = pod(&[("cpu", "500m")], &[("cpu", "1500m")]);
        assert_eq!(
            validate(&p, &[&lr]),
            Err("maximum cpu usage per Container is 1, but limit is 1500m.".to_string())
        );
        let lr = range("Pod", &[], &[("cpu", "1"), ("memory", "1Gi")]);
        let p = pod(&[("cpu", "2")], &[("cpu", "2")]);
        assert_eq!(
            validate(&p, &[&lr]),
            Err("[maximum cpu usage per Pod is 1, but limit is 2., maximum memory usage per Pod is 1Gi.  No limit is specified.]".to_string())
        );
    }

    #[test]
    fn sums_print_as_quantities_do() {
        assert_eq!(
            canonical(Quantity::parse("1536Mi").unwrap(), "memory"),
            "1536Mi"
        );
        assert_eq!(canonical(Quantity::parse("2Gi").unwrap(), "memory"), "2Gi");
        assert_eq!(canonical(Quantity::parse("1500m").unwrap(), "cpu"), "1500m");
        assert_eq!(canonical(Quantity::parse("2000m").unwrap(), "cpu"), "2");
        assert_eq!(canonical(Quantity::parse("3000").unwrap(), "cpu"), "3k");
    }
}
