"""Bounded memory: an MS three times a worker's budget images within the budget (issue 27).

The worker's peak resident memory (its ``ru_maxrss``) is read before and after the
chunked imaging: its growth over the worker's resident memory before must stay within
the budget the chunks were sized for (the image-sized part plus the chunk budget), while
the DATA column read is more than three times that budget.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from uvlab.app.scale.budget import chunk_rows, image_bytes
from uvlab.app.scale.cluster import cluster_client
from uvlab.app.scale.ms_image import MSRead, image_ms
from uvlab.gpu.imaging.spec import ARCSEC, ImageSpec
from uvlab.gpu.imaging.weighting import Weighting

NCHAN, NCORR, NPIX = 64, 4, 128
CHUNK_BUDGET = 6 * 2**20


def memory():
    """(current, peak) resident bytes of the process it runs in (a worker)."""
    import resource

    with open("/proc/self/status") as f:
        kb = next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))
    return kb * 1024, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@pytest.fixture(scope="module")
def big_ms(tmp_path_factory):
    out = tmp_path_factory.mktemp("big") / "big.ms"
    cmd = [sys.executable, "-m", "uvlab.app", "simulate", "--array", "meerkat", "--ra", "150",
           "--dec", "-30", "--nchan", str(NCHAN), "--int-s", "60", "--start",
           "2025-01-01T00:00:00", "--duration-h", "0.5", "--sky", "point", "--device", "cpu",
           "--out", str(out)]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True)
    return out


def test_an_ms_three_times_the_budget_images_within_it(big_ms):
    pytest.importorskip("resource")
    source = MSRead(str(big_ms))
    spec = ImageSpec(NPIX, 20 * ARCSEC)
    wt = Weighting("natural")
    fixed = image_bytes(NPIX, "conv", None)
    budget = fixed + CHUNK_BUDGET
    plan = chunk_rows(budget, NCHAN, NCORR, fixed)
    data_bytes = source.count() * NCHAN * NCORR * 8  # complex64 DATA
    assert data_bytes > 3 * budget
    with cluster_client(workers=1) as client:
        t0 = float(source.read((0, 1)).time[0])  # the first two integrations: imports, images
        first = MSRead(source.path, time_range=(t0, t0 + 60.0))
        image_ms(client, first, spec, wt, chunk_rows=plan.rows)
        ((before, _),) = client.run(memory).values()
        res = image_ms(client, source, spec, wt, chunk_rows=plan.rows)
        ((_, peak),) = client.run(memory).values()
    assert res.chunks >= 3 and res.nvis > 0
    assert peak - before <= budget, (
        f"peak grew by {(peak - before) / 2**20:.1f} MiB, budget {budget / 2**20:.1f} MiB"
    )
