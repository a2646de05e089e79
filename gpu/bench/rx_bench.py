"""Muscat's R(X) experiment in his setting: ``uvlab bench aliasing --rx``.

Muscat (2021, §8.2.2) images one unit point source placed exactly on pixel
(X, X) from the centre of a 128 × 128 image, for X = 0 … 63, and plots
``R(X) = |1 − K(X)|`` with K(X) the image at that pixel. His setting: β = 128,
the order-1 prolate spheroidal GCF (support 6, on an unpadded grid, σ = 1) and
least-misfit pruners with S_z = 14, x0 = 0.25 (``GridParams.muscat(128)``).
He states that R(X) "was highest for Convolutional Gridding, decreased for
Hybrid Gridding, and was measured to be lowest for Pruned NN Interpolation".

Here every image is a real run of the gridder on the source's float64
visibilities (the DFT of a unit source on pixel (X, X) is exactly 1 at that
pixel once normalised by Σw), on the gridding benchmark's MeerKAT tracks
(:func:`uvlab.gpu.bench.grid_data.make_uv`) with uvlab's default cell; Muscat
used real GMRT, VLA and LOFAR observations. A fourth column, ``conv exact``,
evaluates the same PSWF exactly instead of through the nearest entry of the
β-oversampled table: what is left is the GCF's own aliasing at σ = 1.
"""

from __future__ import annotations

import platform

import numpy as np

from uvlab.gpu.aliasing import point_source_scan
from uvlab.gpu.bench.alias_bench import RANKED
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec

#: Muscat's β in §8.2.2.
MUSCAT_BETA = 128
#: Muscat's image side in §8.2.2 (X runs over 0 … N/2 − 1).
MUSCAT_NPIX = 128


def rx_columns(beta: int) -> list[tuple[str, str, GridParams]]:
    """(label, algorithm, params) of every R(X) curve at one β."""
    muscat = GridParams.muscat(beta)
    return [
        *[(name, name, muscat) for name in RANKED],
        ("conv exact", "conv", muscat.with_(exact=True)),
    ]


def run_rx_bench(
    ant_eq,
    *,
    device: str,
    npix: int = MUSCAT_NPIX,
    beta: int = MUSCAT_BETA,
    ntime: int = 32,
    nchan: int = 8,
    decs=(-30.0,),
    xs=None,
    log=print,
) -> dict:
    """R(X) of every column per declination; returns a JSON-ready report."""
    from uvlab.gpu.backend import device_info, get_xp
    from uvlab.gpu.bench import grid_data

    xp = get_xp(device=device)
    xs = list(range(npix // 2)) if xs is None else [int(x) for x in xs]
    report = {
        "benchmark": "aliasing-rx",
        "device": device,
        "device_info": device_info().describe(),
        "host": platform.node(),
        "npix": npix,
        "beta": beta,
        "ntime": ntime,
        "nchan": nchan,
        "setting": f"Muscat 2021 §8.2.2: PSWF S=6 table, sigma=1, beta={beta}, "
        "least-misfit pruners S_z=14 (x0=0.25); unit point source on pixel (X, X)",
        "xs": xs,
        "scans": [],
    }
    for dec in decs:
        u, v = grid_data.make_uv(ant_eq, ntime, nchan, xp, dec_deg=dec)
        spec = ImageSpec(npix, grid_data.cell_for(u, v))
        log(f"--- δ = {dec:+.0f}°: {u.size:.3e} records, {npix}², cell {spec.cell_arcsec:.3g}″")
        scan = {"dec_deg": dec, "nvis": int(u.size), "cell_arcsec": spec.cell_arcsec, "r": {}}
        for label, name, params in rx_columns(beta):
            scan["r"][label] = point_source_scan(name, spec, params, u, v, xs=xs, xp=xp)[1].tolist()
            log(f"{label:>10}: " + " ".join(f"{r:.1e}" for r in scan["r"][label]))
        scan["ranking"] = ranking(scan["r"])
        report["scans"].append(scan)
    return report


def ranking(r: dict) -> dict:
    """How often ``pruned-nn < hybrid < conv`` holds over X, and the median ratios."""
    p, h, c = (np.asarray(r[name]) for name in RANKED)
    ok = (p < h) & (h < c)
    tiny = np.finfo(np.float64).tiny
    return {
        "holds": int(ok.sum()),
        "of": int(ok.size),
        "fails_at": [i for i, good in enumerate(ok) if not good],
        "median conv/hybrid": float(np.median(c / np.maximum(h, tiny))),
        "median hybrid/pruned-nn": float(np.median(h / np.maximum(p, tiny))),
    }


def format_rx_table(report: dict, show=(0, 16, 31, 48, 56, 63)) -> str:
    """R(X) at a few X per scan, as a Markdown table, and the ranking count."""
    xs = report["xs"]
    cols = [k for k, x in enumerate(xs) if x in show] or list(range(len(xs)))
    lines = []
    for scan in report["scans"]:
        rk = scan["ranking"]
        lines += [
            f"δ {scan['dec_deg']:+.0f}°, {scan['nvis']:.3e} records, {report['npix']}², "
            f"β = {report['beta']}: pruned-nn < hybrid < conv at {rk['holds']} of {rk['of']} X",
            "",
            "| algorithm | " + " | ".join(f"X = {xs[k]}" for k in cols) + " |",
            "|---|" + "---:|" * len(cols),
        ]
        for label, vals in scan["r"].items():
            lines.append(f"| {label} | " + " | ".join(f"{vals[k]:.1e}" for k in cols) + " |")
        lines.append("")
    return "\n".join(lines).rstrip()
