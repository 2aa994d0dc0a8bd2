//! Every CTC string pomp writes, read by OPARI2's own CTC parser: the one
//! OPARI2's measurement library and Score-P's OPARI2 adapter share,
//! compiled here from the sources the Debian package `libpomp2-dev`
//! installs. It must read each string in silence, and read what pomp
//! meant: the region type, the source locations, the number of sections,
//! the schedule, the critical section's and user region's names and the
//! clauses.

use super::{Config, EventSet, Library, Region};
use crate::directive::{table, Association, DirectiveSpec};
use crate::instrument::{instrument, Options};
use crate::source::{Language, SourceFile};
use pomp2::ctc::{keys, opari2};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

/// Where the Debian package installs the parser's sources.
const PARSER_SOURCES: &str = "/usr/share/opari2/devel";
const PARSER_FILES: &[&str] = &[
    "opari2_ctc_parser.c",
    "pomp2_region_info.c",
    "pomp2_user_region_info.c",
];

/// Reads CTC strings, one a line, and prints what the parser made of each:
/// the type, the locations, the number of sections, the schedule kind,
/// the critical section's or user region's name and the clause flags.
const DRIVER: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pomp2_region_info.h"
#include "pomp2_user_region_info.h"

static const char *or_empty(const char *s) { return s ? s : ""; }

int main(int argc, char **argv)
{
    FILE *in = fopen(argv[1], "r");
    static char line[1 << 16];
    while (in && fgets(line, sizeof line, in)) {
        line[strcspn(line, "\n")] = 0;
        if (strstr(line, "*regionType=userRegion*")) {
            POMP2_USER_Region_info info;
            memset(&info, 0, sizeof info);
            ctcString2UserRegionInfo(line, &info);
            printf("%s|%s:%u:%u|%s:%u:%u|||%s|\n", pomp2UserRegionType2String(info.mRegionType),
                   info.mStartFileName, info.mStartLine1, info.mStartLine2, info.mEndFileName,
                   info.mEndLine1, info.mEndLine2, or_empty(info.mUserRegionName));
            freePOMP2UserRegionInfoMembers(&info);
        } else {
            /* The parser leaves mHasShared as it finds it. */
            POMP2_Region_info info;
            memset(&info, 0, sizeof info);
            ctcString2RegionInfo(line, &info);
            printf("%s|%s:%u:%u|%s:%u:%u|%u|%s|%s|%d%d%d%d%d%d%d%d%d%d%d%d\n",
                   pomp2RegionType2String(info.mRegionType), info.mStartFileName,
                   info.mStartLine1, info.mStartLine2, info.mEndFileName, info.mEndLine1,
                   info.mEndLine2, info.mNumSections,
                   info.mScheduleType ? pomp2ScheduleType2String(info.mScheduleType) : "",
                   or_empty(info.mCriticalName), info.mHasCollapse, info.mHasCopyIn,
                   info.mHasCopyPrivate, info.mHasFirstPrivate, info.mHasIf, info.mHasLastPrivate,
                   info.mHasNoWait, info.mHasNumThreads, info.mHasOrdered, info.mHasReduction,
                   info.mHasShared, info.mHasUntied);
            freePOMP2RegionInfoMembers(&info);
        }
    }
    return 0;
}
"#;

/// The parser and the driver, built in `dir`.
fn build_parser(dir: &Path) -> PathBuf {
    let sources = Path::new(PARSER_SOURCES);
    assert!(
        PARSER_FILES.iter().all(|f| sources.join(f).is_file()),
        "OPARI2's CTC parser is not installed in {PARSER_SOURCES}: \
         `apt-get install libpomp2-dev` (scripts/setup does)"
    );
    // The sources include the header of the build they come from.
    std::fs::write(dir.join("config.h"), "").unwrap();
    std::fs::write(dir.join("driver.c"), DRIVER).unwrap();
    let program = dir.join("parse_ctc");
    let output = Command::new("gcc")
        .arg("-I")
        .arg(dir)
        .arg("-I")
        .arg(sources)
        .arg(dir.join("driver.c"))
        .args(PARSER_FILES.iter().map(|f| sources.join(f)))
        .arg("-o")
        .arg(&program)
        .output()
        .expect("gcc runs");
    assert!(
        output.status.success(),
        "OPARI2's parser does not build:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    program
}

/// Sample arguments of the clauses a CTC string describes.
fn clause_variants(language: Language) -> Vec<String> {
    let mut variants: Vec<String> = vec![
        "if(n > 1)".into(),
        "num_threads(2)".into(),
        "reduction(+:x)".into(),
        "shared(x)".into(),
        "firstprivate(x)".into(),
        "lastprivate(x)".into(),
        "copyin(x)".into(),
        "copyprivate(x)".into(),
        "collapse(2)".into(),
        "ordered".into(),
        "nowait".into(),
        "untied".into(),
        "schedule(static)".into(),
        "schedule(dynamic, 2*3)".into(),
        "schedule(monotonic: guided, n)".into(),
        "schedule(auto)".into(),
        "schedule(runtime)".into(),
        "schedule(SCHED)".into(),
        "default(none)".into(),
        "default(shared)".into(),
        "default(private)".into(),
        "default(firstprivate)".into(),
    ];
    if language.is_fortran() {
        variants.push("schedule(STATIC, 4)".into());
        variants.push("DEFAULT(NONE)".into());
    }
    variants
}

/// A function (C) or subroutine (Fortran) holding the directive `spec`
/// with `clauses`, its block and, in Fortran, its end directive with
/// `end_clauses`; `None` for directives whose CTC strings no rule makes.
fn snippet(
    language: Language,
    index: usize,
    spec: &DirectiveSpec,
    clauses: &str,
    end_clauses: &str,
) -> Option<String> {
    let fortran = language.is_fortran();
    let name = spec.name.as_str();
    let argument = match (spec.argument_names.is_some(), name) {
        (true, _) => "(io)",
        (false, "flush") => "(x)",
        _ => "",
    };
    let opening = if fortran {
        format!("!$omp {name}{argument} {clauses}\n")
    } else {
        format!("#pragma omp {name}{argument} {clauses}\n")
    };
    let statement = if fortran { "  x = x + 1\n" } else { "  x++;\n" };
    let body = match spec.association {
        Association::Standalone => String::new(),
        Association::Loop if fortran => {
            "  do i = 1, n\n  do j = 1, n\n  x = x + 1\n  end do\n  end do\n".to_string()
        }
        Association::Loop => {
            "  for (i = 0; i < n; i++)\n  for (j = 0; j < n; j++)\n    x++;\n".to_string()
        }
        Association::Block if table().divided_by(spec).is_some() => {
            let section = if fortran {
                "!$omp section\n"
            } else {
                "#pragma omp section\n"
            };
            if fortran {
                format!("{statement}{section}{statement}{section}{statement}")
            } else {
                format!("  {{\n{statement}{section}{statement}{section}{statement}  }}\n")
            }
        }
        Association::Block => statement.to_string(),
        _ => return None,
    };
    let end_name = format!("end {name}");
    let closing = match table().directive(&end_name) {
        Some(_) if fortran => format!("!$omp {end_name}{argument} {end_clauses}\n"),
        _ => String::new(),
    };
    Some(if fortran {
        format!(
            "subroutine s{index}(n)\n  integer :: n, i, j, x\n  x = 0\n{opening}{body}{closing}end subroutine s{index}\n"
        )
    } else {
        format!("void s{index}(int n)\n{{\n  int i, j, x = 0;\n{opening}{body}}}\n")
    })
}

/// A file with every instrumentable directive of the table, alone and with
/// each clause a CTC string describes, and user regions.
fn program(language: Language) -> String {
    let mut text = String::new();
    let mut index = 0;
    let fortran = language.is_fortran();
    for spec in &table().directive {
        if spec.region_type.is_none() || spec.pomp || !spec.is_for(language) {
            continue;
        }
        let mut variants = vec![(String::new(), String::new())];
        for clause in clause_variants(language) {
            let name = clause.split('(').next().unwrap().to_ascii_lowercase();
            if table().accepts(spec, &name) {
                variants.push((clause.clone(), String::new()));
            }
            // Fortran puts nowait and copyprivate on the end directive.
            let end = table().directive(&format!("end {}", spec.name));
            if fortran && end.is_some_and(|e| table().accepts(e, &name)) {
                variants.push((String::new(), clause));
            }
        }
        for (clauses, end_clauses) in variants {
            if let Some(s) = snippet(language, index, spec, &clauses, &end_clauses) {
                text.push_str(&s);
                index += 1;
            }
        }
    }
    let (begin, end, statement) = if fortran {
        ("!$pomp inst begin", "!$pomp inst end", "  x = x + 1\n")
    } else {
        (
            "#pragma pomp inst begin",
            "#pragma pomp inst end",
            "  x++;\n",
        )
    };
    let user = format!("{begin}(phase_1)\n{statement}{end}(phase_1)\n");
    if fortran {
        writeln!(
            text,
            "subroutine users(n)\n  integer :: n, x\n  x = n\n{user}end subroutine users"
        )
        .unwrap();
    } else {
        writeln!(text, "void users(int n)\n{{\n  int x = n;\n{user}}}").unwrap();
    }
    text
}

/// The settings whose strings differ: pomp's events (with pomp's part of
/// the string), OPARI2's, each with untied tasks kept, and a library
/// other than pomp's runtime that defines every event.
fn settings() -> Vec<(&'static str, Config)> {
    let every_event: Vec<String> = pomp2::events::EVENTS
        .iter()
        .map(|e| e.name.to_ascii_lowercase())
        .collect();
    let library = Library {
        name: "every event".into(),
        c_events: every_event.iter().cloned().collect(),
        fortran_events: every_event.iter().cloned().collect(),
    };
    let base = Config::default();
    vec![
        ("extended", base.clone()),
        (
            "opari2",
            Config {
                events: EventSet::Opari2,
                ..base.clone()
            },
        ),
        (
            "extended, untied kept",
            Config {
                keep_untied: true,
                ..base.clone()
            },
        ),
        (
            "opari2, untied kept",
            Config {
                events: EventSet::Opari2,
                keep_untied: true,
                ..base.clone()
            },
        ),
        (
            "another library",
            Config {
                library: Some(Arc::new(library)),
                ..base
            },
        ),
    ]
}

/// What the parser should make of `region`'s string, as the driver prints it.
fn expected(region: &Region, path: &str) -> String {
    let attribute = |key: &str| {
        region
            .aux
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    let lines = |l: crate::source::Lines| format!("{path}:{}:{}", l.first, l.last);
    let start = lines(region.start_lines);
    let end = lines(region.end_lines);
    if region.user {
        let name = attribute(keys::USER_REGION_NAME).unwrap_or_default();
        return format!("{}|{start}|{end}|||{name}|", opari2::USER_REGION);
    }
    let schedule = attribute(keys::HAS_SCHEDULE)
        .map(|v| v.split(',').next().unwrap().to_string())
        .unwrap_or_default();
    let flags: String = opari2::CLAUSE_FLAGS
        .iter()
        // The driver prints them in the order of the parser's struct.
        .map(|key| {
            if attribute(key) == Some("1") {
                '1'
            } else {
                '0'
            }
        })
        .collect();
    format!(
        "{}|{start}|{end}|{}|{schedule}|{}|{flags}",
        region.opari2_type,
        attribute(keys::NUM_SECTIONS).unwrap_or("0"),
        attribute(keys::CRITICAL_NAME).unwrap_or_default(),
    )
}

#[test]
fn opari2_s_parser_reads_every_ctc_string_in_silence_and_as_meant() {
    let dir = tempfile::tempdir().unwrap();
    let parser = build_parser(dir.path());
    let mut strings = String::new();
    let mut expectations = Vec::new();
    let mut region_types = std::collections::BTreeSet::new();
    for (language, path) in [(Language::C, "all.c"), (Language::FortranFree, "all.f90")] {
        let text = program(language);
        let file = SourceFile::new(path, text.clone().into_bytes(), language);
        for (setting, rules) in settings() {
            let options = Options {
                rules,
                ..Options::default()
            };
            let result = instrument(&file, &options);
            assert!(
                result.plan.regions.len() > 200,
                "{path}, {setting}: only {} regions",
                result.plan.regions.len()
            );
            for region in &result.plan.regions {
                let ctc = result.plan.ctc(region);
                assert!(
                    opari2::is_region_type(&region.opari2_type) || region.user,
                    "{setting}: {ctc}"
                );
                region_types.insert(region.region_type.clone());
                strings.push_str(&ctc);
                strings.push('\n');
                expectations.push((format!("{path}, {setting}: {ctc}"), expected(region, path)));
            }
        }
    }
    // Every construct pomp has events for is among them.
    for (rule, _) in super::table::rules().construct.iter() {
        let covered = region_types
            .iter()
            .any(|t| t.contains(&rule.replace(' ', "")))
            || rule == "section"
            || rule == "untied task";
        assert!(covered, "no region of `{rule}` was made");
    }
    let input = dir.path().join("strings");
    std::fs::write(&input, &strings).unwrap();
    let run = Command::new(&parser).arg(&input).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "OPARI2's parser ended the program ({}):\n{}",
        run.status,
        stdout.lines().rev().take(8).collect::<Vec<_>>().join("\n")
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines.len(),
        expectations.len(),
        "the parser printed more than its results:\n{stdout}"
    );
    for ((what, expected), read) in expectations.iter().zip(&lines) {
        assert_eq!(read, expected, "{what}");
    }
}
