//! An object of an input file, and the errors that name the file, the document, the object
//! and the field: what every reader of files (`read.rs`, `manifest.rs`, `scale.rs`) and the
//! model's decoding of kinds (`objects.rs`) share.

use serde::de::DeserializeOwned;

/// A problem with an input file, naming the file, the document and the field.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The file could not be read at all.
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// The text is not valid YAML or JSON.
    #[error("{path}: not valid YAML or JSON: {message}; {}", syntax_hint(message))]
    Syntax { path: String, message: String },
    /// An object does not have the shape its kind requires.
    #[error(transparent)]
    Field(Box<FieldProblem>),
    /// The input holds nothing usable.
    #[error("{path}: {message}")]
    Content { path: String, message: String },
}

/// The next step after a syntax error.
fn syntax_hint(message: &str) -> &'static str {
    if message.contains("recursion limit exceeded") || message.contains("levels deep") {
        "Kubernetes objects nest about 20 levels deep: check that this is the file you meant"
    } else if message.contains("alias") {
        "give the YAML or JSON that kubectl prints"
    } else {
        "fix the text at that position, or write the file again with `kubectl get ... -o yaml`"
    }
}

/// Where in which object a field is wrong, and how.
#[derive(Debug, thiserror::Error)]
#[error("{path}: document {document}, {kind} {name:?}: field {field}: {message}")]
pub struct FieldProblem {
    pub path: String,
    pub document: usize,
    pub kind: String,
    pub name: String,
    pub field: String,
    pub message: String,
}

/// One Kubernetes object with its position in the input.
#[derive(Debug, Clone)]
pub struct Located {
    pub document: usize,
    pub value: serde_json::Value,
}

impl Located {
    pub fn kind(&self) -> &str {
        self.value
            .get("kind")
            .and_then(|k| k.as_str())
            .unwrap_or("")
    }
    pub fn api_version(&self) -> &str {
        self.value
            .get("apiVersion")
            .and_then(|k| k.as_str())
            .unwrap_or("")
    }
    pub fn name(&self) -> &str {
        self.value
            .pointer("/metadata/name")
            .and_then(|k| k.as_str())
            .unwrap_or("")
    }

    /// Deserializes into a typed object; errors name the field path.
    pub fn decode<T: DeserializeOwned>(&self, path: &str) -> Result<T, SourceError> {
        serde_path_to_error::deserialize(&self.value).map_err(|e| {
            SourceError::Field(Box::new(FieldProblem {
                path: path.to_string(),
                document: self.document,
                kind: self.kind().to_string(),
                name: self.name().to_string(),
                field: e.path().to_string(),
                message: e.inner().to_string(),
            }))
        })
    }
}
