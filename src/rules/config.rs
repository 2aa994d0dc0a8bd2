//! What the rules need to know besides the model: which constructs to
//! instrument and for which interface.

use std::collections::BTreeSet;

/// Which events instrumented code calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventSet {
    /// OPARI2's events plus pomp's extended events for newer constructs.
    #[default]
    Extended,
    /// Only the events OPARI2 emits, for POMP2 libraries that know no more.
    Opari2,
}

/// Which measurement interface instrumented code calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Interface {
    #[default]
    Pomp2,
    /// The original 2002 proposal: `POMP_*` calls with static descriptors.
    Pomp1,
}

/// The choices that decide a file's plan.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Config {
    /// Constructs or groups (`sync`, `task`, `locks`, `omp`) left alone.
    pub disable: BTreeSet<String>,
    pub events: EventSet,
    pub interface: Interface,
    /// Keep `untied` on tasks and call the `Untied_task_*` events.
    pub keep_untied: bool,
}
