"""Job time estimates (issue 28): what a job will take here, said before it starts.

Oracles: the lab's own jobs run here (their measured time is what a later job of the same
kind is estimated from, scaled by its visibility samples, counted independently from the
observation's integrations × baselines × channels), and the rates BENCHMARKS.md records.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from uvlab.app.lab import job_time
from uvlab.app.lab.compare_timing import TIMING_BUDGET_S, planned_runs
from uvlab.app.lab.job_time import JobTimes, format_seconds, job_kind, slow_notice, time_left
from uvlab.app.lab.session import default_session


@pytest.fixture(scope="module")
def request_cpu():
    state = default_session()
    return state.job_request(device="cpu", imaging=replace(state.imaging, npix=256),
                             preview=False)  # fmt: skip


def _with(request, **imaging):
    return replace(request, imaging=replace(request.imaging, **imaging))


def _nsamples(request) -> int:
    """Integrations × baselines × channels, from the observation and its layout file."""
    from uvlab.app.observing.layouts import load_layout
    from uvlab.app.observing.observation import SIDEREAL_RATE

    obs = request.observation
    start, stop = obs.ha_range_h
    ntime = max(round((stop - start) * 3600.0 / SIDEREAL_RATE / obs.int_s), 1)
    nant = load_layout(obs.layout).nant
    return ntime * nant * (nant - 1) // 2 * obs.nchan


def test_samples_are_the_observations(request_cpu):
    assert job_time.samples(request_cpu) == _nsamples(request_cpu) > 0


def test_a_kind_seen_before_is_estimated_from_its_last_time_by_samples(request_cpu):
    times = JobTimes()
    times.record(request_cpu, 2.0, {"grid": 1.0})
    assert times.estimate(request_cpu) == pytest.approx(2.0)
    obs = request_cpu.observation
    half = (obs.ha_start_h + obs.ha_stop_h) / 2
    shorter = replace(request_cpu, observation=replace(obs, ha_stop_h=half))
    ratio = _nsamples(shorter) / _nsamples(request_cpu)
    assert 0.4 < ratio < 0.6
    assert times.estimate(shorter) == pytest.approx(2.0 * ratio)
    # another algorithm is another kind: its prior, at this machine's learned speed
    other = _with(request_cpu, algorithm="pruned-nn")
    assert job_kind(other) != job_kind(request_cpu)
    assert times.estimate(other) == pytest.approx(job_time.prior_seconds(other) * times.speed)


def test_the_speed_is_learned_from_imaging_only_jobs(request_cpu):
    times = JobTimes()
    prior = job_time.prior_seconds(request_cpu)
    times.record(request_cpu, 3.0 * prior, {"uvw": 0.1, "predict": 1.0, "grid": 0.2})
    assert times.speed == 1.0  # it simulated and predicted: not a measure of the imaging
    times.record(request_cpu, 3.0 * prior, {"grid": 0.2})
    assert times.speed == pytest.approx(3.0)
    times.record(request_cpu, 1e6 * prior, {"grid": 0.2})
    times.record(request_cpu, 1e6 * prior, {"grid": 0.2})
    assert times.speed == job_time.SPEED_RANGE[1]  # clamped


def test_priors_follow_the_benchmarks_ordering(request_cpu):
    """On the 2-core CPU pruned-nn > conv > ducc (BENCHMARKS: 13.5 s, 3.6 s, 0.25 s)."""
    p = {a: job_time.prior_seconds(_with(request_cpu, algorithm=a))
         for a in ("ducc", "conv", "pruned-nn", "dft")}  # fmt: skip
    assert p["pruned-nn"] > p["conv"] > p["ducc"] > 0
    n, npix = _nsamples(request_cpu), 256
    assert p["dft"] == pytest.approx(2 * n * npix * npix / job_time.DFT_RATE["cpu"])
    compare = replace(request_cpu, task="compare",
                      compare=(_with(request_cpu, algorithm="conv").imaging,))  # fmt: skip
    ref = min(n * npix * npix, 4.0e9) / job_time.REFERENCE_RATE["cpu"]
    runs = planned_runs(compare.repeats, p["conv"], TIMING_BUDGET_S) + 1  # after a warm-up
    assert 2 <= runs - 1 <= compare.repeats
    assert job_time.prior_seconds(compare) == pytest.approx(runs * p["conv"] + ref)
    once = replace(compare, repeats=1)  # each entry timed once
    assert job_time.prior_seconds(once) == pytest.approx(p["conv"] + ref)


def test_time_left_from_progress_then_from_the_estimate():
    assert time_left(0.2, 0.0, 10.0) == pytest.approx(9.8)  # too early: the estimate
    assert time_left(4.0, 0.25, 10.0) == pytest.approx(12.0)  # 4 s for a quarter
    assert time_left(0.2, 0.0, None) is None
    assert time_left(20.0, 0.0, 10.0) == 0.0


def test_the_notice_names_what_how_long_and_how_to_stop(request_cpu):
    text = slow_notice(_with(request_cpu, algorithm="hybrid"), 12.4)
    assert text == (
        "imaging with hybrid at 256² will take about 12 s on this CPU: Cancel (Esc) stops it"
    )
    assert format_seconds(0.4) == "under a second" and format_seconds(150) == "about 2 min"
