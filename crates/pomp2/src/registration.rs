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

/// The original interface as OPARI 1.1's library implements it finds its
/// regions through a table made at link time, as OPARI 1.1's `-table` file
/// makes it: `int POMP_MAX_ID` and `struct ompregdescr* pomp_rd_table[]`,
/// entry 0 empty. C code passes a region's descriptor to each event;
/// Fortran code passes the region's index in the table, which the link step
/// gives each Fortran region.
pub mod pomp1 {
    /// The number of entries of the table, its empty first one included.
    pub const MAX_ID: &str = "POMP_MAX_ID";
    pub const TABLE: &str = "pomp_rd_table";

    const C_PREFIX: &str = "pomp_rd_";
    const FORTRAN_DESCRIPTOR_PREFIX: &str = "pomp_rd_cb_";
    const FORTRAN_ID_PREFIX: &str = "pomp_id_";

    /// A region of the original interface as the linker sees it.
    #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub enum Region {
        /// A C descriptor, `struct ompregdescr pomp_rd_<unique>_<n>`.
        C { descriptor: String },
        /// A Fortran region: its descriptor, the common block
        /// `/pomp_rd_cb_<unique>_<n>/`, and the common block
        /// `/pomp_id_<unique>_<n>/` holding its index in the table.
        Fortran { descriptor: String, id: String },
    }

    impl Region {
        /// Region `n` of the file with name part `unique`.
        pub fn new(unique: &str, n: usize, fortran: bool) -> Region {
            if fortran {
                Region::Fortran {
                    descriptor: format!("{FORTRAN_DESCRIPTOR_PREFIX}{unique}_{n}_"),
                    id: format!("{FORTRAN_ID_PREFIX}{unique}_{n}_"),
                }
            } else {
                Region::C {
                    descriptor: format!("{C_PREFIX}{unique}_{n}"),
                }
            }
        }

        /// Recognise a region's descriptor among an object's symbols.
        pub fn from_symbol(symbol: &str) -> Option<Region> {
            let (rest, fortran) = match symbol.strip_prefix(FORTRAN_DESCRIPTOR_PREFIX) {
                Some(rest) => (rest.strip_suffix('_')?, true),
                None => (symbol.strip_prefix(C_PREFIX)?, false),
            };
            let (unique, n) = rest.rsplit_once('_')?;
            let hex = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit());
            if !hex(unique) || n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            Some(Region::new(unique, n.parse().ok()?, fortran))
        }

        pub fn descriptor(&self) -> &str {
            match self {
                Region::C { descriptor } | Region::Fortran { descriptor, .. } => descriptor,
            }
        }
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

    #[test]
    fn original_interface_regions_are_recognised() {
        let c = pomp1::Region::new("0123456789abcdef", 3, false);
        assert_eq!(c.descriptor(), "pomp_rd_0123456789abcdef_3");
        assert_eq!(pomp1::Region::from_symbol(c.descriptor()), Some(c));
        let fortran = pomp1::Region::new("0123456789abcdef", 12, true);
        assert_eq!(
            fortran,
            pomp1::Region::Fortran {
                descriptor: "pomp_rd_cb_0123456789abcdef_12_".into(),
                id: "pomp_id_0123456789abcdef_12_".into(),
            }
        );
        assert_eq!(
            pomp1::Region::from_symbol(fortran.descriptor()),
            Some(fortran)
        );
        for other in [
            "pomp_rd_init_0123456789abcdef_",
            "pomp_rd_str_1",
            "pomp_rd_table",
            "pomp_rd_1",
            "pomp_id_0123456789abcdef_1_",
        ] {
            assert_eq!(pomp1::Region::from_symbol(other), None, "{other}");
        }
    }
}
