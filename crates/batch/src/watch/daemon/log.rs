//! What the watcher counted: its ticks, the last change to the sources
//! and to each path of the mirror, and the cookies it made and saw.

use super::places::Place;
use std::collections::{HashMap, HashSet};
use std::time::Instant;

/// Paths of the mirror remembered; past that, a change is assumed.
const MIRROR_PATHS: usize = 10_000;

/// What the watcher counted.
pub struct Log {
    pub tick: u64,
    /// The tick of the last change to the sources.
    pub source_changed: u64,
    /// The tick of the last change to each path of the mirror.
    pub mirror: HashMap<String, u64>,
    /// Changes to the mirror up to this tick are not all in `mirror`.
    pub mirror_incomplete: u64,
    /// Cookies made and seen.
    pub cookies: HashSet<String>,
    pub cookies_made: u64,
    pub last_asked: Instant,
}

impl Log {
    pub fn new() -> Log {
        Log {
            tick: 0,
            source_changed: 0,
            mirror: HashMap::new(),
            mirror_incomplete: 0,
            cookies: HashSet::new(),
            cookies_made: 0,
            last_asked: Instant::now(),
        }
    }

    fn source(&mut self) {
        self.tick += 1;
        self.source_changed = self.tick;
    }

    pub fn mirror(&mut self, relative: String) {
        self.tick += 1;
        if self.mirror.len() >= MIRROR_PATHS && !self.mirror.contains_key(&relative) {
            self.mirror.clear();
            self.mirror_incomplete = self.tick;
            return;
        }
        self.mirror.insert(relative, self.tick);
    }

    pub fn everything(&mut self) {
        self.tick += 1;
        self.source_changed = self.tick;
        self.mirror_incomplete = self.tick;
    }

    pub fn changed(&mut self, place: Place) {
        match place {
            Place::Source => self.source(),
            Place::Mirror(relative) => self.mirror(relative),
            Place::Cookie(_) | Place::Ignored => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_list_of_mirror_paths_is_given_up_for_a_mark() {
        let mut log = Log::new();
        for n in 0..MIRROR_PATHS {
            log.mirror(format!("f{n}.o"));
        }
        assert_eq!((log.mirror.len(), log.mirror_incomplete), (MIRROR_PATHS, 0));
        log.mirror("f0.o".into());
        assert_eq!(log.mirror_incomplete, 0);
        log.mirror("one-more.o".into());
        assert!(log.mirror.is_empty());
        assert_eq!(log.mirror_incomplete, log.tick);
        assert_eq!(log.source_changed, 0);
    }
}
