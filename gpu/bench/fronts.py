"""Accuracy-vs-time fronts read from measured points (``uvlab bench pareto``; issue 14).

A point is a dict with ``algorithm``, ``label``, ``sky``, ``precision``, ``error`` and
``total_s`` (:func:`uvlab.gpu.bench.pareto.run_pareto` makes them).

- :func:`front` keeps one algorithm's Pareto-optimal points; :func:`time_at`
  interpolates a front log-log at a given error;
- :func:`matched` quotes every non-conv point against conv's front at the same error
  (the interpolated conv time, and the least accurate conv point still as accurate);
- :func:`best_front` pools every uvlab algorithm, :func:`against_peer` quotes a peer
  library's points (cuFINUFFT) against it;
- :func:`format_point`, :func:`format_table`: the lines ``uvlab bench pareto`` prints.
"""

from __future__ import annotations

import math

import numpy as np

#: The swept algorithms (``conv-table`` is conv with a nearest-lookup table: a front of its own).
STYLE_ORDER = (
    "conv", "conv-sigma", "conv-table", "conv-linear", "hybrid", "pruned-nn", "nn-oversampled",
)  # fmt: skip


def front(points: list[dict], algorithm: str, sky: str, precision: str | None = None):
    """(error, total_s) of ``algorithm``'s Pareto-optimal points on ``sky``, error increasing.

    A point is on the front when no other point of the algorithm is both at
    least as accurate and faster; so along the front the time falls as the
    error grows.
    """
    pts = sorted(
        (p["error"], p["total_s"])
        for p in points
        if p["algorithm"] == algorithm
        and p["sky"] == sky
        and (precision is None or p["precision"] == precision)
        and np.isfinite(p["error"])
    )
    out = []
    for err, t in pts:
        if not out or t < out[-1][1]:
            out.append((err, t))
    return out


def time_at(fr: list[tuple[float, float]], error: float) -> float | None:
    """The front's time at ``error``, log-log interpolated; None outside its error range.

    Exactly at a front point its own time; below the front's best error None
    (the algorithm cannot reach it); above its worst error the fastest time.
    """
    if not fr or error < fr[0][0]:
        return None
    if error >= fr[-1][0]:
        return fr[-1][1]
    errs = np.log([e for e, _ in fr])
    times = np.log([t for _, t in fr])
    return float(np.exp(np.interp(math.log(error), errs, times)))


def matched(points: list[dict], reference: str = "conv") -> list[dict]:
    """Every other algorithm's points against ``reference``'s front at the same error.

    Each row: the point, ``conv_s`` (the reference front's interpolated time at
    the point's error, None where conv cannot reach it), ``speedup`` =
    conv_s / total_s, and ``conv_match``: the least accurate reference point
    still at least as accurate as this one (its label, error and time), the
    support a user would pick.
    """
    rows = []
    for p in points:
        if p["algorithm"] == reference:
            continue
        fr = front(points, reference, p["sky"], p["precision"])
        conv_s = time_at(fr, p["error"])
        ref = [
            q
            for q in points
            if q["algorithm"] == reference
            and q["sky"] == p["sky"]
            and q["precision"] == p["precision"]
            and q["error"] <= p["error"]
        ]
        best = max(ref, key=lambda q: q["error"], default=None)
        rows.append(
            {
                "label": p["label"],
                "algorithm": p["algorithm"],
                "sky": p["sky"],
                "precision": p["precision"],
                "error": p["error"],
                "total_s": p["total_s"],
                "conv_s": conv_s,
                "speedup": None if conv_s is None else conv_s / p["total_s"],
                "conv_match": None
                if best is None
                else {"label": best["label"], "error": best["error"], "total_s": best["total_s"]},
            }
        )
    return rows


def best_front(points: list[dict], sky: str, precision: str | None = None):
    """The front of every uvlab algorithm's points together: the fastest uvlab way to each error."""
    pooled = [dict(p, algorithm="uvlab") for p in points if p["algorithm"] in STYLE_ORDER]
    return front(pooled, "uvlab", sky, precision)


def against_peer(points: list[dict], peer: str) -> list[dict]:
    """Each of ``peer``'s points against uvlab's best front at the same error and precision.

    ``ratio`` = peer time / uvlab's interpolated time (None where uvlab's
    front does not reach the peer's error); ``uvlab_best``: the fastest uvlab
    point at least as accurate (its label, algorithm, error and time).
    """
    rows = []
    for p in points:
        if p["algorithm"] != peer:
            continue
        fr = best_front(points, p["sky"], p["precision"])
        t = time_at(fr, p["error"])
        ok = [
            q
            for q in points
            if q["algorithm"] in STYLE_ORDER
            and q["sky"] == p["sky"]
            and q["precision"] == p["precision"]
            and q["error"] <= p["error"]
        ]
        best = min(ok, key=lambda q: q["total_s"], default=None)
        rows.append(
            {
                "peer": peer,
                "label": p["label"],
                "sky": p["sky"],
                "precision": p["precision"],
                "error": p["error"],
                "peer_s": p["total_s"],
                "uvlab_s": t,
                "ratio": None if t is None else p["total_s"] / t,
                "uvlab_best": None
                if best is None
                else {k: best[k] for k in ("label", "algorithm", "error", "total_s")},
            }
        )
    return rows


def format_point(p: dict) -> str:
    return (
        f"{p['sky']:<6} {p['precision']:<6} {p['label']:<26} total {p['total_s'] * 1e3:9.3f} ms "
        f"grid {p['grid_s'] * 1e3:9.3f} ms  error {p['error']:.2e} "
        f"(central {p['error_central']:.2e})"
    )


def format_table(report: dict) -> str:
    """The matched-accuracy table: each non-conv point against conv's front."""
    lines = [
        f"accuracy-vs-time fronts on {report['device_info']}: {report['npix']}², "
        f"{report['nvis']:.3e} visibilities (times: whole image, median of {report['repeats']})",
        f"{'sky':<6} {'prec':<6} {'setting':<26} {'error':>9} {'time ms':>9} "
        f"{'conv ms @err':>12} {'speed-up':>8}  conv setting reaching it",
    ]
    for r in report["matched"]:
        conv = "—" if r["conv_s"] is None else f"{r['conv_s'] * 1e3:.3f}"
        speed = "—" if r["speedup"] is None else f"{r['speedup']:.2f}×"
        m = r["conv_match"]
        match = "none" if m is None else f"{m['label']} ({m['total_s'] * 1e3:.3f} ms)"
        lines.append(
            f"{r['sky']:<6} {r['precision']:<6} {r['label']:<26} {r['error']:9.2e} "
            f"{r['total_s'] * 1e3:9.3f} {conv:>12} {speed:>8}  {match}"
        )
    if report.get("peer"):
        lines.append(
            f"{'sky':<6} {'prec':<6} {'peer setting':<26} {'error':>9} {'peer ms':>9} "
            f"{'uvlab ms':>12} {'peer/uvlab':>10}  fastest uvlab setting at least as accurate"
        )
    for r in report.get("peer", ()):
        t = "—" if r["uvlab_s"] is None else f"{r['uvlab_s'] * 1e3:.3f}"
        ratio = "—" if r["ratio"] is None else f"{r['ratio']:.2f}×"
        b = r["uvlab_best"]
        best = (
            "none" if b is None else f"{b['label']} ({b['error']:.1e}, {b['total_s'] * 1e3:.3f} ms)"
        )
        lines.append(
            f"{r['sky']:<6} {r['precision']:<6} {r['label']:<26} {r['error']:9.2e} "
            f"{r['peer_s'] * 1e3:9.3f} {t:>12} {ratio:>10}  {best}"
        )
    return "\n".join(lines)
