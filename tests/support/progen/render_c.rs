//! C source for a generated program.

use super::ast::*;
use super::clauses::{clause_text, default_none_list};
use super::measurement;
use std::fmt::Write as _;

pub fn render(program: &Program, headline: &str) -> String {
    let mut out = Writer::default();
    out.raw(&format!("/* {headline} */"));
    for line in measurement::header_lines(&program.measurement) {
        out.raw(&format!("/* {line} */"));
    }
    out.raw("#include <stdio.h>");
    out.raw("#ifdef _OPENMP");
    out.raw("#include <omp.h>");
    out.raw("omp_lock_t lk;");
    out.raw("omp_nest_lock_t nlk;");
    out.raw("#endif");
    let globals: Vec<String> = (0..GLOBALS).map(|g| format!("g{g}")).collect();
    out.raw(&format!("long long {};", globals.join(", ")));
    for (index, helper) in program.helpers.iter().enumerate() {
        out.raw(&format!(
            "static void helper{index}({});",
            helper_params(helper)
        ));
    }
    for (index, helper) in program.helpers.iter().enumerate() {
        out.raw(&format!(
            "static void helper{index}({})",
            helper_params(helper)
        ));
        out.raw("{");
        out.raw("    long long t = 0;");
        out.raw("    (void)t;");
        out.stmts(&helper.body, 1);
        out.raw("}");
    }
    for (index, kernel) in program.kernels.iter().enumerate() {
        out.raw(&format!("static long long kernel{index}(int n)"));
        out.raw("{");
        out.raw(&format!(
            "    long long r0 = 0, r1 = 0, lp = 0, t = 0, fp = {INPUT_VALUE}, lin = {LINEAR_START};"
        ));
        out.raw(&format!("    long long a[{SLOTS}] = {{0}};"));
        out.raw("    (void)t; (void)fp; (void)n;");
        out.stmts(&kernel.body, 1);
        out.raw("    {");
        out.raw("        long long sum = 3 * r0 + 5 * r1 + 11 * lp + 13 * lin;");
        out.raw(&format!(
            "        for (int k = 0; k < {SLOTS}; k++) sum += a[k] * (k % 7 + 1);"
        ));
        out.raw("        return sum;");
        out.raw("    }");
        out.raw("}");
    }
    out.raw("int main(void)");
    out.raw("{");
    out.raw("    omp_init_lock(&lk);");
    out.raw("    omp_init_nest_lock(&nlk);");
    for index in 0..program.kernels.len() {
        out.raw(&format!(
            "    printf(\"kernel{index} %lld\\n\", kernel{index}({PARAM_VALUE}));"
        ));
    }
    out.raw("    printf(\"globals %lld %lld %lld %lld\\n\", g0, g1, g2, g3);");
    out.raw("    omp_destroy_lock(&lk);");
    out.raw("    omp_destroy_nest_lock(&nlk);");
    out.raw(&format!("    return {};", program.exit_code));
    out.raw("}");
    out.text
}

fn helper_params(helper: &Helper) -> String {
    if helper.params.is_empty() {
        "void".to_string()
    } else {
        let params: Vec<String> = helper.params.iter().map(|d| format!("int i{d}")).collect();
        params.join(", ")
    }
}

pub fn var(v: Var) -> String {
    match v {
        Var::Global(g) => format!("g{g}"),
        Var::Reduction(r) => format!("r{r}"),
        Var::Slots => "a".into(),
        Var::Last => "lp".into(),
        Var::Input => "fp".into(),
        Var::Linear => "lin".into(),
        Var::Temp => "t".into(),
        Var::Param => "n".into(),
        Var::Index(d) => format!("i{d}"),
        Var::Lock => "lk".into(),
        Var::NestLock => "nlk".into(),
    }
}

fn expr(e: &Expr) -> String {
    let mut text = String::from("(");
    for (factor, v) in &e.terms {
        write!(text, "{factor} * {} + ", var(*v)).unwrap();
    }
    write!(text, "{})", e.constant).unwrap();
    text
}

fn cond(c: &Cond) -> String {
    match c {
        Cond::Even(d) => format!("i{d} % 2 == 0"),
        Cond::Below(d, k) => format!("i{d} < {k}"),
        Cond::ParamAbove(k) => format!("n > {k}"),
        Cond::True => "1 > 0".into(),
    }
}

fn target(t: &Target) -> String {
    match t {
        Target::Var(v) => var(*v),
        Target::Slot(index) => format!("a[{}]", expr(index)),
    }
}

fn update(u: &Update) -> String {
    match u.target {
        Target::Var(Var::Last | Var::Temp) => format!("{} = {};", target(&u.target), expr(&u.expr)),
        _ => format!("{} += {};", target(&u.target), expr(&u.expr)),
    }
}

fn directive_line(c: &Construct) -> String {
    let mut line = String::from("#pragma omp");
    for name in &c.names {
        line.push(' ');
        line.push_str(name);
    }
    for cl in &c.clauses {
        line.push(' ');
        line.push_str(&clause_text(cl, &var, &cond));
    }
    if c.clauses.contains(&Clause::DefaultNone) {
        for (sharing, v) in default_none_list(c, false) {
            write!(line, " {}({})", sharing.clause(), var(v)).unwrap();
        }
    }
    line
}

/// Whether a statement list of one statement can stand without braces
/// where C expects one statement. `before_else` rules out statements that
/// could swallow a following `else`.
fn stands_alone(stmts: &[Stmt], before_else: bool) -> bool {
    if stmts.len() != 1 {
        return false;
    }
    match &stmts[0] {
        Stmt::Assign(_) | Stmt::Print(_) | Stmt::Block(_) | Stmt::Break | Stmt::Continue => true,
        Stmt::Goto(_) | Stmt::Return(_) | Stmt::Call(..) => true,
        Stmt::Atomic(form, _) => *form != AtomicForm::Capture || !before_else,
        Stmt::If { .. } | Stmt::Loop { .. } | Stmt::Switch { .. } => !before_else,
        Stmt::Omp(c) => !before_else && c.body != Body::Standalone,
        _ => false,
    }
}

#[derive(Default)]
struct Writer {
    text: String,
}

impl Writer {
    fn raw(&mut self, line: &str) {
        self.text.push_str(line);
        self.text.push('\n');
    }

    fn line(&mut self, indent: usize, line: &str) {
        for _ in 0..indent {
            self.text.push_str("    ");
        }
        self.raw(line);
    }

    fn stmts(&mut self, stmts: &[Stmt], indent: usize) {
        for stmt in stmts {
            self.stmt(stmt, indent);
        }
    }

    /// A statement list where C takes one statement: bare when it is one
    /// statement that may stand alone, else in braces.
    fn body(&mut self, stmts: &[Stmt], indent: usize, before_else: bool) {
        if stands_alone(stmts, before_else) {
            self.stmt(&stmts[0], indent + 1);
        } else {
            self.line(indent, "{");
            self.stmts(stmts, indent + 1);
            self.line(indent, "}");
        }
    }

    fn stmt(&mut self, stmt: &Stmt, indent: usize) {
        match stmt {
            Stmt::Assign(u) => self.line(indent, &update(u)),
            Stmt::Atomic(form, u) => {
                let kind = match form {
                    AtomicForm::Bare => "",
                    AtomicForm::Update => " update",
                    AtomicForm::SeqCst => " seq_cst",
                    AtomicForm::Relaxed => " update relaxed",
                    AtomicForm::Capture => " capture",
                };
                self.line(indent, &format!("#pragma omp atomic{kind}"));
                if *form == AtomicForm::Capture {
                    self.line(indent, &format!("t = {}", update(u)));
                } else {
                    self.line(indent, &update(u));
                }
            }
            Stmt::Print(e) => self.line(
                indent,
                &format!("printf(\"p %lld\\n\", (long long){});", expr(e)),
            ),
            Stmt::Block(b) => {
                self.line(indent, "{");
                self.stmts(b, indent + 1);
                self.line(indent, "}");
            }
            Stmt::If {
                cond: c,
                then,
                otherwise,
            } => {
                self.line(indent, &format!("if ({})", cond(c)));
                self.body(then, indent, otherwise.is_some());
                if let Some(otherwise) = otherwise {
                    self.line(indent, "else");
                    self.body(otherwise, indent, false);
                }
            }
            Stmt::Loop {
                kind,
                depth,
                trips,
                body,
                ..
            } => {
                let i = format!("i{depth}");
                match kind {
                    SeqLoopKind::For => {
                        self.line(indent, &format!("for (int {i} = 0; {i} < {trips}; {i}++)"));
                        self.body(body, indent, false);
                    }
                    SeqLoopKind::While => {
                        self.line(indent, "{");
                        self.line(indent + 1, &format!("int {i} = -1;"));
                        self.line(indent + 1, &format!("while (++{i} < {trips})"));
                        self.body(body, indent + 1, false);
                        self.line(indent, "}");
                    }
                    SeqLoopKind::DoWhile => {
                        self.line(indent, "{");
                        self.line(indent + 1, &format!("int {i} = 0;"));
                        self.line(indent + 1, "do {");
                        self.stmts(body, indent + 2);
                        self.line(indent + 1, &format!("}} while (++{i} < {trips});"));
                        self.line(indent, "}");
                    }
                }
            }
            Stmt::Switch { depth, cases } => {
                self.line(
                    indent,
                    &format!("switch (i{depth} % {})", cases.len().max(1)),
                );
                self.line(indent, "{");
                for (number, (body, falls_through)) in cases.iter().enumerate() {
                    // Braces, because a standalone directive may not follow
                    // a case label directly.
                    self.line(indent, &format!("case {number}: {{"));
                    self.stmts(body, indent + 1);
                    if !falls_through {
                        self.line(indent + 1, "break;");
                    }
                    self.line(indent, "}");
                }
                self.line(indent, "default:");
                self.line(indent + 1, "break;");
                self.line(indent, "}");
            }
            Stmt::Break | Stmt::ExitNamed(_) => self.line(indent, "break;"),
            Stmt::Continue | Stmt::CycleNamed(_) => self.line(indent, "continue;"),
            Stmt::Goto(label) => self.line(indent, &format!("goto L{label};")),
            Stmt::Label(label) => self.line(0, &format!("L{label}:;")),
            Stmt::Return(Some(e)) => self.line(indent, &format!("return {};", expr(e))),
            Stmt::Return(None) => self.line(indent, "return;"),
            Stmt::UserRegion { name, body } => {
                self.line(indent, &format!("#pragma pomp inst begin({name})"));
                self.stmts(body, indent);
                self.line(indent, &format!("#pragma pomp inst end({name})"));
            }
            Stmt::Locked(kind, body) => {
                match kind {
                    LockKind::Set => self.line(indent, "omp_set_lock(&lk);"),
                    LockKind::Test => self.line(indent, "while (!omp_test_lock(&lk)) { }"),
                    LockKind::Nest => {
                        self.line(indent, "omp_set_nest_lock(&nlk);");
                        self.line(indent, "omp_set_nest_lock(&nlk);");
                    }
                }
                self.stmts(body, indent);
                match kind {
                    LockKind::Set | LockKind::Test => self.line(indent, "omp_unset_lock(&lk);"),
                    LockKind::Nest => {
                        self.line(indent, "omp_unset_nest_lock(&nlk);");
                        self.line(indent, "omp_unset_nest_lock(&nlk);");
                    }
                }
            }
            Stmt::Guarded(kind, body) => {
                match kind {
                    GuardKind::Ifdef => self.raw("#ifdef _OPENMP"),
                    GuardKind::IfElse => self.raw("#if defined(_OPENMP)"),
                }
                self.stmts(body, indent);
                if *kind == GuardKind::IfElse {
                    self.raw("#else");
                    self.stmts(body, indent);
                }
                self.raw("#endif");
            }
            Stmt::Call(index, args) => {
                let args: Vec<String> = args.iter().map(|d| format!("i{d}")).collect();
                self.line(indent, &format!("helper{index}({});", args.join(", ")));
            }
            Stmt::Omp(c) => self.construct(c, indent),
        }
    }

    fn construct(&mut self, c: &Construct, indent: usize) {
        self.line(indent, &directive_line(c));
        match &c.body {
            Body::Standalone => {}
            Body::Block(b) => self.body(b, indent, false),
            Body::Loop(nest) => {
                let mut level = indent;
                for (depth, trips) in &nest.loops {
                    self.line(
                        level,
                        &format!("for (int i{depth} = 0; i{depth} < {trips}; i{depth}++)"),
                    );
                    level += 1;
                }
                self.body(&nest.body, level - 1, false);
            }
            Body::Sections(sections, first_written) => {
                self.line(indent, "{");
                for (number, section) in sections.iter().enumerate() {
                    if number > 0 || *first_written {
                        self.line(indent + 1, "#pragma omp section");
                    }
                    self.body(section, indent + 1, false);
                }
                self.line(indent, "}");
            }
            Body::Workshare(_) => unreachable!("workshare is Fortran only"),
        }
    }
}
