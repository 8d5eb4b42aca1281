#!/bin/sh
# Runs a command with an exFAT card image mounted, in a mount namespace of its
# own (the mount is seen by nothing else and goes when the command ends), for
# the `copy` tests: a player's card as it is formatted, where these machines'
# kernels have no vfat or exfat: the FUSE driver (Debian's exfat-fuse) on a loop
# device. Needs root.
#
# Usage: with-exfat-card.sh IMAGE DIR COMMAND [ARG...]
#   IMAGE  a file made by mkfs.exfat (exfatprogs)
#   DIR    where the card is mounted while COMMAND runs
# Exits with COMMAND's status (or 70 when the card could not be mounted).
set -eu
if [ -z "${FEEDSH_CARD_NAMESPACE:-}" ]; then
    FEEDSH_CARD_NAMESPACE=1 exec unshare --mount --propagation private "$0" "$@"
fi
image=$1
dir=$2
shift 2
loop=$(losetup --find --show "$image") || exit 70
cleanup() {
    umount "$dir" 2>/dev/null || true
    losetup --detach "$loop" 2>/dev/null || true
}
trap cleanup EXIT
mount.exfat-fuse "$loop" "$dir" >/dev/null 2>&1 || exit 70
status=0
"$@" || status=$?
exit "$status"
