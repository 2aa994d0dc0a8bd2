//! The overhead classes a run's thread time is split into, and the parts
//! each is made of: what both the figures and their readings speak of.

use super::spread::Spread;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    Control,
    Synchronisation,
    LossOfParallelism,
    DataMovement,
    Work,
}

impl Class {
    pub const ALL: [Class; 5] = [
        Class::Control,
        Class::Synchronisation,
        Class::LossOfParallelism,
        Class::DataMovement,
        Class::Work,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Class::Control => "control of parallelism",
            Class::Synchronisation => "synchronisation",
            Class::LossOfParallelism => "loss of parallelism",
            Class::DataMovement => "data movement",
            Class::Work => "work and the rest",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Part {
    pub name: &'static str,
    pub ns: Spread,
}
