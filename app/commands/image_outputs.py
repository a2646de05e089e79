"""The files of ``uvlab image`` (also of its chunked path, :mod:`uvlab.app.commands.image_scaled`).

``PREFIX-dirty.fits`` and ``PREFIX-psf.fits``; with CLEAN ``-model``, ``-residual``,
``-image.fits`` and ``-sources.txt``; with ``--pb-correct`` ``-pb.fits`` and
``-image-pb.fits``; ``PREFIX-timing.json`` and the ``PREFIX.png`` preview: their
names (one output set, :mod:`uvlab.app.outputs.output_set`), the disk space they need,
the FITS header's observation cards and beam, and the writers.
"""

from __future__ import annotations

import json

#: The preview PNG: figure size (inches) and resolution.
PREVIEW_FIGSIZE, PREVIEW_DPI = (12, 5.4), 90

DIRTY_KINDS = ("dirty", "psf")
CLEAN_KINDS = ("model", "residual", "image")


def cube_names(prefix, n: int, clean: bool, pol: str | None = None) -> list[str]:
    """The FITS files of ``--channels-out n`` (n > 1), WSClean's names, channels then MFS.

    ``pol``: one of several ``--pol`` products, named after the channel
    (``PREFIX-0000-I-dirty.fits`` … ``PREFIX-MFS-I-image.fits``, WSClean's order).
    """
    kinds = DIRTY_KINDS + (CLEAN_KINDS if clean else ())
    tags = [f"{k:04d}" for k in range(n)] + ["MFS"]
    sep = f"-{pol}" if pol else ""
    return [f"{prefix}-{tag}{sep}-{kind}.fits" for tag in tags for kind in kinds]


def cube_prefix(args) -> tuple[str, str | None]:
    """(prefix, polarisation) of a cube's FITS names: ``--out``'s, or with several ``--pol``
    products the run's ``--out`` and this product's tag (``args.cube_pol``)."""
    pol = getattr(args, "cube_pol", None)
    if pol and getattr(args, "channels_out", 1) > 1:
        return pol[0], pol[1]
    return args.out, None


def output_names(args) -> tuple[list[str], list[str]]:
    """(files this run writes, the set's other files) for ``--out PREFIX``.

    With ``--channels-out N`` > 1 the FITS images are the cube's
    (:func:`cube_names`) and the single image's
    names are the set's other files.
    """
    p = args.out
    niter = (args.niter or 0) > 0
    clean = [f"{p}-model.fits", f"{p}-residual.fits", f"{p}-image.fits", f"{p}-sources.txt"]
    pb = [f"{p}-pb.fits", f"{p}-image-pb.fits"]
    written = [f"{p}-dirty.fits", f"{p}-psf.fits", f"{p}-timing.json"]
    others = []
    if getattr(args, "channels_out", 1) > 1:
        others = [*written[:2], *clean[:3]]
        written = [*cube_names(*_cube(args, niter)), f"{p}-timing.json"]
        clean = clean[3:]  # the MFS model's component list
    (written if niter else others).extend(clean)
    (written if getattr(args, "pb_correct", False) else others).extend(pb)
    (others if args.no_png else written).append(f"{p}.png")
    return written, others


def _cube(args, niter: bool):
    """:func:`cube_names`' arguments for ``args``."""
    prefix, pol = cube_prefix(args)
    return prefix, args.channels_out, niter, pol


def observation_cards(info, vd) -> dict:
    """What the FITS header says of the data (fits_io.image_header's ``observation``)."""
    import numpy as np

    pos = np.asarray(info.antenna_positions, dtype=float).reshape(-1, 3)
    return {
        "start_mjd_s": float(np.min(vd.time)) if np.size(vd.time) else info.time_start_mjd_s,
        "telescope": info.telescope,
        "observer": info.observer,
        "object": vd.field_name,
        "obsgeo_m": pos.mean(axis=0) if len(pos) else None,
    }


def psf_beam(psf, spec):
    """The PSF's fitted beam (CASA's fit), or None where the main lobe cannot be fitted."""
    from uvlab.gpu.deconvolution.beam import BeamFitError, fit_beam

    try:
        return fit_beam(psf, spec.cell_rad)
    except BeamFitError:
        return None


def write_clean(prefix, clean, spec, ra, dec, common, sources=None) -> list:
    """PREFIX-model.fits (Jy/pixel), -residual.fits, -image.fits (with the beam), -sources.txt.

    ``sources``: the component list's path (default ``PREFIX-sources.txt``). With
    ``clean.spectral_terms`` (``--fit-spectral-pol``) each component carries its pixel's
    polynomial terms at ``clean.ref_freq_hz``.
    """
    from uvlab.app.outputs.fits_io import image_header, write_image_fits
    from uvlab.app.skymodel.wsclean_write import write_component_list

    return [
        write_image_fits(f"{prefix}-model.fits", clean.model, spec, ra, dec, **common,
                         bunit="Jy/pixel"),
        write_image_fits(f"{prefix}-residual.fits", clean.residual, spec, ra, dec, **common),
        write_image_fits(f"{prefix}-image.fits", clean.restored, spec, ra, dec, **common,
                         beam=clean.beam),
        write_component_list(
            sources or f"{prefix}-sources.txt", clean.model, image_header(spec, ra, dec,
            freq_hz=common["freq_hz"], shape=clean.model.shape), common["freq_hz"],
            getattr(clean, "spectral_terms", None), getattr(clean, "ref_freq_hz", None),
        ),
    ]  # fmt: skip


def check_outputs_space(prefix, npix: int, clean=None, sets: int = 1) -> None:
    """Refuse (InsufficientSpaceError) before writing when the disk cannot hold all outputs.

    ``sets``: how many sets of FITS images (with ``--channels-out N``: N + 1).
    """
    import numpy as np

    from uvlab.app.outputs.atomic import png_size_bound
    from uvlab.app.outputs.fits_io import image_fits_bytes
    from uvlab.app.runtime.diskspace import check_space

    width, height = (round(s * PREVIEW_DPI) for s in PREVIEW_FIGSIZE)
    nfits = (2 if clean is None else 5) * sets
    lines = 0 if clean is None else int(np.count_nonzero(clean.model)) + 1
    need = nfits * image_fits_bytes(npix) + png_size_bound(width, height) + 2**16 + 160 * lines
    what = f"the {nfits} FITS images, the PNG and the JSON" + (
        "" if clean is None else ", the list"
    )
    check_space(f"{prefix}-dirty.fits", need, what)


def write_timing(path, timing: dict, res, spec, passes: int):
    """JSON: stage → seconds, total, and the gridding rate (records gridded / grid seconds).

    ``passes`` is how many times the samples were gridded (dirty and PSF: 2).
    """
    from uvlab.app.outputs.atomic import write_text

    grid = float(timing.get("grid", 0.0))
    records = int(res.nvis) * passes
    out = {
        "algorithm": res.algorithm,
        "device": res.device,
        "npix": spec.npix,
        "cell_arcsec": spec.cell_arcsec,
        "nvis": int(res.nvis),
        "grid_passes": passes,
        "timing_s": {k: float(v) for k, v in timing.items()},
        "total_s": float(sum(timing.values())),
        "rate_vis_per_s": records / grid if grid > 0 else None,
    }
    return write_text(path, json.dumps(out, indent=2))


def preview(res, spec, vd, path):
    """PNG: dirty image and PSF side by side."""
    from pathlib import Path

    from uvlab.app.outputs.report import pyplot, save_figure, show

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=PREVIEW_FIGSIZE)
    fig.subplots_adjust(left=0.06, right=0.95, bottom=0.1, top=0.88, wspace=0.3)
    for ax, img, title, cmap in (
        (axes[0], res.dirty, f"dirty, Stokes {vd.stokes} ({res.algorithm})", "inferno"),
        (axes[1], res.psf, "PSF", "viridis"),
    ):
        im = show(ax, img, spec, title, cmap=cmap, cropped=True)  # --size W H: its centre
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="Jy/beam")
    fig.suptitle(f"{Path(vd.path).name}: field {vd.field_name}, spw {vd.spw}, {vd.column}")
    try:
        return save_figure(fig, path, dpi=PREVIEW_DPI)
    finally:
        plt.close(fig)


def expected_noise_line(vd, spec, weighting, dirty) -> str:
    """One line for ``uvlab image``: the expected σ beside the dirty image's measured MAD σ."""
    from uvlab.app.lab.corruptions import mad_sigma
    from uvlab.app.ms.expected_noise import expected_image_sigma
    from uvlab.app.outputs.quantities import format_jy

    measured = f"measured RMS {format_jy(mad_sigma(dirty))}/beam (MAD of the dirty image)"
    if vd.weight_source == "unit":
        return f"noise: no expected value (no WEIGHT or SIGMA in the MS), {measured}"
    if hasattr(vd, "parts"):  # several spectral windows
        from uvlab.app.ms.expected_noise import expected_sigma_of_parts

        sigma, n = expected_sigma_of_parts(vd.parts, spec, weighting)
    else:
        sigma, n = expected_image_sigma(vd.uvw, vd.freq_hz, vd.weight, vd.flag, spec, weighting)
    return (
        f"noise: expected {format_jy(sigma)}/beam (√Σw²σ²/Σw, {weighting.scheme} weighting, "
        f"σ from {vd.weight_source}, N = {n}), {measured}"
    )
