//! Test/bench-only encoder: Kubernetes pods and nodes from `k8s-openapi` types to the protobuf
//! bytes a kube-apiserver serves for `Accept: application/vnd.kubernetes.protobuf`, using `k8s-pb`
//! types.
//!
//! Depends only on `k8s_openapi`, `k8s_pb`, `prost`, `serde_json` and `std`.
//!
//! Conversion is by reference through the [`Pb`] trait: each message type gets a `conv!` line
//! listing its fields (`openapi_name => pb_name` where they differ; `pb_field: pb::Type { ... }`
//! where protobuf nests a message that k8s-openapi flattens, e.g. `Volume.volumeSource`,
//! `Probe.handler`, `LocalObjectReference`). Every k8s-pb field is listed (only `PodSpec` ends in
//! `..`, for `workloadRef`), so a k8s-pb field left unconverted is a compile error.
//! Like k8s-pb, absent (`None`) values are left out; Go would write zero scalars.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as oc;
use k8s_openapi::apimachinery::pkg::api::resource as ores;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as om;
use k8s_openapi::apimachinery::pkg::util::intstr as oint;
use k8s_pb::api::core::v1 as pc;
use k8s_pb::apimachinery::pkg::api::resource as pres;
use k8s_pb::apimachinery::pkg::apis::meta::v1 as pm;
use k8s_pb::apimachinery::pkg::runtime as prt;
use k8s_pb::apimachinery::pkg::util::intstr as pint;
use prost::Message as _;
use prost::encoding::{WireType, encode_key, encode_varint, encoded_len_varint, key_len};

/// The 4 bytes that open every protobuf body of the Kubernetes API (`k8s\0`).
pub const MAGIC: [u8; 4] = [0x6b, 0x38, 0x73, 0x00];

/// One pod's protobuf bytes (a `k8s.io.api.core.v1.Pod` message, without the envelope).
pub fn pod_bytes(p: &oc::Pod) -> Vec<u8> {
    pod(p).encode_to_vec()
}

/// The converted message, for tests that want to tweak it before encoding.
pub fn pod(p: &oc::Pod) -> pc::Pod {
    p.pb()
}

/// One node's protobuf bytes (a `k8s.io.api.core.v1.Node` message, without the envelope).
pub fn node_bytes(n: &oc::Node) -> Vec<u8> {
    node(n).encode_to_vec()
}

/// The converted message, for tests that want to tweak it before encoding.
pub fn node(n: &oc::Node) -> pc::Node {
    n.pb()
}

/// A whole `PodList` response body: [`list_body`] of kind `PodList`, `items` being
/// already-encoded `Pod` messages (from [`pod_bytes`]).
pub fn pod_list_body(
    items: &[&[u8]],
    resource_version: &str,
    continue_: Option<&str>,
    remaining: Option<i64>,
) -> Vec<u8> {
    list_body("PodList", items, resource_version, continue_, remaining)
}

/// A whole core/v1 list response body (`kind` e.g. `PodList`, `NodeList`): magic +
/// `runtime.Unknown{typeMeta: v1/KIND, raw: KIND}`. `items` are already-encoded messages of the
/// listed type (from [`pod_bytes`], [`node_bytes`]), written as repeated field 2 after the
/// `ListMeta` (field 1).
pub fn list_body(
    kind: &str,
    items: &[&[u8]],
    resource_version: &str,
    continue_: Option<&str>,
    remaining: Option<i64>,
) -> Vec<u8> {
    let meta = pm::ListMeta {
        self_link: None,
        resource_version: Some(resource_version.to_owned()),
        r#continue: continue_.map(str::to_owned),
        remaining_item_count: remaining,
    };
    let meta_len = meta.encoded_len();
    let list_len = key_len(1)
        + encoded_len_varint(meta_len as u64)
        + meta_len
        + items
            .iter()
            .map(|i| key_len(2) + encoded_len_varint(i.len() as u64) + i.len())
            .sum::<usize>();
    envelope_with("v1", kind, list_len, |buf| {
        encode_key(1, WireType::LengthDelimited, buf);
        encode_varint(meta_len as u64, buf);
        meta.encode_raw(buf);
        for item in items {
            encode_key(2, WireType::LengthDelimited, buf);
            encode_varint(item.len() as u64, buf);
            buf.extend_from_slice(item);
        }
    })
}

/// The same envelope around any already-encoded object (e.g. a `Status`), for error answers.
pub fn envelope(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
    envelope_with(api_version, kind, raw.len(), |buf| {
        buf.extend_from_slice(raw);
    })
}

/// Writes magic + `runtime.Unknown` as Go does (fields 1..4 in order, empty contentEncoding and
/// contentType written), with `raw_len` bytes of `raw` produced by `write_raw`.
fn envelope_with(
    api_version: &str,
    kind: &str,
    raw_len: usize,
    write_raw: impl FnOnce(&mut Vec<u8>),
) -> Vec<u8> {
    let type_meta = prt::TypeMeta {
        api_version: Some(api_version.to_owned()),
        kind: Some(kind.to_owned()),
    };
    let tm_len = type_meta.encoded_len();
    let mut buf = Vec::with_capacity(MAGIC.len() + tm_len + raw_len + 24);
    buf.extend_from_slice(&MAGIC);
    encode_key(1, WireType::LengthDelimited, &mut buf);
    encode_varint(tm_len as u64, &mut buf);
    type_meta.encode_raw(&mut buf);
    encode_key(2, WireType::LengthDelimited, &mut buf);
    encode_varint(raw_len as u64, &mut buf);
    let start = buf.len();
    write_raw(&mut buf);
    debug_assert_eq!(buf.len() - start, raw_len, "raw length announced wrongly");
    for field in [3, 4] {
        // contentEncoding, contentType: empty strings.
        encode_key(field, WireType::LengthDelimited, &mut buf);
        encode_varint(0, &mut buf);
    }
    buf
}

/// Conversion from a `k8s-openapi` value to its `k8s-pb` counterpart.
pub trait Pb<T> {
    fn pb(&self) -> T;
}

macro_rules! scalar {
    ($($t:ty),*) => {$(
        impl Pb<$t> for $t {
            fn pb(&self) -> $t {
                self.clone()
            }
        }
        impl Pb<Option<$t>> for $t {
            fn pb(&self) -> Option<$t> {
                Some(self.clone())
            }
        }
    )*};
}
scalar!(String, i32, i64, bool);

impl<O: Pb<P>, P> Pb<Option<P>> for Option<O> {
    fn pb(&self) -> Option<P> {
        self.as_ref().map(Pb::pb)
    }
}

impl<O: Pb<P>, P> Pb<Vec<P>> for Vec<O> {
    fn pb(&self) -> Vec<P> {
        self.iter().map(Pb::pb).collect()
    }
}

impl<O: Pb<P>, P> Pb<Vec<P>> for Option<Vec<O>> {
    fn pb(&self) -> Vec<P> {
        self.as_ref().map_or_else(Vec::new, Pb::pb)
    }
}

// Maps: only the two value types pods and nodes have (a string map is cloned, not rebuilt).
impl Pb<BTreeMap<String, String>> for Option<BTreeMap<String, String>> {
    fn pb(&self) -> BTreeMap<String, String> {
        self.clone().unwrap_or_default()
    }
}

impl Pb<BTreeMap<String, pres::Quantity>> for BTreeMap<String, ores::Quantity> {
    fn pb(&self) -> BTreeMap<String, pres::Quantity> {
        self.iter().map(|(k, v)| (k.clone(), v.pb())).collect()
    }
}

impl Pb<BTreeMap<String, pres::Quantity>> for Option<BTreeMap<String, ores::Quantity>> {
    fn pb(&self) -> BTreeMap<String, pres::Quantity> {
        self.as_ref().map_or_else(BTreeMap::new, Pb::pb)
    }
}

/// `impl Pb<Option<B>> for A` for message types.
macro_rules! some {
    ($($a:path => $b:path),* $(,)?) => {$(
        impl Pb<Option<$b>> for $a {
            fn pb(&self) -> Option<$b> {
                Some(self.pb())
            }
        }
    )*};
}

impl Pb<pm::Time> for om::Time {
    /// Go's `metav1.Time` protobuf form keeps whole seconds only (nanos written as 0).
    fn pb(&self) -> pm::Time {
        pm::Time {
            seconds: Some(self.0.as_second()),
            nanos: Some(0),
        }
    }
}

impl Pb<pm::MicroTime> for om::MicroTime {
    fn pb(&self) -> pm::MicroTime {
        pm::MicroTime {
            seconds: Some(self.0.as_second()),
            nanos: Some(self.0.subsec_nanosecond()),
        }
    }
}

impl Pb<pm::FieldsV1> for om::FieldsV1 {
    /// The raw JSON, as the apiserver stores it.
    fn pb(&self) -> pm::FieldsV1 {
        let mut raw = Vec::with_capacity(1024);
        write_json(&self.0, &mut raw);
        pm::FieldsV1 { raw: Some(raw) }
    }
}

/// Compact JSON like `serde_json::to_vec`, much faster in unoptimized builds (tests), where
/// managedFields would otherwise dominate the encoding time.
fn write_json(v: &serde_json::Value, out: &mut Vec<u8>) {
    use serde_json::Value;
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Number(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Value::String(s) => write_json_str(s, out),
        Value::Array(a) => {
            out.push(b'[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json(x, out);
            }
            out.push(b']');
        }
        Value::Object(m) => {
            out.push(b'{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json_str(k, out);
                out.push(b':');
                write_json(x, out);
            }
            out.push(b'}');
        }
    }
}

fn write_json_str(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.extend_from_slice(s.as_bytes());
    } else {
        for c in s.chars() {
            match c {
                '"' => out.extend_from_slice(b"\\\""),
                '\\' => out.extend_from_slice(b"\\\\"),
                '\n' => out.extend_from_slice(b"\\n"),
                '\r' => out.extend_from_slice(b"\\r"),
                '\t' => out.extend_from_slice(b"\\t"),
                '\u{8}' => out.extend_from_slice(b"\\b"),
                '\u{c}' => out.extend_from_slice(b"\\f"),
                c if u32::from(c) < 0x20 => {
                    out.extend_from_slice(format!("\\u{:04x}", u32::from(c)).as_bytes());
                }
                c => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            }
        }
    }
    out.push(b'"');
}

impl Pb<pres::Quantity> for ores::Quantity {
    fn pb(&self) -> pres::Quantity {
        pres::Quantity {
            string: Some(self.0.clone()),
        }
    }
}

impl Pb<pint::IntOrString> for oint::IntOrString {
    /// `type` 0 = int (`intVal`), 1 = string (`strVal`).
    fn pb(&self) -> pint::IntOrString {
        match self {
            oint::IntOrString::Int(i) => pint::IntOrString {
                r#type: Some(0),
                int_val: Some(*i),
                str_val: None,
            },
            oint::IntOrString::String(s) => pint::IntOrString {
                r#type: Some(1),
                int_val: None,
                str_val: Some(s.clone()),
            },
        }
    }
}

some!(
    om::Time => pm::Time,
    om::MicroTime => pm::MicroTime,
    om::FieldsV1 => pm::FieldsV1,
    ores::Quantity => pres::Quantity,
    oint::IntOrString => pint::IntOrString,
);

/// `conv!(openapi::T => pb::T { same_name, openapi_name => pb_name,
/// pb_field: pb::Nested { fields of the flattened openapi struct... } })`
/// writes `impl Pb<pb::T>` and `impl Pb<Option<pb::T>>` for `openapi::T`. Fields of
/// `openapi::T` that are not listed are silently dropped: those are listed at the end of the file.
macro_rules! conv {
    ($a:path => $($b:ident)::+ { $($body:tt)* }) => {
        impl Pb<$($b)::+> for $a {
            fn pb(&self) -> $($b)::+ {
                let s = self;
                conv!(@f s, [$($b)::+], [] $($body)*)
            }
        }
        some!($a => $($b)::+);
    };
    (@f $s:ident, [$($b:tt)*], [$($out:tt)*] $(,)?) => { $($b)* { $($out)* } };
    // `..` last: the remaining protobuf fields (absent from k8s-openapi) stay unset.
    (@f $s:ident, [$($b:tt)*], [$($out:tt)*] .. $(,)?) => {
        $($b)* { $($out)* ..Default::default() }
    };
    // A message that protobuf nests but k8s-openapi flattens into the outer struct.
    (@f $s:ident, $b:tt, [$($out:tt)*]
        $dst:ident : $($p:ident)::+ { $($inner:tt)* } $(, $($rest:tt)*)?) => {
        conv!(@f $s, $b,
            [$($out)* $dst: Some(conv!(@f $s, [$($p)::+], [] $($inner)*)),] $($($rest)*)?)
    };
    (@f $s:ident, $b:tt, [$($out:tt)*] $src:ident => $dst:ident $(, $($rest:tt)*)?) => {
        conv!(@f $s, $b, [$($out)* $dst: Pb::pb(&$s.$src),] $($($rest)*)?)
    };
    (@f $s:ident, $b:tt, [$($out:tt)*] $src:ident $(, $($rest:tt)*)?) => {
        conv!(@f $s, $b, [$($out)* $src: Pb::pb(&$s.$src),] $($($rest)*)?)
    };
}

conv!(oc::Pod => pc::Pod { metadata, spec, status });
conv!(om::ObjectMeta => pm::ObjectMeta {
    name, generate_name, namespace, self_link, uid, resource_version, generation,
    creation_timestamp, deletion_timestamp, deletion_grace_period_seconds, labels, annotations,
    owner_references, finalizers, managed_fields,
});
conv!(oc::PodSpec => pc::PodSpec {
    volumes, init_containers, containers, ephemeral_containers, restart_policy,
    termination_grace_period_seconds, active_deadline_seconds, dns_policy, node_selector,
    service_account_name, service_account, automount_service_account_token, node_name,
    host_network, host_pid, host_ipc, share_process_namespace, security_context,
    image_pull_secrets, hostname, subdomain, affinity, scheduler_name, tolerations, host_aliases,
    priority_class_name, priority, dns_config, readiness_gates, runtime_class_name,
    enable_service_links, preemption_policy, overhead, topology_spread_constraints,
    set_hostname_as_fqdn, os, host_users, scheduling_gates, resource_claims, resources,
    hostname_override, ..,
});
conv!(oc::PodStatus => pc::PodStatus {
    observed_generation, phase, conditions, message, reason, nominated_node_name, host_ip,
    host_ips, pod_ip, pod_ips, start_time, init_container_statuses, container_statuses, qos_class,
    ephemeral_container_statuses, resize, resource_claim_statuses, extended_resource_claim_status,
    allocated_resources, resources,
});
conv!(om::OwnerReference => pm::OwnerReference {
    api_version, kind, name, uid, controller, block_owner_deletion,
});
conv!(om::ManagedFieldsEntry => pm::ManagedFieldsEntry {
    manager, operation, api_version, time, fields_type, fields_v1, subresource,
});
conv!(oc::Volume => pc::Volume {
    name,
    volume_source: pc::VolumeSource {
        host_path, empty_dir, gce_persistent_disk, aws_elastic_block_store, git_repo, secret, nfs,
        iscsi, glusterfs, persistent_volume_claim, rbd, flex_volume, cinder, cephfs, flocker,
        downward_api, fc, azure_file, config_map, vsphere_volume, quobyte, azure_disk,
        photon_persistent_disk, projected, portworx_volume, scale_io, storageos, csi, ephemeral,
        image,
    },
});
conv!(oc::Container => pc::Container {
    name, image, command, args, working_dir, ports, env_from, env, resources, resize_policy,
    restart_policy, restart_policy_rules, volume_mounts, volume_devices, liveness_probe,
    readiness_probe, startup_probe, lifecycle, termination_message_path,
    termination_message_policy, image_pull_policy, security_context, stdin, stdin_once, tty,
});
conv!(oc::EphemeralContainer => pc::EphemeralContainer {
    ephemeral_container_common: pc::EphemeralContainerCommon {
        name, image, command, args, working_dir, ports, env_from, env, resources, resize_policy,
        restart_policy, restart_policy_rules, volume_mounts, volume_devices, liveness_probe,
        readiness_probe, startup_probe, lifecycle, termination_message_path,
        termination_message_policy, image_pull_policy, security_context, stdin, stdin_once, tty,
    },
    target_container_name,
});
conv!(oc::PodSecurityContext => pc::PodSecurityContext {
    se_linux_options, windows_options, run_as_user, run_as_group, run_as_non_root,
    supplemental_groups, supplemental_groups_policy, fs_group, sysctls, fs_group_change_policy,
    seccomp_profile, app_armor_profile, se_linux_change_policy,
});
conv!(oc::LocalObjectReference => pc::LocalObjectReference { name });
conv!(oc::Affinity => pc::Affinity { node_affinity, pod_affinity, pod_anti_affinity });
conv!(oc::Toleration => pc::Toleration { key, operator, value, effect, toleration_seconds });
conv!(oc::HostAlias => pc::HostAlias { ip, hostnames });
conv!(oc::PodDNSConfig => pc::PodDnsConfig { nameservers, searches, options });
conv!(oc::PodReadinessGate => pc::PodReadinessGate { condition_type });
conv!(oc::TopologySpreadConstraint => pc::TopologySpreadConstraint {
    max_skew, topology_key, when_unsatisfiable, label_selector, min_domains, node_affinity_policy,
    node_taints_policy, match_label_keys,
});
conv!(oc::PodOS => pc::PodOs { name });
conv!(oc::PodSchedulingGate => pc::PodSchedulingGate { name });
conv!(oc::PodResourceClaim => pc::PodResourceClaim {
    name, resource_claim_name, resource_claim_template_name,
});
conv!(oc::ResourceRequirements => pc::ResourceRequirements { limits, requests, claims });
conv!(oc::PodCondition => pc::PodCondition {
    type_ => r#type, observed_generation, status, last_probe_time, last_transition_time, reason,
    message,
});
conv!(oc::HostIP => pc::HostIp { ip });
conv!(oc::PodIP => pc::PodIp { ip });
conv!(oc::ContainerStatus => pc::ContainerStatus {
    name, state, last_state, ready, restart_count, image, image_id, container_id, started,
    allocated_resources, resources, volume_mounts, user, allocated_resources_status, stop_signal,
});
conv!(oc::PodResourceClaimStatus => pc::PodResourceClaimStatus { name, resource_claim_name });
conv!(oc::PodExtendedResourceClaimStatus => pc::PodExtendedResourceClaimStatus {
    request_mappings, resource_claim_name,
});
conv!(oc::HostPathVolumeSource => pc::HostPathVolumeSource { path, type_ => r#type });
conv!(oc::EmptyDirVolumeSource => pc::EmptyDirVolumeSource { medium, size_limit });
conv!(oc::GCEPersistentDiskVolumeSource => pc::GcePersistentDiskVolumeSource {
    pd_name, fs_type, partition, read_only,
});
conv!(oc::AWSElasticBlockStoreVolumeSource => pc::AwsElasticBlockStoreVolumeSource {
    volume_id, fs_type, partition, read_only,
});
conv!(oc::GitRepoVolumeSource => pc::GitRepoVolumeSource { repository, revision, directory });
conv!(oc::SecretVolumeSource => pc::SecretVolumeSource {
    secret_name, items, default_mode, optional,
});
conv!(oc::NFSVolumeSource => pc::NfsVolumeSource { server, path, read_only });
conv!(oc::ISCSIVolumeSource => pc::IscsiVolumeSource {
    target_portal, iqn, lun, iscsi_interface, fs_type, read_only, portals, chap_auth_discovery,
    chap_auth_session, secret_ref, initiator_name,
});
conv!(oc::GlusterfsVolumeSource => pc::GlusterfsVolumeSource { endpoints, path, read_only });
conv!(oc::PersistentVolumeClaimVolumeSource => pc::PersistentVolumeClaimVolumeSource {
    claim_name, read_only,
});
conv!(oc::RBDVolumeSource => pc::RbdVolumeSource {
    monitors, image, fs_type, pool, user, keyring, secret_ref, read_only,
});
conv!(oc::FlexVolumeSource => pc::FlexVolumeSource {
    driver, fs_type, secret_ref, read_only, options,
});
conv!(oc::CinderVolumeSource => pc::CinderVolumeSource {
    volume_id, fs_type, read_only, secret_ref,
});
conv!(oc::CephFSVolumeSource => pc::CephFsVolumeSource {
    monitors, path, user, secret_file, secret_ref, read_only,
});
conv!(oc::FlockerVolumeSource => pc::FlockerVolumeSource { dataset_name, dataset_uuid });
conv!(oc::DownwardAPIVolumeSource => pc::DownwardAPIVolumeSource { items, default_mode });
conv!(oc::FCVolumeSource => pc::FcVolumeSource {
    target_wwns => target_ww_ns, lun, fs_type, read_only, wwids,
});
conv!(oc::AzureFileVolumeSource => pc::AzureFileVolumeSource {
    secret_name, share_name, read_only,
});
conv!(oc::ConfigMapVolumeSource => pc::ConfigMapVolumeSource {
    local_object_reference: pc::LocalObjectReference { name },
    items, default_mode, optional,
});
conv!(oc::VsphereVirtualDiskVolumeSource => pc::VsphereVirtualDiskVolumeSource {
    volume_path, fs_type, storage_policy_name, storage_policy_id,
});
conv!(oc::QuobyteVolumeSource => pc::QuobyteVolumeSource {
    registry, volume, read_only, user, group, tenant,
});
conv!(oc::AzureDiskVolumeSource => pc::AzureDiskVolumeSource {
    disk_name, disk_uri, caching_mode, fs_type, read_only, kind,
});
conv!(oc::PhotonPersistentDiskVolumeSource => pc::PhotonPersistentDiskVolumeSource {
    pd_id, fs_type,
});
conv!(oc::ProjectedVolumeSource => pc::ProjectedVolumeSource { sources, default_mode });
conv!(oc::PortworxVolumeSource => pc::PortworxVolumeSource { volume_id, fs_type, read_only });
conv!(oc::ScaleIOVolumeSource => pc::ScaleIoVolumeSource {
    gateway, system, secret_ref, ssl_enabled, protection_domain, storage_pool, storage_mode,
    volume_name, fs_type, read_only,
});
conv!(oc::StorageOSVolumeSource => pc::StorageOsVolumeSource {
    volume_name, volume_namespace, fs_type, read_only, secret_ref,
});
conv!(oc::CSIVolumeSource => pc::CSIVolumeSource {
    driver, read_only, fs_type, volume_attributes, node_publish_secret_ref,
});
conv!(oc::EphemeralVolumeSource => pc::EphemeralVolumeSource { volume_claim_template });
conv!(oc::ImageVolumeSource => pc::ImageVolumeSource { reference, pull_policy });
conv!(oc::ContainerPort => pc::ContainerPort {
    name, host_port, container_port, protocol, host_ip,
});
conv!(oc::EnvFromSource => pc::EnvFromSource { prefix, config_map_ref, secret_ref });
conv!(oc::EnvVar => pc::EnvVar { name, value, value_from });
conv!(oc::ContainerResizePolicy => pc::ContainerResizePolicy { resource_name, restart_policy });
conv!(oc::ContainerRestartRule => pc::ContainerRestartRule { action, exit_codes });
conv!(oc::VolumeMount => pc::VolumeMount {
    name, read_only, recursive_read_only, mount_path, sub_path, mount_propagation, sub_path_expr,
});
conv!(oc::VolumeDevice => pc::VolumeDevice { name, device_path });
conv!(oc::Probe => pc::Probe {
    handler: pc::ProbeHandler { exec, http_get, tcp_socket, grpc },
    initial_delay_seconds, timeout_seconds, period_seconds, success_threshold, failure_threshold,
    termination_grace_period_seconds,
});
conv!(oc::Lifecycle => pc::Lifecycle { post_start, pre_stop, stop_signal });
conv!(oc::SecurityContext => pc::SecurityContext {
    capabilities, privileged, se_linux_options, windows_options, run_as_user, run_as_group,
    run_as_non_root, read_only_root_filesystem, allow_privilege_escalation, proc_mount,
    seccomp_profile, app_armor_profile,
});
conv!(oc::SELinuxOptions => pc::SeLinuxOptions { user, role, type_ => r#type, level });
conv!(oc::WindowsSecurityContextOptions => pc::WindowsSecurityContextOptions {
    gmsa_credential_spec_name, gmsa_credential_spec, run_as_user_name, host_process,
});
conv!(oc::Sysctl => pc::Sysctl { name, value });
conv!(oc::SeccompProfile => pc::SeccompProfile { type_ => r#type, localhost_profile });
conv!(oc::AppArmorProfile => pc::AppArmorProfile { type_ => r#type, localhost_profile });
conv!(oc::NodeAffinity => pc::NodeAffinity {
    required_during_scheduling_ignored_during_execution,
    preferred_during_scheduling_ignored_during_execution,
});
conv!(oc::PodAffinity => pc::PodAffinity {
    required_during_scheduling_ignored_during_execution,
    preferred_during_scheduling_ignored_during_execution,
});
conv!(oc::PodAntiAffinity => pc::PodAntiAffinity {
    required_during_scheduling_ignored_during_execution,
    preferred_during_scheduling_ignored_during_execution,
});
conv!(oc::PodDNSConfigOption => pc::PodDnsConfigOption { name, value });
conv!(om::LabelSelector => pm::LabelSelector { match_labels, match_expressions });
conv!(oc::ResourceClaim => pc::ResourceClaim { name, request });
conv!(oc::ContainerState => pc::ContainerState { waiting, running, terminated });
conv!(oc::VolumeMountStatus => pc::VolumeMountStatus {
    name, mount_path, read_only, recursive_read_only,
});
conv!(oc::ContainerUser => pc::ContainerUser { linux });
conv!(oc::ResourceStatus => pc::ResourceStatus { name, resources });
conv!(oc::ContainerExtendedResourceRequest => pc::ContainerExtendedResourceRequest {
    container_name, resource_name, request_name,
});
conv!(oc::KeyToPath => pc::KeyToPath { key, path, mode });
conv!(oc::DownwardAPIVolumeFile => pc::DownwardAPIVolumeFile {
    path, field_ref, resource_field_ref, mode,
});
conv!(oc::VolumeProjection => pc::VolumeProjection {
    secret, downward_api, config_map, service_account_token, cluster_trust_bundle, pod_certificate,
});
conv!(oc::PersistentVolumeClaimTemplate => pc::PersistentVolumeClaimTemplate { metadata, spec });
conv!(oc::ConfigMapEnvSource => pc::ConfigMapEnvSource {
    local_object_reference: pc::LocalObjectReference { name },
    optional,
});
conv!(oc::SecretEnvSource => pc::SecretEnvSource {
    local_object_reference: pc::LocalObjectReference { name },
    optional,
});
conv!(oc::EnvVarSource => pc::EnvVarSource {
    field_ref, resource_field_ref, config_map_key_ref, secret_key_ref, file_key_ref,
});
conv!(oc::ContainerRestartRuleOnExitCodes => pc::ContainerRestartRuleOnExitCodes {
    operator, values,
});
conv!(oc::ExecAction => pc::ExecAction { command });
conv!(oc::HTTPGetAction => pc::HttpGetAction { path, port, host, scheme, http_headers });
conv!(oc::TCPSocketAction => pc::TcpSocketAction { port, host });
conv!(oc::GRPCAction => pc::GrpcAction { port, service });
conv!(oc::LifecycleHandler => pc::LifecycleHandler { exec, http_get, tcp_socket, sleep });
conv!(oc::Capabilities => pc::Capabilities { add, drop });
conv!(oc::NodeSelector => pc::NodeSelector { node_selector_terms });
conv!(oc::PreferredSchedulingTerm => pc::PreferredSchedulingTerm { weight, preference });
conv!(oc::PodAffinityTerm => pc::PodAffinityTerm {
    label_selector, namespaces, topology_key, namespace_selector, match_label_keys,
    mismatch_label_keys,
});
conv!(oc::WeightedPodAffinityTerm => pc::WeightedPodAffinityTerm { weight, pod_affinity_term });
conv!(om::LabelSelectorRequirement => pm::LabelSelectorRequirement { key, operator, values });
conv!(oc::ContainerStateWaiting => pc::ContainerStateWaiting { reason, message });
conv!(oc::ContainerStateRunning => pc::ContainerStateRunning { started_at });
conv!(oc::ContainerStateTerminated => pc::ContainerStateTerminated {
    exit_code, signal, reason, message, started_at, finished_at, container_id,
});
conv!(oc::LinuxContainerUser => pc::LinuxContainerUser { uid, gid, supplemental_groups });
conv!(oc::ResourceHealth => pc::ResourceHealth { resource_id, health });
conv!(oc::ObjectFieldSelector => pc::ObjectFieldSelector { api_version, field_path });
conv!(oc::ResourceFieldSelector => pc::ResourceFieldSelector { container_name, resource, divisor });
conv!(oc::SecretProjection => pc::SecretProjection {
    local_object_reference: pc::LocalObjectReference { name },
    items, optional,
});
conv!(oc::DownwardAPIProjection => pc::DownwardAPIProjection { items });
conv!(oc::ConfigMapProjection => pc::ConfigMapProjection {
    local_object_reference: pc::LocalObjectReference { name },
    items, optional,
});
conv!(oc::ServiceAccountTokenProjection => pc::ServiceAccountTokenProjection {
    audience, expiration_seconds, path,
});
conv!(oc::ClusterTrustBundleProjection => pc::ClusterTrustBundleProjection {
    name, signer_name, label_selector, optional, path,
});
conv!(oc::PodCertificateProjection => pc::PodCertificateProjection {
    signer_name, key_type, max_expiration_seconds, credential_bundle_path, key_path,
    certificate_chain_path, user_annotations,
});
conv!(oc::PersistentVolumeClaimSpec => pc::PersistentVolumeClaimSpec {
    access_modes, selector, resources, volume_name, storage_class_name, volume_mode, data_source,
    data_source_ref, volume_attributes_class_name,
});
conv!(oc::ConfigMapKeySelector => pc::ConfigMapKeySelector {
    local_object_reference: pc::LocalObjectReference { name },
    key, optional,
});
conv!(oc::SecretKeySelector => pc::SecretKeySelector {
    local_object_reference: pc::LocalObjectReference { name },
    key, optional,
});
conv!(oc::FileKeySelector => pc::FileKeySelector { volume_name, path, key, optional });
conv!(oc::HTTPHeader => pc::HttpHeader { name, value });
conv!(oc::SleepAction => pc::SleepAction { seconds });
conv!(oc::NodeSelectorTerm => pc::NodeSelectorTerm { match_expressions, match_fields });
conv!(oc::VolumeResourceRequirements => pc::VolumeResourceRequirements { limits, requests });
conv!(oc::TypedLocalObjectReference => pc::TypedLocalObjectReference { api_group, kind, name });
conv!(oc::TypedObjectReference => pc::TypedObjectReference { api_group, kind, name, namespace });
conv!(oc::NodeSelectorRequirement => pc::NodeSelectorRequirement { key, operator, values });

conv!(oc::Node => pc::Node { metadata, spec, status });
conv!(oc::NodeSpec => pc::NodeSpec {
    pod_cidr, pod_cidrs => pod_cid_rs, provider_id, unschedulable, taints, config_source,
    external_id,
});
conv!(oc::NodeStatus => pc::NodeStatus {
    capacity, allocatable, phase, conditions, addresses, daemon_endpoints, node_info, images,
    volumes_in_use, volumes_attached, config, runtime_handlers, features, declared_features,
});
conv!(oc::Taint => pc::Taint { key, value, effect, time_added });
conv!(oc::NodeConfigSource => pc::NodeConfigSource { config_map });
conv!(oc::ConfigMapNodeConfigSource => pc::ConfigMapNodeConfigSource {
    namespace, name, uid, resource_version, kubelet_config_key,
});
conv!(oc::NodeCondition => pc::NodeCondition {
    type_ => r#type, status, last_heartbeat_time, last_transition_time, reason, message,
});
conv!(oc::NodeAddress => pc::NodeAddress { type_ => r#type, address });
conv!(oc::NodeDaemonEndpoints => pc::NodeDaemonEndpoints { kubelet_endpoint });
conv!(oc::DaemonEndpoint => pc::DaemonEndpoint { port });
conv!(oc::NodeSystemInfo => pc::NodeSystemInfo {
    machine_id, system_uuid, boot_id, kernel_version, os_image, container_runtime_version,
    kubelet_version, kube_proxy_version, operating_system, architecture, swap,
});
conv!(oc::NodeSwapStatus => pc::NodeSwapStatus { capacity });
conv!(oc::ContainerImage => pc::ContainerImage { names, size_bytes });
conv!(oc::AttachedVolume => pc::AttachedVolume { name, device_path });
conv!(oc::NodeConfigStatus => pc::NodeConfigStatus { assigned, active, last_known_good, error });
conv!(oc::NodeRuntimeHandler => pc::NodeRuntimeHandler { name, features });
conv!(oc::NodeRuntimeHandlerFeatures => pc::NodeRuntimeHandlerFeatures {
    recursive_read_only_mounts, user_namespaces,
});
conv!(oc::NodeFeatures => pc::NodeFeatures { supplemental_groups_policy });

// Fields present in only one of the two crates (k8s-openapi 0.29 `latest` = Kubernetes 1.37,
// k8s-pb 0.9 = an older API, about Kubernetes 1.35), hence not converted:
// - only in k8s-openapi (dropped): PodSpec.evictionResponders, PodSpec.schedulingGroup,
//   PodStatus.nodeAllocatableResourceClaimStatuses, PodStatus.volumeHealth,
//   EmptyDirVolumeSource.mode, defaultUser of Secret/ConfigMap/DownwardAPI/Projected volume
//   sources, user of KeyToPath/DownwardAPIVolumeFile/ServiceAccountTokenProjection/
//   ClusterTrustBundleProjection/PodCertificateProjection, VolumeMount.bindMountOptions,
//   VolumeMountStatus.volumeStatus, HTTPGetAction.protocol, GRPCAction.mode,
//   ResourceHealth.message, NodeSpec.podPreemptionPolicy, NodeSystemInfo.runningInUserNamespace.
// - only in k8s-pb (left unset): PodSpec.workloadRef.
