//! A directive as data: the sentinel that introduced it, its name, its
//! argument and its clauses, and how each is written back as text.

use super::table::{table, Association, DirectiveSpec, Role};
use crate::language::Language;
use std::borrow::Cow;

/// Which family of directive a sentinel introduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Sentinel {
    /// `#pragma omp`, `!$omp`, `c$omp`, `*$omp`, `[[omp::directive]]`, `_Pragma("omp")`.
    Omp,
    /// `#pragma pomp`, `!$pomp`: OPARI2's user-region and control directives.
    Pomp,
}

/// A parsed directive: `parallel for reduction(+:s) if(parallel: n > 8)`.
#[derive(Clone, PartialEq, Eq, serde::Serialize)]
pub struct Directive {
    pub sentinel: Sentinel,
    /// Where the table lists the directive ([`Directive::spec`]), which
    /// gives its name: the entry is asked for tens of thousands of times
    /// a file, and a lookup by name each time took 0.9% of the
    /// instructions of a run.
    #[serde(rename = "name", serialize_with = "serialize_entry_name")]
    entry: u16,
    /// The parenthesised argument directly after the name, if any:
    /// the critical name, the flush list, the user region name.
    pub argument: Option<String>,
    pub clauses: Vec<Clause>,
}

fn serialize_entry_name<S: serde::Serializer>(entry: &u16, to: S) -> Result<S::Ok, S::Error> {
    to.serialize_str(&table().directive[usize::from(*entry)].name)
}

/// Where the table lists the directive it names `name`.
fn entry_named(name: &str) -> u16 {
    let entry = (table().position(name)).expect("directives are named from the table");
    u16::try_from(entry).expect("a table of under 65,536 directives")
}

impl std::fmt::Debug for Directive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Directive")
            .field("sentinel", &self.sentinel)
            .field("name", &self.name())
            .field("argument", &self.argument)
            .field("clauses", &self.clauses)
            .finish()
    }
}

/// One clause: `name(args)`. `args` is the exact text between the outer
/// parentheses, trimmed; `None` when the clause has no parentheses. Names
/// the table knows, and the arguments pomp writes, are borrowed: a file
/// dense with directives holds tens of thousands of clauses.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Clause {
    pub name: Cow<'static, str>,
    pub args: Option<Cow<'static, str>>,
}

impl Directive {
    /// The directive the table names `name` (a name or an alias).
    ///
    /// # Panics
    /// When the table has no such directive: names come from the table.
    pub fn new(
        sentinel: Sentinel,
        name: &str,
        argument: Option<String>,
        clauses: Vec<Clause>,
    ) -> Directive {
        Directive {
            sentinel,
            entry: entry_named(name),
            argument,
            clauses,
        }
    }

    /// The directive becomes the one the table names `name`, its argument
    /// and clauses kept.
    pub fn rename(&mut self, name: &str) {
        self.entry = entry_named(name);
    }

    /// Canonical directive name from the table, words separated by one
    /// space: `parallel for`, `end parallel do`, `inst begin`.
    pub fn name(&self) -> &'static str {
        &self.spec().name
    }

    /// The table entry of this directive.
    pub fn spec(&self) -> &'static DirectiveSpec {
        &table().directive[usize::from(self.entry)]
    }

    /// The association of this occurrence. It differs from the table's in
    /// one case: in C and C++, `declare target` without clauses or list
    /// opens a region that `end declare target` closes.
    pub fn association(&self, language: Language) -> Association {
        let spec = self.spec();
        let opens_region = self.name() == "declare target"
            && !language.is_fortran()
            && self.argument.is_none()
            && self.clauses.is_empty();
        if opens_region {
            Association::BeginDeclarative
        } else {
            spec.association
        }
    }

    /// What the directive does if it is one of pomp's own.
    pub fn role(&self) -> Option<Role> {
        self.spec().role
    }

    /// A directive dividing its construct's block (`section`).
    pub fn is_separator(&self) -> bool {
        self.spec().association == Association::Separator
    }

    pub fn clause(&self, name: &str) -> Option<&Clause> {
        self.clauses.iter().find(|c| c.name == name)
    }

    pub fn has_clause(&self, name: &str) -> bool {
        self.clause(name).is_some()
    }

    /// The clauses the table does not know, kept as written: where they
    /// belong on the leaves of a compound directive is unknown too.
    pub fn unknown_clauses(&self) -> impl Iterator<Item = &Clause> {
        self.clauses
            .iter()
            .filter(|c| table().clause(&c.name).is_none())
    }

    /// The directive as source text after the sentinel: name, argument,
    /// clauses, each clause as written (modulo whitespace).
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out);
        out
    }

    /// [`Directive::render`], appended to `out`.
    pub fn render_into(&self, out: &mut String) {
        // Some table entries are a second form of a directive spelled the
        // same way (the standalone `ordered`): write that spelling.
        let spelling = self.spec().spelling();
        out.push_str(spelling);
        if let Some(arg) = &self.argument {
            out.push('(');
            out.push_str(arg);
            out.push(')');
        }
        for c in &self.clauses {
            out.push(' ');
            c.render_into(out);
        }
    }
}

impl Clause {
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        args: Option<impl Into<Cow<'static, str>>>,
    ) -> Clause {
        Clause {
            name: name.into(),
            args: args.map(Into::into),
        }
    }

    /// A clause without arguments: `nowait`.
    pub fn bare(name: impl Into<Cow<'static, str>>) -> Clause {
        Clause {
            name: name.into(),
            args: None,
        }
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out);
        out
    }

    /// [`Clause::render`], appended to `out`.
    pub fn render_into(&self, out: &mut String) {
        out.push_str(&self.name);
        if let Some(args) = &self.args {
            out.push('(');
            out.push_str(args);
            out.push(')');
        }
    }
}
