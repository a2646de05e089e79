"""``uvlab demo``: simulate and image the embedded default scene, headless.

The scene is a saved lab state (:mod:`uvlab.app.lab.session`): the default one,
or ``--scene FILE`` (a session, or a scene file of an older ``uvlab demo``). It
runs as the window's worker runs a job (:func:`uvlab.app.lab.live.run_job`),
with every CPU core, and the state it ran is written as ``scene.json``.

The five files are one output set (:mod:`uvlab.app.outputs.output_set`): an existing
one, or a symbolic link at any of their names, is refused before the scene is
run (``--force`` replaces them), and the new files are renamed into place
together.
"""

from __future__ import annotations

import json
from pathlib import Path

from uvlab.app.commands.validate import even_pixels
from uvlab.app.lab.imaging import DEFAULT_NPIX
from uvlab.gpu.gridders.registry import NAMES as ALGORITHM_NAMES

#: The files a demo writes into OUT.
OUTPUTS = ("dirty.fits", "psf.fits", "overview.png", "timing.json", "scene.json")


def register(sub) -> None:
    p = sub.add_parser(
        "demo",
        help="simulate and image the default scene; write FITS, PNG and timing",
        description="Simulate the embedded default scene (MeerKAT, 'teaching' sky), "
        "predict its visibilities, image them, and write dirty/PSF FITS files, a PNG "
        "overview and a timing table into an output folder.",
    )
    p.add_argument("--out", default="uvlab-demo", help="output folder (default: uvlab-demo)")
    p.add_argument(
        "--scene",
        help="a scene or session JSON file (a demo's scene.json, a session saved by the "
        "window) instead of the default scene",
    )
    p.add_argument(
        "--force", action="store_true", help="replace the files of an earlier demo in OUT"
    )
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "gpu"))
    p.add_argument(
        "--npix", type=even_pixels, help=f"image size in pixels (default {DEFAULT_NPIX})"
    )
    p.add_argument(
        "--algorithm",
        choices=ALGORITHM_NAMES,
        help="imaging algorithm (default: conv with a GPU, ducc without)",
    )
    p.set_defaults(func=run)


def run(args) -> int:
    from dataclasses import replace

    from uvlab.app.lab.live import run_job
    from uvlab.app.lab.session import DEFAULT_SESSION, load_session
    from uvlab.app.outputs.atomic import write_text
    from uvlab.app.outputs.fits_io import write_image_fits
    from uvlab.app.outputs.output_set import check_outputs, output_set
    from uvlab.app.outputs.plots import format_timing, scene_figure
    from uvlab.gpu.backend import device_info

    out = Path(args.out)
    check_outputs([out / n for n in OUTPUTS], force=args.force)  # exit 2, before any work

    state = DEFAULT_SESSION
    if args.scene:  # a named sky stays a name until the options below are applied,
        state = load_session(args.scene, what="scene", resolve=False)  # so it fits the image
    changes = {k: v for k, v in (("npix", args.npix), ("algorithm", args.algorithm)) if v}
    if changes:
        state = replace(state, imaging=replace(state.imaging, **changes))
    state = replace(state, source="synthetic", device=args.device)
    im = state.imaging
    out.mkdir(parents=True, exist_ok=True)
    print(
        f"uvlab demo: {state.observation.layout}, sky '{state.sky.name}', "
        f"{im.npix}² {im.algorithm}; {device_info().describe()}"
    )
    resolved = state.resolved()
    res = run_job(resolved.job_request(device=args.device, preview=False, threads=0))
    spec = res.spec
    hist = {"scene": json.dumps(state.to_dict())}
    common = dict(
        freq_hz=float(res.freq_hz.mean()),
        bandwidth_hz=float(state.observation.chan_width_hz * res.freq_hz.size),
        history=hist,
    )
    ra, dec = state.observation.ra_deg, state.observation.dec_deg
    with output_set(overwrite=args.force):  # renamed into place together, at the end
        files = [
            write_image_fits(out / "dirty.fits", res.dirty, spec, ra, dec, **common),
            write_image_fits(out / "psf.fits", res.psf, spec, ra, dec, **common),
            scene_figure(res, resolved.sky, out / "overview.png"),
        ]
        timing_path = write_text(
            out / "timing.json",
            json.dumps({"device": res.device, "nvis": res.nvis, "timing_s": res.timing}, indent=2),
        )
        files.append(timing_path)
        write_text(out / "scene.json", state.to_json() + "\n")
    print(format_timing(res.timing, res.nvis))
    print(f'peak {res.dirty.max():.4f} Jy/beam; cell {spec.cell_arcsec:.2f}"')
    for f in files:
        print(f"wrote {f}")
    return 0
