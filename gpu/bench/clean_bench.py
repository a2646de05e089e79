"""Cotton–Schwab CLEAN timed on the gridding benchmark's data (``uvlab bench clean``; issue 15).

The issue's GPU target: on the 1.94e7-visibility MeerKAT benchmark at 4096², ten major
cycles and 1e4 minor iterations in all within 1 s. Visibilities of ``nsrc`` point
sources on pixels (an exact sum), natural weights, ``conv`` at ε in the precision asked
for; the PSF is imaged at 2N² first (not timed in ``clean_s``, as WSClean and tclean make
it once), then :func:`~uvlab.gpu.deconvolution.cotton_schwab.cotton_schwab` runs with
``max_major`` major cycles and ``niter`` minor iterations at most, after a warm-up of one
major cycle that compiles the kernels and plans the FFTs. CUDA events (GPU) or
perf_counter (CPU) bracket each part. The cycles are the one CLEAN driver's
(:func:`uvlab.gpu.deconvolution.driver.iter_clean`, through ``cotton_schwab``), the loop
``uvlab image --niter`` and the window run.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.bench import grid_data
from uvlab.gpu.deconvolution.subminor import ACTIVE_MAX
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec


def point_vis(u, v, spec: ImageSpec, nsrc: int, seed: int = 5):
    """Visibilities of ``nsrc`` point sources on pixels of the central half (0.1 … 1 Jy)."""
    from uvlab.gpu.bench.alias_bench import point_visibilities

    rng = np.random.default_rng(seed)
    n = spec.npix
    di, dj = rng.integers(-n // 4, n // 4, (2, nsrc))
    flux = rng.uniform(0.1, 1.0, nsrc)
    return point_visibilities(u, v, spec, np.column_stack([di, dj, flux]))


def run_clean_bench(
    ant_eq, *, npix, ntime, nchan, device, niter=10_000, max_major=10, mgain=0.5,
    gain=0.1, nsrc=20, eps=1e-5, precision="single", active_max=ACTIVE_MAX, multiscale=False,
) -> dict:  # fmt: skip
    """Time the PSF, the dirty image and Cotton–Schwab CLEAN; a JSON-ready record.

    ``active_max``: the minor cycles' sub-minor loop size (None: Högbom on the whole image);
    ``multiscale``: multiscale minor cycles at the default scales instead.
    """
    from uvlab.gpu.backend import device_info, get_xp
    from uvlab.gpu.bench.predict_bench import _timer
    from uvlab.gpu.deconvolution.cotton_schwab import cotton_schwab, major_cycle_pair

    xp = get_xp(device=device)
    u, v = grid_data.make_uv(ant_eq, ntime, nchan, xp)
    spec = ImageSpec(npix, grid_data.cell_for(u, v))
    params = GridParams.from_eps(eps, precision=precision)
    grid, degrid_fn = major_cycle_pair("conv", params, xp)
    weight = xp.ones(u.shape, dtype=np.float64)
    vis = point_vis(u, v, spec, nsrc)
    measure, out = _timer(device), {}

    wide = ImageSpec(2 * npix, spec.cell_rad)
    measure(lambda: grid(u, v, weight + 0j, wide))  # warm-up: NVRTC, cuFFT plans
    psf_s = measure(lambda: out.__setitem__("psf", grid(u, v, weight + 0j, wide) / u.size))
    psf = xp.asarray(out["psf"], dtype=np.float64)

    def clean(n=niter, majors=max_major):
        out["mc"] = cotton_schwab(
            u, v, vis, weight, spec, psf, grid=grid, degrid_fn=degrid_fn, gain=gain,
            niter=n, mgain=mgain, max_major=majors, active_max=active_max, multiscale=multiscale,
        )  # fmt: skip

    warm_s = measure(lambda: clean(20, 1))  # compiles the kernels, plans the FFTs
    clean_s = measure(clean)
    mc = out["mc"]
    return {
        "benchmark": "clean",
        "device": device,
        "device_info": device_info().describe(),
        "npix": npix,
        "nvis": int(u.size),
        "eps": eps,
        "precision": precision,
        "nsrc": nsrc,
        "gain": gain,
        "mgain": mgain,
        "active_max": active_max,
        "multiscale": bool(multiscale),
        "psf_s": psf_s,
        "warm_up_s": warm_s,
        "clean_s": clean_s,
        "majors": mc.majors,
        "iterations": mc.iterations,
        "stop_reason": mc.stop_reason,
        "major_peaks": [float(p) for p in mc.major_peaks],
        "model_flux_jy": float(mc.model.sum()),
    }


def format_record(r: dict) -> str:
    return (
        f"Cotton–Schwab on {r['device_info']}: {r['npix']}², {r['nvis']:.3e} visibilities, "
        f"{r['nsrc']} sources, conv ε={r['eps']:g} {r['precision']}, gain {r['gain']:g}, "
        f"mgain {r['mgain']:g}, minor cycles {_minor(r['active_max'], r.get('multiscale'))}\n"
        f"  PSF (2N²) {r['psf_s'] * 1e3:.1f} ms; CLEAN {r['clean_s'] * 1e3:.1f} ms for "
        f"{r['majors']} major cycles and {r['iterations']} minor iterations "
        f"(stopped by {r['stop_reason']}); residual peak {r['major_peaks'][0]:.3g} → "
        f"{r['major_peaks'][-1]:.3g} Jy/beam; model flux {r['model_flux_jy']:.4g} Jy"
    )


def _minor(active_max, multiscale=False) -> str:
    if multiscale:
        return "multiscale"
    return "on the whole image" if active_max is None else f"on ≤ {active_max} pixels (sub-minor)"
