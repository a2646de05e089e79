"""stage_label: the run panel names the job and its stage in words."""

from __future__ import annotations

import doctest

import pytest

import uvlab.app.gui.stage_names as stage_names
from uvlab.app.gui.stage_names import clean_label, stage_label


@pytest.mark.parametrize(
    ("task", "stage", "said"),
    [
        ("image", "uvw", "uv coordinates"),
        ("image", "imaging (conv)", "imaging (conv)"),
        (None, "predict", "predicting visibilities"),
        ("compare", "read MS", "Compare: reading the MeasurementSet"),
        ("compare", "compare: DFT reference", "Compare: DFT reference"),
        ("compare", "compare: pruned-nn (ES, ε=1e-05) #2", "Compare: pruned-nn (ES, ε=1e-05) #2"),
        ("compare", "match: conv S=4 against nn", "Compare: match: conv S=4 against nn"),
        ("aliasing", "aliasing: R(X) scan", "Aliasing: R(X) scan"),
        ("clean", "dirty image and PSF (hybrid)", "CLEAN: dirty image and PSF (hybrid)"),
    ],
)
def test_stage_label(task, stage, said):
    assert stage_label(task, stage) == said


def test_clean_label_and_the_examples():
    assert clean_label(120, 500) == "CLEAN: 120 of 500 iterations"
    assert doctest.testmod(stage_names).failed == 0
