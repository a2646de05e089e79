"""``uvlab image`` over a Dask cluster, in row chunks of bounded memory (issue 27).

``--scheduler ADDRESS`` (or ``UVLAB_SCHEDULER``) joins a running cluster;
``--workers N`` starts a local one of N worker processes; ``--abs-mem GB``
(WSClean's name) caps the memory all local workers may use; ``--chunk-rows N``
sets the rows per chunk (default: what fits a worker's share beside the
image-sized part, :mod:`uvlab.app.scale.budget`). Any of them sends the dirty
image and PSF through :func:`uvlab.app.scale.ms_image.image_ms`; like WSClean's
``-size``/``-scale``, that path needs ``--npix`` and ``--cell-arcsec``.

With ``--pol`` of several products (WSClean's ``-pol IQUV``) each row chunk is read once
for all of them and each worker grids each product into a grid of its own
(:mod:`uvlab.app.scale.products`); each product is then CLEANed on its own (or, with
``--join-polarizations``, jointly) and written with WSClean's names, as the one-process
``--pol`` run writes them (:mod:`uvlab.app.commands.image_scaled_pols`); with
``--channels-out N`` each product's cube, every output channel read once for all of them
(:mod:`uvlab.app.commands.image_scaled_polchan`).
"""

from __future__ import annotations

import logging
import time

from uvlab.app.commands.scale_args import FLAGS, add_cluster_args, local_gpus, memory_bytes
from uvlab.app.commands.scale_args import wanted as wanted
from uvlab.gpu.gridders.registry import grids

log = logging.getLogger(__name__)

#: Options the chunked path does not take yet (each a usage error with it).
UNSUPPORTED: tuple = ()


def add_scale_args(p) -> None:
    """The cluster options of ``uvlab image`` (:mod:`uvlab.app.commands.scale_args`)."""
    add_cluster_args(
        p,
        "image in row chunks over a Dask cluster with bounded memory (needs --npix and "
        "--cell-arcsec; docs/scaling.md)",
    )


def check(args) -> None:
    """Usage errors (exit 2, one line) for what the chunked path does not take."""
    for attr, flag, given in UNSUPPORTED:
        if given(getattr(args, attr, None)):
            args.parser.error(f"{flag} is not supported with {FLAGS} yet")
    if args.npix is None or args.cell_arcsec is None:
        args.parser.error(f"{FLAGS} need --npix and --cell-arcsec")
    from uvlab.app.commands import image_scaled_channels

    image_scaled_channels.check(args, len(args.spw) if isinstance(args.spw, tuple) else 1)


def run(args, pols: tuple[str, ...] | None = None) -> int:
    """``uvlab image`` over the cluster: one product, or with ``pols`` (several ``--pol``
    products, their outputs checked by the caller) each of them from one read."""
    from uvlab.app.commands import image_scaled_channels, image_scaled_pols, pb_correct
    from uvlab.app.commands.image_channels import mfs_clean
    from uvlab.app.commands.image_outputs import output_names, psf_beam
    from uvlab.app.commands.image_scaled_polchan import image_cubes
    from uvlab.app.commands.image_size import resolve_size
    from uvlab.app.commands.ms_args import parse_channels
    from uvlab.app.commands.ms_imaging import grid_params
    from uvlab.app.commands.pol_args import pol_args
    from uvlab.app.commands.scaled_selection import row_selection, with_interval
    from uvlab.app.commands.validate import field_arg
    from uvlab.app.commands.weighting_args import weighting
    from uvlab.app.runtime.memory import format_bytes
    from uvlab.app.scale.budget import (
        chunk_rows,
        clean_grid_costs,
        clean_nufft_costs,
        for_products,
        grid_costs,
        grid_share,
        image_bytes,
        nufft_costs,
    )
    from uvlab.app.scale.cluster import cluster_client, default_worker_count, describe
    from uvlab.app.scale.ms_image import MSRead, image_ms, summing
    from uvlab.gpu.image_spec import ARCSEC, ImageSpec

    size = resolve_size(args)  # --size W H: imaged at max(W, H)², cropped before writing
    check(args)
    from uvlab.app.outputs.output_set import check_outputs

    written, others = output_names(args)
    if not pols:  # several products' sets: checked by image_pols.run
        check_outputs([*written, *others], force=args.force)  # exit 2, before anything is read
    channels = parse_channels(args.channels)
    spws = args.spw if isinstance(args.spw, tuple) else (args.spw,)  # resolved by image.run
    rows_sel = row_selection(args)  # checked before any chunk is read
    field = field_arg(args.field)
    col, stokes = args.column, args.stokes
    products = tuple(pols or ())  # several: each chunk read once for all of them
    reads = [MSRead(args.ms, field, s, col, stokes, channels, **rows_sel, products=products)
             for s in spws]  # fmt: skip
    sources = [with_interval(args, r) for r in reads]  # a window each: chunks of each
    firsts = [s.read((0, 1)) for s in sources]  # each selection checked before any work
    metas = [f[0] if products else f for f in firsts]  # the first product's
    meta = metas[0]
    image_scaled_channels.check(args, len(spws), meta.nchan)  # N above the channels: exit 2
    mask = _clean_mask(args, size)  # a bad mask is refused before any work too
    pb_cube = pb_correct.prepare(args)  # a beam cube is read and checked before imaging
    spec = ImageSpec(args.npix, args.cell_arcsec * ARCSEC)
    params = grid_params(args) if grids(args.algorithm) else None
    wt = weighting(args)
    memory = memory_bytes(args)
    rows = args.chunk_rows
    gpus = local_gpus(args)
    nprod = max(1, len(products))
    held = _held_bytes(args, sources, metas, memory, nprod)
    if held:
        log.info("CLEAN keeps the selection's data on the workers (%s)", format_bytes(held))
    if rows is None:
        nworkers = args.workers or default_worker_count(gpus)
        density = wt.density_spec(spec).npix if wt.scheme != "natural" else 0  # its cells
        share = float("inf") if memory is None else (memory - held) / nworkers
        nchan = max(m.nchan for m in metas)
        plans = []
        summed = summing(args.algorithm, params, args.device)
        if summed in ("grids", "nufft"):  # every pass sums grids (ducc0's NUFFT a worker)
            major = args.deconvolver == "cotton-schwab"
            if summed == "grids":
                dirty_costs = grid_costs(args.npix, args.algorithm, params,
                                         density_npix=density)  # fmt: skip
                clean_costs = clean_grid_costs(args.npix, args.algorithm, params,
                                               density_npix=density, major=major)  # fmt: skip
            else:
                dirty_costs = nufft_costs(args.npix, density_npix=density)
                clean_costs = clean_nufft_costs(args.npix, density_npix=density, major=major)
            # several products: the dirty pass grids each into its own grid, from one read;
            # CLEAN's passes are each product's own
            passes = [for_products(dirty_costs, nprod, args.npix)] if nprod > 1 else []
            passes.append(clean_costs if args.niter > 0 else dirty_costs)
            for costs in passes:
                plans.append(chunk_rows(grid_share(share), nchan, len(meta.corr_names),
                                        costs.fixed, what=f"a {args.npix}² image",
                                        grid=costs))  # fmt: skip
        if not plans:  # images summed, CLEAN's passes too
            fixed = image_bytes(args.npix, args.algorithm, params, density_npix=density,
                                clean=args.niter > 0, products=nprod)  # fmt: skip
            plans.append(chunk_rows(share, nchan, len(meta.corr_names), fixed,
                                    what=f"a {args.npix}² image", products=nprod))  # fmt: skip
        plan = min(plans, key=lambda p: p.rows)
        rows = plan.rows
        log.info("%s", plan.describe())
    with cluster_client(
        args.scheduler, workers=args.workers, memory_bytes=memory, gpus=gpus
    ) as client:
        gpu_note = f", on GPUs {','.join(gpus)}" if gpus else ""
        log.info("%s%s", describe(client), gpu_note)

        def image(srcs, totals=None):
            return image_ms(client, srcs, spec, wt, chunk_rows=rows, algorithm=args.algorithm,
                            params=params, device=args.device, totals=totals)  # fmt: skip

        def clean_of(srcs, r):
            return _clean(args, client, srcs, spec, wt, r, rows, params, mask, held > 0)

        def job_of(srcs, r):
            return _clean_job(args, client, srcs, spec, wt, r, rows, params, held > 0)

        res = image(sources)
        cube = args.channels_out > 1  # each output channel its own selection and passes
        channels, t_chan, clean = None, {}, None
        if products and cube:  # each product's cube, each channel read once for all
            cubes = image_cubes(args, image, clean_of, job_of, sources[0], meta, res, spec,
                                mask)  # fmt: skip
        elif products:  # each product CLEANed (or all jointly) with its own passes
            cleans = image_scaled_pols.clean(args, sources, res, clean_of, job_of, mask)
        elif cube:
            channels, t_chan = image_scaled_channels.image_channels(
                args, image, clean_of, sources[0], meta, mfs=res, job=job_of, mask=mask
            )
            if args.niter > 0:
                join, nterms = args.join_channels, getattr(args, "fit_spectral_pol", None)
                clean = mfs_clean(channels, psf_beam(res.psf, spec), join, nterms)
        else:
            clean = clean_of(sources, res)
    if not products:
        return _write(args, others, size, metas, spec, wt, params, rows, res, clean, pb_cube,
                      sources, channels, t_chan)  # fmt: skip
    for k, sub in enumerate(pol_args(args, products)):
        print(f"polarisation {sub.stokes}:")
        channels, clean, t_chan = cubes[k] if cube else (None, cleans[k], None)
        _write(sub, output_names(sub)[1], size, [f[k] for f in firsts], spec, wt, params, rows,
               res[k], clean, pb_cube, [s.product(k) for s in sources], channels,
               t_chan)  # fmt: skip
    return 0


def _write(args, others, size, metas, spec, wt, params, rows, res, clean, pb_cube, sources,
           channels=None, t_chan=None) -> int:  # fmt: skip
    """Write one product's set (``args.out``'s names; ``others`` its stale names): the
    dirty image and PSF (and ``channels``' cube), CLEAN's images, ``--pb-correct``'s, the
    timing and the preview; ``metas`` its windows' first chunks (its product's)."""
    from pathlib import Path

    import numpy as np

    from uvlab.app.commands import pb_correct
    from uvlab.app.commands.image_channels_write import (
        crop_channels,
        summary_lines,
        write_image_set,
    )
    from uvlab.app.commands.image_outputs import (
        cube_prefix,
        observation_cards,
        preview,
        psf_beam,
        write_timing,
    )
    from uvlab.app.commands.image_size import crop_outputs
    from uvlab.app.commands.ms_imaging import fits_history, ms_size
    from uvlab.app.commands.weighting_args import weighting_text
    from uvlab.app.lab.samples import WorkCache
    from uvlab.app.outputs.output_set import output_set
    from uvlab.app.runtime.progress import progress_bar

    meta, cube, t_chan = metas[0], channels is not None, t_chan or {}
    prefix = Path(args.out)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    ra, dec = np.degrees(meta.ra0_rad) % 360.0, np.degrees(meta.dec0_rad)
    history = fits_history({
        "command": "image", "ms": meta.path, "field": f"{meta.field} {meta.field_name}",
        "spw": ",".join(str(m.spw) for m in metas), "column": meta.column,
        "stokes": meta.stokes, "npix": spec.npix,
        "channels": f"{args.channels or 'all'} ({sum(m.nchan for m in metas)} used)",
        **({"channels_out": args.channels_out} if cube else {}),
        "cell_arcsec": f"{spec.cell_arcsec:.6g}",
        "weighting": weighting_text(wt),
        "algorithm": args.algorithm, "params": params, "device": res.device,
        "nvis": res.nvis, "sum_weights": f"{res.sum_weights:.6g}",
        "chunks": f"{res.chunks} of {rows} rows",
        **({} if clean is None else {"deconvolver": f"{args.deconvolver} niter={args.niter} "
            f"gain={args.gain} mgain={args.mgain}: {clean.iterations} iterations, "
            f"{clean.cycles} cycles, stopped by {clean.stop_reason}"}),
    })  # fmt: skip
    common = dict(
        **_frequency_cards(metas, res), stokes=meta.stokes, history=history,
        observation=observation_cards(WorkCache().ms_info(args.ms), meta),
    )  # fmt: skip
    beam = clean.beam if clean is not None else psf_beam(res.psf, spec)
    common["cropped"] = size is not None
    res, clean = crop_outputs(res, clean, size)
    channels = crop_channels(channels, size) if cube else None
    chi = None
    if getattr(args, "pb_correct", False) and pb_cube is not None:  # the selection's times
        from uvlab.app.ms.reader import selection_times

        times = np.concatenate([selection_times(s.path, **s.kwargs()) for s in sources])
        chi = pb_correct.observation_chi(args, pb_cube, args.ms, times, meta.ra0_rad,
                                         meta.dec0_rad)  # fmt: skip
    t0 = time.perf_counter()
    with progress_bar("write"), output_set(overwrite=args.force, stale=others):
        base, pol = cube_prefix(args)  # several --pol products' cubes: PREFIX-0000-I-…
        files = write_image_set(Path(base), res, clean, channels, spec, ra, dec, common, beam,
                                pol, f"{prefix}-sources.txt")  # fmt: skip
        if getattr(args, "pb_correct", False):
            files += pb_correct.write_pb_files(
                args, pb_cube, prefix, clean.restored if clean is not None else res.dirty,
                spec, ra, dec, common, np.concatenate([m.freq_hz for m in metas]),
                ms_size(args.ms)[2], chi,
            )  # fmt: skip
        timing = {**res.timing, **t_chan, "write": time.perf_counter() - t0}
        if not args.no_png:
            files.append(preview(res, spec, meta, f"{prefix}.png"))
        files.append(write_timing(f"{prefix}-timing.json", timing, res, spec, passes=2))
    print(
        f'{args.algorithm} {spec.npix}² × {spec.cell_arcsec:.3g}", {res.nvis} visibilities in '
        f"{res.chunks} chunks, Stokes {meta.stokes}; peak {res.dirty.max():.4g} Jy/beam"
    )
    if clean is not None:
        print(
            f"{args.deconvolver}: {clean.iterations} iterations in {clean.cycles} cycles "
            f"(stopped by {clean.stop_reason}); residual peak "
            f"{abs(clean.residual).max():.4g} Jy/beam"
        )
    for line in summary_lines(channels) if cube else ():
        print(line)
    for f in files:
        print(f"wrote {f}")
    return 0


def _clean_mask(args, size):
    """The (N, N) CLEAN mask of ``--mask-box``/``--fits-mask`` (None without them), given
    on the written image (``--size`` W × H, the centre of the N² one)."""
    if not args.niter or args.niter <= 0:
        return None
    from uvlab.app.commands.clean_mask import output_mask, square_mask

    w, h = size or (args.npix, args.npix)
    return square_mask(output_mask(args, w, h), args.npix)


def _held_bytes(args, sources, metas, memory, products: int = 1) -> float:
    """The bytes of the selection's data CLEAN keeps on the workers between its passes
    (:func:`~uvlab.app.scale.ms_clean.hold`; each of ``products``' own data); 0 (each pass
    reads again) without
    ``--niter``, when the memory is not known, or when they would take more than
    :data:`~uvlab.app.scale.budget.HOLD_FRACTION` of it."""
    from uvlab.app.scale.budget import HOLD_FRACTION, held_bytes

    if not args.niter or args.niter <= 0 or memory is None:
        return 0.0
    need = products * sum(
        held_bytes(s.count(), m.nchan, m.vis.itemsize) for s, m in zip(sources, metas)
    )  # fmt: skip
    return need if need <= HOLD_FRACTION * memory else 0.0


def _clean(args, client, sources, spec, wt, res, rows, params, mask, keep: bool):
    """``--niter``'s CLEAN over the cluster (:mod:`uvlab.app.scale.ms_clean`), restored; None
    without it. The minor cycles run here, every pass over the data on the workers, which
    keep the data between passes when ``keep``."""
    if not args.niter or args.niter <= 0:
        return None
    from uvlab.app.commands.clean_args import clean_options
    from uvlab.app.lab.deconvolve import drive, restored_result
    from uvlab.app.scale.ms_clean import clean_ms

    job = _clean_job(args, client, sources, spec, wt, res, rows, params, keep)
    t0 = time.perf_counter()
    out, psf, major = clean_ms(job, res.dirty, clean_options(args), mask=mask, driver=drive)
    res.timing["clean"] = time.perf_counter() - t0
    if major is not None:
        res.timing["major cycles (read + degrid + grid)"] = major.seconds
    return restored_result(out, psf, spec.cell_rad)


def _clean_job(args, client, sources, spec, wt, res, rows, params, keep: bool):
    """The :class:`~uvlab.app.scale.ms_clean.Pass` of CLEAN's passes over ``sources``,
    weighted with ``res``'s density totals; the data held on the workers when ``keep``."""
    from uvlab.app.scale.ms_clean import Pass, hold

    job = Pass(
        client, tuple(sources), spec, wt, res.totals, rows, args.algorithm, params, args.device
    )
    if keep:
        job = hold(job)
    what = {"grids": "a grid per worker", "nufft": "a ducc0 NUFFT per worker"}
    log.info("CLEAN's passes sum %s", what.get(job.summed, "chunk images"))
    return job


def _frequency_cards(metas, res) -> dict:
    """CRVAL3 and CDELT3: one window's mean and width as ``uvlab image``'s, several windows'
    imaging-weighted mean frequency and covered band (:mod:`uvlab.app.commands.image_spws`)."""
    from uvlab.app.commands.image_spws import frequency_cards
    from uvlab.app.ms.spw_set import SpwSet

    return frequency_cards(metas[0] if len(metas) == 1 else SpwSet(tuple(metas)), res)
