//! Profiles as a CUBE4 archive (`.cubex`), the call-path profile format of
//! Score-P and Scalasca that Cube and pycubexr read: a tar file holding
//! `anchor.xml` (the metric tree, the regions and call tree, the system
//! tree of ranks and threads) and, per metric, its values for every call
//! path and thread (`<id>.index`, `<id>.data`).
//!
//! The call tree is the threads' call-path trees merged, region by region
//! and kind by kind, below one root for the run; ranks (one profile each)
//! are the system tree's processes, under their hosts, their threads its
//! locations, numbered in the tree's order. Every metric is exclusive: a
//! call path's own value, which Cube sums over subtrees for inclusive
//! views. MPI calls measured by the POMP MPI library count their time as
//! point-to-point, collective or other MPI, and their bytes.

use crate::analysis::figures::RunFigures;
use crate::join::Catalog;
use crate::load::Run;
use crate::render::html::escape;
use pomp2::profile::{Kind, Node};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{Read, Write};

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
    Mpi,
    MpiPointToPoint,
    MpiCollective,
    MpiOther,
    BytesSent,
    BytesReceived,
}

const METRICS: [Metric; 20] = [
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
    Metric::Mpi,
    Metric::MpiPointToPoint,
    Metric::MpiCollective,
    Metric::MpiOther,
    Metric::BytesSent,
    Metric::BytesReceived,
];

const ROOTS: [Metric; 6] = [
    Metric::Time,
    Metric::Visits,
    Metric::ForkJoin,
    Metric::LossOfParallelism,
    Metric::BytesSent,
    Metric::BytesReceived,
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
        let bytes = |unique, display, description| MetricInfo {
            unique,
            display,
            unit: "bytes",
            integer: true,
            description,
            children: &[],
        };
        match self {
            Metric::Time => seconds(
                "time",
                "Time",
                "Time measured in each call path, less the waiting, task creation and MPI its children metrics hold",
                &[Metric::Synchronisation, Metric::TaskCreation, Metric::Mpi],
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
            Metric::Mpi => seconds(
                "mpi",
                "MPI",
                "Time in MPI calls, as the POMP MPI library measured them",
                &[
                    Metric::MpiPointToPoint,
                    Metric::MpiCollective,
                    Metric::MpiOther,
                ],
            ),
            Metric::MpiPointToPoint => seconds(
                "mpi_point_to_point",
                "Point-to-point",
                "Sends, receives, and the waits, tests and probes of their requests",
                &[],
            ),
            Metric::MpiCollective => seconds(
                "mpi_collective",
                "Collective",
                "Barriers, broadcasts, reductions, gathers, scatters, all-to-alls and scans",
                &[],
            ),
            Metric::MpiOther => seconds(
                "mpi_other",
                "Other MPI",
                "Initialisation, finalisation, communicators and groups",
                &[],
            ),
            Metric::BytesSent => bytes(
                "bytes_sent",
                "Bytes sent",
                "Bytes MPI calls sent to other ranks, in messages and collectives",
            ),
            Metric::BytesReceived => bytes(
                "bytes_received",
                "Bytes received",
                "Bytes MPI calls received from other ranks, in messages and collectives",
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

/// A thread as Cube's system tree shows it: its number in its process.
struct Location {
    thread: u32,
}

/// A process (an MPI rank) as Cube's system tree shows it: its locations
/// are `locations` of the archive's, added together.
struct Process {
    name: String,
    rank: u32,
    host: Option<String>,
    locations: std::ops::Range<u32>,
}

/// One metric's values of one call path, location by location, from the
/// first location that has one to the last: locations are added in order,
/// and a call path most ranks visit has a value on most locations, so the
/// values are kept without their locations.
#[derive(Debug, Default, Clone)]
struct Column {
    first: u32,
    values: Vec<f64>,
}

impl Column {
    fn add(&mut self, location: u32, value: f64) {
        if self.values.is_empty() {
            self.first = location;
        }
        let at = (location - self.first) as usize;
        if at >= self.values.len() {
            self.values.resize(at + 1, 0.0);
        }
        self.values[at] += value;
    }

    fn get(&self, location: u32) -> f64 {
        (location.checked_sub(self.first))
            .and_then(|at| self.values.get(at as usize))
            .copied()
            .unwrap_or(0.0)
    }
}

/// The archive of a run, built profile by profile: the merged call tree,
/// and every call path's values per location.
pub struct Builder {
    regions: Vec<CubeRegion>,
    region_index: HashMap<(Option<usize>, Kind), usize>,
    nodes: Vec<CallNode>,
    locations: Vec<Location>,
    processes: Vec<Process>,
    /// Per metric, per call node.
    values: Vec<Vec<Column>>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
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
            processes: Vec::new(),
            values: vec![Vec::new(); METRICS.len()],
        }
    }
}

impl Builder {
    /// Adds `run`, the catalog's profile `index` with its `figures`: a
    /// process of the system tree, its threads locations.
    pub fn add(&mut self, run: &Run, index: usize, figures: &RunFigures, catalog: &Catalog) {
        let first = self.locations.len() as u32;
        for thread in &run.profile.threads {
            let location = self.locations.len() as u32;
            self.locations.push(Location {
                thread: thread.thread,
            });
            for child in &thread.tree.children {
                self.add_node(0, child, location, index, catalog);
            }
            let breakdown = &thread.breakdown;
            let fork_join = breakdown.fork_ns + breakdown.join_ns;
            self.set(Metric::ForkJoin, 0, location, fork_join);
            let idle = figures.idle_ns(thread.thread);
            self.set(Metric::IdleSerial, 0, location, idle.during_serial_ns);
            self.set(Metric::IdleOutsideTeams, 0, location, idle.outside_teams_ns);
        }
        let profile = &run.profile;
        self.processes.push(Process {
            name: match &profile.rank {
                Some(name) => format!("rank {name}"),
                None => format!("process {}", profile.pid),
            },
            rank: run.rank().unwrap_or(self.processes.len() as u32),
            host: profile.host.clone(),
            locations: first..self.locations.len() as u32,
        });
    }

    /// The hosts, each with its processes (indices into `processes`), in
    /// the order of their first process; processes whose host is not
    /// known come first, on no host.
    fn hosts(&self) -> Vec<(Option<&str>, Vec<usize>)> {
        let mut hosts: Vec<(Option<&str>, Vec<usize>)> = vec![(None, Vec::new())];
        let mut index: HashMap<&str, usize> = HashMap::new();
        for (at, process) in self.processes.iter().enumerate() {
            let slot = match process.host.as_deref() {
                None => 0,
                Some(host) => *index.entry(host).or_insert_with(|| {
                    hosts.push((Some(host), Vec::new()));
                    hosts.len() - 1
                }),
            };
            hosts[slot].1.push(at);
        }
        hosts
    }

    /// The locations in the system tree's order, which numbers them: the
    /// data of every metric follows it.
    fn location_order(&self, hosts: &[(Option<&str>, Vec<usize>)]) -> Vec<u32> {
        (hosts.iter())
            .flat_map(|(_, processes)| processes)
            .flat_map(|&process| self.processes[process].locations.clone())
            .collect()
    }

    fn column(&mut self, metric: Metric, node: usize) -> &mut Column {
        let columns = &mut self.values[metric.id()];
        if columns.len() <= node {
            columns.resize(node + 1, Column::default());
        }
        &mut columns[node]
    }

    fn set(&mut self, metric: Metric, node: usize, location: u32, ns: u64) {
        if ns > 0 {
            self.column(metric, node).add(location, ns as f64 * 1e-9);
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
    fn add_node(
        &mut self,
        parent: usize,
        node: &Node,
        location: u32,
        run: usize,
        catalog: &Catalog,
    ) {
        let region = self.region(catalog.find(run, node.region), node.kind, catalog);
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
            Kind::Mpi => (Some(mpi_class(node, run, catalog)), exclusive),
            _ => (None, 0),
        };
        if let Some(part) = part {
            self.set(part, at, location, part_ns);
        }
        self.set(Metric::Time, at, location, exclusive - part_ns);
        for (metric, count) in [
            (Metric::Visits, node.visits),
            (Metric::BytesSent, node.bytes_sent),
            (Metric::BytesReceived, node.bytes_received),
        ] {
            if count > 0 {
                self.column(metric, at).add(location, count as f64);
            }
        }
        for child in &node.children {
            self.add_node(at, child, location, run, catalog);
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

    /// Writes the archive to `out`, one metric's data at a time.
    pub fn write(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let order = self.preorder();
        let mut id_of = vec![0; self.nodes.len()];
        for (id, &node) in order.iter().enumerate() {
            id_of[node] = id;
        }
        let hosts = self.hosts();
        let locations = self.location_order(&hosts);
        let mut tar = tar::Builder::new(out);
        add_file(
            &mut tar,
            "anchor.xml",
            self.anchor(&id_of, &hosts).as_bytes(),
        )?;
        for metric in METRICS {
            let columns = &self.values[metric.id()];
            // A sparse index: the call paths with a value, in Cube's order;
            // at least one, which may hold zeros only.
            let mut listed: Vec<u32> = (order.iter().enumerate())
                .filter(|(_, &node)| columns.get(node).is_some_and(|c| !c.values.is_empty()))
                .map(|(id, _)| id as u32)
                .collect();
            if listed.is_empty() {
                listed.push(0);
            }
            let mut index = b"CUBEX.INDEX".to_vec();
            index.extend_from_slice(&1u32.to_le_bytes());
            index.extend_from_slice(&0u16.to_le_bytes());
            index.push(1);
            index.extend_from_slice(&(listed.len() as u32).to_le_bytes());
            for id in &listed {
                index.extend_from_slice(&id.to_le_bytes());
            }
            add_file(&mut tar, &format!("{}.index", metric.id()), &index)?;
            let empty = Column::default();
            let data = MetricData {
                columns: listed
                    .iter()
                    .map(|&id| columns.get(order[id as usize]).unwrap_or(&empty))
                    .collect(),
                locations: &locations,
                integer: metric.info().integer,
                at: 0,
                buffer: DATA_HEADER.to_vec(),
                read: 0,
            };
            let size = DATA_HEADER.len() as u64 + 8 * listed.len() as u64 * locations.len() as u64;
            let mut header = file_header(size);
            tar.append_data(&mut header, format!("{}.data", metric.id()), data)?;
        }
        tar.into_inner()?;
        Ok(())
    }

    fn anchor(&self, id_of: &[usize], hosts: &[(Option<&str>, Vec<usize>)]) -> String {
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
            let (paradigm, role) = paradigm_and_role(region);
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
        fn cnode(xml: &mut String, archive: &Builder, id_of: &[usize], node: usize, depth: usize) {
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
        // Groups, locations and hosts numbered in the tree's order.
        let (mut group, mut location) = (0, 0);
        for (node, (host, processes)) in hosts.iter().enumerate() {
            if let Some(host) = host {
                let _ = writeln!(
                    xml,
                    "  <systemtreenode Id=\"{node}\"><name>{}</name><class>node</class>",
                    escape(host)
                );
            }
            for &process in processes {
                let process = &self.processes[process];
                let _ = writeln!(
                    xml,
                    "    <locationgroup Id=\"{group}\"><name>{}</name><rank>{}</rank><type>process</type>",
                    escape(&process.name),
                    process.rank
                );
                group += 1;
                for at in process.locations.clone() {
                    let thread = self.locations[at as usize].thread;
                    let _ = writeln!(
                        xml,
                        "      <location Id=\"{location}\"><name>thread {thread}</name><rank>{thread}</rank><type>thread</type></location>",
                    );
                    location += 1;
                }
                xml.push_str("    </locationgroup>\n");
            }
            if host.is_some() {
                xml.push_str("  </systemtreenode>\n");
            }
        }
        xml.push_str("  </systemtreenode>\n</system>\n</cube>\n");
        xml
    }
}

/// The metric of an MPI call's time: its function's class.
fn mpi_class(node: &Node, run: usize, catalog: &Catalog) -> Metric {
    let region = catalog.find(run, node.region).map(|r| &catalog.regions[r]);
    let function = region
        .and_then(|r| r.name.as_deref())
        .and_then(pomp2::mpi::function);
    match function.map(|f| f.class) {
        Some(pomp2::mpi::Class::PointToPoint) => Metric::MpiPointToPoint,
        Some(pomp2::mpi::Class::Collective) => Metric::MpiCollective,
        _ => Metric::MpiOther,
    }
}

/// Cube's paradigm and role of a call path's region.
fn paradigm_and_role(region: &CubeRegion) -> (&'static str, &'static str) {
    use crate::export::mpi_flow::{self, Flow};
    let Some(kind) = region.kind else {
        return ("measurement", "artificial");
    };
    if kind == Kind::Mpi {
        let role = match mpi_flow::of(&region.name) {
            Flow::PointToPoint => "point2point",
            Flow::Barrier => "barrier",
            Flow::OneToAll => "collective one2all",
            Flow::AllToOne => "collective all2one",
            Flow::AllToAll => "collective all2all",
            Flow::None => "function",
        };
        return ("mpi", role);
    }
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

const DATA_HEADER: &[u8] = b"CUBEX.DATA";

/// A metric's data file as it is read into the archive: each listed call
/// path's values, location by location, made a call path at a time.
struct MetricData<'a> {
    columns: Vec<&'a Column>,
    /// The locations in the order their values go.
    locations: &'a [u32],
    integer: bool,
    /// The next call path to make, the bytes made and how many were read.
    at: usize,
    buffer: Vec<u8>,
    read: usize,
}

impl Read for MetricData<'_> {
    fn read(&mut self, into: &mut [u8]) -> std::io::Result<usize> {
        if self.read == self.buffer.len() {
            let Some(column) = self.columns.get(self.at) else {
                return Ok(0);
            };
            self.at += 1;
            self.buffer.clear();
            self.read = 0;
            for &location in self.locations {
                let value = column.get(location);
                if self.integer {
                    self.buffer.extend_from_slice(&(value as u64).to_le_bytes());
                } else {
                    self.buffer.extend_from_slice(&value.to_le_bytes());
                }
            }
        }
        let n = into.len().min(self.buffer.len() - self.read);
        into[..n].copy_from_slice(&self.buffer[self.read..self.read + n]);
        self.read += n;
        Ok(n)
    }
}

fn file_header(size: u64) -> tar::Header {
    let mut header = tar::Header::new_gnu();
    header.set_size(size);
    header.set_mode(0o644);
    header.set_mtime(0);
    header.set_cksum();
    header
}

fn add_file(
    tar: &mut tar::Builder<&mut dyn Write>,
    name: &str,
    bytes: &[u8],
) -> std::io::Result<()> {
    tar.append_data(&mut file_header(bytes.len() as u64), name, bytes)
}
