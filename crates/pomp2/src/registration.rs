//! The names that tie instrumented translation units to the link-time
//! registration and the library.
//!
//! Each instrumented file defines `POMP2_Init_reg_<unique>_<N>()`, which
//! assigns the handles of its `N` construct regions, and, if it has user
//! regions, `POMP2_USER_Init_reg_<unique>_<M>()`, which assigns theirs
//! through `POMP2_USER_Assign_handle` (OPARI2's libraries read a user
//! region's CTC string with a parser of their own). At link time a
//! generated `POMP2_Init_regions()` and `POMP2_USER_Init_regions()` call
//! all of them; the library calls those once.

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
const USER_PREFIX: &str = "POMP2_USER_Init_reg_";

/// One translation unit's registration function.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InitFunction {
    /// The symbol as the object file spells it.
    pub symbol: String,
    /// Regions the unit registers: the `_N` suffix of its name.
    pub regions: usize,
    /// It registers user regions (`POMP2_USER_Init_reg_`), called by
    /// `POMP2_USER_Init_regions`.
    pub user: bool,
}

impl InitFunction {
    /// The function a file with name part `unique` and `regions` construct
    /// regions defines, as C spells it.
    pub fn new(unique: &str, regions: usize) -> InitFunction {
        InitFunction {
            symbol: format!("{PREFIX}{unique}_{regions}"),
            regions,
            user: false,
        }
    }

    /// The function registering a file's `regions` user regions.
    pub fn new_user(unique: &str, regions: usize) -> InitFunction {
        InitFunction {
            symbol: format!("{USER_PREFIX}{unique}_{regions}"),
            regions,
            user: true,
        }
    }

    /// Recognise `POMP2_Init_reg_<unique>_<N>`, `POMP2_USER_Init_reg_<unique>_<N>`
    /// and their Fortran spellings, in lower case with a trailing underscore.
    pub fn from_symbol(symbol: &str) -> Option<InitFunction> {
        let (rest, user) = [(PREFIX, false), (USER_PREFIX, true)]
            .into_iter()
            .find_map(|(prefix, user)| {
                let rest = match symbol.strip_prefix(prefix) {
                    Some(rest) => rest,
                    None => symbol
                        .get(..prefix.len())
                        .filter(|head| *head == prefix.to_ascii_lowercase())
                        .map(|_| &symbol[prefix.len()..])
                        .map(|r| r.strip_suffix('_').unwrap_or(r))?,
                };
                Some((rest, user))
            })?;
        let (unique, count) = rest.rsplit_once('_')?;
        if unique.is_empty() {
            return None;
        }
        Some(InitFunction {
            symbol: symbol.to_owned(),
            regions: count.parse().ok()?,
            user,
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
        assert!(!fortran.user);
        let user = InitFunction::new_user("0123456789abcdef", 2);
        assert_eq!(user.symbol, "POMP2_USER_Init_reg_0123456789abcdef_2");
        assert_eq!(InitFunction::from_symbol(&user.symbol), Some(user));
        let fortran_user =
            InitFunction::from_symbol("pomp2_user_init_reg_0123456789abcdef_1_").unwrap();
        assert!(fortran_user.user && fortran_user.regions == 1);
        for other in [
            "POMP2_Init_regions",
            "POMP2_Init_reg_",
            "POMP2_Init_reg_x_y",
            "POMP2_USER_Init_regions",
            "f",
        ] {
            assert_eq!(InitFunction::from_symbol(other), None, "{other}");
        }
    }
}
