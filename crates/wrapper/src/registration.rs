//! The link-time registration file: one `POMP2_Init_regions` that calls the
//! `POMP2_Init_reg_*` function of every instrumented translation unit found
//! in the objects, archives and shared libraries being linked, and one
//! `POMP2_USER_Init_regions` that calls their `POMP2_USER_Init_reg_*`; for
//! the original interface, the table of their regions' descriptors that
//! OPARI 1.1's library reads.

use anyhow::{Context, Result};
use object::read::archive::ArchiveFile;
use object::{Object, ObjectSymbol};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub use pomp2::registration::pomp1::Region as Pomp1Region;
pub use pomp2::registration::InitFunction;
use pomp2::registration::{
    GET_NUM_REGIONS, GET_OPARI2_VERSION, INIT_REGIONS, USER_GET_NUM_REGIONS, USER_INIT_REGIONS,
};

/// What the link step needs to know about its inputs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkScan {
    pub init_functions: Vec<InitFunction>,
    /// Some input calls POMP2 (instrumented code without regions still
    /// calls the lock functions), so a POMP2 library must be linked.
    pub calls_pomp: bool,
    /// Some input calls the original interface (`pomp_for_enter`, Fortran
    /// `pomp_do_enter_`, the proposal's `POMP_For_enter`), which pomp's own
    /// runtime does not implement.
    pub calls_pomp1: bool,
    /// The original interface's regions, for the table of descriptors.
    pub pomp1_regions: BTreeSet<Pomp1Region>,
    /// The library keeps user regions in the table it sizes by
    /// `POMP2_Get_num_regions()` (OPARI2's reference library does): that
    /// count then includes them.
    pub user_regions_counted_with_constructs: bool,
    /// The program links pomp's MPI library: the runtime it reports to
    /// asks for the registration, though no input calls POMP2.
    pub measures_mpi: bool,
}

/// Calls `visit` with each object of an object file, static archive (thin
/// ones too) or shared library.
pub fn visit_objects(
    path: &Path,
    visit: &mut dyn FnMut(&object::File) -> Result<()>,
) -> Result<()> {
    let data = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    visit_bytes(path, &data, visit)
        .with_context(|| format!("reading symbols of {}", path.display()))
}

fn visit_bytes(
    path: &Path,
    data: &[u8],
    visit: &mut dyn FnMut(&object::File) -> Result<()>,
) -> Result<()> {
    if let Ok(archive) = ArchiveFile::parse(data) {
        for member in archive.members() {
            let member = member?;
            if archive.is_thin() {
                let name = String::from_utf8_lossy(member.name()).into_owned();
                visit_objects(&path.parent().unwrap_or(Path::new("")).join(name), visit)?;
            } else {
                visit(&object::File::parse(member.data(data)?)?)?;
            }
        }
        return Ok(());
    }
    visit(&object::File::parse(data)?)
}

/// The symbols an object sees: a shared library's dynamic ones.
pub fn symbols<'d, 'f>(file: &'f object::File<'d>) -> object::read::SymbolIterator<'d, 'f> {
    if file.kind() == object::ObjectKind::Dynamic {
        file.dynamic_symbols()
    } else {
        file.symbols()
    }
}

impl LinkScan {
    /// Add the symbols of an object file, static archive or shared library.
    pub fn add_file(&mut self, path: &Path) -> Result<()> {
        visit_objects(path, &mut |file| {
            self.add_object(file);
            Ok(())
        })
    }

    fn add_object(&mut self, file: &object::File) {
        for symbol in symbols(file) {
            let Ok(name) = symbol.name() else { continue };
            if symbol.is_undefined() {
                self.calls_pomp |= name.starts_with("POMP2_") || name.starts_with("pomp2_");
                self.calls_pomp1 |= name.starts_with("POMP_") || name.starts_with("pomp_");
            } else if symbol.is_global() && (symbol.is_definition() || symbol.is_common()) {
                if let Some(function) = InitFunction::from_symbol(name) {
                    self.init_functions.push(function);
                }
                // Descriptors are data, in Fortran common blocks.
                if let Some(region) = Pomp1Region::from_symbol(name) {
                    self.pomp1_regions.insert(region);
                }
            }
        }
    }

    pub fn add_function(&mut self, function: InitFunction) {
        self.init_functions.push(function);
    }

    pub fn needs_pomp_library(&self) -> bool {
        self.needs_registration() || self.needs_pomp1_table()
    }

    /// Code of the original interface is linked: OPARI 1.1's library
    /// reads the table of its regions, empty as it may be.
    pub fn needs_pomp1_table(&self) -> bool {
        self.calls_pomp1 || !self.pomp1_regions.is_empty()
    }

    /// The registration file: POMP2's functions where POMP2 code is
    /// linked, the original interface's table where its code is.
    pub fn render(&self) -> String {
        let mut c = String::new();
        if self.needs_registration() {
            c.push_str(&render_counted_registration(
                &self.distinct_functions(),
                self.user_regions_counted_with_constructs,
            ));
        }
        if self.needs_pomp1_table() {
            c.push_str(&render_pomp1_table(&self.pomp1_regions));
        }
        c
    }

    /// POMP2 code needs `POMP2_Init_regions`; the original interface has
    /// no registration.
    pub fn needs_registration(&self) -> bool {
        self.calls_pomp || self.measures_mpi || !self.init_functions.is_empty()
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
    Ok(scan.render())
}

/// The registration functions an `nm` listing defines (`nm -B` or POSIX
/// format, of objects and archives alike): each symbol of a registration
/// function that the listing does not mark undefined, once.
pub fn functions_in_nm_listing(listing: &str) -> Vec<InitFunction> {
    let mut scan = LinkScan::default();
    for line in listing.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (kind, symbol) = match fields.as_slice() {
            // `address type name` (BSD) and `name type address` (POSIX).
            [_, kind, symbol] if kind.len() == 1 => (*kind, *symbol),
            [symbol, kind, ..] if kind.len() == 1 => (*kind, *symbol),
            [kind, symbol] if kind.len() == 1 => (*kind, *symbol),
            _ => continue,
        };
        if kind.eq_ignore_ascii_case("u") || kind == "w" || kind == "v" {
            continue;
        }
        if let Some(function) = InitFunction::from_symbol(symbol) {
            scan.add_function(function);
        }
    }
    scan.distinct_functions()
}

/// The table of the original interface's regions, as OPARI 1.1's `-table`
/// file defines it: `POMP_MAX_ID` entries, the first empty, then each
/// region's descriptor; a Fortran region's index is defined here too, in
/// the common block its code reads it from.
pub fn render_pomp1_table(regions: &BTreeSet<Pomp1Region>) -> String {
    use pomp2::registration::pomp1::{MAX_ID, TABLE};
    let mut c = String::from(
        "/* Generated by pomp at link time: every region of the original POMP\n   \
         interface linked into this program, as OPARI 1.1's library finds them. */\n\
         struct ompregdescr;\n\n",
    );
    for region in regions {
        writeln!(c, "extern struct ompregdescr {};", region.descriptor()).unwrap();
    }
    // A Fortran compiler may align a common block more than its integer
    // needs (16 bytes, for vector code); the definition must be as aligned.
    for (index, region) in regions.iter().enumerate() {
        if let Pomp1Region::Fortran { id, .. } = region {
            writeln!(c, "int {id} __attribute__((aligned(64))) = {};", index + 1).unwrap();
        }
    }
    writeln!(c, "\nint {MAX_ID} = {};\n", regions.len() + 1).unwrap();
    writeln!(
        c,
        "struct ompregdescr* {TABLE}[{}] = {{\n    0,",
        regions.len() + 1
    )
    .unwrap();
    for region in regions {
        writeln!(c, "    &{},", region.descriptor()).unwrap();
    }
    c.push_str("};\n");
    c
}

/// The C source defining `POMP2_Init_regions`, `POMP2_Get_num_regions`,
/// `POMP2_Get_opari2_version` and the user-region counterparts.
pub fn render_registration(functions: &[InitFunction]) -> String {
    render_counted_registration(functions, false)
}

/// [`render_registration`]; with `user_counted`, `POMP2_Get_num_regions()`
/// counts the user regions too.
fn render_counted_registration(functions: &[InitFunction], user_counted: bool) -> String {
    let mut c = String::from(
        "/* Generated by pomp at link time: registers the regions of every\n   \
         instrumented translation unit linked into this program. */\n\
         #include <stddef.h>\n\n",
    );
    for function in functions {
        writeln!(c, "extern void {}(void);", function.symbol).unwrap();
    }
    for (user, init, count) in [
        (false, INIT_REGIONS, GET_NUM_REGIONS),
        (true, USER_INIT_REGIONS, USER_GET_NUM_REGIONS),
    ] {
        writeln!(c, "\nvoid {init}(void)\n{{").unwrap();
        for function in functions.iter().filter(|f| f.user == user) {
            writeln!(c, "    {}();", function.symbol).unwrap();
        }
        let total: usize = (functions.iter())
            .filter(|f| f.user == user || (user_counted && f.user))
            .map(|f| f.regions)
            .sum();
        writeln!(c, "}}\n\nsize_t {count}(void)\n{{\n    return {total};\n}}").unwrap();
    }
    c.push('\n');
    c.push_str(&version_function());
    c
}

/// The registration file for a whole source tree (`pomp batch`): every
/// function is referenced weakly, so a program built from any subset of
/// the tree links it unchanged and registers, and counts, the regions of
/// exactly the units it contains. A weak reference does not pull a member
/// out of a static archive: a unit registers when the program uses it,
/// never because of this file.
pub fn render_weak_registration(functions: &[InitFunction]) -> String {
    let mut c = String::from(
        "/* Generated by pomp batch: registers the regions of each instrumented\n   \
         translation unit of the tree that is linked into the program. Every\n   \
         reference is weak, so programs built from any part of the tree link it. */\n\
         #include <stddef.h>\n\n",
    );
    for function in functions {
        writeln!(
            c,
            "extern void {}(void) __attribute__((weak));",
            function.symbol
        )
        .unwrap();
    }
    for (user, init, count) in [
        (false, INIT_REGIONS, GET_NUM_REGIONS),
        (true, USER_INIT_REGIONS, USER_GET_NUM_REGIONS),
    ] {
        let functions = || functions.iter().filter(move |f| f.user == user);
        writeln!(c, "\nvoid {init}(void)\n{{").unwrap();
        for function in functions() {
            writeln!(c, "    if ({0}) {0}();", function.symbol).unwrap();
        }
        writeln!(c, "}}\n\nsize_t {count}(void)\n{{\n    size_t regions = 0;").unwrap();
        for function in functions() {
            writeln!(
                c,
                "    if ({}) regions += {};",
                function.symbol, function.regions
            )
            .unwrap();
        }
        writeln!(c, "    return regions;\n}}").unwrap();
    }
    c.push('\n');
    c.push_str(&version_function());
    c
}

/// The version function, the same in both files.
fn version_function() -> String {
    format!(
        "const char* {GET_OPARI2_VERSION}(void)\n{{\n    return \"pomp {}\";\n}}\n",
        env!("CARGO_PKG_VERSION")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
                user: false,
            });
        }
        let c = render_registration(&scan.distinct_functions());
        assert_eq!(c.matches("POMP2_Init_reg_b_2();").count(), 1);
        assert!(c.contains("extern void POMP2_Init_reg_a_5(void);"));
        assert!(c.contains("return 7;"));
        assert!(c.contains("size_t POMP2_USER_Get_num_regions(void)"));
        let with_user =
            render_registration(&[InitFunction::new("a", 5), InitFunction::new_user("a", 2)]);
        let user_part = &with_user[with_user.find("void POMP2_USER_Init_regions").unwrap()..];
        assert!(user_part.contains("POMP2_USER_Init_reg_a_2();"));
        assert!(user_part.contains("return 2;"));
        assert!(!user_part.contains("POMP2_Init_reg_a_5();"));
    }

    /// A program that links one of the two units the file names: it
    /// links, registers that unit's regions, and counts only them.
    #[test]
    fn weak_registration_links_a_program_with_any_subset_of_units() {
        let dir = tempfile::tempdir().unwrap();
        let functions = [InitFunction::new("a", 3), InitFunction::new("b", 2)];
        let registration = dir.path().join("pomp_regions.c");
        std::fs::write(&registration, render_weak_registration(&functions)).unwrap();
        let program = dir.path().join("main.c");
        std::fs::write(
            &program,
            "#include <stdio.h>\n#include <stddef.h>\n\
             void POMP2_Init_regions(void);\nsize_t POMP2_Get_num_regions(void);\n\
             static int calls;\nvoid POMP2_Init_reg_a_3(void) { calls++; }\n\
             int main(void) { POMP2_Init_regions();\n\
             printf(\"%zu %d\\n\", POMP2_Get_num_regions(), calls); return 0; }\n",
        )
        .unwrap();
        let binary = dir.path().join("program");
        let compiled = std::process::Command::new("gcc")
            .arg("-Wall")
            .arg("-Werror")
            .arg(&program)
            .arg(&registration)
            .arg("-o")
            .arg(&binary)
            .output()
            .unwrap();
        assert!(
            compiled.status.success(),
            "{}",
            String::from_utf8_lossy(&compiled.stderr)
        );
        let ran = std::process::Command::new(&binary).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&ran.stdout), "3 1\n");
    }

    #[test]
    fn weak_registration_keeps_the_strong_file_s_other_functions() {
        let strong = render_registration(&[]);
        let weak = render_weak_registration(&[InitFunction::new("a", 3)]);
        let tail = &strong[strong.find("const char*").unwrap()..];
        assert!(weak.contains("void POMP2_USER_Init_regions(void)"));
        assert!(weak.ends_with(tail), "{weak}");
        assert!(weak.contains("extern void POMP2_Init_reg_a_3(void) __attribute__((weak));"));
    }

    #[test]
    fn the_original_interface_s_table_numbers_regions_from_one() {
        let regions: BTreeSet<Pomp1Region> = [
            Pomp1Region::new("00000000000000aa", 2, false),
            Pomp1Region::new("00000000000000bb", 1, true),
        ]
        .into();
        let c = render_pomp1_table(&regions);
        assert!(c.contains("int POMP_MAX_ID = 3;"), "{c}");
        assert!(
            c.contains("int pomp_id_00000000000000bb_1_ __attribute__((aligned(64))) = 2;"),
            "{c}"
        );
        let table = &c[c.find("pomp_rd_table").unwrap()..];
        assert!(
            table.contains(
                "0,\n    &pomp_rd_00000000000000aa_2,\n    &pomp_rd_cb_00000000000000bb_1_,"
            ),
            "{c}"
        );
    }

    #[test]
    fn registration_functions_are_read_from_nm_listings() {
        let listing = "\nlib.a(x.o):\n0000000000000000 T POMP2_Init_reg_00aa_3\n\
                       0000000000000040 T pomp2_user_init_reg_00aa_1_\n\
                                        U POMP2_Init_reg_00bb_2\n\
                       0000000000000000 T POMP2_Init_reg_00aa_3\n\
                       POMP2_Init_reg_00cc_4 T 0000000000000080 0000000000000010\n";
        let functions = functions_in_nm_listing(listing);
        let symbols: Vec<&str> = functions.iter().map(|f| f.symbol.as_str()).collect();
        assert_eq!(
            symbols,
            [
                "POMP2_Init_reg_00aa_3",
                "POMP2_Init_reg_00cc_4",
                "pomp2_user_init_reg_00aa_1_"
            ]
        );
    }

    #[test]
    fn no_functions_registers_nothing() {
        let c = render_registration(&[]);
        assert!(c.contains("return 0;"));
        assert!(!c.contains("extern"));
    }
}
