// Sort / bin visibilities by grid tile (uvlab.gpu.gridders.cuda_binning;
// Muscat 2021 ch. 3 "pre-processing", cuFINUFFT's bin sort). A counting sort:
//
//   bin_count   : each record -> half-plane grid coordinates -> window start
//                 -> tile key; a warp-aggregated atomicAdd on counts[key]
//                 returns the record's rank inside its bin (lanes of one warp
//                 that share a key take consecutive ranks, so the track order
//                 of neighbouring records -- channels of one row -- survives);
//   (host)      : exclusive scan of the counts (cupy.cumsum);
//   bin_scatter : recompute the key, write the packed record to
//                 offsets[key] + rank.
//
// Coordinates follow uvlab.gpu.gridders.separable: xu = u*su wrapped into
// [-Mu/2, Mu/2] and mirrored to xu >= 0 with (xv, V) -> (-xv, V*) (Hermitian
// half plane), xv = -v*sv wrapped into [0, Mv). The u axis is shifted by `pad`
// extra columns so every window start is >= 0. Each axis has a tap rule:
//   0 = ES evaluated exactly: window start k0 = ceil(x - S/2), stored local x;
//   1 = table read by nearest lookup: q = floor(x*B + 0.5),
//       k0 = ceil((q - D)/B), stored local q (an exact integer);
//   2 = nearest cell: k0 = floor(x + 0.5), stored local k0 (exact integer);
//   3 = table read by linear interpolation: s = x*B, k0 = ceil((ceil(s) - D)/B),
//       stored local s (table steps, not rounded).
// Tile t covers window starts [t*T, (t+1)*T); local coordinates are taken
// from the tile origin t*T - 1, so local window starts lie in [1, T].
// Key = (tile_v * ntile_u + tile_u) * P + (local k0v mod P): P > 1 splits a
// tile's records by row residue for the one-row kernel's thread groups.
//
// iparams (int32[16]): Mu, Mv, pad, ru, Su, Bu, Du, rv, Sv, Bv, Dv, TU, TV,
// ntu, ntv, P.

// 16-byte aligned: one vector store per record in bin_scatter (four scattered 4-byte
// stores otherwise) and vector loads in the grid kernels.
template <typename T> struct __align__(16) Rec { T pu, pv, re, im; };

// 32-bit integer arithmetic throughout (64-bit division is emulated and
// slow); grid coordinates and table positions stay far below 2^31.
__device__ __forceinline__ int floordiv_i(int a, int b) {
    int q = a / b;
    return ((a % b) != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Window start of a record at grid coordinate x, and its stored position.
__device__ __forceinline__ int window_start(double x, int rule, int S, int B, int D,
                                            double* pos) {
    if (rule == 0) {
        *pos = x;
        return (int)ceil(x - 0.5 * S);
    }
    if (rule == 1) {
        int q = (int)floor(x * B + 0.5);
        *pos = (double)q;
        return -floordiv_i(D - q, B);
    }
    if (rule == 3) {
        double s = x * B;
        *pos = s;
        return -floordiv_i(D - (int)ceil(s), B);
    }
    int k = (int)floor(x + 0.5);
    *pos = (double)k;
    return k;
}

// Position units per cell: B for the table rules (1, 3), else 1.
__device__ __forceinline__ double units(int rule, int B) {
    return (rule == 1 || rule == 3) ? (double)B : 1.0;
}

struct Located {
    int key;
    bool flip;  // mirrored into the half plane: the visibility is conjugated
    double pu, pv, re, im;
};

// keep_zeros = 0 skips records whose visibility is zero; 1 (a reusable plan,
// bin_fill) keeps every record, so the plan does not depend on the values.
template <typename TIN, typename TVIS>
__device__ __forceinline__ bool locate(const TIN* __restrict__ u, const TIN* __restrict__ v,
                                       const TVIS* __restrict__ vis, long long i, double su,
                                       double sv, const int* __restrict__ ip, int keep_zeros,
                                       Located* L) {
    double re = (double)vis[2 * i], im = (double)vis[2 * i + 1];
    if (re == 0.0 && im == 0.0 && !keep_zeros) return false;
    const int Mu = ip[0], Mv = ip[1], pad = ip[2];
    double xu = (double)u[i] * su;
    xu -= (double)Mu * rint(xu / (double)Mu);
    double xv = -((double)v[i] * sv);
    L->flip = xu < 0.0;
    if (xu < 0.0) {
        xu = -xu;
        xv = -xv;
        im = -im;
    }
    xv -= (double)Mv * floor(xv / (double)Mv);
    double xe = xu + (double)pad;
    double pu, pv;
    int k0u = window_start(xe, ip[3], ip[4], ip[5], ip[6], &pu);
    int k0v = window_start(xv, ip[7], ip[8], ip[9], ip[10], &pv);
    // Bring the v window start into [0, Mv): shift the stored position alike
    // (k0v lies within one period of [0, Mv) here).
    int wrap = k0v < 0 ? -1 : (k0v >= Mv ? 1 : 0);
    if (wrap != 0) {
        k0v -= wrap * Mv;
        pv -= (double)(wrap * Mv) * units(ip[7], ip[9]);
    }
    const int TU = ip[11], TV = ip[12], ntu = ip[13], ntv = ip[14], P = ip[15];
    int tu = k0u / TU;  // k0u >= 0 (pad), k0v >= 0
    int tv = k0v / TV;
    tu = tu < 0 ? 0 : (tu >= ntu ? ntu - 1 : tu);
    tv = tv < 0 ? 0 : (tv >= ntv ? ntv - 1 : tv);
    const int ou = tu * TU - 1, ov = tv * TV - 1;
    // Local positions: subtract the origin in the rule's own units.
    L->pu = pu - (double)ou * units(ip[3], ip[5]);
    L->pv = pv - (double)ov * units(ip[7], ip[9]);
    int res = P > 1 ? (k0v - ov) % P : 0;
    L->key = ((tv * ntu) + tu) * P + res;
    L->re = re;
    L->im = im;
    return true;
}

template <typename TIN, typename TVIS>
__global__ void bin_count(const TIN* __restrict__ u, const TIN* __restrict__ v,
                          const TVIS* __restrict__ vis, long long n, double su, double sv,
                          const int* __restrict__ ip, int keep_zeros, int* __restrict__ counts,
                          int* __restrict__ rank) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int key = -1;
    Located L;
    if (i < n && locate(u, v, vis, i, su, sv, ip, keep_zeros, &L)) key = L.key;
    unsigned active = __ballot_sync(0xffffffffu, key >= 0);
    if (key >= 0) {
        unsigned peers = __match_any_sync(active, key);
        int lane = threadIdx.x & 31;
        int leader = __ffs(peers) - 1;
        int base = 0;
        if (lane == leader) base = atomicAdd(&counts[key], __popc(peers));
        base = __shfl_sync(peers, base, leader);
        rank[i] = base + __popc(peers & ((1u << lane) - 1u));
    } else if (i < n) {
        rank[i] = -1;
    }
}

template <typename TIN, typename TVIS, typename T>
__global__ void bin_scatter(const TIN* __restrict__ u, const TIN* __restrict__ v,
                            const TVIS* __restrict__ vis, long long n, double su, double sv,
                            const int* __restrict__ ip, int keep_zeros,
                            const int* __restrict__ offsets, const int* __restrict__ rank,
                            Rec<T>* __restrict__ out, int* __restrict__ code) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int r = rank[i];
    if (r < 0) {
        if (code) code[i] = -1;
        return;
    }
    Located L;
    locate(u, v, vis, i, su, sv, ip, keep_zeros, &L);
    Rec<T> rec;
    rec.pu = (T)L.pu;
    rec.pv = (T)L.pv;
    rec.re = (T)L.re;
    rec.im = (T)L.im;
    const int dest = offsets[L.key] + r;
    out[dest] = rec;
    if (code) code[dest] = 2 * (int)i + (L.flip ? 1 : 0);  // a plan: slot <- record, mirrored?
}

template <typename T> struct Pair;
template <> struct Pair<float> { typedef float2 type; };
template <> struct Pair<double> { typedef double2 type; };

// Reuse of a plan (the same u, v): gather each sorted slot's new visibility,
// conjugated where the record was mirrored, and store (re, im) as one vector
// (reads scattered, writes coalesced); positions stay.
template <typename TVIS, typename T>
__global__ void bin_fill(const TVIS* __restrict__ vis, long long n,
                         const int* __restrict__ code, Rec<T>* __restrict__ out) {
    long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    const int c = code[j];
    const long long i = c >> 1;
    const T re = (T)vis[2 * i], im = (T)vis[2 * i + 1];
    typename Pair<T>::type val;
    val.x = re;
    val.y = (c & 1) ? -im : im;
    *reinterpret_cast<typename Pair<T>::type*>(&out[j].re) = val;
}

// The subproblem list (uvlab.gpu.gridders.cuda_binning.subproblems) in one pass:
// tile t owns ceil(max over its P bins' counts / maxsub) subproblems, starting
// at ends[t] - nsub[t] (ends: the inclusive scan of nsub, made on the host side).
__global__ void bin_nsub(const int* __restrict__ counts, int ntiles, int P, int maxsub,
                         int* __restrict__ nsub) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ntiles) return;
    int c = 0;
    for (int g = 0; g < P; ++g) c = max(c, counts[t * P + g]);
    nsub[t] = (c + maxsub - 1) / maxsub;
}

__global__ void bin_subs(const int* __restrict__ nsub, const long long* __restrict__ ends,
                         int ntiles, int* __restrict__ sub_tile, int* __restrict__ sub_chunk) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ntiles) return;
    const int n = nsub[t];
    const long long first = ends[t] - n;
    for (int c = 0; c < n; ++c) {
        sub_tile[first + c] = t;
        sub_chunk[first + c] = c;
    }
}
