# SPDX-FileCopyrightText: 2026 AsyncSparse contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Shared shell functions of the tools/ scripts (sourced, not run).
# shellcheck shell=bash

ASYNCSPARSE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${JOBS:-$(nproc)}"

say() { echo "[asyncsparse] $*" >&2; }

# Install the Debian packages the build needs when they are missing (fresh machines). Needs root or
# sudo; otherwise names what is missing and stops.
ensure_packages() {
  local want=(cmake ninja-build g++ libgtest-dev libbenchmark-dev zlib1g-dev python3 "$@")
  local missing=()
  for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing missing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"; } >&2; then
    echo "error: could not install ${missing[*]} (apt-get failed; install them and run again)" >&2
    exit 1
  fi
}

# kokkos_prefix FLAVOUR: print the install prefix of Kokkos for FLAVOUR (bootstrapping it if needed).
# A user-provided Kokkos (Kokkos_ROOT) is used as is.
kokkos_prefix() {
  bash "$ASYNCSPARSE_ROOT/tools/bootstrap" "$1" | tail -n 1
}

# configure_build FLAVOUR BUILD_DIR [cmake args...]: configure and build AsyncSparse.
configure_build() {
  local flavour="$1" dir="$2"
  shift 2
  local prefix
  prefix="$(kokkos_prefix "$flavour")"
  local extra=()
  if [ "$flavour" = cuda ]; then extra+=("-DCMAKE_CXX_COMPILER=$prefix/bin/nvcc_wrapper" "-DCMAKE_CXX_FLAGS=-arch=sm_90"); fi
  if [ "$flavour" = hip ]; then extra+=("-DCMAKE_CXX_COMPILER=hipcc"); fi
  say "configuring $dir ($flavour, Kokkos in $prefix)"
  cmake -S "$ASYNCSPARSE_ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" "${extra[@]}" "$@" >"$dir.configure.log" 2>&1 ||
    { tail -n 40 "$dir.configure.log" >&2; echo "error: CMake configure failed (log: $dir.configure.log)" >&2; exit 1; }
  say "building $dir ($JOBS jobs)"
  cmake --build "$dir" -j "$JOBS" ||
    { echo "error: build failed in $dir" >&2; exit 1; }
}
