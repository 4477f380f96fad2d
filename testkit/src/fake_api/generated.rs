//! The store of [`FakeApi::generated`](super::FakeApi::generated): a cluster of
//! [`cluster_gen`](crate::cluster_gen), every object serialized once in JSON and every pod and node once more in
//! protobuf, so that a page is its items' bytes concatenated. Continue tokens are `c-OFFSET`
//! in both encodings, so a benchmark knows every page's URL without reading a body. Selectors
//! are ignored: every generated pod is Running or Pending, the phases the tool lists.

use std::collections::{BTreeMap, HashMap};
use std::io;

use http_body_util::Full;
use hyper::Response;
use hyper::body::Bytes;
use k8s_openapi::api::core::v1 as core;
use serde_json::{Value, json};

use super::{api_version, invalid_continue, page, respond, respond_json, respond_protobuf, status};
use crate::cluster_gen::{self, ListItem, Size};
use crate::pb_encode;

#[derive(Debug)]
pub(super) struct Cluster {
    /// By plural resource name, each list in the order lists come in.
    objects: HashMap<String, Vec<ListItem>>,
    /// The pods of `objects["pods"]`, in the same order, encoded in protobuf.
    pods_protobuf: Vec<Vec<u8>>,
    /// The nodes of `objects["nodes"]`, in the same order, encoded in protobuf.
    nodes_protobuf: Vec<Vec<u8>>,
}

impl Cluster {
    pub(super) fn new(size: Size) -> io::Result<Cluster> {
        let mut objects: HashMap<String, Vec<ListItem>> = HashMap::new();
        cluster_gen::objects(size, |plural, v| {
            let item = ListItem::new(v)?;
            objects.entry(plural.to_string()).or_default().push(item);
            Ok(())
        })?;
        for list in objects.values_mut() {
            cluster_gen::sort_as_listed(list);
        }
        let mut pods_protobuf = Vec::new();
        for item in objects.get("pods").into_iter().flatten() {
            let pod: core::Pod = serde_json::from_slice(&item.json).map_err(io::Error::other)?;
            pods_protobuf.push(pb_encode::pod_bytes(&pod));
        }
        let mut nodes_protobuf = Vec::new();
        for item in objects.get("nodes").into_iter().flatten() {
            let node: core::Node = serde_json::from_slice(&item.json).map_err(io::Error::other)?;
            nodes_protobuf.push(pb_encode::node_bytes(&node));
        }
        Ok(Cluster {
            objects,
            pods_protobuf,
            nodes_protobuf,
        })
    }

    pub(super) fn list(
        &self,
        plural: &str,
        kind: &str,
        namespace: Option<&str>,
        params: &BTreeMap<String, String>,
        protobuf: bool,
    ) -> Response<Full<Bytes>> {
        let Some((offset, limit)) = page(params, "c-") else {
            return invalid_continue();
        };
        let encoded = match plural {
            "pods" => Some(&self.pods_protobuf),
            "nodes" => Some(&self.nodes_protobuf),
            _ => None,
        };
        if let Some(encoded) = encoded.filter(|_| protobuf && namespace.is_none()) {
            let end = offset.saturating_add(limit).min(encoded.len());
            let items: Vec<&[u8]> = encoded[offset.min(end)..end]
                .iter()
                .map(Vec::as_slice)
                .collect();
            let more = end < encoded.len();
            let token = format!("c-{end}");
            return respond_protobuf(pb_encode::list_body(
                &format!("{kind}List"),
                &items,
                "1000",
                more.then_some(token.as_str()),
                more.then(|| (encoded.len() - end) as i64),
            ));
        }
        let empty = Vec::new();
        let selected: Vec<&ListItem> = self
            .objects
            .get(plural)
            .unwrap_or(&empty)
            .iter()
            .filter(|o| namespace.is_none_or(|ns| o.namespace == ns))
            .collect();
        let end = offset.saturating_add(limit).min(selected.len());
        let page = &selected[offset.min(end)..end];
        let body = cluster_gen::list_page(kind, api_version(plural), page, end, selected.len());
        respond_json(200, body)
    }

    pub(super) fn get(
        &self,
        plural: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Response<Full<Bytes>> {
        let found = self.objects.get(plural).and_then(|l| {
            l.iter()
                .find(|o| o.name == name && namespace.is_none_or(|ns| o.namespace == ns))
        });
        let Some(mut o) = found.and_then(|o| serde_json::from_slice::<Value>(&o.json).ok()) else {
            return status(404, "NotFound", &format!("{plural} \"{name}\" not found"));
        };
        o["apiVersion"] = json!(api_version(plural));
        o["kind"] = json!(kind);
        respond(200, &o)
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::{SocketAddr, TcpStream};

    use k8s_pb::api::core::v1 as pb;
    use k8s_pb::apimachinery::pkg::runtime::Unknown;
    use prost::Message;

    use super::*;
    use crate::fake_api::{FakeApi, PROTOBUF};
    use crate::pb_encode::MAGIC;

    /// One GET on a connection of its own: the response's head (status line and headers) and
    /// body.
    fn fetch(addr: SocketAddr, target: &str, accept: &str) -> (String, Vec<u8>) {
        let mut stream = TcpStream::connect(addr).expect("connect");
        write!(
            stream,
            "GET {target} HTTP/1.1\r\nHost: fake\r\nAccept: {accept}\r\nConnection: close\r\n\r\n"
        )
        .expect("send");
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).expect("receive");
        let end = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a head");
        let head = String::from_utf8_lossy(&raw[..end]).to_lowercase();
        (head, raw[end + 4..].to_vec())
    }

    /// Every page of the pod list, following continue tokens: for each page, its pods' names,
    /// its continue token and remaining count.
    fn pages(
        addr: SocketAddr,
        accept: &str,
        read: impl Fn(&[u8]) -> (Vec<String>, Option<String>, Option<i64>),
    ) -> Vec<(Vec<String>, Option<String>, Option<i64>)> {
        let mut out = Vec::new();
        let mut token = String::new();
        loop {
            let (head, body) = fetch(
                addr,
                &format!("/api/v1/pods?limit=4&continue={token}"),
                accept,
            );
            assert!(head.starts_with("http/1.1 200"), "{head}");
            let page = read(&body);
            let next = page.1.clone();
            out.push(page);
            match next {
                Some(next) => token = next,
                None => return out,
            }
        }
    }

    #[test]
    fn a_generated_cluster_pages_by_offset_alike_in_json_and_protobuf() {
        let size = Size {
            nodes: 5,
            pods_per_node: 3,
        };
        let fake = FakeApi::generated(size, 0).expect("start");
        let json = pages(fake.addr, "application/json", |body| {
            let list: Value = serde_json::from_slice(body).expect("a JSON list");
            assert_eq!(list["kind"], "PodList");
            let names = list["items"]
                .as_array()
                .expect("items")
                .iter()
                .map(|p| p["metadata"]["name"].as_str().expect("a name").to_string())
                .collect();
            let meta = &list["metadata"];
            let token = meta["continue"].as_str().map(str::to_string);
            (names, token, meta["remainingItemCount"].as_i64())
        });
        let protobuf = pages(fake.addr, PROTOBUF, |body| {
            assert_eq!(body[..4], MAGIC);
            let unknown = Unknown::decode(&body[4..]).expect("an envelope");
            assert_eq!(
                unknown.type_meta.as_ref().and_then(|t| t.kind.as_deref()),
                Some("PodList")
            );
            let list = pb::PodList::decode(unknown.raw()).expect("a PodList");
            let names = list
                .items
                .iter()
                .map(|p| {
                    let meta = p.metadata.as_ref().expect("metadata");
                    meta.name.clone().expect("a name")
                })
                .collect();
            let meta = list.metadata.expect("list metadata");
            (names, meta.r#continue, meta.remaining_item_count)
        });
        assert_eq!(json, protobuf);
        // The generated pods and the pending probe.
        let all = size.pods() + 1;
        assert_eq!(json.len(), all.div_ceil(4));
        for (i, (names, token, remaining)) in json.iter().enumerate() {
            let end = (i + 1) * 4;
            if end < all {
                assert_eq!(names.len(), 4);
                assert_eq!(token.as_deref(), Some(format!("c-{end}").as_str()));
                assert_eq!(*remaining, Some((all - end) as i64));
            } else {
                assert_eq!((token, remaining), (&None, &None));
            }
        }
        let (head, _) = fetch(fake.addr, "/api/v1/pods?continue=fake-continue-4", "*/*");
        assert!(head.starts_with("http/1.1 400"), "{head}");
    }
}
