//! What the rules need to know besides the model: which constructs to
//! instrument and for which interface and library.

use std::collections::BTreeSet;
use std::sync::Arc;

pub use pomp2::{EventSet, Interface};

/// The name Fortran code gives the library's thread-private variable, in
/// a common block of the same name.
pub const FORTRAN_THREAD_PRIVATE: &str = "pomp_tpd";

/// The choices that decide a file's plan.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Config {
    /// Constructs or groups (`sync`, `task`, `locks`, `omp`) left alone.
    pub disable: BTreeSet<String>,
    pub events: EventSet,
    pub interface: Interface,
    /// Keep `untied` on tasks and call the `Untied_task_*` events.
    pub keep_untied: bool,
    /// Regions left exactly as written (`--filter`).
    pub filter: crate::filter::Filter,
    /// Constructs or groups measured only from outside: their calls inside
    /// the construct (`begin`, `end`) are left out (OPARI2's
    /// `--disable=omp:NAME:inner`).
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub outside_only: BTreeSet<String>,
    /// A thread-private variable of the measurement library that every
    /// parallel region copies in from the thread that starts it (OPARI2's
    /// `--omp-tpd`): its C name (Fortran code names it `pomp_tpd`, in a
    /// common block of that name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_private: Option<String>,
    /// Remove every `task` directive, its block run where it stands
    /// (OPARI2's `--omp-task=remove`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub remove_tasks: bool,
    /// Leave every closing barrier implicit and unmeasured, the worksharing
    /// constructs' and the parallel regions': what OPARI2's `--disable=omp`
    /// keeps of a parallel region is its fork, begin, end and join alone.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub barriers_left_implicit: bool,
    /// The measurement library the program links, when it is not pomp's
    /// runtime: only what it defines is called, in OPARI2's structure.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "shared_library"
    )]
    pub library: Option<Arc<Library>>,
}

fn shared_library<S: serde::Serializer>(
    library: &Option<Arc<Library>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&library.as_deref(), serializer)
}

/// What a measurement library other than pomp's runtime implements, read
/// from its symbols.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Library {
    /// Where it was read from, for messages.
    pub name: String,
    /// The events C code may call, by their names after the interface's
    /// prefix, in lower case (`parallel_fork`).
    pub c_events: BTreeSet<String>,
    /// The same for Fortran code (`pomp2_parallel_fork_` gives
    /// `parallel_fork`).
    pub fortran_events: BTreeSet<String>,
}

impl Library {
    /// Does the library define `event` (a name after the prefix, as the
    /// rules spell it) for code in Fortran (`fortran`) or C?
    pub fn defines(&self, event: &str, fortran: bool) -> bool {
        let events = if fortran {
            &self.fortran_events
        } else {
            &self.c_events
        };
        events.contains(&event.to_ascii_lowercase())
    }

    /// Reads the events a library defines from its defined symbols, for
    /// `interface`: `POMP2_Parallel_fork` and `pomp2_parallel_fork_` for
    /// POMP2; `pomp_parallel_fork` and `pomp_parallel_fork_` (OPARI 1.1's
    /// library), or `POMP_Parallel_fork` (the 2002 paper's spelling), for
    /// the original interface.
    pub fn from_symbols<'s>(
        name: &str,
        interface: Interface,
        symbols: impl IntoIterator<Item = &'s str>,
    ) -> Library {
        let c_prefix = match interface {
            Interface::Pomp2 => "POMP2_",
            Interface::Pomp1 => "pomp_",
            Interface::Pomp1Paper => "POMP_",
        };
        let fortran_prefix = match interface {
            Interface::Pomp2 => "pomp2_",
            Interface::Pomp1 | Interface::Pomp1Paper => "pomp_",
        };
        let mut library = Library {
            name: name.to_owned(),
            ..Library::default()
        };
        for symbol in symbols {
            if let Some(event) = symbol
                .strip_prefix(fortran_prefix)
                .and_then(|rest| rest.strip_suffix('_'))
                .filter(|event| !event.bytes().any(|b| b.is_ascii_uppercase()))
            {
                library.fortran_events.insert(event.to_owned());
            }
            if let Some(event) = symbol.strip_prefix(c_prefix) {
                library.c_events.insert(event.to_ascii_lowercase());
            }
        }
        library
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_library_s_events_are_read_from_its_symbols_in_each_spelling() {
        let pomp2 = Library::from_symbols(
            "libpomp.a",
            Interface::Pomp2,
            [
                "POMP2_Parallel_fork",
                "pomp2_do_enter_",
                "my_pomp2_regions",
                "omp_set_lock",
            ],
        );
        assert!(pomp2.defines("Parallel_fork", false) && !pomp2.defines("Parallel_fork", true));
        assert!(pomp2.defines("Do_enter", true) && !pomp2.defines("Do_enter", false));
        assert_eq!(pomp2.c_events.len() + pomp2.fortran_events.len(), 2);
        let opari = Library::from_symbols(
            "libpomp.a",
            Interface::Pomp1,
            ["pomp_for_enter", "pomp_do_enter_", "POMP_Ordered_enter"],
        );
        assert!(opari.defines("For_enter", false) && opari.defines("Do_enter", true));
        assert!(!opari.defines("Ordered_enter", false));
        let paper = Library::from_symbols("libx.a", Interface::Pomp1Paper, ["POMP_Ordered_enter"]);
        assert!(paper.defines("Ordered_enter", false));
    }
}
