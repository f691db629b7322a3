// Reductions of a tensor seen as `outer x len x inner` along its middle axis.
//
// Block-level trees: each thread folds a strided part of its slice sequentially, then the
// block combines the threads' values with warp shuffles and shared memory.
// - reduce_rows_warp: inner == 1 and short rows, one warp per row.
// - reduce_rows_block: inner == 1 and long rows, one block per (row, chunk).
// - reduce_cols: inner > 1, a block of bx x by threads (bx * by == 256) per (outer, chunk)
//   and tile of bx consecutive inner positions, so that loads are coalesced.
// When the output alone gives too few blocks to fill the device, the host splits the axis
// into `chunks` pieces: the first pass writes one partial (value and index) per piece, laid
// out `outer x chunks x inner`, and a second pass reduces those into the output. With
// chunks == 1 a kernel writes the final result (Mean divides by `divisor`; ArgMax/ArgMin
// write the index as f32, the first index on ties). NaN wins, as in PyTorch: Max and Min of
// values holding a NaN are NaN, and ArgMax and ArgMin point at the first NaN.

#include "common.cuh"

#define RED_SUM 0
#define RED_MEAN 1
#define RED_MAX 2
#define RED_MIN 3
#define RED_ARGMAX 4
#define RED_ARGMIN 5
#define NO_INDEX 0xffffffffu

struct Acc {
    float v;
    u32 i;
};

__device__ __forceinline__ Acc make_acc(float v, u32 i) {
    Acc a;
    a.v = v;
    a.i = i;
    return a;
}

__device__ __forceinline__ Acc acc_identity(int op) {
    if (op == RED_MAX || op == RED_ARGMAX) {
        return make_acc(-inf_f32(), NO_INDEX);
    }
    if (op == RED_MIN || op == RED_ARGMIN) {
        return make_acc(inf_f32(), NO_INDEX);
    }
    return make_acc(0.0f, NO_INDEX);
}

// Of two partial arg results (both with an index), the one to keep: a NaN beats any number
// and the earlier of two NaNs wins; otherwise `b_beats` decides and the smaller index wins
// a tie.
__device__ __forceinline__ Acc arg_pick(bool b_beats, Acc a, Acc b) {
    bool a_nan = a.v != a.v;
    bool b_nan = b.v != b.v;
    bool take_b;
    if (a_nan || b_nan) {
        take_b = b_nan && (!a_nan || b.i < a.i);
    } else {
        take_b = b_beats || (b.v == a.v && b.i < a.i);
    }
    return take_b ? b : a;
}

// Combines two partial results; NaN wins, and arg reductions keep the smaller index on ties.
__device__ __forceinline__ Acc acc_combine(int op, Acc a, Acc b) {
    switch (op) {
    case RED_MAX:
        return a.v != a.v ? a : (b.v != b.v ? b : make_acc(fmaxf(a.v, b.v), a.i));
    case RED_MIN:
        return a.v != a.v ? a : (b.v != b.v ? b : make_acc(fminf(a.v, b.v), a.i));
    case RED_ARGMAX:
        if (b.i == NO_INDEX) {
            return a;
        }
        if (a.i == NO_INDEX) {
            return b;
        }
        return arg_pick(b.v > a.v, a, b);
    case RED_ARGMIN:
        if (b.i == NO_INDEX) {
            return a;
        }
        if (a.i == NO_INDEX) {
            return b;
        }
        return arg_pick(b.v < a.v, a, b);
    default:
        return make_acc(a.v + b.v, a.i);
    }
}

// Element `offset` of the input: a raw value at axis position `l`, or a partial result with
// its own index when `xi` is given.
__device__ __forceinline__ Acc acc_load(const float* xv, const u32* xi, u64 offset, u64 l) {
    return make_acc(xv[offset], xi != 0 ? xi[offset] : (u32)l);
}

__device__ __forceinline__ float acc_finish(int op, Acc a, float divisor) {
    if (op == RED_ARGMAX || op == RED_ARGMIN) {
        return a.i == NO_INDEX ? 0.0f : (float)a.i;
    }
    return a.v / divisor;
}

// Combines the values of a warp; the result is valid in lane 0.
__device__ __forceinline__ Acc warp_reduce(int op, Acc a) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        Acc b = make_acc(__shfl_down_sync(0xffffffffu, a.v, offset),
                         __shfl_down_sync(0xffffffffu, a.i, offset));
        a = acc_combine(op, a, b);
    }
    return a;
}

// Combines the values of a one-dimensional block (a multiple of 32 threads); the result is
// valid in thread 0. Synchronises before returning so the scratch space can be reused.
__device__ __forceinline__ Acc block_reduce(int op, Acc a, float* sv, u32* si) {
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    int warps = blockDim.x >> 5;
    a = warp_reduce(op, a);
    if (lane == 0) {
        sv[warp] = a.v;
        si[warp] = a.i;
    }
    __syncthreads();
    if (warp == 0) {
        Acc b = lane < warps ? make_acc(sv[lane], si[lane]) : acc_identity(op);
        a = warp_reduce(op, b);
    }
    __syncthreads();
    return a;
}

// inner == 1, one warp per row: out[row] = reduce(x[row, 0..len]).
extern "C" __global__ void reduce_rows_warp(const float* xv, const u32* xi, float* out,
                                            u64 rows, u64 len, int op, float divisor) {
    u64 warps_per_block = blockDim.x >> 5;
    u64 warp = (u64)blockIdx.x * warps_per_block + (threadIdx.x >> 5);
    u64 total_warps = (u64)gridDim.x * warps_per_block;
    u32 lane = threadIdx.x & 31;
    for (u64 row = warp; row < rows; row += total_warps) {
        Acc a = acc_identity(op);
        u64 base = row * len;
        for (u64 l = lane; l < len; l += 32) {
            a = acc_combine(op, a, acc_load(xv, xi, base + l, l));
        }
        a = warp_reduce(op, a);
        if (lane == 0) {
            out[row] = acc_finish(op, a, divisor);
        }
    }
}

// inner == 1, one block per (row, chunk): the chunk's result goes to outv/outi[row * chunks
// + chunk] when chunks > 1, else the final result to outv[row].
extern "C" __global__ void reduce_rows_block(const float* xv, const u32* xi, float* outv,
                                             u32* outi, u64 rows, u64 len, u64 chunk,
                                             u64 chunks, int op, float divisor) {
    __shared__ float sv[32];
    __shared__ u32 si[32];
    u64 units = rows * chunks;
    for (u64 u = blockIdx.x; u < units; u += gridDim.x) {
        u64 row = u / chunks;
        u64 begin = (u % chunks) * chunk;
        u64 end = begin + chunk < len ? begin + chunk : len;
        u64 base = row * len;
        Acc a = acc_identity(op);
        for (u64 l = begin + threadIdx.x; l < end; l += blockDim.x) {
            a = acc_combine(op, a, acc_load(xv, xi, base + l, l));
        }
        a = block_reduce(op, a, sv, si);
        if (threadIdx.x == 0) {
            if (chunks > 1) {
                outv[u] = a.v;
                if (outi != 0) {
                    outi[u] = a.i;
                }
            } else {
                outv[row] = acc_finish(op, a, divisor);
            }
        }
    }
}

// inner > 1: blocks of blockDim.x x blockDim.y == 256 threads (blockDim.y a power of two).
// Thread (tx, ty) folds positions ty, ty + by, ... of its chunk of the axis at inner position
// tile * bx + tx; a shared-memory tree over ty combines them. The chunk's results go to
// outv/outi[(o * chunks + chunk) * inner + i] when chunks > 1, else the final result to
// outv[o * inner + i].
extern "C" __global__ void reduce_cols(const float* xv, const u32* xi, float* outv, u32* outi,
                                       u64 outer, u64 len, u64 inner, u64 chunk, u64 chunks,
                                       int op, float divisor) {
    __shared__ float sv[256];
    __shared__ u32 si[256];
    u32 bx = blockDim.x;
    u32 by = blockDim.y;
    u32 tx = threadIdx.x;
    u32 ty = threadIdx.y;
    u32 t = ty * bx + tx;
    u64 tiles = (inner + bx - 1) / bx;
    u64 units = outer * chunks;
    for (u64 u = blockIdx.y; u < units; u += gridDim.y) {
        u64 o = u / chunks;
        u64 ch = u % chunks;
        u64 begin = ch * chunk;
        u64 end = begin + chunk < len ? begin + chunk : len;
        for (u64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
            u64 i = tile * bx + tx;
            Acc a = acc_identity(op);
            if (i < inner) {
                for (u64 l = begin + ty; l < end; l += by) {
                    a = acc_combine(op, a, acc_load(xv, xi, (o * len + l) * inner + i, l));
                }
            }
            sv[t] = a.v;
            si[t] = a.i;
            __syncthreads();
            for (u32 s = by >> 1; s > 0; s >>= 1) {
                if (ty < s) {
                    Acc c = acc_combine(op, make_acc(sv[t], si[t]),
                                        make_acc(sv[t + s * bx], si[t + s * bx]));
                    sv[t] = c.v;
                    si[t] = c.i;
                }
                __syncthreads();
            }
            if (ty == 0 && i < inner) {
                if (chunks > 1) {
                    u64 p = (o * chunks + ch) * inner + i;
                    outv[p] = sv[tx];
                    if (outi != 0) {
                        outi[p] = si[tx];
                    }
                } else {
                    outv[o * inner + i] = acc_finish(op, make_acc(sv[tx], si[tx]), divisor);
                }
            }
            __syncthreads();
        }
    }
}
