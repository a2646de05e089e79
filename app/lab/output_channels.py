"""Output channels (WSClean's ``-channels-out N``): the split, the imaging, the MFS means.

What ``uvlab image --channels-out N [--join-channels]`` and the window's joined CLEAN
(:mod:`uvlab.app.lab.joined_task`) both run, in one place:

- the selected channels are divided into N output channels of (near) equal
  numbers of input channels, WSClean's split: output channel k holds input
  channels ``⌊k·n/N⌋ … ⌊(k+1)·n/N⌋ − 1`` of the n selected (:func:`channel_ranges`);
- each output channel is imaged on its own (:func:`iter_parts`), with its own
  uniform/Briggs density, or with ``join`` (``-join-channels``) the MF weights made once
  on all channels (:func:`mf_weights`), and its own PSF;
- its centre frequency is the weighted centre of its channels (:func:`centre_frequency`,
  CRVAL3) and its bandwidth the band they cover (:func:`bandwidth`, CDELT3);
- the MFS model, residual and restored images are the weighted mean of the channel
  images (:func:`mfs_clean`), as WSClean's ``PREFIX-MFS-*.fits``.

docs/cubes.md.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, replace

import numpy as np


@dataclass(frozen=True)
class OutputChannel:
    """One output channel's images.

    Attributes
    ----------
    index : int
        Output channel k, from 0.
    start, stop : int
        Its input channels ``start … stop − 1`` of the selection.
    freq_hz : float
        The weighted centre frequency (:func:`centre_frequency`).
    bandwidth_hz : float
    dirty, psf : (N, N) float64
        Normalised by its own Σw (DESIGN §1).
    sum_weights : float
        Σ of its imaging weights: its weight in the MFS mean.
    nvis : int
    clean : Deconvolved or None
    """

    index: int
    start: int
    stop: int
    freq_hz: float
    bandwidth_hz: float
    dirty: np.ndarray
    psf: np.ndarray
    sum_weights: float
    nvis: int
    clean: object = None


def channel_ranges(nchan: int, n: int) -> list[tuple[int, int]]:
    """WSClean's split of ``nchan`` channels into ``n`` output channels: (start, stop) each.

    Output channel k holds ``⌊k·nchan/n⌋ … ⌊(k+1)·nchan/n⌋ − 1``: sizes differ by at most one.
    """
    if not 1 <= n <= nchan:
        raise ValueError(f"{n} output channels of {nchan} channels")
    return [(k * nchan // n, (k + 1) * nchan // n) for k in range(n)]


def centre_frequency(freq_hz, weight, flag) -> float:
    """Σ_c W_c·ν_c / Σ_c W_c, W_c the data weight of channel c's unflagged samples (Hz).

    The plain mean of ``freq_hz`` where every sample has zero weight.
    """
    w = np.where(np.asarray(flag), 0.0, np.asarray(weight, dtype=np.float64))
    w = np.where(np.isfinite(w) & (w > 0), w, 0.0)
    wc = np.broadcast_to(w, np.shape(flag)).sum(axis=0)
    freq = np.asarray(freq_hz, dtype=np.float64)
    return float((wc * freq).sum() / wc.sum()) if wc.sum() > 0 else float(freq.mean())


def bandwidth(freq_hz, chan_width_hz: float) -> float:
    """The band the channels cover: from the lowest channel's lower edge to the highest's upper."""
    freq = np.asarray(freq_hz, dtype=np.float64)
    return float(freq.max() - freq.min() + abs(chan_width_hz))


def channel_data(vd, start: int, stop: int):
    """``vd`` (a VisData) restricted to input channels ``start … stop − 1``."""
    sl = slice(start, stop)
    weight = vd.weight if np.ndim(vd.weight) < 2 else vd.weight[:, sl]
    return replace(vd, freq_hz=vd.freq_hz[sl], vis=vd.vis[:, sl], weight=weight,
                   flag=vd.flag[:, sl])  # fmt: skip


@dataclass(frozen=True)
class ImagedParts:
    """The output channels imaged, before any CLEAN (:func:`image_parts`).

    Attributes
    ----------
    channels : list of OutputChannel
        Without ``clean``.
    parts : list of VisData
        Each output channel's visibilities, with the imaging weights of ``weighting``
        applied to them (their weights: the MF weights with ``--join-channels``).
    weighting : Weighting
        What ``parts`` are still to be weighted with (natural after MF weighting).
    """

    channels: list
    parts: list
    weighting: object


def image_parts(vd, spec, n: int, weighting, algorithm, params, device, join: bool = False
                ) -> ImagedParts:  # fmt: skip
    """The ``n`` output channels of ``vd`` imaged, not CLEANed (:func:`iter_parts` to its end)."""
    return finish(iter_parts(vd, spec, n, weighting, algorithm, params, device, join))


def iter_parts(vd, spec, n: int, weighting, algorithm, params, device, join: bool = False,
               on_block=None) -> Generator[tuple[int, int], None, ImagedParts]:  # fmt: skip
    """Image the ``n`` output channels of ``vd``, yielding ``(k, n)`` before channel k.

    Returns (as its ``StopIteration`` value) the :class:`ImagedParts`; with ``join`` the
    MF weights (:func:`mf_weights`) made once on all channels. ``vd``: a VisData or the
    lab's Samples (``uvw``, ``freq_hz``, ``vis``, ``weight``, ``flag``, ``chan_width_hz``).
    ``on_block``: the gridders' callback between blocks (the window's cancel check).
    """
    from uvlab.gpu.imaging.imager import ImagingError, make_image
    from uvlab.gpu.imaging.weighting import Weighting

    data = vd  # CRVAL3 from the data weights, with MF weighting too
    if join:  # the imaging weights made once on all channels, then used as they are
        vd, weighting = replace(vd, weight=mf_weights(vd, spec, weighting)), Weighting()
    width = getattr(vd, "chan_width_hz", None)  # the lab's samples: their channel spacing
    if width is None:
        width = float(np.abs(np.diff(vd.freq_hz)).min()) if len(vd.freq_hz) > 1 else 0.0
    out, parts = [], []
    for k, (start, stop) in enumerate(channel_ranges(len(vd.freq_hz), n)):
        yield k, n
        part, own = channel_data(vd, start, stop), channel_data(data, start, stop)
        try:
            res = make_image(part.uvw, part.freq_hz, part.vis, part.weight, spec,
                             flag=part.flag, weighting=weighting, algorithm=algorithm,
                             params=params, device=device, on_block=on_block)  # fmt: skip
        except ImagingError as exc:  # e.g. every sample of this output channel flagged
            raise channel_failed(k, start, stop, exc) from None
        parts.append(part)
        out.append(
            OutputChannel(
                k, start, stop, centre_frequency(own.freq_hz, own.weight, own.flag),
                bandwidth(part.freq_hz, width), res.dirty, res.psf,
                float(res.sum_weights), int(res.nvis),
            )
        )  # fmt: skip
    return ImagedParts(out, parts, weighting)


def channel_failed(k: int, start: int, stop: int, exc: Exception):
    """The one-line ImagingError of output channel ``k`` (input channels ``start`` …
    ``stop − 1``) that could not be imaged, in memory or in row chunks."""
    from uvlab.gpu.imaging.imager import ImagingError

    return ImagingError(
        f"--channels-out: output channel {k} (input channels {start}-{stop - 1}): {exc}"
    )


def finish(steps: Generator):
    """Run a generator of steps (:func:`iter_parts`) to its end: its return value."""
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value


def mf_weights(vd, spec, weighting) -> np.ndarray:
    """(row, chan) imaging weights of all channels on one density grid (WSClean's MF weighting).

    Uniform and Briggs count the density of every selected channel's samples together, as
    the MFS image does, so that the channel images' weighted mean is the MFS image; the
    taper is applied too. Zero where a sample is flagged or has no usable weight.
    """
    from uvlab.gpu.constants import C_LIGHT
    from uvlab.gpu.imaging.weighting import imaging_weights

    w = np.broadcast_to(np.asarray(vd.weight, dtype=np.float64), vd.flag.shape)
    ok = ~np.asarray(vd.flag) & np.isfinite(w) & (w > 0)
    scale = np.asarray(vd.freq_hz, dtype=np.float64)[None, :] / C_LIGHT
    u, v = (np.asarray(vd.uvw[:, k], dtype=np.float64)[:, None] * scale for k in (0, 1))
    out = np.zeros(vd.flag.shape)
    out[ok] = imaging_weights(u[ok], v[ok], w[ok], spec, weighting)
    return out


def mfs_mean(images, weights) -> np.ndarray:
    """Σ_k W_k·I_k / Σ_k W_k: WSClean's MFS image of the channel images ``images``."""
    w = np.asarray(weights, dtype=np.float64)
    return np.tensordot(w / w.sum(), np.asarray(images, dtype=np.float64), axes=1)


def mfs_clean(channels: list[OutputChannel], beam, join: bool = False, nterms=None):
    """The MFS model, residual and restored image: the channels' weighted means.

    ``beam``: the MFS PSF's fitted beam, written on the MFS image. The iterations are
    the channels' total (joined: the joined CLEAN's); the stop reason each channel's,
    joined. ``nterms``: the spectral terms of the model's pixels for the component list.
    """
    cleans = [c.clean for c in channels]
    w = [c.sum_weights for c in channels]
    extra = {}
    if nterms:
        extra["spectral_terms"], extra["ref_freq_hz"] = spectral_terms(channels, nterms)
    return replace(
        cleans[0],
        model=mfs_mean([c.model for c in cleans], w),
        residual=mfs_mean([c.residual for c in cleans], w),
        restored=mfs_mean([c.restored for c in cleans], w),
        beam=beam,
        iterations=cleans[0].iterations if join else sum(c.iterations for c in cleans),
        cycles=max(c.cycles for c in cleans),
        stop_reason="; ".join(sorted({c.stop_reason for c in cleans})),
        **extra,
    )


def spectral_fit(channels, nterms: int | None):
    """The :class:`SpectralFit` of ``nterms`` over the output channels, or None without one.

    Frequencies: the channels' weighted centres (CRVAL3); weights: their Σ of imaging weights.
    """
    if not nterms:
        return None
    from uvlab.gpu.deconvolution.spectral_fit import SpectralFit

    return SpectralFit([c.freq_hz for c in channels], [c.sum_weights for c in channels], nterms)


def spectral_terms(channels, nterms: int) -> tuple[np.ndarray, float]:
    """((K, N, N) terms, ν0 Hz): the fit of every model pixel's channel values.

    Every component's spectrum is a K-term polynomial, so is their sum at a pixel: the fit
    gives the pixel's terms back exactly. ``terms[0]`` is Jy/pixel at ν0, ``terms[1:]``
    WSClean's ``SpectralIndex`` with ``LogarithmicSI`` false.
    """
    fit = spectral_fit(channels, nterms)
    models = np.stack([c.clean.model for c in channels], axis=-1)  # (N, N, C)
    return np.moveaxis(np.asarray(fit.fit(models)), -1, 0), fit.ref_freq_hz
