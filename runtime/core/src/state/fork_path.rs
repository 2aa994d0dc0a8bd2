//! The call path a team's workers begin under: the forking thread's path
//! from its root to the node it forked from, region and kind at each step.
//! Each thread has a call-path tree of its own, so a worker cannot point
//! into the forking thread's; it finds (or makes) the same path in its own
//! tree and opens its part of the region there.
//!
//! A path is made once per node a thread forks from and kept for the
//! rest of the run (leaked: a handful per program), so that the fork only
//! publishes a pointer ([`crate::team::publish_path`]) and a worker
//! recognises the path it began under last by that pointer alone.

use super::tree::{CallTree, NodeIndex, WorkerPath, MAX_TREE_DEPTH, ROOT};
use super::ThreadState;
use crate::team::ForkPath;

impl ForkPath {
    /// The path from the root to `node`, made on the first fork there.
    fn of(tree: &mut CallTree, node: NodeIndex) -> Option<&'static ForkPath> {
        if node == ROOT {
            return None;
        }
        if let Some(path) = tree.node(node).fork_path {
            return Some(path);
        }
        Some(Self::make(tree, node))
    }

    #[cold]
    #[inline(never)]
    fn make(tree: &mut CallTree, node: NodeIndex) -> &'static ForkPath {
        let mut steps = Vec::new();
        let mut cursor = node;
        while cursor != ROOT {
            let step = tree.node(cursor);
            steps.push((step.region, step.kind));
            cursor = step.parent;
        }
        steps.reverse();
        let path: &'static ForkPath = Box::leak(Box::new(ForkPath {
            steps: steps.into_boxed_slice(),
        }));
        tree.node_mut(node).fork_path = Some(path);
        path
    }
}

impl ThreadState {
    /// The path to the node a parallel region forked now hangs under.
    pub(super) fn fork_path(&mut self) -> Option<&'static ForkPath> {
        ForkPath::of(&mut self.tree, self.context)
    }

    /// This thread's node for `path`, where a worker opens its part of a
    /// region forked there.
    pub(super) fn node_under(&mut self, path: Option<&'static ForkPath>) -> NodeIndex {
        let known = self.worker_path;
        let same = match (known.path, path) {
            (Some(known), Some(path)) => std::ptr::eq(known, path),
            (None, None) => true,
            _ => false,
        };
        if !same {
            self.worker_path = self.walk(path);
        }
        self.worker_path.node
    }

    #[cold]
    #[inline(never)]
    fn walk(&mut self, path: Option<&'static ForkPath>) -> WorkerPath {
        let steps = path.map_or(&[][..], |p| &p.steps);
        // A path ends at a node no deeper than the limit; leave the
        // worker's region a level of its own.
        let steps = &steps[..steps.len().min(MAX_TREE_DEPTH - 1)];
        let mut node = ROOT;
        for &(region, kind) in steps {
            node = self.tree.child(node, region, kind);
        }
        WorkerPath { path, node }
    }
}
