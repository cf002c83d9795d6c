# Sourced by the scripts that install Debian packages (bootstrap.sh, image-tools.sh): apt_install
# PACKAGE... as root, or through sudo without a prompt. The caller defines `die`.
apt_install() {
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "need root or sudo to apt-get install $*"
    sudo="sudo -n"
  fi
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" </dev/null
}
