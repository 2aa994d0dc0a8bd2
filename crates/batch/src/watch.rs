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
//! change to the mirror counts. While it writes, the mirror is not
//! watched: the run's own writes cost neither the kernel nor the watcher
//! anything. The next run asks the watcher whether anything changed since;
//! the watcher first makes a file of its own and waits to see it, so that
//! every event from before the question is counted. When nothing changed,
//! the last run's state is the answer, and the tree is neither walked nor
//! read.
//!
//! What the watcher cannot vouch for is a change: a lost event (the queue
//! overflowed), a watcher that is not the one the last run talked to. A
//! new directory counts once its watch is set, so a run that starts after
//! that finds whatever came into it before. Changes in the mirror count
//! only where the mirror holds pomp's files: objects a build writes there
//! do not stop the next run from trusting the watcher.

use anyhow::{bail, Context as _, Result};
use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The hidden `pomp` subcommand that runs a watcher.
pub const SUBCOMMAND: &str = "__batch-watcher";
/// What the last watched run left for the next, in the cache directory.
const TOKEN: &str = "watch.json";
/// The watcher's messages, in the cache directory.
const LOG: &str = "watcher.log";
/// Files the watcher makes in the cache directory to learn when it has
/// seen every event from before them.
const COOKIE: &str = "cookie-";

/// A watcher nobody asked for so long stops.
pub const IDLE: Duration = Duration::from_secs(60 * 60);
/// Paths of the mirror remembered; past that, a change is assumed.
const MIRROR_PATHS: usize = 10_000;
/// How long the watcher waits to see its own cookie.
const SETTLE_PATIENCE: Duration = Duration::from_secs(10);
/// What a new watcher prints once it watches both trees and listens.
const READY: &str = "watching";

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "ask", rename_all = "snake_case")]
enum Request {
    Status,
    /// What changed since these ticks, once the watcher has seen every
    /// event from before the question.
    Changes {
        source_since: u64,
        mirror_since: u64,
    },
    /// A run starts walking the tree and writing the mirror: the tick
    /// before, and the mirror is not watched until the run ends.
    Begin,
    /// The run wrote all it writes: the mirror is watched again from the
    /// tick answered.
    End,
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
    Begun {
        tick: u64,
    },
    Ended {
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
}

/// What the last watched run left: the ticks after which changes count,
/// and what the state and the run were.
#[derive(Debug, Serialize, Deserialize)]
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
        let mirror_since = match self.watcher.ask(&Request::End)? {
            Reply::Ended { tick } => tick,
            reply => bail!("the watcher answered {reply:?} to the end of a run"),
        };
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
        if let Ok(mut watcher) = Watcher::open(&socket) {
            if watcher.watches(root, out_dir)? {
                return Ok(watcher);
            }
            // Of the same output directory, for another source tree.
            let _ = watcher.ask(&Request::Stop);
            let _ = std::fs::remove_file(&socket);
        }
        let log = std::fs::File::create(cache_dir.join(LOG))
            .with_context(|| format!("cannot write {}", cache_dir.join(LOG).display()))?;
        // It runs in `/`: a program named relative to here is named in full.
        let program = std::path::absolute(program)?;
        let mut child = std::process::Command::new(&program)
            .arg(SUBCOMMAND)
            .arg(root)
            .arg(out_dir)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(log)
            // Not stopped with the terminal or the shell's job, and holding
            // no directory but those it watches.
            .process_group(0)
            .current_dir("/")
            .spawn()
            .with_context(|| format!("cannot start {}", program.display()))?;
        // It says when it watches both trees and listens, or stops.
        let mut said = String::new();
        let stdout = child.stdout.take().expect("piped");
        let _ = BufReader::new(stdout).read_line(&mut said);
        if said.trim_end() != READY {
            let _ = child.kill();
            let _ = child.wait();
            let said = std::fs::read_to_string(cache_dir.join(LOG)).unwrap_or_default();
            bail!("the watcher stopped: {}", said.trim());
        }
        let mut watcher = Watcher::open(&socket)
            .with_context(|| format!("cannot reach the watcher at {}", socket.display()))?;
        if !watcher.watches(root, out_dir)? {
            bail!("another watcher took {}", socket.display());
        }
        Ok(watcher)
    }

    fn open(socket: &Path) -> std::io::Result<Watcher> {
        let stream = UnixStream::connect(socket)?;
        stream.set_read_timeout(Some(SETTLE_PATIENCE + Duration::from_secs(5)))?;
        Ok(Watcher {
            reader: BufReader::new(stream),
            id: String::new(),
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
    /// `token`: then the token to keep, moved past the mirror's changes
    /// found not to matter.
    pub fn vouches(&mut self, mut token: Token, root: &Path) -> Result<Option<Token>> {
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
        let Some(mirror) = mirror.filter(|_| id == self.id && !source_changed) else {
            return Ok(None);
        };
        if mirror.iter().any(|path| mirror_path_matters(path, root)) {
            return Ok(None);
        }
        token.mirror_since = tick;
        Ok(Some(token))
    }

    /// Start a run that walks the tree.
    pub fn walking(mut self) -> Result<Walking> {
        match self.ask(&Request::Begin)? {
            Reply::Begun { tick } => Ok(Walking {
                watcher: self,
                source_since: tick,
            }),
            reply => bail!("the watcher answered {reply:?} to the start of a run"),
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
    let Ok(mut watcher) = Watcher::open(&socket) else {
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
    relative.is_empty()
        || super::OWN_FILES.contains(&relative)
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
        if let Some(name) = under(path, &self.cache_dir) {
            return match name.strip_prefix(COOKIE.as_bytes()) {
                Some(rest) if !rest.contains(&b'/') => {
                    Place::Cookie(String::from_utf8_lossy(name).into_owned())
                }
                _ => Place::Ignored,
            };
        }
        // The mirror may be inside the tree: it is asked for first.
        if let Some(relative) = under(path, &self.out_dir) {
            return Place::Mirror(String::from_utf8_lossy(relative).into_owned());
        }
        match under(path, &self.root) {
            Some(relative) if !inside_git(relative) => Place::Source,
            _ => Place::Ignored,
        }
    }
}

/// `path` relative to `directory` when it is in it (empty for the
/// directory itself), compared as bytes: events come by the thousand, and
/// both paths are absolute and canonical.
fn under<'p>(path: &'p Path, directory: &Path) -> Option<&'p [u8]> {
    let rest = path
        .as_os_str()
        .as_encoded_bytes()
        .strip_prefix(directory.as_os_str().as_encoded_bytes())?;
    match rest {
        [] => Some(rest),
        [b'/', relative @ ..] => Some(relative),
        _ => None,
    }
}

/// Git's own files, which the walk leaves out; but `.git/info/exclude`
/// says which files the walk ignores.
fn inside_git(relative: &[u8]) -> bool {
    let mut components = relative.split(|&b| b == b'/');
    if !components.any(|c| c == b".git") {
        return false;
    }
    components.ne([&b"info"[..], b"exclude"])
}

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
struct Watches {
    handle: inotify::Watches,
    directories: HashMap<i32, (WatchDescriptor, PathBuf)>,
    /// A run writes the mirror: its directories are not watched, so that
    /// neither the kernel nor the watcher spends time on the run's own
    /// writes.
    mirror_paused: bool,
}

impl Watches {
    fn new(inotify: &Inotify) -> Watches {
        Watches {
            handle: inotify.watches(),
            directories: HashMap::new(),
            mirror_paused: false,
        }
    }

    /// Watch `directory` and every directory below it, except those inside
    /// the cache directory, whose files runs write and no run reads as
    /// part of the tree. A directory gone meanwhile is left out.
    fn add_tree(&mut self, directory: &Path, places: &Places) -> Result<()> {
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

    fn add_both(&mut self, places: &Places) -> Result<()> {
        self.add_tree(&places.root, places)?;
        if !places.out_dir.starts_with(&places.root) {
            self.add_tree(&places.out_dir, places)?;
        }
        Ok(())
    }

    /// Stop watching the mirror, while a run writes it. The run's walk
    /// sees what changed there before it.
    fn pause_mirror(&mut self, places: &Places) {
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
    fn resume_mirror(&mut self, places: &Places) -> Result<()> {
        if self.mirror_paused {
            self.mirror_paused = false;
            self.add_tree(&places.out_dir, places)?;
        }
        Ok(())
    }

    fn path(&self, id: i32) -> Option<&Path> {
        self.directories.get(&id).map(|(_, path)| path.as_path())
    }
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
    /// Cookies made and seen.
    cookies: HashSet<String>,
    cookies_made: u64,
    last_asked: Instant,
}

impl Log {
    fn new() -> Log {
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
    /// Locked after `log` when both are.
    watches: Mutex<Watches>,
    /// Told when a cookie is seen.
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
    std::thread::spawn({
        let shared = Arc::clone(&shared);
        move || match follow(inotify, &shared) {
            // Nothing to watch any more; a run finds no watcher and starts
            // one for the trees made again.
            Ok(()) => std::process::exit(0),
            Err(error) => {
                eprintln!("{error:#}");
                std::process::exit(1);
            }
        }
    });

    let _ = std::fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket)
        .with_context(|| format!("cannot listen on {}", socket.display()))?;
    let listening = std::fs::metadata(&socket)?.ino();
    // The run that started it waits for this line; nothing else is
    // written there. A run that no longer waits is no reason to stop.
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "{READY}").and_then(|()| stdout.flush());
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
        assert_eq!(places.place(Path::new("/src/outside.c")), Place::Source);
        assert_eq!(
            places.place(Path::new("/src/out")),
            Place::Mirror("".into())
        );
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
