//! What a call-tree node measures. One region handle serves several events
//! (a combined `parallel for` uses the same handle for the fork, the loop
//! and its implicit barrier), so a node is keyed by region *and* kind.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Kind {
    /// The per-thread root of the call tree.
    Thread,
    Parallel,
    For,
    Do,
    Sections,
    Section,
    Single,
    SingleBody,
    Master,
    Masked,
    Critical,
    Atomic,
    Ordered,
    Workshare,
    Barrier,
    ImplicitBarrier,
    Flush,
    TaskCreate,
    Task,
    UntiedTaskCreate,
    UntiedTask,
    Taskwait,
    UserRegion,
    Taskgroup,
    Taskloop,
    Scope,
    Loop,
    Teams,
    Distribute,
    Target,
    Taskyield,
    Cancel,
    CancellationPoint,
    SetLock,
    SetNestLock,
    TestLock,
    TestNestLock,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Thread => "thread",
            Kind::Parallel => "parallel",
            Kind::For => "for",
            Kind::Do => "do",
            Kind::Sections => "sections",
            Kind::Section => "section",
            Kind::Single => "single",
            Kind::SingleBody => "single_body",
            Kind::Master => "master",
            Kind::Masked => "masked",
            Kind::Critical => "critical",
            Kind::Atomic => "atomic",
            Kind::Ordered => "ordered",
            Kind::Workshare => "workshare",
            Kind::Barrier => "barrier",
            Kind::ImplicitBarrier => "implicit_barrier",
            Kind::Flush => "flush",
            Kind::TaskCreate => "task_create",
            Kind::Task => "task",
            Kind::UntiedTaskCreate => "untied_task_create",
            Kind::UntiedTask => "untied_task",
            Kind::Taskwait => "taskwait",
            Kind::UserRegion => "region",
            Kind::Taskgroup => "taskgroup",
            Kind::Taskloop => "taskloop",
            Kind::Scope => "scope",
            Kind::Loop => "loop",
            Kind::Teams => "teams",
            Kind::Distribute => "distribute",
            Kind::Target => "target",
            Kind::Taskyield => "taskyield",
            Kind::Cancel => "cancel",
            Kind::CancellationPoint => "cancellation_point",
            Kind::SetLock => "set_lock",
            Kind::SetNestLock => "set_nest_lock",
            Kind::TestLock => "test_lock",
            Kind::TestNestLock => "test_nest_lock",
        }
    }

    /// Task instances are measured in their own subtree, apart from whatever
    /// region the executing thread was suspended in.
    pub fn is_task(self) -> bool {
        matches!(self, Kind::Task | Kind::UntiedTask)
    }
}
