"""CLEAN of a MeasurementSet over row chunks on a Dask cluster (app/scale/ms_clean.py).

Oracle: the one-process CLEAN of ``uvlab image --niter`` (:func:`uvlab.app.commands.
deconvolve.clean` on the whole selection read at once, itself tested against the direct
sum and tclean): the 2N PSF, the model, the residual and the component count must agree
to rounding, Högbom and Cotton–Schwab, natural, uniform and Briggs weighting, with the
w-term (image parts), and on the grid path (a grid per worker: ``conv`` and the pruned
``pruned-nn``) for one-row, uneven and single-chunk splits.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.ms_factory import make_ms
from uvlab.app.lab.deconvolve import clean, wide_psf
from uvlab.app.ms.errors import MSError
from uvlab.app.ms.reader import read_visibilities
from uvlab.app.scale import ms_clean
from uvlab.app.scale.ms_clean import ClusterMajorCycle, Pass, clean_ms
from uvlab.app.scale.ms_image import MSRead, image_ms, row_chunks
from uvlab.gpu.deconvolution.options import CleanOptions
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.imaging.imager import make_image
from uvlab.gpu.imaging.weighting import Weighting

SPEC = ImageSpec(32, 2.0e-4)
#: Rows per chunk of an uneven split: the module MS's 75 rows in chunks of 20, 20, 20, 15.
UNEVEN = 20


@pytest.fixture(scope="module")
def ms(tmp_path_factory):
    path = tmp_path_factory.mktemp("scale-clean") / "obs.ms"
    make_ms(path, np.random.default_rng(7), spw_nchan=(4,), ntime=5, nant=6,
            flag_rows=(2, 9))  # fmt: skip
    return MSRead(str(path))


def one_process(source, wt, opts, params, algorithm="conv"):
    vd = read_visibilities(source.path, **source.kwargs())
    res = make_image(vd.uvw, vd.freq_hz, vd.vis, vd.weight, SPEC, flag=vd.flag, weighting=wt,
                     algorithm=algorithm, params=params, device="cpu")  # fmt: skip
    psf2 = wide_psf(vd, SPEC, wt, algorithm, params, "cpu")
    return psf2, clean(vd, SPEC, res.dirty, psf2, opts, params, wt, "cpu", algorithm=algorithm)


@pytest.mark.parametrize(
    ("deconvolver", "wstack", "wt"),
    [
        ("hogbom", False, Weighting("natural")),
        ("hogbom", False, Weighting("uniform")),
        ("cotton-schwab", False, Weighting("uniform")),
        ("cotton-schwab", True, Weighting("natural")),
    ],
    ids=["hogbom-natural", "hogbom-uniform", "cs-uniform", "cs-wstack-natural"],
)
def test_clean_over_chunks_equals_the_one_process_clean(client, ms, deconvolver, wstack, wt):
    params = GridParams.from_eps(1e-6, wstack=wstack)
    opts = CleanOptions(deconvolver, niter=60, gain=0.1, mgain=0.2, active_max=None)
    want_psf, want = one_process(ms, wt, opts, params)
    dirty = image_ms(client, ms, SPEC, wt, chunk_rows=UNEVEN, params=params)
    job = Pass(client, ms, SPEC, wt, dirty.totals, UNEVEN, "conv", params, "cpu")
    out, psf, major = clean_ms(job, dirty.dirty, opts)
    # w-stacking places its w planes by each chunk's own w range: equal to within ε then
    tol = 1e-5 if wstack else 1e-9
    peak = np.abs(want.residual).max()
    np.testing.assert_allclose(psf, want_psf, atol=tol / 1e3 if not wstack else tol)
    assert out.iterations == want.iterations and out.stop_reason == want.stop_reason
    np.testing.assert_allclose(out.model, want.model, atol=tol * np.abs(want.model).max())
    np.testing.assert_allclose(out.residual, want.residual, atol=tol * peak)
    if deconvolver == "cotton-schwab":
        assert out.majors >= 2 and major.passes == out.majors + 1  # the first: the dirty image
    else:
        assert major is None and out.majors == 0


def test_every_chunk_is_read_once_per_major_cycle(client, ms):
    wt = Weighting("briggs", 0.0)
    dirty = image_ms(client, ms, SPEC, wt, chunk_rows=5)
    job = Pass(client, ms, SPEC, wt, dirty.totals, 5)
    assert [rows for _, rows in job.chunks] == row_chunks(ms.count(), 5) and len(job.chunks) > 3
    opts = CleanOptions("cotton-schwab", niter=100, mgain=0.1, max_major=2, active_max=None)
    out, _, major = clean_ms(job, dirty.dirty, opts)
    assert out.majors == 2 and major.passes == 3 and out.stop_reason == "mgain"
    # the first pass is the dirty image of all the data
    first = job.run(ms_clean._residual, model=None).normalised()[0]
    np.testing.assert_allclose(first, dirty.dirty, atol=1e-9 * np.abs(dirty.dirty).max())


def test_held_data_serve_every_pass_without_the_ms(client, tmp_path):
    """Data kept on the workers (hold) give the CLEAN of data read per pass (to the
    rounding of the order the parts come in), and the passes no longer read the MS:
    moved away once held, CLEAN still runs."""
    import shutil

    from distributed import wait

    path = tmp_path / "held.ms"
    make_ms(path, np.random.default_rng(11), spw_nchan=(3,), ntime=4, nant=5, flag_rows=(1,))
    source = MSRead(str(path))
    wt = Weighting("uniform")
    opts = CleanOptions("cotton-schwab", niter=80, mgain=0.3, active_max=None)
    dirty = image_ms(client, source, SPEC, wt, chunk_rows=6)
    job = Pass(client, source, SPEC, wt, dirty.totals, 6)
    want, want_psf, want_major = clean_ms(job, dirty.dirty, opts)
    held = ms_clean.hold(job)
    assert len(held.held) == len(job.chunks) > 2 and ms_clean.hold(held) is held
    wait(list(held.held))
    shutil.move(str(path), str(tmp_path / "moved.ms"))  # no pass can read it now
    got, psf, major = clean_ms(held, dirty.dirty, opts)
    np.testing.assert_allclose(psf, want_psf, atol=1e-12)
    np.testing.assert_allclose(got.model, want.model, atol=1e-9 * np.abs(want.model).max())
    peak = np.abs(want.residual).max()
    np.testing.assert_allclose(got.residual, want.residual, atol=1e-9 * peak)
    assert got.iterations == want.iterations and got.stop_reason == want.stop_reason
    assert got.majors == want.majors >= 2 and major.passes == want_major.passes
    with pytest.raises(MSError):  # the MS is gone: a pass that reads fails
        clean_ms(job, dirty.dirty, opts)


def test_held_bytes_are_what_a_chunk_of_data_takes(ms):
    """The estimate that decides whether CLEAN holds the data is the reader's arrays' size."""
    from uvlab.app.scale.budget import held_bytes

    vd = ms.read((0, 9))
    arrays = (vd.vis, vd.weight, vd.flag, vd.uvw, vd.time, vd.ant1, vd.ant2, vd.rows)
    assert held_bytes(vd.nrow, vd.nchan, vd.vis.itemsize) == sum(a.nbytes for a in arrays)


SPLITS = {"one row": 1, "uneven": UNEVEN, "one chunk": 10**6}


def split_source(ms, split: str):
    """The read a split runs on: one-row chunks over the first three integrations (45
    cross-correlation rows, the two flagged ones among them: a task per row, where the
    whole MS's 75 would only repeat the same sums), the others over the whole MS."""
    if split != "one row":
        return ms
    t0 = float(ms.read((0, 1)).time[0])
    short = MSRead(ms.path, time_range=(t0, t0 + 25.0))  # integrations 10 s apart
    assert short.count() == 45
    return short


GRID_CASES = [
    (Weighting("natural"), "one row", "conv"),
    (Weighting("uniform"), "uneven", "pruned-nn"),
    (Weighting("briggs", 0.5), "one chunk", "conv"),
    (Weighting("briggs", -0.5), "uneven", "conv"),
    (Weighting("natural"), "one chunk", "pruned-nn"),
]


@pytest.mark.parametrize(
    ("wt", "split", "algorithm"), GRID_CASES, ids=[f"{w.scheme}-{s}-{a}" for w, s, a in GRID_CASES]
)
def test_cotton_schwab_on_the_grid_path_equals_the_one_process_clean(
    client, ms, wt, split, algorithm
):
    """The PSF and every major cycle sum a grid per worker (one FFT each), and CLEAN is
    ``uvlab image --niter``'s in one process to rounding."""
    params = GridParams.from_eps(1e-9) if algorithm == "conv" else GridParams(oversample=4)
    opts = CleanOptions("cotton-schwab", niter=60, gain=0.1, mgain=0.3, active_max=None)
    ms = split_source(ms, split)
    want_psf, want = one_process(ms, wt, opts, params, algorithm)
    rows = SPLITS[split]
    dirty = image_ms(client, ms, SPEC, wt, chunk_rows=rows, algorithm=algorithm, params=params)
    job = Pass(client, ms, SPEC, wt, dirty.totals, rows, algorithm, params, "cpu")
    assert dirty.summed == "grids" and job.by_grids
    assert len(job.chunks) == (1 if split == "one chunk" else -(-ms.count() // rows))
    out, psf, major = clean_ms(job, dirty.dirty, opts)
    assert major.summed == "grids" and out.majors >= 2 and major.passes == out.majors + 1
    np.testing.assert_allclose(psf, want_psf, atol=1e-12)
    assert out.iterations == want.iterations and out.stop_reason == want.stop_reason
    np.testing.assert_allclose(out.model, want.model, atol=1e-9 * np.abs(want.model).max())
    peak = np.abs(want.residual).max()
    np.testing.assert_allclose(out.residual, want.residual, atol=1e-9 * peak)


@pytest.mark.parametrize(("wt", "split"), [(Weighting("natural"), "uneven"),
                                           (Weighting("briggs", 0.0), "one row")])  # fmt: skip
def test_ducc_adds_into_a_nufft_per_worker_through_clean(client, ms, wt, split):
    """``ducc``'s PSF and major cycles add each worker's chunks into one ducc0 NUFFT (the
    residual's model read from a type-2 NUFFT of the model a worker), and CLEAN is the
    one-process ``ducc`` CLEAN to rounding."""
    params = GridParams.from_eps(1e-9)
    opts = CleanOptions("cotton-schwab", niter=30, mgain=0.3, active_max=None)
    ms = split_source(ms, split)
    want_psf, want = one_process(ms, wt, opts, params, "ducc")
    rows = SPLITS[split]
    dirty = image_ms(client, ms, SPEC, wt, chunk_rows=rows, algorithm="ducc", params=params)
    job = Pass(client, ms, SPEC, wt, dirty.totals, rows, "ducc", params)
    assert dirty.summed == "nufft" and job.by_nufft and not job.by_grids
    out, psf, major = clean_ms(job, dirty.dirty, opts)
    assert major.summed == "nufft" and out.majors >= 2 and major.passes == out.majors + 1
    np.testing.assert_allclose(psf, want_psf, atol=1e-12)
    assert out.iterations == want.iterations and out.stop_reason == want.stop_reason
    np.testing.assert_allclose(out.model, want.model, atol=1e-9 * np.abs(want.model).max())
    peak = np.abs(want.residual).max()
    np.testing.assert_allclose(out.residual, want.residual, atol=1e-9 * peak)


def test_a_grid_path_cycle_is_one_model_grid_per_worker_and_one_finish(client, ms):
    """What a major cycle on the grid path runs (Dask's task stream): a model grid (its
    FFT) per worker, every chunk gridded once, one finish (the only other FFT); held chunks
    are queued to the workers that hold them."""
    from distributed import get_task_stream, wait

    from uvlab.app.scale.chains import _queues

    wt = Weighting("natural")
    dirty = image_ms(client, ms, SPEC, wt, chunk_rows=8)
    job = ms_clean.hold(Pass(client, ms, SPEC, wt, dirty.totals, 8))
    wait(list(job.held))
    workers = sorted(client.scheduler_info()["workers"])
    where = client.who_has(list(job.held))
    for w, queue in _queues(client, job.held, workers).items():
        assert all(w in where[f.key] for f in queue)
    model = np.zeros((SPEC.npix, SPEC.npix))
    model[16, 16] = 1.0
    with get_task_stream(client) as ts:
        got = ClusterMajorCycle(job).residual(model)
    ran = [t["key"].split("-")[0] for t in ts.data]
    assert ran.count("_model_grid") == len(workers) == 2
    assert ran.count("_residual_grid") == len(job.chunks) > 4 and ran.count("_finish") == 1
    want = job.run(ms_clean._residual, model=model).normalised()[0]  # image parts
    np.testing.assert_allclose(got, want, atol=1e-9 * np.abs(want).max())
