# Sourced by the other scripts: puts cargo-installed tools on PATH. rustup's env file may not be
# sourced in CI shells. Honours CARGO_HOME, where `cargo install` puts them.
CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
if [ -f "${CARGO_HOME:-$HOME/.cargo}/env" ]; then
  # shellcheck disable=SC1091
  . "${CARGO_HOME:-$HOME/.cargo}/env"
fi
case ":$PATH:" in *":$CARGO_BIN:"*) ;; *) export PATH="$CARGO_BIN:$PATH" ;; esac
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
