#!/usr/bin/env bash
# Add uvlab to the desktop's application menu: the .desktop file, the AppStream
# metadata and the icon in every size, under $XDG_DATA_HOME (default ~/.local/share)
# or, with --system, under /usr/local/share.
#
#   install-desktop.sh [--system] [--uninstall] [UVLAB_EXECUTABLE]
#
# UVLAB_EXECUTABLE defaults to the bundle's executable when this script sits in
# a PyInstaller bundle (dist/uvlab/desktop/), else to `uvlab` on PATH.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
uninstall=0
exe=""
for arg in "$@"; do
    case $arg in
        --system) data=/usr/local/share ;;
        --uninstall) uninstall=1 ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) exe=$arg ;;
    esac
done
app=org.uvlab.uvlab

# The files sit beside this script in a bundle; in the source tree the icons
# are in resources/icons.
icons=$here/icons
[ -d "$icons" ] || icons=$here/../../resources/icons
sizes="16 32 48 64 128 256"

if [ "$uninstall" = 1 ]; then
    rm -f "$data/applications/$app.desktop" "$data/metainfo/$app.metainfo.xml" \
        "$data/icons/hicolor/scalable/apps/$app.svg"
    for n in $sizes; do rm -f "$data/icons/hicolor/${n}x${n}/apps/$app.png"; done
    echo "removed uvlab's menu entry from $data"
    exit 0
fi

if [ -z "$exe" ]; then
    if [ -x "$here/../uvlab" ]; then exe=$(cd "$here/.." && pwd)/uvlab
    else exe=$(command -v uvlab || true); fi
fi
[ -n "$exe" ] && [ -x "$exe" ] || { echo "install-desktop.sh: no uvlab executable found; pass its path" >&2; exit 2; }

install -d "$data/applications" "$data/metainfo" "$data/icons/hicolor/scalable/apps"
sed "s|^Exec=uvlab |Exec=\"$exe\" |" "$here/$app.desktop" >"$data/applications/$app.desktop"
install -m 644 "$here/$app.metainfo.xml" "$data/metainfo/$app.metainfo.xml"
install -m 644 "$icons/uvlab.svg" "$data/icons/hicolor/scalable/apps/$app.svg"
for n in $sizes; do
    install -d "$data/icons/hicolor/${n}x${n}/apps"
    install -m 644 "$icons/uvlab-$n.png" "$data/icons/hicolor/${n}x${n}/apps/$app.png"
done
command -v update-desktop-database >/dev/null && update-desktop-database -q "$data/applications" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$data/icons/hicolor" || true
echo "uvlab added to the application menu ($data/applications/$app.desktop -> $exe)"
