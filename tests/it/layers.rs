//! The source's layering, checked: imports point down only (main -> app -> cli, pipeline,
//! render -> cluster, report -> scheduler -> state), and no two files import each other,
//! directly or through others. A file's test module is left out: tests may reach anywhere.
//!
//! Paths are read from the text (`crate::a::b`, `super::x`, a child module's name), which is
//! enough for this crate's style of imports; a file that names a module it does not import
//! from is still counted, which errs on the side of reporting.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path (`["scheduler", "node_affinity"]`) for every source file.
fn modules() -> BTreeMap<Vec<String>, PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read src") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(&root).expect("under src");
            let mut segs: Vec<String> = rel
                .iter()
                .map(|s| s.to_string_lossy().trim_end_matches(".rs").to_string())
                .collect();
            if matches!(
                segs.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                segs.pop();
            }
            out.insert(segs, path);
        }
    }
    out
}

/// The file's text without its `#[cfg(test)]` items and comments.
fn production_text(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("read source");
    let mut out = String::new();
    let mut skip_depth: Option<i32> = None;
    let mut pending_cfg_test = false;
    let mut depth = 0i32;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") {
            continue;
        }
        let opens = line.matches('{').count() as i32;
        let closes = line.matches('}').count() as i32;
        if let Some(start) = skip_depth {
            depth += opens - closes;
            if depth <= start {
                skip_depth = None;
            }
            continue;
        }
        if trimmed.starts_with("#[cfg(test)]") {
            pending_cfg_test = true;
            continue;
        }
        if pending_cfg_test {
            pending_cfg_test = false;
            if opens > closes {
                skip_depth = Some(depth);
                depth += opens - closes;
            }
            // A one-line item (`mod x;`, `use ...;`) under cfg(test) is dropped too.
            continue;
        }
        depth += opens - closes;
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The modules a file refers to, resolved against the crate's files.
fn imports(
    me: &[String],
    text: &str,
    files: &BTreeMap<Vec<String>, PathBuf>,
) -> BTreeSet<Vec<String>> {
    let is_dir_module = files
        .get(me)
        .is_some_and(|p| matches!(p.file_stem().and_then(|s| s.to_str()), Some("mod" | "lib")));
    // What `super` means here: a `foo/mod.rs` file's parent is `foo`'s parent.
    let parent: Vec<String> = me[..me.len().saturating_sub(1)].to_vec();
    let mut out = BTreeSet::new();
    let bytes: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if !(c.is_alphanumeric() || c == '_') || (i > 0 && is_ident(bytes[i - 1])) {
            i += 1;
            continue;
        }
        // A path: identifiers joined by `::` (a `{` group ends it).
        let mut segs = Vec::new();
        let mut j = i;
        loop {
            let start = j;
            while j < bytes.len() && is_ident(bytes[j]) {
                j += 1;
            }
            segs.push(bytes[start..j].iter().collect::<String>());
            if j + 2 < bytes.len()
                && bytes[j] == ':'
                && bytes[j + 1] == ':'
                && is_ident(bytes[j + 2])
            {
                j += 2;
            } else {
                break;
            }
        }
        i = j.max(i + 1);
        if segs.len() < 2 {
            continue;
        }
        let (mut base, rest): (Vec<String>, &[String]) = match segs[0].as_str() {
            "crate" => (Vec::new(), &segs[1..]),
            "super" => {
                let mut b = if is_dir_module {
                    parent.clone()
                } else {
                    me.to_vec()
                };
                b.pop();
                let mut rest = &segs[1..];
                while rest.first().is_some_and(|s| s == "super") {
                    b.pop();
                    rest = &rest[1..];
                }
                (b, rest)
            }
            "self" => (me.to_vec(), &segs[1..]),
            first => {
                let mut child = me.to_vec();
                child.push(first.to_string());
                if is_dir_module && files.contains_key(&child) {
                    (me.to_vec(), &segs[..])
                } else {
                    continue;
                }
            }
        };
        // The longest prefix that is a file.
        let mut best = if files.contains_key(&base) {
            Some(base.clone())
        } else {
            None
        };
        for s in rest {
            base.push(s.clone());
            if files.contains_key(&base) {
                best = Some(base.clone());
            }
        }
        if let Some(m) = best
            && m != me
        {
            out.insert(m);
        }
    }
    out
}

/// `a::{b, c::{d, e}}` written out as `a::b a::c::d a::c::e`, so that every path in a
/// group is read as a path of its own.
fn expand_groups(text: &str) -> String {
    let Some(open) = text.find("::{") else {
        return text.to_string();
    };
    let start = text[..open]
        .rfind(|c: char| !(is_ident(c) || c == ':'))
        .map_or(0, |i| i + 1);
    let prefix = &text[start..open];
    let mut depth = 0;
    let mut end = text.len();
    for (i, c) in text[open + 2..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    end = open + 2 + i;
                    break;
                }
            }
            _ => {}
        }
    }
    let inner = &text[(open + 3).min(end)..end];
    let mut items = Vec::new();
    let (mut level, mut from) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => level += 1,
            '}' => level -= 1,
            ',' if level == 0 => {
                items.push(&inner[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[from..]);
    let written: Vec<String> = items
        .iter()
        .map(|item| item.trim())
        .filter(|item| !item.is_empty())
        .map(|item| expand_groups(&format!("{prefix}::{item}")))
        .collect();
    format!(
        "{}{} {}",
        &text[..start],
        written.join(" "),
        expand_groups(text.get(end + 1..).unwrap_or_default())
    )
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn graph() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let files = modules();
    files
        .iter()
        .map(|(m, p)| {
            let text = expand_groups(&production_text(p));
            (m.clone(), imports(m, &text, &files))
        })
        .collect()
}

fn name(m: &[String]) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

/// What each top-level module may import besides itself: the layers below it (main -> app
/// -> cli, pipeline, render -> cluster, report -> scheduler -> state). The cluster client
/// reads the model and nothing of the evaluation (what it fetches is decided by the
/// scheduler and handed to it as plain data); the pipeline runs the rest and renders
/// nothing; the errors sit beside it, naming what failed below.
fn may_import(from: &[String], to: &[String]) -> bool {
    let (from, to) = (top(from), top(to));
    from == to
        || match from {
            "state" => false,
            "scheduler" => to == "state",
            "report" => matches!(to, "state" | "scheduler"),
            "cluster" => to == "state",
            "error" => matches!(to, "state" | "scheduler" | "cluster"),
            "render" => matches!(to, "state" | "scheduler" | "report"),
            "pipeline" => matches!(to, "state" | "scheduler" | "report" | "cluster" | "error"),
            "cli" => matches!(to, "state" | "scheduler" | "cluster"),
            // app, complete, fuzz_entry, main and lib sit on top.
            _ => !matches!(to, "main" | "crate"),
        }
}

fn top(m: &[String]) -> &str {
    m.first().map_or("crate", String::as_str)
}

/// The rule itself refuses an import up a layer, or across to a sibling of the pipeline.
#[test]
fn the_rule_refuses_upward_imports() {
    let m = |s: &str| -> Vec<String> { s.split("::").map(str::to_string).collect() };
    for (from, to) in [
        ("state", "scheduler"),
        ("scheduler", "report"),
        ("scheduler", "pipeline"),
        ("report", "pipeline"),
        ("report", "render"),
        ("cluster", "scheduler"),
        ("render", "pipeline"),
        ("pipeline", "render"),
        ("pipeline", "cli"),
        ("pipeline", "app"),
        ("cli", "pipeline"),
        ("error", "pipeline"),
        ("app", "main"),
    ] {
        assert!(!may_import(&m(from), &m(to)), "{from} -> {to} allowed");
    }
    for (from, to) in [
        ("app", "pipeline"),
        ("app", "render"),
        ("pipeline::whatif", "cluster"),
        ("pipeline", "report::audit"),
        ("pipeline", "scheduler"),
        ("pipeline", "error"),
        ("render", "report"),
    ] {
        assert!(may_import(&m(from), &m(to)), "{from} -> {to} refused");
    }
}

#[test]
fn imports_point_down_only() {
    let mut upward = Vec::new();
    for (from, tos) in graph() {
        for to in tos {
            if !may_import(&from, &to) {
                upward.push(format!("{} -> {}", name(&from), name(&to)));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports pointing up a layer:\n{}",
        upward.join("\n")
    );
}

#[test]
fn no_file_imports_itself_through_others() {
    let g = graph();
    // Tarjan-free: a cycle exists when some file reaches itself.
    let mut cycles = BTreeSet::new();
    for start in g.keys() {
        let mut stack: Vec<(Vec<String>, Vec<Vec<String>>)> =
            vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((node, path)) = stack.pop() {
            for next in g.get(&node).into_iter().flatten() {
                if next == start {
                    let mut cycle: Vec<String> = path.iter().map(|m| name(m)).collect();
                    // One rotation per cycle: start at its smallest file.
                    let min = cycle
                        .iter()
                        .enumerate()
                        .min_by_key(|(_, n)| n.as_str())
                        .map(|(i, _)| i)
                        .unwrap_or(0);
                    cycle.rotate_left(min);
                    cycles.insert(cycle.join(" -> "));
                } else if seen.insert(next.clone()) {
                    let mut p = path.clone();
                    p.push(next.clone());
                    stack.push((next.clone(), p));
                }
            }
        }
    }
    assert!(
        cycles.is_empty(),
        "import cycles between files:\n{}",
        cycles.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// The string literals of a file, comments left out: `"..."`, raw `r#"..."#` and byte strings,
/// with the line each starts on. Char literals are stepped over, lifetimes left as they are.
fn string_literals(text: &str) -> Vec<(usize, String)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let line = |at: usize| text[..at].matches('\n').count() + 1;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = text[i..].find('\n').map_or(b.len(), |n| i + n);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i..].find("*/").map_or(b.len(), |n| i + n + 2);
            }
            b'r' if !(i > 0 && is_ident(b[i - 1] as char))
                && matches!(b.get(i + 1), Some(b'"' | b'#')) =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                let open = i + 1 + hashes;
                if b.get(open) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let close = format!("\"{}", "#".repeat(hashes));
                let end = text[open + 1..]
                    .find(&close)
                    .map_or(b.len(), |n| open + 1 + n);
                out.push((line(i), text[open + 1..end].to_string()));
                i = end + close.len();
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                out.push((line(i), text[i + 1..j.min(b.len())].to_string()));
                i = j + 1;
            }
            b'\'' => {
                // A char literal ('x', '\n', '"'); a lifetime has no closing quote near.
                let rest = &text[i + 1..];
                let len = if let Some(escaped) = rest.strip_prefix('\\') {
                    escaped.find('\'').map(|n| n + 1)
                } else {
                    rest.chars()
                        .next()
                        .filter(|c| rest[c.len_utf8()..].starts_with('\''))
                        .map(char::len_utf8)
                };
                i += 1 + len.map_or(0, |n| n + 1);
            }
            _ => i += 1,
        }
    }
    out
}

/// Render and report name no plugin by its string: a plugin is named by
/// `scheduler::PluginId`, and each plugin's words are its own (test modules included, so a
/// test cannot pin a name either).
#[test]
fn no_string_literal_names_a_plugin_in_report_or_render() {
    use kubectl_affinity::scheduler::PluginId;
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    let mut files = Vec::new();
    for layer in ["report", "render"] {
        let mut stack = vec![src.join(layer)];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).expect("read dir") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    files.push(path);
                }
            }
        }
    }
    assert!(files.len() > 10, "the layers' files: {files:?}");
    for path in files {
        let text = std::fs::read_to_string(&path).expect("read source");
        for (line, literal) in string_literals(&text) {
            let words: Vec<&str> = literal.split(|c: char| !is_ident(c)).collect();
            for plugin in PluginId::IN_TREE {
                if words.contains(&plugin.as_str()) {
                    found.push(format!("{}:{line}: {plugin}", path.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "string literals naming a plugin (use scheduler::PluginId):\n{}",
        found.join("\n")
    );
}

/// The scanner finds what it must, so that the test above cannot pass by finding nothing.
#[test]
fn string_literals_are_found_whole() {
    let text = "let a = \"NodeName x\"; // \"Commented\"\nlet b = r#\"raw \"q\" NodeAffinity\"#;\n\
                let c = '\"'; let d: &'static str = \"after\\\" quote\";\
                let e = ['\\'', '\\\\']; \"x\"";
    let found = string_literals(text);
    let texts: Vec<&str> = found.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(
        texts,
        [
            "NodeName x",
            "raw \"q\" NodeAffinity",
            "after\\\" quote",
            "x"
        ]
    );
    assert_eq!(found[1].0, 2);
}
