//! What the launcher that started this process says about it in its
//! environment: its rank, the number of ranks, and the job, with what
//! tells this run of the job from any other (see
//! `pomp2::experiment::Launcher`). Without MPI, ranks agree on their
//! experiment by these alone.

use pomp2::experiment::{Launcher, LauncherKind};

/// The launcher's word on this process.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Launch {
    pub rank: Option<u32>,
    pub size: Option<u32>,
    pub launcher: Option<Launcher>,
}

impl Launch {
    /// Read through `var`, which gives an environment variable's value
    /// (none when unset or empty). Open MPI is asked first: an `mpirun`
    /// inside a Slurm allocation describes its own job, not the
    /// allocation's.
    pub fn from_settings(var: impl Fn(&str) -> Option<String>) -> Launch {
        let number = |name: &str| var(name).and_then(|v| v.trim().parse::<u32>().ok());
        if let Some(rank) = number("OMPI_COMM_WORLD_RANK") {
            let job = var("OMPI_MCA_ess_base_jobid").or_else(|| var("PMIX_NAMESPACE"));
            // A random key mpirun makes for each job; the job id alone
            // comes back in later runs.
            let secret = var("OMPI_MCA_orte_precondition_transports")
                .or_else(|| var("PMIX_SERVER_URI41"))
                .or_else(|| var("OMPI_MCA_orte_hnp_uri"));
            return Launch {
                rank: Some(rank),
                size: number("OMPI_COMM_WORLD_SIZE"),
                launcher: job.map(|job| Launcher {
                    kind: LauncherKind::OpenMpi,
                    key: format!("open-mpi:{job}:{}", secret.unwrap_or_default()),
                    job,
                }),
            };
        }
        if let Some(rank) = number("SLURM_PROCID") {
            let job = var("SLURM_JOB_ID").map(|job| match var("SLURM_STEP_ID") {
                Some(step) => format!("{job}.{step}"),
                None => job,
            });
            return Launch {
                rank: Some(rank),
                size: number("SLURM_NTASKS").or_else(|| number("SLURM_NPROCS")),
                launcher: job.map(|job| Launcher {
                    kind: LauncherKind::Slurm,
                    key: format!(
                        "slurm:{}:{job}",
                        var("SLURM_CLUSTER_NAME").unwrap_or_default()
                    ),
                    job,
                }),
            };
        }
        if let Some(rank) = number("PMI_RANK") {
            // Hydra names the job's key-value space, or the port of its
            // server, which is this job's while it runs.
            let token = var("PMI_KVSNAME")
                .or_else(|| var("PMI_PORT"))
                .or_else(|| var("PMIX_NAMESPACE"));
            return Launch {
                rank: Some(rank),
                size: number("PMI_SIZE"),
                launcher: token.map(|token| Launcher {
                    kind: LauncherKind::Hydra,
                    key: format!("hydra:{token}"),
                    job: token,
                }),
            };
        }
        Launch::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn launch(pairs: &[(&str, &str)]) -> Launch {
        let env: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Launch::from_settings(|name| env.get(name).cloned())
    }

    #[test]
    fn open_mpi_names_its_job_and_its_key() {
        let launch = launch(&[
            ("OMPI_COMM_WORLD_RANK", "3"),
            ("OMPI_COMM_WORLD_SIZE", "4"),
            ("OMPI_MCA_ess_base_jobid", "524222465"),
            (
                "OMPI_MCA_orte_precondition_transports",
                "76249c0f3f8f2ae8-555558c5c67619a0",
            ),
            ("SLURM_PROCID", "0"),
        ]);
        assert_eq!((launch.rank, launch.size), (Some(3), Some(4)));
        let launcher = launch.launcher.unwrap();
        assert_eq!(launcher.kind, LauncherKind::OpenMpi);
        assert_eq!(launcher.job, "524222465");
        assert_eq!(
            launcher.key,
            "open-mpi:524222465:76249c0f3f8f2ae8-555558c5c67619a0"
        );
    }

    #[test]
    fn slurm_names_job_and_step() {
        let launch = launch(&[
            ("SLURM_PROCID", "5"),
            ("SLURM_NTASKS", "8"),
            ("SLURM_JOB_ID", "991"),
            ("SLURM_STEP_ID", "2"),
            ("SLURM_CLUSTER_NAME", "big"),
        ]);
        assert_eq!((launch.rank, launch.size), (Some(5), Some(8)));
        let launcher = launch.launcher.unwrap();
        assert_eq!(launcher.job, "991.2");
        assert_eq!(launcher.key, "slurm:big:991.2");
    }

    #[test]
    fn hydra_and_nothing() {
        let hydra = launch(&[
            ("PMI_RANK", "1"),
            ("PMI_SIZE", "2"),
            ("PMI_KVSNAME", "kvs_4242_0"),
        ]);
        assert_eq!((hydra.rank, hydra.size), (Some(1), Some(2)));
        let launcher = hydra.launcher.unwrap();
        assert_eq!(launcher.kind, LauncherKind::Hydra);
        assert_eq!(launcher.key, "hydra:kvs_4242_0");
        let rank_only = launch(&[("PMI_RANK", "3")]);
        assert_eq!((rank_only.rank, rank_only.launcher), (Some(3), None));
        assert_eq!(launch(&[]), Launch::default());
        assert_eq!(launch(&[("OMPI_COMM_WORLD_RANK", "x")]), Launch::default());
    }
}
