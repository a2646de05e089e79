"""Images made in parts: map–reduce over row chunks, equal to one image of all the data.

A dirty image and its PSF are linear in the weighted visibilities, so the data can be
imaged in parts (row chunks, on several workers) and the parts summed: each part gives
its *unnormalised* images and its Σw (:func:`image_part`), the sums add
(:meth:`PartImage.__add__`, a tree reduction), and one division by the total Σw
(:meth:`PartImage.normalised`) gives what :func:`~uvlab.gpu.imaging.imager.make_image`
gives for all the data at once, to rounding.

Uniform and Briggs weighting need the density of *all* the data in each uv cell: a first
pass sums each part's :func:`part_counts` (:func:`~uvlab.gpu.imaging.weighting.density_counts`
of its usable samples); :func:`density_totals` turns the sum into the density grid and
Briggs's mean density (and, with WSClean's rank filter, which needs the whole grid, the
filtered weight of each cell), which the second pass hands to every part. Natural
weighting (and a taper) needs no first pass.

Each part is imaged by the same engine (:func:`~uvlab.gpu.imaging.imager.make_image`,
every catalogue algorithm, CPU or GPU) with its imaging weights computed here, so the
parts' weights are those of the whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from uvlab.gpu.backend import get_xp
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.imaging.reuse import select_samples
from uvlab.gpu.imaging.weighting import (
    Weighting,
    density_counts,
    grid_factors,
    imaging_weights,
    lookup_density,
    mean_density,
    mirrored,
)


@dataclass(frozen=True, eq=False)
class DensityTotals:
    """The first pass's result: the density of all the data, for uniform and Briggs.

    Attributes
    ----------
    grid : (rows·2N,) float64 or None
        Σw per uv cell, both Hermitian halves (:func:`~uvlab.gpu.imaging.weighting.mirrored`),
        rows ``first_row`` … ``2N − first_row`` of the (2N)² grid, flat: the band of v that
        holds every sample, symmetric about the centre (the rest of the grid is empty, and
        is neither held nor sent: at 4096² most of the 537 MB); None with the rank filter,
        whose ``factors`` replace it (one grid held, not two).
    mean : float
        Briggs's ``Σ w·W / Σ w`` over all the data.
    factors : ((2N)²,) float64 or None
        With WSClean's rank filter (``Weighting.rank_filter``): each cell's weight per unit
        data weight, filtered (:func:`~uvlab.gpu.imaging.weighting.grid_factors`), the whole
        grid (``first_row`` 0: empty cells take part in the filter's windows); the parts
        are weighted by it. None without.
    first_row : int
        The grid's first row in the (2N)² grid.
    """

    grid: np.ndarray | None
    mean: float
    factors: np.ndarray | None = None
    first_row: int = 0

    def looked_up(self, u_lambda, v_lambda, spec: ImageSpec):
        """(nvis,) each sample's cell value (the density, or with the rank filter its
        factor) on the density geometry ``spec``, in the samples' memory; 0 outside the
        band held (no sample of the data counted lies there)."""
        return lookup_density(self.cells_in(get_xp(u_lambda)), u_lambda, v_lambda, spec,
                              first_row=self.first_row)  # fmt: skip

    def cells_in(self, xp):
        """What the parts look their weights up in (:attr:`factors` with the rank filter,
        else :attr:`grid`), in ``xp``'s memory: on the GPU one copy, made at the first call
        and kept with these totals (every chunk a GPU worker weights looks it up there)."""
        cells = self.grid if self.factors is None else self.factors
        if xp is np:
            return cells
        kept = self.__dict__.get("_device")
        if kept is None:
            kept = xp.asarray(cells)
            object.__setattr__(self, "_device", kept)
        return kept

    def __getstate__(self):  # sent to another worker: the host arrays only
        return {"grid": self.grid, "mean": self.mean, "factors": self.factors,
                "first_row": self.first_row}  # fmt: skip


@dataclass(frozen=True, eq=False)
class CountsBand:
    """Summed :func:`part_counts` as the rows of the (side)² grid that hold any: rows
    ``first`` … ``first + len(rows)``, the others zero. What a worker sends of its counts
    (:meth:`of`) and what the sums add (``+``): a few hundred rows of 2N where the grid
    has 2N (at 4096² and MeerKAT's longest baselines about a quarter of the 537 MB)."""

    side: int
    first: int
    rows: np.ndarray  # (nrows, side) float64, host memory

    @classmethod
    def of(cls, counts) -> CountsBand:
        """The band of a flat (side²,) counts grid (NumPy or CuPy; copied to the host)."""
        from uvlab.gpu.backend import to_numpy

        if isinstance(counts, CountsBand):
            return counts
        side = math.isqrt(int(counts.size))
        xp = get_xp(counts)
        grid = counts.reshape(side, side)
        used = xp.flatnonzero(grid.any(axis=1))
        if int(used.size) == 0:
            return cls(side, 0, np.zeros((0, side)))
        a, b = int(used[0]), int(used[-1]) + 1
        return cls(side, a, np.asarray(to_numpy(grid[a:b]), dtype=np.float64))

    @property
    def stop(self) -> int:
        return self.first + self.rows.shape[0]

    def __add__(self, other: CountsBand) -> CountsBand:
        if self.side != other.side:
            raise ValueError("counts of different density grids")
        if not self.rows.size or not other.rows.size:
            return other if not self.rows.size else self
        a, b = min(self.first, other.first), max(self.stop, other.stop)
        out = np.zeros((b - a, self.side))
        out[self.first - a : self.stop - a] += self.rows
        out[other.first - a : other.stop - a] += other.rows
        return CountsBand(self.side, a, out)

    def symmetric(self) -> tuple[int, np.ndarray]:
        """(first row, flat counts) of the band widened to rows ``a`` … ``side − a``,
        symmetric about the centre, so that its mirror (−u, −v: the flat band reversed)
        falls on itself."""
        if not self.rows.size:
            return 0, np.zeros(0)
        a = min(self.first, self.side - self.stop)
        out = np.zeros((self.side - 2 * a, self.side))
        out[self.first - a : self.stop - a] = self.rows
        return a, out.reshape(-1)

    def whole(self) -> np.ndarray:
        """The flat (side²,) grid."""
        out = np.zeros((self.side, self.side))
        out[self.first : self.stop] = self.rows
        return out.reshape(-1)


def to_device(device: str, *arrays):
    """``(xp, arrays)``: ``device``'s array module and ``arrays`` in its memory (on the GPU
    one host→device copy each; None stays None)."""
    xp = get_xp(device=device)
    return xp, tuple(None if a is None else xp.asarray(a) for a in arrays)


def needs_density(weighting: Weighting) -> bool:
    """Whether ``weighting`` needs the first pass (uniform, Briggs)."""
    return weighting.scheme != "natural"


def part_counts(
    uvw, freq_hz, vis, weight, flag, spec: ImageSpec, weighting: Weighting, into=None, *,
    device: str = "cpu",
):  # fmt: skip
    """((2N)²,) float64: one part's Σw per uv cell (one half), on the density cells;
    added into ``into`` (earlier parts' counts) in place when given. ``device="gpu"``: the
    selection and the counts are made in device memory (a CuPy grid; ``into`` one too), so
    a GPU worker's host only reads."""
    xp, (uvw, vis, weight, flag) = to_device(device, uvw, vis, weight, flag)
    s = select_samples(uvw, freq_hz, weight, flag, vis=vis, xp=xp)
    return density_counts(s.u, s.v, s.weight, weighting.density_spec(spec), into=into)


def density_totals(counts, weighting: Weighting | None = None) -> DensityTotals:
    """The parts' summed :func:`part_counts` → the density of all the data; with a
    ``weighting`` that asks for WSClean's rank filter, its filtered weights too (the
    filter's windows need the whole grid: it is applied here, once, on the sum)."""
    band = CountsBand.of(counts)
    first, held = band.symmetric()
    mean = mean_density(held)  # the empty rows add nothing to either sum
    if weighting is None or not weighting.rank_filtered:
        return DensityTotals(mirrored(held), mean, first_row=first)
    grid = mirrored(band.whole())
    return DensityTotals(None, mean, grid_factors(grid, mean, weighting))


def weighted_samples(
    uvw, freq_hz, vis, weight, flag, spec: ImageSpec, weighting: Weighting, totals=None
):
    """(FlatSamples, (nvis,) float64 imaging weights) of one part's usable samples, in the
    memory the data lie in (NumPy, or CuPy: the selection and weights made on the GPU).

    ``totals`` (:func:`density_totals`) is required for uniform and Briggs weighting.
    """
    xp = get_xp(uvw)
    s = select_samples(uvw, freq_hz, weight, flag, vis=vis, xp=xp)
    density = mean = factor = None
    if needs_density(weighting):
        if totals is None:
            raise ValueError(f"{weighting.scheme} weighting of a part needs the density totals")
        dspec = weighting.density_spec(spec)
        if weighting.rank_filtered and totals.factors is None:
            raise ValueError("the rank filter needs totals made with the weighting")
        looked_up = totals.looked_up(s.u, s.v, dspec)
        if weighting.rank_filtered:
            factor = looked_up
        else:
            density = looked_up
        mean = totals.mean
    wt = imaging_weights(
        s.u, s.v, s.weight, spec, weighting, density=density, mean_density=mean, factor=factor
    )
    return s, xp.asarray(wt, dtype=xp.float64)


def counted_samples(
    uvw, freq_hz, vis, weight, flag, spec: ImageSpec, weighting: Weighting, totals, acc
):
    """:func:`weighted_samples` of one part and the mask of those with nonzero weight,
    their Σw, count and Σw·f added into ``acc`` (a grid or NUFFT in parts: anything with
    ``sum_weights``, ``nvis`` and ``sum_weighted_freq_hz``); None when no sample has weight.
    """
    s, wt = weighted_samples(uvw, freq_hz, vis, weight, flag, spec, weighting, totals)
    keep = wt > 0
    if not keep.any():
        return None
    freq = np.asarray(freq_hz, dtype=np.float64)
    chans = np.arange(s.shape[0] * s.shape[1]) if s.index is None else s.index
    acc.sum_weights += float(wt.sum())
    acc.nvis += int(np.count_nonzero(keep))
    acc.sum_weighted_freq_hz += float(wt @ freq[chans % s.shape[1]])
    return s, wt, keep


def part_weights(
    uvw, freq_hz, vis, weight, flag, spec: ImageSpec, weighting: Weighting, totals=None
) -> np.ndarray:
    """(row, chan) float64: the imaging weights of one part, 0 where a sample is unusable;
    in the data's memory (CuPy for data on the GPU: :func:`to_device`).

    ``totals`` (:func:`density_totals`) is required for uniform and Briggs weighting.
    """
    s, wt = weighted_samples(uvw, freq_hz, vis, weight, flag, spec, weighting, totals)
    out = get_xp(wt).zeros(s.shape[0] * s.shape[1])
    if s.index is None:
        out[:] = wt
    else:
        out[s.index] = wt
    return out.reshape(s.shape)


@dataclass(frozen=True, eq=False)
class PartImage:
    """Unnormalised images of a part (or a sum of parts) and their weights.

    Attributes
    ----------
    dirty, psf : (N, N) float64 or None
        ``Re Σ w·V·e^{…}`` and ``Re Σ w·e^{…}`` (``psf`` None when not made); None for a
        part with no usable sample.
    sum_weights : float
    nvis : int
        Samples with nonzero weight.
    sum_weighted_freq_hz : float
        ``Σ w·f`` over those samples (imaging weights w, frequencies f):
        :attr:`mean_freq_hz` is the imaging-weighted centre frequency, as WSClean writes.
    """

    dirty: np.ndarray | None
    psf: np.ndarray | None
    sum_weights: float
    nvis: int
    sum_weighted_freq_hz: float = 0.0

    def __add__(self, other: PartImage) -> PartImage:
        def add(a, b):
            return b if a is None else a if b is None else a + b

        return PartImage(
            add(self.dirty, other.dirty), add(self.psf, other.psf),
            self.sum_weights + other.sum_weights, self.nvis + other.nvis,
            self.sum_weighted_freq_hz + other.sum_weighted_freq_hz,
        )  # fmt: skip

    def __iadd__(self, other: PartImage) -> PartImage:
        """``self + other``, adding into this part's arrays in place (the sum of a chain of
        parts on one worker: no new image per part)."""

        def add(a, b):
            if a is None or b is None:
                return b if a is None else a
            a += b
            return a

        return PartImage(
            add(self.dirty, other.dirty), add(self.psf, other.psf),
            self.sum_weights + other.sum_weights, self.nvis + other.nvis,
            self.sum_weighted_freq_hz + other.sum_weighted_freq_hz,
        )  # fmt: skip

    def on_host(self) -> PartImage:
        """This part with its images in host memory (NumPy): itself where they are."""
        from uvlab.gpu.backend import to_numpy

        if all(a is None or isinstance(a, np.ndarray) for a in (self.dirty, self.psf)):
            return self
        host = lambda a: None if a is None else to_numpy(a)  # noqa: E731
        return replace(self, dirty=host(self.dirty), psf=host(self.psf))

    @property
    def mean_freq_hz(self) -> float:
        """The imaging-weighted mean frequency ``Σ w·f / Σ w``, Hz (NaN with no weight)."""
        return self.sum_weighted_freq_hz / self.sum_weights if self.sum_weights > 0 else np.nan

    def normalised(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        """(dirty, psf) divided by Σw, as :func:`~uvlab.gpu.imaging.imager.make_image` gives
        (either None where the parts did not make it)."""
        if not self.sum_weights > 0 or (self.dirty is None and self.psf is None):
            raise ValueError("the imaging weights sum to zero: nothing to image")
        scale = lambda a: None if a is None else a / self.sum_weights  # noqa: E731
        return scale(self.dirty), scale(self.psf)


def image_part(
    uvw, freq_hz, vis, weight, flag, spec: ImageSpec, weighting: Weighting, totals=None, *,
    algorithm: str = "conv", params=None, device: str = "cpu", psf: bool = True,
    on_device: bool = False,
) -> PartImage:  # fmt: skip
    """One part's unnormalised dirty image (and PSF) with the whole data's weights.

    Arguments as :func:`~uvlab.gpu.imaging.imager.make_image` (``on_device``: on the GPU
    the images stay in device memory, :meth:`PartImage.on_host` copies them), plus
    ``totals`` (:func:`density_totals`, for uniform and Briggs).
    """
    from uvlab.gpu.imaging.imager import ImagingError, make_image

    # on the GPU, the data go to the device once: the selection, weights and images there
    xp, (uvw, vis, weight, flag) = to_device(device, uvw, vis, weight, flag)
    wts = part_weights(uvw, freq_hz, vis, weight, flag, spec, weighting, totals)
    try:
        res = make_image(
            uvw, freq_hz, vis, wts, spec, flag=flag, weighting=Weighting(), algorithm=algorithm,
            params=params, device=device, psf=psf, on_device=on_device,
        )  # fmt: skip
    except ImagingError:  # nothing usable in this part
        return PartImage(None, None, 0.0, 0)
    total = res.sum_weights
    wfreq = float(wts.sum(axis=0) @ xp.asarray(freq_hz, dtype=xp.float64))
    return PartImage(
        res.dirty * total, None if res.psf is None else res.psf * total, total, res.nvis, wfreq
    )


def psf_part(
    uvw, freq_hz, vis, weight, flag, spec: ImageSpec, weighting: Weighting, totals=None, *,
    algorithm: str = "conv", params=None, device: str = "cpu",
) -> PartImage:  # fmt: skip
    """One part's unnormalised PSF alone (``dirty`` None), with the whole data's weights.

    The CLEAN PSF of an N² image is made at side 2N with the N² image's density cells
    (``spec`` of side 2N, ``weighting.density_npix`` = N; the same ``totals`` as the N²
    image's): :func:`~uvlab.gpu.deconvolution.inputs.wide_psf` in parts.
    """
    from uvlab.gpu.imaging.imager import make_psf

    xp, (uvw, vis, weight, flag) = to_device(device, uvw, vis, weight, flag)
    wts = part_weights(uvw, freq_hz, vis, weight, flag, spec, weighting, totals)
    total = float(wts.sum())
    if not total > 0:
        return PartImage(None, None, 0.0, 0)
    psf = make_psf(
        uvw, freq_hz, vis, wts, spec, flag=flag, weighting=Weighting(), algorithm=algorithm,
        params=params, device=device,
    )  # fmt: skip
    return PartImage(None, psf * total, total, int(xp.count_nonzero(wts)))
