//! The YAML that kubectl writes, read at JSON's pace.
//!
//! `kubectl get -o yaml` (go-yaml), `kubectl affinity snapshot` (serde-saphyr) and PyYAML
//! write a `List` in one regular shape: block style, an item per `- ` line at the first
//! column, two spaces of indentation, strings quoted wherever they would read as something
//! else, long ones wrapped at 80 columns. serde-saphyr reads about 10 MB of YAML a second,
//! serde_json 250 of JSON, so this module reads that shape itself: it finds the items by
//! their first column (as `stream.rs` finds a JSON list's by brackets) and turns each into
//! JSON text, which the JSON path then decodes. Whatever it is not sure to read exactly as
//! serde-saphyr reads it (flow collections, anchors, tags, comments, a plain scalar that may
//! be a float, a scalar broken by a blank line or an escaped line break, ...) is left to
//! serde-saphyr, one item at a time; a list of another shape is left to the general readers
//! whole.

use std::borrow::Cow;
use std::io::Read;
use std::ops::Range;

use super::stream::{Chunk, List};
use crate::state::yaml;

/// Bytes read at a time.
const BLOCK: u64 = 1 << 20;

/// Top-level lines (all but the items) kept for serde-saphyr: a `List`'s are a few.
const MAX_HEAD: usize = 1 << 20;

/// Walks a YAML `List` as kubectl writes it: top-level `key: value` lines at the first
/// column, among them `items:` followed by its items, each starting with a `- ` line at the
/// first column. Hands `sink` the items' texts in chunks of at most `chunk_len`, then reads
/// the other top-level lines with serde-saphyr for the list's `kind`. `None` for anything
/// else (and when reading fails, or the text is not UTF-8, or `sink` returns `false`).
pub(super) fn list_items(
    mut reader: impl Read,
    chunk_len: usize,
    mut sink: impl FnMut(Chunk) -> bool,
) -> Option<List> {
    let mut buf: Vec<u8> = Vec::new();
    // Where the next line starts; the first item of the chunk being gathered; the items.
    let mut pos = 0;
    let mut spans: Vec<Range<usize>> = Vec::new();
    let mut item: Option<usize> = None;
    let mut head = String::new();
    let mut in_items = false;
    let mut seen_items = false;
    let mut count = 0;
    let mut eof = false;
    let mut fill = |buf: &mut Vec<u8>| (&mut reader).take(BLOCK).read_to_end(buf).ok();
    loop {
        if in_items && item.is_some() && !eof && matches!(buf.get(pos), Some(b' ' | b'\n')) {
            let stopped;
            (pos, stopped) = skip_item_lines(&buf, pos);
            if !stopped {
                eof = fill(&mut buf)? == 0;
                continue;
            }
        }
        let mut end = match memchr::memchr(b'\n', &buf[pos..]) {
            Some(i) => pos + i + 1,
            None if eof => buf.len(),
            None => {
                eof = fill(&mut buf)? == 0;
                continue;
            }
        };
        if pos == end {
            break;
        }
        let first = buf[pos];
        if in_items {
            let starts_item =
                first == b'-' && matches!(buf[pos..end].get(1), Some(b' ' | b'\n') | None);
            if starts_item {
                if let Some(start) = item.take() {
                    spans.push(start..pos);
                }
                if spans.len() == chunk_len {
                    count += spans.len();
                    // Hand over the text before this item, which starts the next chunk.
                    let mut rest = Vec::with_capacity(buf.capacity());
                    rest.extend_from_slice(&buf[pos..]);
                    buf.truncate(pos);
                    let text = String::from_utf8(std::mem::replace(&mut buf, rest)).ok()?;
                    end -= pos;
                    pos = 0;
                    if !sink(Chunk {
                        text,
                        items: std::mem::take(&mut spans),
                    }) {
                        return None;
                    }
                }
                item = Some(pos);
            } else if first == b'#' && item.is_none() {
                // A comment before the first item (`kubectl affinity snapshot` says there
                // what it holds); one in an item is the item's.
            } else if first == b' ' || first == b'\n' || first == b'#' {
                // An item's line, or a blank one; `items:` with an indented sequence, or
                // anything before the first item, is another shape.
                item?;
            } else {
                if let Some(start) = item.take() {
                    spans.push(start..pos);
                }
                in_items = false;
            }
        }
        let line = &buf[pos..end];
        if !in_items {
            if line == b"items:\n" || line == b"items:" {
                if seen_items {
                    return None;
                }
                seen_items = true;
                in_items = true;
            } else {
                // A sequence, or JSON or flow YAML, is another shape.
                if head.len() + line.len() > MAX_HEAD || matches!(first, b'-' | b'{' | b'[') {
                    return None;
                }
                head.push_str(std::str::from_utf8(line).ok()?);
            }
        }
        pos = end;
    }
    if let Some(start) = item.take() {
        spans.push(start..pos);
    }
    if !spans.is_empty() {
        count += spans.len();
        buf.truncate(pos);
        let text = String::from_utf8(buf).ok()?;
        if !sink(Chunk { text, items: spans }) {
            return None;
        }
    }
    // Without items the general reader reads the text anyway: not twice.
    if count == 0 {
        return None;
    }
    // The rest of the document, as the general reader reads it: one mapping with a `kind`.
    let [serde_json::Value::Object(fields)] =
        <[_; 1]>::try_from(yaml::documents(&head).ok()?).ok()?
    else {
        return None;
    };
    let kind = fields.get("kind")?.as_str()?.to_string();
    (!fields.contains_key("items")).then_some(List { kind, items: count })
}

/// From `pos`, the start of a line of an item, the start of the next line that starts with
/// neither a space nor a line break, which is not; `false` when the text read so far ends
/// first (the position is then the last line's start).
fn skip_item_lines(buf: &[u8], pos: usize) -> (usize, bool) {
    let mut at = pos;
    for i in memchr::memchr_iter(b'\n', &buf[pos..]) {
        at = pos + i + 1;
        match buf.get(at) {
            Some(b' ' | b'\n') => {}
            Some(_) => return (at, true),
            None => return (at, false),
        }
    }
    (at, false)
}

/// One item of a list (its text from its `- ` line on) as JSON text, as serde-saphyr would
/// read it into a JSON value; serde-saphyr itself reads what the fast reading leaves.
/// `None` when neither reads it (a YAML error, an alias of an anchor in another item).
pub(super) fn item_json(item: &str) -> Option<String> {
    if let Some(json) = fast_item_json(item) {
        return Some(json);
    }
    let [serde_json::Value::Array(list)] = <[_; 1]>::try_from(yaml::documents(item).ok()?).ok()?
    else {
        return None;
    };
    let [value] = <[_; 1]>::try_from(list).ok()?;
    serde_json::to_string(&value).ok()
}

/// The fast reading alone: `None` for anything it does not read.
fn fast_item_json(item: &str) -> Option<String> {
    let mut doc = Doc {
        text: item,
        pos: 0,
        peeked: None,
        out: String::with_capacity(item.len() + item.len() / 4),
        depth: 0,
    };
    let first = doc.peek()?.filter(|l| l.indent == 0 && doc.is_entry(*l))?;
    doc.consume(first);
    doc.entry(first)?;
    // Nothing after the one entry.
    doc.peek()?.is_none().then_some(doc.out)
}

/// A line of the item: its indentation and where its content lies (without the line break).
#[derive(Debug, Clone, Copy)]
struct Line {
    indent: usize,
    start: usize,
    end: usize,
    /// Where the next line starts.
    next: usize,
}

struct Doc<'a> {
    text: &'a str,
    pos: usize,
    /// The next line, once looked at (for a `- key: value` line, the part after `- `).
    peeked: Option<Line>,
    out: String,
    depth: usize,
}

/// What a plain scalar reads as.
#[derive(Debug, PartialEq)]
enum Plain {
    Null,
    Bool(bool),
    /// A decimal integer, written as JSON writes it.
    Int,
    /// A string; `escape`: it holds what JSON escapes.
    Str {
        escape: bool,
    },
}

impl<'a> Doc<'a> {
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The next line that is not blank (`Some(None)`: the end); `None` for a line not read
    /// here (a comment, a tab in the indentation).
    fn peek(&mut self) -> Option<Option<Line>> {
        if let Some(l) = self.peeked {
            return Some(Some(l));
        }
        let bytes = self.bytes();
        let mut pos = self.pos;
        loop {
            if pos >= bytes.len() {
                return Some(None);
            }
            let (end, next) = match memchr::memchr(b'\n', &bytes[pos..]) {
                Some(i) => (pos + i, pos + i + 1),
                None => (bytes.len(), bytes.len()),
            };
            let indent = bytes[pos..end].iter().take_while(|&&b| b == b' ').count();
            if pos + indent == end {
                pos = next;
                continue;
            }
            if matches!(bytes[pos + indent], b'#' | b'\t') {
                return None;
            }
            self.pos = pos;
            let line = Line {
                indent,
                start: pos + indent,
                end,
                next,
            };
            self.peeked = Some(line);
            return Some(Some(line));
        }
    }

    fn consume(&mut self, line: Line) {
        self.pos = line.next;
        self.peeked = None;
    }

    fn content(&self, line: Line) -> &'a str {
        &self.text[line.start..line.end]
    }

    /// A sequence entry's line: `-` alone or followed by a space.
    fn is_entry(&self, line: Line) -> bool {
        let c = self.content(line).as_bytes();
        c[0] == b'-' && c.get(1).is_none_or(|&b| b == b' ')
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth < yaml::MAX_DEPTH).then_some(())
    }

    /// A block sequence whose entries are at `indent`.
    fn sequence(&mut self, indent: usize) -> Option<()> {
        self.enter()?;
        self.out.push('[');
        let mut first = true;
        while let Some(line) = self.peek()? {
            if line.indent > indent {
                return None;
            }
            if line.indent < indent || !self.is_entry(line) {
                break;
            }
            if !std::mem::take(&mut first) {
                self.out.push(',');
            }
            self.consume(line);
            self.entry(line)?;
        }
        self.out.push(']');
        self.depth -= 1;
        Some(())
    }

    /// A sequence entry, its `-` line consumed: nothing after the dash (the value on the
    /// lines below), a mapping that starts on the line, or a scalar.
    fn entry(&mut self, line: Line) -> Option<()> {
        let after = &self.text[line.start + 1..line.end];
        let rest = after.trim_start_matches(' ');
        if rest.is_empty() {
            return self.block_value(line.indent, false);
        }
        let start = line.end - rest.len();
        let rest_line = Line {
            indent: start - (line.start - line.indent),
            start,
            end: line.end,
            next: line.next,
        };
        if self.is_entry(rest_line) {
            return None;
        }
        if self.key(rest)?.is_some() {
            self.peeked = Some(rest_line);
            return self.mapping(rest_line.indent);
        }
        self.scalar(rest, line.indent)
    }

    /// The value of a key (or an entry) with nothing after it on its line: a node indented
    /// deeper than `parent`, a sequence at the same indentation after a key, else null.
    fn block_value(&mut self, parent: usize, after_key: bool) -> Option<()> {
        match self.peek()? {
            Some(l) if l.indent > parent => {
                if self.is_entry(l) {
                    self.sequence(l.indent)
                } else {
                    self.mapping(l.indent)
                }
            }
            Some(l) if after_key && l.indent == parent && self.is_entry(l) => self.sequence(parent),
            _ => {
                self.out.push_str("null");
                Some(())
            }
        }
    }

    /// A block mapping whose keys are at `indent`.
    fn mapping(&mut self, indent: usize) -> Option<()> {
        self.enter()?;
        self.out.push('{');
        let mut keys: smallvec::SmallVec<[Cow<'a, str>; 16]> = smallvec::SmallVec::new();
        while let Some(line) = self.peek()? {
            if line.indent > indent {
                return None;
            }
            if line.indent < indent || self.is_entry(line) {
                break;
            }
            let content = self.content(line);
            let (key, escape, rest) = self.key(content)??;
            // Keys come sorted from kubectl: only others are compared with all before.
            if keys.last().is_some_and(|last| !sorted_before(last, &key)) && keys.contains(&key) {
                return None;
            }
            if !keys.is_empty() {
                self.out.push(',');
            }
            push_json(&mut self.out, &key, escape);
            keys.push(key);
            self.out.push(':');
            self.consume(line);
            let rest = rest.trim_start_matches(' ');
            if rest.is_empty() {
                self.block_value(indent, true)?;
            } else {
                self.scalar(rest, indent)?;
            }
        }
        self.out.push('}');
        self.depth -= 1;
        Some(())
    }

    /// The key of a `key: value` line, and what follows the `:`: `Some(None)` when the
    /// content is no key (a scalar), `None` when it is not read here.
    #[allow(clippy::option_option)]
    fn key(&self, content: &'a str) -> Option<Option<(Cow<'a, str>, bool, &'a str)>> {
        let after_colon = |rest: &'a str| -> Option<&'a str> {
            let r = rest.strip_prefix(':')?;
            (r.is_empty() || r.starts_with(' ')).then_some(r)
        };
        match content.as_bytes()[0] {
            b'"' | b'\'' => {
                let (key, len) = quoted(content)?;
                Some(after_colon(&content[len..]).map(|rest| (key, true, rest)))
            }
            _ => {
                let bytes = content.as_bytes();
                let mut from = 0;
                // Keys are short: a plain loop finds the colon sooner than memchr.
                while let Some(i) = bytes[from..].iter().position(|&b| b == b':') {
                    let at = from + i;
                    if let Some(rest) = after_colon(&content[at..]) {
                        // Keys are read as strings, as written: `80`, `yes`; not null.
                        let key = &content[..at];
                        let escape = match plain(key)? {
                            Plain::Null => return None,
                            Plain::Str { escape } => escape,
                            Plain::Bool(_) | Plain::Int => false,
                        };
                        return Some(Some((Cow::Borrowed(key), escape, rest)));
                    }
                    from = at + 1;
                }
                Some(None)
            }
        }
    }

    /// A scalar that starts on a line (`text`: from its first character to the line's
    /// end), the node it belongs to at `parent`'s indentation.
    fn scalar(&mut self, text: &'a str, parent: usize) -> Option<()> {
        match text.as_bytes()[0] {
            quote @ (b'"' | b'\'') => {
                // Most are short and hold nothing to decode: written as they are.
                if text.len() > 1 && text.ends_with(char::from(quote)) {
                    let inner = &text[1..text.len() - 1];
                    let found = classes(inner.as_bytes());
                    let decoded = if quote == b'"' { ESCAPED } else { APOSTROPHE };
                    if found & (decoded | CONTROL) == 0
                        && (found & NON_ASCII == 0 || printable(inner, false))
                    {
                        push_json(&mut self.out, inner, found & ESCAPED != 0);
                        return Some(());
                    }
                }
                let mut value = String::new();
                match quoted_part(&text[1..], quote, &mut value)? {
                    Some(len) if len + 1 == text.len() => {}
                    Some(_) => return None,
                    None => self.quoted_lines(quote, parent, &mut value)?,
                }
                push_json_str(&mut self.out, &value);
            }
            b'|' | b'>' => {
                let chomp = match &text[1..] {
                    "" => Chomp::Clip,
                    "-" => Chomp::Strip,
                    "+" => Chomp::Keep,
                    _ => return None,
                };
                let value = self.block_scalar(parent, text.starts_with('>'), chomp)?;
                push_json_str(&mut self.out, &value);
            }
            b'{' | b'[' if text == "{}" || text == "[]" => self.out.push_str(text),
            _ if self.continued(parent)?.is_some() => {
                let value = self.plain_lines(text, parent)?;
                push_json_str(&mut self.out, &value);
            }
            _ => match plain(text)? {
                Plain::Null => self.out.push_str("null"),
                Plain::Bool(b) => self.out.push_str(if b { "true" } else { "false" }),
                Plain::Int => self.out.push_str(text),
                Plain::Str { escape } => push_json(&mut self.out, text, escape),
            },
        }
        Some(())
    }

    /// The next line when it continues a scalar of the node at `parent`'s indentation
    /// (kubectl wraps long scalars at 80 columns): indented deeper, right after the line
    /// before. `None` for a continuation after a blank line (not read here).
    fn continued(&mut self, parent: usize) -> Option<Option<Line>> {
        let pos = self.pos;
        match self.peek()? {
            Some(l) if l.indent > parent => (l.start - l.indent == pos).then_some(Some(l)),
            _ => Some(None),
        }
    }

    /// A plain scalar on several lines (`first`, then each continuation): the lines joined
    /// by spaces. Only a string is read here: a continuation that starts with an indicator,
    /// or a joined text that is not plainly a string, is not.
    fn plain_lines(&mut self, first: &str, parent: usize) -> Option<String> {
        let mut value = String::from(first);
        while let Some(line) = self.continued(parent)? {
            let content = self.content(line);
            if !content.as_bytes()[0].is_ascii_alphanumeric() {
                return None;
            }
            value.push(' ');
            value.push_str(content);
            self.consume(line);
        }
        matches!(plain(&value)?, Plain::Str { .. }).then_some(value)
    }

    /// The continuation lines of a quoted scalar whose first line did not close it, each
    /// joined to the text before by a space.
    fn quoted_lines(&mut self, quote: u8, parent: usize, value: &mut String) -> Option<()> {
        loop {
            // Folding drops the spaces before a line break: not read here.
            let line = self.continued(parent)??;
            if value.ends_with([' ', '\t']) {
                return None;
            }
            self.consume(line);
            value.push(' ');
            let content = self.content(line);
            match quoted_part(content, quote, value)? {
                Some(len) if len == content.len() => return Some(()),
                Some(_) => return None,
                None => {}
            }
        }
    }

    /// A block scalar's lines, after its `|` (or, `folded`, `>`) line, more indented than
    /// `parent`.
    fn block_scalar(&mut self, parent: usize, folded: bool, chomp: Chomp) -> Option<String> {
        let bytes = self.bytes();
        let mut indent = None;
        // Each line without the indentation, an empty line as "".
        let mut lines: Vec<&'a str> = Vec::new();
        let mut pos = self.pos;
        while pos < bytes.len() {
            let (end, next) = match memchr::memchr(b'\n', &bytes[pos..]) {
                Some(i) => (pos + i, pos + i + 1),
                None => (bytes.len(), bytes.len()),
            };
            let spaces = bytes[pos..end].iter().take_while(|&&b| b == b' ').count();
            let blank = pos + spaces == end;
            match indent {
                // Before the first line with content, an empty line with spaces may set
                // the indentation (YAML takes the longest): not read here.
                None if blank && spaces > 0 => return None,
                None if blank => {}
                None if spaces <= parent => break,
                None => indent = Some(spaces),
                Some(at) if !blank && spaces < at => break,
                Some(_) => {}
            }
            let line = match indent {
                Some(at) if spaces > at || !blank => &self.text[pos + at..end],
                _ => "",
            };
            if !printable(line, true) {
                return None;
            }
            lines.push(line);
            pos = next;
        }
        let last = lines.iter().rposition(|l| !l.is_empty())?;
        let trailing = lines.len() - 1 - last;
        let mut value = if folded {
            fold(&lines[..=last])?
        } else {
            lines[..=last].join("\n")
        };
        match chomp {
            Chomp::Strip => {}
            Chomp::Clip => value.push('\n'),
            Chomp::Keep => value.extend(std::iter::repeat_n('\n', trailing + 1)),
        }
        self.pos = pos;
        self.peeked = None;
        Some(value)
    }
}

/// A folded scalar's lines (without their indentation, each with content or empty): a line
/// break between two lines with content is a space, each empty line between is a break.
/// `None` for a more-indented line, whose breaks YAML keeps.
fn fold(lines: &[&str]) -> Option<String> {
    let mut value = String::new();
    let mut empty = 0;
    let mut first = true;
    for line in lines {
        if line.is_empty() {
            empty += 1;
            continue;
        }
        if line.starts_with([' ', '\t']) {
            return None;
        }
        if !first && empty == 0 {
            value.push(' ');
        }
        value.extend(std::iter::repeat_n('\n', empty));
        value.push_str(line);
        empty = 0;
        first = false;
    }
    Some(value)
}

#[derive(Debug, Clone, Copy)]
enum Chomp {
    Clip,
    Strip,
    Keep,
}
/// Whether `a` sorts before `b`, most often seen from their first bytes.
fn sorted_before(a: &str, b: &str) -> bool {
    match (a.as_bytes().first(), b.as_bytes().first()) {
        (Some(x), Some(y)) if x != y => x < y,
        _ => a < b,
    }
}

/// A quoted scalar at the start of `text`, closed on the same line: its value and length.
fn quoted(text: &str) -> Option<(Cow<'_, str>, usize)> {
    let mut value = String::new();
    let len = quoted_part(&text[1..], text.as_bytes()[0], &mut value)??;
    Some((Cow::Owned(value), len + 1))
}

/// Decodes a quoted scalar's text on one line (after its opening quote, or a continuation
/// line after its indentation) into `value`: `Some(Some(len))` when its closing quote ends
/// it `len` bytes in, `Some(None)` when the line ends first, `None` for what is not read
/// here (an escaped line break, a character YAML does not let it hold as it is).
#[allow(clippy::option_option)]
fn quoted_part(text: &str, quote: u8, value: &mut String) -> Option<Option<usize>> {
    let bytes = text.as_bytes();
    let mut from = 0;
    loop {
        let found = if quote == b'\'' {
            memchr::memchr(b'\'', &bytes[from..])
        } else {
            memchr::memchr2(b'"', b'\\', &bytes[from..])
        };
        let at = found.map_or(bytes.len(), |i| from + i);
        // Escapes give any character: only the text between them is checked.
        let between = &text[from..at];
        if !printable(between, false) {
            return None;
        }
        value.push_str(between);
        if found.is_none() {
            return Some(None);
        }
        if bytes[at] == quote {
            if quote == b'\'' && bytes.get(at + 1) == Some(&b'\'') {
                value.push('\'');
                from = at + 2;
                continue;
            }
            return Some(Some(at + 1));
        }
        let (c, len) = match *bytes.get(at + 1)? {
            b'0' => ('\0', 2),
            b'a' => ('\x07', 2),
            b'b' => ('\x08', 2),
            b't' => ('\t', 2),
            b'n' => ('\n', 2),
            b'v' => ('\x0b', 2),
            b'f' => ('\x0c', 2),
            b'r' => ('\r', 2),
            b'e' => ('\x1b', 2),
            b' ' => (' ', 2),
            b'"' => ('"', 2),
            b'/' => ('/', 2),
            b'\\' => ('\\', 2),
            b'N' => ('\u{85}', 2),
            b'_' => ('\u{a0}', 2),
            b'L' => ('\u{2028}', 2),
            b'P' => ('\u{2029}', 2),
            b'x' => (hex_char(text.get(at + 2..at + 4)?)?, 4),
            b'u' => (hex_char(text.get(at + 2..at + 6)?)?, 6),
            b'U' => (hex_char(text.get(at + 2..at + 10)?)?, 10),
            _ => return None,
        };
        value.push(c);
        from = at + len;
    }
}

fn hex_char(digits: &str) -> Option<char> {
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    char::from_u32(u32::from_str_radix(digits, 16).ok()?)
}

/// Whether `s` holds only what YAML lets a scalar's text hold as it is (tabs only in
/// `literal`s here), leaving out what YAML readers disagree on (line separators, NEL).
fn printable(s: &str, tabs: bool) -> bool {
    let mut ascii = true;
    for &b in s.as_bytes() {
        if b < 0x20 || b == 0x7f {
            if !(tabs && b == b'\t') {
                return false;
            }
        } else if b >= 0x80 {
            ascii = false;
        }
    }
    ascii
        || s.chars().all(|c| {
            !matches!(
                c,
                '\u{80}'
                    ..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
            )
        })
}

/// What a plain scalar reads as, in serde-saphyr's order (null, a YAML 1.1 boolean, an
/// integer, a float, else a string); `None` when it may not be a plain scalar on one line,
/// or may be a float or a rarer integer (those are left to serde-saphyr).
fn plain(s: &str) -> Option<Plain> {
    let bytes = s.as_bytes();
    let first = *bytes.first()?;
    // Indicators that start something else, and `-`, `?`, `:` followed by a space.
    if matches!(
        first,
        b'&' | b'*'
            | b'!'
            | b'%'
            | b'@'
            | b'`'
            | b'#'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'|'
            | b'>'
            | b'"'
            | b'\''
    ) || (matches!(first, b'-' | b'?' | b':') && bytes.get(1).is_none_or(|&b| b == b' '))
        || matches!(bytes[bytes.len() - 1], b' ' | b':')
    {
        return None;
    }
    // What YAML does not let a plain scalar hold, and `: ` or ` #`, which end it.
    let found = classes(bytes);
    if found & CONTROL != 0
        || (found & SPACE != 0 && bytes.windows(2).any(|pair| pair == b": " || pair == b" #"))
        || (found & NON_ASCII != 0 && !printable(s, false))
    {
        return None;
    }
    let escape = found & ESCAPED != 0;
    if matches!(s, "null" | "Null" | "NULL" | "~") {
        return Some(Plain::Null);
    }
    if s.len() <= 5
        && matches!(
            first,
            b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O'
        )
    {
        let is = |words: [&str; 4]| words.iter().any(|w| s.eq_ignore_ascii_case(w));
        if is(["y", "yes", "true", "on"]) {
            return Some(Plain::Bool(true));
        }
        if is(["n", "no", "false", "off"]) {
            return Some(Plain::Bool(false));
        }
    }
    let unsigned = s.strip_prefix(['-', '+']).unwrap_or(s);
    let lead = unsigned.as_bytes().first().copied();
    match lead {
        Some(b'0'..=b'9' | b'.') => {
            let digits = unsigned.bytes().all(|b| b.is_ascii_digit());
            if digits
                && !s.starts_with('+')
                && unsigned.len() <= 18
                && (unsigned == "0" || !unsigned.starts_with('0'))
                && s != "-0"
            {
                return Some(Plain::Int);
            }
            // Anything that no integer or float spelling matches (`100m`, `8Gi`, a hash, a
            // UUID, `10.0.0.1`) is a string.
            if may_be_number(unsigned) {
                None
            } else {
                Some(Plain::Str { escape })
            }
        }
        _ if unsigned.len() < s.len() && lead.is_none() => None,
        _ => Some(Plain::Str { escape }),
    }
}

/// Whether `u` (a plain scalar without its sign) may be an integer (decimal with `_`, `0x`,
/// `0o`, `0b`) or a float (Rust's and YAML 1.2's spellings) to serde-saphyr: a superset.
fn may_be_number(u: &str) -> bool {
    let radix = |prefixes: [&str; 2], digit: fn(u8) -> bool| {
        prefixes
            .iter()
            .find_map(|p| u.strip_prefix(p))
            .map(|r| r.bytes().all(|b| digit(b) || b == b'_'))
    };
    if let Some(m) = radix(["0x", "0X"], |b| b.is_ascii_hexdigit())
        .or_else(|| radix(["0o", "0O"], |b| b.is_ascii_digit()))
        .or_else(|| radix(["0b", "0B"], |b| b.is_ascii_digit()))
    {
        return m;
    }
    if u.eq_ignore_ascii_case(".inf") || u.eq_ignore_ascii_case(".nan") {
        return true;
    }
    // [digits] [. [digits]] [e [sign] digits], digits taking `_` too.
    let b = u.as_bytes();
    let digits = |mut i: usize| {
        let from = i;
        while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
            i += 1;
        }
        (i, i > from)
    };
    let (mut i, whole) = digits(0);
    let mut fraction = false;
    if b.get(i) == Some(&b'.') {
        (i, fraction) = digits(i + 1);
    }
    if !(whole || fraction) {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exponent;
        (i, exponent) = digits(i);
        if !exponent {
            return false;
        }
    }
    i == b.len()
}

/// The classes of byte the readings of scalars look for, one bit each.
const CONTROL: u8 = 1;
const COLON: u8 = 2;
const SPACE: u8 = 4;
const NON_ASCII: u8 = 8;
/// `"` and `\\`, which JSON escapes.
const ESCAPED: u8 = 16;
const APOSTROPHE: u8 = 32;
const BYTE: [u8; 256] = {
    let mut t = [0; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = match b as u8 {
            0..=0x1f | 0x7f => CONTROL,
            b':' => COLON,
            b' ' => SPACE,
            b'"' | b'\\' => ESCAPED,
            b'\'' => APOSTROPHE,
            0x80.. => NON_ASCII,
            _ => 0,
        };
        b += 1;
    }
    t
};

/// The classes of the bytes of `bytes`, in one pass without branches.
fn classes(bytes: &[u8]) -> u8 {
    bytes
        .iter()
        .fold(0, |found, &b| found | BYTE[usize::from(b)])
}

/// Appends `s` as a JSON string, `escape`: it may hold what JSON escapes.
fn push_json(out: &mut String, s: &str, escape: bool) {
    if escape {
        push_json_str(out, s);
    } else {
        out.push('"');
        out.push_str(s);
        out.push('"');
    }
}

/// Appends `s` as a JSON string.
fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    if classes(s.as_bytes()) & (CONTROL | ESCAPED) == 0 {
        out.push_str(s);
        out.push('"');
        return;
    }
    let bytes = s.as_bytes();
    let mut from = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escaped = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\t' => "\\t",
            b'\r' => "\\r",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[from..i]);
        if escaped.is_empty() {
            out.push_str(&format!("\\u{b:04x}"));
        } else {
            out.push_str(escaped);
        }
        from = i + 1;
    }
    out.push_str(&s[from..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// The items of a list's text, as `list_items` finds them, in chunks of 3.
    fn items(text: &str) -> (Vec<String>, Option<List>) {
        let mut all = Vec::new();
        let list = list_items(text.as_bytes(), 3, |chunk| {
            all.extend(chunk.items().map(|i| i.expect("utf-8").to_string()));
            true
        });
        (all, list)
    }

    /// serde-saphyr's reading of one item (`None`: it refuses it).
    fn saphyr(item: &str) -> Option<Value> {
        let [Value::Array(mut list)] = <[_; 1]>::try_from(yaml::documents(item).ok()?).ok()? else {
            return None;
        };
        (list.len() == 1).then(|| list.remove(0))
    }

    /// The fast reading of an item, checked against serde-saphyr's wherever it reads one.
    fn fast(item: &str) -> Option<Value> {
        let json = fast_item_json(item)?;
        let value: Value = serde_json::from_str(&json).expect("JSON");
        assert_eq!(Some(&value), saphyr(item).as_ref(), "{item}");
        Some(value)
    }

    fn demo() -> String {
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/cluster.yaml"
        ))
        .expect("the demo snapshot")
    }

    #[test]
    fn the_demo_snapshot_is_read_fast_item_by_item_as_serde_saphyr_reads_it() {
        let (items, list) = items(&demo());
        let list = list.expect("a list");
        assert_eq!((list.kind.as_str(), list.items), ("List", items.len()));
        assert_eq!(items.len(), 64);
        for item in &items {
            assert!(fast(item).is_some(), "read slowly:\n{item}");
        }
    }

    #[test]
    fn what_kubectl_writes_is_read_fast_wrapped_lines_too() {
        let text = include_str!("../../../tests/yaml/kubectl-1.32.yaml");
        let mut read = 0;
        for object in text.split("\n---\n") {
            // As an item of the list `kubectl get -o yaml` writes.
            let object = &object[object.find("apiVersion").expect("an object")..];
            let mut item = String::new();
            for (i, line) in object.lines().enumerate() {
                item.push_str(match (i, line.is_empty()) {
                    (0, _) => "- ",
                    (_, true) => "",
                    _ => "  ",
                });
                item.push_str(line);
                item.push('\n');
            }
            let value = fast(&item).unwrap_or_else(|| panic!("read slowly:\n{item}"));
            read += 1;
            if value["metadata"]["name"] == "p2" {
                let a = &value["metadata"]["annotations"];
                assert_eq!(
                    a["sq"],
                    "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
                );
                assert_eq!(
                    a["dq2"],
                    "tab\there  two  spaces  and a long long long long long long long long long long long long long text"
                );
                assert_eq!(
                    a["multi"],
                    "line one\nline two long long long long long long long long long long long long long long long long long\n\nafter blank\n"
                );
            }
        }
        assert_eq!(read, 2);
    }

    #[test]
    fn what_serde_saphyr_writes_for_a_snapshot_is_read_fast() {
        // `kubectl affinity snapshot` writes each object with serde-saphyr, two spaces in.
        let (items, _) = items(&demo());
        for item in &items {
            let value = saphyr(item).expect("read");
            let written = crate::state::to_yaml_string(&value).expect("written");
            let mut text = String::new();
            for (i, line) in written.trim_start_matches("---\n").lines().enumerate() {
                text.push_str(if i == 0 { "- " } else { "  " });
                text.push_str(line);
                text.push('\n');
            }
            assert_eq!(fast(&text).as_ref(), Some(&value), "read slowly:\n{text}");
        }
    }

    #[test]
    fn the_list_around_the_items() {
        let text = "apiVersion: v1\nitems:\n- a: 1\n-   b: 2\n\n    c: x\n- d\n- - e\nkind: PodList\nmetadata:\n  resourceVersion: \"\"\n";
        let (got, list) = items(text);
        assert_eq!(
            got,
            ["- a: 1\n", "-   b: 2\n\n    c: x\n", "- d\n", "- - e\n"]
        );
        let list = list.expect("a list");
        assert_eq!((list.kind.as_str(), list.items), ("PodList", 4));
        assert_eq!(fast(&got[1]), Some(json!({"b": 2, "c": "x"})));
        assert_eq!(fast(&got[2]), Some(json!("d")));
        // A sequence in a sequence: serde-saphyr's.
        assert_eq!(fast(&got[3]), None);
        assert_eq!(item_json(&got[3]).as_deref(), Some(r#"["e"]"#));
        // What `kubectl affinity snapshot` writes around the items.
        let text = "# kubernetesVersion: v1.35.4\napiVersion: v1\nitems:\n# Scheduling contents.\n# More.\n- a: 1\n# in the item\n- b: 2\nkind: List\nmetadata:\n  resourceVersion: \"\"\n";
        let (got, list) = items(text);
        assert_eq!(got, ["- a: 1\n# in the item\n", "- b: 2\n"]);
        assert_eq!(list.expect("a list").items, 2);
        // Other shapes are not lists to read here.
        for other in [
            "items:\n  - a: 1\nkind: List\n",
            "- a\n",
            "{\"kind\": \"List\", \"items\": []}\n",
            "items:\n- a: 1\n",
            "kind: List\nitems:\n- a: 1\nitems:\n- b: 2\n",
            "kind: List\nitems:\n- a: 1\n---\nkind: List\n",
            "kind: [List]\nitems:\n- a: 1\n",
        ] {
            assert!(items(other).1.is_none(), "{other}");
        }
        // No items: the general reader tells an empty list from a wrong file.
        assert!(items("kind: List\nitems: []\n").1.is_none());
    }

    #[test]
    fn items_across_the_blocks_read() {
        // Several blocks of input, items of every length ending anywhere in them.
        let want: Vec<String> = (0..40_000)
            .map(|i| {
                let pad = "x".repeat(i % 97);
                format!("- name: n{i}\n  note: {pad}\n\n  labels:\n    k: v{i}\n")
            })
            .collect();
        let text = format!("apiVersion: v1\nitems:\n{}kind: List\n", want.concat());
        assert!(text.len() > 3 * BLOCK as usize);
        let mut got = Vec::new();
        let list = list_items(text.as_bytes(), 1000, |chunk| {
            got.extend(chunk.items().map(|i| i.expect("utf-8").to_string()));
            true
        })
        .expect("a list");
        assert_eq!(list.items, want.len());
        assert!(got == want, "items differ");
    }

    #[test]
    fn scalars_as_serde_saphyr_resolves_them() {
        let item = "- a: 80\n  b: -3\n  c: \"80\"\n  d: '0'\n  e: true\n  f: No\n  g: null\n  h: ~\n  i:\n  j: 100m\n  k: 8Gi\n  l: 10.0.0.1\n  m: 7e00081b-1ca0\n  n: 6b9d4c7f58\n  o: infinity\n  p: v1.2\n  q: \"2025-01-14T09:12:03Z\"\n  r: 'it''s'\n  s: \"tab\\there \\\"q\\\" \\u00e9 \\x41 \\\\\"\n  t: a:b\n  u: {}\n  v: []\n  w: /var/run/x.sock\n  x: unix:///var/run/x.sock\n  y: ünïcödé\n  z: 0\n  date: 2024-01-01\n";
        assert_eq!(
            fast(item),
            Some(json!({
                "a": 80, "b": -3, "c": "80", "d": "0", "e": true, "f": false, "g": null,
                "h": null, "i": null, "j": "100m", "k": "8Gi", "l": "10.0.0.1",
                "m": "7e00081b-1ca0", "n": "6b9d4c7f58", "o": "infinity", "p": "v1.2",
                "q": "2025-01-14T09:12:03Z", "r": "it's", "s": "tab\there \"q\" é A \\",
                "t": "a:b", "u": {}, "v": [], "w": "/var/run/x.sock",
                "x": "unix:///var/run/x.sock", "y": "ünïcödé", "z": 0, "date": "2024-01-01"
            }))
        );
        // Floats, other integer spellings and what may be either are serde-saphyr's.
        for value in [
            "1.5",
            "1e3",
            "0x1F",
            "0o17",
            "1_000",
            "007",
            "+5",
            "-0",
            ".inf",
            "-.5",
            "12345678901234567890",
        ] {
            let item = format!("- v: {value}\n");
            assert_eq!(fast(&item), None, "{value}");
            assert_eq!(
                item_json(&item).map(|j| serde_json::from_str::<Value>(&j).expect("JSON")),
                saphyr(&item),
                "{value}"
            );
        }
    }

    #[test]
    fn sequences_mappings_and_literals() {
        let item = "- spec:\n    containers:\n    - name: a\n      args:\n      - x\n      -   z\n    - name: b\n    indented:\n      - 1\n      - 2\n    empty:\n    after: 1\n  data:\n    clip: |\n      line 1\n\n        line 2\n\n    strip: |-\n      a\n      b\n\n    keep: |+\n      a\n\n\n    \"quoted key\": 'v'\n";
        assert_eq!(
            fast(item),
            Some(json!({
                "spec": {
                    "containers": [{"name": "a", "args": ["x", "z"]}, {"name": "b"}],
                    "indented": [1, 2], "empty": null, "after": 1
                },
                "data": {
                    "clip": "line 1\n\n  line 2\n", "strip": "a\nb", "keep": "a\n\n\n",
                    "quoted key": "v"
                }
            }))
        );
    }

    #[test]
    fn what_the_fast_reading_leaves_to_serde_saphyr() {
        for item in [
            "- a: &x 1\n  b: *x\n",
            "- a: !!str 1\n",
            "- a: {b: 1}\n",
            "- a: [1, 2]\n",
            "- a: b # comment\n",
            "- a: b\n  # comment\n  c: d\n",
            "- a: multi\n\n    line\n",
            "- a: \"multi\n\n    line\"\n",
            "- a: \"multi \n    line\"\n",
            "- a: \"multi\\\n    line\"\n",
            "- a: multi\n    -line\n",
            "- a: >\n    folded\n     more indented\n",
            "- a: |2\n    indicated\n",
            "- a: 1\n  a: 2\n",
            "- ? a\n  : b\n",
            "- a:\tb\n",
            "- a: b \n",
            "- a: b\r\n",
            "- a: \"\\q\"\n",
            "- a: \"\u{85}\"\n",
            "- null: a\n",
            "- ~: a\n",
        ] {
            assert_eq!(fast_item_json(item), None, "{item}");
            // Whatever serde-saphyr makes of it, the item's reading is that.
            assert_eq!(
                item_json(item).map(|j| serde_json::from_str::<Value>(&j).expect("JSON")),
                saphyr(item),
                "{item}"
            );
        }
    }

    #[test]
    fn nesting_deeper_than_the_limit_is_serde_saphyrs() {
        let mut item = String::from("-");
        for depth in 0..yaml::MAX_DEPTH + 1 {
            item.push('\n');
            item.push_str(&" ".repeat(2 * depth + 2));
            item.push_str("a:");
        }
        item.push_str(" 1\n");
        assert_eq!(fast_item_json(&item), None);
    }

    proptest::proptest! {
        /// Scalars wrapped over lines, as kubectl wraps them at 80 columns, read as
        /// serde-saphyr reads them, in each style.
        #[test]
        fn wrapped_scalars_read_as_serde_saphyr_reads_them(
            words in proptest::collection::vec("[a-z0-9:#'\"\\{}\\-]{1,5}|[a-z]{1,4}", 1..6),
            breaks in proptest::collection::vec(proptest::bool::ANY, 6),
        ) {
            let mut wrapped = String::new();
            for (i, w) in words.iter().enumerate() {
                if i > 0 {
                    wrapped.push_str(if breaks[i] { "\n    " } else { " " });
                }
                wrapped.push_str(w);
            }
            let single = wrapped.replace('\'', "''");
            let double = wrapped.replace('\\', "\\\\").replace('"', "\\\"");
            for item in [
                format!("- v: {wrapped}\n  w: 1\n"),
                format!("- v: '{single}'\n  w: 1\n"),
                format!("- v: \"{double}\"\n  w: 1\n"),
            ] {
                if let Some(json) = fast_item_json(&item) {
                    let got: Value = serde_json::from_str(&json).expect("JSON");
                    proptest::prop_assert_eq!(Some(got), saphyr(&item), "{}", item);
                }
            }
        }

        /// Any scalar the fast reading takes reads as serde-saphyr reads it.
        #[test]
        fn plain_scalars_read_as_serde_saphyr_reads_them(
            value in "[-+.]?[0-9a-fA-FxXoOiInNtTyY_.:eE+-]{0,8}|[a-zA-Z~ /#:'\"é\\\\]{1,6}",
        ) {
            for item in [format!("- v: {value}\n"), format!("- {value}\n"), format!("- {value}: v\n")] {
                if let Some(json) = fast_item_json(&item) {
                    let got: Value = serde_json::from_str(&json).expect("JSON");
                    proptest::prop_assert_eq!(Some(got), saphyr(&item), "{}", item);
                }
            }
        }
    }
}
