//! The names that tie instrumented translation units to the link-time
//! registration and the library.
//!
//! Each instrumented file defines `POMP2_Init_reg_<unique>_<N>()`, which
//! assigns the handles of its `N` regions. At link time a generated
//! `POMP2_Init_regions()` calls all of them; the library calls that once.

/// Called by the library once, to have every region registered.
pub const INIT_REGIONS: &str = "POMP2_Init_regions";
/// Returns the total number of regions registered.
pub const GET_NUM_REGIONS: &str = "POMP2_Get_num_regions";
/// Returns the version string of the instrumenter's registration.
pub const GET_OPARI2_VERSION: &str = "POMP2_Get_opari2_version";
/// The user-region counterparts.
pub const USER_INIT_REGIONS: &str = "POMP2_USER_Init_regions";
pub const USER_GET_NUM_REGIONS: &str = "POMP2_USER_Get_num_regions";

const PREFIX: &str = "POMP2_Init_reg_";
/// Fortran compilers give external names in lower case with a trailing
/// underscore.
const FORTRAN_PREFIX: &str = "pomp2_init_reg_";

/// One translation unit's registration function.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InitFunction {
    /// The symbol as the object file spells it.
    pub symbol: String,
    /// Regions the unit registers: the `_N` suffix of its name.
    pub regions: usize,
}

impl InitFunction {
    /// The function a file with name part `unique` and `regions` regions
    /// defines, as C spells it.
    pub fn new(unique: &str, regions: usize) -> InitFunction {
        InitFunction {
            symbol: format!("{PREFIX}{unique}_{regions}"),
            regions,
        }
    }

    /// Recognise `POMP2_Init_reg_<unique>_<N>` and its Fortran spelling
    /// `pomp2_init_reg_<unique>_<n>_`.
    pub fn from_symbol(symbol: &str) -> Option<InitFunction> {
        let rest = symbol.strip_prefix(PREFIX).or_else(|| {
            symbol
                .strip_prefix(FORTRAN_PREFIX)
                .map(|r| r.strip_suffix('_').unwrap_or(r))
        })?;
        let (unique, count) = rest.rsplit_once('_')?;
        if unique.is_empty() {
            return None;
        }
        Some(InitFunction {
            symbol: symbol.to_owned(),
            regions: count.parse().ok()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_written_and_recognised() {
        let made = InitFunction::new("0123456789abcdef", 12);
        assert_eq!(made.symbol, "POMP2_Init_reg_0123456789abcdef_12");
        assert_eq!(InitFunction::from_symbol(&made.symbol), Some(made));
        let fortran = InitFunction::from_symbol("pomp2_init_reg_0123456789abcdef_3_").unwrap();
        assert_eq!(fortran.regions, 3);
        for other in [
            "POMP2_Init_regions",
            "POMP2_Init_reg_",
            "POMP2_Init_reg_x_y",
            "f",
        ] {
            assert_eq!(InitFunction::from_symbol(other), None, "{other}");
        }
    }
}
