//! What a run asks its watcher: whether anything changed since the last
//! run (starting a watcher when none runs), that a walk begins and ends,
//! and what it leaves the next run to ask with.

use super::protocol::{self, Reply, Request, READY, SETTLE_PATIENCE, SUBCOMMAND};
use crate::cache;
use crate::directories::Directories;
use anyhow::{bail, Context as _, Result};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::time::Duration;

/// What the last watched run left for the next, in the cache directory.
const TOKEN: &str = "watch.json";
/// The watcher's messages, in the cache directory.
const LOG: &str = "watcher.log";

/// What the watcher of a run's tree says.
pub enum Watching {
    /// Nothing changed since the last run, whose state stands; the token
    /// to keep.
    NothingChanged(Token),
    /// The tree is to be walked, from this tick on.
    Walk(Walking),
}

/// Ask the watcher of the tree (started with `program` if none runs)
/// whether anything changed since the run that left `token`, a run with
/// these `settings`.
pub fn ask(
    program: &Path,
    directories: &Directories,
    token: Option<Token>,
    settings: &str,
) -> Result<Watching> {
    let root = &directories.root;
    let mut watcher = Watcher::connect(root, &directories.out, program)?;
    let state = cache::Header::of(&directories.cache);
    if let Some(token) = token.filter(|t| t.run == settings && Some(t.state) == state) {
        if let Some(kept) = watcher.vouches(token, root)? {
            return Ok(Watching::NothingChanged(kept));
        }
    }
    Ok(Watching::Walk(watcher.walking()?))
}

/// A connection to the watcher of one output directory.
struct Watcher {
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
    pub state: cache::Header,
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
    /// Once this run wrote all it writes: the token for the next run, a
    /// run with the settings `run` that warned about `warnings`, saved
    /// beside the state the run left in `cache_dir`.
    pub fn finish(mut self, cache_dir: &Path, run: String, warnings: Vec<String>) -> Result<()> {
        let state = cache::Header::of(cache_dir).context("the state was not written")?;
        let mirror_since = match self.watcher.ask(&Request::End)? {
            Reply::Ended { tick } => tick,
            reply => bail!("the watcher answered {reply:?} to the end of a run"),
        };
        let token = Token {
            watcher: self.watcher.id,
            source_since: self.source_since,
            mirror_since,
            run,
            state,
            warnings,
        };
        token.save(cache_dir)
    }
}

impl Watcher {
    /// The watcher of `out_dir` mirroring `root` (both canonical), started
    /// with `program` when none is running.
    fn connect(root: &Path, out_dir: &Path, program: &Path) -> Result<Watcher> {
        let socket = protocol::socket_path(out_dir)?;
        let cache_dir = out_dir.join(cache::DIRECTORY);
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
        self.reader
            .get_mut()
            .write_all(&protocol::encode(request))?;
        let mut answer = String::new();
        if self.reader.read_line(&mut answer)? == 0 {
            bail!("the watcher hung up");
        }
        match protocol::decode(&answer)? {
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
                Ok(r == root && o == out_dir && protocol::identity(root, out_dir)? == watched)
            }
            reply => bail!("the watcher answered {reply:?} to a status"),
        }
    }

    /// Whether nothing that matters changed since the run that left
    /// `token`: then the token to keep, moved past the mirror's changes
    /// found not to matter.
    fn vouches(&mut self, mut token: Token, root: &Path) -> Result<Option<Token>> {
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
    fn walking(mut self) -> Result<Walking> {
        match self.ask(&Request::Begin)? {
            Reply::Begun { tick } => Ok(Walking {
                watcher: self,
                source_since: tick,
            }),
            reply => bail!("the watcher answered {reply:?} to the start of a run"),
        }
    }
}

/// Stop the watcher of `out_dir`; whether one was running.
pub fn stop(out_dir: &Path) -> Result<bool> {
    let out_dir = out_dir
        .canonicalize()
        .with_context(|| format!("cannot read {}", out_dir.display()))?;
    let socket = protocol::socket_path(&out_dir)?;
    let cache_dir = out_dir.join(cache::DIRECTORY);
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
        || crate::own_files::NAMES.contains(&relative)
        || root.join(relative).symlink_metadata().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

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
