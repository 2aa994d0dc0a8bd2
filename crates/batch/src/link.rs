//! How the programs built from a mirror are linked: what a tree's
//! Makefiles let a `make` command line add to their link commands.

use std::path::Path;

/// The variable through which `make VAR=...` reaches a tree's link
/// commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum MakeVariable {
    /// At the end of the link command, as make's built-in rules and most
    /// Makefiles put it.
    Ldlibs,
    /// At the end, in Makefiles of their own making.
    Libs,
    /// Before the objects: libraries there must be shared ones, or the
    /// linker has not yet seen what needs them.
    Ldflags,
}

impl MakeVariable {
    pub fn name(self) -> &'static str {
        match self {
            MakeVariable::Ldlibs => "LDLIBS",
            MakeVariable::Libs => "LIBS",
            MakeVariable::Ldflags => "LDFLAGS",
        }
    }
}

/// What the Makefiles of the tree at `root` say about linking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Makefiles {
    /// The tree has none.
    None,
    /// Every link command takes this variable (the first of LDLIBS, LIBS
    /// and LDFLAGS that every Makefile linking something uses).
    Use(MakeVariable),
    /// Some Makefile uses none of them: its link commands must be edited.
    UseNone,
}

/// Whether a file name is one `make` reads or a Makefile includes.
fn is_makefile(name: &str) -> bool {
    matches!(name, "Makefile" | "makefile" | "GNUmakefile") || name.ends_with(".mk")
}

/// Read the tree's Makefiles (those the ignore files leave in).
pub fn makefiles(root: &Path) -> Makefiles {
    let mut texts = Vec::new();
    for entry in ignore::WalkBuilder::new(root).build().flatten() {
        let is_file = entry.file_type().is_some_and(|t| t.is_file());
        if is_file && entry.file_name().to_str().is_some_and(is_makefile) {
            if let Ok(text) = std::fs::read_to_string(entry.path()) {
                texts.push(text);
            }
        }
    }
    decide(&texts)
}

/// The variable every Makefile that names one of them uses; a Makefile
/// naming none links through make's built-in rules, which use LDLIBS.
fn decide(texts: &[String]) -> Makefiles {
    if texts.is_empty() {
        return Makefiles::None;
    }
    let uses = |text: &str, variable: MakeVariable| {
        let name = variable.name();
        text.contains(&format!("$({name})")) || text.contains(&format!("${{{name}}}"))
    };
    let all = [
        MakeVariable::Ldlibs,
        MakeVariable::Libs,
        MakeVariable::Ldflags,
    ];
    // A Makefile that writes its own link commands names the compiler or
    // the linker in them; one that does not relies on the built-in rules.
    let writes_link_commands = |text: &str| {
        [
            "$(CC)", "$(CXX)", "$(FC)", "$(LD)", "${CC}", "${CXX}", "${FC}",
        ]
        .iter()
        .any(|c| text.contains(c))
    };
    let linking: Vec<&String> = texts.iter().filter(|t| writes_link_commands(t)).collect();
    if linking.is_empty() {
        return Makefiles::Use(MakeVariable::Ldlibs);
    }
    let usable = |variable: MakeVariable| linking.iter().all(|t| uses(t, variable));
    match all.into_iter().find(|&v| usable(v)) {
        Some(variable) => Makefiles::Use(variable),
        None => Makefiles::UseNone,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_every_link_command_takes() {
        let texts = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(decide(&[]), Makefiles::None);
        assert_eq!(
            decide(&texts(&["app: app.o\n"])),
            Makefiles::Use(MakeVariable::Ldlibs)
        );
        assert_eq!(
            decide(&texts(&[
                "app: a.o\n\t$(CC) $(LDFLAGS) a.o -o app $(LDLIBS)\n"
            ])),
            Makefiles::Use(MakeVariable::Ldlibs)
        );
        assert_eq!(
            decide(&texts(&["app: a.o\n\t$(CC) $(LDFLAGS) a.o -o app -lm\n"])),
            Makefiles::Use(MakeVariable::Ldflags)
        );
        assert_eq!(
            decide(&texts(&[
                "app: a.o\n\t$(CC) -o app a.o ${LIBS}\n",
                "b: b.o\n\t$(CXX) -o b b.o $(LIBS) $(LDLIBS)\n"
            ])),
            Makefiles::Use(MakeVariable::Libs)
        );
        assert_eq!(
            decide(&texts(&["app: a.o\n\t$(CC) -o app a.o -lm\n"])),
            Makefiles::UseNone
        );
    }
}
