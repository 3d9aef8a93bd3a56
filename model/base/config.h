/* config.h - configuration keys, presets and their resolution.
 *
 * Every number in the model is a key here, with its default and where the
 * default comes from. Users set keys as text (gd_sim_set, `--set key=value`);
 * gd_config_resolve turns the text into a typed gd_config, applying the device
 * preset (explicit, or chosen from the trace's device description). */
#ifndef GD_CONFIG_H
#define GD_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "gd_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* GPCs per GPU: far beyond any chip (an H100 has 8), so that architects can model
 * hypothetical GPUs (8,448 SMs = 512 GPCs of 16 and 17, issue 16); GPU-wide GPC sets
 * are bit masks of GD_GPC_WORDS 64-bit words. */
#define GD_MAX_GPCS 1024
#define GD_GPC_WORDS (GD_MAX_GPCS / 64)
#define GD_MAX_SMS_PER_GPC 64
#define GD_MAX_SMS (GD_MAX_GPCS * GD_MAX_SMS_PER_GPC)
#define GD_MAX_SUBPARTITIONS 8   /* register-file sub-partitions per SM */
#define GD_MAX_ALLOC_UNITS 2048  /* sm.alloc=contiguous: allocation units of one register file or shared memory */

/* Per-SM limits of a device (one compute capability): the device description the
 * SM's occupancy rules (sm/occupancy.h) and the trace reader work from. */
typedef struct gd_sm_limits {
    uint32_t cc_major, cc_minor;     /* compute capability */
    uint32_t warp_size;              /* threads per warp (32) */
    uint32_t max_warps;              /* resident warps per SM */
    uint32_t max_ctas;               /* resident CTAs per SM */
    uint32_t regs;                   /* 32-bit registers per SM */
    uint32_t reg_alloc_unit;         /* registers per warp are allocated in units of this */
    uint32_t reg_subpartitions;      /* register file sub-partitions (SMSPs) */
    uint32_t max_regs_per_thread;    /* largest register count a kernel may use */
    uint32_t smem;                   /* shared memory per SM usable by CTAs (largest carveout), bytes */
    uint32_t smem_alloc_unit;        /* shared memory allocation granularity, bytes */
    uint32_t smem_reserved_per_cta;  /* shared memory the system reserves per CTA, bytes */
    uint32_t smem_per_cta_default;   /* per-CTA shared memory limit without opt-in, bytes */
    uint32_t smem_per_cta_optin;     /* per-CTA shared memory limit with opt-in, bytes */
    uint32_t max_threads_per_cta;    /* threads per CTA */
} gd_sm_limits;

/* The device and model parameters a replay runs with. */
typedef struct gd_config {
    char preset[16];                       /* resolved preset name */
    char gpu_name[64];
    uint32_t gpcs;
    uint32_t sms_per_gpc[GD_MAX_GPCS];
    uint32_t sms;                          /* derived: sum of sms_per_gpc */
    uint32_t sms_per_tpc;
    uint32_t max_grid[3];                  /* CTAs in x, y, z */
    gd_sm_limits sm;
    uint32_t clock_mhz;                    /* front-end clock */
    uint32_t pp_fetch_cycles;
    uint32_t pp_doorbell_cycles;
    uint32_t pp_idle_launch_ns;            /* 0: doorbell + fetch + decode + launch; else the whole idle launch latency */
    uint32_t pp_decode_cycles;
    uint32_t pp_completion_cycles;
    uint32_t pp_queue_packets;
    uint32_t vp_queues;                    /* gdsim::gpu: hardware queues in its register block */
    uint32_t pp_barrier_cycles;
    uint32_t pp_command_launch_cycles;
    uint32_t pp_gap_ns[9];                 /* the launch-gap classes (pp/gap.h, enum gd_gap_class order), ns */
    uint32_t pp_gap_programmatic_lead_ns;  /* a programmatic dependent launch: its CTAs from its primary's end less this */
    uint32_t calibrated_keys;              /* derived: keys the trace's calibration record set (not overridden) */
    uint32_t rsb_entries;
    uint32_t rsb_access_cycles;
    char rsb_replacement[16];              /* "lru" | "fifo": gdsim condense */
    char pp_condensed_overlap[16];         /* "on" | "off" */
    uint32_t cwd_grid_launch_cycles;
    uint32_t cwd_cta_launch_cycles;
    uint32_t cwd_max_resident_kernels;
    uint32_t cwd_gpc_cgas_per_sm;
    uint32_t cwd_gpc_cga_ids;
    uint32_t cwd_lake_scan_limit;
    char cwd_policy[16];                   /* "baseline" | "cga" */
    char cwd_admission[16];                /* "inorder" | "channels" */
    char cwd_priority_windows[64];         /* "off" | "L0,L1,..." (cycles), parsed below */
    uint32_t cwd_windows;                  /* derived: how many windows (0: none) */
    uint32_t cwd_window_cycles[8];         /* derived: the windows' lengths, levels 0, 1, ... */
    uint32_t cwd_split_after;
    uint32_t cwd_query_cycles;
    uint32_t cwd_mask_launch_cycles;
    uint32_t cwd_id_broadcast_cycles;
    uint32_t cwd_cga_flush_cycles;
    char cwd_raster_check[16];             /* "on" | "off" */
    char cs_policy[16];                    /* "aql" | "inorder" | "waitqueue" */
    uint32_t cs_physical_queues;           /* 0: one per trace queue */
    uint32_t cs_engines;                   /* 0: cwd_max_resident_kernels */
    uint32_t cs_copy_engines;
    uint32_t cs_wait_queues;
    uint32_t cs_wq_depth;
    uint32_t cs_pick_cycles;
    uint32_t cs_decode_cycles;
    char meta_policy[16];                  /* "topology" | "round_robin" | "priority" | "most_data" */
    uint32_t meta_simd_width;              /* 0: the device's warp size */
    char meta_concurrency[16];             /* "auto" | "parallel" | "sequential" */
    char meta_protect_important[16];       /* "on" | "off" */
    char meta_debug[16];                   /* "off" | "on" */
    uint32_t meta_launch_ctas;             /* 0: one wave */
    uint32_t meta_check_cycles;
    uint32_t meta_launch_cycles;
    uint32_t report_idle_gap_pct;          /* the report's idle note threshold, % of the simulated time */
    char gpc2sm_select[16];                /* "lake" | "weighted" | "power" */
    char gpc2sm_group_ctas[16];           /* "on" | "off" */
    uint32_t select_cycles;
    uint32_t select_window_cycles;
    uint32_t select_resource_weights[4];   /* warps, CTA slots, shared memory, registers */
    uint32_t power_insn_fj[7];             /* energy per warp instruction by class (trace.h gd_insn_class), then
                                              per warp and ns of a CTA without an instruction mix, fJ */
    uint32_t power_window_ns;              /* 0: no power over time */
    char sm_alloc[16];                     /* "count" | "contiguous" */
    char sm_wave_placement[16];            /* "pooled" | "tail" | "head" */
    char sm_block_finder[16];              /* "scan" | "shift" | "groups" | "sampled" | "shared" */
    uint32_t sm_finder_cycles;
    uint32_t sm_scan_bits_per_cycle;
    uint32_t sm_finder_groups;
    char sm_finder_samples[192];           /* comma-separated shift amounts, parsed below */
    uint32_t sm_finder_nsamples;           /* derived */
    uint32_t sm_finder_k[32];              /* derived */
    uint32_t sm_finder_width;
    char sim_shortcuts[16];                /* "on" | "off" */
    char sim_read_ahead[16];               /* "on" | "off" */
    uint32_t sim_max_sim_time_s;           /* the longest simulated time a replay may reach, s */
    uint32_t sim_max_ctas;                 /* the most CTAs a replay may run (0: no limit) */
    uint32_t sim_max_kernel_descriptors;   /* the most distinct kernel descriptors of a trace (0: no limit) */
    uint32_t sim_max_signals;              /* the most distinct completion signals of a trace (0: no limit) */
    uint32_t sm_cta_time_ppm;              /* sm.cta_time_scale, in millionths */
    uint32_t sim_max_descriptor_mib;       /* sim.max_descriptor_mib */
    char sm_cta_time_rules[1024];          /* sm.cta_time_rules: a rules file, or "none" (cta_rules.h) */
    uint32_t host_cpu_time_ppm;            /* host.cpu_time_scale, in millionths */
    char host_mode[16];                    /* "closed" | "open" */
    uint32_t host_max_lookahead;           /* closed loop: packets read ahead of the host threads, at most */
} gd_config;

/* A trace's calibration record (format 1.9, traces/FORMAT.md): where the launch-gap fit
 * came from, and its settings (pp.gap_* keys and their values as text). */
#define GD_CALIBRATION_MAX_KEYS 16
#define GD_CALIBRATION_MAX_PROVENANCE 512
typedef struct gd_trace_calibration {
    char provenance[GD_CALIBRATION_MAX_PROVENANCE + 1];
    uint32_t n;
    char key[GD_CALIBRATION_MAX_KEYS][48];
    char value[GD_CALIBRATION_MAX_KEYS][24];
} gd_trace_calibration;

/* What a trace says about the device it was captured on or made for. */
typedef struct gd_trace_device {
    char name[64];
    uint32_t cc_major, cc_minor;
    uint32_t sms;
    uint32_t max_threads_per_sm;
    uint32_t regs_per_sm;
    uint32_t smem_per_sm;
    uint32_t smem_per_cta_default;
    uint32_t smem_per_cta_optin;
    uint32_t max_threads_per_cta;
    uint32_t warp_size;
    uint32_t gpcs;                         /* 0 when unknown */
    uint32_t sms_per_gpc[GD_MAX_GPCS];
    const gd_trace_calibration *calibration;  /* format 1.9: the trace's launch-gap fit, NULL:
                                                        none; gpu.preset=trace applies it */
    char origin[320];                      /* where it was read ("FILE: record 0 (offset 16)"), named
                                              by errors about its values; "" when not from a file */
} gd_trace_device;

/* The text settings a user made (key -> value); unset keys are NULL. */
typedef struct gd_settings gd_settings;

gd_settings *gd_settings_new(void);
void gd_settings_free(gd_settings *s);
gd_settings *gd_settings_clone(const gd_settings *s);
/* Validate and store one setting. GD_ECONFIG with err naming the key and the
 * accepted values when the key is unknown or the value bad. */
int gd_settings_set(gd_settings *s, const char *key, const char *value, gd_err *err);
/* Settings from a configuration file (gdsim --config): gd_config_line's syntax, at
 * most GD_CONFIG_LINE_MAX bytes a line and GD_CONFIG_FILE_MAX in all, no NUL byte.
 * All of them apply or none: an error (GD_EIO, GD_ECONFIG) names the file and line. */
#define GD_CONFIG_LINE_MAX 1023
#define GD_CONFIG_FILE_MAX ((size_t)1 << 20)
int gd_settings_load(gd_settings *s, const char *path, gd_err *err);

/* A scale factor (the T_SCALE keys', e.g. sm.cta_time_scale): digits, optionally '.'
 * and 1 to 6 digits, into millionths (0, or -1 when not such a decimal or above
 * 10^6); and back as the shortest decimal (0.5, 1, 2.25). */
int gd_scale_parse(const char *s, uint64_t *ppm);
void gd_scale_text(char *buf, size_t size, uint32_t ppm);
/* The same on text[0..n) (need not end in NUL); name stands for the file in errors. */
int gd_settings_load_text(gd_settings *s, const char *text, size_t n, const char *name, gd_err *err);
/* The value explicitly set for key, or NULL. */
const char *gd_settings_get(const gd_settings *s, const char *key);

/* Resolve settings (+ the trace's device, may be NULL) into a config. */
int gd_config_resolve(gd_config *out, const gd_settings *s, const gd_trace_device *trace_dev, gd_err *err);
/* A trace's device description against what the model can hold (the ranges of the keys
 * its figures become, warps per SM, a CTA no larger than an SM, the compute
 * capability): 0, or -1 with why set. The trace reader calls it on the header. */
int gd_config_check_device(const gd_trace_device *dev, char *why, size_t n);

/* The resolved value of a key as text (for reports). buf gets the text. */
int gd_config_format(char *buf, size_t size, const gd_config *cfg, const char *key);

/* The text value a key would resolve to now: explicit setting, else the
 * preset's value (for gpu.preset=auto without a trace: not known, "(from trace)"),
 * else the default. Writes into buf. */
int gd_settings_effective(char *buf, size_t size, const gd_settings *s, const char *key, gd_err *err);

/* Whether a calibration record may set key: the launch timing a capture measures, the
 * launch gaps (pp.gap_*) and the idle launch latency (pp.idle_launch_ns). */
int gd_config_is_calibration_key(const char *key);

/* The trace format minor version a calibration record that sets key needs (9: the
 * launch gaps; 11: pp.gap_programmatic_lead_ns; 12: pp.idle_launch_ns); 0: not a
 * calibration key. */
int gd_config_calibration_minor(const char *key);

/* A calibration record's setting (trace.h gd_trace_calibration): 0 when key is a
 * calibration key (above) and value a valid value for it; else -1 with why. */
int gd_config_check_calibration(const char *key, const char *value, char *why, size_t n);

/* Key table access. */
typedef struct gd_key_info {
    const char *name;
    const char *type;     /* "uint", "enum", "string", "cc", "list", "scale" (a decimal factor) */
    const char *def;      /* default text; NULL when the preset gives it */
    const char *accepted; /* what values are accepted, in words */
    const char *doc;
    const char *source;   /* where the default comes from (preset keys: see presets) */
} gd_key_info;

size_t gd_config_nkeys(void);
const gd_key_info *gd_config_key_info(size_t i);
const gd_key_info *gd_config_find_key(const char *name);

/* Presets. */
size_t gd_config_npresets(void);
const char *gd_config_preset_name(size_t i);
const char *gd_config_preset_desc(size_t i);
/* The preset's value of key and where it comes from; NULL if the preset does not set it. */
const char *gd_config_preset_value(size_t preset, const char *key, const char **source);

#ifdef __cplusplus
}
#endif

#endif
