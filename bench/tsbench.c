/* bench/tsbench.c: placeholder of issue 23's contract commit (replaced before the issue closes) */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
int main(void) { fprintf(stderr, "tsbench: not built yet\n"); return 1; }
