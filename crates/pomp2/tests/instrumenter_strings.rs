//! Every CTC string in the instrumenter's expected outputs (the `.out`
//! files of `tests/cases`) parses as well-formed and is written back byte for byte: the writer here makes the
//! strings the instrumenter has always made.

use std::path::Path;

fn ctc_strings(text: &str) -> Vec<&str> {
    let mut strings = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("*regionType=") {
        let start = rest[..at]
            .rfind(|c: char| !c.is_ascii_digit())
            .map_or(0, |i| i + 1);
        let end = at + rest[at..].find("**").expect("a terminated CTC string") + 2;
        strings.push(&rest[start..end]);
        rest = &rest[end..];
    }
    strings
}

#[test]
fn expected_output_ctc_strings_round_trip() {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/cases");
    let mut seen = 0;
    for entry in std::fs::read_dir(&cases).expect("the instrumenter's cases") {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "out") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for ctc in ctc_strings(&text) {
            // Fortran output writes long strings in pieces joined by `//`.
            if ctc.contains('"') {
                continue;
            }
            let parsed = pomp2::ctc::parse(ctc.as_bytes());
            assert!(!parsed.malformed, "{}: {ctc}", path.display());
            assert_eq!(
                pomp2::ctc::write(&parsed.context),
                ctc,
                "{}",
                path.display()
            );
            seen += 1;
        }
    }
    assert!(seen > 10, "only {seen} CTC strings in {}", cases.display());
}
