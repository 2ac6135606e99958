#!/usr/bin/env bash
# Installs what hyrax needs on Debian 12 (bookworm), only what is missing. Idempotent.
set -euo pipefail
packages=(build-essential cmake ninja-build ccache pkg-config llvm-19-dev libfmt-dev libboost-dev
          libboost-program-options-dev catch2 libpqxx-dev libedit-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "setup: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
