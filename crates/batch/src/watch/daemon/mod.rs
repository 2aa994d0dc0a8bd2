//! The watcher: a process of its own that holds inotify watches on a tree
//! and its mirror (`watches`), places each event (`places`), counts the
//! changes in ticks (`log`), and answers runs on its socket.

mod log;
mod places;
mod watches;

use super::protocol::{self, Reply, Request, READY, SETTLE_PATIENCE};
use anyhow::{Context as _, Result};
use inotify::{EventMask, Inotify};
use log::Log;
use places::{Place, Places, COOKIE};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use watches::Watches;

/// A watcher nobody asked for so long stops.
pub const IDLE: Duration = Duration::from_secs(60 * 60);

struct Shared {
    log: Mutex<Log>,
    /// Locked after `log` when both are.
    watches: Mutex<Watches>,
    /// Told when a cookie is seen.
    seen: Condvar,
    places: Places,
    id: String,
    watched: [u64; 4],
}

/// Run a watcher of `root` and its mirror `out_dir` (both canonical):
/// watch both, say so on `ready` (the standard output the run that
/// started it reads), then answer on the socket until nobody asks for
/// `idle`, a run asks it to stop, or either tree is gone. An error: it
/// could not watch, or could not go on watching.
pub fn serve(root: &Path, out_dir: &Path, idle: Duration, mut ready: impl Write) -> Result<()> {
    let socket = protocol::socket_path(out_dir)?;
    let places = Places::new(root, out_dir);
    let watched = protocol::identity(root, out_dir)?;
    let inotify = Inotify::init().context("cannot use inotify")?;
    let mut watches = Watches::new(&inotify);
    watches.add_both(&places)?;
    let shared = Arc::new(Shared {
        log: Mutex::new(Log::new()),
        watches: Mutex::new(watches),
        seen: Condvar::new(),
        places,
        watched,
        id: format!(
            "{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .as_nanos()
        ),
    });
    // Whichever thread finds the watcher done says so, and why.
    let (done, why) = mpsc::channel::<Result<()>>();
    std::thread::spawn({
        let shared = Arc::clone(&shared);
        let done = done.clone();
        // Returning: nothing to watch any more; a run finds no watcher
        // and starts one for the trees made again.
        move || done.send(follow(inotify, &shared))
    });

    let _ = std::fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket)
        .with_context(|| format!("cannot listen on {}", socket.display()))?;
    let listening = std::fs::metadata(&socket)?.ino();
    // The run that started it waits for this line; nothing else is
    // written there. A run that no longer waits is no reason to stop.
    let _ = writeln!(ready, "{READY}").and_then(|()| ready.flush());
    std::thread::spawn({
        let shared = Arc::clone(&shared);
        let done = done.clone();
        let (root, out_dir) = (root.to_path_buf(), out_dir.to_path_buf());
        move || loop {
            std::thread::sleep(Duration::from_millis(500));
            let ours = std::fs::metadata(&socket).is_ok_and(|m| m.ino() == listening);
            let asked = shared.log.lock().expect("never poisoned").last_asked;
            let same = protocol::identity(&root, &out_dir).is_ok_and(|now| now == shared.watched);
            if !ours || !same || asked.elapsed() > idle {
                if ours {
                    let _ = std::fs::remove_file(&socket);
                }
                return done.send(Ok(()));
            }
        }
    });
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let shared = Arc::clone(&shared);
            let done = done.clone();
            std::thread::spawn(move || answer(stream, &shared, &done));
        }
    });
    why.recv().unwrap_or(Ok(()))
}

/// Count the trees' events as they come, until either tree is deleted or
/// moved away.
fn follow(mut inotify: Inotify, shared: &Shared) -> Result<()> {
    let places = &shared.places;
    let mut buffer = vec![0; 64 << 10];
    loop {
        let events = inotify.read_events_blocking(&mut buffer)?;
        let mut log = shared.log.lock().expect("never poisoned");
        let mut watches = shared.watches.lock().expect("never poisoned");
        for event in events {
            if event.mask.contains(EventMask::Q_OVERFLOW) {
                // Events were lost, and with them maybe new directories.
                log.everything();
                watches.add_both(places)?;
                continue;
            }
            let id = event.wd.get_watch_descriptor_id();
            if event.mask.contains(EventMask::IGNORED) {
                watches.directories.remove(&id);
                continue;
            }
            let Some(directory) = watches.path(id) else {
                continue;
            };
            let path = match event.name {
                Some(name) => directory.join(name),
                None => directory.to_path_buf(),
            };
            if event
                .mask
                .intersects(EventMask::DELETE_SELF | EventMask::MOVE_SELF)
                && (path == places.root || path == places.out_dir)
            {
                return Ok(());
            }
            let place = places.place(&path);
            if let Place::Cookie(name) = place {
                if event.mask.contains(EventMask::CREATE) {
                    log.cookies.insert(name);
                    shared.seen.notify_all();
                }
                continue;
            }
            // A new directory's first files may come before its watch: its
            // change is counted once it is watched, so a run that starts
            // after that finds them.
            if event.mask.contains(EventMask::ISDIR)
                && event
                    .mask
                    .intersects(EventMask::CREATE | EventMask::MOVED_TO)
            {
                watches.add_tree(&path, places)?;
            }
            log.changed(place);
        }
    }
}

/// Answer one run's requests, one per line; when asked to stop, say the
/// watcher is done.
fn answer(stream: UnixStream, shared: &Shared, done: &mpsc::Sender<Result<()>>) {
    let Ok(writer) = stream.try_clone() else {
        return;
    };
    let mut writer = std::io::BufWriter::new(writer);
    for line in BufReader::new(stream).lines() {
        let Ok(line) = line else { return };
        shared.log.lock().expect("never poisoned").last_asked = Instant::now();
        let request = protocol::decode::<Request>(&line);
        let stop = matches!(request, Ok(Request::Stop));
        let reply = match request {
            Ok(request) => reply(request, shared),
            Err(error) => Reply::Failed {
                message: error.to_string(),
            },
        };
        if writer
            .write_all(&protocol::encode(&reply))
            .and_then(|()| writer.flush())
            .is_err()
        {
            return;
        }
        if stop {
            if let Ok(socket) = protocol::socket_path(&shared.places.out_dir) {
                let _ = std::fs::remove_file(socket);
            }
            let _ = done.send(Ok(()));
            return;
        }
    }
}

/// The log once the watcher has counted every event from before now: it
/// makes a file in the cache directory, whose event comes after them all,
/// and waits to see it.
fn settle<'s>(
    shared: &'s Shared,
    mut log: MutexGuard<'s, Log>,
) -> Result<MutexGuard<'s, Log>, String> {
    log.cookies_made += 1;
    let cookie = format!("{COOKIE}{}", log.cookies_made);
    let path = shared.places.cache_dir.join(&cookie);
    std::fs::write(&path, b"").map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let asked = Instant::now();
    while !log.cookies.contains(&cookie) {
        let left = SETTLE_PATIENCE.saturating_sub(asked.elapsed());
        if left.is_zero() {
            let _ = std::fs::remove_file(&path);
            return Err(format!(
                "it did not see {} within {} s",
                path.display(),
                SETTLE_PATIENCE.as_secs()
            ));
        }
        log = shared
            .seen
            .wait_timeout(log, left)
            .expect("never poisoned")
            .0;
    }
    log.cookies.remove(&cookie);
    let _ = std::fs::remove_file(&path);
    Ok(log)
}

fn reply(request: Request, shared: &Shared) -> Reply {
    let mut log = shared.log.lock().expect("never poisoned");
    match request {
        Request::Status => Reply::Status {
            id: shared.id.clone(),
            root: shared.places.root.clone(),
            out_dir: shared.places.out_dir.clone(),
            watched: shared.watched,
            tick: log.tick,
        },
        Request::Changes {
            source_since,
            mirror_since,
        } => {
            log = match settle(shared, log) {
                Ok(log) => log,
                Err(message) => return Reply::Failed { message },
            };
            let paused = shared.watches.lock().expect("never poisoned").mirror_paused;
            let mirror = (log.mirror_incomplete <= mirror_since && !paused).then(|| {
                let mut paths: Vec<String> = log
                    .mirror
                    .iter()
                    .filter(|&(_, &tick)| tick > mirror_since)
                    .map(|(path, _)| path.clone())
                    .collect();
                paths.sort();
                paths
            });
            Reply::Changes {
                id: shared.id.clone(),
                tick: log.tick,
                source_changed: log.source_changed > source_since,
                mirror,
            }
        }
        Request::Begin => {
            let mut watches = shared.watches.lock().expect("never poisoned");
            watches.pause_mirror(&shared.places);
            Reply::Begun { tick: log.tick }
        }
        Request::End => {
            let mut watches = shared.watches.lock().expect("never poisoned");
            match watches.resume_mirror(&shared.places) {
                Ok(()) => Reply::Ended { tick: log.tick },
                Err(error) => Reply::Failed {
                    message: format!("{error:#}"),
                },
            }
        }
        Request::Stop => Reply::Stopping,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A tree and its mirror in `dir`, canonical.
    fn trees(dir: &Path) -> (PathBuf, PathBuf) {
        let (root, out) = (dir.join("src"), dir.join("out"));
        std::fs::create_dir_all(out.join(".pomp-batch/idf")).unwrap();
        std::fs::create_dir_all(&root).unwrap();
        (root.canonicalize().unwrap(), out.canonicalize().unwrap())
    }

    /// The watcher is done, however it ends, by returning to its caller,
    /// which decides what becomes of the process and of its errors.
    #[test]
    fn a_watcher_returns_to_its_caller_when_it_is_done() {
        let dir = tempfile::tempdir().unwrap();
        let (root, out) = trees(dir.path());
        let serving = |idle: Duration| {
            let (root, out) = (root.clone(), out.clone());
            std::thread::spawn(move || {
                let mut ready = Vec::new();
                let served = serve(&root, &out, idle, &mut ready);
                (served, String::from_utf8(ready).unwrap())
            })
        };

        let asked = serving(IDLE);
        let patience = Instant::now();
        while !crate::watch::stop(&out).unwrap() {
            assert!(patience.elapsed() < SETTLE_PATIENCE, "no watcher to ask");
            std::thread::sleep(Duration::from_millis(20));
        }
        let (served, ready) = asked.join().unwrap();
        assert!(served.is_ok(), "{served:?}");
        assert_eq!(ready, format!("{READY}\n"));

        let (served, _) = serving(Duration::ZERO).join().unwrap();
        assert!(served.is_ok(), "idle: {served:?}");

        let gone = serving(IDLE);
        while !protocol::socket_path(&out).unwrap().exists() {
            std::thread::sleep(Duration::from_millis(20));
        }
        std::fs::remove_dir(&root).unwrap();
        let (served, _) = gone.join().unwrap();
        assert!(served.is_ok(), "tree gone: {served:?}");

        let missing = dir.path().join("missing");
        let error = serve(&missing, &out, IDLE, std::io::sink()).unwrap_err();
        assert!(format!("{error:#}").contains("No such file"), "{error:#}");
    }

    /// The ticks of the last change to the sources, and the mirror's
    /// paths changed, once the watcher has seen everything done before.
    fn seen(shared: &Shared) -> (u64, Vec<String>) {
        let log = settle(shared, shared.log.lock().unwrap()).unwrap();
        let mut mirror: Vec<String> = log.mirror.keys().cloned().collect();
        mirror.sort();
        (log.source_changed, mirror)
    }

    #[test]
    fn reading_changes_nothing_and_new_directories_count_once_watched() {
        let dir = tempfile::tempdir().unwrap();
        let (root, out) = (dir.path().join("src"), dir.path().join("out"));
        std::fs::create_dir_all(out.join(".pomp-batch/idf")).unwrap();
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("a.c"), "int a;\n").unwrap();
        let places = Places::new(&root, &out);
        let inotify = Inotify::init().unwrap();
        let mut watches = Watches::new(&inotify);
        watches.add_both(&places).unwrap();
        let watched = |watches: &Watches| {
            let mut paths: Vec<PathBuf> = watches
                .directories
                .values()
                .map(|(_, p)| p.clone())
                .collect();
            paths.sort();
            paths
        };
        let expected = [out.clone(), places.cache_dir.clone(), root.clone()];
        assert_eq!(watched(&watches), expected);
        let shared = Arc::new(Shared {
            log: Mutex::new(Log::new()),
            watches: Mutex::new(watches),
            seen: Condvar::new(),
            places,
            id: "test".into(),
            watched: [0; 4],
        });
        std::thread::spawn({
            let shared = Arc::clone(&shared);
            move || follow(inotify, &shared)
        });

        let (before, _) = seen(&shared);
        assert_eq!(std::fs::read(root.join("a.c")).unwrap(), b"int a;\n");
        std::fs::write(out.join(".pomp-batch/idf/a.json"), "{}").unwrap();
        assert_eq!(seen(&shared), (before, vec![]));

        std::fs::write(root.join("a.c"), "int b;\n").unwrap();
        let (edited, _) = seen(&shared);
        assert!(edited > before);
        // Made with a file at once: counted, and from then on watched.
        std::fs::create_dir_all(root.join("new/deep")).unwrap();
        std::fs::write(root.join("new/deep/b.c"), "").unwrap();
        let (made, _) = seen(&shared);
        assert!(made > edited);
        std::fs::write(root.join("new/deep/b.c"), "int b;\n").unwrap();
        let (written, _) = seen(&shared);
        assert!(written > made);

        std::fs::write(out.join("a.o"), "").unwrap();
        std::fs::create_dir(out.join("build")).unwrap();
        std::fs::write(out.join("build/b.o"), "").unwrap();
        let (after, mirror) = seen(&shared);
        assert_eq!(after, written);
        assert!(
            mirror.starts_with(&["a.o".to_string(), "build".to_string()]),
            "{mirror:?}"
        );

        // While a run writes the mirror, only the cache directory is
        // watched there; the run's end watches the mirror again.
        let Reply::Begun { tick: begun } = reply(Request::Begin, &shared) else {
            panic!("not begun");
        };
        let paused = watched(&shared.watches.lock().unwrap());
        assert!(paused.contains(&shared.places.cache_dir));
        assert!(!paused.contains(&out) && !paused.contains(&out.join("build")));
        std::fs::write(out.join("build/c.o"), "").unwrap();
        assert_eq!(seen(&shared), (after, mirror.clone()));
        let Reply::Ended { tick: ended } = reply(Request::End, &shared) else {
            panic!("not ended");
        };
        assert!(ended >= begun);
        let resumed = watched(&shared.watches.lock().unwrap());
        for directory in [&out, &out.join("build"), &shared.places.cache_dir] {
            assert!(resumed.contains(directory), "{resumed:?}");
        }
        std::fs::write(out.join("build/c.o"), "again").unwrap();
        let (_, mirror) = seen(&shared);
        assert!(mirror.contains(&"build/c.o".to_string()));
    }
}
