//! MPI + OpenMP programs (`corpus/mpi`) built through the wrappers both
//! ways (`POMP_CC=mpicc pomp-cc` and `OMPI_CC=pomp-cc mpicc`, and their
//! C++ and Fortran kin) with Open MPI, run on 4 ranks of 2 threads, and
//! compared with the same programs built plain: the same answers, one
//! experiment per run with one summary, MPI regions in every profile, and
//! in the traces every message sent received with the same bytes, tag and
//! communicator, never before it was sent once the clocks' offsets are
//! applied.

#[path = "support/shared_scratch.rs"]
mod shared_scratch;

use pomp2::clock::{ClockSync, SyncMethod};
use pomp2::experiment::{Agreement, Experiment};
use pomp2::mpi::{CommId, ThreadLevel};
use pomp2::profile::{Kind, Node, Profile};
use pomp2::trace::{MpiRecord, Trace};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

const RANKS: usize = 4;

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A language of the corpus: the plain MPI wrapper, pomp's wrapper, the
/// variables that make either run the other.
#[derive(Clone, Copy)]
struct Toolchain {
    mpi: &'static str,
    pomp: &'static str,
    /// Makes pomp's wrapper run the MPI wrapper.
    pomp_runs: &'static str,
    /// Makes the MPI wrapper run pomp's.
    mpi_runs: &'static str,
}

fn toolchain(source: &str) -> Toolchain {
    match Path::new(source).extension().and_then(|e| e.to_str()) {
        Some("c") => Toolchain {
            mpi: "mpicc",
            pomp: "pomp-cc",
            pomp_runs: "POMP_CC",
            mpi_runs: "OMPI_CC",
        },
        Some("cpp") => Toolchain {
            mpi: "mpicxx",
            pomp: "pomp-cxx",
            pomp_runs: "POMP_CXX",
            mpi_runs: "OMPI_CXX",
        },
        _ => Toolchain {
            mpi: "mpif90",
            pomp: "pomp-f90",
            pomp_runs: "POMP_FC",
            mpi_runs: "OMPI_FC",
        },
    }
}

/// Where the tests build and run: the wrappers installed, pomp's cache
/// (the MPI library is built into it once), the runtime archive beside.
struct Place {
    root: PathBuf,
}

fn place() -> &'static Place {
    static PLACE: OnceLock<Place> = OnceLock::new();
    PLACE.get_or_init(|| {
        let root = shared_scratch::directory("pomp-mpi-test");
        let pomp = PathBuf::from(env!("CARGO_BIN_EXE_pomp"));
        let installed = Command::new(&pomp)
            .arg("install-wrappers")
            .arg(root.join("bin"))
            .output()
            .unwrap();
        assert!(installed.status.success(), "{installed:?}");
        build_runtime(&pomp);
        Place { root }
    })
}

/// The runtime archive the wrappers link, built as the tests' pomp was.
fn build_runtime(pomp: &Path) {
    let release = pomp.parent().is_some_and(|d| d.ends_with("release"));
    let mut cargo = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cargo
        .current_dir(repository())
        .args(["build", "--quiet", "-p", "pomp-runtime"]);
    if release {
        cargo.arg("--release");
    }
    assert!(cargo.status().unwrap().success(), "building the runtime");
}

impl Place {
    fn bin(&self) -> PathBuf {
        self.root.join("bin")
    }

    /// A command with the wrappers first on the `PATH` and nothing of the
    /// caller's pomp settings.
    fn command(&self, program: impl AsRef<std::ffi::OsStr>, directory: &Path) -> Command {
        let path = std::env::join_paths(
            std::iter::once(self.bin())
                .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
        )
        .unwrap();
        let mut command = Command::new(program);
        command
            .current_dir(directory)
            .env("PATH", path)
            .env("POMP_CACHE_DIR", self.root.join("cache"))
            .env(
                "POMP_RUNTIME_DIR",
                PathBuf::from(env!("CARGO_BIN_EXE_pomp")).parent().unwrap(),
            );
        for variable in [
            "POMP_CC",
            "POMP_CXX",
            "POMP_FC",
            "OMPI_CC",
            "OMPI_CXX",
            "OMPI_FC",
            "POMP_PROFILE",
            "POMP_TRACE",
            "POMP_MPI",
            "POMP_RUNTIME",
            "POMP_EXPERIMENT_DIRECTORY",
            "POMP_SUMMARY",
        ] {
            command.env_remove(variable);
        }
        command
    }

    fn directory(&self, name: &str) -> PathBuf {
        let directory = self.root.join(name);
        std::fs::create_dir_all(&directory).unwrap();
        directory
    }
}

fn succeed(command: &mut Command) -> Output {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{command:?} failed: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// How a program is built.
#[derive(Clone, Copy, Debug)]
enum Build {
    Plain,
    /// `POMP_CC=mpicc pomp-cc ...`.
    PompRunsMpi,
    /// `OMPI_CC=pomp-cc mpicc ...`.
    MpiRunsPomp,
}

fn build(source: &str, how: Build, extra: &[&str]) -> PathBuf {
    let place = place();
    let tools = toolchain(source);
    let stem = Path::new(source).file_stem().unwrap().to_string_lossy();
    let directory = place.directory(&format!("build-{stem}-{how:?}-{}", extra.join("_")));
    let program = directory.join(&*stem);
    let mut command = match how {
        Build::Plain => place.command(tools.mpi, &directory),
        Build::PompRunsMpi => {
            let mut command = place.command(place.bin().join(tools.pomp), &directory);
            command.env(tools.pomp_runs, tools.mpi);
            command
        }
        Build::MpiRunsPomp => {
            let mut command = place.command(tools.mpi, &directory);
            command.env(tools.mpi_runs, place.bin().join(tools.pomp));
            command
        }
    };
    succeed(
        command
            .args(["-fopenmp", "-O2"])
            .args(extra)
            .arg(repository().join("corpus/mpi").join(source))
            .arg("-o")
            .arg(&program),
    );
    program
}

/// What a run printed and left.
struct Ran {
    directory: PathBuf,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn experiments(&self) -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = std::fs::read_dir(&self.directory)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| pomp2::experiment::is_experiment(p))
            .collect();
        found.sort();
        found
    }

    fn experiment(&self) -> Experiment {
        let found = self.experiments();
        assert_eq!(found.len(), 1, "{found:?}\n{}", self.stderr);
        Experiment::open(&found[0]).unwrap()
    }
}

/// Runs `program` on 4 ranks of 2 threads in `directory`, as a machine of
/// two cores runs them without waiting actively. One run at a time: they
/// would share the two cores.
fn mpirun(program: &Path, directory: &Path, env: &[(&str, &str)]) -> Ran {
    mpirun_with(program, &[], directory, env)
}

/// [`mpirun`] with the program's arguments.
fn mpirun_with(program: &Path, args: &[&str], directory: &Path, env: &[(&str, &str)]) -> Ran {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let output = succeed(
        place()
            .command("mpirun", directory)
            .args(["--allow-run-as-root", "--oversubscribe", "-np"])
            .arg(RANKS.to_string())
            .args(["--mca", "mpi_yield_when_idle", "1"])
            .arg(program)
            .args(args)
            .env("OMP_NUM_THREADS", "2")
            .env("OMP_WAIT_POLICY", "passive")
            .envs(env.iter().copied()),
    );
    Ran {
        directory: directory.to_path_buf(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Builds `source` plain and both ways through the wrappers, runs each
/// with traces, and checks everything this file's heading says; returns
/// the instrumented runs' experiments, POMP_CC way first.
fn measured(source: &str) -> Vec<Experiment> {
    let stem = Path::new(source).file_stem().unwrap().to_string_lossy();
    let plain = build(source, Build::Plain, &[]);
    let expected = mpirun(
        &plain,
        &place().directory(&format!("run-{stem}-plain")),
        &[],
    );
    assert!(!expected.stdout.is_empty(), "{}", expected.stderr);
    assert!(expected.experiments().is_empty());
    let mut experiments = Vec::new();
    for how in [Build::PompRunsMpi, Build::MpiRunsPomp] {
        let program = build(source, how, &[]);
        let directory = place().directory(&format!("run-{stem}-{how:?}"));
        let ran = mpirun(&program, &directory, &[("POMP_TRACE", "1")]);
        assert_eq!(ran.stdout, expected.stdout, "{source} built {how:?}");
        one_summary(&ran);
        let experiment = ran.experiment();
        check_experiment(&experiment);
        experiments.push(experiment);
    }
    experiments
}

/// One rank speaks for the run: one summary, naming the experiment and the
/// command that reports it.
fn one_summary(ran: &Ran) {
    let said: Vec<&str> = ran
        .stderr
        .lines()
        .filter(|line| line.contains("pomp: experiment"))
        .collect();
    assert_eq!(said.len(), 1, "{}", ran.stderr);
    let directory = ran.experiments()[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        said[0].contains(&format!("({RANKS} ranks)"))
            && said[0].ends_with(&format!("pomp report {directory}")),
        "{}",
        said[0]
    );
    let headlines = ran
        .stderr
        .lines()
        .filter(|line| line.contains(" threads, ") && line.contains(" regions, "))
        .count();
    assert_eq!(headlines, 1, "{}", ran.stderr);
}

fn profiles(experiment: &Experiment) -> Vec<Profile> {
    let processes = experiment.processes().unwrap();
    assert_eq!(processes.len(), RANKS, "{processes:?}");
    processes
        .iter()
        .map(|p| pomp2::profile::read(p.profile.as_ref().unwrap()).unwrap())
        .collect()
}

fn traces(experiment: &Experiment) -> Vec<Trace> {
    let processes = experiment.processes().unwrap();
    processes
        .iter()
        .map(|p| pomp2::trace::read(p.trace.as_ref().expect("a trace")).unwrap())
        .collect()
}

fn check_experiment(experiment: &Experiment) {
    let manifest = &experiment.manifest;
    assert_eq!(manifest.ranks, RANKS as u32);
    assert_eq!(manifest.agreement, Agreement::Mpi);
    assert!(manifest.finished);
    assert_eq!(
        manifest.threads_per_rank.as_deref(),
        Some(&[2u32; RANKS][..])
    );
    let hosts = manifest.hosts.as_ref().unwrap();
    assert_eq!(hosts.len(), 1);
    assert_eq!(hosts[0].ranks, (0..RANKS as u32).collect::<Vec<_>>());
    assert!(manifest.mpi.as_ref().unwrap().library.contains("Open MPI"));
    let profiles = profiles(experiment);
    for (rank, profile) in profiles.iter().enumerate() {
        assert_eq!(profile.rank.as_deref(), Some(rank.to_string().as_str()));
        assert_eq!(profile.experiment.as_deref(), Some(manifest.run.as_str()));
        assert_eq!(profile.ranks, Some(RANKS as u32));
        check_mpi_profile(profile);
        check_clock(profile, rank);
    }
    // Every byte sent was received.
    let sum = |f: fn(&pomp2::profile::MpiTotals) -> u64| -> u64 {
        profiles
            .iter()
            .map(|p| f(&p.mpi.as_ref().unwrap().totals))
            .sum()
    };
    assert_eq!(sum(|t| t.messages_sent), sum(|t| t.messages_received));
    assert_eq!(sum(|t| t.bytes_sent), sum(|t| t.bytes_received));
    assert_eq!(
        sum(|t| t.collective_bytes_sent),
        sum(|t| t.collective_bytes_received)
    );
    let traces = traces(experiment);
    for trace in &traces {
        assert_eq!(
            trace.footer.experiment.as_deref(),
            Some(manifest.run.as_str())
        );
        assert_eq!(trace.footer.dropped_mpi_records, 0);
    }
    check_messages(&traces, Clocks::AsRecorded);
    check_messages(&traces, Clocks::AsMeasured);
    check_collectives(&traces);
}

/// The MPI regions and what they moved add up to the MPI totals.
fn check_mpi_profile(profile: &Profile) {
    let mpi = profile.mpi.as_ref().expect("MPI measured");
    let region = |id: Option<u32>| &profile.regions[id.unwrap() as usize - 1];
    let (mut sent, mut received, mut calls) = (0, 0, 0);
    let mut names = BTreeSet::new();
    fn walk(node: &Node, visit: &mut dyn FnMut(&Node)) {
        visit(node);
        for child in &node.children {
            walk(child, visit);
        }
    }
    for thread in &profile.threads {
        walk(&thread.tree, &mut |node| {
            if node.kind == Kind::Mpi {
                let region = region(node.region);
                assert_eq!(region.region_type, pomp2::mpi::REGION_TYPE);
                assert!(
                    pomp2::mpi::function(&region.label).is_some(),
                    "{}",
                    region.label
                );
                names.insert(region.label.clone());
                calls += node.visits;
            }
            sent += node.bytes_sent;
            received += node.bytes_received;
        });
    }
    let totals = &mpi.totals;
    assert_eq!(sent, totals.bytes_sent + totals.collective_bytes_sent);
    assert_eq!(
        received,
        totals.bytes_received + totals.collective_bytes_received
    );
    assert!(names.iter().any(|n| n.starts_with("MPI_Init")), "{names:?}");
    assert!(names.contains("MPI_Finalize"), "{names:?}");
    assert!(calls > 2);
    assert!(totals.time_ns() > 0);
    assert!(totals.other_ns > 0, "initialisation is other MPI time");
}

/// Offsets at initialisation and at finalisation; on one host every rank
/// reads rank 0's clock, and the ping-pong found it within its precision.
fn check_clock(profile: &Profile, rank: usize) {
    let clock = profile.clock.as_ref().unwrap();
    assert_eq!(clock.offsets.len(), 2, "{clock:?}");
    for offset in &clock.offsets {
        assert_eq!(offset.offset_ns, 0);
        if rank == 0 {
            assert_eq!(offset.method, SyncMethod::Reference);
        } else {
            assert_eq!(offset.method, SyncMethod::SameClock);
            let measured = offset.measured.unwrap();
            assert!(
                measured.offset_ns.unsigned_abs() <= measured.precision_ns,
                "{measured:?}"
            );
        }
    }
}

/// A message as one side recorded it, its ranks in `MPI_COMM_WORLD`.
#[derive(Debug)]
struct Side {
    time: i64,
    bytes: u64,
}

type Channel = (CommId, u32, u32, u32);

/// Which offsets put the ranks' times on one clock.
#[derive(Debug, Clone, Copy)]
enum Clocks {
    /// The trace's own: on one host every rank reads rank 0's clock.
    AsRecorded,
    /// The ping-pong's answers, as if each rank were on a host of its own.
    AsMeasured,
}

impl Clocks {
    fn of(self, trace: &Trace) -> ClockSync {
        let mut clock = trace.footer.clock.clone().expect("clock offsets");
        if let Clocks::AsMeasured = self {
            for offset in &mut clock.offsets {
                if let Some(measured) = offset.measured {
                    offset.offset_ns = measured.offset_ns;
                    offset.precision_ns = measured.precision_ns;
                }
            }
        }
        clock
    }

    /// How much earlier than its send a receive may seem to end: nothing
    /// on the same clock, the two ranks' precisions with measured offsets.
    fn slack(self, clocks: &[ClockSync]) -> i64 {
        match self {
            Clocks::AsRecorded => 0,
            Clocks::AsMeasured => {
                let widest = clocks
                    .iter()
                    .flat_map(|c| &c.offsets)
                    .map(|o| o.precision_ns as i64)
                    .max()
                    .unwrap_or(0);
                2 * widest
            }
        }
    }
}

/// Every message sent is received once, with the same bytes, tag and
/// communicator, and with the clocks' offsets applied its receive ends
/// after its send began (within the offsets' precision).
fn check_messages(traces: &[Trace], clocks: Clocks) {
    let synced: Vec<ClockSync> = traces.iter().map(|t| clocks.of(t)).collect();
    let slack = clocks.slack(&synced);
    let mut members: BTreeMap<CommId, Vec<u32>> = BTreeMap::new();
    for trace in traces {
        for communicator in &trace.footer.communicators {
            members.insert(communicator.id, communicator.members.clone());
        }
    }
    let world = |comm: CommId, rank: u32, peer: u32| -> u32 {
        match comm {
            CommId::WORLD => peer,
            CommId::SELF => rank,
            other => members
                .get(&other)
                .unwrap_or_else(|| panic!("{other:?} undefined"))[peer as usize],
        }
    };
    let mut sends: BTreeMap<Channel, Vec<Side>> = BTreeMap::new();
    let mut receives: BTreeMap<Channel, Vec<Side>> = BTreeMap::new();
    for (rank, trace) in traces.iter().enumerate() {
        let rank = rank as u32;
        let clock = &synced[rank as usize];
        for event in trace.mpi.values().flatten() {
            let time = clock.common_ns(event.time);
            let (message, sending) = match &event.record {
                MpiRecord::Send(m) | MpiRecord::Isend { message: m, .. } => (m, true),
                MpiRecord::Recv(m) | MpiRecord::Irecv { message: m, .. } => (m, false),
                _ => continue,
            };
            assert_ne!(message.communicator, CommId::UNKNOWN);
            let peer = world(message.communicator, rank, message.peer);
            let side = Side {
                time,
                bytes: message.bytes,
            };
            if sending {
                sends
                    .entry((message.communicator, rank, peer, message.tag))
                    .or_default()
                    .push(side);
            } else {
                receives
                    .entry((message.communicator, peer, rank, message.tag))
                    .or_default()
                    .push(side);
            }
        }
    }
    assert_eq!(
        sends.keys().collect::<Vec<_>>(),
        receives.keys().collect::<Vec<_>>()
    );
    for (channel, sent) in &mut sends {
        let received = receives.get_mut(channel).unwrap();
        assert_eq!(sent.len(), received.len(), "{channel:?}");
        // MPI keeps the order of messages between two ranks on one
        // communicator and tag.
        sent.sort_by_key(|s| s.time);
        received.sort_by_key(|s| s.time);
        for (send, receive) in sent.iter().zip(received.iter()) {
            assert_eq!(send.bytes, receive.bytes, "{channel:?}");
            assert!(
                receive.time + slack >= send.time,
                "{channel:?}, clocks {clocks:?}: received {} ns before it was sent",
                send.time - receive.time
            );
        }
    }
}

/// Each rank of a communicator ends the same collectives on it, in the
/// same order, and what they sent adds up to what they received.
fn check_collectives(traces: &[Trace]) {
    /// Each rank's collectives on a communicator: operation, sent, received.
    type Ended = BTreeMap<usize, Vec<(u8, u64, u64)>>;
    let mut by_comm: BTreeMap<CommId, Ended> = BTreeMap::new();
    for (rank, trace) in traces.iter().enumerate() {
        let mut events: Vec<_> = trace.mpi.values().flatten().collect();
        events.sort_by_key(|e| e.time);
        let mut open = 0;
        for event in events {
            match &event.record {
                MpiRecord::CollectiveBegin => open += 1,
                MpiRecord::CollectiveEnd(c) => {
                    open -= 1;
                    by_comm
                        .entry(c.communicator)
                        .or_default()
                        .entry(rank)
                        .or_default()
                        .push((c.operation.code(), c.sent, c.received));
                }
                _ => {}
            }
        }
        assert_eq!(open, 0, "every collective that began ended");
    }
    for (comm, ranks) in by_comm {
        assert_ne!(comm, CommId::UNKNOWN);
        let lengths: BTreeSet<usize> = ranks.values().map(Vec::len).collect();
        assert_eq!(lengths.len(), 1, "{comm:?}: {ranks:?}");
        for instance in 0..*lengths.first().unwrap() {
            let ops: BTreeSet<u8> = ranks.values().map(|r| r[instance].0).collect();
            assert_eq!(ops.len(), 1, "{comm:?} #{instance}: {ranks:?}");
            let sent: u64 = ranks.values().map(|r| r[instance].1).sum();
            let received: u64 = ranks.values().map(|r| r[instance].2).sum();
            assert_eq!(sent, received, "{comm:?} #{instance}: {ranks:?}");
        }
    }
}

fn mpi_calls(profile: &Profile) -> BTreeMap<String, u64> {
    let mut calls = BTreeMap::new();
    for summary in &profile.region_summary {
        if summary.kind == Kind::Mpi {
            let region = &profile.regions[summary.region.unwrap() as usize - 1];
            *calls.entry(region.label.clone()).or_default() += summary.visits;
        }
    }
    calls
}

#[test]
fn a_ring_in_c() {
    for experiment in measured("ring.c") {
        let profiles = profiles(&experiment);
        let calls = mpi_calls(&profiles[1]);
        assert_eq!(calls["MPI_Send"], 3);
        assert_eq!(calls["MPI_Recv"], 3);
        assert_eq!(calls["MPI_Allreduce"], 1);
        assert_eq!(calls["MPI_Init_thread"], 1);
        let mpi = profiles[1].mpi.as_ref().unwrap();
        assert_eq!(mpi.thread_level_requested, Some(ThreadLevel::Funneled));
        assert_eq!(mpi.totals.bytes_sent, 3 * 8);
    }
}

#[test]
fn a_halo_exchange_in_cxx() {
    for experiment in measured("halo.cpp") {
        let profiles = profiles(&experiment);
        // The ranks at the ends have one neighbour, the others two.
        for (rank, profile) in profiles.iter().enumerate() {
            let neighbours = if rank == 0 || rank == RANKS - 1 { 1 } else { 2 };
            let totals = &profile.mpi.as_ref().unwrap().totals;
            assert_eq!(totals.messages_sent, 20 * neighbours, "rank {rank}");
            assert_eq!(totals.bytes_received, 20 * neighbours * 8, "rank {rank}");
            assert_eq!(mpi_calls(profile)["MPI_Waitall"], 20);
        }
        // The Cartesian communicator is named by rank 0, which defines it.
        let traces = traces(&experiment);
        assert_eq!(traces[0].footer.communicators.len(), 1);
        assert_eq!(
            traces[0].footer.communicators[0].members,
            (0..RANKS as u32).collect::<Vec<_>>()
        );
    }
}

#[test]
fn every_collective_in_c() {
    for experiment in measured("collectives.c") {
        let profiles = profiles(&experiment);
        let calls = mpi_calls(&profiles[0]);
        for op in pomp2::mpi::CollectiveOp::ALL {
            assert!(calls.contains_key(op.function()), "{}", op.function());
        }
        assert_eq!(calls["MPI_Comm_split"], 1);
        assert!(profiles[0].mpi.as_ref().unwrap().totals.collective_ns > 0);
        // The duplicate and the two halves: each named by its rank 0.
        let defined: usize = traces(&experiment)
            .iter()
            .map(|t| t.footer.communicators.len())
            .sum();
        assert_eq!(defined, 3);
    }
}

#[test]
fn non_blocking_with_waits_and_tests_in_c() {
    for experiment in measured("nonblocking.c") {
        let traces = traces(&experiment);
        let mut kinds = BTreeSet::new();
        for event in traces.iter().flat_map(|t| t.mpi.values().flatten()) {
            kinds.insert(event.record.code());
            if let MpiRecord::Irecv { request, .. } | MpiRecord::Isend { request, .. } =
                event.record
            {
                assert!(request > 0);
            }
        }
        let sample = |record: MpiRecord| kinds.contains(&record.code());
        assert!(sample(MpiRecord::IsendComplete { request: 0 }));
        assert!(sample(MpiRecord::IrecvRequest { request: 0 }));
        assert!(sample(MpiRecord::RequestTest { request: 0 }));
        assert!(sample(MpiRecord::RequestCancelled { request: 0 }));
        let calls = mpi_calls(&profiles(&experiment)[0]);
        for name in [
            "MPI_Test",
            "MPI_Waitany",
            "MPI_Waitsome",
            "MPI_Testall",
            "MPI_Request_free",
            "MPI_Cancel",
            "MPI_Issend",
        ] {
            assert!(calls.contains_key(name), "{name}: {calls:?}");
        }
    }
}

#[test]
fn mpi_called_from_every_thread() {
    for experiment in measured("threads.c") {
        for profile in profiles(&experiment) {
            let mpi = profile.mpi.as_ref().unwrap();
            assert_eq!(mpi.thread_level_provided, ThreadLevel::Multiple);
            // Both threads called MPI, each 50 exchanges and reductions.
            let per_thread: Vec<u64> = profile
                .threads
                .iter()
                .filter_map(|t| t.mpi.as_ref().map(|m| m.messages_sent))
                .collect();
            assert_eq!(
                per_thread.iter().filter(|&&n| n == 50).count(),
                2,
                "{per_thread:?}"
            );
            assert_eq!(mpi_calls(&profile)["MPI_Sendrecv"], 100);
        }
    }
}

#[test]
fn fortran_with_mpif_h() {
    for experiment in measured("ring_mpifh.f90") {
        let calls = mpi_calls(&profiles(&experiment)[2]);
        assert_eq!(calls["MPI_Send"], 3);
        assert_eq!(calls["MPI_Recv"], 3);
        assert_eq!(calls["MPI_Init"], 1);
    }
}

#[test]
fn fortran_with_use_mpi() {
    for experiment in measured("halo_mpi.f90") {
        let profiles = profiles(&experiment);
        let calls = mpi_calls(&profiles[1]);
        assert_eq!(calls["MPI_Waitall"], 20);
        assert!(calls["MPI_Test"] >= 1);
        assert_eq!(calls["MPI_Comm_split"], 1);
    }
}

#[test]
fn fortran_with_use_mpi_f08() {
    for experiment in measured("exchange_f08.f90") {
        let calls = mpi_calls(&profiles(&experiment)[3]);
        assert_eq!(calls["MPI_Sendrecv"], 1);
        assert_eq!(calls["MPI_Waitany"], 2);
        assert_eq!(calls["MPI_Comm_dup"], 1);
    }
}

/// A second run in the same directory makes an experiment of its own.
#[test]
fn two_runs_make_two_experiments() {
    let program = build("ring.c", Build::PompRunsMpi, &[]);
    let directory = place().directory("two-runs");
    let first = mpirun(&program, &directory, &[]);
    let second = mpirun(&program, &directory, &[]);
    assert_eq!(first.stdout, second.stdout);
    let experiments = second.experiments();
    assert_eq!(experiments.len(), 2, "{experiments:?}");
    let runs: BTreeSet<String> = experiments
        .iter()
        .map(|e| Experiment::open(e).unwrap().manifest.run)
        .collect();
    assert_eq!(runs.len(), 2);
    for experiment in experiments {
        assert_eq!(
            Experiment::open(&experiment)
                .unwrap()
                .processes()
                .unwrap()
                .len(),
            RANKS
        );
    }
}

/// Without pomp's MPI library the ranks still agree, by the launcher's
/// job, and one of them speaks for the run.
#[test]
fn without_the_mpi_library_ranks_agree_by_their_launcher() {
    let program = build("ring.c", Build::PompRunsMpi, &["--pomp-mpi=off"]);
    let directory = place().directory("no-mpi-library");
    let ran = mpirun(&program, &directory, &[]);
    one_summary(&ran);
    let experiment = ran.experiment();
    assert_eq!(experiment.manifest.agreement, Agreement::Launcher);
    assert_eq!(experiment.manifest.ranks, RANKS as u32);
    for profile in profiles(&experiment) {
        assert!(profile.mpi.is_none());
        assert!(profile.regions.iter().all(|r| r.region_type != "mpi"));
    }
}

/// The first link after a build seals the runtime archive; when that link
/// runs through `POMP_CC=mpicc`, the partial link of the sealing is the
/// compiler's behind the MPI wrapper, to which no MPI library is added.
#[test]
fn the_runtime_is_sealed_by_a_link_through_the_mpi_wrapper() {
    let place = place();
    let fresh = place.directory("fresh-runtime");
    let built = PathBuf::from(env!("CARGO_BIN_EXE_pomp"))
        .parent()
        .unwrap()
        .join("libpomp_runtime.a");
    std::fs::copy(&built, fresh.join("libpomp_runtime.a")).unwrap();
    let directory = place.directory("sealed-by-mpicc");
    succeed(
        place
            .command(place.bin().join("pomp-cc"), &directory)
            .env("POMP_CC", "mpicc")
            .env("POMP_RUNTIME_DIR", &fresh)
            .args(["-fopenmp", "-O2"])
            .arg(repository().join("corpus/mpi/ring.c"))
            .args(["-o", "ring"]),
    );
    assert!(fresh.join("sealed/libpomp_runtime.a").is_file());
    let ran = mpirun(&directory.join("ring"), &directory, &[]);
    one_summary(&ran);
}

/// With `POMP_CXX=mpicxx`, the clang front end reads a source with the
/// MPI wrapper's own preprocessor flags: it finds `mpi.h`, and says
/// nothing.
#[test]
fn the_clang_front_end_finds_mpi_h_through_the_mpi_wrapper() {
    let place = place();
    let directory = place.directory("clang-front-end");
    let output = succeed(
        place
            .command(place.bin().join("pomp-cxx"), &directory)
            .env("POMP_CXX", "mpicxx")
            .args(["--pomp-frontend=clang", "-fopenmp", "-c"])
            .arg(repository().join("corpus/mpi/halo.cpp"))
            .args(["-o", "halo.o"]),
    );
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

/// A program without OpenMP directives that links MPI is measured too: its
/// MPI calls, with the runtime and its (empty) region registration.
#[test]
fn a_program_without_openmp_has_its_mpi_measured() {
    let program = build("call_costs.c", Build::PompRunsMpi, &[]);
    let ran = mpirun_with(
        &program,
        &["100"],
        &place().directory("without-openmp"),
        &[],
    );
    assert!(ran.stdout.contains("pingpong_ns="), "{}", ran.stdout);
    one_summary(&ran);
    let profiles = profiles(&ran.experiment());
    let calls = mpi_calls(&profiles[1]);
    assert_eq!(calls["MPI_Send"], 110);
    assert_eq!(calls["MPI_Allreduce"], 110);
    assert!(profiles[1].regions.iter().all(|r| r.region_type == "mpi"));
}
