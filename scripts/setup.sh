#!/usr/bin/env bash
# Installs what hyrax needs on Debian 12 (bookworm), only what is missing. Idempotent.
# (postgresql-client-15: psql, which the server test runs against `hyrax serve`; openjdk-17-jdk and
# curl: javac/java and the pgjdbc jar for the JDBC test; memcached: the peer of `hyrax-bench kv`,
# which starts its own instance on a free loopback port and stops it, never the system's service.)
set -euo pipefail
packages=(build-essential cmake ninja-build ccache pkg-config llvm-19-dev libfmt-dev libboost-dev postgresql-client-15
          libboost-program-options-dev catch2 libpqxx-dev libedit-dev python3-pip libsqlite3-dev
          postgresql-15 clang libclang-rt-14-dev libssl-dev openjdk-17-jdk-headless curl memcached)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# tpchgen-cli (dbgen-identical TPC-H data) for the TPC-H tests and bench, into .tools/ of this
# checkout: a prebuilt wheel from PyPI where there is one, else built from crates.io.
tools="$(cd "$(dirname "$0")/.." && pwd)/.tools"
if [ ! -x "$tools/bin/tpchgen-cli" ]; then
  echo "setup: installing tpchgen-cli into $tools"
  mkdir -p "$tools/bin"
  if python3 -m pip install -q --disable-pip-version-check --target "$tools/tpchgen" tpchgen-cli 2>/dev/null &&
     [ -x "$tools/tpchgen/bin/tpchgen-cli" ]; then
    ln -sf "$tools/tpchgen/bin/tpchgen-cli" "$tools/bin/tpchgen-cli"
  elif command -v cargo >/dev/null; then
    cargo install -q --root "$tools" tpchgen-cli
  else
    echo "setup: cannot install tpchgen-cli (no wheel for this platform and no cargo)" >&2
    exit 1
  fi
fi

# The PostgreSQL drivers the server's client tests use (server/test/psycopg_test.py,
# server/test/JdbcTest.java): psycopg 3 from PyPI, pgjdbc's jar from Maven Central.
psycopg_version=3.3.9
if [ ! -f "$tools/psycopg/psycopg-$psycopg_version.dist-info/METADATA" ]; then
  echo "setup: installing psycopg $psycopg_version into $tools/psycopg"
  rm -rf "$tools/psycopg"
  python3 -m pip install -q --disable-pip-version-check --target "$tools/psycopg" "psycopg[binary]==$psycopg_version"
fi
pgjdbc_version=42.7.14
if [ ! -f "$tools/jdbc/postgresql-$pgjdbc_version.jar" ]; then
  echo "setup: fetching pgjdbc $pgjdbc_version into $tools/jdbc"
  mkdir -p "$tools/jdbc"
  curl -fsSL -o "$tools/jdbc/postgresql-$pgjdbc_version.jar.part" \
    "https://repo1.maven.org/maven2/org/postgresql/postgresql/$pgjdbc_version/postgresql-$pgjdbc_version.jar"
  mv "$tools/jdbc/postgresql-$pgjdbc_version.jar.part" "$tools/jdbc/postgresql-$pgjdbc_version.jar"
fi
