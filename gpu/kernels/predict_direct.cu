// Direct (row-based) visibility prediction, DESIGN §1:
//   V_pq(t,nu) = sum_s zeta_time * zeta_band * G_s(u,v) * B_s(nu) * exp(+2 pi i (nu/c) tau_s),
//   tau_s = u l_s + v m_s + w (n_s - 1)   [metres]
// with the smearing factors of SDP Memo 076 eqs 6-8 (unnormalised sinc).
//
// One thread per (row, block of CB channels); 128 rows per thread block; the
// sources are staged through shared memory in tiles of TS (Memo 076 sec. 2).
// Accuracy: tau and the phase at the block's first channel (and the phase step
// per channel) are formed in float64 and reduced modulo one turn before any
// cast, so float32 keeps |dphi| ~ 1e-7 rad however long the baseline. Inside a
// block the phasor and the time-smearing sine advance by exact rotations
// (uniform channel spacing is checked on the host; CB = 1 handles any
// frequencies), so one set of trigonometric calls serves CB channels.
//
// Template parameters: T = float | double; MODE 0 scalar (Stokes I),
// 1 linear, 2 circular; GAUSS, TSMEAR, BSMEAR switch terms; CB channels per thread;
// BEAM 0 none, 1 real, 2 complex scalar voltage beams E (E-Jones, the same on both
// feeds): every term of row (t, p, q) is multiplied by E[t,p,s,c] conj(E[t,q,s,c]).
// The beams are laid out (time, ant, src, chan): each thread loads its CB channels of
// a source for both antennas, contiguous, before the channel loop.

#define TS 64
#define NTHREADS 128

// x - rint(x) for |x| < 2^51 with two additions (no F64 rounding instruction).
__device__ __forceinline__ double frac_turn(double x) {
    const double magic = 6755399441055744.0;  // 1.5 * 2^52
    return x - ((x + magic) - magic);
}

template <typename T> struct cplx_of;
template <> struct cplx_of<float> { typedef float2 type; };
template <> struct cplx_of<double> { typedef double2 type; };

__device__ __forceinline__ void sincos_turn(float half_turns, float* s, float* c) {
    // |half_turns| <= 1 here: the hardware sine is accurate to ~4e-7 absolute.
    __sincosf(3.14159265358979f * half_turns, s, c);
}
__device__ __forceinline__ void sincos_turn(double half_turns, double* s, double* c) {
    sincospi(half_turns, s, c);
}

// sin and cos with *relative* accuracy for small |x| (the smearing sincs need it).
__device__ __forceinline__ void sincos_rel(float x, float* s, float* c) {
    float x2 = x * x;
    float taylor = x * (1.0f - x2 * (1.0f / 6.0f) * (1.0f - x2 * (1.0f / 20.0f) * (1.0f - x2 * (1.0f / 42.0f))));
    float hs, hc;
    __sincosf(x, &hs, &hc);
    *s = (x2 < 0.0625f) ? taylor : hs;
    *c = hc;
    if (fabsf(x) > 3.2f) sincosf(x, s, c);  // rare: large arguments, full range reduction
}
__device__ __forceinline__ void sincos_rel(double x, double* s, double* c) { sincos(x, s, c); }

__device__ __forceinline__ float sinc_acc(float x) {
    float s, c;
    sincos_rel(x, &s, &c);
    return (x == 0.0f) ? 1.0f : __fdividef(s, x);
}
__device__ __forceinline__ double sinc_acc(double x) { return (x == 0.0) ? 1.0 : sin(x) / x; }

__device__ __forceinline__ float exp_neg(float x) { return __expf(-x); }
__device__ __forceinline__ double exp_neg(double x) { return exp(-x); }

// N consecutive beam values of antennas p and q at offset o: 16-byte loads when
// aligned (vec), else one value at a time, 0 past the last channel (n values left).
__device__ __forceinline__ void load16(const float* p, float* a) {
    const float4 x = __ldg(reinterpret_cast<const float4*>(p));
    a[0] = x.x; a[1] = x.y; a[2] = x.z; a[3] = x.w;
}
__device__ __forceinline__ void load16(const double* p, double* a) {
    const double2 x = __ldg(reinterpret_cast<const double2*>(p));
    a[0] = x.x; a[1] = x.y;
}

template <typename T, int N>
__device__ __forceinline__ void load_beams(const T* __restrict__ ep, const T* __restrict__ eq,
                                           size_t o, int n, bool vec, T* a, T* b) {
    constexpr int V = 16 / sizeof(T);  // values per 16-byte load
    if (N % V == 0 && vec) {
#pragma unroll
        for (int k = 0; k < N / V; ++k) {
            load16(ep + o + k * V, a + k * V);
            load16(eq + o + k * V, b + k * V);
        }
        return;
    }
#pragma unroll
    for (int k = 0; k < N; ++k) {
        a[k] = (k < n) ? __ldg(ep + o + k) : (T)0;
        b[k] = (k < n) ? __ldg(eq + o + k) : (T)0;
    }
}

template <typename T, int MODE, bool GAUSS, bool TSMEAR, bool BSMEAR, int CB, int BEAM>
__global__ void __launch_bounds__(NTHREADS) predict_direct(
    const double* __restrict__ uvw,     // (nrow, 3) metres
    const T* __restrict__ rate,         // (nrow, 3) d(uvw)/dt * pi * int_s  [m]
    const double* __restrict__ lmn1,    // (nsrc, 3) l, m, n - 1
    const T* __restrict__ quad,         // (nsrc, 3) Gaussian a, b, c [rad^2]
    const T* __restrict__ stokes,       // (nchan, nsrc, NPOL) S0 (nu/nu0)^alpha
    const double* __restrict__ blk_k0,  // (nblk,) nu/c of the block's first channel [1/m]
    const double* __restrict__ blk_dk,  // (nblk,) channel step in nu/c [1/m]
    const T* __restrict__ chan_k,       // (nchan,) nu/c [1/m]
    const T* __restrict__ chan_bw,      // (nchan,) pi * width / c [1/m]
    int nrow, int nsrc, int nchan,
    const T* __restrict__ beam,         // (btime, bant, nsrc, nchan[, 2]) E, BEAM > 0
    const int* __restrict__ beam_rows,  // (3, nrow) each row's t, p, q into beam
    int bant,
    typename cplx_of<T>::type* __restrict__ out)  // (nrow, nchan[, 2, 2])
{
    typedef typename cplx_of<T>::type C2;
    constexpr int NPOL = (MODE == 0) ? 1 : 4;
    __shared__ double s_lmn[TS][3];
    __shared__ T s_lmnt[TS][3];
    __shared__ T s_quad[GAUSS ? TS : 1][3];
    __shared__ T s_st[TS][CB][NPOL];

    const int row = blockIdx.x * NTHREADS + threadIdx.x;
    const int blk = blockIdx.y;
    const int c0 = blk * CB;
    const bool valid = row < nrow;
    const int rr = valid ? row : 0;

    const double u = uvw[3 * rr], v = uvw[3 * rr + 1], w = uvw[3 * rr + 2];
    T ru = 0, rv = 0, rw = 0;
    if (TSMEAR) { ru = rate[3 * rr]; rv = rate[3 * rr + 1]; rw = rate[3 * rr + 2]; }
    const double k0 = blk_k0[blk], dk = blk_dk[blk];
    constexpr int EW = (BEAM == 2) ? 2 : 1;  // reals per beam value
    const T* ep = beam;
    const T* eq = beam;
    // 16-byte loads when every source's CB channels start on a 16-byte boundary
    const bool vec_ok = BEAM && (nchan * EW) % (16 / sizeof(T)) == 0 && c0 + CB <= nchan;
    if (BEAM) {
        const size_t bt = (size_t)beam_rows[rr], bp = beam_rows[nrow + rr], bq = beam_rows[2 * nrow + rr];
        ep = beam + ((bt * bant + bp) * nsrc * nchan + c0) * EW;
        eq = beam + ((bt * bant + bq) * nsrc * nchan + c0) * EW;
    }
    const T bw = chan_bw[c0];
    const T uf = (T)u, vf = (T)v;
    T invk[CB], k2[CB];
#pragma unroll
    for (int j = 0; j < CB; ++j) {
        T kj = (c0 + j < nchan) ? chan_k[c0 + j] : (T)1;
        invk[j] = (T)1 / kj;
        k2[j] = kj * kj;
    }

    C2 acc[CB][NPOL];
#pragma unroll
    for (int j = 0; j < CB; ++j)
#pragma unroll
        for (int p = 0; p < NPOL; ++p) { acc[j][p].x = 0; acc[j][p].y = 0; }

    for (int s0 = 0; s0 < nsrc; s0 += TS) {
        const int ns = min(TS, nsrc - s0);
        __syncthreads();
        for (int e = threadIdx.x; e < TS * 3; e += NTHREADS) {
            double val = (e < ns * 3) ? lmn1[3 * s0 + e] : 0.0;
            s_lmn[e / 3][e % 3] = val;
            s_lmnt[e / 3][e % 3] = (T)val;
            if (GAUSS) s_quad[e / 3][e % 3] = (e < ns * 3) ? quad[3 * s0 + e] : (T)0;
        }
        for (int e = threadIdx.x; e < TS * CB * NPOL; e += NTHREADS) {
            const int j = e / (TS * NPOL);
            const int rem = e % (TS * NPOL);
            const int s = rem / NPOL, p = rem % NPOL;
            T val = 0;
            if (s < ns && c0 + j < nchan) val = stokes[((size_t)(c0 + j) * nsrc + s0 + s) * NPOL + p];
            s_st[s][j][p] = val;
        }
        __syncthreads();
        if (!valid) continue;
        for (int s = 0; s < ns; ++s) {
            const double tau = u * s_lmn[s][0] + v * s_lmn[s][1] + w * s_lmn[s][2];
            double ph = tau * k0;
            ph = frac_turn(ph);
            T ks, kc;
            sincos_turn((T)(2.0 * ph), &ks, &kc);
            T rs = 0, rc = 1;
            if (CB > 1) {
                double dph = tau * dk;
                dph = frac_turn(dph);
                sincos_turn((T)(2.0 * dph), &rs, &rc);
            }
            T zb = 1;
            if (BSMEAR) zb = sinc_acc(bw * (T)tau);
            // time smearing: zeta_t(c) = sin(A k_c) / (A k_c), A = rate . (l, m, n-1)
            T ts = 0, tc = 1, ds = 0, dc = 1, inva = 0;
            if (TSMEAR) {
                T a = ru * s_lmnt[s][0] + rv * s_lmnt[s][1] + rw * s_lmnt[s][2];
                a = (fabs(a) < (T)1e-30) ? (T)1e-30 : a;  // sinc is even; avoids 1/0
                inva = (T)1 / a;
                sincos_rel(a * (T)k0, &ts, &tc);
                if (CB > 1) sincos_rel(a * (T)dk, &ds, &dc);
            }
            T q = 0;
            if (GAUSS) q = s_quad[s][0] * uf * uf + s_quad[s][1] * vf * vf + s_quad[s][2] * uf * vf;
            // this source's beams for the CB channels, loaded before the channel loop
            T e_p[BEAM ? CB : 1][EW], e_q[BEAM ? CB : 1][EW];
            if (BEAM) load_beams<T, CB * EW>(ep, eq, (size_t)(s0 + s) * nchan * EW,
                                            (nchan - c0) * EW, vec_ok, &e_p[0][0], &e_q[0][0]);
#pragma unroll
            for (int j = 0; j < CB; ++j) {
                T wgt = zb;
                if (TSMEAR) wgt *= ts * inva * invk[j];
                if (GAUSS) wgt *= exp_neg(q * k2[j]);
                if (BEAM == 1) wgt *= e_p[j][0] * e_q[j][0];
                T cr = wgt * kc, ci = wgt * ks;
                if (BEAM == 2) {  // E_p conj(E_q)
                    const T ar = e_p[j][0], ai = e_p[j][1], br = e_q[j][0], bi = e_q[j][1];
                    const T er = ar * br + ai * bi, ei = ai * br - ar * bi;
                    const T nr = cr * er - ci * ei;
                    ci = cr * ei + ci * er;
                    cr = nr;
                }
#pragma unroll
                for (int p = 0; p < NPOL; ++p) {
                    const T st = s_st[s][j][p];
                    acc[j][p].x += cr * st;
                    acc[j][p].y += ci * st;
                }
                if (CB > 1) {
                    const T nc = kc * rc - ks * rs;
                    ks = kc * rs + ks * rc;
                    kc = nc;
                    if (TSMEAR) {
                        const T nt = tc * dc - ts * ds;
                        ts = tc * ds + ts * dc;
                        tc = nt;
                    }
                }
            }
        }
    }
    if (!valid) return;
#pragma unroll
    for (int j = 0; j < CB; ++j) {
        if (c0 + j >= nchan) break;
        const size_t o = (size_t)row * nchan + c0 + j;
        if (MODE == 0) {
            out[o] = acc[j][0];
        } else {
            // acc = (I, Q, U, V) sums; B-form per DESIGN §1
            const C2 ai = acc[j][0], aq = acc[j][1], au = acc[j][2], av = acc[j][3];
            C2 b0, b1, b2, b3;
            if (MODE == 1) {  // [[I+Q, U+iV], [U-iV, I-Q]]
                b0.x = ai.x + aq.x; b0.y = ai.y + aq.y;
                b1.x = au.x - av.y; b1.y = au.y + av.x;
                b2.x = au.x + av.y; b2.y = au.y - av.x;
                b3.x = ai.x - aq.x; b3.y = ai.y - aq.y;
            } else {          // [[I+V, Q+iU], [Q-iU, I-V]]
                b0.x = ai.x + av.x; b0.y = ai.y + av.y;
                b1.x = aq.x - au.y; b1.y = aq.y + au.x;
                b2.x = aq.x + au.y; b2.y = aq.y - au.x;
                b3.x = ai.x - av.x; b3.y = ai.y - av.y;
            }
            out[4 * o] = b0; out[4 * o + 1] = b1; out[4 * o + 2] = b2; out[4 * o + 3] = b3;
        }
    }
}
