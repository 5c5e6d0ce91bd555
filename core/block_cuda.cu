/* core/block_cuda.cu: placeholder of issue 23's contract commit (the device block kernels) */
/* SPDX-License-Identifier: BSD-3-Clause */
