//! One request at a time: the timeout, bounded retries of transient statuses, and the
//! sorting of failures into [`ClusterError`]s by their type (an HTTP status, a kube error
//! variant, an I/O error kind), never by their text.

use std::fmt;
use std::future::Future;
use std::time::Duration;

use kube::core::Status;
use serde::de::DeserializeOwned;

use super::config::{Target, Timeout};
use super::error::{ClusterError, Forbidden};

/// Retries of one request answered 429/500/503/504.
const MAX_RETRIES: u32 = 4;

/// One request, as messages and RBAC hints name it.
#[derive(Debug, Clone)]
pub(super) struct Request {
    pub(super) verb: &'static str,
    pub(super) resource: &'static str,
    /// `None`: cluster-scoped, or all namespaces for namespaced resources.
    pub(super) namespace: Option<String>,
    pub(super) name: Option<String>,
    namespaced: bool,
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.name, &self.namespace) {
            (Some(n), Some(ns)) => write!(f, "{} {} {ns}/{n}", self.verb, self.resource),
            (Some(n), None) => write!(f, "{} {} {n}", self.verb, self.resource),
            (None, Some(ns)) => write!(f, "{} {} in namespace {ns}", self.verb, self.resource),
            (None, None) if self.namespaced => {
                write!(f, "{} {} in all namespaces", self.verb, self.resource)
            }
            (None, None) => write!(f, "{} {}", self.verb, self.resource),
        }
    }
}

impl Request {
    pub(super) fn new(verb: &'static str, resource: &'static str, namespaced: bool) -> Request {
        Request {
            verb,
            resource,
            namespace: None,
            name: None,
            namespaced,
        }
    }
    pub(super) fn namespace(mut self, ns: &str) -> Request {
        self.namespace = Some(ns.to_string());
        self
    }
    pub(super) fn name(mut self, name: &str) -> Request {
        self.name = Some(name.to_string());
        self
    }
}

/// Why a call did not return a value.
#[derive(Debug)]
pub(super) enum Failure {
    /// An error Status the caller may want to handle (403, 404, 410), already past retries.
    Status(Box<Status>),
    Other(ClusterError),
}

/// What every request to one API server needs: the client, who it is (for messages), and
/// the flags requests follow.
pub(super) struct Server {
    pub(super) client: kube::Client,
    pub(super) target: Target,
    pub(super) timeout: Timeout,
    /// Objects per page when listing (0: no paging).
    pub(super) chunk_size: u32,
}

impl Server {
    /// One request with the timeout and bounded retries for transient statuses.
    pub(super) async fn call<T, F, Fut>(&self, req: &Request, f: F) -> Result<T, Failure>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, kube::Error>>,
    {
        self.call_retrying(req, &[429, 500, 503, 504], f).await
    }

    /// One request with the timeout, retried a bounded number of times on the statuses
    /// `transient` names.
    pub(super) async fn call_retrying<T, F, Fut>(
        &self,
        req: &Request,
        transient: &[u16],
        mut f: F,
    ) -> Result<T, Failure>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, kube::Error>>,
    {
        let mut attempt = 0;
        loop {
            let result = match self.timeout.duration {
                Some(d) => match tokio::time::timeout(d, f()).await {
                    Ok(r) => r,
                    Err(_) => return Err(Failure::Other(self.timed_out(req))),
                },
                None => f().await,
            };
            match result {
                Ok(v) => return Ok(v),
                Err(kube::Error::Api(s))
                    if transient.contains(&s.code) && attempt < MAX_RETRIES =>
                {
                    let hint = s
                        .details
                        .as_ref()
                        .map(|d| Duration::from_secs(u64::from(d.retry_after_seconds)))
                        .unwrap_or_default();
                    let backoff = Duration::from_millis(100 << attempt);
                    tokio::time::sleep(backoff.max(hint).min(Duration::from_secs(5))).await;
                    attempt += 1;
                }
                Err(kube::Error::Api(s)) => return Err(Failure::Status(s)),
                Err(e) => return Err(Failure::Other(self.classify(req, e))),
            }
        }
    }

    /// Gets one object of the collection at `url`, decoded as `K` (only the fields read);
    /// `None` when it does not exist, as a lister's miss.
    pub(super) async fn get_slim<K: DeserializeOwned>(
        &self,
        url: &str,
        name: &str,
        req: &Request,
    ) -> Result<Option<K>, ClusterError> {
        let get = || async {
            let request = kube::core::Request::new(url)
                .get(name, &Default::default())
                .map_err(kube::Error::BuildRequest)?;
            self.client.request::<K>(request).await
        };
        match self.call(req, get).await {
            Ok(o) => Ok(Some(o)),
            Err(Failure::Status(s)) if s.code == 404 => Ok(None),
            Err(f) => Err(self.fail(req, f)),
        }
    }

    pub(super) fn fail(&self, req: &Request, f: Failure) -> ClusterError {
        match f {
            Failure::Other(e) => e,
            Failure::Status(s) => self.status_error(req, &s),
        }
    }

    fn status_error(&self, req: &Request, s: &Status) -> ClusterError {
        let t = &self.target;
        if s.reason == NOT_A_STATUS {
            // kube keeps a body that is no Status as the message: a proxy's page, which may
            // hold anything. Never shown.
            return ClusterError::Protocol {
                request: req.to_string(),
                server: t.server.clone(),
                detail: format!(
                    "{} {} with a body that is not a Kubernetes Status (not shown)",
                    s.code,
                    http::StatusCode::from_u16(s.code)
                        .ok()
                        .and_then(|c| c.canonical_reason())
                        .unwrap_or("")
                ),
            };
        }
        match s.code {
            401 => ClusterError::Unauthorized {
                request: req.to_string(),
                user: t.user.clone(),
                context: t.context.clone(),
            },
            403 => {
                let (scope, can_i_scope) = match (&req.namespace, req.namespaced) {
                    (Some(ns), _) => (format!("in namespace {ns}"), format!(" -n {ns}")),
                    (None, true) => ("in all namespaces".to_string(), " -A".to_string()),
                    (None, false) => ("cluster scope".to_string(), String::new()),
                };
                ClusterError::Forbidden(Box::new(Forbidden {
                    request: req.to_string(),
                    verb: req.verb.to_string(),
                    resource: req.resource.to_string(),
                    scope,
                    can_i_scope,
                    user: t.user.clone(),
                    context: t.context.clone(),
                    message: one_line(&s.message),
                }))
            }
            404 => ClusterError::NotServed {
                request: req.to_string(),
                server: t.server.clone(),
                context: t.context.clone(),
                message: one_line(&s.message),
            },
            code => ClusterError::Api {
                request: req.to_string(),
                code,
                reason: if s.reason.is_empty() {
                    "(no reason)".to_string()
                } else {
                    s.reason.clone()
                },
                message: one_line(&s.message),
            },
        }
    }

    fn timed_out(&self, req: &Request) -> ClusterError {
        ClusterError::Timeout {
            request: req.to_string(),
            server: self.target.server.clone(),
            timeout: self.timeout.text.clone(),
        }
    }

    /// Sorts transport and credential failures into messages with a next step.
    pub(super) fn classify(&self, req: &Request, e: kube::Error) -> ClusterError {
        let t = &self.target;
        if let kube::Error::Auth(auth) = &e {
            return ClusterError::Credentials {
                user: t.user.clone(),
                context: t.context.clone(),
                detail: auth_detail(auth, t.exec_command.as_deref()),
            };
        }
        // A body that does not read as the list asked for, in either encoding.
        let unreadable = match &e {
            kube::Error::SerdeError(err) => Some((err.is_eof(), "JSON object", err.to_string())),
            kube::Error::Service(err) => err
                .downcast_ref::<crate::state::decode::protobuf::ProtobufError>()
                .map(|err| (err.is_truncated(), "protobuf list", err.to_string())),
            _ => None,
        };
        if let Some((truncated, expected, detail)) = unreadable {
            if truncated {
                return ClusterError::Truncated {
                    request: req.to_string(),
                    server: t.server.clone(),
                    detail,
                };
            }
            return ClusterError::Protocol {
                request: req.to_string(),
                server: t.server.clone(),
                detail: format!("the body is not the expected {expected}: {detail}"),
            };
        }
        match transport(&e) {
            Some(Transport::TimedOut) => self.timed_out(req),
            Some(Transport::Tls) => ClusterError::Tls {
                server: t.server.clone(),
                context: t.context.clone(),
                detail: error_chain(&e),
            },
            Some(Transport::Connection) => ClusterError::Unreachable {
                server: t.server.clone(),
                context: t.context.clone(),
                detail: error_chain(&e),
            },
            None => ClusterError::Protocol {
                request: req.to_string(),
                server: t.server.clone(),
                detail: error_chain(&e),
            },
        }
    }
}

/// What failed on the way to the API server and back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transport {
    /// The connect, read or write timeout (`--request-timeout`), or a body's deadline.
    TimedOut,
    /// The connection was made, but the TLS handshake failed (rustls reports its errors,
    /// an unknown CA or a peer that does not speak TLS, as invalid data).
    Tls,
    /// No connection, or one lost.
    Connection,
}

/// How a request failed in transit, read from the errors' types: the connector's timeouts
/// and rustls's handshake errors arrive as `std::io::Error`s of their own kind, inside the
/// HTTP client's error (which says whether connecting failed).
fn transport(e: &kube::Error) -> Option<Transport> {
    let chain = std::iter::successors(Some(e as &(dyn std::error::Error + 'static)), |e| {
        e.source()
    });
    let mut connecting = false;
    for err in chain {
        if let Some(client) = err.downcast_ref::<hyper_util::client::legacy::Error>() {
            connecting |= client.is_connect();
        }
        for kind in io_kinds(err) {
            match kind {
                std::io::ErrorKind::TimedOut => return Some(Transport::TimedOut),
                std::io::ErrorKind::InvalidData if connecting => return Some(Transport::Tls),
                _ => {}
            }
        }
    }
    matches!(e, kube::Error::HyperError(_) | kube::Error::Service(_))
        .then_some(Transport::Connection)
}

/// The kinds of `err` and of the I/O errors it wraps: an I/O error's `source` skips the error
/// it wraps, and connectors wrap the one that says what happened in one of their own.
fn io_kinds(mut err: &(dyn std::error::Error + 'static)) -> Vec<std::io::ErrorKind> {
    let mut kinds = Vec::new();
    while let Some(io) = err.downcast_ref::<std::io::Error>() {
        kinds.push(io.kind());
        match io.get_ref() {
            Some(inner) => err = inner,
            None => break,
        }
    }
    kinds
}

/// The innermost distinct messages of an error chain: transport errors nest the useful part
/// ("Connection refused") several levels down.
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        let text = err.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        cur = err.source();
    }
    // The last two levels say what happened; the outer ones only wrap.
    let keep = parts.len().saturating_sub(2);
    one_line(&parts[keep..].join(": "))
}

/// The reason kube gives an error answer whose body is not a `Status` (the body becomes the
/// message).
pub(super) const NOT_A_STATUS: &str = "Failed to parse error data";

pub(super) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What went wrong getting credentials, without the plugin's output or arguments (they may
/// hold tokens, and kube's own messages include them).
pub(super) fn auth_detail(e: &kube::client::AuthError, exec: Option<&str>) -> String {
    use kube::client::AuthError as A;
    let plugin = exec.map_or("the credential plugin".to_string(), |c| {
        format!("credential plugin {c:?}")
    });
    match e {
        A::AuthExecStart(io) => {
            format!("{plugin} could not be started: {io} (is it installed and on PATH?)")
        }
        A::AuthExecRun { out, .. } => format!("{plugin} exited with {}", out.status),
        A::AuthExecParse(_) | A::ExecPluginFailed => {
            format!("{plugin} did not print a valid ExecCredential")
        }
        A::ReadTokenFile(io, path) => format!("cannot read token file {}: {io}", path.display()),
        A::MissingCommand => "the user's exec section names no command".to_string(),
        A::UnrefreshableTokenResponse => {
            "the token expired and the auth provider cannot refresh it".to_string()
        }
        _ => format!("{plugin} or the auth provider failed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Error, ErrorKind};

    /// A connector's error wrapping rustls's handshake error shows both kinds (an I/O
    /// error's `source` alone would skip the inner one).
    #[test]
    fn io_kinds_reach_the_wrapped_error() {
        let inner = Error::new(ErrorKind::InvalidData, "corrupt message");
        let outer = Error::other(inner);
        assert_eq!(io_kinds(&outer), [ErrorKind::Other, ErrorKind::InvalidData]);
        assert!(io_kinds(&std::fmt::Error).is_empty());
    }
}
