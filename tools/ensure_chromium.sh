#!/bin/sh
# Install what the browser tests need from Debian, unless it is there already:
# - Chromium ($CHROMIUM may name another Chromium-based browser, e.g. Google Chrome on CI);
# - fonts for emoji and the scripts the book shows (Devanagari, Thai, Arabic, CJK, ...), so
#   screenshots show glyphs, not boxes.
set -e
FONTS="fonts-noto-color-emoji fonts-noto-core fonts-noto-cjk"
missing=""
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || missing="chromium"
for package in $FONTS; do
  dpkg -s "$package" >/dev/null 2>&1 || missing="$missing $package"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO="sudo"; else
  echo "error: the browser tests need these Debian packages: $missing" >&2
  echo "       install them (apt-get install $missing), or set CHROMIUM to the path of a" >&2
  echo "       Chromium-based browser if only chromium is missing" >&2
  exit 1
fi
$SUDO apt-get update -qq
# shellcheck disable=SC2086 # one word per package
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
