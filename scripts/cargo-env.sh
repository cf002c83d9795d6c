# Sourced by the other scripts: puts cargo-installed tools on PATH. rustup's env file may not be
# sourced in CI shells.
if [ -f "$HOME/.cargo/env" ]; then
  # shellcheck disable=SC1091
  . "$HOME/.cargo/env"
fi
case ":$PATH:" in *":$HOME/.cargo/bin:"*) ;; *) export PATH="$HOME/.cargo/bin:$PATH" ;; esac
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
