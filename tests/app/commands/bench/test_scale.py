"""``uvlab bench scale``: the chunked image timed against the number of workers.

Checked: every worker count images the same data to the same image (its peak, and
the number of samples against the reader's own count), each worker's peak memory is
reported, and bad worker counts or a missing MS are usage errors.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.support.cli import run_cli
from tests.support.ms_factory import make_ms
from uvlab.app.ms.reader import read_visibilities


@pytest.fixture(scope="module")
def ms(tmp_path_factory):
    """50 rows to image (5 times × 10 baselines): ``--chunk-rows 20`` makes 20, 20, 10."""
    path = tmp_path_factory.mktemp("bench-scale") / "obs.ms"
    make_ms(path, np.random.default_rng(2), spw_nchan=(4,), ntime=5, nant=5)
    return path


def test_each_worker_count_makes_the_same_image(ms, tmp_path):
    out = tmp_path / "scale.json"
    code, text, err = run_cli("bench", "scale", "--ms", ms, "--workers", "1,2", "--npix", "32",
                              "--cell-arcsec", "30", "--chunk-rows", "20", "--major",
                              "--json", out)  # fmt: skip
    assert code == 0, err
    report = json.loads(out.read_text())
    one, two = report["runs"]
    assert (one["workers"], two["workers"]) == (1, 2) and one["speedup"] == 1.0
    vd = read_visibilities(str(ms))
    usable = np.count_nonzero(~vd.flag & (np.broadcast_to(vd.weight, vd.flag.shape) > 0))
    assert one["nvis"] == two["nvis"] == usable
    assert two["peak_jy"] == pytest.approx(one["peak_jy"], rel=1e-12)
    assert len(two["worker_peak_bytes"]) == 2 and min(two["worker_peak_bytes"]) > 2**20
    assert one["major_s"] > 0 and report["ms_bytes"] > 0
    assert one["major_held_equal"] and two["major_held_equal"]  # held data: the same residual
    assert one["major_held_s"] > 0
    assert "workers  start s  image s" in text
    # the density pass and the imaging pass timed apart (Briggs: both), after the start
    assert set(one["stages_s"]) == {"read + density", "read + grid"} and one["start_s"] > 0


@pytest.mark.parametrize(
    ("extra", "named"), [(["--workers", "0"], "--workers"), (["--workers", "a"], "--workers")]
)
def test_bad_worker_counts_are_usage_errors(ms, extra, named):
    code, _, err = run_cli("bench", "scale", "--ms", ms, *extra)
    assert code == 2 and named in err and len(err.strip().splitlines()) == 1


def test_a_missing_ms_is_a_usage_error(tmp_path):
    code, _, err = run_cli("bench", "scale", "--ms", tmp_path / "none.ms")
    assert code == 2 and "none.ms" in err
