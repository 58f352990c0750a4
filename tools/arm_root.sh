#!/usr/bin/env bash
# Makes (once) a Debian bookworm root for an Arm architecture, with Debian's own Python 3, numpy and cffi, to
# run deploy bundles in under qemu through binfmt: the device's side of tests/deploy/test_emulated.py.
#   sudo tools/arm_root.sh arm64 /var/cache/rillet-arm/arm64-bookworm     (or armhf)
# Needs root and `apt install qemu-user-static binfmt-support debootstrap`. An existing root is reused (keep
# it outside the checkout: debootstrap takes 4-8 minutes); a half-made one (DIR.tmp) is started over.
set -euo pipefail
arch="$1"
root="$2"
qemu=$(case "$arch" in arm64) echo qemu-aarch64 ;; armhf) echo qemu-arm ;; *) echo "arm_root.sh: arm64 or armhf, not $arch" >&2; exit 2 ;; esac)

# binfmt_misc lets the kernel hand the root's Arm binaries to qemu (the F flag opens qemu once, so it works
# inside the chroot too).
if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
fi
update-binfmts --enable "$qemu"

if [ -x "$root/usr/bin/python3" ]; then
    echo "arm_root.sh: reusing $root"
    exit 0
fi
rm -rf "$root.tmp"
mkdir -p "$(dirname "$root")"
debootstrap --arch="$arch" --variant=minbase \
    --include=python3,python3-numpy,python3-ply,python3-cffi,python3-venv bookworm "$root.tmp" >"$root.log" 2>&1 \
    || { tail -20 "$root.log" >&2; exit 1; }
mv "$root.tmp" "$root"
echo "arm_root.sh: made $root"
