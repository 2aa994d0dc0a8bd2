//! What every front end shares and the rest of pomp asks of one: the
//! [`FrontEnd`] contract, the state an editor's rereading keeps, the lock
//! routines every front end looks for, and the note each gives for calls it
//! leaves as written. The front ends import it; it imports none of them.

use crate::model::{Found, Model};
use crate::source::SourceFile;

/// The OpenMP lock routines whose calls are renamed to their POMP2 wrappers.
pub const LOCK_ROUTINES: &[&str] = &[
    "omp_init_lock",
    "omp_destroy_lock",
    "omp_set_lock",
    "omp_unset_lock",
    "omp_test_lock",
    "omp_init_nest_lock",
    "omp_destroy_nest_lock",
    "omp_set_nest_lock",
    "omp_unset_nest_lock",
    "omp_test_nest_lock",
];

/// A front end reads a source file into a model.
pub trait FrontEnd {
    fn name(&self) -> &'static str;

    /// Sites with their blocks, units, lock calls, jumps and diagnostics,
    /// in file order; `unit` and `parent` of sites may be left empty.
    fn read(&self, file: &SourceFile) -> Found;

    /// The complete model of `file`.
    fn analyse(&self, file: &SourceFile) -> Model {
        crate::model::complete(file, self.read(file))
    }

    /// [`FrontEnd::read`] of a new version of a text read before, as an
    /// editor reads its buffer after each change; the same model. A front
    /// end that can keeps what it needs of each reading in `last` and
    /// parses only what changed.
    fn read_again(&self, file: &SourceFile, _last: &mut LastReading) -> Found {
        self.read(file)
    }
}

/// What a front end keeps of its last reading of one buffer. Each front
/// end keeps its own kind of state here; one that finds another kind (the
/// buffer is now read by another front end) starts afresh, which costs a
/// parse from scratch, never a wrong reading.
#[derive(Default)]
pub struct LastReading {
    kept: Option<Box<dyn std::any::Any + Send + Sync>>,
}

impl LastReading {
    /// The state of type `T` kept here, made afresh if it holds none.
    pub fn kept<T: Default + Send + Sync + 'static>(&mut self) -> &mut T {
        if !self.kept.as_ref().is_some_and(|kept| kept.is::<T>()) {
            self.kept = Some(Box::new(T::default()));
        }
        (self.kept.as_mut())
            .and_then(|kept| kept.downcast_mut())
            .expect("the state was just made of this type")
    }

    /// Forgets the last reading: the next one starts afresh.
    pub fn clear(&mut self) {
        self.kept = None;
    }
}

/// The note a front end gives once per file for the calls of measured
/// functions (`--regions=calls=...`) it leaves as written: how many, the
/// first of them at `first`, and what `measured` calls look like.
pub(crate) fn calls_left_as_written(
    first: crate::source::Span,
    count: usize,
    measured: &str,
) -> crate::diagnostics::Diagnostic {
    let (calls, are) = match count {
        1 => ("call", "is"),
        _ => ("calls", "are"),
    };
    crate::diagnostics::Diagnostic::note(
        first,
        format!("{count} {calls} of measured functions {are} left as written"),
        "the first of them",
    )
    .with_note(format!("only {measured} is measured"))
}
