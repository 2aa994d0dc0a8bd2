//! What the report says of the run itself: its experiment, its profiles
//! and the hosts they ran on.

use serde::Serialize;

/// The run the profiles are of, as its experiment says.
#[derive(Debug, Clone, Serialize)]
pub struct RunInfo {
    pub directory: String,
    pub manifest: pomp2::experiment::Manifest,
    /// Ranks the manifest counts that left no profile.
    pub missing_ranks: Vec<u32>,
    /// Processes that ranks forked: runs of their own, left out.
    pub forked: Vec<String>,
}

impl RunInfo {
    /// Of the experiment `inputs` are of, if they are.
    pub fn of(inputs: &crate::inputs::Inputs) -> Option<RunInfo> {
        let experiment = inputs.experiment.as_ref()?;
        Some(RunInfo {
            directory: experiment.directory.display().to_string(),
            manifest: experiment.manifest.clone(),
            missing_ranks: inputs.missing_ranks.clone(),
            forked: (inputs.forked.iter())
                .map(|path| path.display().to_string())
                .collect(),
        })
    }
}

/// A profile the report was made from.
#[derive(Debug, Clone, Serialize)]
pub struct ProfileInfo {
    pub path: String,
    pub pid: u32,
    pub rank: Option<String>,
    pub threads: u64,
    pub wall_ns: u64,
    /// The trace read with it.
    pub trace: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct HostInfo {
    pub name: String,
    pub ranks: u32,
}
