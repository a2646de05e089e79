"""Accuracy-vs-time fronts of the gridders (``uvlab bench pareto``; issue 14).

A speed-up between gridders means something only at equal accuracy: ``hybrid``
at β = 16 grids faster than ``conv`` at S = 7, but its error against the DFT
is 3e-2 where conv's is 1e-5. This benchmark sweeps each algorithm's accuracy
knob and measures, for every setting, the time of the whole image (sort/bin,
grid, prune, FFT, correct: the median of ``repeats`` calls on data already on
the device, :func:`uvlab.gpu.bench.grid_bench.bench_case`) and its error against
the float64 direct DFT on every k-th pixel
(:func:`uvlab.gpu.bench.grid_data.sampled_error`):

- ``conv``, exact ES: support S = 2 … 8 (ε = 10^(1−S), ducc0's NUFFT on the
  CPU, the CUDA gridder on the GPU, where S goes to 10 in double precision);
- ``conv-sigma``: exact ES at σ = 1.25 (:data:`LOW_SIGMA`), S = 3 … 8: the
  FFT of a (1.25 N)² grid instead of (2 N)², the support FINUFFT's rule gives
  for that σ (ε ≈ exp(−π·S·√(1 − 1/σ)));
- ``conv-table`` and ``conv-linear``: ES tables of the same supports read by
  nearest or by linear-interpolation lookup at β = 16 and 64 (the table rung,
  :class:`~uvlab.gpu.gridders.tables.TableTaps`);
- ``hybrid`` (ES u axis at ε = 1e-7, nearest-cell v axis) and ``pruned-nn``
  at β = 16, 64, 256, … while their grids fit :data:`GRID_BUDGET_BYTES`;
- ``nn-oversampled`` at β = 2, 4, 8, … likewise.

Two skies: ``noise`` (complex Gaussian visibilities, the random-strength test
NUFFT accuracy is quoted for) and ``points`` (a few point sources inside the
field, predicted exactly in float64).

:mod:`uvlab.gpu.bench.fronts` reads the points: each algorithm's Pareto
front, a front's time at a given error, every non-conv point quoted against
conv's front, and a peer's points against uvlab's best front.
The PNG (``uvlab bench pareto --png``) is drawn in :mod:`uvlab.app.commands.bench.pareto`.
"""

from __future__ import annotations

import math
import platform
from dataclasses import asdict, dataclass

import numpy as np

from uvlab.gpu.bench import grid_data
from uvlab.gpu.bench.fronts import STYLE_ORDER, against_peer, format_point, matched
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec

#: The largest uv grid (complex128 bytes) a swept setting may need.
GRID_BUDGET_BYTES = 2 << 30
#: Skies of the sweep.
SKIES = ("noise", "points")
#: The smaller padding of ``conv-sigma``: a (1.25 N)² FFT in place of (2 N)², at a wider kernel.
LOW_SIGMA = 1.25
#: Point sources of the ``points`` sky.
NPOINTS = 8


@dataclass(frozen=True)
class ParetoCase:
    """One setting of one algorithm's accuracy knob."""

    algorithm: str
    params: GridParams
    label: str


@dataclass(frozen=True)
class ParetoSize:
    """Image side, MeerKAT ntime × nchan (2016 baselines) and the DFT's pixel step."""

    npix: int
    ntime: int
    nchan: int
    dft_step: int
    conv_supports: tuple[int, ...] = (2, 3, 4, 5, 6, 7, 8)
    sigma_supports: tuple[int, ...] = (3, 4, 5, 6, 7, 8)
    table_betas: tuple[int, ...] = (16, 64)
    betas: tuple[int, ...] = (16, 64, 256, 1024)
    nn_betas: tuple[int, ...] = (2, 4, 8, 16, 32)


def grid_bytes(algorithm: str, npix: int, params: GridParams) -> int:
    """complex128 bytes of the largest uv grid ``algorithm`` allocates at ``params``."""
    beta = int(params.oversample)
    cells = {
        "hybrid": npix * npix * beta,
        "pruned-nn": (npix * beta) ** 2,
        "nn-oversampled": (npix * beta) ** 2,
    }.get(algorithm, math.ceil(params.sigma * npix) ** 2)
    return 16 * cells


def sweep_cases(
    size: ParetoSize, precision: str = "double", budget: int | None = GRID_BUDGET_BYTES
) -> list[ParetoCase]:
    """Every algorithm's settings for ``size`` whose NumPy grids fit ``budget`` bytes.

    ``budget`` None keeps them all (the CUDA gridders prune as they grid and
    hold no (N·β)² grid; a setting that does not fit the card is skipped when run).
    """
    cases = []
    for s in size.conv_supports:
        p = GridParams.from_eps(10.0 ** (1 - s), precision=precision)
        cases.append(ParetoCase("conv", p, f"conv ES ε={p.eps:.0e} S={p.support}"))
    for s in size.sigma_supports:
        eps = math.exp(-math.pi * s * math.sqrt(1.0 - 1.0 / LOW_SIGMA))  # from_eps inverted
        p = GridParams.from_eps(eps * 1.001, sigma=LOW_SIGMA, precision=precision)
        cases.append(ParetoCase("conv-sigma", p, f"conv ES σ={LOW_SIGMA:g} S={p.support}"))
    for beta in size.table_betas:
        for s in size.conv_supports:
            p = GridParams(kernel="es", support=s, oversample=beta, precision=precision)
            cases.append(ParetoCase("conv-table", p, f"conv table S={s} β={beta}"))
            linear = p.with_(lookup="linear")
            cases.append(ParetoCase("conv-linear", linear, f"conv linear S={s} β={beta}"))
    hyb = GridParams.from_eps(1e-7, precision=precision)
    for beta in size.betas:
        cases.append(ParetoCase("hybrid", hyb.with_(oversample=beta), f"hybrid β={beta}"))
        p = GridParams(oversample=beta, precision=precision)
        cases.append(ParetoCase("pruned-nn", p, f"pruned-nn β={beta}"))
    for beta in size.nn_betas:
        p = GridParams(oversample=beta, precision=precision)
        cases.append(ParetoCase("nn-oversampled", p, f"nn-os β={beta}"))
    if budget is None:
        return cases
    return [
        c for c in cases if grid_bytes(_gridder_name(c.algorithm), size.npix, c.params) <= budget
    ]


def _gridder_name(algorithm: str) -> str:
    """The registry's name: ``conv-table`` and ``conv-linear`` are conv with a table."""
    return "conv" if algorithm.startswith("conv") else algorithm


def point_sky_vis(u, v, spec: ImageSpec, seed: int = 3, nsrc: int = NPOINTS):
    """Visibilities of ``nsrc`` point sources inside the central 80 % (float64, exact).

    V = Σ_s S_s·exp(+2πi·(u·l_s + v·m_s)) (DESIGN §1, w left out as the gridders do here).
    """
    from uvlab.gpu.backend import get_xp

    xp = get_xp(u)
    rng = np.random.default_rng(seed)
    half = 0.4 * spec.npix * spec.cell_rad
    lm = rng.uniform(-half, half, size=(nsrc, 2))
    flux = rng.uniform(0.1, 1.0, size=nsrc)
    vis = xp.zeros(u.shape, dtype=np.complex128)
    for (l, m), s in zip(lm, flux, strict=True):
        vis += s * xp.exp(2j * np.pi * (u * l + v * m))
    return vis


def sky_vis(sky: str, u, v, spec: ImageSpec, dtype):
    """The visibilities of ``sky`` (``noise`` or ``points``) in ``dtype``."""
    from uvlab.gpu.backend import get_xp

    if sky == "noise":
        return grid_data.make_vis(u.size, get_xp(u), dtype)
    if sky == "points":
        return point_sky_vis(u, v, spec).astype(dtype)
    raise ValueError(f"unknown sky {sky!r}; choose one of {SKIES}")


def run_pareto(
    ant_eq,
    size: ParetoSize,
    *,
    device: str,
    repeats: int = 3,
    precisions=("double",),
    peer=None,
    log=print,
) -> dict:
    """Time and measure every case on every sky; returns the JSON-ready report.

    ``peer(u, v, vis, spec, ref, step, precision, sky, repeats)``, optional,
    returns points of another library on the same data, scored against the same
    DFT (``uvlab bench pareto`` passes cuFINUFFT's when it is importable); they
    are quoted against uvlab's best front in ``report["peer"]`` (:func:`against_peer`).
    """
    from uvlab.gpu.backend import device_info, get_xp
    from uvlab.gpu.bench.grid_bench import BenchCase, bench_case

    xp = get_xp(device=device)
    u, v = grid_data.make_uv(ant_eq, size.ntime, size.nchan, xp)
    spec = ImageSpec(size.npix, grid_data.cell_for(u, v))
    report = {
        "benchmark": "pareto",
        "device": device,
        "device_info": device_info().describe(),
        "host": platform.node(),
        "npix": size.npix,
        "nvis": int(u.size),
        "ntime": size.ntime,
        "nchan": size.nchan,
        "dft_pixel_step": size.dft_step,
        "repeats": repeats,
        "error": "‖I − I_dft‖/‖I_dft‖ on every k-th pixel (error_central: the central half)",
        "points": [],
    }
    log(
        f"--- {size.npix}² image, {u.size:.3e} visibilities, DFT on every "
        f"{size.dft_step}th pixel, device {device}"
    )
    for precision in precisions:
        vdt = np.complex64 if precision == "single" else np.complex128
        cases = sweep_cases(size, precision, None if device == "gpu" else GRID_BUDGET_BYTES)
        for sky in SKIES:
            vis = sky_vis(sky, u, v, spec, vdt)
            ref = grid_data.dft_reference(u, v, vis, spec, size.dft_step)
            for case in cases:
                bc = BenchCase(_gridder_name(case.algorithm), case.params, case.params.eps)
                try:
                    rec, img = bench_case(bc, u, v, vis, spec, device, repeats)
                except MemoryError as exc:  # CuPy's OutOfMemoryError is one
                    report.setdefault("skipped", []).append(f"{case.label}: {exc}")
                    log(f"{sky:<6} {precision:<6} {case.label:<26} skipped: out of memory")
                    continue
                acc = grid_data.sampled_error(img, ref, size.dft_step)
                del img
                point = {
                    "algorithm": case.algorithm,
                    "label": case.label,
                    "params": _params_dict(case.params),
                    "precision": precision,
                    "sky": sky,
                    "total_s": rec["total_s"],
                    "grid_s": rec["stage_s"].get("grid", 0.0),
                    "error": acc["rel_l2"],
                    "error_central": acc["rel_l2_central"],
                }
                report["points"].append(point)
                log(format_point(point))
            if peer is not None:
                for point in peer(u, v, vis, spec, ref, size.dft_step, precision, sky, repeats):
                    report["points"].append(point)
                    log(format_point(point))
            del vis
    peers = {p["algorithm"] for p in report["points"]} - set(STYLE_ORDER)
    uvlab_points = [p for p in report["points"] if p["algorithm"] in STYLE_ORDER]
    report["matched"] = matched(uvlab_points)
    report["peer"] = [row for name in sorted(peers) for row in against_peer(report["points"], name)]
    return report


def _params_dict(p: GridParams) -> dict:
    keep = ("kernel", "support", "oversample", "sigma", "exact", "eps", "precision")
    keep = (*keep, "lookup")
    d = asdict(p)
    return {k: d[k] for k in keep}
