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
//!
//! `protocol` is what the two sides say to each other and how,
//! `client` what a run asks, `daemon` the watcher itself: its inotify
//! watches, the ticks it counts and its answers.

mod client;
mod daemon;
mod protocol;

pub use client::{ask, stop, Token, Walking, Watching};
pub use daemon::{serve, IDLE};
pub use protocol::SUBCOMMAND;
