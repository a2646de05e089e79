"""``uvlab image --channels-out N --join-channels --niter …``: WSClean's joined-channel CLEAN.

The output channels, each imaged with the MF weights (one density grid), are CLEANed
together by the one driver (:func:`~uvlab.gpu.deconvolution.driver.iter_clean` with
``joined``): peaks on the MFS residual (the channels' mean weighted by their Σ of
imaging weights), a component in every channel from that channel's residual, each
channel's own PSF of side 2N, and with Cotton–Schwab each channel's own major cycles
(:mod:`uvlab.gpu.deconvolution.joined`). With ``--fit-spectral-pol K`` each component's
channel values are replaced by the K-term polynomial fitted to them
(:class:`~uvlab.gpu.deconvolution.spectral_fit.SpectralFit`), and the component list
carries the terms (:func:`~uvlab.app.lab.output_channels.spectral_terms`). With
``--multiscale`` the minor cycles are
joined multiscale ones (:func:`~uvlab.gpu.deconvolution.multiscale.joined_multiscale`:
scales and peaks on the MFS image's scale-convolved residuals, each channel's component
from its own). docs/cubes.md.

:func:`clean_planes` is the joined CLEAN and restore of any planes: the channels' here,
the polarisations' for ``--join-polarizations`` (:mod:`uvlab.app.commands.joined_pols`),
both's for ``--join-channels --join-polarizations`` (:mod:`uvlab.app.commands.joined_cube`).
"""

from __future__ import annotations

import numpy as np

from uvlab.app.lab.output_channels import spectral_fit


def clean_joined(parts, channels, spec, opts, params, weighting, algorithm, mask, device,
                 nterms: int | None = None) -> list:  # fmt: skip
    """Each output channel's :class:`~uvlab.app.lab.deconvolve.Deconvolved`, CLEANed jointly.

    Parameters
    ----------
    parts : list of VisData
        Each output channel's visibilities (with the MF imaging weights as their weights).
    channels : list of OutputChannel
        Their dirty images, weights and frequencies (no CLEAN yet).
    spec, opts, params, weighting, algorithm, mask, device
        As :func:`~uvlab.app.lab.deconvolve.clean`'s.
    nterms : int, optional
        ``--fit-spectral-pol``.

    The iterations, cycles, stop reason and peak history of every channel are the joined
    CLEAN's (the MFS residual's).
    """
    from uvlab.gpu.deconvolution.joined import JoinedChannels

    psfs, majors = plane_inputs(parts, spec, opts, params, weighting, algorithm, device)
    joined = JoinedChannels([c.sum_weights for c in channels], spectral_fit(channels, nterms))
    dirty = np.stack([c.dirty for c in channels])
    return clean_planes(dirty, psfs, majors, joined, spec, opts, mask, device)


def plane_inputs(parts, spec, opts, params, weighting, algorithm, device):
    """((P, 2N, 2N) PSFs, Cotton–Schwab's major cycles or None) of each plane's visibilities.

    ``parts``: each plane's VisData, its imaging weights applied (``weighting`` is what is
    left to apply: natural after MF weighting). :func:`iter_plane_inputs` to its end.
    """
    from uvlab.app.lab.output_channels import finish

    return finish(iter_plane_inputs(parts, spec, opts, params, weighting, algorithm, device))


def iter_plane_inputs(parts, spec, opts, params, weighting, algorithm, device, on_block=None):
    """:func:`plane_inputs`, yielding ``(k, P)`` before plane k's PSF; returns the pair.

    ``on_block``: the gridders' callback between blocks (the window's cancel check).
    """
    from uvlab.app.lab.deconvolve import major_cycle
    from uvlab.gpu.backend import get_xp
    from uvlab.gpu.deconvolution.inputs import wide_psf

    xp = get_xp(device=device)
    psfs = []
    for k, p in enumerate(parts):
        yield k, len(parts)
        psfs.append(wide_psf(p, spec, weighting, algorithm, params, device, on_block=on_block))
    majors = None
    if opts.deconvolver == "cotton-schwab":
        majors = [major_cycle(p, spec, opts, params, weighting, algorithm, xp) for p in parts]
    return np.stack(psfs), majors


def joined_cycles(dirty, psfs, majors, joined, opts, mask, device, chunk=None):
    """The one driver's joined CLEAN of the planes: its generator of cycles.

    :func:`~uvlab.gpu.deconvolution.driver.iter_clean` with ``joined`` and, for
    Cotton–Schwab, each plane's own major cycle (:func:`clean_planes`' parameters);
    ``chunk``: the driver's, iterations per yield at most.
    """
    from uvlab.gpu.backend import get_xp
    from uvlab.gpu.deconvolution.driver import iter_clean
    from uvlab.gpu.deconvolution.joined import JoinedMajor

    xp = get_xp(device=device)
    major = None if majors is None else JoinedMajor(majors)
    return iter_clean(xp.asarray(dirty, dtype=xp.float64), xp.asarray(psfs), opts, mask=mask,
                      major=major, joined=joined, chunk=chunk)  # fmt: skip


def clean_planes(dirty, psfs, majors, joined, spec, opts, mask, device) -> list:
    """Each plane's :class:`~uvlab.app.lab.deconvolve.Deconvolved`, CLEANed jointly.

    Parameters
    ----------
    dirty : (P, N, N) float
        Each plane's dirty image (an output channel's, a polarisation's).
    psfs : (P, 2N, 2N) float
        Each plane's own CLEAN PSF.
    majors : list of MajorCycle, or None
        Cotton–Schwab: each plane's major cycle on its own visibilities; None for Högbom.
    joined : JoinedChannels, JoinedPolarizations or JoinedChannelsPolarizations
        The planes' peak criterion (:mod:`uvlab.gpu.deconvolution.joined`).
    spec, opts, mask, device
        As :func:`~uvlab.app.lab.deconvolve.clean`'s.

    Each plane is restored with the beam fitted to its own PSF (:func:`restore_planes`);
    the iterations, cycles, stop reason and peak history are the joined CLEAN's (its
    search image's).
    """
    from uvlab.app.lab.deconvolve import follow

    out = follow(joined_cycles(dirty, psfs, majors, joined, opts, mask, device), opts)
    return restore_planes(out, psfs, spec)


def restore_planes(out, psfs, spec) -> list:
    """The driver's joined cycle ``out`` as each plane's NumPy ``Deconvolved``.

    Plane k restored with the beam fitted to its own PSF ``psfs[k]``, in ``out``'s namespace.
    """
    from uvlab.app.lab.deconvolve import Deconvolved
    from uvlab.gpu.backend import to_numpy
    from uvlab.gpu.deconvolution import fit_beam, restore

    cleans = []
    for k, psf in enumerate(psfs):
        beam = fit_beam(psf, spec.cell_rad)
        model, residual = out.model[k], out.residual[k]
        cleans.append(
            Deconvolved(
                to_numpy(model), to_numpy(residual),
                to_numpy(restore(model, residual, beam, spec.cell_rad)), beam, out.iterations,
                out.cycles, out.stop_reason, out.peak, out.rms,
            )
        )  # fmt: skip
    return cleans
