//! The link-time registration file: one `POMP2_Init_regions` that calls the
//! `POMP2_Init_reg_*` function of every instrumented translation unit found
//! in the objects, archives and shared libraries being linked.

use anyhow::{Context, Result};
use object::read::archive::ArchiveFile;
use object::{Object, ObjectSymbol};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One instrumented translation unit's registration function.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct InitFunction {
    pub symbol: String,
    /// Regions the unit registers: the `_N` suffix of its name.
    pub regions: usize,
}

impl InitFunction {
    /// Recognise `POMP2_Init_reg_<unique>_<N>` (and the lower-case,
    /// underscore-suffixed spelling Fortran compilers give external names).
    pub fn from_symbol(symbol: &str) -> Option<InitFunction> {
        let rest = symbol.strip_prefix("POMP2_Init_reg_").or_else(|| {
            symbol
                .strip_prefix("pomp2_init_reg_")
                .map(|r| r.strip_suffix('_').unwrap_or(r))
        })?;
        let (_, count) = rest.rsplit_once('_')?;
        Some(InitFunction {
            symbol: symbol.to_owned(),
            regions: count.parse().ok()?,
        })
    }
}

/// What the link step needs to know about its inputs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkScan {
    pub init_functions: Vec<InitFunction>,
    /// Some input calls POMP2 (instrumented code without regions still
    /// calls the lock functions), so a POMP2 library must be linked.
    pub calls_pomp: bool,
    /// Some input calls the original interface (`POMP_For_enter`, Fortran
    /// `pomp_do_enter_`), which pomp's own runtime does not implement.
    pub calls_pomp1: bool,
}

impl LinkScan {
    /// Add the symbols of an object file, static archive or shared library.
    pub fn add_file(&mut self, path: &Path) -> Result<()> {
        let data = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        self.add_bytes(path, &data)
            .with_context(|| format!("reading symbols of {}", path.display()))
    }

    fn add_bytes(&mut self, path: &Path, data: &[u8]) -> Result<()> {
        if let Ok(archive) = ArchiveFile::parse(data) {
            for member in archive.members() {
                let member = member?;
                if archive.is_thin() {
                    let name = String::from_utf8_lossy(member.name()).into_owned();
                    let member_path = path.parent().unwrap_or(Path::new("")).join(name);
                    self.add_file(&member_path)?;
                } else {
                    self.add_object(member.data(data)?)?;
                }
            }
            return Ok(());
        }
        self.add_object(data)
    }

    fn add_object(&mut self, data: &[u8]) -> Result<()> {
        let file = object::File::parse(data)?;
        let symbols = if file.kind() == object::ObjectKind::Dynamic {
            file.dynamic_symbols()
        } else {
            file.symbols()
        };
        for symbol in symbols {
            let Ok(name) = symbol.name() else { continue };
            if symbol.is_undefined() {
                self.calls_pomp |= name.starts_with("POMP2_") || name.starts_with("pomp2_");
                self.calls_pomp1 |=
                    name.starts_with("POMP_") || (name.starts_with("pomp_") && name.ends_with('_'));
            } else if symbol.is_global() && symbol.is_definition() {
                if let Some(function) = InitFunction::from_symbol(name) {
                    self.init_functions.push(function);
                }
            }
        }
        Ok(())
    }

    pub fn add_function(&mut self, function: InitFunction) {
        self.init_functions.push(function);
    }

    pub fn needs_pomp_library(&self) -> bool {
        self.needs_registration() || self.calls_pomp1
    }

    /// POMP2 code needs `POMP2_Init_regions`; the original interface has
    /// no registration.
    pub fn needs_registration(&self) -> bool {
        self.calls_pomp || !self.init_functions.is_empty()
    }

    /// Each function once (an object may be linked twice, or also sit in an
    /// archive), in a stable order.
    pub fn distinct_functions(&self) -> Vec<InitFunction> {
        let unique: BTreeMap<&str, &InitFunction> = self
            .init_functions
            .iter()
            .map(|f| (f.symbol.as_str(), f))
            .collect();
        unique.into_values().cloned().collect()
    }
}

/// The registration file for the objects, archives and shared libraries
/// given, as C source.
pub fn registration_source(objects: &[PathBuf]) -> Result<String> {
    let mut scan = LinkScan::default();
    for object in objects {
        scan.add_file(object)?;
    }
    Ok(render_registration(&scan.distinct_functions()))
}

/// The C source defining `POMP2_Init_regions`, `POMP2_Get_num_regions`,
/// `POMP2_Get_opari2_version` and the user-region counterparts.
pub fn render_registration(functions: &[InitFunction]) -> String {
    let total: usize = functions.iter().map(|f| f.regions).sum();
    let mut c = String::from(
        "/* Generated by pomp at link time: registers the regions of every\n   \
         instrumented translation unit linked into this program. */\n\
         #include <stddef.h>\n\n",
    );
    for function in functions {
        writeln!(c, "extern void {}(void);", function.symbol).unwrap();
    }
    c.push_str("\nvoid POMP2_Init_regions(void)\n{\n");
    for function in functions {
        writeln!(c, "    {}();", function.symbol).unwrap();
    }
    writeln!(
        c,
        "}}\n\n\
         size_t POMP2_Get_num_regions(void)\n{{\n    return {total};\n}}\n\n\
         const char* POMP2_Get_opari2_version(void)\n{{\n    return \"pomp {}\";\n}}\n\n\
         void POMP2_USER_Init_regions(void)\n{{\n}}\n\n\
         size_t POMP2_USER_Get_num_regions(void)\n{{\n    return 0;\n}}",
        env!("CARGO_PKG_VERSION")
    )
    .unwrap();
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_function_names() {
        assert_eq!(
            InitFunction::from_symbol("POMP2_Init_reg_1a2b3c_12"),
            Some(InitFunction {
                symbol: "POMP2_Init_reg_1a2b3c_12".into(),
                regions: 12
            })
        );
        assert_eq!(
            InitFunction::from_symbol("pomp2_init_reg_ff_3_").map(|f| f.regions),
            Some(3)
        );
        assert_eq!(InitFunction::from_symbol("POMP2_Init_regions"), None);
        assert_eq!(InitFunction::from_symbol("POMP2_Init_reg_abc"), None);
        assert_eq!(InitFunction::from_symbol("my_POMP2_Init_reg_a_1"), None);
    }

    #[test]
    fn registration_calls_each_function_once_and_sums_regions() {
        let mut scan = LinkScan::default();
        for (symbol, regions) in [
            ("POMP2_Init_reg_b_2", 2),
            ("POMP2_Init_reg_a_5", 5),
            ("POMP2_Init_reg_b_2", 2),
        ] {
            scan.add_function(InitFunction {
                symbol: symbol.into(),
                regions,
            });
        }
        let c = render_registration(&scan.distinct_functions());
        assert_eq!(c.matches("POMP2_Init_reg_b_2();").count(), 1);
        assert!(c.contains("extern void POMP2_Init_reg_a_5(void);"));
        assert!(c.contains("return 7;"));
        assert!(c.contains("size_t POMP2_USER_Get_num_regions(void)"));
    }

    #[test]
    fn no_functions_registers_nothing() {
        let c = render_registration(&[]);
        assert!(c.contains("return 0;"));
        assert!(!c.contains("extern"));
    }
}
