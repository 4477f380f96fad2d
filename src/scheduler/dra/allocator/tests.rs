//! Upstream's allocator table (structured/internal/allocatortesting, v0.35), the cases that
//! fit these types, by upstream's names; results compare as upstream's matchers do (devices
//! of a claim in any order, node selectors by content). Then the diagnosis and the budget.

use super::*;
use crate::scheduler::dra::cel::{self, Cache};
use crate::scheduler::dra::types::{
    DeviceConstraint, DeviceRequest, ExactRequest, Pool as PoolSpec, SubRequest,
};
use crate::state::quantity::Quantity;

const NODE1: &str = "node-1";
const NODE2: &str = "node-2";
const REGION1: &str = "region-1";
const REGION2: &str = "region-2";
const CLASS_A: &str = "class-a";
const CLASS_B: &str = "class-b";
const DRIVER_A: &str = "driver-a";
const DRIVER_B: &str = "driver-b";
const POOL1: &str = "pool-1";
const POOL2: &str = "pool-2";
const POOL3: &str = "pool-3";
const POOL4: &str = "pool-4";
const REQ0: &str = "req-0";
const REQ1: &str = "req-1";
const SUB0: &str = "subReq-0";
const SUB1: &str = "subReq-1";
const CLAIM0: &str = "claim-0";
const CLAIM1: &str = "claim-1";
const SLICE1: &str = "slice-1";
const SLICE2: &str = "slice-2";
const DEVICE0: &str = "device-0";
const DEVICE1: &str = "device-1";
const DEVICE2: &str = "device-2";
const DEVICE3: &str = "device-3";

fn labels(region: &str) -> Labels {
    [("region", region), ("planet", "earth")]
        .into_iter()
        .collect()
}

fn class(name: &str, driver: &str) -> DeviceClass {
    DeviceClass {
        name: name.into(),
        selectors: vec![DeviceSelector::cel(format!(
            r#"device.driver == "{driver}""#
        ))],
    }
}

fn device(name: &str) -> Device {
    Device {
        name: name.into(),
        ..Device::default()
    }
}

use crate::scheduler::dra::types::Device;

fn with_memory(mut d: Device, memory: &str) -> Device {
    d.capacity
        .insert("memory".into(), Quantity::parse(memory).expect("quantity"));
    d
}

fn with_attr(mut d: Device, name: &str, value: AttributeValue) -> Device {
    d.attributes.insert(name.into(), value);
    d
}

fn with_taints(mut d: Device, taints: &[DeviceTaint]) -> Device {
    d.taints = taints.to_vec();
    d
}

fn version(v: &str) -> AttributeValue {
    AttributeValue::Version(v.into())
}

/// Where a slice's devices are: one node, all nodes, or a selector.
enum At {
    Node(&'static str),
    All,
    Selector(spec::NodeSelector),
}

fn label_selector(key: &str, values: &[&str]) -> spec::NodeSelector {
    spec::NodeSelector {
        node_selector_terms: vec![spec::NodeSelectorTerm {
            match_expressions: Some(vec![spec::NodeSelectorRequirement {
                key: key.into(),
                operator: "In".into(),
                values: Some(values.iter().map(|v| (*v).to_owned()).collect()),
            }]),
            match_fields: None,
        }],
    }
}

fn local_selector(node: &str) -> spec::NodeSelector {
    spec::NodeSelector {
        node_selector_terms: vec![spec::NodeSelectorTerm {
            match_expressions: None,
            match_fields: Some(vec![spec::NodeSelectorRequirement {
                key: "metadata.name".into(),
                operator: "In".into(),
                values: Some(vec![node.to_owned()]),
            }]),
        }],
    }
}

fn slice_in(
    name: &str,
    at: At,
    pool: PoolSpec,
    driver: &str,
    devices: Vec<Device>,
) -> ResourceSlice {
    let node_selection = match at {
        At::Node(n) => NodeSelection {
            node_name: Some(n.into()),
            ..NodeSelection::default()
        },
        At::All => NodeSelection {
            all_nodes: true,
            ..NodeSelection::default()
        },
        At::Selector(s) => NodeSelection {
            node_selector: Some(s),
            ..NodeSelection::default()
        },
    };
    ResourceSlice {
        name: name.into(),
        driver: driver.into(),
        pool,
        node_selection,
        devices,
        ..ResourceSlice::default()
    }
}

fn pool(name: &str, count: i64) -> PoolSpec {
    PoolSpec {
        name: name.into(),
        generation: 1,
        resource_slice_count: count,
    }
}

fn slice(name: &str, at: At, pool_name: &str, driver: &str, devices: Vec<Device>) -> ResourceSlice {
    slice_in(name, at, pool(pool_name, 1), driver, devices)
}

fn one_device(name: &str, at: At, pool_name: &str, driver: &str) -> ResourceSlice {
    slice(name, at, pool_name, driver, vec![device(DEVICE1)])
}

fn many_devices(name: &str, at: At, pool_name: &str, driver: &str, count: usize) -> ResourceSlice {
    slice(
        name,
        at,
        pool_name,
        driver,
        (0..count).map(|i| device(&format!("device-{i}"))).collect(),
    )
}

fn spec_of(class: &str, count: i64, selectors: &[&str]) -> RequestSpec {
    RequestSpec {
        selectors: selectors.iter().map(|s| DeviceSelector::cel(*s)).collect(),
        ..RequestSpec::exactly(class, count)
    }
}

fn request(name: &str, class: &str, count: i64, selectors: &[&str]) -> DeviceRequest {
    DeviceRequest {
        name: name.into(),
        kind: RequestKind::Exactly(ExactRequest {
            spec: spec_of(class, count, selectors),
            admin_access: None,
        }),
    }
}

fn all_request(name: &str, class: &str) -> DeviceRequest {
    let mut r = request(name, class, 0, &[]);
    set_mode(&mut r, AllocationMode::All);
    r
}

fn admin(mut r: DeviceRequest) -> DeviceRequest {
    if let RequestKind::Exactly(e) = &mut r.kind {
        e.admin_access = Some(true);
    }
    r
}

fn set_mode(r: &mut DeviceRequest, mode: AllocationMode) {
    if let RequestKind::Exactly(e) = &mut r.kind {
        e.spec.allocation_mode = mode;
    }
}

fn tolerate(mut r: DeviceRequest, tolerations: &[DeviceToleration]) -> DeviceRequest {
    if let RequestKind::Exactly(e) = &mut r.kind {
        e.spec.tolerations.extend_from_slice(tolerations);
    }
    r
}

fn sub(name: &str, class: &str, count: i64, selectors: &[&str]) -> SubRequest {
    SubRequest {
        name: name.into(),
        spec: spec_of(class, count, selectors),
    }
}

fn sub_all(name: &str, class: &str) -> SubRequest {
    let mut s = sub(name, class, 0, &[]);
    s.spec.allocation_mode = AllocationMode::All;
    s
}

fn first_available(name: &str, subs: Vec<SubRequest>) -> DeviceRequest {
    DeviceRequest {
        name: name.into(),
        kind: RequestKind::FirstAvailable(subs),
    }
}

fn claim(
    name: &str,
    constraints: &[(&[&str], &str)],
    requests: Vec<DeviceRequest>,
) -> ResourceClaim {
    ResourceClaim {
        namespace: String::new(),
        name: name.into(),
        requests,
        constraints: constraints
            .iter()
            .map(|(requests, attribute)| DeviceConstraint {
                requests: requests.iter().map(|r| (*r).to_owned()).collect(),
                match_attribute: Some((*attribute).to_owned()),
            })
            .collect(),
        allocation: None,
        ..ResourceClaim::default()
    }
}

fn simple_claim(name: &str, req: &str, class: &str) -> ResourceClaim {
    claim(name, &[], vec![request(req, class, 1, &[])])
}

fn memory_at_least(q: &str) -> String {
    format!(r#"device.capacity["{DRIVER_A}"].memory.compareTo(quantity("{q}")) >= 0"#)
}

type Res = (&'static str, &'static str, &'static str, String, bool);

fn res(
    request: &'static str,
    driver: &'static str,
    pool: &'static str,
    device: &str,
    admin: bool,
) -> Res {
    (request, driver, pool, device.to_owned(), admin)
}

enum Expect {
    /// Per claim: the node selector and the devices (in any order).
    Results(Vec<(Option<spec::NodeSelector>, Vec<Res>)>),
    Nothing,
    Error(&'static str),
    FailedOnNode(&'static str),
}

struct Case {
    name: &'static str,
    features: Features,
    claims: Vec<ResourceClaim>,
    allocated: Vec<(&'static str, &'static str, &'static str)>,
    classes: Vec<DeviceClass>,
    slices: Vec<ResourceSlice>,
    node: (&'static str, &'static str),
    expect: Expect,
    /// Upstream's `expectNumAllocateOneInvocations`, where it sets one.
    steps: Option<u64>,
}

impl Default for Case {
    fn default() -> Case {
        Case {
            name: "",
            features: Features::default(),
            claims: Vec::new(),
            allocated: Vec::new(),
            classes: Vec::new(),
            slices: Vec::new(),
            node: (NODE1, REGION1),
            expect: Expect::Nothing,
            steps: None,
        }
    }
}

/// A node selector's requirements: (field?, key, operator, values).
type Requirements = Vec<(bool, String, String, Vec<String>)>;

/// A node selector as sets of requirements, for comparing by content.
fn normalized(s: &Option<spec::NodeSelector>) -> Option<Vec<Requirements>> {
    s.as_ref().map(|s| {
        let mut terms: Vec<_> = s
            .node_selector_terms
            .iter()
            .map(|t| {
                let mut reqs: Vec<_> = [(false, &t.match_expressions), (true, &t.match_fields)]
                    .into_iter()
                    .flat_map(|(field, reqs)| {
                        reqs.iter().flatten().map(move |r| {
                            let mut values = r.values.clone().unwrap_or_default();
                            values.sort();
                            (field, r.key.clone(), r.operator.clone(), values)
                        })
                    })
                    .collect();
                reqs.sort();
                reqs
            })
            .collect();
        terms.sort();
        terms
    })
}

type Normal = (
    Option<Vec<Requirements>>,
    Vec<(String, String, String, String, bool)>,
);

fn normal_results(results: &[ClaimAllocation]) -> Vec<Normal> {
    let mut out: Vec<Normal> = results
        .iter()
        .map(|a| {
            let mut devices: Vec<_> = a
                .devices
                .iter()
                .map(|d| {
                    (
                        d.request.clone(),
                        d.driver.clone(),
                        d.pool.clone(),
                        d.device.clone(),
                        d.admin_access == Some(true),
                    )
                })
                .collect();
            devices.sort();
            (normalized(&a.node_selector), devices)
        })
        .collect();
    out.sort();
    out
}

fn run(case: &Case) -> (Outcome, u64) {
    let mut allocated = AllocatedDevices::default();
    for (driver, pool, device) in &case.allocated {
        allocated.insert(DeviceId::new(driver, pool, device), "other/claim".into());
    }
    let cache = Cache::new(cel::Features {
        consumable_capacity: case.features.consumable_capacity,
    });
    let allocator = Allocator::new(
        case.features,
        &allocated,
        &case.classes,
        &case.slices,
        &cache,
    );
    let node_labels = labels(case.node.1);
    let claims: Vec<&ResourceClaim> = case.claims.iter().collect();
    allocator.allocate_counted(
        NodeRef {
            name: case.node.0,
            labels: &node_labels,
        },
        &claims,
        Budget::default(),
    )
}

fn check(case: &Case) {
    let (outcome, steps) = run(case);
    if let Some(want) = case.steps {
        assert_eq!(steps, want, "{}: allocateOne calls", case.name);
    }
    match (&case.expect, &outcome) {
        (Expect::Results(want), Outcome::Allocated(got)) => {
            let want: Vec<ClaimAllocation> = want
                .iter()
                .map(|(selector, devices)| ClaimAllocation {
                    claim: String::new(),
                    devices: devices
                        .iter()
                        .map(|(request, driver, pool, device, admin)| AllocatedDevice {
                            request: (*request).to_owned(),
                            driver: (*driver).to_owned(),
                            pool: (*pool).to_owned(),
                            device: device.clone(),
                            admin_access: admin.then_some(true),
                        })
                        .collect(),
                    node_selector: selector.clone(),
                })
                .collect();
            assert_eq!(normal_results(got), normal_results(&want), "{}", case.name);
        }
        (Expect::Results(want), _) if want.is_empty() => {
            assert!(
                matches!(outcome, Outcome::Unsatisfiable | Outcome::Allocated(_)),
                "{}: {outcome:?}",
                case.name
            );
        }
        (Expect::Nothing, Outcome::Unsatisfiable) => {}
        (Expect::Error(want), Outcome::Error(got)) => {
            assert!(got.contains(want), "{}: {got:?} lacks {want:?}", case.name);
        }
        (Expect::FailedOnNode(want), Outcome::FailedOnNode(got)) => {
            assert!(got.contains(want), "{}: {got:?} lacks {want:?}", case.name);
        }
        _ => panic!("{}: unexpected {outcome:?}", case.name),
    }
}

fn local(devices: Vec<Res>) -> (Option<spec::NodeSelector>, Vec<Res>) {
    (Some(local_selector(NODE1)), devices)
}

fn taint(value: &str, effect: &str) -> DeviceTaint {
    DeviceTaint {
        key: "taint-key".into(),
        value: value.into(),
        effect: effect.into(),
    }
}

fn cases() -> Vec<Case> {
    let taint_none = taint("taint-value", "None");
    let taint_no_schedule = taint("taint-value", "NoSchedule");
    let taint_no_execute = taint("taint-value-2", "NoExecute");
    let toleration_no_schedule = DeviceToleration {
        operator: "Exists".into(),
        key: "taint-key".into(),
        effect: "NoSchedule".into(),
        value: String::new(),
    };
    let toleration_no_execute = DeviceToleration {
        operator: "Equal".into(),
        key: "taint-key".into(),
        value: "taint-value-2".into(),
        effect: "NoExecute".into(),
    };
    let int_attr = format!("{DRIVER_A}/numa");
    let version_attr = format!("{DRIVER_A}/driverVersion");
    let string_attr = format!("{DRIVER_A}/stringAttribute");
    let bool_attr = format!("{DRIVER_A}/boolAttribute");
    let full = |name: &str, numa: i64, version_: &str, s: &str, b: bool| {
        let d = with_attr(device(name), "driverVersion", version(version_));
        let d = with_attr(d, "numa", AttributeValue::Int(numa));
        let d = with_attr(d, "stringAttribute", AttributeValue::String(s.into()));
        with_attr(d, "boolAttribute", AttributeValue::Bool(b))
    };
    let two_numa = || {
        vec![slice(
            SLICE1,
            At::Node(NODE1),
            POOL1,
            DRIVER_A,
            vec![
                with_attr(device(DEVICE1), "numa", AttributeValue::Int(1)),
                with_attr(device(DEVICE2), "numa", AttributeValue::Int(2)),
            ],
        )]
    };
    let prioritized = Features {
        prioritized_list: true,
        ..Features::default()
    };
    let taints = Features {
        device_taints: true,
        ..Features::default()
    };
    vec![
        Case {
            name: "empty",
            expect: Expect::Results(vec![]),
            ..Case::default()
        },
        Case {
            name: "simple",
            claims: vec![simple_claim(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Results(vec![local(vec![res(
                REQ0, DRIVER_A, POOL1, DEVICE1, false,
            )])]),
            ..Case::default()
        },
        Case {
            name: "other-node",
            claims: vec![simple_claim(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_B),
                one_device(SLICE2, At::Node(NODE2), POOL2, DRIVER_A),
            ],
            node: (NODE2, REGION2),
            expect: Expect::Results(vec![(
                Some(local_selector(NODE2)),
                vec![res(REQ0, DRIVER_A, POOL2, DEVICE1, false)],
            )]),
            ..Case::default()
        },
        Case {
            name: "small-and-large",
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![
                    request(REQ0, CLASS_A, 1, &[&memory_at_least("1Gi")]),
                    request(REQ1, CLASS_A, 1, &[&memory_at_least("2Gi")]),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![
                    with_memory(device(DEVICE1), "1Gi"),
                    with_memory(device(DEVICE2), "2Gi"),
                ],
            )],
            expect: Expect::Results(vec![local(vec![
                res(REQ0, DRIVER_A, POOL1, DEVICE1, false),
                res(REQ1, DRIVER_A, POOL1, DEVICE2, false),
            ])]),
            ..Case::default()
        },
        Case {
            name: "small-and-large-backtrack-requests",
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![
                    request(REQ0, CLASS_A, 1, &[&memory_at_least("1Gi")]),
                    request(REQ1, CLASS_A, 1, &[&memory_at_least("2Gi")]),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![
                    with_memory(device(DEVICE2), "2Gi"),
                    with_memory(device(DEVICE1), "1Gi"),
                ],
            )],
            expect: Expect::Results(vec![local(vec![
                res(REQ0, DRIVER_A, POOL1, DEVICE1, false),
                res(REQ1, DRIVER_A, POOL1, DEVICE2, false),
            ])]),
            ..Case::default()
        },
        Case {
            name: "small-and-large-backtrack-claims",
            claims: vec![
                claim(
                    CLAIM0,
                    &[],
                    vec![request(REQ0, CLASS_A, 1, &[&memory_at_least("1Gi")])],
                ),
                claim(
                    CLAIM1,
                    &[],
                    vec![request(REQ1, CLASS_A, 1, &[&memory_at_least("2Gi")])],
                ),
            ],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![
                    with_memory(device(DEVICE2), "2Gi"),
                    with_memory(device(DEVICE1), "1Gi"),
                ],
            )],
            expect: Expect::Results(vec![
                local(vec![res(REQ0, DRIVER_A, POOL1, DEVICE1, false)]),
                local(vec![res(REQ1, DRIVER_A, POOL1, DEVICE2, false)]),
            ]),
            ..Case::default()
        },
        Case {
            name: "devices-split-across-different-slices",
            claims: vec![claim(CLAIM0, &[], vec![request(REQ0, CLASS_A, 2, &[])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A),
                one_device(SLICE2, At::Node(NODE1), POOL2, DRIVER_A),
            ],
            expect: Expect::Results(vec![local(vec![
                res(REQ0, DRIVER_A, POOL1, DEVICE1, false),
                res(REQ0, DRIVER_A, POOL2, DEVICE1, false),
            ])]),
            ..Case::default()
        },
        Case {
            name: "obsolete-slice",
            claims: vec![simple_claim(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice_in(
                    "slice-1-obsolete",
                    At::Node(NODE1),
                    pool(POOL1, 2),
                    DRIVER_A,
                    vec![device(DEVICE1)],
                ),
                slice_in(
                    "slice-1-obsolete",
                    At::Node(NODE1),
                    PoolSpec {
                        generation: 2,
                        ..pool(POOL1, 2)
                    },
                    DRIVER_A,
                    vec![device(DEVICE2)],
                ),
            ],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "duplicate-slice",
            claims: vec![simple_claim(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice_in(
                    SLICE1,
                    At::Node(NODE1),
                    pool(POOL1, 2),
                    DRIVER_A,
                    vec![device(DEVICE1)],
                ),
                slice_in(
                    "slice-1-2",
                    At::Node(NODE1),
                    pool(POOL1, 2),
                    DRIVER_A,
                    vec![device(DEVICE1)],
                ),
            ],
            expect: Expect::FailedOnNode("invalid resource pools were encountered"),
            ..Case::default()
        },
        Case {
            name: "no-slices",
            claims: vec![simple_claim(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "not-enough-suitable-devices",
            claims: vec![
                simple_claim(CLAIM0, REQ0, CLASS_A),
                simple_claim(CLAIM0, REQ1, CLASS_A),
            ],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "no-classes",
            claims: vec![simple_claim(CLAIM0, REQ0, CLASS_A)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Error("could not retrieve device class class-a"),
            ..Case::default()
        },
        Case {
            name: "unknown-class",
            claims: vec![simple_claim(CLAIM0, REQ0, "unknown-class")],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Error("could not retrieve device class unknown-class"),
            ..Case::default()
        },
        Case {
            name: "empty-class",
            claims: vec![simple_claim(CLAIM0, REQ0, "")],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Error(
                "claim claim-0, request req-0: missing device class name (unsupported request type?)",
            ),
            ..Case::default()
        },
        Case {
            name: "no-claims-to-allocate",
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Results(vec![]),
            ..Case::default()
        },
        Case {
            name: "all-devices-single",
            claims: vec![claim(CLAIM0, &[], vec![all_request(REQ0, CLASS_A)])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Results(vec![local(vec![res(
                REQ0, DRIVER_A, POOL1, DEVICE1, false,
            )])]),
            ..Case::default()
        },
        Case {
            name: "all-devices-many",
            claims: vec![claim(CLAIM0, &[], vec![all_request(REQ0, CLASS_A)])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A),
                one_device(SLICE1, At::Node(NODE1), POOL2, DRIVER_A),
            ],
            expect: Expect::Results(vec![local(vec![
                res(REQ0, DRIVER_A, POOL1, DEVICE1, false),
                res(REQ0, DRIVER_A, POOL2, DEVICE1, false),
            ])]),
            ..Case::default()
        },
        Case {
            name: "all-devices-of-the-incomplete-pool",
            claims: vec![claim(CLAIM0, &[], vec![all_request(REQ0, CLASS_A)])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_in(
                SLICE1,
                At::Node(NODE1),
                pool(POOL1, 2),
                DRIVER_A,
                vec![device(DEVICE1)],
            )],
            expect: Expect::Error(
                "claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated",
            ),
            ..Case::default()
        },
        Case {
            name: "all-devices-plus-another",
            claims: vec![
                claim(CLAIM0, &[], vec![all_request(REQ0, CLASS_A)]),
                claim(CLAIM1, &[], vec![request(REQ0, CLASS_B, 1, &[])]),
            ],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![
                one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A),
                one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_B),
            ],
            expect: Expect::Results(vec![
                local(vec![res(REQ0, DRIVER_A, POOL1, DEVICE1, false)]),
                local(vec![res(REQ0, DRIVER_B, POOL1, DEVICE1, false)]),
            ]),
            ..Case::default()
        },
        Case {
            name: "all-devices-many-plus-another-reversed",
            claims: vec![
                claim(CLAIM1, &[], vec![request(REQ0, CLASS_B, 1, &[])]),
                claim(CLAIM0, &[], vec![all_request(REQ0, CLASS_A)]),
            ],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![
                slice(
                    SLICE1,
                    At::Node(NODE1),
                    POOL1,
                    DRIVER_A,
                    vec![device(DEVICE1), device(DEVICE2)],
                ),
                one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_B),
            ],
            expect: Expect::Results(vec![
                local(vec![res(REQ0, DRIVER_B, POOL1, DEVICE1, false)]),
                local(vec![
                    res(REQ0, DRIVER_A, POOL1, DEVICE1, false),
                    res(REQ0, DRIVER_A, POOL1, DEVICE2, false),
                ]),
            ]),
            ..Case::default()
        },
        Case {
            name: "all-devices-no-solution",
            claims: vec![
                claim(CLAIM1, &[], vec![request(REQ0, CLASS_A, 1, &[])]),
                claim(CLAIM0, &[], vec![all_request(REQ0, CLASS_A)]),
            ],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "all-devices-no-solution-reversed",
            claims: vec![
                claim(CLAIM0, &[], vec![all_request(REQ0, CLASS_A)]),
                claim(CLAIM1, &[], vec![request(REQ0, CLASS_A, 1, &[])]),
            ],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "all-devices-slice-without-devices",
            claims: vec![claim(CLAIM0, &[], vec![all_request(REQ0, CLASS_A)])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(SLICE1, At::Node(NODE1), POOL1, DRIVER_A, vec![])],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "all-devices-some-allocated",
            claims: vec![claim(CLAIM0, &[], vec![all_request(REQ0, CLASS_A)])],
            allocated: vec![(DRIVER_A, POOL1, DEVICE1)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![device(DEVICE1), device(DEVICE2)],
            )],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "all-devices-some-allocated-admin-access",
            features: Features {
                admin_access: true,
                ..Features::default()
            },
            claims: vec![claim(CLAIM0, &[], vec![admin(all_request(REQ0, CLASS_A))])],
            allocated: vec![(DRIVER_A, POOL1, DEVICE1)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![device(DEVICE1), device(DEVICE2)],
            )],
            expect: Expect::Results(vec![local(vec![
                res(REQ0, DRIVER_A, POOL1, DEVICE1, true),
                res(REQ0, DRIVER_A, POOL1, DEVICE2, true),
            ])]),
            ..Case::default()
        },
        Case {
            name: "all-devices-some-allocating-admin-access",
            features: Features {
                admin_access: true,
                ..Features::default()
            },
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![
                    admin(request(REQ0, CLASS_A, 1, &[])),
                    admin(all_request(REQ1, CLASS_A)),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![device(DEVICE1), device(DEVICE2)],
            )],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "count-devices-some-allocated-admin-access",
            features: Features {
                admin_access: true,
                ..Features::default()
            },
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![admin(request(REQ0, CLASS_A, 2, &[]))],
            )],
            allocated: vec![(DRIVER_A, POOL1, DEVICE1)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![device(DEVICE1), device(DEVICE2)],
            )],
            expect: Expect::Results(vec![local(vec![
                res(REQ0, DRIVER_A, POOL1, DEVICE1, true),
                res(REQ0, DRIVER_A, POOL1, DEVICE2, true),
            ])]),
            ..Case::default()
        },
        Case {
            name: "separate-claims-share-device-admin-access",
            features: Features {
                admin_access: true,
                ..Features::default()
            },
            claims: vec![
                claim(CLAIM0, &[], vec![admin(request(REQ0, CLASS_A, 1, &[]))]),
                claim(CLAIM1, &[], vec![admin(request(REQ0, CLASS_A, 1, &[]))]),
            ],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![device(DEVICE1), device(DEVICE2)],
            )],
            expect: Expect::Results(vec![
                local(vec![res(REQ0, DRIVER_A, POOL1, DEVICE1, true)]),
                local(vec![res(REQ0, DRIVER_A, POOL1, DEVICE1, true)]),
            ]),
            ..Case::default()
        },
        Case {
            name: "admin-access-claims-device-allocating-for-non-admin-access",
            features: Features {
                admin_access: true,
                ..Features::default()
            },
            claims: vec![
                simple_claim(CLAIM0, REQ0, CLASS_A),
                claim(CLAIM1, &[], vec![admin(request(REQ0, CLASS_A, 1, &[]))]),
            ],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![device(DEVICE1), device(DEVICE2)],
            )],
            expect: Expect::Results(vec![
                local(vec![res(REQ0, DRIVER_A, POOL1, DEVICE1, false)]),
                local(vec![res(REQ0, DRIVER_A, POOL1, DEVICE1, true)]),
            ]),
            ..Case::default()
        },
        Case {
            name: "all-devices-slice-without-devices-prioritized-list",
            features: prioritized,
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![first_available(
                    REQ0,
                    vec![sub_all(SUB0, CLASS_A), sub(SUB1, CLASS_B, 1, &[])],
                )],
            )],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![
                slice(SLICE1, At::Node(NODE1), POOL1, DRIVER_A, vec![]),
                one_device(SLICE2, At::Node(NODE1), POOL2, DRIVER_B),
            ],
            expect: Expect::Results(vec![local(vec![res(
                "req-0/subReq-1",
                DRIVER_B,
                POOL2,
                DEVICE1,
                false,
            )])]),
            ..Case::default()
        },
        Case {
            name: "all-devices-some-allocated-prioritized-list",
            features: prioritized,
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![first_available(
                    REQ0,
                    vec![sub_all(SUB0, CLASS_A), sub(SUB1, CLASS_A, 1, &[])],
                )],
            )],
            allocated: vec![(DRIVER_A, POOL1, DEVICE1)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![device(DEVICE1), device(DEVICE2)],
            )],
            expect: Expect::Results(vec![local(vec![res(
                "req-0/subReq-1",
                DRIVER_A,
                POOL1,
                DEVICE2,
                false,
            )])]),
            ..Case::default()
        },
        Case {
            name: "network-attached-device",
            claims: vec![simple_claim(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(
                SLICE1,
                At::Selector(label_selector("region", &[REGION1])),
                POOL1,
                DRIVER_A,
            )],
            expect: Expect::Results(vec![(
                Some(label_selector("region", &[REGION1])),
                vec![res(REQ0, DRIVER_A, POOL1, DEVICE1, false)],
            )]),
            ..Case::default()
        },
        Case {
            name: "unsuccessful-allocation-network-attached-device",
            claims: vec![simple_claim(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(
                SLICE1,
                At::Selector(label_selector("region", &[REGION1])),
                POOL1,
                DRIVER_A,
            )],
            node: (NODE2, REGION2),
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "many-network-attached-devices",
            claims: vec![claim(CLAIM0, &[], vec![request(REQ0, CLASS_A, 4, &[])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                one_device(
                    SLICE1,
                    At::Selector(label_selector("region", &[REGION1])),
                    POOL1,
                    DRIVER_A,
                ),
                one_device(SLICE1, At::All, POOL2, DRIVER_A),
                one_device(
                    SLICE1,
                    At::Selector(label_selector("planet", &["earth"])),
                    POOL3,
                    DRIVER_A,
                ),
                one_device(SLICE1, At::Selector(local_selector(NODE1)), POOL4, DRIVER_A),
            ],
            expect: Expect::Results(vec![(
                Some(spec::NodeSelector {
                    node_selector_terms: vec![spec::NodeSelectorTerm {
                        match_expressions: Some(vec![
                            label_selector("region", &[REGION1]).node_selector_terms[0]
                                .match_expressions
                                .clone()
                                .unwrap_or_default()[0]
                                .clone(),
                            label_selector("planet", &["earth"]).node_selector_terms[0]
                                .match_expressions
                                .clone()
                                .unwrap_or_default()[0]
                                .clone(),
                        ]),
                        match_fields: local_selector(NODE1).node_selector_terms[0]
                            .match_fields
                            .clone(),
                    }],
                }),
                vec![
                    res(REQ0, DRIVER_A, POOL1, DEVICE1, false),
                    res(REQ0, DRIVER_A, POOL2, DEVICE1, false),
                    res(REQ0, DRIVER_A, POOL3, DEVICE1, false),
                    res(REQ0, DRIVER_A, POOL4, DEVICE1, false),
                ],
            )]),
            ..Case::default()
        },
        Case {
            name: "local-and-network-attached-devices",
            claims: vec![claim(CLAIM0, &[], vec![request(REQ0, CLASS_A, 2, &[])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                one_device(
                    SLICE1,
                    At::Selector(label_selector("region", &[REGION1])),
                    POOL1,
                    DRIVER_A,
                ),
                one_device(SLICE1, At::Node(NODE1), POOL2, DRIVER_A),
            ],
            expect: Expect::Results(vec![local(vec![
                res(REQ0, DRIVER_A, POOL1, DEVICE1, false),
                res(REQ0, DRIVER_A, POOL2, DEVICE1, false),
            ])]),
            ..Case::default()
        },
        Case {
            name: "several-different-drivers",
            claims: vec![
                simple_claim(CLAIM0, REQ0, CLASS_A),
                simple_claim(CLAIM0, REQ0, CLASS_B),
            ],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![
                slice(
                    SLICE1,
                    At::Node(NODE1),
                    POOL1,
                    DRIVER_A,
                    vec![device(DEVICE1), device(DEVICE2)],
                ),
                one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_B),
            ],
            expect: Expect::Results(vec![
                local(vec![res(REQ0, DRIVER_A, POOL1, DEVICE1, false)]),
                local(vec![res(REQ0, DRIVER_B, POOL1, DEVICE1, false)]),
            ]),
            ..Case::default()
        },
        Case {
            name: "already-allocated-devices",
            claims: vec![simple_claim(CLAIM0, REQ0, CLASS_A)],
            allocated: vec![(DRIVER_A, POOL1, DEVICE1), (DRIVER_A, POOL1, DEVICE2)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "admin-access-disabled",
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![admin(request(REQ0, CLASS_A, 1, &[]))],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Error(
                "claim claim-0, request req-0: admin access is requested, but the feature is disabled",
            ),
            ..Case::default()
        },
        Case {
            name: "admin-access-enabled",
            features: Features {
                admin_access: true,
                ..Features::default()
            },
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![admin(request(REQ0, CLASS_A, 1, &[]))],
            )],
            allocated: vec![(DRIVER_A, POOL1, DEVICE1), (DRIVER_A, POOL1, DEVICE2)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Results(vec![local(vec![res(REQ0, DRIVER_A, POOL1, DEVICE1, true)])]),
            ..Case::default()
        },
        Case {
            name: "with-constraint",
            claims: vec![claim(
                CLAIM0,
                &[
                    (&[], &int_attr),
                    (&[], &version_attr),
                    (&[], &string_attr),
                    (&[], &bool_attr),
                ],
                vec![
                    request(REQ0, CLASS_A, 1, &[]),
                    request(REQ1, CLASS_A, 1, &[]),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![
                    full(DEVICE1, 1, "1.0.0", "stringAttributeValue", true),
                    full(DEVICE2, 1, "1.0.0", "stringAttributeValue", true),
                ],
            )],
            expect: Expect::Results(vec![local(vec![
                res(REQ0, DRIVER_A, POOL1, DEVICE1, false),
                res(REQ1, DRIVER_A, POOL1, DEVICE2, false),
            ])]),
            ..Case::default()
        },
        Case {
            name: "with-constraint-non-existent-attribute",
            claims: vec![claim(
                CLAIM0,
                &[(&[], "driver-a/NonExistentAttribute")],
                vec![request(REQ0, CLASS_A, 1, &[])],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "with-constraint-not-matching-int-attribute",
            claims: vec![claim(
                CLAIM0,
                &[(&[], &int_attr)],
                vec![request(REQ0, CLASS_A, 2, &[])],
            )],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: two_numa(),
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "with-constraint-not-matching-int-attribute-all-devices",
            claims: vec![claim(
                CLAIM0,
                &[(&[], &int_attr)],
                vec![all_request(REQ0, CLASS_A)],
            )],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: two_numa(),
            expect: Expect::Error(
                "claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim constraint would not be satisfied",
            ),
            ..Case::default()
        },
        Case {
            name: "with-constraint-not-matching-string-attribute",
            claims: vec![claim(
                CLAIM0,
                &[(&[], &string_attr)],
                vec![request(REQ0, CLASS_A, 2, &[])],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![
                    with_attr(
                        device(DEVICE1),
                        "stringAttribute",
                        AttributeValue::String("stringAttributeValue".into()),
                    ),
                    with_attr(
                        device(DEVICE2),
                        "stringAttribute",
                        AttributeValue::String("stringAttributeValue2".into()),
                    ),
                ],
            )],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "with-constraint-not-matching-bool-attribute",
            claims: vec![claim(
                CLAIM0,
                &[(&[], &bool_attr)],
                vec![request(REQ0, CLASS_A, 2, &[])],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![
                    with_attr(device(DEVICE1), "boolAttribute", AttributeValue::Bool(true)),
                    with_attr(
                        device(DEVICE2),
                        "boolAttribute",
                        AttributeValue::Bool(false),
                    ),
                ],
            )],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "with-constraint-not-matching-version-attribute",
            claims: vec![claim(
                CLAIM0,
                &[(&[], &version_attr)],
                vec![request(REQ0, CLASS_A, 2, &[])],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![
                    with_attr(device(DEVICE1), "driverVersion", version("1.0.0")),
                    with_attr(device(DEVICE2), "driverVersion", version("2.0.0")),
                ],
            )],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "with-constraint-for-request",
            claims: vec![claim(
                CLAIM0,
                &[(&[REQ0], &version_attr)],
                vec![
                    request(REQ0, CLASS_A, 1, &[]),
                    request(REQ1, CLASS_A, 1, &[]),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![
                    with_attr(device(DEVICE1), "driverVersion", version("1.0.0")),
                    with_attr(device(DEVICE2), "driverVersion", version("2.0.0")),
                ],
            )],
            expect: Expect::Results(vec![local(vec![
                res(REQ0, DRIVER_A, POOL1, DEVICE1, false),
                res(REQ1, DRIVER_A, POOL1, DEVICE2, false),
            ])]),
            ..Case::default()
        },
        Case {
            name: "with-constraint-for-request-retry",
            claims: vec![claim(
                CLAIM0,
                &[(&[REQ0], &version_attr), (&[], &string_attr)],
                vec![
                    request(REQ0, CLASS_A, 1, &[]),
                    request(REQ1, CLASS_A, 1, &[]),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![
                    with_attr(
                        with_attr(device(DEVICE1), "driverVersion", version("1.0.0")),
                        "stringAttribute",
                        AttributeValue::String("a".into()),
                    ),
                    with_attr(
                        with_attr(device(DEVICE2), "driverVersion", version("2.0.0")),
                        "stringAttribute",
                        AttributeValue::String("b".into()),
                    ),
                    with_attr(
                        with_attr(device(DEVICE3), "driverVersion", version("3.0.0")),
                        "stringAttribute",
                        AttributeValue::String("b".into()),
                    ),
                ],
            )],
            expect: Expect::Results(vec![local(vec![
                res(REQ0, DRIVER_A, POOL1, DEVICE2, false),
                res(REQ1, DRIVER_A, POOL1, DEVICE3, false),
            ])]),
            ..Case::default()
        },
        Case {
            name: "unknown-selector",
            claims: vec![{
                let mut c = simple_claim(CLAIM0, REQ0, CLASS_A);
                if let RequestKind::Exactly(e) = &mut c.requests[0].kind {
                    e.spec.selectors = vec![DeviceSelector { cel: None }];
                }
                c
            }],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Error("CEL expression empty (unsupported selector type?)"),
            ..Case::default()
        },
        Case {
            name: "unknown-allocation-mode",
            claims: vec![{
                let mut c = simple_claim(CLAIM0, REQ0, CLASS_A);
                set_mode(
                    &mut c.requests[0],
                    AllocationMode::Other("future-mode".into()),
                );
                c
            }],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Error("unsupported count mode future-mode"),
            ..Case::default()
        },
        Case {
            name: "unknown-constraint",
            claims: vec![{
                let mut c = simple_claim(CLAIM0, REQ0, CLASS_A);
                c.constraints = vec![DeviceConstraint {
                    requests: vec![],
                    match_attribute: None,
                }];
                c
            }],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Error("empty constraint (unsupported constraint type?)"),
            ..Case::default()
        },
        Case {
            name: "invalid-CEL-one-device",
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![request(REQ0, CLASS_A, 1, &["noSuchVar"])],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Error("undeclared reference"),
            ..Case::default()
        },
        Case {
            name: "invalid-CEL-one-device-class",
            claims: vec![simple_claim(CLAIM0, REQ0, CLASS_A)],
            classes: vec![DeviceClass {
                name: CLASS_A.into(),
                selectors: vec![DeviceSelector::cel("noSuchVar")],
            }],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Error("undeclared reference"),
            ..Case::default()
        },
        Case {
            name: "invalid-CEL-all-devices",
            claims: vec![{
                let mut r = request(REQ0, CLASS_A, 1, &["noSuchVar"]);
                set_mode(&mut r, AllocationMode::All);
                claim(CLAIM0, &[], vec![r])
            }],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Error("undeclared reference"),
            ..Case::default()
        },
        Case {
            name: "too-many-devices-single-request",
            claims: vec![claim(CLAIM0, &[], vec![request(REQ0, CLASS_A, 500, &[])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            expect: Expect::Error("exceeds the claim limit"),
            ..Case::default()
        },
        Case {
            name: "many-devices-okay",
            claims: vec![claim(CLAIM0, &[], vec![request(REQ0, CLASS_A, 32, &[])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "too-many-devices-total",
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![
                    request(REQ0, CLASS_A, 32, &[]),
                    request(REQ1, CLASS_A, 1, &[]),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![many_devices(SLICE1, At::Node(NODE1), POOL1, DRIVER_A, 33)],
            expect: Expect::Error("exceeds the claim limit"),
            ..Case::default()
        },
        Case {
            name: "prioritized-list-first-unavailable",
            features: prioritized,
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![first_available(
                    REQ0,
                    vec![sub(SUB0, CLASS_B, 1, &[]), sub(SUB1, CLASS_A, 1, &[])],
                )],
            )],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Results(vec![local(vec![res(
                "req-0/subReq-1",
                DRIVER_A,
                POOL1,
                DEVICE1,
                false,
            )])]),
            ..Case::default()
        },
        Case {
            name: "prioritized-list-non-available",
            features: prioritized,
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![first_available(
                    REQ0,
                    vec![sub(SUB0, CLASS_B, 2, &[]), sub(SUB1, CLASS_A, 2, &[])],
                )],
            )],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![
                one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A),
                one_device(SLICE2, At::Node(NODE1), POOL2, DRIVER_B),
            ],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "prioritized-list-subrequests-with-expressions",
            features: prioritized,
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![
                    request(REQ0, CLASS_A, 1, &[&memory_at_least("1Gi")]),
                    first_available(
                        REQ1,
                        vec![
                            sub(SUB0, CLASS_A, 1, &[&memory_at_least("4Gi")]),
                            sub(SUB1, CLASS_A, 2, &[&memory_at_least("2Gi")]),
                        ],
                    ),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![
                    with_memory(device(DEVICE1), "2Gi"),
                    with_memory(device(DEVICE2), "2Gi"),
                    with_memory(device(DEVICE3), "1Gi"),
                ],
            )],
            expect: Expect::Results(vec![local(vec![
                res(REQ0, DRIVER_A, POOL1, DEVICE3, false),
                res("req-1/subReq-1", DRIVER_A, POOL1, DEVICE1, false),
                res("req-1/subReq-1", DRIVER_A, POOL1, DEVICE2, false),
            ])]),
            ..Case::default()
        },
        Case {
            name: "prioritized-list-subrequests-with-constraints-ref-parent-request",
            features: prioritized,
            claims: vec![claim(
                CLAIM0,
                &[(&[REQ0, REQ1], &version_attr)],
                vec![
                    request(REQ0, CLASS_A, 1, &[&memory_at_least("8Gi")]),
                    first_available(
                        REQ1,
                        vec![
                            sub(SUB0, CLASS_A, 1, &[&memory_at_least("2Gi")]),
                            sub(SUB1, CLASS_A, 1, &[&memory_at_least("1Gi")]),
                        ],
                    ),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice(
                    SLICE1,
                    At::Node(NODE1),
                    POOL1,
                    DRIVER_A,
                    vec![with_attr(
                        with_memory(device(DEVICE1), "8Gi"),
                        "driverVersion",
                        version("1.0.0"),
                    )],
                ),
                slice(
                    SLICE2,
                    At::Node(NODE1),
                    POOL2,
                    DRIVER_A,
                    vec![
                        with_attr(
                            with_memory(device(DEVICE2), "2Gi"),
                            "driverVersion",
                            version("2.0.0"),
                        ),
                        with_attr(
                            with_memory(device(DEVICE3), "1Gi"),
                            "driverVersion",
                            version("1.0.0"),
                        ),
                    ],
                ),
            ],
            expect: Expect::Results(vec![local(vec![
                res(REQ0, DRIVER_A, POOL1, DEVICE1, false),
                res("req-1/subReq-1", DRIVER_A, POOL2, DEVICE3, false),
            ])]),
            ..Case::default()
        },
        Case {
            name: "prioritized-list-subrequests-with-constraints-ref-sub-request",
            features: prioritized,
            claims: vec![claim(
                CLAIM0,
                &[(&[REQ0, "req-1/subReq-0"], &version_attr)],
                vec![
                    request(REQ0, CLASS_A, 1, &[&memory_at_least("8Gi")]),
                    first_available(
                        REQ1,
                        vec![
                            sub(SUB0, CLASS_A, 1, &[&memory_at_least("2Gi")]),
                            sub(SUB1, CLASS_A, 1, &[&memory_at_least("1Gi")]),
                        ],
                    ),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice(
                    SLICE1,
                    At::Node(NODE1),
                    POOL1,
                    DRIVER_A,
                    vec![with_attr(
                        with_memory(device(DEVICE1), "8Gi"),
                        "driverVersion",
                        version("1.0.0"),
                    )],
                ),
                slice(
                    SLICE2,
                    At::Node(NODE1),
                    POOL2,
                    DRIVER_A,
                    vec![with_attr(
                        with_memory(device(DEVICE2), "2Gi"),
                        "driverVersion",
                        version("2.0.0"),
                    )],
                ),
            ],
            expect: Expect::Results(vec![local(vec![
                res(REQ0, DRIVER_A, POOL1, DEVICE1, false),
                res("req-1/subReq-1", DRIVER_A, POOL2, DEVICE2, false),
            ])]),
            ..Case::default()
        },
        Case {
            name: "prioritized-list-subrequests-with-allocation-mode-all",
            features: prioritized,
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![first_available(
                    REQ0,
                    vec![sub_all(SUB0, CLASS_A), sub(SUB1, CLASS_A, 1, &[])],
                )],
            )],
            allocated: vec![(DRIVER_A, POOL1, DEVICE1)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![device(DEVICE1), device(DEVICE2)],
            )],
            expect: Expect::Results(vec![local(vec![res(
                "req-0/subReq-1",
                DRIVER_A,
                POOL1,
                DEVICE2,
                false,
            )])]),
            ..Case::default()
        },
        Case {
            name: "prioritized-list-allocation-mode-all-multiple-requests",
            features: prioritized,
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![
                    request(REQ0, CLASS_A, 1, &[]),
                    first_available(
                        REQ1,
                        vec![sub_all(SUB0, CLASS_A), sub(SUB1, CLASS_A, 1, &[])],
                    ),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![device(DEVICE1), device(DEVICE2)],
            )],
            expect: Expect::Results(vec![local(vec![
                res(REQ0, DRIVER_A, POOL1, DEVICE1, false),
                res("req-1/subReq-1", DRIVER_A, POOL1, DEVICE2, false),
            ])]),
            ..Case::default()
        },
        Case {
            name: "prioritized-list-disabled",
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![first_available(REQ0, vec![sub(SUB0, CLASS_A, 1, &[])])],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Error(
                "claim claim-0, request req-0: has subrequests, but the DRAPrioritizedList feature is disabled",
            ),
            ..Case::default()
        },
        Case {
            name: "tainted-two-devices",
            features: taints,
            claims: vec![simple_claim(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![
                    with_taints(device(DEVICE1), std::slice::from_ref(&taint_no_schedule)),
                    with_taints(device(DEVICE2), std::slice::from_ref(&taint_no_execute)),
                ],
            )],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "tainted-one-device-two-taints",
            features: taints,
            claims: vec![simple_claim(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![with_taints(
                    device(DEVICE1),
                    &[taint_no_schedule.clone(), taint_no_execute.clone()],
                )],
            )],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "tainted-two-devices-tolerated",
            features: taints,
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![tolerate(
                    request(REQ0, CLASS_A, 1, &[]),
                    std::slice::from_ref(&toleration_no_execute),
                )],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![
                    with_taints(device(DEVICE1), std::slice::from_ref(&taint_no_schedule)),
                    with_taints(device(DEVICE2), std::slice::from_ref(&taint_no_execute)),
                ],
            )],
            expect: Expect::Results(vec![local(vec![res(
                REQ0, DRIVER_A, POOL1, DEVICE2, false,
            )])]),
            ..Case::default()
        },
        Case {
            name: "tainted-two-devices-prioritized-list-tolerated",
            features: Features {
                device_taints: true,
                prioritized_list: true,
                ..Features::default()
            },
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![first_available(
                    REQ0,
                    vec![sub(SUB0, CLASS_A, 1, &[]), {
                        let mut s = sub(SUB1, CLASS_A, 1, &[]);
                        s.spec.tolerations = vec![toleration_no_execute.clone()];
                        s
                    }],
                )],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![
                    with_taints(device(DEVICE1), std::slice::from_ref(&taint_no_schedule)),
                    with_taints(device(DEVICE2), std::slice::from_ref(&taint_no_execute)),
                ],
            )],
            expect: Expect::Results(vec![local(vec![res(
                "req-0/subReq-1",
                DRIVER_A,
                POOL1,
                DEVICE2,
                false,
            )])]),
            ..Case::default()
        },
        Case {
            name: "tainted-no-effect",
            features: taints,
            claims: vec![simple_claim(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![with_taints(device(DEVICE1), &[taint_none])],
            )],
            expect: Expect::Results(vec![local(vec![res(
                REQ0, DRIVER_A, POOL1, DEVICE1, false,
            )])]),
            ..Case::default()
        },
        Case {
            name: "tainted-one-device-two-taints-both-tolerated",
            features: taints,
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![tolerate(
                    request(REQ0, CLASS_A, 1, &[]),
                    &[
                        toleration_no_schedule.clone(),
                        toleration_no_execute.clone(),
                    ],
                )],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![with_taints(
                    device(DEVICE1),
                    &[taint_no_schedule.clone(), taint_no_execute.clone()],
                )],
            )],
            expect: Expect::Results(vec![local(vec![res(
                REQ0, DRIVER_A, POOL1, DEVICE1, false,
            )])]),
            ..Case::default()
        },
        Case {
            name: "tainted-disabled",
            claims: vec![simple_claim(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![with_taints(
                    device(DEVICE1),
                    &[taint_no_schedule.clone(), taint_no_execute.clone()],
                )],
            )],
            expect: Expect::Results(vec![local(vec![res(
                REQ0, DRIVER_A, POOL1, DEVICE1, false,
            )])]),
            ..Case::default()
        },
        Case {
            name: "tainted-prioritized-list",
            features: Features {
                device_taints: true,
                prioritized_list: true,
                ..Features::default()
            },
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![first_available(
                    REQ0,
                    vec![sub(SUB0, CLASS_B, 1, &[]), sub(SUB1, CLASS_A, 1, &[])],
                )],
            )],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![with_taints(
                    device(DEVICE1),
                    std::slice::from_ref(&taint_no_schedule),
                )],
            )],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "tainted-admin-access",
            features: Features {
                device_taints: true,
                admin_access: true,
                ..Features::default()
            },
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![admin(request(REQ0, CLASS_A, 1, &[]))],
            )],
            allocated: vec![(DRIVER_A, POOL1, DEVICE1), (DRIVER_A, POOL1, DEVICE2)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![with_taints(
                    device(DEVICE1),
                    std::slice::from_ref(&taint_no_schedule),
                )],
            )],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "tainted-all-devices-single",
            features: taints,
            claims: vec![claim(CLAIM0, &[], vec![all_request(REQ0, CLASS_A)])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                At::Node(NODE1),
                POOL1,
                DRIVER_A,
                vec![with_taints(
                    device(DEVICE1),
                    std::slice::from_ref(&taint_no_schedule),
                )],
            )],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "prioritized-list-too-many-in-first-subrequest",
            features: prioritized,
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![first_available(
                    REQ0,
                    vec![sub(SUB0, CLASS_B, 500, &[]), sub(SUB1, CLASS_A, 1, &[])],
                )],
            )],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![one_device(SLICE1, At::Node(NODE1), POOL1, DRIVER_A)],
            expect: Expect::Results(vec![local(vec![res(
                "req-0/subReq-1",
                DRIVER_A,
                POOL1,
                DEVICE1,
                false,
            )])]),
            ..Case::default()
        },
        Case {
            name: "prioritized-list-max-allocation-limit-request",
            features: prioritized,
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![
                    first_available(
                        REQ0,
                        vec![sub(SUB0, CLASS_A, 32, &[]), sub(SUB1, CLASS_A, 16, &[])],
                    ),
                    first_available(
                        REQ1,
                        vec![sub(SUB0, CLASS_A, 32, &[]), sub(SUB1, CLASS_A, 16, &[])],
                    ),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![many_devices(SLICE1, At::Node(NODE1), POOL1, DRIVER_A, 64)],
            expect: Expect::Results(vec![local(
                (0..16)
                    .map(|i| {
                        res(
                            "req-0/subReq-1",
                            DRIVER_A,
                            POOL1,
                            &format!("device-{i}"),
                            false,
                        )
                    })
                    .chain((16..32).map(|i| {
                        res(
                            "req-1/subReq-1",
                            DRIVER_A,
                            POOL1,
                            &format!("device-{i}"),
                            false,
                        )
                    }))
                    .collect(),
            )]),
            steps: Some(75),
            ..Case::default()
        },
        Case {
            name: "prioritized-list-max-allocation-allocation-mode-all",
            features: prioritized,
            claims: vec![claim(
                CLAIM0,
                &[],
                vec![
                    first_available(
                        REQ0,
                        vec![sub_all(SUB0, CLASS_A), sub(SUB1, CLASS_A, 2, &[])],
                    ),
                    request(REQ1, CLASS_B, 2, &[]),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![
                many_devices(SLICE1, At::Node(NODE1), POOL1, DRIVER_A, 31),
                many_devices(SLICE2, At::Node(NODE1), POOL2, DRIVER_B, 2),
            ],
            expect: Expect::Results(vec![local(vec![
                res("req-0/subReq-1", DRIVER_A, POOL1, DEVICE0, false),
                res("req-0/subReq-1", DRIVER_A, POOL1, DEVICE1, false),
                res(REQ1, DRIVER_B, POOL2, DEVICE0, false),
                res(REQ1, DRIVER_B, POOL2, DEVICE1, false),
            ])]),
            steps: Some(42),
            ..Case::default()
        },
        Case {
            name: "no-allocation-from-incomplete-pools",
            claims: vec![claim(CLAIM0, &[], vec![request(REQ0, CLASS_A, 1, &[])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_in(
                SLICE1,
                At::Node(NODE1),
                pool(POOL1, 2),
                DRIVER_A,
                vec![device(DEVICE1)],
            )],
            expect: Expect::Nothing,
            ..Case::default()
        },
        Case {
            name: "max-number-devices",
            claims: vec![claim(CLAIM0, &[], vec![all_request(REQ0, CLASS_A)])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![many_devices(SLICE1, At::Node(NODE1), POOL1, DRIVER_A, 32)],
            expect: Expect::Results(vec![local(
                (0..32)
                    .map(|i| res(REQ0, DRIVER_A, POOL1, &format!("device-{i}"), false))
                    .collect(),
            )]),
            ..Case::default()
        },
        Case {
            name: "invalid-pool-with-allocated-elsewhere",
            claims: vec![claim(CLAIM0, &[], vec![request(REQ0, CLASS_A, 1, &[])])],
            allocated: vec![(DRIVER_A, POOL2, DEVICE2)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice_in(
                    SLICE1,
                    At::Node(NODE1),
                    pool(POOL1, 2),
                    DRIVER_A,
                    vec![device(DEVICE1)],
                ),
                slice_in(
                    SLICE2,
                    At::Node(NODE1),
                    pool(POOL1, 2),
                    DRIVER_A,
                    vec![device(DEVICE1)],
                ),
                slice_in(
                    "slice-3",
                    At::Node(NODE1),
                    pool(POOL2, 1),
                    DRIVER_A,
                    vec![device(DEVICE2)],
                ),
            ],
            expect: Expect::FailedOnNode("invalid resource pools were encountered"),
            ..Case::default()
        },
    ]
}

#[test]
fn upstream_allocator_table() {
    let cases = cases();
    assert!(cases.len() > 70, "the table shrank to {}", cases.len());
    for case in &cases {
        check(case);
    }
}

/// A GPU class that also wants the a100 model, for the diagnosis tests.
fn a100_class() -> DeviceClass {
    DeviceClass {
        name: "gpu-a100".into(),
        selectors: vec![
            DeviceSelector::cel(r#"device.driver == "gpu.example.com""#),
            DeviceSelector::cel(r#"device.attributes["gpu.example.com"].model == "a100""#),
        ],
    }
}

fn gpu(name: &str, model: &str, numa: i64) -> Device {
    let d = with_attr(device(name), "model", AttributeValue::String(model.into()));
    with_attr(d, "numa", AttributeValue::Int(numa))
}

fn diagnose(
    features: Features,
    allocated: &AllocatedDevices,
    classes: &[DeviceClass],
    slices: &[ResourceSlice],
    claims: &[ResourceClaim],
) -> (Outcome, Diagnosis) {
    let cache = Cache::new(cel::Features::default());
    let allocator = Allocator::new(features, allocated, classes, slices, &cache);
    let node_labels = labels(REGION1);
    let node = NodeRef {
        name: NODE1,
        labels: &node_labels,
    };
    let claims: Vec<&ResourceClaim> = claims.iter().collect();
    (
        allocator.allocate(node, &claims, Budget::default()),
        allocator.diagnose(node, &claims, Budget::default()),
    )
}

#[test]
fn diagnosis_names_each_candidates_refusal() {
    let slices = vec![slice(
        SLICE1,
        At::Node(NODE1),
        NODE1,
        "gpu.example.com",
        vec![
            gpu("gpu-0", "a100", 0),
            gpu("gpu-1", "t4", 0),
            with_taints(gpu("gpu-2", "a100", 0), &[taint("bad", "NoSchedule")]),
            gpu("gpu-3", "a100", 0),
        ],
    )];
    let mut held = ResourceClaim {
        namespace: "team".into(),
        name: "training".into(),
        ..ResourceClaim::default()
    };
    held.allocation = Some(crate::scheduler::dra::types::AllocationResult {
        devices: vec![
            AllocatedDevice {
                request: "gpu".into(),
                driver: "gpu.example.com".into(),
                pool: NODE1.into(),
                device: "gpu-0".into(),
                admin_access: None,
            },
            // Admin access does not hold a device.
            AllocatedDevice {
                request: "gpu".into(),
                driver: "gpu.example.com".into(),
                pool: NODE1.into(),
                device: "gpu-3".into(),
                admin_access: Some(true),
            },
        ],
        node_selector: None,
    });
    let allocated = AllocatedDevices::from_claims([&held]);
    assert_eq!(
        allocated.holders(&DeviceId::new("gpu.example.com", NODE1, "gpu-0")),
        ["team/training"]
    );
    assert!(!allocated.contains(&DeviceId::new("gpu.example.com", NODE1, "gpu-3")));

    let claims = vec![ResourceClaim {
        namespace: "default".into(),
        ..claim(
            "pod-gpu-x7k2p",
            &[],
            vec![request("gpu", "gpu-a100", 2, &[])],
        )
    }];
    let features = Features {
        device_taints: true,
        ..Features::V1_35_DEFAULTS
    };
    let (outcome, diagnosis) = diagnose(features, &allocated, &[a100_class()], &slices, &claims);
    assert_eq!(outcome, Outcome::Unsatisfiable);
    let Diagnosis::RequestsShort { claim, requests } = diagnosis else {
        panic!("{diagnosis:?}");
    };
    assert_eq!(claim, "default/pod-gpu-x7k2p");
    let [request] = requests.as_slice() else {
        panic!("{requests:?}");
    };
    assert_eq!(
        (request.request.as_str(), request.wanted, request.usable()),
        ("gpu", 2, 1)
    );
    let refusals: Vec<(&str, Option<&Refusal>)> = request
        .candidates
        .iter()
        .map(|c| (c.device.device.as_str(), c.refusal.as_ref()))
        .collect();
    assert_eq!(
        refusals,
        [
            (
                "gpu-0",
                Some(&Refusal::InUse {
                    claims: vec!["team/training".into()]
                })
            ),
            (
                "gpu-1",
                Some(&Refusal::ClassSelector {
                    class: "gpu-a100".into(),
                    index: 1,
                    expression: r#"device.attributes["gpu.example.com"].model == "a100""#.into(),
                    values: vec![("gpu.example.com/model".into(), Some("\"t4\"".into()))],
                })
            ),
            (
                "gpu-2",
                Some(&Refusal::Tainted {
                    key: "taint-key".into(),
                    value: "bad".into(),
                    effect: "NoSchedule".into()
                })
            ),
            ("gpu-3", None),
        ]
    );
}

#[test]
fn diagnosis_tells_constraints_from_contention() {
    let slices = vec![slice(
        SLICE1,
        At::Node(NODE1),
        NODE1,
        "gpu.example.com",
        vec![gpu("gpu-0", "a100", 0), gpu("gpu-1", "t4", 1)],
    )];
    let classes = vec![class("gpu", "gpu.example.com")];
    let model = |m: &str| format!(r#"device.attributes["gpu.example.com"].model == "{m}""#);
    // Each request has its device, but they sit on different NUMA nodes.
    let apart = vec![claim(
        CLAIM0,
        &[(&[], "gpu.example.com/numa")],
        vec![
            request(REQ0, "gpu", 1, &[&model("a100")]),
            request(REQ1, "gpu", 1, &[&model("t4")]),
        ],
    )];
    let none = AllocatedDevices::default();
    let (outcome, diagnosis) = diagnose(Features::V1_35_DEFAULTS, &none, &classes, &slices, &apart);
    assert_eq!(outcome, Outcome::Unsatisfiable);
    assert_eq!(
        diagnosis,
        Diagnosis::Constraint {
            constraints: vec![("claim-0".into(), 0, "gpu.example.com/numa".into())]
        }
    );
    // Two claims want the one a100.
    let competing = vec![
        claim(
            CLAIM0,
            &[],
            vec![request(REQ0, "gpu", 1, &[&model("a100")])],
        ),
        claim(
            CLAIM1,
            &[],
            vec![request(REQ0, "gpu", 1, &[&model("a100")])],
        ),
    ];
    let (outcome, diagnosis) = diagnose(
        Features::V1_35_DEFAULTS,
        &none,
        &classes,
        &slices,
        &competing,
    );
    assert_eq!(outcome, Outcome::Unsatisfiable);
    assert_eq!(diagnosis, Diagnosis::Contention);
}

#[test]
fn the_budget_bounds_the_search() {
    // Upstream's "interrupt" case: six devices wanted, five there; the search tries every
    // order before giving up.
    let case = Case {
        name: "interrupt",
        claims: vec![claim(CLAIM0, &[], vec![request(REQ0, CLASS_A, 6, &[])])],
        classes: vec![class(CLASS_A, DRIVER_A)],
        slices: vec![many_devices(SLICE1, At::Node(NODE1), POOL1, DRIVER_A, 5)],
        ..Case::default()
    };
    let (outcome, steps) = run(&case);
    assert_eq!(outcome, Outcome::Unsatisfiable);
    // 1 + 5 + 5*4 + 5*4*3 + 5*4*3*2 + 5*4*3*2*1 calls: every partial order of the devices.
    assert_eq!(steps, 1 + 5 + 20 + 60 + 120 + 120);

    let allocated = AllocatedDevices::default();
    let cache = Cache::new(cel::Features::default());
    let allocator = Allocator::new(
        case.features,
        &allocated,
        &case.classes,
        &case.slices,
        &cache,
    );
    let node_labels = labels(REGION1);
    let claims: Vec<&ResourceClaim> = case.claims.iter().collect();
    let node = NodeRef {
        name: NODE1,
        labels: &node_labels,
    };
    assert_eq!(
        allocator.allocate(node, &claims, Budget { max_steps: 100 }),
        Outcome::TimedOut { steps: 101 }
    );
    assert_eq!(
        allocator.diagnose(node, &claims, Budget { max_steps: 100 }),
        Diagnosis::RequestsShort {
            claim: CLAIM0.into(),
            requests: vec![RequestDiagnosis {
                request: REQ0.into(),
                class: CLASS_A.into(),
                wanted: 6,
                all: false,
                candidates: (0..5)
                    .map(|i| Candidate {
                        device: DeviceId::new(DRIVER_A, POOL1, &format!("device-{i}")),
                        refusal: None,
                    })
                    .collect(),
            }],
        }
    );
}

#[test]
fn unsupported_features_are_named() {
    assert!(Features::V1_35_DEFAULTS.unsupported().is_empty());
    let all = Features {
        partitionable_devices: true,
        device_binding_and_status: true,
        consumable_capacity: true,
        ..Features::V1_35_DEFAULTS
    };
    assert_eq!(
        all.unsupported(),
        [
            "DRAPartitionableDevices",
            "DRADeviceBindingConditions",
            "DRAConsumableCapacity"
        ]
    );
}
