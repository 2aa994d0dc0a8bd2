//! What the rules need to know besides the model: which constructs to
//! instrument and for which interface.

use std::collections::BTreeSet;

pub use pomp2::{EventSet, Interface};

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
}
