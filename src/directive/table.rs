//! The OpenMP directive table, loaded from `grammars/openmp.toml`.

use serde::Deserialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Association {
    Block,
    Loop,
    Standalone,
    Declarative,
    BeginDeclarative,
    EndDeclarative,
    Separator,
    End,
    Meta,
    Informational,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Distribution {
    All,
    Innermost,
    Outermost,
    Firstprivate,
    Lastprivate,
    Reduction,
    Linear,
    Allocate,
    If,
}

#[derive(Clone, Debug, Deserialize)]
pub struct DirectiveSpec {
    pub name: String,
    pub association: Association,
    #[serde(default)]
    pub leaves: Vec<String>,
    #[serde(default)]
    pub languages: Vec<String>,
    #[serde(default)]
    pub region_type: Option<String>,
    #[serde(default)]
    pub ends: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct ClauseSpec {
    pub name: String,
    pub distribution: Distribution,
    #[serde(default)]
    pub list: bool,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Table {
    pub directive: Vec<DirectiveSpec>,
    pub clause: Vec<ClauseSpec>,
}

impl Table {
    pub fn directive(&self, name: &str) -> Option<&DirectiveSpec> {
        self.directive.iter().find(|d| d.name == name)
    }
}

pub fn table() -> &'static Table {
    todo!()
}
