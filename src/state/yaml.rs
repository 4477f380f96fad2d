//! The one place that names the YAML crate.
//!
//! serde-saphyr is used because it is what kube 5 itself depends on (one YAML stack in the
//! binary), it is maintained, and it enforces a parsing budget against alias bombs; serde_yaml
//! is archived and only published as `+deprecated`.

use serde::Serialize;

/// Parses every YAML document of `text` into generic JSON values.
pub(super) fn documents(text: &str) -> Result<Vec<serde_json::Value>, String> {
    serde_saphyr::from_multiple::<serde_json::Value>(text).map_err(|e| e.to_string())
}

/// Serializes any value as a YAML document (used by the yaml renderer).
pub fn to_yaml_string<T: Serialize>(value: &T) -> Result<String, String> {
    serde_saphyr::to_string(value).map_err(|e| e.to_string())
}
