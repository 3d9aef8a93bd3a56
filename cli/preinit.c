/* The CLI's start-up: SystemC's 3 MiB temporary heap without 768 page faults.
 *
 * SystemC 2.3's library constructor allocates its temporary heap (sc_temp_heap,
 * sc_byte_heap::initialize(0x300000): `new char[0x300000]` and a memset of it) before
 * main. From glibc's malloc, 3 MiB comes from a fresh mapping, so the memset takes one
 * page fault per 4 KiB page: 768 of the 1,006 faults of `gdsim --version`, about 6 ms of
 * its 16 ms on the development VM (docs/PERFORMANCE.md item 43), paid by every command.
 *
 * A function in the executable's .preinit_array runs before any shared library's
 * constructor. It frees a mapped block of that size (glibc then serves blocks of that
 * size from its heap: the dynamic mmap threshold), takes one from the heap, has the
 * kernel fill its pages in one call (MADV_POPULATE_WRITE, Linux 5.14) and frees it; the
 * library's allocation then reuses those pages. Nothing here can fail the program: on
 * another allocator, an older kernel or with the threshold pinned
 * (MALLOC_MMAP_THRESHOLD_), it only costs an allocation. Not under AddressSanitizer,
 * whose allocator is not glibc's. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#if !defined(__SANITIZE_ADDRESS__)
/* SystemC's temporary heap, and the header of a block of that size. */
enum { SC_TEMP_HEAP = 0x300000, SLACK = 64 * 1024 };

static void prefault_sc_temp_heap(int argc, char **argv, char **envp)
{
    (void)argc, (void)argv, (void)envp;
    void *volatile mapped = malloc(SC_TEMP_HEAP + SLACK);
    free(mapped);
    char *block = malloc(SC_TEMP_HEAP + SLACK);
    if (!block)
        return;
    char *brk_end = sbrk(0);  /* only a block of the heap: a mapped one is unmapped by free */
    if (brk_end != (char *)-1 && block < brk_end && (size_t)(brk_end - block) < 64u << 20) {
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        uintptr_t lo = ((uintptr_t)block + page - 1) & ~(page - 1);
        uintptr_t hi = ((uintptr_t)block + SC_TEMP_HEAP + SLACK) & ~(page - 1);
        if (hi > lo)
            (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
    }
    free(block);
}

__attribute__((section(".preinit_array"), used)) static void (*const gd_preinit)(int, char **,
                                                                                char **) = prefault_sc_temp_heap;
#endif
