// Per-antenna factorisation of the point-source predict (Montblanc EK/B-sum, matvis):
//   K_ps(t,nu) = exp(+2 pi i (nu/c) (u_p l_s + v_p m_s + w_p (n_s - 1)))
//   V(t,nu)    = K diag(B) K^H
// Phases are formed in float64 and reduced modulo one turn before the cast to T.
//
// build_k:   X[b, j, a, s] = E[t(b), a, c(b), s] * K[b, a, s] * W[j, c(b), s]  (operands for
//            cuBLAS; E an optional real voltage beam, else 1)
// vis_fused: V[b, p, q] = sum_s K[b,p,s] w[c,s] conj(K[b,q,s]) for p >= q, with the
//            K tiles made in shared memory and never written to device memory
//            (a GEMM whose operands are generated on the fly; 4x4 register tiles).
// gather:    the (p, q) rows of V into (time, bl, chan[, 2, 2]).

// x - rint(x) for |x| < 2^51 with two additions (no F64 rounding instruction).
__device__ __forceinline__ double frac_turn(double x) {
    const double magic = 6755399441055744.0;  // 1.5 * 2^52
    return x - ((x + magic) - magic);
}

template <typename T> struct cplx_of;
template <> struct cplx_of<float> { typedef float2 type; };
template <> struct cplx_of<double> { typedef double2 type; };

__device__ __forceinline__ void sincos_turn(float half_turns, float* s, float* c) {
    __sincosf(3.14159265358979f * half_turns, s, c);  // |arg| <= pi: ~4e-7 absolute
}
__device__ __forceinline__ void sincos_turn(double half_turns, double* s, double* c) {
    sincospi(half_turns, s, c);
}

// X has shape (nbatch, nw, nant, nsrc), batch b = t * nchan + c (t local to the chunk);
// W has shape (nw, nchan, nsrc). One (b, j) pair per blockIdx.y (+ gridDim.y *
// blockIdx.z), one source per thread, a loop over the antennas: each thread reads
// its source once (the antenna uvw are warp-wide broadcasts) and a warp's writes
// are contiguous, so the kernel runs near the device-memory write rate.
template <typename T>
__global__ void __launch_bounds__(256) build_k(
    const double* __restrict__ ant_uvw,  // (ntime, nant, 3)
    const double* __restrict__ lmn_soa,  // (3, nsrc): l, m, n - 1
    const T* __restrict__ wts,           // (nw, nchan, nsrc)
    const double* __restrict__ chan_k,   // (nchan,)
    int nant, int nsrc, int nchan, int nw, long long nbj,
    const T* __restrict__ beam,          // null, or real E (beam_nt, beam_na, nchan, nsrc)
    int beam_nt, int beam_na,
    typename cplx_of<T>::type* __restrict__ x)
{
    typedef typename cplx_of<T>::type C2;
    const long long step = (long long)gridDim.y * gridDim.z;
    const long long nt = nbj / ((long long)nw * nchan);
    for (long long r = blockIdx.y + (long long)gridDim.y * blockIdx.z; r < nbj; r += step) {
        // channel-major order: neighbouring blocks share a channel, so its weights and
        // beams (the same at every time) are read from L2 rather than device memory
        const int j = (int)(r % nw);
        const long long ct = r / nw;
        const int c = (int)(ct / nt);
        const long long b = (ct % nt) * nchan + c;
        const long long bj = b * nw + j;
        const double* au = ant_uvw + (size_t)3 * nant * (b / nchan);
        const double k = chan_k[c];
        for (int s = blockIdx.x * blockDim.x + threadIdx.x; s < nsrc; s += gridDim.x * blockDim.x) {
            const double l = lmn_soa[s], m = lmn_soa[nsrc + s], n1 = lmn_soa[2 * nsrc + s];
            const T wv = wts[((size_t)j * nchan + c) * nsrc + s];
            C2* xp = x + (size_t)bj * nant * nsrc + s;
            // E_ps (a scalar voltage beam) in every slot: X = E.K.W, so X.Xh carries E_p.E_q
            const T* eb = beam == nullptr ? nullptr
                : beam + ((size_t)(beam_nt > 1 ? b / nchan : 0) * beam_na * nchan + c) * nsrc + s;
            const size_t estep = beam_na > 1 ? (size_t)nchan * nsrc : 0;
#pragma unroll 4
            for (int a = 0; a < nant; ++a) {
                const double ph = frac_turn((au[3 * a] * l + au[3 * a + 1] * m + au[3 * a + 2] * n1) * k);
                C2 z;
                sincos_turn((T)(2.0 * ph), &z.y, &z.x);
                const T f = eb == nullptr ? wv : wv * eb[a * estep];
                z.x *= f;
                z.y *= f;
                xp[(size_t)a * nsrc] = z;
            }
        }
    }
}

#define FT 256      // threads per block: 8 warps, each a 16 x 32 tile of V
#define AT 64       // antennas per tile

template <typename T, int TSRC>
__global__ void __launch_bounds__(FT) vis_fused(
    const double* __restrict__ ant_uvw,  // (ntime, nant, 3)
    const double* __restrict__ lmn1,     // (nsrc, 3)
    const T* __restrict__ wts,           // (nchan, nsrc) I * (nu/nu0)^alpha
    const double* __restrict__ chan_k,   // (nchan,)
    int nant, int nsrc, int nchan,
    typename cplx_of<T>::type* __restrict__ vfull)  // (nbatch, nant, nant), p >= q written
{
    typedef typename cplx_of<T>::type C2;
    __shared__ C2 sA[TSRC][AT];
    __shared__ C2 sK[TSRC][AT];
    __shared__ double sU[2][AT][3];   // uvw of the P and Q antenna tiles
    __shared__ double sL[TSRC][4];    // l, m, n - 1, weight of the tile's sources

    const int b = blockIdx.x;
    const int c = b % nchan;
    const int t = b / nchan;
    // tile pair (P >= Q) from blockIdx.y
    const int pair = blockIdx.y;
    int P = (int)((sqrt(8.0 * pair + 1.0) - 1.0) * 0.5);
    while ((P + 1) * (P + 2) / 2 <= pair) ++P;
    while (P * (P + 1) / 2 > pair) --P;
    const int Q = pair - P * (P + 1) / 2;
    const double* au = ant_uvw + (size_t)3 * nant * t;
    const double k = chan_k[c];

    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int pi = warp & 3, qj = warp >> 2;
    const int lp = lane >> 3, lq = lane & 7;
    const int p0 = 16 * pi + lp;      // rows p0 + 4 i
    const int q0 = 32 * qj + lq;      // cols q0 + 8 j
    const bool active = !(P == Q && 16 * pi + 15 < 32 * qj)
                        && AT * P + 16 * pi < nant && AT * Q + 32 * qj < nant;

    C2 acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) { acc[i][j].x = 0; acc[i][j].y = 0; }

    for (int e = tid; e < 2 * AT * 3; e += FT) {
        const int which = e / (AT * 3), a = (e / 3) % AT, d = e % 3;
        const int ant = AT * (which ? Q : P) + a;
        sU[which][a][d] = (ant < nant) ? au[3 * ant + d] : 0.0;
    }
    for (int s0 = 0; s0 < nsrc; s0 += TSRC) {
        __syncthreads();
        if (tid < TSRC * 4) {
            const int s = tid >> 2, d = tid & 3, sg = s0 + s;
            double val = 0.0;
            if (sg < nsrc) val = (d < 3) ? lmn1[3 * sg + d] : (double)wts[(size_t)c * nsrc + sg];
            sL[s][d] = val;
        }
        __syncthreads();
        for (int e = tid; e < TSRC * AT; e += FT) {
            const int s = e / AT, a = e % AT;
            const double l = sL[s][0], m = sL[s][1], n1 = sL[s][2];
            const T wv = (T)sL[s][3];
            C2 zp, zq;
            double ph = frac_turn((sU[0][a][0] * l + sU[0][a][1] * m + sU[0][a][2] * n1) * k);
            sincos_turn((T)(2.0 * ph), &zp.y, &zp.x);
            if (P == Q) {
                zq = zp;
            } else {
                ph = frac_turn((sU[1][a][0] * l + sU[1][a][1] * m + sU[1][a][2] * n1) * k);
                sincos_turn((T)(2.0 * ph), &zq.y, &zq.x);
            }
            zp.x *= wv;  // zero weight for padding sources and antennas beyond nant
            zp.y *= wv;
            if (AT * P + a >= nant) { zp.x = 0; zp.y = 0; }
            if (AT * Q + a >= nant) { zq.x = 0; zq.y = 0; }
            sA[s][a] = zp;
            sK[s][a] = zq;
        }
        __syncthreads();
        if (active) {
#pragma unroll 4
            for (int s = 0; s < TSRC; ++s) {
                C2 av[4], kv[4];
#pragma unroll
                for (int i = 0; i < 4; ++i) av[i] = sA[s][p0 + 4 * i];
#pragma unroll
                for (int j = 0; j < 4; ++j) kv[j] = sK[s][q0 + 8 * j];
#pragma unroll
                for (int i = 0; i < 4; ++i)
#pragma unroll
                    for (int j = 0; j < 4; ++j) {
                        // acc += a * conj(k)
                        acc[i][j].x += av[i].x * kv[j].x + av[i].y * kv[j].y;
                        acc[i][j].y += av[i].y * kv[j].x - av[i].x * kv[j].y;
                    }
            }
        }
    }
    if (!active) return;
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int p = AT * P + p0 + 4 * i, q = AT * Q + q0 + 8 * j;
            if (p < nant && q < nant && p >= q) vfull[((size_t)b * nant + p) * nant + q] = acc[i][j];
        }
}

// out[t, bl, c(, 2, 2)] from V[b, S, p, q] (S over the NPOL Stokes sums, Hermitian in p, q;
// only p >= q is read). MODE 0 scalar, 1 linear, 2 circular.
template <typename T, int MODE>
__global__ void gather(const typename cplx_of<T>::type* __restrict__ vfull,
                       const int* __restrict__ ant1, const int* __restrict__ ant2,
                       int nant, int nbl, int nchan, long long total,
                       typename cplx_of<T>::type* __restrict__ out)
{
    typedef typename cplx_of<T>::type C2;
    constexpr int NPOL = (MODE == 0) ? 1 : 4;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
         e += (long long)gridDim.x * blockDim.x) {
        const int c = (int)(e % nchan);
        long long r = e / nchan;
        const int bl = (int)(r % nbl);
        const long long t = r / nbl;
        const long long b = t * nchan + c;
        int p = ant1[bl], q = ant2[bl];
        const bool swap = p < q;
        if (swap) { const int tmp = p; p = q; q = tmp; }
        C2 v[NPOL];
#pragma unroll
        for (int s = 0; s < NPOL; ++s) {
            v[s] = vfull[((size_t)(b * NPOL + s) * nant + p) * nant + q];
            if (swap) v[s].y = -v[s].y;
        }
        if (MODE == 0) {
            out[e] = v[0];
        } else {
            const C2 ai = v[0], aq = v[1], au = v[2], av = v[3];
            C2 b0, b1, b2, b3;
            if (MODE == 1) {
                b0.x = ai.x + aq.x; b0.y = ai.y + aq.y;
                b1.x = au.x - av.y; b1.y = au.y + av.x;
                b2.x = au.x + av.y; b2.y = au.y - av.x;
                b3.x = ai.x - aq.x; b3.y = ai.y - aq.y;
            } else {
                b0.x = ai.x + av.x; b0.y = ai.y + av.y;
                b1.x = aq.x - au.y; b1.y = aq.y + au.x;
                b2.x = aq.x + au.y; b2.y = aq.y - au.x;
                b3.x = ai.x - av.x; b3.y = ai.y - av.y;
            }
            out[4 * e] = b0; out[4 * e + 1] = b1; out[4 * e + 2] = b2; out[4 * e + 3] = b3;
        }
    }
}
