// Tile gridders (uvlab.gpu.gridders.cuda_grid): one thread block per
// subproblem (a tile of TU x TV window starts and at most `maxsub` of its
// binned records), accumulating into a shared-memory sub-grid of
// (TV + SV + 1) x (TU + SU + 1) cells, then adding it to the global
// Hermitian-half grid with few atomics.
//
// No shared-memory atomics (a float atomicAdd on shared memory is a CAS loop
// on sm_90): cells are owned as in Romein's (2012) moving-window gridder
// (Muscat 2021 sec. 4.1): thread (a, b) owns every cell (cu, cv) with
// cu = a (mod SU), cv = b (mod SV), so each record's SU x SV window holds
// exactly one cell per thread, and no two threads ever write the same cell.
// A thread keeps its running sum in registers while consecutive records hit
// the same cell and commits it to shared memory when the cell changes.
//
// grid_tile2d   : SU x SV windows (conv); records and their 2S tap weights
//                 are staged through shared memory R at a time. For small windows
//                 G groups of SU x SV owners take alternate records, each into
//                 its own copy of the tile (summed before the flush), so that
//                 a warp is not left with SU*SV active lanes.
// grid_tile_row : SV = 1 (hybrid, pruned-nn, nn): P thread groups of SU
//                 threads; group g takes the records whose local row is
//                 = g (mod P) (binned so), so groups never share a cell, and
//                 each thread evaluates its own single tap.
//
// The flush folds the extra u columns into the Hermitian half as
// uvlab.gpu.gridders.separable.fold_half does, without the factor 1/2
// (applied by the corrector): column k in [0, Mu/2] gets G(k); k <= 0 and
// k >= Mu/2 also give conj(G) to column -k or Mu - k of the mirrored row.
//
// Tap rules (template RU / RV): 0 = ES exact, 1 = table (nearest lookup),
// 2 = nearest cell, 3 = table (linear interpolation); see grid_bin.cu for the
// stored positions.

// 16-byte aligned: one vector store per record in bin_scatter (four scattered 4-byte
// stores otherwise) and vector loads in the grid kernels.
template <typename T> struct __align__(16) Rec { T pu, pv, re, im; };
template <typename T> struct cplx_of;
template <> struct cplx_of<float> { typedef float2 type; };
template <> struct cplx_of<double> { typedef double2 type; };

__device__ __forceinline__ int floordiv_i(int a, int b) {
    int q = a / b;
    return ((a % b) != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

__device__ __forceinline__ float es_weight(float z, float inv_half, float beta) {
    float t = z * inv_half;
    float y = 1.0f - t * t;
    return y > 0.0f ? expf(beta * (sqrtf(y) - 1.0f)) : 0.0f;
}
__device__ __forceinline__ double es_weight(double z, double inv_half, double beta) {
    double t = z * inv_half;
    double y = 1.0 - t * t;
    return y > 0.0 ? exp(beta * (sqrt(y) - 1.0)) : 0.0;
}

__device__ __forceinline__ float floor_t(float x) { return floorf(x); }
__device__ __forceinline__ double floor_t(double x) { return floor(x); }

// Local window start of a record's stored position p under rule R.
template <int R, int S>
__device__ __forceinline__ int win_start(float p, int B, int D) {
    if (R == 0) return (int)ceilf(p - 0.5f * S);
    if (R == 1) return -floordiv_i(D - (int)p, B);
    if (R == 3) return -floordiv_i(D - (int)ceilf(p), B);
    return (int)p;
}
template <int R, int S>
__device__ __forceinline__ int win_start(double p, int B, int D) {
    if (R == 0) return (int)ceil(p - 0.5 * S);
    if (R == 1) return -floordiv_i(D - (int)p, B);
    if (R == 3) return -floordiv_i(D - (int)ceil(p), B);
    return (int)p;
}

// Weight of tap cell k (local) for a record at stored position p.
template <int R, int S, typename T>
__device__ __forceinline__ T tap_weight(int k, T p, T beta, const T* __restrict__ table, int B,
                                        int D) {
    if (R == 0) return es_weight((T)k - p, (T)(2.0 / S), beta);
    if (R == 1) {
        int d = k * B - (int)p;
        return (d <= D && d >= -D) ? table[d + D] : (T)0;
    }
    if (R == 3) {
        // (1 - f) * table[d0] + f * table[d0 - 1], zero past +-D (TableTaps, linear).
        const T q0 = floor_t(p);
        const T f = p - q0;
        const int d0 = k * B - (int)q0;
        if (d0 > D || d0 < -D) return (T)0;
        const T hi = table[d0 + D];
        const T lo = d0 > -D ? table[d0 - 1 + D] : (T)0;
        return hi + f * (lo - hi);
    }
    return (T)1;
}

__device__ __forceinline__ void add_global(float2* g, float2 v) {
#if __CUDA_ARCH__ >= 900
    atomicAdd(g, v);
#else
    atomicAdd(&g->x, v.x);
    atomicAdd(&g->y, v.y);
#endif
}
__device__ __forceinline__ void add_global(double2* g, double2 v) {
    atomicAdd(&g->x, v.x);
    atomicAdd(&g->y, v.y);
}

// Add one shared cell to the global half grid (Mv rows, Mu/2 + 1 columns).
template <typename T2>
__device__ __forceinline__ void flush_cell(T2* __restrict__ grid, T2 val, long long row, int k,
                                           int Mu, int Mv) {
    if (val.x == 0 && val.y == 0) return;
    const int h = Mu / 2;
    long long r = row % Mv;
    if (r < 0) r += Mv;
    if (k >= 0 && k <= h) add_global(&grid[r * (h + 1) + k], val);
    if (k <= 0 || k >= h) {
        long long rm = r == 0 ? 0 : Mv - r;
        int km = k <= 0 ? -k : Mu - k;
        if (km >= 0 && km <= h) {
            T2 c = val;
            c.y = -c.y;
            add_global(&grid[rm * (h + 1) + km], c);
        }
    }
}

// Commit a thread's register accumulator to its shared-memory tile cell.
template <typename T2>
__device__ __forceinline__ void add_to_cell(T2* tile, int cell, T2 acc) {
    T2 g = tile[cell];
    g.x += acc.x;
    g.y += acc.y;
    tile[cell] = g;
}

// Add a finished TWV × TWU shared tile (tile tile_id of a row of ntu tiles) to the grid.
template <typename T2, int TU, int TV, int TWU, int TWV, int NT>
__device__ __forceinline__ void flush_tile(T2* __restrict__ grid, const T2* tile, int tile_id,
                                           int ntu, int pad, int Mu, int Mv) {
    const int tu = tile_id % ntu, tv = tile_id / ntu;
    const long long ou = (long long)tu * TU - 1, ov = (long long)tv * TV - 1;
    for (int c = threadIdx.x; c < TWV * TWU; c += NT) {
        const int lr = c / TWU, lc = c - lr * TWU;
        flush_cell(grid, tile[c], ov + lr, (int)(ou + lc - pad), Mu, Mv);
    }
}

template <typename T, int RU, int SU, int RV, int SV, int TU, int TV, int NT, int R, int G>
__global__ void __launch_bounds__(NT)
    grid_tile2d(const Rec<T>* __restrict__ recs, const int* __restrict__ offsets,
                const int* __restrict__ counts, const int* __restrict__ sub_tile,
                const int* __restrict__ sub_chunk, int maxsub,
                typename cplx_of<T>::type* __restrict__ grid, int ntu, int Mu, int Mv, int pad,
                T beta_u, const T* __restrict__ table_u, int bu, int du, T beta_v,
                const T* __restrict__ table_v, int bv, int dv, const int* __restrict__ code,
                const T* __restrict__ vis) {
    // code, vis (a reused bin plan, else null): each slot's visibility is gathered from
    // vis[code >> 1] (conjugated where code & 1) as the records are staged, in place of
    // the record's own (re, im): re-imaging the same points needs no fill pass.
    typedef typename cplx_of<T>::type T2;
    constexpr int TWU = TU + SU + 1, TWV = TV + SV + 1, NW = SU + SV, TW = TWV * TWU;
    // G > 1 (small windows): G groups of SU x SV owner threads, group g taking the
    // batch's records r = g (mod G) into its own copy of the tile; summed at the flush.
    __shared__ T2 tile[G * TW];
    __shared__ int4 s_meta[R];  // k0u, k0v, k0u mod SU, k0v mod SV
    __shared__ T2 s_val[R];
    __shared__ T2 s_pos[R];
    __shared__ T s_w[R * NW];

    const int t = threadIdx.x;
    const int tile_id = sub_tile[blockIdx.x];
    const int start = offsets[tile_id] + sub_chunk[blockIdx.x] * maxsub;
    const int end = min(offsets[tile_id] + counts[tile_id], start + maxsub);
    for (int c = t; c < G * TW; c += NT) tile[c] = T2{0, 0};

    const bool owner = t < G * SU * SV;
    const int g = t / (SU * SV), l = t - g * (SU * SV);
    const int a = l % SU, b = l / SU;
    T2* mine = tile + g * TW;
    int cur = -1;
    T2 acc = T2{0, 0};
    for (int b0 = start; b0 < end; b0 += R) {
        const int nrec = min(R, end - b0);
        __syncthreads();  // previous batch consumed; tile zeroed
        for (int r = t; r < nrec; r += NT) {
            Rec<T> rec = recs[b0 + r];
            if (code != nullptr) {
                const int c = code[b0 + r];
                const long long i = c >> 1;
                rec.re = vis[2 * i];
                rec.im = (c & 1) ? -vis[2 * i + 1] : vis[2 * i + 1];
            }
            int k0u = win_start<RU, SU>(rec.pu, bu, du);
            int k0v = win_start<RV, SV>(rec.pv, bv, dv);
            s_meta[r] = make_int4(k0u, k0v, k0u % SU, k0v % SV);
            s_val[r] = T2{rec.re, rec.im};
            s_pos[r] = T2{rec.pu, rec.pv};
        }
        __syncthreads();
        for (int it = t; it < nrec * NW; it += NT) {
            const int r = it / NW, j = it - r * NW;
            const int4 m = s_meta[r];
            const T2 p = s_pos[r];
            s_w[it] = j < SU ? tap_weight<RU, SU, T>(m.x + j, p.x, beta_u, table_u, bu, du)
                             : tap_weight<RV, SV, T>(m.y + j - SU, p.y, beta_v, table_v, bv, dv);
        }
        __syncthreads();
        if (owner) {
            for (int r = g; r < nrec; r += G) {
                const int4 m = s_meta[r];
                int ju = a - m.z;
                ju += ju < 0 ? SU : 0;
                int jv = b - m.w;
                jv += jv < 0 ? SV : 0;
                const int cell = (m.y + jv) * TWU + m.x + ju;
                const T w = s_w[r * NW + ju] * s_w[r * NW + SU + jv];
                if (cell != cur) {
                    if (cur >= 0) add_to_cell(mine, cur, acc);
                    cur = cell;
                    acc = T2{0, 0};
                }
                const T2 val = s_val[r];
                acc.x += w * val.x;
                acc.y += w * val.y;
            }
        }
    }
    if (cur >= 0) add_to_cell(mine, cur, acc);
    __syncthreads();
    if (G > 1) {  // the groups' tiles summed into the first
        for (int c = t; c < TW; c += NT) {
            T2 sum = tile[c];
            for (int k = 1; k < G; ++k) {
                sum.x += tile[k * TW + c].x;
                sum.y += tile[k * TW + c].y;
            }
            tile[c] = sum;
        }
        __syncthreads();
    }
    flush_tile<T2, TU, TV, TWU, TWV, NT>(grid, tile, tile_id, ntu, pad, Mu, Mv);
}

template <typename T, int RU, int SU, int P, int TU, int TV, int NT>
__global__ void __launch_bounds__(NT)
    grid_tile_row(const Rec<T>* __restrict__ recs, const int* __restrict__ offsets,
                  const int* __restrict__ counts, const int* __restrict__ sub_tile,
                  const int* __restrict__ sub_chunk, int maxsub,
                  typename cplx_of<T>::type* __restrict__ grid, int ntu, int Mu, int Mv,
                  int pad, T beta_u, const T* __restrict__ table_u, int bu, int du) {
    typedef typename cplx_of<T>::type T2;
    constexpr int TWU = TU + SU + 1, TWV = TV + 2;
    // k0u + KMOD >= 0 for every local window start, so one % gives the residue.
    constexpr int KMOD = ((TU + 2) / SU + 1) * SU;
    __shared__ T2 tile[TWV * TWU];

    const int t = threadIdx.x;
    const int tile_id = sub_tile[blockIdx.x];
    const int chunk = sub_chunk[blockIdx.x];
    for (int c = t; c < TWV * TWU; c += NT) tile[c] = T2{0, 0};
    __syncthreads();
    int cur = -1;
    T2 acc = T2{0, 0};
    if (t < SU * P) {
        const int a = t % SU, g = t / SU;
        const int key = tile_id * P + g;
        const int start = offsets[key] + chunk * maxsub;
        const int end = min(offsets[key] + counts[key], start + maxsub);
        for (int i = start; i < end; ++i) {
            const Rec<T> rec = recs[i];
            const int k0 = win_start<RU, SU>(rec.pu, bu, du);
            const int ju = (a - k0 + KMOD) % SU;
            const T w = tap_weight<RU, SU, T>(k0 + ju, rec.pu, beta_u, table_u, bu, du);
            const int cell = (int)rec.pv * TWU + k0 + ju;
            if (cell != cur) {
                if (cur >= 0) add_to_cell(tile, cur, acc);
                cur = cell;
                acc = T2{0, 0};
            }
            acc.x += w * rec.re;
            acc.y += w * rec.im;
        }
    }
    if (cur >= 0) add_to_cell(tile, cur, acc);
    __syncthreads();
    flush_tile<T2, TU, TV, TWU, TWV, NT>(grid, tile, tile_id, ntu, pad, Mu, Mv);
}
