// Fourier feature encoding of coordinates: [sin(2 pi x B), cos(2 pi x B)].

#include "common.cuh"

#define TAU_F32 6.28318530717958647692f

// For x (rows x d) and frequencies b (d x m): out[r, j] = sin(2 pi (x b)[r, j]) and
// out[r, m + j] = cos(2 pi (x b)[r, j]), out being rows x 2m. One thread per (r, j).
extern "C" __global__ void fourier_features(const float* x, const float* b, u64 rows, u64 d,
                                            u64 m, float* out) {
    u64 n = rows * m;
    u64 first = GRID_START;
    if (first >= n) {
        return;
    }
    u64 stride = GRID_STRIDE;
    u64 r = first / m;
    u64 j = first % m;
    u64 dr = stride / m;
    u64 dj = stride % m;
    for (u64 i = first; i < n; i += stride) {
        float dot = 0.0f;
        for (u64 k = 0; k < d; ++k) {
            dot += x[r * d + k] * b[k * m + j];
        }
        float s;
        float c;
        sincosf(TAU_F32 * dot, &s, &c);
        out[r * 2 * m + j] = s;
        out[r * 2 * m + m + j] = c;
        j += dj;
        r += dr;
        if (j >= m) {
            j -= m;
            r += 1;
        }
    }
}
