/* test/mm_dump.c: read a Matrix Market file with mpcg and write what it read, for
 * test/mm_compare.py (the comparison with scipy.io.mmread) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include "mpcg.h"

/* usage: mm_dump matrix|vector IN OUT
 * Success: OUT holds the matrix as mpcg_matrix_write_mm writes it (coordinate real general,
 * expanded, 1-based, %.17g) or the vector as mpcg_vector_write_mm writes it; exit 0.
 * Failure: "STATUS<TAB>message" on stdout (the message as mpcg_last_error gives it); exit 1.
 * Usage errors: exit 2. */
int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "matrix") && strcmp(argv[1], "vector"))) {
        fprintf(stderr, "usage: mm_dump matrix|vector IN OUT\n");
        return 2;
    }
    mpcg_context *ctx = NULL;
    mpcg_matrix *A = NULL;
    double *x = NULL;
    int64_t n = 0;
    mpcg_status st = mpcg_context_create("cpu", &ctx);
    if (st == MPCG_SUCCESS) {
        if (strcmp(argv[1], "matrix") == 0) {
            st = mpcg_matrix_read_mm(ctx, argv[2], &A);
            if (st == MPCG_SUCCESS) st = mpcg_matrix_write_mm(A, argv[3]);
        } else {
            st = mpcg_vector_read_mm(ctx, argv[2], &n, &x);
            if (st == MPCG_SUCCESS) st = mpcg_vector_write_mm(ctx, argv[3], n, x);
        }
    }
    if (st != MPCG_SUCCESS) {
        const char *msg = mpcg_last_error(ctx);
        printf("%s\t%.*s\n", mpcg_status_name(st), (int)strcspn(msg, "\n"), msg);
    }
    mpcg_free(x);
    mpcg_matrix_destroy(A);
    mpcg_context_destroy(ctx);
    return st == MPCG_SUCCESS ? 0 : 1;
}
