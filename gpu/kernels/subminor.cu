// Högbom's iterations on an active set of pixels (uvlab.gpu.deconvolution.subminor;
// WSClean's sub-minor loop). One thread block runs the whole loop:
//
//   per iteration: block argmax of |vals| (the lowest index among equal values, as
//   numpy.argmax), thread 0 records peak, component and flux, then every thread
//   subtracts flux * psf[jj[a] - jj[t] + P/2, ii[a] - ii[t] + P/2] from its pixels a
//   where the PSF index lies inside it.
//
// It stops when the peak is not above `stop` (first iteration) or `level` (later),
// is above `limit` (diverging) or not finite, or after `nmax` iterations;
// peaks[0..m] holds the peak before each iteration and where it stopped, count[0] = m.
// The subtraction rounds product and difference separately, as NumPy does.

#define SUBMINOR_THREADS 1024

__device__ __forceinline__ void better(double& v, int& i, double ov, int oi) {
    if (oi >= 0 && (ov > v || (ov == v && (i < 0 || oi < i)))) {
        v = ov;
        i = oi;
    }
}

__global__ void subminor_loop(double* __restrict__ vals, const int* __restrict__ jj,
                              const int* __restrict__ ii, int K,
                              const double* __restrict__ psf, int P, double gain,
                              int nmax, double level, double stop, double limit,
                              int* __restrict__ sel, double* __restrict__ flux,
                              double* __restrict__ peaks, int* __restrict__ count) {
    __shared__ double w_val[SUBMINOR_THREADS / 32];
    __shared__ int w_idx[SUBMINOR_THREADS / 32];
    __shared__ int s_go, s_t;
    __shared__ double s_f;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int nwarps = blockDim.x >> 5;
    const int c = P / 2;
    for (int it = 0; it <= nmax; ++it) {
        double best = -1.0;
        int bi = -1;
        for (int a = threadIdx.x; a < K; a += blockDim.x) better(best, bi, fabs(vals[a]), a);
        for (int off = 16; off > 0; off >>= 1) {
            double ov = __shfl_down_sync(0xffffffffu, best, off);
            int oi = __shfl_down_sync(0xffffffffu, bi, off);
            better(best, bi, ov, oi);
        }
        if (lane == 0) {
            w_val[warp] = best;
            w_idx[warp] = bi;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int w = 1; w < nwarps; ++w) better(best, bi, w_val[w], w_idx[w]);
            double floor = it == 0 ? stop : level;
            peaks[it] = best;
            int go = (it < nmax) && (best > floor) && (best <= limit);
            if (go) {
                s_t = bi;
                s_f = gain * vals[bi];
                sel[it] = bi;
                flux[it] = s_f;
            } else {
                count[0] = it;
            }
            s_go = go;
        }
        __syncthreads();
        if (!s_go) return;
        const int t = s_t, tj = jj[t], ti = ii[t];
        const double f = s_f;
        for (int a = threadIdx.x; a < K; a += blockDim.x) {
            int dr = jj[a] - tj + c, dc = ii[a] - ti + c;
            if (dr >= 0 && dr < P && dc >= 0 && dc < P) {
                vals[a] = __dsub_rn(vals[a], __dmul_rn(f, psf[(long long)dr * P + dc]));
            }
        }
        __syncthreads();
    }
}
