#!/bin/sh
# Make sure bubblewrap is available: plug-in methods run in its sandbox (foresci/methods/sandbox), and the
# plug-in tests run real sandboxed processes. Installs Debian's `bubblewrap` when `bwrap` is missing (needs
# root or passwordless sudo), then checks that it can create its namespaces here. Safe to run repeatedly.
set -eu
if ! command -v bwrap >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq bubblewrap
fi
bwrap --version
# the check needs the dynamic loader: /lib and /lib64 as the system has them (links into /usr, or folders)
links=""
for link in /bin /lib /lib64; do
    if [ -L "$link" ]; then links="$links --symlink $(readlink "$link") $link"
    elif [ -d "$link" ]; then links="$links --ro-bind $link $link"; fi
done
# shellcheck disable=SC2086
bwrap --unshare-all --unshare-user --ro-bind /usr /usr $links --proc /proc --dev /dev /usr/bin/true || {
    echo "bwrap cannot create its namespaces here (unprivileged user namespaces disabled?); plug-ins need" \
         "it, or --trust-plugin" >&2
    exit 1
}
