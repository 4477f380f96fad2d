//! Semantic versions as DRA reads them: a device's `version` attribute and CEL's `semver()`
//! both go through `github.com/blang/semver/v4`'s `Parse` upstream, so this mirrors its rules
//! (strict SemVer 2.0: no leading zeros, no `v` prefix, three numbers) and its error texts,
//! which reach users inside CEL runtime errors.

use std::cmp::Ordering;
use std::fmt;

/// A parsed version: `major.minor.patch[-pre][+build]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: Vec<PreRelease>,
    /// Kept for display; build metadata has no precedence.
    pub build: Vec<String>,
}

/// One dot-separated pre-release identifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreRelease {
    Num(u64),
    Alpha(String),
}

/// Why a string is not a version, in blang/semver's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SemverError(String);

impl fmt::Display for SemverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SemverError {}

const NUMBERS: &str = "0123456789";

fn contains_only(s: &str, alphanum: bool) -> bool {
    s.chars()
        .all(|c| NUMBERS.contains(c) || (alphanum && (c.is_ascii_alphabetic() || c == '-')))
}

fn has_leading_zeroes(s: &str) -> bool {
    s.len() > 1 && s.starts_with('0')
}

/// Go's `strconv.ParseUint(s, 10, 64)` on a string of digits only (possibly empty), with
/// its error text.
fn parse_uint(s: &str) -> Result<u64, SemverError> {
    if s.is_empty() {
        return Err(SemverError(format!(
            "strconv.ParseUint: parsing {s:?}: invalid syntax"
        )));
    }
    s.parse::<u64>().map_err(|_| {
        SemverError(format!(
            "strconv.ParseUint: parsing {s:?}: value out of range"
        ))
    })
}

fn number(part: &str, which: &str) -> Result<u64, SemverError> {
    if !contains_only(part, false) {
        return Err(SemverError(format!(
            "Invalid character(s) found in {} number {part:?}",
            which.to_lowercase()
        )));
    }
    if has_leading_zeroes(part) {
        return Err(SemverError(format!(
            "{which} number must not contain leading zeroes {part:?}"
        )));
    }
    parse_uint(part)
}

impl Version {
    /// `semver.Parse`.
    pub fn parse(s: &str) -> Result<Version, SemverError> {
        if s.is_empty() {
            return Err(SemverError("Version string empty".into()));
        }
        let parts: Vec<&str> = s.splitn(3, '.').collect();
        let [major, minor, rest] = parts.as_slice() else {
            return Err(SemverError("No Major.Minor.Patch elements found".into()));
        };
        let major = number(major, "Major")?;
        let minor = number(minor, "Minor")?;
        let mut patch = *rest;
        let mut build = Vec::new();
        if let Some(i) = patch.find('+') {
            build = patch[i + 1..].split('.').map(str::to_owned).collect();
            patch = &patch[..i];
        }
        let mut pre_parts = Vec::new();
        if let Some(i) = patch.find('-') {
            pre_parts = patch[i + 1..].split('.').collect();
            patch = &patch[..i];
        }
        let patch = number(patch, "Patch")?;
        let pre = pre_parts
            .into_iter()
            .map(PreRelease::parse)
            .collect::<Result<Vec<_>, _>>()?;
        for b in &build {
            if b.is_empty() {
                return Err(SemverError("Build meta data is empty".into()));
            }
            if !contains_only(b, true) {
                return Err(SemverError(format!(
                    "Invalid character(s) found in build meta data {b:?}"
                )));
            }
        }
        Ok(Version {
            major,
            minor,
            patch,
            pre,
            build,
        })
    }

    /// The `normalize` variant of CEL's `semver(s, true)` (apiserver's `normalizeAndParse`):
    /// a `v` prefix dropped, leading zeros removed, missing minor and patch filled with 0.
    pub fn parse_normalized(s: &str) -> Result<Version, SemverError> {
        let s = s.strip_prefix('v').unwrap_or(s);
        let mut parts: Vec<String> = s
            .splitn(3, '.')
            .map(|p| {
                if p.len() > 1 {
                    let trimmed = p.trim_start_matches('0');
                    if trimmed.is_empty() || !trimmed.starts_with(|c: char| c.is_ascii_digit()) {
                        format!("0{trimmed}")
                    } else {
                        trimmed.to_owned()
                    }
                } else {
                    p.to_owned()
                }
            })
            .collect();
        if parts.len() < 3 {
            if parts
                .last()
                .is_some_and(|p| p.contains('+') || p.contains('-'))
            {
                return Err(SemverError(
                    "short version cannot contain PreRelease/Build meta data".into(),
                ));
            }
            while parts.len() < 3 {
                parts.push("0".into());
            }
        }
        Version::parse(&parts.join("."))
    }

    /// `Version.Compare`: SemVer precedence, build metadata ignored.
    pub fn compare(&self, other: &Version) -> Ordering {
        self.major
            .cmp(&other.major)
            .then(self.minor.cmp(&other.minor))
            .then(self.patch.cmp(&other.patch))
            .then_with(|| match (self.pre.is_empty(), other.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => {
                    for (a, b) in self.pre.iter().zip(&other.pre) {
                        let c = a.compare(b);
                        if c != Ordering::Equal {
                            return c;
                        }
                    }
                    self.pre.len().cmp(&other.pre.len())
                }
            })
    }
}

impl PreRelease {
    fn parse(s: &str) -> Result<PreRelease, SemverError> {
        if s.is_empty() {
            return Err(SemverError("Prerelease is empty".into()));
        }
        if contains_only(s, false) {
            if has_leading_zeroes(s) {
                return Err(SemverError(format!(
                    "Numeric PreRelease version must not contain leading zeroes {s:?}"
                )));
            }
            return parse_uint(s).map(PreRelease::Num);
        }
        if contains_only(s, true) {
            return Ok(PreRelease::Alpha(s.to_owned()));
        }
        Err(SemverError(format!(
            "Invalid character(s) found in prerelease {s:?}"
        )))
    }

    fn compare(&self, other: &PreRelease) -> Ordering {
        match (self, other) {
            (PreRelease::Num(a), PreRelease::Num(b)) => a.cmp(b),
            (PreRelease::Num(_), PreRelease::Alpha(_)) => Ordering::Less,
            (PreRelease::Alpha(_), PreRelease::Num(_)) => Ordering::Greater,
            (PreRelease::Alpha(a), PreRelease::Alpha(b)) => a.cmp(b),
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        for (i, p) in self.pre.iter().enumerate() {
            f.write_str(if i == 0 { "-" } else { "." })?;
            match p {
                PreRelease::Num(n) => write!(f, "{n}")?,
                PreRelease::Alpha(s) => f.write_str(s)?,
            }
        }
        for (i, b) in self.build.iter().enumerate() {
            f.write_str(if i == 0 { "+" } else { "." })?;
            f.write_str(b)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).expect("version")
    }

    #[test]
    fn precedence_follows_semver() {
        // Each one lower than the next (SemVer 2.0 §11's own example, plus numeric order).
        let ordered = [
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
            "1.2.0",
            "1.10.0",
            "2.0.0-rc.1",
            "2.0.0",
        ];
        for pair in ordered.windows(2) {
            assert_eq!(v(pair[0]).compare(&v(pair[1])), Ordering::Less, "{pair:?}");
            assert_eq!(
                v(pair[1]).compare(&v(pair[0])),
                Ordering::Greater,
                "{pair:?}"
            );
        }
        assert_eq!(v("1.0.0+a").compare(&v("1.0.0+b")), Ordering::Equal);
        assert_eq!(v("1.2.3-rc.1+build.5").to_string(), "1.2.3-rc.1+build.5");
    }

    #[test]
    fn parse_errors_are_blangs() {
        let cases = [
            ("", "Version string empty"),
            ("1.2", "No Major.Minor.Patch elements found"),
            (
                "v1.2.3",
                "Invalid character(s) found in major number \"v1\"",
            ),
            (
                "01.2.3",
                "Major number must not contain leading zeroes \"01\"",
            ),
            (
                "1.02.3",
                "Minor number must not contain leading zeroes \"02\"",
            ),
            (
                "1.2.03",
                "Patch number must not contain leading zeroes \"03\"",
            ),
            ("1.2.x", "Invalid character(s) found in patch number \"x\""),
            ("1..3", "strconv.ParseUint: parsing \"\": invalid syntax"),
            ("1.2.3-", "Prerelease is empty"),
            (
                "1.2.3-01",
                "Numeric PreRelease version must not contain leading zeroes \"01\"",
            ),
            (
                "1.2.3-a_b",
                "Invalid character(s) found in prerelease \"a_b\"",
            ),
            ("1.2.3+", "Build meta data is empty"),
            (
                "1.2.3+a_b",
                "Invalid character(s) found in build meta data \"a_b\"",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(
                Version::parse(input).expect_err(input).to_string(),
                want,
                "{input}"
            );
        }
    }

    #[test]
    fn normalized_parse_fills_and_trims() {
        assert_eq!(v("1.0.0"), Version::parse_normalized("v1").expect("v1"));
        assert_eq!(
            v("1.2.0"),
            Version::parse_normalized("01.02").expect("01.02")
        );
        assert_eq!(
            Version::parse_normalized("1-rc")
                .expect_err("short with pre")
                .to_string(),
            "short version cannot contain PreRelease/Build meta data"
        );
    }
}
