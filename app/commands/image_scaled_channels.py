"""``uvlab image --channels-out N`` over a Dask cluster: the cube in row chunks (issue 27).

The in-memory cube (:mod:`uvlab.app.commands.image_channels`) splits the selected
channels as WSClean does and images each output channel on its own. Here each output
channel is a selection of its own (an :class:`~uvlab.app.scale.ms_image.MSRead` of
those input channels), imaged in row chunks on the workers like the MFS image
(:func:`~uvlab.app.scale.ms_image.image_ms`: its own density for uniform and Briggs,
WSClean's default) and with ``--niter`` CLEANed over the cluster with its own PSF. Each
pass reads only its channels, so the N channel passes read the data once between them.

With ``--join-channels`` (WSClean's ``-join-channels``) every output channel is weighted
with the density of all the channels (MF weighting: the MFS image's density totals, which
the channel passes receive instead of counting their own) and, with ``--niter``, the
channels are CLEANed jointly by the one driver
(:func:`~uvlab.app.lab.joined_clean.clean_planes`): the 2N PSF of each channel and,
with Cotton–Schwab, each channel's major cycles run over the cluster
(:mod:`uvlab.app.scale.ms_clean`), the minor cycles on the client.

The files and the MFS images are the in-memory path's
(:func:`~uvlab.app.commands.image_channels_write.write_channels`,
:func:`~uvlab.app.commands.image_channels.mfs_clean`); a channel's CRVAL3 is its
imaging-weighted centre frequency, as the chunked MFS image's is (the in-memory cube
writes the data-weighted one; with natural weighting the two are the same).
"""

from __future__ import annotations

import time
from dataclasses import replace


def check(args, nspw: int, nchan: int | None = None) -> None:
    """Usage errors (exit 2, one line) of ``--channels-out`` on the chunked path (with
    ``nchan``, the selected channels, once the first chunk is read: N above it)."""
    from uvlab.app.commands.image_channels import check_channel_args

    check_channel_args(args, nchan)
    if nspw > 1 and args.channels_out > 1:
        args.parser.error("--channels-out with several spectral windows is not supported yet: "
                          "give one with --spw N")  # fmt: skip


def channel_sources(source, meta, n: int) -> list:
    """(input start, stop, the MSRead of those channels) of each of the ``n`` output channels.

    ``meta``: the selection's first chunk (its ``nchan``, the selected channels).
    """
    from uvlab.app.commands.image_channels import channel_ranges

    first = (source.channels or (0, None))[0] or 0
    return [
        (a, b, replace(source, channels=(first + a, first + b)))
        for a, b in channel_ranges(meta.nchan, n)
    ]


def image_channels(args, image, clean, source, meta, *, mfs=None, job=None, mask=None):
    """(the output channels, stage timing): each imaged by ``image(sources, totals=None)``
    (a :class:`~uvlab.app.scale.ms_image.PartsImage`) and, with ``--niter``, CLEANed by
    ``clean(sources, res)`` (a Deconvolved, or None without ``--niter``).

    With ``--join-channels``: imaged with ``mfs``' density totals (the MFS image's) and
    CLEANed jointly (:func:`clean_joined`) on ``job(sources, res)``'s passes and ``mask``.
    """
    from uvlab.app.commands.image_channels import OutputChannel, bandwidth
    from uvlab.app.lab.output_channels import channel_failed
    from uvlab.gpu.imaging.imager import ImagingError

    t0 = time.perf_counter()
    join = bool(getattr(args, "join_channels", False))
    totals = mfs.totals if join else None
    out, jobs = [], []
    for k, (a, b, src) in enumerate(channel_sources(source, meta, args.channels_out)):
        try:
            res = image([src], totals=totals)
        except (ImagingError, ValueError) as exc:  # e.g. every sample of this channel flagged
            raise channel_failed(k, a, b, exc) from None
        out.append(
            OutputChannel(
                k, a, b, float(res.mean_freq_hz), bandwidth(meta.freq_hz[a:b], meta.chan_width_hz),
                res.dirty, res.psf, float(res.sum_weights), int(res.nvis),
                None if join else clean([src], res),
            )
        )  # fmt: skip
        if join and args.niter > 0:
            jobs.append(job([src], res))
    if jobs:
        cleans = clean_joined(args, jobs, out, mask)
        out = [replace(c, clean=d) for c, d in zip(out, cleans, strict=True)]
    return out, {"output channels": time.perf_counter() - t0}


def clean_joined(args, jobs, channels, mask) -> list:
    """Each output channel's Deconvolved, CLEANed jointly over the cluster.

    ``jobs``: each channel's :class:`~uvlab.app.scale.ms_clean.Pass` (MF weights); its 2N
    PSF (:func:`~uvlab.app.scale.ms_clean.wide_psf_ms`) and with Cotton–Schwab its
    :class:`~uvlab.app.scale.ms_clean.ClusterMajorCycle` are the in-memory joined CLEAN's
    (:func:`~uvlab.app.lab.joined_clean.clean_joined`) made over the chunks.
    """
    import numpy as np

    from uvlab.app.commands.clean_args import clean_options
    from uvlab.app.lab.joined_clean import clean_planes
    from uvlab.app.lab.output_channels import spectral_fit
    from uvlab.app.scale.ms_clean import plane_inputs_ms
    from uvlab.gpu.deconvolution.joined import JoinedChannels

    opts = clean_options(args)
    psfs, majors = plane_inputs_ms(jobs, opts.deconvolver)
    nterms = getattr(args, "fit_spectral_pol", None)
    joined = JoinedChannels([c.sum_weights for c in channels], spectral_fit(channels, nterms))
    dirty = np.stack([c.dirty for c in channels])
    return clean_planes(dirty, psfs, majors, joined, jobs[0].spec, opts, mask, jobs[0].device)
