"""Multi-frequency synthesis: one image of several spectral windows, each with its own channels.

WSClean's default and tclean's ``specmode='mfs'``: every sample of every window is
gridded at its own frequency (u, v in wavelengths) into one image. The windows have
different frequency axes (and numbers of channels), so they are not stacked into one
(row, chan) array: each window is a *part* of :mod:`uvlab.gpu.imaging.parts`, imaged
by the one engine with the whole band's imaging weights, and the parts are summed.

Uniform and Briggs weighting count the density of *all* windows in each uv cell (as
tclean and WSClean do: a cell's density is every sample that falls in it, whatever its
window), so uniform over the band is not the sum of per-window uniform images.

A part is anything with ``uvw`` (row, 3) metres, ``freq_hz`` (chan,), ``vis``,
``weight`` and ``flag`` (row, chan): a :class:`~uvlab.app.ms.reader.VisData` per window.
"""

from __future__ import annotations

from collections.abc import Sequence

from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.imaging.imager import ImageResult
from uvlab.gpu.imaging.parts import (
    DensityTotals,
    PartImage,
    density_totals,
    image_part,
    needs_density,
    part_counts,
)
from uvlab.gpu.imaging.weighting import Weighting


def mfs_totals(parts: Sequence, spec: ImageSpec, weighting: Weighting) -> DensityTotals | None:
    """The density of every part together (uniform, Briggs); None for natural weighting."""
    if not needs_density(weighting):
        return None
    counts = None
    for p in parts:
        c = part_counts(p.uvw, p.freq_hz, p.vis, p.weight, p.flag, spec, weighting)
        counts = c if counts is None else counts + c
    return density_totals(counts, weighting)


def mfs_image(
    parts: Sequence, spec: ImageSpec, weighting: Weighting, totals=None, *,
    algorithm: str = "conv", params=None, device: str = "cpu", psf: bool = True,
) -> ImageResult:  # fmt: skip
    """The multi-frequency-synthesis image of ``parts`` (one dirty image and PSF), with
    its ``mean_freq_hz``.

    Arguments as :func:`~uvlab.gpu.imaging.parts.image_part`; ``totals``
    (:func:`mfs_totals`) is computed here when None and the weighting needs it.
    Equal to :func:`~uvlab.gpu.imaging.imager.make_image` of all the samples at
    once, to rounding. Raises ``ValueError`` when nothing is left to image.
    """
    import time

    from uvlab.gpu.backend import resolve_device

    timing: dict[str, float] = {}
    if totals is None and needs_density(weighting):
        t0 = time.perf_counter()
        totals = mfs_totals(parts, spec, weighting)
        timing["density"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    total = PartImage(None, None, 0.0, 0)
    for p in parts:
        total = total + image_part(
            p.uvw, p.freq_hz, p.vis, p.weight, p.flag, spec, weighting, totals,
            algorithm=algorithm, params=params, device=device, psf=psf,
        )  # fmt: skip
    timing["grid"] = time.perf_counter() - t0
    dirty, psf_img = total.normalised()
    return ImageResult(
        dirty, psf_img, total.sum_weights, total.nvis, algorithm, resolve_device(device),
        timing, total.mean_freq_hz,
    )  # fmt: skip


def mfs_weights(parts: Sequence, spec: ImageSpec, weighting: Weighting, totals=None):
    """[(row, chan) float64 per part]: each part's imaging weights over the whole band.

    0 where a sample is unusable; ``totals`` as :func:`mfs_image`'s.
    """
    from uvlab.gpu.imaging.parts import part_weights

    if totals is None and needs_density(weighting):
        totals = mfs_totals(parts, spec, weighting)
    return [
        part_weights(p.uvw, p.freq_hz, p.vis, p.weight, p.flag, spec, weighting, totals)
        for p in parts
    ]
