//! Every function of the POMP2 interface that instrumented code calls, with
//! its C signature. The instrumenter writes prototypes and checks its rules
//! against this table; the runtime's entry points, with C and with gfortran
//! linkage, are generated from it.

/// A parameter's C type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// `POMP2_Region_handle*`: where the region's handle lives.
    RegionHandle,
    /// `const char*`: the region's CTC string.
    Ctc,
    /// `POMP2_Task_handle`.
    Task,
    /// `POMP2_Task_handle*`: where the library stores a task handle.
    TaskRef,
    /// `int`: an evaluated `if` or `num_threads`.
    Int,
    /// `omp_lock_t*`.
    Lock,
    /// `omp_nest_lock_t*`.
    NestLock,
}

impl Param {
    pub fn c_type(self) -> &'static str {
        match self {
            Param::RegionHandle => "POMP2_Region_handle*",
            Param::Ctc => "const char*",
            Param::Task => "POMP2_Task_handle",
            Param::TaskRef => "POMP2_Task_handle*",
            Param::Int => "int",
            Param::Lock => "omp_lock_t*",
            Param::NestLock => "omp_nest_lock_t*",
        }
    }
}

/// What an event function returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returns {
    Nothing,
    /// `int`: the lock tests.
    Int,
}

/// One function: `POMP2_<name>(params)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// The name after the interface's prefix: `Parallel_fork`.
    pub name: &'static str,
    pub params: &'static [Param],
    pub returns: Returns,
}

impl Event {
    /// The C prototype of the function called `function` for this event
    /// (`POMP2_Parallel_fork`).
    pub fn c_prototype(&self, function: &str) -> String {
        self.c_prototype_with(function, Param::c_type)
    }

    /// [`Event::c_prototype`] with each parameter's type as `c_type`
    /// names it.
    pub fn c_prototype_with(
        &self,
        function: &str,
        c_type: impl Fn(Param) -> &'static str,
    ) -> String {
        let params: Vec<&str> = self.params.iter().map(|&p| c_type(p)).collect();
        let params = if params.is_empty() {
            "void".to_string()
        } else {
            params.join(", ")
        };
        let returns = match self.returns {
            Returns::Nothing => "void",
            Returns::Int => "int",
        };
        format!("{returns} {function}({params});")
    }

    /// The function's symbol as C code calls it: `POMP2_Parallel_fork`.
    pub fn c_symbol(&self) -> String {
        format!("POMP2_{}", self.name)
    }

    /// The function's symbol as gfortran calls it: lowercase, with a
    /// trailing underscore (`pomp2_parallel_fork_`).
    pub fn fortran_symbol(&self) -> String {
        format!("pomp2_{}_", self.name.to_ascii_lowercase())
    }
}

/// Every symbol a library implementing the whole table defines: each
/// event with C and with gfortran linkage.
pub fn library_symbols() -> impl Iterator<Item = String> {
    EVENTS
        .iter()
        .flat_map(|event| [event.c_symbol(), event.fortran_symbol()])
}

use Param::*;

const fn event(name: &'static str, params: &'static [Param]) -> Event {
    Event {
        name,
        params,
        returns: Returns::Nothing,
    }
}

/// The POMP2 functions instrumented code calls, by name after `POMP2_`.
pub const EVENTS: &[Event] = &[
    event("Parallel_fork", &[RegionHandle, Int, Int, TaskRef, Ctc]),
    event("Parallel_begin", &[RegionHandle]),
    event("Parallel_end", &[RegionHandle]),
    event("Parallel_join", &[RegionHandle, Task]),
    event("For_enter", &[RegionHandle, Ctc]),
    event("For_exit", &[RegionHandle]),
    event("Do_enter", &[RegionHandle, Ctc]),
    event("Do_exit", &[RegionHandle]),
    event("Sections_enter", &[RegionHandle, Ctc]),
    event("Sections_exit", &[RegionHandle]),
    event("Section_begin", &[RegionHandle, Ctc]),
    event("Section_end", &[RegionHandle]),
    event("Single_enter", &[RegionHandle, Ctc]),
    event("Single_begin", &[RegionHandle]),
    event("Single_end", &[RegionHandle]),
    event("Single_exit", &[RegionHandle]),
    event("Workshare_enter", &[RegionHandle, Ctc]),
    event("Workshare_exit", &[RegionHandle]),
    event("Master_begin", &[RegionHandle, Ctc]),
    event("Master_end", &[RegionHandle]),
    event("Critical_enter", &[RegionHandle, Ctc]),
    event("Critical_begin", &[RegionHandle]),
    event("Critical_end", &[RegionHandle]),
    event("Critical_exit", &[RegionHandle]),
    event("Atomic_enter", &[RegionHandle, Ctc]),
    event("Atomic_exit", &[RegionHandle]),
    event("Ordered_enter", &[RegionHandle, Ctc]),
    event("Ordered_begin", &[RegionHandle]),
    event("Ordered_end", &[RegionHandle]),
    event("Ordered_exit", &[RegionHandle]),
    event("Barrier_enter", &[RegionHandle, TaskRef, Ctc]),
    event("Barrier_exit", &[RegionHandle, Task]),
    event("Implicit_barrier_enter", &[RegionHandle, TaskRef]),
    event("Implicit_barrier_exit", &[RegionHandle, Task]),
    event("Flush_enter", &[RegionHandle, Ctc]),
    event("Flush_exit", &[RegionHandle]),
    event(
        "Task_create_begin",
        &[RegionHandle, TaskRef, TaskRef, Int, Ctc],
    ),
    event("Task_create_end", &[RegionHandle, Task]),
    event("Task_begin", &[RegionHandle, Task]),
    event("Task_end", &[RegionHandle]),
    event(
        "Untied_task_create_begin",
        &[RegionHandle, TaskRef, TaskRef, Int, Ctc],
    ),
    event("Untied_task_create_end", &[RegionHandle, Task]),
    event("Untied_task_begin", &[RegionHandle, Task]),
    event("Untied_task_end", &[RegionHandle]),
    event("Taskwait_begin", &[RegionHandle, TaskRef, Ctc]),
    event("Taskwait_end", &[RegionHandle, Task]),
    // pomp's extended events, for constructs OPARI2 leaves alone.
    event("Masked_begin", &[RegionHandle, Ctc]),
    event("Masked_end", &[RegionHandle]),
    event("Taskgroup_enter", &[RegionHandle, Ctc]),
    event("Taskgroup_exit", &[RegionHandle]),
    // The interface description also names the taskgroup pair begin/end.
    event("Taskgroup_begin", &[RegionHandle, Ctc]),
    event("Taskgroup_end", &[RegionHandle]),
    event("Taskloop_enter", &[RegionHandle, Ctc]),
    event("Taskloop_exit", &[RegionHandle]),
    event("Taskyield_begin", &[RegionHandle, Ctc]),
    event("Taskyield_end", &[RegionHandle]),
    event("Scope_enter", &[RegionHandle, Ctc]),
    event("Scope_exit", &[RegionHandle]),
    event("Loop_enter", &[RegionHandle, Ctc]),
    event("Loop_exit", &[RegionHandle]),
    event("Teams_enter", &[RegionHandle, Ctc]),
    event("Teams_exit", &[RegionHandle]),
    event("Distribute_enter", &[RegionHandle, Ctc]),
    event("Distribute_exit", &[RegionHandle]),
    event("Target_enter", &[RegionHandle, Ctc]),
    event("Target_exit", &[RegionHandle]),
    event("Cancel", &[RegionHandle, Ctc]),
    event("Cancellation_point", &[RegionHandle, Ctc]),
    // User regions and control.
    event("Begin", &[RegionHandle, Ctc]),
    event("End", &[RegionHandle]),
    event("Init", &[]),
    event("Finalize", &[]),
    event("On", &[]),
    event("Off", &[]),
    // Registration.
    event("Assign_handle", &[RegionHandle, Ctc]),
    event("USER_Assign_handle", &[RegionHandle, Ctc]),
    // Instrumented Fortran takes a parallel region's default team size
    // from the library.
    Event {
        name: "Lib_get_max_threads",
        params: &[],
        returns: Returns::Int,
    },
    // The lock routines' wrappers.
    event("Init_lock", &[Lock]),
    event("Destroy_lock", &[Lock]),
    event("Set_lock", &[Lock]),
    event("Unset_lock", &[Lock]),
    Event {
        name: "Test_lock",
        params: &[Lock],
        returns: Returns::Int,
    },
    event("Init_nest_lock", &[NestLock]),
    event("Destroy_nest_lock", &[NestLock]),
    event("Set_nest_lock", &[NestLock]),
    event("Unset_nest_lock", &[NestLock]),
    Event {
        name: "Test_nest_lock",
        params: &[NestLock],
        returns: Returns::Int,
    },
];

/// The event called `name` (after the prefix).
pub fn find(name: &str) -> Option<&'static Event> {
    EVENTS.iter().find(|e| e.name == name)
}

/// The event that wraps the OpenMP lock routine `routine`, without the
/// interface's prefix: `omp_set_nest_lock` → `Set_nest_lock`. The routine
/// is named in lower case, as the OpenMP API spells it; whether the event
/// exists is for [`find`] to say.
pub fn lock_wrapper(routine: &str) -> String {
    let rest = routine.strip_prefix("omp_").unwrap_or(routine);
    let mut chars = rest.chars();
    match chars.next() {
        Some(c) => c.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lock_routine_has_its_wrapping_event() {
        for kind in ["lock", "nest_lock"] {
            for verb in ["init", "destroy", "set", "unset", "test"] {
                let routine = format!("omp_{verb}_{kind}");
                let event = find(&lock_wrapper(&routine)).expect(&routine);
                assert_eq!(event.name.to_ascii_lowercase(), routine["omp_".len()..]);
            }
        }
    }

    #[test]
    fn prototypes_spell_the_c_signatures() {
        assert_eq!(
            find("Parallel_fork").unwrap().c_prototype("POMP2_Parallel_fork"),
            "void POMP2_Parallel_fork(POMP2_Region_handle*, int, int, POMP2_Task_handle*, const char*);"
        );
        assert_eq!(
            find("Test_nest_lock")
                .unwrap()
                .c_prototype("POMP2_Test_nest_lock"),
            "int POMP2_Test_nest_lock(omp_nest_lock_t*);"
        );
        assert_eq!(
            find("Init").unwrap().c_prototype("POMP2_Init"),
            "void POMP2_Init(void);"
        );
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = EVENTS.iter().map(|e| e.name).collect();
        names.sort();
        let count = names.len();
        names.dedup();
        assert_eq!(names.len(), count);
    }
}
