# Sourced by bootstrap.sh and image.sh: install_image_tools puts in place what the relay's static
# binary and image need, skipping what is there: the musl target; musl-gcc for the C inside (ring,
# SQLite); Debian's CA bundle, which the image carries; and podman, which builds the FROM scratch
# image without a daemon and can run it. An engine that already answers (podman, buildah or a
# docker daemon) is kept. The caller defines `say` and `die`.
# shellcheck source=scripts/apt.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt.sh"

install_image_tools() {
  if rustup target list --installed | grep -qx 'x86_64-unknown-linux-musl'; then
    say "rust target x86_64-unknown-linux-musl: present"
  else
    say "rust target x86_64-unknown-linux-musl: installing"
    rustup target add x86_64-unknown-linux-musl
  fi
  local packages=()
  command -v musl-gcc >/dev/null 2>&1 || packages+=(musl-tools)
  [ -s /etc/ssl/certs/ca-certificates.crt ] || packages+=(ca-certificates)
  if ! command -v podman >/dev/null 2>&1 && ! command -v buildah >/dev/null 2>&1 \
     && ! { command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; }; then
    packages+=(podman)
  fi
  if [ ${#packages[@]} -eq 0 ]; then
    say "musl-tools, ca-certificates, a container engine: present"
  else
    say "${packages[*]}: installing with apt-get"
    apt_install "${packages[@]}"
    command -v musl-gcc >/dev/null 2>&1 || die "apt-get did not provide musl-gcc"
  fi
}
