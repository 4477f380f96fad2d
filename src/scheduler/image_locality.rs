//! ImageLocality (`pkg/scheduler/framework/plugins/imagelocality`): favours nodes that already
//! have the pod's images, by image size scaled by how many nodes have each image (so a
//! ubiquitous image does not pull every pod to one node). Scores are final.

pub mod explain;

use std::cell::RefCell;
use std::convert::Infallible;
use std::sync::Arc;

use serde::Serialize;

use crate::state::ImageSpread;
use crate::state::resources::normalized_image_name;

use super::plugin::{Input, MAX_NODE_SCORE, Plugin};
use super::plugin_id::PluginId;
use super::status::Status;

const MB: i64 = 1024 * 1024;
/// Below this sum every node scores 0.
pub const MIN_THRESHOLD: i64 = 23 * MB;
/// Per container; the sum is capped at this times the number of containers.
pub const MAX_CONTAINER_THRESHOLD: i64 = 1000 * MB;

/// `scaledImageScore`: size × (nodes with the image / all nodes), truncated.
pub fn scaled_image_score(size: i64, nodes_with_image: usize, total_nodes: usize) -> i64 {
    if total_nodes == 0 {
        return 0;
    }
    let spread = nodes_with_image as f64 / total_nodes as f64;
    (size as f64 * spread) as i64
}

/// `calculatePriority`.
pub fn calculate_priority(sum: i64, containers: usize) -> i64 {
    let max = MAX_CONTAINER_THRESHOLD.saturating_mul(containers.max(1) as i64);
    let s = sum.clamp(MIN_THRESHOLD, max);
    ((i128::from(MAX_NODE_SCORE) * i128::from(s - MIN_THRESHOLD)) / i128::from(max - MIN_THRESHOLD))
        as i64
}

/// One container image and whether this node has it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageCheck {
    pub image: Arc<str>,
    /// The name looked up in the node's `status.images`.
    pub normalized: Arc<str>,
    pub present: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<i64>,
    /// On how many nodes of the cluster the image is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes_with_image: Option<usize>,
    pub scaled_score: i64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreDetails {
    pub images: Vec<ImageCheck>,
    pub total_nodes: usize,
    pub sum: i64,
}

#[derive(Debug)]
pub struct ImageLocality<'a> {
    input: Input<'a>,
    /// The pod's images as written and normalized, and where the normalized name is cached,
    /// once rather than per node.
    images: Vec<(Arc<str>, Arc<str>, Option<&'a ImageSpread>)>,
    /// The explanation for each set of the pod's images a node has (as bits), made once and
    /// shared: most nodes have none of them, so 5,000 candidates share a few explanations.
    /// A pod with more than 64 images is explained node by node.
    shared: RefCell<foldhash::HashMap<u64, Arc<ScoreDetails>>>,
}

impl<'a> ImageLocality<'a> {
    pub fn new(input: Input<'a>) -> Self {
        let images = input
            .pod
            .template
            .resources
            .images
            .iter()
            .map(|i| {
                let normalized = normalized_image_name(i);
                let spread = input.state.image(&normalized);
                (Arc::from(i.as_str()), Arc::from(normalized), spread)
            })
            .collect();
        ImageLocality {
            input,
            images,
            shared: RefCell::default(),
        }
    }

    /// Where image `i` is on node `ni`, if it is.
    fn spread_on(&self, i: usize, ni: usize) -> Option<&'a ImageSpread> {
        self.images.get(i).and_then(|(_, _, cached)| {
            cached
                .filter(|s| u32::try_from(ni).is_ok_and(|ni| s.on_nodes.binary_search(&ni).is_ok()))
        })
    }

    fn details(&self, ni: usize) -> ScoreDetails {
        let total = self.input.state.nodes().len();
        let images: Vec<ImageCheck> = self
            .images
            .iter()
            .enumerate()
            .map(|(i, (image, normalized, _))| {
                let spread = self.spread_on(i, ni);
                ImageCheck {
                    image: image.clone(),
                    present: spread.is_some(),
                    size_bytes: spread.map(|s| s.size_bytes),
                    nodes_with_image: spread.map(ImageSpread::nodes),
                    scaled_score: spread
                        .map_or(0, |s| scaled_image_score(s.size_bytes, s.nodes(), total)),
                    normalized: normalized.clone(),
                }
            })
            .collect();
        let sum = images
            .iter()
            .fold(0i64, |acc, i| acc.saturating_add(i.scaled_score));
        ScoreDetails {
            images,
            total_nodes: total,
            sum,
        }
    }
}

impl Plugin for ImageLocality<'_> {
    type FilterDetails = Infallible;
    type ScoreDetails = Arc<ScoreDetails>;
    type Tables = Infallible;

    /// A live read keeps the node images of the pods it was made for; a pod with others (its
    /// images changed between its get and the lists) would score as if no node had them.
    fn unavailable(&self) -> Option<String> {
        (!self.input.state.keeps_images_of(self.input.pod)).then(|| {
            format!(
                "{} is not evaluated: the pod's images changed while the cluster was read, so \
                 the nodes' images were read for others; run again",
                PluginId::ImageLocality
            )
        })
    }

    fn filter(&self, _node: usize) -> (Option<Status>, Option<Self::FilterDetails>) {
        (None, None)
    }

    fn score(&self, ni: usize) -> Result<(i64, Option<Self::ScoreDetails>), String> {
        let details = if self.images.len() <= 64 {
            let set = (0..self.images.len())
                .filter(|&i| self.spread_on(i, ni).is_some())
                .fold(0u64, |set, i| set | 1 << i);
            self.shared
                .borrow_mut()
                .entry(set)
                .or_insert_with(|| Arc::new(self.details(ni)))
                .clone()
        } else {
            Arc::new(self.details(ni))
        };
        let score = calculate_priority(details.sum, details.images.len());
        Ok((score, Some(details)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each node's ImageLocality explanation, in the evaluation's node order.
    fn details_by_node(eval: &crate::scheduler::Evaluation) -> Vec<(&str, &ScoreDetails)> {
        eval.nodes
            .iter()
            .flat_map(|n| {
                n.scores.iter().filter_map(move |s| match &s.details {
                    Some(crate::scheduler::ScoreDetails::ImageLocality(d)) => {
                        Some((&*n.name, &**d))
                    }
                    _ => None,
                })
            })
            .collect()
    }

    #[test]
    fn names_are_normalized() {
        for (input, want) in [
            ("nginx", "nginx:latest"),
            ("nginx:1.25", "nginx:1.25"),
            ("gcr.io/a/b", "gcr.io/a/b:latest"),
            ("localhost:5000/app", "localhost:5000/app:latest"),
            ("localhost:5000/app:v1", "localhost:5000/app:v1"),
            ("app@sha256:abcd", "app@sha256:abcd"),
        ] {
            assert_eq!(normalized_image_name(input), want);
        }
    }

    #[test]
    fn scores_follow_the_formula() {
        // Worked by hand from image_locality.go: a 40MB image on 1 of 2 nodes -> 20MB ->
        // below 23MB -> 0; a 300MB image on 1 of 2 -> 150MB; 2 containers:
        // 100 * (150 - 23) / (2000 - 23) = 6.
        let s40 = scaled_image_score(40 * MB, 1, 2);
        assert_eq!(calculate_priority(s40, 2), 0);
        let s300 = scaled_image_score(300 * MB, 1, 2);
        assert_eq!(calculate_priority(s300, 2), 6);
        // 2000MB on 1 of 2 nodes for one container -> 1000MB -> the cap -> 100.
        assert_eq!(
            calculate_priority(scaled_image_score(2000 * MB, 1, 2), 1),
            100
        );
        // Nothing present: 0.
        assert_eq!(calculate_priority(0, 3), 0);
    }

    /// Presence is read per node from the state's image index: the nodes that have the image
    /// under the normalized name, and only those, count it.
    #[test]
    fn presence_is_per_node() {
        use crate::scheduler::testing::evaluate_default;
        use serde_json::json;
        let node = |name: &str, images: serde_json::Value| {
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                   "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                              "images": images}})
        };
        let big = json!({"names": ["reg/big:1"], "sizeBytes": 500 * MB});
        let items = json!([
            node("node-c", json!([big])),
            node(
                "node-a",
                json!([{"names": ["reg/other:1"], "sizeBytes": 500 * MB}])
            ),
            node("node-b", json!([big])),
        ]);
        let eval = evaluate_default(
            items,
            json!({"metadata": {"name": "p", "namespace": "default"},
                   "spec": {"containers": [{"name": "c", "image": "reg/big:1"}]}}),
        );
        let present: Vec<(&str, bool, Option<usize>)> = details_by_node(&eval)
            .into_iter()
            .map(|(n, d)| (n, d.images[0].present, d.images[0].nodes_with_image))
            .collect();
        assert_eq!(
            present,
            [
                ("node-c", true, Some(2)),
                ("node-a", false, None),
                ("node-b", true, Some(2))
            ]
        );
    }

    /// A state whose nodes kept other images than the pod's (a live read made for the pod's
    /// earlier version) leaves ImageLocality unevaluated on every node, never scored as if no
    /// node had the image; with the image kept it is scored.
    #[test]
    fn images_the_state_did_not_keep_leave_the_plugin_unevaluated() {
        use crate::scheduler::Input;
        use crate::scheduler::config::FeatureGates;
        use crate::scheduler::profile::Profile;
        use crate::state::resources::ImageNames;
        use crate::state::{Pod, read_snapshot_str};
        use serde_json::json;
        let mut state = read_snapshot_str(
            &json!({"apiVersion": "v1", "kind": "List", "items": [
                {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                 "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                            "images": [{"names": ["reg/big:1"], "sizeBytes": 500 * MB}]}}]})
            .to_string(),
            "test",
        )
        .expect("snapshot");
        let pod = Pod::from_api(
            &serde_json::from_value(json!({"metadata": {"name": "p", "namespace": "default"},
                "spec": {"containers": [{"name": "c", "image": "reg/big:1"}]}}))
            .expect("pod"),
        );
        let profile = Profile::default_profile(FeatureGates::default());
        let mut note = |kept: &[&str]| {
            state.objects_mut().read_node_images(ImageNames::Only(
                kept.iter().map(|s| s.to_string()).collect(),
            ));
            let input = Input {
                pod: &pod,
                state: &state,
                exclude: None,
                removed: &[],
            };
            let eval = crate::scheduler::evaluate(input, &profile);
            let s = eval.nodes[0]
                .scores
                .iter()
                .find(|s| *s.plugin == crate::scheduler::PluginId::ImageLocality)
                .expect("scored");
            s.not_evaluated.map(str::to_string)
        };
        let why = note(&["reg/other:1"]).expect("not evaluated");
        assert!(why.contains("the pod's images changed"), "{why}");
        assert_eq!(note(&["reg/big:1"]), None);
    }

    /// A pod with more images than the shared explanations can key (64) is explained node by
    /// node, with the same presence as any other pod.
    #[test]
    fn many_images_are_explained_node_by_node() {
        use crate::scheduler::testing::evaluate_default;
        use serde_json::json;
        let image = |i: usize| format!("reg/img-{i}:1");
        let node = |name: &str, has: usize| {
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                   "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                              "images": [{"names": [image(has)], "sizeBytes": 900 * MB}]}})
        };
        let containers: Vec<_> = (0..65)
            .map(|i| json!({"name": format!("c{i}"), "image": image(i)}))
            .collect();
        let eval = evaluate_default(
            json!([node("node-a", 0), node("node-b", 64)]),
            json!({"metadata": {"name": "p", "namespace": "default"},
                   "spec": {"containers": containers}}),
        );
        let present: Vec<(&str, usize, Vec<usize>)> = details_by_node(&eval)
            .into_iter()
            .map(|(n, d)| {
                let on: Vec<usize> = (0..d.images.len())
                    .filter(|&i| d.images[i].present)
                    .collect();
                (n, d.images.len(), on)
            })
            .collect();
        assert_eq!(present, [("node-a", 65, vec![0]), ("node-b", 65, vec![64])]);
    }
}
