// Fused kernels of the training hot path: bias + activation, activation backward, loss with
// its gradient, and optimizer updates. Each one is a single pass over its buffers and follows
// the default composition in tensor-core (fused.rs) operation for operation.

#include "common.cuh"

// z[r, c] += bias[c]; out[r, c] = act(z[r, c]) for a rows x cols matrix.
extern "C" __global__ void bias_act(float* z, const float* bias, u64 rows, u64 cols, int act,
                                    float p, float* out) {
    u64 n = rows * cols;
    u64 first = GRID_START;
    if (first >= n) {
        return;
    }
    u64 stride = GRID_STRIDE;
    u64 c = first % cols;
    u64 dc = stride % cols;
    for (u64 i = first; i < n; i += stride) {
        float v = z[i] + bias[c];
        z[i] = v;
        out[i] = act_forward(act, p, v);
        c += dc;
        if (c >= cols) {
            c -= cols;
        }
    }
}

// grad_z[i] = grad_out[i] * act'(z[i]).
extern "C" __global__ void act_backward(const float* grad_out, const float* z, u64 n, int act,
                                        float p, float* grad_z) {
    FOR_EACH(i, n) { grad_z[i] = grad_out[i] * act_derivative(act, p, z[i]); }
}

// Mean squared error: grad[i] = (pred[i] - target[i]) * grad_scale; the block's sum of squared
// differences goes to partials[blockIdx.x] (the host reduces the partials into the loss).
extern "C" __global__ void loss_mse(const float* pred, const float* target, u64 n,
                                    float grad_scale, float* grad, float* partials) {
    __shared__ float scratch[32];
    float acc = 0.0f;
    FOR_EACH(i, n) {
        float d = pred[i] - target[i];
        grad[i] = d * grad_scale;
        acc += d * d;
    }
    acc = block_sum(acc, scratch);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = acc;
    }
}

// Binary cross-entropy on logits: loss terms softplus(z) - z * y, gradient
// (sigmoid(z) - y) * grad_scale; the block's sum of loss terms goes to partials[blockIdx.x].
extern "C" __global__ void loss_bce(const float* pred, const float* target, u64 n,
                                    float grad_scale, float* grad, float* partials) {
    __shared__ float scratch[32];
    float acc = 0.0f;
    FOR_EACH(i, n) {
        float z = pred[i];
        float y = target[i];
        acc += softplus_f32(z) - z * y;
        grad[i] = (sigmoid_f32(z) - y) * grad_scale;
    }
    acc = block_sum(acc, scratch);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = acc;
    }
}

// Softmax cross-entropy over each row of a rows x cols matrix, one warp per row:
// grad = (softmax(pred) - target) * grad_scale; the block's sum of target * log-softmax goes
// to partials[blockIdx.x] (the host divides by -rows).
extern "C" __global__ void loss_softmax_ce(const float* pred, const float* target, u64 rows,
                                           u64 cols, float grad_scale, float* grad,
                                           float* partials) {
    __shared__ float scratch[32];
    u64 warps_per_block = blockDim.x >> 5;
    u64 warp = (u64)blockIdx.x * warps_per_block + (threadIdx.x >> 5);
    u64 total_warps = (u64)gridDim.x * warps_per_block;
    u32 lane = threadIdx.x & 31;
    float acc = 0.0f;
    for (u64 row = warp; row < rows; row += total_warps) {
        const float* p = pred + row * cols;
        const float* t = target + row * cols;
        float* g = grad + row * cols;
        float m = -inf_f32();
        for (u64 c = lane; c < cols; c += 32) {
            m = fmaxf(m, p[c]);
        }
        m = warp_max(m);
        float s = 0.0f;
        for (u64 c = lane; c < cols; c += 32) {
            s += expf(p[c] - m);
        }
        s = warp_sum(s);
        float log_s = logf(s);
        for (u64 c = lane; c < cols; c += 32) {
            float shifted = p[c] - m;
            g[c] = (expf(shifted) / s - t[c]) * grad_scale;
            acc += (shifted - log_s) * t[c];
        }
    }
    acc = block_sum(acc, scratch);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = acc;
    }
}

// One Adam (decoupled == 0: L2 decay added to the gradient) or AdamW (decoupled: the
// parameter shrinks by decay_factor = 1 - lr * weight_decay) step:
//   m = beta1 m + (1 - beta1) g;  v = beta2 v + (1 - beta2) g^2;
//   param -= step_size * m / (sqrt(v * inv_bias_correction2) + eps),
// with step_size = lr / (1 - beta1^t) and inv_bias_correction2 = 1 / (1 - beta2^t). The
// moment is divided before it is scaled: a subnormal m times step_size would round to the
// subnormal grid, an error that the division by eps (1e-8) then lifts far above the least
// normal float; m / denom is normal and keeps m's own precision.
extern "C" __global__ void adam_step(float* param, const float* grad, float* m, float* v,
                                     u64 n, float beta1, float beta2, float one_minus_beta1,
                                     float one_minus_beta2, float eps, float weight_decay,
                                     int decoupled, float decay_factor,
                                     float inv_bias_correction2, float step_size) {
    FOR_EACH(i, n) {
        float g = grad[i];
        float p = param[i];
        if (weight_decay != 0.0f) {
            if (decoupled) {
                p = p * decay_factor;
            } else {
                g = g + p * weight_decay;
            }
        }
        float mi = m[i] * beta1 + g * one_minus_beta1;
        float vi = v[i] * beta2 + (g * g) * one_minus_beta2;
        m[i] = mi;
        v[i] = vi;
        float denom = sqrtf(vi * inv_bias_correction2) + eps;
        param[i] = p - (mi / denom) * step_size;
    }
}

// One SGD step with L2 weight decay and, when `velocity` is given, (Nesterov) momentum:
//   g += weight_decay * param;  vel = momentum * vel + g;  g = nesterov ? g + momentum * vel
//   : vel;  param -= lr * g.
extern "C" __global__ void sgd_step(float* param, const float* grad, float* velocity, u64 n,
                                    float lr, float momentum, int nesterov,
                                    float weight_decay) {
    FOR_EACH(i, n) {
        float g = grad[i];
        float p = param[i];
        if (weight_decay != 0.0f) {
            g = g + p * weight_decay;
        }
        if (velocity != 0) {
            float vel = velocity[i] * momentum + g;
            velocity[i] = vel;
            g = nesterov ? g + vel * momentum : vel;
        }
        param[i] = p - g * lr;
    }
}
