"""``uvlab image --pol LIST --channels-out N`` over a Dask cluster: a cube of each product.

The one-process run (:mod:`uvlab.app.commands.image_pols`) makes each product's cube in a
run of its own (:mod:`uvlab.app.commands.image_channels`). Here each output channel is one
selection of its input channels read for all the products at once
(:func:`~uvlab.app.commands.image_scaled_channels.channel_sources` of an
:class:`~uvlab.app.scale.ms_image.MSRead` with ``products``): each chunk of it is read once
and every product gridded into its own grid with its own weights
(:mod:`uvlab.app.scale.products`), so the N channel passes read the data once between them
for all the products. Each product's images are then those of its own cube:

- without ``--join-channels`` each (channel, product) has its own density for uniform and
  Briggs and, with ``--niter``, its own CLEAN over the cluster;
- with ``--join-channels`` each product's channels are weighted with the density of all
  of that product's channels (its MFS image's totals: MF weighting) and CLEANed jointly
  (:func:`~uvlab.app.commands.image_scaled_channels.clean_joined`);
- with ``--join-polarizations`` too, the N·P planes are CLEANed together
  (:func:`clean_planes_joined`, :mod:`uvlab.app.commands.joined_cube`'s CLEAN with each
  plane's PSF and major cycles over the cluster).

The MFS images are each product's: its image of all the channels (the dirty image and
PSF) and its channels' weighted means (:func:`~uvlab.app.commands.image_channels.
mfs_clean`). The files are WSClean's, the polarisation after the channel:
``PREFIX-0000-I-dirty.fits`` … ``PREFIX-MFS-I-image.fits`` and ``PREFIX-I-sources.txt``.
"""

from __future__ import annotations

import time
from dataclasses import replace


def image_cubes(args, image, clean_of, job_of, source, meta, mfs, spec, mask) -> list:
    """Each product's (output channels, MFS CLEAN or None, stage timing), in order.

    Parameters
    ----------
    args : Namespace
        ``uvlab image``'s.
    image : callable
        ``image(sources, totals=None)``: a tuple of
        :class:`~uvlab.app.scale.ms_image.PartsImage`, one per product.
    clean_of, job_of : callable
        ``clean_of(sources, res)`` CLEANs one product's selection on its own;
        ``job_of(sources, res)`` gives its :class:`~uvlab.app.scale.ms_clean.Pass`
        (:mod:`uvlab.app.commands.image_scaled`'s).
    source : MSRead
        The selection, with ``products``.
    meta : VisData
        Its first chunk (the first product's): the selected channels.
    mfs : tuple of PartsImage
        Each product's image of all the channels (its density totals: MF weighting).
    spec : ImageSpec
        The image's geometry (the MFS beam is fitted to each product's PSF on it).
    mask : (N, N) bool or None
        The CLEAN mask.
    """
    from uvlab.app.commands.image_channels import OutputChannel, bandwidth, mfs_clean
    from uvlab.app.commands.image_outputs import psf_beam
    from uvlab.app.commands.image_scaled_channels import channel_sources, clean_joined
    from uvlab.app.lab.output_channels import channel_failed
    from uvlab.gpu.imaging.imager import ImagingError

    t0 = time.perf_counter()
    join = bool(getattr(args, "join_channels", False))
    both = join and bool(getattr(args, "join_polarizations", False))
    totals = tuple(r.totals for r in mfs) if join else None
    if totals is not None and all(t is None for t in totals):  # natural: no density
        totals = None
    nprod, niter = len(mfs), (args.niter or 0) > 0
    cubes = [[] for _ in range(nprod)]  # each product's OutputChannel, in channel order
    reads = []  # each channel's (source, each product's PartsImage)
    for k, (a, b, src) in enumerate(channel_sources(source, meta, args.channels_out)):
        try:
            each = image([src], totals=totals)
        except (ImagingError, ValueError) as exc:  # e.g. every sample of this channel flagged
            raise channel_failed(k, a, b, exc) from None
        width = bandwidth(meta.freq_hz[a:b], meta.chan_width_hz)
        for p, res in enumerate(each):
            clean = clean_of([src.product(p)], res) if niter and not join else None
            cubes[p].append(
                OutputChannel(k, a, b, float(res.mean_freq_hz), width, res.dirty, res.psf,
                              float(res.sum_weights), int(res.nvis), clean)
            )  # fmt: skip
        reads.append((src, each))
    if niter and join:

        def jobs_of(p: int) -> list:  # product p's channels' passes (its data held, if so)
            return [job_of([src.product(p)], each[p]) for src, each in reads]

        if both:  # every plane's passes at once
            cleans = clean_planes_joined(args, [jobs_of(p) for p in range(nprod)], cubes, mask)
        else:  # one product's passes at a time: its held data released before the next's
            cleans = [clean_joined(args, jobs_of(p), cubes[p], mask) for p in range(nprod)]
        cubes = [[replace(c, clean=d) for c, d in zip(cube, mine, strict=True)]
                 for cube, mine in zip(cubes, cleans, strict=True)]  # fmt: skip
    t_chan = {"output channels": time.perf_counter() - t0}
    nterms = getattr(args, "fit_spectral_pol", None)
    out = []
    for cube, res in zip(cubes, mfs, strict=True):
        clean = mfs_clean(cube, psf_beam(res.psf, spec), join, nterms) if niter else None
        out.append((cube, clean, dict(t_chan)))
    return out


def clean_planes_joined(args, jobs, cubes, mask) -> list:
    """Each product's channels' Deconvolved, all N·P planes CLEANed together over the
    cluster (``--join-channels --join-polarizations``, :func:`uvlab.app.commands.
    joined_cube.clean`'s CLEAN).

    ``jobs[p][c]``: product p's channel c's :class:`~uvlab.app.scale.ms_clean.Pass` (MF
    weights); ``cubes[p]``: product p's OutputChannel list. The planes are channel-major
    (plane c·P + p), Radler's order; the MFS weights and the spectral fit are the first
    product's, as Radler takes them.
    """
    import numpy as np

    from uvlab.app.commands.clean_args import clean_options
    from uvlab.app.lab.joined_clean import clean_planes
    from uvlab.app.lab.output_channels import spectral_fit
    from uvlab.app.runtime.progress import progress_bar
    from uvlab.app.scale.ms_clean import plane_inputs_ms
    from uvlab.gpu.deconvolution.joined import JoinedChannels, JoinedChannelsPolarizations

    nprod, nchan = len(jobs), len(jobs[0])
    planes = [jobs[p][c] for c in range(nchan) for p in range(nprod)]
    opts = clean_options(args)
    with progress_bar("PSFs for CLEAN"):
        psfs, majors = plane_inputs_ms(planes, opts.deconvolver)
    first = cubes[0]
    nterms = getattr(args, "fit_spectral_pol", None)
    weights = JoinedChannels([c.sum_weights for c in first], spectral_fit(first, nterms))
    pols = tuple(j[0].source[0].stokes for j in jobs)
    joined = JoinedChannelsPolarizations(weights, pols)
    dirty = np.stack([cubes[p][c].dirty for c in range(nchan) for p in range(nprod)])
    cleans = clean_planes(dirty, psfs, majors, joined, planes[0].spec, opts, mask,
                          planes[0].device)  # fmt: skip
    return [cleans[p::nprod] for p in range(nprod)]
