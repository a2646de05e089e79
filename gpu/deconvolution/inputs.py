"""What CLEAN needs from the data, made alike for every front end (issue 26).

- :func:`wide_psf`: the CLEAN PSF of an N² image, side 2N, weighted as the N² image
  (densities on its N² uv cells);
- :func:`major_cycle_for`: the samples the dirty image used
  (:func:`~uvlab.gpu.imaging.reuse.select_samples`), their imaging weights
  (:func:`~uvlab.gpu.imaging.weighting.imaging_weights`) and the imaging's grid and
  degrid pair with its w-correction, as a
  :class:`~uvlab.gpu.deconvolution.cotton_schwab.MajorCycle`.

``uvlab image --niter`` and the window's Deconvolution task both call these on their
visibilities (anything with ``uvw``, ``freq_hz``, ``vis``, ``weight``, ``flag``: the
CLI's read MS, the window's samples), so their CLEANs start from the same arrays.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from uvlab.gpu.deconvolution.cotton_schwab import MajorCycle, major_cycle_pair


def wide_psf(data, spec, weighting, algorithm: str, params, device: str, on_block=None):
    """The CLEAN PSF of an N² image: side 2N, the visibilities weighted as for the N² image.

    Högbom subtracts the PSF over the whole image only with a PSF of side 2N (without major
    cycles the N² PSF's missing sidelobes would stay in the residual). Uniform and Briggs
    weights count density on the N² image's uv cells (``Weighting.density_npix``), as the
    dirty image did: on 2N's finer cells the PSF differs from the dirty image's by up to
    3 % of its peak (uniform; docs/conventions.md). Only the PSF is gridded.
    ``on_block`` is :func:`~uvlab.gpu.imaging.imager.make_psf`'s (a cancel check).

    Returns
    -------
    (2N, 2N) float64 NumPy array, peak 1 at ``[N, N]``.
    """
    from uvlab.gpu.image_spec import ImageSpec
    from uvlab.gpu.imaging.imager import make_psf

    return make_psf(
        data.uvw, data.freq_hz, data.vis, data.weight, ImageSpec(2 * spec.npix, spec.cell_rad),
        flag=data.flag, weighting=replace(weighting, density_npix=spec.npix),
        algorithm=algorithm, params=params, device=device, on_block=on_block,
    )  # fmt: skip


def major_cycle_for(data, spec, weighting, algorithm: str, params, xp) -> MajorCycle:
    """Cotton–Schwab's major cycle on ``data`` as the dirty image saw it, on ``xp``.

    The samples with positive finite weight, unflagged, with finite visibilities; the
    imaging weights of ``weighting`` on ``spec``; ``algorithm``'s grid and degrid pair
    (:func:`~uvlab.gpu.deconvolution.cotton_schwab.major_cycle_pair`), with w when
    ``params.w_term`` (w-stacking or w-projection). A scalar weight or a (row, 1) flag
    is broadcast to the data's shape.
    """
    from uvlab.gpu.imaging.reuse import select_samples
    from uvlab.gpu.imaging.weighting import imaging_weights

    vis_all = xp.asarray(data.vis)  # one host→device copy for the selection and the take
    shape = tuple(vis_all.shape[:2])
    weight = data.weight if np.ndim(data.weight) else np.full(shape, float(data.weight))
    s = select_samples(data.uvw, data.freq_hz, weight, data.flag, vis=vis_all, xp=xp)
    vis = xp.asarray(s.take(vis_all), dtype=xp.complex128)
    w = imaging_weights(s.u, s.v, s.weight, spec, weighting)
    grid, degrid_fn = major_cycle_pair(algorithm, params, xp)
    w_lambda = s.w if params is not None and params.w_term else None
    return MajorCycle(s.u, s.v, vis, w, spec, grid, degrid_fn, w=w_lambda)


def wide_psf_of_parts(parts, spec, weighting, algorithm: str, params, device: str, totals=None):
    """:func:`wide_psf` of several parts imaged as one (spectral windows, as in ``mfs``).

    Each part's samples carry the whole band's imaging weights on the N² image's density
    cells (``totals``: :func:`~uvlab.gpu.imaging.mfs.mfs_totals` on ``spec``); the parts'
    PSFs are summed with their Σw and divided once, as the dirty image was.

    Returns
    -------
    (2N, 2N) float64 NumPy array, peak 1 at ``[N, N]``.
    """
    from uvlab.gpu.image_spec import ImageSpec
    from uvlab.gpu.imaging.imager import make_psf
    from uvlab.gpu.imaging.mfs import mfs_weights
    from uvlab.gpu.imaging.weighting import Weighting

    spec2 = ImageSpec(2 * spec.npix, spec.cell_rad)
    wt2 = replace(weighting, density_npix=spec.npix)  # the density cells of the N² image
    total, wsum = None, 0.0
    for p, wts in zip(parts, mfs_weights(parts, spec2, wt2, totals), strict=True):
        s = float(wts.sum())
        if not s > 0:
            continue
        psf = make_psf(
            p.uvw, p.freq_hz, p.vis, wts, spec2, flag=p.flag, weighting=Weighting(),
            algorithm=algorithm, params=params, device=device,
        ) * s  # fmt: skip
        total, wsum = (psf if total is None else total + psf), wsum + s
    if total is None:
        raise ValueError("the imaging weights sum to zero: nothing to clean")
    return total / wsum


def major_cycle_of_parts(parts, spec, weighting, algorithm: str, params, xp, totals=None):
    """:func:`major_cycle_for` over several parts: their samples in one major cycle.

    Each part (a spectral window) is selected at its own frequencies with the whole
    band's imaging weights (``totals`` as :func:`wide_psf_of_parts`'s); the selected
    samples (u, v, w in wavelengths, visibilities, weights: 1-D) are joined, so the
    major cycle grids and degrids every window at once.
    """
    from uvlab.gpu.imaging.mfs import mfs_weights
    from uvlab.gpu.imaging.reuse import select_samples

    cols: dict[str, list] = {"u": [], "v": [], "w": [], "vis": [], "wt": []}
    for p, wts in zip(parts, mfs_weights(parts, spec, weighting, totals), strict=True):
        vis_all = xp.asarray(p.vis)
        s = select_samples(p.uvw, p.freq_hz, wts, p.flag, vis=vis_all, xp=xp)
        for key, arr in (("u", s.u), ("v", s.v), ("w", s.w), ("wt", s.weight)):
            cols[key].append(arr)
        cols["vis"].append(xp.asarray(s.take(vis_all), dtype=xp.complex128))
    u, v, w, vis, wt = (xp.concatenate(cols[k]) for k in ("u", "v", "w", "vis", "wt"))
    grid, degrid_fn = major_cycle_pair(algorithm, params, xp)
    w_lambda = w if params is not None and params.w_term else None
    return MajorCycle(u, v, vis, wt, spec, grid, degrid_fn, w=w_lambda)
