// Row gather: the rows of a matrix picked by an index buffer (mini-batches, shuffles).

#include "common.cuh"

// dst[r, c] = src[index[start + r], c] for r < count, c < cols. The host checks the indices
// against src_rows; a row out of range here would still only read NaN, never out of bounds.
extern "C" __global__ void gather_rows(const float* src, u64 src_rows, u64 cols,
                                       const u32* index, u64 start, u64 count, float* dst) {
    u64 n = count * cols;
    u64 first = GRID_START;
    if (first >= n) {
        return;
    }
    u64 stride = GRID_STRIDE;
    u64 r = first / cols;
    u64 c = first % cols;
    u64 dr = stride / cols;
    u64 dc = stride % cols;
    for (u64 i = first; i < n; i += stride) {
        u64 row = index[start + r];
        dst[i] = row < src_rows ? src[row * cols + c] : nan_f32();
        c += dc;
        r += dr;
        if (c >= cols) {
            c -= cols;
            r += 1;
        }
    }
}
