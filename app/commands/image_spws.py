"""``uvlab image`` over several spectral windows: one multi-frequency-synthesis image.

The windows are read one by one (:func:`uvlab.app.commands.spw_args.read_spw_set`) and
kept side by side (:class:`~uvlab.app.ms.spw_set.SpwSet`); the image, its PSF and
CLEAN's PSF and major cycles treat each window as a part with the whole band's imaging
weights (:mod:`uvlab.gpu.imaging.mfs`). The FITS reference frequency is the
imaging-weighted mean frequency (as WSClean writes), the frequency axis's width the
band covered, and the history names the windows.
"""

from __future__ import annotations


def geometry_inputs(vd):
    """(uvw, freq_hz, flag) for ``choose_geometry`` and ``wterm_phase_rad``, of any windows.

    Several windows: each one's used rows, scaled by its highest frequency over the
    band's (so the band's longest baseline in wavelengths is theirs), at the band's
    highest frequency, none flagged.
    """
    import numpy as np

    if not hasattr(vd, "parts"):
        return vd.uvw, vd.freq_hz, vd.flag
    f_max = float(vd.freq_hz.max())
    uvw = np.concatenate(
        [p.uvw[~p.flag.all(axis=1)] * (float(p.freq_hz.max()) / f_max) for p in vd.parts]
    )
    return uvw, np.array([f_max]), np.zeros((uvw.shape[0], 1), dtype=bool)


def unflagged(vd) -> int:
    """Samples not flagged, over every window."""
    import numpy as np

    return sum(int(np.count_nonzero(~p.flag)) for p in getattr(vd, "parts", (vd,)))


def image_spw_set(args, vd, spec, params, weighting):
    """The multi-frequency-synthesis image (:func:`~uvlab.gpu.imaging.mfs.mfs_image`) of every
    window of ``vd`` (an SpwSet)."""
    from uvlab.gpu.imaging.mfs import mfs_image

    return mfs_image(
        vd.parts, spec, weighting, algorithm=args.algorithm, params=params, device=args.device,
    )  # fmt: skip


def clean_psf(vd, spec, weighting, algorithm, params, device):
    """CLEAN's (2N, 2N) PSF of one window or several (made as the dirty image was)."""
    from uvlab.gpu.deconvolution.inputs import wide_psf, wide_psf_of_parts

    if hasattr(vd, "parts"):
        return wide_psf_of_parts(vd.parts, spec, weighting, algorithm, params, device)
    return wide_psf(vd, spec, weighting, algorithm, params, device)


def frequency_cards(vd, res) -> dict:
    """The FITS frequency axis: ``freq_hz`` (CRVAL3) and ``bandwidth_hz`` (CDELT3).

    One window: its channels' mean and their widths' sum, as before. Several: the
    imaging-weighted mean frequency of what was imaged and the band covered, lowest
    channel edge to highest.
    """
    if not hasattr(vd, "parts"):
        return {"freq_hz": float(vd.freq_hz.mean()),
                "bandwidth_hz": float(vd.chan_width_hz * vd.nchan)}  # fmt: skip
    lo, hi = vd.band_hz
    return {"freq_hz": float(res.mean_freq_hz), "bandwidth_hz": hi - lo}


def spw_history(vd, res) -> str:
    """The history's ``spw`` entry: the window, or the windows imaged together and their band."""
    if not hasattr(vd, "parts"):
        return str(vd.spw)
    lo, hi = (f / 1e6 for f in vd.band_hz)
    return (
        f"{vd.spw} (multi-frequency synthesis of {len(vd.parts)} windows, {vd.nchan} channels, "
        f"{lo:.6f}-{hi:.6f} MHz, imaging-weighted mean {res.mean_freq_hz / 1e6:.6f} MHz)"
    )
