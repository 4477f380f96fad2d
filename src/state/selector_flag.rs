//! kubectl's `-l/--selector` syntax (`labels.Parse` in k8s.io/apimachinery/pkg/labels/
//! selector.go): requirements separated by commas outside parentheses, each `k=v`, `k==v`,
//! `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k` or `!k`; keys and values checked as the API
//! server checks them.

use super::selector::{LabelSelector, Op, Requirement, new_requirement};

/// The selector `text` means; `Err` names the requirement that is not one, as kubectl's
/// "unable to parse requirement" does.
pub fn parse_selector_flag(text: &str) -> Result<LabelSelector, String> {
    let mut reqs = Vec::new();
    for part in split_outside_parens(text) {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        reqs.push(
            requirement(part).map_err(|e| format!("unable to parse requirement {part:?}: {e}"))?,
        );
    }
    Ok(LabelSelector::Requirements(reqs))
}

fn split_outside_parens(text: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

fn requirement(part: &str) -> Result<Requirement, String> {
    let checked = |key: &str, op: &str, values: &[String]| {
        new_requirement(key.trim(), op, values).map_err(|e| e.join("; "))
    };
    if let Some(key) = part.strip_prefix('!') {
        return checked(key, "DoesNotExist", &[]);
    }
    for (sep, op) in [(" notin ", "NotIn"), (" in ", "In")] {
        if let Some((key, rest)) = part.split_once(sep) {
            let inner = rest
                .trim()
                .strip_prefix('(')
                .and_then(|r| r.strip_suffix(')'))
                .ok_or("values must be in parentheses: key in (a,b)")?;
            let values: Vec<String> = inner.split(',').map(|v| v.trim().to_string()).collect();
            return checked(key, op, &values);
        }
    }
    if let Some((key, value)) = part.split_once("!=") {
        return checked(key, "NotIn", &[value.trim().to_string()]);
    }
    if let Some((key, value)) = part.split_once("==").or_else(|| part.split_once('=')) {
        let r = checked(key, "In", &[value.trim().to_string()])?;
        return Ok(Requirement {
            key: r.key,
            op: Op::Equals(value.trim().to_string()),
        });
    }
    checked(part, "Exists", &[])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::labels::Labels;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn kubectls_forms_select_as_kubectl_does() {
        let web = labels(&[("app", "web"), ("tier", "front")]);
        let db = labels(&[("app", "db")]);
        for (text, on_web, on_db) in [
            ("app=web", true, false),
            ("app==web", true, false),
            ("app!=web", false, true),
            ("app in (web, db)", true, true),
            ("app notin (db)", true, false),
            ("tier", true, false),
            ("!tier", false, true),
            ("app in (web,db),!tier", false, true),
            ("", true, true),
        ] {
            let s = parse_selector_flag(text).expect(text);
            assert_eq!((s.matches(&web), s.matches(&db)), (on_web, on_db), "{text}");
        }
    }

    #[test]
    fn a_malformed_requirement_is_named() {
        let e = parse_selector_flag("app in web").expect_err("no parentheses");
        assert!(e.contains("\"app in web\""), "{e}");
        let e = parse_selector_flag("bad key!=x").expect_err("bad key");
        assert!(e.starts_with("unable to parse requirement"), "{e}");
    }
}
