// Element-wise binary operations (BinaryOp in tensor-core) with numpy broadcasting.
//
// The host collapses the broadcast into as few dimensions as possible and picks a kernel:
// binary_same when both operands have the output's layout, binary_2d for at most two
// (collapsed) dimensions with any strides (row and column broadcasts, scalars), binary_nd for
// up to 8 dimensions. `out` may alias `a` (in-place assignment).

#include "common.cuh"

#define BIN_ADD 0
#define BIN_SUB 1
#define BIN_MUL 2
#define BIN_DIV 3
#define BIN_MAXIMUM 4
#define BIN_MINIMUM 5
#define BIN_POW 6
#define BIN_GT 7
#define BIN_GE 8
#define BIN_LT 9
#define BIN_LE 10
#define BIN_EQ 11

#define MAX_DIMS 8

__device__ __forceinline__ float mask_f32(bool c) { return c ? 1.0f : 0.0f; }

__device__ __forceinline__ float binary_apply(int op, float a, float b) {
    switch (op) {
    case BIN_ADD:
        return a + b;
    case BIN_SUB:
        return a - b;
    case BIN_MUL:
        return a * b;
    case BIN_DIV:
        return a / b;
    // NaN when either is NaN, as torch.maximum and torch.minimum (fmaxf and fminf would
    // drop it).
    case BIN_MAXIMUM:
        return (a > b || a != a) ? a : b;
    case BIN_MINIMUM:
        return (a < b || a != a) ? a : b;
    case BIN_POW:
        return powf(a, b);
    case BIN_GT:
        return mask_f32(a > b);
    case BIN_GE:
        return mask_f32(a >= b);
    case BIN_LT:
        return mask_f32(a < b);
    case BIN_LE:
        return mask_f32(a <= b);
    case BIN_EQ:
        return mask_f32(a == b);
    default:
        return nan_f32();
    }
}

// out[i] = op(a[i], b[i]) for i < n.
extern "C" __global__ void binary_same(const float* a, const float* b, float* out, u64 n,
                                       int op) {
    FOR_EACH(i, n) { out[i] = binary_apply(op, a[i], b[i]); }
}

// out[r * cols + c] = op(a[r * a_rs + c * a_cs], b[r * b_rs + c * b_cs]) for r < rows,
// c < cols. A stride of 0 broadcasts the operand along that dimension. Each thread divides
// once to find its first (r, c) and then steps its coordinates without dividing.
extern "C" __global__ void binary_2d(const float* a, const float* b, float* out, u64 rows,
                                     u64 cols, u64 a_rs, u64 a_cs, u64 b_rs, u64 b_cs,
                                     int op) {
    u64 n = rows * cols;
    u64 start = GRID_START;
    if (start >= n) {
        return;
    }
    u64 stride = GRID_STRIDE;
    u64 r = start / cols;
    u64 c = start % cols;
    u64 dr = stride / cols;
    u64 dc = stride % cols;
    for (u64 i = start; i < n; i += stride) {
        out[i] = binary_apply(op, a[r * a_rs + c * a_cs], b[r * b_rs + c * b_cs]);
        c += dc;
        r += dr;
        if (c >= cols) {
            c -= cols;
            r += 1;
        }
    }
}

// The collapsed broadcast of the general kernel: output dimensions, innermost first, and the
// element strides of each operand along them (0 where it is broadcast); `rank` of the 8
// entries are used.
struct NdLayout {
    u64 dims[MAX_DIMS];
    u64 a_strides[MAX_DIMS];
    u64 b_strides[MAX_DIMS];
    u64 rank;
};

// out[i] = op(a[..], b[..]) for i < n, with the operands' offsets found from the
// coordinates of i in `layout.dims`.
extern "C" __global__ void binary_nd(const float* a, const float* b, float* out, u64 n,
                                     NdLayout layout, int op) {
    FOR_EACH(i, n) {
        u64 rest = i;
        u64 ao = 0;
        u64 bo = 0;
#pragma unroll
        for (int d = 0; d < MAX_DIMS; ++d) {
            if ((u64)d < layout.rank) {
                u64 dim = layout.dims[d];
                u64 coord = rest % dim;
                rest /= dim;
                ao += coord * layout.a_strides[d];
                bo += coord * layout.b_strides[d];
            }
        }
        out[i] = binary_apply(op, a[ao], b[bo]);
    }
}
