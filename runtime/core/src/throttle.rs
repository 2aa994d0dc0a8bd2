//! Throttling: a call-path node that a thread visits very often for very
//! little time each stops being timed on that thread, so that measuring
//! fine-grained regions (tiny tasks, atomics in loops) does not cost many
//! times what they do.
//!
//! The rule is TAU's: once a node's visits on a thread reach
//! `POMP_THROTTLE_NUMCALLS` (default 100000) with a mean inclusive time
//! under `POMP_THROTTLE_PERCALL` microseconds (default 10), its later visits
//! read no clock. The decision is per thread and per call-path node (a
//! region reached along one path), the unit the profile measures; nodes
//! opened inside an untimed frame are untimed too, so the tree stays
//! consistent. Visits are always counted. `POMP_THROTTLE=0` turns it off.

use crate::state::tree::Node;
use std::sync::OnceLock;

pub const DEFAULT_NUMCALLS: u64 = 100_000;
pub const DEFAULT_PERCALL_US: u64 = 10;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rule {
    pub numcalls: u64,
    pub percall_ns: u64,
}

impl Rule {
    /// From `POMP_THROTTLE`, `POMP_THROTTLE_NUMCALLS` and
    /// `POMP_THROTTLE_PERCALL` as `var` reads them; `None` when off.
    pub fn from_settings(var: impl Fn(&str) -> Option<String>) -> Option<Rule> {
        if matches!(
            var("POMP_THROTTLE").as_deref(),
            Some("0" | "false" | "no" | "off")
        ) {
            return None;
        }
        let numcalls = var("POMP_THROTTLE_NUMCALLS")
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(DEFAULT_NUMCALLS)
            .max(1);
        // Whole microseconds, as TAU takes them.
        let percall_us = var("POMP_THROTTLE_PERCALL")
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(DEFAULT_PERCALL_US);
        Some(Rule {
            numcalls,
            percall_ns: percall_us.saturating_mul(1000),
        })
    }

    /// The visit count from which a node is considered; never reached when
    /// throttling is off.
    pub fn first_check(rule: Option<Rule>) -> u64 {
        rule.map_or(u64::MAX, |r| r.numcalls)
    }
}

/// `percall_ns` in clock ticks, measured the first time a node is
/// considered (by then the run has lasted long enough to know the rate).
pub fn percall_ticks(rule: Rule) -> u64 {
    static TICKS: OnceLock<u64> = OnceLock::new();
    *TICKS.get_or_init(|| crate::clock::ticks_in_ns(rule.percall_ns))
}

/// A thread's throttling: its rule, and whether it has throttled a node.
pub struct Throttler {
    rule: Option<Rule>,
    /// Visits from which a timed close considers throttling its node.
    check_from: u64,
    /// Whether a node is throttled: until then nearly every frame is timed
    /// and events skip the untimed fast path ([`crate::untimed`]).
    pub any_throttled: bool,
}

impl Throttler {
    pub fn new(rule: Option<Rule>) -> Self {
        Throttler {
            rule,
            check_from: Rule::first_check(rule),
            any_throttled: false,
        }
    }

    /// After a timed visit of `node`, its `visits`-th: throttles it when
    /// the rule says so.
    #[inline(always)]
    pub fn after_timed_visit(&mut self, node: &mut Node, visits: u64) {
        if visits >= self.check_from {
            self.consider(node);
        }
    }

    #[cold]
    #[inline(never)]
    fn consider(&mut self, node: &mut Node) {
        let Some(rule) = self.rule else { return };
        if node.throttled.is_none()
            && is_cheap(node.visits, node.inclusive_ns, percall_ticks(rule))
            && node.throttle()
        {
            self.any_throttled = true;
        }
    }

    /// Stops timing `node` because of its team, not its own visits.
    pub fn throttle_for_team(&mut self, node: &mut Node) {
        if node.throttle() {
            self.any_throttled = true;
        }
    }
}

/// Whether a node with these totals (in ticks) stops being timed.
#[inline]
pub fn is_cheap(visits: u64, inclusive_ticks: u64, percall_ticks: u64) -> bool {
    (inclusive_ticks as u128) < (percall_ticks as u128) * (visits as u128)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(settings: &[(&str, &str)]) -> Option<Rule> {
        Rule::from_settings(|name| {
            settings
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.to_string())
        })
    }

    #[test]
    fn on_by_default_with_tau_s_thresholds() {
        assert_eq!(
            rule(&[]),
            Some(Rule {
                numcalls: 100_000,
                percall_ns: 10_000
            })
        );
        assert_eq!(rule(&[("POMP_THROTTLE", "1")]), rule(&[]));
    }

    #[test]
    fn settings_and_off() {
        assert_eq!(rule(&[("POMP_THROTTLE", "0")]), None);
        assert_eq!(rule(&[("POMP_THROTTLE", "off")]), None);
        assert_eq!(
            rule(&[
                ("POMP_THROTTLE_NUMCALLS", "50"),
                ("POMP_THROTTLE_PERCALL", "2")
            ]),
            Some(Rule {
                numcalls: 50,
                percall_ns: 2_000
            })
        );
        // Unreadable values fall back to the defaults.
        assert_eq!(
            rule(&[
                ("POMP_THROTTLE_NUMCALLS", "many"),
                ("POMP_THROTTLE_PERCALL", "2.5")
            ]),
            rule(&[])
        );
        assert_eq!(Rule::first_check(None), u64::MAX);
    }

    #[test]
    fn cheap_means_a_mean_under_the_threshold() {
        assert!(is_cheap(100_000, 100_000 * 9, 10));
        assert!(!is_cheap(100_000, 100_000 * 10, 10));
        // Products beyond 64 bits do not wrap.
        assert!(is_cheap(u64::MAX, u64::MAX, 2));
        assert!(!is_cheap(1, u64::MAX, u64::MAX));
    }
}
