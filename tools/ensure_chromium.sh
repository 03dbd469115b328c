#!/bin/sh
# Install Debian's Chromium for the browser test, unless a browser is already there.
# $CHROMIUM names another Chromium-based browser (e.g. Google Chrome on a CI runner).
set -e
if [ -x "${CHROMIUM:-/usr/bin/chromium}" ]; then exit 0; fi
if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO="sudo"; else
  echo "error: the browser test needs /usr/bin/chromium; install Debian's 'chromium' package" >&2
  echo "       or set CHROMIUM to the path of a Chromium-based browser" >&2
  exit 1
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
