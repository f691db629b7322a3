// Copies between matrices: a block of columns into a wider matrix, and the transpose.

#include "common.cuh"

#define TILE 32
#define TILE_ROWS 8

// dst[r, col_offset + c] = src[r, c] for r < rows, c < src_cols; dst has dst_cols columns.
extern "C" __global__ void copy_block(const float* src, u64 src_cols, float* dst,
                                      u64 dst_cols, u64 col_offset, u64 rows) {
    u64 n = rows * src_cols;
    u64 first = GRID_START;
    if (first >= n) {
        return;
    }
    u64 stride = GRID_STRIDE;
    u64 r = first / src_cols;
    u64 c = first % src_cols;
    u64 dr = stride / src_cols;
    u64 dc = stride % src_cols;
    for (u64 i = first; i < n; i += stride) {
        dst[r * dst_cols + col_offset + c] = src[i];
        c += dc;
        r += dr;
        if (c >= src_cols) {
            c -= src_cols;
            r += 1;
        }
    }
}

// dst (cols x rows) = transpose of src (rows x cols), through 32 x 32 tiles of shared memory
// (padded against bank conflicts) so that reads and writes are both coalesced. Blocks are
// TILE x TILE_ROWS threads; the grid may be smaller than the tile count in either direction.
extern "C" __global__ void transpose_f32(const float* src, u64 rows, u64 cols, float* dst) {
    __shared__ float tile[TILE][TILE + 1];
    u64 tiles_r = (rows + TILE - 1) / TILE;
    u64 tiles_c = (cols + TILE - 1) / TILE;
    for (u64 tr = blockIdx.y; tr < tiles_r; tr += gridDim.y) {
        for (u64 tc = blockIdx.x; tc < tiles_c; tc += gridDim.x) {
            u64 c = tc * TILE + threadIdx.x;
            for (u32 j = threadIdx.y; j < TILE; j += TILE_ROWS) {
                u64 r = tr * TILE + j;
                if (r < rows && c < cols) {
                    tile[j][threadIdx.x] = src[r * cols + c];
                }
            }
            __syncthreads();
            u64 r_out = tr * TILE + threadIdx.x;
            for (u32 j = threadIdx.y; j < TILE; j += TILE_ROWS) {
                u64 c_out = tc * TILE + j;
                if (c_out < cols && r_out < rows) {
                    dst[c_out * rows + r_out] = tile[threadIdx.x][j];
                }
            }
            __syncthreads();
        }
    }
}
