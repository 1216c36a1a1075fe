#!/usr/bin/env bash
# Installs the servers the store tests run against: redis-server, PostgreSQL and MariaDB
# (Debian/Ubuntu), what the MariaDB/MySQL driver (mysqlclient) needs to build: the
# MariaDB client library's headers, pkg-config and a C compiler, and headless Chromium with
# its driver for the browser tests of the cashier's screen.
#
#   sudo bash .ci/install-servers.sh
#
# Idempotent: installs only what is missing (apt-get update first, non-interactive), and makes
# sure the unprivileged "postgres" and "mysql" system users exist, as PostgreSQL refuses to run
# as root and MariaDB's tests run it as "mysql" when started by root.
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

have_mariadbd() {
    command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ]
}

have_mariadb_install_db() {
    command -v mariadb-install-db >/dev/null 2>&1 || [ -x /usr/bin/mariadb-install-db ]
}

packages=()
command -v redis-server >/dev/null 2>&1 || packages+=(redis-server)
have_initdb || packages+=(postgresql)
{ have_mariadbd && have_mariadb_install_db; } || packages+=(mariadb-server)
# mysqlclient's build: libmariadb's headers and .pc file, pkg-config, a compiler.
pkg-config --exists libmariadb 2>/dev/null || packages+=(libmariadb-dev)
command -v pkg-config >/dev/null 2>&1 || packages+=(pkg-config)
command -v cc >/dev/null 2>&1 || packages+=(gcc libc6-dev)
# The browser tests of the cashier's screen: headless Chromium driven by selenium.
command -v chromium >/dev/null 2>&1 || packages+=(chromium)
command -v chromedriver >/dev/null 2>&1 || packages+=(chromium-driver)

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
    echo "install-servers: redis-server, PostgreSQL, MariaDB and Chromium are already installed"
fi

if ! id -u postgres >/dev/null 2>&1; then
    echo "install-servers: creating the system user postgres"
    "${SUDO[@]}" useradd --system --user-group --no-create-home \
        --shell /usr/sbin/nologin postgres
fi

if ! id -u mysql >/dev/null 2>&1; then
    echo "install-servers: creating the system user mysql"
    "${SUDO[@]}" useradd --system --user-group --no-create-home \
        --shell /usr/sbin/nologin mysql
fi

command -v redis-server >/dev/null 2>&1 || { echo "install-servers: redis-server missing" >&2; exit 1; }
have_initdb || { echo "install-servers: initdb/pg_ctl missing" >&2; exit 1; }
{ have_mariadbd && have_mariadb_install_db; } || {
    echo "install-servers: mariadbd/mariadb-install-db missing" >&2; exit 1; }
pkg-config --exists libmariadb || { echo "install-servers: libmariadb-dev missing" >&2; exit 1; }
