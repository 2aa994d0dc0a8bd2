//! Writing a file so that no reader ever sees part of one, and a run that
//! writes several files writes all of them or none. The instrumenter's
//! tools, the reports and the language server all write this way.

use std::io::Write;
use std::path::Path;

/// Write `bytes` to `path` through a temporary file in the same directory
/// and a rename: readers see the old file, no file, or the whole new one,
/// never part of one. Like a compiler's output it is not forced to disk:
/// after a crash the build reruns anyway, and a sync per file would
/// dominate large builds.
///
/// The old file is removed before the rename rather than replaced by it:
/// ext4 writes a file renamed over another out to disk at once (its
/// `auto_da_alloc` guard), which made replacing a 6 MB output cost 6–8% of
/// its instrumentation. Its other names, such as a source it was a hard
/// link to, keep the old bytes.
///
/// A path naming something other than a regular file (`/dev/null`, a
/// pipe) is written in place: renaming over it would replace the device
/// with a file, for every program on the machine. A symbolic link to a
/// regular file stays a link, its target is replaced; a link to a file
/// not made yet stays a link too, and the file is made.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically_with(path, |to| to.write_all(bytes))
}

/// [`write_atomically`], with the bytes written by `write` as it makes
/// them, through a buffer: the output is never held whole.
pub fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    stage(path, write)?.commit()
}

/// An output written beside its path, not yet in its place: several
/// outputs of one run are all staged before any is committed, so that a
/// run writes all of them or none.
#[derive(Debug)]
pub struct Staged {
    /// The temporary file and the path it goes to; `None` for a device,
    /// written in place as it was staged.
    file: Option<(tempfile::NamedTempFile, std::path::PathBuf)>,
}

impl Staged {
    /// Put the output in its place.
    pub fn commit(self) -> std::io::Result<()> {
        let Some((temporary, path)) = self.file else {
            return Ok(());
        };
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        temporary.persist(&path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// Write what `write` makes for `path` beside it, through a buffer, to be
/// put in place by [`Staged::commit`]; dropped uncommitted, nothing is
/// left. A device is written in place at once. The error says why in
/// words that name the user's paths, never the temporary file's.
pub fn stage(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<Staged> {
    let path = match std::fs::metadata(path) {
        Ok(metadata) if !metadata.is_file() && !metadata.is_dir() => {
            let device = std::fs::OpenOptions::new().write(true).open(path)?;
            write_buffered(device, write)?;
            return Ok(Staged { file: None });
        }
        Ok(metadata) if metadata.is_dir() => {
            return Err(std::io::Error::other("it is a directory"));
        }
        Ok(_) => std::fs::canonicalize(path)?,
        Err(_) => end_of_links(path),
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // Created as any new file is (0666 less the umask), not private as a
    // temporary file would be: builds by other users read it.
    let mut temporary = tempfile::Builder::new()
        .prefix(".pomp-")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(|error| no_file_in(dir, error))?;
    write_buffered(temporary.as_file_mut(), write)?;
    Ok(Staged {
        file: Some((temporary, path)),
    })
}

/// Why no file can be made in `dir`, in words that name it.
fn no_file_in(dir: &Path, error: std::io::Error) -> std::io::Error {
    let message = match std::fs::metadata(dir) {
        Err(_) => format!("the directory {} does not exist", dir.display()),
        Ok(metadata) if !metadata.is_dir() => format!("{} is not a directory", dir.display()),
        Ok(_) => {
            // The system's own words, without the temporary file's name
            // the error ends with.
            let words = error.to_string();
            let cause = words.split(" at path ").next().unwrap_or_default();
            format!("no file can be made in {}: {cause}", dir.display())
        }
    };
    std::io::Error::new(error.kind(), message)
}

/// Runs `write` on `to` through a buffer, flushed at the end: the text is
/// written in many small pieces.
pub fn write_buffered(
    to: impl Write,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut to = std::io::BufWriter::with_capacity(64 * 1024, to);
    write(&mut to)?;
    to.flush()
}

/// Where the symbolic links from `path` lead, followed as far as they go:
/// `path` itself when it is no link. A link to a file not made yet (or to
/// a closed `/proc/self/fd/1`, as `/dev/stdout` is without an output) is
/// written through, never replaced by a file.
fn end_of_links(path: &Path) -> std::path::PathBuf {
    let mut at = path.to_path_buf();
    // As many as the system follows before it gives up.
    for _ in 0..40 {
        match std::fs::read_link(&at) {
            Ok(target) => at = at.parent().unwrap_or(Path::new("")).join(target),
            Err(_) => break,
        }
    }
    at
}

#[cfg(test)]
mod tests {
    #[test]
    fn writing_a_pipe_or_through_a_link_keeps_them_what_they_are() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let pipe = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&pipe)
            .status()
            .unwrap();
        assert!(made.success());
        let reader = {
            let pipe = pipe.clone();
            std::thread::spawn(move || std::fs::read(pipe).unwrap())
        };
        super::write_atomically(&pipe, b"through the pipe").unwrap();
        // Before waiting for the reader, which waits for ever on a pipe
        // nobody opened.
        let kind = std::fs::symlink_metadata(&pipe).unwrap().file_type();
        assert!(kind.is_fifo(), "the pipe was replaced: {kind:?}");
        assert_eq!(reader.join().unwrap(), b"through the pipe");

        let target = dir.path().join("target.c");
        std::fs::write(&target, "old").unwrap();
        let link = dir.path().join("link.c");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        super::write_atomically(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
    }

    #[test]
    fn a_link_to_nothing_yet_stays_a_link_and_its_target_is_made() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("out.c");
        std::os::unix::fs::symlink("made/later.c", &link).unwrap();
        let refused = super::write_atomically(&link, b"int x;\n");
        assert!(refused.is_err(), "the target's directory does not exist");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        std::fs::create_dir(dir.path().join("made")).unwrap();
        super::write_atomically(&link, b"int x;\n").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(
            std::fs::read(dir.path().join("made/later.c")).unwrap(),
            b"int x;\n"
        );
        // A closed standard output: its link leads into /proc, where no
        // file can be made; the link, like /dev/stdout, is left alone.
        let closed = dir.path().join("stdout");
        std::os::unix::fs::symlink("/proc/self/fd/987654", &closed).unwrap();
        assert!(super::write_atomically(&closed, b"x").is_err());
        assert!(std::fs::symlink_metadata(&closed).unwrap().is_symlink());
    }

    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn writing_replaces_the_file_and_leaves_its_other_names_alone() {
        let dir = tempfile::tempdir().unwrap();
        let (source, output) = (dir.path().join("source.c"), dir.path().join("output.c"));
        std::fs::write(&source, b"int old;\n").unwrap();
        std::fs::hard_link(&source, &output).unwrap();
        super::write_atomically(&output, b"int new;\n").unwrap();
        assert_eq!(std::fs::read(&output).unwrap(), b"int new;\n");
        assert_eq!(std::fs::read(&source).unwrap(), b"int old;\n");
        // Written in pieces, as the output is, larger than the buffer.
        let piece = vec![b' '; 40 * 1024];
        super::write_atomically_with(&output, |to| {
            to.write_all(b"int newer;")?;
            to.write_all(&piece)?;
            to.write_all(&piece)?;
            to.write_all(b"\n")
        })
        .unwrap();
        let written = std::fs::read(&output).unwrap();
        assert_eq!(written.len(), 10 + 2 * piece.len() + 1);
        assert!(written.starts_with(b"int newer;") && written.ends_with(b" \n"));
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 2, "a temporary file was left: {names:?}");
    }

    #[test]
    fn a_file_written_atomically_gets_the_mode_any_new_file_gets() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain.c");
        std::fs::write(&plain, b"int x;\n").unwrap();
        let written = dir.path().join("written.c");
        super::write_atomically(&written, b"int x;\n").unwrap();
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode();
        assert_eq!(mode(&written), mode(&plain));
        assert_eq!(std::fs::read(&written).unwrap(), b"int x;\n");
    }
}
