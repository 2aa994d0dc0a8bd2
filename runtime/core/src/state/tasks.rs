//! A thread's task bookkeeping: the task it executes, the ids of the tasks
//! it creates, and how many tasks of each region it created from which
//! task region.

use crate::regions::{RegionId, NO_REGION};

/// Task ids are the registering thread's number concatenated with a counter
/// of that thread, so creating one needs no synchronisation.
pub const TASK_COUNTER_BITS: u32 = 40;

/// Creation counts of one task region, and who created its instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskRelation {
    /// Region of the creating task; [`NO_REGION`] for an implicit task.
    pub parent_region: RegionId,
    pub child_region: RegionId,
    pub count: u64,
}

pub struct Tasks {
    /// The task the thread executes.
    pub current: i64,
    /// Its region; [`NO_REGION`] for an implicit task.
    pub current_region: RegionId,
    counter: u64,
    id_base: i64,
    pub created: u64,
    pub relations: Vec<TaskRelation>,
    /// Index of the relation counted last.
    last_relation: usize,
}

impl Tasks {
    /// The bookkeeping of thread `index`, executing its implicit task.
    pub fn new(index: u32) -> Self {
        let id_base = ((index as i64) + 1) << TASK_COUNTER_BITS;
        Tasks {
            current: id_base,
            current_region: NO_REGION,
            counter: 0,
            id_base,
            created: 0,
            relations: Vec::new(),
            last_relation: 0,
        }
    }

    #[inline]
    pub fn new_id(&mut self) -> i64 {
        self.counter += 1;
        self.id_base | self.counter as i64
    }

    /// The thread now executes `task` of `region`.
    #[inline(always)]
    pub fn switch_to(&mut self, task: i64, region: RegionId) {
        self.current = task;
        self.current_region = region;
    }

    /// Counts a task of `child_region` created by the current task.
    #[inline(always)]
    pub fn note_created(&mut self, child_region: RegionId) {
        self.created += 1;
        let parent_region = self.current_region;
        // A loop creating tasks hits the same relation over and over.
        if let Some(relation) = self.relations.get_mut(self.last_relation) {
            if relation.parent_region == parent_region && relation.child_region == child_region {
                relation.count += 1;
                return;
            }
        }
        self.note_other_relation(parent_region, child_region);
    }

    #[cold]
    #[inline(never)]
    fn note_other_relation(&mut self, parent_region: RegionId, child_region: RegionId) {
        let found = self
            .relations
            .iter()
            .position(|r| r.parent_region == parent_region && r.child_region == child_region);
        self.last_relation = match found {
            Some(index) => index,
            None => {
                self.relations.push(TaskRelation {
                    parent_region,
                    child_region,
                    count: 0,
                });
                self.relations.len() - 1
            }
        };
        self.relations[self.last_relation].count += 1;
    }

    /// Whether a task of `child_region` created now has the relation
    /// counted last, which [`Self::count_repeated_relation`] counts.
    #[inline(always)]
    pub fn is_repeated_relation(&self, child_region: RegionId) -> bool {
        self.relations
            .get(self.last_relation)
            .is_some_and(|relation| {
                relation.parent_region == self.current_region
                    && relation.child_region == child_region
            })
    }

    /// [`Self::note_created`] of a task whose relation is the one counted
    /// last.
    #[inline(always)]
    pub fn count_repeated_relation(&mut self) {
        if let Some(relation) = self.relations.get_mut(self.last_relation) {
            relation.count += 1;
        }
        self.created += 1;
    }

    #[cfg(test)]
    pub fn counter(&self) -> u64 {
        self.counter
    }

    #[cfg(test)]
    pub fn id_base(&self) -> i64 {
        self.id_base
    }
}
