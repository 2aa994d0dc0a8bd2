//! The state's side of the untimed fast path ([`crate::untimed`]): the
//! events of untimed frames, handled when that needs no call: no search
//! for a node, no allocation, no clock. Each returns false, having changed
//! nothing, when the general path must handle the event (a timed frame, a
//! node not found last, a full stack); the general path then decides
//! exactly as these would have.

use super::{Opening, ThreadState, NO_INSTANCE, ROOT};
use crate::regions::RegionId;
use pomp2::profile::Kind;

impl ThreadState {
    /// [`Self::push_leaf`] of an untimed leaf: counts its visit.
    #[inline(always)]
    pub fn count_untimed_leaf(&mut self, region: RegionId, kind: Kind) -> bool {
        match self.tree.cached_child(self.context, region, kind) {
            Some(node) if !self.times(node) => {
                self.tree.node_mut(node).visits += 1;
                true
            }
            _ => false,
        }
    }

    /// [`Self::pop_leaf`] of an untimed leaf, which has nothing to do.
    #[inline(always)]
    pub fn is_untimed_leaf_end(&self, region: RegionId, kind: Kind) -> bool {
        if let Some(top) = self.stack.last() {
            if top.is(region, kind) {
                return false;
            }
        }
        self.tree
            .cached_child(self.context, region, kind)
            .is_some_and(|node| !self.times(node))
    }

    /// [`Self::push`] of an untimed frame.
    #[inline(always)]
    pub fn open_untimed(&mut self, region: RegionId, kind: Kind) -> bool {
        if self.stack.len() == self.stack.capacity() {
            return false;
        }
        let untimed = if kind.is_task() {
            self.tree
                .cached_child(ROOT, region, kind)
                .filter(|&node| self.tree.node(node).throttled.is_some())
                .filter(|_| self.stack.last().is_none_or(|frame| !frame.waits()))
        } else {
            self.tree
                .cached_child(self.context, region, kind)
                .filter(|&node| !self.times(node))
        };
        let Some(node) = untimed else {
            return false;
        };
        self.open(node, region, kind, false, Opening::OWN, NO_INSTANCE, 0);
        true
    }

    /// [`Self::pop_to`] of the innermost frame when it is untimed.
    #[inline(always)]
    pub fn close_untimed(&mut self, region: RegionId, kind: Kind) -> bool {
        match self.stack.last() {
            Some(top) if top.is(region, kind) && !top.timed => {}
            _ => return false,
        }
        let Some(frame) = self.stack.pop() else {
            return false;
        };
        self.close_frame_untimed(&frame);
        true
    }
}
