"""Tuning sweep of the CUDA tile gridders (run on the device; BENCHMARKS.md).

:func:`run_tune` times the gridders on the 4096² MeerKAT benchmark
observation (2016 × 1200 × 8) for several
:class:`~uvlab.gpu.gridders.cuda_grid.KernelConfig` values, and measures the
card's device-to-device copy bandwidth (the memory ceiling). It logs one line
per (case, config) and returns the records. ``uvlab bench tune``
(app/commands/bench/__init__.py) supplies the antenna positions and writes the JSON.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.bench import grid_data
from uvlab.gpu.bench.grid_bench import BenchCase, bench_case, conv_case, format_row
from uvlab.gpu.gridders.cuda_grid import KernelConfig
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec

CONFIGS_2D = (
    KernelConfig(tile_2d=(16, 16), maxsub_2d=1024),
    KernelConfig(tile_2d=(16, 16), maxsub_2d=1024, batch_2d=64),
    KernelConfig(tile_2d=(16, 16), maxsub_2d=1024, batch_2d=32),
    KernelConfig(tile_2d=(16, 16), maxsub_2d=2048),
    KernelConfig(tile_2d=(16, 16), maxsub_2d=512),
    KernelConfig(tile_2d=(24, 24), maxsub_2d=1024),
    KernelConfig(tile_2d=(8, 8), maxsub_2d=1024),
    KernelConfig(tile_2d=(32, 16), maxsub_2d=1024),
    KernelConfig(tile_2d=(32, 32), maxsub_2d=2048),
)
CONFIGS_2D_DOUBLE = (
    KernelConfig(tile_2d=(16, 16), maxsub_2d=1024),
    KernelConfig(tile_2d=(16, 16), maxsub_2d=1024, batch_2d=64),
    KernelConfig(tile_2d=(16, 16), maxsub_2d=1024, batch_2d=32),
    KernelConfig(tile_2d=(8, 8), maxsub_2d=1024, batch_2d=32),
    KernelConfig(tile_2d=(32, 32), maxsub_2d=2048, batch_2d=32),
)
CONFIGS_ROW = (
    KernelConfig(maxsub_row=128),
    KernelConfig(maxsub_row=64),
    KernelConfig(maxsub_row=256),
    KernelConfig(tile_row=(16, 32), maxsub_row=128),
    KernelConfig(tile_row=(32, 64), maxsub_row=128),
    KernelConfig(threads_row=128, maxsub_row=128),
    KernelConfig(maxsub_row=128, prune_rb=16),
    KernelConfig(maxsub_row=128, prune_rb=4),
)


def copy_bandwidth() -> float:
    """Device-to-device copy, bytes read + written per second (best of 5)."""
    import cupy

    from uvlab.gpu.bench.predict_bench import _timer

    a = cupy.ones(2**28, dtype=cupy.float64)
    b = cupy.empty_like(a)
    measure = _timer("gpu")
    cupy.copyto(b, a)
    t = min(measure(lambda: cupy.copyto(b, a)) for _ in range(5))
    return 2 * a.nbytes / t


def run_tune(ant_eq, *, log=print) -> dict:
    """Time every (case, KernelConfig) of the sweep on the GPU.

    Parameters
    ----------
    ant_eq : (nant, 3) float
        Antenna positions in the equatorial frame, metres (MeerKAT's for the
        benchmark observation).
    log : callable
        Called with one line per (case, config).

    Returns
    -------
    dict
        ``copy_Bps`` (device-to-device copy, bytes read + written per second)
        and ``records`` (:func:`~uvlab.gpu.bench.grid_bench.bench_case`'s
        records, each with its ``config``).
    """
    import cupy

    out = {"copy_Bps": copy_bandwidth(), "records": []}
    log(f"d2d copy {out['copy_Bps'] / 1e12:.2f} TB/s")
    u, v = grid_data.make_uv(ant_eq, 1200, 8, cupy)
    spec = ImageSpec(4096, grid_data.cell_for(u, v))
    hyb = GridParams.from_eps(1e-5, oversample=16, precision="single")
    groups = (
        (conv_case(1e-5, "single"), CONFIGS_2D, np.complex64),
        (conv_case(1e-6, "double"), CONFIGS_2D_DOUBLE, np.complex128),
        (BenchCase("hybrid", hyb, 1e-5, "hybrid beta=16"), CONFIGS_ROW, np.complex64),
        (
            BenchCase("pruned-nn", GridParams(oversample=16, precision="single")),
            CONFIGS_ROW[:3],
            np.complex64,
        ),
    )
    for case, configs, vdt in groups:
        vis = grid_data.make_vis(u.size, cupy, vdt)
        for cfg in configs:
            rec, img = bench_case(case, u, v, vis, spec, "gpu", 5, config=cfg)
            del img
            rec["config"] = {k: getattr(cfg, k) for k in cfg.__dataclass_fields__}
            out["records"].append(rec)
            log(f"{format_row(rec)} {rec['config']}")
        del vis
    return out
