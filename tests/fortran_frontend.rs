//! The Fortran front end on tricky free- and fixed-form samples, each a
//! file in `tests/fortran_frontend/` with the model read from it beside it
//! (`NAME.model`): the directives with their blocks and end directives,
//! the program units and where their declarations go, lock calls, jumps
//! and where they go, the places nothing may be inserted, and the
//! diagnostics as the user sees them. Every span is written with the text
//! it covers. See `tests/cases/README.md` for how such files are made and
//! reviewed.

#[path = "support/expect.rs"]
mod expect;

use pomp_core::frontend::fortran::TreeSitterFortran;
use pomp_core::frontend::FrontEnd;
use pomp_core::language::Language;
use pomp_core::model::Model;
use pomp_core::source::SourceFile;
use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};

fn samples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fortran_frontend")
}

/// The Fortran sources among the samples, in name order.
fn samples() -> Vec<PathBuf> {
    let mut samples: Vec<PathBuf> = std::fs::read_dir(samples_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| Language::from_path(path).is_some_and(Language::is_fortran))
        .collect();
    samples.sort();
    samples
}

#[test]
fn samples_read_as_their_models_say() {
    let samples = samples();
    assert!(!samples.is_empty());
    let mut expectations = expect::Expectations::new(&samples_dir());
    for path in &samples {
        let name = path.file_name().unwrap().to_str().unwrap();
        let language = Language::from_path(path).unwrap();
        let file = SourceFile::new(name, std::fs::read(path).unwrap(), language);
        let model = TreeSitterFortran::default().analyse(&file);
        for unit in &model.units {
            if let Some(at) = unit.declarations_at {
                if file.start_of_line(at) != at {
                    expectations.fail(format!(
                        "{name}: the declarations of `{}` go mid-line",
                        unit.name
                    ));
                }
            }
        }
        expectations.check(
            &format!("{name}.model"),
            Some(model_text(&file, &model).as_bytes()),
        );
    }
    expectations.finish(&samples, &["README.md"]);
}

/// The model as a reviewer reads it: every span as `line:column..line:column`
/// (1-based, columns in bytes, the end excluded) with its text.
fn model_text(file: &SourceFile, model: &Model) -> String {
    let mut out = String::new();
    for (n, site) in model.sites.iter().enumerate() {
        let directive = &site.directive;
        let form = serde_json::to_value(site.form).unwrap();
        let sentinel = format!("{:?}", directive.sentinel).to_lowercase();
        writeln!(
            out,
            "site {n}: {} ({sentinel}, {})",
            directive.name(),
            form.as_str().unwrap()
        )
        .unwrap();
        writeln!(out, "  reads {}", directive.render()).unwrap();
        span(&mut out, file, "  written", &site.span);
        span(&mut out, file, "  lines", &site.lines);
        if let Some(block) = &site.block {
            span(&mut out, file, "  block", block);
        }
        if !site.loop_variables.is_empty() {
            writeln!(out, "  loop variables {}", site.loop_variables.join(", ")).unwrap();
        }
        if let Some(end) = site.end_site {
            writeln!(out, "  ended by site {end}").unwrap();
        }
        if let Some(parent) = site.parent {
            writeln!(out, "  inside site {parent}").unwrap();
        }
        if let Some(unit) = site.unit {
            writeln!(out, "  in unit {unit}").unwrap();
        }
        if site.failed {
            writeln!(out, "  not instrumented").unwrap();
        }
    }
    for (n, unit) in model.units.iter().enumerate() {
        writeln!(out, "unit {n}: {}", unit.name).unwrap();
        let (from, to) = (file.line_col(unit.span.start), file.line_col(unit.span.end));
        let first = line_text(file, unit.span.start);
        let last = line_text(file, file.start_of_line(unit.span.end.saturating_sub(1)));
        writeln!(
            out,
            "  spans {}:{}..{}:{} from {} to {}",
            from.0,
            from.1,
            to.0,
            to.1,
            quoted(&first),
            quoted(&last)
        )
        .unwrap();
        if let Some(parent) = unit.parent {
            writeln!(out, "  inside unit {parent}").unwrap();
        }
        if let Some(at) = unit.declarations_at {
            let (line, column) = file.line_col(at);
            writeln!(
                out,
                "  declarations at {line}:{column}, before {}",
                quoted(&line_text(file, at))
            )
            .unwrap();
        }
        if !unit.indent.is_empty() {
            writeln!(out, "  indented {:?}", unit.indent).unwrap();
        }
    }
    for call in &model.lock_calls {
        span(
            &mut out,
            file,
            &format!("lock call {}", call.name),
            &call.span,
        );
    }
    for exit in &model.exits {
        span(&mut out, file, "jump", &exit.span);
        for &target in &exit.targets {
            let (line, column) = file.line_col(target);
            writeln!(
                out,
                "  to {line}:{column}, {}",
                quoted(&line_text(file, target))
            )
            .unwrap();
        }
    }
    for zone in &model.no_insert {
        span(&mut out, file, "nothing inserted", zone);
    }
    sentinels(&mut out, file, model);
    for logical_if in &model.fortran.logical_ifs {
        span(
            &mut out,
            file,
            "logical if",
            &(logical_if.start..logical_if.action),
        );
        let (line, column) = file.line_col(logical_if.action);
        writeln!(
            out,
            "  action at {line}:{column}, {}",
            quoted(&line_text(file, logical_if.action))
        )
        .unwrap();
    }
    let diagnostics = pomp_cli::render::render(file, &model.diagnostics, false);
    if !diagnostics.is_empty() {
        out.push_str("diagnostics\n");
        for line in diagnostics.lines() {
            writeln!(out, "{}", format!("  | {line}").trim_end()).unwrap();
        }
    }
    out
}

/// The lines code is on only when compiled with OpenMP (`!$`) or only when
/// instrumented (`!P$`), each with where its sentinel stands. The `!$`
/// lines are found line by line as the emitter asks for them.
fn sentinels(out: &mut String, file: &SourceFile, model: &Model) {
    let fortran = &model.fortran;
    let mut found = 0;
    for line in file.line_starts().iter().map(|&start| start as usize) {
        let end = file.end_of_line(line);
        if let Some(at) = fortran.openmp_sentinel(&(line..end)) {
            let (number, column) = file.line_col(line + at);
            writeln!(
                out,
                "openmp sentinel at {number}:{column}, {}",
                quoted(&line_text(file, line + at))
            )
            .unwrap();
            found += 1;
        }
    }
    assert_eq!(
        found,
        fortran.openmp_sentinels.len(),
        "one `!$` sentinel a line"
    );
    for &at in &fortran.pomp_sentinels {
        let (number, column) = file.line_col(at);
        writeln!(
            out,
            "pomp sentinel at {number}:{column}, {}",
            quoted(&line_text(file, at))
        )
        .unwrap();
    }
}

/// `label` (indented as it belongs), the span and the text it covers:
/// inline when it is part of a line, else a line of its own for each of
/// its lines, indented below the label.
fn span(out: &mut String, file: &SourceFile, label: &str, span: &Range<usize>) {
    let (from, to) = (file.line_col(span.start), file.line_col(span.end));
    let text = file.text(span.clone());
    write!(out, "{label} {}:{}..{}:{}", from.0, from.1, to.0, to.1).unwrap();
    if !text.contains('\n') {
        writeln!(out, " {}", quoted(&text)).unwrap();
        return;
    }
    out.push('\n');
    let indent = &label[..label.len() - label.trim_start().len()];
    for line in text.split_inclusive('\n') {
        let line = line.strip_suffix('\n').unwrap_or(line);
        writeln!(
            out,
            "{}",
            format!("{indent}  | {}", visible(line)).trim_end()
        )
        .unwrap();
    }
}

/// The line holding `offset`, from `offset` on, without its line end.
fn line_text(file: &SourceFile, offset: usize) -> String {
    let text = file.text(offset..file.end_of_line(offset));
    text.trim_end_matches(['\n', '\r']).to_string()
}

fn quoted(text: &str) -> String {
    format!("`{}`", visible(text))
}

/// Text as it reads, a carriage return shown as `\r`.
fn visible(text: &str) -> String {
    text.replace('\r', "\\r")
}

/// Every Fortran corpus program is analysed without errors or warnings
/// other than a construct deliberately left uninstrumented, and every block
/// construct found its end (an end directive, or a BLOCK's end block).
#[test]
fn corpus_programs_analyse_cleanly() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/fortran");
    let mut analysed = 0;
    for form in ["free", "fixed"] {
        let Ok(entries) = std::fs::read_dir(root.join(form)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(language) = Language::from_path(&path) else {
                continue;
            };
            let file = SourceFile::new(&path, std::fs::read(&path).unwrap(), language);
            let model = TreeSitterFortran::default().analyse(&file);
            assert!(
                model
                    .diagnostics
                    .iter()
                    .all(|d| !d.is_error() && d.message.contains("is not instrumented")),
                "{}",
                pomp_cli::render::render(&file, &model.diagnostics, false)
            );
            assert!(!model.sites.is_empty(), "{}", path.display());
            for site in &model.sites {
                let spec = site.directive.spec();
                if spec.association == pomp_core::directive::Association::Block
                    && site.directive.name() != "atomic"
                {
                    assert!(
                        site.block.is_some(),
                        "{}: {:?}",
                        path.display(),
                        file.text(site.span.clone())
                    );
                }
                assert!(
                    site.unit.is_some(),
                    "{}: {:?}",
                    path.display(),
                    file.text(site.span.clone())
                );
            }
            analysed += 1;
        }
    }
    assert!(analysed >= 5);
}
