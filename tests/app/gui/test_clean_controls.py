"""The Deconvolution tab's CLEAN controls: multiscale's scale rule and its two biases.

Issue 26's rule: every record field the CLI sets has its widget, and the window and
``uvlab image`` build the same :class:`CleanOptions`; the window's CLEAN of that record
gives what the CLI's CLEAN gives (:func:`tests.support.cli_clean.cli_clean`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.support.cli_clean import cli_clean
from uvlab.app.cli import build_parser
from uvlab.app.commands.clean_args import clean_options
from uvlab.app.gui.clean_controls import CleanControls
from uvlab.app.lab.clean_task import CleanOptions, CleanState


def _cli_options(*flags) -> CleanOptions:
    """What ``uvlab image --ms x.ms --out x FLAGS`` makes of its CLEAN flags."""
    argv = ["image", "--ms", "x.ms", "--out", "x", *(str(f) for f in flags)]
    return clean_options(build_parser(argv).parse_args(argv))


def _enabled(c: CleanControls) -> tuple[bool, bool, bool]:
    return c.rule_combo.isEnabled(), c.scale_bias_spin.isEnabled(), c.small_bias_spin.isEnabled()


def test_the_scale_rule_and_biases_edit_the_record_as_the_cli_flags_do(qtbot):
    c = CleanControls()
    qtbot.addWidget(c)
    assert _enabled(c) == (False, False, False)  # multiscale off: nothing to choose
    assert c.options().multiscale_small_scale_bias is None
    with qtbot.waitSignal(c.changed):
        c.multiscale_check.setChecked(True)
    assert _enabled(c) == (True, True, False)  # WSClean's rule: its scale bias
    with qtbot.waitSignal(c.changed):
        c.scale_bias_spin.setValue(0.35)
    flags = ("--niter", 500, "--mgain", 0.8, "--multiscale")
    assert c.options() == _cli_options(*flags, "--multiscale-scale-bias", 0.35)
    with qtbot.waitSignal(c.changed):
        c.rule_combo.setCurrentIndex(c.rule_combo.findData("tclean"))
    assert _enabled(c) == (True, False, True)  # tclean's rule: its small-scale bias
    assert c.options().multiscale_small_scale_bias == 0.0  # tclean's default
    with qtbot.waitSignal(c.changed):
        c.small_bias_spin.setValue(-0.4)
    got = c.options()
    assert got.multiscale_small_scale_bias == -0.4
    assert got == _cli_options(
        *flags, "--multiscale-scale-bias", 0.35, "--multiscale-small-scale-bias", -0.4
    )
    c.multiscale_check.setChecked(False)  # off: the controls keep their values, greyed
    assert _enabled(c) == (False, False, False)
    assert replace(c.options(), multiscale=True) == got
    with qtbot.waitSignal(c.changed):
        c.rule_combo.setCurrentIndex(c.rule_combo.findData("wsclean"))
    assert c.options().multiscale_small_scale_bias is None


@pytest.mark.parametrize(
    "opts",
    [
        CleanOptions(multiscale=True, multiscale_small_scale_bias=0.6, multiscale_scale_bias=0.2),
        CleanOptions(multiscale=True, multiscale_scale_bias=0.45),
        CleanOptions(multiscale_small_scale_bias=-1.0),  # a session's, multiscale off
    ],
)
def test_set_options_shows_the_rule_and_gives_the_record_back(qtbot, opts):
    c = CleanControls()
    qtbot.addWidget(c)
    c.rule_combo.setCurrentIndex(c.rule_combo.findData("tclean"))  # not what is shown next
    c.small_bias_spin.setValue(0.9)
    c.set_options(opts)
    tclean = opts.multiscale_small_scale_bias is not None
    assert c.rule_combo.currentData() == ("tclean" if tclean else "wsclean")
    assert _enabled(c) == (
        opts.multiscale,
        opts.multiscale and not tclean,
        opts.multiscale and tclean,
    )
    assert c.options() == opts


def test_the_tclean_rule_reaches_the_clean_as_the_clis(
    make_window, small_state, wait_result, qtbot
):
    """Edits in the tab → the CLEAN job; its result is the CLI's CLEAN of the same scene."""
    w = make_window(small_state)
    wait_result(w)
    c = w.views.deconv_view.clean_controls
    c.niter_spin.setValue(60)
    c.multiscale_check.setChecked(True)
    c.rule_combo.setCurrentIndex(c.rule_combo.findData("tclean"))
    c.small_bias_spin.setValue(0.3)
    want = _cli_options(
        "--niter", 60, "--mgain", 0.8, "--multiscale", "--multiscale-small-scale-bias", 0.3
    )  # fmt: skip
    assert w.model.state.clean.options == want
    requests = []
    w.controller.submitted.connect(requests.append)
    with qtbot.waitSignal(
        w.controller.result_ready, timeout=60_000, check_params_cb=lambda r: r.task == "clean"
    ) as blocker:
        w.controller.submit("clean")
    win = blocker.args[0].output
    (req,) = requests
    assert req.clean == want and isinstance(win, CleanState) and win.done
    cli = cli_clean(req, want, req.device, mask=None)
    assert win.iterations == cli.iterations > 0 and win.stop_reason == cli.stop_reason
    for name in ("model", "residual", "restored"):
        a, b = getattr(win, name), getattr(cli, name)
        assert np.abs(a - b).max() <= 1e-15 * max(1.0, np.abs(a).max()), name
    # the rule mattered: WSClean's rule on the same dirty image CLEANs differently
    wsclean = cli_clean(req, replace(want, multiscale_small_scale_bias=None), req.device, None)
    assert not np.array_equal(wsclean.model, win.model)
