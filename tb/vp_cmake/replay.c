/* replay.c - a C program outside gdsim's tree on the installed C API: replays a trace
 * three times, each in a new simulation, and checks the summaries are identical.
 * tb/test_install.sh builds it with pkg-config and with CMake (find_package(gdsim)).
 * usage: replay_c TRACE */
#include <stdio.h>
#include <string.h>
#include <gdsim.h>

int main(int argc, char **argv)
{
    gd_summary s[3];
    if (argc != 2) {
        fprintf(stderr, "usage: %s TRACE\n", argv[0]);
        return 2;
    }
    for (int i = 0; i < 3; i++) {
        gd_sim *sim;
        if (gd_sim_new(&sim, NULL) != GD_OK)
            return 1;
        if (gd_sim_replay_file(sim, argv[1]) != GD_OK) {
            fprintf(stderr, "%s\n", gd_sim_errmsg(sim));
            gd_sim_free(sim);
            return 1;
        }
        if (gd_sim_summary(sim, &s[i]) != GD_OK)
            return 1;
        gd_sim_free(sim);
    }
    if (memcmp(&s[0], &s[1], sizeof s[0]) || memcmp(&s[0], &s[2], sizeof s[0])) {
        puts("differ");
        return 1;
    }
    printf("%llu kernels, %llu CTAs, %.3f %% occupancy, identical three times\n",
           (unsigned long long)s[0].kernels, (unsigned long long)s[0].ctas, s[0].mean_sm_occupancy_pct);
    return 0;
}
