//! The one pager: a list read in pages of `--chunk-size`, each page decoded on a blocking
//! thread while the next ones download, handed over in order, restarted when its continue
//! token expires. What a page decodes to, and from which encodings, is the caller's
//! [`Decode`].

use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;

use http_body_util::BodyExt;
use kube::api::ListParams;
use kube::core::Status;
use serde::de::DeserializeOwned;

use super::error::ClusterError;
use super::requests::{Failure, Request, Server};
use crate::state::decode::protobuf::{ListStart, ProtobufError};

/// Restarts of one list whose continue token expired.
const MAX_RESTARTS: usize = 3;

/// Pages downloading or decoding at once, besides the one being asked for. More pages ahead
/// even out the pages that decode slowly: six took wall time off two, for the same CPU time
/// and a little more memory at the peak.
const PAGES_IN_FLIGHT: usize = 6;

/// What pod and node list requests accept: protobuf first (smaller, and its parts can be
/// stepped over without parsing them), JSON from servers or proxies that do not speak it.
const ACCEPT_PROTOBUF: &str = "application/vnd.kubernetes.protobuf, application/json";

/// What other list requests accept, as kube asks for them.
const ACCEPT_JSON: &str = "application/json";

/// What a list hands over, page by page.
pub(super) enum Page<K> {
    Items(Vec<K>),
    /// The list restarts from the beginning: drop what the earlier pages gave.
    Restart,
}

/// Where a page's decoder gives its continue token.
type ContinueToken = Box<dyn FnOnce(Option<String>) + Send>;

type ProtobufDecode<T> =
    dyn Fn(&[prost::bytes::Bytes], ContinueToken) -> Result<Vec<T>, ProtobufError> + Send + Sync;
type JsonDecode<T> = dyn Fn(&str, ContinueToken) -> Result<Vec<T>, serde_json::Error> + Send + Sync;

/// How the pages of a list decode, by the encoding the server answered in: shared by the
/// pages of a list, each decoded on a blocking thread of its own.
pub(super) struct Decode<T> {
    /// The list's kind (`PodList`) and its protobuf decoder, when pages are asked for in
    /// protobuf, as kube-scheduler asks for them.
    protobuf: Option<(&'static str, Arc<ProtobufDecode<T>>)>,
    json: Arc<JsonDecode<T>>,
}

impl<T> Clone for Decode<T> {
    fn clone(&self) -> Self {
        Decode {
            protobuf: self.protobuf.clone(),
            json: self.json.clone(),
        }
    }
}

impl<T: Send + 'static> Decode<T> {
    /// Pages of `kind` asked for in protobuf (JSON when the server answers that instead).
    pub(super) fn protobuf(
        kind: &'static str,
        protobuf: impl Fn(&[prost::bytes::Bytes], ContinueToken) -> Result<Vec<T>, ProtobufError>
        + Send
        + Sync
        + 'static,
        json: impl Fn(&str, ContinueToken) -> Result<Vec<T>, serde_json::Error> + Send + Sync + 'static,
    ) -> Decode<T> {
        Decode {
            protobuf: Some((kind, Arc::new(protobuf))),
            json: Arc::new(json),
        }
    }

    /// JSON pages, each item decoded as `K` (the API's type, or one with only the fields
    /// read) and made what the caller keeps by `convert` as soon as it is read.
    pub(super) fn items<K: DeserializeOwned + Send + 'static>(convert: fn(K) -> T) -> Decode<T> {
        Decode {
            protobuf: None,
            json: Arc::new(move |text: &str, on_continue| {
                crate::state::decode::json::list_page(text, on_continue, convert)
            }),
        }
    }

    fn accept(&self) -> &'static str {
        if self.protobuf.is_some() {
            ACCEPT_PROTOBUF
        } else {
            ACCEPT_JSON
        }
    }

    /// A page's items from its body in `encoding`, the continue token to `on_continue`.
    fn page(
        self,
        body: Body,
        encoding: Encoding,
        on_continue: ContinueToken,
    ) -> Result<Vec<T>, kube::Error> {
        match (encoding, self.protobuf) {
            // Read in the frames it came in: joining them cost more than the copy.
            (Encoding::Protobuf, Some((_, decode))) => {
                decode(&body.frames, on_continue).map_err(|e| kube::Error::Service(Box::new(e)))
            }
            _ => {
                // As kube's `request_text`, without its copy of the body.
                let text = String::from_utf8(body.join()).map_err(kube::Error::FromUtf8)?;
                (self.json)(&text, on_continue).map_err(kube::Error::SerdeError)
            }
        }
    }
}

impl Server {
    /// Lists `path` (an `Api`'s resource URL) in pages, each decoded by `decode` on a
    /// blocking thread while the next ones download, and handed to `on_page` in order. The
    /// continue token is at the start of a page: in protobuf it is read from the first bytes,
    /// as they arrive, and the next page is asked for while the rest of this one still
    /// downloads (in JSON, as soon as the decoder reads it). Waiting for whole pages put a
    /// round trip per page on the critical path, more against a distant
    /// server. An expired continue token restarts the list (the consumer drops what it
    /// folded so far).
    pub(super) async fn list<T: Send + 'static>(
        &self,
        path: &str,
        req: &Request,
        fields: Option<&str>,
        decode: Decode<T>,
        on_page: &mut dyn FnMut(Page<T>) -> Result<(), ClusterError>,
    ) -> Result<(), ClusterError> {
        let client = &self.client;
        let limit = self.timeout.duration;
        let decode = &decode;
        let get = |lp: ListParams| async move {
            let decode = decode.clone();
            let deadline = limit.map(|d| tokio::time::Instant::now() + d);
            let (mut stream, encoding) = list_answer(client, path, &lp, decode.accept()).await?;
            let mut body = Body::default();
            if encoding == Encoding::Protobuf
                && let Some((kind, _)) = decode.protobuf
                && let Some(token) = early_token(&mut stream, &mut body, kind).await?
            {
                // The rest downloads, then decodes, while the next page is asked for.
                let page = tokio::spawn(async move {
                    let body = read_to_end(stream, body, deadline).await?;
                    let (_, items) =
                        decoding(move |on_continue| decode.page(body, encoding, on_continue))
                            .await?;
                    items.items().await
                });
                return Ok((token, Pending::Decoding(Task(page))));
            }
            let body = read_to_end(stream, body, deadline).await?;
            decoding(move |on_continue| decode.page(body, encoding, on_continue)).await
        };
        self.list_pages(&get, req, fields, on_page).await
    }

    /// Lists a resource whole, keeping what `extract` takes of each object (a restarted list
    /// starts over).
    pub(super) async fn collect<K, T>(
        &self,
        path: &str,
        req: Request,
        extract: fn(K) -> Option<T>,
    ) -> Result<Vec<T>, ClusterError>
    where
        K: DeserializeOwned + Send + 'static,
        T: Send + 'static,
    {
        let mut out = Vec::new();
        self.list(path, &req, None, Decode::items(extract), &mut |page| {
            match page {
                Page::Restart => out.clear(),
                Page::Items(items) => out.extend(items.into_iter().flatten()),
            }
            Ok(())
        })
        .await?;
        Ok(out)
    }

    /// The paging loop: `get` fetches one page (continue token and items, maybe still
    /// decoding). At most [`PAGES_IN_FLIGHT`] pages download or decode at once, so memory
    /// stays that of a few pages; they are handed over in order, and an error of an earlier
    /// page is reported before one of a later request, as when pages were read one after the
    /// other.
    async fn list_pages<K, F, Fut>(
        &self,
        get: &F,
        req: &Request,
        fields: Option<&str>,
        on_page: &mut dyn FnMut(Page<K>) -> Result<(), ClusterError>,
    ) -> Result<(), ClusterError>
    where
        F: Fn(ListParams) -> Fut,
        Fut: Future<Output = Result<(Option<String>, Pending<K>), kube::Error>>,
    {
        let mut restarts = 0;
        let mut pending: VecDeque<Pending<K>> = VecDeque::new();
        // The earlier pages' first error, once all of them are decoded.
        let settle = |pending: &mut VecDeque<Pending<K>>| {
            let drained: Vec<Pending<K>> = pending.drain(..).collect();
            async move {
                for p in drained {
                    p.items().await?;
                }
                Ok::<(), kube::Error>(())
            }
        };
        'list: loop {
            let mut token: Option<String> = None;
            loop {
                let mut lp = ListParams::default();
                if self.chunk_size > 0 {
                    lp = lp.limit(self.chunk_size);
                }
                if let Some(f) = fields {
                    lp = lp.fields(f);
                }
                if let Some(t) = &token {
                    lp = lp.continue_token(t);
                }
                let page: Result<(Option<String>, Pending<K>), Failure> =
                    self.call(req, || get(lp.clone())).await;
                match page {
                    Ok((next, items)) => {
                        let next = next.filter(|c| !c.is_empty());
                        pending.push_back(items);
                        while let Some(first) = pending.front() {
                            if !(first.is_done()
                                || pending.len() > PAGES_IN_FLIGHT
                                || next.is_none())
                            {
                                break;
                            }
                            let Some(first) = pending.pop_front() else {
                                break;
                            };
                            let items = first.items().await.map_err(|e| self.classify(req, e))?;
                            on_page(Page::Items(items))?;
                        }
                        match next {
                            Some(t) => token = Some(t),
                            None => return Ok(()),
                        }
                    }
                    Err(Failure::Status(s)) if s.code == 410 && token.is_some() => {
                        settle(&mut pending)
                            .await
                            .map_err(|e| self.classify(req, e))?;
                        if restarts >= MAX_RESTARTS {
                            return Err(ClusterError::Expired {
                                request: req.to_string(),
                                times: restarts + 1,
                            });
                        }
                        restarts += 1;
                        on_page(Page::Restart)?;
                        continue 'list;
                    }
                    Err(f) => {
                        settle(&mut pending)
                            .await
                            .map_err(|e| self.classify(req, e))?;
                        return Err(self.fail(req, f));
                    }
                }
            }
        }
    }
}

/// An answer's body as it arrived, in frames.
#[derive(Default)]
struct Body {
    frames: Vec<prost::bytes::Bytes>,
    len: usize,
}

impl Body {
    /// Reads the next frame of `stream` into the body; `false` once the stream has ended.
    /// Trailers are not part of the body.
    async fn read_frame(&mut self, stream: &mut kube::client::Body) -> Result<bool, kube::Error> {
        let Some(frame) = stream.frame().await else {
            return Ok(false);
        };
        if let Ok(data) = frame?.into_data() {
            self.len += data.len();
            self.frames.push(data);
        }
        Ok(true)
    }

    /// The whole body in one buffer, copied once (JSON is parsed from one slice; protobuf pod
    /// pages are read in their frames).
    fn join(self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len);
        for f in &self.frames {
            out.extend_from_slice(f);
        }
        out
    }
}

/// A page's items: decoded, or being downloaded and decoded by a task.
enum Pending<K> {
    Ready(Vec<K>),
    Decoding(Task<Result<Vec<K>, kube::Error>>),
}

impl<K> Pending<K> {
    fn is_done(&self) -> bool {
        match self {
            Pending::Ready(_) => true,
            Pending::Decoding(Task(h)) => h.is_finished(),
        }
    }

    async fn items(self) -> Result<Vec<K>, kube::Error> {
        match self {
            Pending::Ready(items) => Ok(items),
            // Awaited through the `Task`, which stops it if this future is dropped first.
            Pending::Decoding(mut task) => match (&mut task.0).await {
                Ok(r) => r,
                // A panic while decoding stays a panic, as when pages were decoded in place.
                Err(e) => std::panic::resume_unwind(e.into_panic()),
            },
        }
    }
}

/// A task that stops when its handle is dropped: a page still downloading when its list
/// fails is not read to its end in the background (a decode already running on a
/// blocking thread finishes, as before).
struct Task<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for Task<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A page decoded on a blocking thread by `decode`, handed over as soon as the decoder gives
/// its continue token (list answers write it before their items), so that the next page
/// downloads while this one decodes.
async fn decoding<K: Send + 'static>(
    decode: impl FnOnce(ContinueToken) -> Result<Vec<K>, kube::Error> + Send + 'static,
) -> Result<(Option<String>, Pending<K>), kube::Error> {
    let (token_tx, token_rx) = tokio::sync::oneshot::channel();
    let decoding = tokio::task::spawn_blocking(move || {
        decode(Box::new(move |token| {
            let _ = token_tx.send(token);
        }))
    });
    let decoding = Task(decoding);
    match token_rx.await {
        Ok(token) => Ok((token, Pending::Decoding(decoding))),
        // The page failed before its metadata: the decode's error is the page's. (A decode
        // that succeeds has always given the token.)
        Err(_) => Pending::Decoding(decoding)
            .items()
            .await
            .map(|items| (None, Pending::Ready(items))),
    }
}

/// How a list answer is encoded (its Content-Type).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Encoding {
    Json,
    Protobuf,
}

/// A successful answer's body, still to be read, and its encoding; an error status becomes
/// `kube::Error::Api` exactly as kube's own `request_text` makes it (a `Status` body, in JSON
/// or protobuf, or one built from the text).
async fn list_answer(
    client: &kube::Client,
    path: &str,
    lp: &ListParams,
    accept: &'static str,
) -> Result<(kube::client::Body, Encoding), kube::Error> {
    let mut request = kube::core::Request::new(path)
        .list(lp)
        .map_err(kube::Error::BuildRequest)?;
    request
        .headers_mut()
        .insert(http::header::ACCEPT, http::HeaderValue::from_static(accept));
    let res = client.send(request.map(kube::client::Body::from)).await?;
    let status = res.status();
    let encoding = match res.headers().get(http::header::CONTENT_TYPE) {
        Some(t)
            if t.to_str().is_ok_and(|t| {
                t.split(';').next().map(str::trim)
                    == Some(crate::state::decode::protobuf::MEDIA_TYPE)
            }) =>
        {
            Encoding::Protobuf
        }
        _ => Encoding::Json,
    };
    let stream = res.into_body();
    if status.is_client_error() || status.is_server_error() {
        let body = read_to_end(stream, Body::default(), None).await?.join();
        if encoding == Encoding::Protobuf
            && let Some(s) = protobuf_status(&body, status.as_u16())
        {
            return Err(kube::Error::Api(s.boxed()));
        }
        let text = String::from_utf8_lossy(&body);
        return Err(kube::Error::Api(
            match serde_json::from_str::<Status>(&text) {
                Ok(s) => s,
                Err(_) => Status::failure(text.trim(), "Failed to parse error data")
                    .with_code(status.as_u16()),
            }
            .boxed(),
        ));
    }
    Ok((stream, encoding))
}

/// The rest of a body, after the frames already in `body`. The frames are kept as they
/// arrive (reference counts, no copy): joining the pages here held up the one thread that
/// reads the socket and folds the pages; the decoding thread reads protobuf pages in their
/// frames and joins JSON ones (`Body::join`). Past `deadline` (the request's, as
/// `--request-timeout` gives it), the read stops with a timeout.
async fn read_to_end(
    mut stream: kube::client::Body,
    mut body: Body,
    deadline: Option<tokio::time::Instant>,
) -> Result<Body, kube::Error> {
    let read = async {
        while body.read_frame(&mut stream).await? {}
        Ok::<(), kube::Error>(())
    };
    match deadline {
        Some(at) => tokio::time::timeout_at(at, read).await.map_err(|_| {
            kube::Error::Service(Box::new(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "timed out reading the answer",
            )))
        })??,
        None => read.await?,
    }
    Ok(body)
}

/// Reads frames of a protobuf list until its continue token shows (see
/// [`crate::state::decode::protobuf::list_start`]): `Some(token)` then, the frames read kept in `body`;
/// `None` when the body ended first or does not start as a list of `kind`, for the whole
/// decode to read (and, if need be, refuse).
async fn early_token(
    stream: &mut kube::client::Body,
    body: &mut Body,
    kind: &str,
) -> Result<Option<Option<String>>, kube::Error> {
    // The token is within the first few hundred bytes; a start this long is not a list.
    const LOOK: usize = 64 * 1024;
    let mut start = Vec::new();
    while body.len < LOOK {
        if !body.read_frame(stream).await? {
            return Ok(None);
        }
        let prefix = match body.frames.as_slice() {
            [one] => &one[..],
            frames => {
                start.clear();
                frames.iter().for_each(|f| start.extend_from_slice(f));
                &start[..]
            }
        };
        match crate::state::decode::protobuf::list_start(prefix, kind) {
            ListStart::Continue(token) => return Ok(Some(token)),
            ListStart::NeedMore => {}
            ListStart::Unknown => return Ok(None),
        }
    }
    Ok(None)
}

/// An error answer's protobuf `Status` as kube's own `Status`; `None` when the body is not
/// one (the caller then reads it as text). A Status without a code takes the answer's HTTP
/// status, as kube does for a text body.
fn protobuf_status(body: &[u8], http_status: u16) -> Option<Status> {
    let s = crate::state::decode::protobuf::status(body).ok()?;
    let code = if s.code == 0 { http_status } else { s.code };
    let mut status = Status::failure(&s.message, &s.reason).with_code(code);
    if s.retry_after_seconds > 0 {
        status.details = Some(kube::core::response::StatusDetails {
            name: String::new(),
            group: String::new(),
            kind: String::new(),
            uid: String::new(),
            causes: Vec::new(),
            retry_after_seconds: s.retry_after_seconds,
        });
    }
    Some(status)
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_pb::apimachinery::pkg::apis::meta::v1 as pb;
    use kubectl_affinity_testkit::pb_encode;
    use prost::Message;

    fn body(status: pb::Status) -> Vec<u8> {
        pb_encode::envelope("v1", "Status", &status.encode_to_vec())
    }

    /// A 429 in protobuf keeps its code, reason and retry hint (the retry loop reads them).
    #[test]
    fn protobuf_error_statuses_become_kube_statuses() {
        let s = protobuf_status(
            &body(pb::Status {
                message: Some("too many requests".into()),
                reason: Some("TooManyRequests".into()),
                details: Some(pb::StatusDetails {
                    retry_after_seconds: Some(2),
                    ..Default::default()
                }),
                code: Some(429),
                ..Default::default()
            }),
            500,
        )
        .expect("status");
        assert_eq!((s.code, s.reason.as_str()), (429, "TooManyRequests"));
        assert_eq!(s.message, "too many requests");
        assert_eq!(s.details.map(|d| d.retry_after_seconds), Some(2));
    }

    /// Without a code, the HTTP status is the code; a body that is no Status is left to the
    /// text reading.
    #[test]
    fn a_protobuf_status_without_a_code_takes_the_http_status() {
        let s = protobuf_status(
            &body(pb::Status {
                reason: Some("Forbidden".into()),
                ..Default::default()
            }),
            403,
        )
        .expect("status");
        assert_eq!(s.code, 403);
        assert!(s.details.is_none());
        assert!(protobuf_status(b"<html>proxy</html>", 403).is_none());
    }
}
