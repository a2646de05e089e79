"""Chunk sizes, out-of-memory halving and the clear memory error; CPU vs GPU agreement."""

from __future__ import annotations

import numpy as np
import pytest

from uvlab.gpu.predict import PredictMemoryError, iter_predict_rows, predict_antennas, predict_rows
from uvlab.gpu.predict import direct as direct_mod
from uvlab.gpu.predict.chunking import chunk_from_budget, is_out_of_memory, iter_chunked
from uvlab.gpu.sources import SourceArrays


def sky(rng, n=5):
    lm = rng.uniform(-0.02, 0.02, (n, 2))
    return SourceArrays.points(
        np.column_stack([lm, np.sqrt(1 - np.sum(lm**2, 1))]), rng.uniform(0.5, 1.5, (n, 4))
    )


def test_chunk_from_budget():
    assert chunk_from_budget(100, 1000, 10_000) == 100
    assert chunk_from_budget(100, 50, 10_000) == 50
    assert chunk_from_budget(1e9, 50, 10_000) == 1
    assert chunk_from_budget(1e9, 50, 10_000, minimum=8) == 8


def test_iter_chunked_halves_on_memory_error_and_covers_everything():
    calls = []

    def fn(sl):
        calls.append(sl.stop - sl.start)
        if sl.stop - sl.start > 7:
            raise MemoryError("fake allocator: too big")
        return np.arange(sl.start, sl.stop)

    got = list(iter_chunked(fn, 100, 40))
    assert calls[:4] == [40, 20, 10, 5]  # halved until it fits, then kept
    assert all(n <= 7 for n in calls[3:])
    assert np.array_equal(np.concatenate([r for _, r in got]), np.arange(100))
    assert [s.start for s, _ in got] == sorted(s.start for s, _ in got)


def test_iter_chunked_raises_clear_error_at_minimum():
    calls = []

    def fn(sl):
        calls.append(sl.stop - sl.start)
        raise MemoryError("fake allocator: nothing fits")

    # one halving to the minimum (each failure runs a full garbage collection: seconds in
    # a test worker's heap), then the error that names it
    with pytest.raises(PredictMemoryError, match=r"chunk of 2 rows of 64 \(about 0\.5 MiB\)"):
        list(iter_chunked(fn, 64, 4, min_chunk=2, bytes_per_unit=256 * 1024))
    assert calls == [4, 2]
    assert issubclass(PredictMemoryError, MemoryError)


def test_iter_chunked_passes_other_errors():
    def fn(sl):
        raise ValueError("not a memory problem")

    with pytest.raises(ValueError, match="not a memory problem"):
        list(iter_chunked(fn, 10, 5))


def test_oom_classification():
    assert is_out_of_memory(MemoryError())
    assert is_out_of_memory(RuntimeError("CUBLAS_STATUS_ALLOC_FAILED"))
    assert not is_out_of_memory(PredictMemoryError("final"))
    assert not is_out_of_memory(ValueError("x"))


def test_predict_rows_survives_fake_oom(monkeypatch, rng):
    """A monkeypatched compute that fails above 16 rows: the result is still complete and right."""
    uvw = rng.normal(size=(100, 3)) * 1000
    freq = np.linspace(1e9, 1.1e9, 3)
    src = sky(rng)
    want = predict_rows(uvw, freq, src, mode="linear", device="cpu")
    real = direct_mod.direct_rows
    sizes = []

    def flaky(uvw_block, *args, **kw):
        sizes.append(len(uvw_block))
        if len(uvw_block) > 16:
            raise MemoryError("fake out of memory")
        return real(uvw_block, *args, **kw)

    monkeypatch.setattr("uvlab.gpu.predict.rows.direct_rows", flaky)
    got = predict_rows(uvw, freq, src, mode="linear", device="cpu", chunk_rows=100)
    assert sizes[:4] == [100, 50, 25, 12]
    assert np.array_equal(got, want)


def test_iter_predict_rows_yields_in_order(rng):
    uvw = rng.normal(size=(50, 3)) * 1000
    freq = np.array([1.2e9, 1.3e9])
    src = sky(rng)
    parts = list(iter_predict_rows(uvw, freq, src, device="cpu", chunk_rows=16))
    assert [s for s, _ in parts] == [slice(0, 16), slice(16, 32), slice(32, 48), slice(48, 50)]
    whole = predict_rows(uvw, freq, src, device="cpu")
    assert np.array_equal(np.concatenate([v for _, v in parts]), whole)


def test_bad_arguments(rng):
    uvw = rng.normal(size=(4, 3))
    src = sky(rng)
    with pytest.raises(ValueError, match="mode"):
        predict_rows(uvw, [1e9], src, mode="xx", device="cpu")
    with pytest.raises(ValueError, match="dtype"):
        predict_rows(uvw, [1e9], src, dtype=np.int32, device="cpu")
    with pytest.raises(ValueError, match=r"\(\.\.\., 3\)"):
        predict_rows(uvw[:, :2], [1e9], src, device="cpu")
    with pytest.raises(ValueError, match="antenna indices"):
        predict_antennas(uvw[None], [0], [4], [1e9], src, device="cpu")
    assert predict_rows(uvw[:0], [1e9, 2e9], src, device="cpu").shape == (0, 2)


@pytest.mark.gpu
def test_gpu_huge_request_raises_clear_error(monkeypatch, rng):
    """A real device allocation far beyond the card: halving down to one row, then a clear error."""
    import cupy

    def greedy(uvw_block, *args, **kw):
        cupy.empty(len(uvw_block) << 50, dtype=cupy.uint8)  # petabytes

    monkeypatch.setattr("uvlab.gpu.predict.cuda_direct.predict_rows_cuda", greedy)
    with pytest.raises(PredictMemoryError, match="chunk of 1 rows of 40") as info:
        predict_rows(rng.normal(size=(40, 3)), [1e9], sky(rng), device="gpu")
    assert isinstance(info.value, MemoryError)


def big_sky(rng, nsrc):
    lm = rng.uniform(-0.01, 0.01, (nsrc, 2))
    return SourceArrays.points(
        np.column_stack([lm, np.sqrt(1 - np.sum(lm**2, 1))]), rng.uniform(0.0, 1.0, nsrc)
    )


@pytest.mark.gpu
def test_gpu_gemm_too_big_falls_back(rng):
    """K operands of 200 GB (scalar) and 330 GB (linear) for ONE time exceed the card:
    cuBLAS path → OOM → scalar falls back to the fused kernel, full-pol to the row kernel."""
    ant_uvw = rng.normal(size=(1, 64, 3)) * 1000
    freq = np.linspace(1e9, 1.1e9, 64)
    a1, a2 = [0, 5], [1, 9]
    src = big_sky(rng, 3_000_000)
    got = predict_antennas(ant_uvw, a1, a2, freq, src, device="gpu", method="gemm")
    want = predict_antennas(ant_uvw, a1, a2, freq, src, device="gpu", method="direct")
    assert np.linalg.norm(got - want) / np.linalg.norm(want) < 1e-11
    src = big_sky(rng, 1_000_000)  # Stokes I only: XX = YY = the scalar sum, XY = YX = 0
    lin = predict_antennas(ant_uvw, a1, a2, freq, src, mode="linear", device="gpu", method="gemm")
    scal = predict_antennas(ant_uvw, a1, a2, freq, src, device="gpu", method="fused")
    assert np.linalg.norm(lin[..., 0, 0] - scal) / np.linalg.norm(scal) < 1e-11
    assert np.linalg.norm(lin[..., 1, 1] - scal) / np.linalg.norm(scal) < 1e-11
    assert np.max(np.abs(lin[..., 0, 1])) < 1e-9 * np.max(np.abs(scal))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("mode", ["scalar", "linear"])
def test_cpu_and_gpu_agree(dtype, mode, rng):
    """The same inputs on NumPy and CuPy (matvis ``test_cpu_vs_gpu``), 300 rows × 20 channels."""
    from uvlab.gpu.predict import Smearing

    uvw = rng.normal(size=(300, 3)) * 3000
    freq = np.linspace(0.95e9, 1.05e9, 20)
    lm = rng.uniform(-0.03, 0.03, (90, 2))
    shape = np.zeros((90, 3))
    shape[::3, :2] = 3e-5
    src = SourceArrays(
        np.column_stack([lm, np.sqrt(1 - np.sum(lm**2, 1))]),
        rng.normal(size=(90, 4)),
        rng.normal(size=90),
        np.full(90, 1e9),
        shape,
    )
    sm = Smearing(5e6, 8.0, -0.7)
    cpu = predict_rows(uvw, freq, src, mode=mode, smearing=sm, dtype=dtype, device="cpu")
    gpu = predict_rows(uvw, freq, src, mode=mode, smearing=sm, dtype=dtype, device="gpu")
    tol = 1e-12 if dtype == np.float64 else 1e-5
    assert np.linalg.norm(gpu - cpu) / np.linalg.norm(cpu) <= tol
