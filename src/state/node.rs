//! A node as the evaluation reads it.

use super::labels::Labels;
use super::resources::NodeResources;
use super::taints::Taint;

#[derive(Debug, Clone)]
pub struct Node {
    pub name: String,
    pub labels: Labels,
    pub taints: Vec<Taint>,
    pub unschedulable: bool,
    /// Allocatable resources and cached images.
    pub resources: NodeResources,
    /// `status.declaredFeatures`.
    pub declared_features: Vec<String>,
}
