/* bench/experiments/tile_sort.cu: is a segmented sort of each tile's entries (two 8-bit passes on
 * 16 column bits) faster than the global 3-pass radix sort on (tile, column bits) keys that the
 * tiles path's setup uses (spmv/adaptive_tiles.cu)? (an experiment, not built by make)
 *
 * Build and run (sm_90; the device machine has nvcc):
 *   nvcc -O2 -std=c++17 -arch=sm_90 bench/experiments/tile_sort.cu -o tile_sort
 *   ./tile_sort
 *
 * Pairs of 32-bit keys and 32-bit values (the entry), random 16-bit column keys, in equal tiles:
 * 64 M pairs in 264 tiles (powerlaw:4000000:16) and 42 M in 132 (the permuted bcsstk25
 * replica). Sorted by cub::DeviceRadixSort on tile << 16 | column (25 bits, and 24 as the setup
 * sorts), by cub::DeviceSegmentedRadixSort on the column (16 bits; 15 to see the bits matter) and
 * by cub::DeviceSegmentedSort::StableSortPairs. Best of 4 runs (CUDA events, the input copied in
 * before each); "bad" counts neighbours out of order within a tile or values outside it (the
 * 24-bit global sort cuts the 25-bit key, so it is bad there by design, as is 15 bits).
 *
 * H100, 2026-11-24 (two runs): 64 M / 264: global 24-bit 1.66 ms, 25-bit 2.06, segmented radix
 * 1.91 - 1.92, segmented stable sort 3.82; 42 M / 132: 1.11 - 1.13, 1.38 - 1.40, 1.52 - 1.55,
 * 2.50 - 2.52. The setup keeps the global sort.
 */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <random>

#include "experiment.cuh"

int main()
{
    const long sizes[2] = {64000000, 42000000};
    const int tile_counts[2] = {264, 132};
    for (int c = 0; c < 2; c++) {
        const long nnz = sizes[c];
        const int T = tile_counts[c];
        std::vector<unsigned> col(nnz), tiled(nnz), ent(nnz);
        std::vector<int> off(T + 1);
        std::mt19937 g(1);
        for (int t = 0; t <= T; t++)
            off[t] = (int)(nnz * (double)t / T);
        for (int t = 0; t < T; t++)
            for (long i = off[t]; i < off[t + 1]; i++) {
                col[i] = g() & 0xffff;
                tiled[i] = (unsigned)t << 16 | col[i];
                ent[i] = (unsigned)i;
            }
        unsigned *k0, *k1, *v0, *v1;
        int *doff;
        void *tmp;
        CK(cudaMalloc(&k0, nnz * 4));
        CK(cudaMalloc(&k1, nnz * 4));
        CK(cudaMalloc(&v0, nnz * 4));
        CK(cudaMalloc(&v1, nnz * 4));
        CK(cudaMalloc(&doff, (T + 1) * 4));
        CK(cudaMemcpy(doff, off.data(), (T + 1) * 4, cudaMemcpyHostToDevice));
        cub::DoubleBuffer<unsigned> K(k0, k1), V(v0, v1);
        size_t b1 = 0, b2 = 0, b3 = 0;
        CK(cub::DeviceRadixSort::SortPairs(nullptr, b1, K, V, (int)nnz, 0, 25));
        CK(cub::DeviceSegmentedRadixSort::SortPairs(nullptr, b2, K, V, (int)nnz, T, doff, doff + 1,
                                                    0, 16));
        CK(cub::DeviceSegmentedSort::StableSortPairs(nullptr, b3, K, V, (int)nnz, T, doff,
                                                     doff + 1));
        const size_t tb = std::max(b1, std::max(b2, b3));
        CK(cudaMalloc(&tmp, tb));
        cudaEvent_t a, b;
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
        auto run = [&](const char *name, bool global, auto sort) {
            float best = 1e9f;
            for (int r = 0; r < 4; r++) {
                CK(cudaMemcpy(k0, (global ? tiled : col).data(), nnz * 4, cudaMemcpyHostToDevice));
                CK(cudaMemcpy(v0, ent.data(), nnz * 4, cudaMemcpyHostToDevice));
                K = cub::DoubleBuffer<unsigned>(k0, k1);
                V = cub::DoubleBuffer<unsigned>(v0, v1);
                CK(cudaEventRecord(a));
                CK(sort());
                CK(cudaEventRecord(b));
                CK(cudaEventSynchronize(b));
                float ms;
                CK(cudaEventElapsedTime(&ms, a, b));
                best = std::min(best, ms);
            }
            std::vector<unsigned> rk(nnz), rv(nnz);
            CK(cudaMemcpy(rk.data(), K.Current(), nnz * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(rv.data(), V.Current(), nnz * 4, cudaMemcpyDeviceToHost));
            long bad = 0;
            for (int t = 0; t < T; t++)
                for (long i = off[t]; i < off[t + 1]; i++) {
                    const bool inside = rv[i] >= (unsigned)off[t] && rv[i] < (unsigned)off[t + 1];
                    const bool ordered =
                        i + 1 == off[t + 1] || (rk[i] & 0xffff) < (rk[i + 1] & 0xffff) ||
                        ((rk[i] & 0xffff) == (rk[i + 1] & 0xffff) && rv[i] < rv[i + 1]);
                    bad += !inside || !ordered;
                }
            printf("%ld pairs, %d tiles: %-36s %.3f ms, bad %ld\n", nnz, T, name, best, bad);
        };
        run("global radix, 24 bits (the setup's)", true,
            [&] { return cub::DeviceRadixSort::SortPairs(tmp, b1, K, V, (int)nnz, 0, 24); });
        run("global radix, 25 bits", true,
            [&] { return cub::DeviceRadixSort::SortPairs(tmp, b1, K, V, (int)nnz, 0, 25); });
        run("segmented radix, 16 bits", false, [&] {
            return cub::DeviceSegmentedRadixSort::SortPairs(tmp, b2, K, V, (int)nnz, T, doff,
                                                            doff + 1, 0, 16);
        });
        run("segmented radix, 15 bits", false, [&] {
            return cub::DeviceSegmentedRadixSort::SortPairs(tmp, b2, K, V, (int)nnz, T, doff,
                                                            doff + 1, 0, 15);
        });
        run("segmented stable sort", false, [&] {
            return cub::DeviceSegmentedSort::StableSortPairs(tmp, b3, K, V, (int)nnz, T, doff,
                                                             doff + 1);
        });
        CK(cudaFree(k0));
        CK(cudaFree(k1));
        CK(cudaFree(v0));
        CK(cudaFree(v1));
        CK(cudaFree(doff));
        CK(cudaFree(tmp));
    }
    return 0;
}
