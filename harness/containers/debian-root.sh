# shellcheck shell=bash
# Sourced, not run: the debootstrap steps shared by harness/containers/build-image (the Prosody
# image) and integration/clean-root/make-root (a fresh machine's root). Every function prints one
# sentence to stderr and returns non-zero on failure; the caller decides whether that ends it.
#
#   debian_root_ensure_debootstrap              installs debootstrap with apt-get when missing
#   debian_root_codename                        the host's release (bookworm)
#   debian_root_host_sources RELEASE            the host's Debian source lines, one-line format
#   debian_root_mirror RELEASE SOURCES_FILE     the first of them serving the release itself
#   debian_root_bootstrap RELEASE ROOTFS MIRROR minbase debootstrap, its log shown only on failure
#   debian_root_prepare ROOTFS SOURCES_FILE     sources, services refused, host resolver, /proc
#   debian_root_in ROOTFS COMMAND...            a command in ROOTFS with a minimal environment
#   debian_root_apt_install ROOTFS PACKAGE...   apt-get update + install, its log shown on failure
#   debian_root_finish ROOTFS                   undoes prepare and empties the caches and logs
#   debian_root_unmount ROOTFS                  for traps: every mount prepare made, lazily

debian_root_ensure_debootstrap() {
  command -v debootstrap >/dev/null && return 0
  local apt=(apt-get -qq -o DPkg::Lock::Timeout=300) log
  local install=(env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y --no-install-recommends debootstrap)
  log="$(mktemp)"
  if ! { "${install[@]}" || { "${apt[@]}" update && "${install[@]}"; }; } >"$log" 2>&1; then
    tail -20 "$log" >&2
    rm -f "$log"
    echo "installing debootstrap with apt-get failed" >&2
    return 1
  fi
  rm -f "$log"
}

debian_root_codename() {
  local codename
  # shellcheck disable=SC1091
  codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
  [ -n "$codename" ] || { echo "cannot tell the Debian release from /etc/os-release" >&2; return 1; }
  echo "$codename"
}

# One-line `deb URI SUITE COMPONENTS` entries and deb822 stanzas, kept when their suite is the
# release or its -updates/-security companions: third-party repositories (another vendor's Node.js,
# a cloud SDK) are left out, as a fresh Debian machine does not have them.
debian_root_host_sources() {
  local release="$1"
  # shellcheck disable=SC2046
  awk -v release="$release" '
    function wanted(suite) { return suite == release || suite == release "-updates" || suite == release "-security" }
    FNR == 1 { flush() }
    FILENAME ~ /\.list$/ {
      if ($1 != "deb") next
      i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
      line = "deb " $i " " $(i + 1); for (k = i + 2; k <= NF && $k !~ /^#/; k++) line = line " " $k
      if (wanted($(i + 1))) print line
      next
    }
    # deb822 (.sources): stanzas separated by blank lines
    /^[ \t]*$/ { flush(); next }
    /^Types:/ { types = $0 } /^URIs:/ { uris = $2 } /^Suites:/ { suites = $0 }
    /^Components:/ { comps = $0; sub(/^Components:[ \t]*/, "", comps) }
    /^Enabled:[ \t]*no/ { disabled = 1 }
    function flush(   n, parts, k) {
      if (uris != "" && types ~ /(^|[ \t])deb([ \t]|$)/ && !disabled) {
        n = split(suites, parts, /[ \t]+/)
        for (k = 2; k <= n; k++) if (wanted(parts[k])) print "deb " uris " " parts[k] " " (comps == "" ? "main" : comps)
      }
      types = ""; uris = ""; suites = ""; comps = ""; disabled = 0
    }
    END { flush() }
  ' $(ls /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null) \
    | awk '!seen[$0]++'
}

debian_root_mirror() {
  local release="$1" sources="$2" mirror
  mirror="$(awk -v release="$release" '$3 == release { print $2; exit }' "$sources")"
  [ -n "$mirror" ] || { echo "no Debian mirror for $release found in /etc/apt/sources.list*" >&2; return 1; }
  echo "$mirror"
}

debian_root_bootstrap() {
  local release="$1" rootfs="$2" mirror="$3" log
  log="$(mktemp)"
  chmod 755 "$rootfs"
  if ! debootstrap --variant=minbase "$release" "$rootfs" "$mirror" >"$log" 2>&1; then
    tail -30 "$log" >&2
    rm -f "$log"
    echo "debootstrap of $release from $mirror failed" >&2
    return 1
  fi
  rm -f "$log"
}

# The host's apt settings are copied too, for the build only: a mirror may need them (an expired
# snapshot's Release file, a proxy). Their names are kept in DEBIAN_ROOT_COPIED_CONF for
# debian_root_finish, so prepare and finish run in the same shell.
debian_root_prepare() {
  local rootfs="$1" sources="$2" conf name
  # No service may start inside the root while packages are installed.
  printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
  chmod 755 "$rootfs/usr/sbin/policy-rc.d"
  cp "$sources" "$rootfs/etc/apt/sources.list"
  cp -L /etc/resolv.conf "$rootfs/etc/resolv.conf"
  cp /etc/hosts "$rootfs/etc/hosts"
  DEBIAN_ROOT_COPIED_CONF=""
  for conf in /etc/apt/apt.conf.d/*; do
    name="$(basename "$conf")"
    [ -e "$rootfs/etc/apt/apt.conf.d/$name" ] && continue
    cp "$conf" "$rootfs/etc/apt/apt.conf.d/$name" && DEBIAN_ROOT_COPIED_CONF="$DEBIAN_ROOT_COPIED_CONF $name"
  done
  mount -t proc proc "$rootfs/proc"
}

debian_root_in() {
  local rootfs="$1"
  shift
  chroot "$rootfs" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"
}

debian_root_apt_install() {
  local rootfs="$1" log
  shift
  log="$(mktemp)"
  if ! { debian_root_in "$rootfs" apt-get update -qq && debian_root_in "$rootfs" apt-get install -y -qq --no-install-recommends "$@"; } >"$log" 2>&1; then
    tail -30 "$log" >&2
    rm -f "$log"
    echo "installing $* failed" >&2
    return 1
  fi
  rm -f "$log"
}

# What only served the build goes: host files, package lists, caches, the policy. The sources stay,
# so that apt-get in the root reaches the same mirror later.
debian_root_finish() {
  local rootfs="$1" name
  umount "$rootfs/proc"
  for name in ${DEBIAN_ROOT_COPIED_CONF:-}; do rm -f "$rootfs/etc/apt/apt.conf.d/$name"; done
  rm -f "$rootfs/usr/sbin/policy-rc.d" "$rootfs/etc/resolv.conf"
  printf '127.0.0.1 localhost\n' >"$rootfs/etc/hosts"
  debian_root_in "$rootfs" apt-get clean
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/log/* "$rootfs"/tmp/*
}

debian_root_unmount() {
  local rootfs="$1" mounted
  for mounted in proc dev/pts dev sys; do umount -l "$rootfs/$mounted" 2>/dev/null || true; done
}
