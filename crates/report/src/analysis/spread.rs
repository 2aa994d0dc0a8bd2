//! Figures over the profiles of a run (one per MPI rank): each one's least,
//! mean and greatest value, and which rank had the least and the greatest.
//!
//! A report reads the profiles one after the other and keeps no profile
//! once its figures are taken, so a spread is gathered as a [`Tally`] —
//! the sum and the two extremes with where they were — and made a
//! [`Spread`] once every profile is read, by the [`Ranks`] that name them.

use serde::Serialize;

/// A figure over several profiles: its least, mean and greatest value, and
/// with several profiles the ranks that had the least and the greatest.
/// Of one profile, all three are its value.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Spread {
    pub min: u64,
    pub mean: u64,
    pub max: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_rank: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_rank: Option<u32>,
}

impl Spread {
    /// The spread of `values`, with no rank named: values of threads, or
    /// of one profile.
    pub fn of(values: impl IntoIterator<Item = u64>) -> Spread {
        let mut tally = Tally::default();
        for value in values {
            tally.add(0, value);
        }
        tally.over_values(None)
    }

    /// Whether the profiles differ in this figure.
    pub fn varies(&self) -> bool {
        self.min != self.max
    }
}

/// A figure gathered value by value, each value added with the profile it
/// comes from (profiles in the order read, each profile's values together):
/// the sum, the count, and the least and greatest value with their profile.
/// Over profiles, one that added nothing counts as 0.
#[derive(Debug, Clone, Copy)]
pub struct Tally {
    sum: u128,
    count: u64,
    min: u64,
    min_at: u32,
    max: u64,
    max_at: u32,
    /// The profile after the last one that added a value...
    next: u32,
    /// ...and the first one before it that added none.
    first_missing: Option<u32>,
}

impl Default for Tally {
    fn default() -> Self {
        Tally {
            sum: 0,
            count: 0,
            min: u64::MAX,
            min_at: 0,
            max: 0,
            max_at: 0,
            next: 0,
            first_missing: None,
        }
    }
}

impl Tally {
    /// Adds `value` of profile `at`, which is the profile of the last value
    /// added or a later one.
    pub fn add(&mut self, at: u32, value: u64) {
        debug_assert!(at + 1 >= self.next, "profiles are added in order");
        if at > self.next && self.first_missing.is_none() {
            self.first_missing = Some(self.next);
        }
        self.next = self.next.max(at + 1);
        self.sum += value as u128;
        self.count += 1;
        if value < self.min {
            (self.min, self.min_at) = (value, at);
        }
        if value > self.max || self.count == 1 {
            (self.max, self.max_at) = (value, at);
        }
    }

    /// The values added, summed.
    pub fn total(&self) -> u64 {
        u64::try_from(self.sum).unwrap_or(u64::MAX)
    }

    /// How many values were added.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Over the values added (threads, say): their mean, and their
    /// extremes' profiles named by `ranks`.
    pub fn over_values(&self, ranks: Option<&Ranks>) -> Spread {
        if self.count == 0 {
            return Spread::default();
        }
        let name = |at: u32| ranks.and_then(|r| r.name(at));
        Spread {
            min: self.min,
            mean: (self.sum / self.count as u128) as u64,
            max: self.max,
            min_rank: name(self.min_at),
            max_rank: name(self.max_at),
        }
    }

    /// Over every profile of `ranks`, each of which added at most one value,
    /// a profile that added nothing counting as 0.
    pub fn over_profiles(&self, ranks: &Ranks) -> Spread {
        let profiles = ranks.len();
        if profiles == 0 {
            return Spread::default();
        }
        let missing = self
            .first_missing
            .or((self.next < profiles).then_some(self.next));
        let (mut min, mut min_at) = (self.min, self.min_at);
        let (mut max, mut max_at) = (self.max, self.max_at);
        if let Some(missing) = missing {
            if self.count == 0 || min > 0 || missing < min_at {
                (min, min_at) = (0, missing);
            }
            if self.count == 0 || (max == 0 && missing < max_at) {
                (max, max_at) = (0, missing);
            }
        }
        Spread {
            min,
            mean: (self.sum / profiles as u128) as u64,
            max,
            min_rank: ranks.name(min_at),
            max_rank: ranks.name(max_at),
        }
    }
}

/// The ranks of the profiles read, in the order read: how a profile's
/// place in the report becomes the rank that names it.
#[derive(Debug, Clone, Default)]
pub struct Ranks {
    ranks: Vec<u32>,
}

impl Ranks {
    pub fn push(&mut self, rank: u32) {
        self.ranks.push(rank);
    }

    pub fn len(&self) -> u32 {
        self.ranks.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.ranks.is_empty()
    }

    /// Whether there is more than one profile, whose ranks name extremes.
    pub fn several(&self) -> bool {
        self.ranks.len() > 1
    }

    /// The rank of the profile at `at`, when there are several.
    pub fn name(&self, at: u32) -> Option<u32> {
        if self.several() {
            self.ranks.get(at as usize).copied()
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranks(n: u32) -> Ranks {
        let mut ranks = Ranks::default();
        for rank in 0..n {
            ranks.push(10 + rank);
        }
        ranks
    }

    #[test]
    fn extremes_are_named_by_their_ranks() {
        let mut tally = Tally::default();
        for (at, value) in [(0, 5), (1, 9), (2, 2), (3, 9)] {
            tally.add(at, value);
        }
        let spread = tally.over_profiles(&ranks(4));
        assert_eq!((spread.min, spread.mean, spread.max), (2, 6, 9));
        // The first of equal extremes.
        assert_eq!((spread.min_rank, spread.max_rank), (Some(12), Some(11)));
    }

    #[test]
    fn a_profile_without_the_figure_counts_as_zero() {
        let mut tally = Tally::default();
        tally.add(0, 4);
        tally.add(2, 8);
        let spread = tally.over_profiles(&ranks(3));
        assert_eq!((spread.min, spread.mean, spread.max), (0, 4, 8));
        assert_eq!(spread.min_rank, Some(11));
        // Missing after the last profile that had it.
        let mut tally = Tally::default();
        tally.add(0, 4);
        let spread = tally.over_profiles(&ranks(2));
        assert_eq!((spread.min, spread.min_rank), (0, Some(11)));
        // Missing everywhere.
        let spread = Tally::default().over_profiles(&ranks(2));
        assert_eq!((spread.min, spread.max, spread.min_rank), (0, 0, Some(10)));
    }

    #[test]
    fn over_values_each_value_counts() {
        let mut tally = Tally::default();
        for (at, value) in [(0, 1), (0, 3), (1, 8)] {
            tally.add(at, value);
        }
        let spread = tally.over_values(Some(&ranks(2)));
        assert_eq!((spread.min, spread.mean, spread.max), (1, 4, 8));
        assert_eq!((spread.min_rank, spread.max_rank), (Some(10), Some(11)));
        assert_eq!(Spread::of([]), Spread::default());
        let one = Spread::of([7]);
        assert_eq!((one.min, one.mean, one.max, one.min_rank), (7, 7, 7, None));
    }
}
