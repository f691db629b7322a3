// Device helpers shared by every kernel file: integer types, grid-stride loops, activation
// functions and the element-wise unary operations.
//
// No system header is included, so that nvcc and NVRTC (which has none) both compile it.
// The op codes below mirror the Rust side (crates/tensor-cuda/src/codes.rs); each function
// follows the reference semantics of tensor_core (UnaryOp::apply, Activation::forward and
// Activation::derivative) operation for operation. Kernels are compiled with --fmad=false so
// that `a * b + c` rounds twice, as it does on the CPU.

#ifndef IRON_LEARN_COMMON_CUH
#define IRON_LEARN_COMMON_CUH

typedef unsigned long long u64;
typedef unsigned int u32;

// Activation codes.
#define ACT_IDENTITY 0
#define ACT_SIGMOID 1
#define ACT_TANH 2
#define ACT_RELU 3
#define ACT_LEAKY_RELU 4
#define ACT_SINE 5

// Unary op codes.
#define UN_NEG 0
#define UN_EXP 1
#define UN_LN 2
#define UN_SQRT 3
#define UN_ABS 4
#define UN_SIN 5
#define UN_COS 6
#define UN_POWF 7
#define UN_SQUARE 8
#define UN_RECIP 9
#define UN_CLAMP 10
#define UN_AFFINE 11
#define UN_SOFTPLUS 12
#define UN_STEP 13
#define UN_ACT 14
#define UN_ACT_GRAD 15

// The first index handled by this thread and the distance between its indices.
#define GRID_START ((u64)blockIdx.x * (u64)blockDim.x + (u64)threadIdx.x)
#define GRID_STRIDE ((u64)blockDim.x * (u64)gridDim.x)

// A loop over 0..n spread over every thread of the grid, whatever the grid size.
#define FOR_EACH(i, n) for (u64 i = GRID_START; i < (n); i += GRID_STRIDE)

__device__ __forceinline__ float nan_f32() { return __int_as_float(0x7fc00000); }
__device__ __forceinline__ float inf_f32() { return __int_as_float(0x7f800000); }

// The logistic function, without overflow for inputs of any sign.
__device__ __forceinline__ float sigmoid_f32(float x) {
    if (x >= 0.0f) {
        return 1.0f / (1.0f + expf(-x));
    }
    float e = expf(x);
    return e / (1.0f + e);
}

// ln(1 + e^x) without overflow.
__device__ __forceinline__ float softplus_f32(float x) {
    return fmaxf(x, 0.0f) + log1pf(expf(-fabsf(x)));
}

// An activation applied forward; `p` is alpha (leaky ReLU) or w0 (sine).
__device__ __forceinline__ float act_forward(int act, float p, float x) {
    switch (act) {
    case ACT_SIGMOID:
        return sigmoid_f32(x);
    case ACT_TANH:
        return tanhf(x);
    case ACT_RELU:
        // Not fmaxf(x, 0), which drops NaN: NaN stays NaN, as in torch.relu.
        return x < 0.0f ? 0.0f : x;
    case ACT_LEAKY_RELU:
        return x > 0.0f ? x : p * x;
    case ACT_SINE:
        return sinf(p * x);
    default:
        return x;
    }
}

// The derivative of an activation at the pre-activation `x`.
__device__ __forceinline__ float act_derivative(int act, float p, float x) {
    switch (act) {
    case ACT_SIGMOID: {
        float s = sigmoid_f32(x);
        return s * (1.0f - s);
    }
    case ACT_TANH: {
        float t = tanhf(x);
        return 1.0f - t * t;
    }
    case ACT_RELU:
        return x > 0.0f ? 1.0f : 0.0f;
    case ACT_LEAKY_RELU:
        return x > 0.0f ? 1.0f : p;
    case ACT_SINE:
        return p * cosf(p * x);
    default:
        return 1.0f;
    }
}

// One unary operation; `p0`, `p1` carry its parameters (see the Rust encoder).
__device__ __forceinline__ float unary_apply(int op, int act, float p0, float p1, float x) {
    switch (op) {
    case UN_NEG:
        return -x;
    case UN_EXP:
        return expf(x);
    case UN_LN:
        return logf(x);
    case UN_SQRT:
        return sqrtf(x);
    case UN_ABS:
        return fabsf(x);
    case UN_SIN:
        return sinf(x);
    case UN_COS:
        return cosf(x);
    case UN_POWF:
        return powf(x, p0);
    case UN_SQUARE:
        return x * x;
    case UN_RECIP:
        return 1.0f / x;
    case UN_CLAMP:
        // NaN stays NaN (fminf and fmaxf would drop it), as in torch.clamp.
        return x != x ? x : fminf(fmaxf(x, p0), p1);
    case UN_AFFINE:
        return x * p0 + p1;
    case UN_SOFTPLUS:
        return softplus_f32(x);
    case UN_STEP:
        return x > 0.0f ? 1.0f : 0.0f;
    case UN_ACT:
        return act_forward(act, p0, x);
    case UN_ACT_GRAD:
        return act_derivative(act, p0, x);
    default:
        return nan_f32();
    }
}

// Sum of `v` over the 32 lanes of a warp; every lane gets the result.
__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    }
    return v;
}

// Maximum of `v` over the 32 lanes of a warp; every lane gets the result.
__device__ __forceinline__ float warp_max(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    }
    return v;
}

// Sum of `v` over a block of at most 1024 threads (a multiple of 32); the result is valid in
// thread 0. `scratch` holds 32 floats of shared memory; the function synchronises the block
// before returning, so the scratch space can be reused right after.
__device__ __forceinline__ float block_sum(float v, float* scratch) {
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    int warps = (blockDim.x + 31) >> 5;
    v = warp_sum(v);
    if (lane == 0) {
        scratch[warp] = v;
    }
    __syncthreads();
    if (warp == 0) {
        v = lane < warps ? scratch[lane] : 0.0f;
        v = warp_sum(v);
    }
    __syncthreads();
    return v;
}

#endif
