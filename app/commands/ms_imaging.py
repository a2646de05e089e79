"""What ``uvlab image`` and ``uvlab compare`` share: selecting, reading and sizing an MS image.

What the selection options select (their parsers: :mod:`uvlab.app.commands.ms_args`),
reading the selection through the lab's MS source (after a memory check), and the image
geometry chosen from the data.

Image geometry when not given:

- cell: ``default_cell_rad(uv_max)``, about a third of the finest fringe
  (``uv_max`` in wavelengths at the highest selected frequency);
- npix: when the ANTENNA table gives dish diameters D (median of those > 0),
  enough pixels to cover 1.5 × the primary-beam FWHM ≈ 1.02 λ/D at the lowest
  selected frequency (at most the whole sky, |l|, |m| ≤ 1), rounded up to an
  even 2·3·5-smooth size and clipped to [64, 4096]; otherwise 512. A derived
  cell is made finer when 64 pixels would reach past the horizon.
"""

from __future__ import annotations

from uvlab.app.commands import validate as V
from uvlab.app.commands.ms_args import parse_channels
from uvlab.app.lab.imaging import DEFAULT_NPIX

NPIX_RANGE = (64, 4096)
FOV_BEAMS = 1.5


def warn(args, message: str) -> None:
    """``uvlab CMD: warning: message`` as one line on stderr (over any progress bar).

    Through :mod:`logging` (and so into --log-file too); printed as before where the
    command runs without :func:`uvlab.app.runtime.logs.configure` (called directly).
    """
    import logging

    from uvlab.app.runtime.logs import configured

    if configured():
        logging.getLogger(__name__).warning("%s", message)
        return
    import sys

    command = getattr(args, "command", None) or "image"
    print(f"uvlab {command}: warning: {message}", file=sys.stderr)


#: The accuracy of the commands' gridding when no kernel flag is given (support 7 at σ = 2).
DEFAULT_EPS = 1e-6
#: The kernels' truncation of w-projection when no kernel flag is given (CASA cuts at 1e-3).
#: Its error is set by the nearest w-plane and the kernel tables, not by ε: on the VLA-C
#: fields of docs/wide-field.md ε = 1e-3 gave the error of ε = 1e-6 in 0.4–0.9 of the time.
WPROJECT_EPS = 1e-3


def grid_params(args):
    """The :class:`~uvlab.gpu.gridders.params.GridParams` the options ask for.

    Without ``--eps``, ``--support``, ``--oversample`` or ``--lookup`` (and with the ES
    kernel) that is the exact ES kernel of ε = :data:`DEFAULT_EPS`, on every device
    (:data:`WPROJECT_EPS` with ``--wprojplanes``).
    """
    from uvlab.gpu.gridders.params import GridParams

    given = {k: getattr(args, k, None) for k in ("kernel", "support", "oversample", "lookup")}
    given = {k: v for k, v in given.items() if v is not None}
    eps = args.eps
    if eps is None and not given.keys() - {"kernel"} and given.get("kernel", "es") == "es":
        # nothing said of the kernel: the exact ES kernel of ε = 1e-6 (w-projection: 1e-3)
        eps = WPROJECT_EPS if getattr(args, "wprojplanes", None) else DEFAULT_EPS
    given["precision"] = getattr(args, "precision", None) or "double"
    if getattr(args, "wstack", False):
        given["wstack"] = True
    if getattr(args, "wprojplanes", None) is not None:
        given["wprojplanes"] = int(args.wprojplanes)
    if eps is not None:
        return GridParams.from_eps(eps, **given)
    return GridParams(**given)


#: The w-term's phase at the image corner (radians) above which ``uvlab image`` suggests --wstack.
WTERM_HINT_RAD = 0.5


def wterm_phase_rad(uvw_m, freq_hz, flag, spec) -> float:
    """The largest w-term phase 2π·|w|·(1 − n) at the image's corner, radians."""
    import numpy as np

    from uvlab.gpu.constants import C_LIGHT

    ok = ~np.asarray(flag).all(axis=1)
    if not ok.any():
        return 0.0
    w_max = float(np.abs(uvw_m[ok, 2]).max()) * float(np.max(freq_hz)) / C_LIGHT
    half = spec.npix / 2 * spec.cell_rad
    r2 = min(2.0 * half * half, 1.0)
    return 2.0 * np.pi * w_max * (1.0 - np.sqrt(1.0 - r2))


def ms_size(path) -> tuple[int, int, float]:
    """(rows, channels of the largest window, median dish diameter in m or 0) of an MS."""
    import numpy as np

    from uvlab.app.ms.metadata import read_spws
    from uvlab.app.ms.tables import MSTables, translated

    with MSTables(path) as ms:
        spws = read_spws(ms)
        ant = ms.sub("ANTENNA")
        with translated(ms.path):
            nrow = ms.main.nrows()
            dish = ant.getcol("DISH_DIAMETER") if "DISH_DIAMETER" in ant.colnames() else []
    dish = np.asarray(dish, dtype=float)
    dish = dish[np.isfinite(dish) & (dish > 0)]
    return (
        nrow,
        max((s.nchan for s in spws), default=0),
        float(np.median(dish)) if dish.size else 0.0,
    )


def ms_selection(args):
    """The :class:`~uvlab.app.lab.jobs.MSSelection` of ``--ms`` and the selection options."""
    from uvlab.app.lab.jobs import MSSelection

    channels = parse_channels(args.channels)
    lo, hi = getattr(args, "minuv_l", None), getattr(args, "maxuv_l", None)
    uvrange = None if lo is None and hi is None else (lo or 0.0, hi if hi is not None else None)
    return MSSelection(
        args.ms, V.field_arg(args.field), args.spw, args.column, args.stokes, channels, uvrange,
        timerange=getattr(args, "timerange", None),
        interval=getattr(args, "interval", None),
        antenna=getattr(args, "antenna", None),
        phase_centre=getattr(args, "phase_center", None),
    )  # fmt: skip


def check_read_memory(args, algorithms=None) -> float:
    """Refuse (exit 1) a read, and with ``--npix`` its image, that memory cannot hold.

    Every row of the MS at its largest window's channels is counted (the bound for one
    window, and for several read side by side). Returns the median dish diameter (m, 0
    when unknown).
    """
    from uvlab.app.runtime.memory import check_memory, imaging_estimate, read_estimate

    nrow, nchan, dish = ms_size(args.ms)
    est = read_estimate(nrow, nchan)
    if args.npix:
        names = algorithms or [args.algorithm]
        params = grid_params(args)
        est = est + max(
            (imaging_estimate(args.npix, a, params, nvis=nrow * nchan) for a in names),
            key=lambda e: e.total,
        )
    what = f"a {args.npix}² image of" if args.npix else "reading"
    check_memory(est, f"{what} {args.ms} ({nrow} rows × {nchan} channels)")
    return dish


def read_selected(args, algorithms=None, progress=None, cache=None):
    """Check memory, then read the selection: returns (VisData, dish diameter, seconds).

    With ``--npix`` the imaging memory of each of ``algorithms`` (default
    ``args.algorithm``) is checked too, before anything is read. The read is
    the lab's MS source (:func:`uvlab.app.lab.ms_source.iter_measurement_set`),
    the window's; ``cache`` (a :class:`~uvlab.app.lab.samples.WorkCache`)
    keeps what was read for a job run on it next.
    """
    from uvlab.app.lab.imaging import ImagingOptions
    from uvlab.app.lab.jobs import JobRequest
    from uvlab.app.lab.sources import read_samples

    dish = check_read_memory(args, algorithms)
    request = JobRequest(
        "ms",
        ImagingOptions(npix=args.npix or DEFAULT_NPIX, cell_arcsec=args.cell_arcsec),
        args.device,
        ms=ms_selection(args),
        preview=False,
        threads=0,
    )
    samples = read_samples(request, cache, progress=progress, warn=lambda line: warn(args, line))
    return samples.raw, dish, samples.timing.get("read MS", 0.0)


def choose_geometry(uvw, freq_hz, flag, dish_m: float, npix=None, cell_arcsec=None):
    """(ImageSpec, how it was chosen) for (row, 3) uvw in metres and (row, chan) flags.

    See the module docstring. The field never extends past the horizon: when
    1.5 × FWHM exceeds the whole sky (|l|, |m| ≤ 1) the field is the whole
    sky, and a cell derived from the data is made finer where the minimum
    image size would otherwise reach past it.
    """
    import numpy as np

    from uvlab.gpu.constants import C_LIGHT
    from uvlab.gpu.gridders.params import good_size
    from uvlab.gpu.image_spec import ImageSpec, cell_for_uvw

    cell = cell_for_uvw(uvw[~np.all(flag, axis=1)], freq_hz, cell_arcsec)
    if npix is not None:
        return ImageSpec(int(npix), cell), "given"
    if not dish_m > 0:
        return ImageSpec(DEFAULT_NPIX, cell), "default (no dish diameter in the MS)"
    fwhm = 1.02 * C_LIGHT / freq_hz.min() / dish_m
    fov = min(FOV_BEAMS * fwhm, 2.0)
    n = int(min(max(good_size(fov / cell), NPIX_RANGE[0]), NPIX_RANGE[1]))
    rule = f"{FOV_BEAMS} x primary-beam FWHM (1.02 lambda/D, D = {dish_m:g} m)"
    if fov == 2.0:
        rule = f"whole sky (1.5 x FWHM = {FOV_BEAMS * fwhm:.2f} > 2; D = {dish_m:g} m)"
    if cell_arcsec is None and n * cell > 2.0:
        cell = 2.0 / n
    return ImageSpec(n, cell), rule


def row_selection_note(args, vd) -> str | None:
    """One line on the rows --timerange/--interval/--antenna kept, or None without them."""
    import numpy as np

    given = {k: getattr(args, k, None) for k in ("timerange", "interval", "antenna")}
    given = {k: v for k, v in given.items() if v}
    if not given:
        return None
    what = ", ".join(
        f"{k} {' '.join(map(str, v)) if isinstance(v, (list, tuple)) else v}"
        for k, v in given.items()
    )
    nant = np.unique(np.concatenate([vd.ant1, vd.ant2])).size
    return f"selected {vd.nrow} rows ({what}): {np.unique(vd.time).size} timesteps, {nant} antennas"


def fits_history(items: dict) -> dict:
    """History entries as printable ASCII (FITS cards allow nothing else)."""
    out = {}
    for key, value in items.items():
        text = " ".join(str(value).split())
        out[key] = text.encode("ascii", "replace").decode("ascii")
    return out
