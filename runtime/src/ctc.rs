//! Parsing of CTC strings, the source context that instrumented code passes
//! with a region's first event and to `POMP2_Assign_handle`.
//!
//! Format: `<len>*regionType=<type>*sscl=<file>:<first>:<last>*escl=...*key=value*...**`.
//! Instrumenters differ in which keys they emit, and a handle may be assigned
//! from a string that is truncated or garbled, so parsing never fails: it
//! keeps whatever fields it could read and flags the rest as malformed.

/// Keys whose values are kept as region attributes. Anything else is ignored
/// so that newer instrumenters can add keys without breaking the runtime.
const ATTRIBUTE_KEYS: &[&str] = &[
    "numSections",
    "hasOrdered",
    "hasIf",
    "hasNumThreads",
    "hasReduction",
    "hasSchedule",
    "scheduleType",
    "hasCollapse",
    "hasUntied",
];

/// A source location range as written in `sscl`/`escl`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceRange {
    pub file: String,
    pub first_line: u32,
    pub last_line: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegionInfo {
    pub region_type: String,
    pub start: Option<SourceRange>,
    pub end: Option<SourceRange>,
    /// `criticalName` or `userRegionName`.
    pub name: Option<String>,
    /// pomp's `pompId`, the region id in the IDF descriptor.
    pub idf_id: Option<String>,
    pub attributes: Vec<(String, String)>,
    pub malformed: bool,
}

/// Parses a CTC string given as raw bytes (C strings without their NUL,
/// Fortran strings with their hidden length).
pub fn parse(bytes: &[u8]) -> RegionInfo {
    let text = String::from_utf8_lossy(bytes);
    let mut info = RegionInfo::default();
    let mut body: &str = &text;

    match body.split_once('*') {
        Some((declared_len, rest)) if declared_len.chars().all(|c| c.is_ascii_digit()) => {
            // The declared length only serves to detect truncation: OPARI2
            // declares one less than the full length, pomp the full length.
            match declared_len.parse::<usize>() {
                Ok(len) if len <= text.len() => {}
                _ => info.malformed = true,
            }
            body = rest;
        }
        _ => info.malformed = true,
    }

    let mut terminated = false;
    for field in body.split('*') {
        if field.is_empty() {
            terminated = true;
            break;
        }
        let Some((key, value)) = field.split_once('=') else {
            info.malformed = true;
            continue;
        };
        match key {
            "regionType" => info.region_type = value.to_string(),
            "sscl" => info.start = parse_range(value, &mut info.malformed),
            "escl" => info.end = parse_range(value, &mut info.malformed),
            "criticalName" | "userRegionName" => info.name = Some(value.to_string()),
            "pompId" => info.idf_id = Some(value.to_string()),
            _ if ATTRIBUTE_KEYS.contains(&key) => {
                info.attributes.push((key.to_string(), value.to_string()))
            }
            _ => {}
        }
    }
    if !terminated {
        info.malformed = true;
    }
    if info.region_type.is_empty() {
        info.region_type = "unknown".to_string();
        info.malformed = true;
    }
    info
}

/// `<file>:<first>:<last>`; the file name may itself contain colons.
fn parse_range(value: &str, malformed: &mut bool) -> Option<SourceRange> {
    let mut parts = value.rsplitn(3, ':');
    let last = parts.next()?.parse::<u32>();
    let first = parts.next().map(str::parse::<u32>);
    let file = parts.next();
    match (file, first, last) {
        (Some(file), Some(Ok(first_line)), Ok(last_line)) => Some(SourceRange {
            file: file.to_string(),
            first_line,
            last_line,
        }),
        _ => {
            *malformed = true;
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_length(body: &str) -> String {
        // The declared length counts its own digits.
        let mut len = body.len() + 2;
        loop {
            let candidate = format!("{len}*{body}");
            if candidate.len() == len {
                return candidate;
            }
            len = candidate.len();
        }
    }

    #[test]
    fn reads_all_known_fields() {
        let ctc = with_length(
            "regionType=critical*sscl=src/a b.c:10:11*escl=src/a b.c:14:14*criticalName=io*pompId=a.c#3*hasIf=1*futureKey=x**",
        );
        let info = parse(ctc.as_bytes());
        assert!(!info.malformed, "{info:?}");
        assert_eq!(info.region_type, "critical");
        assert_eq!(
            info.start,
            Some(SourceRange {
                file: "src/a b.c".into(),
                first_line: 10,
                last_line: 11
            })
        );
        assert_eq!(info.end.as_ref().unwrap().first_line, 14);
        assert_eq!(info.name.as_deref(), Some("io"));
        assert_eq!(info.idf_id.as_deref(), Some("a.c#3"));
        assert_eq!(info.attributes, vec![("hasIf".into(), "1".into())]);
    }

    #[test]
    fn file_names_may_contain_colons() {
        let info = parse(
            with_length("regionType=for*sscl=C:\\x\\y.c:3:4*escl=C:\\x\\y.c:9:9**").as_bytes(),
        );
        assert_eq!(info.start.unwrap().file, "C:\\x\\y.c");
        assert!(!info.malformed);
    }

    #[test]
    fn garbage_is_flagged_not_fatal() {
        for bad in [
            "",
            "*",
            "**",
            "12",
            "x*y*z",
            "99*regionType=for*sscl=:::*",
            "\u{0}\u{ff}",
        ] {
            let info = parse(bad.as_bytes());
            assert!(info.malformed, "{bad:?} parsed as well-formed");
        }
        let info = parse(b"99*regionType=for*sscl=f.c:1:2**");
        assert_eq!(info.region_type, "for");
        assert_eq!(info.start.unwrap().last_line, 2);
        assert!(info.malformed, "a truncated string must be flagged");
        let opari2_style = "31*regionType=for*sscl=f.c:1:2**";
        assert_eq!(opari2_style.len(), 32);
        assert!(!parse(opari2_style.as_bytes()).malformed);
    }
}
