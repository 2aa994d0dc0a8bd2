//! A thread's call-path tree: an arena of nodes, one per region and kind
//! reached along one path, each linked to its parent, its first child and
//! its next sibling, and remembering the child found last.

use crate::regions::{RegionId, NO_REGION};
use crate::team::ForkPath;
use pomp2::profile::Kind;

/// What opens below a node this deep is folded into one child of it per
/// region and kind, which counts visits and reads no clock: the time stays
/// in the node at the limit. The limit is on the tree, not the stack: task
/// instances hang off the root, so a task-recursive code's stack grows far
/// deeper than its tree.
pub use pomp2::profile::MAX_TREE_DEPTH;

pub type NodeIndex = u32;
pub const ROOT: NodeIndex = 0;
pub const NO_NODE: NodeIndex = NodeIndex::MAX;

#[derive(Debug, Clone)]
pub struct Node {
    pub region: RegionId,
    pub kind: Kind,
    pub parent: NodeIndex,
    first_child: NodeIndex,
    next_sibling: NodeIndex,
    /// The child found last; loops revisit the same child over and over.
    last_hit: NodeIndex,
    /// Levels below the root.
    pub depth: u16,
    pub visits: u64,
    pub inclusive_ns: u64,
    pub children_ns: u64,
    /// Waiting inside the node: enter→begin of critical and ordered, the
    /// blocking part of `omp_set_lock`.
    pub wait_ns: u64,
    /// Set once the node is throttled on this thread.
    pub throttled: Option<Throttled>,
    /// Of a parallel region's node on its forking thread: from the fork
    /// until the team began, and from the release until the join.
    pub fork_ns: u64,
    pub join_ns: u64,
    /// The path from the root to this node, once a parallel region was
    /// forked here: what the team's workers hang their part under.
    pub fork_path: Option<&'static ForkPath>,
}

/// When a node stopped being timed, and what had been measured by then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Throttled {
    pub at_visit: u64,
    pub measured_ns: u64,
    /// Of a task instance: the time of the visits since it was throttled
    /// that began while the thread waited (directly inside a timed
    /// barrier, taskwait or task creation, or at the end of a parallel
    /// region), each timed alone so that the waiting leaves the task's
    /// time out; `inclusive_ns` includes it.
    pub timed_alone_ns: u64,
}

impl Node {
    fn new(
        region: RegionId,
        kind: Kind,
        parent: NodeIndex,
        next_sibling: NodeIndex,
        depth: u16,
    ) -> Self {
        Node {
            region,
            kind,
            parent,
            first_child: NO_NODE,
            next_sibling,
            last_hit: NO_NODE,
            depth,
            visits: 0,
            inclusive_ns: 0,
            children_ns: 0,
            wait_ns: 0,
            throttled: None,
            fork_ns: 0,
            join_ns: 0,
            fork_path: None,
        }
    }

    /// A child of a node at [`MAX_TREE_DEPTH`]: it counts every visit of
    /// its region and kind opened anywhere below that node (recursion
    /// folds into it), untimed, their time staying in the node above.
    #[inline(always)]
    pub fn is_folded(&self) -> bool {
        self.depth as usize > MAX_TREE_DEPTH
    }

    /// Whether a visit of the node reads the clock, as far as the node
    /// decides.
    #[inline(always)]
    pub fn is_timed(&self) -> bool {
        self.throttled.is_none() && !self.is_folded()
    }

    pub fn exclusive_ns(&self) -> u64 {
        self.inclusive_ns.saturating_sub(self.children_ns)
    }

    /// Stops timing the node from its next visit on, keeping what was
    /// measured until now; false when it was stopped already.
    pub fn throttle(&mut self) -> bool {
        if self.throttled.is_some() {
            return false;
        }
        self.throttled = Some(Throttled {
            at_visit: self.visits,
            measured_ns: self.inclusive_ns,
            timed_alone_ns: 0,
        });
        true
    }
}

pub struct CallTree {
    pub nodes: Vec<Node>,
}

impl CallTree {
    /// A tree holding only its root, the thread.
    pub fn new() -> Self {
        let mut nodes = Vec::with_capacity(64);
        nodes.push(Node::new(NO_REGION, Kind::Thread, NO_NODE, NO_NODE, 0));
        CallTree { nodes }
    }

    /// A node by index. Indices come from the arena itself (its nodes'
    /// links, the context, the frames), so they are always in it.
    #[inline(always)]
    pub fn node(&self, index: NodeIndex) -> &Node {
        debug_assert!((index as usize) < self.nodes.len());
        // In bounds, as said above; the hot path spares the check.
        unsafe { self.nodes.get_unchecked(index as usize) }
    }

    #[inline(always)]
    pub fn node_mut(&mut self, index: NodeIndex) -> &mut Node {
        debug_assert!((index as usize) < self.nodes.len());
        unsafe { self.nodes.get_unchecked_mut(index as usize) }
    }

    /// The child of `parent` for `region` and `kind`, made if there is
    /// none.
    #[inline(always)]
    pub fn child(&mut self, parent: NodeIndex, region: RegionId, kind: Kind) -> NodeIndex {
        match self.cached_child(parent, region, kind) {
            Some(node) => node,
            None => self.child_by_search(parent, region, kind),
        }
    }

    /// The child of `parent` for `region` and `kind` when it is the child
    /// found last, which needs no search.
    #[inline(always)]
    pub fn cached_child(
        &self,
        parent: NodeIndex,
        region: RegionId,
        kind: Kind,
    ) -> Option<NodeIndex> {
        let hint = self.node(parent).last_hit;
        if hint == NO_NODE {
            return None;
        }
        let node = self.node(hint);
        (node.region == region && node.kind == kind).then_some(hint)
    }

    #[cold]
    #[inline(never)]
    fn child_by_search(&mut self, parent: NodeIndex, region: RegionId, kind: Kind) -> NodeIndex {
        let mut cursor = self.nodes[parent as usize].first_child;
        while cursor != NO_NODE {
            let node = &self.nodes[cursor as usize];
            if node.region == region && node.kind == kind {
                self.nodes[parent as usize].last_hit = cursor;
                return cursor;
            }
            cursor = node.next_sibling;
        }
        let index = self.nodes.len() as NodeIndex;
        let parent_node = &self.nodes[parent as usize];
        // Folded nodes never become a context, so nothing opens below them.
        debug_assert!(!parent_node.is_folded());
        let (first_sibling, depth) = (parent_node.first_child, parent_node.depth + 1);
        self.nodes
            .push(Node::new(region, kind, parent, first_sibling, depth));
        let parent_node = &mut self.nodes[parent as usize];
        parent_node.first_child = index;
        parent_node.last_hit = index;
        index
    }

    /// Counts a visit of `index` lasting `inclusive`, in it and in its
    /// parent; returns the node's visits.
    #[inline(always)]
    pub fn add_visit(&mut self, index: NodeIndex, inclusive: u64) -> u64 {
        let node = self.node_mut(index);
        node.visits += 1;
        node.inclusive_ns += inclusive;
        let (visits, parent) = (node.visits, node.parent);
        self.node_mut(parent).children_ns += inclusive;
        visits
    }

    /// Gives the nodes a thread never entered itself, those of the path
    /// from the root to where another thread forked its team, the time of
    /// what this thread ran below them. Once, when the thread's data is
    /// written: children come after their parents in the arena.
    pub fn complete_fork_paths(&mut self) {
        for index in (1..self.nodes.len()).rev() {
            let node = &mut self.nodes[index];
            if node.visits != 0 {
                continue;
            }
            node.inclusive_ns = node.children_ns;
            let (parent, inclusive) = (node.parent, node.inclusive_ns);
            self.nodes[parent as usize].children_ns += inclusive;
        }
    }

    /// Converts every stored time from clock ticks to nanoseconds.
    pub fn rescale(&mut self, scale: &crate::clock::Scale) {
        for node in &mut self.nodes {
            node.inclusive_ns = scale.ns(node.inclusive_ns);
            node.children_ns = scale.ns(node.children_ns);
            node.wait_ns = scale.ns(node.wait_ns);
            node.fork_ns = scale.ns(node.fork_ns);
            node.join_ns = scale.ns(node.join_ns);
            if let Some(throttled) = &mut node.throttled {
                throttled.measured_ns = scale.ns(throttled.measured_ns);
                throttled.timed_alone_ns = scale.ns(throttled.timed_alone_ns);
            }
        }
    }
}

/// The path a worker began its last part of a parallel region under, and
/// its node for it.
#[derive(Clone, Copy)]
pub struct WorkerPath {
    pub(super) path: Option<&'static ForkPath>,
    pub(super) node: NodeIndex,
}

impl WorkerPath {
    pub const ROOT: WorkerPath = WorkerPath {
        path: None,
        node: ROOT,
    };
}
