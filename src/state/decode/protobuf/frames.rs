//! A body read where it lies: in the frames it arrived in, as one run of bytes.
//!
//! A page arrives in a handful of frames. Joining them copied every page into fresh memory
//! that the kernel had to zero first, which showed in profiles of a live run. Here a pod is
//! read in place unless it straddles two frames, and only then copied, alone, into a
//! scratch buffer.
//!
//! Every read gives what the same read of the joined body gives, errors included: short reads
//! (keys, varints, fixed fields) that cross a frame are made on a copy of the next bytes, and
//! anything that needs more (a group, which API servers never write) on a copy of the rest.

use prost::encoding::WireType;

use super::wire::{ProtobufError, field_length, key, skip};

/// The bytes a short read can take: a varint is at most 10, a fixed field 8.
const SHORT: usize = 16;

/// A position in a body made of frames, and how many bytes are left to read from it.
pub(super) struct Frames<'a, B> {
    /// The frames after the current one.
    rest: &'a [B],
    /// What is left of the current frame, never more than `left`.
    cur: &'a [u8],
    /// Bytes left to read, `cur` included: the body's, or a field's for a nested reader.
    left: usize,
}

// Not derived: that would ask for `B: Clone`.
impl<B> Clone for Frames<'_, B> {
    fn clone(&self) -> Self {
        Frames {
            rest: self.rest,
            cur: self.cur,
            left: self.left,
        }
    }
}

impl<'a, B: AsRef<[u8]>> Frames<'a, B> {
    pub(super) fn new(frames: &'a [B]) -> Self {
        let mut f = Frames {
            rest: frames,
            cur: &[],
            left: frames.iter().map(|b| b.as_ref().len()).sum(),
        };
        f.fill();
        f
    }

    pub(super) fn is_empty(&self) -> bool {
        self.left == 0
    }

    /// Makes `cur` non-empty while bytes are left.
    fn fill(&mut self) {
        while self.cur.is_empty() && self.left > 0 {
            let Some((first, rest)) = self.rest.split_first() else {
                return;
            };
            let b = first.as_ref();
            self.cur = &b[..b.len().min(self.left)];
            self.rest = rest;
        }
    }

    /// Moves past `n` bytes, which must be left.
    fn advance(&mut self, mut n: usize) {
        debug_assert!(n <= self.left);
        loop {
            let step = n.min(self.cur.len());
            self.cur = &self.cur[step..];
            self.left -= step;
            n -= step;
            self.fill();
            if n == 0 {
                return;
            }
        }
    }

    /// Runs a read on the next bytes as one slice, as it would run on the joined body, and
    /// moves past what it read.
    fn read<T>(
        &mut self,
        scratch: &mut Vec<u8>,
        f: impl Fn(&mut &[u8]) -> Result<T, ProtobufError>,
    ) -> Result<T, ProtobufError> {
        // In place when the frame holds any short read, else on a copy of the next bytes.
        let mut next = [0u8; SHORT];
        let tried: &[u8] = if self.cur.len() >= SHORT || self.cur.len() == self.left {
            self.cur
        } else {
            let n = self.copy_to(&mut next);
            &next[..n]
        };
        let mut buf = tried;
        match f(&mut buf) {
            Ok(out) => {
                self.advance(tried.len() - buf.len());
                Ok(out)
            }
            // The read may need more bytes than it was given: it reads a copy of the rest.
            Err(_) if tried.len() < self.left => {
                scratch.clear();
                self.copy_rest(scratch);
                let mut buf = &scratch[..];
                let out = f(&mut buf)?;
                let read = scratch.len() - buf.len();
                self.advance(read);
                Ok(out)
            }
            Err(e) => Err(e),
        }
    }

    /// Copies the next bytes into `out`, as many as fit; how many.
    fn copy_to(&self, out: &mut [u8]) -> usize {
        let mut n = 0;
        for piece in std::iter::once(self.cur).chain(self.rest.iter().map(AsRef::as_ref)) {
            let take = piece.len().min(out.len() - n).min(self.left - n);
            out[n..n + take].copy_from_slice(&piece[..take]);
            n += take;
            if n == out.len() || n == self.left {
                break;
            }
        }
        n
    }

    /// Appends every byte left to `out`.
    fn copy_rest(&self, out: &mut Vec<u8>) {
        let mut want = self.left;
        for piece in std::iter::once(self.cur).chain(self.rest.iter().map(AsRef::as_ref)) {
            let take = piece.len().min(want);
            out.extend_from_slice(&piece[..take]);
            want -= take;
            if want == 0 {
                break;
            }
        }
    }

    /// Fills `out` with the next bytes and moves past them; `None` when fewer are left.
    pub(super) fn read_exact(&mut self, out: &mut [u8]) -> Option<()> {
        (self.copy_to(out) == out.len()).then(|| self.advance(out.len()))
    }

    pub(super) fn key(&mut self, scratch: &mut Vec<u8>) -> Result<(u32, WireType), ProtobufError> {
        self.read(scratch, key)
    }

    pub(super) fn skip(
        &mut self,
        wire: WireType,
        tag: u32,
        scratch: &mut Vec<u8>,
    ) -> Result<(), ProtobufError> {
        match wire {
            WireType::LengthDelimited => self.nested(scratch).map(drop),
            _ => self.read(scratch, |buf| skip(wire, tag, buf)),
        }
    }

    /// A length-delimited field as a reader of its own; this one moves past it.
    pub(super) fn nested(&mut self, scratch: &mut Vec<u8>) -> Result<Self, ProtobufError> {
        let len = self.read(scratch, field_length)?;
        if len > self.left {
            return Err(ProtobufError::Truncated);
        }
        let mut field = self.clone();
        field.left = len;
        field.cur = &field.cur[..field.cur.len().min(len)];
        self.advance(len);
        Ok(field)
    }

    /// Every byte left, as one slice: in place when they are in one frame, else copied into
    /// `scratch`.
    pub(super) fn contiguous<'s>(&self, scratch: &'s mut Vec<u8>) -> &'s [u8]
    where
        'a: 's,
    {
        if self.cur.len() == self.left {
            return self.cur;
        }
        scratch.clear();
        self.copy_rest(scratch);
        scratch
    }
}
