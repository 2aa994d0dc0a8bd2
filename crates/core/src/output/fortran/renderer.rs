//! The renderer: the state every step of writing Fortran reads and
//! writes, and the names of what it declares.

use crate::edits::EditBuilder;
use crate::model::Model;
use crate::output::writing::Config;
use crate::rules::{Interface, NamedPlan, Region};
use crate::source::SourceFile;
use std::collections::{BTreeMap, BTreeSet};

pub(super) struct Renderer<'a> {
    pub(super) file: &'a SourceFile,
    pub(super) model: &'a Model,
    pub(super) plan: &'a NamedPlan,
    pub(super) config: &'a Config,
    pub(super) fixed_form: bool,
    pub(super) edits: EditBuilder,
    /// Per unit index.
    pub(super) needs: BTreeMap<usize, UnitNeeds>,
    /// For each construct (index into [`Plan::constructs`]) with a
    /// `default` clause other than `default(shared)`: the variables of
    /// inserted code that its region holds.
    pub(super) private_vars: BTreeMap<usize, BTreeSet<&'static str>>,
}

impl Renderer<'_> {
    /// The marker resuming the numbering of the input's line `line`
    /// (physical, 1-based) as the input's own markers give it.
    pub(super) fn line_marker(&self, line: usize) -> String {
        if !self.config.line_markers {
            String::new()
        } else {
            self.file.line_marker(line)
        }
    }

    /// Each handle lives in a common block of its own, so that a unit
    /// declares only the handles it uses (a common block must have the
    /// same size everywhere): output grows with the regions, not with
    /// regions times units.
    pub(super) fn common_block(&self, region: &Region) -> String {
        let stem = match self.plan.interface {
            Interface::Pomp2 => "pomp2_cb",
            // The region's index in the link-time table.
            Interface::Pomp1 => "pomp_id",
            Interface::Pomp1Paper => "pomp_rd_cb",
        };
        format!("{stem}_{}_{}", self.plan.unique, region.id)
    }

    /// The original interface's context descriptor of a region, and the
    /// common block that holds it.
    pub(super) fn descriptor(&self, region: &Region) -> (String, String) {
        (
            format!("pomp_rd_{}", region.id),
            format!("pomp_rd_cb_{}_{}", self.plan.unique, region.id),
        )
    }

    /// The region whose handle (or descriptor) is `name`.
    pub(super) fn region_of_handle(&self, name: &str) -> Option<usize> {
        let name = name.trim();
        let id: usize = name.rsplit('_').next()?.parse().ok()?;
        let index = id.checked_sub(1)?;
        (self.plan.regions.get(index)?.handle == name).then_some(index)
    }
}

/// What a program unit must declare for the code inserted into it.
#[derive(Default)]
pub(super) struct UnitNeeds {
    /// Regions (indexes into [`Plan::regions`]) whose handle or CTC it uses.
    pub(super) regions: BTreeSet<usize>,
    pub(super) old_task: bool,
    pub(super) new_task: bool,
    pub(super) num_threads: bool,
    pub(super) if_value: bool,
    /// It calls `pomp2_lib_get_max_threads`.
    pub(super) max_threads: bool,
    /// It keeps the maximum number of threads for parallel regions in
    /// `teams` ([`Var::MaxThreads`]).
    pub(super) teams_max_threads: bool,
    /// Lock test functions it calls: they return a logical.
    pub(super) lock_tests: BTreeSet<String>,
    /// It starts parallel regions that copy in the library's
    /// thread-private variable.
    pub(super) thread_private: bool,
}

impl UnitNeeds {
    /// Adds what `other` needs.
    pub(super) fn add(&mut self, other: &UnitNeeds) {
        self.regions.extend(&other.regions);
        self.old_task |= other.old_task;
        self.new_task |= other.new_task;
        self.num_threads |= other.num_threads;
        self.if_value |= other.if_value;
        self.max_threads |= other.max_threads;
        self.teams_max_threads |= other.teams_max_threads;
        self.lock_tests.extend(other.lock_tests.iter().cloned());
        self.thread_private |= other.thread_private;
    }
}
