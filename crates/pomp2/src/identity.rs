//! What a file says it is: the few header fields of each document pomp
//! writes, the format names and versions they are checked against, the
//! binary trace's first bytes, and from these which kind of pomp file some
//! bytes are. It sits below every document, so that reading a file as one
//! kind can say which other kind it is.

use serde::de::DeserializeOwned;
use serde::Deserialize;

/// What a header says about a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    Readable,
    /// Another kind of document; what it called itself, if anything.
    Foreign(Option<String>),
    /// This kind, in a version this build does not read.
    Unsupported {
        found: String,
        reads: String,
    },
}

/// A kind of file pomp writes or reads, told by its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Profile,
    /// The runtime's compact binary trace.
    Trace,
    /// A trace as Chrome trace JSON.
    ChromeTrace,
    IdfDescriptor,
    IdfIndex,
    /// An experiment's manifest (`manifest.json`).
    Manifest,
    /// A compilation database (`compile_commands.json`).
    CompilationDatabase,
}

impl Kind {
    /// What the file is called.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Profile => "pomp profile",
            Kind::Trace => "pomp trace (the runtime's binary trace)",
            Kind::ChromeTrace => "pomp trace in Chrome trace JSON",
            Kind::IdfDescriptor => "pomp IDF descriptor",
            Kind::IdfIndex => "pomp IDF index",
            Kind::Manifest => "pomp experiment manifest",
            Kind::CompilationDatabase => "compilation database",
        }
    }

    /// What reads it.
    pub fn read_by(self) -> &'static str {
        match self {
            Kind::Profile => "`pomp report PROFILE` reports on it",
            Kind::Trace => {
                "`pomp report TRACE --otf2 DIR` or `--chrome OUT.json` converts it, and \
                 `pomp report PROFILE` reads it beside the profile that names it"
            }
            Kind::ChromeTrace => "Perfetto (ui.perfetto.dev) and chrome://tracing open it",
            Kind::IdfDescriptor | Kind::IdfIndex => {
                "`pomp report PROFILE --idf FILE` reads it with a profile"
            }
            Kind::Manifest => "`pomp report DIR` reads the experiment in its directory",
            Kind::CompilationDatabase => {
                "`pomp batch --compile-commands FILE --out DIR` instruments the files it lists"
            }
        }
    }

    /// What `bytes` are, if pomp knows them.
    pub fn of(bytes: &[u8]) -> Option<Kind> {
        // Headers are structs, which serde also reads from arrays.
        let object = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
        fn says<H: DeserializeOwned>(bytes: &[u8], identify: impl Fn(&H) -> Identity) -> bool {
            serde_json::from_slice::<H>(bytes)
                .is_ok_and(|header| !matches!(identify(&header), Identity::Foreign(_)))
        }
        /// The fields every entry of a compilation database has.
        #[derive(serde::Deserialize)]
        struct Entry {
            #[allow(dead_code)]
            directory: String,
            #[allow(dead_code)]
            file: String,
        }
        if is_trace(bytes) {
            Some(Kind::Trace)
        } else if object && says(bytes, ProfileHeader::identify) {
            Some(Kind::Profile)
        } else if object && says(bytes, ChromeHeader::identify) {
            Some(Kind::ChromeTrace)
        } else if object && says(bytes, |header: &IdfHeader| header.identify(false)) {
            Some(Kind::IdfDescriptor)
        } else if object && says(bytes, |header: &IdfHeader| header.identify(true)) {
            Some(Kind::IdfIndex)
        } else if object && says(bytes, ExperimentHeader::identify) {
            Some(Kind::Manifest)
        } else if serde_json::from_slice::<Vec<Entry>>(bytes).is_ok_and(|e| !e.is_empty()) {
            Some(Kind::CompilationDatabase)
        } else {
            None
        }
    }
}

/// What a header of a `format` and a `version` field says, for a
/// document whose format is `format` and whose versions this build reads
/// are `versions` (the newest last).
pub fn identify_versioned(
    found_format: &Option<serde_json::Value>,
    found_version: &Option<serde_json::Value>,
    format: &str,
    versions: &[u32],
) -> Identity {
    match found_format {
        Some(serde_json::Value::String(found)) if found == format => {}
        other => return Identity::Foreign(other.as_ref().map(text_of)),
    }
    match found_version {
        Some(version)
            if version
                .as_u64()
                .is_some_and(|v| versions.iter().any(|&known| known as u64 == v)) =>
        {
            Identity::Readable
        }
        other => Identity::Unsupported {
            found: other.as_ref().map_or("none".into(), text_of),
            reads: match versions {
                [only] => only.to_string(),
                [earlier @ .., newest] => {
                    let earlier: Vec<String> = earlier.iter().map(u32::to_string).collect();
                    format!("{} and {newest}", earlier.join(", "))
                }
                [] => "none".to_string(),
            },
        },
    }
}

/// A header value as text: a string as itself, anything else as JSON.
pub fn text_of(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// The value of [`crate::profile::Profile::format`].
pub const PROFILE_FORMAT: &str = "pomp-profile";
/// The versions this crate reads: version 2 is version 3 without what
/// version 3 added.
pub const PROFILE_READS: [u32; 2] = [2, 3];

/// What tells a pomp profile apart.
#[derive(Deserialize)]
pub struct ProfileHeader {
    format: Option<serde_json::Value>,
    version: Option<serde_json::Value>,
}

impl ProfileHeader {
    pub fn identify(&self) -> Identity {
        identify_versioned(&self.format, &self.version, PROFILE_FORMAT, &PROFILE_READS)
    }
}

/// What a trace calls its format, in the runtime's binary file
/// ([`crate::trace::Footer::format`]) and as Chrome trace JSON
/// ([`crate::chrome::TraceInfo::format`]) alike: one trace, two spellings.
pub const TRACE_FORMAT: &str = "pomp-trace";
/// The version of the Chrome trace this crate writes and reads.
pub const CHROME_VERSION: u32 = 1;

/// What tells a pomp trace apart: its `otherData`.
#[derive(Deserialize)]
pub struct ChromeHeader {
    #[serde(rename = "otherData")]
    info: Option<ChromeHeaderInfo>,
}

#[derive(Deserialize)]
struct ChromeHeaderInfo {
    format: Option<serde_json::Value>,
    version: Option<serde_json::Value>,
}

impl ChromeHeader {
    pub fn identify(&self) -> Identity {
        let info = self.info.as_ref();
        match info.and_then(|i| i.format.as_ref()) {
            Some(serde_json::Value::String(format)) if format == TRACE_FORMAT => {}
            other => return Identity::Foreign(other.map(text_of)),
        }
        match info.and_then(|i| i.version.as_ref()) {
            Some(version) if version.as_u64() == Some(CHROME_VERSION as u64) => Identity::Readable,
            other => Identity::Unsupported {
                found: other.map_or("none".into(), text_of),
                reads: CHROME_VERSION.to_string(),
            },
        }
    }
}

/// The value of [`crate::experiment::Manifest::format`].
pub const EXPERIMENT_FORMAT: &str = "pomp-experiment";
/// The version of the manifest this crate reads and writes.
pub const EXPERIMENT_VERSION: u32 = 1;

/// What tells a manifest apart.
#[derive(Deserialize)]
pub struct ExperimentHeader {
    format: Option<serde_json::Value>,
    version: Option<serde_json::Value>,
}

impl ExperimentHeader {
    pub fn identify(&self) -> Identity {
        identify_versioned(
            &self.format,
            &self.version,
            EXPERIMENT_FORMAT,
            &[EXPERIMENT_VERSION],
        )
    }
}

/// The value of [`crate::idf::Document::schema_version`] this crate writes and reads.
pub const IDF_SCHEMA_VERSION: &str = "1.1";

/// What tells an IDF descriptor, or a tree's index of them, apart.
#[derive(Deserialize)]
pub struct IdfHeader {
    schema_version: Option<serde_json::Value>,
    /// Present in an index only.
    files: Option<serde::de::IgnoredAny>,
}

impl IdfHeader {
    /// Whether the document is this schema in a version this build reads;
    /// an index and a single descriptor are told apart by `index`.
    pub fn identify(&self, index: bool) -> Identity {
        let Some(version) = &self.schema_version else {
            return Identity::Foreign(None);
        };
        if self.files.is_some() != index {
            let other = if index {
                "pomp IDF descriptor"
            } else {
                "pomp IDF index"
            };
            return Identity::Foreign(Some(other.into()));
        }
        let version = text_of(version);
        let major = |v: &str| v.split('.').next().map(str::to_owned);
        if major(&version) == major(IDF_SCHEMA_VERSION) {
            Identity::Readable
        } else {
            Identity::Unsupported {
                found: version,
                reads: IDF_SCHEMA_VERSION.into(),
            }
        }
    }
}

/// The first bytes of the runtime's binary trace ([`crate::trace`]).
pub const TRACE_MAGIC: &[u8; 8] = b"POMPTRC\0";

/// Whether `bytes` begin like a trace.
pub fn is_trace(bytes: &[u8]) -> bool {
    bytes.starts_with(TRACE_MAGIC)
}
