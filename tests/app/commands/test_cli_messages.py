"""Every error of the CLI is one line on stderr naming the file (or value) and the problem.

A battery of bad inputs (layout, scene, session, sky files, MeasurementSets,
dates, option values) runs through ``uvlab.app.cli.main`` in this process.
Each row gives the exit status expected (1: a data error, 2: a usage error)
and the text the one error line must contain (the file, else the bad value).

Usage errors are one line too (``uvlab.app.cli.OneLineParser``), ending with
a pointer to ``--help`` instead of argparse's usage block.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import error_line
from uvlab.app.cli import main

VLA_XYZ = "-1601185.4 -5041977.5 3554875.9 25 A\n-1601085.4 -5041977.5 3554875.9 25 B\n"
OBS = {"layout": "kat-7", "ra_deg": 10.0, "dec_deg": -30.0}

#: name → file content (str, bytes, or a JSON-able object written as JSON).
FILES = {
    "huge.cfg": "# coordsys=XYZ\n1e300 0 0 25 A\n0 0 6.37e6 25 B\n",
    "centre.cfg": "# coordsys=XYZ\n0 0 0 25 A\n10 0 0 25 B\n",
    "lat95.cfg": "# coordsys=GEO\n21 95 1000 12 A\n21 -30 1000 12 B\n",
    "far.cfg": "# observatory=MeerKAT\n# coordsys=LOC\n0 0 0 12 A\n5e6 0 0 12 B\n",
    "short.cfg": "# coordsys=XYZ\n" + VLA_XYZ + "1 2\n",
    "utm.cfg": "# coordsys=UTM\n" + VLA_XYZ,
    "noheader.cfg": VLA_XYZ,
    "empty.cfg": "",
    "lat95.yaml": "centre: [21, 95, 0]\nsize: 12\nantlocations:\n- [21, -30, 0]\n- [21, -31, 0]\n",
    "nested.yaml": "size: 12\nantlocations:\n- - 1\n",
    "site95.csv": "# dish = 12\n# site = 21, 95, 1000\nname,x,y,z\nA,0,0,0\nB,10,0,0\n",
    "nodish.csv": "name,x,y,z\nA,0,0,0\nB,10,0,0\n",
    "layout.txt": VLA_XYZ,
    "bad.json": "{not json",
    "binary.json": b"\xff\xfe\x00",
    "list.json": [1, 2],
    "scene_missing.json": {"observation": {"layout": "kat-7"}},
    "scene_dec.json": {"observation": {**OBS, "dec_deg": 95.0}},
    "scene_ra.json": {"observation": {**OBS, "ra_deg": 1e300}},
    "scene_date.json": {"observation": {**OBS, "start_iso": "tuesday", "duration_h": 1.0}},
    "scene_key.json": {"observation": OBS, "imaging": {"npx": 256}},
    "scene_npix.json": {"observation": OBS, "imaging": {"npix": 3}},
    "scene_layout.json": {"observation": {**OBS, "layout": "LAYOUT_DIR/huge.cfg"}},
    "session_format.json": {"format": "something else"},
    "session_obs.json": {"format": "uvlab session", "version": 1, "observation": "kat-7"},
    "session_date.json": {
        "format": "uvlab session",
        "version": 1,
        "observation": {**OBS, "date_iso": "2025-13-45"},
    },
    "session_enu.json": {
        "format": "uvlab session",
        "version": 1,
        "observation": OBS,
        "modified_antennas_enu": [[0, 0, 0], [1e300, 0, 0]],
    },
    "sky.txt": "this is not a sky model\n",
}

#: (argv with {name} for files of FILES and {missing} for a path that does not exist,
#:  exit status, text the error line must contain; {name}s there are replaced too)
CASES = [
    # layout files (uvlab arrays, simulate --array)
    (["arrays", "{huge.cfg}"], 1, "{huge.cfg}:2: antenna A is 1e+297 km"),
    (["arrays", "{centre.cfg}"], 1, "{centre.cfg}:2: antenna A is 0 km"),
    (["arrays", "{lat95.cfg}"], 1, "{lat95.cfg}:2: antenna A has latitude 95°"),
    (["arrays", "{far.cfg}"], 1, "{far.cfg}:4: antenna B is 5000 km from the site"),
    (["arrays", "{short.cfg}"], 1, "{short.cfg}:4: expected 'x y z diam"),
    (["arrays", "{utm.cfg}"], 1, "{utm.cfg}:1: coordsys 'UTM'"),
    (["arrays", "{noheader.cfg}"], 1, "{noheader.cfg}: missing '# coordsys"),
    (["arrays", "{empty.cfg}"], 1, "{empty.cfg}: no antenna lines"),
    (["arrays", "{lat95.yaml}"], 1, "{lat95.yaml}: 'centre' has latitude 95°"),
    (["arrays", "{nested.yaml}"], 1, "{nested.yaml}:3: antlocations entry 0 is not [a, b, c]"),
    (["arrays", "{site95.csv}"], 1, "{site95.csv}: the site has latitude 95°"),
    (["arrays", "{nodish.csv}"], 1, "{nodish.csv}: needs '# dish = metres'"),
    (["arrays", "{layout.txt}"], 1, "{layout.txt}: unknown layout format '.txt'"),
    (["arrays", "{missing}.cfg"], 1, "{missing}.cfg: no such layout file"),
    (["arrays", "no-such-array"], 1, "unknown layout 'no-such-array'"),
    (["bench", "grid", "--array", "{lat95.cfg}", "--device", "cpu"], 1, "{lat95.cfg}:2: antenna A"),
    (
        ["simulate", "--array", "{huge.cfg}", "--ra", "10", "--dec", "-30", "--sky", "point",
         "--out", "{missing}.ms"],
        1,
        "{huge.cfg}:2: antenna A is 1e+297 km",
    ),
    # dates and coordinates given as options
    (
        ["simulate", "--array", "kat-7", "--ra", "10", "--dec", "-30", "--start", "tuesday",
         "--duration-h", "1", "--sky", "point", "--out", "{missing}.ms"],
        2,
        "argument --start: 'tuesday' is not a valid UTC date/time",
    ),
    (
        ["simulate", "--array", "kat-7", "--ra", "10", "--dec", "-30", "--date", "2025-02-30",
         "--sky", "point", "--out", "{missing}.ms"],
        2,
        "argument --date: '2025-02-30' is not a valid UTC date/time (bad day)",
    ),
    (
        ["simulate", "--array", "kat-7", "--ra", "1e300", "--dec", "-30", "--sky", "point",
         "--out", "{missing}.ms"],
        2,
        "argument --ra: expected a number ≤ 360 deg, got '1e300'",
    ),
    # scene files (uvlab demo --scene)
    (["demo", "--scene", "{bad.json}", "--out", "{missing}"], 1, "{bad.json}: not valid JSON"),
    (["demo", "--scene", "{binary.json}", "--out", "{missing}"], 1, "{binary.json}: not a scene"),
    (["demo", "--scene", "{list.json}", "--out", "{missing}"], 1, "{list.json}: a scene is a"),
    (["demo", "--scene", "{missing}.json", "--out", "{missing}"], 1, "{missing}.json: cannot read"),
    (
        ["demo", "--scene", "{scene_missing.json}", "--out", "{missing}"],
        1,
        "{scene_missing.json}: observation: missing ra_deg, dec_deg",
    ),
    (
        ["demo", "--scene", "{scene_dec.json}", "--out", "{missing}"],
        1,
        "{scene_dec.json}: observation: dec_deg must lie in [-90, 90]",
    ),
    (
        ["demo", "--scene", "{scene_ra.json}", "--out", "{missing}"],
        1,
        "{scene_ra.json}: observation: ra_deg must lie in [-360, 360]",
    ),
    (
        ["demo", "--scene", "{scene_date.json}", "--out", "{missing}"],
        1,
        "{scene_date.json}: observation: start_iso 'tuesday' is not a valid UTC date/time",
    ),
    (
        ["demo", "--scene", "{scene_key.json}", "--out", "{missing}"],
        1,
        "{scene_key.json}: imaging: unknown key npx",
    ),
    (
        ["demo", "--scene", "{scene_npix.json}", "--out", "{missing}"],
        1,
        "{scene_npix.json}: imaging: image size npix must be an even integer ≥ 2, got 3",
    ),
    (
        ["demo", "--scene", "{scene_layout.json}", "--out", "{missing}"],
        1,
        "{huge.cfg}:2: antenna A is 1e+297 km",
    ),
    # session files (uvlab gui --session fails before any window opens)
    (["gui", "--session", "{bad.json}"], 1, "{bad.json}: not valid JSON"),
    (["gui", "--session", "{binary.json}"], 1, "{binary.json}: not a session file"),
    (["gui", "--session", "{list.json}"], 1, "{list.json}: not a uvlab session"),
    (["gui", "--session", "{missing}.json"], 1, "{missing}.json: cannot read the session file"),
    (["gui", "--session", "{session_format.json}"], 1, "{session_format.json}: not a uvlab"),
    (["gui", "--session", "{session_obs.json}"], 1, "{session_obs.json}: 'observation' is"),
    (
        ["gui", "--session", "{session_date.json}"],
        1,
        "{session_date.json}: bad session: observation: date_iso '2025-13-45' is not a valid",
    ),
    (
        ["gui", "--session", "{session_enu.json}"],
        1,
        "{session_enu.json}: modified_antennas_enu: antenna 1",
    ),
    (["gui", "--scene", "{scene_dec.json}"], 1, "{scene_dec.json}: observation: dec_deg"),
    # sky models and MeasurementSets
    (["sky", "show", "{sky.txt}"], 1, "sky.txt: unrecognised sky file"),
    (["info", "{missing}.ms"], 1, "{missing}.ms: no such file or folder"),
    (["info", "{sky.txt}"], 1, "{sky.txt}: not a MeasurementSet"),
    (["image", "--ms", "{missing}.ms", "--out", "{missing}"], 1, "{missing}.ms: no such file"),
    (["compare", "--ms", "{sky.txt}", "--out", "{missing}"], 1, "{sky.txt}: not a Measurement"),
    (
        ["predict", "--ms", "{missing}.ms", "--sky", "point"],
        1,
        "{missing}.ms: no such file or folder",
    ),
    # usage errors: exit 2 before anything is read
    (["image", "--ms", "{missing}.ms", "--channels", "abc", "--out", "x"], 2, "'abc': expected"),
    (["compare", "--ms", "{missing}.ms", "--channels", "1-4", "--out", "x"], 2, "'1-4'"),
    (["image", "--ms", "{missing}.ms", "--npix", "many", "--out", "x"], 2, "'many'"),
    (["demo", "--npix", "3", "--out", "{missing}"], 2, "--npix: '3': expected an even number"),
    (["demo", "--algorithm", "fast", "--out", "{missing}"], 2, "invalid choice: 'fast'"),
]  # fmt: skip


@pytest.fixture
def battery(tmp_path):
    """Write FILES; returns a function filling {name} / {missing} in a string."""
    for name, content in FILES.items():
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content)
        else:
            text = json.dumps(content).replace("LAYOUT_DIR", str(tmp_path))
            path.write_text(text)
    names = {f"{{{n}}}": str(tmp_path / n) for n in FILES}
    names["{missing}"] = str(tmp_path / "no-such-thing")

    def fill(text: str) -> str:
        for key, value in names.items():
            text = text.replace(key, value)
        return text

    return fill


def _error_line(err: str, command: str) -> str:
    return error_line(err)


@pytest.mark.parametrize(
    ("argv", "status", "expected"), CASES, ids=[f"{i:02d}-{c[0][0]}" for i, c in enumerate(CASES)]
)
def test_error_is_one_line_naming_the_file(battery, capsys, argv, status, expected):
    argv = [battery(a) for a in argv]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert code == status, err
    line = _error_line(err, argv[0])
    assert line.startswith(f"uvlab {argv[0]}: error: "), line
    assert battery(expected) in line, line
    assert not Path(battery("{missing}.ms")).exists()  # nothing was left behind
