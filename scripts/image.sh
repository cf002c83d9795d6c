#!/usr/bin/env bash
# `npm run image`: the relay's release artefacts.
#   1. the static binary (musl):  target/x86_64-unknown-linux-musl/release/koder-elicitation-relay
#   2. the binary alone, for hosts without containers:
#        target/dist/koder-elicitation-relay-<version>-x86_64-unknown-linux-musl.tar.gz (+ .sha256)
#   3. the image koder-elicitation-relay:<version> (crates/relay/Containerfile, FROM scratch), built
#      with the first of podman, buildah or docker that works here; its context is staged in
#      target/relay-image/context.
#
#   bash scripts/image.sh                    all three; no container engine is an error (exit 1)
#   bash scripts/image.sh --allow-no-engine  the same, but without an engine it stops after 2 (exit 0)
#
# Environment:
#   CONTAINER_ENGINE  podman, buildah or docker: use this one instead of the first found
#   IMAGE_SOURCE      the image's org.opencontainers.image.source (default: the clone's origin URL)
# On a bare machine it first installs what it needs, skipping what is there (scripts/image-tools.sh):
# the x86_64-unknown-linux-musl target, musl-gcc (Debian's musl-tools: ring and SQLite are C), the TLS
# roots at /etc/ssl/certs/ca-certificates.crt (Debian's ca-certificates) and podman when no container
# engine is there (apt-get: root, or sudo without a prompt).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/cargo-env.sh
. "$ROOT/scripts/cargo-env.sh"

say() { printf 'image: %s\n' "$*"; }
die() { printf 'image: ERROR: %s\n' "$*" >&2; exit 1; }

ALLOW_NO_ENGINE=""
case "${1:-}" in
  "") ;;
  --allow-no-engine) ALLOW_NO_ENGINE=yes ;;
  *) die "unknown argument $1 (only --allow-no-engine is accepted)" ;;
esac

TARGET=x86_64-unknown-linux-musl
NAME=koder-elicitation-relay
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
VERSION="$(sed -n 's/^version = "\(.*\)"$/\1/p' crates/relay/Cargo.toml | head -n1)"
[ -n "$VERSION" ] || die "no version in crates/relay/Cargo.toml"

# shellcheck source=scripts/image-tools.sh
. "$ROOT/scripts/image-tools.sh"
install_image_tools
rustup target list --installed | grep -qx "$TARGET" || die "the $TARGET target is still missing"
[ -s "$CA_BUNDLE" ] || die "no TLS roots at $CA_BUNDLE: apt-get install ca-certificates"

# 1. The static binary --------------------------------------------------------------------------
say "building the static binary ($TARGET, release)"
build_start=$SECONDS
CC_x86_64_unknown_linux_musl=musl-gcc \
  cargo build --release --locked --target "$TARGET" -p "$NAME" --bin "$NAME"
BINARY="target/$TARGET/release/$NAME"
say "$BINARY: $(stat -c %s "$BINARY") bytes, cargo took $((SECONDS - build_start))s"

# 2. The tarball and its checksum ---------------------------------------------------------------
RELEASE="$NAME-$VERSION-$TARGET"
mkdir -p target/dist
staging="$(mktemp -d)"
trap 'rm -rf "$staging"' EXIT
mkdir "$staging/$RELEASE"
cp "$BINARY" "$staging/$RELEASE/$NAME"
cp LICENSE "$staging/$RELEASE/LICENSE"
cp crates/relay/README.md "$staging/$RELEASE/README.md"
# Same bytes for the same binary: no owner, fixed times, sorted names.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='2000-01-01 00:00Z' \
  -C "$staging" -cf - "$RELEASE" | gzip -n -9 >"target/dist/$RELEASE.tar.gz"
(cd target/dist && sha256sum "$RELEASE.tar.gz" >"$RELEASE.tar.gz.sha256")
say "target/dist/$RELEASE.tar.gz: $(stat -c %s "target/dist/$RELEASE.tar.gz") bytes (checksum beside it)"

# 3. The image ----------------------------------------------------------------------------------
CONTEXT=target/relay-image/context
rm -rf "$CONTEXT"
mkdir -p "$CONTEXT/answer-assets" "$CONTEXT/data"
cp "$BINARY" "$CONTEXT/$NAME"
cp "$CA_BUNDLE" "$CONTEXT/ca-certificates.crt"
printf 'relay:x:65532:65532:koder-elicitation-relay:/var/lib/koder-elicitation-relay:/nonexistent\n' >"$CONTEXT/passwd"
printf 'relay:x:65532:\n' >"$CONTEXT/group"
if [ -f dist/koder-mcp-elicitation.js ]; then
  cp -R dist/. "$CONTEXT/answer-assets/"
else
  say "dist/ is not built (node scripts/build.mjs): the image carries no answer page files"
fi

engine_works() {
  case "$1" in
    podman | buildah) command -v "$1" >/dev/null 2>&1 && "$1" info >/dev/null 2>&1 ;;
    # A docker client without a daemon is common: only a daemon that answers counts.
    docker) command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1 ;;
    *) return 1 ;;
  esac
}
ENGINE=""
if [ -n "${CONTAINER_ENGINE:-}" ]; then
  engine_works "$CONTAINER_ENGINE" || die "CONTAINER_ENGINE=$CONTAINER_ENGINE does not work here"
  ENGINE="$CONTAINER_ENGINE"
else
  for candidate in podman buildah docker; do
    if engine_works "$candidate"; then
      ENGINE="$candidate"
      break
    fi
  done
fi
if [ -z "$ENGINE" ]; then
  message="no container engine works here (podman, buildah or docker): the image was not built; its context is in $CONTEXT"
  [ -n "$ALLOW_NO_ENGINE" ] || die "$message"
  say "$message"
  exit 0
fi

SOURCE="${IMAGE_SOURCE:-$(git config --get remote.origin.url 2>/dev/null || true)}"
# A URL with a user or password in it stays out of the label.
SOURCE="$(printf '%s' "$SOURCE" | sed -E 's#^(https?://)[^/@]*@#\1#')"
[ -n "$SOURCE" ] || SOURCE="koder-mcp-elicitation (crates/relay)"
REVISION="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
IMAGE="$NAME:$VERSION"
build_args=(--build-arg "VERSION=$VERSION" --build-arg "SOURCE=$SOURCE" --build-arg "REVISION=$REVISION")
# The image this tag named before: removed once the tag moves, so rebuilds leave no unnamed images.
previous="$("$ENGINE" images -q "$IMAGE" 2>/dev/null | head -n1 || true)"
say "building $IMAGE with $ENGINE"
case "$ENGINE" in
  buildah) buildah bud --isolation chroot -f crates/relay/Containerfile -t "$IMAGE" "${build_args[@]}" "$CONTEXT" ;;
  # podman keeps no intermediate images (buildah keeps none by default; docker has no such flag).
  podman) podman build --layers=false -f crates/relay/Containerfile -t "$IMAGE" "${build_args[@]}" "$CONTEXT" ;;
  *) "$ENGINE" build -f crates/relay/Containerfile -t "$IMAGE" "${build_args[@]}" "$CONTEXT" ;;
esac
current="$("$ENGINE" images -q "$IMAGE" | head -n1)"
if [ -n "$previous" ] && [ "$previous" != "$current" ]; then
  "$ENGINE" rmi "$previous" >/dev/null 2>&1 || true
fi
say "built $IMAGE with $ENGINE ($("$ENGINE" images --format '{{.Size}}' "$IMAGE" | head -n1))"
