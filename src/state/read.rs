//! Reading objects from files: `kubectl get -o yaml|json` output (a `v1 List` or single
//! objects), several YAML documents, or JSON.
//!
//! Pods and nodes become the model's through their parts; every other kind is decoded as the
//! model keeps it (`objects.rs`), and the state is made from the three.

mod kubectl_yaml;
mod stream;
mod yaml_list;

use std::borrow::Cow;
use std::path::Path;

use k8s_openapi::api::core::v1 as core;
use serde::Deserialize;

use super::cluster::ClusterState;
use super::node::Node;
use super::objects::{Object, Objects};
use super::pod::Pod;
use super::source::{FieldProblem, Located, SourceError};

/// Splits text into documents: JSON (one or more concatenated values) when it starts with `{`
/// or `[`, otherwise YAML (`---`-separated documents). Null documents are dropped.
pub fn parse_documents(text: &str, path: &str) -> Result<Vec<serde_json::Value>, SourceError> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    let docs = if trimmed.starts_with('{') || trimmed.starts_with('[') {
        serde_json::Deserializer::from_str(trimmed)
            .into_iter::<serde_json::Value>()
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())
    } else {
        super::yaml::documents(text)
    };
    let docs = docs.map_err(|message| SourceError::Syntax {
        path: path.to_string(),
        message,
    })?;
    Ok(docs.into_iter().filter(|d| !d.is_null()).collect())
}

/// Reads a file (`-` for stdin) into objects, unwrapping `List` kinds (`v1 List`, `PodList`...).
pub fn read_objects(path: &Path) -> Result<Vec<Located>, SourceError> {
    let name = source_name(path);
    let text = read_text(path)?;
    objects_from_str(&text, &name)
}

/// How errors name an input: its path, or "standard input" for `-`.
pub fn source_name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "standard input".to_string()
    } else {
        path.display().to_string()
    }
}

/// The default for [`input_limit`]: 1 GiB, far above any cluster's `kubectl get -o yaml`.
pub const DEFAULT_INPUT_LIMIT: u64 = 1 << 30;

/// The environment variable that overrides [`DEFAULT_INPUT_LIMIT`] (a number of bytes).
pub const INPUT_LIMIT_ENV: &str = "KUBECTL_AFFINITY_MAX_INPUT_BYTES";

/// The largest input (file or stdin) read, in bytes: `KUBECTL_AFFINITY_MAX_INPUT_BYTES` when
/// set to a number, else 1 GiB. Anything longer (a wrong file, an endless pipe) is refused
/// before it is held in memory.
pub fn input_limit() -> u64 {
    std::env::var(INPUT_LIMIT_ENV)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEFAULT_INPUT_LIMIT)
}

/// `1.5 GiB`, `12 MiB`, `300 bytes`.
fn human_size(bytes: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if bytes >= size {
            let whole = bytes / size;
            let tenth = (bytes % size) * 10 / size;
            return if tenth == 0 {
                format!("{whole} {unit}")
            } else {
                format!("{whole}.{tenth} {unit}")
            };
        }
    }
    format!("{bytes} bytes")
}

/// Standard input as [`read_text`] read it: it can be read only once, and a second reader of
/// the same input (the snapshot `whatif --scale` finds its workload in, then the state) gets
/// the same text, borrowed rather than copied (a snapshot can be hundreds of megabytes).
static STDIN_TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Reads a whole input file (`-`: standard input) as UTF-8 text, at most [`input_limit`]
/// bytes: a regular file that is larger is refused from its size alone, and a stream (a pipe,
/// a device) is read until one byte past the limit, so memory stays bounded either way.
pub fn read_text(path: &Path) -> Result<Cow<'static, str>, SourceError> {
    use std::io::Read;
    let name = source_name(path);
    let limit = input_limit();
    let too_large = |size: String| SourceError::Content {
        path: name.clone(),
        message: format!(
            "{size} the input limit of {}; give a file with only what is needed \
             (`kubectl get nodes,pods,namespaces -A -o yaml`), or raise the limit with \
             {INPUT_LIMIT_ENV}=BYTES",
            human_size(limit)
        ),
    };
    let io = |source: std::io::Error| SourceError::Io {
        path: name.clone(),
        source,
    };
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        if let Some(text) = STDIN_TEXT.get() {
            return Ok(Cow::Borrowed(text));
        }
        std::io::stdin()
            .lock()
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(io)?;
    } else {
        let file = std::fs::File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if meta.is_dir() {
            return Err(SourceError::Content {
                path: name.clone(),
                message: "is a directory; give a YAML or JSON file".to_string(),
            });
        }
        if meta.is_file() && meta.len() > limit {
            return Err(too_large(format!(
                "{} on disk, more than",
                human_size(meta.len())
            )));
        }
        file.take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(io)?;
    }
    if bytes.len() as u64 > limit {
        return Err(too_large("reading stopped at".to_string()));
    }
    let text = String::from_utf8(bytes).map_err(|e| SourceError::Content {
        path: name.clone(),
        message: format!(
            "not UTF-8 text (invalid byte at offset {}); give the YAML or JSON that kubectl prints",
            e.utf8_error().valid_up_to()
        ),
    })?;
    if path.as_os_str() == "-" {
        return Ok(Cow::Borrowed(STDIN_TEXT.get_or_init(|| text)));
    }
    Ok(Cow::Owned(text))
}

pub(crate) fn objects_from_str(text: &str, path: &str) -> Result<Vec<Located>, SourceError> {
    let mut out = Vec::new();
    for (i, doc) in parse_documents(text, path)?.into_iter().enumerate() {
        flatten(doc, i + 1, &mut out);
    }
    Ok(out)
}

fn flatten(value: serde_json::Value, document: usize, out: &mut Vec<Located>) {
    match value {
        serde_json::Value::Array(items) => {
            for item in items {
                flatten(item, document, out);
            }
        }
        serde_json::Value::Object(mut map)
            if map
                .get("kind")
                .and_then(|k| k.as_str())
                .is_some_and(|k| k.ends_with("List"))
                && map.get("items").is_some_and(|i| i.is_array()) =>
        {
            if let Some(serde_json::Value::Array(items)) = map.remove("items") {
                for item in items {
                    flatten(item, document, out);
                }
            }
        }
        other => out.push(Located {
            document,
            value: other,
        }),
    }
}

/// An invalid resource quantity fails the read, naming the object and the field, because
/// every resource verdict would silently be wrong otherwise.
pub(crate) fn check_quantities(
    obj: &Located,
    path: &str,
    problems: &[super::resources::QuantityProblem],
) -> Result<(), SourceError> {
    match problems.first() {
        None => Ok(()),
        Some(p) => Err(SourceError::Field(Box::new(FieldProblem {
            path: path.to_string(),
            document: obj.document,
            kind: obj.kind().to_string(),
            name: obj.name().to_string(),
            field: p.field.clone(),
            message: p.message.clone(),
        }))),
    }
}

/// The comment `snapshot` writes first: the API server's version, as a YAML comment that
/// kubectl and every YAML reader skip.
pub const VERSION_COMMENT: &str = "# kubernetesVersion: ";

/// The version a snapshot file records (`v1.33.5`), from its first line; `None` without one.
pub fn recorded_version(path: &Path) -> Option<String> {
    use std::io::{BufRead, Read};
    // Standard input is read once and kept (see `read_text`): its first line is there.
    if path.as_os_str() == "-" {
        let text = read_text(path).ok()?;
        return text
            .lines()
            .next()?
            .strip_prefix(VERSION_COMMENT)
            .map(|v| v.trim().to_string());
    }
    let mut line = String::new();
    let file = std::fs::File::open(path).ok()?;
    std::io::BufReader::new(file.take(256))
        .read_line(&mut line)
        .ok()?;
    line.strip_prefix(VERSION_COMMENT)
        .map(|v| v.trim().to_string())
}

/// Reads a cluster snapshot file: a JSON `List` as a stream, anything else (and any problem)
/// from its whole text.
pub fn read_snapshot(path: &Path) -> Result<ClusterState, SourceError> {
    if let Some(state) = stream_snapshot(path).or_else(|| stream_kubectl_yaml(path)) {
        return Ok(state);
    }
    let streamed_yaml = match stream_yaml_snapshot(path) {
        Ok(state) => return Ok(state),
        Err(tried) => tried,
    };
    read_snapshot_text(path, !streamed_yaml)
}

/// Refuses, for a question about scheduling, a snapshot of pods without nodes or namespaces:
/// it cannot be a saved cluster (`kubectl get pods -o yaml` saved instead of the whole list),
/// and every answer would be "0 of 0". A cluster without nodes still lists its namespaces
/// (`default` always exists), and one without pods either is evaluated as upstream's tests
/// evaluate an empty cluster.
pub fn require_nodes(state: &ClusterState, path: &Path) -> Result<(), SourceError> {
    let pods = !state.pods().is_empty() || !state.other_pods().is_empty();
    if state.nodes().is_empty() && state.namespaces().is_none() && pods {
        return Err(SourceError::Content {
            path: source_name(path),
            message: "no Node objects found (nor Namespaces: not a saved cluster), so no node \
                      could be evaluated; write the snapshot with `kubectl affinity snapshot`, \
                      or include the nodes: `kubectl get nodes,pods,namespaces -A -o yaml > FILE`"
                .to_string(),
        });
    }
    Ok(())
}

/// Reads a snapshot from its whole text; `try_yaml_list`: a YAML list is read item by item
/// first (not when [`stream_yaml_snapshot`] already tried).
fn read_snapshot_text(path: &Path, try_yaml_list: bool) -> Result<ClusterState, SourceError> {
    let name = source_name(path);
    let text = read_text(path)?;
    read_snapshot_str_with(&text, &name, try_yaml_list).map_err(|e| match e {
        SourceError::Field(mut p) => {
            p.message = format!(
                "{}; fix the field, or write the snapshot again with `kubectl affinity snapshot`",
                p.message
            );
            SourceError::Field(p)
        }
        other => other,
    })
}

/// Parses a cluster snapshot from text (tests, fixtures).
pub fn read_snapshot_str(text: &str, path: &str) -> Result<ClusterState, SourceError> {
    read_snapshot_str_with(text, path, true)
}

fn read_snapshot_str_with(
    text: &str,
    path: &str,
    try_yaml_list: bool,
) -> Result<ClusterState, SourceError> {
    if let Some(state) = fast_snapshot(text, path)? {
        return Ok(state);
    }
    if !looks_like_json(text.as_bytes())
        && let Some(state) = kubectl_yaml_snapshot(text.as_bytes(), path)
    {
        return Ok(state);
    }
    if try_yaml_list && !looks_like_json(text.as_bytes()) {
        let mut b = SnapshotBuilder::default();
        if yaml_list::read(super::yaml::Source::Text(text), path, &mut b)
            && let Ok(state) = b.finish(path, false)
        {
            return Ok(state);
        }
    }
    let docs = parse_documents(text, path)?;
    // `kubectl get ... -o yaml` on an empty cluster prints a List without items: an empty
    // snapshot, not a wrong file.
    let empty_list = docs.iter().any(|d| {
        d.get("kind")
            .and_then(|k| k.as_str())
            .is_some_and(|k| k.ends_with("List"))
            && d.get("items")
                .and_then(|i| i.as_array())
                .is_some_and(|i| i.is_empty())
    });
    let mut objects = Vec::new();
    for (i, doc) in docs.into_iter().enumerate() {
        flatten(doc, i + 1, &mut objects);
    }
    snapshot_from_objects(&objects, path, empty_list)
}

fn snapshot_from_objects(
    objects: &[Located],
    path: &str,
    empty_list: bool,
) -> Result<ClusterState, SourceError> {
    let mut b = SnapshotBuilder::default();
    for obj in objects {
        b.add(obj, path)?;
    }
    b.finish(path, empty_list)
}

/// Folds objects into a snapshot one at a time, in input order.
#[derive(Default)]
struct SnapshotBuilder {
    nodes: Vec<Node>,
    pods: Vec<Pod>,
    objects: Objects,
}

/// One object's contribution to a snapshot, decoded and checked but not yet added: decoding
/// needs no builder, so the fast path does it on several threads and adds in input order.
enum Decoded {
    Skip,
    Node(Box<Node>),
    Pod(Box<Pod>),
    Object(Object),
}

impl Decoded {
    fn of(obj: &Located, path: &str) -> Result<Decoded, SourceError> {
        Ok(match obj.kind() {
            "Node" => {
                let node = Node::from(obj.decode::<core::Node>(path)?);
                check_quantities(obj, path, &node.resources.problems)?;
                Decoded::Node(Box::new(node))
            }
            "Pod" => {
                let pod = Pod::from_snapshot(obj.decode::<core::Pod>(path)?.into());
                check_quantities(obj, path, &pod.template.resources.problems)?;
                Decoded::Pod(Box::new(pod))
            }
            _ => Object::decode(obj, path)?.map_or(Decoded::Skip, Decoded::Object),
        })
    }
}

impl SnapshotBuilder {
    fn add(&mut self, obj: &Located, path: &str) -> Result<(), SourceError> {
        self.apply(Decoded::of(obj, path)?);
        Ok(())
    }

    fn apply(&mut self, d: Decoded) {
        match d {
            Decoded::Skip => {}
            Decoded::Node(node) => self.nodes.push(*node),
            Decoded::Pod(pod) => self.pods.push(*pod),
            Decoded::Object(o) => self.objects.add(o),
        }
    }

    fn finish(self, path: &str, empty_list: bool) -> Result<ClusterState, SourceError> {
        let SnapshotBuilder {
            nodes,
            pods,
            objects,
        } = self;
        if nodes.is_empty() && pods.is_empty() && objects.namespaces().is_none() && !empty_list {
            return Err(SourceError::Content {
                path: path.to_string(),
                message: "no Node, Pod or Namespace objects found; write a snapshot with \
                          `kubectl get nodes,pods,namespaces,services,replicasets,replicationcontrollers,statefulsets -A -o yaml > FILE` or `kubectl affinity snapshot`"
                    .to_string(),
            });
        }
        Ok(ClusterState::new(nodes, pods, objects))
    }
}

/// A JSON `v1 List` seen as its items' text, before any item is decoded.
#[derive(Deserialize)]
struct RawList<'a> {
    #[serde(default)]
    kind: Option<String>,
    #[serde(borrow, default)]
    items: Option<Vec<&'a serde_json::value::RawValue>>,
}

/// The fast path for the common large snapshot, one JSON `List` (`kubectl get -o json`):
/// pods are decoded straight from the text into the compact model, never through
/// `serde_json::Value`, each item in one pass, on several threads. `None` when the text has
/// another shape (YAML, several documents, nested lists), which the general path reads.
/// Every object that does not decode is decoded again the general way, so errors are the
/// same, and the first one in input order is reported.
fn fast_snapshot(text: &str, path: &str) -> Result<Option<ClusterState>, SourceError> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if !trimmed.starts_with('{') {
        return Ok(None);
    }
    let Ok(list) = serde_json::from_str::<RawList<'_>>(trimmed) else {
        return Ok(None);
    };
    let (Some(kind), Some(items)) = (list.kind, list.items) else {
        return Ok(None);
    };
    if !kind.ends_with("List") || items.is_empty() {
        return Ok(None);
    }
    let mut b = SnapshotBuilder::default();
    let mut first_error = None;
    let mut bail = false;
    fold_in_order(
        |chunk: &[&serde_json::value::RawValue]| {
            chunk.iter().map(|raw| fast_item(raw.get(), path)).collect()
        },
        |decoded: Vec<FastItem>| {
            for d in decoded {
                match d {
                    None => bail = true,
                    Some(Err(e)) => {
                        first_error.get_or_insert(e);
                    }
                    Some(Ok(d)) if first_error.is_none() => b.apply(d),
                    Some(Ok(_)) => {}
                }
            }
            !bail
        },
        |sink| {
            for chunk in items.chunks(CHUNK) {
                if !sink(chunk) {
                    return;
                }
            }
        },
    );
    if bail {
        return Ok(None);
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    b.finish(path, false).map(Some)
}

/// A snapshot file read as a stream, for the one shape that can be large: a JSON `List`
/// (`kubectl get -o json`, `kubectl affinity snapshot`). Its items are decoded as the fast
/// path decodes them, a chunk at a time as they are read, so neither the file's text nor the
/// items' stays in memory. `None` for anything else, and for any problem (the file, its text,
/// an item): the caller then reads the file the plain way, which names the problem.
fn stream_snapshot(path: &Path) -> Option<ClusterState> {
    stream_file(path, |input, name| {
        list_snapshot(
            name,
            |t| fast_item(t, name),
            |sink| stream::list_items(input, CHUNK, sink),
        )
    })
}

/// A YAML snapshot file in the shape kubectl writes (see `kubectl_yaml`), read as a stream
/// as a JSON one is; `None` as for [`stream_snapshot`].
fn stream_kubectl_yaml(path: &Path) -> Option<ClusterState> {
    stream_file(path, |input, name| kubectl_yaml_snapshot(input, name))
}

/// Reads the file at `path` with `read`, as long as it is a regular file within the input
/// limit (standard input and pipes cannot be read again for the error).
fn stream_file(
    path: &Path,
    read: impl FnOnce(&mut std::io::Take<std::fs::File>, &str) -> Option<ClusterState>,
) -> Option<ClusterState> {
    use std::io::Read;

    if path.as_os_str() == "-" {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    let limit = input_limit();
    if !meta.is_file() || meta.len() > limit {
        return None;
    }
    let mut input = file.take(limit.saturating_add(1));
    let state = read(&mut input, &source_name(path))?;
    // The file grew past the limit while it was read.
    (input.limit() > 0).then_some(state)
}

/// A YAML `List` as kubectl writes it, its items decoded as the JSON stream's are.
fn kubectl_yaml_snapshot(input: impl std::io::Read, path: &str) -> Option<ClusterState> {
    list_snapshot(
        path,
        |text| fast_item(&kubectl_yaml::item_json(text)?, path),
        |sink| kubectl_yaml::list_items(input, CHUNK, sink),
    )
}

/// The snapshot of a list whose items `produce` hands over in chunks, each item decoded by
/// `item`; `None` when any is not, or the input is not a `List` with items.
fn list_snapshot(
    path: &str,
    item: impl Fn(&str) -> FastItem + Sync,
    produce: impl FnOnce(&mut dyn FnMut(stream::Chunk) -> bool) -> Option<stream::List>,
) -> Option<ClusterState> {
    let mut b = SnapshotBuilder::default();
    let mut decoded_all = true;
    let list = fold_in_order(
        |chunk: stream::Chunk| chunk.items().map(|i| i.and_then(&item)).collect(),
        |decoded: Vec<FastItem>| {
            for d in decoded {
                let Some(Ok(d)) = d else {
                    decoded_all = false;
                    break;
                };
                b.apply(d);
            }
            decoded_all
        },
        produce,
    )?;
    if !decoded_all || !list.kind.ends_with("List") || list.items == 0 {
        return None;
    }
    b.finish(path, false).ok()
}

/// Whether text that starts with these bytes is read as JSON (or, for a byte-order mark of
/// UTF-16, refused by the general path): not a YAML list to read item by item.
fn looks_like_json(start: &[u8]) -> bool {
    let start = start.strip_prefix("\u{feff}".as_bytes()).unwrap_or(start);
    if start.starts_with(&[0xff, 0xfe]) || start.starts_with(&[0xfe, 0xff]) {
        return true;
    }
    start
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| matches!(b, b'{' | b'['))
}

/// A YAML snapshot file read as a stream: a `List`, as `kubectl get -o yaml` and `kubectl
/// affinity snapshot` write it, its items decoded as they are parsed (see `yaml_list`), so
/// that the file's text is never held whole. `Err(tried)` for anything else and any problem
/// (`tried`: the file was read as YAML), for the caller to read the file the plain way.
fn stream_yaml_snapshot(path: &Path) -> Result<ClusterState, bool> {
    use std::io::{BufRead, Read};

    if path.as_os_str() == "-" {
        return Err(false);
    }
    let file = std::fs::File::open(path).map_err(|_| false)?;
    let meta = file.metadata().map_err(|_| false)?;
    let limit = input_limit();
    if !meta.is_file() || meta.len() > limit {
        return Err(false);
    }
    let len = usize::try_from(meta.len()).map_err(|_| false)?;
    let mut input = std::io::BufReader::with_capacity(1 << 16, file.take(limit.saturating_add(1)));
    // Whitespace before a JSON value is rare and short: the first block shows what it is.
    if looks_like_json(input.fill_buf().map_err(|_| false)?) {
        return Err(false);
    }
    let name = source_name(path);
    let mut b = SnapshotBuilder::default();
    let read = yaml_list::read(super::yaml::Source::Reader(&mut input, len), &name, &mut b);
    // The file grew past the limit while it was read.
    if !read || input.into_inner().limit() == 0 {
        return Err(true);
    }
    b.finish(&name, false).map_err(|_| true)
}

/// List items per unit of work: large enough that handing over costs nothing, small enough
/// that the decoded-but-not-added objects held at once stay few.
const CHUNK: usize = 1024;

/// One list item as the fast paths read it: `None` when it is not of their shape (the whole
/// input goes the general way).
type FastItem = Option<Result<Decoded, SourceError>>;

fn fast_item(text: &str, path: &str) -> FastItem {
    use super::decode::json::{ListItem, list_item};

    let located = || -> Result<Located, SourceError> {
        serde_json::from_str(text)
            .map(|value| Located { document: 1, value })
            .map_err(|e| SourceError::Syntax {
                path: path.to_string(),
                message: e.to_string(),
            })
    };
    Some(match list_item(text) {
        ListItem::Unreadable => return None,
        ListItem::Other(kind) if kind.ends_with("List") => return None,
        ListItem::Pod(pod) if pod.template.resources.problems.is_empty() => Ok(Decoded::Pod(pod)),
        ListItem::Pod(pod) => located().and_then(|obj| {
            check_quantities(&obj, path, &pod.template.resources.problems)
                .map(|()| Decoded::Pod(pod))
        }),
        ListItem::Other(kind) if kind == "Node" || Object::KINDS.contains(&kind.as_ref()) => {
            located().and_then(|obj| Decoded::of(&obj, path))
        }
        ListItem::Other(_) => Ok(Decoded::Skip),
        ListItem::PodRefused => located().and_then(|obj| Decoded::of(&obj, path)),
    })
}

/// Runs `produce`, which hands chunks of work to its sink, while up to four threads `work`
/// on them; `fold` takes the results in the order the chunks were given. Once `fold` returns
/// `false` the sink does too, and `produce` should stop. A few chunks are in hand at a time,
/// so memory stays bounded however many `produce` gives.
fn fold_in_order<C: Send, T: Send, R>(
    work: impl Fn(C) -> T + Sync,
    mut fold: impl FnMut(T) -> bool,
    produce: impl FnOnce(&mut dyn FnMut(C) -> bool) -> R,
) -> R {
    use std::sync::mpsc;

    let max = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4);
    std::thread::scope(|scope| {
        let work = &work;
        // Chunk i goes to worker i % max; a worker that stopped early panicked, and the
        // scope passes the panic on.
        let mut workers: Vec<(mpsc::SyncSender<C>, mpsc::Receiver<T>)> = Vec::new();
        let oldest = |workers: &[(mpsc::SyncSender<C>, mpsc::Receiver<T>)], folded: usize| {
            workers.get(folded % max).and_then(|(_, rx)| rx.recv().ok())
        };
        let (mut sent, mut folded, mut wanted) = (0, 0, true);
        let result = produce(&mut |chunk| {
            if !wanted {
                return false;
            }
            if workers.len() < max {
                let (in_tx, in_rx) = mpsc::sync_channel::<C>(1);
                let (out_tx, out_rx) = mpsc::sync_channel(1);
                scope.spawn(move || {
                    for chunk in in_rx {
                        if out_tx.send(work(chunk)).is_err() {
                            return;
                        }
                    }
                });
                workers.push((in_tx, out_rx));
            }
            wanted = workers
                .get(sent % max)
                .is_some_and(|(tx, _)| tx.send(chunk).is_ok());
            sent += 1;
            if wanted && sent - folded > max {
                wanted = oldest(&workers, folded).is_some_and(&mut fold);
                folded += 1;
            }
            wanted
        });
        while wanted && folded < sent {
            wanted = oldest(&workers, folded).is_some_and(&mut fold);
            folded += 1;
        }
        result
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn workload_selectors_are_read_compactly() {
        let text = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}}
- {apiVersion: v1, kind: Service, metadata: {name: web, namespace: shop}, spec: {selector: {app: web}}}
- {apiVersion: v1, kind: Service, metadata: {name: headless, namespace: shop}, spec: {}}
- {apiVersion: v1, kind: ReplicationController, metadata: {name: rc, namespace: shop}, spec: {selector: {app: old}}}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata: {name: web-5d8, namespace: shop}
  spec: {selector: {matchLabels: {app: web, pod-template-hash: 5d8}}}
- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {name: db, namespace: shop}
  spec: {selector: {matchExpressions: [{key: app, operator: Bogus}]}}
"#;
        let s = read_snapshot_str(text, "t").unwrap();
        let w = s.workloads().expect("workloads read");
        assert_eq!(
            w.services["shop"].len(),
            1,
            "a Service without selector selects nothing"
        );
        assert_eq!(w.replication_controllers.len(), 1);
        let key = ("shop".to_string(), "web-5d8".to_string());
        assert_eq!(w.replica_sets[&key].len(), 2);
        // An invalid selector contributes no requirement, as upstream skips it.
        assert!(w.stateful_sets[&("shop".to_string(), "db".to_string())].is_empty());
    }

    /// What a state is built from, in a stable order (the state's own maps are hashed).
    fn model(s: &ClusterState) -> String {
        let workloads = s.workloads().map(|w| {
            (
                w.services.iter().collect::<BTreeMap<_, _>>(),
                w.replication_controllers.iter().collect::<BTreeMap<_, _>>(),
                w.replica_sets.iter().collect::<BTreeMap<_, _>>(),
                w.stateful_sets.iter().collect::<BTreeMap<_, _>>(),
            )
        });
        format!(
            "{:?}",
            (
                s.nodes(),
                s.pods(),
                s.other_pods(),
                s.namespaces(),
                workloads
            )
        )
    }

    /// Writes `text` to a file and reads it as a stream, which must take it, from its whole
    /// text, and the general way: the three states must be the same.
    fn streamed_as_read_whole(text: &str) {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("snapshot.json");
        std::fs::write(&file, text).expect("write");
        let name = file.display().to_string();
        let streamed = model(&stream_snapshot(&file).expect("read as a stream"));
        let whole = read_snapshot_str(text, &name).expect("read whole");
        assert_eq!(streamed, model(&whole));
        let objects = objects_from_str(text, &name).expect("objects");
        let general = snapshot_from_objects(&objects, &name, false).expect("read the general way");
        assert_eq!(streamed, model(&general));
    }

    #[test]
    fn the_demo_as_json_streams_to_the_same_state() {
        let yaml = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/cluster.yaml"
        ))
        .expect("demo");
        let [list] = parse_documents(&yaml, "demo")
            .expect("demo")
            .try_into()
            .expect("one list");
        streamed_as_read_whole(&serde_json::to_string(&list).expect("json"));
        streamed_as_read_whole(&serde_json::to_string_pretty(&list).expect("json"));
    }

    /// A snapshot's pods and nodes are read as the API server stores them, by every path:
    /// requests from limits, host ports of a hostNetwork pod, allocatable from capacity.
    #[test]
    fn snapshots_are_read_with_the_api_server_s_defaults() {
        let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
             "status": {"capacity": {"cpu": "2", "memory": "1Gi", "pods": "5"}}},
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "d"},
             "spec": {"nodeName": "n", "hostNetwork": true, "containers": [{"name": "c",
               "ports": [{"containerPort": 8080}],
               "resources": {"limits": {"cpu": "1500m"}}}]}}
        ]});
        let text = serde_json::to_string(&list).expect("json");
        streamed_as_read_whole(&text);
        let yaml = crate::state::to_yaml_string(&list).expect("yaml");
        for state in [
            read_snapshot_str(&text, "t").expect("json"),
            read_snapshot_str(&yaml, "t").expect("yaml"),
        ] {
            let node = &state.nodes()[0].resources;
            assert_eq!((node.allocatable.milli_cpu, node.allowed_pods), (2000, 5));
            let pod = &state.pods()[0].template.resources;
            assert_eq!(pod.requests.milli_cpu, 1500);
            assert_eq!(
                pod.host_ports.iter().map(|h| h.port).collect::<Vec<_>>(),
                [8080]
            );
        }
    }

    /// More items than one chunk, as `gen_cluster` writes them.
    #[test]
    fn a_generated_cluster_streams_to_the_same_state() {
        let size = kubectl_affinity_testkit::cluster_gen::Size {
            nodes: 40,
            pods_per_node: 30,
        };
        let mut text = Vec::new();
        kubectl_affinity_testkit::cluster_gen::write_list(size, &mut text).expect("generate");
        let text = String::from_utf8(text).expect("UTF-8");
        assert!(text.matches("\"kind\":\"Pod\"").count() > CHUNK);
        streamed_as_read_whole(&text);
    }

    /// What the stream does not take is read whole, as before: malformed snapshots get the
    /// whole read's messages, other shapes its state.
    #[test]
    fn what_the_stream_does_not_take_is_read_whole() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("snapshot.json");
        let read = |text: &[u8]| {
            std::fs::write(&file, text).expect("write");
            assert!(
                stream_snapshot(&file).is_none(),
                "{}",
                String::from_utf8_lossy(text)
            );
            read_snapshot(&file)
                .map(|state| model(&state))
                .map_err(|e| e.to_string().replace(&file.display().to_string(), "FILE"))
        };
        let fix = "fix the field, or write the snapshot again with `kubectl affinity snapshot`";
        let cases: [(&[u8], String); 6] = [
            (
                br#"{"kind": "List", "items": ["#,
                "FILE: not valid YAML or JSON: EOF while parsing a list at line 1 column 27; fix \
                 the text at that position, or write the file again with `kubectl get ... -o yaml`"
                    .to_string(),
            ),
            (
                br#"{"kind":"List","items":[{"kind":"Node","metadata":{"name":"n"}},]}"#,
                "FILE: not valid YAML or JSON: trailing comma at line 1 column 65; fix the text \
                 at that position, or write the file again with `kubectl get ... -o yaml`"
                    .to_string(),
            ),
            (
                br#"{"kind":"List","items":[{"kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"lots"}}}]}}]}"#,
                format!(
                    "FILE: document 1, Pod \"p\": field spec.containers[0].resources.requests[cpu]: \
                     invalid quantity \"lots\": quantities must match the regular expression \
                     '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'; {fix}"
                ),
            ),
            (
                br#"{"kind":"List","items":[{"kind":"Node","metadata":{"name":3}}]}"#,
                format!(
                    "FILE: document 1, Node \"\": field metadata.name: invalid type: integer `3`, \
                     expected a string; {fix}"
                ),
            ),
            (
                b"{\"kind\":\"List\",\"items\":[{\"kind\":\"Node\",\"metadata\":{\"name\":\"n\",\"labels\":{\"a\":\"\xff\"}}}]}",
                "FILE: not UTF-8 text (invalid byte at offset 77); give the YAML or JSON that \
                 kubectl prints"
                    .to_string(),
            ),
            (
                br#"{"kind":"List","items":[{"kind":"Service","metadata":{"name":"s"}}]}"#,
                "FILE: no Node, Pod or Namespace objects found; write a snapshot with `kubectl get \
                 nodes,pods,namespaces,services,replicasets,replicationcontrollers,statefulsets -A \
                 -o yaml > FILE` or `kubectl affinity snapshot`"
                    .to_string(),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(read(text), Err(expected));
        }
        let node = r#"{"kind":"Node","metadata":{"name":"n"}}"#;
        for text in [
            format!("\u{feff}{{\"kind\":\"List\",\"items\":[{node}]}}"),
            format!(
                r#"{{"kind":"List","items":[{node}]}} {{"kind":"Node","metadata":{{"name":"m"}}}}"#
            ),
            format!(r#"{{"kind":"List","items":[{{"kind":"NodeList","items":[{node}]}}]}}"#),
            format!(r#"{{"kind":"List","items":[[{node}]]}}"#),
            format!(r#"{{"kind":"Thing","items":[{node}]}}"#),
            r#"{"kind":"List","items":[]}"#.to_string(),
            format!("kind: List\nitems: [{node}]\n"),
        ] {
            let whole = read_snapshot_str(&text, "FILE")
                .map(|state| model(&state))
                .map_err(|e| e.to_string());
            assert_eq!(read(text.as_bytes()), whole, "{text}");
        }
    }

    /// The general reading of YAML: every document whole, then its objects.
    fn read_whole(text: &str) -> Result<String, String> {
        let docs = parse_documents(text, "FILE").map_err(|e| e.to_string())?;
        let mut objects = Vec::new();
        for (i, doc) in docs.into_iter().enumerate() {
            flatten(doc, i + 1, &mut objects);
        }
        snapshot_from_objects(&objects, "FILE", false)
            .map(|s| model(&s))
            .map_err(|e| e.to_string())
    }

    /// Reads YAML item by item, from text and from a file: both must take it, and give the
    /// state the general reading gives.
    fn yaml_streamed_as_read_whole(text: &str) {
        let mut b = SnapshotBuilder::default();
        assert!(
            yaml_list::read(super::super::yaml::Source::Text(text), "FILE", &mut b),
            "not read item by item"
        );
        let from_text = model(&b.finish("FILE", false).expect("a state"));
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("snapshot.yaml");
        std::fs::write(&file, text).expect("write");
        let from_file = model(&stream_yaml_snapshot(&file).expect("read as a stream"));
        let whole = read_whole(text).expect("read whole");
        assert_eq!(from_text, whole);
        assert_eq!(from_file, whole);
    }

    #[test]
    fn the_demo_and_a_generated_cluster_as_yaml_stream_to_the_same_state() {
        let demo = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/cluster.yaml"
        ))
        .expect("demo");
        yaml_streamed_as_read_whole(&demo);
        let size = kubectl_affinity_testkit::cluster_gen::Size {
            nodes: 10,
            pods_per_node: 30,
        };
        let mut json = Vec::new();
        kubectl_affinity_testkit::cluster_gen::write_list(size, &mut json).expect("generate");
        let list: serde_json::Value = serde_json::from_slice(&json).expect("JSON");
        let yaml = crate::state::to_yaml_string(&list).expect("YAML");
        yaml_streamed_as_read_whole(&yaml);
    }

    /// Scalars read as kubectl's YAML reader resolves them, not as the field's type would
    /// take them: a plain `true` or `80` where a string belongs is refused by both readings
    /// (the item-by-item one leaves it to the general one, which names the field).
    #[test]
    fn yaml_scalars_are_typed_as_the_general_reading_types_them() {
        let list = |item: &str| {
            format!(
                "apiVersion: v1\nkind: List\nitems:\n- {{kind: Node, metadata: {{name: n}}}}\n{item}"
            )
        };
        // Taken item by item, to the same state.
        for item in [
            "- {kind: Pod, metadata: {name: p, labels: {a: 'true', b: '80'}}, spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}}\n",
            "- {metadata: {name: p}, kind: Pod, spec: {nodeName: n, containers: []}}\n",
            "- {kind: Namespace, metadata: {name: shop, labels: {x: y}}}\n",
            "- {kind: ConfigMap, data: {a: .inf}}\n",
            "- {kind: Pod, metadata: {name: p, labels: {h: 3e505426}}}\n",
        ] {
            let text = list(item);
            let mut b = SnapshotBuilder::default();
            let taken = yaml_list::read(super::super::yaml::Source::Text(&text), "FILE", &mut b);
            let whole = read_whole(&text);
            if taken {
                assert_eq!(
                    Ok(model(&b.finish("FILE", false).expect("state"))),
                    whole,
                    "{item}"
                );
            }
            assert_eq!(
                read_snapshot_str(&text, "FILE")
                    .map(|s| model(&s))
                    .map_err(|e| e.to_string()),
                whole,
                "{item}"
            );
        }
        // Refused item by item, and by the general reading in its words.
        for item in [
            "- {kind: Pod, metadata: {name: p, labels: {a: true}}}\n",
            "- {kind: Pod, metadata: {name: 80}}\n",
            "- {kind: Node, metadata: {name: m, labels: {a: 1}}}\n",
            "- {kind: Pod, metadata: {name: p}, spec: {containers: [{name: c, resources: {requests: {cpu: lots}}}]}}\n",
            "- {kind: Pod, metadata: {name: p, labels: {a: .inf}}}\n",
        ] {
            let text = list(item);
            let mut b = SnapshotBuilder::default();
            assert!(
                !yaml_list::read(super::super::yaml::Source::Text(&text), "FILE", &mut b),
                "{item}"
            );
            let whole = read_whole(&text);
            assert!(whole.is_err(), "{item}");
            assert_eq!(
                read_snapshot_str(&text, "FILE")
                    .map(|s| model(&s))
                    .map_err(|e| e.to_string()),
                whole,
                "{item}"
            );
        }
    }

    #[test]
    fn an_empty_list_is_an_empty_cluster() {
        let s = read_snapshot_str(r#"{"apiVersion":"v1","kind":"List","items":[]}"#, "t").unwrap();
        assert!(s.nodes().is_empty() && s.workloads().is_none());
        assert!(read_snapshot_str("{}", "t").is_err());
    }
}
