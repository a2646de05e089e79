"""``uvlab image --pol LIST`` over a Dask cluster: several products from one read (issue 27).

The one-process ``--pol`` run (:mod:`uvlab.app.commands.image_pols`) images each product
in a run of its own. Here the dirty images and PSFs of all the products come from one
pass over the row chunks (:func:`~uvlab.app.scale.ms_image.image_ms` of an
:class:`~uvlab.app.scale.ms_image.MSRead` with ``products``: each chunk read once, each
product gridded into its own grid with its own weights and density). With ``--niter``
each product is CLEANed on its own over the cluster, with its own 2N PSF and, with
Cotton–Schwab, its own major cycles (:mod:`uvlab.app.scale.ms_clean`, on that product's
reads); with ``--join-polarizations`` they are CLEANed together by the one driver
(:class:`~uvlab.gpu.deconvolution.joined.JoinedPolarizations`, as
:mod:`uvlab.app.commands.joined_pols` does in one process). Each product's set is
then written with WSClean's names (``PREFIX-I-dirty.fits``, ``PREFIX-Q-image.fits`` …).
With ``--channels-out N``: each product's cube (:mod:`uvlab.app.commands.image_scaled_polchan`).
"""

from __future__ import annotations

import time


def clean(args, sources, res, clean_of, job_of, mask) -> list:
    """Each product's :class:`~uvlab.app.lab.deconvolve.Deconvolved` (None each
    without ``--niter``).

    ``sources``: the windows' reads of all the products; ``res``: each product's
    :class:`~uvlab.app.scale.ms_image.PartsImage`. ``clean_of(sources, res)`` CLEANs one
    product on its own, ``job_of(sources, res)`` gives its
    :class:`~uvlab.app.scale.ms_clean.Pass` (:mod:`uvlab.app.commands.image_scaled`'s).
    """
    if not args.niter or args.niter <= 0:
        return [None] * len(res)
    reads = [[s.product(k) for s in sources] for k in range(len(res))]
    if not getattr(args, "join_polarizations", False):
        return [clean_of(r, one) for r, one in zip(reads, res, strict=True)]
    t0 = time.perf_counter()
    jobs = [job_of(r, one) for r, one in zip(reads, res, strict=True)]
    out = clean_joined(args, jobs, res, mask)
    for one in res:
        one.timing["clean"] = time.perf_counter() - t0
    return out


def clean_joined(args, jobs, res, mask) -> list:
    """The products CLEANed jointly over the cluster (WSClean's ``-join-polarizations``).

    ``jobs``: each product's Pass; its 2N PSF (:func:`~uvlab.app.scale.ms_clean.
    wide_psf_ms`) and with Cotton–Schwab its
    :class:`~uvlab.app.scale.ms_clean.ClusterMajorCycle` are those of
    :func:`uvlab.app.commands.joined_pols.clean` made over the chunks.
    """
    import numpy as np

    from uvlab.app.commands.clean_args import clean_options
    from uvlab.app.lab.joined_clean import clean_planes
    from uvlab.app.runtime.progress import progress_bar
    from uvlab.app.scale.ms_clean import plane_inputs_ms
    from uvlab.gpu.deconvolution.joined import JoinedPolarizations

    opts = clean_options(args)
    with progress_bar("PSFs for CLEAN"):
        psfs, majors = plane_inputs_ms(jobs, opts.deconvolver)
    pols = tuple(j.source[0].stokes for j in jobs)
    dirty = np.stack([r.dirty for r in res])
    return clean_planes(dirty, psfs, majors, JoinedPolarizations(pols), jobs[0].spec, opts,
                        mask, jobs[0].device)  # fmt: skip
