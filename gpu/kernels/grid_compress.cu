// Full compression (uvlab.gpu.gridders.compress; Muscat 2021 §3.2.4): the
// records are sorted by cell key on the host side (cupy.argsort); each run of
// equal keys is one segment, and this kernel sums it -- one thread per
// segment, in the sorted order, in float64 (segments are short: the records
// of one cell). NumPy twin: numpy.add.reduceat over vis[order].
//
//   vis    : (n,) complex128 as double2, half-plane visibilities;
//   order  : (n,) int64, record indices sorted by key;
//   starts, ends : (nseg,) int64, the segment [starts[s], ends[s]) of order;
//   out    : (nseg,) complex128, the sums.

__global__ void segment_sum(const double2* __restrict__ vis, const long long* __restrict__ order,
                            const long long* __restrict__ starts,
                            const long long* __restrict__ ends, long long nseg,
                            double2* __restrict__ out) {
    for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < nseg;
         s += (long long)gridDim.x * blockDim.x) {
        double re = 0.0, im = 0.0;
        const long long e = ends[s];
        for (long long j = starts[s]; j < e; ++j) {
            const double2 z = vis[order[j]];
            re += z.x;
            im += z.y;
        }
        out[s] = make_double2(re, im);
    }
}
