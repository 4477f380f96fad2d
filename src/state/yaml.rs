//! The one place that names the YAML crate.
//!
//! serde-saphyr is used because it is what kube 5 itself depends on (one YAML stack in the
//! binary), it is maintained, and it enforces a parsing budget against alias bombs; serde_yaml
//! is archived and only published as `+deprecated`.
//!
//! The budget is explicit and scales with the input, and it bounds what the input expands to,
//! not how it is written: kubectl reads anchors, aliases and `<<` merge keys (sigs.k8s.io/yaml
//! expands them with go-yaml), so any number of them is accepted (PyYAML writes an anchor for
//! every object it meets twice, manifests share `resources: *res`), while a YAML stream may
//! hold at most as many nodes as it has bytes, and produce at most twice as many parser events
//! and twice as many scalar bytes, counting what every alias replays. Memory stays
//! proportional to the input (itself capped by `read::input_limit`) however the aliases nest,
//! and an alias bomb is refused with what it is. A 6,000-pod `kubectl get -o yaml` needs about
//! 1.5 million nodes, far above the crate's fixed defaults (250,000 nodes, 1,024 documents),
//! which would refuse it.

use serde::Serialize;
use serde_saphyr::budget::BudgetBreach;

/// Deepest nesting read in YAML (serde_json's own recursion limit, for JSON, is 128).
/// Kubernetes objects nest about 20 levels deep at most (managedFields included); deeper
/// YAML would only risk the stack of the recursive deserializer (a test thread's 2 MiB holds
/// 64 levels in a debug build, not 128).
pub const MAX_DEPTH: usize = 64;

/// The least of each bound, for inputs of a few bytes: an empty stream is already four events.
const FLOOR: usize = 1 << 16;

/// The parsing budget for an input of `len` bytes: what it expands to, proportional to it.
fn budget(len: usize) -> serde_saphyr::Budget {
    let mut b = serde_saphyr::Budget::default();
    let twice = len.saturating_mul(2).max(FLOOR);
    b.max_nodes = len.max(FLOOR);
    b.max_events = twice;
    b.max_total_scalar_bytes = twice;
    // `---\n` is four bytes.
    b.max_documents = (len / 4).max(b.max_documents);
    b.max_depth = MAX_DEPTH;
    b.flow_nesting_limit = MAX_DEPTH;
    // Aliases and anchors are not counted: what they expand to is, above. The copies kept of
    // anchored nodes (one per anchor they are inside) are bounded the same way.
    b.max_aliases = usize::MAX;
    b.max_anchors = usize::MAX;
    b.enforce_alias_anchor_ratio = false;
    b.max_merge_keys = usize::MAX;
    b.max_recorded_anchor_events = twice;
    b.max_recorded_anchor_bytes = twice;
    b
}

/// The options every reading uses, for an input of `len` bytes.
fn options(len: usize) -> serde_saphyr::Options {
    serde_saphyr::options! {
        budget: Some(budget(len)),
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: len.saturating_mul(2).max(FLOOR),
            max_replay_stack_depth: MAX_DEPTH,
        },
    }
}

/// Parses every YAML document of `text` into generic JSON values, reading a float too large
/// for 64 bits as kubectl does (see [`resolve_non_finite`]).
pub(super) fn documents(text: &str) -> Result<Vec<serde_json::Value>, String> {
    if let Ok(docs) = to_json(parse::<false>(text)?, text) {
        return docs;
    }
    // A float serde-saphyr found infinite (`3e505426`): read again, keeping where each scalar
    // is, to resolve it from its text. Keeping places costs stack per level, so this rarer
    // reading runs on a thread with room for `MAX_DEPTH` levels.
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("yaml".into())
            .stack_size(PLACED_STACK)
            .spawn_scoped(scope, || {
                to_json(parse::<true>(text)?, text).unwrap_or_else(|Unplaced| Err(unplaced()))
            })
            .map_err(|e| format!("cannot start a thread to read the YAML: {e}"))?
            .join()
            .unwrap_or_else(|_| Err(unplaced()))
    })
}

fn to_json(
    docs: Vec<Node>,
    text: &str,
) -> Result<Result<Vec<serde_json::Value>, String>, Unplaced> {
    let mut out = Vec::with_capacity(docs.len());
    for doc in docs {
        match doc.into_json(text)? {
            Ok(v) => out.push(v),
            Err(e) => return Ok(Err(e)),
        }
    }
    Ok(Ok(out))
}

/// The stack of the thread that reads YAML keeping each scalar's place: 64 levels take about
/// 2.5 MiB in a debug build.
const PLACED_STACK: usize = 16 << 20;

fn unplaced() -> String {
    "a float that is not finite, which JSON and Kubernetes objects cannot hold".to_string()
}

/// Reads every document; with `PLACED`, each resolved scalar keeps where it is in `text`.
fn parse<const PLACED: bool>(text: &str) -> Result<Vec<Node>, String> {
    let mut options = options(text.len());
    // `3e505426` reaches `Node` as infinity, and is then read from its source text.
    options.non_finite_float_policy = serde_saphyr::NonFiniteFloatPolicy::PassThrough;
    serde_saphyr::from_multiple_with_options::<Parsed<PLACED>>(text, options)
        .map(|docs| docs.into_iter().map(|Parsed(node)| node).collect())
        .map_err(|e| describe(&e))
}

/// A non-finite float met without its place: read again with places.
struct Unplaced;

/// One YAML node as serde-saphyr reads it, where a float it found infinite may keep the place
/// of its source text, to be resolved again as kubectl resolves it.
#[derive(Debug)]
enum Node {
    Null,
    Str(String),
    /// A plain scalar serde-saphyr read as a boolean or number (`None`: a float that is not
    /// finite, which JSON cannot hold).
    Scalar(Option<serde_json::Value>),
    /// A float that is not finite, and where it was defined: filled in by the collection
    /// holding it, when reading with places.
    NonFinite(serde_saphyr::Location),
    Seq(Vec<Node>),
    Map(Vec<(String, Node)>),
}

impl Node {
    /// Records where a non-finite float was defined (its anchor's place, for an alias).
    fn placed(node: Node, defined: serde_saphyr::Location) -> Self {
        match node {
            Node::Scalar(None) => Node::NonFinite(defined),
            node => node,
        }
    }

    /// The JSON value; a non-finite float without its place is [`Unplaced`]; with its place,
    /// resolved from its text (kubectl reads `3e505426` as a string) or refused (`.inf`).
    fn into_json(self, text: &str) -> Result<Result<serde_json::Value, String>, Unplaced> {
        use serde_json::Value;
        Ok(Ok(match self {
            Node::Null => Value::Null,
            Node::Str(s) => Value::String(s),
            Node::Scalar(Some(value)) => value,
            Node::Scalar(None) => return Err(Unplaced),
            Node::NonFinite(at) => {
                let span = at.span();
                let raw = span
                    .byte_offset()
                    .zip(span.byte_len())
                    .and_then(|(start, len)| {
                        let start = usize::try_from(start).ok()?;
                        text.get(start..start.checked_add(usize::try_from(len).ok()?)?)
                    });
                match raw.and_then(resolve_non_finite) {
                    Some(resolved) => resolved,
                    None => {
                        let where_ = if at.line() > 0 {
                            format!("line {} column {}: ", at.line(), at.column())
                        } else {
                            String::new()
                        };
                        let raw = raw
                            .map(|r| format!("`{}` is ", r.trim()))
                            .unwrap_or_default();
                        return Ok(Err(format!(
                            "{where_}{raw}{} (quote it if it is a string)",
                            unplaced()
                        )));
                    }
                }
            }
            Node::Seq(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    match item.into_json(text)? {
                        Ok(v) => out.push(v),
                        Err(e) => return Ok(Err(e)),
                    }
                }
                Value::Array(out)
            }
            Node::Map(entries) => {
                let mut out = serde_json::Map::new();
                for (k, item) in entries {
                    match item.into_json(text)? {
                        Ok(v) => {
                            out.insert(k, v);
                        }
                        Err(e) => return Ok(Err(e)),
                    }
                }
                Value::Object(out)
            }
        }))
    }
}

/// A [`Node`] read by serde; with `PLACED`, each child keeps its place.
struct Parsed<const PLACED: bool>(Node);

impl<'de, const PLACED: bool> serde::Deserialize<'de> for Parsed<PLACED> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor::<PLACED>).map(Parsed)
    }
}

/// A child node: with `PLACED`, through `Spanned` for where it was defined.
fn child<'de, const PLACED: bool, D: serde::Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
    use serde::Deserialize;
    if PLACED {
        serde_saphyr::Spanned::<Parsed<true>>::deserialize(d)
            .map(|s| Node::placed(s.value.0, s.defined))
    } else {
        Parsed::<false>::deserialize(d).map(|p| p.0)
    }
}

struct Child<const PLACED: bool>;

impl<'de, const PLACED: bool> serde::de::DeserializeSeed<'de> for Child<PLACED> {
    type Value = Node;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        child::<PLACED, D>(d)
    }
}

struct NodeVisitor<const PLACED: bool>;

impl<'de, const PLACED: bool> serde::de::Visitor<'de> for NodeVisitor<PLACED> {
    type Value = Node;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a YAML node")
    }
    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Scalar(Some(v.into())))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Scalar(Some(v.into())))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Scalar(Some(v.into())))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Scalar(
            serde_json::Number::from_f64(v).map(serde_json::Value::Number),
        ))
    }
    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Ok(Node::Str(v))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(Child::<PLACED>)? {
            items.push(item);
        }
        Ok(Node::Seq(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0));
        // Keys are read as strings: a key in a Kubernetes object always is one.
        while let Some(key) = map.next_key::<String>()? {
            entries.push((key, map.next_value_seed(Child::<PLACED>)?));
        }
        Ok(Node::Map(entries))
    }
}

/// A plain scalar serde-saphyr read as a float that is not finite, as kubectl's YAML reader
/// resolves it: sigs.k8s.io/yaml resolves with its fork of go-yaml v2 (`goyaml.v2/resolve.go`),
/// which reads `.inf` and `.nan` (in its spellings) as floats, which JSON cannot hold, and
/// any other float too large for 64 bits as a string, since Go's `ParseFloat` refuses it.
/// `kubectl get -o yaml` therefore writes `3e505426` (a label value, a commit hash) unquoted,
/// where YAML 1.2 reads infinity. `None`: refused.
fn resolve_non_finite(raw: &str) -> Option<serde_json::Value> {
    let s = raw.trim();
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    let go_yaml_float =
        matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(s, ".nan" | ".NaN" | ".NAN");
    (!go_yaml_float).then(|| serde_json::Value::String(s.to_string()))
}

/// A one-line message: where, and what was exceeded in words a user can act on.
fn describe(e: &serde_saphyr::Error) -> String {
    let mut inner = e.without_snippet();
    while let serde_saphyr::Error::AliasError { error, .. } = inner {
        inner = error.without_snippet();
    }
    let at = e
        .location()
        .or_else(|| inner.location())
        .filter(|l| l.line() > 0)
        .map(|l| format!("line {} column {}: ", l.line(), l.column()))
        .unwrap_or_default();
    let expands = "YAML aliases (*name) expand it far beyond its size (an alias bomb?); \
                   write the anchored values out where they are used";
    let serde_saphyr::Error::Budget { breach, .. } = inner else {
        return match inner {
            serde_saphyr::Error::AliasReplayLimitExceeded { .. }
            | serde_saphyr::Error::AliasReplayCounterOverflow { .. } => format!("{at}{expands}"),
            serde_saphyr::Error::AliasReplayStackDepthExceeded { .. } => format!(
                "{at}aliases nested more than {MAX_DEPTH} levels deep, deeper than any \
                 Kubernetes object"
            ),
            other => other.to_string(),
        };
    };
    match breach {
        BudgetBreach::Depth { .. } => format!(
            "{at}nested more than {MAX_DEPTH} levels deep, deeper than any Kubernetes object"
        ),
        BudgetBreach::Documents { documents } => {
            format!("{at}more than {} documents", documents.saturating_sub(1))
        }
        BudgetBreach::Aliases { .. }
        | BudgetBreach::Anchors { .. }
        | BudgetBreach::AliasAnchorRatio { .. }
        | BudgetBreach::Nodes { .. }
        | BudgetBreach::Events { .. }
        | BudgetBreach::ScalarBytes { .. }
        | BudgetBreach::MergeKeys { .. }
        | BudgetBreach::RecordedAnchorEvents { .. }
        | BudgetBreach::RecordedAnchorBytes { .. } => format!("{at}{expands}"),
        other => format!("{at}parsing limit exceeded ({other:?})"),
    }
}

/// Where [`list_items`] reads from: text in memory, or a file of `len` bytes read as it is
/// parsed, so that its text is never held whole.
pub(super) enum Source<'a> {
    Text(&'a str),
    Reader(&'a mut dyn std::io::Read, usize),
}

/// Takes the items of a YAML `List` one at a time, as [`list_items`] reads them.
pub(super) trait ItemSink {
    /// One item, through a deserializer that reads values as they read once converted to JSON
    /// (see [`list_items`]). An error ends the read.
    fn item<'de, D: serde::Deserializer<'de>>(&mut self, item: D) -> Result<(), D::Error>;
}

/// What [`list_items`] found besides the items.
#[derive(Debug)]
pub(super) struct List {
    /// The document's `kind` (`None`: it has none).
    pub(super) kind: Option<String>,
    /// How many items were handed over.
    pub(super) items: usize,
}

/// Reads one YAML document that is a mapping with an `items` sequence (`kubectl get -o yaml`,
/// `kubectl affinity snapshot`), handing each item to `sink` as soon as it is parsed, so that
/// no generic tree of the document is ever built. Every value reaches the sink as it would
/// through [`documents`] and `serde_json::Value`: a scalar as the YAML reader resolves it
/// (`true`, `80`, `1.5`, null) and refused by a type that does not take it, never read as
/// the string it was written as. `None` for any other shape, any error (of the text, of the
/// sink) and any float that is not finite (which [`documents`] resolves from its text): the
/// caller then reads the input the general way, which names the problem.
pub(super) fn list_items(source: Source<'_>, sink: &mut impl ItemSink) -> Option<List> {
    let seed = |d: serde_saphyr::Deserializer<'_, '_>| {
        serde::de::DeserializeSeed::deserialize(ListSeed(&mut *sink), d)
    };
    match source {
        Source::Text(text) => {
            serde_saphyr::with_deserializer_from_str_with_options(text, options(text.len()), seed)
                .ok()
        }
        Source::Reader(reader, len) => {
            let mut options = options(len);
            // The caller bounds the input.
            if let Some(b) = options.budget.as_mut() {
                b.max_reader_input_bytes = None;
            }
            serde_saphyr::with_deserializer_from_reader_with_options(reader, options, seed).ok()
        }
    }
}

/// The list document: `kind`, `items` (each handed to the sink), any other field checked as
/// [`documents`] would read it and dropped.
struct ListSeed<'s, S>(&'s mut S);

impl<'de, S: ItemSink> serde::de::DeserializeSeed<'de> for ListSeed<'_, S> {
    type Value = List;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<List, D::Error> {
        use serde::Deserializer;
        AsJson(d).deserialize_map(self)
    }
}

impl<'de, S: ItemSink> serde::de::Visitor<'de> for ListSeed<'_, S> {
    type Value = List;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a List")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<List, A::Error> {
        use serde::de::Error;
        let (mut kind, mut items) = (None, None);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "kind" if kind.is_none() => kind = Some(map.next_value::<Option<String>>()?),
                "items" if items.is_none() => {
                    items = Some(map.next_value_seed(ItemsSeed(&mut *self.0))?);
                }
                "kind" | "items" => return Err(A::Error::custom("a field given twice")),
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(List {
            kind: kind.flatten(),
            items: items.ok_or_else(|| A::Error::custom("no items"))?,
        })
    }
}

/// `items`: a sequence, each element handed to the sink.
struct ItemsSeed<'s, S>(&'s mut S);

impl<'de, S: ItemSink> serde::de::DeserializeSeed<'de> for ItemsSeed<'_, S> {
    type Value = usize;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, S: ItemSink> serde::de::Visitor<'de> for ItemsSeed<'_, S> {
    type Value = usize;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a sequence")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let mut count = 0;
        while seq.next_element_seed(ItemSeed(&mut *self.0))?.is_some() {
            count += 1;
        }
        Ok(count)
    }
}

struct ItemSeed<'s, S>(&'s mut S);

impl<'de, S: ItemSink> serde::de::DeserializeSeed<'de> for ItemSeed<'_, S> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.0.item(d)
    }
}

/// A YAML value read as `serde_json::Value` would hand it on once [`documents`] made it one:
/// every request goes to the YAML reader's `deserialize_any`, so a scalar arrives as what YAML
/// resolved it to (where serde-saphyr's typed requests would read a plain `true` as the string
/// a `String` asks for), options are null or not, newtypes are transparent, an enum is a
/// string, map keys are strings, integers not negative are unsigned, and a float that is not
/// finite is an error (the general reading resolves it from its text).
struct AsJson<D>(D);

const NOT_FINITE: &str = "a float that is not finite";

impl<'de, D: serde::Deserializer<'de>> serde::Deserializer<'de> for AsJson<D> {
    type Error = D::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(Wrap(v))
    }
    fn deserialize_option<V: serde::de::Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_option(Optional(v))
    }
    fn deserialize_newtype_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        v: V,
    ) -> Result<V::Value, D::Error> {
        v.visit_newtype_struct(self)
    }
    fn deserialize_enum<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(UnitVariant(v))
    }
    fn is_human_readable(&self) -> bool {
        true
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// Hands what the YAML reader found to the visitor as `serde_json::Value` would.
struct Wrap<V>(V);

impl<'de, V: serde::de::Visitor<'de>> serde::de::Visitor<'de> for Wrap<V> {
    type Value = V::Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        self.0.expecting(f)
    }
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<V::Value, E> {
        self.0.visit_bool(v)
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<V::Value, E> {
        match u64::try_from(v) {
            Ok(u) => self.0.visit_u64(u),
            Err(_) => self.0.visit_i64(v),
        }
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<V::Value, E> {
        self.0.visit_u64(v)
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<V::Value, E> {
        if v.is_finite() {
            self.0.visit_f64(v)
        } else {
            Err(E::custom(NOT_FINITE))
        }
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.0.visit_str(v)
    }
    fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.0.visit_borrowed_str(v)
    }
    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<V::Value, E> {
        self.0.visit_string(v)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_unit()
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<V::Value, E> {
        // A null read as `deserialize_any` reads it.
        self.0.visit_unit()
    }
    fn visit_some<D2: serde::Deserializer<'de>>(self, d: D2) -> Result<V::Value, D2::Error> {
        self.0.visit_some(AsJson(d))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.0.visit_seq(Elements(seq))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.0.visit_map(Entries(map))
    }
}

/// The visitor of `deserialize_option`: null is `None`, anything else is read [`AsJson`].
struct Optional<V>(V);

impl<'de, V: serde::de::Visitor<'de>> serde::de::Visitor<'de> for Optional<V> {
    type Value = V::Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        self.0.expecting(f)
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_none()
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_none()
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.0.visit_some(AsJson(d))
    }
}

/// `deserialize_enum`: a string is a unit variant, anything else is refused (the general
/// reading gives the message).
struct UnitVariant<V>(V);

impl<'de, V: serde::de::Visitor<'de>> serde::de::Visitor<'de> for UnitVariant<V> {
    type Value = V::Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        self.0.expecting(f)
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<V::Value, E> {
        use serde::de::IntoDeserializer;
        self.0.visit_enum(v.into_deserializer())
    }
}

/// A sequence whose elements are read [`AsJson`].
struct Elements<A>(A);

impl<'de, A: serde::de::SeqAccess<'de>> serde::de::SeqAccess<'de> for Elements<A> {
    type Error = A::Error;
    fn next_element_seed<T: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(Value(seed))
    }
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// A mapping whose keys are read as strings (as [`documents`] reads them) and whose values
/// are read [`AsJson`].
struct Entries<A>(A);

impl<'de, A: serde::de::MapAccess<'de>> serde::de::MapAccess<'de> for Entries<A> {
    type Error = A::Error;
    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(Key(seed))
    }
    fn next_value_seed<T: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(Value(seed))
    }
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// A seed given an [`AsJson`] deserializer.
struct Value<T>(T);

impl<'de, T: serde::de::DeserializeSeed<'de>> serde::de::DeserializeSeed<'de> for Value<T> {
    type Value = T::Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<T::Value, D::Error> {
        self.0.deserialize(AsJson(d))
    }
}

/// A seed given a map key read as a string.
struct Key<T>(T);

impl<'de, T: serde::de::DeserializeSeed<'de>> serde::de::DeserializeSeed<'de> for Key<T> {
    type Value = T::Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<T::Value, D::Error> {
        self.0.deserialize(KeyString(d))
    }
}

/// A map key: whatever is asked, the YAML reader's string.
struct KeyString<D>(D);

impl<'de, D: serde::Deserializer<'de>> serde::Deserializer<'de> for KeyString<D> {
    type Error = D::Error;
    fn deserialize_any<V: serde::de::Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_string(Text(v))
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

/// Passes a string on.
struct Text<V>(V);

impl<'de, V: serde::de::Visitor<'de>> serde::de::Visitor<'de> for Text<V> {
    type Value = V::Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        self.0.expecting(f)
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.0.visit_str(v)
    }
    fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.0.visit_borrowed_str(v)
    }
    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<V::Value, E> {
        self.0.visit_string(v)
    }
}

/// Serializes any value as a YAML document (used by the yaml renderer).
pub fn to_yaml_string<T: Serialize>(value: &T) -> Result<String, String> {
    serde_saphyr::to_string(value).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> serde_json::Value {
        let [doc] = documents(text)
            .expect("parsed")
            .try_into()
            .expect("one document");
        doc
    }

    #[test]
    fn a_float_too_large_reads_as_the_string_kubectl_reads() {
        // `kubectl get -o yaml` writes these unquoted: go-yaml reads them back as strings.
        let doc = one("labels:\n  commit: 3e505426\n  big: -1e999\n  h: 12ab\nport: 80\n");
        assert_eq!(doc["labels"]["commit"], "3e505426");
        assert_eq!(doc["labels"]["big"], "-1e999");
        assert_eq!(doc["labels"]["h"], "12ab");
        assert_eq!(doc["port"], 80);
        // What YAML reads as numbers and booleans stays so, in the same document.
        let doc = one("a: 80\nb: -3\nc: 1.5\nd: true\ne: ~\nf: '80'\ng: 3e505426\n");
        assert_eq!(doc["a"], 80);
        assert_eq!(doc["b"], -3);
        assert_eq!(doc["c"], 1.5);
        assert_eq!(doc["d"], true);
        assert!(doc["e"].is_null());
        assert_eq!(doc["f"], "80");
        // Through an alias, the anchored text; in a sequence; in the second document.
        let doc = one("a: &x 3e505426\nb: *x\nc: [4e400, 5]\n");
        assert_eq!(doc["b"], "3e505426");
        assert_eq!(doc["c"], serde_json::json!(["4e400", 5]));
        let docs = documents("a: 1\n---\nb: 2e999\n").expect("parsed");
        assert_eq!(docs[1]["b"], "2e999");
        // Deep nesting with one, read with places on its own thread.
        let deep: String = (0..60).map(|i| format!("{}- \n", " ".repeat(i))).collect();
        documents(&format!("{deep}{}- 1e999\n", " ".repeat(60))).expect("60 levels");
    }

    #[test]
    fn a_non_finite_float_is_refused_where_it_is() {
        let err = documents("a:\n  b: .inf\n").expect_err("refused");
        assert!(
            err.starts_with("line 2 column 6: `.inf` is a float"),
            "{err}"
        );
    }

    #[test]
    fn an_alias_bomb_is_refused_in_words() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        let err = documents(&text).expect_err("refused");
        assert!(err.contains("alias bomb"), "{err}");
        assert!(err.starts_with("line "), "{err}");
    }

    #[test]
    fn deep_nesting_is_refused_in_words() {
        let text: String = (0..100).map(|i| format!("{}- \n", " ".repeat(i))).collect();
        let err = documents(&text).expect_err("refused");
        assert!(err.contains("nested more than 64 levels deep"), "{err}");
        // 60 levels are fine.
        let text: String = (0..60).map(|i| format!("{}- \n", " ".repeat(i))).collect();
        documents(&text).expect("60 levels");
    }

    #[test]
    fn large_streams_are_not_held_to_the_crate_defaults() {
        // 2,000 documents of 200 nodes each: over the crate's 1,024 documents and 250,000
        // nodes, proportionate to the input.
        let doc: String = (0..100).map(|i| format!("k{i}: v\n")).collect();
        let text = vec![doc; 2000].join("---\n");
        assert_eq!(documents(&text).expect("parsed").len(), 2000);
    }
}
