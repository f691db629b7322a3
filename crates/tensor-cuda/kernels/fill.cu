// Fill: every element of a buffer set to one value (how constants are made on the device).

#include "common.cuh"

// x[i] = value for i < n.
extern "C" __global__ void fill_f32(float* x, u64 n, float value) {
    FOR_EACH(i, n) { x[i] = value; }
}
