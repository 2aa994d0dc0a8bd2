//! Only one run may write an output directory at a time.

use anyhow::{bail, Context as _, Result};
use std::path::Path;
use std::time::{Duration, Instant};

/// The lock of the output directory whose cache directory is
/// `cache_dir`, held until the file returned is dropped.
pub fn take(cache_dir: &Path) -> Result<std::fs::File> {
    // A lock is also held, for a moment, by a process forked while it was
    // taken, until that process runs its program: a short wait tells such
    // a moment from a run that is really going on.
    const PATIENCE: Duration = Duration::from_secs(2);
    let path = cache_dir.join("lock");
    let file = std::fs::File::create(&path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    let asked = Instant::now();
    while file.try_lock().is_err() {
        if asked.elapsed() > PATIENCE {
            bail!(
                "another pomp batch is writing {}",
                cache_dir.parent().unwrap_or(cache_dir).display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_second_run_on_one_output_directory_is_refused_while_the_first_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let first = super::take(dir.path()).unwrap();
        let refused = super::take(dir.path()).unwrap_err();
        assert!(refused
            .to_string()
            .contains("another pomp batch is writing"));
        drop(first);
        super::take(dir.path()).unwrap();
    }
}
