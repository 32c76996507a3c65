#!/usr/bin/env bash
# Installs what Hail needs to build, test and run, and only what is missing.
#   Debian/Ubuntu: apt-get installs the system packages below (as root, or through sudo).
#   macOS:         prints the Homebrew line to run; Xcode's Swift 6.1 or later is the toolchain.
# Prints the directory holding `swift` on its last line, so callers can put it on PATH.
set -euo pipefail

# System packages by platform. Each C library the package links sits behind one C* target;
# add its Debian and Homebrew names here when a target needs it. Chromium, its driver and Selenium are for the
# tests that load the web pages in a real browser (headless); on macOS those tests run when Chrome or Chromium
# is installed. libjs-leaflet is the web-map library of the operator's console, which `hail server` serves from
# /usr/share/javascript/leaflet (never committed here, never fetched from a CDN). redis-tools brings
# redis-benchmark, the reference `hail bench baseline` measures against.
# libcurl4-openssl-dev (HTTP/2 through nghttp2) and libssl-dev are the APNs sender's (CCurl); python3-h2 and
# python3-cryptography run the APNs stand-in of the push tests (Tests/APNs/apns_standin.py). python3-venv makes the
# virtual environment scripts/contract.sh installs schemathesis into; prometheus brings promtool, which checks the
# live /metrics output and the alerting rules in deploy/prometheus/. wrk and nginx are `hail bench edge`'s: the
# outside load generator, and the fixed-200 reference it measures Hail against (a throwaway nginx of its own on a
# free port; the package's system service is not used). nginx is also the TLS front TLSFrontTests runs
# (deploy/nginx/hail.conf), with openssl making its certificates, curl probing it, and util-linux's unshare giving
# the apps a trust store holding the test's CA; libssl-dev is HailNet's too (wss://, and why a certificate failed).
DEBIAN_PACKAGES=(git make pkg-config libsqlite3-dev libwebsockets-dev libwebsockets-evlib-ev libev-dev zlib1g-dev
    libpq-dev libhiredis-dev libcurl4-openssl-dev libssl-dev chromium chromium-driver python3-selenium python3-venv
    libjs-leaflet redis-tools python3-h2 python3-cryptography prometheus wrk nginx openssl curl util-linux)
BREW_PACKAGES=(pkg-config sqlite libwebsockets libev zlib libpq hiredis curl openssl@3 prometheus wrk nginx)

say() { printf 'setup: %s\n' "$*" >&2; }

find_swift() {
    if command -v swift >/dev/null 2>&1; then dirname "$(command -v swift)"; return 0; fi
    for dir in /opt/swift/usr/bin /usr/share/swift/usr/bin "$HOME/.swiftly/bin"; do
        if [ -x "$dir/swift" ]; then echo "$dir"; return 0; fi
    done
    return 1
}

case "$(uname -s)" in
Darwin)
    if [ ${#BREW_PACKAGES[@]} -gt 0 ]; then
        missing=()
        for pkg in "${BREW_PACKAGES[@]}"; do
            brew list --versions "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
        done
        if [ ${#missing[@]} -gt 0 ]; then
            say "missing Homebrew packages; run:  brew install ${missing[*]}"
            exit 1
        fi
    fi
    ;;
Linux)
    missing=()
    for pkg in "${DEBIAN_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing Debian packages: ${missing[*]}"
        sudo_cmd=()
        [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
        export DEBIAN_FRONTEND=noninteractive
        "${sudo_cmd[@]}" apt-get update -qq >&2
        "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
    fi
    ;;
*)
    say "unsupported system $(uname -s); Hail builds on Debian/Ubuntu Linux and macOS"
    exit 1
    ;;
esac

if ! swift_dir=$(find_swift); then
    say "no Swift toolchain found. Install Swift 6.1 or later (https://www.swift.org/install/) and put it on PATH."
    exit 1
fi
echo "$swift_dir"
