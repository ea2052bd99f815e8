#!/bin/sh
# Make sure a headless Chromium is available for the browser tests of the HTML report.
# Installs Debian's `chromium` when /usr/bin/chromium is missing (needs root or passwordless sudo), and the
# python `playwright` driver into the venv when it cannot be imported. Safe to run repeatedly.
set -eu
PYTHON="${PYTHON:-.venv/bin/python}"
if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium
fi
if ! "$PYTHON" -c "import playwright" 2>/dev/null; then
    "$PYTHON" -m pip install --quiet "playwright>=1.45"
fi
/usr/bin/chromium --version
