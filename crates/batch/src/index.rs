//! The project-wide IDF index, `pomp-idf.json` ([`pomp2::idf::Index`]):
//! written by streaming each file's kept descriptor into it, so that its
//! size never has to fit in memory at once.

use serde::Serialize;
use std::io::{self, Write};
use std::path::Path;

/// One instrumented file: where it is (in the tree and in the mirror),
/// and its descriptor in the cache.
pub struct IndexedFile {
    pub path: String,
    pub descriptor: std::path::PathBuf,
}

pub fn write(
    index: &Path,
    root: &Path,
    files: impl Iterator<Item = IndexedFile>,
) -> io::Result<()> {
    #[derive(Serialize)]
    struct Head<'a> {
        schema_version: &'a str,
        tool: pomp2::idf::Tool,
    }
    let head = Head {
        schema_version: pomp2::idf::SCHEMA_VERSION,
        tool: pomp2::idf::Tool {
            name: "pomp".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
    };
    let directory = index.parent().unwrap_or(Path::new("."));
    let mut temporary = tempfile::Builder::new()
        .prefix(".pomp-")
        .tempfile_in(directory)?;
    {
        let mut out = io::BufWriter::new(temporary.as_file_mut());
        let mut head = serde_json::to_vec(&head).map_err(io::Error::other)?;
        head.pop(); // the closing brace: the root and the files follow
        out.write_all(&head)?;
        write!(out, ",\"root\":")?;
        serde_json::to_writer(&mut out, &root.to_string_lossy()).map_err(io::Error::other)?;
        write!(out, ",\"files\":[")?;
        for (n, file) in files.enumerate() {
            if n > 0 {
                out.write_all(b",")?;
            }
            out.write_all(b"{\"path\":")?;
            serde_json::to_writer(&mut out, &file.path).map_err(io::Error::other)?;
            out.write_all(b",\"output\":")?;
            serde_json::to_writer(&mut out, &file.path).map_err(io::Error::other)?;
            out.write_all(b",\"document\":")?;
            io::copy(&mut std::fs::File::open(&file.descriptor)?, &mut out)?;
            out.write_all(b"}")?;
        }
        out.write_all(b"]}\n")?;
        out.flush()?;
    }
    temporary.persist(index).map_err(|e| e.error)?;
    Ok(())
}
