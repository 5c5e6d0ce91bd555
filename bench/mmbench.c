/* bench/mmbench.c: Matrix Market reading speed in MB/s of text and nonzeros/s */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _POSIX_C_SOURCE 200809L /* mkstemp, stat */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/timer.h"
#include "mpcg.h"

#define REPEAT 3

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mmbench FILE...\n"
            "       mmbench --generate=SPEC   (e.g. poisson3d:64: written to a temporary file,\n"
            "                                  read back, removed)\n"
            "Times mpcg_matrix_read_mm, best of %d, and prints MB/s of file and nonzeros/s.\n",
            REPEAT);
}

/* Best of REPEAT reads of path; prints one line. 0 on success. */
static int bench_read(mpcg_context *ctx, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        perror(path);
        return 1;
    }
    double best = 1e300;
    int64_t n = 0, nnz = 0;
    for (int rep = 0; rep < REPEAT; rep++) {
        mpcg_matrix *A = NULL;
        double t0 = mpcgi_wtime();
        mpcg_status st = mpcg_matrix_read_mm(ctx, path, &A);
        double t = mpcgi_wtime() - t0;
        if (st != MPCG_SUCCESS) {
            fprintf(stderr, "mmbench: %s: %s\n", mpcg_status_name(st), mpcg_last_error(ctx));
            return 1;
        }
        n = mpcg_matrix_n(A);
        nnz = mpcg_matrix_nnz(A);
        mpcg_matrix_destroy(A);
        if (t < best) best = t;
    }
    double mb = (double)sb.st_size / 1e6;
    printf("%s: n = %lld, nnz = %lld, %.1f MB%s, read in %.3f s (best of %d): %.0f MB/s, "
           "%.1f M nnz/s\n",
           path, (long long)n, (long long)nnz, mb, strstr(path, ".gz") ? " compressed" : "", best,
           REPEAT, mb / best, (double)nnz / best / 1e6);
    return 0;
}

/* Write the generated matrix to a temporary file, bench reading it, remove it. */
static int bench_generate(mpcg_context *ctx, const char *spec)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/mmbench-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        perror(path);
        return 1;
    }
    close(fd);
    mpcg_matrix *A = NULL;
    double t0 = mpcgi_wtime();
    mpcg_status st = mpcg_matrix_generate(ctx, spec, &A);
    double t1 = mpcgi_wtime();
    if (st == MPCG_SUCCESS) st = mpcg_matrix_write_mm(A, path);
    double t2 = mpcgi_wtime();
    int rc = 1;
    if (st != MPCG_SUCCESS) {
        fprintf(stderr, "mmbench: %s: %s\n", mpcg_status_name(st), mpcg_last_error(ctx));
    } else {
        printf("%s: generated in %.3f s, written in %.3f s\n", spec, t1 - t0, t2 - t1);
        rc = bench_read(ctx, path);
    }
    mpcg_matrix_destroy(A);
    remove(path);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    mpcg_context *ctx = NULL;
    if (mpcg_context_create("cpu", &ctx) != MPCG_SUCCESS) {
        fprintf(stderr, "mmbench: %s\n", mpcg_last_error(NULL));
        return 1;
    }
    printf("mmbench: %s\n", mpcg_context_device_name(ctx));
    int rc = 0;
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0) {
            usage(stdout);
        } else if (strncmp(argv[k], "--generate=", 11) == 0) {
            rc |= bench_generate(ctx, argv[k] + 11);
        } else if (argv[k][0] == '-') {
            usage(stderr);
            rc = 2;
            break;
        } else {
            rc |= bench_read(ctx, argv[k]);
        }
    }
    mpcg_context_destroy(ctx);
    return rc;
}
