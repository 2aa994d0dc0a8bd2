//! Fortran source for a generated program, in free or fixed form. Both
//! forms are written from the same lines; only the columns, the sentinels
//! and the continuation style differ.

use super::ast::*;
use super::clauses::{clause_text, default_none_list};
use super::measurement;

/// Every unit declares the loop indices up to this depth.
const MAX_DEPTH: u8 = 16;

pub fn render(program: &Program, headline: &str) -> String {
    let fixed = program.lang == Lang::FortranFixed;
    let mut out = Writer {
        lines: Vec::new(),
        next_do_label: 900,
        next_loop_name: 1,
        loop_names: Vec::new(),
    };
    out.comment(headline);
    for line in measurement::header_lines(&program.measurement) {
        out.comment(&line);
    }
    out.code(0, "module pomp_generated_globals");
    out.code(1, "use omp_lib");
    out.code(1, "implicit none");
    let globals: Vec<String> = (0..GLOBALS).map(|g| format!("g{g} = 0")).collect();
    out.code(1, &format!("integer(8) :: {}", globals.join(", ")));
    out.code(1, "integer(omp_lock_kind) :: lk");
    out.code(1, "integer(omp_nest_lock_kind) :: nlk");
    out.code(0, "end module pomp_generated_globals");
    for (index, helper) in program.helpers.iter().enumerate() {
        let params: Vec<String> = helper.params.iter().map(|d| format!("i{d}")).collect();
        out.code(
            0,
            &format!("subroutine helper{index}({})", params.join(", ")),
        );
        out.code(1, "use pomp_generated_globals");
        out.code(1, "implicit none");
        if !params.is_empty() {
            out.code(1, &format!("integer, intent(in) :: {}", params.join(", ")));
        }
        let locals: Vec<String> = (1..=MAX_DEPTH)
            .filter(|d| !helper.params.contains(d))
            .map(|d| format!("i{d}"))
            .collect();
        out.code(1, &format!("integer :: {}", locals.join(", ")));
        out.code(1, "integer(8) :: t");
        out.code(1, "t = 0");
        out.stmts(&helper.body, 1);
        out.code(0, &format!("end subroutine helper{index}"));
    }
    for (index, kernel) in program.kernels.iter().enumerate() {
        out.code(0, &format!("function kernel{index}(n) result(res)"));
        out.code(1, "use pomp_generated_globals");
        out.code(1, "implicit none");
        out.code(1, "integer, intent(in) :: n");
        out.code(1, "integer(8) :: res, r0, r1, lp, t, fp, lin");
        out.code(1, &format!("integer(8) :: a(0:{})", SLOTS - 1));
        let indices: Vec<String> = (1..=MAX_DEPTH).map(|d| format!("i{d}")).collect();
        out.code(1, &format!("integer :: k, {}", indices.join(", ")));
        out.code(1, "r0 = 0");
        out.code(1, "r1 = 0");
        out.code(1, "lp = 0");
        out.code(1, "t = 0");
        out.code(1, &format!("fp = {INPUT_VALUE}"));
        out.code(1, &format!("lin = {LINEAR_START}"));
        out.code(1, "a = 0");
        out.stmts(&kernel.body, 1);
        out.code(1, "res = 3 * r0 + 5 * r1 + 11 * lp + 13 * lin");
        out.code(1, &format!("do k = 0, {}", SLOTS - 1));
        out.code(2, "res = res + a(k) * (mod(k, 7) + 1)");
        out.code(1, "end do");
        out.code(0, &format!("end function kernel{index}"));
    }
    out.code(0, "program main");
    out.code(1, "use pomp_generated_globals");
    out.code(1, "implicit none");
    let kernels: Vec<String> = (0..program.kernels.len())
        .map(|k| format!("kernel{k}"))
        .collect();
    out.code(
        1,
        &format!("integer(8), external :: {}", kernels.join(", ")),
    );
    out.code(1, "integer(8) :: value");
    out.code(1, "call omp_init_lock(lk)");
    out.code(1, "call omp_init_nest_lock(nlk)");
    for kernel in &kernels {
        out.code(1, &format!("value = {kernel}({PARAM_VALUE})"));
        out.code(1, &format!("print '(a,i0)', '{kernel} ', value"));
    }
    out.code(1, "print '(a,4(1x,i0))', 'globals', g0, g1, g2, g3");
    out.code(1, "call omp_destroy_lock(lk)");
    out.code(1, "call omp_destroy_nest_lock(nlk)");
    if program.exit_code != 0 {
        out.code(1, &format!("stop {}", program.exit_code));
    }
    out.code(0, "end program main");
    let mut text = String::new();
    for line in &out.lines {
        if fixed {
            format_fixed(line, &mut text);
        } else {
            format_free(line, &mut text);
        }
    }
    text
}

fn var(v: Var) -> String {
    super::render_c::var(v)
}

fn expr(e: &Expr) -> String {
    let mut text = String::from("(");
    for (factor, v) in &e.terms {
        text.push_str(&format!("{factor} * {} + ", var(*v)));
    }
    text.push_str(&format!("{})", e.constant));
    text
}

fn cond(c: &Cond) -> String {
    match c {
        Cond::Even(d) => format!("mod(i{d}, 2) == 0"),
        Cond::Below(d, k) => format!("i{d} < {k}"),
        Cond::ParamAbove(k) => format!("n > {k}"),
        Cond::True => "1 > 0".into(),
    }
}

fn target(t: &Target) -> String {
    match t {
        Target::Var(v) => var(*v),
        Target::Slot(index) => format!("a{}", expr(index)),
    }
}

fn update(u: &Update) -> String {
    match u.target {
        Target::Var(Var::Last | Var::Temp) => format!("{} = {}", target(&u.target), expr(&u.expr)),
        _ => format!("{0} = {0} + {1}", target(&u.target), expr(&u.expr)),
    }
}

/// The directive name as Fortran spells it.
fn names(c: &Construct) -> String {
    let names: Vec<&str> = c
        .names
        .iter()
        .map(|n| if *n == "for" { "do" } else { n })
        .collect();
    names.join(" ")
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Code,
    /// An OpenMP or pomp directive; the text starts after the sentinel.
    Directive(&'static str),
    /// A `!$` conditional compilation line.
    Conditional,
    Comment,
}

struct Line {
    kind: Kind,
    label: Option<u32>,
    indent: usize,
    text: String,
}

struct Writer {
    lines: Vec<Line>,
    next_do_label: u32,
    /// Construct names must be unique in a program unit; these are, in
    /// the whole file. The stack maps loop depths to the names in scope.
    next_loop_name: u32,
    loop_names: Vec<(u8, String)>,
}

/// Whether a one-statement list can be the action of a logical `if`.
fn simple(stmts: &[Stmt]) -> bool {
    stmts.len() == 1
        && matches!(
            stmts[0],
            Stmt::Assign(_)
                | Stmt::Print(_)
                | Stmt::Call(..)
                | Stmt::Break
                | Stmt::Continue
                | Stmt::ExitNamed(_)
                | Stmt::CycleNamed(_)
                | Stmt::Goto(_)
                | Stmt::Return(None)
        )
}

impl Writer {
    fn push(&mut self, kind: Kind, label: Option<u32>, indent: usize, text: &str) {
        self.lines.push(Line {
            kind,
            label,
            indent,
            text: text.to_string(),
        });
    }

    fn code(&mut self, indent: usize, text: &str) {
        self.push(Kind::Code, None, indent, text);
    }

    fn omp(&mut self, indent: usize, text: &str) {
        self.push(Kind::Directive("omp"), None, indent, text);
    }

    fn comment(&mut self, text: &str) {
        self.push(Kind::Comment, None, 0, text);
    }

    fn loop_name(&self, depth: u8) -> String {
        self.loop_names
            .iter()
            .rev()
            .find(|(d, _)| *d == depth)
            .map(|(_, name)| name.clone())
            .expect("exit and cycle name an enclosing loop")
    }

    fn stmts(&mut self, stmts: &[Stmt], indent: usize) {
        for stmt in stmts {
            self.stmt(stmt, indent);
        }
    }

    /// The text of a statement that fits on one line.
    fn simple_text(&self, stmt: &Stmt) -> String {
        match stmt {
            Stmt::Assign(u) => update(u),
            Stmt::Print(e) => format!("print '(a,i0)', 'p ', {}", expr(e)),
            Stmt::Call(index, args) => {
                let args: Vec<String> = args.iter().map(|d| format!("i{d}")).collect();
                format!("call helper{index}({})", args.join(", "))
            }
            Stmt::Break => "exit".into(),
            Stmt::Continue => "cycle".into(),
            Stmt::ExitNamed(d) => format!("exit {}", self.loop_name(*d)),
            Stmt::CycleNamed(d) => format!("cycle {}", self.loop_name(*d)),
            Stmt::Goto(label) => format!("go to {}", 100 + label),
            Stmt::Return(None) => "return".into(),
            other => unreachable!("not a simple statement: {other:?}"),
        }
    }

    fn stmt(&mut self, stmt: &Stmt, indent: usize) {
        match stmt {
            Stmt::Assign(_)
            | Stmt::Print(_)
            | Stmt::Call(..)
            | Stmt::Break
            | Stmt::Continue
            | Stmt::ExitNamed(_)
            | Stmt::CycleNamed(_)
            | Stmt::Goto(_)
            | Stmt::Return(None) => {
                let text = self.simple_text(stmt);
                self.code(indent, &text);
            }
            Stmt::Return(Some(e)) => {
                self.code(indent, &format!("res = {}", expr(e)));
                self.code(indent, "return");
            }
            Stmt::Atomic(form, u) => {
                let clause = match form {
                    AtomicForm::Bare => "",
                    AtomicForm::Update => " update",
                    AtomicForm::SeqCst => " seq_cst",
                    AtomicForm::Relaxed => " update relaxed",
                    AtomicForm::Capture => " capture",
                };
                self.omp(indent, &format!("atomic{clause}"));
                self.code(indent, &update(u));
                if *form == AtomicForm::Capture {
                    self.code(indent, &format!("t = {}", target(&u.target)));
                    self.omp(indent, "end atomic");
                }
            }
            Stmt::Block(b) => self.stmts(b, indent),
            Stmt::If {
                cond: c,
                then,
                otherwise,
            } => {
                if otherwise.is_none() && simple(then) {
                    let text = format!("if ({}) {}", cond(c), self.simple_text(&then[0]));
                    self.code(indent, &text);
                    return;
                }
                self.code(indent, &format!("if ({}) then", cond(c)));
                self.stmts(then, indent + 1);
                if let Some(otherwise) = otherwise {
                    self.code(indent, "else");
                    self.stmts(otherwise, indent + 1);
                }
                self.code(indent, "end if");
            }
            Stmt::Loop {
                kind,
                depth,
                trips,
                named,
                body,
            } => {
                let header = format!("i{depth} = 0, {}", trips - 1);
                if *named {
                    let name = format!("loop{}", self.next_loop_name);
                    self.next_loop_name += 1;
                    self.code(indent, &format!("{name}: do {header}"));
                    self.loop_names.push((*depth, name.clone()));
                    self.stmts(body, indent + 1);
                    self.loop_names.pop();
                    self.code(indent, &format!("end do {name}"));
                } else if *kind == SeqLoopKind::DoWhile {
                    // The labelled form of the DO statement, ended by a
                    // labelled CONTINUE.
                    let label = self.next_do_label;
                    self.next_do_label += 1;
                    self.code(indent, &format!("do {label} {header}"));
                    self.stmts(body, indent + 1);
                    self.push(Kind::Code, Some(label), indent, "continue");
                } else if *kind == SeqLoopKind::While {
                    self.code(indent, &format!("do {header}, 1"));
                    self.stmts(body, indent + 1);
                    self.code(indent, "enddo");
                } else {
                    self.code(indent, &format!("do {header}"));
                    self.stmts(body, indent + 1);
                    self.code(indent, "end do");
                }
            }
            Stmt::Switch { .. } => unreachable!("switch is C only"),
            Stmt::Label(label) => self.push(Kind::Code, Some(100 + label), indent, "continue"),
            Stmt::UserRegion { name, body } => {
                self.push(
                    Kind::Directive("pomp"),
                    None,
                    indent,
                    &format!("inst begin({name})"),
                );
                self.stmts(body, indent);
                self.push(
                    Kind::Directive("pomp"),
                    None,
                    indent,
                    &format!("inst end({name})"),
                );
            }
            Stmt::Locked(kind, body) => {
                match kind {
                    LockKind::Set => self.code(indent, "call omp_set_lock(lk)"),
                    LockKind::Test => {
                        self.code(indent, "do while (.not. omp_test_lock(lk))");
                        self.code(indent, "end do");
                    }
                    LockKind::Nest => {
                        self.code(indent, "call omp_set_nest_lock(nlk)");
                        self.code(indent, "call omp_set_nest_lock(nlk)");
                    }
                }
                self.stmts(body, indent);
                match kind {
                    LockKind::Set | LockKind::Test => self.code(indent, "call omp_unset_lock(lk)"),
                    LockKind::Nest => {
                        self.code(indent, "call omp_unset_nest_lock(nlk)");
                        self.code(indent, "call omp_unset_nest_lock(nlk)");
                    }
                }
            }
            Stmt::Guarded(_, body) => {
                for stmt in body {
                    let text = self.simple_text(stmt);
                    self.push(Kind::Conditional, None, indent, &text);
                }
            }
            Stmt::Omp(c) => self.construct(c, indent),
        }
    }

    fn begin_directive(&mut self, c: &Construct, indent: usize) {
        let mut text = names(c);
        for clause in &c.clauses {
            if *clause == Clause::Nowait {
                continue;
            }
            text.push(' ');
            text.push_str(&clause_text(clause, &var, &cond));
        }
        if c.clauses.contains(&Clause::DefaultNone) {
            for (sharing, v) in default_none_list(c, true) {
                text.push_str(&format!(" {}({})", sharing.clause(), var(v)));
            }
        }
        self.omp(indent, &text);
    }

    fn end_directive(&mut self, c: &Construct, indent: usize) {
        let mut text = format!("end {}", names(c));
        for clause in &c.clauses {
            if let Clause::CriticalName(name) = clause {
                text.push_str(&format!(" ({name})"));
            }
        }
        if c.clauses.contains(&Clause::Nowait) {
            text.push_str(" nowait");
        }
        self.omp(indent, &text);
    }

    fn construct(&mut self, c: &Construct, indent: usize) {
        self.begin_directive(c, indent);
        match &c.body {
            Body::Standalone => {}
            Body::Block(b) => {
                self.stmts(b, indent + 1);
                self.end_directive(c, indent);
            }
            Body::Loop(nest) => {
                let mut level = indent;
                for (depth, trips) in &nest.loops {
                    self.code(level, &format!("do i{depth} = 0, {}", trips - 1));
                    level += 1;
                }
                self.stmts(&nest.body, level);
                for _ in &nest.loops {
                    level -= 1;
                    self.code(level, "end do");
                }
                if c.end_directive {
                    self.end_directive(c, indent);
                }
            }
            Body::Sections(sections, first_written) => {
                for (number, section) in sections.iter().enumerate() {
                    if number > 0 || *first_written {
                        self.omp(indent, "section");
                    }
                    self.stmts(section, indent + 1);
                }
                self.end_directive(c, indent);
            }
            Body::Workshare(stmts) => {
                for s in stmts {
                    match s {
                        WorkshareStmt::ArrayAdd(k) => {
                            self.code(indent + 1, &format!("a = a + {k}"))
                        }
                        WorkshareStmt::Atomic(u) => {
                            self.omp(indent + 1, "atomic");
                            self.code(indent + 1, &update(u));
                        }
                    }
                }
                self.end_directive(c, indent);
            }
        }
    }
}

const FREE_WIDTH: usize = 100;
/// Fixed form reads columns 7 to 72 only.
const FIXED_LAST_COLUMN: usize = 72;

fn format_free(line: &Line, out: &mut String) {
    let pad = "  ".repeat(line.indent);
    let (first, continuation) = match line.kind {
        Kind::Comment => {
            out.push_str(&format!("! {}\n", line.text));
            return;
        }
        Kind::Code => {
            let label = line.label.map(|l| format!("{l} ")).unwrap_or_default();
            (format!("{label}{pad}"), format!("{pad}  & "))
        }
        Kind::Directive(sentinel) => (
            format!("{pad}!${sentinel} "),
            format!("{pad}!${sentinel}& "),
        ),
        Kind::Conditional => (format!("{pad}!$ "), format!("{pad}!$ & ")),
    };
    let chunks = split_at_spaces(
        &line.text,
        FREE_WIDTH - first.len().max(continuation.len()) - 2,
    );
    for (index, chunk) in chunks.iter().enumerate() {
        let start = if index == 0 { &first } else { &continuation };
        let more = if index + 1 < chunks.len() { " &" } else { "" };
        out.push_str(&format!("{start}{chunk}{more}\n"));
    }
}

fn format_fixed(line: &Line, out: &mut String) {
    let pad = " ".repeat(line.indent);
    let (first, continuation) = match line.kind {
        Kind::Comment => {
            out.push_str(&format!("C {}\n", line.text));
            return;
        }
        Kind::Code => {
            let label = line.label.map(|l| l.to_string()).unwrap_or_default();
            (format!("{label:<5} {pad}"), format!("     &{pad}"))
        }
        // OpenMP's fixed-form sentinel fills columns 1-5 and a
        // continuation puts a character in column 6; pomp's is 6 long.
        Kind::Directive("omp") => (format!("C$OMP {pad}"), format!("C$OMP+{pad}")),
        Kind::Directive(_) => (format!("C$POMP {pad}"), format!("C$POMP+{pad}")),
        Kind::Conditional => (format!("!$    {pad}"), format!("!$   &{pad}")),
    };
    let width = FIXED_LAST_COLUMN - first.len().max(continuation.len());
    for (index, chunk) in split_at_spaces(&line.text, width).iter().enumerate() {
        let start = if index == 0 { &first } else { &continuation };
        out.push_str(&format!("{start}{chunk}\n"));
    }
}

/// Splits a line into pieces of at most `width` characters, at spaces.
fn split_at_spaces(text: &str, width: usize) -> Vec<String> {
    let mut chunks = vec![String::new()];
    for word in text.split(' ') {
        let current = chunks.last_mut().unwrap();
        if !current.is_empty() && current.len() + 1 + word.len() > width {
            chunks.push(word.to_string());
        } else {
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(word);
        }
    }
    chunks
}
