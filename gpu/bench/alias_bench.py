"""How conv, hybrid and pruned-nn alias on real data: ``uvlab bench aliasing``.

DESIGN §2 and Muscat (2021 §2.4.6, §8.2.2: R(X) at β = 128) expect the aliasing
ranking ``pruned-nn < hybrid < conv`` at equal β with conv reading the same
nearest-lookup table (with an exact or linearly interpolated kernel conv is far
more accurate; :mod:`uvlab.gpu.bench.rx_bench` runs his R(X)). This study measures the
central-half and full-image RMS error (DESIGN §3) of each algorithm against
the float64 DFT of the *same* records, on a MeerKAT track set (the gridding
benchmark's, :func:`uvlab.gpu.bench.grid_data.make_uv`), for several
declinations, table/grid oversamplings β and point-source skies, in Muscat's
setting (PSWF S = 6, σ = 1, least-misfit pruners S_z = 14).

Two more columns separate the two parts of every error:

- ``nn-oversampled``: nearest-cell gridding on the β-finer grid alone. conv
  (through its nearest-lookup table), hybrid and pruned-nn all move each
  record to that grid first, so this is the error floor they share; it falls
  as 1/β and, being incoherent, as 1/√(records).
- ``conv β=4096``: conv with a 4096-times oversampled table, whose floor is
  256× below β = 16: the GCF's own aliasing, which does not fall with more
  records or larger β.

Skies (pixel offsets from the centre, fluxes in Jy): ``in-field`` has six
sources within ±0.45 of the field; ``outside`` adds three brighter sources
0.6–1.5 fields from the centre in random directions; ``fold-back`` adds
three placed 0.8–0.9 fields out along u, along v and along both, where a
σ = 1 grid folds them into the central half.
"""

from __future__ import annotations

import platform
from dataclasses import dataclass

import numpy as np

from uvlab.gpu.aliasing import error_map
from uvlab.gpu.bench import grid_data
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec

#: The three algorithms the ranking is about, in expected order of error.
RANKED = ("pruned-nn", "hybrid", "conv")
#: Table oversampling of the "GCF aliasing alone" column.
FINE_TABLE = 4096
SKIES = ("in-field", "outside", "fold-back")


@dataclass(frozen=True)
class AliasSize:
    """One observation: image side, times, channels, declinations, βs, sky seeds."""

    npix: int
    ntime: int
    nchan: int
    decs: tuple[float, ...] = (-30.0,)
    betas: tuple[int, ...] = (16,)
    seeds: tuple[int, ...] = (0,)
    skies: tuple[str, ...] = SKIES


def sky_sources(npix: int, kind: str, seed: int) -> np.ndarray:
    """(k, 3) float: pixel offsets (di, dj) from the centre and flux of each source.

    Offsets are whole pixels so that the DFT image samples every source at
    its peak; ``outside`` sources may lie beyond the image.
    """
    if kind not in SKIES:
        raise ValueError(f"unknown sky {kind!r}; choose one of {SKIES}")
    rng = np.random.default_rng(seed)
    pos = np.rint(rng.uniform(-0.45 * npix, 0.45 * npix, (6, 2)))
    rows = [np.column_stack([pos, rng.uniform(0.2, 1.0, 6)])]
    if kind == "outside":
        r = rng.uniform(0.6, 1.5, 3) * npix
        th = rng.uniform(0.0, 2.0 * np.pi, 3)
        flux = rng.uniform(0.5, 3.0, 3)
        rows.append(np.column_stack([np.rint(r * np.cos(th)), np.rint(r * np.sin(th)), flux]))
    elif kind == "fold-back":
        # Where a σ = 1 grid folds a source into the central half: 0.8–0.9
        # fields out along u, along v and along both (ĉ falls steeply beyond).
        far = rng.choice([-1.0, 1.0], (3, 2)) * rng.uniform(0.8, 0.9, (3, 2))
        near = rng.uniform(-0.15, 0.15, (3, 2))
        pos = np.where([[True, False], [False, True], [True, True]], far, near) * npix
        rows.append(np.column_stack([np.rint(pos), rng.uniform(1.5, 3.0, 3)]))
    return np.vstack(rows)


def point_visibilities(u, v, spec: ImageSpec, sources) -> object:
    """``Σ f·exp(+2πi(u·l + v·m))`` of point sources at pixel offsets (DESIGN §1).

    Pixel (di, dj) from the centre is at ``l = −di·cell``, ``m = dj·cell``
    (:meth:`ImageSpec.l_axis`). Arrays follow u's device; complex128.
    """
    from uvlab.gpu.backend import get_xp

    xp = get_xp(u)
    vis = xp.zeros(u.shape, dtype=xp.complex128)
    for di, dj, flux in np.asarray(sources, dtype=np.float64):
        l, m = -di * spec.cell_rad, dj * spec.cell_rad
        vis += flux * xp.exp(2j * np.pi * (u * l + v * m))
    return vis


def columns(beta: int) -> list[tuple[str, str, GridParams]]:
    """(column label, algorithm, params) measured at one β."""
    muscat = GridParams.muscat(beta)
    return [
        *[(name, name, muscat) for name in RANKED],
        ("nn-oversampled", "nn-oversampled", muscat),
        (f"conv β={FINE_TABLE}", "conv", muscat.with_(oversample=FINE_TABLE)),
    ]


def ranking_holds(metrics: dict, key: str = "rms_central") -> bool:
    """True when ``pruned-nn < hybrid < conv`` in ``metrics[name][key]``."""
    vals = [metrics[name][key] for name in RANKED]
    return vals[0] < vals[1] < vals[2]


def run_alias_bench(ant_eq, size: AliasSize, *, device: str, log=print) -> dict:
    """Measure every (declination, sky, β) case; returns a JSON-ready report."""
    from uvlab.gpu.backend import device_info, get_xp, to_numpy
    from uvlab.gpu.gridders.dft import dirty_dft
    from uvlab.gpu.gridders.registry import get_gridder

    xp = get_xp(device=device)
    report = {
        "benchmark": "aliasing",
        "device": device,
        "device_info": device_info().describe(),
        "host": platform.node(),
        "npix": size.npix,
        "ntime": size.ntime,
        "nchan": size.nchan,
        "setting": "PSWF S=6 table, sigma=1, least-misfit pruners S_z=14 (Muscat 2021)",
        "cases": [],
    }
    for dec in size.decs:
        u, v = grid_data.make_uv(ant_eq, size.ntime, size.nchan, xp, dec_deg=dec)
        spec = ImageSpec(size.npix, grid_data.cell_for(u, v))
        report["nvis"] = int(u.size)
        log(
            f"--- δ = {dec:+.0f}°: {u.size:.3e} records, {spec.npix}², cell {spec.cell_arcsec:.3g}″"
        )
        for kind in size.skies:
            for seed in size.seeds:
                sources = sky_sources(size.npix, kind, seed)
                vis = point_visibilities(u, v, spec, sources)
                ref = to_numpy(dirty_dft(u, v, vis, spec))
                for beta in size.betas:
                    case = {"dec_deg": dec, "sky": kind, "seed": seed, "beta": beta, "metrics": {}}
                    for label, name, params in columns(beta):
                        img = to_numpy(get_gridder(name, xp=xp)(u, v, vis, spec, params))
                        case["metrics"][label] = error_map(img, ref)[1]
                    case["ranking_central"] = ranking_holds(case["metrics"])
                    case["ranking_full"] = ranking_holds(case["metrics"], "rms_full")
                    report["cases"].append(case)
                    log(format_case(case))
                del vis
        if device == "gpu":
            import cupy

            del u, v
            cupy.get_default_memory_pool().free_all_blocks()
    report["summary"] = summarise(report["cases"])
    return report


def summarise(cases: list[dict]) -> list[dict]:
    """Per (declination, β): how often the ranking holds, and the median ratios."""
    out = []
    keys = sorted({(c["dec_deg"], c["beta"]) for c in cases})
    for dec, beta in keys:
        group = [c for c in cases if (c["dec_deg"], c["beta"]) == (dec, beta)]

        def ratio(a, b, key="rms_central", g=group):
            return float(np.median([c["metrics"][a][key] / c["metrics"][b][key] for c in g]))

        out.append(
            {
                "dec_deg": dec,
                "beta": beta,
                "cases": len(group),
                "ranking_central": sum(c["ranking_central"] for c in group),
                "ranking_full": sum(c["ranking_full"] for c in group),
                "conv/hybrid central": ratio("conv", "hybrid"),
                "hybrid/pruned-nn central": ratio("hybrid", "pruned-nn"),
                "floor/gcf central": ratio("nn-oversampled", f"conv β={FINE_TABLE}"),
            }
        )
    return out


def format_case(case: dict) -> str:
    m = case["metrics"]
    vals = "  ".join(f"{k} {m[k]['rms_central']:.2e}/{m[k]['rms_full']:.2e}" for k in m)
    mark = "holds" if case["ranking_central"] else "fails"
    return (
        f"δ {case['dec_deg']:+.0f}° {case['sky']:>8} seed {case['seed']} β {case['beta']:>3}: "
        f"{vals}  [central ranking {mark}]"
    )


def format_table(report: dict) -> str:
    """The summary as a Markdown table."""
    lines = [
        f"{report['nvis']:.3e} records, {report['npix']}², {report['setting']}",
        "",
        "| δ | β | cases | ranking holds (central / full) | conv/hybrid | hybrid/pruned-nn "
        "| shared floor / GCF aliasing |",
        "|---:|---:|---:|---|---:|---:|---:|",
    ]
    for s in report["summary"]:
        lines.append(
            f"| {s['dec_deg']:+.0f}° | {s['beta']} | {s['cases']} | {s['ranking_central']} / "
            f"{s['ranking_full']} | {s['conv/hybrid central']:.2f} | "
            f"{s['hybrid/pruned-nn central']:.2f} | {s['floor/gcf central']:.2f} |"
        )
    return "\n".join(lines)
