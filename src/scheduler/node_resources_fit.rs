//! NodeResourcesFit (`pkg/scheduler/framework/plugins/noderesources/fit.go`): Filter rejects a
//! node whose allocatable minus what its pods already request cannot hold the pod's
//! requests, reporting every short resource; Score ranks by the configured strategy
//! (LeastAllocated by default) over non-zero requests. There is no NormalizeScore.

pub mod explain;

use std::convert::Infallible;
use std::sync::Arc;

use serde::Serialize;

use super::config::{FeatureGates, FitArgs, MAX_CUSTOM_PRIORITY_SCORE, ShapePoint, StrategyType};
use super::few::Few;
use super::plugin::{Input, MAX_NODE_SCORE, Plugin};
use super::status::{Code, PreFilterOutcome, Status};
use crate::state::NodeUsage;
use crate::state::resources::{CPU, EPHEMERAL_STORAGE, MEMORY, Resources, is_extended, is_scalar};

pub const REASON_TOO_MANY_PODS: &str = "Too many pods";
pub const REASON_SIDECARS_DISABLED: &str =
    "Pod has a restartable init container and the SidecarContainers feature is disabled";

/// The pod-count check.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodCount {
    pub existing: i64,
    pub allowed: i64,
    pub fits: bool,
}

/// One resource the pod requests, against the node. cpu is in milli-cpu, the rest in units.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceCheck {
    pub resource: Arc<str>,
    pub requested: i64,
    /// Requested by the pods already on the node.
    pub used: i64,
    pub allocatable: i64,
    pub fits: bool,
    /// The request exceeds the node's whole allocatable: evicting pods cannot help.
    pub unresolvable: bool,
    /// Why the check was skipped (an ignored resource), when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignored: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FilterDetails {
    pub pods: PodCount,
    /// Inline for the usual two (cpu and memory): one allocation per node fewer.
    pub resources: smallvec::SmallVec<[ResourceCheck; 2]>,
}

/// One resource of the score.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceScore {
    pub resource: Arc<str>,
    pub weight: i64,
    /// Node total with the pod (non-zero defaults for cpu/memory where the strategy uses them).
    pub requested: i64,
    pub allocatable: i64,
    /// `None` when the resource is left out (allocatable 0, or a scalar the pod does not
    /// request).
    pub score: Option<i64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreDetails {
    pub strategy: StrategyType,
    pub resources: Vec<ResourceScore>,
}

/// Where a resource's amount is kept in [`Resources`], worked out once from its name: the
/// resources scored and checked depend on the pod and the profile only, and matching their
/// names again on every node (and `is_scalar`'s qualified-name check) was a third of
/// NodeResourcesFit's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Cpu,
    Memory,
    EphemeralStorage,
    Scalar,
}

impl Field {
    fn of(name: &str) -> Field {
        match name {
            CPU => Field::Cpu,
            MEMORY => Field::Memory,
            EPHEMERAL_STORAGE => Field::EphemeralStorage,
            _ => Field::Scalar,
        }
    }

    /// `Resources::get`, without matching the name.
    fn get(self, r: &Resources, name: &str) -> i64 {
        match self {
            Field::Cpu => r.milli_cpu,
            Field::Memory => r.memory,
            Field::EphemeralStorage => r.ephemeral_storage,
            Field::Scalar => r.scalar(name).unwrap_or(0),
        }
    }
}

/// One resource of a scoring strategy with the pod's request for it, resolved before the
/// nodes are scored.
#[derive(Debug, Clone)]
pub(crate) struct ScoredResource {
    name: Arc<str>,
    field: Field,
    pod_request: i64,
    /// A scalar resource the pod does not request: left out on every node.
    left_out: bool,
}

impl ScoredResource {
    /// `pod_request`: the pod's own request for it, as the scoring plugin computes it.
    pub(crate) fn new(name: &Arc<str>, pod_request: i64) -> ScoredResource {
        ScoredResource {
            name: name.clone(),
            field: Field::of(name),
            pod_request,
            left_out: pod_request == 0 && is_scalar(name),
        }
    }

    pub(crate) fn pod_request(&self) -> i64 {
        self.pod_request
    }
}

/// `calculateResourceAllocatableRequest`: (allocatable, node requested + pod request), or
/// (0, 0) when the resource does not take part (`use_requested`: the pods' actual requests;
/// otherwise cpu and memory with the non-zero defaults).
pub(crate) fn allocatable_and_requested(
    input: &Input<'_>,
    usage: &NodeUsage,
    node: usize,
    r: &ScoredResource,
    use_requested: bool,
) -> (i64, i64) {
    if r.left_out {
        return (0, 0);
    }
    let alloc = &input.node(node).resources.allocatable;
    let pod_request = r.pod_request;
    match r.field {
        Field::Cpu => (
            alloc.milli_cpu,
            if use_requested {
                usage.requested.milli_cpu
            } else {
                usage.non_zero_milli_cpu
            }
            .saturating_add(pod_request),
        ),
        Field::Memory => (
            alloc.memory,
            if use_requested {
                usage.requested.memory
            } else {
                usage.non_zero_memory
            }
            .saturating_add(pod_request),
        ),
        Field::EphemeralStorage => (
            alloc.ephemeral_storage,
            usage
                .requested
                .ephemeral_storage
                .saturating_add(pod_request),
        ),
        Field::Scalar => match alloc.scalar(&r.name) {
            Some(a) => (
                a,
                Field::Scalar
                    .get(&usage.requested, &r.name)
                    .saturating_add(pod_request),
            ),
            None => (0, 0),
        },
    }
}

fn least_requested(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 || requested > capacity {
        return 0;
    }
    percent(i128::from(capacity) - i128::from(requested), capacity)
}

fn most_requested(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 {
        return 0;
    }
    percent(requested.min(capacity).into(), capacity)
}

/// `scaledUtilization`: requested × 100 / capacity, clamped to 0..=100.
fn utilization(requested: i64, capacity: i64) -> i64 {
    if capacity <= 0 || requested <= 0 {
        return 0;
    }
    if requested >= capacity {
        return 100;
    }
    percent(requested.into(), capacity)
}

/// `n × 100 / d` (`d` non-zero), in i128 only when i64 would overflow: a hostile manifest's
/// quantities must not overflow, and the 128-bit division is a library call on every node.
fn percent(n: i128, d: i64) -> i64 {
    i64::try_from(n)
        .ok()
        .and_then(|n| n.checked_mul(100))
        .and_then(|x| x.checked_div(d))
        .unwrap_or_else(|| (n * 100 / i128::from(d)) as i64)
}

/// `helper.BuildBrokenLinearFunction` over a shape already scaled to 0..100 scores.
pub(crate) fn broken_linear(shape: &[ShapePoint], p: i64) -> i64 {
    for i in 0..shape.len() {
        if p <= shape[i].utilization {
            if i == 0 {
                return shape[0].score;
            }
            let (a, b) = (shape[i - 1], shape[i]);
            let span = b.utilization - a.utilization;
            if span == 0 {
                return b.score;
            }
            return a.score + (b.score - a.score) * (p - a.utilization) / span;
        }
    }
    shape.last().map_or(0, |s| s.score)
}

/// Per-resource values of one node, on the stack: a profile scores two resources (at most a
/// handful), and these were three heap allocations per candidate node.
pub(crate) type PerResource<T> = smallvec::SmallVec<[T; 4]>;

/// The strategy's node score from per-resource (requested, allocatable); resources with
/// allocatable 0 are left out. Returns the score and each resource's own score.
pub(crate) fn strategy_score(
    args: &FitArgs,
    requested: &[i64],
    allocatable: &[i64],
) -> (i64, PerResource<Option<i64>>) {
    let mut per: PerResource<Option<i64>> = smallvec::smallvec![None; requested.len()];
    let (mut sum, mut weights) = (0i128, 0i128);
    let scaled: Vec<ShapePoint> = args
        .shape
        .iter()
        .map(|p| ShapePoint {
            utilization: p.utilization,
            score: p.score * (MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE),
        })
        .collect();
    for i in 0..requested.len() {
        if allocatable[i] == 0 {
            continue;
        }
        let w = i128::from(args.resources.get(i).map_or(1, |r| r.weight));
        let s = match args.strategy {
            StrategyType::LeastAllocated => least_requested(requested[i], allocatable[i]),
            StrategyType::MostAllocated => most_requested(requested[i], allocatable[i]),
            StrategyType::RequestedToCapacityRatio => {
                let u = if requested[i] > allocatable[i] {
                    100
                } else {
                    utilization(requested[i], allocatable[i])
                };
                broken_linear(&scaled, u)
            }
        };
        per[i] = Some(s);
        // RequestedToCapacityRatio leaves zero-score resources out of the average.
        if args.strategy == StrategyType::RequestedToCapacityRatio && s <= 0 {
            continue;
        }
        sum += i128::from(s) * w;
        weights += w;
    }
    let score = if weights == 0 {
        0
    } else if args.strategy == StrategyType::RequestedToCapacityRatio {
        (sum as f64 / weights as f64).round() as i64
    } else {
        // In i64 where it fits, as `percent`; the 128-bit division only when it does not.
        let narrow = i64::try_from(sum).ok().zip(i64::try_from(weights).ok());
        narrow
            .and_then(|(s, w)| s.checked_div(w))
            .unwrap_or_else(|| (sum / weights) as i64)
    };
    (score, per)
}

/// The name of a resource as shared by every node's details: the common ones without an
/// allocation per node.
fn shared_name(name: &str) -> Arc<str> {
    use std::sync::LazyLock;
    static COMMON: LazyLock<[Arc<str>; 3]> =
        LazyLock::new(|| [CPU.into(), MEMORY.into(), EPHEMERAL_STORAGE.into()]);
    COMMON
        .iter()
        .find(|c| &***c == name)
        .cloned()
        .unwrap_or_else(|| name.into())
}

/// What would make a node short of resources take the pod.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Change {
    /// A resource the node is short of, by this much (milli-cpu, bytes, units): evicting
    /// pods that request it would make room.
    Resource { resource: Arc<str>, short: i64 },
    /// The pod requests more of a resource than the node's whole allocatable: no eviction
    /// makes room. `big_enough`: the nodes whose allocatable holds every request of the pod.
    TooSmall {
        resource: Arc<str>,
        allocatable: i64,
        requested: i64,
        big_enough: Few,
    },
    /// The node runs as many pods as it allows.
    PodCount { allowed: i64 },
}

#[derive(Debug)]
pub struct NodeResourcesFit<'a> {
    input: Input<'a>,
    args: &'a FitArgs,
    gates: &'a FeatureGates,
    /// What Filter checks on every node, in upstream's order.
    checked: Vec<Checked>,
    /// The strategy's resources, as Score reads them on every candidate.
    scored: Vec<ScoredResource>,
}

/// One resource the pod requests, as Filter checks it: its name, amount and whether the
/// profile ignores it depend on the pod alone.
#[derive(Debug)]
struct Checked {
    name: Arc<str>,
    field: Field,
    requested: i64,
    ignored: Option<String>,
}

impl<'a> NodeResourcesFit<'a> {
    pub fn new(input: Input<'a>, args: &'a FitArgs, gates: &'a FeatureGates) -> Self {
        let req = &input.pod.template.resources.requests;
        let fixed = [
            (CPU, req.milli_cpu),
            (MEMORY, req.memory),
            (EPHEMERAL_STORAGE, req.ephemeral_storage),
        ];
        // Upstream walks scalar resources in Go map order; sorted by name here.
        let scalars = req.scalars.iter().map(|(n, v)| (n.as_str(), *v));
        let checked = fixed
            .into_iter()
            .chain(scalars)
            .filter(|&(_, requested)| requested > 0)
            .map(|(name, requested)| Checked {
                name: shared_name(name),
                field: Field::of(name),
                requested,
                ignored: if is_scalar(name) {
                    ignored(args, name)
                } else {
                    None
                },
            })
            .collect();
        let scored = args
            .resources
            .iter()
            .map(|r| {
                let request = input.pod.template.resources.fit_score_request(&r.name);
                ScoredResource::new(&r.name, request)
            })
            .collect();
        NodeResourcesFit {
            input,
            args,
            gates,
            checked,
            scored,
        }
    }
}

fn ignored(args: &FitArgs, name: &str) -> Option<String> {
    if !is_extended(name) {
        return None;
    }
    if args.ignored_resources.iter().any(|r| r == name) {
        return Some("ignoredResources".to_string());
    }
    let group = name.split('/').next().unwrap_or_default();
    args.ignored_resource_groups
        .iter()
        .any(|g| g == group)
        .then(|| "ignoredResourceGroups".to_string())
}

impl NodeResourcesFit<'_> {
    /// PreFilter's rejection of sidecars when the SidecarContainers gate is off.
    fn sidecar_rejection(&self) -> Option<Status> {
        (self.gates.sidecar_containers_disabled
            && self.input.pod.template.resources.has_restartable_init)
            .then(|| Status::new(Code::UnschedulableAndUnresolvable, REASON_SIDECARS_DISABLED))
    }
}

impl Plugin for NodeResourcesFit<'_> {
    type FilterDetails = Box<FilterDetails>;
    type ScoreDetails = ScoreDetails;
    type Tables = Infallible;

    fn pre_filter(&mut self) -> PreFilterOutcome {
        match self.sidecar_rejection() {
            Some(status) => PreFilterOutcome::Reject(status),
            None => PreFilterOutcome::Proceed(None),
        }
    }

    fn filter(&self, ni: usize) -> (Option<Status>, Option<Self::FilterDetails>) {
        // Upstream never reaches Filter after that rejection; the verdict it records for
        // every node is the PreFilter status, so that is this plugin's verdict here too.
        if let Some(status) = self.sidecar_rejection() {
            return (Some(status), None);
        }
        let usage = self.input.node_usage(ni);
        let node = &self.input.node(ni).resources;
        let mut reasons = Vec::new();
        let mut unresolvable = false;
        let pods = PodCount {
            existing: usage.pods,
            allowed: node.allowed_pods,
            fits: usage.pods < node.allowed_pods,
        };
        if !pods.fits {
            reasons.push(std::borrow::Cow::Borrowed(REASON_TOO_MANY_PODS));
        }
        let mut checks = smallvec::SmallVec::new();
        for c in &self.checked {
            let used = c.field.get(&usage.requested, &c.name);
            let allocatable = c.field.get(&node.allocatable, &c.name);
            let requested = c.requested;
            let free = i128::from(allocatable) - i128::from(used);
            let fits = c.ignored.is_some() || i128::from(requested) <= free;
            // Before 1.34 a request over the node's allocatable is Unschedulable too (fit.go).
            let over_total = !fits
                && requested > allocatable
                && self.gates.release.facts().fit_unresolvable_over_allocatable;
            if !fits {
                reasons.push(format!("Insufficient {}", c.name).into());
                unresolvable |= over_total;
            }
            checks.push(ResourceCheck {
                resource: c.name.clone(),
                requested,
                used,
                allocatable,
                fits,
                unresolvable: over_total,
                ignored: c.ignored.clone(),
            });
        }
        let status = (!reasons.is_empty()).then_some(Status {
            code: if unresolvable {
                Code::UnschedulableAndUnresolvable
            } else {
                Code::Unschedulable
            },
            reasons,
        });
        (
            status,
            Some(Box::new(FilterDetails {
                pods,
                resources: checks,
            })),
        )
    }

    fn score(&self, ni: usize) -> Result<(i64, Option<Self::ScoreDetails>), String> {
        if self.args.resources.is_empty() {
            return Err("resources not found".to_string());
        }
        let usage = self.input.node_usage(ni);
        let mut requested = PerResource::new();
        let mut allocatable = PerResource::new();
        for r in &self.scored {
            let (a, q) = allocatable_and_requested(&self.input, &usage, ni, r, false);
            let (a, q) = if a == 0 { (0, 0) } else { (a, q) };
            allocatable.push(a);
            requested.push(q);
        }
        let (score, per) = strategy_score(self.args, &requested, &allocatable);
        let resources = self
            .args
            .resources
            .iter()
            .enumerate()
            .map(|(i, r)| ResourceScore {
                resource: r.name.clone(),
                weight: r.weight,
                requested: requested[i],
                allocatable: allocatable[i],
                score: per[i],
            })
            .collect();
        Ok((
            score,
            Some(ScoreDetails {
                strategy: self.args.strategy,
                resources,
            }),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::config::ResourceSpec;
    use serde_json::json;

    fn args(strategy: StrategyType, shape: &[(i64, i64)]) -> FitArgs {
        FitArgs {
            strategy,
            shape: shape
                .iter()
                .map(|&(utilization, score)| ShapePoint { utilization, score })
                .collect(),
            ..FitArgs::default()
        }
    }

    #[test]
    fn least_and_most_allocated_match_upstream_tables() {
        // least_allocated_test.go "nothing scheduled, resources requested, differently sized
        // nodes": cpu 3000/4000 memory 5000/10000 -> (25 + 50) / 2 = 37; cpu 3000/6000
        // memory 5000/10000 -> (50 + 50) / 2 = 50.
        let la = args(StrategyType::LeastAllocated, &[]);
        assert_eq!(strategy_score(&la, &[3000, 5000], &[4000, 10000]).0, 37);
        assert_eq!(strategy_score(&la, &[3000, 5000], &[6000, 10000]).0, 50);
        // Over capacity scores 0 for that resource.
        assert_eq!(strategy_score(&la, &[5000, 0], &[4000, 10000]).0, 50);
        // most_allocated_test.go: cpu 3000/4000 memory 5000/10000 -> (75 + 50) / 2 = 62.
        let ma = args(StrategyType::MostAllocated, &[]);
        assert_eq!(strategy_score(&ma, &[3000, 5000], &[4000, 10000]).0, 62);
        // Requested above capacity is capped.
        assert_eq!(strategy_score(&ma, &[5000, 10000], &[4000, 10000]).0, 100);
        // No allocatable at all: 0.
        assert_eq!(strategy_score(&la, &[1, 1], &[0, 0]).0, 0);
    }

    /// The i64 fast path gives what 128-bit arithmetic gives, on every input: near the
    /// limits (a hostile manifest's quantities) it falls back instead of overflowing.
    #[test]
    fn scores_in_i64_equal_scores_in_i128_at_the_limits() {
        let wide = |n: i128, d: i64| (n * 100 / i128::from(d)) as i64;
        let values = [
            i64::MIN,
            i64::MIN + 1,
            -1_000_000,
            -1,
            0,
            1,
            99,
            4_000,
            1 << 40,
            i64::MAX / 100,
            i64::MAX / 100 + 1,
            i64::MAX - 1,
            i64::MAX,
        ];
        for &r in &values {
            for &c in values.iter().filter(|&&c| c != 0) {
                let least = if r > c {
                    0
                } else {
                    wide(i128::from(c) - i128::from(r), c)
                };
                assert_eq!(least_requested(r, c), least, "least {r} / {c}");
                assert_eq!(
                    most_requested(r, c),
                    wide(r.min(c).into(), c),
                    "most {r} / {c}"
                );
                if c > 0 && r > 0 && r < c {
                    assert_eq!(
                        utilization(r, c),
                        wide(r.into(), c),
                        "utilization {r} / {c}"
                    );
                }
            }
        }
        // Weighted sums beyond i64 divide in 128 bits.
        let heavy = FitArgs {
            resources: vec![
                ResourceSpec {
                    name: "cpu".into(),
                    weight: i64::MAX,
                },
                ResourceSpec {
                    name: "memory".into(),
                    weight: i64::MAX,
                },
            ],
            ..args(StrategyType::MostAllocated, &[])
        };
        assert_eq!(strategy_score(&heavy, &[4, 1], &[4, 4]).0, 62);
    }

    #[test]
    fn requested_to_capacity_ratio_matches_the_oracle() {
        // fit_test.go TestFitScore RequestedToCapacityRatio case1/case2.
        let down = args(StrategyType::RequestedToCapacityRatio, &[(0, 10), (100, 0)]);
        assert_eq!(strategy_score(&down, &[5000, 9000], &[4000, 10000]).0, 10);
        assert_eq!(strategy_score(&down, &[4000, 7000], &[6000, 10000]).0, 32);
        let up = args(StrategyType::RequestedToCapacityRatio, &[(0, 0), (100, 10)]);
        assert_eq!(strategy_score(&up, &[5000, 9000], &[4000, 10000]).0, 95);
        assert_eq!(strategy_score(&up, &[4000, 7000], &[6000, 10000]).0, 68);
    }

    #[test]
    fn broken_linear_function() {
        // helper/shape_score_test.go style: points (10,1) (30,5) (70,2) scaled x10.
        let shape = [
            ShapePoint {
                utilization: 10,
                score: 10,
            },
            ShapePoint {
                utilization: 30,
                score: 50,
            },
            ShapePoint {
                utilization: 70,
                score: 20,
            },
        ];
        let cases = [
            (0, 10),
            (10, 10),
            (15, 20),
            (20, 30),
            (30, 50),
            (50, 35),
            (70, 20),
            (100, 20),
        ];
        for (p, want) in cases {
            assert_eq!(broken_linear(&shape, p), want, "p={p}");
        }
    }

    fn evaluate_on(
        pod: serde_json::Value,
        exclude_running: bool,
        gates: &str,
    ) -> (Option<Status>, Option<Status>) {
        use crate::scheduler::profile::Profile;
        use crate::state::{FoundPod, Pod, PodRef};
        let snapshot = json!({"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
             "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "2"}}},
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "running", "namespace": "d"},
             "spec": {"nodeName": "n", "containers": [{"name": "c", "image": "i",
               "resources": {"requests": {"cpu": "600m"}}}]}}
        ]});
        let state = crate::state::read_snapshot_str(&snapshot.to_string(), "s").expect("state");
        let api: k8s_openapi::api::core::v1::Pod = serde_json::from_value(pod).expect("pod");
        let (pod, exclude) = if exclude_running {
            let id = PodRef {
                namespace: "d".into(),
                name: "running".into(),
            };
            match state.find_pod(&id) {
                Some(FoundPod::Existing(i)) => (state.pods()[i].clone(), Some(i)),
                _ => panic!("running pod missing"),
            }
        } else {
            (Pod::from_api(&api), None)
        };
        let profile = Profile::default_profile(FeatureGates::parse(gates).expect("gates"));
        let input = Input {
            pod: &pod,
            state: &state,
            exclude,
            removed: &[],
        };
        let mut fit = NodeResourcesFit::new(input, &profile.node_resources_fit, &profile.gates);
        let pre = match fit.pre_filter() {
            PreFilterOutcome::Reject(s) => Some(s),
            _ => None,
        };
        (pre, fit.filter(0).0)
    }

    /// In 1.35 the score counts a pod's containers (100m / 200 MiB each without a request)
    /// and not its pod-level requests, which Filter and BalancedAllocation do count
    /// (`nodeResourceStrategyTypeMap` builds the scorer without the feature flags).
    #[test]
    fn the_score_ignores_pod_level_requests_and_the_filter_does_not() {
        use crate::scheduler::balanced_allocation::BalancedAllocation;
        use crate::scheduler::profile::Profile;
        use crate::state::Pod;
        let snapshot = json!({"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
             "status": {"allocatable": {"cpu": "4", "memory": "4Gi", "pods": "10"}}}
        ]});
        let state = crate::state::read_snapshot_str(&snapshot.to_string(), "s").expect("state");
        let api: k8s_openapi::api::core::v1::Pod = serde_json::from_value(json!({
            "metadata": {"name": "p", "namespace": "d"},
            "spec": {"resources": {"requests": {"memory": "3Gi"}},
                     "containers": [{"name": "c", "image": "i"}]}
        }))
        .expect("pod");
        let pod = Pod::from_api(&api);
        let input = Input {
            pod: &pod,
            state: &state,
            exclude: None,
            removed: &[],
        };
        let profile = Profile::default_profile(FeatureGates::default());
        let fit = NodeResourcesFit::new(input, &profile.node_resources_fit, &profile.gates);
        let (_, details) = fit.filter(0);
        let memory = details.expect("details").resources;
        assert_eq!(
            memory
                .iter()
                .map(|c| (&*c.resource, c.requested))
                .collect::<Vec<_>>(),
            [("memory", 3i64 << 30)]
        );
        let (score, details) = fit.score(0).expect("score");
        let requested: Vec<i64> = details
            .expect("details")
            .resources
            .iter()
            .map(|r| r.requested)
            .collect();
        // cpu 100m of 4, memory 200 MiB of 4 GiB: (97 + 95) / 2.
        assert_eq!(requested, [100, 200 << 20]);
        assert_eq!(score, 96);

        let balanced =
            BalancedAllocation::new(input, &profile.balanced_allocation, profile.gates.release);
        let (_, details) = balanced.score(0).expect("score");
        let requested: Vec<i64> = details
            .expect("details")
            .fractions
            .iter()
            .map(|f| f.requested)
            .collect();
        assert_eq!(requested, [0, 3 << 30]);
    }

    #[test]
    fn filter_counts_existing_pods_but_not_the_explained_one() {
        let pod = json!({"metadata": {"name": "p", "namespace": "d"}, "spec": {"containers": [
            {"name": "c", "image": "i", "resources": {"requests": {"cpu": "600m"}}}]}});
        let (_, status) = evaluate_on(pod.clone(), false, "");
        let status = status.expect("rejected");
        assert_eq!(status.reasons, ["Insufficient cpu"]);
        assert_eq!(status.code, Code::Unschedulable);
        // Explaining the running pod itself: its own 600m is not counted against it.
        let (_, status) = evaluate_on(pod, true, "");
        assert!(status.is_none(), "{status:?}");
    }

    #[test]
    fn sidecars_rejected_in_prefilter_when_the_gate_is_off() {
        let pod = json!({"metadata": {"name": "p", "namespace": "d"}, "spec": {
            "initContainers": [{"name": "s", "image": "i", "restartPolicy": "Always"}],
            "containers": [{"name": "c", "image": "i"}]}});
        let (pre, _) = evaluate_on(pod.clone(), false, "");
        assert!(pre.is_none());
        let (pre, filter) = evaluate_on(pod, false, "SidecarContainers=false");
        let pre = pre.expect("rejected");
        assert_eq!(pre.code, Code::UnschedulableAndUnresolvable);
        assert_eq!(pre.reasons, [REASON_SIDECARS_DISABLED]);
        assert_eq!(filter, Some(pre));
    }

    #[test]
    fn args_are_defaulted_and_validated() {
        let a = FitArgs::parse(&json!({}), "c").expect("valid");
        assert_eq!(a, FitArgs::default());
        let a = FitArgs::parse(
            &json!({"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu"}]}}),
            "c",
        )
        .expect("valid");
        assert_eq!(a.strategy, StrategyType::MostAllocated);
        assert_eq!(a.resources[0].weight, 1);
        for (bad, needle) in [
            (
                json!({"scoringStrategy": {"type": "Nope"}}),
                "Unsupported value",
            ),
            (
                json!({"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 101}]}}),
                "not in valid range (0, 100]",
            ),
            (
                json!({"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {"shape": [{"utilization": 50, "score": 1}, {"utilization": 10, "score": 2}]}}}),
                "sorted in increasing order",
            ),
            (
                json!({"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 11}]}}}),
                "not in valid range [0, 10]",
            ),
            (
                json!({"ignoredResourceGroups": ["example.com/x"]}),
                "can't contain '/'",
            ),
            (json!({"ignoredResources": ["-bad-"]}), "qualified name"),
            (json!({"unknownField": 1}), "unknown field"),
        ] {
            let err = FitArgs::parse(&bad, "c").expect_err("invalid");
            assert!(err.0.contains(needle), "{bad}: {err}");
        }
    }
}
