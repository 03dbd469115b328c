#!/bin/sh
# Install Debian's bubblewrap, the sandbox of the grader (python -m book.grade), unless it is there.
set -e
if command -v bwrap >/dev/null; then exit 0; fi
if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO="sudo"; else
  echo "error: the grader's sandbox needs bwrap; install Debian's 'bubblewrap' package" >&2
  exit 1
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq bubblewrap >/dev/null
