//! One location's events: a thread's spans as enters and leaves, with the
//! OpenMP events around them and its MPI records between them, in time
//! order, on the run's common time line.

use super::comms::Comms;
use super::error::Error;
use super::library::{self, Otf2};
use pomp2::mpi::CollectiveOp;
use pomp2::profile::Kind;
use pomp2::trace::{Message, MpiEvent, MpiRecord, Span};
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bits of a task id below its thread's number (see the runtime).
const TASK_COUNTER_BITS: u32 = 40;

/// The last time stamp written, which the library asks for when it
/// flushes a buffer.
pub(super) static LAST_TIME: AtomicU64 = AtomicU64::new(0);

/// A span open on a location while its events are written.
pub(super) struct Open {
    /// Its end, in the process's own time.
    pub end: u64,
    pub region: u32,
    pub span: Span,
}

/// One location's event writer, counting what it writes.
pub(super) struct Events<'a> {
    pub otf2: &'static Otf2,
    pub writer: *mut c_void,
    /// The communicator of the process's thread team.
    pub team: u32,
    pub comms: &'a mut Comms,
    /// A time of the process's own on the common time line.
    pub common: &'a dyn Fn(u64) -> u64,
    pub count: u64,
    /// The first and last time stamps written.
    pub first: Option<u64>,
    pub last: u64,
}

impl Events<'_> {
    fn done(
        &mut self,
        call: &'static str,
        time: u64,
        code: library::ErrorCode,
    ) -> Result<(), Error> {
        if code != library::SUCCESS {
            return Err(Error::Call {
                call,
                name: format!("error {code}"),
            });
        }
        self.count += 1;
        self.first.get_or_insert(time);
        self.last = time;
        LAST_TIME.store(time, Ordering::Relaxed);
        Ok(())
    }

    pub fn enter(&mut self, span: &Span, region: u32, team_size: u32) -> Result<(), Error> {
        let (otf2, writer, null) = (self.otf2, self.writer, std::ptr::null_mut());
        let time = (self.common)(span.start);
        let team = self.team;
        if span.kind.is_task() {
            let (creator, number) = task_name(span.task);
            let code =
                unsafe { (otf2.thread_task_switch)(writer, null, time, team, creator, number) };
            self.done("OTF2_EvtWriter_ThreadTaskSwitch", time, code)?;
        }
        let code = unsafe { (otf2.enter)(writer, null, time, region) };
        self.done("OTF2_EvtWriter_Enter", time, code)?;
        match span.kind {
            Kind::Parallel if span.forked => {
                let code = unsafe {
                    (otf2.thread_fork)(writer, null, time, library::PARADIGM_OPENMP, team_size)
                };
                self.done("OTF2_EvtWriter_ThreadFork", time, code)
            }
            Kind::TaskCreate | Kind::UntiedTaskCreate if span.task != 0 => {
                let (creator, number) = task_name(span.task);
                let code =
                    unsafe { (otf2.thread_task_create)(writer, null, time, team, creator, number) };
                self.done("OTF2_EvtWriter_ThreadTaskCreate", time, code)
            }
            _ => Ok(()),
        }
    }

    pub fn leave(&mut self, closed: &Open, enclosing: Option<&Open>) -> Result<(), Error> {
        let (otf2, writer, null) = (self.otf2, self.writer, std::ptr::null_mut());
        let time = (self.common)(closed.end);
        let team = self.team;
        let span = &closed.span;
        if span.kind == Kind::Parallel && span.forked {
            let code = unsafe { (otf2.thread_join)(writer, null, time, library::PARADIGM_OPENMP) };
            self.done("OTF2_EvtWriter_ThreadJoin", time, code)?;
        }
        let code = unsafe { (otf2.leave)(writer, null, time, closed.region) };
        self.done("OTF2_EvtWriter_Leave", time, code)?;
        if span.kind.is_task() {
            let (creator, number) = task_name(span.task);
            let code =
                unsafe { (otf2.thread_task_complete)(writer, null, time, team, creator, number) };
            self.done("OTF2_EvtWriter_ThreadTaskComplete", time, code)?;
            if let Some(resumed) = enclosing {
                let (creator, number) = task_name(resumed.span.task);
                let code =
                    unsafe { (otf2.thread_task_switch)(writer, null, time, team, creator, number) };
                self.done("OTF2_EvtWriter_ThreadTaskSwitch", time, code)?;
            }
        }
        Ok(())
    }

    /// An MPI record as OTF2's event of the same name.
    pub fn mpi(&mut self, event: &MpiEvent) -> Result<(), Error> {
        let (otf2, writer, null) = (self.otf2, self.writer, std::ptr::null_mut());
        let time = (self.common)(event.time);
        let mut comm = |message: &Message| self.comms.reference(message.communicator);
        let (call, code) = unsafe {
            match &event.record {
                MpiRecord::Send(m) => (
                    "OTF2_EvtWriter_MpiSend",
                    (otf2.mpi_send)(writer, null, time, m.peer, comm(m), m.tag, m.bytes),
                ),
                MpiRecord::Isend {
                    message: m,
                    request,
                } => (
                    "OTF2_EvtWriter_MpiIsend",
                    (otf2.mpi_isend)(
                        writer,
                        null,
                        time,
                        m.peer,
                        comm(m),
                        m.tag,
                        m.bytes,
                        *request,
                    ),
                ),
                MpiRecord::IsendComplete { request } => (
                    "OTF2_EvtWriter_MpiIsendComplete",
                    (otf2.mpi_isend_complete)(writer, null, time, *request),
                ),
                MpiRecord::IrecvRequest { request } => (
                    "OTF2_EvtWriter_MpiIrecvRequest",
                    (otf2.mpi_irecv_request)(writer, null, time, *request),
                ),
                MpiRecord::Recv(m) => (
                    "OTF2_EvtWriter_MpiRecv",
                    (otf2.mpi_recv)(writer, null, time, m.peer, comm(m), m.tag, m.bytes),
                ),
                MpiRecord::Irecv {
                    message: m,
                    request,
                } => (
                    "OTF2_EvtWriter_MpiIrecv",
                    (otf2.mpi_irecv)(
                        writer,
                        null,
                        time,
                        m.peer,
                        comm(m),
                        m.tag,
                        m.bytes,
                        *request,
                    ),
                ),
                MpiRecord::RequestTest { request } => (
                    "OTF2_EvtWriter_MpiRequestTest",
                    (otf2.mpi_request_test)(writer, null, time, *request),
                ),
                MpiRecord::RequestCancelled { request } => (
                    "OTF2_EvtWriter_MpiRequestCancelled",
                    (otf2.mpi_request_cancelled)(writer, null, time, *request),
                ),
                MpiRecord::CollectiveBegin => (
                    "OTF2_EvtWriter_MpiCollectiveBegin",
                    (otf2.mpi_collective_begin)(writer, null, time),
                ),
                MpiRecord::CollectiveEnd(c) => {
                    let communicator = self.comms.reference(c.communicator);
                    (
                        "OTF2_EvtWriter_MpiCollectiveEnd",
                        (otf2.mpi_collective_end)(
                            writer,
                            null,
                            time,
                            collective_op(c.operation),
                            communicator,
                            c.root.unwrap_or(library::UNDEFINED_U32),
                            c.sent,
                            c.received,
                        ),
                    )
                }
            }
        };
        self.done(call, time, code)
    }
}

/// Writes a thread's spans and MPI records: spans nest (enclosing spans
/// first; an end that the clocks of two cores put past its enclosing
/// span's end is moved back to it), and a record goes after the enters
/// and before the leaves of its time, inside the MPI call it happened in.
pub(super) fn write_thread(
    events: &mut Events,
    spans: &[Span],
    records: &[MpiEvent],
    region: &mut dyn FnMut(&Span) -> u32,
    team_size: u32,
) -> Result<(), Error> {
    let mut spans: Vec<(usize, Span)> = spans.iter().copied().enumerate().collect();
    // Enclosing spans first: earlier start, later end, and of spans alike,
    // the later written (spans are written as they close).
    spans.sort_by(|(ia, a), (ib, b)| {
        a.start
            .cmp(&b.start)
            .then((b.start + b.duration).cmp(&(a.start + a.duration)))
            .then(ib.cmp(ia))
    });
    let mut records = records.iter().peekable();
    let mut open: Vec<Open> = Vec::new();
    let mut records_until = |events: &mut Events, until: &dyn Fn(u64) -> bool| {
        while let Some(record) = records.next_if(|r| until(r.time)) {
            events.mpi(record)?;
        }
        Ok::<(), Error>(())
    };
    for (_, span) in spans {
        while open.last().is_some_and(|o| o.end <= span.start) {
            let closed = open.pop().unwrap();
            records_until(events, &|time| time <= closed.end)?;
            events.leave(&closed, open.last())?;
        }
        records_until(events, &|time| time < span.start)?;
        let mut end = span.start + span.duration;
        if let Some(enclosing) = open.last() {
            end = end.min(enclosing.end);
        }
        let region = region(&span);
        events.enter(&span, region, team_size)?;
        open.push(Open { end, region, span });
    }
    while let Some(closed) = open.pop() {
        records_until(events, &|time| time <= closed.end)?;
        events.leave(&closed, open.last())?;
    }
    records_until(events, &|_| true)
}

/// A task as OTF2 names it: the thread that made it and its number there.
fn task_name(task: i64) -> (u32, u32) {
    let creator = ((task >> TASK_COUNTER_BITS) as u32).saturating_sub(1);
    let number = (task & ((1 << TASK_COUNTER_BITS) - 1)) as u32;
    (creator, number)
}

/// OTF2's number of a collective operation.
fn collective_op(operation: CollectiveOp) -> u8 {
    use library::collective::*;
    match operation {
        CollectiveOp::Barrier => BARRIER,
        CollectiveOp::Bcast => BCAST,
        CollectiveOp::Gather => GATHER,
        CollectiveOp::Gatherv => GATHERV,
        CollectiveOp::Scatter => SCATTER,
        CollectiveOp::Scatterv => SCATTERV,
        CollectiveOp::Allgather => ALLGATHER,
        CollectiveOp::Allgatherv => ALLGATHERV,
        CollectiveOp::Alltoall => ALLTOALL,
        CollectiveOp::Alltoallv => ALLTOALLV,
        CollectiveOp::Reduce => REDUCE,
        CollectiveOp::Allreduce => ALLREDUCE,
        CollectiveOp::ReduceScatter => REDUCE_SCATTER,
        CollectiveOp::ReduceScatterBlock => REDUCE_SCATTER_BLOCK,
        CollectiveOp::Scan => SCAN,
        CollectiveOp::Exscan => EXSCAN,
    }
}
