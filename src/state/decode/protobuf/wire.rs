//! Reading the protobuf wire format where prost's general path costs too much: keys,
//! lengths and fields of one or two bytes read inline, the rest and every error left to
//! prost, so that what is refused and why is prost's.

use prost::encoding::{DecodeContext, WireType, decode_key, decode_varint, skip_field};

/// Why a protobuf body could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ProtobufError {
    /// The body does not start with the 4-byte `k8s\0` prefix of the API's protobuf encoding.
    #[error("the body does not start with the protobuf prefix k8s\\0")]
    NoMagic,
    /// The envelope names another kind than the one asked for.
    #[error("the body holds a {found}, not a {expected}")]
    WrongKind {
        expected: &'static str,
        found: String,
    },
    /// The envelope holds no object at all.
    #[error("the body holds no object")]
    NoObject,
    /// The envelope holds more than one object. API servers write one; Go's decoder would
    /// keep the last, while the continue token is read early from the first
    /// ([`super::list_start`]), so the two could name different pages.
    #[error("the body holds more than one object")]
    SeveralObjects,
    /// The envelope says its object is compressed or otherwise encoded (API servers never do).
    #[error("the body's object is in content encoding {0:?}, which is not supported")]
    ContentEncoding(String),
    /// A field's length goes past the end of the body, as a cut connection leaves it.
    #[error("the protobuf body ends inside a field")]
    Truncated,
    /// The bytes end early or are not the message they should be.
    #[error("{0}")]
    Decode(#[from] prost::DecodeError),
}

impl ProtobufError {
    /// True when the bytes stop before the message does, as a cut connection leaves them.
    pub fn is_truncated(&self) -> bool {
        match self {
            ProtobufError::Truncated => true,
            // prost's own words when a message's bytes stop early.
            ProtobufError::Decode(e) => e.to_string().contains("buffer underflow"),
            _ => false,
        }
    }
}

/// A field's key, or `Truncated` when the body ends inside it.
#[inline]
pub(super) fn key(buf: &mut &[u8]) -> Result<(u32, WireType), ProtobufError> {
    // A key of one or two bytes (fields 1 to 2047) is read here, the rest and every error
    // by prost.
    if let Some((k, rest)) = short_varint(buf)
        && k >= 8
        && let Ok(wire) = WireType::try_from(u64::from(k & 7))
    {
        *buf = rest;
        return Ok((k >> 3, wire));
    }
    if varint_cut(buf) {
        return Err(ProtobufError::Truncated);
    }
    Ok(decode_key(buf)?)
}

/// Steps over a field this decoder does not read.
#[inline]
pub(super) fn skip(wire: WireType, tag: u32, buf: &mut &[u8]) -> Result<(), ProtobufError> {
    match wire {
        WireType::LengthDelimited => length_delimited(buf).map(drop),
        _ if varint_cut(buf) => Err(ProtobufError::Truncated),
        _ => Ok(skip_field(wire, tag, buf, DecodeContext::default())?),
    }
}

/// A varint of one or two bytes, and the bytes after it; `None` for any other, left to
/// prost. Keys and lengths are read this way: a pod has about 90 of each.
#[inline(always)]
pub(super) fn short_varint(buf: &[u8]) -> Option<(u32, &[u8])> {
    match *buf {
        [b0, ref rest @ ..] if b0 < 0x80 => Some((u32::from(b0), rest)),
        [b0, b1, ref rest @ ..] if b1 < 0x80 => {
            Some((u32::from(b0 & 0x7f) | u32::from(b1) << 7, rest))
        }
        _ => None,
    }
}

/// The body ends before a varint does: every byte left says another follows.
#[inline]
pub(super) fn varint_cut(buf: &[u8]) -> bool {
    buf.len() < 10 && buf.iter().all(|b| b & 0x80 != 0)
}

/// The bytes of one length-delimited field, the buffer moved past them.
#[inline]
pub(super) fn length_delimited<'a>(buf: &mut &'a [u8]) -> Result<&'a [u8], ProtobufError> {
    let len = field_length(buf)?;
    if len > buf.len() {
        return Err(ProtobufError::Truncated);
    }
    let (field, rest) = buf.split_at(len);
    *buf = rest;
    Ok(field)
}

/// A length-delimited field's length, the buffer moved past it (the caller checks that the
/// field's bytes are there); `Truncated` when the body ends inside it.
#[inline]
pub(super) fn field_length(buf: &mut &[u8]) -> Result<usize, ProtobufError> {
    // A length of one or two bytes (under 16 KiB: nearly every field), as for keys.
    let len = match short_varint(buf) {
        Some((len, rest)) => {
            *buf = rest;
            u64::from(len)
        }
        None if varint_cut(buf) => return Err(ProtobufError::Truncated),
        None => decode_varint(buf)?,
    };
    usize::try_from(len).map_err(|_| ProtobufError::Truncated)
}

/// One `map<string, string>` entry read where it lies in its bytes: prost grows an empty
/// string for each before its UTF-8 check, and a label set
/// copies its keys and values once, into its own text. An entry without its key or value
/// has the empty one, and a key or value given twice keeps the last, as prost reads it;
/// `None` for anything an API server does not write (another wire type, text that is not
/// UTF-8, a length past the end), for prost to read.
pub(super) fn string_entry(mut entry: &[u8]) -> Option<(&str, &str)> {
    let (mut key, mut value) = ("", "");
    while !entry.is_empty() {
        let (tag, wire, body) = field(&mut entry)?;
        let slot = match tag {
            1 => &mut key,
            2 => &mut value,
            _ => continue,
        };
        (wire == LD_BYTE).then_some(())?;
        *slot = std::str::from_utf8(body).ok()?;
    }
    Some((key, value))
}

pub(super) const LD_BYTE: u8 = WireType::LengthDelimited as u8;

/// One field: its number, its wire type and, when length-delimited, its bytes; the buffer
/// moved past it. About 90 fields of a generated pod are read or stepped over here, so keys
/// and lengths of one or two bytes (fields 1 to 2047, values under 16 KiB: nearly all) are
/// read inline, the rest by prost. `None` for anything an API server does not write (groups,
/// a key or length that goes past the end) as for anything malformed: the caller then
/// decodes the pod whole, and prost either reads it or says what is wrong.
#[inline(always)]
pub(super) fn field<'a>(buf: &mut &'a [u8]) -> Option<(u32, u8, &'a [u8])> {
    let Some((k, rest)) = short_varint(buf) else {
        return field_slow(buf);
    };
    let (tag, wire) = (k >> 3, (k & 7) as u8);
    if tag == 0 {
        return None;
    }
    match wire {
        LD_BYTE => match short_varint(rest) {
            Some((len, rest)) if len as usize <= rest.len() => {
                let (body, rest) = rest.split_at(len as usize);
                *buf = rest;
                Some((tag, wire, body))
            }
            _ => field_slow(buf),
        },
        0 => {
            // A varint: up to nine bytes here; ten (negative numbers) are checked by prost.
            match rest.iter().take(9).position(|b| b & 0x80 == 0) {
                Some(end) => {
                    *buf = &rest[end + 1..];
                    Some((tag, wire, &[]))
                }
                None => field_slow(buf),
            }
        }
        1 if rest.len() >= 8 => {
            *buf = &rest[8..];
            Some((tag, wire, &[]))
        }
        5 if rest.len() >= 4 => {
            *buf = &rest[4..];
            Some((tag, wire, &[]))
        }
        _ => None,
    }
}

/// [`field`] for multi-byte keys and lengths.
#[cold]
#[inline(never)]
pub(super) fn field_slow<'a>(buf: &mut &'a [u8]) -> Option<(u32, u8, &'a [u8])> {
    let (tag, wire) = key(buf).ok()?;
    match wire {
        WireType::LengthDelimited => {
            let body = length_delimited(buf).ok()?;
            Some((tag, LD_BYTE, body))
        }
        WireType::Varint | WireType::SixtyFourBit | WireType::ThirtyTwoBit => {
            skip(wire, tag, buf).ok()?;
            Some((tag, wire as u8, &[]))
        }
        WireType::StartGroup | WireType::EndGroup => None,
    }
}
