"""What the run panel says a job is doing: its kind and its stage, in words.

A job's events name their stages tersely (``"uvw"``, ``"compare: conv"``,
``"dirty image and PSF (conv)"``); :func:`stage_label` says which job it is
(Compare, Aliasing, CLEAN) and what the stage does, so that a label cut to the
dock's width still names both. :func:`clean_label` names a CLEAN cycle's progress,
which the job reports as partial results rather than stages.
"""

from __future__ import annotations

#: The job kinds the window names (the ``image`` task is the window's usual job: unnamed).
KINDS = {"compare": "Compare", "aliasing": "Aliasing", "clean": "CLEAN"}
#: The data stages every job starts with, in words.
DATA_STAGES = {
    "uvw": "uv coordinates",
    "predict": "predicting visibilities",
    "read MS": "reading the MeasurementSet",
}


def stage_label(task: str | None, stage: str) -> str:
    """``stage`` of a ``task`` job as the run panel writes it.

    >>> stage_label("compare", "compare: DFT reference")
    'Compare: DFT reference'
    >>> stage_label("clean", "predict")
    'CLEAN: predicting visibilities'
    >>> stage_label("image", "imaging (conv)")
    'imaging (conv)'
    """
    stage = DATA_STAGES.get(stage, stage)
    kind = KINDS.get(task or "")
    if kind is None:
        return stage
    head, sep, rest = stage.partition(": ")
    if sep and head.lower() == kind.lower():  # "compare: conv": the kind is said already
        stage = rest
    return f"{kind}: {stage}"


def clean_label(iterations: int, niter: int) -> str:
    """A running CLEAN's progress: ``"CLEAN: 200 of 500 iterations"``."""
    return f"CLEAN: {iterations} of {niter} iterations"
