#include "condensed.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    unsigned words;
} FIELDS[GD_DIFF_FIELDS] = {
    {"synch_scopes", 1},     {"setup", 1},           {"workgroup_size_x", 1},    {"workgroup_size_y", 1},
    {"workgroup_size_z", 1}, {"grid_size_x", 2},     {"grid_size_y", 2},         {"grid_size_z", 2},
    {"private_segment_size", 2}, {"group_segment_size", 2}, {"kernel_object", 4}, {"kernarg_address", 4},
    {"completion_signal", 4},
};

unsigned gd_diff_field_words(unsigned field) { return field < GD_DIFF_FIELDS ? FIELDS[field].words : 0; }
const char *gd_diff_field_name(unsigned field) { return field < GD_DIFF_FIELDS ? FIELDS[field].name : NULL; }

uint64_t gd_diff_field_get(const gd_aql_dispatch *d, unsigned field)
{
    switch (field) {
    case GD_DIFF_SYNCH_SCOPES: return d->header >> 8;
    case GD_DIFF_SETUP: return d->setup;
    case GD_DIFF_WORKGROUP_X: case GD_DIFF_WORKGROUP_Y: case GD_DIFF_WORKGROUP_Z:
        return d->workgroup_size[field - GD_DIFF_WORKGROUP_X];
    case GD_DIFF_GRID_X: case GD_DIFF_GRID_Y: case GD_DIFF_GRID_Z: return d->grid_size[field - GD_DIFF_GRID_X];
    case GD_DIFF_PRIVATE_SEGMENT: return d->private_segment_size;
    case GD_DIFF_GROUP_SEGMENT: return d->group_segment_size;
    case GD_DIFF_KERNEL_OBJECT: return d->kernel_object;
    case GD_DIFF_KERNARG: return d->kernarg_address;
    case GD_DIFF_COMPLETION_SIGNAL: return d->completion_signal;
    default: return 0;
    }
}

void gd_diff_field_set(gd_aql_dispatch *d, unsigned field, uint64_t v)
{
    switch (field) {
    case GD_DIFF_SYNCH_SCOPES: d->header = (uint16_t)((d->header & 0xffu) | ((v & 0xffu) << 8)); break;
    case GD_DIFF_SETUP: d->setup = (uint16_t)v; break;
    case GD_DIFF_WORKGROUP_X: case GD_DIFF_WORKGROUP_Y: case GD_DIFF_WORKGROUP_Z:
        d->workgroup_size[field - GD_DIFF_WORKGROUP_X] = (uint16_t)v;
        break;
    case GD_DIFF_GRID_X: case GD_DIFF_GRID_Y: case GD_DIFF_GRID_Z:
        d->grid_size[field - GD_DIFF_GRID_X] = (uint32_t)v;
        break;
    case GD_DIFF_PRIVATE_SEGMENT: d->private_segment_size = (uint32_t)v; break;
    case GD_DIFF_GROUP_SEGMENT: d->group_segment_size = (uint32_t)v; break;
    case GD_DIFF_KERNEL_OBJECT: d->kernel_object = v; break;
    case GD_DIFF_KERNARG: d->kernarg_address = v; break;
    case GD_DIFF_COMPLETION_SIGNAL: d->completion_signal = v; break;
    default: break;
    }
}

uint16_t gd_diff_vector(const gd_aql_dispatch *ref, const gd_aql_dispatch *d)
{
    uint16_t v = 0;
    for (unsigned f = 0; f < GD_DIFF_FIELDS; f++)
        if (gd_diff_field_get(ref, f) != gd_diff_field_get(d, f))
            v |= (uint16_t)(1u << f);
    return v;
}

void gd_rst_init(gd_rst *t, uint32_t size)
{
    memset(t, 0, sizeof *t);
    t->size = size > GD_RST_MAX ? GD_RST_MAX : size;
}

int gd_rst_store(gd_rst *t, const gd_aql_dispatch *ref_pkt)
{
    uint32_t i = ref_pkt->reserved0;
    if (i >= t->size || i >= GD_RST_MAX)
        return -1;
    t->entry[i] = *ref_pkt;
    t->valid[i] = 1;
    return 0;
}

void gd_condensed_encode_bytes(uint8_t out[GD_AQL_PACKET_SIZE], const gd_condensed_pkt *p)
{
    out[0] = p->header;
    out[1] = p->num_kernels;
    for (unsigned i = 0; i < GD_CONDENSED_WORDS; i++) {
        out[2 + 2 * i] = (uint8_t)(p->diff[i] & 0xff);
        out[3 + 2 * i] = (uint8_t)(p->diff[i] >> 8);
    }
}

void gd_condensed_decode_bytes(gd_condensed_pkt *p, const uint8_t in[GD_AQL_PACKET_SIZE])
{
    p->header = in[0];
    p->num_kernels = in[1];
    for (unsigned i = 0; i < GD_CONDENSED_WORDS; i++)
        p->diff[i] = (uint16_t)(in[2 + 2 * i] | (in[3 + 2 * i] << 8));
}

void gd_condensed_begin(gd_condensed_builder *b)
{
    memset(b, 0, sizeof *b);
    b->pkt.header = GD_AQL_TYPE_CONDENSED_DISPATCH;
}

uint32_t gd_condensed_cost(const gd_aql_dispatch *ref, const gd_aql_dispatch *d)
{
    uint16_t v = gd_diff_vector(ref, d);
    uint32_t words = 1;
    for (unsigned f = 0; f < GD_DIFF_FIELDS; f++)
        if (v & (1u << f))
            words += FIELDS[f].words;
    return words;
}

int gd_condensed_add(gd_condensed_builder *b, const gd_rst *t, uint32_t ref_num, const gd_aql_dispatch *d)
{
    if (ref_num >= t->size || ref_num >= GD_RST_MAX || !t->valid[ref_num])
        return -2;
    const gd_aql_dispatch *ref = &t->entry[ref_num];
    if ((ref->header & 0xff) != (d->header & 0xff) || d->reserved2 != ref->reserved2)
        return -2;
    uint32_t words = gd_condensed_cost(ref, d);
    if (b->used + words > GD_CONDENSED_WORDS || b->pkt.num_kernels >= GD_CONDENSED_WORDS)
        return -1;
    uint16_t v = gd_diff_vector(ref, d);
    b->pkt.diff[b->used++] = (uint16_t)(ref_num | ((unsigned)v << 3));
    for (unsigned f = 0; f < GD_DIFF_FIELDS; f++) {
        if (!(v & (1u << f)))
            continue;
        uint64_t val = gd_diff_field_get(d, f);
        for (unsigned w = FIELDS[f].words; w-- > 0;)  /* most significant word first */
            b->pkt.diff[b->used++] = (uint16_t)(val >> (16 * w));
    }
    b->pkt.num_kernels++;
    return 0;
}

int gd_condensed_needs_cleanup(const gd_aql_dispatch *d, uint32_t k, uint32_t n)
{
    unsigned release = (d->header >> GD_AQL_HEADER_RELEASE_SHIFT) & GD_AQL_FENCE_SCOPE_MASK;
    return k + 1 == n || d->completion_signal != 0 || release != 0;
}

static int fail(char *why, size_t size, const char *msg, unsigned k, unsigned a)
{
    if (why && size)
        snprintf(why, size, msg, k, a);
    return -1;
}

int gd_condensed_decode(const gd_condensed_pkt *p, const gd_rst *t, gd_aql_dispatch out[GD_CONDENSED_WORDS],
                        char *why, size_t why_size)
{
    if (p->num_kernels == 0 || p->num_kernels > GD_CONDENSED_WORDS)
        return fail(why, why_size, "num_kernels is %u (a condensed packet describes 1 to %u kernels)",
                    p->num_kernels, GD_CONDENSED_WORDS);
    unsigned at = 0;
    for (unsigned k = 0; k < p->num_kernels; k++) {
        if (at >= GD_CONDENSED_WORDS)
            return fail(why, why_size, "kernel %u: its diff header lies past the 62 bytes of diff values (word %u)",
                        k, at);
        uint16_t h = p->diff[at++];
        unsigned ref = h & 7u, v = h >> 3;
        if (ref >= t->size || ref >= GD_RST_MAX || !t->valid[ref])
            return fail(why, why_size, "kernel %u: ref_num %u was never loaded by a reference packet", k, ref);
        gd_aql_dispatch d = t->entry[ref];
        for (unsigned f = 0; f < GD_DIFF_FIELDS; f++) {
            if (!(v & (1u << f)))
                continue;
            if (at + FIELDS[f].words > GD_CONDENSED_WORDS) {
                if (why && why_size)
                    snprintf(why, why_size, "kernel %u: the new %s runs past the 62 bytes of diff values", k,
                             FIELDS[f].name);
                return -1;
            }
            uint64_t val = 0;
            for (unsigned w = 0; w < FIELDS[f].words; w++)
                val = (val << 16) | p->diff[at++];
            gd_diff_field_set(&d, f, val);
        }
        unsigned dims = d.setup & 3u, acq = (d.header >> GD_AQL_HEADER_ACQUIRE_SHIFT) & GD_AQL_FENCE_SCOPE_MASK;
        unsigned rel = (d.header >> GD_AQL_HEADER_RELEASE_SHIFT) & GD_AQL_FENCE_SCOPE_MASK;
        if (dims == 0 || (d.setup >> 2))
            return fail(why, why_size, "kernel %u: setup 0x%04x does not give 1 to 3 dimensions", k, d.setup);
        if (acq == 3 || rel == 3 || (d.header >> 13))
            return fail(why, why_size, "kernel %u: synch_scopes 0x%02x uses a reserved fence scope or bit", k,
                        d.header >> 8);
        for (unsigned i = 0; i < 3; i++) {
            if (!d.workgroup_size[i])
                return fail(why, why_size, "kernel %u: workgroup_size_%c is 0", k, "xyz"[i]);
            if (!d.grid_size[i])
                return fail(why, why_size, "kernel %u: grid_size_%c is 0", k, "xyz"[i]);
        }
        d.reserved0 = (uint16_t)ref;
        out[k] = d;
    }
    for (; at < GD_CONDENSED_WORDS; at++)
        if (p->diff[at])
            return fail(why, why_size, "diff value %u after the last kernel is 0x%04x, not 0", at, p->diff[at]);
    return p->num_kernels;
}
