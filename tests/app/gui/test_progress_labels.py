"""The run panel's progress label fits the dock and names the job and its stage (issue 28).

Every job kind runs in the window sized as on a 1280×720 screen (the narrowest the
lab supports, its Controls dock as wide as the window gives it there): the image
job, Compare (its DFT reference and each entry), Aliasing, CLEAN (its dirty image
and PSF, then each cycle) and reading a MeasurementSet. At every progress the
label's shown text fits its width, is the whole text or a cut at a word ending in
"…" with the whole text in its tooltip, and names the job (Compare, Aliasing,
CLEAN) and a word of its stage.
"""

from __future__ import annotations

from PyQt6 import QtWidgets

from tests.support.screens import size_as_on
from uvlab.app.gui.stage_names import KINDS
from uvlab.app.lab.clean_task import CleanOptions
from uvlab.widgets.elided_label import ELLIPSIS

SCREEN = (1280, 720)
#: How long a job may take on a busy machine (a wait on the result, not a time bound).
WAIT_MS = 300_000


def _window(make_window, state):
    w = make_window(state, run_on_start=False)
    size_as_on(w, SCREEN)
    return w


def _record(w, seen: list) -> None:
    """After the window's own slots: the label's (task, whole text, shown text, width, tip)."""
    label = w.run_panel.status

    def note(*_args):
        if w.controller.busy and not w.run_panel.is_cancelling():
            task = w.controller.latest_request.task
            seen.append((task, label.text(), label.shown_text(), label.width(), label.toolTip()))

    w.controller.progress_changed.connect(note)
    w.controller.partial_ready.connect(lambda p: p.clean is not None and note())


def _run(w, qtbot, task: str) -> None:
    with qtbot.waitSignal(
        w.controller.result_ready, timeout=WAIT_MS, check_params_cb=lambda r: r.task == task
    ):
        w.controller.submit(task)


def _check(seen: list) -> None:
    assert seen
    for task, whole, shown, width, tip in seen:
        assert width > 0
        assert whole.split(" · ")[0].endswith("%"), whole  # "45 % · stage": the percentage first
        if shown != whole:  # cut at a word: the whole text in the tooltip
            assert shown.endswith(" " + ELLIPSIS) and whole.startswith(shown[:-2]), (shown, whole)
            assert whole[len(shown) - 2] in " ,;:(·—-", (shown, whole)  # a word boundary
            assert tip == whole
        kind = KINDS.get(task)
        stage = shown.split(" · ", 1)[1]
        if kind is not None:
            assert stage.startswith(f"{kind}: "), (task, shown)
            stage = stage[len(kind) + 2 :]
        assert stage.replace(ELLIPSIS, "").strip(), (task, shown)  # a word of the stage


def test_every_job_kinds_progress_label_fits_a_1280_dock_and_names_the_stage(
    make_window, small_state, wait_result, qtbot, ms_copy
):
    from PyQt6.QtGui import QFontMetrics

    w = _window(make_window, small_state)
    seen: list = []
    _record(w, seen)
    w.controller.submit()
    wait_result(w, timeout=WAIT_MS)
    assert {s[0] for s in seen} == {"image"}
    _run(w, qtbot, "compare")
    _run(w, qtbot, "aliasing")
    w.views.deconv_view.set_options(CleanOptions("hogbom", niter=200, gain=0.1))
    _run(w, qtbot, "clean")
    w.files.open_ms(str(ms_copy("lwasv_4ant.ms")))
    wait_result(w, timeout=WAIT_MS)
    _check(seen)
    metrics = QFontMetrics(w.run_panel.status.font())
    for task, _whole, shown, width, _tip in seen:
        assert metrics.horizontalAdvance(shown) <= width, (task, shown, width)
    stages = {(task, whole.split(" · ", 1)[1]) for task, whole, *_ in seen}
    names = {stage for _, stage in stages}
    assert {"Compare: DFT reference", "Aliasing: analytic map"} <= names, names
    assert any(s.startswith("CLEAN: dirty image and PSF") for s in names), names
    assert any(s.startswith("CLEAN: ") and s.endswith(" of 200 iterations") for s in names)
    assert "reading the MeasurementSet" in names, names
    assert any(task == "compare" and s.startswith("Compare: ") and "DFT" not in s
               for task, s in stages)  # fmt: skip  # each entry's stage


def test_a_long_status_is_cut_at_a_word_with_the_whole_in_its_tooltip(make_window, small_state):
    w = _window(make_window, small_state)
    text = "Compared 4 entries in 13.10 s (reference: dft subsampled every 8 pixels)"
    QtWidgets.QApplication.processEvents()  # the dock laid out
    w.run_panel.set_status(text)
    label = w.run_panel.status
    assert label.text() == text
    assert label.shown_text() != text and label.toolTip() == text
    assert label.shown_text().endswith(" " + ELLIPSIS)
    assert text.startswith(label.shown_text()[:-2])
