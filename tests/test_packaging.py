"""Packaging: what the wheel ships, the desktop files, and (marked ``packaging``)
the wheel in a fresh venv and the PyInstaller bundle, run outside the repository.

The fast tests compare ``pyproject.toml`` with the source tree: every package
folder is listed, every resource file is covered by a package-data glob. The
``packaging`` tests take minutes and are deselected by default
(``pytest -m packaging tests/test_packaging.py`` runs them).
"""

from __future__ import annotations

import configparser
import json
import os
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path, PurePosixPath

import pytest

from tests.support.paths import REPO, TEST_DATA
from uvlab.app._version import __version__
from uvlab.resources.icons import APP_ID, ICON_SIZES, icon_file, icon_files

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

LINUX = REPO / "packaging" / "linux"
MS = TEST_DATA / "lwasv_4ant.ms"
SOURCE_ROOTS = ("app", "gpu", "widgets", "resources")


def setuptools_config() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def package_folder(name: str, package_dir: dict[str, str]) -> Path:
    """The source folder of a dotted package name, through ``package-dir``."""
    for prefix in sorted(package_dir, key=len, reverse=True):
        if name == prefix or name.startswith(prefix + "."):
            rest = name[len(prefix) :].lstrip(".")
            return (
                REPO / package_dir[prefix] / Path(*rest.split("."))
                if rest
                else (REPO / package_dir[prefix])
            )
    return REPO / Path(*name.split("."))


def source_packages() -> dict[Path, str]:
    """Every folder with an ``__init__.py`` under the source roots → its dotted name."""
    found = {}
    for top in SOURCE_ROOTS:
        for init in (REPO / top).rglob("__init__.py"):
            rel = init.parent.relative_to(REPO / top).parts
            found[init.parent] = ".".join(("uvlab", top, *rel))
    return found


def test_every_package_folder_is_listed_in_pyproject():
    cfg = setuptools_config()
    listed = set(cfg["packages"])
    missing = sorted(set(source_packages().values()) - listed)
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {missing}"
    for name in listed:
        assert package_folder(name, cfg["package-dir"]).is_dir(), f"{name} has no folder"


def test_every_resource_file_is_covered_by_package_data():
    cfg = setuptools_config()
    folders = {package_folder(n, cfg["package-dir"]): n for n in cfg["packages"]}
    globs = cfg.get("package-data", {})
    uncovered = []
    for top in SOURCE_ROOTS:
        for f in (REPO / top).rglob("*"):
            if not f.is_file() or f.suffix in (".py", ".pyc") or "__pycache__" in f.parts:
                continue
            owner = max((d for d in folders if d in f.parents), key=lambda d: len(d.parts))
            rel = PurePosixPath(f.relative_to(owner).as_posix())
            patterns = [*globs.get(folders[owner], []), *globs.get("*", []), *globs.get("", [])]
            if not any(
                len(PurePosixPath(p).parts) == len(rel.parts) and rel.match(p) for p in patterns
            ):
                uncovered.append(f"{folders[owner]}: {rel}")
    assert not uncovered, f"not in any [tool.setuptools.package-data] glob: {uncovered}"


def png_size(path) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def test_icons_are_found_and_have_their_sizes():
    for n in ICON_SIZES:
        assert png_size(icon_file(n)) == (n, n)
    svg = ET.fromstring(icon_file().read_bytes())
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    assert svg.get("viewBox") == "0 0 256 256"
    assert len(icon_files()) == len(ICON_SIZES) + 1
    with pytest.raises(ValueError, match="sizes are"):
        icon_file(17)


def test_desktop_entry_is_well_formed():
    path = LINUX / f"{APP_ID}.desktop"
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # keys are case-sensitive
    parser.read_string(path.read_text(encoding="utf-8"))
    entry = parser["Desktop Entry"]
    assert entry["Type"] == "Application"
    assert entry["Exec"].split()[:2] == ["uvlab", "gui"]
    assert entry["Icon"] == APP_ID
    assert entry["Terminal"] == "false"
    assert entry["Categories"].endswith(";") and "Science" in entry["Categories"].split(";")
    if shutil.which("desktop-file-validate"):
        res = subprocess.run(["desktop-file-validate", str(path)], capture_output=True, text=True)
        assert res.returncode == 0 and "error" not in res.stdout, res.stdout


def test_appstream_metainfo_is_well_formed_and_current():
    path = LINUX / f"{APP_ID}.metainfo.xml"
    comp = ET.parse(path).getroot()
    assert comp.tag == "component" and comp.get("type") == "desktop-application"
    assert comp.findtext("id") == APP_ID
    assert comp.findtext("launchable") == f"{APP_ID}.desktop"
    assert comp.findtext("icon") == APP_ID
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert comp.findtext("project_license") == project["license"]
    versions = [r.get("version") for r in comp.iter("release")]
    assert versions[0] == __version__, "add a <release> for the new version, newest first"
    if shutil.which("appstreamcli"):
        res = subprocess.run(
            ["appstreamcli", "validate", "--no-net", str(path)], capture_output=True, text=True
        )
        assert res.returncode == 0, res.stdout + res.stderr


def test_pyinstaller_spec_compiles():
    compile((REPO / "packaging" / "uvlab.spec").read_text(), "uvlab.spec", "exec")


# ---- slow: build, install and run (deselected by default) -------------------


def clean_env(home: Path) -> dict[str, str]:
    """An environment with no venv on PATH and an empty HOME."""
    home.mkdir(exist_ok=True)
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}


def run_ok(cmd, env, cwd, timeout=600) -> str:
    res = subprocess.run(
        [str(c) for c in cmd], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    assert res.returncode == 0, f"{cmd} failed ({res.returncode}):\n{res.stdout}\n{res.stderr}"
    return res.stdout


def check_demo(out: Path) -> None:
    """The demo's files, and a 128² dirty image whose peak is the bright source (~1 Jy)."""
    from astropy.io import fits

    with fits.open(out / "dirty.fits") as hdul:
        img = hdul[0].data.squeeze()
    assert img.shape == (128, 128)
    assert 0.9 < img.max() < 1.1
    timing = json.loads((out / "timing.json").read_text())
    assert timing["device"] == "cpu" and timing["nvis"] > 0
    assert (out / "overview.png").stat().st_size > 10_000


@pytest.mark.packaging
def test_wheel_installs_and_runs_in_a_fresh_venv(tmp_path):
    pytest.importorskip("build")
    dist = tmp_path / "dist"
    run_ok([sys.executable, "-m", "build", "--outdir", dist, REPO], dict(os.environ), REPO)
    (wheel,) = dist.glob("uvlab-*.whl")
    venv = tmp_path / "venv"
    run_ok([sys.executable, "-m", "venv", venv], dict(os.environ), tmp_path)
    run_ok(
        [venv / "bin" / "python", "-m", "pip", "install", "-q", wheel],
        dict(os.environ),
        tmp_path,
        timeout=1200,
    )
    env = clean_env(tmp_path / "home")
    uvlab = venv / "bin" / "uvlab"
    assert run_ok([uvlab, "--version"], env, tmp_path).strip() == f"uvlab {__version__}"
    run_ok([uvlab, "demo", "--out", tmp_path / "demo", "--npix", 128], env, tmp_path)
    check_demo(tmp_path / "demo")
    shot = tmp_path / "wheel-shot.png"
    gui = [uvlab, "gui", "--screenshot", shot, "--timeout", 300]
    if shutil.which("xvfb-run"):
        gui = ["xvfb-run", "-a", "-s", "-screen 0 1920x1200x24", *gui]
    else:
        env = {**env, "QT_QPA_PLATFORM": "offscreen"}
    run_ok(gui, env, tmp_path)
    assert png_size(shot)[0] >= 800
    probe = "from uvlab.resources.icons import icon_files; print(icon_files()[-1])"
    svg = Path(run_ok([venv / "bin" / "python", "-c", probe], env, tmp_path).strip())
    assert svg.is_file() and REPO not in svg.parents


@pytest.mark.packaging
def test_bundle_builds_and_runs_without_python(tmp_path):
    if not sys.platform.startswith("linux"):
        pytest.skip("the bundle is built for Linux")
    dist = tmp_path / "dist"
    env = dict(os.environ, UVLAB_BUNDLE_DIST=str(dist), PYTHON=sys.executable)
    run_ok(["bash", REPO / "packaging" / "build_bundle.sh"], env, REPO, timeout=1800)
    exe = dist / "uvlab" / "uvlab"
    env = clean_env(tmp_path / "home")
    assert run_ok([exe, "--version"], env, tmp_path).strip() == f"uvlab {__version__}"
    run_ok([exe, "demo", "--out", tmp_path / "demo", "--npix", 128], env, tmp_path)
    check_demo(tmp_path / "demo")
    info = run_ok([exe, "info", MS], env, tmp_path)  # casacore's libraries and data
    assert "LWASV" in info and "Antennas        4" in info
    shot = tmp_path / "shot.png"
    gui = [exe, "gui", "--screenshot", shot, "--timeout", 300]
    if shutil.which("xvfb-run"):  # a real X server: the bundled xcb platform plugin
        gui = ["xvfb-run", "-a", "-s", "-screen 0 1920x1200x24", *gui]
    run_ok(gui, env, tmp_path)
    assert png_size(shot)[0] >= 800
