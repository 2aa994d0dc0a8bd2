//! Joining regions across profiles and with the IDF descriptors.
//!
//! The runtime numbers regions in the order their handles were assigned,
//! which differs between processes; what names a region everywhere is its
//! IDF id (`<unique>.<n>`, the unique part a hash of the source file's path
//! and content). Profiles whose regions carry the same IDF ids come from the
//! same build. Across builds ids change with every edit, so regions are then
//! matched by what they are and where: file, enclosing function, construct,
//! name, and their order among alike regions there.

use super::load::{Descriptors, Run};
use pomp2::ctc::construct_words;
use pomp2::profile::{self, ImplicitBarrier, Kind};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};

/// How regions of different profiles are recognised as the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Matching {
    /// By IDF id: every profile comes from one build.
    ById,
    /// By construct, function, file and order: the builds differ.
    BySource,
}

/// A region as the report shows it, the same in every profile.
#[derive(Debug, Clone, Serialize)]
pub struct RegionInfo {
    /// The IDF id, or the source key for regions without one.
    pub key: String,
    /// The construct as people write it (`parallel for`).
    pub construct: String,
    /// A critical section's or user region's name.
    pub name: Option<String>,
    /// The function the region is in (a function's own name).
    pub unit: Option<String>,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub label: String,
    /// The directive as written, from the IDF descriptor.
    pub directive: Option<String>,
    /// The loop schedule, from the CTC string or the descriptor.
    pub schedule: Option<String>,
    pub implicit_barrier: ImplicitBarrier,
    /// The runtime's view of the region, for labels of its parts.
    #[serde(skip)]
    pub profile_region: profile::Region,
}

impl RegionInfo {
    /// `file:line` with the file's last path component.
    pub fn location(&self) -> Option<String> {
        let file = self.file.as_deref()?;
        let short = file.rsplit(['/', '\\']).next().unwrap_or(file);
        Some(match self.line {
            Some(line) => format!("{short}:{line}"),
            None => short.to_string(),
        })
    }

    /// What a call-tree node of `kind` in this region is: the construct
    /// itself (`critical (io)`, `function solve`) or a part of it
    /// (`implicit barrier of parallel for`).
    pub fn what(&self, kind: Kind) -> String {
        profile::kind_what(kind, Some(&self.profile_region))
    }

    /// The full label of a node of `kind` in this region.
    pub fn label(&self, kind: Kind) -> String {
        profile::kind_label(kind, Some(&self.profile_region))
    }
}

/// `implicit_barrier` → `implicit barrier`.
pub fn kind_words(kind: Kind) -> String {
    kind.name().replace('_', " ")
}

/// Every region of a set of profiles, and where each profile's region ids
/// point in it.
#[derive(Debug, Clone)]
pub struct Catalog {
    pub regions: Vec<RegionInfo>,
    pub matching: Matching,
    /// Per profile (in the order given to [`Catalog::new`]): runtime region
    /// id → index into `regions`.
    index: Vec<HashMap<profile::RegionId, usize>>,
    /// Descriptors named regions of these profiles, and profile regions
    /// named no descriptor; reported when descriptors were given.
    pub descriptors_joined: usize,
    pub descriptors_missing: usize,
}

impl Catalog {
    /// Joins the regions of `runs`, matched as `matching` says; the first
    /// run that has a region gives its label.
    pub fn new(runs: &[&Run], matching: Matching, descriptors: &Descriptors) -> Catalog {
        let mut regions: Vec<RegionInfo> = Vec::new();
        let mut by_key: HashMap<String, usize> = HashMap::new();
        let mut index = Vec::with_capacity(runs.len());
        let (mut joined, mut missing) = (0, 0);
        for run in runs {
            let keys = match matching {
                Matching::ById => id_keys(&run.profile.regions),
                Matching::BySource => source_keys(&run.profile.regions),
            };
            let mut map = HashMap::new();
            for (region, key) in run.profile.regions.iter().zip(keys) {
                let at = *by_key.entry(key.clone()).or_insert_with(|| {
                    let descriptor = region.idf_id.as_deref().and_then(|id| descriptors.get(id));
                    match descriptor {
                        Some(_) => joined += 1,
                        None if descriptors.files > 0 => missing += 1,
                        None => {}
                    }
                    regions.push(info(region, key, descriptor));
                    regions.len() - 1
                });
                map.insert(region.id, at);
            }
            index.push(map);
        }
        Catalog {
            regions,
            matching,
            index,
            descriptors_joined: joined,
            descriptors_missing: missing,
        }
    }

    /// The catalog index of runtime region `id` in the `run`th profile.
    pub fn find(&self, run: usize, id: Option<profile::RegionId>) -> Option<usize> {
        self.index[run].get(&id?).copied()
    }

    /// What a node of `kind` in catalog region `region` is called, `kind`
    /// alone for events without a region.
    pub fn label(&self, region: Option<usize>, kind: Kind) -> String {
        match region {
            Some(at) => self.regions[at].label(kind),
            None => kind_words(kind),
        }
    }

    pub fn what(&self, region: Option<usize>, kind: Kind) -> String {
        match region {
            Some(at) => self.regions[at].what(kind),
            None => kind_words(kind),
        }
    }
}

fn info(
    region: &profile::Region,
    key: String,
    descriptor: Option<&pomp2::idf::Region>,
) -> RegionInfo {
    // The descriptor has the clause as written (`static, 1`); the CTC
    // string its kind and chunk in OPARI2's words (`static,1`, `@` for a
    // `*`), or in profiles of earlier versions the kind alone.
    let schedule = descriptor
        .and_then(|d| d.clauses.iter().find(|c| c.name == "schedule"))
        .and_then(|c| c.args.clone())
        .or_else(|| {
            let written = region.attributes.get(pomp2::ctc::keys::HAS_SCHEDULE)?;
            Some(written.replace(',', ", ").replace('@', "*"))
        })
        .or_else(|| region.attributes.get("scheduleType").cloned());
    RegionInfo {
        key,
        construct: construct_words(&region.region_type),
        name: region.name.clone(),
        unit: (region.region_name().function().map(str::to_string))
            .or_else(|| descriptor.and_then(|d| d.unit.clone())),
        file: region
            .file
            .clone()
            .or_else(|| descriptor.map(|d| d.file.clone())),
        line: region
            .first_line
            .or_else(|| descriptor.map(|d| d.line_start as u32)),
        label: region.region_name().label(),
        directive: descriptor.map(|d| d.directive.clone()),
        schedule,
        implicit_barrier: region.implicit_barrier,
        profile_region: region.clone(),
    }
}

/// IDF ids, or the source key where a region has none (a POMP2 library's
/// regions instrumented by another tool).
fn id_keys(regions: &[profile::Region]) -> Vec<String> {
    let sources = source_keys(regions);
    regions
        .iter()
        .zip(sources)
        .map(|(region, source)| region.idf_id.clone().unwrap_or(source))
        .collect()
}

/// `file|unit|construct|name#n`: the n-th such region in line order. The
/// file is its last path component, so a build in another directory
/// matches too.
fn source_keys(regions: &[profile::Region]) -> Vec<String> {
    let base = |region: &profile::Region| {
        let file = region.file.as_deref().unwrap_or("");
        format!(
            "{}|{}|{}|{}",
            file.rsplit(['/', '\\']).next().unwrap_or(file),
            region.unit.as_deref().unwrap_or(""),
            region.region_type,
            region.name.as_deref().unwrap_or("")
        )
    };
    let mut order: Vec<usize> = (0..regions.len()).collect();
    order.sort_by_key(|&i| (regions[i].first_line, regions[i].id));
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut keys = vec![String::new(); regions.len()];
    for i in order {
        let base = base(&regions[i]);
        let n = seen.entry(base.clone()).or_default();
        *n += 1;
        keys[i] = format!("{base}#{n}");
    }
    keys
}

/// Which build a profile comes from: its regions' IDF ids (their source
/// keys where ids are missing).
pub fn build_of(run: &Run) -> BTreeSet<String> {
    id_keys(&run.profile.regions).into_iter().collect()
}

/// How two builds differ, in words; `None` when they are the same.
pub fn build_difference(a: &BTreeSet<String>, b: &BTreeSet<String>) -> Option<String> {
    if a == b {
        return None;
    }
    let only_a = a.difference(b).count();
    let only_b = b.difference(a).count();
    Some(format!(
        "{only_a} region id{} only in the first, {only_b} region id{} only in the second",
        plural(only_a),
        plural(only_b)
    ))
}

pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
