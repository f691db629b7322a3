// The multiresolution hash-grid encoding (tensor_core::hashgrid): forward lookup with d-linear
// interpolation, and the backward scatter of feature gradients into the tables (atomics).
//
// One thread per (point, level): blockIdx.y is the level, points are spread over x with a
// grid-stride loop. Every step follows tensor_core::hashgrid::LevelConsts::cell operation for
// operation (with --fmad=false), so the forward pass gives the CPU's results bit for bit.

#include "common.cuh"

#define HG_MAX_LEVELS 32

// Per-level constants, passed by value (HashGridParams in
// crates/tensor-cuda/src/ops/hashgrid.rs; the two layouts must match).
struct HashGridParams {
    u64 offset[HG_MAX_LEVELS];   // first table entry (row) of the level
    float scale[HG_MAX_LEVELS];  // resolution, as a float
    u32 last_cell[HG_MAX_LEVELS];  // resolution - 1
    u32 side[HG_MAX_LEVELS];     // resolution + 1: entry step along axis 1 of direct levels
    u32 mask[HG_MAX_LEVELS];     // table size - 1 (hashed levels: T is a power of two)
    u32 hashed;                  // bit l: level l is hashed
    u32 levels;
    u32 dims;
    u32 features;
};

#define HG_PRIME_1 2654435761u
#define HG_PRIME_2 805459861u

// The 2^D corners of the cell of point x at level l: entries within the level, and weights.
template <int D>
__device__ __forceinline__ void hg_cell(const HashGridParams& prm, u32 l, const float* x,
                                        u32* entries, float* weights) {
    u32 lo[3];
    float w[3];
#pragma unroll
    for (int k = 0; k < D; ++k) {
        float xk = x[k];
        // Clamp to [0, 1], keeping NaN (fminf/fmaxf would turn it into a bound).
        float xc = xk != xk ? xk : fminf(fmaxf(xk, 0.0f), 1.0f);
        float p = xc * prm.scale[l];
        // NaN converts to 0, as Rust's saturating `as` does; the weight stays NaN.
        u32 i = min((u32)p, prm.last_cell[l]);
        lo[k] = i;
        w[k] = p - (float)i;
    }
    bool hashed = (prm.hashed >> l) & 1u;
    u32 side = prm.side[l];
    u32 stride[3] = {1u, side, side * side};
    u32 primes[3] = {1u, HG_PRIME_1, HG_PRIME_2};
#pragma unroll
    for (int c = 0; c < (1 << D); ++c) {
        float weight = 1.0f;
        u32 entry = 0;
#pragma unroll
        for (int k = 0; k < D; ++k) {
            bool up = (c >> k) & 1;
            u32 ik = lo[k] + (up ? 1u : 0u);
            float factor = up ? w[k] : 1.0f - w[k];
            weight = k == 0 ? factor : weight * factor;
            entry = hashed ? (entry ^ (ik * primes[k])) : (entry + ik * stride[k]);
        }
        entries[c] = hashed ? (entry & prm.mask[l]) : entry;
        weights[c] = weight;
    }
}

template <int D>
__device__ __forceinline__ void hg_forward(const float* points, const float* tables, u64 n,
                                           u64 point_step, u64 feature_step,
                                           const HashGridParams& prm, float* out) {
    u32 l = blockIdx.y;
    u32 nf = prm.features;
    u64 offset = prm.offset[l];
    float* level_out = out + (u64)l * nf * feature_step;
    FOR_EACH(p, n) {
        u32 entries[1 << D];
        float weights[1 << D];
        hg_cell<D>(prm, l, points + p * D, entries, weights);
        float acc[8];
#pragma unroll
        for (int f = 0; f < 8; ++f) {
            acc[f] = 0.0f;
        }
#pragma unroll
        for (int c = 0; c < (1 << D); ++c) {
            const float* row = tables + (offset + entries[c]) * nf;
#pragma unroll
            for (int f = 0; f < 8; ++f) {
                if (f < nf) {
                    acc[f] += weights[c] * row[f];
                }
            }
        }
#pragma unroll
        for (int f = 0; f < 8; ++f) {
            if (f < nf) {
                level_out[p * point_step + f * feature_step] = acc[f];
            }
        }
    }
}

template <int D>
__device__ __forceinline__ void hg_backward(const float* points, const float* grad, u64 n,
                                            u64 point_step, u64 feature_step,
                                            const HashGridParams& prm, float* grad_tables) {
    u32 l = blockIdx.y;
    u32 nf = prm.features;
    u64 offset = prm.offset[l];
    const float* level_grad = grad + (u64)l * nf * feature_step;
    FOR_EACH(p, n) {
        u32 entries[1 << D];
        float weights[1 << D];
        hg_cell<D>(prm, l, points + p * D, entries, weights);
        float g[8];
#pragma unroll
        for (int f = 0; f < 8; ++f) {
            g[f] = f < nf ? level_grad[p * point_step + f * feature_step] : 0.0f;
        }
#pragma unroll
        for (int c = 0; c < (1 << D); ++c) {
            float* row = grad_tables + (offset + entries[c]) * nf;
#pragma unroll
            for (int f = 0; f < 8; ++f) {
                if (f < nf) {
                    atomicAdd(row + f, weights[c] * g[f]);
                }
            }
        }
    }
}

// Features of n points (points: n x dims) into out, feature f of level l of point p at
// out[p * point_step + (l * features + f) * feature_step]. Grid: (blocks, levels).
extern "C" __global__ void hashgrid_forward(const float* points, const float* tables, u64 n,
                                            u64 point_step, u64 feature_step,
                                            HashGridParams prm, float* out) {
    if (blockIdx.y >= prm.levels) {
        return;
    }
    switch (prm.dims) {
        case 1:
            hg_forward<1>(points, tables, n, point_step, feature_step, prm, out);
            break;
        case 2:
            hg_forward<2>(points, tables, n, point_step, feature_step, prm, out);
            break;
        default:
            hg_forward<3>(points, tables, n, point_step, feature_step, prm, out);
            break;
    }
}

// Adds the scatter of the feature gradient (laid out as hashgrid_forward's out) into
// grad_tables. Grid: (blocks, levels).
extern "C" __global__ void hashgrid_backward(const float* points, const float* grad, u64 n,
                                             u64 point_step, u64 feature_step,
                                             HashGridParams prm, float* grad_tables) {
    if (blockIdx.y >= prm.levels) {
        return;
    }
    switch (prm.dims) {
        case 1:
            hg_backward<1>(points, grad, n, point_step, feature_step, prm, grad_tables);
            break;
        case 2:
            hg_backward<2>(points, grad, n, point_step, feature_step, prm, grad_tables);
            break;
        default:
            hg_backward<3>(points, grad, n, point_step, feature_step, prm, grad_tables);
            break;
    }
}
