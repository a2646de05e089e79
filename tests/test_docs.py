"""Run the shell commands of the user guide (README.md and docs/*.md).

Fenced blocks are marked by their info string:

- ```` ```sh runnable ````: run by the default test set (each block at most about 20 s
  on two CPU cores, with no GPU and no display);
- ```` ```sh runnable slow ````: run only with ``pytest -m slow``;
- plain ```` ```sh ````: never run (installation, the GUI, GPU machines).

A ```` ```text output ```` block quotes what the runnable block before it prints: each of its
lines (but ``...``) must appear in that block's stdout or stderr, with every number within
5 % (numbers below 1e-9, arithmetic noise, match any other such number).

Each runnable block runs on its own with ``bash -euo pipefail`` in a fresh
temporary directory that holds a copy of ``tests/data`` (so the guide's
``tests/data/...`` paths work as they do from the repository root), with the
virtual environment's ``bin`` first on ``PATH`` (the ``uvlab`` console script and
its ``python``). Blocks that depend on each other must therefore be one block.
The other tests check that every relative link of the guide resolves and that
``docs/index.md`` links every page.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.paths import REPO, TEST_DATA

DOCS = REPO / "docs"
PAGES = [REPO / "README.md", *sorted(DOCS.glob("*.md"))]
BIN = Path(sys.executable).parent
#: Words an ``sh`` info string may carry after the language.
FLAGS = {"runnable", "slow"}
FENCE = re.compile(r"^(\s*)(`{3,})\s*([^`]*)$")
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
TIMEOUT_S = {False: 180, True: 900}


@dataclass(frozen=True)
class Block:
    """One fenced code block of a Markdown page."""

    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    flags: frozenset[str]
    code: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(REPO).as_posix()}:{self.line}"

    @property
    def runnable(self) -> bool:
        return self.lang == "sh" and "runnable" in self.flags

    @property
    def slow(self) -> bool:
        return "slow" in self.flags


def fenced_blocks(page: Path) -> list[Block]:
    """Every fenced block of ``page``, indentation of its fence removed."""
    blocks, lines = [], page.read_text(encoding="utf-8").splitlines()
    k = 0
    while k < len(lines):
        m = FENCE.match(lines[k])
        if not m:
            k += 1
            continue
        indent, ticks, info = m.group(1), m.group(2), m.group(3).split()
        body, k0 = [], k
        k += 1
        while k < len(lines) and not lines[k].strip().startswith(ticks):
            line = lines[k]
            body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
            k += 1
        if k >= len(lines):
            raise ValueError(f"{page}:{k0 + 1}: unclosed code fence")
        lang = info[0] if info else ""
        blocks.append(Block(page, k0 + 1, lang, frozenset(info[1:]), "\n".join(body) + "\n"))
        k += 1
    return blocks


ALL_BLOCKS = [b for page in PAGES for b in fenced_blocks(page)]
RUNNABLE = [b for b in ALL_BLOCKS if b.runnable]


def quoted_outputs(block: Block) -> list[Block]:
    """The ``text output`` blocks after ``block`` and before the next ``sh`` block of its page."""
    later = [b for b in ALL_BLOCKS if b.page == block.page and b.line > block.line]
    out = []
    for b in later:
        if b.lang == "sh":
            break
        if b.lang == "text" and "output" in b.flags:
            out.append(b)
    return out


def _numbers_match(want: str, got: str) -> bool:
    if NUMBER.sub("#", want).strip() != NUMBER.sub("#", got).strip():
        return False
    for a, b in zip(map(float, NUMBER.findall(want)), map(float, NUMBER.findall(got))):
        if max(abs(a), abs(b)) < 1e-9:
            continue
        if abs(a - b) > 0.05 * max(abs(a), abs(b)):
            return False
    return True


def missing_lines(quoted: str, printed: str) -> list[str]:
    """Lines of ``quoted`` that no line of ``printed`` matches (see the module docstring)."""
    got = [line.strip() for line in printed.splitlines()]
    want = [line.strip() for line in quoted.splitlines()]
    return [w for w in want if w and w != "..." and not any(_numbers_match(w, g) for g in got)]


def _param(block: Block):
    marks = [pytest.mark.slow] if block.slow else []
    return pytest.param(block, id=block.where, marks=marks)


@pytest.mark.parametrize("block", [_param(b) for b in RUNNABLE])
def test_runnable_block_succeeds(block: Block, tmp_path: Path):
    shutil.copytree(TEST_DATA, tmp_path / "tests" / "data")
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "MPLBACKEND": "Agg",
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_CONFIG_HOME": str(tmp_path / ".config"),  # the GUI's settings stay here
    }
    proc = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block.code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S[block.slow],
    )
    assert proc.returncode == 0, (
        f"{block.where} exited with {proc.returncode}\n--- block ---\n{block.code}"
        f"--- stdout (tail) ---\n{proc.stdout[-3000:]}\n--- stderr (tail) ---\n"
        f"{proc.stderr[-3000:]}"
    )
    for quoted in quoted_outputs(block):
        missing = missing_lines(quoted.code, proc.stdout + "\n" + proc.stderr)
        assert not missing, f"{quoted.where}: not printed by {block.where}:\n" + "\n".join(missing)


def test_quoted_output_matching_tolerates_noise_but_not_drift():
    quoted = "R(X) 3.5e-10 1.4e-02 at x=50\n...\n"
    assert missing_lines(quoted, "R(X) 8.0e-11 1.42e-02 at x=50") == []
    assert missing_lines(quoted, "R(X) 3.5e-10 1.6e-02 at x=50") == ["R(X) 3.5e-10 1.4e-02 at x=50"]
    assert missing_lines(quoted, "R(X) 3.5e-10 1.4e-02 at y=50") != []


def test_every_quoted_output_follows_a_runnable_block():
    owners = {q.where for b in RUNNABLE for q in quoted_outputs(b)}
    quoted = {b.where for b in ALL_BLOCKS if b.lang == "text" and "output" in b.flags}
    assert quoted <= owners, f"text output blocks after no runnable block: {quoted - owners}"


def test_sh_info_strings_use_known_flags():
    bad = [
        f"{b.where}: {' '.join(sorted(b.flags))}"
        for b in ALL_BLOCKS
        if b.lang == "sh" and (not b.flags <= FLAGS or ("slow" in b.flags and not b.runnable))
    ]
    assert not bad, "unknown or inconsistent flags on sh blocks:\n" + "\n".join(bad)


def test_every_page_has_a_quick_runnable_block_or_is_gui_only():
    """The guide's command pages are checked by the default test set."""
    gui_only = {"index.md", "tour.md"}
    quick = {b.page.name for b in RUNNABLE if not b.slow}
    missing = [p.name for p in DOCS.glob("*.md") if p.name not in gui_only | quick]
    assert not missing, f"pages without a quick runnable block: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_relative_links_resolve(page: Path):
    text = page.read_text(encoding="utf-8")
    # links inside code blocks are not links
    for b in fenced_blocks(page):
        text = text.replace(b.code, "")
    broken = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # a URL or an anchor of the same page
        path = (page.parent / target.split("#", 1)[0]).resolve()
        if not path.exists():
            broken.append(target)
    assert not broken, f"{page.name}: broken links {broken}"


def test_index_links_every_page():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    linked = {t.split("#", 1)[0] for t in LINK.findall(index)}
    pages = {p.name for p in DOCS.glob("*.md")} - {"index.md"}
    assert pages <= linked, f"not linked from docs/index.md: {sorted(pages - linked)}"
