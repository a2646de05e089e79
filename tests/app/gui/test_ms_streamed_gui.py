"""The window opening an MS the memory cannot hold: streamed in row chunks, no traceback.

"Does not fit" is forced through the available memory the lab's check reads (as
tests/app/lab/test_ms_memory.py does); the job starts the window's default local cluster
(no ``UVLAB_SCHEDULER``). Oracles: :func:`make_image` of the MS read whole at the image's
geometry (as tests/app/gui/test_ms_gui.py checks the in-memory path), and for CLEAN the
same request's CLEAN read whole.
"""

from __future__ import annotations

import numpy as np


def test_a_streamed_ms_shows_its_images_and_says_the_uv_is_a_subsample(
    make_window, small_state, wait_result, qtbot, ms_copy, monkeypatch
):
    from uvlab.app.lab import ms_streamed
    from uvlab.app.ms import read_visibilities
    from uvlab.app.runtime import memory
    from uvlab.app.runtime.memory_limits import Available
    from uvlab.app.scale.cluster import SCHEDULER_ENV
    from uvlab.gpu.imaging.imager import make_image

    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    monkeypatch.setattr(memory, "available_memory", lambda: Available(1000, "cgroup limit"))
    monkeypatch.setattr(ms_streamed, "UV_ROWS", 4)
    path = ms_copy("lwasv_4ant.ms")
    w = make_window(small_state, run_on_start=False)
    progress = []
    w.controller.progress_changed.connect(lambda f, stage: progress.append(stage))
    w.files.open_ms(str(path))
    out = wait_result(w, timeout=120_000).output
    assert out.source == "ms" and "streamed in" in out.description
    vis = read_visibilities(path, stokes="I")
    ref = make_image(vis.uvw, vis.freq_hz, vis.vis, vis.weight, out.spec, flag=vis.flag,
                     algorithm=small_state.imaging.algorithm,
                     params=small_state.imaging.grid_params())  # fmt: skip
    peak = np.abs(ref.dirty).max()
    np.testing.assert_allclose(w.views.dirty_view.image(), ref.dirty, rtol=0, atol=1e-6 * peak)
    np.testing.assert_allclose(w.views.psf_view.image(), ref.psf, rtol=0, atol=1e-6)
    assert "read + grid" in progress  # the chunks' progress reached the run panel
    label = w.views.uv_view.info_label.text()
    assert label.startswith("a subsample:") and f"of {vis.nrow:,} rows" in label
    lines = w.views.log_view.lines()
    assert any("imaged in row chunks on a Dask cluster instead" in line for line in lines)
    assert any("uv coverage drawn from a subsample" in line for line in lines)
    assert not any("Traceback" in line or "MemoryError" in line for line in lines)
    # the aliasing maps need every sample in memory: refused in one line, the images stay
    with qtbot.waitSignal(w.controller.job_failed, timeout=30_000) as blocker:
        w.controller.submit("aliasing")
    message = blocker.args[0]
    assert "\n" not in message and "The aliasing maps need every sample" in message
    assert "The aliasing maps need every sample" in w.statusBar().currentMessage()
    np.testing.assert_allclose(w.views.dirty_view.image(), ref.dirty, rtol=0, atol=1e-6 * peak)
    # CLEAN runs over the chunks: every cycle and the last reach the Deconvolution tab
    cycles = []
    w.controller.partial_ready.connect(lambda p: cycles.append(p) if p.clean is not None else None)
    w.controller.submit("clean")
    result = wait_result(w, timeout=120_000)
    state = result.output
    assert w.views.deconv_view.state() is state and cycles
    assert "CLEAN PSF (2N)" in progress  # the 2N PSF was a pass over the chunks
    monkeypatch.undo()  # the oracle: the same request read whole
    from uvlab.app.lab.live import run_job
    from uvlab.app.lab.samples import WorkCache

    want = run_job(result.request, WorkCache())
    assert state.iterations == want.iterations
    for name in ("model", "residual", "restored"):
        np.testing.assert_allclose(getattr(state, name), getattr(want, name), rtol=0,
                                   atol=1e-6 * peak, err_msg=name)  # fmt: skip
