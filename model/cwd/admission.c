#include "admission.h"

#include <stdlib.h>
#include <string.h>

int gd_adm_init(gd_adm *a, uint32_t channels, const uint64_t *windows, uint32_t n, uint64_t split_after)
{
    memset(a, 0, sizeof *a);
    a->nch = channels;
    a->marks = calloc((size_t)channels * GD_ADM_LEVELS + 1, 1);
    if (!a->marks)
        return -1;
    a->nwin = n > GD_ADM_LEVELS ? GD_ADM_LEVELS : n;
    for (uint32_t i = 0; i < a->nwin; i++) {
        a->win_len[i] = windows[i];
        a->period += windows[i];
    }
    if (!a->period)
        a->nwin = 0;
    a->split_after = split_after;
    return 0;
}

void gd_adm_destroy(gd_adm *a)
{
    free(a->marks);
    memset(a, 0, sizeof *a);
}

int gd_adm_lifted(const gd_adm *a, uint64_t cycle)
{
    if (!a->nwin)
        return -1;
    uint64_t c = cycle % a->period;
    for (uint32_t i = 0; i < a->nwin; i++) {
        if (c < a->win_len[i])
            return (int)i;
        c -= a->win_len[i];
    }
    return -1;
}

uint32_t gd_adm_rank(const gd_adm *a, uint32_t level, uint64_t cycle)
{
    int lift = gd_adm_lifted(a, cycle);
    if (lift < 0)
        return level;
    if (level == (uint32_t)lift)
        return 0;
    return level < (uint32_t)lift ? level + 1 : level;  /* the others keep their order (b3) */
}

int32_t gd_adm_round(gd_adm *a, const uint8_t *candidate, const uint8_t *level, uint64_t cycle)
{
    a->rounds++;
    uint32_t best = UINT32_MAX, tied = 0;
    for (uint32_t ch = 0; ch < a->nch; ch++) {
        if (!candidate[ch])
            continue;
        uint32_t r = gd_adm_rank(a, level[ch], cycle);
        if (r < best) {
            best = r;
            tied = 1;
        } else if (r == best) {
            tied++;
        }
    }
    if (best == UINT32_MAX) {
        a->failed_rounds++;
        a->failed_total++;
        return -1;
    }
    a->failed_rounds = 0;
    int32_t win = -1;
    if (tied == 1) {  /* a41 */
        for (uint32_t ch = 0; ch < a->nch && win < 0; ch++)
            if (candidate[ch] && gd_adm_rank(a, level[ch], cycle) == best)
                win = (int32_t)ch;
    } else {  /* a42 */
        a->ties++;
        for (uint32_t ch = 0; ch < a->nch && win < 0; ch++)
            if (candidate[ch] && gd_adm_rank(a, level[ch], cycle) == best && !a->marks[ch * GD_ADM_LEVELS + level[ch]])
                win = (int32_t)ch;
        if (win >= 0) {
            a->marks[(uint32_t)win * GD_ADM_LEVELS + level[win]] = 1;
        } else {
            for (uint32_t ch = 0; ch < a->nch; ch++) {
                if (!candidate[ch] || gd_adm_rank(a, level[ch], cycle) != best)
                    continue;
                if (win < 0)
                    win = (int32_t)ch;  /* keeps its mark */
                else
                    a->marks[ch * GD_ADM_LEVELS + level[ch]] = 0;
            }
        }
    }
    /* a lift: the window's level won over a candidate of a higher level */
    int lift = gd_adm_lifted(a, cycle);
    if (lift >= 0 && level[win] == (uint8_t)lift) {
        for (uint32_t ch = 0; ch < a->nch; ch++)
            if (candidate[ch] && level[ch] < level[win]) {
                a->lifts++;
                break;
            }
    }
    return win;
}

int gd_adm_should_split(const gd_adm *a) { return a->split_after && a->failed_rounds > a->split_after; }

void gd_adm_set_failed_rounds(gd_adm *a, uint64_t n) { a->failed_rounds = n; }

void gd_adm_split_done(gd_adm *a)
{
    a->failed_rounds = 0;
    a->splits++;
}
