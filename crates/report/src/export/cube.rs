//! Profiles as a CUBE4 archive (`.cubex`), the call-path profile format of
//! Score-P and Scalasca that Cube and pycubexr read: a tar file holding
//! `anchor.xml` (the metric tree, the regions and call tree, the system
//! tree of ranks and threads) and, per metric, its values for every call
//! path and thread (`<id>.index`, `<id>.data`).
//!
//! The call tree is the threads' call-path trees merged, region by region
//! and kind by kind, below one root for the run; ranks (one profile each)
//! are the system tree's processes, their threads its locations. Every
//! metric is exclusive: a call path's own value, which Cube sums over
//! subtrees for inclusive views.

use crate::analysis::figures;
use crate::join::Catalog;
use crate::load::Run;
use crate::render::html::escape;
use pomp2::profile::{Kind, Node};
use std::collections::HashMap;
use std::fmt::Write as _;

/// What a metric is, as the anchor describes it.
struct MetricInfo {
    unique: &'static str,
    display: &'static str,
    unit: &'static str,
    integer: bool,
    description: &'static str,
    children: &'static [Metric],
}

/// The metrics, in the order of their ids; the tree is [`ROOTS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Metric {
    Time,
    Synchronisation,
    ImplicitBarrier,
    Barrier,
    Taskwait,
    Critical,
    Ordered,
    Lock,
    TaskCreation,
    Visits,
    ForkJoin,
    LossOfParallelism,
    IdleSerial,
    IdleOutsideTeams,
}

const METRICS: [Metric; 14] = [
    Metric::Time,
    Metric::Synchronisation,
    Metric::ImplicitBarrier,
    Metric::Barrier,
    Metric::Taskwait,
    Metric::Critical,
    Metric::Ordered,
    Metric::Lock,
    Metric::TaskCreation,
    Metric::Visits,
    Metric::ForkJoin,
    Metric::LossOfParallelism,
    Metric::IdleSerial,
    Metric::IdleOutsideTeams,
];

const ROOTS: [Metric; 4] = [
    Metric::Time,
    Metric::Visits,
    Metric::ForkJoin,
    Metric::LossOfParallelism,
];

impl Metric {
    fn id(self) -> usize {
        self as usize
    }

    fn info(self) -> MetricInfo {
        let seconds = |unique, display, description, children| MetricInfo {
            unique,
            display,
            unit: "sec",
            integer: false,
            description,
            children,
        };
        match self {
            Metric::Time => seconds(
                "time",
                "Time",
                "Time measured in each call path, less the waiting and task creation its children metrics hold",
                &[Metric::Synchronisation, Metric::TaskCreation],
            ),
            Metric::Synchronisation => seconds(
                "synchronisation",
                "Synchronisation",
                "Waiting: barriers, taskwait, entry to critical and ordered, locks",
                &[
                    Metric::ImplicitBarrier,
                    Metric::Barrier,
                    Metric::Taskwait,
                    Metric::Critical,
                    Metric::Ordered,
                    Metric::Lock,
                ],
            ),
            Metric::ImplicitBarrier => seconds(
                "implicit_barrier",
                "Implicit barrier",
                "Waiting at implicit barriers, measured or inferred",
                &[],
            ),
            Metric::Barrier => seconds("barrier", "Barrier", "Waiting at explicit barriers", &[]),
            Metric::Taskwait => seconds("taskwait", "Taskwait", "Time in taskwait", &[]),
            Metric::Critical => seconds(
                "critical_wait",
                "Critical",
                "Waiting to enter critical sections",
                &[],
            ),
            Metric::Ordered => seconds(
                "ordered_wait",
                "Ordered",
                "Waiting to enter ordered regions",
                &[],
            ),
            Metric::Lock => seconds("lock_wait", "Lock", "Waiting to acquire OpenMP locks", &[]),
            Metric::TaskCreation => seconds(
                "task_creation",
                "Task creation",
                "Control of parallelism: creating tasks",
                &[],
            ),
            Metric::Visits => MetricInfo {
                unique: "visits",
                display: "Visits",
                unit: "occ",
                integer: true,
                description: "Number of visits of each call path",
                children: &[],
            },
            Metric::ForkJoin => seconds(
                "fork_join",
                "Fork and join",
                "Control of parallelism: forking and joining teams, per thread at the root (the runtime does not attribute it to call paths; it is part of the parallel regions' time)",
                &[],
            ),
            Metric::LossOfParallelism => seconds(
                "loss_of_parallelism",
                "Loss of parallelism",
                "Threads idle outside every parallel region and task, per thread at the root",
                &[Metric::IdleSerial, Metric::IdleOutsideTeams],
            ),
            Metric::IdleSerial => seconds(
                "idle_serial",
                "Idle while serial code runs",
                "Idle while the initial thread ran serial code",
                &[],
            ),
            Metric::IdleOutsideTeams => seconds(
                "idle_outside_teams",
                "Idle outside a running team",
                "Idle while a team ran without the thread",
                &[],
            ),
        }
    }
}

/// A Cube region: one per catalog region and kind, and the run's root.
struct CubeRegion {
    name: String,
    file: Option<String>,
    begin: Option<u32>,
    end: Option<u32>,
    kind: Option<Kind>,
}

struct CallNode {
    region: usize,
    children: Vec<usize>,
    by_region: HashMap<usize, usize>,
}

/// A thread as Cube's system tree shows it.
struct Location {
    rank: usize,
    thread: u32,
}

/// The merged call tree, with every call path's values per location.
struct Archive {
    regions: Vec<CubeRegion>,
    region_index: HashMap<(Option<usize>, Kind), usize>,
    nodes: Vec<CallNode>,
    locations: Vec<Location>,
    ranks: Vec<String>,
    /// Per metric, per (node, location).
    values: Vec<HashMap<(usize, usize), f64>>,
}

/// Writes `runs` (one profile per rank) as a CUBE4 archive.
pub fn archive(runs: &[Run], catalog: &Catalog) -> std::io::Result<Vec<u8>> {
    let mut archive = Archive {
        regions: vec![CubeRegion {
            name: "pomp run".into(),
            file: None,
            begin: None,
            end: None,
            kind: None,
        }],
        region_index: HashMap::new(),
        nodes: vec![CallNode {
            region: 0,
            children: Vec::new(),
            by_region: HashMap::new(),
        }],
        locations: Vec::new(),
        ranks: Vec::new(),
        values: vec![HashMap::new(); METRICS.len()],
    };
    for (rank, run) in runs.iter().enumerate() {
        archive.ranks.push(match &run.profile.rank {
            Some(name) => format!("rank {name}"),
            None => format!("process {}", run.profile.pid),
        });
        let figures = figures::collect(run, rank, catalog);
        for thread in &run.profile.threads {
            let location = archive.locations.len();
            archive.locations.push(Location {
                rank,
                thread: thread.thread,
            });
            for child in &thread.tree.children {
                archive.add(0, child, location, rank, catalog);
            }
            let breakdown = &thread.breakdown;
            archive.set(
                Metric::ForkJoin,
                0,
                location,
                breakdown.fork_ns + breakdown.join_ns,
            );
            let idle = figures.idle_ns(thread.thread);
            archive.set(Metric::IdleSerial, 0, location, idle.during_serial_ns);
            archive.set(Metric::IdleOutsideTeams, 0, location, idle.outside_teams_ns);
        }
    }
    archive.write()
}

impl Archive {
    fn set(&mut self, metric: Metric, node: usize, location: usize, ns: u64) {
        if ns > 0 {
            *self.values[metric.id()]
                .entry((node, location))
                .or_default() += ns as f64 * 1e-9;
        }
    }

    fn region(&mut self, region: Option<usize>, kind: Kind, catalog: &Catalog) -> usize {
        if let Some(&index) = self.region_index.get(&(region, kind)) {
            return index;
        }
        let info = region.map(|r| &catalog.regions[r]);
        let profile_region = info.map(|r| &r.profile_region);
        self.regions.push(CubeRegion {
            name: catalog.label(region, kind),
            file: info.and_then(|r| r.file.clone()),
            begin: profile_region.and_then(|r| r.first_line),
            end: profile_region.and_then(|r| r.end_last_line.or(r.last_line)),
            kind: Some(kind),
        });
        let index = self.regions.len() - 1;
        self.region_index.insert((region, kind), index);
        index
    }

    /// Adds a thread's `node` (and its subtree) below call node `parent`.
    fn add(&mut self, parent: usize, node: &Node, location: usize, rank: usize, catalog: &Catalog) {
        let region = self.region(catalog.find(rank, node.region), node.kind, catalog);
        let at = match self.nodes[parent].by_region.get(&region) {
            Some(&at) => at,
            None => {
                self.nodes.push(CallNode {
                    region,
                    children: Vec::new(),
                    by_region: HashMap::new(),
                });
                let at = self.nodes.len() - 1;
                self.nodes[parent].children.push(at);
                self.nodes[parent].by_region.insert(region, at);
                at
            }
        };
        // The node's own time, split into the waiting or creating its kind
        // means and the rest.
        let exclusive = node.exclusive_ns;
        let (part, part_ns) = match node.kind {
            Kind::ImplicitBarrier => (Some(Metric::ImplicitBarrier), exclusive),
            Kind::Barrier => (Some(Metric::Barrier), exclusive),
            Kind::Taskwait => (Some(Metric::Taskwait), exclusive),
            Kind::Critical => (Some(Metric::Critical), node.wait_ns.min(exclusive)),
            Kind::Ordered => (Some(Metric::Ordered), node.wait_ns.min(exclusive)),
            Kind::SetLock | Kind::SetNestLock => (Some(Metric::Lock), node.wait_ns.min(exclusive)),
            Kind::TaskCreate | Kind::UntiedTaskCreate => (Some(Metric::TaskCreation), exclusive),
            _ => (None, 0),
        };
        if let Some(part) = part {
            self.set(part, at, location, part_ns);
        }
        self.set(Metric::Time, at, location, exclusive - part_ns);
        if node.visits > 0 {
            *self.values[Metric::Visits.id()]
                .entry((at, location))
                .or_default() += node.visits as f64;
        }
        for child in &node.children {
            self.add(at, child, location, rank, catalog);
        }
    }

    /// Call nodes in depth-first order: Cube's numbering of call paths,
    /// which its exclusive metrics' data follow.
    fn preorder(&self) -> Vec<usize> {
        let mut order = Vec::with_capacity(self.nodes.len());
        let mut stack = vec![0];
        while let Some(node) = stack.pop() {
            order.push(node);
            stack.extend(self.nodes[node].children.iter().rev());
        }
        order
    }

    fn write(&self) -> std::io::Result<Vec<u8>> {
        let order = self.preorder();
        let mut id_of = vec![0; self.nodes.len()];
        for (id, &node) in order.iter().enumerate() {
            id_of[node] = id;
        }
        let mut tar = tar::Builder::new(Vec::new());
        add_file(&mut tar, "anchor.xml", self.anchor(&id_of).as_bytes())?;
        for metric in METRICS {
            let (index, data) = self.data(metric, &order);
            add_file(&mut tar, &format!("{}.index", metric.id()), &index)?;
            add_file(&mut tar, &format!("{}.data", metric.id()), &data)?;
        }
        tar.into_inner()
    }

    /// A metric's index (every call path, in depth-first order) and its
    /// values, call path by call path, location by location.
    fn data(&self, metric: Metric, order: &[usize]) -> (Vec<u8>, Vec<u8>) {
        let mut index = b"CUBEX.INDEX".to_vec();
        index.extend_from_slice(&1u32.to_le_bytes());
        index.extend_from_slice(&0u16.to_le_bytes());
        // A sparse index: the call paths listed.
        index.push(1);
        index.extend_from_slice(&(order.len() as u32).to_le_bytes());
        for id in 0..order.len() as u32 {
            index.extend_from_slice(&id.to_le_bytes());
        }
        let values = &self.values[metric.id()];
        let mut data = b"CUBEX.DATA".to_vec();
        for &node in order {
            for location in 0..self.locations.len() {
                let value = values.get(&(node, location)).copied().unwrap_or(0.0);
                if metric.info().integer {
                    data.extend_from_slice(&(value as u64).to_le_bytes());
                } else {
                    data.extend_from_slice(&value.to_le_bytes());
                }
            }
        }
        (index, data)
    }

    fn anchor(&self, id_of: &[usize]) -> String {
        let mut xml =
            String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.0\">\n");
        xml.push_str("<attr key=\"CUBE_CT_AGGR\" value=\"SUM\"/>\n");
        xml.push_str("<attr key=\"Creator\" value=\"pomp report\"/>\n");
        xml.push_str("<doc><mirrors></mirrors></doc>\n<metrics>\n");
        fn write_metric(xml: &mut String, metric: Metric, depth: usize) {
            let info = metric.info();
            let pad = "  ".repeat(depth);
            let _ = writeln!(
                xml,
                "{pad}<metric id=\"{}\" type=\"EXCLUSIVE\"><disp_name>{}</disp_name><uniq_name>{}</uniq_name><dtype>{}</dtype><uom>{}</uom><url></url><descr>{}</descr>",
                metric.id(),
                escape(info.display),
                info.unique,
                if info.integer { "UINT64" } else { "DOUBLE" },
                info.unit,
                escape(info.description),
            );
            for &child in info.children {
                write_metric(xml, child, depth + 1);
            }
            let _ = writeln!(xml, "{pad}</metric>");
        }
        for root in ROOTS {
            write_metric(&mut xml, root, 1);
        }
        xml.push_str("</metrics>\n<program>\n");
        for (id, region) in self.regions.iter().enumerate() {
            let (paradigm, role) = paradigm_and_role(region.kind);
            let _ = writeln!(
                xml,
                "  <region id=\"{id}\" mod=\"{}\" begin=\"{}\" end=\"{}\"><name>{}</name><mangled_name>{}</mangled_name><paradigm>{paradigm}</paradigm><role>{role}</role><url></url><descr></descr></region>",
                escape(region.file.as_deref().unwrap_or("")),
                region.begin.map_or(-1, i64::from),
                region.end.map_or(-1, i64::from),
                escape(&region.name),
                escape(&region.name),
            );
        }
        fn cnode(xml: &mut String, archive: &Archive, id_of: &[usize], node: usize, depth: usize) {
            let pad = "  ".repeat(depth);
            let _ = writeln!(
                xml,
                "{pad}<cnode id=\"{}\" calleeId=\"{}\">",
                id_of[node], archive.nodes[node].region
            );
            for &child in &archive.nodes[node].children {
                cnode(xml, archive, id_of, child, depth + 1);
            }
            let _ = writeln!(xml, "{pad}</cnode>");
        }
        cnode(&mut xml, self, id_of, 0, 1);
        xml.push_str("</program>\n<system>\n  <systemtreenode Id=\"0\"><name>machine</name><class>machine</class>\n");
        for (rank, name) in self.ranks.iter().enumerate() {
            let _ = writeln!(
                xml,
                "    <locationgroup Id=\"{rank}\"><name>{}</name><rank>{rank}</rank><type>process</type>",
                escape(name)
            );
            for (id, location) in self.locations.iter().enumerate() {
                if location.rank == rank {
                    let _ = writeln!(
                        xml,
                        "      <location Id=\"{id}\"><name>thread {}</name><rank>{}</rank><type>thread</type></location>",
                        location.thread, location.thread
                    );
                }
            }
            xml.push_str("    </locationgroup>\n");
        }
        xml.push_str("  </systemtreenode>\n</system>\n</cube>\n");
        xml
    }
}

/// Cube's paradigm and role of a call path's region.
fn paradigm_and_role(kind: Option<Kind>) -> (&'static str, &'static str) {
    let Some(kind) = kind else {
        return ("measurement", "artificial");
    };
    let role = match kind {
        Kind::Thread => "artificial",
        Kind::Parallel => "parallel",
        Kind::For | Kind::Do | Kind::Loop | Kind::Taskloop | Kind::Distribute => "loop",
        Kind::Sections => "sections",
        Kind::Section => "section",
        Kind::Single => "single",
        Kind::SingleBody => "single sblock",
        Kind::Master | Kind::Masked => "master",
        Kind::Critical => "critical",
        Kind::Atomic => "atomic",
        Kind::Ordered => "ordered",
        Kind::Workshare => "workshare",
        Kind::Barrier => "barrier",
        Kind::ImplicitBarrier => "implicit barrier",
        Kind::Flush => "flush",
        Kind::TaskCreate | Kind::UntiedTaskCreate => "task create",
        Kind::Task | Kind::UntiedTask => "task",
        Kind::Taskwait => "taskwait",
        Kind::UserRegion => "user region",
        Kind::SetLock | Kind::SetNestLock | Kind::TestLock | Kind::TestNestLock => "wrapper",
        _ => "code",
    };
    let paradigm = if kind == Kind::UserRegion {
        "user"
    } else {
        "openmp"
    };
    (paradigm, role)
}

fn add_file(tar: &mut tar::Builder<Vec<u8>>, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let mut header = tar::Header::new_gnu();
    header.set_size(bytes.len() as u64);
    header.set_mode(0o644);
    header.set_mtime(0);
    header.set_cksum();
    tar.append_data(&mut header, name, bytes)
}
