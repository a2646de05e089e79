"""The desktop lab's worker computation, timed without Qt (``uvlab bench worker``).

Runs the same job the GUI worker runs (:func:`uvlab.app.lab.live.run_job`) on
the embedded default scene, and reports per-stage timings for:

- ``cold``: the first run (observation, prediction, imaging; includes one-off
  costs such as kernel compilation and astropy's tables);
- ``repeat``: the same request again (the worker's cache reuses the
  observation and the prediction, so only imaging runs);
- ``weighting``: a parameter change that only re-images (natural → Briggs 0);
- ``cell``: another imaging-only change, the pixel size (auto → 1.5″): new
  uv cells for the weighting, a new gridding plan;
- ``sky edit``: one point source added to the sky (the lab predicts only that
  component and adds it to the held visibilities,
  :attr:`~uvlab.app.lab.samples.WorkCache.last_prediction_kind` ``"incremental"``);
- ``declination``: a parameter change that re-simulates and re-predicts.

Each change alternates with the base request, so every sample is a real
change (the base run between two sky-edit samples removes the source again,
itself an incremental edit).

"Latency" is the wall time of the whole job, from request to finished image,
which is what a user waits for after a change (the GUI adds a 150 ms debounce
and the drawing).
"""

from __future__ import annotations

import time
from dataclasses import replace


def default_request(device: str, npix: int):
    """A JobRequest for the default scene at ``npix``² on ``device``, as the window makes it."""
    from uvlab.app.lab.session import default_session

    state = default_session()
    return state.job_request(
        device=device, imaging=replace(state.imaging, npix=int(npix)), preview=False
    )


#: The pixel size of the ``cell`` case (the default scene's automatic one is ≈ 1.9″).
CELL_ARCSEC = 1.5


def added_source(sky):
    """The ``sky edit`` case's component: a 0.2 Jy point 1′ north-east of the sky's centre."""
    from uvlab.app.skymodel import Component

    first = sky.components[0]
    ra, dec = sky.centre_deg or (first.ra_deg, first.dec_deg)
    return Component(
        "bench-added", "point", ra + 1.0 / 60.0, dec + 1.0 / 60.0, (0.2, 0.0, 0.0, 0.0), 1.4e9, 0.0
    )


def timed_job(request, cache):
    """``(seconds, output)`` of one job run to its end with ``cache`` (a fresh job id)."""
    from uvlab.app.lab.jobs import next_job_id
    from uvlab.app.lab.live import run_job

    t0 = time.perf_counter()
    out = run_job(replace(request, job_id=next_job_id()), cache)
    return time.perf_counter() - t0, out


def change_samples(base, request, cache, repeats: int, alternate: bool = True) -> list:
    """``repeats`` timed runs of ``request``, each a real change from ``base`` (untimed between).

    With ``alternate`` the base request runs before every sample but the
    first (the caller has run it, or another change, just before), so every
    sample finds the cache as a change from the base finds it; without, the
    request repeats. Returns the :func:`timed_job` pairs.
    """
    samples = []
    for k in range(repeats):
        if alternate and k:
            timed_job(base, cache)
        samples.append(timed_job(request, cache))
    return samples


def median_sample(samples: list):
    """The ``(seconds, output)`` pair of median time (the upper one of an even count)."""
    return sorted(samples, key=lambda s: s[0])[len(samples) // 2]


def bench_worker(device: str = "auto", npix: int = 1024, repeats: int = 3) -> dict:
    """Time the worker's job on the default scene; returns a JSON-ready dict."""
    from uvlab.app.lab.samples import WorkCache

    base = default_request(device, npix)
    cache = WorkCache()
    runs = {}
    wall, out = timed_job(base, cache)
    runs["cold"] = {"latency_s": wall, "timing_s": out.timing}
    briggs = replace(base, imaging=replace(base.imaging, weighting="briggs", robust=0.0))
    cell = replace(base, imaging=replace(base.imaging, cell_arcsec=CELL_ARCSEC))
    edited = replace(base, sky=base.sky.with_component(added_source(base.sky)))
    obs = base.observation
    other_dec = replace(base, observation=replace(obs, dec_deg=obs.dec_deg + 10.0))
    cases = (
        ("repeat", base),
        ("weighting", briggs),
        ("cell", cell),
        ("sky edit", edited),
        ("declination", other_dec),
    )
    for name, request in cases:
        samples = change_samples(base, request, cache, repeats, alternate=name != "repeat")
        best = median_sample(samples)
        runs[name] = {
            "latency_s": best[0],
            "latency_all_s": [s[0] for s in samples],
            "timing_s": best[1].timing,
        }
    return {
        "scene": "default (MeerKAT, 180 × 2016 baselines × 4 channels, teaching sky)",
        "npix": int(npix),
        "device": out.device,
        "algorithm": out.algorithm,
        "nvis": int(out.nvis),
        "runs": runs,
    }


def format_worker_bench(result: dict) -> str:
    """A plain-text table of latencies and stages."""
    lines = [
        f"worker on the default scene, {result['npix']}², {result['algorithm']}, "
        f"device {result['device']}, {result['nvis']:,} visibilities"
    ]
    for name, run in result["runs"].items():
        stages = ", ".join(f"{k} {v * 1e3:.1f}" for k, v in run["timing_s"].items())
        lines.append(f"{name:<12} {run['latency_s'] * 1e3:9.1f} ms   ({stages} ms)")
    return "\n".join(lines)
