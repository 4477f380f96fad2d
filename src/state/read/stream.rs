//! A JSON `List` read in blocks: the text of its items, handed over a chunk at a time, so a
//! large snapshot is never held whole. Only the item boundaries are found here (strings and
//! brackets matched byte by byte, far cheaper than `serde_json`'s reader over `io::Read`);
//! every other value, and each item by whoever takes it, is parsed by `serde_json`, and
//! anything this walk does not expect ends it, for the caller to read the input the plain way.

use std::io::Read;
use std::ops::Range;

/// Nesting deeper than this ends the walk. Kubernetes objects nest about 20 levels; the
/// bound keeps every value within `serde_json`'s recursion limit for the whole document, so
/// that nothing this walk accepts would fail the plain parse.
const MAX_DEPTH: usize = 64;

/// Bytes read at a time.
const BLOCK: u64 = 1 << 20;

/// Consecutive items of the list: their text, and where each lies in it.
#[derive(Debug)]
pub(super) struct Chunk {
    pub(super) text: String,
    pub(super) items: Vec<Range<usize>>,
}

impl Chunk {
    /// Each item's text, in input order.
    pub(super) fn items(&self) -> impl Iterator<Item = Option<&str>> {
        self.items.iter().map(|r| self.text.get(r.clone()))
    }
}

/// What the walk found besides the items.
#[derive(Debug)]
pub(super) struct List {
    /// The object's `kind`.
    pub(super) kind: String,
    /// How many items were handed over.
    pub(super) items: usize,
}

/// Walks one JSON object with a string `kind` and an `items` array, the rest of its fields
/// parsed and skipped, nothing but whitespace after it, handing `sink` the items in chunks
/// of at most `chunk_len`. `None` when the input is not of that shape (or not UTF-8, or a
/// field comes twice, or reading fails), or when `sink` returns `false`: it wants no more.
pub(super) fn list_items(
    reader: impl Read,
    chunk_len: usize,
    mut sink: impl FnMut(Chunk) -> bool,
) -> Option<List> {
    let mut input = Blocks {
        reader,
        buf: Vec::new(),
        pos: 0,
        failed: false,
    };
    input.expect(b'{')?;
    let mut kind = None;
    let mut items = None;
    loop {
        let key = input.value()?;
        let key: String = serde_json::from_str(input.text(key)?).ok()?;
        input.expect(b':')?;
        match key.as_str() {
            "kind" if kind.is_none() => {
                let value = input.value()?;
                kind = Some(serde_json::from_str::<Option<String>>(input.text(value)?).ok()??);
            }
            "items" if items.is_none() => {
                items = Some(input.items(chunk_len, &mut sink)?);
            }
            "kind" | "items" => return None,
            _ => {
                let value = input.value()?;
                serde_json::from_str::<serde::de::IgnoredAny>(input.text(value)?).ok()?;
            }
        }
        match input.next_token()? {
            b',' => {}
            b'}' => break,
            _ => return None,
        }
    }
    // Anything after the object but whitespace makes it several documents.
    if input.next_token().is_some() || input.failed {
        return None;
    }
    Some(List {
        kind: kind?,
        items: items?,
    })
}

/// The input read so far, from the last chunk handed over; `pos` is where the walk is.
struct Blocks<R> {
    reader: R,
    buf: Vec<u8>,
    pos: usize,
    /// Reading failed: the plain read names the error.
    failed: bool,
}

impl<R: Read> Blocks<R> {
    /// Reads one more block; `false` at the end of the input or when reading fails.
    fn fill(&mut self) -> bool {
        match (&mut self.reader).take(BLOCK).read_to_end(&mut self.buf) {
            Ok(n) => n > 0,
            Err(_) => {
                self.failed = true;
                false
            }
        }
    }

    /// The next byte that is not JSON whitespace, consumed.
    fn next_token(&mut self) -> Option<u8> {
        loop {
            while let Some(&b) = self.buf.get(self.pos) {
                self.pos += 1;
                if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                    return Some(b);
                }
            }
            if !self.fill() {
                return None;
            }
        }
    }

    fn expect(&mut self, token: u8) -> Option<()> {
        (self.next_token()? == token).then_some(())
    }

    /// A value's text, checked to be UTF-8.
    fn text(&self, span: Range<usize>) -> Option<&str> {
        std::str::from_utf8(self.buf.get(span)?).ok()
    }

    /// Steps over the next value and says where it lies: a string or a bracketed value up to
    /// its matching end, anything else (a number, `true`...) up to the next delimiter. Its
    /// text is not checked: whoever parses it does.
    fn value(&mut self) -> Option<Range<usize>> {
        let first = self.next_token()?;
        let start = self.pos - 1;
        if !matches!(first, b'"' | b'{' | b'[') {
            loop {
                while let Some(&b) = self.buf.get(self.pos) {
                    if matches!(b, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t') {
                        return Some(start..self.pos);
                    }
                    self.pos += 1;
                }
                if !self.fill() {
                    return None;
                }
            }
        }
        let mut scan = Scan {
            at: start,
            depth: 0,
            in_string: false,
        };
        loop {
            match scan.run(&self.buf) {
                Step::End => {
                    self.pos = scan.at;
                    return Some(start..scan.at);
                }
                Step::TooDeep => return None,
                Step::More if self.fill() => {}
                Step::More => return None,
            }
        }
    }

    /// The `items` array, handed to `sink` in chunks; how many items it held.
    fn items(&mut self, chunk_len: usize, sink: &mut impl FnMut(Chunk) -> bool) -> Option<usize> {
        self.expect(b'[')?;
        let at = self.pos;
        if self.next_token()? == b']' {
            return Some(0);
        }
        // A `]` anywhere else is taken as an item, which its parse refuses.
        self.pos = at;
        let mut count = 0;
        let mut spans = Vec::new();
        loop {
            spans.push(self.value()?);
            let last = self.next_token()?;
            if spans.len() == chunk_len || last == b']' {
                count += spans.len();
                if !sink(self.split_off(std::mem::take(&mut spans))?) {
                    return None;
                }
            }
            match last {
                b',' => {}
                b']' => return Some(count),
                _ => return None,
            }
        }
    }

    /// Hands over the text read so far, with the items in it, keeping what follows.
    fn split_off(&mut self, items: Vec<Range<usize>>) -> Option<Chunk> {
        let mut rest = Vec::with_capacity(self.buf.capacity());
        rest.extend_from_slice(self.buf.get(self.pos..)?);
        let mut text = std::mem::replace(&mut self.buf, rest);
        text.truncate(self.pos);
        self.pos = 0;
        let text = String::from_utf8(text).ok()?;
        Some(Chunk { text, items })
    }
}

/// How far the scan of a bracketed value or string has come, kept across reads.
struct Scan {
    at: usize,
    depth: usize,
    in_string: bool,
}

enum Step {
    /// The value ends before `at`.
    End,
    /// The bytes ran out first.
    More,
    /// It nests deeper than [`MAX_DEPTH`].
    TooDeep,
}

impl Scan {
    /// Goes on from `at`. Most bytes are inside strings: those are skipped eight at a time.
    fn run(&mut self, buf: &[u8]) -> Step {
        loop {
            if self.in_string {
                loop {
                    if let Some(word) = buf.get(self.at..).and_then(<[u8]>::first_chunk::<8>) {
                        let word = u64::from_le_bytes(*word);
                        let hits = bytes_equal(word, b'"') | bytes_equal(word, b'\\');
                        if hits == 0 {
                            self.at += 8;
                            continue;
                        }
                        self.at += (hits.trailing_zeros() / 8) as usize;
                    }
                    let Some(&b) = buf.get(self.at) else {
                        return Step::More;
                    };
                    // After a backslash, `at` may step past the bytes read: the next read
                    // brings the escaped byte, which is skipped.
                    self.at += if b == b'\\' { 2 } else { 1 };
                    if b == b'"' {
                        break;
                    }
                }
                self.in_string = false;
            } else {
                let Some(&b) = buf.get(self.at) else {
                    return Step::More;
                };
                self.at += 1;
                match b {
                    b'"' => {
                        self.in_string = true;
                        continue;
                    }
                    b'{' | b'[' if self.depth == MAX_DEPTH => return Step::TooDeep,
                    b'{' | b'[' => {
                        self.depth += 1;
                        continue;
                    }
                    b'}' | b']' => self.depth -= 1,
                    _ => continue,
                }
            }
            if self.depth == 0 {
                return Step::End;
            }
        }
    }
}

/// The bytes of `word` equal to `byte`, as their high bits: exact for the lowest one, which
/// is all the scan looks at.
fn bytes_equal(word: u64, byte: u8) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let x = word ^ (u64::from(byte) * ONES);
    x.wrapping_sub(ONES) & !x & (ONES << 7)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The items' texts, chunk by chunk, and the list's kind and size.
    fn walk_from(reader: impl Read, chunk_len: usize) -> Option<(Vec<Vec<String>>, String, usize)> {
        let mut chunks = Vec::new();
        let list = list_items(reader, chunk_len, |c| {
            chunks.push(c.items().map(|i| i.unwrap_or("?").to_string()).collect());
            true
        })?;
        Some((chunks, list.kind, list.items))
    }

    fn walk(text: &str, chunk_len: usize) -> Option<(Vec<Vec<String>>, String, usize)> {
        walk_from(text.as_bytes(), chunk_len)
    }

    /// Gives `step` bytes a read, so that values span reads.
    struct Trickle<'a> {
        text: &'a [u8],
        step: usize,
        paused: bool,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            // Every other call says "nothing now", which ends one `fill`.
            self.paused = !self.paused;
            if self.paused {
                return Ok(0);
            }
            let n = self.step.min(buf.len()).min(self.text.len());
            let (given, rest) = self.text.split_at(n);
            buf[..n].copy_from_slice(given);
            self.text = rest;
            Ok(n)
        }
    }

    #[test]
    fn values_are_found_across_reads() {
        let text = r#" {"kind":"List","items":[{"a":"x\\\"]}y","b":[[],{}]}, "\\", "sixteen bytes ..\"", 12, {"c":"}"}],"k":"v"} "#;
        let whole = walk(text, 2).expect("a list");
        assert_eq!(
            whole.0.concat(),
            [
                r#"{"a":"x\\\"]}y","b":[[],{}]}"#,
                r#""\\""#,
                r#""sixteen bytes ..\"""#,
                "12",
                r#"{"c":"}"}"#
            ]
        );
        for step in 1..=17 {
            let trickle = Trickle {
                text: text.as_bytes(),
                step,
                paused: true,
            };
            assert_eq!(walk_from(trickle, 2).as_ref(), Some(&whole), "{step}");
        }
    }

    #[test]
    fn items_are_handed_over_in_chunks_whatever_the_field_order() {
        let text = " {\"apiVersion\":\"v1\",\"items\":[ {\"a\":\"}\\\"]\"} ,[1,{}],\"x\", 12 ,null],\
                    \"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"}}\n";
        let (chunks, kind, items) = walk(text, 2).expect("a list");
        assert_eq!(
            chunks,
            [
                vec![r#"{"a":"}\"]"}"#.to_string(), "[1,{}]".to_string()],
                vec![r#""x""#.to_string(), "12".to_string()],
                vec!["null".to_string()]
            ]
        );
        assert_eq!((kind.as_str(), items), ("List", 5));
        let (chunks, kind, items) =
            walk(r#"{"kind":"PodList","items":[],"k\u0069nd2":1}"#, 2).expect("empty");
        assert!(chunks.is_empty());
        assert_eq!((kind.as_str(), items), ("PodList", 0));
    }

    /// What the plain parse refuses, or reads otherwise than as one list, ends the walk.
    #[test]
    fn anything_unexpected_ends_the_walk() {
        let nested = |depth| {
            format!(
                r#"{{"kind":"List","items":[{}1{}]}}"#,
                "[".repeat(depth),
                "]".repeat(depth)
            )
        };
        let deep = nested(MAX_DEPTH + 1);
        for text in [
            "",
            "[]",
            "\u{feff}{\"kind\":\"List\",\"items\":[1]}",
            r#"{"kind":"List","items":[1]} {}"#,
            r#"{"kind":"List","items":[1],}"#,
            r#"{"kind":"List","items":[1,]}"#,
            r#"{"kind":"List","items":[1 2]}"#,
            r#"{"kind":"List","items":[1]"#,
            r#"{"kind":"List","items":null}"#,
            r#"{"kind":"List","kind":"List","items":[1]}"#,
            r#"{"kind":"List","items":[1],"items":[1]}"#,
            r#"{"kind":null,"items":[1]}"#,
            r#"{"kind":3,"items":[1]}"#,
            r#"{"items":[1]}"#,
            r#"{"kind":"List"}"#,
            r#"{"kind":"List","items":[1],"metadata":{"a":}}"#,
            r#"{"kind":"List","items":[1],metadata:1}"#,
            r#"{"kind":"List" "items":[1]}"#,
            &deep,
        ] {
            assert!(walk(text, 2).is_none(), "{text}");
        }
        let not_utf8: &[u8] = b"{\"kind\":\"List\",\"items\":[\"\xff\"]}";
        assert!(list_items(not_utf8, 2, |_| true).is_none());
        let meta_not_utf8: &[u8] = b"{\"kind\":\"List\",\"items\":[1],\"metadata\":\"\xff\"}";
        assert!(list_items(meta_not_utf8, 2, |_| true).is_none());
        assert!(walk(&nested(MAX_DEPTH), 2).is_some());
    }

    #[test]
    fn a_sink_that_wants_no_more_ends_the_walk() {
        let text = r#"{"kind":"List","items":[1,2,3]}"#;
        let mut seen = 0;
        assert!(
            list_items(text.as_bytes(), 1, |_| {
                seen += 1;
                false
            })
            .is_none()
        );
        assert_eq!(seen, 1);
    }
}
