/* test/test_block_cuda.c: placeholder of issue 23's contract commit (replaced before the issue closes) */
/* SPDX-License-Identifier: BSD-3-Clause */
int main(void) { return 77; }
