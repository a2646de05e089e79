"""Which chunk a worker takes next (app/scale/chains.py): its own first; when its queue is
empty, another's, but never a chunk held on another worker (CLEAN's held data run where
they are held: their major cycle may be in that worker's GPU memory)."""

from __future__ import annotations

from collections import deque

from uvlab.app.scale.chains import _next_chunk, _queues


def test_an_idle_worker_takes_plain_chunks_from_the_longest_queue():
    todo = {"a": deque(), "b": deque(["b1"]), "c": deque(["c1", "c2", "c3"])}
    assert _next_chunk(todo, "b") == "b1"  # its own first
    assert _next_chunk(todo, "a") == "c3"  # then the longest queue's last
    assert list(todo["c"]) == ["c1", "c2"]
    todo = {"a": deque(), "b": deque()}
    assert _next_chunk(todo, "a") is None


def test_held_chunks_stay_with_the_worker_that_holds_them(client):
    workers = sorted(client.scheduler_info()["workers"])
    held = [client.scatter(k, workers=[workers[1]], hash=False) for k in range(3)]
    todo = _queues(client, held, workers)
    assert not todo[workers[0]] and list(todo[workers[1]]) == held  # dealt to their holder
    assert _next_chunk(todo, workers[0]) is None  # the idle worker takes none of them
    assert len(todo[workers[1]]) == 3
    assert _next_chunk(todo, workers[1]) is held[0]
