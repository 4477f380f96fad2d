//! Label and node-selector matching, reproducing `k8s.io/apimachinery/pkg/labels` and
//! `component-helpers/scheduling/corev1/nodeaffinity` exactly.
//!
//! Parsing is separated from matching because upstream treats parse errors differently
//! depending on where a selector comes from: an invalid *required* node-affinity term never
//! matches (the error is swallowed), an invalid *preferred* term fails the whole scheduling
//! attempt, and an invalid pod label selector fails PreFilter. Callers decide; this module only
//! reports.

use std::sync::Arc;

use serde::Serialize;

use super::labels::Labels;
use super::spec;

/// A label requirement operator after parsing. `Gt`/`Lt` carry their parsed bound.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Op {
    /// `key=value`, what a `matchLabels` entry becomes.
    Equals(String),
    In(Vec<String>),
    NotIn(Vec<String>),
    Exists,
    DoesNotExist,
    Gt(i64),
    Lt(i64),
}

/// One parsed requirement: `key <op> values`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Requirement {
    pub key: String,
    pub op: Op,
}

impl Requirement {
    /// `labels.Requirement.Matches`: NotIn and DoesNotExist hold for a missing label; Gt/Lt
    /// parse the node's value as a base-10 int64 and fail when it is missing or not a number.
    pub fn matches(&self, labels: &Labels) -> bool {
        self.matches_value(labels.get(&self.key))
    }

    /// The same, given the label's value (`None` when absent) already looked up.
    pub fn matches_value(&self, value: Option<&str>) -> bool {
        match &self.op {
            Op::Equals(want) => value == Some(want),
            Op::In(vals) => value.is_some_and(|v| vals.iter().any(|x| x == v)),
            Op::NotIn(vals) => value.is_none_or(|v| !vals.iter().any(|x| x == v)),
            Op::Exists => value.is_some(),
            Op::DoesNotExist => value.is_none(),
            Op::Gt(bound) => value.and_then(parse_go_int).is_some_and(|v| v > *bound),
            Op::Lt(bound) => value.and_then(parse_go_int).is_some_and(|v| v < *bound),
        }
    }
}

/// Go's `strconv.ParseInt(s, 10, 64)`: optional sign, decimal digits, leading zeros allowed.
fn parse_go_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// A parsed label selector. `Nothing` is what a nil `metav1.LabelSelector` becomes; an empty
/// requirement list (from `{}`) matches everything.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LabelSelector {
    Nothing,
    Requirements(Vec<Requirement>),
}

impl LabelSelector {
    pub const EVERYTHING: LabelSelector = LabelSelector::Requirements(Vec::new());

    pub fn matches(&self, labels: &Labels) -> bool {
        match self {
            LabelSelector::Nothing => false,
            LabelSelector::Requirements(reqs) => reqs.iter().all(|r| r.matches(labels)),
        }
    }

    pub fn is_everything(&self) -> bool {
        matches!(self, LabelSelector::Requirements(r) if r.is_empty())
    }

    /// `metav1.LabelSelectorAsSelector`: nil => nothing, `{}` => everything, otherwise
    /// matchLabels (as equality) AND matchExpressions (In/NotIn/Exists/DoesNotExist only).
    pub fn from_api(sel: Option<&spec::LabelSelector>) -> Result<Self, String> {
        let Some(sel) = sel else {
            return Ok(LabelSelector::Nothing);
        };
        let mut reqs = Vec::new();
        for (k, v) in sel.match_labels.iter().flatten() {
            let r = new_requirement(k, "In", std::slice::from_ref(v)).map_err(|e| aggregate(&e))?;
            reqs.push(Requirement {
                key: r.key,
                op: Op::Equals(v.clone()),
            });
        }
        for expr in sel.match_expressions.iter().flatten() {
            if !matches!(
                expr.operator.as_str(),
                "In" | "NotIn" | "Exists" | "DoesNotExist"
            ) {
                return Err(format!(
                    "{:?} is not a valid pod selector operator",
                    expr.operator
                ));
            }
            reqs.push(
                new_requirement(
                    &expr.key,
                    &expr.operator,
                    expr.values.as_deref().unwrap_or_default(),
                )
                .map_err(|e| aggregate(&e))?,
            );
        }
        Ok(LabelSelector::Requirements(reqs))
    }
}

impl std::fmt::Display for Requirement {
    /// `labels.Requirement.String()`: `k=v`, `k in (a,b)`, `k notin (a)`, `k`, `!k`, `k>1`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let k = &self.key;
        match &self.op {
            Op::Equals(v) => write!(f, "{k}={v}"),
            Op::In(v) => write!(f, "{k} in ({})", v.join(",")),
            Op::NotIn(v) => write!(f, "{k} notin ({})", v.join(",")),
            Op::Exists => write!(f, "{k}"),
            Op::DoesNotExist => write!(f, "!{k}"),
            Op::Gt(n) => write!(f, "{k}>{n}"),
            Op::Lt(n) => write!(f, "{k}<{n}"),
        }
    }
}

impl std::fmt::Display for LabelSelector {
    /// kubectl's selector syntax, requirements sorted by key as upstream prints them;
    /// `<none>` for a nil selector (matches nothing) and `<all>` for `{}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LabelSelector::Nothing => write!(f, "<none>"),
            LabelSelector::Requirements(r) if r.is_empty() => write!(f, "<all>"),
            LabelSelector::Requirements(r) => {
                let mut parts: Vec<(&str, String)> =
                    r.iter().map(|x| (x.key.as_str(), x.to_string())).collect();
                parts.sort();
                let s: Vec<String> = parts.into_iter().map(|(_, s)| s).collect();
                write!(f, "{}", s.join(","))
            }
        }
    }
}

/// `labels.NewRequirement` with the node-selector operator names: validates the key, the
/// value count for the operator, Gt/Lt integers, and every value as a label value. Each
/// problem is one field error, its path relative to the requirement, worded as upstream's
/// (see [`aggregate`] for how a caller joins them).
pub fn new_requirement(key: &str, op: &str, values: &[String]) -> Result<Requirement, Vec<String>> {
    let mut errs = Vec::new();
    if let Err(e) = validate_label_key(key) {
        errs.push(format!("key: Invalid value: {key:?}: {e}"));
    }
    let list = || go_strings(values);
    let op = match op {
        "In" | "NotIn" => {
            if values.is_empty() {
                errs.push(format!(
                    "values: Invalid value: {}: for 'in', 'notin' operators, values set can't be empty",
                    list()
                ));
            }
            if op == "In" {
                Op::In(values.to_vec())
            } else {
                Op::NotIn(values.to_vec())
            }
        }
        "Exists" | "DoesNotExist" => {
            if !values.is_empty() {
                errs.push(format!(
                    "values: Invalid value: {}: values set must be empty for exists and does not exist",
                    list()
                ));
            }
            if op == "Exists" {
                Op::Exists
            } else {
                Op::DoesNotExist
            }
        }
        "Gt" | "Lt" => {
            if values.len() != 1 {
                errs.push(format!(
                    "values: Invalid value: {}: for 'Gt', 'Lt' operators, exactly one value is required",
                    list()
                ));
            }
            let mut bound = 0;
            for (i, v) in values.iter().enumerate() {
                match parse_go_int(v) {
                    Some(n) => bound = n,
                    None => errs.push(format!(
                        "values[{i}]: Invalid value: {v:?}: for 'Gt', 'Lt' operators, the value must be an integer"
                    )),
                }
            }
            if op == "Gt" {
                Op::Gt(bound)
            } else {
                Op::Lt(bound)
            }
        }
        other => {
            return Err(vec![format!(
                "operator: Unsupported value: {other:?}: supported values: {SELECTOR_OPERATORS}"
            )]);
        }
    };
    // `validateLabelValue` puts the key after the value's index: `values[0][app]`.
    for (i, v) in values.iter().enumerate() {
        if let Err(e) = validate_label_value(v) {
            errs.push(format!("values[{i}][{key}]: Invalid value: {v:?}: {e}"));
        }
    }
    if errs.is_empty() {
        Ok(Requirement {
            key: key.to_string(),
            op,
        })
    } else {
        Err(errs)
    }
}

/// An invalid term's field errors written as its one message, so the message is not kept
/// beside the errors it is made of.
fn as_aggregate<S: serde::Serializer>(errs: &[String], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&aggregate(errs))
}

/// The node-selector operators, as `field.NotSupported` lists them.
const SELECTOR_OPERATORS: &str = r#""In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt""#;

/// A value list as Go's `%#v` prints a `[]string` in a field error. Lists come from API
/// objects, where an empty list is absent (nil) rather than empty.
fn go_strings(values: &[String]) -> String {
    if values.is_empty() {
        return "[]string(nil)".to_string();
    }
    let quoted: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    format!("[]string{{{}}}", quoted.join(", "))
}

/// `utilerrors.NewAggregate(errs).Error()` of flattened errors: one error as itself, several
/// in brackets, joined by ", ", each distinct message once.
pub fn aggregate(errs: &[String]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for e in errs {
        if !seen.contains(&e.as_str()) {
            seen.push(e);
        }
    }
    match seen.as_slice() {
        [one] => (*one).to_string(),
        all => format!("[{}]", all.join(", ")),
    }
}

fn is_alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// Matches `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]` (no length limit: upstream checks the
/// length apart, with its own message).
fn is_label_key_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && is_alnum(b[0])
        && is_alnum(b[b.len() - 1])
        && b.iter()
            .all(|&c| is_alnum(c) || c == b'-' || c == b'_' || c == b'.')
}

/// Matches the RFC 1123 subdomain pattern: lowercase alphanumerics, '-' and '.', each
/// dot-separated label starting and ending with an alphanumeric (no length limit).
fn is_dns1123_subdomain(s: &str) -> bool {
    s.split('.').all(|label| {
        let b = label.as_bytes();
        !b.is_empty()
            && (b[0].is_ascii_lowercase() || b[0].is_ascii_digit())
            && (b[b.len() - 1].is_ascii_lowercase() || b[b.len() - 1].is_ascii_digit())
            && b.iter()
                .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
    })
}

// Upstream's messages, verbatim (apimachinery `api/validate/content`: `IsLabelKey`,
// `IsLabelValue`, `IsDNS1123Subdomain`, with `RegexError`'s wording and spacing): they reach
// users in PreScore errors and the API server's rejections, which they match against
// `kubectl describe` and `kubectl apply`.
const LABEL_KEY_PATTERN: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_PATTERN: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const SUBDOMAIN_PATTERN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// `MaxLenError`, as apimachinery's `api/validate/content` words it today ("bytes"). Older
/// releases said "characters" for the same limit, and "a qualified name" where
/// [`label_key_errors`] says "a valid label key": only these two rare messages differ.
fn max_len(n: usize) -> String {
    format!("must be no more than {n} bytes")
}

/// What is wrong with a label key (`IsLabelKey`, formerly `IsQualifiedName`), each problem
/// in upstream's order; empty when the key is valid. A key has an optional RFC 1123
/// subdomain prefix and `/`, then a name of at most 63 bytes.
pub fn label_key_errors(key: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let mut parts = key.split('/');
    let name = match (parts.next(), parts.next(), parts.next()) {
        (Some(name), None, _) => name,
        (Some(prefix), Some(name), None) => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                if prefix.len() > 253 {
                    errs.push(format!("prefix part {}", max_len(253)));
                }
                if !is_dns1123_subdomain(prefix) {
                    errs.push(format!("prefix part {SUBDOMAIN_PATTERN}"));
                }
            }
            name
        }
        _ => {
            return vec![format!(
                "a valid label key {LABEL_KEY_PATTERN} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            )];
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len(63)));
    }
    if !is_label_key_name(name) {
        errs.push(format!("name part {LABEL_KEY_PATTERN}"));
    }
    errs
}

/// What is wrong with a label value (`IsLabelValue`): empty, or a label key's name.
pub fn label_value_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len(63));
    }
    if !value.is_empty() && !is_label_key_name(value) {
        errs.push(LABEL_VALUE_PATTERN.to_string());
    }
    errs
}

/// A label key's problems as one message, joined as `labels.NewRequirement` joins them.
pub fn validate_label_key(key: &str) -> Result<(), String> {
    joined(label_key_errors(key))
}

/// A label value's problems as one message, joined as `labels.NewRequirement` joins them.
pub fn validate_label_value(value: &str) -> Result<(), String> {
    joined(label_value_errors(value))
}

fn joined(errs: Vec<String>) -> Result<(), String> {
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join("; "))
    }
}

/// A node-selector requirement as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub key: String,
    pub operator: String,
    pub values: Vec<String>,
}

/// The outcome of one node-selector requirement against a node, kept for drill-down.
/// Serialized flat: `key`, `operator`, `values`, `nodeValue`, `matched`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequirementCheck {
    /// Shared by every node's check of this requirement (one reference count per node
    /// instead of three): only the node's value and the verdict are per node.
    pub written: Arc<Written>,
    /// The node's label value (for matchExpressions) or field value (for matchFields);
    /// `None` when the node has no such label.
    pub node_value: Option<Arc<str>>,
    pub matched: bool,
}

/// How [`RequirementCheck`] is written: flat, the requirement's fields beside the node's.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RequirementEntry<'a> {
    key: &'a str,
    operator: &'a str,
    values: &'a [String],
    node_value: Option<&'a str>,
    matched: bool,
}

impl Serialize for RequirementCheck {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        RequirementEntry {
            key: &self.written.key,
            operator: &self.written.operator,
            values: &self.written.values,
            node_value: self.node_value.as_deref(),
            matched: self.matched,
        }
        .serialize(s)
    }
}

/// A parsed `NodeSelectorTerm`: matchExpressions AND matchFields.
#[derive(Debug, Clone)]
pub struct NodeSelectorTerm {
    /// The term as written, for explanations.
    pub source: spec::NodeSelectorTerm,
    labels: Option<Vec<Requirement>>,
    /// `metadata.name` equality (`true`) or inequality (`false`) requirements; any other field
    /// key reads as the empty string, as `fields.Set` does.
    fields: Option<Vec<(String, String, bool)>>,
}

/// Why a term can never match, or `None` when it is usable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum TermProblem {
    /// Neither matchExpressions nor matchFields: upstream drops the term.
    Empty,
    /// A parse error; for required terms upstream silently treats the term as never matching.
    Invalid {
        /// Its field errors, paths relative to the term: kept apart for the messages of whole
        /// lists (upstream flattens the terms' errors into one aggregate), written as the
        /// term's own message (`error`).
        #[serde(rename = "error", serialize_with = "as_aggregate")]
        errors: Vec<String>,
    },
}

/// A term as parsed: usable, or with the problem that makes it never match; with each
/// requirement prepared once for the per-node explanations.
#[derive(Debug, Clone)]
pub struct ParsedTerm {
    state: TermState,
    expressions: Arc<[ExprSpec]>,
    fields: Arc<[ExprSpec]>,
}

#[derive(Debug, Clone)]
enum TermState {
    Ok(NodeSelectorTerm),
    Problem(spec::NodeSelectorTerm, TermProblem),
}

/// A requirement as written, and parsed by its literal meaning (`None` when it does not
/// parse: it then matches no node).
#[derive(Debug)]
struct ExprSpec {
    written: Arc<Written>,
    requirement: Option<Requirement>,
}

impl ExprSpec {
    fn of(key: &str, operator: &str, values: Option<&Vec<String>>, label: bool) -> ExprSpec {
        let vals = values.cloned().unwrap_or_default();
        ExprSpec {
            requirement: label
                .then(|| new_requirement(key, operator, &vals).ok())
                .flatten(),
            written: Arc::new(Written {
                key: key.to_string(),
                operator: operator.to_string(),
                values: vals,
            }),
        }
    }

    fn check(&self, node_value: Option<Arc<str>>, matched: bool) -> RequirementCheck {
        RequirementCheck {
            written: self.written.clone(),
            node_value,
            matched,
        }
    }
}

pub fn is_empty_term(t: &spec::NodeSelectorTerm) -> bool {
    t.match_expressions.as_ref().is_none_or(|v| v.is_empty())
        && t.match_fields.as_ref().is_none_or(|v| v.is_empty())
}

impl ParsedTerm {
    /// `newNodeSelectorTerm`; empty terms are reported as such.
    pub fn parse(term: &spec::NodeSelectorTerm) -> ParsedTerm {
        let specs = |list: Option<&Vec<spec::NodeSelectorRequirement>>, label: bool| {
            list.into_iter()
                .flatten()
                .map(|e| ExprSpec::of(&e.key, &e.operator, e.values.as_ref(), label))
                .collect::<Arc<[ExprSpec]>>()
        };
        ParsedTerm {
            state: TermState::parse(term),
            expressions: specs(term.match_expressions.as_ref(), true),
            fields: specs(term.match_fields.as_ref(), false),
        }
    }

    pub fn source(&self) -> &spec::NodeSelectorTerm {
        match &self.state {
            TermState::Ok(t) => &t.source,
            TermState::Problem(s, _) => s,
        }
    }

    pub fn problem(&self) -> Option<&TermProblem> {
        match &self.state {
            TermState::Ok(_) => None,
            TermState::Problem(_, p) => Some(p),
        }
    }

    pub fn matches(&self, node_name: &str, labels: &Labels) -> bool {
        match &self.state {
            TermState::Ok(t) => t.matches(node_name, labels),
            TermState::Problem(..) => false,
        }
    }

    /// Whether the term has matchFields, which read the node's name rather than its labels.
    pub fn reads_fields(&self) -> bool {
        !self.fields.is_empty()
    }

    /// The label keys of the term's matchExpressions, in order.
    pub fn expression_keys(&self) -> impl Iterator<Item = &str> {
        self.expressions.iter().map(|e| e.written.key.as_str())
    }

    /// Every requirement of the term with the node's actual value, given by `value_of`
    /// (expression index, key -> value) so a caller holding the values shared hands them out
    /// without a lookup in the node's label map or a copy. Parse-invalid requirements are
    /// still shown, evaluated by their literal meaning, but the term never matches.
    pub fn explain_with(
        &self,
        node_name: &str,
        mut value_of: impl FnMut(usize, &str) -> Option<Arc<str>>,
    ) -> TermCheck {
        let expressions = self
            .expressions
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let value = value_of(i, &e.written.key);
                let matched = e
                    .requirement
                    .as_ref()
                    .is_some_and(|r| r.matches_value(value.as_deref()));
                e.check(value, matched)
            })
            .collect::<smallvec::SmallVec<[RequirementCheck; 2]>>();
        let fields = self
            .fields
            .iter()
            .map(|e| {
                let value = field_value(&e.written.key, node_name);
                let matched = match (e.written.operator.as_str(), e.written.values.as_slice()) {
                    ("In", [v]) => value == *v,
                    ("NotIn", [v]) => value != *v,
                    _ => false,
                };
                e.check(Some(Arc::from(value)), matched)
            })
            .collect::<Vec<_>>();
        // What `matches` decides, from the checks just made: a usable term's requirements
        // are exactly these (fields are skipped for a node without a name, as upstream does).
        let matched = self.problem().is_none()
            && expressions.iter().all(|c| c.matched)
            && (node_name.is_empty() || fields.iter().all(|c| c.matched));
        TermCheck {
            matched,
            problem: self.problem().cloned(),
            match_expressions: expressions,
            match_fields: fields,
        }
    }
}

impl TermState {
    fn parse(term: &spec::NodeSelectorTerm) -> TermState {
        if is_empty_term(term) {
            return TermState::Problem(term.clone(), TermProblem::Empty);
        }
        let mut errs = Vec::new();
        let mut labels = None;
        if let Some(exprs) = term.match_expressions.as_ref().filter(|v| !v.is_empty()) {
            let mut reqs = Vec::with_capacity(exprs.len());
            for (i, e) in exprs.iter().enumerate() {
                let vals = e.values.as_deref().unwrap_or_default();
                match new_requirement(&e.key, &e.operator, vals) {
                    Ok(r) => reqs.push(r),
                    Err(err) => errs.extend(
                        err.into_iter()
                            .map(|e| format!("matchExpressions[{i}].{e}")),
                    ),
                }
            }
            labels = Some(reqs);
        }
        let mut fields = None;
        if let Some(exprs) = term.match_fields.as_ref().filter(|v| !v.is_empty()) {
            let mut reqs = Vec::with_capacity(exprs.len());
            for (i, e) in exprs.iter().enumerate() {
                let vals = e.values.as_deref().unwrap_or_default();
                match e.operator.as_str() {
                    "In" | "NotIn" if vals.len() == 1 => {
                        reqs.push((e.key.clone(), vals[0].clone(), e.operator == "In"))
                    }
                    "In" | "NotIn" => errs.push(format!(
                        "matchFields[{i}].values: Invalid value: {}: must have one element",
                        go_strings(vals)
                    )),
                    other => errs.push(format!(
                        r#"matchFields[{i}].operator: Unsupported value: {other:?}: supported values: "In", "NotIn""#
                    )),
                }
            }
            fields = Some(reqs);
        }
        if errs.is_empty() {
            TermState::Ok(NodeSelectorTerm {
                source: term.clone(),
                labels,
                fields,
            })
        } else {
            TermState::Problem(term.clone(), TermProblem::Invalid { errors: errs })
        }
    }
}

/// `fields.Set{"metadata.name": node.Name}`: every other key reads as "".
fn field_value<'a>(key: &str, node_name: &'a str) -> &'a str {
    if key == "metadata.name" {
        node_name
    } else {
        ""
    }
}

impl NodeSelectorTerm {
    fn matches(&self, node_name: &str, labels: &Labels) -> bool {
        if let Some(reqs) = &self.labels
            && !reqs.iter().all(|r| r.matches(labels))
        {
            return false;
        }
        // Upstream skips field requirements when the node has no name (never for real nodes).
        if let Some(fields) = &self.fields
            && !node_name.is_empty()
        {
            return fields
                .iter()
                .all(|(k, v, eq)| (field_value(k, node_name) == v) == *eq);
        }
        true
    }
}

/// A term's verdict on one node with each requirement's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TermCheck {
    pub matched: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<TermProblem>,
    /// Inline for up to two requirements, the usual term: this is made for every node.
    pub match_expressions: smallvec::SmallVec<[RequirementCheck; 2]>,
    pub match_fields: Vec<RequirementCheck>,
}

/// A `NodeSelector` in upstream's "lazy error" form: terms ORed; invalid or empty terms never
/// match; no usable term => matches nothing.
#[derive(Debug, Clone)]
pub struct NodeSelector {
    pub terms: Vec<ParsedTerm>,
}

impl NodeSelector {
    pub fn parse(sel: &spec::NodeSelector) -> NodeSelector {
        NodeSelector {
            terms: sel
                .node_selector_terms
                .iter()
                .map(ParsedTerm::parse)
                .collect(),
        }
    }

    pub fn matches(&self, node_name: &str, labels: &Labels) -> bool {
        self.terms.iter().any(|t| t.matches(node_name, labels))
    }

    /// Every term explained, with values from `value_of` (term index, expression index,
    /// key -> value); see [`ParsedTerm::explain_with`].
    pub fn explain_with(
        &self,
        node_name: &str,
        mut value_of: impl FnMut(usize, usize, &str) -> Option<Arc<str>>,
    ) -> SelectorCheck {
        let terms: smallvec::SmallVec<[TermCheck; 1]> = self
            .terms
            .iter()
            .enumerate()
            .map(|(t, term)| term.explain_with(node_name, |e, key| value_of(t, e, key)))
            .collect();
        SelectorCheck {
            matched: terms.iter().any(|t| t.matched),
            terms,
        }
    }

    /// The parse errors of the whole selector, as `NewNodeSelector` gives them for the strict
    /// variant (`addedAffinity` must be valid): every term's field errors, flattened, each
    /// path from `nodeSelectorTerms[i]` on (see [`aggregate`] to join them).
    pub fn errors(&self) -> Vec<String> {
        self.terms
            .iter()
            .enumerate()
            .flat_map(|(i, t)| match t.problem() {
                Some(TermProblem::Invalid { errors }) => errors
                    .iter()
                    .map(|e| format!("nodeSelectorTerms[{i}].{e}"))
                    .collect(),
                _ => Vec::new(),
            })
            .collect()
    }
}

/// A selector's verdict on one node, term by term.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectorCheck {
    pub matched: bool,
    /// Inline for a selector's usual single term.
    pub terms: smallvec::SmallVec<[TermCheck; 1]>,
}

/// Preferred scheduling terms as upstream parses them: weight-0 and empty terms are dropped
/// without validation; any other invalid term is an error for the whole list.
#[derive(Debug, Clone)]
pub struct PreferredTerms {
    pub terms: Vec<(i32, ParsedTerm)>,
}

impl PreferredTerms {
    /// The terms, or every field error of the invalid ones, each path from the term's index
    /// on (`[i].matchExpressions[j]...`; see [`aggregate`] to join them).
    pub fn parse(terms: &[spec::PreferredSchedulingTerm]) -> Result<PreferredTerms, Vec<String>> {
        let mut out = Vec::new();
        let mut errs = Vec::new();
        for (i, t) in terms.iter().enumerate() {
            if t.weight == 0 || is_empty_term(&t.preference) {
                continue;
            }
            let parsed = ParsedTerm::parse(&t.preference);
            if let Some(TermProblem::Invalid { errors }) = parsed.problem() {
                errs.extend(errors.iter().map(|e| format!("[{i}].{e}")));
            }
            out.push((t.weight, parsed));
        }
        if errs.is_empty() {
            Ok(PreferredTerms { terms: out })
        } else {
            Err(errs)
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn req(key: &str, op: &str, vals: &[&str]) -> Result<Requirement, String> {
        let vals: Vec<String> = vals.iter().map(|s| s.to_string()).collect();
        new_requirement(key, op, &vals).map_err(|e| aggregate(&e))
    }

    #[test]
    fn requirement_table() {
        let node = labels(&[("zone", "a"), ("empty", ""), ("gen", "0206"), ("txt", "x1")]);
        // (key, op, values, expected match)
        let cases: &[(&str, &str, &[&str], bool)] = &[
            ("zone", "In", &["a", "b"], true),
            ("zone", "In", &["b"], false),
            ("missing", "In", &["a"], false),
            ("zone", "NotIn", &["a"], false),
            ("missing", "NotIn", &["a"], true),
            ("zone", "Exists", &[], true),
            ("empty", "Exists", &[], true),
            ("empty", "In", &[""], true),
            ("missing", "Exists", &[], false),
            ("empty", "DoesNotExist", &[], false),
            ("missing", "DoesNotExist", &[], true),
            ("gen", "Gt", &["0204"], true),
            ("gen", "Gt", &["206"], false),
            ("gen", "Lt", &["207"], true),
            ("txt", "Gt", &["1"], false),
            ("txt", "Lt", &["1"], false),
            ("missing", "Gt", &["1"], false),
            ("missing", "Lt", &["1"], false),
        ];
        for (key, op, vals, want) in cases {
            let r = req(key, op, vals).unwrap_or_else(|e| panic!("{key} {op} {vals:?}: {e}"));
            assert_eq!(r.matches(&node), *want, "{key} {op} {vals:?}");
        }
    }

    #[test]
    fn requirement_parse_errors() {
        let bad: &[(&str, &str, &[&str])] = &[
            ("zone", "In", &[]),
            ("zone", "NotIn", &[]),
            ("zone", "Exists", &["a"]),
            ("zone", "DoesNotExist", &["a"]),
            ("zone", "Gt", &["1", "2"]),
            ("zone", "Gt", &[]),
            ("zone", "Gt", &["1.5"]),
            ("zone", "Lt", &["abc"]),
            ("zone", "Gt", &["-5"]),
            ("zone", "Gt", &["99999999999999999999"]),
            ("zone", "in", &["a"]),
            ("zone", "Equals", &["a"]),
            ("invalid key", "Exists", &[]),
            ("zone", "NotIn", &["invalid value: ___@#$%^"]),
            ("Example.com/zone", "Exists", &[]),
            ("/zone", "Exists", &[]),
            ("", "Exists", &[]),
        ];
        for (key, op, vals) in bad {
            assert!(
                req(key, op, vals).is_err(),
                "{key} {op} {vals:?} should fail"
            );
        }
        assert!(req("example.com/zone", "Exists", &[]).is_ok());
        assert!(req("a", "In", &[""]).is_ok());
        assert!(req("a", "Gt", &["0204"]).is_ok());
    }

    #[test]
    fn label_selector_nil_empty_and_operators() {
        let l = labels(&[("app", "web")]);
        assert!(!LabelSelector::from_api(None).unwrap().matches(&l));
        let empty = spec::LabelSelector::default();
        assert!(LabelSelector::from_api(Some(&empty)).unwrap().matches(&l));
        let gt = spec::LabelSelector {
            match_expressions: Some(vec![spec::LabelSelectorRequirement {
                key: "app".into(),
                operator: "Gt".into(),
                values: Some(vec!["1".into()]),
            }]),
            ..Default::default()
        };
        assert!(LabelSelector::from_api(Some(&gt)).is_err());
        let ml = spec::LabelSelector {
            match_labels: Some([("app".to_string(), "web".to_string())].into()),
            ..Default::default()
        };
        assert!(LabelSelector::from_api(Some(&ml)).unwrap().matches(&l));
        assert!(
            !LabelSelector::from_api(Some(&ml))
                .unwrap()
                .matches(&labels(&[]))
        );
    }

    fn term(
        exprs: &[(&str, &str, &[&str])],
        fields: &[(&str, &str, &[&str])],
    ) -> spec::NodeSelectorTerm {
        let mk = |v: &[(&str, &str, &[&str])]| {
            v.iter()
                .map(|(k, o, vals)| spec::NodeSelectorRequirement {
                    key: k.to_string(),
                    operator: o.to_string(),
                    values: Some(vals.iter().map(|s| s.to_string()).collect()),
                })
                .collect::<Vec<_>>()
        };
        spec::NodeSelectorTerm {
            match_expressions: Some(mk(exprs)),
            match_fields: Some(mk(fields)),
        }
    }

    #[test]
    fn node_selector_terms() {
        let l = labels(&[("foo", "bar"), ("metadata.name", "node-x")]);
        let name_in = term(&[], &[("metadata.name", "In", &["n1"])]);
        assert!(ParsedTerm::parse(&name_in).matches("n1", &l));
        assert!(!ParsedTerm::parse(&name_in).matches("n2", &l));
        // A label called metadata.name is not the name, and vice versa.
        let label_named = term(&[("metadata.name", "In", &["n1"])], &[]);
        assert!(!ParsedTerm::parse(&label_named).matches("n1", &l));
        let other_field = term(&[], &[("spec.x", "NotIn", &["a"])]);
        assert!(ParsedTerm::parse(&other_field).matches("n1", &l));
        let other_field_in = term(&[], &[("spec.x", "In", &["a"])]);
        assert!(!ParsedTerm::parse(&other_field_in).matches("n1", &l));
        let two_values = term(&[], &[("metadata.name", "In", &["n1", "n2"])]);
        assert!(matches!(
            ParsedTerm::parse(&two_values).problem(),
            Some(TermProblem::Invalid { .. })
        ));
        let exists_field = term(&[], &[("metadata.name", "Exists", &[])]);
        assert!(ParsedTerm::parse(&exists_field).problem().is_some());
        let empty = term(&[], &[]);
        assert_eq!(
            ParsedTerm::parse(&empty).problem(),
            Some(&TermProblem::Empty)
        );
        // Label AND field within one term.
        let both = term(
            &[("foo", "In", &["bar"])],
            &[("metadata.name", "In", &["n1"])],
        );
        assert!(ParsedTerm::parse(&both).matches("n1", &l));
        assert!(!ParsedTerm::parse(&both).matches("n2", &l));
        // An invalid NotIn value makes the whole term never match.
        let bad_notin = term(&[("foo", "NotIn", &["___@#$%^"])], &[]);
        assert!(!ParsedTerm::parse(&bad_notin).matches("n1", &l));
        // Selector: ORed terms, no usable term matches nothing.
        let sel = NodeSelector::parse(&spec::NodeSelector {
            node_selector_terms: vec![bad_notin.clone(), term(&[("foo", "Exists", &[])], &[])],
        });
        assert!(sel.matches("n1", &l));
        let none = NodeSelector::parse(&spec::NodeSelector {
            node_selector_terms: vec![],
        });
        assert!(!none.matches("n1", &l));
        assert!(!sel.errors().is_empty());
    }

    #[test]
    fn preferred_terms_skip_zero_weight_and_empty_and_reject_invalid() {
        let good = spec::PreferredSchedulingTerm {
            weight: 5,
            preference: term(&[("foo", "In", &["bar"])], &[]),
        };
        let zero_invalid = spec::PreferredSchedulingTerm {
            weight: 0,
            preference: term(&[("foo", "Bogus", &[])], &[]),
        };
        let empty = spec::PreferredSchedulingTerm {
            weight: 7,
            preference: term(&[], &[]),
        };
        let p = PreferredTerms::parse(&[good.clone(), zero_invalid, empty]).unwrap();
        assert_eq!(p.terms.len(), 1);
        assert_eq!(p.terms[0].0, 5);
        assert!(p.terms[0].1.matches("n", &labels(&[("foo", "bar")])));
        let invalid = spec::PreferredSchedulingTerm {
            weight: 3,
            preference: term(&[("bad key!", "Exists", &[])], &[]),
        };
        assert!(PreferredTerms::parse(&[good, invalid]).is_err());
    }

    /// An invalid term is written with its own message under `error` (the report's JSON),
    /// and its field errors joined as upstream joins them.
    #[test]
    fn an_invalid_term_is_written_with_its_message() {
        let one = ParsedTerm::parse(&term(&[("a", "In", &[])], &[]));
        assert_eq!(
            serde_json::to_value(one.problem()).unwrap(),
            serde_json::json!({"kind": "invalid",
                "error": "matchExpressions[0].values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"})
        );
        let two = ParsedTerm::parse(&term(&[("a", "In", &[]), ("b c", "Exists", &[])], &[]));
        let written = serde_json::to_value(two.problem()).unwrap();
        let error = written["error"].as_str().unwrap();
        assert!(
            error.starts_with("[matchExpressions[0].values: ")
                && error.contains(", matchExpressions[1].key: Invalid value: \"b c\": ")
                && error.ends_with(']'),
            "{error}"
        );
    }

    /// node_affinity_test.go, TestNodeAffinityPriority, "PreScore returns error when an
    /// incoming Pod has a broken affinity": the PreScore status message, verbatim (its path
    /// starts at the term's index, not at `preference`).
    #[test]
    fn a_broken_preferred_term_fails_with_upstreams_message() {
        let broken = spec::PreferredSchedulingTerm {
            weight: 2,
            preference: term(&[("invalid key", "In", &["bar"])], &[]),
        };
        assert_eq!(
            aggregate(&PreferredTerms::parse(&[broken]).unwrap_err()),
            "[0].matchExpressions[0].key: Invalid value: \"invalid key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        );
        // Several errors, over terms and kinds, flattened into one aggregate: in brackets,
        // joined by ", ", in upstream's order; Go's `%#v` for value lists.
        let many = [
            spec::PreferredSchedulingTerm {
                weight: 1,
                preference: term(&[("a", "Bogus", &[]), ("b", "In", &[])], &[]),
            },
            spec::PreferredSchedulingTerm {
                weight: 1,
                preference: term(&[], &[("metadata.name", "In", &["x", "y"])]),
            },
        ];
        assert_eq!(
            aggregate(&PreferredTerms::parse(&many).unwrap_err()),
            "[[0].matchExpressions[0].operator: Unsupported value: \"Bogus\": supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\", [0].matchExpressions[1].values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty, [1].matchFields[0].values: Invalid value: []string{\"x\", \"y\"}: must have one element]"
        );
    }

    /// apimachinery's `IsLabelKey` and `IsLabelValue`: every problem, in upstream's order and
    /// words.
    #[test]
    fn label_key_and_value_problems_are_upstreams() {
        let name = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
        let subdomain = "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
        for ok in [
            "a",
            "example.com/My_name-1.x",
            "topology.kubernetes.io/zone",
            &"a".repeat(63),
        ] {
            assert!(label_key_errors(ok).is_empty(), "{ok}");
        }
        assert_eq!(label_key_errors("-a"), [name]);
        assert_eq!(label_key_errors(""), ["name part must be non-empty", name]);
        assert_eq!(
            label_key_errors(&"a".repeat(64)),
            ["name part must be no more than 63 bytes"]
        );
        assert_eq!(label_key_errors("/a"), ["prefix part must be non-empty"]);
        assert_eq!(label_key_errors("Example.com/a"), [subdomain]);
        assert_eq!(
            label_key_errors(&format!("{}/a", "a".repeat(254))),
            ["prefix part must be no more than 253 bytes"]
        );
        assert_eq!(
            label_key_errors("a/b/c"),
            [
                "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            ]
        );
        assert_eq!(
            validate_label_key("example.com/"),
            Err(format!("name part must be non-empty; {name}"))
        );
        let value = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
        assert!(label_value_errors("").is_empty());
        assert!(label_value_errors(&"v".repeat(63)).is_empty());
        assert_eq!(label_value_errors("a b"), [value]);
        assert_eq!(
            label_value_errors(&"v".repeat(64)),
            ["must be no more than 63 bytes"]
        );
        assert_eq!(
            label_value_errors(&format!("-{}", "v".repeat(63))),
            ["must be no more than 63 bytes", value]
        );
    }

    /// `explain_with` derives a term's verdict from its requirement checks instead of
    /// matching again: it must agree with `matches` for every kind of term, including field
    /// requirements on a node without a name (skipped upstream) and invalid terms.
    #[test]
    fn explained_verdict_agrees_with_matches() {
        let terms = [
            term(&[("zone", "In", &["a", "b"])], &[]),
            term(&[("zone", "NotIn", &["a"]), ("gpu", "Exists", &[])], &[]),
            term(&[("size", "Gt", &["4"])], &[]),
            term(&[("zone", "Bogus", &["a"])], &[]),
            term(&[], &[("metadata.name", "In", &["n1"])]),
            term(
                &[("zone", "In", &["a"])],
                &[("metadata.name", "NotIn", &["n1"])],
            ),
            term(&[], &[]),
        ];
        let nodes = [
            labels(&[("zone", "a")]),
            labels(&[("zone", "c"), ("gpu", "1"), ("size", "8")]),
            labels(&[("size", "four")]),
            Labels::new(),
        ];
        for t in &terms {
            let parsed = ParsedTerm::parse(t);
            for l in &nodes {
                for name in ["n1", "n2", ""] {
                    let check = parsed.explain_with(name, |_, k| l.get(k).map(Arc::from));
                    assert_eq!(
                        check.matched,
                        parsed.matches(name, l),
                        "{t:?} on {name} {l:?}"
                    );
                }
            }
        }
    }
}
