#include "config.h"

#include <ctype.h>
#include <pthread.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gdsim.h"

/* ------------------------------------------------------------------------- */
/* Key table                                                                  */

/* T_SCALE: a factor written as a decimal (at most 6 places: 0.5, 1, 2.25), kept in
 * millionths (a uint32_t; min and max in millionths too). */
typedef enum { T_UINT, T_ENUM, T_STRING, T_CC, T_LIST, T_SCALE } key_type;

typedef struct key_def {
    const char *name;
    key_type type;
    size_t offset;        /* into gd_config; for T_CC: offset of sm.cc_major */
    uint32_t min, max;    /* T_UINT, each T_LIST element; T_STRING: max is the field's size (0: 64) */
    uint32_t list_fixed;  /* T_LIST: exact number of elements (0: 1..GD_MAX_GPCS) */
    const char *choices;  /* T_ENUM: "a|b|c" */
    const char *def;      /* NULL: the preset gives it */
    const char *doc;
    const char *source;
} key_def;

#define OFF(f) offsetof(gd_config, f)
#define GAP_DOC                                                                                   \
    "the whole time from the end of a packet (a kernel's last CTA retiring, a copy ending) to the "   \
    "start of the next packet of its queue (first CTA, engine start) when that packet was already "   \
    "waiting, decoded, for its barrier bit (a busy queue). The model spends a fixed part anyway "     \
    "(pp.completion_cycles, then cwd.grid_launch_cycles before a kernel or "                          \
    "pp.command_launch_cycles before a copy); the packet processor holds the released packet for "   \
    "the rest (docs/MODEL.md, 'Launch gaps'). A gap below the fixed part gives the fixed part. "       \
    "gpu.preset=trace takes the value from the trace's calibration record when it has one "           \
    "(scripts/calibrate.py, kineto2gdt.py --calibrate)."

static const key_def KEYS[] = {
    {"gpu.preset", T_ENUM, OFF(preset), 0, 0, 0, "trace|v100|a100|h100|mi250|mi210|mi250x|mi300x|mi300a", "trace",
     "Device preset. trace: the device the trace describes - the preset of the same chip (keeping "
     "the trace's device name): the preset whose product name the device name contains (MI210, "
     "MI250X, MI300X, MI300A) when its SM count, compute capability and warp size agree, else the "
     "first preset (in this list's order) whose SM count, compute capability and warp size match, "
     "else built from the trace's description (docs/MODEL.md, 'The trace preset'). Keys set "
     "explicitly override the preset.",
     "gdsim"},
    {"gpu.name", T_STRING, OFF(gpu_name), 0, 0, 0, NULL, NULL, "Device name shown in reports.", "preset"},
    {"gpu.cc", T_CC, OFF(sm.cc_major), 0, 0, 0, NULL, NULL,
     "Compute capability major.minor of the modelled device.", "preset"},
    {"gpu.gpcs", T_UINT, OFF(gpcs), 1, GD_MAX_GPCS, 0, NULL, NULL,
     "Number of GPCs (graphics processing clusters), each with one GPC2SM distributor.", "preset"},
    {"gpu.sms_per_gpc", T_LIST, OFF(sms_per_gpc), 1, GD_MAX_SMS_PER_GPC, 0, NULL, NULL,
     "SMs in each GPC: one number per GPC (comma-separated, as many as gpu.gpcs), or one "
     "number for all. SMs are numbered GPC by GPC.", "preset"},
    {"gpu.sms_per_tpc", T_UINT, OFF(sms_per_tpc), 1, 8, 0, NULL, NULL,
     "SMs per TPC (texture processing cluster), the SM pairs that share a GPC port.", "preset"},
    {"gpu.max_grid", T_LIST, OFF(max_grid), 1, UINT32_MAX, 3, NULL, NULL,
     "Largest grid in CTAs along x,y,z.", "preset"},
    {"sm.warp_size", T_UINT, OFF(sm.warp_size), 1, 64, 0, NULL, NULL, "Threads per warp.", "preset"},
    {"sm.max_warps", T_UINT, OFF(sm.max_warps), 1, 256, 0, NULL, NULL, "Resident warps per SM.", "preset"},
    {"sm.max_ctas", T_UINT, OFF(sm.max_ctas), 1, 256, 0, NULL, NULL, "Resident CTAs per SM.", "preset"},
    {"sm.regs", T_UINT, OFF(sm.regs), 1, 1u << 24, 0, NULL, NULL, "32-bit registers per SM.", "preset"},
    {"sm.reg_alloc_unit", T_UINT, OFF(sm.reg_alloc_unit), 1, 1u << 16, 0, NULL, NULL,
     "Registers per warp are allocated in multiples of this.", "preset"},
    {"sm.reg_subpartitions", T_UINT, OFF(sm.reg_subpartitions), 1, GD_MAX_SUBPARTITIONS, 0, NULL, NULL,
     "Register-file sub-partitions per SM (one per SMSP); each holds sm.regs / this registers and a "
     "warp's registers live in one of them.", "preset"},
    {"sm.max_regs_per_thread", T_UINT, OFF(sm.max_regs_per_thread), 1, 65535, 0, NULL, NULL,
     "Most registers a thread may use; a kernel above it is an error.", "preset"},
    {"sm.smem_bytes", T_UINT, OFF(sm.smem), 0, 1u << 30, 0, NULL, NULL,
     "Shared memory per SM available to CTAs (largest carveout), bytes.", "preset"},
    {"sm.smem_alloc_unit", T_UINT, OFF(sm.smem_alloc_unit), 1, 1u << 20, 0, NULL, NULL,
     "Shared memory is allocated per CTA in multiples of this many bytes.", "preset"},
    {"sm.smem_reserved_per_cta", T_UINT, OFF(sm.smem_reserved_per_cta), 0, 1u << 20, 0, NULL, NULL,
     "Shared memory the system reserves for each CTA, bytes.", "preset"},
    {"sm.smem_per_cta_default", T_UINT, OFF(sm.smem_per_cta_default), 0, 1u << 30, 0, NULL, NULL,
     "Per-CTA shared memory limit without opt-in, bytes (used for the profiler's convention).", "preset"},
    {"sm.smem_per_cta_optin", T_UINT, OFF(sm.smem_per_cta_optin), 0, 1u << 30, 0, NULL, NULL,
     "Per-CTA shared memory limit with opt-in, bytes; a kernel above it is an error.", "preset"},
    {"sm.max_threads_per_cta", T_UINT, OFF(sm.max_threads_per_cta), 1, 1u << 16, 0, NULL, NULL,
     "Threads per CTA; a kernel above it is an error.", "preset"},
    {"sm.alloc", T_ENUM, OFF(sm_alloc), 0, 0, 0, "count|contiguous", "count",
     "How an SM hands out registers and shared memory. count: as counts (the occupancy rules: a "
     "CTA fits when enough registers and bytes are free, wherever they lie). contiguous: registers "
     "and shared memory in contiguous blocks: each sub-partition's register file and the SM's "
     "shared memory are rows of allocation units (sm.reg_alloc_unit registers, sm.smem_alloc_unit "
     "bytes); a CTA's warps in one sub-partition take one free block of units, its shared memory "
     "another, the first that fits; a CTA fits only where such blocks are free (as "
     "sm.block_finder sees them), so free units scattered between resident CTAs can leave it "
     "waiting (the report's fragmentation lines).",
     "count: the behaviour before seed 001's allocation existed; contiguous: seed 001's first-class "
     "resources (emb. 1 a41-a45), [0041]-[0064]"},
    {"sm.wave_placement", T_ENUM, OFF(sm_wave_placement), 0, 0, 0, "pooled|tail|head", "pooled",
     "How a CTA's warps are split over the SM's sub-partitions. pooled: as evenly as they go, the "
     "extra warps to the sub-partitions with the most free registers (the occupancy calculator's "
     "pooled rule; under sm.alloc=contiguous, the largest free blocks). tail, head: a balanced "
     "wave split: the even split of a table, rotated by the SM's tail or head pointer, which the "
     "SM moves after each CTA it takes, so the sub-partitions stay balanced over many CTAs; the "
     "CTA fits only if every sub-partition has room for its share (warp slots and registers).",
     "pooled: cuda_occupancy.h's rule (tb/data/kineto/README.md); tail, head: seed 001 emb. 8, "
     "[0218]-[0234]"},
    {"sm.block_finder", T_ENUM, OFF(sm_block_finder), 0, 0, 0, "scan|shift|groups|sampled|shared", "shift",
     "sm.alloc=contiguous: the circuit that finds each map's largest free block before a match "
     "(charged on every launch step, see sm.finder_cycles). scan: the prior-art finder, one unit "
     "after another. shift: shift-and-reduce, exact. groups: sm.finder_groups groups of units "
     "ANDed first (smaller; sees only blocks of whole groups). sampled: only the shifts of "
     "sm.finder_samples (sees only blocks of a sampled length). shared: time-multiplexed, "
     "one unit of sm.finder_width bits serving every map in turn. A finder that sees less "
     "makes CTAs wait for blocks it cannot see.",
     "seed 001 [0089]-[0199] (scan: the prior art it describes; shift: emb. 4; groups: emb. 5; "
     "sampled: emb. 6; shared: emb. 7); shift because it is exact in one cycle"},
    {"sm.finder_cycles", T_UINT, OFF(sm_finder_cycles), 1, 1000000, 0, NULL, "1",
     "sm.alloc=contiguous: cycles of one pass of the shift, groups or sampled finder (and of each "
     "period of the shared one), added to every launch step.",
     "seed 001 [0120], [0147], [0171]: the shifts, the AND and the read-out in one clock cycle as "
     "combinational logic (3 when registered between steps)"},
    {"sm.scan_bits_per_cycle", T_UINT, OFF(sm_scan_bits_per_cycle), 1, 1u << 16, 0, NULL, "1",
     "sm.block_finder=scan: units the prior-art scan examines per cycle; a pass over the longest "
     "map costs its units / this.",
     "seed 001 [0029], [0089]: the prior art finds a block bit by bit over many cycles"},
    {"sm.finder_groups", T_UINT, OFF(sm_finder_groups), 1, GD_MAX_ALLOC_UNITS, 0, NULL, "4",
     "sm.block_finder=groups: z, the groups each map is cut into (it must divide the units of every "
     "map).",
     "seed 001 [0127]-[0135]; 4 divides the register and shared-memory maps of every preset"},
    {"sm.finder_samples", T_STRING, OFF(sm_finder_samples), 0, sizeof(((gd_config *)0)->sm_finder_samples), 0, NULL,
     "0,1,2,3,5,7,11,15,23,31,47,63,95,127,191,255,383,511,767,1023,1535,2047",
     "sm.block_finder=sampled: the shift amounts k the finder computes (comma-separated, ascending, "
     "each step no shorter than the one before, at most 32); it reports the largest k + 1 not "
     "above the true largest block. Shifts at or beyond a map's length are ignored.",
     "seed 001 [0162], [0169]: steps that never shrink, preferably powers of two; here two "
     "samples per power of two, so the finder sees within a factor of 1.5"},
    {"sm.finder_width", T_UINT, OFF(sm_finder_width), 1, GD_MAX_ALLOC_UNITS, 0, NULL, "2048",
     "sm.block_finder=shared: bits of the one time-multiplexed unit (at least the longest map); "
     "the maps are packed into periods of this many bits, each period one pass.",
     "seed 001 [0203]-[0216] (its example: 128 bits for maps of 128, 64 and 48 units); 2048 holds "
     "the longest map of every preset"},
    {"frontend.clock_mhz", T_UINT, OFF(clock_mhz), 1, 100000, 0, NULL, NULL,
     "Clock of the front-end (packet processor and work distributors) in MHz; every *_cycles key "
     "counts cycles of this clock.", "preset"},
    {"pp.fetch_cycles", T_UINT, OFF(pp_fetch_cycles), 0, 100000000, 0, NULL, NULL,
     "Packet processor: from a packet reaching the head of its queue (or its doorbell, if later) "
     "to the packet being fetched.", "preset"},
    {"pp.doorbell_cycles", T_UINT, OFF(pp_doorbell_cycles), 0, 100000000, 0, NULL, NULL,
     "Packet processor: waking for a queue that was idle when a packet's doorbell rang (the host "
     "wrote into it with nothing left in it or in flight), before that packet's fetch; a packet "
     "written behind others of its queue, or while one runs, is fetched when they have left, "
     "without it. An idle queue's launch "
     "latency is this plus pp.fetch_cycles, pp.decode_cycles and cwd.grid_launch_cycles; a busy "
     "queue's packets are fetched and decoded during the kernel ahead of them.", "preset"},
    {"pp.idle_launch_ns", T_UINT, OFF(pp_idle_launch_ns), 0, 1000000000, 0, NULL, "0",
     "Idle launch latency: from the doorbell of a kernel or copy written into an idle queue (as "
     "pp.doorbell_cycles has it) to its start (first CTA, engine start). 0: the sum of the stages, "
     "pp.doorbell_cycles + pp.fetch_cycles + pp.decode_cycles + cwd.grid_launch_cycles (a kernel) or "
     "pp.command_launch_cycles (a copy). Otherwise the packet processor's wake-up and fetch of that "
     "packet take what decode and the grid or command launch leave of it, in place of "
     "pp.doorbell_cycles + pp.fetch_cycles (at least 0: it cannot be shorter than those two stages; "
     "packets behind others of their queue are fetched as before; docs/MODEL.md, 'Idle launch "
     "latency'). gpu.preset=trace takes the value from the trace's calibration record when it has one "
     "(scripts/calibrate.py, kineto2gdt.py --calibrate).",
     "0: every preset fits its idle launch latency with the stages (their sources below)"},
    {"pp.decode_cycles", T_UINT, OFF(pp_decode_cycles), 0, 100000000, 0, NULL, NULL,
     "Packet processor: decoding one fetched packet. One decoder serves all queues, so decodes "
     "of different queues wait for each other.", "preset"},
    {"pp.completion_cycles", T_UINT, OFF(pp_completion_cycles), 0, 100000000, 0, NULL, NULL,
     "Packet processor: from a kernel's last CTA retiring to its completion being signalled "
     "(release fence, completion signal, barrier-bit waiters released).", "preset"},
    {"vp.queues", T_UINT, OFF(vp_queues), 1, 63, 0, NULL, "8",
     "Hardware queues in the register block of a GPU embedded in a virtual platform (gdsim::gpu, "
     "docs/VP.md): each has a ring base, size, doorbell, read index and enable register. Trace "
     "replays do not use it.",
     "gdsim: a register block of 8 queues (0x300 bytes); at most 63, one interrupt-cause bit each "
     "(bit 63 is the error cause)"},
    {"pp.queue_packets", T_UINT, OFF(pp_queue_packets), 1, 1u << 24, 0, NULL, "2048",
     "Packets each hardware queue holds. A submit to a full queue waits (the host blocks; in a "
     "closed-loop replay, the thread that submits) until the packet processor has taken a packet; "
     "such waits are counted as host_stalls.",
     "CUDA's pending-launch limit: users report cudaLaunchKernel blocking once about 1024 launches "
     "are outstanding, but the shared V100 training capture (tb/data/kineto) holds up to 1,290 "
     "launched and not yet started on one stream while no launch call takes longer than 44 us: the "
     "limit there is above 1,290; 2048, the next power of two (1024 stalled its closed-loop replay "
     "3,905 times where the capture never blocked)"},
    {"pp.barrier_cycles", T_UINT, OFF(pp_barrier_cycles), 0, 100000000, 0, NULL, "0",
     "Packet processor: from a barrier-AND/-OR packet's dependencies being satisfied (and its "
     "barrier bit, if set) to its completion (completion signal, later packets of its queue "
     "released). The dependency's own completion latency comes before this.",
     "tb/data/kineto/a100_alexnet_79_kernels.json.gz: the one cross-stream wait there that "
     "held back its kernel shows a 1 us gap from the awaited kernel's end to the waiting kernel's "
     "start (us timestamps), no more than a same-stream kernel-to-kernel gap: resolving the "
     "barrier adds no measurable time"},
    {"pp.command_launch_cycles", T_UINT, OFF(pp_command_launch_cycles), 0, 100000000, 0, NULL, NULL,
     "Packet processor: from a non-kernel command (memcpy, memset) being ready (decoded, its "
     "barrier bit satisfied) to its copy or fill engine starting it; it then runs for the "
     "duration the trace gives and completes after pp.completion_cycles.", "preset"},
    {"pp.gap_kernel_kernel_ns", T_UINT, OFF(pp_gap_ns[0]), 0, 1000000000, 0, NULL, NULL,
     "Launch gap, kernel after a kernel (stream-launched): "
     GAP_DOC, "preset"},
    {"pp.gap_kernel_copy_ns", T_UINT, OFF(pp_gap_ns[1]), 0, 1000000000, 0, NULL, NULL,
     "Launch gap, copy (memcpy, memset) after a kernel (stream-launched): "
     GAP_DOC, "preset"},
    {"pp.gap_copy_kernel_ns", T_UINT, OFF(pp_gap_ns[2]), 0, 1000000000, 0, NULL, NULL,
     "Launch gap, kernel after a copy (stream-launched): "
     GAP_DOC, "preset"},
    {"pp.gap_copy_copy_ns", T_UINT, OFF(pp_gap_ns[3]), 0, 1000000000, 0, NULL, NULL,
     "Launch gap, copy after a copy (stream-launched): "
     GAP_DOC, "preset"},
    {"pp.gap_graph_kernel_kernel_ns", T_UINT, OFF(pp_gap_ns[4]), 0, 1000000000, 0, NULL, NULL,
     "Launch gap, kernel after a kernel, the kernel launched as part of a CUDA graph (trace flag, format 1.9): "
     GAP_DOC, "preset"},
    {"pp.gap_graph_kernel_copy_ns", T_UINT, OFF(pp_gap_ns[5]), 0, 1000000000, 0, NULL, NULL,
     "Launch gap, copy after a kernel, the copy launched as part of a CUDA graph: "
     GAP_DOC, "preset"},
    {"pp.gap_graph_copy_kernel_ns", T_UINT, OFF(pp_gap_ns[6]), 0, 1000000000, 0, NULL, NULL,
     "Launch gap, kernel after a copy, the kernel launched as part of a CUDA graph: "
     GAP_DOC, "preset"},
    {"pp.gap_graph_copy_copy_ns", T_UINT, OFF(pp_gap_ns[7]), 0, 1000000000, 0, NULL, NULL,
     "Launch gap, copy after a copy, the copy launched as part of a CUDA graph: "
     GAP_DOC, "preset"},
    {"pp.gap_after_wait_ns", T_UINT, OFF(pp_gap_ns[8]), 0, 1000000000, 0, NULL, NULL,
     "Launch gap after a cross-stream wait: from the end of the packet whose completion resolved a barrier "
     "packet (a cudaStreamWaitEvent) to the start of the kernel or copy behind the barrier, which was waiting, "
     "decoded; the fixed part also holds pp.barrier_cycles. Otherwise as pp.gap_kernel_kernel_ns: "
     GAP_DOC, "preset"},
    {"pp.gap_programmatic_lead_ns", T_UINT, OFF(pp_gap_programmatic_lead_ns), 0, 1000000000, 0, NULL, NULL,
     "Programmatic dependent launch (a kernel the trace flags, format 1.11: CUDA's "
     "cudaLaunchKernelEx with programmatic stream serialization): the kernel leaves its queue once every "
     "earlier packet still outstanding is a kernel, and the distributor launches its CTAs, after all of its "
     "primary's (the kernel before it in its queue), from this long before the primary's last CTA ends "
     "(docs/MODEL.md, 'Programmatic dependent launch'). gpu.preset=trace takes the value from the trace's "
     "calibration record when it has one (scripts/calibrate.py).", "preset"},
    {"rsb.entries", T_UINT, OFF(rsb_entries), 1, 8, 0, NULL, "8",
     "Reference state buffer: entries of its reference state table, which reference packets fill "
     "(their ref_num) and condensed packets read (a diff header's 3-bit ref_num). A trace whose "
     "reference packet names an entry beyond it is refused (file, record and offset).",
     "seed 000 table 3: an RST of 8 entries; table 5's ref_num has 3 bits"},
    {"rsb.access_cycles", T_UINT, OFF(rsb_access_cycles), 0, 1000000, 0, NULL, "10",
     "Reference state buffer: a reference packet's write of its entry, or a condensed packet's "
     "lookup of one kernel's entry, in the packet processor after decoding.",
     "assumption: seed 000 [0090] places the RSB in scratch RAM of the kernel agent (or GPU memory) "
     "without a latency; 10 cycles for an on-chip SRAM read of a 64-byte entry"},
    {"rsb.replacement", T_ENUM, OFF(rsb_replacement), 0, 0, 0, "lru|fifo", "lru",
     "gdsim condense (the host's encoder): which reference state table entry a new reference "
     "packet replaces: the least recently used, or the one loaded longest ago.",
     "issue 5 (LRU by default); seed 000 leaves the choice to the driver"},
    {"pp.condensed_overlap", T_ENUM, OFF(pp_condensed_overlap), 0, 0, 0, "on|off", "off",
     "Kernels of one condensed packet: off: each starts after the previous one completes; on: they "
     "follow their own barrier bits, so they may overlap.",
     "seed 000 fig 6, process 600, and [0143] (each kernel after the previous completes), [0146] "
     "(some may run in parallel)"},
    {"cwd.grid_launch_cycles", T_UINT, OFF(cwd_grid_launch_cycles), 0, 100000000, 0, NULL, NULL,
     "Compute work distributor: from receiving a kernel to being able to launch its first CTA "
     "(grid setup).", "preset"},
    {"cwd.cta_launch_cycles", T_UINT, OFF(cwd_cta_launch_cycles), 0, 1000000, 0, NULL, "1",
     "Compute work distributor: cycles between two CTA launches, GPU-wide (one CTA at a time to "
     "the SM with the most free slots).",
     "seed 003 [0127], [0130]: the prior-art distributor launches one CTA at a time and needs "
     "more than 1000 cycles to fill 128 SMs with 8 CTAs each, i.e. about 1 cycle per CTA"},
    {"cwd.max_resident_kernels", T_UINT, OFF(cwd_max_resident_kernels), 1, 65536, 0, NULL, "128",
     "Kernels the distributor holds at once (launching or with CTAs resident). A dispatch beyond "
     "it waits in the packet processor until a kernel completes.",
     "CUDA C++ Programming Guide, table 'Technical Specifications per Compute Capability': "
     "maximum number of resident grids per device = 128 for compute capability 7.0, 8.0 and 9.0"},
    {"cwd.gpc_cgas_per_sm", T_UINT, OFF(cwd_gpc_cgas_per_sm), 1, 1024, 0, NULL, "32",
     "Clusters: GPC-CGAs a GPC may hold at once, per SM of the GPC (its counter starts at SMs x "
     "this; a cluster that finds every GPC's counter at zero waits).",
     "seed 003 [0211] initialises each GPC's counter from its SM count without giving the "
     "factor; 32 = the resident CTAs per SM of compute capability 7.0-9.0 (CUDA C++ Programming "
     "Guide), so by default the counter never binds before the CTA slots do"},
    {"cwd.gpc_cga_ids", T_UINT, OFF(cwd_gpc_cga_ids), 1, 256, 0, NULL, "256",
     "Clusters: gpc_local_cga_id values per GPC; a GPC-CGA takes one from the GPC's free list "
     "until its shared-memory flush is done, and a launch stalls while none is free.",
     "seed 003 [0227], [0237]: gpc_local_cga_id is an 8-bit (u008) field of the SM-to-SM packets"},
    {"cwd.lake_scan_limit", T_UINT, OFF(cwd_lake_scan_limit), 0, 1000000, 0, NULL, "8",
     "Clusters, load-balancing mode: the GPC2SM distributor finds the final water level by "
     "scanning down the free-slot levels when the deepest SM has at most this many free slots, "
     "else by a binary search on the level (the result is the same; the number of steps differs).",
     "seed 003 [0155]-[0156] scans for small free-slot counts and searches for large ones "
     "without giving the threshold; 8 is its own example of an SM with room for 8 CTAs ([0130])"},
    {"cwd.policy", T_ENUM, OFF(cwd_policy), 0, 0, 0, "baseline|cga", "cga",
     "Compute work distributor. baseline: the prior-art distributor: one CTA at a time to the SM "
     "with the most free slots, cwd.cta_launch_cycles apart, ids made centrally; clusters launch "
     "CTA by CTA without a co-scheduling guarantee. cga: the cluster-aware distributor "
     "(docs/MODEL.md, 'Clusters'): each step queries a model of every GPC, launches whole CGAs "
     "(all their CTAs at one time) on the GPCs of the best speed, fills a plain grid's free slots "
     "all at once (fill the lake), and costs cwd.query_cycles plus cwd.mask_launch_cycles per SM "
     "mask sent.",
     "gdsim (a choice of model); baseline: the prior art seed 003 describes ([0126]-[0130]); cga: "
     "seed 003's distributor"},
    {"cwd.admission", T_ENUM, OFF(cwd_admission), 0, 0, 0, "inorder|channels", "inorder",
     "cwd.policy=cga: which resident kernel a launch step serves. inorder: the oldest kernel with "
     "CTAs left, until all its CTAs have launched (a later kernel waits even when the oldest finds "
     "no room). channels: multi-channel admission: every resident kernel is a "
     "task channel; each step matches every channel's next CTA against every SM's free resources "
     "and serves the one of the highest priority that fits (ties: per-channel marks, so "
     "equal kernels take turns), so a small kernel launches beside a big one that has no room left.",
     "inorder: the behaviour before seed 001's admission existed (and the prior art seed 001 "
     "describes, [0040]); channels: seed 001's multi-channel admission (emb. 1), [0031]-[0059]; "
     "ties: a42's per-channel marks"},
    {"cwd.priority_windows", T_STRING, OFF(cwd_priority_windows), 0, 0, 0, NULL, "off",
     "cwd.admission=channels: rotating priority windows: off, or the lengths in cycles of the "
     "windows of priority levels 0, 1, ... (comma-separated, at most 8, longer for higher "
     "priorities); a cycle counter runs over their sum and during level y's window level y ranks "
     "above the others, which keep their order, so a low priority is not starved.",
     "seed 001's priority windows (emb. 2); off: no windows (seed 001 emb. 1's fixed priorities); "
     "the seed suggests 2 to 8 windows, 4 in its example, without lengths"},
    {"cwd.split_after", T_UINT, OFF(cwd_split_after), 0, 1000000000, 0, NULL, "256",
     "cwd.admission=channels: splitting of independent workgroups: after this many matching rounds "
     "in a row that fitted no channel's next CTA (the distributor repeats a round every "
     "cwd.query_cycles while it waits), the next CTA of an independent kernel (trace format 1.7's "
     "independent flag; gen_trace.py --independent VID) is split into one-warp sub-workgroups of "
     "the lowest priority, which launch as room appears; 0: never split.",
     "seed 001 emb. 3; [0088]: 256 in its example; [0095], [0097]: one sub-workgroup per warp, at "
     "the lowest priority"},
    {"cwd.query_cycles", T_UINT, OFF(cwd_query_cycles), 0, 1000000, 0, NULL, "8",
     "cwd.policy=cga: one speculative query of the distributor's model of the GPCs (the round trip "
     "inside the compute work distributor, all GPCs in parallel), per launch step.",
     "assumption: seed 003 [0166] keeps the query model inside the distributor because the round "
     "trip to the real GPCs is long, but gives no cycle count; 8 cycles for a few levels of "
     "comparators and an adder tree over a GPC's SMs"},
    {"cwd.mask_launch_cycles", T_UINT, OFF(cwd_mask_launch_cycles), 0, 1000000, 0, NULL, "1",
     "cwd.policy=cga: sending one SM mask (the launch packet of one GPC-CGA, or of one GPC's share of "
     "a plain grid's CTAs in a step; it carries several CTA launches) to the SMs; the CTAs of a step "
     "start when its masks have gone out.",
     "seed 003 [0194]: a launch packet carries several CTA launches per SM mask; one mask per "
     "cycle, the rate of the prior art's one CTA per cycle ([0130])"},
    {"cwd.id_broadcast_cycles", T_UINT, OFF(cwd_id_broadcast_cycles), 0, 1000000, 0, NULL, "1",
     "cwd.policy=cga: once a step's SM masks have gone out, every SM sees the broadcast launch "
     "sequence and rasterizes its new CTAs' (x, y, z) ids from the count of launches since its "
     "last id; the CTAs start this many cycles after the last mask.",
     "seed 003 [0176]-[0178], [0191]: the SMs rasterize in parallel from a low-precision delta "
     "(no expensive division), which reaches the peak launch throughput; one cycle"},
    {"cwd.cga_flush_cycles", T_UINT, OFF(cwd_cga_flush_cycles), 0, 100000000, 0, NULL, "100",
     "cwd.policy=cga: after the last CTA of a GPC-CGA completes, the shared-memory flush of its "
     "SMs before the CGA completes and releases its gpc_local_cga_id and its GPC's GPC-CGA counter.",
     "assumption: seed 003 [0231]-[0233], [0258] describe the flush handshake (dsmem flush to "
     "every SM of the CGA, acknowledgements back to the GPM) without a latency; 100 cycles for "
     "one round trip across a GPC"},
    {"cwd.raster_check", T_ENUM, OFF(cwd_raster_check), 0, 0, 0, "on|off", "off",
     "Checking mode, not a model number: every CTA id the SMs rasterize from the launch sequence "
     "(a count of launches since their last id, decomposed into x, y, z increments with carries) "
     "is compared with the direct computation, and a difference stops the "
     "replay. Ids are rasterized when this is on or a CTA log is written.",
     "gdsim; the rasterization: seed 003 [0176]-[0191]"},
    {"cs.policy", T_ENUM, OFF(cs_policy), 0, 0, 0, "aql|inorder|waitqueue", "aql",
     "Command scheduler (docs/MODEL.md 'Command scheduler'). aql: the packet processor "
     "holds each queue's head until its HSA barrier bit allows it, and kernels go straight to the "
     "distributor. inorder: the prior-art scheduler: commands enter the "
     "physical queue of their hardware queue; a conditional command at the head waits there for the "
     "latest sync command of its tenant (VID), blocking every command behind it. waitqueue: per-engine "
     "wait queues: a conditional command whose sync still runs moves into that sync's "
     "wait queue, so commands of other tenants go on.",
     "aql: the behaviour of gdsim before the scheduler existed (HSA queues); the others as seed 004 "
     "(inorder: the prior art it describes, [0068]-[0069]; waitqueue: its method 800, fig 8)"},
    {"cs.physical_queues", T_UINT, OFF(cs_physical_queues), 0, 1024, 0, NULL, "0",
     "Hardware (physical) queues the host's queues are mapped onto, in the order they first appear, "
     "round-robin (queue k of the trace goes to k mod N), as CUDA maps streams onto its connections; "
     "a command keeps its tenant (VID). 0: one physical queue per trace queue.",
     "0: the trace's own queues; CUDA's default is CUDA_DEVICE_MAX_CONNECTIONS = 8 (at most 32)"},
    {"cs.engines", T_UINT, OFF(cs_engines), 0, 65536, 0, NULL, "0",
     "cs.policy=inorder|waitqueue: engines that run kernels, one kernel each (the running-command "
     "status table has an entry per engine): dispatch slots of the distributor, at most "
     "cwd.max_resident_kernels. 0: cwd.max_resident_kernels.",
     "issue 11: an engine is a dispatch slot of the distributor (a kernel resident in GPU2GPC)"},
    {"cs.copy_engines", T_UINT, OFF(cs_copy_engines), 1, 65536, 0, NULL, "16",
     "cs.policy=inorder|waitqueue: engines that run non-kernel commands (memcpy, memset), one "
     "each; a copy starts pp.command_launch_cycles after its dispatch.",
     "assumption: enough that copies seldom wait for an engine, as under cs.policy=aql (which "
     "starts every copy when it is ready); set it to the device's cudaDeviceProp.asyncEngineCount "
     "to model copy-engine contention"},
    {"cs.wait_queues", T_UINT, OFF(cs_wait_queues), 0, 65536, 0, NULL, "0",
     "cs.policy=waitqueue: wait queues; a sync command takes a free one when it is dispatched (its "
     "conditional commands wait there) and waits at its physical queue's head while none is free. "
     "0: as many as kernel engines (cs.engines).",
     "seed 004 [0066]: the number of processing engines may equal the number of wait queues; figs 3 "
     "and 7 show four of each"},
    {"cs.wq_depth", T_UINT, OFF(cs_wq_depth), 1, 1u << 24, 0, NULL, "1024",
     "cs.policy=waitqueue: commands a wait queue holds; a conditional command whose wait queue is "
     "full waits at its physical queue's head.",
     "assumption: seed 004 [0056] gives no size; as many as a hardware queue holds (pp.queue_packets)"},
    {"cs.pick_cycles", T_UINT, OFF(cs_pick_cycles), 0, 1000000, 0, NULL, "1",
     "cs.policy=inorder|waitqueue: the controller selecting a command from a wait queue or physical "
     "queue. The controller handles one command at a time.",
     "assumption: seed 004 gives no latency for the selection (fig 8 step 801; the multiplexers of "
     "fig 7); one cycle for a multiplexer select"},
    {"cs.decode_cycles", T_UINT, OFF(cs_decode_cycles), 0, 1000000, 0, NULL, "2",
     "cs.policy=inorder|waitqueue: decoding the picked command's flags and comparing its VID with "
     "the running-command status table before it is dispatched, pushed into a wait queue or "
     "completed as a no-op.",
     "assumption: seed 004 gives no latency for these steps (fig 8 steps 802, 805/809); two cycles "
     "for the flag decode and an associative lookup of the status table (one entry per engine)"},
    {"meta.policy", T_ENUM, OFF(meta_policy), 0, 0, 0, "topology|round_robin|priority|most_data", "topology",
     "Meta-scheduler execution policy (traces/TOPOLOGY.md). round_robin: "
     "buffers checked in turn, every consumer of one with data runs; priority: the most important "
     "kernel with data first; most_data: the consumer of the fullest buffer first. topology: the "
     "topology's own policy line (round_robin if it has none).",
     "seed 002 [0106]-[0109] (the policies), [0110]-[0113]: the compiler, or the developer, "
     "chooses the policy"},
    {"meta.simd_width", T_UINT, OFF(meta_simd_width), 0, 65536, 0, NULL, "0",
     "Meta-scheduler: items a consumer kernel's input buffer must hold before it is launched, unless "
     "its producers are done; the validation of a topology counts it too (a buffer "
     "must hold a producer's CTA while its consumer waits for this many). 0: the device's warp size.",
     "seed 002 [0097]: an 8-lane SIMD GPU waits for 8 entries; a GPU's SIMD width is its warp (32) or "
     "wavefront (64) size"},
    {"meta.concurrency", T_ENUM, OFF(meta_concurrency), 0, 0, 0, "auto|parallel|sequential", "auto",
     "Meta-scheduler: whether kernels of a pipeline run at the same time. auto: "
     "another launch goes ahead while launches are in flight only as far as the SMs they are counted to "
     "hold (their CTAs over the kernel's CTAs per SM) leave room, and shrinks to fit; parallel: always; "
     "sequential: one launch in flight at a time.",
     "seed 002 [0094]: sequential when few compute units are free, parallel when many are"},
    {"meta.protect_important", T_ENUM, OFF(meta_protect_important), 0, 0, 0, "on|off", "on",
     "Meta-scheduler: while a kernel runs, no less important kernel (topology field importance) of its "
     "pipeline is launched, so the SMs it frees are not switched to another kernel. Kernels of "
     "equal importance are not held.",
     "seed 002 [0095]-[0096], [0102]: an important kernel runs without interruption"},
    {"meta.debug", T_ENUM, OFF(meta_debug), 0, 0, 0, "off|on", "off",
     "Meta-scheduler debug mode: every buffer shrinks to the least it can hold "
     "without deadlock (one CTA's data for its producer and consumer, its initial items at least; a "
     "buffer on a loop keeps its length), every launch is one CTA and one launch runs at a time. "
     "--meta-log writes the log of every launch, fill and drain.",
     "seed 002 [0117]-[0118]; [0117]: the buffers' storage reduced to a single location, one kernel "
     "at a time"},
    {"meta.launch_ctas", T_UINT, OFF(meta_launch_ctas), 0, 0x7fffffffu, 0, NULL, "0",
     "Meta-scheduler: the most CTAs of one launch. 0: one wave of the kernel on the device (the SMs "
     "times its CTAs per SM), so that a launch's CTAs start and end together and the items they write "
     "are credited when they end.",
     "gdsim: seed 002 [0092] executes a consumer 'for some amount of data' without saying how much"},
    {"meta.check_cycles", T_UINT, OFF(meta_check_cycles), 0, 1000000, 0, NULL, "1",
     "Meta-scheduler: a decision round's check of one buffer's fill level (a round checks every buffer of "
     "the pipeline before it decides).",
     "assumption: seed 002 [0109] keeps each buffer's amount of data in a register; one cycle to compare it"},
    {"meta.launch_cycles", T_UINT, OFF(meta_launch_cycles), 0, 100000000, 0, NULL, "100",
     "Meta-scheduler: issuing one launch decided by a round to the distributor (launches of a round "
     "are issued one after another).",
     "assumption: of the order of the packet processor's decode of a dispatch packet (pp.decode_cycles "
     "of the presets, 100-300 cycles); the meta-scheduler forms the dispatch from its own tables"},
    {"gpc2sm.select", T_ENUM, OFF(gpc2sm_select), 0, 0, 0, "lake|weighted|power", "lake",
     "cwd.policy=cga, plain grids: which SMs take a launch step's CTAs. lake: the distributor's fill "
     "of the lake (most free slots first, SM priority on ties). weighted: the module selector picks, "
     "CTA by CTA, the candidate SM with the largest sum of select.resource_weights x its "
     "remaining resources (as fractions of their capacity). power: the module selector "
     "picks the candidate SM that used the least energy (power.insn_energy_fj x its instructions) in "
     "the last select.window_cycles, counting the CTAs the step already gave it. Clusters (GPC-CGAs) "
     "keep the cluster placement of cwd.policy=cga.",
     "lake: the behaviour before seed 001's selector existed (seed 003's fill of the lake); weighted: "
     "seed 001 emb. 9; power: seed 001 emb. 10; both [0237]-[0283]; clusters: seed 003's placement"},
    {"gpc2sm.group_ctas", T_ENUM, OFF(gpc2sm_group_ctas), 0, 0, 0, "on|off", "on",
     "How the GPC2SM distributor books a launch step's CTAs. on: the CTAs a step puts on its SMs "
     "(which start together and, every CTA of a dispatch running the same time, end together) are "
     "one record per group of SMs that take the same number with the same registers per "
     "sub-partition (most steps: one), and the step's records one retirement, freeing the CTAs "
     "of all the record's SMs in one operation; off: one record and one retirement per CTA (the "
     "reference path). "
     "Every output is the same either way (make bench compares them); under sm.alloc=contiguous "
     "or sm.wave_placement=tail|head each CTA keeps its own record (its own blocks and "
     "sub-partitions), still retired with its step.",
     "issue 16: simulator speed only, not a hardware choice"},
    {"select.cycles", T_UINT, OFF(select_cycles), 0, 1000000, 0, NULL, "0",
     "gpc2sm.select=weighted|power: the module selector's answer for one CTA; a step's CTAs start "
     "this many cycles per CTA later.",
     "issue 12: 0, so that choosing by weight or power costs no time unless asked (seed 001 gives no "
     "latency)"},
    {"select.window_cycles", T_UINT, OFF(select_window_cycles), 1, 1u << 30, 0, NULL, "1024",
     "gpc2sm.select=power: nx, the history of an SM's executed instructions the choice looks at, in "
     "cycles; a power of two.",
     "seed 001 [0279]: nx a power of two, 1024 in its example"},
    {"select.resource_weights", T_LIST, OFF(select_resource_weights), 0, 1000000, 4, NULL, "1,1,1,1",
     "gpc2sm.select=weighted: the weights a_h of an SM's remaining warp slots, CTA slots, shared "
     "memory and registers (each counted as a fraction of its capacity).",
     "assumption: equal weights; seed 001 [0248]-[0250] derives a_h from each resource's measured "
     "power, which no capture gives"},
    {"power.insn_energy_fj", T_LIST, OFF(power_insn_fj), 0, UINT32_MAX, 7, NULL,
     "147200,48000,3200,320000,473600,3072000,147200",
     "Energy of one warp instruction of each class, femtojoules: fp32, fp16, int, ldst, sfu, "
     "tensor (a kernel descriptor's instruction mix, trace format 1.6), then the energy per warp "
     "and nanosecond of a CTA whose kernel has no mix (one generic class). The SMs' energy, the "
     "report's power figures and gpc2sm.select=power use them (the module selector's weights b_s).",
     "the weights b_s of seed 001 emb. 10; 32 lanes x the 45 nm figures of M. Horowitz, "
     "'Computing's energy problem', ISSCC 2014: fp32 FMA = FP add 0.9 + mult 3.7 pJ; fp16 0.4 + "
     "1.1 pJ; int add 0.1 pJ; ldst 32 x 4 bytes from a 32 KB SRAM at 20 pJ per 64 bits; sfu "
     "assumed 4 fp32 mults; tensor an HMMA.16816 (2048 fp16 MACs); generic = fp32 (assumption: one "
     "warp instruction per ns)"},
    {"power.window_ns", T_UINT, OFF(power_window_ns), 0, 1000000000, 0, NULL, "0",
     "The SMs' power over time: 0 (off), or the length of the windows over which every CTA's energy "
     "is spread (evenly over its run); for each window the report gives how unevenly the SMs share "
     "it (the coefficient of variation across the SMs: mean and p99 over the windows; the largest "
     "max / mean), what gpc2sm.select=power is meant to even out. Costs some time per CTA.",
     "0: off, so that a replay pays nothing for it unless asked; 10000 (10 us) resolves the waves of "
     "most kernels"},
    {"report.idle_gap_pct", T_UINT, OFF(report_idle_gap_pct), 0, 100, 0, NULL, "10",
     "The report's idle note: when the GPU held no kernel for a stretch longer than this percentage "
     "of the simulated time (a host pause in a capture, say), the report says so beside the mean "
     "occupancy over the busy span, and gives the occupancy over the time kernels were resident; "
     "0 always prints the note.",
     "gdsim: 10 %, so the note appears when an idle stretch visibly distorts the busy-span figure"},
    {"sim.shortcuts", T_ENUM, OFF(sim_shortcuts), 0, 0, 0, "on|off", "on",
     "Simulation technique, not a model number. on: a GPC's CTA retirement and the next CTA "
     "launch share one step when nothing else happens at that time, retirements nothing "
     "depends on (no kernel waits to launch) are handed to the GPCs later, and when the only "
     "free slots are those that retired CTAs of the kernel's cost left, they take as many of its "
     "next CTAs on the same SMs without the lake (a refill, docs/MODEL.md), and a wait for room "
     "that begins while no GPC has a free slot is told to the GPCs only once one may change; "
     "off: every retirement is a step of its own, "
     "every step goes through the lake and every wait is told when it begins. Results are identical (tb/test_replay.c compares the "
     "two on random traces); off is slower and serves to check that.",
     "gdsim"},
    {"sm.cta_time_scale", T_SCALE, OFF(sm_cta_time_ppm), 1000, 1000000000, 0, NULL, "1",
     "Every kernel CTA's duration is multiplied by this (a trace replay's dispatches, and the "
     "kernels of pipeline topologies; copies keep theirs). A capture replayed on another device "
     "keeps the per-CTA times measured on its own unless told: 0.5 asks what kernels twice as fast "
     "would do.",
     "1: the trace's own times"},
    {"sm.cta_time_rules", T_STRING, OFF(sm_cta_time_rules), 0, sizeof(((gd_config *)0)->sm_cta_time_rules), 0,
     NULL, "none",
     "A file of per-kernel CTA time rules (`gdsim replay --cta-time-rules FILE`): one rule per line, "
     "FACTOR PATTERN, the CTA durations of the dispatches whose kernel name matches the shell glob "
     "PATTERN multiplied by FACTOR (0.001 to 1000, as sm.cta_time_scale, and on top of it); the first "
     "matching rule wins, kernels no rule matches keep their times; the report counts each rule's "
     "kernels and dispatches (docs/WHATIF.md). none: no rules.",
     "none: the trace's own times"},
    {"host.cpu_time_scale", T_SCALE, OFF(host_cpu_time_ppm), 0, 1000000000, 0, NULL, "1",
     "Closed loop: every host thread's CPU time between its calls and every wait's tail (from the "
     "awaited work's end to the call's return) is multiplied by this: 0.5 asks what a host "
     "twice as fast would do, 0 what an infinitely fast one would (the GPU floor's question, with "
     "the GPU's overlaps re-simulated). Threads keep their captured starts; open loop is unchanged.",
     "1: the capture's own CPU times"},
    {"host.mode", T_ENUM, OFF(host_mode), 0, 0, 0, "closed|open", "closed",
     "The host of a trace with host threads (format 1.10: a capture converted by kineto2gdt.py). "
     "closed: each host thread issues its calls and waits in order, a call its captured CPU gap "
     "after the thread's previous call or wait returned, a wait (a synchronize, a blocking copy) "
     "returning its captured tail after what it waited for ended in the replay (no earlier than its "
     "completion): a faster or "
     "slower GPU moves the host's later launches, as the real program's. open: every packet enters "
     "its queue at its captured submit time (what a trace without host threads always does). "
     "traces/FORMAT.md 'Host threads', docs/MODEL.md 'The host'.",
     "DESIGN.md 'The host: closed loop'; the captured program's own order"},
    {"host.max_lookahead", T_UINT, OFF(host_max_lookahead), 1, 1u << 30, 0, NULL, "65536",
     "Closed loop: the most packets read ahead of the host threads (a thread's next call must be "
     "known before an earlier-due call of another thread goes; the packets of the other threads "
     "in between are held). A trace that needs more stops with an error naming the thread.",
     "gdsim: bounds memory (a packet held takes about 450 bytes: 65536 about 30 MB)"},
    {"sim.read_ahead", T_ENUM, OFF(sim_read_ahead), 0, 0, 0, "on|off", "on",
     "Simulation technique, not a model number. on: while a replay reads a gzip trace file, a "
     "second thread decompresses the next 256 KiB of it (the simulation runs on the caller's "
     "thread as always); off: the caller's thread decompresses in turn, as it does for a pipe "
     "or an uncompressed file. Results and error messages are identical; on takes the "
     "decompression (a tenth of the work of a trace of many small kernels) off the replay's "
     "path where a second core is free.",
     "gdsim"},
    {"sim.max_sim_time_s", T_UINT, OFF(sim_max_sim_time_s), 1, GD_TIME_LIMIT_S, 0, NULL, "86400",
     "The longest simulated time a replay may reach, in seconds from the first submit. A trace "
     "whose times go past it (a packet submitted later, a CTA duration or wait-until time longer) "
     "is refused at that record; a replay whose simulated clock passes it stops with an error. "
     "The maximum, 2305843 s (2^61 ps, about 26.7 days), is the representable limit: simulated "
     "times are 64-bit picoseconds, and every time a replay adds stays below 2^64 ps.",
     "gdsim: one day, far beyond any captured workload (a training step is milliseconds), "
     "short enough that an absurd time in a trace is caught"},
    {"sim.max_ctas", T_UINT, OFF(sim_max_ctas), 0, UINT32_MAX, 0, NULL, "4294967295",
     "The most CTAs a replay may run, over all its kernels; 0: no limit. A dispatch that takes "
     "the trace past it is refused when its record is read, before it runs (a grid of "
     "(2^31-1) x 65535 x 65535 CTAs is legal CUDA but would run for years); a pipeline's "
     "launch that would take the replay past it (the CTAs of the dispatches read so far and "
     "of the pipelines' launches) stops the replay, naming the pipeline's record.",
     "gdsim: 2^32 - 1, a minute or two of replay at full speed (docs/PERFORMANCE.md); a real "
     "training step has tens of millions"},
    {"sim.max_kernel_descriptors", T_UINT, OFF(sim_max_kernel_descriptors), 0, UINT32_MAX, 0, NULL, "1048576",
     "The most distinct kernel descriptors a trace may define; 0: no limit. The reader keeps "
     "every descriptor (about 200 bytes and its name) for the whole replay: a descriptor "
     "record past the limit is refused where it is read, before memory runs out.",
     "gdsim: 2^20; a captured training step has hundreds to a few thousand distinct kernels"},
    {"sim.max_descriptor_mib", T_UINT, OFF(sim_max_descriptor_mib), 0, 1048576, 0, NULL, "256",
     "The most memory a trace's kernel descriptors may take, their names included, in MiB; 0: no "
     "limit. The reader keeps them for the whole replay: a descriptor past the limit is refused "
     "where it is read (sim.max_kernel_descriptors counts them, but 40,000 names of 64 KiB each "
     "took 2.6 GB).",
     "gdsim: 256 MiB; a captured training step's few thousand descriptors take a few MiB"},
    {"sim.max_signals", T_UINT, OFF(sim_max_signals), 0, UINT32_MAX, 0, NULL, "16777216",
     "The most distinct completion-signal handles a trace may use; 0: no limit. Each is kept "
     "for the whole replay (a table entry and its value in the packet processor): a packet "
     "naming one past the limit is refused where it is read.",
     "gdsim: 2^24; a converted capture uses one per queue or per dispatch that is waited on"},
};

#define NKEYS (sizeof KEYS / sizeof KEYS[0])

/* ------------------------------------------------------------------------- */
/* Presets                                                                    */

typedef struct preset_value {
    const char *key, *value, *source;
} preset_value;

typedef struct preset_def {
    const char *name, *desc;
    uint32_t match_sms, match_cc_major, match_cc_minor, match_warp;
    const preset_value *values;
    const char *match_name;  /* a device name containing this (any case) names the chip; NULL: none */
} preset_def;

#define SRC_V100_WP "NVIDIA Tesla V100 GPU Architecture whitepaper (2017)"
#define SRC_A100_WP "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020)"
#define SRC_H100_WP "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022)"
#define SRC_PG "CUDA C++ Programming Guide, 'Technical Specifications per Compute Capability'"
#define SRC_NO_DOORBELL                                                                           \
    "0: this preset keeps its idle launch latency in pp.fetch_cycles + pp.decode_cycles, as fitted " \
    "before the key existed (docs/MODEL.md, 'A kernel's way through the model')"
#define SRC_NO_PDL                                                                                \
    "no programmatic dependent launch below compute capability 9.0 (CUDA C++ Programming Guide, " \
    "'Programmatic Dependent Launch and Synchronization'): the trace never flags one"
#define SRC_OCC "NVIDIA occupancy calculator rules (tb/data/kineto/README.md)"
#define SRC_KINETO_V100 "deviceProperties of tb/data/kineto/v100_train_9876_kernels.json.gz"
#define SRC_KINETO_A100 "deviceProperties of tb/data/kineto/a100_train_nccl_2700_kernels.json.gz"
#define SRC_CAL(capture, what) "scripts/calibrate.py tb/data/kineto/" capture ": " what " (docs/VALIDATION.md)"
#define SRC_CLEAN "busy-queue gaps: the packet waited in its queue, no other stream's work ran in the gap, at most 20 us"
/* The fixed parts (pp.completion_cycles, cwd.grid_launch_cycles, pp.command_launch_cycles)
 * are half the floor of the kernel-to-kernel gap each, so that every class's gap lies
 * above them; pp.fetch_cycles + pp.decode_cycles are what an idle stream's launch takes
 * beyond the grid launch (docs/VALIDATION.md, 'Launch gaps'). */
#define SRC_FIX_V100                                                                              \
    "half the floor of the V100 kernel-to-kernel gap (0.75 us, tb/data/kineto/README.md; the " \
    "V100 capture's timestamps are whole microseconds): 0.375 us x 1530 MHz; the split between "  \
    "completion and launch is not observable (docs/VALIDATION.md)"
#define SRC_FIX_A100                                                                              \
    SRC_CAL("a100_train_nccl_2700_kernels.json.gz", "half the floor (p10) of the kernel-to-kernel " \
            "busy-queue gaps (1.024 us over 657 gaps, ns timestamps): 0.512 us x 1410 MHz; the split " \
            "between completion and launch is not observable")
#define SRC_FIX_H100                                                                              \
    "provisional: the A100 value in time (0.512 us) x 1980 MHz; the H100 captures "                \
    "(tb/data/kineto/h100_*) put the floor of the graph-launched kernel-to-kernel gap at 0.256 us " \
    "(p10 of 744), below this: docs/VALIDATION.md, 'H100 captures'"
#define SRC_IDLE_V100                                                                             \
    SRC_CAL("v100_train_9876_kernels.json.gz", "the median launch-to-start time on an idle stream " \
            "(3.0 us over 197 packets) minus cwd.grid_launch_cycles leaves 2.625 us for fetch + "    \
            "decode, x 1530 MHz, split 90/10 (the split is not observable in a capture)")
#define SRC_IDLE_A100                                                                             \
    SRC_CAL("a100_train_nccl_2700_kernels.json.gz", "the median launch-to-start time on an idle "   \
            "stream (1.753 us over 2763 packets) minus cwd.grid_launch_cycles leaves 1.241 us for "  \
            "fetch + decode, x 1410 MHz, split 90/10 (the split is not observable in a capture)")
#define SRC_IDLE_H100                                                                             \
    "provisional: the A100 fetch + decode time (1.241 us) x 1980 MHz, split 90/10; the H100 "     \
    "captures measure 1.28 to 1.40 us launch-to-start on an idle stream: docs/VALIDATION.md, "     \
    "'H100 captures'"
#define SRC_GAPS_V100(what)                                                                       \
    SRC_CAL("v100_train_9876_kernels.json.gz", "the median of the " what " " SRC_CLEAN            \
            "; whole microseconds")
#define SRC_GAPS_A100(what)                                                                       \
    SRC_CAL("a100_train_nccl_2700_kernels.json.gz", "the median of the " what " " SRC_CLEAN        \
            "; ns timestamps")
#define SRC_GAPS_A100_NOGRAPH(what)                                                               \
    "the stream-launched value: the A100 captures have no CUDA-graph launches; " SRC_GAPS_A100(what)
#define SRC_WAIT_A100                                                                             \
    "the kernel-to-kernel value: the one cross-stream wait of tb/data/kineto/"                \
    "a100_alexnet_79_kernels.json.gz that held its kernel back shows a 1 us gap (us timestamps), " \
    "the same as that capture's kernel-to-kernel gaps (median 1 us over 54)"
#define SRC_WAIT_V100                                                                             \
    "the stream-launched kernel-to-kernel value: the V100 capture does not record what its "      \
    "waits waited for (docs/VALIDATION.md)"
#define GAP_PRESETS_A100(src_nograph)                                                             \
    {"pp.gap_kernel_kernel_ns", "1121", SRC_GAPS_A100("657 kernel-to-kernel")},                 \
    {"pp.gap_kernel_copy_ns", "1184", SRC_GAPS_A100("64 kernel-to-copy")},                      \
    {"pp.gap_copy_kernel_ns", "1696", SRC_GAPS_A100("55 copy-to-kernel")},                      \
    {"pp.gap_copy_copy_ns", "2208", SRC_GAPS_A100("27 copy-to-copy")},                          \
    {"pp.gap_graph_kernel_kernel_ns", "1121", src_nograph("657 kernel-to-kernel")},             \
    {"pp.gap_graph_kernel_copy_ns", "1184", src_nograph("64 kernel-to-copy")},                  \
    {"pp.gap_graph_copy_kernel_ns", "1696", src_nograph("55 copy-to-kernel")},                  \
    {"pp.gap_graph_copy_copy_ns", "2208", src_nograph("27 copy-to-copy")},                      \
    {"pp.gap_after_wait_ns", "1121", SRC_WAIT_A100}
#define SRC_PROV_GAPS(why) "provisional: the A100 value (" \
    "tb/data/kineto/a100_train_nccl_2700_kernels.json.gz); " why
#define GAP_PRESETS_PROVISIONAL(why)                                                              \
    {"pp.gap_kernel_kernel_ns", "1121", SRC_PROV_GAPS(why)},                                     \
    {"pp.gap_kernel_copy_ns", "1184", SRC_PROV_GAPS(why)},                                       \
    {"pp.gap_copy_kernel_ns", "1696", SRC_PROV_GAPS(why)},                                       \
    {"pp.gap_copy_copy_ns", "2208", SRC_PROV_GAPS(why)},                                         \
    {"pp.gap_graph_kernel_kernel_ns", "1121", SRC_PROV_GAPS(why)},                               \
    {"pp.gap_graph_kernel_copy_ns", "1184", SRC_PROV_GAPS(why)},                                 \
    {"pp.gap_graph_copy_kernel_ns", "1696", SRC_PROV_GAPS(why)},                                 \
    {"pp.gap_graph_copy_copy_ns", "2208", SRC_PROV_GAPS(why)},                                   \
    {"pp.gap_after_wait_ns", "1121", SRC_PROV_GAPS(why)}

/* Values every preset shares (NVIDIA cc 7.0, 8.0 and 9.0 agree on them). */
static const preset_value COMMON[] = {
    {"gpu.sms_per_tpc", "2", SRC_V100_WP ", " SRC_A100_WP ", " SRC_H100_WP ": 2 SMs per TPC"},
    {"gpu.max_grid", "2147483647,65535,65535", SRC_PG},
    {"sm.warp_size", "32", SRC_PG},
    {"sm.max_warps", "64", SRC_PG},
    {"sm.max_ctas", "32", SRC_PG},
    {"sm.regs", "65536", SRC_PG},
    {"sm.reg_alloc_unit", "256", SRC_OCC},
    {"sm.reg_subpartitions", "4", SRC_OCC},
    {"sm.max_regs_per_thread", "255", SRC_PG},
    {NULL, NULL, NULL},
};

static const preset_value V100[] = {
    {"gpu.name", "Tesla V100-SXM2", SRC_V100_WP},
    {"gpu.cc", "7.0", SRC_PG},
    {"gpu.gpcs", "6", SRC_V100_WP ": GV100 has 6 GPCs"},
    {"gpu.sms_per_gpc", "14,14,14,14,12,12",
     SRC_V100_WP ": a full GV100 has 6 GPCs of 7 TPCs (14 SMs); Tesla V100 enables 80 of the 84 "
     "SMs. Which TPCs are disabled varies from die to die; this layout assumes the two disabled "
     "TPCs sit in different GPCs"},
    {"sm.smem_bytes", "98304", SRC_KINETO_V100 " (sharedMemPerMultiprocessor)"},
    {"sm.smem_alloc_unit", "256", SRC_OCC " (256 B on cc 7.x)"},
    {"sm.smem_reserved_per_cta", "0", SRC_OCC " (no reserve before cc 8.0)"},
    {"sm.smem_per_cta_default", "49152", SRC_KINETO_V100 " (sharedMemPerBlock)"},
    {"sm.smem_per_cta_optin", "98304", SRC_KINETO_V100 " (sharedMemPerBlockOptin)"},
    {"sm.max_threads_per_cta", "1024", SRC_KINETO_V100 " (maxThreadsPerBlock)"},
    {"frontend.clock_mhz", "1530", SRC_V100_WP ": boost clock 1530 MHz (front-end clock assumed equal)"},
    {"pp.doorbell_cycles", "0", SRC_NO_DOORBELL},
    {"pp.fetch_cycles", "3615", SRC_IDLE_V100},
    {"pp.decode_cycles", "402", SRC_IDLE_V100},
    {"pp.completion_cycles", "574", SRC_FIX_V100},
    {"pp.command_launch_cycles", "574", SRC_FIX_V100},
    {"cwd.grid_launch_cycles", "574", SRC_FIX_V100},
    {"pp.gap_kernel_kernel_ns", "4000", SRC_GAPS_V100("1689 stream-launched kernel-to-kernel")},
    {"pp.gap_kernel_copy_ns", "3000", SRC_GAPS_V100("116 stream-launched kernel-to-copy")},
    {"pp.gap_copy_kernel_ns", "3000", SRC_GAPS_V100("121 stream-launched copy-to-kernel")},
    {"pp.gap_copy_copy_ns", "3000", SRC_GAPS_V100("3557 stream-launched copy-to-copy")},
    {"pp.gap_graph_kernel_kernel_ns", "1000", SRC_GAPS_V100("2975 graph-launched kernel-to-kernel")},
    {"pp.gap_graph_kernel_copy_ns", "6000", SRC_GAPS_V100("478 graph-launched kernel-to-copy")},
    {"pp.gap_graph_copy_kernel_ns", "3000", SRC_GAPS_V100("482 graph-launched copy-to-kernel")},
    {"pp.gap_graph_copy_copy_ns", "3000", "the stream-launched value: the V100 capture has no graph-launched copy "
                                          "after a copy; " SRC_GAPS_V100("3557 stream-launched copy-to-copy")},
    {"pp.gap_after_wait_ns", "4000", SRC_WAIT_V100},
    {"pp.gap_programmatic_lead_ns", "0", SRC_NO_PDL},
    {NULL, NULL, NULL},
};

static const preset_value A100[] = {
    {"gpu.name", "A100-SXM4", SRC_A100_WP},
    {"gpu.cc", "8.0", SRC_PG},
    {"gpu.gpcs", "7", SRC_A100_WP ": A100 has 7 GPCs with 7 or 8 TPCs each"},
    {"gpu.sms_per_gpc", "16,16,16,16,16,14,14",
     SRC_A100_WP ": 7 GPCs of 7 or 8 TPCs, 2 SMs per TPC, 108 SMs; 54 TPCs over 7 GPCs means "
     "five GPCs of 8 TPCs and two of 7"},
    {"sm.smem_bytes", "167936", SRC_KINETO_A100 " (sharedMemPerMultiprocessor, 164 KiB)"},
    {"sm.smem_alloc_unit", "128", SRC_OCC " (128 B on cc 8.x, 9.x)"},
    {"sm.smem_reserved_per_cta", "1024", SRC_OCC " (1 KiB per CTA on cc >= 8.0)"},
    {"sm.smem_per_cta_default", "49152", SRC_KINETO_A100 " (sharedMemPerBlock)"},
    {"sm.smem_per_cta_optin", "166912", SRC_KINETO_A100 " (sharedMemPerBlockOptin, 163 KiB)"},
    {"sm.max_threads_per_cta", "1024", SRC_KINETO_A100 " (maxThreadsPerBlock)"},
    {"frontend.clock_mhz", "1410", SRC_A100_WP ": boost clock 1410 MHz (front-end clock assumed equal)"},
    {"pp.doorbell_cycles", "0", SRC_NO_DOORBELL},
    {"pp.fetch_cycles", "1575", SRC_IDLE_A100},
    {"pp.decode_cycles", "175", SRC_IDLE_A100},
    {"pp.completion_cycles", "722", SRC_FIX_A100},
    {"pp.command_launch_cycles", "722", SRC_FIX_A100},
    {"cwd.grid_launch_cycles", "722", SRC_FIX_A100},
    GAP_PRESETS_A100(SRC_GAPS_A100_NOGRAPH),
    {"pp.gap_programmatic_lead_ns", "0", SRC_NO_PDL},
    {NULL, NULL, NULL},
};

static const preset_value H100[] = {
    {"gpu.name", "H100-SXM5", SRC_H100_WP},
    {"gpu.cc", "9.0", SRC_PG},
    {"gpu.gpcs", "8", SRC_H100_WP ": H100 SXM5 has 8 GPCs, 66 TPCs, 132 SMs"},
    {"gpu.sms_per_gpc", "18,18,16,16,16,16,16,16",
     SRC_H100_WP ": 66 TPCs over 8 GPCs (a full GH100 GPC has 9 TPCs); the per-GPC split is not "
     "published, this layout assumes two full GPCs and six with one TPC disabled"},
    {"sm.smem_bytes", "233472", SRC_PG " (228 KiB shared memory per SM on cc 9.0)"},
    {"sm.smem_alloc_unit", "128", SRC_OCC " (128 B on cc 8.x, 9.x)"},
    {"sm.smem_reserved_per_cta", "1024", SRC_OCC " (1 KiB per CTA on cc >= 8.0)"},
    {"sm.smem_per_cta_default", "49152", SRC_PG " (48 KiB without opt-in)"},
    {"sm.smem_per_cta_optin", "232448", SRC_PG " (227 KiB per CTA with opt-in on cc 9.0)"},
    {"sm.max_threads_per_cta", "1024", SRC_PG},
    {"frontend.clock_mhz", "1980", SRC_H100_WP ": H100 SXM5 boost clock 1980 MHz (front-end clock assumed equal)"},
    {"pp.doorbell_cycles", "0", SRC_NO_DOORBELL},
    {"pp.fetch_cycles", "2211", SRC_IDLE_H100},
    {"pp.decode_cycles", "246", SRC_IDLE_H100},
    {"pp.completion_cycles", "1014", SRC_FIX_H100},
    {"pp.command_launch_cycles", "1014", SRC_FIX_H100},
    {"cwd.grid_launch_cycles", "1014", SRC_FIX_H100},
    GAP_PRESETS_PROVISIONAL("the H100 captures (tb/data/kineto/h100_*) measure other values, not "
                            "adopted yet: docs/VALIDATION.md, 'H100 captures'"),
    {"pp.gap_programmatic_lead_ns", "1568", SRC_CAL("h100_resnet_large_1956_kernels.json.gz",
                                                    "the median overlap of the 148 kernels launched by "
                                                    "cudaLaunchKernelExC that started before the kernel ahead of "
                                                    "them ended (programmatic dependent launch, by the timing)")},
    {NULL, NULL, NULL},
};

#define SRC_MI250 "AMD Instinct MI250 data sheet"
#define SRC_LLVM_AMDGPU "LLVM AMDGPU backend, AMDGPUBaseInfo.cpp (IsaInfo) for gfx90a"
#define SRC_HC22 "AMD, Hot Chips 22 (2022): a CDNA2 die has 8 shader engines of 14 CUs (112 CUs)"
#define SRC_KINETO_MI250 "deviceProperties of tb/data/kineto/mi250_minitoy_14_kernels.json.gz"
#define SRC_FIX_MI250 "provisional: the MI250 capture has no back-to-back work; the A100 value in time (0.512 us) x 1700 MHz"
#define SRC_IDLE_MI250                                                                            \
    "scripts/calibrate.py tb/data/kineto/mi250_minitoy_14_kernels.json.gz: the median "       \
    "launch-to-start time on an idle stream (6.253 us over 16 packets) minus "                   \
    "cwd.grid_launch_cycles leaves 5.741 us for fetch + decode, x 1700 MHz, split 90/10"

/* One GCD of an AMD Instinct MI250 (CDNA2, gfx90a): HIP shows each GCD as a device. */
#define SRC_NO_PDL_HIP "HIP has no programmatic dependent launch: the trace never flags one"

static const preset_value MI250[] = {
    {"gpu.name", "MI250 (one GCD)", SRC_MI250},
    {"gpu.cc", "9.0", SRC_KINETO_MI250 " (computeMajor/Minor of gfx90a)"},
    {"gpu.gpcs", "8", SRC_HC22 "; a shader engine plays the GPC's part"},
    {"gpu.sms_per_gpc", "13", SRC_HC22 "; an MI250 GCD enables 104 CUs (" SRC_MI250 "): assumed 13 per engine"},
    {"gpu.sms_per_tpc", "1", "CDNA2 has no pairs of CUs sharing a port"},
    {"sm.warp_size", "64", SRC_KINETO_MI250 " (warpSize: wave64)"},
    {"sm.max_warps", "32", SRC_LLVM_AMDGPU ": 8 waves per SIMD (getMaxWavesPerEU), 4 SIMDs per CU (getEUsPerCU)"},
    {"sm.max_ctas", "40", SRC_LLVM_AMDGPU ": getMaxWorkGroupsPerCU gives 40 for one-wave work-groups, else "
                          "min(40 / waves, 16), which the 32-wave limit already implies"},
    {"sm.regs", "131072", SRC_LLVM_AMDGPU ": 512 VGPRs per lane (getTotalNumVGPRs, unified VGPR/AGPR file) x 64 "
                          "lanes x 4 SIMDs"},
    {"sm.reg_alloc_unit", "512", SRC_LLVM_AMDGPU ": VGPRs are allocated in granules of 8 per lane "
                                 "(getVGPRAllocGranule), 8 x 64 lanes"},
    {"sm.reg_subpartitions", "4", SRC_LLVM_AMDGPU ": a wave's VGPRs live in one of the 4 SIMDs"},
    {"sm.max_regs_per_thread", "512", SRC_LLVM_AMDGPU ": 512 VGPRs per lane (VGPRs plus AGPRs)"},
    {"sm.smem_bytes", "65536", SRC_KINETO_MI250 " (maxSharedMemoryPerMultiProcessor: 64 KiB of LDS)"},
    {"sm.smem_alloc_unit", "512", "LLVM AMDGPUUsage: LDS_SIZE is allocated in blocks of 128 dwords on GFX7 and later"},
    {"sm.smem_reserved_per_cta", "0", "AMD reserves no LDS per work-group"},
    {"sm.smem_per_cta_default", "65536", SRC_KINETO_MI250 " (sharedMemPerBlock)"},
    {"sm.smem_per_cta_optin", "65536", SRC_KINETO_MI250 " (no opt-in above sharedMemPerBlock)"},
    {"sm.max_threads_per_cta", "1024", SRC_KINETO_MI250 " (maxThreadsPerBlock)"},
    {"frontend.clock_mhz", "1700", SRC_MI250 ": peak engine clock 1700 MHz (front-end clock assumed equal)"},
    {"pp.doorbell_cycles", "0", SRC_NO_DOORBELL},
    {"pp.fetch_cycles", "8784", SRC_IDLE_MI250},
    {"pp.decode_cycles", "976", SRC_IDLE_MI250},
    {"pp.completion_cycles", "870", SRC_FIX_MI250},
    {"pp.command_launch_cycles", "870", SRC_FIX_MI250},
    {"cwd.grid_launch_cycles", "870", SRC_FIX_MI250},
    GAP_PRESETS_PROVISIONAL("the MI250 capture has no back-to-back work"),
    {"pp.gap_programmatic_lead_ns", "0", SRC_NO_PDL_HIP},
    {NULL, NULL, NULL},
};

/* AMD presets after MI250 (issue 43, item 2). The occupancy rules come from LLVM's
 * AMDGPU back end, which gives gfx90a (CDNA2) and gfx942 (CDNA3) the same ones: every
 * target with FeatureGFX90AInsts. */
#define SRC_ROCM_SPECS                                                                            \
    "ROCm documentation, 'Accelerator and GPU hardware specifications' (ROCm/ROCm "               \
    "docs/reference/gpu-arch-specs.rst, 2025-03)"
#define SRC_LLVM_CDNA                                                                             \
    "LLVM AMDGPU backend, AMDGPUBaseInfo.cpp (IsaInfo), the rules of targets with "               \
    "FeatureGFX90AInsts (gfx90a, gfx942)"
#define SRC_MI300_BLOG                                                                            \
    "AMD, 'Deep dive into the MI300 compute and memory partition modes' (ROCm blogs, 2025-02, "   \
    "ROCm/rocm-blogs blogs/software-tools-optimization/compute-memory-modes)"
#define SRC_MI300_ARCH                                                                            \
    "ROCm documentation, 'AMD Instinct MI300 series microarchitecture' (ROCm/ROCm "               \
    "docs/conceptual/gpu-arch/mi300.md): an XCD has 40 CUs, 38 active"
#define TL_MI210 "AMD-AGI/TraceLens tests/traces/mi210/gpu_only_trace/gpu_only_trace.json.gz"
#define TL_SD35 "AMD-AGI/TraceLens tests/traces/inference/xdit_sd_3.5/profile_trace_rank_0.json.gz"
#define TL_FLUX "AMD-AGI/TraceLens tests/traces/inference/xdit_flux.1_aiter_sage/profile_trace_rank_0.json.gz"
#define SRC_KINETO_MI210 "deviceProperties of " TL_MI210
#define SRC_KINETO_MI300X                                                                         \
    "deviceProperties of " TL_SD35
#define SRC_AMD_CAL(capture, what) "scripts/calibrate.py " capture ": " what
#define SRC_AMD_FIX(capture, clock)                                                               \
    SRC_AMD_CAL(capture, "the busy-queue kernel-to-kernel gaps are 1 ns (median and p10 over the " \
                "capture; AMD's kernel timestamps are the command processor's): half that floor " \
                "each, 0.5 ns x " clock " MHz, rounded to 1 cycle; the split between completion " \
                "and launch is not observable")
#define SRC_AMD_IDLE(capture, what)                                                               \
    SRC_AMD_CAL(capture, "the median launch-to-start time on an idle stream (" what ") minus "     \
                "cwd.grid_launch_cycles: pp.doorbell_cycles + pp.fetch_cycles + pp.decode_cycles")
/* A busy queue's next packet is fetched and decoded while the kernel ahead of it runs: on
 * the AMD captures a kernel queued behind one of 2 us still starts 1 ns after it ends, so
 * fetch + decode take at most that; the rest of an idle queue's latency is the wake-up. */
#define SRC_AMD_FETCH(shortest)                                                                   \
    "half the shortest kernel (" shortest ") that a queued kernel followed 0 to 2 ns after it ended "  \
    "(the packet processor fetched and decoded the next packet during it; at most that, not "       \
    "observable below), split 90/10 between fetch and decode"
#define SRC_AMD_GAP(capture, what)                                                                \
    SRC_AMD_CAL(capture, "the median of the " what " " SRC_CLEAN "; ns timestamps")
#define SRC_AMD_GAP_KK(capture, why)                                                              \
    "the kernel-to-kernel value: " why "; " SRC_AMD_GAP(capture, "kernel-to-kernel")
#define SRC_PROV_AMD(preset, why) "provisional: the " preset " value (same architecture and clock); " why
/* The rows every CDNA2/CDNA3 preset after mi250 shares: LLVM's occupancy rules, LDS
 * allocation, the fixed parts of a launch (one cycle each), and 1 ns in every gap class. */
#define CDNA_OCCUPANCY                                                                            \
    {"sm.max_warps", "32", SRC_LLVM_CDNA ": 8 waves per SIMD (getMaxWavesPerEU: isGFX90A), 4 SIMDs per CU (getEUsPerCU)"}, \
    {"sm.max_ctas", "32", SRC_LLVM_CDNA ": getMaxWorkGroupsPerCU gives the 32 waves per CU for one-wave "        \
                          "work-groups, else min(32 / waves, 16), which the 32-wave limit already implies"},  \
    {"sm.regs", "131072", SRC_LLVM_CDNA ": 512 VGPRs per lane (getTotalNumVGPRs, VGPRs and AGPRs unified) x 64 " \
                          "lanes x 4 SIMDs; " SRC_ROCM_SPECS ": VGPR file 512 KiB per CU"},                  \
    {"sm.reg_alloc_unit", "512", SRC_LLVM_CDNA ": VGPRs are allocated in granules of 8 per lane "             \
                                 "(getVGPRAllocGranule), 8 x 64 lanes"},                                     \
    {"sm.reg_subpartitions", "4", SRC_LLVM_CDNA ": a wave's VGPRs live in one of the 4 SIMDs (getEUsPerCU)"}, \
    {"sm.max_regs_per_thread", "512", SRC_LLVM_CDNA ": 512 addressable VGPRs per lane (getAddressableNumVGPRs)"}
#define CDNA_LDS                                                                                  \
    {"sm.smem_alloc_unit", "512", "LLVM AMDGPUUsage: LDS_SIZE is allocated in blocks of 128 dwords on GFX7 and later"}, \
    {"sm.smem_reserved_per_cta", "0", "AMD reserves no LDS per work-group"}
#define AMD_FIXED(src)                                                                            \
    {"pp.completion_cycles", "1", src}, {"pp.command_launch_cycles", "1", src},                   \
    {"cwd.grid_launch_cycles", "1", src}
/* A preset without a capture of its own: the per-CTA limits of the same die as a sibling
 * preset (its capture's deviceProperties), and the sibling's front-end timing, provisional. */
#define AMD_SAME_DIE_LIMITS(same, kineto)                                                         \
    {"sm.smem_per_cta_default", "65536", same kineto " (sharedMemPerBlock)"},                    \
    {"sm.smem_per_cta_optin", "65536", same kineto " (no opt-in above sharedMemPerBlock)"},      \
    {"sm.max_threads_per_cta", "1024", same kineto " (maxThreadsPerBlock)"}
#define AMD_PROVISIONAL_FRONT_END(doorbell, fetch, decode, src, gaps)                             \
    {"pp.doorbell_cycles", doorbell, src}, {"pp.fetch_cycles", fetch, src},                      \
    {"pp.decode_cycles", decode, src}, AMD_FIXED(src), AMD_GAPS_1NS(gaps),                       \
    {"pp.gap_programmatic_lead_ns", "0", SRC_NO_PDL_HIP}
#define AMD_GAPS_1NS(src)                                                                         \
    {"pp.gap_kernel_kernel_ns", "1", src}, {"pp.gap_kernel_copy_ns", "1", src},                   \
    {"pp.gap_copy_kernel_ns", "1", src}, {"pp.gap_copy_copy_ns", "1", src},                       \
    {"pp.gap_graph_kernel_kernel_ns", "1", src}, {"pp.gap_graph_kernel_copy_ns", "1", src},       \
    {"pp.gap_graph_copy_kernel_ns", "1", src}, {"pp.gap_graph_copy_copy_ns", "1", src},           \
    {"pp.gap_after_wait_ns", "1", src}

/* One AMD Instinct MI210 (CDNA2, gfx90a, one GCD of 104 CUs on a PCIe card). */
#define SRC_MI210_CLK                                                                             \
    "AMD Instinct MI210 launch specifications (AnandTech 17326, 2022-03: boost clock 1700 MHz), "   \
    "as AMD's peak FP64 vector rate gives it: 22.6 TFLOPS = 104 CUs x 128 FLOP/clock x 1.7 GHz "    \
    "(front-end clock assumed equal)"
#define SRC_FIX_MI210 SRC_AMD_FIX(TL_MI210, "1700")
#define SRC_IDLE_MI210                                                                            \
    SRC_AMD_IDLE(TL_MI210, "4.442 us over 24 packets; 4.4414 us x 1700 MHz "  \
                 "= 7550 cycles")
#define SRC_FETCH_MI210 SRC_AMD_FETCH("2.079 us on the MI210 capture: 1.0395 us x 1700 MHz = 1767 cycles")
#define SRC_DOORBELL_MI210 SRC_IDLE_MI210 ", less fetch + decode (1767 cycles): 5783 cycles"
#define SRC_GAP_MI210(why) SRC_AMD_GAP_KK(TL_MI210, why)
static const preset_value MI210[] = {
    {"gpu.name", "AMD Instinct MI210", SRC_KINETO_MI210 " (name)"},
    {"gpu.cc", "9.0", SRC_KINETO_MI210 " (computeMajor/Minor 9.0); " SRC_ROCM_SPECS ": gfx90a, GFXIP 9.0"},
    {"gpu.gpcs", "8", SRC_HC22 "; a shader engine plays the GPC's part"},
    {"gpu.sms_per_gpc", "13", SRC_HC22 "; the MI210 enables 104 CUs (" SRC_ROCM_SPECS "): assumed 13 per engine"},
    {"gpu.sms_per_tpc", "1", "CDNA2 has no pairs of CUs sharing a port"},
    {"sm.warp_size", "64", SRC_KINETO_MI210 " (warpSize); " SRC_ROCM_SPECS ": wavefront size 64"},
    CDNA_OCCUPANCY,
    {"sm.smem_bytes", "65536", SRC_KINETO_MI210 " (maxSharedMemoryPerMultiProcessor); " SRC_ROCM_SPECS ": LDS 64 KiB"},
    CDNA_LDS,
    {"sm.smem_per_cta_default", "65536", SRC_KINETO_MI210 " (sharedMemPerBlock)"},
    {"sm.smem_per_cta_optin", "65536", SRC_KINETO_MI210 " (no opt-in above sharedMemPerBlock)"},
    {"sm.max_threads_per_cta", "1024", SRC_KINETO_MI210 " (maxThreadsPerBlock)"},
    {"frontend.clock_mhz", "1700", SRC_MI210_CLK},
    {"pp.doorbell_cycles", "5783", SRC_DOORBELL_MI210},
    {"pp.fetch_cycles", "1590", SRC_FETCH_MI210},
    {"pp.decode_cycles", "177", SRC_FETCH_MI210},
    AMD_FIXED(SRC_FIX_MI210),
    {"pp.gap_kernel_kernel_ns", "1", SRC_AMD_GAP(TL_MI210, "526 kernel-to-kernel")},
    {"pp.gap_kernel_copy_ns", "1", SRC_GAP_MI210("the capture has no busy-queue copy")},
    {"pp.gap_copy_kernel_ns", "1", SRC_GAP_MI210("the capture has no busy-queue copy")},
    {"pp.gap_copy_copy_ns", "1", SRC_GAP_MI210("the capture has no busy-queue copy")},
    {"pp.gap_graph_kernel_kernel_ns", "1", SRC_GAP_MI210("the capture has no graph launches")},
    {"pp.gap_graph_kernel_copy_ns", "1", SRC_GAP_MI210("the capture has no graph launches")},
    {"pp.gap_graph_copy_kernel_ns", "1", SRC_GAP_MI210("the capture has no graph launches")},
    {"pp.gap_graph_copy_copy_ns", "1", SRC_GAP_MI210("the capture has no graph launches")},
    {"pp.gap_after_wait_ns", "1", SRC_GAP_MI210("the capture has no cross-stream wait")},
    {"pp.gap_programmatic_lead_ns", "0", SRC_NO_PDL_HIP},
    {NULL, NULL, NULL},
};

/* One GCD of an AMD Instinct MI250X (CDNA2, gfx90a): HIP shows each GCD as a device. */
#define SRC_MI250X_CLK                                                                            \
    "AMD Instinct MI250X peak engine clock 1700 MHz, as AMD's peak FP64 vector rate gives it: "     \
    "47.9 TFLOPS = 220 CUs x 128 FLOP/clock x 1.7 GHz (front-end clock assumed equal)"
#define SRC_MI250X_PROV SRC_PROV_AMD("mi210", "no MI250X capture was found")
#define SRC_MI250X_GAPS SRC_PROV_AMD("mi210", "no MI250X capture was found; the MI210 capture's busy-queue gaps are 1 ns")
static const preset_value MI250X[] = {
    {"gpu.name", "MI250X (one GCD)", SRC_ROCM_SPECS},
    {"gpu.cc", "9.0", SRC_ROCM_SPECS ": gfx90a, GFXIP 9.0"},
    {"gpu.gpcs", "8", SRC_HC22 "; a shader engine plays the GPC's part"},
    {"gpu.sms_per_gpc", "14,14,14,14,14,14,13,13",
     SRC_HC22 "; an MI250X GCD enables 110 CUs (" SRC_ROCM_SPECS ": 220, 110 per GCD): which engines lose "
     "a CU is not published, this layout assumes six full engines and two of 13"},
    {"gpu.sms_per_tpc", "1", "CDNA2 has no pairs of CUs sharing a port"},
    {"sm.warp_size", "64", SRC_ROCM_SPECS ": wavefront size 64"},
    CDNA_OCCUPANCY,
    {"sm.smem_bytes", "65536", SRC_ROCM_SPECS ": LDS 64 KiB"},
    CDNA_LDS,
    AMD_SAME_DIE_LIMITS("the same gfx90a die as the MI210: ", SRC_KINETO_MI210),
    {"frontend.clock_mhz", "1700", SRC_MI250X_CLK},
    AMD_PROVISIONAL_FRONT_END("5783", "1590", "177", SRC_MI250X_PROV, SRC_MI250X_GAPS),
    {NULL, NULL, NULL},
};

/* AMD Instinct MI300X (CDNA3, gfx942) in SPX mode: 8 XCDs of 38 CUs as one device. */
#define SRC_MI300X_CLK                                                                            \
    "ROCm documentation (ROCm/ROCm docs/how-to/system-optimization/mi300x.rst): the default "     \
    "maximum clock is 2100 MHz; docs/conceptual/gpu-arch/mi300.md: peak FP64 vector 81.7 TFLOPS = " \
    "304 CUs x 128 FLOP/clock x 2.1 GHz (front-end clock assumed equal)"
#define SRC_FIX_MI300X SRC_AMD_FIX(TL_SD35 " (3,626 gaps; TraceLens tests/traces/mi300/ddp_resnet18_no_pool: 1,666)", "2100")
#define SRC_IDLE_MI300X                                                                           \
    SRC_AMD_IDLE(TL_SD35, "4.918 us over 4,304 packets; "           \
                 "normalization_layer_test 4.877 us, xdit flux captures 4.636 to 4.827 us, "       \
                 "ddp_resnet18_train 9.276 us; 4.9175 us x 2100 MHz = 10327 cycles")
#define SRC_FETCH_MI300X                                                                          \
    SRC_AMD_FETCH("1.999 us on TraceLens tests/traces/mi300/ddp_resnet18_no_pool; 3.444 us on the sd3.5 " \
                  "capture: 0.9995 us x 2100 MHz = 2099 cycles")
#define SRC_DOORBELL_MI300X SRC_IDLE_MI300X ", less fetch + decode (2099 cycles): 8228 cycles"
#define SRC_GAP_MI300X(why) SRC_AMD_GAP_KK(TL_SD35, why)
static const preset_value MI300X[] = {
    {"gpu.name", "AMD Instinct MI300X", SRC_KINETO_MI300X " (name)"},
    {"gpu.cc", "9.4", SRC_KINETO_MI300X " (computeMajor/Minor 9.4); " SRC_ROCM_SPECS ": gfx942, GFXIP 9.4"},
    {"gpu.gpcs", "8", SRC_MI300_ARCH "; 8 XCDs (" SRC_ROCM_SPECS ": 304 CUs, 38 per XCD); an XCD plays the "
                      "GPC's part (docs/MODEL.md, 'AMD devices')"},
    {"gpu.sms_per_gpc", "38", SRC_ROCM_SPECS ": 304 CUs, 38 per XCD"},
    {"gpu.sms_per_tpc", "1", "CDNA3 has no pairs of CUs sharing a port"},
    {"sm.warp_size", "64", SRC_KINETO_MI300X " (warpSize); " SRC_ROCM_SPECS ": wavefront size 64"},
    CDNA_OCCUPANCY,
    {"sm.smem_bytes", "65536", SRC_KINETO_MI300X " (maxSharedMemoryPerMultiProcessor); " SRC_ROCM_SPECS ": LDS 64 KiB"},
    CDNA_LDS,
    {"sm.smem_per_cta_default", "65536", SRC_KINETO_MI300X " (sharedMemPerBlock)"},
    {"sm.smem_per_cta_optin", "65536", SRC_KINETO_MI300X " (no opt-in above sharedMemPerBlock)"},
    {"sm.max_threads_per_cta", "1024", SRC_KINETO_MI300X " (maxThreadsPerBlock)"},
    {"frontend.clock_mhz", "2100", SRC_MI300X_CLK},
    {"pp.doorbell_cycles", "8228", SRC_DOORBELL_MI300X},
    {"pp.fetch_cycles", "1889", SRC_FETCH_MI300X},
    {"pp.decode_cycles", "210", SRC_FETCH_MI300X},
    AMD_FIXED(SRC_FIX_MI300X),
    {"pp.gap_kernel_kernel_ns", "1", SRC_AMD_GAP(TL_SD35, "3,626 kernel-to-kernel")
                                     " (ddp_resnet18_train: 1 ns over 1,666; normalization_layer_test: 1 ns over 24)"},
    {"pp.gap_kernel_copy_ns", "1", SRC_GAP_MI300X("the xdit flux captures have 3 busy-queue kernel-to-copy gaps "
                                                  "each, all 1 ns, fewer than calibrate.py's 5")},
    {"pp.gap_copy_kernel_ns", "1", SRC_GAP_MI300X("no MI300X capture has a busy-queue copy-to-kernel gap")},
    {"pp.gap_copy_copy_ns", "1", SRC_AMD_GAP(TL_FLUX, "23 copy-to-copy")},
    {"pp.gap_graph_kernel_kernel_ns", "1", SRC_AMD_GAP(TL_FLUX, "6,242 graph-launched kernel-to-kernel")},
    {"pp.gap_graph_kernel_copy_ns", "1", SRC_GAP_MI300X("no MI300X capture has a busy-queue graph-launched copy after a kernel")},
    {"pp.gap_graph_copy_kernel_ns", "1", SRC_GAP_MI300X("the xdit flux captures have 3 busy-queue graph-launched "
                                                        "copy-to-kernel gaps each, all 1 ns, fewer than calibrate.py's 5")},
    {"pp.gap_graph_copy_copy_ns", "1", SRC_GAP_MI300X("no MI300X capture has a busy-queue graph-launched copy after a copy")},
    {"pp.gap_after_wait_ns", "1", SRC_GAP_MI300X("no MI300X capture has a cross-stream wait that held its packet back")},
    {"pp.gap_programmatic_lead_ns", "0", SRC_NO_PDL_HIP},
    {NULL, NULL, NULL},
};

/* AMD Instinct MI300A (CDNA3, gfx942): the APU, 6 XCDs of 38 CUs as one device. */
#define SRC_MI300A_CLK                                                                            \
    "AMD Instinct MI300A data sheet: peak engine clock 2100 MHz, 228 CUs, peak FP64 vector 61.3 "    \
    "TFLOPS (= 228 x 128 FLOP/clock x 2.1 GHz) (front-end clock assumed equal)"
#define SRC_MI300A_PROV SRC_PROV_AMD("mi300x", "no MI300A capture was found")
#define SRC_MI300A_GAPS SRC_PROV_AMD("mi300x", "no MI300A capture was found; the MI300X captures' busy-queue gaps are 1 ns")
static const preset_value MI300A[] = {
    {"gpu.name", "AMD Instinct MI300A", SRC_ROCM_SPECS},
    {"gpu.cc", "9.4", SRC_ROCM_SPECS ": gfx942, GFXIP 9.4"},
    {"gpu.gpcs", "6", SRC_MI300_ARCH "; MI300A has 6 XCDs (" SRC_ROCM_SPECS ": 228 CUs, 38 per XCD); an XCD "
                      "plays the GPC's part (docs/MODEL.md, 'AMD devices')"},
    {"gpu.sms_per_gpc", "38", SRC_ROCM_SPECS ": 228 CUs, 38 per XCD"},
    {"gpu.sms_per_tpc", "1", "CDNA3 has no pairs of CUs sharing a port"},
    {"sm.warp_size", "64", SRC_ROCM_SPECS ": wavefront size 64"},
    CDNA_OCCUPANCY,
    {"sm.smem_bytes", "65536", SRC_ROCM_SPECS ": LDS 64 KiB"},
    CDNA_LDS,
    AMD_SAME_DIE_LIMITS("the same gfx942 XCD as the MI300X: ", SRC_KINETO_MI300X),
    {"frontend.clock_mhz", "2100", SRC_MI300A_CLK},
    AMD_PROVISIONAL_FRONT_END("8228", "1889", "210", SRC_MI300A_PROV, SRC_MI300A_GAPS),
    {NULL, NULL, NULL},
};

/* The order counts for the numeric match (match_chip): mi250 before mi210, which has
 * the same CU count, compute capability and wave size, so that an unnamed gfx90a of
 * 104 CUs keeps the mi250 preset. */
static const preset_def PRESETS[] = {
    {"v100", "NVIDIA Tesla V100-SXM2 (GV100, 80 SMs, cc 7.0)", 80, 7, 0, 32, V100, NULL},
    {"a100", "NVIDIA A100-SXM4 40/80 GB (GA100, 108 SMs, cc 8.0)", 108, 8, 0, 32, A100, NULL},
    {"h100", "NVIDIA H100-SXM5 (GH100, 132 SMs, cc 9.0)", 132, 9, 0, 32, H100, NULL},
    {"mi250", "AMD Instinct MI250, one GCD (CDNA2 gfx90a, 104 CUs, wave64)", 104, 9, 0, 64, MI250, NULL},
    {"mi210", "AMD Instinct MI210 (CDNA2 gfx90a, 104 CUs, wave64)", 104, 9, 0, 64, MI210, "MI210"},
    {"mi250x", "AMD Instinct MI250X, one GCD (CDNA2 gfx90a, 110 CUs, wave64)", 110, 9, 0, 64, MI250X, "MI250X"},
    {"mi300x", "AMD Instinct MI300X (CDNA3 gfx942, 8 XCDs of 38 CUs, wave64)", 304, 9, 4, 64, MI300X, "MI300X"},
    {"mi300a", "AMD Instinct MI300A (CDNA3 gfx942, 6 XCDs of 38 CUs, wave64)", 228, 9, 4, 64, MI300A, "MI300A"},
};
#define NPRESETS (sizeof PRESETS / sizeof PRESETS[0])

/* ------------------------------------------------------------------------- */
/* Settings                                                                   */

struct gd_settings {
    char *values[NKEYS];
};

static int key_index(const char *name)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(KEYS[i].name, name) == 0)
            return (int)i;
    return -1;
}

gd_settings *gd_settings_new(void) { return calloc(1, sizeof(gd_settings)); }

void gd_settings_free(gd_settings *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < NKEYS; i++)
        free(s->values[i]);
    free(s);
}

gd_settings *gd_settings_clone(const gd_settings *s)
{
    gd_settings *c = gd_settings_new();
    if (!c)
        return NULL;
    for (size_t i = 0; i < NKEYS; i++) {
        if (s->values[i] && !(c->values[i] = strdup(s->values[i]))) {
            gd_settings_free(c);
            return NULL;
        }
    }
    return c;
}

const char *gd_settings_get(const gd_settings *s, const char *key)
{
    int k = key_index(key);
    return k < 0 ? NULL : s->values[k];
}

/* A T_SCALE value (millionths) as the shortest decimal: 0.5, 1, 2.25. */
void gd_scale_text(char *buf, size_t size, uint32_t v)
{
    uint32_t frac = v % 1000000;
    int places = 6;
    while (places && frac % 10 == 0) {
        frac /= 10;
        places--;
    }
    if (places)
        snprintf(buf, size, "%" PRIu32 ".%0*" PRIu32, v / 1000000, places, frac);
    else
        snprintf(buf, size, "%" PRIu32, v / 1000000);
}

static void accepted_text(char *buf, size_t size, const key_def *d)
{
    switch (d->type) {
    case T_UINT:
        snprintf(buf, size, "an integer from %" PRIu32 " to %" PRIu32, d->min, d->max);
        break;
    case T_ENUM:
        snprintf(buf, size, "one of %s", d->choices);
        break;
    case T_STRING:
        snprintf(buf, size, "UTF-8 text of at most %zu bytes, no control characters", (size_t)(d->max ? d->max : 64) - 1);
        break;
    case T_CC:
        snprintf(buf, size, "major.minor, e.g. 8.0");
        break;
    case T_SCALE: {
        char lo[24], hi[24];
        gd_scale_text(lo, sizeof lo, d->min);
        gd_scale_text(hi, sizeof hi, d->max);
        snprintf(buf, size, "a decimal from %s to %s with at most 6 places", lo, hi);
        break;
    }
    case T_LIST:
        if (d->list_fixed)
            snprintf(buf, size, "%" PRIu32 " comma-separated integers from %" PRIu32 " to %" PRIu32,
                     d->list_fixed, d->min, d->max);
        else
            snprintf(buf, size, "comma-separated integers from %" PRIu32 " to %" PRIu32 " (at most %d)",
                     d->min, d->max, GD_MAX_GPCS);
        break;
    }
}

static int parse_u32(const char *s, uint32_t *out)
{
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* Parse value for key d into cfg (when cfg is non-NULL). Returns 0 or -1. For
 * T_LIST the element count goes to *count. */
/* A T_SCALE value: digits, optionally '.' and 1 to 6 digits, into millionths. */
int gd_scale_parse(const char *s, uint64_t *out)
{
    uint64_t whole = 0, frac = 0;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((whole = whole * 10 + (uint64_t)(*p - '0')) > 1000000)
            return -1;
    if (*p == '.') {
        int places = 0;
        for (p++; *p >= '0' && *p <= '9'; p++, places++)
            if (places < 6)
                frac = frac * 10 + (uint64_t)(*p - '0');
            else
                return -1;
        if (!places)
            return -1;
        for (; places < 6; places++)
            frac *= 10;
    }
    if (*p)
        return -1;
    *out = whole * 1000000 + frac;
    return 0;
}

static int parse_value(const key_def *d, const char *value, gd_config *cfg, uint32_t *count)
{
    switch (d->type) {
    case T_SCALE: {
        uint64_t v;
        if (gd_scale_parse(value, &v) || v < d->min || v > d->max)
            return -1;
        if (cfg)
            *(uint32_t *)((char *)cfg + d->offset) = (uint32_t)v;
        return 0;
    }
    case T_UINT: {
        uint32_t v;
        if (parse_u32(value, &v) || v < d->min || v > d->max)
            return -1;
        if (cfg)
            *(uint32_t *)((char *)cfg + d->offset) = v;
        return 0;
    }
    case T_ENUM: {
        size_t n = strlen(value);
        const char *c = d->choices;
        while (*c) {
            const char *bar = strchr(c, '|');
            size_t len = bar ? (size_t)(bar - c) : strlen(c);
            if (len == n && strncmp(c, value, n) == 0) {
                if (cfg)
                    snprintf((char *)cfg + d->offset, 16, "%s", value);
                return 0;
            }
            if (!bar)
                break;
            c = bar + 1;
        }
        return -1;
    }
    case T_STRING: {
        const size_t cap = d->max ? d->max : 64;  /* the field's size */
        const size_t len = strlen(value);
        if (len > cap - 1 || !gd_utf8_valid(value, len))
            return -1;
        for (size_t i = 0; i < len; i++)  /* one line of printable text: it goes into the report */
            if ((unsigned char)value[i] < 0x20 || value[i] == 0x7F)
                return -1;
        if (cfg)
            snprintf((char *)cfg + d->offset, cap, "%s", value);
        return 0;
    }
    case T_CC: {
        unsigned maj, min;
        char extra;
        if (sscanf(value, "%u.%u%c", &maj, &min, &extra) != 2 || maj > 99 || min > 9)
            return -1;
        if (cfg) {
            cfg->sm.cc_major = maj;
            cfg->sm.cc_minor = min;
        }
        return 0;
    }
    case T_LIST: {
        uint32_t n = 0, v;
        uint32_t tmp[GD_MAX_GPCS];
        char buf[32];
        const char *p = value;
        for (;;) {
            const char *comma = strchr(p, ',');
            size_t len = comma ? (size_t)(comma - p) : strlen(p);
            if (len == 0 || len >= sizeof buf || n >= GD_MAX_GPCS)
                return -1;
            memcpy(buf, p, len);
            buf[len] = '\0';
            if (parse_u32(buf, &v) || v < d->min || v > d->max)
                return -1;
            tmp[n++] = v;
            if (!comma)
                break;
            p = comma + 1;
        }
        if (d->list_fixed && n != d->list_fixed)
            return -1;
        if (cfg)
            memcpy((char *)cfg + d->offset, tmp, n * sizeof(uint32_t));
        if (count)
            *count = n;
        return 0;
    }
    }
    return -1;
}

/* Text from the user as an error message shows it: at most 80 bytes, control
 * characters and bytes past ASCII as '?' (a message cannot forge lines or drive a
 * terminal); "..." where it was cut. */
static const char *shown_text(char out[84], const char *s)
{
    snprintf(out, 81, "%s", s ? s : "(null)");
    for (char *p = out; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7F)
            *p = '?';
    if (s && strlen(s) > 80)
        strcat(out, "...");
    return out;
}

int gd_settings_set(gd_settings *s, const char *key, const char *value, gd_err *err)
{
    int k = key_index(key);
    char shown[84];
    if (k < 0) {
        /* Suggest keys sharing the prefix before the first dot. */
        char known[768] = "";
        const char *dot = strchr(key, '.');
        size_t plen = dot ? (size_t)(dot - key + 1) : 0;
        size_t used = 0;
        for (size_t i = 0; i < NKEYS; i++) {
            if (plen && strncmp(KEYS[i].name, key, plen) != 0)
                continue;
            int w = snprintf(known + used, sizeof known - used, "%s%s", used ? ", " : "", KEYS[i].name);
            if (w < 0 || (size_t)w >= sizeof known - used)
                break;
            used += (size_t)w;
        }
        if (used)
            return gd_err_set(err, GD_ECONFIG, "unknown configuration key '%s' (keys of that group: %s; "
                              "`gdsim keys` lists all)", shown_text(shown, key), known);
        return gd_err_set(err, GD_ECONFIG, "unknown configuration key '%s' (`gdsim keys` lists all keys)",
                          shown_text(shown, key));
    }
    const key_def *d = &KEYS[k];
    if (!value || parse_value(d, value, NULL, NULL)) {
        char acc[160];
        accepted_text(acc, sizeof acc, d);
        return gd_err_set(err, GD_ECONFIG, "bad value '%s' for configuration key '%s': expected %s",
                          shown_text(shown, value), key, acc);
    }
    char *copy = strdup(value);
    if (!copy)
        return gd_err_set(err, GD_ENOMEM, "out of memory");
    free(s->values[k]);
    s->values[k] = copy;
    return GD_OK;
}


int gd_settings_load_text(gd_settings *s, const char *text, size_t n, const char *name, gd_err *err)
{
    if (memchr(text, '\0', n)) {
        size_t at = (size_t)((const char *)memchr(text, '\0', n) - text);
        unsigned line = 1;
        for (size_t i = 0; i < at; i++)
            line += text[i] == '\n';
        return gd_err_set(err, GD_ECONFIG, "%s:%u: a NUL byte: not a text configuration file", name, line);
    }
    if (n > GD_CONFIG_FILE_MAX)
        return gd_err_set(err, GD_ECONFIG, "%s: longer than %zu bytes: not a configuration file", name,
                          GD_CONFIG_FILE_MAX);
    gd_settings *c = gd_settings_clone(s);
    if (!c)
        return gd_err_set(err, GD_ENOMEM, "out of memory");
    int rc = GD_OK;
    unsigned line = 0;
    char buf[GD_CONFIG_LINE_MAX + 1];
    for (const char *t = text; !rc && t < text + n; ) {
        const char *nl = memchr(t, '\n', (size_t)(text + n - t));
        const char *le = nl ? nl : text + n;
        line++;
        size_t len = (size_t)(le - t);
        if (len > GD_CONFIG_LINE_MAX) {
            rc = gd_err_set(err, GD_ECONFIG, "%s:%u: longer than %d bytes", name, line, GD_CONFIG_LINE_MAX);
            break;
        }
        memcpy(buf, t, len);
        buf[len] = '\0';
        t = le + 1;
        char *key, *value;
        int kind = gd_config_line(buf, &key, &value);
        if (kind == 0)
            continue;
        if (kind < 0 || !*key) {
            rc = gd_err_set(err, GD_ECONFIG, "%s:%u: expected KEY = VALUE", name, line);
            break;
        }
        gd_err e;
        gd_err_clear(&e);
        if ((rc = gd_settings_set(c, key, value, &e)) != GD_OK)
            gd_err_set(err, rc, "%s:%u: %s", name, line, e.msg);
    }
    if (!rc) {   /* all of it or none */
        for (size_t i = 0; i < NKEYS; i++) {
            free(s->values[i]);
            s->values[i] = c->values[i];
            c->values[i] = NULL;
        }
    }
    gd_settings_free(c);
    return rc;
}

int gd_settings_load(gd_settings *s, const char *path, gd_err *err)
{
    /* Whole file first (one byte past the limit tells a file that is too long): a
     * configuration is small; one that is not (a device, a binary) is refused before
     * any of it applies. */
    char *text;
    size_t n;
    int rc = gd_read_small_file(path, GD_CONFIG_FILE_MAX, &text, &n, err);
    if (!rc)
        rc = gd_settings_load_text(s, text, n, path, err);
    free(text);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* Resolution                                                                 */

static int find_preset(const char *name)
{
    for (size_t i = 0; i < NPRESETS; i++)
        if (strcmp(PRESETS[i].name, name) == 0)
            return (int)i;
    return -1;
}

static const char *lookup(const preset_value *v, const char *key, const char **source)
{
    for (; v->key; v++) {
        if (strcmp(v->key, key) == 0) {
            if (source)
                *source = v->source;
            return v->value;
        }
    }
    return NULL;
}

const char *gd_config_preset_value(size_t preset, const char *key, const char **source)
{
    if (preset >= NPRESETS)
        return NULL;
    const char *v = lookup(PRESETS[preset].values, key, source);
    return v ? v : lookup(COMMON, key, source);
}

/* The preset a replay resolves with: a named preset, or (gpu.preset=trace) the
 * preset of the chip the trace describes plus values taken from the trace. */
typedef struct preset_choice {
    int base;                    /* preset index */
    char label[16];              /* what gpu.preset resolves to */
    const char *trace_val[NKEYS]; /* values from the trace's description (NULL: none) */
    char store[NKEYS][128];
    char layout[GD_MAX_GPCS * 3 + 1];  /* gpu.sms_per_gpc from the trace (up to 64 each: 2 digits and a comma) */
} preset_choice;

static int same_numbers(const preset_def *p, const gd_trace_device *dev)
{
    return p->match_sms == dev->sms && p->match_cc_major == dev->cc_major && p->match_cc_minor == dev->cc_minor &&
           p->match_warp == dev->warp_size;
}

/* needle in hay, ASCII letters in any case */
static int name_contains(const char *hay, const char *needle)
{
    const size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return 0;
}

/* The preset of the chip a trace describes: first the one whose product name its device
 * name contains (an MI210 and an MI250 GCD have the same numbers), provided its numbers
 * agree (a partitioned device - one XCD of an MI300X in CPX mode - keeps the product's
 * name with fewer CUs); else the first whose SM count, compute capability and warp size
 * match; else none (-1). */
static int match_chip(const gd_trace_device *dev)
{
    for (size_t i = 0; i < NPRESETS; i++)
        if (PRESETS[i].match_name && name_contains(dev->name, PRESETS[i].match_name) && same_numbers(&PRESETS[i], dev))
            return (int)i;
    for (size_t i = 0; i < NPRESETS; i++)
        if (same_numbers(&PRESETS[i], dev))
            return (int)i;
    return -1;
}

/* Resident CTAs per SM by compute capability (CUDA C++ Programming Guide). */
static uint32_t nvidia_cta_cap(uint32_t major, uint32_t minor)
{
    uint32_t cc = major * 10 + minor;
    if (cc == 75 || cc == 86 || cc == 87)
        return 16;
    if (cc == 89)
        return 24;
    return 32;
}

/* Shared memory the CUDA runtime reserves for each CTA (CUDA C++ Programming Guide:
 * 1 KiB from compute capability 8.0); none on other vendors' devices (warp size 64). */
static uint32_t trace_cta_reserve(const gd_trace_device *dev)
{
    return dev->warp_size == 32 && dev->cc_major >= 8 ? 1024u : 0u;
}

static void set_trace_val(preset_choice *c, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void set_trace_val(preset_choice *c, const char *key, const char *fmt, ...)
{
    int k = key_index(key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->store[k], sizeof c->store[k], fmt, ap);
    va_end(ap);
    c->trace_val[k] = c->store[k];
}

/* gpu.gpcs and gpu.sms_per_gpc from the trace's own layout, else the fallback: GPCs of
 * at most 16 SMs, as even as possible (the larger ones first). */
static void trace_layout(preset_choice *c, const gd_trace_device *dev, int known)
{
    char *list = c->layout;
    const size_t size = sizeof c->layout;
    size_t used = 0;
    uint32_t gpcs = dev->gpcs;
    list[0] = '\0';
    if (gpcs) {
        for (uint32_t g = 0; g < gpcs && used < size; g++)  /* the reader checked 1..64 SMs each: it fits */
            used += (size_t)snprintf(list + used, size - used, "%s%u", g ? "," : "", dev->sms_per_gpc[g]);
    } else if (known) {
        return; /* the chip's preset has its layout */
    } else {
        gpcs = (dev->sms + 15) / 16;
        if (gpcs > GD_MAX_GPCS)
            gpcs = GD_MAX_GPCS;
        for (uint32_t g = 0; g < gpcs && used < size; g++)
            used += (size_t)snprintf(list + used, size - used, "%s%u", g ? "," : "",
                                     dev->sms / gpcs + (g < dev->sms % gpcs ? 1 : 0));
    }
    set_trace_val(c, "gpu.gpcs", "%u", gpcs);
    c->trace_val[key_index("gpu.sms_per_gpc")] = list;  /* longer than a store[] entry */
}

static int choose_preset(preset_choice *c, const gd_settings *s, const gd_trace_device *dev, gd_err *err)
{
    memset(c, 0, sizeof *c);
    const char *p = s->values[key_index("gpu.preset")];
    if (p && strcmp(p, "trace") != 0) {
        c->base = find_preset(p);
        snprintf(c->label, sizeof c->label, "%s", p);
        return GD_OK;
    }
    snprintf(c->label, sizeof c->label, "trace");
    if (!dev)
        return gd_err_set(err, GD_ECONFIG, "gpu.preset=trace needs a trace with a device description; "
                          "set gpu.preset to one of v100, a100, h100, mi250, mi210, mi250x, mi300x, mi300a");
    int known = match_chip(dev);
    set_trace_val(c, "gpu.name", "%.63s", dev->name);
    trace_layout(c, dev, known >= 0);
    if (dev->calibration)  /* the trace's launch-gap fit, over the preset (trace.c checked the keys) */
        for (uint32_t i = 0; i < dev->calibration->n; i++)
            set_trace_val(c, dev->calibration->key[i], "%s", dev->calibration->value[i]);
    if (known >= 0) {
        c->base = known;
        return GD_OK;
    }
    /* Not a known chip: the trace's description, plus what it does not say from the
     * nearest preset of the same warp size (highest compute capability not above the
     * trace's, else the lowest). */
    int base = -1;
    uint32_t cc = dev->cc_major * 10 + dev->cc_minor;
    for (size_t i = 0; i < NPRESETS; i++) {
        uint32_t pc = PRESETS[i].match_cc_major * 10 + PRESETS[i].match_cc_minor;
        if (PRESETS[i].match_warp != dev->warp_size)
            continue;
        uint32_t bc = base < 0 ? 0 : PRESETS[base].match_cc_major * 10 + PRESETS[base].match_cc_minor;
        if (base < 0 || (pc <= cc && (bc > cc || pc > bc)) || (bc > cc && pc < bc))
            base = (int)i;
    }
    c->base = base >= 0 ? base : find_preset("a100");
    set_trace_val(c, "gpu.cc", "%u.%u", dev->cc_major, dev->cc_minor);
    set_trace_val(c, "sm.warp_size", "%u", dev->warp_size);
    set_trace_val(c, "sm.max_warps", "%u", dev->max_threads_per_sm / dev->warp_size);
    set_trace_val(c, "sm.regs", "%u", dev->regs_per_sm);
    set_trace_val(c, "sm.smem_bytes", "%u", dev->smem_per_sm);
    set_trace_val(c, "sm.smem_per_cta_default", "%u", dev->smem_per_cta_default);
    set_trace_val(c, "sm.smem_per_cta_optin", "%u", dev->smem_per_cta_optin);
    set_trace_val(c, "sm.max_threads_per_cta", "%u", dev->max_threads_per_cta);
    if (dev->warp_size == 32) {
        set_trace_val(c, "sm.max_ctas", "%u", nvidia_cta_cap(dev->cc_major, dev->cc_minor));
        set_trace_val(c, "sm.smem_alloc_unit", "%u", dev->cc_major >= 8 ? 128u : 256u);
        set_trace_val(c, "sm.smem_reserved_per_cta", "%u", trace_cta_reserve(dev));
    }
    return GD_OK;
}

static const char *value_text(const gd_settings *s, const preset_choice *c, size_t k)
{
    if (s->values[k])
        return s->values[k];
    if (c) {
        if (c->trace_val[k])
            return c->trace_val[k];
        const char *v = gd_config_preset_value((size_t)c->base, KEYS[k].name, NULL);
        if (v)
            return v;
    }
    return KEYS[k].def;
}

int gd_settings_effective(char *buf, size_t size, const gd_settings *s, const char *key, gd_err *err)
{
    int k = key_index(key);
    if (k < 0)
        return gd_err_set(err, GD_ECONFIG, "unknown configuration key '%s'", key);
    const char *p = s->values[key_index("gpu.preset")];
    preset_choice c;
    int named = p && strcmp(p, "trace") != 0;
    if (named)
        choose_preset(&c, s, NULL, NULL);
    const char *v = value_text(s, named ? &c : NULL, (size_t)k);
    snprintf(buf, size, "%s", v ? v : "(from the trace's device, gpu.preset=trace)");
    return GD_OK;
}

int gd_config_check_device(const gd_trace_device *dev, char *why, size_t n)
{
    /* the figures gpu.preset=trace turns into keys, against those keys' ranges, whether or
     * not a preset of the same chip is used in the end: a description the model could not
     * hold is the trace's error either way */
    static const struct {
        const char *key;
        size_t off;
    } F[] = {
        {"sm.regs", offsetof(gd_trace_device, regs_per_sm)},
        {"sm.smem_bytes", offsetof(gd_trace_device, smem_per_sm)},
        {"sm.smem_per_cta_default", offsetof(gd_trace_device, smem_per_cta_default)},
        {"sm.smem_per_cta_optin", offsetof(gd_trace_device, smem_per_cta_optin)},
        {"sm.max_threads_per_cta", offsetof(gd_trace_device, max_threads_per_cta)},
        {"sm.warp_size", offsetof(gd_trace_device, warp_size)},
    };
    static gd_config scratch;  /* parse_value writes somewhere; nothing reads it */
    char v[32];
    for (size_t i = 0; i < sizeof F / sizeof F[0]; i++) {
        const key_def *d = &KEYS[key_index(F[i].key)];
        uint32_t x;
        memcpy(&x, (const char *)dev + F[i].off, sizeof x);
        snprintf(v, sizeof v, "%u", x);
        uint32_t cnt = 0;
        if (parse_value(d, v, &scratch, &cnt)) {
            char acc[160];
            accepted_text(acc, sizeof acc, d);
            snprintf(why, n, "the device description gives %s = %u, which the model does not accept (%s)", d->name, x,
                     acc);
            return -1;
        }
    }
    if (dev->warp_size && dev->max_threads_per_sm % dev->warp_size) {
        snprintf(why, n, "%u threads per SM is not a whole number of %u-thread warps", dev->max_threads_per_sm,
                 dev->warp_size);
        return -1;
    }
    const key_def *w = &KEYS[key_index("sm.max_warps")];
    if (dev->warp_size && dev->max_threads_per_sm / dev->warp_size > w->max) {
        snprintf(why, n, "%u threads per SM are %u warps, more than sm.max_warps accepts (%u)", dev->max_threads_per_sm,
                 dev->max_threads_per_sm / dev->warp_size, w->max);
        return -1;
    }
    if (dev->max_threads_per_cta > dev->max_threads_per_sm) {
        snprintf(why, n, "%u threads per CTA but %u per SM: a CTA could never fit", dev->max_threads_per_cta,
                 dev->max_threads_per_sm);
        return -1;
    }
    if (dev->smem_per_sm < trace_cta_reserve(dev)) {
        snprintf(why, n, "%u bytes of shared memory per SM, less than the %u bytes compute capability %u.%u reserves "
                 "for each CTA: a CTA could never fit", dev->smem_per_sm, trace_cta_reserve(dev), dev->cc_major,
                 dev->cc_minor);
        return -1;
    }
    if (dev->cc_major == 0 || dev->cc_major > 99 || dev->cc_minor > 9) {
        snprintf(why, n, "compute capability %u.%u (major 1 to 99, minor 0 to 9)", dev->cc_major, dev->cc_minor);
        return -1;
    }
    return 0;
}

int gd_config_resolve(gd_config *out, const gd_settings *s, const gd_trace_device *dev, gd_err *err)
{
    memset(out, 0, sizeof *out);
    preset_choice *c = malloc(sizeof *c);
    if (!c)
        return gd_err_set(err, GD_ENOMEM, "out of memory");
    int rc = choose_preset(c, s, dev, err);
    if (rc) {
        free(c);
        return rc;
    }
    uint32_t list_count = 0;
    for (size_t k = 0; k < NKEYS; k++) {
        const char *v = value_text(s, c, k);
        uint32_t n = 0;
        if (!v) {
            free(c);
            return gd_err_set(err, GD_EINTERNAL, "no value for configuration key '%s'", KEYS[k].name);
        }
        if (parse_value(&KEYS[k], v, out, &n)) {
            char acc[160];
            accepted_text(acc, sizeof acc, &KEYS[k]);
            if (c->trace_val[k] && !s->values[k] && dev && dev->origin[0])
                rc = gd_err_set(err, GD_EFORMAT, "%s: header: the device description gives %s = '%.60s%s', which "
                                "the model does not accept (%s); set the key, or another gpu.preset, to replay it",
                                dev->origin, KEYS[k].name, v, strlen(v) > 60 ? "..." : "", acc);
            else
                rc = gd_err_set(err, GD_ECONFIG, "bad value '%.80s%s' for configuration key '%s'%s: expected %s", v,
                                strlen(v) > 80 ? "..." : "", KEYS[k].name,
                                c->trace_val[k] && !s->values[k] ? " (from the trace's device description)" : "", acc);
            free(c);
            return rc;
        }
        if (c->trace_val[k] && !s->values[k] && gd_config_is_calibration_key(KEYS[k].name))
            out->calibrated_keys++;
        if (strcmp(KEYS[k].name, "gpu.sms_per_gpc") == 0)
            list_count = n;
    }
    if (strcmp(c->label, "trace") == 0)
        snprintf(out->preset, sizeof out->preset, "trace/%s", PRESETS[c->base].name);
    else
        snprintf(out->preset, sizeof out->preset, "%s", c->label);
    free(c);

    /* gpu.sms_per_gpc: one value per GPC, or one value for all. */
    if (list_count == 1) {
        for (uint32_t g = 1; g < out->gpcs; g++)
            out->sms_per_gpc[g] = out->sms_per_gpc[0];
    } else if (list_count != out->gpcs) {
        return gd_err_set(err, GD_ECONFIG,
                          "gpu.sms_per_gpc lists %u GPCs but gpu.gpcs is %u: give one number per GPC "
                          "or a single number for all", list_count, out->gpcs);
    }
    out->sms = 0;
    for (uint32_t g = 0; g < out->gpcs; g++)
        out->sms += out->sms_per_gpc[g];

    const gd_sm_limits *sm = &out->sm;
    if (sm->reg_subpartitions > GD_MAX_SUBPARTITIONS || sm->regs % sm->reg_subpartitions)
        return gd_err_set(err, GD_ECONFIG, "sm.regs (%u) must divide evenly into sm.reg_subpartitions (%u)",
                          sm->regs, sm->reg_subpartitions);
    if (sm->smem_per_cta_optin > sm->smem)
        return gd_err_set(err, GD_ECONFIG, "sm.smem_per_cta_optin (%u) is larger than sm.smem_bytes (%u)",
                          sm->smem_per_cta_optin, sm->smem);
    if (sm->smem_per_cta_default > sm->smem_per_cta_optin)
        return gd_err_set(err, GD_ECONFIG,
                          "sm.smem_per_cta_default (%u) is larger than sm.smem_per_cta_optin (%u)",
                          sm->smem_per_cta_default, sm->smem_per_cta_optin);
    if (sm->max_threads_per_cta > sm->max_warps * sm->warp_size)
        return gd_err_set(err, GD_ECONFIG,
                          "sm.max_threads_per_cta (%u) is more than sm.max_warps x sm.warp_size (%u)",
                          sm->max_threads_per_cta, sm->max_warps * sm->warp_size);
    out->cwd_windows = 0;
    if (strcmp(out->cwd_priority_windows, "off")) {
        const char *p = out->cwd_priority_windows;
        for (;;) {
            char *end;
            errno = 0;
            unsigned long v = strtoul(p, &end, 10);
            if (end == p || errno || v == 0 || v > 1000000000ul || out->cwd_windows == 8 || *p == '-' || *p == '+' ||
                (*end && *end != ','))
                return gd_err_set(err, GD_ECONFIG, "bad value '%s' for configuration key 'cwd.priority_windows': "
                                  "expected off, or 1 to 8 comma-separated window lengths in cycles (1 to 10^9)",
                                  out->cwd_priority_windows);
            out->cwd_window_cycles[out->cwd_windows++] = (uint32_t)v;
            if (!*end)
                break;
            p = end + 1;
        }
    }
    out->sm_finder_nsamples = 0;
    {
        const char *p = out->sm_finder_samples;
        for (;;) {
            char *end;
            errno = 0;
            unsigned long v = strtoul(p, &end, 10);
            if (end == p || errno || v >= GD_MAX_ALLOC_UNITS || out->sm_finder_nsamples == 32 || *p == '-' ||
                *p == '+' || (*end && *end != ','))
                return gd_err_set(err, GD_ECONFIG, "bad value '%s' for configuration key 'sm.finder_samples': "
                                  "expected 1 to 32 comma-separated shift amounts (0 to %u)",
                                  out->sm_finder_samples, GD_MAX_ALLOC_UNITS - 1);
            out->sm_finder_k[out->sm_finder_nsamples++] = (uint32_t)v;
            if (!*end)
                break;
            p = end + 1;
        }
        const uint32_t *k = out->sm_finder_k;
        /* seed 001 [0169]: the sampled shifts ascend with steps that never shrink. */
        for (uint32_t i = 1; i < out->sm_finder_nsamples; i++)
            if (k[i] <= k[i - 1] || (i >= 2 && k[i] - k[i - 1] < k[i - 1] - k[i - 2]))
                return gd_err_set(err, GD_ECONFIG, "sm.finder_samples '%s': the shifts must ascend with steps that "
                                  "never shrink; %u, %u breaks that", out->sm_finder_samples,
                                  k[i - 1], k[i]);
    }
    if (!strcmp(out->sm_alloc, "contiguous")) {
        const uint32_t reg_units = sm->regs / sm->reg_subpartitions / sm->reg_alloc_unit,
                       smem_units = sm->smem / sm->smem_alloc_unit;
        if (reg_units > GD_MAX_ALLOC_UNITS || !reg_units)
            return gd_err_set(err, GD_ECONFIG, "sm.alloc=contiguous: a sub-partition's register file is %u units of "
                              "sm.reg_alloc_unit (sm.regs / sm.reg_subpartitions / sm.reg_alloc_unit); it must be 1 "
                              "to %u", reg_units, GD_MAX_ALLOC_UNITS);
        if (smem_units > GD_MAX_ALLOC_UNITS)
            return gd_err_set(err, GD_ECONFIG, "sm.alloc=contiguous: the shared memory is %u units of "
                              "sm.smem_alloc_unit (sm.smem_bytes / sm.smem_alloc_unit); it must be at most %u: raise "
                              "sm.smem_alloc_unit", smem_units, GD_MAX_ALLOC_UNITS);
        if (!strcmp(out->sm_block_finder, "groups") &&
            (reg_units % out->sm_finder_groups || (smem_units && smem_units % out->sm_finder_groups)))
            return gd_err_set(err, GD_ECONFIG, "sm.finder_groups (%u) must divide the units of every map: %u "
                              "register units per sub-partition, %u shared-memory units", out->sm_finder_groups,
                              reg_units, smem_units);
        if (!strcmp(out->sm_block_finder, "shared") &&
            (out->sm_finder_width < reg_units || out->sm_finder_width < smem_units))
            return gd_err_set(err, GD_ECONFIG, "sm.finder_width (%u) must be at least the longest map: %u register "
                              "units per sub-partition, %u shared-memory units", out->sm_finder_width, reg_units,
                              smem_units);
    }
    if (out->select_window_cycles & (out->select_window_cycles - 1))  /* seed 001 [0279]: nx a power of two */
        return gd_err_set(err, GD_ECONFIG, "select.window_cycles (%u) must be a power of two",
                          out->select_window_cycles);
    if (strcmp(out->gpc2sm_select, "lake") && strcmp(out->cwd_policy, "cga"))
        return gd_err_set(err, GD_ECONFIG, "gpc2sm.select=%s needs cwd.policy=cga", out->gpc2sm_select);
    if (!strcmp(out->cwd_admission, "channels") && strcmp(out->cwd_policy, "cga"))
        return gd_err_set(err, GD_ECONFIG, "cwd.admission=channels needs cwd.policy=cga (the baseline distributor "
                          "launches one kernel's CTAs at a time)");
    if (out->cs_engines > out->cwd_max_resident_kernels)
        return gd_err_set(err, GD_ECONFIG, "cs.engines (%u) is larger than cwd.max_resident_kernels (%u): an engine "
                          "is a dispatch slot of the distributor", out->cs_engines, out->cwd_max_resident_kernels);
    return GD_OK;
}

int gd_config_format(char *buf, size_t size, const gd_config *cfg, const char *key)
{
    int k = key_index(key);
    if (k < 0)
        return GD_ECONFIG;
    const key_def *d = &KEYS[k];
    const char *base = (const char *)cfg + d->offset;
    switch (d->type) {
    case T_UINT:
        snprintf(buf, size, "%" PRIu32, *(const uint32_t *)base);
        break;
    case T_SCALE:
        gd_scale_text(buf, size, *(const uint32_t *)base);
        break;
    case T_ENUM:
    case T_STRING:
        snprintf(buf, size, "%s", base);
        break;
    case T_CC:
        snprintf(buf, size, "%u.%u", cfg->sm.cc_major, cfg->sm.cc_minor);
        break;
    case T_LIST: {
        uint32_t n = d->list_fixed ? d->list_fixed : cfg->gpcs;
        size_t used = 0;
        buf[0] = '\0';
        for (uint32_t i = 0; i < n && used < size; i++) {
            int w = snprintf(buf + used, size - used, "%s%" PRIu32, i ? "," : "", ((const uint32_t *)base)[i]);
            if (w < 0)
                break;
            used += (size_t)w;
        }
        break;
    }
    }
    return GD_OK;
}

/* ------------------------------------------------------------------------- */
/* Introspection                                                              */

static gd_key_info INFO[NKEYS];
static char ACCEPTED[NKEYS][160];

static void build_info_once(void)
{
    static const char *TYPES[] = {"uint", "enum", "string", "cc", "list", "scale"};
    for (size_t i = 0; i < NKEYS; i++) {
        accepted_text(ACCEPTED[i], sizeof ACCEPTED[i], &KEYS[i]);
        INFO[i].type = TYPES[KEYS[i].type];
        INFO[i].def = KEYS[i].def;
        INFO[i].accepted = ACCEPTED[i];
        INFO[i].doc = KEYS[i].doc;
        INFO[i].source = KEYS[i].source;
        INFO[i].name = KEYS[i].name;
    }
}

static void build_info(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, build_info_once);
}

int gd_config_calibration_minor(const char *key)
{
    if (strcmp(key, "pp.idle_launch_ns") == 0)
        return 12;
    if (strcmp(key, "pp.gap_programmatic_lead_ns") == 0)
        return 11;
    return strncmp(key, "pp.gap_", 7) == 0 ? 9 : 0;
}

int gd_config_is_calibration_key(const char *key) { return gd_config_calibration_minor(key) != 0; }

int gd_config_check_calibration(const char *key, const char *value, char *why, size_t n)
{
    int k = key_index(key);
    if (k < 0 || !gd_config_is_calibration_key(key)) {
        snprintf(why, n, "'%.60s' is not a launch timing key (pp.gap_*_ns, pp.idle_launch_ns)", key);
        return -1;
    }
    gd_config scratch;
    uint32_t count = 0;
    if (parse_value(&KEYS[k], value, &scratch, &count)) {
        snprintf(why, n, "bad value '%.40s' for %s (an integer from %u to %u, ns)", value, key, KEYS[k].min,
                 KEYS[k].max);
        return -1;
    }
    return 0;
}

size_t gd_config_nkeys(void) { return NKEYS; }

const gd_key_info *gd_config_key_info(size_t i)
{
    if (i >= NKEYS)
        return NULL;
    build_info();
    return &INFO[i];
}

const gd_key_info *gd_config_find_key(const char *name)
{
    int k = key_index(name);
    return k < 0 ? NULL : gd_config_key_info((size_t)k);
}

size_t gd_config_npresets(void) { return NPRESETS; }
const char *gd_config_preset_name(size_t i) { return i < NPRESETS ? PRESETS[i].name : NULL; }
const char *gd_config_preset_desc(size_t i) { return i < NPRESETS ? PRESETS[i].desc : NULL; }
