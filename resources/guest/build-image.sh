#!/usr/bin/env bash
# The offline builder of the guest image's BASE, without any container registry:
#   debootstrap (minbase) a Debian root filesystem with packages.txt from the HOST's own apt mirror,
#   then `docker import` it with the container defaults (Cmd, Env, WorkingDir) baked in.
# Cortex's own layer (./Dockerfile: Node, npm, corepack as files) is then built FROM this base by
# src/main/guest/environment/ (`docker build --network none`), as on the online builder's base.
# Usage: bash resources/guest/build-image.sh <base-tag>   e.g. cortex-guest-base:0123456789ab
# The tag is normally computed by src/main/guest/environment/recipe.ts from this recipe.
# Env: CORTEX_APT_MIRROR overrides the mirror; CORTEX_GUEST_SUITE overrides the suite (bookworm).
# Needs root (debootstrap), debootstrap, tar and a docker CLI that reaches the engine.
set -euo pipefail

TAG="${1:-}"
if [ -z "$TAG" ]; then
  echo "usage: build-image.sh <base-image-tag>   (normally run by 'cortex guest build', which computes the tag from this recipe)" >&2
  exit 2
fi
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SUITE="${CORTEX_GUEST_SUITE:-$(sed -n 's/^# suite: *//p' "$HERE/packages.txt" | head -n1)}"
SUITE="${SUITE:-bookworm}"
PACKAGES="$(grep -v '^[[:space:]]*#' "$HERE/packages.txt" | tr -s '[:space:]' '\n' | sed '/^$/d' | paste -sd, -)"

step() { echo "==> $*"; }

# The mirror comes from the host's apt configuration; no package host is named in this repository.
find_mirror() {
  local uri=""
  if [ -f /etc/apt/sources.list ]; then
    uri="$(awk -v s="$SUITE" '$1=="deb" { i=2; if ($2 ~ /^\[/) { while (i<=NF && $i !~ /\]$/) i++; i++ } if ($(i+1)==s) { print $i; exit } }' /etc/apt/sources.list)"
  fi
  if [ -z "$uri" ]; then
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] || continue
      uri="$(awk -v s="$SUITE" 'BEGIN { RS=""; FS="\n" }
        { u=""; ok=0
          for (k=1; k<=NF; k++) {
            line=$k; if (line ~ /^#/) continue
            if (line ~ /^URIs:/) { sub(/^URIs:[ \t]*/, "", line); split(line, a, /[ \t]+/); u=a[1] }
            if (line ~ /^Suites:/) { sub(/^Suites:[ \t]*/, "", line); n=split(line, b, /[ \t]+/); for (j=1; j<=n; j++) if (b[j]==s) ok=1 }
          }
          if (ok && u != "") { print u; exit } }' "$f")"
      [ -n "$uri" ] && break
    done
  fi
  echo "$uri"
}

MIRROR="${CORTEX_APT_MIRROR:-$(find_mirror)}"
if [ -z "$MIRROR" ]; then
  echo "no apt mirror for suite '$SUITE' found in /etc/apt/sources.list or /etc/apt/sources.list.d/*.sources; set CORTEX_APT_MIRROR" >&2
  exit 3
fi
command -v debootstrap >/dev/null || { echo "debootstrap is not installed (apt-get install -y debootstrap)" >&2; exit 4; }
command -v docker >/dev/null || { echo "docker CLI not found" >&2; exit 4; }

WORK="$(mktemp -d /var/tmp/cortex-guest-rootfs.XXXXXX)"
cleanup() { rm -rf --one-file-system "$WORK"; }
trap cleanup EXIT
ROOT="$WORK/rootfs"
START=$(date +%s)

step "debootstrap $SUITE (minbase) with: $PACKAGES"
debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOT" "$MIRROR"

step "trimming the root filesystem"
rm -rf "$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/lib/apt/lists/* "$ROOT"/usr/share/doc/* "$ROOT"/usr/share/man/*
mkdir -p "$ROOT/opt/cortex" "$ROOT/home/cortex"

step "checking tools inside the root filesystem"
chroot "$ROOT" /bin/sh -c 'git --version && rg -V && python3 --version && make --version | head -n1 && gcc --version | head -n1 && jq --version'

step "docker import -> $TAG"
tar -C "$ROOT" --numeric-owner -c . | docker import \
  --change 'CMD ["sleep", "infinity"]' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8' \
  --change 'WORKDIR /' \
  --change 'LABEL dev.cortex.guest-image=1' \
  --message "cortex guest base ($SUITE)" \
  - "$TAG"

step "built $TAG in $(( $(date +%s) - START ))s"
