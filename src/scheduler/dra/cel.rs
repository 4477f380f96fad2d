//! CEL for DRA: DeviceClass and request selectors compiled and evaluated in the environment
//! of k8s.io/dynamic-resource-allocation/cel (v0.35): one variable, `device`, with
//! `driver`, `attributes` and `capacity` (maps by domain, then by name; a name without a
//! domain is in the driver's), and `allowMultipleAllocations` behind DRAConsumableCapacity;
//! plus the Kubernetes library functions selectors use (`quantity()`, `semver()` and their
//! methods), `cel.bind`, and the strings and lists extensions.
//!
//! Parsing and evaluation are the `cel` crate's; the type check that cel-go does at compile
//! time is not in that crate, so [`check`] reproduces the part of it selectors meet:
//! undeclared names, unknown `device` fields, operators and library methods applied to types
//! they do not take, and a result that cannot be a bool. Where it cannot tell (values of
//! `device.attributes` are typed `any` upstream), it accepts, as cel-go does, and the
//! runtime decides. Errors read as upstream's: `compilation failed: ERROR: <input>:1:15: ...`
//! with cel-go's snippet and caret, and runtime errors as cel-go words them (`no such key:
//! model`, `no such overload`).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use cel::common::ast::{CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedExpr, LiteralValue};
use cel::common::traits::{Container, Indexer, Iterable, Sizer};
use cel::common::types::{
    self as celtypes, CelBool, CelDouble, CelInt, CelMap, CelMapKey, CelString, Type,
};
use cel::common::value::{CowVal, StaticVal, Val};
use cel::parser::{Macro, MacroExprHelper};
use cel::{Context, Env, ExecutionError, ParseError, Value};

use super::semver::Version;
use super::types::AttributeValue;
use crate::state::quantity::Quantity;

/// What the environment depends on (k8s.io/dynamic-resource-allocation/cel `Features`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Features {
    /// DRAConsumableCapacity: `device.allowMultipleAllocations` is declared.
    pub consumable_capacity: bool,
}

/// Why an expression does not compile, as upstream's `apiservercel.Error` detail reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    pub detail: String,
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.detail)
    }
}

/// Why an evaluation failed, in cel-go's words (upstream wraps it as
/// `... selector #0: CEL runtime error: <this>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeError {
    pub message: String,
}

impl std::fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// What a selector reads of a device, for explaining a rejection with the device's values.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum DevicePath {
    Driver,
    /// `device.attributes[domain].name`
    Attribute {
        domain: String,
        name: String,
    },
    /// `device.capacity[domain].name`
    Capacity {
        domain: String,
        name: String,
    },
}

impl std::fmt::Display for DevicePath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DevicePath::Driver => f.write_str("driver"),
            DevicePath::Attribute { domain, name } => write!(f, "{domain}/{name}"),
            DevicePath::Capacity { domain, name } => write!(f, "capacity {domain}/{name}"),
        }
    }
}

/// One device as CEL sees it.
#[derive(Debug, Clone, Copy)]
pub struct DeviceInput<'a> {
    pub driver: &'a str,
    pub attributes: &'a BTreeMap<String, AttributeValue>,
    pub capacity: &'a BTreeMap<String, Quantity>,
    pub allow_multiple_allocations: Option<bool>,
}

impl DeviceInput<'_> {
    /// The device's value at `path`, as it would be shown to a user; `None` when unset.
    pub fn value_at(&self, path: &DevicePath) -> Option<String> {
        let find = |domain: &str, name: &str, qualified: &str| {
            domain == self.driver && qualified == name
                || qualified.split_once('/') == Some((domain, name))
        };
        match path {
            DevicePath::Driver => Some(format!("{:?}", self.driver)),
            DevicePath::Attribute { domain, name } => self
                .attributes
                .iter()
                .find(|(q, _)| find(domain, name, q))
                .map(|(_, v)| v.to_string()),
            DevicePath::Capacity { domain, name } => self
                .capacity
                .iter()
                .find(|(q, _)| find(domain, name, q))
                .map(|(_, v)| display_quantity(*v)),
        }
    }
}

/// A quantity for reading (not apimachinery's canonical form): the largest binary suffix
/// that divides it, else whole units, else thousandths.
fn display_quantity(q: Quantity) -> String {
    const NANO: i128 = 1_000_000_000;
    let nanos = q.nanos();
    if nanos != 0 && nanos % NANO == 0 {
        let units = nanos / NANO;
        for (suffix, shift) in [("Ti", 40), ("Gi", 30), ("Mi", 20), ("Ki", 10)] {
            let unit = 1i128 << shift;
            if units % unit == 0 {
                return format!("{}{suffix}", units / unit);
            }
        }
        return units.to_string();
    }
    if nanos % 1_000_000 == 0 {
        return format!("{}m", nanos / 1_000_000);
    }
    format!("{nanos}n")
}

/// A compiled selector.
#[derive(Debug)]
pub struct Compiled {
    pub expression: String,
    program: Result<cel::Program, CompileError>,
    paths: Vec<DevicePath>,
}

impl Compiled {
    /// The compile error, if the expression does not compile.
    pub fn error(&self) -> Option<&CompileError> {
        self.program.as_ref().err()
    }

    /// What the expression reads of a device (attributes and capacities named literally).
    pub fn paths(&self) -> &[DevicePath] {
        &self.paths
    }
}

/// The DRA CEL environment, built once per feature set.
pub struct Environment {
    env: Arc<Env>,
    features: Features,
}

impl std::fmt::Debug for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Environment")
            .field("features", &self.features)
            .finish_non_exhaustive()
    }
}

/// Compiled selectors by expression, as upstream's `cel.Cache` (which also keys on the text
/// only); it is unbounded here, since one run sees few distinct selectors.
#[derive(Debug)]
pub struct Cache {
    environment: Environment,
    compiled: Mutex<HashMap<String, Arc<Compiled>>>,
}

impl Cache {
    pub fn new(features: Features) -> Cache {
        Cache {
            environment: Environment::new(features),
            compiled: Mutex::new(HashMap::new()),
        }
    }

    pub fn environment(&self) -> &Environment {
        &self.environment
    }

    /// `GetOrCompile`.
    pub fn get_or_compile(&self, expression: &str) -> Arc<Compiled> {
        let mut compiled = self
            .compiled
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(c) = compiled.get(expression) {
            return Arc::clone(c);
        }
        let c = Arc::new(self.environment.compile(expression));
        compiled.insert(expression.to_owned(), Arc::clone(&c));
        c
    }
}

impl Environment {
    pub fn new(features: Features) -> Environment {
        Environment {
            env: Arc::new(build_env()),
            features,
        }
    }

    /// `CompileCELExpression`: parse, type-check, and require a bool (or `any`) result.
    pub fn compile(&self, expression: &str) -> Compiled {
        let program = match self.env.compile(expression) {
            Ok(p) => p,
            Err(errors) => {
                let issues = errors
                    .errors
                    .iter()
                    .map(|e| display_error(expression, e.pos.0, e.pos.1 - 1, &e.msg))
                    .collect::<Vec<_>>()
                    .join("\n");
                return Compiled {
                    expression: expression.to_owned(),
                    program: Err(CompileError {
                        detail: format!("compilation failed: {issues}"),
                    }),
                    paths: Vec::new(),
                };
            }
        };
        let mut checker = Checker {
            features: self.features,
            locals: Vec::new(),
            errors: Vec::new(),
            paths: Vec::new(),
        };
        let out = checker.check(program.expression());
        let mut paths = std::mem::take(&mut checker.paths);
        paths.sort();
        paths.dedup();
        let program = if !checker.errors.is_empty() {
            let mut located: Vec<((usize, usize), String)> = checker
                .errors
                .iter()
                .map(|(id, msg)| {
                    let offset = program
                        .source_info()
                        .offset_for(*id)
                        .map_or(0, |(start, _)| start as usize);
                    (line_column(expression, offset), msg.clone())
                })
                .collect();
            located.sort_by_key(|(pos, _)| *pos);
            let issues = located
                .iter()
                .map(|((line, column), msg)| {
                    display_error(expression, *line as isize, *column as isize, msg)
                })
                .collect::<Vec<_>>()
                .join("\n");
            Err(CompileError {
                detail: format!("compilation failed: {issues}"),
            })
        } else if !matches!(out, T::Bool | T::Any | T::Unknown) {
            Err(CompileError {
                detail: format!(
                    "must evaluate to bool or the unknown type, not {}",
                    out.name()
                ),
            })
        } else {
            Ok(program)
        };
        Compiled {
            expression: expression.to_owned(),
            program,
            paths,
        }
    }

    /// `DeviceMatches`: the selector's verdict on one device.
    pub fn device_matches(
        &self,
        compiled: &Compiled,
        device: &DeviceInput<'_>,
    ) -> Result<bool, RuntimeError> {
        let program = match &compiled.program {
            Ok(p) => p,
            Err(e) => {
                return Err(RuntimeError {
                    message: e.detail.clone(),
                });
            }
        };
        let value = device_value(device, self.features)?;
        let mut context = Context::with_env(Arc::clone(&self.env));
        context.add_variable_as_val("device", Box::new(value));
        match program.execute(&context) {
            Ok(Value::Bool(b)) => Ok(b),
            Ok(other) => {
                let name = value_type_name(&other);
                Err(RuntimeError {
                    message: format!(
                        "CEL result of type {name} could not be converted to bool: unsupported type conversion from '{name}' to bool"
                    ),
                })
            }
            Err(e) => Err(RuntimeError {
                message: runtime_message(&e),
            }),
        }
    }
}

/// cel-go's `ToDisplayString`: `ERROR: <input>:line:col: msg`, the line, and a caret under
/// the column (`column` 0-based, in characters).
fn display_error(source: &str, line: isize, column: isize, msg: &str) -> String {
    let mut out = format!("ERROR: <input>:{line}:{}: {msg}", column + 1);
    let index = usize::try_from(line - 1).unwrap_or(0);
    if let Some(snippet) = source.split('\n').nth(index) {
        let snippet = snippet.replace('\t', " ");
        out.push_str("\n | ");
        out.push_str(&snippet);
        out.push_str("\n | ");
        let mut chars = snippet.chars();
        for _ in 0..column.max(0) {
            match chars.next() {
                Some(c) if c.len_utf8() > 1 => out.push('\u{FF0E}'),
                Some(_) => out.push('.'),
                None => break,
            }
        }
        out.push(if chars.next().is_some_and(|c| c.len_utf8() > 1) {
            '\u{FF3E}'
        } else {
            '^'
        });
    }
    out
}

/// 1-based line, 0-based column (in characters) of a byte offset.
fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = source.get(..offset).unwrap_or(source);
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count())
}

fn value_type_name(v: &Value) -> &'static str {
    match v {
        Value::List(_) => "list",
        Value::Map(_) => "map",
        Value::Function(..) => "function",
        Value::Int(_) => "int",
        Value::UInt(_) => "uint",
        Value::Float(_) => "double",
        Value::String(_) => "string",
        Value::Bytes(_) => "bytes",
        Value::Bool(_) => "bool",
        Value::Opaque(_) | Value::Struct(_) => "object",
        Value::Null => "null_type",
    }
}

/// cel-go's wording of an evaluation error.
fn runtime_message(e: &ExecutionError) -> String {
    match e {
        ExecutionError::NoSuchKey(key) => format!("no such key: {key}"),
        ExecutionError::NoSuchOverload(_)
        | ExecutionError::ValuesNotComparable(..)
        | ExecutionError::UnsupportedBinaryOperator(..)
        | ExecutionError::UnexpectedType { .. }
        | ExecutionError::UnsupportedIndex(..)
        | ExecutionError::UnsupportedKeyType(_)
        | ExecutionError::NotSupportedAsMethod { .. }
        | ExecutionError::UnsupportedTargetType { .. } => "no such overload".to_owned(),
        ExecutionError::DivisionByZero(_) => "division by zero".to_owned(),
        ExecutionError::RemainderByZero(_) => "modulus by zero".to_owned(),
        ExecutionError::FunctionError { message, .. } => message.clone(),
        ExecutionError::UndeclaredReference(name) => format!("no such attribute(s): {name}"),
        other => other.to_string(),
    }
}

// ---------------------------------------------------------------------------------------
// Values

static QUANTITY_TYPE: Type = Type::new_unspecified_type("kubernetes.Quantity");
static SEMVER_TYPE: Type = Type::new_unspecified_type("kubernetes.Semver");
static DEVICE_TYPE: Type = Type::new_unspecified_type("kubernetes.DRADevice");

/// `apiservercel.Quantity`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct QuantityVal(Quantity);

impl Val for QuantityVal {
    fn get_type(&self) -> &Type {
        &QUANTITY_TYPE
    }
    fn cel_type() -> &'static Type {
        &QUANTITY_TYPE
    }
    fn equals(&self, other: &dyn Val) -> bool {
        other
            .downcast_ref::<QuantityVal>()
            .is_some_and(|o| o.0 == self.0)
    }
    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
        Box::new(*self)
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}
impl StaticVal for QuantityVal {}

/// `apiservercel.Semver`: equality is precedence equality (build metadata ignored).
#[derive(Debug, Clone, PartialEq)]
struct SemverVal(Version);

impl Val for SemverVal {
    fn get_type(&self) -> &Type {
        &SEMVER_TYPE
    }
    fn cel_type() -> &'static Type {
        &SEMVER_TYPE
    }
    fn equals(&self, other: &dyn Val) -> bool {
        other
            .downcast_ref::<SemverVal>()
            .is_some_and(|o| o.0.compare(&self.0).is_eq())
    }
    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}
impl StaticVal for SemverVal {}

/// `device.attributes` / `device.capacity`: a map by domain whose lookup of a domain the
/// device does not have yields an empty map (upstream's `newStringInterfaceMapWithDefault`),
/// so `device.attributes["other.example.com"].x` fails with "no such key: x", and
/// `has(device.attributes["other.example.com"].x)` is false.
#[derive(Debug, Clone)]
struct DomainMap(CelMap<'static>);

impl Val for DomainMap {
    fn get_type(&self) -> &Type {
        &celtypes::MAP_TYPE
    }
    fn cel_type() -> &'static Type {
        &celtypes::MAP_TYPE
    }
    fn as_container(&self) -> Option<&dyn Container> {
        self.0.as_container()
    }
    fn as_indexer<'b, 'v>(&'b self) -> Option<&'b (dyn Indexer + 'v)>
    where
        Self: 'v,
    {
        Some(self)
    }
    fn as_iterable<'b, 'v>(&'b self) -> Option<&'b (dyn Iterable + 'v)>
    where
        Self: 'v,
    {
        self.0.as_iterable()
    }
    fn as_sizer(&self) -> Option<&dyn Sizer> {
        self.0.as_sizer()
    }
    fn equals(&self, other: &dyn Val) -> bool {
        self.0.equals(other)
    }
    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

impl Indexer for DomainMap {
    fn get<'b, 'v>(&'b self, idx: &dyn Val) -> Result<CowVal<'b, 'v>, ExecutionError>
    where
        Self: 'v,
    {
        match Indexer::get(&self.0, idx) {
            Err(ExecutionError::NoSuchKey(_)) => Ok(CowVal::owned(CelMap::default())),
            other => other,
        }
    }

    fn steal<'v>(self: Box<Self>, idx: &dyn Val) -> Result<Box<dyn Val + 'v>, ExecutionError>
    where
        Self: 'v,
    {
        self.get(idx).map(CowVal::into_owned)
    }
}

/// The `device` variable.
#[derive(Debug, Clone)]
struct DeviceVal {
    driver: CelString<'static>,
    attributes: DomainMap,
    capacity: DomainMap,
    allow_multiple_allocations: Option<CelBool>,
}

impl Val for DeviceVal {
    fn get_type(&self) -> &Type {
        &DEVICE_TYPE
    }
    fn cel_type() -> &'static Type {
        &DEVICE_TYPE
    }
    fn as_indexer<'b, 'v>(&'b self) -> Option<&'b (dyn Indexer + 'v)>
    where
        Self: 'v,
    {
        Some(self)
    }
    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

impl Indexer for DeviceVal {
    fn get<'b, 'v>(&'b self, idx: &dyn Val) -> Result<CowVal<'b, 'v>, ExecutionError>
    where
        Self: 'v,
    {
        let Some(field) = idx.downcast_ref::<CelString>() else {
            return Err(ExecutionError::UnexpectedType {
                got: idx.get_type().name().to_owned(),
                want: "string".to_owned(),
            });
        };
        match (field.inner(), &self.allow_multiple_allocations) {
            ("driver", _) => Ok(CowVal::Borrowed(&self.driver)),
            ("attributes", _) => Ok(CowVal::Borrowed(&self.attributes)),
            ("capacity", _) => Ok(CowVal::Borrowed(&self.capacity)),
            ("allowMultipleAllocations", Some(b)) => Ok(CowVal::Borrowed(b)),
            (other, _) => Err(ExecutionError::no_such_key(other)),
        }
    }

    fn steal<'v>(self: Box<Self>, idx: &dyn Val) -> Result<Box<dyn Val + 'v>, ExecutionError>
    where
        Self: 'v,
    {
        self.get(idx).map(CowVal::into_owned)
    }
}

/// `parseQualifiedName`: a name without a domain is in the driver's.
fn split_qualified<'a>(name: &'a str, driver: &'a str) -> (&'a str, &'a str) {
    name.split_once('/').unwrap_or((driver, name))
}

fn domain_map(inner: BTreeMap<&str, BTreeMap<&str, Box<dyn Val>>>) -> DomainMap {
    let outer: HashMap<CelMapKey<'static>, Box<dyn Val>> = inner
        .into_iter()
        .map(|(domain, values)| {
            let values: HashMap<CelMapKey<'static>, Box<dyn Val>> = values
                .into_iter()
                .map(|(id, v)| (CelMapKey::from(id.to_owned()), v))
                .collect();
            (
                CelMapKey::from(domain.to_owned()),
                Box::new(CelMap::from(values)) as Box<dyn Val>,
            )
        })
        .collect();
    DomainMap(CelMap::from(outer))
}

/// The `device` value; fails as upstream does on an attribute it cannot represent, whether
/// or not the expression reads it.
fn device_value(device: &DeviceInput<'_>, features: Features) -> Result<DeviceVal, RuntimeError> {
    let mut attributes: BTreeMap<&str, BTreeMap<&str, Box<dyn Val>>> = BTreeMap::new();
    for (name, value) in device.attributes {
        let v: Box<dyn Val> = match value {
            AttributeValue::Int(i) => Box::new(CelInt::from(*i)),
            AttributeValue::Bool(b) => Box::new(CelBool::from(*b)),
            AttributeValue::String(s) => Box::new(CelString::from(s.clone())),
            AttributeValue::Version(s) => match Version::parse(s) {
                Ok(v) => Box::new(SemverVal(v)),
                Err(e) => {
                    return Err(RuntimeError {
                        message: format!("attribute {name}: parse semantic version: {e}"),
                    });
                }
            },
            AttributeValue::Unsupported => {
                return Err(RuntimeError {
                    message: format!("attribute {name}: unsupported attribute value"),
                });
            }
        };
        let (domain, id) = split_qualified(name, device.driver);
        attributes.entry(domain).or_default().insert(id, v);
    }
    let mut capacity: BTreeMap<&str, BTreeMap<&str, Box<dyn Val>>> = BTreeMap::new();
    for (name, q) in device.capacity {
        let (domain, id) = split_qualified(name, device.driver);
        capacity
            .entry(domain)
            .or_default()
            .insert(id, Box::new(QuantityVal(*q)));
    }
    Ok(DeviceVal {
        driver: CelString::from(device.driver.to_owned()),
        attributes: domain_map(attributes),
        capacity: domain_map(capacity),
        allow_multiple_allocations: features
            .consumable_capacity
            .then(|| CelBool::from(device.allow_multiple_allocations.unwrap_or(false))),
    })
}

// ---------------------------------------------------------------------------------------
// Library functions (apiserver/pkg/cel/library quantity.go and semverlib.go)

type Args<'b, 'v> = Vec<CowVal<'b, 'v>>;
type Ret<'b, 'v> = Result<CowVal<'b, 'v>, ExecutionError>;

fn no_overload() -> ExecutionError {
    ExecutionError::no_such_overload("", Vec::new())
}

fn quantity_arg(args: &[CowVal<'_, '_>], i: usize) -> Result<Quantity, ExecutionError> {
    args.get(i)
        .and_then(|a| a.downcast_ref::<QuantityVal>())
        .map(|q| q.0)
        .ok_or_else(no_overload)
}

fn semver_arg(args: &[CowVal<'_, '_>], i: usize) -> Result<Version, ExecutionError> {
    args.get(i)
        .and_then(|a| a.downcast_ref::<SemverVal>())
        .map(|v| v.0.clone())
        .ok_or_else(no_overload)
}

fn string_arg(args: &[CowVal<'_, '_>], i: usize) -> Result<String, ExecutionError> {
    args.get(i)
        .and_then(|a| a.downcast_ref::<CelString>())
        .map(|s| s.inner().to_owned())
        .ok_or_else(no_overload)
}

fn bool_arg(args: &[CowVal<'_, '_>], i: usize) -> Result<bool, ExecutionError> {
    args.get(i)
        .and_then(|a| a.downcast_ref::<CelBool>())
        .map(|b| *b.inner())
        .ok_or_else(no_overload)
}

fn int_arg(args: &[CowVal<'_, '_>], i: usize) -> Result<i64, ExecutionError> {
    args.get(i)
        .and_then(|a| a.downcast_ref::<CelInt>())
        .map(|n| *n.inner())
        .ok_or_else(no_overload)
}

fn owned<'b, 'v>(v: impl Val + 'v) -> Ret<'b, 'v> {
    Ok(CowVal::owned(v))
}

fn ordering_int(o: std::cmp::Ordering) -> CelInt {
    CelInt::from(o as i64)
}

fn quantity_of<'b, 'v>(args: Args<'b, 'v>) -> Ret<'b, 'v> {
    let s = string_arg(&args, 0)?;
    match Quantity::parse(&s) {
        Ok(q) => owned(QuantityVal(q)),
        Err(e) => Err(ExecutionError::function_error("quantity", e)),
    }
}

fn is_quantity<'b, 'v>(args: Args<'b, 'v>) -> Ret<'b, 'v> {
    owned(CelBool::from(
        Quantity::parse(&string_arg(&args, 0)?).is_ok(),
    ))
}

fn quantity_sign<'b, 'v>(args: Args<'b, 'v>) -> Ret<'b, 'v> {
    owned(CelInt::from(quantity_arg(&args, 0)?.nanos().signum() as i64))
}

fn quantity_is_greater_than<'b, 'v>(args: Args<'b, 'v>) -> Ret<'b, 'v> {
    owned(CelBool::from(
        quantity_arg(&args, 0)? > quantity_arg(&args, 1)?,
    ))
}

fn quantity_is_less_than<'b, 'v>(args: Args<'b, 'v>) -> Ret<'b, 'v> {
    owned(CelBool::from(
        quantity_arg(&args, 0)? < quantity_arg(&args, 1)?,
    ))
}

fn quantity_compare_to<'b, 'v>(args: Args<'b, 'v>) -> Ret<'b, 'v> {
    owned(ordering_int(
        quantity_arg(&args, 0)?.cmp(&quantity_arg(&args, 1)?),
    ))
}

fn quantity_as_float<'b, 'v>(args: Args<'b, 'v>) -> Ret<'b, 'v> {
    owned(CelDouble::from(
        quantity_arg(&args, 0)?.nanos() as f64 / 1e9,
    ))
}

/// `AsInt64`: only a whole number that fits.
fn quantity_int(q: Quantity) -> Option<i64> {
    let nanos = q.nanos();
    (nanos % 1_000_000_000 == 0)
        .then(|| i64::try_from(nanos / 1_000_000_000).ok())
        .flatten()
}

fn quantity_is_integer<'b, 'v>(args: Args<'b, 'v>) -> Ret<'b, 'v> {
    owned(CelBool::from(
        quantity_int(quantity_arg(&args, 0)?).is_some(),
    ))
}

fn quantity_as_integer<'b, 'v>(args: Args<'b, 'v>) -> Ret<'b, 'v> {
    match quantity_int(quantity_arg(&args, 0)?) {
        Some(i) => owned(CelInt::from(i)),
        None => Err(ExecutionError::function_error(
            "asInteger",
            "cannot convert value to integer",
        )),
    }
}

fn quantity_add<'b, 'v>(args: Args<'b, 'v>) -> Ret<'b, 'v> {
    let q = quantity_arg(&args, 0)?;
    let other = match quantity_arg(&args, 1) {
        Ok(o) => o,
        Err(_) => Quantity::from_units(int_arg(&args, 1)?),
    };
    owned(QuantityVal(Quantity::from_nanos(q.nanos() + other.nanos())))
}

fn quantity_sub<'b, 'v>(args: Args<'b, 'v>) -> Ret<'b, 'v> {
    let q = quantity_arg(&args, 0)?;
    let other = match quantity_arg(&args, 1) {
        Ok(o) => o,
        Err(_) => Quantity::from_units(int_arg(&args, 1)?),
    };
    owned(QuantityVal(Quantity::from_nanos(q.nanos() - other.nanos())))
}

fn parse_semver(args: &[CowVal<'_, '_>]) -> Result<Result<Version, String>, ExecutionError> {
    let s = string_arg(args, 0)?;
    let normalize = if args.len() > 1 {
        bool_arg(args, 1)?
    } else {
        false
    };
    let parsed = if normalize {
        Version::parse_normalized(&s)
    } else {
        Version::parse(&s)
    };
    Ok(parsed.map_err(|e| e.to_string()))
}

fn semver_of<'b, 'v>(args: Args<'b, 'v>) -> Ret<'b, 'v> {
    match parse_semver(&args)? {
        Ok(v) => owned(SemverVal(v)),
        Err(e) => Err(ExecutionError::function_error("semver", e)),
    }
}

fn is_semver<'b, 'v>(args: Args<'b, 'v>) -> Ret<'b, 'v> {
    owned(CelBool::from(parse_semver(&args)?.is_ok()))
}

fn semver_is_greater_than<'b, 'v>(args: Args<'b, 'v>) -> Ret<'b, 'v> {
    owned(CelBool::from(
        semver_arg(&args, 0)?
            .compare(&semver_arg(&args, 1)?)
            .is_gt(),
    ))
}

fn semver_is_less_than<'b, 'v>(args: Args<'b, 'v>) -> Ret<'b, 'v> {
    owned(CelBool::from(
        semver_arg(&args, 0)?
            .compare(&semver_arg(&args, 1)?)
            .is_lt(),
    ))
}

fn semver_compare_to<'b, 'v>(args: Args<'b, 'v>) -> Ret<'b, 'v> {
    owned(ordering_int(
        semver_arg(&args, 0)?.compare(&semver_arg(&args, 1)?),
    ))
}

fn semver_part<'b, 'v>(args: &[CowVal<'b, 'v>], part: fn(&Version) -> u64) -> Ret<'b, 'v> {
    let v = semver_arg(args, 0)?;
    owned(CelInt::from(part(&v) as i64))
}

fn semver_major<'b, 'v>(args: Args<'b, 'v>) -> Ret<'b, 'v> {
    semver_part(&args, |v| v.major)
}

fn semver_minor<'b, 'v>(args: Args<'b, 'v>) -> Ret<'b, 'v> {
    semver_part(&args, |v| v.minor)
}

fn semver_patch<'b, 'v>(args: Args<'b, 'v>) -> Ret<'b, 'v> {
    semver_part(&args, |v| v.patch)
}

/// `cel.bind(name, init, expr)` (cel-go's `ext.Bindings`): a comprehension over nothing
/// whose accumulator is `name`.
fn bind_macro(
    helper: &mut MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    args: &mut Vec<IdedExpr>,
) -> Result<Option<IdedExpr>, ParseError> {
    if !matches!(target.as_ref().map(|t| &t.expr), Some(Expr::Ident(ns)) if ns == "cel") {
        return Ok(None);
    }
    let (Some(result), Some(init), Some(var)) = (args.pop(), args.pop(), args.pop()) else {
        return Ok(None);
    };
    let Expr::Ident(name) = &var.expr else {
        return Err(helper.new_error(
            var.id,
            "cel.bind() variable names must be simple identifiers",
        ));
    };
    let bind = ComprehensionExpr {
        iter_range: helper.next_expr(Expr::List(cel::common::ast::ListExpr::new(Vec::new()))),
        iter_var: "#unused".to_owned(),
        iter_var2: None,
        accu_var: name.clone(),
        accu_init: init,
        loop_cond: helper.next_expr(Expr::Literal(LiteralValue::Boolean(false.into()))),
        loop_step: helper.next_expr(Expr::Ident(name.clone())),
        result,
    };
    Ok(Some(helper.next_expr(Expr::Comprehension(Box::new(bind)))))
}

fn build_env() -> Env {
    let mut env = Env::stdlib();
    let q = || QUANTITY_TYPE.to_owned();
    let s = || SEMVER_TYPE.to_owned();
    let string = || celtypes::STRING_TYPE.to_owned();
    let int = || celtypes::INT_TYPE.to_owned();
    let boolean = || celtypes::BOOL_TYPE.to_owned();
    let results = [
        env.add_extension(cel::extensions::strings),
        env.add_extension(cel::extensions::lists),
        env.add_macro(Macro::receiver("bind", 3, bind_macro)),
        env.add_overload(
            "quantity",
            "string_to_quantity",
            vec![string()],
            quantity_of,
        ),
        env.add_overload(
            "isQuantity",
            "is_quantity_string",
            vec![string()],
            is_quantity,
        ),
        env.add_overload("sign", "quantity_sign", vec![q()], quantity_sign),
        env.add_member_overload(
            "isGreaterThan",
            "quantity_is_greater_than",
            q(),
            vec![q()],
            quantity_is_greater_than,
        ),
        env.add_member_overload(
            "isLessThan",
            "quantity_is_less_than",
            q(),
            vec![q()],
            quantity_is_less_than,
        ),
        env.add_member_overload(
            "compareTo",
            "quantity_compare_to",
            q(),
            vec![q()],
            quantity_compare_to,
        ),
        env.add_member_overload(
            "asApproximateFloat",
            "quantity_get_float",
            q(),
            vec![],
            quantity_as_float,
        ),
        env.add_member_overload(
            "asInteger",
            "quantity_get_int",
            q(),
            vec![],
            quantity_as_integer,
        ),
        env.add_member_overload(
            "isInteger",
            "quantity_is_integer",
            q(),
            vec![],
            quantity_is_integer,
        ),
        env.add_member_overload("add", "quantity_add", q(), vec![q()], quantity_add),
        env.add_member_overload("add", "quantity_add_int", q(), vec![int()], quantity_add),
        env.add_member_overload("sub", "quantity_sub", q(), vec![q()], quantity_sub),
        env.add_member_overload("sub", "quantity_sub_int", q(), vec![int()], quantity_sub),
        env.add_overload("semver", "string_to_semver", vec![string()], semver_of),
        env.add_overload(
            "semver",
            "string_bool_to_semver",
            vec![string(), boolean()],
            semver_of,
        ),
        env.add_overload("isSemver", "is_semver_string", vec![string()], is_semver),
        env.add_overload(
            "isSemver",
            "is_semver_string_bool",
            vec![string(), boolean()],
            is_semver,
        ),
        env.add_member_overload(
            "isGreaterThan",
            "semver_is_greater_than",
            s(),
            vec![s()],
            semver_is_greater_than,
        ),
        env.add_member_overload(
            "isLessThan",
            "semver_is_less_than",
            s(),
            vec![s()],
            semver_is_less_than,
        ),
        env.add_member_overload(
            "compareTo",
            "semver_compare_to",
            s(),
            vec![s()],
            semver_compare_to,
        ),
        env.add_member_overload("major", "semver_major", s(), vec![], semver_major),
        env.add_member_overload("minor", "semver_minor", s(), vec![], semver_minor),
        env.add_member_overload("patch", "semver_patch", s(), vec![], semver_patch),
    ];
    // Every name above is new to the standard environment; a clash would be a bug here,
    // caught by the tests, not something input can cause.
    debug_assert!(results.iter().all(Result::is_ok), "{results:?}");
    env
}

// ---------------------------------------------------------------------------------------
// The type check

/// The static types the check tells apart.
#[derive(Debug, Clone, PartialEq)]
enum T {
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Null,
    List(Box<T>),
    Map(Box<T>, Box<T>),
    Quantity,
    Semver,
    Device,
    Type,
    /// `dyn(...)`: cel-go's dyn, which a selector may not return.
    Dyn,
    /// `google.protobuf.Any`: what `device.attributes[d][n]` is declared as upstream.
    Any,
    /// Not worked out here: accepted everywhere.
    Unknown,
}

impl T {
    fn name(&self) -> String {
        match self {
            T::Bool => "bool".into(),
            T::Int => "int".into(),
            T::Uint => "uint".into(),
            T::Double => "double".into(),
            T::String => "string".into(),
            T::Bytes => "bytes".into(),
            T::Null => "null_type".into(),
            T::List(e) => format!("list({})", e.name()),
            T::Map(k, v) => format!("map({}, {})", k.name(), v.name()),
            T::Quantity => "kubernetes.Quantity".into(),
            T::Semver => "kubernetes.Semver".into(),
            T::Device => "kubernetes.DRADevice".into(),
            T::Type => "type".into(),
            T::Dyn | T::Unknown => "dyn".into(),
            T::Any => "any".into(),
        }
    }

    /// Known precisely enough to reject a mismatch.
    fn concrete(&self) -> bool {
        !matches!(self, T::Dyn | T::Any | T::Unknown | T::Null)
    }

    fn numeric(&self) -> bool {
        matches!(self, T::Int | T::Uint | T::Double)
    }
}

/// Global functions of the environment (standard, extensions, Kubernetes libraries), by
/// the result type where it is fixed.
fn global_function(name: &str, args: &[T]) -> Option<T> {
    Some(match name {
        "size" => T::Int,
        "int" => T::Int,
        "uint" => T::Uint,
        "double" => T::Double,
        "string" => T::String,
        "bytes" => T::Bytes,
        "bool" => T::Bool,
        "dyn" => T::Dyn,
        "type" => T::Type,
        "matches" => T::Bool,
        "quantity" => T::Quantity,
        "isQuantity" | "isSemver" => T::Bool,
        "semver" => T::Semver,
        "sign" => T::Int,
        "has" => T::Bool,
        "lists.range" => T::List(Box::new(T::Int)),
        "strings.quote" => T::String,
        "duration" | "timestamp" | "optional.of" | "optional.none" | "optional.ofNonZeroValue" => {
            T::Unknown
        }
        _ => {
            let _ = args;
            return None;
        }
    })
}

/// Member functions: the result type, or `None` for a name the environment does not have.
fn member_function(target: &T, name: &str) -> Option<Result<T, ()>> {
    let quantity = match name {
        "isGreaterThan" | "isLessThan" | "isInteger" => Some(T::Bool),
        "compareTo" | "asInteger" => Some(T::Int),
        "asApproximateFloat" => Some(T::Double),
        "add" | "sub" => Some(T::Quantity),
        _ => None,
    };
    let semver = match name {
        "isGreaterThan" | "isLessThan" => Some(T::Bool),
        "compareTo" | "major" | "minor" | "patch" => Some(T::Int),
        _ => None,
    };
    let general = match name {
        "startsWith" | "endsWith" | "contains" | "matches" => Some(T::Bool),
        "size" | "indexOf" | "lastIndexOf" => Some(T::Int),
        "lowerAscii" | "upperAscii" | "replace" | "substring" | "trim" | "charAt" | "join"
        | "format" | "reverse" => Some(T::Unknown),
        "split" => Some(T::List(Box::new(T::String))),
        "distinct" | "flatten" | "slice" | "sort" | "sortBy" => Some(T::Unknown),
        "getDays" | "getHours" | "getMilliseconds" | "getMinutes" | "getSeconds" | "getDate"
        | "getDayOfMonth" | "getDayOfWeek" | "getDayOfYear" | "getFullYear" | "getMonth" => {
            Some(T::Int)
        }
        "hasValue" => Some(T::Bool),
        "value" | "or" | "orValue" => Some(T::Unknown),
        _ => None,
    };
    match target {
        T::Quantity => Some(quantity.ok_or(())),
        T::Semver => Some(semver.ok_or(())),
        t if !t.concrete() => quantity.or(semver).or(general).map(Ok),
        _ => match general {
            Some(g) => Some(Ok(g)),
            None if quantity.is_some() || semver.is_some() => Some(Err(())),
            None => None,
        },
    }
}

struct Checker {
    features: Features,
    locals: Vec<(String, T)>,
    errors: Vec<(u64, String)>,
    paths: Vec<DevicePath>,
}

impl Checker {
    fn error(&mut self, id: u64, msg: String) -> T {
        self.errors.push((id, msg));
        T::Unknown
    }

    fn overload_error(&mut self, id: u64, name: &str, args: &[&T], target: Option<&T>) -> T {
        let list = args.iter().map(|t| t.name()).collect::<Vec<_>>().join(", ");
        let signature = match target {
            Some(t) => format!("{}.({list})", t.name()),
            None => format!("({list})"),
        };
        self.error(
            id,
            format!("found no matching overload for '{name}' applied to '{signature}'"),
        )
    }

    fn local(&self, name: &str) -> Option<T> {
        self.locals
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone())
    }

    fn check(&mut self, e: &IdedExpr) -> T {
        match &e.expr {
            Expr::Unspecified => T::Unknown,
            Expr::Literal(l) => match l {
                LiteralValue::Boolean(_) => T::Bool,
                LiteralValue::Bytes(_) => T::Bytes,
                LiteralValue::Double(_) => T::Double,
                LiteralValue::Int(_) => T::Int,
                LiteralValue::Null => T::Null,
                LiteralValue::String(_) => T::String,
                LiteralValue::UInt(_) => T::Uint,
            },
            Expr::Ident(name) => {
                if let Some(t) = self.local(name) {
                    return t;
                }
                match name.as_str() {
                    "device" => T::Device,
                    "int" | "uint" | "double" | "string" | "bytes" | "bool" | "list" | "map"
                    | "null_type" | "type" | "dyn" => T::Type,
                    _ => self.error(
                        e.id,
                        format!("undeclared reference to '{name}' (in container '')"),
                    ),
                }
            }
            Expr::Select(sel) => {
                let operand = self.check(&sel.operand);
                if sel.test {
                    return T::Bool;
                }
                self.record_path(&sel.operand, &sel.field);
                self.select(e.id, &operand, &sel.field)
            }
            Expr::List(list) => {
                let elements: Vec<T> = list.elements.iter().map(|x| self.check(x)).collect();
                match elements.first() {
                    Some(first) if elements.iter().all(|t| t == first) => {
                        T::List(Box::new(first.clone()))
                    }
                    _ => T::List(Box::new(T::Dyn)),
                }
            }
            Expr::Map(map) => {
                for entry in &map.entries {
                    if let EntryExpr::MapEntry(m) = &entry.expr {
                        self.check(&m.key);
                        self.check(&m.value);
                    }
                }
                T::Map(Box::new(T::Dyn), Box::new(T::Dyn))
            }
            Expr::Struct(s) => self.error(
                e.id,
                format!(
                    "undeclared reference to '{}' (in container '')",
                    s.type_name
                ),
            ),
            Expr::Comprehension(c) => {
                let range = self.check(&c.iter_range);
                let element = match &range {
                    T::List(el) => (**el).clone(),
                    T::Map(k, _) => (**k).clone(),
                    _ => T::Unknown,
                };
                let accu = self.check(&c.accu_init);
                let depth = self.locals.len();
                self.locals.push((c.iter_var.clone(), element));
                if let Some(v2) = &c.iter_var2 {
                    self.locals.push((v2.clone(), T::Unknown));
                }
                self.locals.push((c.accu_var.clone(), accu));
                self.check(&c.loop_cond);
                self.check(&c.loop_step);
                // The result sees the accumulator only.
                self.locals.truncate(depth);
                let accu = self.check(&c.accu_init);
                self.locals.push((c.accu_var.clone(), accu));
                let result = self.check(&c.result);
                self.locals.truncate(depth);
                result
            }
            Expr::Call(call) => self.call(e.id, call),
        }
    }

    /// Remembers `device.attributes["d"].name` and `device.capacity["d"].name`.
    fn record_path(&mut self, operand: &IdedExpr, field: &str) {
        let Expr::Call(index) = &operand.expr else {
            return;
        };
        if index.func_name != "_[_]" || index.args.len() != 2 {
            return;
        }
        let (Expr::Select(map), Expr::Literal(LiteralValue::String(domain))) =
            (&index.args[0].expr, &index.args[1].expr)
        else {
            return;
        };
        if !matches!(&map.operand.expr, Expr::Ident(d) if d == "device" && self.local("device").is_none())
        {
            return;
        }
        let (domain, name) = (domain.inner().to_owned(), field.to_owned());
        match map.field.as_str() {
            "attributes" => self.paths.push(DevicePath::Attribute { domain, name }),
            "capacity" => self.paths.push(DevicePath::Capacity { domain, name }),
            _ => {}
        }
    }

    fn select(&mut self, id: u64, operand: &T, field: &str) -> T {
        match operand {
            T::Device => match field {
                "driver" => {
                    self.paths.push(DevicePath::Driver);
                    T::String
                }
                "attributes" => T::Map(
                    Box::new(T::String),
                    Box::new(T::Map(Box::new(T::String), Box::new(T::Any))),
                ),
                "capacity" => T::Map(
                    Box::new(T::String),
                    Box::new(T::Map(Box::new(T::String), Box::new(T::Quantity))),
                ),
                "allowMultipleAllocations" if self.features.consumable_capacity => T::Bool,
                _ => self.error(id, format!("undefined field '{field}'")),
            },
            T::Map(_, v) => (**v).clone(),
            t if !t.concrete() => T::Unknown,
            t => self.error(
                id,
                format!("type '{}' does not support field selection", t.name()),
            ),
        }
    }

    fn call(&mut self, id: u64, call: &CallExpr) -> T {
        let target = call.target.as_ref().map(|t| self.check(t));
        let args: Vec<T> = call.args.iter().map(|a| self.check(a)).collect();
        let name = call.func_name.as_str();
        if let Some(target) = target {
            // `device.attributes["d"].x` in a member call position records the path too.
            return match member_function(&target, name) {
                None => self.error(
                    id,
                    format!("undeclared reference to '{name}' (in container '')"),
                ),
                Some(Err(())) => {
                    let refs: Vec<&T> = args.iter().collect();
                    self.overload_error(id, name, &refs, Some(&target))
                }
                Some(Ok(result)) => {
                    let wants = match (&target, name) {
                        (T::Quantity, "add" | "sub") => None,
                        (T::Quantity, "isGreaterThan" | "isLessThan" | "compareTo") => {
                            Some(T::Quantity)
                        }
                        (T::Semver, "isGreaterThan" | "isLessThan" | "compareTo") => {
                            Some(T::Semver)
                        }
                        _ => None,
                    };
                    match (wants, args.first()) {
                        (Some(want), Some(arg)) if arg.concrete() && *arg != want => {
                            let refs: Vec<&T> = args.iter().collect();
                            self.overload_error(id, name, &refs, Some(&target))
                        }
                        _ => result,
                    }
                }
            };
        }
        match name {
            "_&&_" | "_||_" => {
                if args.iter().any(|t| t.concrete() && *t != T::Bool) {
                    let refs: Vec<&T> = args.iter().collect();
                    return self.overload_error(id, name, &refs, None);
                }
                T::Bool
            }
            "!_" | "@not_strictly_false" => {
                if args.iter().any(|t| t.concrete() && *t != T::Bool) {
                    let refs: Vec<&T> = args.iter().collect();
                    return self.overload_error(id, name, &refs, None);
                }
                T::Bool
            }
            "_?_:_" => {
                let [cond, a, b] = args.as_slice() else {
                    return T::Unknown;
                };
                if cond.concrete() && *cond != T::Bool || a.concrete() && b.concrete() && a != b {
                    let refs: Vec<&T> = args.iter().collect();
                    return self.overload_error(id, name, &refs, None);
                }
                if a == b {
                    a.clone()
                } else if *a == T::Any || *b == T::Any {
                    T::Any
                } else {
                    T::Unknown
                }
            }
            "_==_" | "_!=_" => {
                if let [a, b] = args.as_slice()
                    && a.concrete()
                    && b.concrete()
                    && a != b
                {
                    return self.overload_error(id, name, &[a, b], None);
                }
                T::Bool
            }
            "_<_" | "_<=_" | "_>_" | "_>=_" => {
                if let [a, b] = args.as_slice() {
                    let orderable = |t: &T| {
                        matches!(
                            t,
                            T::Bool | T::Int | T::Uint | T::Double | T::String | T::Bytes
                        )
                    };
                    let bad = (a.concrete() && !orderable(a))
                        || (b.concrete() && !orderable(b))
                        || (a.concrete()
                            && b.concrete()
                            && a != b
                            && !(a.numeric() && b.numeric()));
                    if bad {
                        return self.overload_error(id, name, &[a, b], None);
                    }
                }
                T::Bool
            }
            "_+_" | "_-_" | "_*_" | "_/_" | "_%_" => {
                let [a, b] = args.as_slice() else {
                    return T::Unknown;
                };
                if a.concrete() && b.concrete() {
                    let ok = a == b
                        && match name {
                            "_+_" => matches!(
                                a,
                                T::Int | T::Uint | T::Double | T::String | T::Bytes | T::List(_)
                            ),
                            "_%_" => matches!(a, T::Int | T::Uint),
                            _ => a.numeric(),
                        };
                    if !ok {
                        return self.overload_error(id, name, &[a, b], None);
                    }
                    return a.clone();
                }
                T::Unknown
            }
            "-_" => match args.first() {
                Some(t @ (T::Int | T::Double)) => t.clone(),
                Some(t) if t.concrete() => self.overload_error(id, name, &[t], None),
                _ => T::Unknown,
            },
            "_[_]" | "_[?_]" => match args.as_slice() {
                [T::List(el), i] => {
                    if i.concrete() && *i != T::Int {
                        return self.overload_error(id, name, &[&args[0], i], None);
                    }
                    (**el).clone()
                }
                [T::Map(k, v), key] => {
                    if key.concrete() && k.concrete() && **k != *key {
                        return self.overload_error(id, name, &[&args[0], key], None);
                    }
                    (**v).clone()
                }
                [t, i] if t.concrete() => self.overload_error(id, name, &[t, i], None),
                _ => T::Unknown,
            },
            "@in" => T::Bool,
            _ => match global_function(name, &args) {
                Some(t) => {
                    if matches!(name, "quantity" | "semver" | "isQuantity" | "isSemver")
                        && args
                            .first()
                            .is_some_and(|a| a.concrete() && *a != T::String)
                    {
                        let refs: Vec<&T> = args.iter().collect();
                        return self.overload_error(id, name, &refs, None);
                    }
                    t
                }
                None if name.contains('.') => T::Unknown,
                None => self.error(
                    id,
                    format!("undeclared reference to '{name}' (in container '')"),
                ),
            },
        }
    }
}

#[cfg(test)]
mod tests;
