// G-Jones on the GPU (uvlab.gpu.predict.cuda_gains; NumPy reference gains.apply_gains):
//   V_pq(t, c) <- G_p(t, c) V_pq(t, c) G_q(t, c)^H   for every time, baseline, channel,
// in place. One thread per (t, b, c); vis (time, bl, chan[, 2, 2]) and gains
// (gtime, nant, chan[, 2, 2]) complex as interleaved (re, im) pairs of T; gtime 1 means
// constant gains. NPOL = 4: 2x2 visibilities; GJ = 4: 2x2 gains, 1: scalar gains.

template <typename T> struct C { T re, im; };

template <typename T> __device__ __forceinline__ C<T> mul(C<T> a, C<T> b) {
    return C<T>{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <typename T> __device__ __forceinline__ C<T> mulc(C<T> a, C<T> b) {  // a * conj(b)
    return C<T>{a.re * b.re + a.im * b.im, a.im * b.re - a.re * b.im};
}
template <typename T> __device__ __forceinline__ C<T> add(C<T> a, C<T> b) {
    return C<T>{a.re + b.re, a.im + b.im};
}

template <typename T, int NPOL, int GJ>
__global__ void apply_gains(C<T>* __restrict__ vis, const C<T>* __restrict__ g,
                            const long long* __restrict__ p, const long long* __restrict__ q,
                            long long n, int nbl, int nchan, int nant, int gtime) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int c = (int)(i % nchan);
    const long long tb = i / nchan;
    const int b = (int)(tb % nbl);
    const long long t = gtime == 1 ? 0 : tb / nbl;
    const C<T>* gp = g + ((t * nant + p[b]) * nchan + c) * GJ;
    const C<T>* gq = g + ((t * nant + q[b]) * nchan + c) * GJ;
    C<T>* v = vis + i * NPOL;
    if (GJ == 1) {
        const C<T> f = mulc(gp[0], gq[0]);
#pragma unroll
        for (int k = 0; k < NPOL; ++k) v[k] = mul(f, v[k]);
        return;
    }
    // M = G_p V, then V' = M G_q^H with (G_q^H)_kl = conj(G_q,lk)
    C<T> m[4];
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
        for (int k = 0; k < 2; ++k)
            m[2 * r + k] = add(mul(gp[2 * r], v[k]), mul(gp[2 * r + 1], v[2 + k]));
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
        for (int k = 0; k < 2; ++k)
            v[2 * r + k] = add(mulc(m[2 * r], gq[2 * k]), mulc(m[2 * r + 1], gq[2 * k + 1]));
}
