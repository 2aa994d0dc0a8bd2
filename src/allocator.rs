//! The global allocator of the pomp binary (and of the examples that time
//! it): mimalloc, asked through the entry point each request needs.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

/// mimalloc, asked for a plain block wherever a plain block is aligned
/// enough.
///
/// The `mimalloc` crate passes every request to `mi_malloc_aligned`. In
/// mimalloc 3 that path costs more than `mi_malloc` even for small blocks,
/// and a block above its small sizes whose size class is no power of two
/// is over-allocated, to be aligned within, and its page marked as holding
/// interior pointers, which every later `free` on that page pays for.
/// Every block mimalloc hands out is aligned to a word: its size classes
/// are whole words, and a page's first block is aligned to 16 bytes. So
/// a request aligned to a word or less (nearly all of pomp's: strings,
/// vectors of offsets, syntax nodes) takes `mi_malloc`, `mi_zalloc` or
/// `mi_realloc`, and only a wider alignment takes the aligned entry points.
pub struct Mimalloc;

/// The alignment every mimalloc block has.
const WORD: usize = std::mem::size_of::<usize>();

// SAFETY: each call goes to the mimalloc function for its alignment, as
// described above; blocks are freed by `mi_free` whichever way they were
// made, and a block is only grown by `mi_realloc` if its layout's
// alignment is a word or less, so that it was made by `mi_malloc` or
// `mi_zalloc`.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        use libmimalloc_sys::{mi_malloc, mi_malloc_aligned};
        // SAFETY: see the impl.
        unsafe { new_block(layout, mi_malloc, mi_malloc_aligned) }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        use libmimalloc_sys::{mi_zalloc, mi_zalloc_aligned};
        // SAFETY: see the impl.
        unsafe { new_block(layout, mi_zalloc, mi_zalloc_aligned) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: see the impl.
        unsafe { libmimalloc_sys::mi_free(ptr.cast()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        use libmimalloc_sys::{mi_realloc, mi_realloc_aligned};
        // SAFETY: see the impl.
        let block = unsafe {
            match layout.align() <= WORD {
                true => mi_realloc(ptr.cast(), new_size),
                false => mi_realloc_aligned(ptr.cast(), new_size, layout.align()),
            }
        };
        block.cast()
    }
}

/// A block for `layout` from `plain` where a plain block is aligned
/// enough, else from `aligned`: mimalloc's allocating or zeroing pair.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn new_block(
    layout: Layout,
    plain: unsafe extern "C" fn(usize) -> *mut c_void,
    aligned: unsafe extern "C" fn(usize, usize) -> *mut c_void,
) -> *mut u8 {
    // SAFETY: the caller's, as for `GlobalAlloc::alloc`.
    let block = unsafe {
        match layout.align() <= WORD {
            true => plain(layout.size()),
            false => aligned(layout.size(), layout.align()),
        }
    };
    block.cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every size up to a few pages, at every alignment up to 64, in the
    /// order a program grows and frees its lists: each block aligned as
    /// asked, whole, and kept by a reallocation.
    #[test]
    #[allow(unsafe_code)]
    fn blocks_are_aligned_as_asked_and_keep_their_bytes() {
        let sizes = (1..=512).chain((520..=20_000).step_by(56));
        for size in sizes {
            for align in [1, 2, 4, 8, 16, 32, 64] {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: a non-zero size; each block is freed once, with
                // the layout it was made (or grown) with.
                unsafe {
                    let block = Mimalloc.alloc(layout);
                    assert!(!block.is_null());
                    assert_eq!(block as usize % align, 0, "size {size}, alignment {align}");
                    std::ptr::write_bytes(block, 0xa5, size);
                    let grown = Mimalloc.realloc(block, layout, size * 3);
                    assert_eq!(grown as usize % align, 0, "grown {size}, alignment {align}");
                    assert!(std::slice::from_raw_parts(grown, size)
                        .iter()
                        .all(|&b| b == 0xa5));
                    Mimalloc.dealloc(grown, Layout::from_size_align(size * 3, align).unwrap());
                    let zeroed = Mimalloc.alloc_zeroed(layout);
                    assert_eq!(
                        zeroed as usize % align,
                        0,
                        "zeroed {size}, alignment {align}"
                    );
                    assert!(std::slice::from_raw_parts(zeroed, size)
                        .iter()
                        .all(|&b| b == 0));
                    Mimalloc.dealloc(zeroed, layout);
                }
            }
        }
    }
}
