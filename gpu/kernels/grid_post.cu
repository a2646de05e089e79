// After gridding (uvlab.gpu.gridders.cuda_post):
//
// prune_rows : Muscat's (2021, alg. 2.7, ch. 7) column pruner along axis 0 of
//   a (Mf = ALPHA*Mc, C) complex grid,
//       out[c, x] = sum_s sum_a zs[s][a] * in[((c + s + smin) mod Mc)*ALPHA + a, x],
//   the polyphase form of out[c] = sum_d Z[d] in[(c*ALPHA + d) mod Mf]
//   (uvlab.gpu.gridders.pruning.Pruner). One thread per column x and RB
//   consecutive outputs: each input row is loaded once per thread (coalesced
//   across the warp's 32 columns) and feeds up to RB outputs from registers.
//   prune_rows_any takes ALPHA at run time (slower), for unusual ALPHA.
//
// correct_crop : the fused correction and crop. img is the (Mv, Mu) real
//   output of the c2r FFT; pixel (j, i) of the N x N image is offset
//   (j - N/2, i - N/2), i.e. img[(j - N/2) mod Mv, (i - N/2) mod Mu], times
//   cv[j] * cu[i] (the correctors, with all scale factors folded into cv).

template <typename T> struct cplx_of;
template <> struct cplx_of<float> { typedef float2 type; };
template <> struct cplx_of<double> { typedef double2 type; };

template <typename T, int ALPHA, int NS, int RB>
__global__ void __launch_bounds__(256)
    prune_rows(const typename cplx_of<T>::type* __restrict__ in,
               typename cplx_of<T>::type* __restrict__ out, const T* __restrict__ zs, int Mc,
               int C, int smin) {
    typedef typename cplx_of<T>::type T2;
    __shared__ T z[NS * ALPHA];
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    for (int k = tid; k < NS * ALPHA; k += blockDim.x * blockDim.y) z[k] = zs[k];
    __syncthreads();
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int c0 = (blockIdx.y * blockDim.y + threadIdx.y) * RB;
    if (x >= C || c0 >= Mc) return;
    T2 acc[RB];
#pragma unroll
    for (int r = 0; r < RB; ++r) acc[r] = T2{0, 0};
    for (int bi = 0; bi < RB + NS - 1; ++bi) {
        int blk = (c0 + smin + bi) % Mc;
        blk += blk < 0 ? Mc : 0;
        const T2* src = in + ((long long)blk * ALPHA) * C + x;
        T2 v[ALPHA];
#pragma unroll
        for (int a = 0; a < ALPHA; ++a) v[a] = src[(long long)a * C];
#pragma unroll
        for (int r = 0; r < RB; ++r) {
            const int s = bi - r;
            if (s >= 0 && s < NS) {
                const T* zr = z + s * ALPHA;
#pragma unroll
                for (int a = 0; a < ALPHA; ++a) {
                    acc[r].x += zr[a] * v[a].x;
                    acc[r].y += zr[a] * v[a].y;
                }
            }
        }
    }
#pragma unroll
    for (int r = 0; r < RB; ++r)
        if (c0 + r < Mc) out[(long long)(c0 + r) * C + x] = acc[r];
}

template <typename T, int RB>
__global__ void __launch_bounds__(256)
    prune_rows_any(const typename cplx_of<T>::type* __restrict__ in,
                   typename cplx_of<T>::type* __restrict__ out, const T* __restrict__ zs,
                   int Mc, int C, int smin, int alpha, int ns) {
    typedef typename cplx_of<T>::type T2;
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int c0 = (blockIdx.y * blockDim.y + threadIdx.y) * RB;
    if (x >= C || c0 >= Mc) return;
    T2 acc[RB];
#pragma unroll
    for (int r = 0; r < RB; ++r) acc[r] = T2{0, 0};
    for (int bi = 0; bi < RB + ns - 1; ++bi) {
        int blk = (c0 + smin + bi) % Mc;
        blk += blk < 0 ? Mc : 0;
        const T2* src = in + ((long long)blk * alpha) * C + x;
        for (int a = 0; a < alpha; ++a) {
            const T2 v = src[(long long)a * C];
#pragma unroll
            for (int r = 0; r < RB; ++r) {
                const int s = bi - r;
                if (s >= 0 && s < ns) {
                    const T zz = zs[s * alpha + a];
                    acc[r].x += zz * v.x;
                    acc[r].y += zz * v.y;
                }
            }
        }
    }
#pragma unroll
    for (int r = 0; r < RB; ++r)
        if (c0 + r < Mc) out[(long long)(c0 + r) * C + x] = acc[r];
}

template <typename TI, typename TO>
__global__ void correct_crop(const TI* __restrict__ img, TO* __restrict__ out,
                             const TO* __restrict__ cu, const TO* __restrict__ cv, int N, int Mu,
                             int Mv) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y;
    if (i >= N) return;
    int su = (i - N / 2) % Mu;
    su += su < 0 ? Mu : 0;
    int sv = (j - N / 2) % Mv;
    sv += sv < 0 ? Mv : 0;
    out[(long long)j * N + i] = (TO)img[(long long)sv * Mu + su] * (cv[j] * cu[i]);
}
