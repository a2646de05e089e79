#!/usr/bin/env bash
# Build the standalone uvlab bundle (PyInstaller, onedir) into dist/uvlab/.
#
#   packaging/build_bundle.sh            # CPU bundle: dist/uvlab/uvlab
#   UVLAB_BUNDLE_GPU=1 packaging/build_bundle.sh   # with CuPy: dist/uvlab-gpu/uvlab
#
# Steps: build the sdist and, from it, the wheel (python -m build); install the
# wheel (with the `gpu` extra for the GPU variant) and PyInstaller into a clean
# build venv, kept in build/bundle/ and reused; run PyInstaller on
# packaging/uvlab.spec; add the desktop files; smoke-test `uvlab --version`.
#
# Environment: PYTHON (default python3; must have a shared libpython, as
# python.org, distro and pyenv builds do), UVLAB_BUNDLE_GPU (0/1),
# UVLAB_BUNDLE_WORK (default build/bundle), UVLAB_BUNDLE_DIST (default dist),
# UVLAB_BUNDLE_TAR=1 to also write dist/uvlab-VERSION-linux-x86_64[-gpu].tar.gz.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=${PYTHON:-python3}
gpu=${UVLAB_BUNDLE_GPU:-0}
work=${UVLAB_BUNDLE_WORK:-$root/build/bundle}
dist=${UVLAB_BUNDLE_DIST:-$root/dist}
suffix=""; extra=""
if [ "$gpu" = 1 ]; then suffix=-gpu; extra="[gpu]"; fi
venv=$work/venv$suffix
name=uvlab$suffix
start=$(date +%s)

echo "== build venv: $venv"
if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip
fi
"$venv/bin/python" -m pip install -q "pyinstaller>=6,<7" build

echo "== wheel"
rm -rf "$work/wheel"
"$venv/bin/python" -m build --outdir "$work/wheel" "$root" >"$work/build-wheel.log" 2>&1 \
    || { tail -30 "$work/build-wheel.log"; exit 1; }
wheel=$(ls "$work"/wheel/uvlab-*.whl)
echo "$wheel"
"$venv/bin/python" -m pip install -q "$wheel$extra"
"$venv/bin/python" -m pip install -q --force-reinstall --no-deps "$wheel"

echo "== pyinstaller"
(cd "$root" && UVLAB_BUNDLE_GPU=$gpu "$venv/bin/pyinstaller" --noconfirm --clean --log-level WARN \
    --distpath "$dist" --workpath "$work/pyinstaller$suffix" packaging/uvlab.spec)

# Desktop integration travels with the bundle: dist/uvlab/desktop/install-desktop.sh.
out=$dist/$name
install -d "$out/desktop/icons"
install -m 755 "$root/packaging/linux/install-desktop.sh" "$out/desktop/"
install -m 644 "$root"/packaging/linux/org.uvlab.uvlab.* "$out/desktop/"
install -m 644 "$root"/resources/icons/uvlab*.png "$root/resources/icons/uvlab.svg" "$out/desktop/icons/"

version=$("$out/uvlab" --version)
echo "== $version: $out ($(du -sh "$out" | cut -f1), $(find "$out" -type f | wc -l) files)"
if [ "${UVLAB_BUNDLE_TAR:-0}" = 1 ]; then
    tarball=$dist/uvlab-${version#uvlab }-linux-x86_64$suffix.tar.gz
    tar -C "$dist" -czf "$tarball" "$name"
    echo "== $tarball ($(du -h "$tarball" | cut -f1))"
fi
echo "== built in $(($(date +%s) - start)) s"
