//! One pass over the profiles of a run: each profile, as it is read, is
//! checked to belong to the run and to its build, joined to the catalog,
//! and its figures handed to the report and to every export asked for;
//! then it is dropped. What is kept grows with the run's regions and call
//! paths, and with its ranks only by a few numbers each.

use crate::analysis::{self, figures, Report};
use crate::export;
use crate::inputs::Inputs;
use crate::join::{build_difference, build_of, Catalog, Matching, OneRun};
use crate::load::{Descriptors, Error, Run};
use crate::render::{spans::Timelines, speedscope};
use crate::Options;
use pomp2::trace::Trace;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// What the pass makes, besides the report.
pub struct Gathered {
    pub report: Report,
    pub cube: Option<export::cube::Builder>,
    pub timelines: Timelines,
    pub speedscope: Option<speedscope::Builder>,
    /// The trace of the run's only profile, when it is to be converted to
    /// Chrome trace JSON.
    pub only: Option<Trace>,
    /// The OTF2 archive of every rank's trace, to be finished.
    pub otf2: Option<export::otf2::Archive>,
}

pub struct Gathering<'a> {
    descriptors: &'a Descriptors,
    baseline: Option<&'a Run>,
    /// Made from the first profile, whose build decides how regions match.
    catalog: Option<Catalog>,
    build: BTreeSet<String>,
    first: PathBuf,
    one_run: OneRun,
    report: analysis::Builder,
    cube: Option<export::cube::Builder>,
    timelines: Option<Timelines>,
    speedscope: Option<speedscope::Builder>,
    chrome: bool,
    only: Option<Trace>,
    otf2: Option<export::otf2::Archive>,
}

impl<'a> Gathering<'a> {
    /// Starts the pass; an OTF2 archive asked for is started too, so that a
    /// missing OTF2 library is said before any profile is read.
    pub fn new(
        options: &Options,
        inputs: &Inputs,
        descriptors: &'a Descriptors,
        baseline: Option<&'a Run>,
    ) -> Result<Self, Error> {
        let experiment = inputs.experiment.as_ref();
        // Traces named are converted instead of the profiles'.
        let converts = inputs.traces.is_empty();
        let otf2 = (options.otf2.as_deref().filter(|_| converts))
            .map(|dir| export::otf2::Archive::create(dir, experiment, inputs.profiles.len()));
        Ok(Gathering {
            descriptors,
            baseline,
            catalog: None,
            build: BTreeSet::new(),
            first: PathBuf::new(),
            one_run: OneRun::default(),
            report: analysis::Builder::of_run(analysis::RunInfo::of(inputs)),
            cube: options.cube.as_ref().map(|_| Default::default()),
            timelines: options.html.as_ref().map(|_| Default::default()),
            speedscope: options.speedscope.as_ref().map(|_| Default::default()),
            chrome: options.chrome.is_some() && converts,
            only: None,
            otf2: otf2.transpose()?,
        })
    }

    /// Takes the next profile of the run.
    pub fn add(&mut self, run: Run) -> Result<(), Error> {
        let catalog = match &mut self.catalog {
            Some(catalog) => {
                if let Some(difference) = build_difference(&self.build, &build_of(&run)) {
                    return Err(Error::DifferentBuilds {
                        first: self.first.display().to_string(),
                        other: run.path.display().to_string(),
                        difference,
                    });
                }
                catalog
            }
            None => {
                self.build = build_of(&run);
                self.first = run.path.clone();
                let matching = match self.baseline {
                    Some(base) if build_difference(&self.build, &build_of(base)).is_some() => {
                        Matching::BySource
                    }
                    _ => Matching::ById,
                };
                self.catalog.insert(Catalog::empty(matching))
            }
        };
        if let Err((other, why)) = self.one_run.check(&run) {
            return Err(Error::DifferentRuns {
                first: other,
                other: run.path,
                why,
            });
        }
        let index = catalog.add(&run, self.descriptors);
        let figures = figures::collect(&run, index, catalog);
        self.report.add(&run, index, &figures, catalog);
        if let Some(cube) = &mut self.cube {
            cube.add(&run, index, &figures, catalog);
        }
        if let Some(timelines) = &mut self.timelines {
            timelines.add(&run, index, catalog);
        }
        if let Some(speedscope) = &mut self.speedscope {
            speedscope.add(&run, index, catalog);
        }
        if self.otf2.is_some() || self.chrome {
            let Some(trace) = run.trace else {
                return Err(Error::NoTrace {
                    profile: run.path,
                    why: run.trace_problem.unwrap_or_else(|| {
                        "the run wrote none: run the program with POMP_TRACE=1".to_string()
                    }),
                });
            };
            if let Some(archive) = &mut self.otf2 {
                archive.add(&trace)?;
            }
            if self.chrome {
                if self.only.is_some() {
                    return Err(Error::OneTrace);
                }
                self.only = Some(trace);
            }
        }
        Ok(())
    }

    /// The report and what the exports made, once every profile is read.
    pub fn finish(self) -> Result<Gathered, Error> {
        let Some(mut catalog) = self.catalog else {
            return Err(Error::NoProfiles);
        };
        let baseline = self.baseline.map(|base| {
            let index = catalog.add(base, self.descriptors);
            (base, figures::collect(base, index, &catalog))
        });
        let report = (self.report).finish(&catalog, baseline.as_ref().map(|(b, f)| (*b, f)));
        Ok(Gathered {
            report,
            cube: self.cube,
            timelines: self.timelines.unwrap_or_default(),
            speedscope: self.speedscope,
            only: self.only,
            otf2: self.otf2,
        })
    }
}
