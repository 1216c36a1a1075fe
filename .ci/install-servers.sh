#!/usr/bin/env bash
# Installs the servers the store tests run against: redis-server and PostgreSQL (Debian/Ubuntu).
#
#   sudo bash .ci/install-servers.sh
#
# Idempotent: installs only what is missing (apt-get update first, non-interactive), and makes
# sure the unprivileged "postgres" system user exists, as PostgreSQL refuses to run as root.
# The tests start their own servers on loopback and ephemeral ports; a service the packages
# may have started on the default ports is not used.
set -euo pipefail

if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
else
    echo "install-servers: run as root or install sudo" >&2
    exit 1
fi

have_initdb() {
    command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1 && return 0
    local bin
    for bin in /usr/lib/postgresql/*/bin; do
        [ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ] && return 0
    done
    return 1
}

packages=()
command -v redis-server >/dev/null 2>&1 || packages+=(redis-server)
have_initdb || packages+=(postgresql)

if [ "${#packages[@]}" -gt 0 ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "install-servers: apt-get not found; install ${packages[*]} by hand" >&2
        exit 1
    fi
    echo "install-servers: installing ${packages[*]}"
    export DEBIAN_FRONTEND=noninteractive
    "${SUDO[@]}" apt-get update -q
    "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${packages[@]}"
else
    echo "install-servers: redis-server and PostgreSQL are already installed"
fi

if ! id -u postgres >/dev/null 2>&1; then
    echo "install-servers: creating the system user postgres"
    "${SUDO[@]}" useradd --system --user-group --no-create-home \
        --shell /usr/sbin/nologin postgres
fi

command -v redis-server >/dev/null 2>&1 || { echo "install-servers: redis-server missing" >&2; exit 1; }
have_initdb || { echo "install-servers: initdb/pg_ctl missing" >&2; exit 1; }
