//! A watcher of a source tree and its mirror, so that a run over a tree
//! in which nothing changed need not look at it.
//!
//! Without a watcher a run asks every file for its status: on a tree of
//! thousands of files that alone costs more than a twentieth of mirroring
//! the tree. With `--watch` a process of its own (started by the first
//! run, found by the next through a socket) holds inotify watches on both
//! trees and counts their changes in ticks. A run that walked the tree
//! keeps two ticks: the one before its walk, after which any change to the
//! sources counts, and the one after its last write, after which any
//! change to the mirror counts. The next run asks the watcher whether
//! anything changed since: when nothing did, the last run's state is the
//! answer, and the tree is neither walked nor read.
//!
//! What the watcher cannot vouch for is a change: a lost event (the queue
//! overflowed), a directory whose watch is still being set up, a watcher
//! that is not the one the last run talked to. Changes in the mirror count
//! only where the mirror holds pomp's files: objects a build writes there
//! do not stop the next run from trusting the watcher.

use anyhow::{bail, Context as _, Result};
use notify::event::{AccessKind, AccessMode, ModifyKind};
use notify::{Event, EventKind, RecursiveMode, Watcher as _};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::os::unix::process::CommandExt;
use std::path::{Component, Path, PathBuf};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The hidden `pomp` subcommand that runs a watcher.
pub const SUBCOMMAND: &str = "__batch-watcher";
/// What the last watched run left for the next, in the cache directory.
const TOKEN: &str = "watch.json";
/// The watcher's messages, in the cache directory.
const LOG: &str = "watcher.log";
/// Files a run creates in the cache directory to learn when the watcher
/// has seen everything before them.
const COOKIE: &str = "cookie-";

/// A watcher nobody asked for so long stops.
pub const IDLE: Duration = Duration::from_secs(60 * 60);
/// Paths of the mirror remembered; past that, a change is assumed.
const MIRROR_PATHS: usize = 10_000;
/// How long a run waits for the watcher to see its cookie.
const SYNC_PATIENCE: Duration = Duration::from_secs(10);
/// How long a run waits for a new watcher to watch the trees.
const START_PATIENCE: Duration = Duration::from_secs(60);

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "ask", rename_all = "snake_case")]
enum Request {
    Status,
    Changes {
        source_since: u64,
        mirror_since: u64,
    },
    Sync {
        cookie: String,
    },
    Stop,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
enum Reply {
    Status {
        id: String,
        root: PathBuf,
        out_dir: PathBuf,
        /// The directories watched, by device and inode: one deleted and
        /// made again at the same path is not watched.
        watched: [u64; 4],
        tick: u64,
    },
    Changes {
        id: String,
        tick: u64,
        source_changed: bool,
        /// The mirror's paths (relative to it) changed since; `None` when
        /// they are not all known.
        mirror: Option<Vec<String>>,
    },
    Synced {
        tick: u64,
    },
    Stopping,
    Failed {
        message: String,
    },
}

/// Where the watcher of `out_dir` listens: a directory only the user can
/// enter, and a name made from the output directory (socket paths are
/// short).
fn socket_path(out_dir: &Path) -> Result<PathBuf> {
    let uid = rustix::process::getuid().as_raw();
    let directory = match std::env::var_os("XDG_RUNTIME_DIR") {
        Some(runtime) if !runtime.is_empty() => PathBuf::from(runtime).join("pomp-batch"),
        _ => std::env::temp_dir().join(format!("pomp-batch-{uid}")),
    };
    if let Err(error) = std::fs::DirBuilder::new().mode(0o700).create(&directory) {
        if error.kind() != std::io::ErrorKind::AlreadyExists {
            return Err(error).with_context(|| format!("cannot create {}", directory.display()));
        }
    }
    let metadata = std::fs::symlink_metadata(&directory)
        .with_context(|| format!("cannot read {}", directory.display()))?;
    if !metadata.is_dir() || metadata.uid() != uid || metadata.permissions().mode() & 0o077 != 0 {
        bail!(
            "{} is not a directory only you can enter: no socket is put there",
            directory.display()
        );
    }
    let name = super::cache::digest([out_dir.as_os_str().as_encoded_bytes()]);
    Ok(directory.join(format!("{}.sock", &name[..24])))
}

/// A connection to the watcher of one output directory.
pub struct Watcher {
    reader: BufReader<UnixStream>,
    id: String,
    cache_dir: PathBuf,
}

/// What the last watched run left: the ticks after which changes count,
/// and what the state and the run were.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct Token {
    watcher: String,
    source_since: u64,
    mirror_since: u64,
    /// The run's settings: another run is not vouched for.
    pub run: String,
    /// The state the run left, by its header and length.
    pub state: super::cache::Header,
    /// What the walk warned about, said again when it is not walked.
    pub warnings: Vec<String>,
}

impl Token {
    /// The last watched run's token, taken away: a run that fails or is
    /// not watched leaves none, so no later run trusts what it did not see.
    pub fn take(cache_dir: &Path) -> Option<Token> {
        let path = cache_dir.join(TOKEN);
        let bytes = std::fs::read(&path).ok()?;
        let _ = std::fs::remove_file(&path);
        serde_json::from_slice(&bytes).ok()
    }

    pub fn save(&self, cache_dir: &Path) -> Result<()> {
        let path = cache_dir.join(TOKEN);
        let mut temporary = tempfile::Builder::new()
            .prefix(".watch-")
            .tempfile_in(cache_dir)?;
        serde_json::to_writer(&mut temporary, self)?;
        temporary.persist(&path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// A run's beginning with a watcher: the tick before it walks.
pub struct Walking {
    watcher: Watcher,
    source_since: u64,
}

impl Walking {
    /// The token for the next run, once this run wrote all it writes.
    pub fn finish(
        mut self,
        run: String,
        state: super::cache::Header,
        warnings: Vec<String>,
    ) -> Result<Token> {
        let mirror_since = self.watcher.sync()?;
        Ok(Token {
            watcher: self.watcher.id,
            source_since: self.source_since,
            mirror_since,
            run,
            state,
            warnings,
        })
    }
}

impl Watcher {
    /// The watcher of `out_dir` mirroring `root` (both canonical), started
    /// with `program` when none is running.
    pub fn connect(root: &Path, out_dir: &Path, program: &Path) -> Result<Watcher> {
        let socket = socket_path(out_dir)?;
        let cache_dir = out_dir.join(super::cache::DIRECTORY);
        if let Ok(mut watcher) = Watcher::open(&socket, &cache_dir) {
            if watcher.watches(root, out_dir)? {
                return Ok(watcher);
            }
            // Of the same output directory, for another source tree.
            let _ = watcher.ask(&Request::Stop);
            let _ = std::fs::remove_file(&socket);
        }
        let log = std::fs::File::create(cache_dir.join(LOG))
            .with_context(|| format!("cannot write {}", cache_dir.join(LOG).display()))?;
        let mut child = std::process::Command::new(program)
            .arg(SUBCOMMAND)
            .arg(root)
            .arg(out_dir)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(log)
            // Not stopped with the terminal or the shell's job.
            .process_group(0)
            .spawn()
            .with_context(|| format!("cannot start {}", program.display()))?;
        let asked = Instant::now();
        loop {
            if let Ok(mut watcher) = Watcher::open(&socket, &cache_dir) {
                if watcher.watches(root, out_dir)? {
                    return Ok(watcher);
                }
                bail!("another watcher took {}", socket.display());
            }
            if let Ok(Some(status)) = child.try_wait() {
                let said = std::fs::read_to_string(cache_dir.join(LOG)).unwrap_or_default();
                bail!("the watcher stopped ({status}): {}", said.trim());
            }
            if asked.elapsed() > START_PATIENCE {
                let _ = child.kill();
                bail!(
                    "the watcher did not watch {} within {} s",
                    root.display(),
                    START_PATIENCE.as_secs()
                );
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn open(socket: &Path, cache_dir: &Path) -> std::io::Result<Watcher> {
        let stream = UnixStream::connect(socket)?;
        stream.set_read_timeout(Some(SYNC_PATIENCE + Duration::from_secs(5)))?;
        Ok(Watcher {
            reader: BufReader::new(stream),
            id: String::new(),
            cache_dir: cache_dir.to_path_buf(),
        })
    }

    fn ask(&mut self, request: &Request) -> Result<Reply> {
        let mut line = serde_json::to_vec(request)?;
        line.push(b'\n');
        self.reader.get_mut().write_all(&line)?;
        let mut answer = String::new();
        if self.reader.read_line(&mut answer)? == 0 {
            bail!("the watcher hung up");
        }
        match serde_json::from_str(&answer)? {
            Reply::Failed { message } => bail!("the watcher: {message}"),
            reply => Ok(reply),
        }
    }

    /// Whether it watches these trees; learns its identity.
    fn watches(&mut self, root: &Path, out_dir: &Path) -> Result<bool> {
        match self.ask(&Request::Status)? {
            Reply::Status {
                id,
                root: r,
                out_dir: o,
                watched,
                ..
            } => {
                self.id = id;
                Ok(r == root && o == out_dir && identity(root, out_dir)? == watched)
            }
            reply => bail!("the watcher answered {reply:?} to a status"),
        }
    }

    /// Whether nothing that matters changed since the run that left
    /// `token`: then the token to keep, which moves past the mirror's
    /// changes found not to matter.
    pub fn vouches(&mut self, token: &Token, root: &Path) -> Result<Option<Token>> {
        if token.watcher != self.id {
            return Ok(None);
        }
        let reply = self.ask(&Request::Changes {
            source_since: token.source_since,
            mirror_since: token.mirror_since,
        })?;
        let Reply::Changes {
            id,
            tick,
            source_changed,
            mirror,
        } = reply
        else {
            bail!("the watcher answered {reply:?} to a question about changes");
        };
        if id != self.id || source_changed {
            return Ok(None);
        }
        let Some(mirror) = mirror else {
            return Ok(None);
        };
        if mirror.iter().any(|path| mirror_path_matters(path, root)) {
            return Ok(None);
        }
        Ok(Some(Token {
            watcher: id,
            source_since: token.source_since,
            mirror_since: tick,
            run: token.run.clone(),
            state: token.state,
            warnings: token.warnings.clone(),
        }))
    }

    /// Start a run that walks the tree.
    pub fn walking(mut self) -> Result<Walking> {
        match self.ask(&Request::Status)? {
            Reply::Status { tick, .. } => Ok(Walking {
                watcher: self,
                source_since: tick,
            }),
            reply => bail!("the watcher answered {reply:?} to a status"),
        }
    }

    /// The tick by which the watcher has seen everything done before: it
    /// is told of a file made after it all, and answers once it saw it.
    fn sync(&mut self) -> Result<u64> {
        let cookie = format!("{COOKIE}{}", std::process::id());
        let path = self.cache_dir.join(&cookie);
        std::fs::write(&path, b"")?;
        let reply = self.ask(&Request::Sync { cookie });
        let _ = std::fs::remove_file(&path);
        match reply? {
            Reply::Synced { tick } => Ok(tick),
            reply => bail!("the watcher answered {reply:?} to a sync"),
        }
    }
}

/// The two trees' directories by device and inode.
fn identity(root: &Path, out_dir: &Path) -> std::io::Result<[u64; 4]> {
    let (root, out) = (std::fs::metadata(root)?, std::fs::metadata(out_dir)?);
    Ok([root.dev(), root.ino(), out.dev(), out.ino()])
}

/// Stop the watcher of `out_dir`; whether one was running.
pub fn stop(out_dir: &Path) -> Result<bool> {
    let out_dir = out_dir
        .canonicalize()
        .with_context(|| format!("cannot read {}", out_dir.display()))?;
    let socket = socket_path(&out_dir)?;
    let cache_dir = out_dir.join(super::cache::DIRECTORY);
    let Ok(mut watcher) = Watcher::open(&socket, &cache_dir) else {
        return Ok(false);
    };
    let _ = Token::take(&cache_dir);
    watcher.ask(&Request::Stop)?;
    Ok(true)
}

/// Whether a change at `relative` in the mirror may be to what pomp put
/// there: its own files at the top, or a file or directory whose source
/// is in the tree. What a build adds beside them is not.
fn mirror_path_matters(relative: &str, root: &Path) -> bool {
    let top_level = [super::REGISTRATION, super::INDEX, super::COMPILE_COMMANDS];
    relative.is_empty()
        || top_level.contains(&relative)
        || root.join(relative).symlink_metadata().is_ok()
}

/// What a path that changed is to the watcher.
#[derive(Debug, PartialEq, Eq)]
enum Place {
    Source,
    /// Relative to the mirror, `/`-separated.
    Mirror(String),
    Cookie(String),
    Ignored,
}

struct Places {
    root: PathBuf,
    out_dir: PathBuf,
    cache_dir: PathBuf,
}

impl Places {
    fn new(root: &Path, out_dir: &Path) -> Places {
        Places {
            root: root.to_path_buf(),
            out_dir: out_dir.to_path_buf(),
            cache_dir: out_dir.join(super::cache::DIRECTORY),
        }
    }

    fn place(&self, path: &Path) -> Place {
        if let Ok(relative) = path.strip_prefix(&self.cache_dir) {
            return match relative.to_str() {
                Some(name) if name.starts_with(COOKIE) && !name.contains('/') => {
                    Place::Cookie(name.to_owned())
                }
                _ => Place::Ignored,
            };
        }
        // The mirror may be inside the tree: it is asked for first.
        if let Ok(relative) = path.strip_prefix(&self.out_dir) {
            return Place::Mirror(relative.to_string_lossy().into_owned());
        }
        match path.strip_prefix(&self.root) {
            Ok(relative) if !inside_git(relative) => Place::Source,
            _ => Place::Ignored,
        }
    }
}

/// Git's own files, which the walk leaves out; but `.git/info/exclude`
/// says which files the walk ignores.
fn inside_git(relative: &Path) -> bool {
    let components: Vec<Component> = relative.components().collect();
    let Some(git) = components.iter().position(|c| c.as_os_str() == ".git") else {
        return false;
    };
    components[git + 1..]
        .iter()
        .map(|c| c.as_os_str())
        .ne(["info", "exclude"])
}

/// Whether an event may change what a run finds: opening and reading
/// files does not.
fn changes(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

/// Whether an event may have made a directory, whose watch is set up
/// after its first events.
fn may_make_directory(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Create(_) | EventKind::Modify(ModifyKind::Name(_)) | EventKind::Any
    )
}

/// What the watcher counted.
struct Log {
    tick: u64,
    /// The tick of the last change to the sources.
    source_changed: u64,
    /// The tick of the last change to each path of the mirror.
    mirror: HashMap<String, u64>,
    /// Changes to the mirror up to this tick are not all in `mirror`.
    mirror_incomplete: u64,
    /// The tick at which each cookie was seen.
    cookies: HashMap<String, u64>,
    /// Directories made whose watches are not yet known to be set.
    unwatched: usize,
    last_asked: Instant,
}

impl Log {
    fn source(&mut self) {
        self.tick += 1;
        self.source_changed = self.tick;
    }

    fn mirror(&mut self, relative: String) {
        self.tick += 1;
        if self.mirror.len() >= MIRROR_PATHS && !self.mirror.contains_key(&relative) {
            self.mirror.clear();
            self.mirror_incomplete = self.tick;
            return;
        }
        self.mirror.insert(relative, self.tick);
    }

    fn everything(&mut self) {
        self.tick += 1;
        self.source_changed = self.tick;
        self.mirror_incomplete = self.tick;
    }

    fn changed(&mut self, place: Place) {
        match place {
            Place::Source => self.source(),
            Place::Mirror(relative) => self.mirror(relative),
            Place::Cookie(_) | Place::Ignored => {}
        }
    }
}

struct Shared {
    log: Mutex<Log>,
    /// Told when a cookie is seen or a directory's watch is set.
    seen: Condvar,
    places: Places,
    id: String,
    watched: [u64; 4],
}

/// Run a watcher of `root` and its mirror `out_dir` (both canonical):
/// watch both, then answer on the socket until nobody asks for `idle`, a
/// run asks it to stop, or either tree is gone.
pub fn serve(root: &Path, out_dir: &Path, idle: Duration) -> Result<()> {
    let socket = socket_path(out_dir)?;
    let places = Places::new(root, out_dir);
    let watched = identity(root, out_dir)?;
    let shared = Arc::new(Shared {
        log: Mutex::new(Log {
            tick: 0,
            source_changed: 0,
            mirror: HashMap::new(),
            mirror_incomplete: 0,
            cookies: HashMap::new(),
            unwatched: 0,
            last_asked: Instant::now(),
        }),
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
    let (new_directories, to_watch) = mpsc::channel::<PathBuf>();
    let handler = {
        let shared = Arc::clone(&shared);
        move |result: notify::Result<Event>| {
            let mut log = shared.log.lock().expect("the log is never poisoned");
            let event = match result {
                Ok(event) if !event.need_rescan() => event,
                // Events were lost, or a watch: everything may have changed,
                // and directories may have no watch.
                _ => {
                    log.everything();
                    for root in [&shared.places.root, &shared.places.out_dir] {
                        log.unwatched += 1;
                        let _ = new_directories.send(root.clone());
                    }
                    return;
                }
            };
            for path in &event.paths {
                let place = shared.places.place(path);
                if let Place::Cookie(name) = &place {
                    let tick = log.tick;
                    log.cookies.insert(name.clone(), tick);
                    shared.seen.notify_all();
                    continue;
                }
                if !changes(&event.kind) {
                    continue;
                }
                let places = &shared.places;
                if matches!(event.kind, EventKind::Remove(_))
                    && [&places.root, &places.out_dir].contains(&path)
                {
                    // Nothing to watch any more; a run finds no watcher
                    // and starts one for the trees made again.
                    std::process::exit(0);
                }
                // Also the cache directory made again: cookies go there.
                if may_make_directory(&event.kind) && path.is_dir() {
                    log.unwatched += 1;
                    let _ = new_directories.send(path.clone());
                }
                log.changed(place);
            }
        }
    };
    let mut watcher = notify::recommended_watcher(handler)?;
    watcher
        .watch(root, RecursiveMode::Recursive)
        .with_context(|| format!("cannot watch {}", root.display()))?;
    if !out_dir.starts_with(root) {
        watcher
            .watch(out_dir, RecursiveMode::Recursive)
            .with_context(|| format!("cannot watch {}", out_dir.display()))?;
    }
    // A directory's first events come before its watch: it is watched
    // again here, and what it holds counts as changed once it is.
    std::thread::spawn({
        let shared = Arc::clone(&shared);
        move || {
            for directory in to_watch {
                let watched = watcher.watch(&directory, RecursiveMode::Recursive);
                let mut log = shared.log.lock().expect("the log is never poisoned");
                log.unwatched -= 1;
                match watched {
                    Ok(()) => {
                        let place = shared.places.place(&directory);
                        log.changed(place);
                    }
                    Err(_) if !directory.exists() => {}
                    Err(error) => {
                        eprintln!("cannot watch {}: {error}", directory.display());
                        std::process::exit(1);
                    }
                }
                shared.seen.notify_all();
            }
        }
    });

    let _ = std::fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket)
        .with_context(|| format!("cannot listen on {}", socket.display()))?;
    let listening = std::fs::metadata(&socket)?.ino();
    std::thread::spawn({
        let shared = Arc::clone(&shared);
        let (root, out_dir) = (root.to_path_buf(), out_dir.to_path_buf());
        move || loop {
            std::thread::sleep(Duration::from_millis(500));
            let ours = std::fs::metadata(&socket).is_ok_and(|m| m.ino() == listening);
            let asked = shared.log.lock().expect("never poisoned").last_asked;
            let same = identity(&root, &out_dir).is_ok_and(|now| now == shared.watched);
            if !ours || !same || asked.elapsed() > idle {
                if ours {
                    let _ = std::fs::remove_file(&socket);
                }
                std::process::exit(0);
            }
        }
    });
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let shared = Arc::clone(&shared);
        std::thread::spawn(move || answer(stream, &shared));
    }
    Ok(())
}

/// Answer one run's requests, one per line.
fn answer(stream: UnixStream, shared: &Shared) {
    let Ok(writer) = stream.try_clone() else {
        return;
    };
    let mut writer = std::io::BufWriter::new(writer);
    for line in BufReader::new(stream).lines() {
        let Ok(line) = line else { return };
        shared.log.lock().expect("never poisoned").last_asked = Instant::now();
        let request = serde_json::from_str::<Request>(&line);
        let stop = matches!(request, Ok(Request::Stop));
        let reply = match request {
            Ok(request) => reply(request, shared),
            Err(error) => Reply::Failed {
                message: error.to_string(),
            },
        };
        let mut bytes = serde_json::to_vec(&reply).expect("replies serialise");
        bytes.push(b'\n');
        if writer
            .write_all(&bytes)
            .and_then(|()| writer.flush())
            .is_err()
        {
            return;
        }
        if stop {
            if let Ok(socket) = socket_path(&shared.places.out_dir) {
                let _ = std::fs::remove_file(socket);
            }
            std::process::exit(0);
        }
    }
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
            let mirror = (log.mirror_incomplete <= mirror_since && log.unwatched == 0).then(|| {
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
                source_changed: log.source_changed > source_since || log.unwatched > 0,
                mirror,
            }
        }
        Request::Sync { cookie } => {
            let asked = Instant::now();
            while !(log.cookies.contains_key(&cookie) && log.unwatched == 0) {
                let left = SYNC_PATIENCE.saturating_sub(asked.elapsed());
                if left.is_zero() {
                    return Reply::Failed {
                        message: format!(
                            "it did not see {cookie} within {} s",
                            SYNC_PATIENCE.as_secs()
                        ),
                    };
                }
                log = shared
                    .seen
                    .wait_timeout(log, left)
                    .expect("never poisoned")
                    .0;
            }
            log.cookies.remove(&cookie);
            Reply::Synced { tick: log.tick }
        }
        Request::Stop => Reply::Stopping,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_paths_are_placed_in_the_tree_the_mirror_or_neither() {
        let places = Places::new(Path::new("/src"), Path::new("/src/out"));
        assert_eq!(places.place(Path::new("/src/a.c")), Place::Source);
        assert_eq!(
            places.place(Path::new("/src/out/lib/a.c")),
            Place::Mirror("lib/a.c".into())
        );
        assert_eq!(
            places.place(Path::new("/src/out/.pomp-batch/cookie-12")),
            Place::Cookie("cookie-12".into())
        );
        for ignored in [
            "/src/out/.pomp-batch/state",
            "/src/out/.pomp-batch/idf/cookie-1",
            "/src/.git/index",
            "/src/lib/.git/HEAD",
            "/elsewhere/a.c",
        ] {
            assert_eq!(
                places.place(Path::new(ignored)),
                Place::Ignored,
                "{ignored}"
            );
        }
        assert_eq!(
            places.place(Path::new("/src/.git/info/exclude")),
            Place::Source
        );
        assert_eq!(places.place(Path::new("/src/.gitignore")), Place::Source);
    }

    #[test]
    fn opening_and_reading_change_nothing_writing_does() {
        use notify::event::{CreateKind, DataChange, RemoveKind};
        assert!(!changes(&EventKind::Access(AccessKind::Open(
            AccessMode::Any
        ))));
        assert!(!changes(&EventKind::Access(AccessKind::Close(
            AccessMode::Read
        ))));
        assert!(changes(&EventKind::Access(AccessKind::Close(
            AccessMode::Write
        ))));
        assert!(changes(&EventKind::Modify(ModifyKind::Data(
            DataChange::Any
        ))));
        assert!(changes(&EventKind::Create(CreateKind::File)));
        assert!(changes(&EventKind::Remove(RemoveKind::Any)));
    }

    #[test]
    fn a_full_list_of_mirror_paths_is_given_up_for_a_mark() {
        let mut log = Log {
            tick: 0,
            source_changed: 0,
            mirror: HashMap::new(),
            mirror_incomplete: 0,
            cookies: HashMap::new(),
            unwatched: 0,
            last_asked: Instant::now(),
        };
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

    #[test]
    fn only_what_pomp_put_in_the_mirror_matters() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("lib")).unwrap();
        std::fs::write(root.path().join("lib/a.c"), "").unwrap();
        for path in ["lib/a.c", "lib", "pomp_regions.c", "pomp-idf.json", ""] {
            assert!(mirror_path_matters(path, root.path()), "{path}");
        }
        for path in ["lib/a.o", "pomp_regions.o", "build/CMakeCache.txt"] {
            assert!(!mirror_path_matters(path, root.path()), "{path}");
        }
    }
}
