//! The inotify watches on every directory of the tree and the mirror.

use super::places::{under, Places};
use anyhow::{Context as _, Result};
use inotify::{Inotify, WatchDescriptor, WatchMask};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The events that may change what a run finds. Not opening or reading
/// files, which every run does to every file: the kernel's cost of those
/// events alone made a first run a fifth slower.
fn watch_mask() -> WatchMask {
    WatchMask::ATTRIB
        | WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MODIFY
        | WatchMask::CLOSE_WRITE
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::DELETE_SELF
        | WatchMask::MOVE_SELF
        | WatchMask::ONLYDIR
        | WatchMask::DONT_FOLLOW
}

/// The directories of both trees, each watched.
pub struct Watches {
    handle: inotify::Watches,
    pub directories: HashMap<i32, (WatchDescriptor, PathBuf)>,
    /// A run writes the mirror: its directories are not watched, so that
    /// neither the kernel nor the watcher spends time on the run's own
    /// writes.
    pub mirror_paused: bool,
}

impl Watches {
    pub fn new(inotify: &Inotify) -> Watches {
        Watches {
            handle: inotify.watches(),
            directories: HashMap::new(),
            mirror_paused: false,
        }
    }

    /// Watch `directory` and every directory below it, except those inside
    /// the cache directory, whose files runs write and no run reads as
    /// part of the tree. A directory gone meanwhile is left out.
    pub fn add_tree(&mut self, directory: &Path, places: &Places) -> Result<()> {
        let mut pending = vec![directory.to_path_buf()];
        while let Some(directory) = pending.pop() {
            let in_cache = under(&directory, &places.cache_dir).is_some_and(|r| !r.is_empty());
            let in_paused_mirror =
                self.mirror_paused && under(&directory, &places.out_dir).is_some();
            if in_cache || in_paused_mirror {
                continue;
            }
            match self.handle.add(&directory, watch_mask()) {
                Ok(watch) => {
                    let id = watch.get_watch_descriptor_id();
                    self.directories.insert(id, (watch, directory.clone()));
                }
                Err(error)
                    if error.kind() == std::io::ErrorKind::NotFound
                        || error.raw_os_error()
                            == Some(rustix::io::Errno::NOTDIR.raw_os_error()) =>
                {
                    continue
                }
                Err(error) => {
                    return Err(error).with_context(|| {
                        format!(
                            "cannot watch {} (the limit is \
                             /proc/sys/fs/inotify/max_user_watches)",
                            directory.display()
                        )
                    })
                }
            }
            let Ok(entries) = std::fs::read_dir(&directory) else {
                continue;
            };
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    pending.push(entry.path());
                }
            }
        }
        Ok(())
    }

    pub fn add_both(&mut self, places: &Places) -> Result<()> {
        self.add_tree(&places.root, places)?;
        if !places.out_dir.starts_with(&places.root) {
            self.add_tree(&places.out_dir, places)?;
        }
        Ok(())
    }

    /// Stop watching the mirror, while a run writes it. The run's walk
    /// sees what changed there before it.
    pub fn pause_mirror(&mut self, places: &Places) {
        let mirror: Vec<i32> = self
            .directories
            .iter()
            // Not the cache directory, where the watcher settles.
            .filter(|(_, (_, path))| {
                under(path, &places.out_dir).is_some() && *path != places.cache_dir
            })
            .map(|(&id, _)| id)
            .collect();
        for id in mirror {
            let (watch, _) = self.directories.remove(&id).expect("listed");
            let _ = self.handle.remove(watch);
        }
        self.mirror_paused = true;
    }

    /// Watch the mirror again, once the run wrote it.
    pub fn resume_mirror(&mut self, places: &Places) -> Result<()> {
        if self.mirror_paused {
            self.mirror_paused = false;
            self.add_tree(&places.out_dir, places)?;
        }
        Ok(())
    }

    pub fn path(&self, id: i32) -> Option<&Path> {
        self.directories.get(&id).map(|(_, path)| path.as_path())
    }
}
