//! The POMP2 interface as C declares it, for what is built against it
//! rather than instrumented: the headers a measurement library compiles
//! its entry points with (`opari2/pomp2_lib.h`, `opari2/pomp2_user_lib.h`)
//! and the reader of CTC strings a library builds in (`devel/`, with the
//! C interface of OPARI2's, which Score-P's OPARI2 adapters compile).
//! OPARI2's file names are the ones builds look for; the text is pomp's,
//! the prototypes made from [`crate::events`].

use crate::events::{Event, Param, EVENTS};
use crate::registration::{
    GET_NUM_REGIONS, GET_OPARI2_VERSION, INIT_REGIONS, USER_GET_NUM_REGIONS, USER_INIT_REGIONS,
};
use std::fmt::Write as _;

/// Where headers go below an include directory, and the names they have.
pub const HEADER_DIRECTORY: &str = "opari2";
pub const LIB_HEADER: &str = "pomp2_lib.h";
pub const USER_LIB_HEADER: &str = "pomp2_user_lib.h";

/// The reader of CTC strings: each file's name and text. A library
/// compiles the `.c` files with this directory on its include path.
pub const CTC_READER: &[(&str, &str)] = &[
    (
        "opari2_region_info.h",
        include_str!("../c/devel/opari2_region_info.h"),
    ),
    (
        "opari2_ctc_token.h",
        include_str!("../c/devel/opari2_ctc_token.h"),
    ),
    (
        "opari2_ctc_parser.h",
        include_str!("../c/devel/opari2_ctc_parser.h"),
    ),
    (
        "opari2_ctc_parser.c",
        include_str!("../c/devel/opari2_ctc_parser.c"),
    ),
    (
        "pomp2_region_info.h",
        include_str!("../c/devel/pomp2_region_info.h"),
    ),
    (
        "pomp2_region_info.c",
        include_str!("../c/devel/pomp2_region_info.c"),
    ),
    (
        "pomp2_user_region_info.h",
        include_str!("../c/devel/pomp2_user_region_info.h"),
    ),
    (
        "pomp2_user_region_info.c",
        include_str!("../c/devel/pomp2_user_region_info.c"),
    ),
];

/// The events of user regions and of the control directives: the user
/// header declares them, the other header the rest.
const USER_EVENTS: &[&str] = &[
    "Begin",
    "End",
    "Init",
    "Finalize",
    "On",
    "Off",
    "USER_Assign_handle",
];

/// The handle type both headers share, defined once whichever comes
/// first (the guard is OPARI2's, so that its headers and these mix).
const REGION_HANDLE: &str = "#ifndef __opari2_region_handle\n\
                             typedef void* OPARI2_Region_handle;\n\
                             #define __opari2_region_handle\n\
                             #endif\n";

fn is_lock_event(event: &Event) -> bool {
    (event.params.iter()).any(|p| matches!(p, Param::Lock | Param::NestLock))
}

fn opening(guard: &str, what: &str) -> String {
    format!(
        "/* {what}\n   Written by pomp from its table of POMP2 events. */\n\
         #ifndef {guard}\n#define {guard}\n\n\
         #include <stddef.h>\n#include <stdint.h>\n\n\
         #ifdef __cplusplus\nextern \"C\" {{\n#endif\n\n{REGION_HANDLE}"
    )
}

const CLOSING: &str = "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n";

/// `opari2/pomp2_lib.h`: the handle types, the link-time registration's
/// functions and every event of OpenMP constructs (those taking OpenMP's
/// lock types only where `_OPENMP` is defined, as `omp.h` is then).
pub fn lib_header() -> String {
    let mut h = opening(
        "POMP2_LIB_H",
        "The POMP2 interface: the events of OpenMP constructs and the\n   \
         registration of their regions.",
    );
    h.insert_str(
        h.find("#include <stddef.h>").unwrap_or(0),
        "#ifdef _OPENMP\n#include <omp.h>\n#endif\n",
    );
    h.push_str(
        "typedef OPARI2_Region_handle POMP2_Region_handle;\n\
         typedef int64_t POMP2_Task_handle;\n\n",
    );
    // Made at link time (opari2-config --region-initialization).
    writeln!(h, "void {INIT_REGIONS}(void);").unwrap();
    writeln!(h, "size_t {GET_NUM_REGIONS}(void);").unwrap();
    writeln!(h, "const char* {GET_OPARI2_VERSION}(void);").unwrap();
    // A library's own, for the tasks it makes.
    h.push_str("POMP2_Task_handle POMP2_Get_new_task_handle(void);\n\n");
    let events = || EVENTS.iter().filter(|e| !USER_EVENTS.contains(&e.name));
    for event in events().filter(|e| !is_lock_event(e)) {
        writeln!(h, "{}", event.c_prototype(&format!("POMP2_{}", event.name))).unwrap();
    }
    h.push_str("\n#ifdef _OPENMP\n");
    for event in events().filter(|e| is_lock_event(e)) {
        writeln!(h, "{}", event.c_prototype(&format!("POMP2_{}", event.name))).unwrap();
    }
    h.push_str("#endif\n");
    h.push_str(CLOSING);
    h
}

/// `opari2/pomp2_user_lib.h`: user regions, the control directives'
/// calls, and their registration.
pub fn user_lib_header() -> String {
    let mut h = opening(
        "POMP2_USER_LIB_H",
        "The POMP2 interface: user regions, the control directives' calls\n   \
         and the registration of user regions.",
    );
    h.push_str("typedef OPARI2_Region_handle POMP2_USER_Region_handle;\n\n");
    writeln!(h, "void {USER_INIT_REGIONS}(void);").unwrap();
    writeln!(h, "size_t {USER_GET_NUM_REGIONS}(void);").unwrap();
    writeln!(h, "const char* {GET_OPARI2_VERSION}(void);\n").unwrap();
    for name in USER_EVENTS {
        let event = crate::events::find(name).expect("user events are in the table");
        let prototype = event.c_prototype(&format!("POMP2_{name}"));
        writeln!(
            h,
            "{}",
            prototype.replace("POMP2_Region_handle", "POMP2_USER_Region_handle")
        )
        .unwrap();
    }
    h.push_str(CLOSING);
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_is_declared_once() {
        let (lib, user) = (lib_header(), user_lib_header());
        for event in EVENTS {
            let call = format!(" POMP2_{}(", event.name);
            let count = lib.matches(&call).count() + user.matches(&call).count();
            assert_eq!(count, 1, "{call}");
        }
        assert!(user.contains("void POMP2_Begin(POMP2_USER_Region_handle*, const char*);"));
        assert!(lib.contains("size_t POMP2_Get_num_regions(void);"));
    }

    #[test]
    fn the_reader_s_files_are_all_there() {
        for (name, text) in CTC_READER {
            assert!(!text.is_empty(), "{name}");
        }
        // Score-P's OPARI2 adapters compile these by name.
        for name in [
            "opari2_ctc_parser.c",
            "pomp2_region_info.c",
            "pomp2_user_region_info.c",
            "opari2_ctc_token.h",
        ] {
            assert!(CTC_READER.iter().any(|(n, _)| *n == name), "{name}");
        }
    }
}
