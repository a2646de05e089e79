"""One local worker per GPU, each seeing its GPU alone (app/scale/cluster.py).

Checked without a GPU through what each worker process sees (its
``CUDA_VISIBLE_DEVICES``); with two GPUs or more (``gpu`` marker, the device machine's
multi-GPU kinds), the workers run CuPy on different devices and the chunked image
equals the CPU's.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from uvlab.app.scale.cluster import cluster_client, visible_gpus


def _visible():
    return os.environ.get("CUDA_VISIBLE_DEVICES")


def test_each_gpu_worker_sees_one_gpu_alone_more_workers_sharing_them_round_robin():
    """Worker k sees GPU ``gpus[k % len(gpus)]`` alone (one rule, gpu_worker_specs): three
    workers on two GPUs see 3, 5 and 3, each with its share of the memory; one cluster
    start for what two did (one worker per GPU is the same rule's first len(gpus) workers)."""
    with cluster_client(gpus=["3", "5"], workers=3, memory_bytes=3 * 2**30) as client:
        seen = client.run(_visible)
        limits = {w["memory_limit"] for w in client.scheduler_info()["workers"].values()}
        names = {a: w["name"] for a, w in client.scheduler_info()["workers"].items()}
    assert sorted(seen.values()) == ["3", "3", "5"] and limits == {2**30}
    # each worker's own GPU: the one its name (gpu{k}-{gpu}) was given
    assert all(names[a].endswith(f"-{gpu}") for a, gpu in seen.items())


def test_visible_gpus_follow_cuda_visible_devices(monkeypatch):
    cupy = pytest.importorskip("cupy")
    count = cupy.cuda.runtime.getDeviceCount()
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", ",".join(str(7 - i) for i in range(count)))
    assert visible_gpus() == [str(7 - i) for i in range(count)]


def _bus_id():
    import cupy

    return cupy.cuda.Device(0).pci_bus_id


@pytest.mark.gpu
def test_workers_on_several_gpus_image_as_the_cpu(tmp_path):
    from tests.support.ms_factory import make_ms
    from uvlab.app.scale.ms_image import MSRead, image_ms
    from uvlab.gpu.image_spec import ImageSpec
    from uvlab.gpu.imaging.weighting import Weighting

    gpus = visible_gpus()
    if len(gpus) < 2:
        pytest.skip("needs two GPUs")
    make_ms(tmp_path / "obs.ms", np.random.default_rng(3), spw_nchan=(4,), ntime=6, nant=6)
    source, spec, wt = MSRead(str(tmp_path / "obs.ms")), ImageSpec(64, 2e-4), Weighting("uniform")
    with cluster_client(workers=2) as client:
        want = image_ms(client, source, spec, wt, chunk_rows=9, device="cpu")
    with cluster_client(gpus=gpus[:2]) as client:
        assert len(set(client.run(_bus_id).values())) == 2  # two physical devices
        got = image_ms(client, source, spec, wt, chunk_rows=9, device="gpu")
    np.testing.assert_allclose(got.dirty, want.dirty, atol=1e-6 * np.abs(want.dirty).max())


def _kept_on_device(held) -> bool:
    import cupy

    cycle = held._cycle
    return cycle is not None and isinstance(cycle[0].vis, cupy.ndarray)


def _kept_where_held(client, held) -> list[bool]:
    """For each held chunk, whether a worker holding it keeps its cycle on the GPU (asked
    on each holder: a copy sent elsewhere carries the host data only)."""
    where = client.who_has(list(held))
    out = []
    for fut in held:
        asks = [client.submit(_kept_on_device, fut, workers=[w], allow_other_workers=False,
                              pure=False) for w in where[fut.key]]  # fmt: skip
        out.append(any(client.gather(asks)))
    return out


@pytest.mark.gpu
def test_held_chunks_keep_their_major_cycle_on_the_gpu(tmp_path):
    """CLEAN's data held on a GPU worker: the first major cycle puts each chunk's samples
    and weights in device memory, later cycles use them, and every residual equals the
    one read from the MS (and the CPU's)."""
    cupy = pytest.importorskip("cupy")
    from tests.support.ms_factory import make_ms
    from uvlab.app.scale.ms_clean import ClusterMajorCycle, Pass, hold

    # the workers keep cycles while the device has a quarter free; this process's pool,
    # grown by earlier GPU tests, must not count against them
    cupy.get_default_memory_pool().free_all_blocks()
    from uvlab.app.scale.ms_image import MSRead, image_ms
    from uvlab.gpu.image_spec import ImageSpec
    from uvlab.gpu.imaging.weighting import Weighting

    gpus = visible_gpus()
    make_ms(tmp_path / "obs.ms", np.random.default_rng(4), spw_nchan=(4,), ntime=6, nant=6)
    source, spec, wt = MSRead(str(tmp_path / "obs.ms")), ImageSpec(64, 2e-4), Weighting("briggs")
    with cluster_client(gpus=gpus[:1], workers=2) as client:
        res = image_ms(client, source, spec, wt, chunk_rows=9, device="gpu")
        job = Pass(client, source, spec, wt, res.totals, 9, "conv", device="gpu")
        model = np.zeros((64, 64))
        model[30, 33], model[40, 20] = 0.8, 0.3
        want = ClusterMajorCycle(job).residual(model).get()
        kept = hold(job)
        cycles = ClusterMajorCycle(kept)
        first = cycles.residual(model).get()
        on_device = _kept_where_held(client, kept.held)
        second = cycles.residual(0.5 * model).get()
        again = ClusterMajorCycle(job).residual(0.5 * model).get()
    assert all(on_device) and len(on_device) == len(kept.held) > 2
    scale = np.abs(want).max()
    np.testing.assert_allclose(first, want, atol=1e-9 * scale)
    np.testing.assert_allclose(second, again, atol=1e-9 * scale)
    assert np.abs(second - first).max() > 1e-3 * scale  # the second model was used
