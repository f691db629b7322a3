// Element-wise unary operations (UnaryOp in tensor-core), out of place or in place.

#include "common.cuh"

// out[i] = op(x[i]) for i < n; `out` may be `x` (in place). `act`, `p0` and `p1` are the
// operation's parameters, see unary_apply in common.cuh.
extern "C" __global__ void unary_f32(const float* x, float* out, u64 n, int op, int act,
                                     float p0, float p1) {
    FOR_EACH(i, n) { out[i] = unary_apply(op, act, p0, p1, x[i]); }
}
