"""The command line offers exactly the algorithm catalogue's names.

``uvlab image`` and ``uvlab demo`` take any algorithm (the DFT too);
``uvlab compare --algorithms`` and ``uvlab gui --compare`` any gridder. All
of them read :mod:`uvlab.gpu.gridders.registry`.
"""

import argparse

import pytest

from uvlab.app.cli import build_parser
from uvlab.gpu.gridders.registry import ALGORITHMS, COMPARED, NAMES


def subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[name]


def option(parser: argparse.ArgumentParser, flag: str) -> argparse.Action:
    (action,) = (a for a in parser._actions if flag in a.option_strings)
    return action


@pytest.mark.parametrize("command", ["image", "demo"])
def test_algorithm_choices_are_the_catalogue(command):
    action = option(subparser(build_parser(), command), "--algorithm")
    assert tuple(action.choices) == NAMES


def test_compare_takes_the_gridders_and_defaults_to_the_compared_ones(capsys):
    from uvlab.app.commands.compare import _algorithms

    p = subparser(build_parser(), "compare")
    action = option(p, "--algorithms")
    assert action.default == ",".join(COMPARED)
    assert ", ".join(ALGORITHMS) in action.help
    args = p.parse_args(["--out", "x", "--algorithms", ",".join(ALGORITHMS)])
    assert _algorithms(args) == list(ALGORITHMS)
    with pytest.raises(SystemExit) as exc:
        _algorithms(p.parse_args(["--out", "x", "--algorithms", "dft"]))
    assert exc.value.code == 2
    assert f"choose from {', '.join(ALGORITHMS)}" in capsys.readouterr().err


def test_gui_compare_takes_the_gridders():
    from uvlab.app.commands.gui import algorithm_list

    assert algorithm_list(",".join(ALGORITHMS)) == list(ALGORITHMS)
    with pytest.raises(argparse.ArgumentTypeError, match="unknown: dft"):
        algorithm_list("conv,dft")
