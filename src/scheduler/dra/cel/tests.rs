use super::*;

fn attrs(list: &[(&str, AttributeValue)]) -> BTreeMap<String, AttributeValue> {
    list.iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

fn caps(list: &[(&str, &str)]) -> BTreeMap<String, Quantity> {
    list.iter()
        .map(|(k, v)| ((*k).to_owned(), Quantity::parse(v).expect("quantity")))
        .collect()
}

struct Gpu {
    attributes: BTreeMap<String, AttributeValue>,
    capacity: BTreeMap<String, Quantity>,
}

impl Gpu {
    fn new(model: &str, version: &str, memory: &str) -> Gpu {
        Gpu {
            attributes: attrs(&[
                ("model", AttributeValue::String(model.into())),
                ("driverVersion", AttributeValue::Version(version.into())),
                ("numa", AttributeValue::Int(1)),
                ("rdma", AttributeValue::Bool(true)),
                (
                    "resource.kubernetes.io/pcieRoot",
                    AttributeValue::String("pci0".into()),
                ),
            ]),
            capacity: caps(&[("memory", memory), ("cores", "108")]),
        }
    }

    fn input(&self) -> DeviceInput<'_> {
        DeviceInput {
            driver: "gpu.example.com",
            attributes: &self.attributes,
            capacity: &self.capacity,
            allow_multiple_allocations: None,
        }
    }
}

fn eval(expr: &str, gpu: &Gpu) -> Result<bool, String> {
    let env = Environment::new(Features::default());
    let compiled = env.compile(expr);
    if let Some(e) = compiled.error() {
        return Err(format!("compile: {e}"));
    }
    env.device_matches(&compiled, &gpu.input())
        .map_err(|e| e.to_string())
}

fn compile_error(expr: &str) -> String {
    Environment::new(Features::default())
        .compile(expr)
        .error()
        .map(ToString::to_string)
        .unwrap_or_else(|| panic!("{expr} compiles"))
}

#[test]
fn driver_attributes_and_domains() {
    let gpu = Gpu::new("a100", "1.10.0", "40Gi");
    let cases = [
        (r#"device.driver == "gpu.example.com""#, true),
        (r#"device.driver == "nic.example.com""#, false),
        (
            r#"device.attributes["gpu.example.com"].model == "a100""#,
            true,
        ),
        (
            r#"device.attributes["gpu.example.com"]["model"] == "a100""#,
            true,
        ),
        (r#"device.attributes["gpu.example.com"].numa >= 1"#, true),
        (r#"device.attributes["gpu.example.com"].rdma"#, true),
        // A qualified name keeps its own domain, not the driver's.
        (
            r#"device.attributes["resource.kubernetes.io"].pcieRoot == "pci0""#,
            true,
        ),
        (
            r#""pcieRoot" in device.attributes["gpu.example.com"]"#,
            false,
        ),
        (r#"has(device.attributes["gpu.example.com"].model)"#, true),
        (
            r#"has(device.attributes["other.example.com"].model)"#,
            false,
        ),
        (r#""gpu.example.com" in device.attributes"#, true),
        (r#""other.example.com" in device.attributes"#, false),
        (
            r#"cel.bind(g, device.attributes["gpu.example.com"], g.model == "a100" && g.numa == 1)"#,
            true,
        ),
        (
            r#"device.attributes["gpu.example.com"].model.startsWith("a1")"#,
            true,
        ),
        (
            r#"device.attributes["gpu.example.com"].model in ["h100", "a100"]"#,
            true,
        ),
        // Heterogeneous equality at runtime: an int is never equal to a string.
        (r#"device.attributes["gpu.example.com"].numa == "1""#, false),
    ];
    for (expr, want) in cases {
        assert_eq!(eval(expr, &gpu), Ok(want), "{expr}");
    }
}

#[test]
fn quantity_functions() {
    let gpu = Gpu::new("a100", "1.10.0", "40Gi");
    let small = Gpu::new("t4", "1.10.0", "16Gi");
    let mebi = Gpu::new("a100", "1.10.0", "40960Mi");
    let cases = [
        (
            r#"device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0"#,
            [true, false, true],
        ),
        (
            r#"device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) == 0"#,
            [true, false, true],
        ),
        (
            r#"device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("20Gi"))"#,
            [true, false, true],
        ),
        (
            r#"device.capacity["gpu.example.com"].memory.isLessThan(quantity("20G"))"#,
            [false, true, false],
        ),
        (
            r#"device.capacity["gpu.example.com"].memory == quantity("40Gi")"#,
            [true, false, true],
        ),
        (
            r#"device.capacity["gpu.example.com"].memory.asInteger() == 42949672960"#,
            [true, false, true],
        ),
        (
            r#"device.capacity["gpu.example.com"].cores.add(2).asInteger() == 110"#,
            [true, true, true],
        ),
        (
            r#"device.capacity["gpu.example.com"].memory.sub(quantity("16Gi")).isInteger() && sign(device.capacity["gpu.example.com"].memory.sub(quantity("16Gi"))) == 0"#,
            [false, true, false],
        ),
        (
            r#"quantity("1.5").asApproximateFloat() == 1.5"#,
            [true, true, true],
        ),
        (
            r#"isQuantity("10Gi") && !isQuantity("ten")"#,
            [true, true, true],
        ),
    ];
    for (expr, want) in cases {
        for (device, want) in [&gpu, &small, &mebi].into_iter().zip(want) {
            assert_eq!(eval(expr, device), Ok(want), "{expr}");
        }
    }
    assert_eq!(
        eval(r#"quantity("1.5").asInteger() == 1"#, &gpu),
        Err("cannot convert value to integer".into())
    );
    assert_eq!(
        eval(r#"quantity("ten").sign() == 1"#, &gpu).map_err(|e| e.starts_with("compile")),
        Err(true),
        "sign is a global function"
    );
    assert_eq!(
        eval(r#"quantity("ten") == quantity("10")"#, &gpu),
        Err("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'".into())
    );
}

#[test]
fn semver_functions() {
    let cases = [
        ("1.10.0", true, 1),
        ("1.2.0", false, 0),
        ("1.2.0-rc.1", false, -1),
        ("2.0.0-rc.1", true, 1),
    ];
    for (version, newer, compare) in cases {
        let gpu = Gpu::new("a100", version, "40Gi");
        assert_eq!(
            eval(
                r#"device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.2.0"))"#,
                &gpu
            ),
            Ok(newer),
            "{version}"
        );
        assert_eq!(
            eval(
                &format!(
                    r#"device.attributes["gpu.example.com"].driverVersion.compareTo(semver("1.2.0")) == {compare}"#
                ),
                &gpu
            ),
            Ok(true),
            "{version}"
        );
        assert_eq!(
            eval(
                r#"device.attributes["gpu.example.com"].driverVersion.isLessThan(semver("1.2.0"))"#,
                &gpu
            ),
            Ok(compare < 0),
            "{version}"
        );
    }
    let gpu = Gpu::new("a100", "1.10.3", "40Gi");
    for expr in [
        r#"device.attributes["gpu.example.com"].driverVersion.major() == 1"#,
        r#"device.attributes["gpu.example.com"].driverVersion.minor() == 10"#,
        r#"device.attributes["gpu.example.com"].driverVersion.patch() == 3"#,
        r#"device.attributes["gpu.example.com"].driverVersion == semver("1.10.3+build.1")"#,
        r#"semver("v1.10", true) == semver("1.10.0")"#,
        r#"isSemver("1.0.0") && !isSemver("v1.0.0") && isSemver("v1.0", true)"#,
    ] {
        assert_eq!(eval(expr, &gpu), Ok(true), "{expr}");
    }
    assert_eq!(
        eval(r#"semver("1.0") == semver("1.0.0")"#, &gpu),
        Err("No Major.Minor.Patch elements found".into())
    );
}

#[test]
fn missing_attributes_are_runtime_errors_as_cel_go_words_them() {
    let gpu = Gpu::new("a100", "1.10.0", "40Gi");
    assert_eq!(
        eval(
            r#"device.attributes["gpu.example.com"].speedGbps >= 100"#,
            &gpu
        ),
        Err("no such key: speedGbps".into())
    );
    // A domain the device has nothing in is an empty map, so the missing key is the name.
    assert_eq!(
        eval(
            r#"device.attributes["nic.example.com"].speedGbps >= 100"#,
            &gpu
        ),
        Err("no such key: speedGbps".into())
    );
    assert_eq!(
        eval(
            r#"device.capacity["gpu.example.com"].power.isGreaterThan(quantity("1"))"#,
            &gpu
        ),
        Err("no such key: power".into())
    );
    // Guarding on the driver first (as the corpus' classes do) short-circuits the lookup.
    assert_eq!(
        eval(
            r#"device.driver == "nic.example.com" && device.attributes["nic.example.com"].speedGbps >= 100"#,
            &gpu
        ),
        Ok(false)
    );
    // A type mismatch only the runtime sees (attribute values are `any`).
    assert_eq!(
        eval(r#"device.attributes["gpu.example.com"].model > 5"#, &gpu),
        Err("no such overload".into())
    );
    assert_eq!(
        eval(r#"device.attributes["gpu.example.com"].numa"#, &gpu),
        Err("CEL result of type int could not be converted to bool: unsupported type conversion from 'int' to bool".into())
    );
}

#[test]
fn bad_attribute_values_fail_the_device() {
    let mut gpu = Gpu::new("a100", "1.10.0", "40Gi");
    gpu.attributes
        .insert("firmware".into(), AttributeValue::Version("01.2.3".into()));
    assert_eq!(
        eval(r#"device.driver == "gpu.example.com""#, &gpu),
        Err(
            "attribute firmware: parse semantic version: Major number must not contain leading zeroes \"01\""
                .into()
        )
    );
}

#[test]
fn compile_errors_read_as_cel_go() {
    assert_eq!(
        compile_error("device.driver == 1"),
        "compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(string, int)'\n | device.driver == 1\n | ..............^"
    );
    assert_eq!(
        compile_error("dev.driver == \"x\""),
        "compilation failed: ERROR: <input>:1:1: undeclared reference to 'dev' (in container '')\n | dev.driver == \"x\"\n | ^"
    );
    assert_eq!(
        compile_error("device.vendor == \"x\""),
        "compilation failed: ERROR: <input>:1:7: undefined field 'vendor'\n | device.vendor == \"x\"\n | ......^"
    );
    assert_eq!(
        compile_error("device.driver"),
        "must evaluate to bool or the unknown type, not string"
    );
    assert_eq!(
        compile_error(r#"device.capacity["gpu.example.com"].memory.compareTo("40Gi") >= 0"#),
        "compilation failed: ERROR: <input>:1:52: found no matching overload for 'compareTo' applied to 'kubernetes.Quantity.(string)'\n | device.capacity[\"gpu.example.com\"].memory.compareTo(\"40Gi\") >= 0\n | ...................................................^"
    );
    assert_eq!(
        compile_error(r#"device.capacity["gpu.example.com"].memory > quantity("1")"#),
        "compilation failed: ERROR: <input>:1:43: found no matching overload for '_>_' applied to '(kubernetes.Quantity, kubernetes.Quantity)'\n | device.capacity[\"gpu.example.com\"].memory > quantity(\"1\")\n | ..........................................^"
    );
    let syntax = compile_error("device.driver ==");
    assert!(
        syntax.starts_with("compilation failed: ERROR: <input>:1:17: Syntax error: "),
        "{syntax}"
    );
    assert!(
        syntax.ends_with("\n | device.driver ==\n | ................^"),
        "{syntax}"
    );
    // allowMultipleAllocations exists only behind DRAConsumableCapacity.
    assert_eq!(
        compile_error("device.allowMultipleAllocations"),
        "compilation failed: ERROR: <input>:1:7: undefined field 'allowMultipleAllocations'\n | device.allowMultipleAllocations\n | ......^"
    );
    let env = Environment::new(Features {
        consumable_capacity: true,
    });
    assert!(
        env.compile("device.allowMultipleAllocations")
            .error()
            .is_none()
    );
}

#[test]
fn paths_name_what_a_selector_reads() {
    let compiled = Environment::new(Features::default()).compile(
        r#"device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "a100" && device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0"#,
    );
    assert_eq!(
        compiled.paths(),
        &[
            DevicePath::Driver,
            DevicePath::Attribute {
                domain: "gpu.example.com".into(),
                name: "model".into()
            },
            DevicePath::Capacity {
                domain: "gpu.example.com".into(),
                name: "memory".into()
            },
        ]
    );
    let gpu = Gpu::new("h100", "1.10.0", "80Gi");
    let values: Vec<_> = compiled
        .paths()
        .iter()
        .map(|p| gpu.input().value_at(p))
        .collect();
    assert_eq!(
        values,
        [
            Some("\"gpu.example.com\"".to_owned()),
            Some("\"h100\"".to_owned()),
            Some("80Gi".to_owned())
        ]
    );
}

#[test]
fn the_cache_compiles_once() {
    let cache = Cache::new(Features::default());
    let a = cache.get_or_compile("device.driver == 'x'");
    let b = cache.get_or_compile("device.driver == 'x'");
    assert!(Arc::ptr_eq(&a, &b));
}

#[test]
fn the_dra_corpus_selectors_compile_and_run() {
    // Every distinct selector of the oracle-diff DRA corpus' classes and claims.
    let env = Environment::new(Features::default());
    let gpu = Gpu::new("a100", "1.10.0", "40Gi");
    for expr in [
        "device.attributes[\"fpga.example.com\"].model == \"u280\"",
        "device.attributes[\"gpu.example.com\"].driverVersion.compareTo(semver(\"1.10.0\")) >= 0",
        "device.attributes[\"gpu.example.com\"].model != \"t4\"",
        "device.attributes[\"gpu.example.com\"].model == \"a100\"",
        "device.attributes[\"gpu.example.com\"].model == \"h100\"",
        "device.attributes[\"gpu.example.com\"].numa == 0",
        "device.attributes[\"nic.example.com\"].model == \"cx7\"",
        "device.attributes[\"nic.example.com\"].rdma",
        "device.attributes[\"nic.example.com\"].speedGbps > 25",
        "device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"40Gi\")) >= 0",
        "device.driver == \"fpga.example.com\"",
        "device.driver == \"gpu.example.com\"",
        "device.driver == \"gpu.example.com\" && device.attributes[\"gpu.example.com\"].driverVersion.isGreaterThan(semver(\"1.2.0\"))",
        "device.driver == \"gpu.example.com\" && device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"40Gi\")) >= 0",
        "device.driver == \"nic.example.com\"",
        "device.driver == \"nic.example.com\" && device.attributes[\"nic.example.com\"].speedGbps >= 100",
    ] {
        let compiled = env.compile(expr);
        assert_eq!(compiled.error(), None, "{expr}");
        // A gpu: the gpu selectors decide, the others are false on the driver or fail on a
        // nic attribute the gpu does not have.
        let verdict = env.device_matches(&compiled, &gpu.input());
        if expr.contains("nic.example.com") || expr.contains("fpga.example.com") {
            assert!(
                matches!(verdict, Ok(false))
                    || verdict
                        .as_ref()
                        .is_err_and(|e| e.message.starts_with("no such key")),
                "{expr}: {verdict:?}"
            );
        } else {
            assert!(verdict.is_ok(), "{expr}: {verdict:?}");
        }
    }
}
