"""``uvlab predict``: a sky model into MODEL_DATA, all or nothing."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.cli import run_cli, write_sky
from tests.support.ms_factory import data_digest
from uvlab.app.runtime.errors import Cancelled

C = 299792458.0
SIM = (
    "simulate",
    "--array",
    "atca.6a",
    "--ra",
    "80",
    "--dec",
    "-60",
    "--ha-start",
    "-3",
    "--ha-stop",
    "3",
    "--int-s",
    "900",
    "--nchan",
    "3",
    "--chan-width-hz",
    "8e6",
    "--feeds",
    "circular",
    "--device",
    "cpu",
)


def _col(path, name):
    from casacore import tables

    t = tables.table(str(path), ack=False)
    try:
        return t.getcol(name) if name in t.colnames() else None
    finally:
        t.close()


@pytest.fixture
def sim(tmp_path):
    sky = write_sky(
        tmp_path / "sky.txt",
        [("a", 80.05, -59.97, 1.0, 0.1, -0.2, 0.05), ("b", 79.9, -60.02, 0.5, 0.0, 0.0, 0.0)],
    )
    code, _, err = run_cli(*SIM, "--sky", sky, "--out", tmp_path / "s.ms")
    assert code == 0, err
    return tmp_path / "s.ms", sky


def test_model_data_equals_the_simulated_data(sim, monkeypatch):
    # simulate and predict share the measurement equation and the smearing
    # (INTERVAL and CHAN_WIDTH read back from the MS): same numbers. Small
    # blocks and chunks make the rows go through every boundary case.
    import uvlab.app.ms.predict_chunks as engine

    monkeypatch.setattr(engine, "BLOCK_ROWS", 37)
    monkeypatch.setattr(engine, "CHUNK_BYTES", 10 * 3 * 4 * 16 * 4)
    ms, sky = sim
    code, out, err = run_cli("predict", "--ms", ms, "--sky", sky, "--device", "cpu")
    assert code == 0, err
    assert "wrote MODEL_DATA" in out and "RR RL LR LL" in out
    model, data = _col(ms, "MODEL_DATA"), _col(ms, "DATA")
    assert model.dtype == np.complex64 and model.shape == data.shape
    np.testing.assert_allclose(model, data, atol=2e-6)
    assert _col(ms, "UVLAB_PARTIAL_MODEL_DATA") is None


@pytest.mark.parametrize("name", ["lwasv_4ant.ms", "paper_xy.ms"])
def test_real_ms_against_a_direct_sum(ms_copy, tmp_path, name):
    from casacore import tables

    ms = ms_copy(name)
    t = tables.table(str(ms / "FIELD"), ack=False)
    ra0, dec0 = t.getcell("PHASE_DIR", 0)[0]
    t.close()
    t = tables.table(str(ms / "SPECTRAL_WINDOW"), ack=False)
    freq = t.getcell("CHAN_FREQ", 0)
    t.close()
    ra, dec = ra0 + 0.03, dec0 - 0.02
    iquv = (3.0, 0.5, -0.4, 0.3)
    sky = write_sky(tmp_path / "sky.txt", [("s", np.degrees(ra), np.degrees(dec), *iquv)])
    data_before = _col(ms, "DATA")
    code, _, err = run_cli("predict", "--ms", ms, "--sky", sky, "--no-smearing", "--device", "cpu")
    assert code == 0, err
    uvw = _col(ms, "UVW")
    l = np.cos(dec) * np.sin(ra - ra0)
    m = np.sin(dec) * np.cos(dec0) - np.cos(dec) * np.sin(dec0) * np.cos(ra - ra0)
    n = np.sqrt(1 - l * l - m * m)
    k = np.exp(
        2j * np.pi * freq[None] / C * (uvw[:, :1] * l + uvw[:, 1:2] * m + uvw[:, 2:] * (n - 1))
    )
    i, q, u, v = iquv
    b = {"XX": i + q, "XY": u + 1j * v, "YX": u - 1j * v, "YY": i - q}
    t = tables.table(str(ms / "POLARIZATION"), ack=False)
    names = [{9: "XX", 10: "XY", 11: "YX", 12: "YY"}[c] for c in t.getcell("CORR_TYPE", 0)]
    t.close()
    expect = np.stack([b[c] * k for c in names], axis=-1)
    np.testing.assert_allclose(_col(ms, "MODEL_DATA"), expect, atol=2e-6 * abs(expect).max())
    np.testing.assert_array_equal(_col(ms, "DATA"), data_before)


def test_an_existing_column_is_replaced_only_when_asked(sim):
    ms, sky = sim
    assert run_cli("predict", "--ms", ms, "--sky", sky, "--device", "cpu")[0] == 0
    before = data_digest(ms)
    code, _, err = run_cli("predict", "--ms", ms, "--sky", "point", "--device", "cpu")
    assert code == 1 and "column MODEL_DATA already exists" in err and str(ms) in err
    assert data_digest(ms) == before
    code, out, err = run_cli(
        "predict", "--ms", ms, "--sky", "point", "--overwrite", "--no-smearing", "--device", "cpu"
    )
    assert code == 0, err
    assert "replaced MODEL_DATA" in out
    model = _col(ms, "MODEL_DATA")
    np.testing.assert_allclose(model[..., [0, 3]], 1.0, atol=1e-6)  # 1 Jy at the centre
    np.testing.assert_allclose(model[..., [1, 2]], 0.0, atol=1e-6)


def test_data_is_written_only_with_column_data_and_overwrite(sim):
    ms, _ = sim
    before = data_digest(ms)
    code, _, err = run_cli("predict", "--ms", ms, "--sky", "point", "--column", "DATA")
    assert code == 1 and "column DATA already exists and holds the observed data" in err
    assert "--overwrite" in err and data_digest(ms) == before
    code, _, err = run_cli(
        "predict",
        "--ms",
        ms,
        "--sky",
        "point",
        "--column",
        "data",
        "--overwrite",
        "--no-smearing",
        "--device",
        "cpu",
    )
    assert code == 0, err
    np.testing.assert_allclose(_col(ms, "DATA")[..., 0], 1.0, atol=1e-6)


@pytest.fixture
def failing_predict(monkeypatch):
    """Make the predict engine run in several chunks and fail on the second."""
    import uvlab.app.ms.predict_chunks as engine
    import uvlab.gpu.predict as predict

    real, calls = predict.predict_rows, []

    def install(exc):
        def flaky(*args, **kwargs):
            calls.append(1)
            if len(calls) == 2:
                raise exc
            return real(*args, **kwargs)

        monkeypatch.setattr(predict, "predict_rows", flaky)
        monkeypatch.setattr(engine, "CHUNK_BYTES", 6 * 3 * 4 * 16 * 4)  # 6 rows per chunk
        return calls

    return install


@pytest.mark.parametrize("overwrite", [False, True])
def test_a_failed_write_leaves_the_ms_as_it_was(sim, failing_predict, overwrite):
    ms, sky = sim
    if overwrite:
        assert run_cli("predict", "--ms", ms, "--sky", "point", "--device", "cpu")[0] == 0
    before = data_digest(ms)
    calls = failing_predict(RuntimeError("GPU fell off the bus (simulated)"))
    extra = ("--overwrite",) if overwrite else ()
    code, _, err = run_cli("predict", "--ms", ms, "--sky", sky, "--device", "cpu", *extra)
    assert code == 1 and "GPU fell off the bus (simulated)" in err and err.count("\n") == 1
    assert len(calls) == 2
    assert data_digest(ms) == before
    assert (_col(ms, "MODEL_DATA") is not None) == overwrite


def test_ctrl_c_during_the_write_leaves_the_ms_as_it_was(sim, failing_predict):
    ms, sky = sim
    before = data_digest(ms)
    failing_predict(KeyboardInterrupt())
    code, _, err = run_cli("predict", "--ms", ms, "--sky", sky, "--device", "cpu")
    assert code == 130 and "interrupted" in err
    assert data_digest(ms) == before


def test_cancel_through_the_engine(sim, monkeypatch):
    import uvlab.app.ms.predict_chunks as chunks
    import uvlab.app.ms.predict_ms as engine
    from uvlab.app.skymodel import load_sky

    ms, sky = sim
    monkeypatch.setattr(chunks, "CHUNK_BYTES", 6 * 3 * 4 * 16 * 4)
    before = data_digest(ms)
    seen = []
    with pytest.raises(Cancelled):
        engine.predict_to_ms(
            ms, load_sky(sky), device="cpu", progress=seen.append, cancelled=lambda: len(seen) >= 2
        )
    assert len(seen) == 2 and 0 < seen[-1] < 1
    assert data_digest(ms) == before


def test_bad_inputs_change_nothing(sim, tmp_path):
    ms, _ = sim
    before = data_digest(ms)
    bad = tmp_path / "bad.txt"
    bad.write_text("# uvlab sky model v1\ns point 80 -60 one 0 0 0 0 1.4e9 0 0 0\n")
    code, _, err = run_cli("predict", "--ms", ms, "--sky", bad)
    assert code == 1 and "bad.txt, line 2" in err and err.count("\n") == 1
    code, _, err = run_cli("predict", "--ms", ms, "--sky", "point", "--feeds", "linear")
    assert code == 1 and "RR RL LR LL (circular feeds), not linear feeds" in err
    code, _, err = run_cli("predict", "--ms", ms, "--sky", "point", "--column", "MODEL DATA")
    assert code == 2 and "not a valid column name" in err
    assert data_digest(ms) == before
    code, _, err = run_cli("predict", "--ms", tmp_path / "none.ms", "--sky", "point")
    assert code == 1 and "none.ms: no such file or folder" in err


@pytest.mark.parametrize(
    ("column", "extra"),
    [
        ("UVW", ("--overwrite",)),
        ("FLAG", ("--overwrite",)),
        ("TIME", ("--overwrite",)),
        ("ANTENNA1", ("--overwrite",)),
        ("WEIGHT_SPECTRUM", ()),
        ("sigma_spectrum", ()),
        ("UVLAB_OLD_DATA", ()),
    ],
)
def test_only_visibility_columns_can_be_written(sim, column, extra):
    ms, _ = sim
    before = data_digest(ms)
    code, _, err = run_cli("predict", "--ms", ms, "--sky", "point", "--column", column, *extra)
    assert code == 2 and err.count("\n") == 1, err
    assert str(ms) in err and ("not a visibility column" in err or "not a valid" in err)
    assert data_digest(ms) == before


def test_a_new_column_name_is_allowed(sim):
    ms, _ = sim
    code, _, err = run_cli("predict", "--ms", ms, "--sky", "point", "--column", "my_model")
    assert code == 0, err
    np.testing.assert_allclose(_col(ms, "MY_MODEL")[..., 0], 1.0, rtol=1e-6)


def test_a_disk_too_small_is_refused_before_writing(sim, monkeypatch):
    ms, _ = sim
    before = data_digest(ms)
    monkeypatch.setenv("UVLAB_FAKE_FREE_BYTES", "100000")
    code, _, err = run_cli("predict", "--ms", ms, "--sky", "point", "--device", "cpu")
    assert code == 1 and err.count("\n") == 1, err
    assert f"{ms}: not enough disk space for column MODEL_DATA" in err and "free" in err
    assert data_digest(ms) == before


def test_rows_with_non_finite_uvw_get_a_zero_model_and_a_warning(sim, tmp_path):
    import shutil

    from casacore import tables

    ms, sky = sim
    clean = tmp_path / "clean.ms"
    shutil.copytree(ms, clean)
    t = tables.table(str(ms), readonly=False, ack=False)
    uvw = t.getcol("UVW")
    bad = np.array([3, 4, 40])
    uvw[bad[0], 0], uvw[bad[1]], uvw[bad[2], 2] = np.nan, np.inf, -np.inf
    t.putcol("UVW", uvw)
    t.close()
    for path in (ms, clean):
        code, _, err = run_cli("predict", "--ms", path, "--sky", sky, "--device", "cpu")
        assert code == 0, err
    model, reference = _col(ms, "MODEL_DATA"), _col(clean, "MODEL_DATA")
    assert np.all(np.isfinite(model))
    np.testing.assert_array_equal(model[bad], 0)
    good = np.setdiff1d(np.arange(model.shape[0]), bad)
    np.testing.assert_array_equal(model[good], reference[good])


def test_the_warning_names_the_ms_and_counts_the_rows(sim):
    from casacore import tables

    ms, sky = sim
    t = tables.table(str(ms), readonly=False, ack=False)
    uvw = t.getcol("UVW")
    uvw[:2] = np.nan
    t.putcol("UVW", uvw)
    t.close()
    code, _, err = run_cli("predict", "--ms", ms, "--sky", sky, "--device", "cpu")
    assert code == 0
    warning = f"uvlab predict: warning: {ms}: 2 row(s) have non-finite UVW; their MODEL_DATA is 0"
    assert err == warning + "\n"
