"""The files of ``uvlab image --channels-out N``: each output channel's set and the MFS set.

WSClean's names: ``PREFIX-0000-dirty.fits`` … ``PREFIX-{N−1:04d}-*.fits`` per output
channel and ``PREFIX-MFS-*.fits``; with several ``--pol`` products the polarisation
follows the channel, ``PREFIX-0000-I-image.fits`` … ``PREFIX-MFS-I-image.fits``
(:func:`~uvlab.app.commands.image_outputs.cube_names`). Each channel's FITS files carry
its own CRVAL3, CDELT3 and beam; docs/cubes.md.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from uvlab.app.commands.image_channels import OutputChannel


def cube_stem(prefix, tag: str, pol: str | None = None) -> str:
    """``PREFIX-TAG`` (TAG ``0000`` … or ``MFS``), and ``-POL`` after it: WSClean's order."""
    return f"{prefix}-{tag}" + (f"-{pol}" if pol else "")


def crop_channels(channels: list[OutputChannel], size) -> list[OutputChannel]:
    """Every channel's images cropped to ``size`` (W, H); unchanged when None."""
    from uvlab.app.commands.image_size import crop_outputs

    if size is None:
        return channels
    out = []
    for c in channels:
        cropped, clean = crop_outputs(c, c.clean, size)
        out.append(replace(cropped, clean=clean))
    return out


def write_channels(prefix, channels: list[OutputChannel], spec, ra, dec, common,
                   pol: str | None = None) -> list:  # fmt: skip
    """Write each output channel's FITS files, with its own CRVAL3 and CDELT3 and beam.

    ``pol``: the polarisation's tag after the channel's (``PREFIX-0000-I-…``), or none.
    """
    from uvlab.app.commands.image_outputs import psf_beam
    from uvlab.app.outputs.fits_io import write_image_fits

    files = []
    for c in channels:
        what = f"{c.index} of {len(channels)}: input channels {c.start}-{c.stop - 1}"
        history = {**common["history"], "output_channel": f"{what}, sum_weights "
                   f"{c.sum_weights:.6g}"}  # fmt: skip
        own = {**common, "freq_hz": c.freq_hz, "bandwidth_hz": c.bandwidth_hz, "history": history}
        name = cube_stem(prefix, f"{c.index:04d}", pol)
        beam = c.clean.beam if c.clean is not None else psf_beam(c.psf, spec)
        files += [
            write_image_fits(f"{name}-dirty.fits", c.dirty, spec, ra, dec, **own, beam=beam),
            write_image_fits(f"{name}-psf.fits", c.psf, spec, ra, dec, **own, beam=beam),
        ]
        if c.clean is not None:
            files += [
                write_image_fits(f"{name}-model.fits", c.clean.model, spec, ra, dec, **own,
                                 bunit="Jy/pixel"),
                write_image_fits(f"{name}-residual.fits", c.clean.residual, spec, ra, dec, **own),
                write_image_fits(f"{name}-image.fits", c.clean.restored, spec, ra, dec, **own,
                                 beam=c.clean.beam),
            ]  # fmt: skip
    return files


def write_image_set(prefix, res, clean, channels, spec, ra, dec, common, beam,
                    pol: str | None = None, sources=None) -> list:  # fmt: skip
    """The FITS set of ``uvlab image`` in memory and in chunks: each output channel's
    (with ``channels``) and then the MFS dirty image and PSF, with a fitted beam on both as
    CASA writes them, and CLEAN's model, residual, image and ``PREFIX-sources.txt``.
    WSClean's names: ``PREFIX-MFS-*`` beside a cube, ``PREFIX-*`` without one; with
    ``pol`` (a cube of one of several ``--pol`` products) ``PREFIX-0000-I-*`` and
    ``PREFIX-MFS-I-*``, and the component list at ``sources``."""
    from uvlab.app.commands.image_outputs import write_clean
    from uvlab.app.outputs.fits_io import write_image_fits

    mfs = cube_stem(prefix, "MFS", pol) if channels else f"{prefix}"
    files = write_channels(prefix, channels, spec, ra, dec, common, pol) if channels else []
    files += [
        write_image_fits(f"{mfs}-dirty.fits", res.dirty, spec, ra, dec, **common, beam=beam),
        write_image_fits(f"{mfs}-psf.fits", res.psf, spec, ra, dec, **common, beam=beam),
    ]
    if clean is not None:
        files += write_clean(mfs, clean, spec, ra, dec, common,
                             sources or f"{prefix}-sources.txt")  # fmt: skip
    return files


def summary_lines(channels: list[OutputChannel]) -> list[str]:
    """One line per output channel for stdout: its channels, frequency, peak and CLEAN."""
    lines = []
    for c in channels:
        line = (
            f"channel {c.index:04d}: input channels {c.start}-{c.stop - 1}, "
            f"{c.freq_hz / 1e6:.6g} MHz (width {c.bandwidth_hz / 1e6:.4g} MHz), "
            f"{c.nvis} visibilities, peak {c.dirty.max():.4g} Jy/beam"
        )
        if c.clean is not None:
            line += (
                f"; CLEAN {c.clean.iterations} iterations ({c.clean.stop_reason}), residual "
                f"peak {np.abs(c.clean.residual).max():.4g} Jy/beam"
            )
        lines.append(line)
    return lines
