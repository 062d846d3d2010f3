#!/usr/bin/env bash
# A PostgreSQL server with pgvector beside the machine's own, for the tests and benchmarks of
# VECTOR_INDEX=pgvector (DESIGN §5). Debian 12's PostgreSQL has no pgvector package, so pgvector is
# built from Debian's own source package (trixie's 0.8.0, its checksum pinned below) against the
# machine's server headers, and installed into a copy of the server's installation: PostgreSQL finds
# its libraries and extensions relative to its binaries, so the machine's own server keeps running
# without pgvector, as the rest of the suite expects.
#
# Usage (as root): scripts/pgvector-server.sh [port]   (5433 by default; idempotent)
# Then: DATABASE_URL=postgres://postgres@127.0.0.1:<port>/postgres
set -euo pipefail

port=${1:-5433}
root=${PGVECTOR_SERVER_DIR:-/var/tmp/parley-pgvector}
version=0.8.0
tarball=pgvector_${version}.orig.tar.gz
sha256=867a2c328d4928a5a9d6f052cd3bc78c7d60228a9b914ad32aa3db88e9de27b0
source_url=http://deb.debian.org/debian/pool/main/p/pgvector/$tarball

major=$(ls /usr/lib/postgresql | sort -n | tail -1)
install=$root/install
bin=$install/lib/postgresql/$major/bin

# Whether a server answers on the port and offers pgvector.
serving_pgvector() {
  [ -x "$bin/psql" ] && [ "$("$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -Atqc \
    "SELECT count(*) FROM pg_available_extensions WHERE name = 'vector'" postgres 2>/dev/null)" = 1 ]
}

serving_pgvector && exit 0

if [ ! -f "$install/lib/postgresql/$major/lib/vector.so" ]; then
  if [ ! -f "/usr/include/postgresql/$major/server/postgres.h" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-server-dev-$major" >/dev/null
  fi
  build=$(mktemp -d)
  curl -fsSL --retry 3 -o "$build/$tarball" "$source_url"
  echo "$sha256  $build/$tarball" | sha256sum -c --quiet
  tar xzf "$build/$tarball" -C "$build"
  make -s -C "$build/pgvector-$version" PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config" with_llvm=no >/dev/null

  rm -rf "$install"
  mkdir -p "$install/lib/postgresql" "$install/share/postgresql"
  cp -a "/usr/lib/postgresql/$major" "$install/lib/postgresql/"
  cp -a "/usr/share/postgresql/$major" "$install/share/postgresql/"
  cp "$build/pgvector-$version/vector.so" "$install/lib/postgresql/$major/lib/"
  cp "$build/pgvector-$version/vector.control" "$build/pgvector-$version"/sql/vector--*.sql \
    "$install/share/postgresql/$major/extension/"
  rm -rf "$build"
fi

data=$root/data
if [ ! -f "$data/PG_VERSION" ]; then
  rm -rf "$data"
  mkdir -p "$data"
  chown postgres "$data"
  runuser -u postgres -- "$bin/initdb" -D "$data" -A trust -U postgres >/dev/null
  # A throw-away server for tests and benchmarks: durability is not what it is for.
  cat >>"$data/postgresql.conf" <<EOF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$data'
max_connections = 200
shared_buffers = 512MB
maintenance_work_mem = 1GB
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
fi
touch "$root/server.log"
chown postgres "$root/server.log"
runuser -u postgres -- "$bin/pg_ctl" -D "$data" -l "$root/server.log" -w start >/dev/null
serving_pgvector
