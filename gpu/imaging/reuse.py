"""What images of the same samples share, kept between calls (DESIGN §4: sort / bin, weighting).

An interactive session images the same samples again and again: the
visibilities change with the sky, the imaging weights with the weighting, the
gridding plan with the cell. :class:`ImagingCache` keeps, each for its last
key only (so its memory stays bounded):

- the usable samples (:class:`FlatSamples`: flat u, v, w in wavelengths, the
  data weights and which (row, chan) entries they are), keyed by the content
  of ``uvw``, ``freq_hz``, ``weight`` and ``flag`` (:func:`fingerprint`, a
  SHA-1 of their bytes: ≈ 6 ms for 363k rows, where selecting again costs
  ≈ 100 ms);
- their uv-cell density on an image's Fourier grid (samples, spec);
- the imaging weights, their sum and count (samples, spec, weighting);
- ducc0's NUFFT plan of ``conv`` (samples, spec, ε, σ, threads);
- the PSF (samples, spec, weighting, algorithm, gridder parameters but the
  threads).

On the GPU (:func:`~uvlab.gpu.imaging.imager.make_image` with ``device="gpu"``)
the samples, weights and density stay on the device, and the visibilities'
device copy too, but only under keys the caller gives (``data_key``,
``vis_key``: the lab's observation and prediction): an imaging-only change
then moves nothing to the GPU.

Without a ``vis_key`` the visibilities are in no key and are never kept:
whatever they hold, the image is made from them. Samples selected with the visibilities' own mask
(some non-finite, :func:`select_samples` with ``vis``) have no key, and
nothing made from them is kept.

Used by :func:`uvlab.gpu.imaging.imager.make_image` on the CPU, with a cache
its caller keeps (the lab's worker) or a fresh one.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from uvlab.gpu.constants import C_LIGHT


def fingerprint(*arrays) -> bytes:
    """A digest of the arrays' dtypes, shapes and values (None and scalars allowed)."""
    h = hashlib.sha1(usedforsecurity=False)
    for a in arrays:
        if a is None:
            h.update(b"None;")
            continue
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape};".encode())
        h.update(a.reshape(-1).view(np.uint8))
    return h.digest()


@dataclass(frozen=True, eq=False)
class FlatSamples:
    """The usable samples of (row, chan) data, flat.

    Attributes
    ----------
    u, v, w : (nvis,) float64
        Coordinates, wavelengths.
    weight : (nvis,) float64
        Data weights (positive, finite; read-only, a broadcast view where
        one weight holds for all).
    index : (nvis,) int or None
        Flat indices of the samples in the (row, chan) data; None when every
        entry is used, in order.
    shape : (int, int)
        (row, chan) of the data.
    key : bytes or None
        :func:`fingerprint` of what they were selected from; None when the
        visibilities took part (nothing made from them is kept).
    """

    u: np.ndarray
    v: np.ndarray
    w: np.ndarray
    weight: np.ndarray
    index: np.ndarray | None
    shape: tuple[int, int]
    key: bytes | None = None

    @property
    def nvis(self) -> int:
        return int(self.u.size)

    def take(self, vis) -> np.ndarray:
        """The samples' entries of (row, chan) ``vis``, flat (a view when all are used).

        ``vis`` lies where the samples do (NumPy, or CuPy for samples on the GPU).
        """
        vis = vis if hasattr(vis, "__cuda_array_interface__") else np.asarray(vis)
        if vis.shape[:2] != self.shape:
            raise ValueError(f"visibilities of shape {vis.shape} for samples of {self.shape}")
        flat = vis.reshape(-1)
        return flat if self.index is None else flat[self.index]


def select_samples(uvw, freq_hz, weight, flag=None, vis=None, xp=np) -> FlatSamples:
    """The samples with positive finite weight, unflagged (and finite ``vis`` if given).

    Parameters
    ----------
    uvw : (row, 3) float, metres
    freq_hz : (chan,) float
    weight : (row, chan) float or broadcastable
    flag : (row, chan) bool or broadcastable, optional
    vis : (row, chan) complex, optional
        Also drop its non-finite entries (its shape is then the data's).
    xp : numpy or cupy
        Where the selection runs; inputs are moved there first.

    Returns
    -------
    FlatSamples, with ``key`` None.
    """
    uvw = xp.asarray(uvw, dtype=xp.float64)
    freq = xp.asarray(freq_hz, dtype=xp.float64)
    nrow, nchan = (uvw.shape[0], freq.size) if vis is None else xp.asarray(vis).shape[:2]
    weight = xp.broadcast_to(xp.asarray(weight, dtype=xp.float64), (nrow, nchan))
    ok = (weight > 0) & xp.isfinite(weight)
    if vis is not None:
        ok &= xp.isfinite(xp.asarray(vis))
    if flag is not None:
        ok &= ~xp.broadcast_to(xp.asarray(flag, dtype=bool), (nrow, nchan))
    shape = (int(nrow), int(nchan))
    if bool(ok.all()):  # every entry: the same products, without gathering
        scale = freq / C_LIGHT
        u, v, w = ((uvw[:, k, None] * scale).reshape(-1) for k in range(3))
        weight = xp.array(weight, dtype=xp.float64, order="C").reshape(-1)  # a copy: kept
        return FlatSamples(u, v, w, weight, None, shape)
    rows, chans = xp.nonzero(ok)
    scale = freq[chans] / C_LIGHT
    return FlatSamples(
        uvw[rows, 0] * scale,
        uvw[rows, 1] * scale,
        uvw[rows, 2] * scale,
        weight[rows, chans],
        rows * nchan + chans,
        shape,
    )


@dataclass(frozen=True, eq=False)
class Weights:
    """Imaging weights of some samples: (nvis,) float64, their sum and nonzero count."""

    weight: np.ndarray
    total: float
    nonzero: int


class ImagingCache:
    """What the last images shared, reused by the next (see the module's notes).

    Not thread-safe: one worker thread uses it (ducc0's plans must not be
    called from two threads at once either).
    """

    def __init__(self):
        self._last: dict[str, tuple[object, object]] = {}
        self.hits: dict[str, int] = {}  # kind → times a kept value was reused (for tests)

    def clear(self) -> None:
        """Forget everything (frees the memory)."""
        self._last.clear()

    def _get(self, kind: str, key, make):
        if key is None or key[0] is None:  # samples without a key: keep nothing
            return make()
        last = self._last.get(kind)
        if last is not None and last[0] == key:
            self.hits[kind] = self.hits.get(kind, 0) + 1
            return last[1]
        self._last.pop(kind, None)  # free the old value before making the new one
        value = make()
        self._last[kind] = (key, value)
        return value

    def samples(self, uvw, freq_hz, weight, flag=None, *, data_key=None, xp=np) -> FlatSamples:
        """:func:`select_samples` of these inputs, kept by their :func:`fingerprint`.

        ``data_key``: a hashable the caller vouches names the content of
        ``uvw``, ``freq_hz``, ``weight`` and ``flag`` (the lab's observation);
        it replaces the fingerprint (≈ 6 ms for 363k rows). With ``xp`` CuPy
        the selection is made and kept on the GPU: only with a ``data_key``
        (fingerprinting device data would cost the transfer it saves).
        """
        on_gpu = xp is not np
        if data_key is not None:
            key = ("gpu" if on_gpu else "cpu", data_key)
        else:
            key = None if on_gpu else fingerprint(uvw, freq_hz, weight, flag)
        last = self._last.get("samples")
        if last is not None and last[0] != (key,):
            self.clear()  # other samples: nothing kept is of use, free it first

        def make():
            s = select_samples(uvw, freq_hz, weight, flag, xp=xp)
            wt = s.weight
            if np.ndim(weight) == 0 and s.index is None:  # one weight for all: no memory
                wt = xp.broadcast_to(xp.asarray(weight, dtype=xp.float64), (s.nvis,))
            return FlatSamples(s.u, s.v, s.w, wt, s.index, s.shape, key)

        return self._get("samples", (key,), make)

    def device_vis(self, vis, vis_key, xp):
        """``vis`` on the GPU, the copy kept under ``vis_key`` (the caller's name for its content).

        Kept with the samples it belongs to: a new ``samples`` key frees it.
        """
        key = None if vis_key is None else (self._samples_key(), vis_key)
        return self._get("vis", key, lambda: xp.asarray(vis))

    def _samples_key(self):
        last = self._last.get("samples")
        return None if last is None else last[0][0]

    def density(self, s: FlatSamples, spec):
        """:func:`~uvlab.gpu.imaging.weighting.cell_density` of ``s`` on ``spec``'s grid."""
        from uvlab.gpu.imaging.weighting import cell_density

        return self._get("density", (s.key, spec), lambda: cell_density(s.u, s.v, s.weight, spec))

    def weights(self, s: FlatSamples, spec, weighting) -> Weights:
        """:func:`~uvlab.gpu.imaging.weighting.imaging_weights` of ``s``, with their sum."""
        from uvlab.gpu.imaging.weighting import imaging_weights

        def make():
            natural = weighting.scheme == "natural"
            own = natural or weighting.rank_filtered  # the filter counts its own grid
            density = None if own else self.density(s, weighting.density_spec(spec))
            wt = imaging_weights(s.u, s.v, s.weight, spec, weighting, density=density)
            return Weights(wt, float(wt.sum()), int(np.count_nonzero(wt)))

        return self._get("weights", (s.key, spec, weighting), make)

    def gpu_bin_plan(self, s: FlatSamples, spec, algorithm: str, params, timer=None):
        """The CUDA sort / bin of ``s``'s points for ``algorithm`` (None where none applies).

        :func:`uvlab.gpu.gridders.cuda_gridders.bin_plan`: dirty image and PSF
        share it, and an image of other visibilities at the same points
        (another weighting, a sky edit) reuses it. None for the DFT and for
        what runs on the host (w-stacking, the host-only ``ducc``).
        """
        from uvlab.gpu.gridders.registry import algorithm as record

        rec = record(algorithm)
        if not rec.is_gridder or rec.cuda is None:
            return None
        from uvlab.gpu.gridders.cuda_gridders import bin_plan
        from uvlab.gpu.gridders.params import GridParams

        params = params or GridParams()  # what the gridder is called with (make_image's None)
        key = (s.key, spec, algorithm, params)
        return self._get(
            "bin plan", key, lambda: bin_plan(rec, s.u, s.v, spec, params, timer=timer)
        )

    def nufft_plan(self, rec, s: FlatSamples, spec, params, timer=None):
        """The NUFFT plan of ``s`` for the catalogue record ``rec`` (its ``nufft_plan``)."""
        key = (rec.name, s.key, spec, params.accuracy(), params.sigma, params.threads)
        make = rec.nufft_plan
        return self._get("plan", key, lambda: make(s.u, s.v, spec, params, timer=timer))

    def psf(self, s: FlatSamples, spec, weighting, algorithm: str, params):
        """The kept PSF (normalised, read-only) of these samples and choices, or None."""
        last = self._last.get("psf")
        key = self._psf_key(s, spec, weighting, algorithm, params)
        if key[0] is None or last is None or last[0] != key:
            return None
        self.hits["psf"] = self.hits.get("psf", 0) + 1
        return last[1]

    def store_psf(self, s: FlatSamples, spec, weighting, algorithm: str, params, psf) -> None:
        """Keep ``psf`` (normalised; made read-only, as every later image shares it)
        for :meth:`psf`; nothing for samples without a key."""
        key = self._psf_key(s, spec, weighting, algorithm, params)
        if key[0] is not None:
            psf.setflags(write=False)
            self._last["psf"] = (key, psf)

    @staticmethod
    def _psf_key(s, spec, weighting, algorithm, params) -> tuple:
        # the threads change the rounding only (≈ 1e-16), not the PSF
        return (
            s.key,
            spec,
            weighting,
            algorithm,
            None if params is None else params.with_(threads=0),
        )
