"""The selection's rows are found once, by the client, and handed to the workers
(``MSRead.share_plan``): no worker runs the selection's TaQL query, which scans the whole
main table. Oracle: the rows a worker reads with the handed plan equal those the client
reads itself; a worker that could run no query still reads."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.ms_factory import make_ms
from uvlab.app.scale.ms_read import MSRead


def _forbid_queries(on: bool) -> None:
    """In this worker process: make any selection query fail (on), or allow it again."""
    from uvlab.app.ms import row_plan

    if on:
        row_plan._saved_selected = row_plan.selected

        def refuse(*a, **k):
            raise AssertionError("a worker ran the selection's query")

        row_plan.selected = refuse
    elif hasattr(row_plan, "_saved_selected"):
        row_plan.selected = row_plan._saved_selected


@pytest.fixture
def two_field_ms(tmp_path):
    # two fields interleaved: the selection's rows are runs, not one range
    path = tmp_path / "two.ms"
    make_ms(path, np.random.default_rng(3), fields=(("A", 1.0, -0.5), ("B", 1.1, -0.4)),
            field_iquv=((1.0, 0.0, 0.0, 0.0), (0.5, 0.0, 0.0, 0.0)), ntime=4, nant=4)  # fmt: skip
    return MSRead(str(path), field=1)


def test_workers_read_with_the_clients_plan_and_run_no_query(client, two_field_ms):
    source = two_field_ms
    n = source.count()
    want = source.read((1, n - 1))
    client.run(_forbid_queries, True)
    try:
        source.share_plan(client)
        got = client.submit(source.read, (1, n - 1), pure=False).result()
    finally:
        client.run(_forbid_queries, False)
    np.testing.assert_array_equal(got.vis, want.vis)
    np.testing.assert_array_equal(got.uvw, want.uvw)
    np.testing.assert_array_equal(got.flag, want.flag)
    np.testing.assert_array_equal(got.time, want.time)


def test_without_the_plan_a_worker_would_query(client, tmp_path):
    """The check above can fail: a selection whose plan no one handed over is queried."""
    path = tmp_path / "lone.ms"
    make_ms(path, np.random.default_rng(5), ntime=2, nant=3)
    source = MSRead(str(path))
    client.run(_forbid_queries, True)
    try:
        with pytest.raises(AssertionError, match="ran the selection's query"):
            client.submit(source.read, (0, 2), pure=False).result()
    finally:
        client.run(_forbid_queries, False)
