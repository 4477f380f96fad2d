//! The one pod field the model reads only the presence of whose type is too large to write out
//! again: a generic `ephemeral` volume carries a whole PersistentVolumeClaim template (object
//! metadata, managed fields, a claim spec). Its presence is all the storage plugins read, but a
//! snapshot or page that the API's decode refuses must be refused here too, so it is decoded as
//! `k8s-openapi`'s type (see [`Checked`](crate::state::parts::Checked)) and then dropped: an
//! edge of the model, like the full API objects of `api.rs`.

use k8s_openapi::api::core::v1 as core;

/// `volumes[].ephemeral`, checked as the API reads it.
pub(crate) type EphemeralVolumeSource = core::EphemeralVolumeSource;
