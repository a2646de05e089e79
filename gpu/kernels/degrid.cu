// Degridding (uvlab.gpu.gridders.cuda_degrid): the CUDA gridders run backwards.
//
// pad_correct   : the corrected model image placed on a zero (Mv, Mu) real grid,
//                 pixel (j, i) at cell ((j - N/2) mod Mv, (i - N/2) mod Mu), times
//                 cv[j] * cu[i]; one thread per grid cell (the zeros written too).
//                 A forward r2c FFT of it (cuFFT) gives the Hermitian half grid F.
// degrid_interp : one thread per visibility. Its grid coordinates are computed in
//                 double (xu = u * su, xv = -v * sv), moved to the half plane
//                 (xu wrapped into [-Mu/2, Mu/2], negative xu mirrored with xv),
//                 and the window start and position follow the tap rule (as
//                 cuda_rules.AxisRule.window); the S_u x S_v taps are read from F,
//                 columns outside 0 .. Mu/2 as conj F(-row, -col), and a mirrored
//                 visibility returns the conjugate: the transpose of the tile
//                 gridders' flush and of uvlab.gpu.gridders.separable.fold_half.
//
// Tap rules (template RU / RV), as grid_tiles.cu: 0 = ES exact, 1 = table
// (nearest lookup), 2 = nearest cell, 3 = table (linear interpolation).

template <typename T> struct cplx_of;
template <> struct cplx_of<float> { typedef float2 type; };
template <> struct cplx_of<double> { typedef double2 type; };

__device__ __forceinline__ long long floordiv_ll(long long a, long long b) {
    long long q = a / b;
    return ((a % b) != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

__device__ __forceinline__ float es_w(float z, float inv_half, float beta) {
    float t = z * inv_half;
    float y = 1.0f - t * t;
    return y > 0.0f ? expf(beta * (sqrtf(y) - 1.0f)) : 0.0f;
}
__device__ __forceinline__ double es_w(double z, double inv_half, double beta) {
    double t = z * inv_half;
    double y = 1.0 - t * t;
    return y > 0.0 ? exp(beta * (sqrt(y) - 1.0)) : 0.0;
}

// Window start k0 and the S weights of a record at grid coordinate x (cells).
template <typename T, int R, int S>
__device__ __forceinline__ long long axis_taps(double x, T beta, const T* __restrict__ table,
                                               int B, int D, T* w) {
    if (R == 0) {
        const long long k0 = (long long)ceil(x - 0.5 * S);
        const T p = (T)(x - (double)k0);
#pragma unroll
        for (int j = 0; j < S; ++j) w[j] = es_w((T)j - p, (T)(2.0 / S), beta);
        return k0;
    }
    if (R == 1) {
        const long long q = (long long)floor(x * B + 0.5);
        const long long k0 = -floordiv_ll(D - q, B);
        const int base = (int)(k0 * B - q);
#pragma unroll
        for (int j = 0; j < S; ++j) {
            const int d = base + j * B;
            w[j] = (d <= D && d >= -D) ? table[d + D] : (T)0;
        }
        return k0;
    }
    if (R == 3) {
        const double s = x * B;
        const double q0 = floor(s);
        const T f = (T)(s - q0);
        const long long k0 = -floordiv_ll(D - (long long)ceil(s), B);
        const int base = (int)(k0 * B - (long long)q0);
#pragma unroll
        for (int j = 0; j < S; ++j) {
            const int d0 = base + j * B;
            if (d0 > D || d0 < -D) {
                w[j] = (T)0;
            } else {
                const T hi = table[d0 + D];
                const T lo = d0 > -D ? table[d0 - 1 + D] : (T)0;
                w[j] = hi + f * (lo - hi);
            }
        }
        return k0;
    }
#pragma unroll
    for (int j = 0; j < S; ++j) w[j] = (T)1;
    return (long long)floor(x + 0.5);
}

template <typename TI, typename TO>
__global__ void pad_correct(const TI* __restrict__ img, TO* __restrict__ grid,
                            const TO* __restrict__ cu, const TO* __restrict__ cv, int N, int Mu,
                            int Mv) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y;
    if (c >= Mu) return;
    const int h = N / 2, hi = N - N / 2;
    const int j = r < hi ? r + h : (r >= Mv - h ? r - Mv + h : -1);
    const int i = c < hi ? c + h : (c >= Mu - h ? c - Mu + h : -1);
    TO val = (TO)0;
    if (i >= 0 && j >= 0) val = (TO)img[(long long)j * N + i] * (cv[j] * cu[i]);
    grid[(long long)r * Mu + c] = val;
}

template <typename T, int RU, int SU, int RV, int SV>
__global__ void __launch_bounds__(256)
    degrid_interp(const double* __restrict__ u, const double* __restrict__ v, long long nvis,
                  double scale_u, double scale_v, const typename cplx_of<T>::type* __restrict__ half,
                  int Mu, int Mv, T beta_u, const T* __restrict__ table_u, int bu, int du,
                  T beta_v, const T* __restrict__ table_v, int bv, int dv,
                  typename cplx_of<T>::type* __restrict__ out) {
    typedef typename cplx_of<T>::type T2;
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nvis) return;
    double xu = u[i] * scale_u;
    double xv = -v[i] * scale_v;
    xu -= Mu * rint(xu / Mu);
    const bool neg = xu < 0;
    if (neg) {
        xu = -xu;
        xv = -xv;
    }
    T wu[SU], wv[SV];
    const long long k0u = axis_taps<T, RU, SU>(xu, beta_u, table_u, bu, du, wu);
    const long long k0v = axis_taps<T, RV, SV>(xv, beta_v, table_v, bv, dv, wv);
    const int h = Mu / 2;
    const long long width = h + 1;
    long long r0 = k0v % Mv;
    r0 += r0 < 0 ? Mv : 0;
    T2 acc = T2{0, 0};
#pragma unroll
    for (int jv = 0; jv < SV; ++jv) {
        long long r = r0 + jv;
        r -= r >= Mv ? Mv : 0;
        const long long rm = r == 0 ? 0 : Mv - r;
        const T2* row = half + r * width;
        const T2* mrow = half + rm * width;
        T2 racc = T2{0, 0};
#pragma unroll
        for (int ju = 0; ju < SU; ++ju) {
            const int c = (int)k0u + ju;
            T2 val;
            if (c >= 0 && c <= h) {
                val = row[c];
            } else {
                val = mrow[c < 0 ? -c : Mu - c];
                val.y = -val.y;
            }
            racc.x += wu[ju] * val.x;
            racc.y += wu[ju] * val.y;
        }
        acc.x += wv[jv] * racc.x;
        acc.y += wv[jv] * racc.y;
    }
    if (neg) acc.y = -acc.y;
    out[i] = acc;
}
